#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: one fabric over two hosts.  Two network namespaces made for
# the test stand in for two machines (a veth pair between them, addresses
# only inside them; nothing leaves them).  In each, scripts/vm runs two
# e810 guests on its own switch, and --uplink joins the two switches with
# libvdeplug4's UDP cable across the namespaces: guests 0, 1 on host A,
# 2, 3 on host B (--first-guest, --fabric-guests).  Every guest reaches
# every other, and guests 2 and 3 (host B) move COUNT verified rping
# iterations with guest 0 (host A), in MODE (default iwarp).  Needs root
# (network namespaces).
set -u
. "$(dirname "$0")/lib.sh"

MODE=${MODE:-iwarp}
COUNT=${COUNT:-20}
SIZE=${SIZE:-4096}
SUDO=
[ "$(id -u)" = 0 ] || SUDO="sudo -n"
ns_a=e810hA$$ ns_b=e810hB$$
cleanup() {
	$SUDO ip netns del "$ns_a" 2> /dev/null
	$SUDO ip netns del "$ns_b" 2> /dev/null
}
trap cleanup EXIT
set_up() {
	$SUDO ip netns add "$ns_a" && $SUDO ip netns add "$ns_b" &&
	$SUDO ip link add "va$$" type veth peer name "vb$$" &&
	$SUDO ip link set "va$$" netns "$ns_a" && $SUDO ip link set "vb$$" netns "$ns_b" &&
	$SUDO ip -n "$ns_a" addr add 10.254.0.1/30 dev "va$$" &&
	$SUDO ip -n "$ns_b" addr add 10.254.0.2/30 dev "vb$$" &&
	$SUDO ip -n "$ns_a" link set "va$$" up && $SUDO ip -n "$ns_b" link set "vb$$" up &&
	$SUDO ip -n "$ns_a" link set lo up && $SUDO ip -n "$ns_b" link set lo up
}
if ! set_up; then
	fail "could not make the two namespaces (root, or sudo without a password, is needed)"
	pass_fail
fi

# host NS OUT ARGS...: scripts/vm in namespace NS (as the caller's user).
host() {
	local ns=$1 out=$2
	shift 2
	# shellcheck disable=SC2086
	$SUDO ip netns exec "$ns" ${SUDO:+sudo -u "$(id -un)" -E} \
		"$VM" --out "$out" --trace 'e810_rdma_ccq_overconsume*' ${E810_VM_ARGS:-} \
		--file "$JOBS/lib.sh" --file "$TOP/guest-driver/bringup" \
		--script "$JOBS/fabric-hosts.sh" --guests 2 --nic e810 --mode "$MODE" \
		--fabric-guests 4 --env COUNT="$COUNT" --env SIZE="$SIZE" --env CLIENTS="2 3" \
		--env MODE="$MODE" --timeout 1500 "$@"
}
host "$ns_a" "$OUT/hA/run" --uplink "udp://7700->10.254.0.2:7700" > "$OUT/hA.log" 2>&1 &
pa=$!
host "$ns_b" "$OUT/hB/run" --uplink "udp://7700->10.254.0.1:7700" --first-guest 2 > "$OUT/hB.log" 2>&1 &
pb=$!
wait $pa; rc_a=$?
wait $pb; rc_b=$?
[ $rc_a = 0 ] || fail "host A: scripts/vm exit $rc_a: $(tail -3 "$OUT/hA.log" | tr '\n' ' ')"
[ $rc_b = 0 ] || fail "host B: scripts/vm exit $rc_b: $(tail -3 "$OUT/hB.log" | tr '\n' ' ')"

# The checks read $OUT/run/gN: host A's guests are g0, g1 of its run,
# host B's g0, g1 of its own (fabric guests 2, 3).
TOP_OUT=$OUT
for g in 0 1; do
	for h in hA hB; do
		OUT=$TOP_OUT/$h
		id=$g
		[ $h = hB ] && id=$((g + 2))
		assert_rdma_guest $g
		[ "$MODE" = roce ] && assert_rdma_dmesg $g abnormal
		n=$(grep -cE '^ping .* ok$' "$OUT/run/g$g/output.log" 2> /dev/null)
		[ "${n:-0}" = 3 ] || fail "guest $id reached ${n:-0} of its 3 peers"
	done
done
OUT=$TOP_OUT/hA
assert_output 0 "^server data lines $((2 * COUNT))\$"
OUT=$TOP_OUT/hB
for g in 0 1; do
	assert_output $g "^client data lines $COUNT exit 0 "
done
OUT=$TOP_OUT
echo "server: $(grep -h '^server data lines' "$OUT/hA/run/g0/output.log"); clients: $(grep -h '^client data lines' "$OUT"/hB/run/g*/output.log | tr '\n' ';')"
pass_fail
