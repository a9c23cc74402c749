#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: the card taken out of its PCIe slot during traffic and put
# back (docs/faults.md, hot-unplug), in iWARP mode through the guest's
# request (vm-ctl hotplug: QEMU's device_del and device_add) CYCLES
# times, the same with the device out of process (e810-vfio-user, a new
# server at each re-plug), and in RoCEv2 mode through --fault hot-unplug
# once.  Each time the rping running on guest 0 ends, ice and irdma go
# with the card, and once it is back they probe it again in the mode it
# had and a verified rping runs both ways.  QEMU does not leak: with the
# card in use (before each removal, after the last cycle) its fd count is
# the same every time, one e810 object is alive in it (the device's
# x-live-instances: none of the old ones is held), and its own memory
# (QEMU's and the device's, not the guest's RAM) grows by at most LEAK_KB
# a cycle on average from before the third removal to the end (the first
# cycles warm the allocator up; under TCG the vCPU threads' TLB tables
# grow with the guest's work, ~0.2-1.2 MB a cycle, more out of process).  The kernel logs have no WARN, BUG or oops and ice
# and irdma say nothing beyond what they say at every probe.  Last, a
# two-port card (--ports 2) leaves its slot whole and comes back: both
# functions, both irdma devices ACTIVE in iWARP again, QEMU's fds the
# same and both e810 objects alive (no old one).
set -u
. "$(dirname "$0")/lib.sh"

CYCLES=${CYCLES:-6}
LEAK_KB=${LEAK_KB:-2048}

# check_cycles TAG MODE N: guest 0's cycles as the job reported them.
check_cycles() {
	local tag=$1 want c
	want=$(sed -n 's/^mode before: //p' "$OUT/run/g0/output.log")
	case "$2:$want" in iwarp:iWARP|roce:RoCE) ;; *) fail "$tag: g0 mode before '$want'" ;; esac
	for c in $(seq 1 "$3"); do
		assert_output 0 "^cycle $c: out: function '', ib devices ''\$"
		assert_output 0 "^cycle $c: back after [0-9.]+ s: function [0-9a-f:.]+, irdma[0-9]+, $want\$"
		assert_output 0 "^cycle $c: rping exit [0-9]+, data lines [0-9]+\$"
		for g in 0 1; do
			assert_output $g "^rping after cycle $c: exit 0\$"
		done
	done
	! grep -q 'rping still running' "$OUT/run/g0/output.log" ||
		fail "$tag: g0's rping outlived its device"
	for g in 0 1; do
		assert_status $g 0
		bad=$(grep -E 'WARNING:|BUG:|Oops|Call Trace' "$OUT/run/g$g/dmesg.log" | head -3)
		[ -z "$bad" ] || fail "$tag: g$g kernel log: $bad"
		assert_ice_dmesg $g
	done
	bad=$(grep -E 'irdma' "$OUT/run/g0/dmesg.log" |
		grep -iE 'fail|timeout|timed out|error|unable' | head -5)
	[ -z "$bad" ] || fail "$tag: g0 irdma says: $bad"
}

# leak_check TAG: QEMU's fd count, e810 objects and own memory, the card
# in use (before each removal, and after the last cycle), as above.
leak_check() {
	local lines base fds own third last n
	grep -E "^(cycle [0-9]+: hotplug: g0 nic0 out|final: usage: g0 qemu)" "$OUT/run/g0/output.log"
	lines=$(grep -E "^(cycle [0-9]+: hotplug: g0 nic0 out|final: usage: g0 qemu)" "$OUT/run/g0/output.log" |
		sed -E 's/.*(before:|final: usage: g0) qemu rss [0-9]+ kB own ([0-9]+) kB fds ([0-9]+).*/\2 \3/')
	[ "$(echo "$lines" | grep -cE '^[0-9]+ [0-9]+$')" = $((CYCLES + 1)) ] ||
		{ fail "$1: QEMU measured $(echo "$lines" | grep -c .) times, expected $((CYCLES + 1))"; return; }
	base=$(echo "$lines" | head -1 | cut -d' ' -f2)
	while read -r own fds; do
		# (the launcher's own monitor connection may be open at one look
		# and not at another: a leak is a count that grows)
		[ "$fds" -le "$base" ] || fail "$1: QEMU has $fds fds with the card in use, $base before the first removal"
	done <<< "$lines"
	if [ "$1" != vfio-user ]; then
		n=$(grep -E "^(cycle [0-9]+: hotplug: g0 nic0 out.*before: .* e810s 1;|final: usage: g0 .* e810s 1\$)" \
			"$OUT/run/g0/output.log" | grep -c .)
		[ "$n" = $((CYCLES + 1)) ] ||
			fail "$1: one live e810 object in QEMU $n times of $((CYCLES + 1)) (an old one still held?)"
	fi
	third=$(echo "$lines" | sed -n '3p' | cut -d' ' -f1)
	last=$(echo "$lines" | tail -1 | cut -d' ' -f1)
	echo "$1: QEMU's own memory before removal 3: $third kB, after cycle $CYCLES: $last kB"
	[ $((last - third)) -le $((LEAK_KB * (CYCLES - 2))) ] ||
		fail "$1: QEMU's own memory grew $((last - third)) kB in $((CYCLES - 2)) cycles (at most $LEAK_KB a cycle)"
}

# iWARP: the guest asks, CYCLES times; QEMU's fds and memory each time.
vm_job hot-unplug --guests 2 --nic e810 --mode iwarp --env CYCLES="$CYCLES" --timeout 1200
check_cycles iwarp iwarp "$CYCLES"
leak_check iwarp
rm -rf "$OUT/run-iwarp"; mv "$OUT/run" "$OUT/run-iwarp"

# The same out of process (e810-vfio-user; a new server at each re-plug)
# with the QEMU built here (a stock one aborts on the unplug: docs/faults.md).
if [ -z "${E810_VM_ARGS:-}" ]; then
	vfu_server
	vm_job hot-unplug --guests 2 --nic e810 --mode iwarp --device-backend vfio-user \
		--env CYCLES="$CYCLES" --timeout 1200
	check_cycles vfio-user iwarp "$CYCLES"
	leak_check vfio-user
	rm -rf "$OUT/run-vfio-user"; mv "$OUT/run" "$OUT/run-vfio-user"
fi

# RoCEv2: the launcher takes the card out by itself (--fault), once.
vm_job hot-unplug --guests 2 --nic e810 --mode roce --env CYCLES=1 --env HOTPLUG=fault \
	--fault 'g0:hot-unplug:at=8:replug=3' --timeout 1200
check_cycles roce roce 1
grep -q 'injected hot-unplug hotplug: g0 nic0 out' "$OUT/run/g0/faults.log" ||
	fail "roce: faults.log has no hot-unplug: $(cat "$OUT/run/g0/faults.log")"
grep -q 'injected hot-plug hotplug: g0 nic0 back' "$OUT/run/g0/faults.log" ||
	fail "roce: faults.log has no re-plug"

# The two-port card: function 0's removal takes the slot's every function;
# back, the card's further port comes first and function 0 takes it in.
# (E810_VM_ARGS with --device-backend vfio-user: one function a server)
case "${E810_VM_ARGS:-}" in
*vfio-user*) echo "  (two-port card: not out of process, a server has one function)" >&2; pass_fail ;;
esac
vm_job hot-unplug-card --guests 1 --nic e810 --ports 2 --mode iwarp --timeout 600
assert_status 0 0
assert_clean_dmesg 0
assert_ice_dmesg 0
assert_rdma_dmesg 0
assert_output 0 "^before: functions [0-9a-f:.]+\.0 [0-9a-f:.]+\.1 ; ib devices irdma[0-9]+ irdma[0-9]+ ; 2 ACTIVE\$"
assert_output 0 "^out after [0-9.]+ s: functions '', ib devices ''\$"
assert_output 0 "^back after [0-9.]+ s: functions 2, 2 ACTIVE, iWARP\$"
b=$(sed -n 's/^before: usage: g0 qemu .* fds \([0-9]*\) e810s 2$/\1/p' "$OUT/run/g0/output.log")
e=$(sed -n 's/^after: usage: g0 qemu .* fds \([0-9]*\) e810s 2$/\1/p' "$OUT/run/g0/output.log")
echo "two-port card: QEMU's fds $b before, $e after; $(grep '^back after' "$OUT/run/g0/output.log")"
[ -n "$b" ] && [ -n "$e" ] && [ "$e" -le "$b" ] ||
	fail "two-port card: QEMU's fds '$b' before, '$e' after, with two e810s each time"
pass_fail
