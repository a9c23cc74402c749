#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: an MPI job across the guests over the e810's RDMA device,
# as a user's scripts/ci job would run one.  Debian's Open MPI with mpi4py
# and libfabric (--packages, on the packages disk), Open MPI's launcher
# over ssh between the guests (dropbear, a key made for the run), the
# data over libfabric's verbs;ofi_rxm provider on irdma (pml cm, mtl ofi:
# MPI_Init fails rather than fall back to TCP).  guest-driver/mpi-check.py
# on every guest: an allreduce, ROUNDS ring rounds of BYTES of per-rank
# patterns, each checked, a ping-pong.  In iWARP and RoCEv2 mode on two
# guests; each guest's irdma counters must show it sent and received the
# ring's bytes over RDMA.  MPI_GUESTS=4 runs iWARP on four guests too
# (a switch; --full).
set -u
. "$(dirname "$0")/lib.sh"

BYTES=${BYTES:-1048576}
ROUNDS=${ROUNDS:-10}
PKGS=openmpi-bin,python3-mpi4py,libfabric-bin,dropbear-bin
ssh-keygen -q -t ed25519 -N '' -C e810-mpi -f "$OUT/mpi-key" || { fail "ssh-keygen"; pass_fail; }

# check MODE N: the run of N guests in $OUT/run.
check() {
	local g before after out in n=$2
	[ "$VM_RC" = 0 ] || fail "$1: scripts/vm exit $VM_RC"
	assert_output 0 '^mpirun exit 0$'
	assert_output 0 '^mpi-check: all ranks verified$'
	for ((g = 0; g < n; g++)); do
		assert_rdma_guest $g
		assert_output 0 "^mpi-check: rank $g of $n on g$g: allreduce and $ROUNDS ring rounds of $BYTES bytes verified\$"
		before=$(sed -n 's/^counters before: //p' "$OUT/run/g$g/output.log")
		after=$(sed -n 's/^counters after: //p' "$OUT/run/g$g/output.log")
		out=$(( $(echo "$after" | awk '{ for (i = 1; i < NF; i++) if ($i == "ip4OutOctets") print $(i + 1) }') -
			$(echo "$before" | awk '{ for (i = 1; i < NF; i++) if ($i == "ip4OutOctets") print $(i + 1) }') ))
		in=$(( $(echo "$after" | awk '{ for (i = 1; i < NF; i++) if ($i == "ip4InOctets") print $(i + 1) }') -
			$(echo "$before" | awk '{ for (i = 1; i < NF; i++) if ($i == "ip4InOctets") print $(i + 1) }') ))
		echo "$1: g$g's irdma: $out octets out, $in in"
		[ "$out" -ge $((BYTES * ROUNDS)) ] && [ "$in" -ge $((BYTES * ROUNDS)) ] ||
			fail "$1: g$g's irdma moved $out/$in octets out/in, less than the ring's $((BYTES * ROUNDS))"
	done
	grep -h '^mpi-check: ping-pong' "$OUT/run/g0/output.log" | sed "s/^/$1: /"
}

for MODE in ${MODES:-iwarp roce}; do
	vm_job mpi --guests 2 --nic e810 --mode "$MODE" --packages "$PKGS" \
		--file "$OUT/mpi-key" --file "$OUT/mpi-key.pub" --file "$TOP/guest-driver/mpi-check.py" \
		--env BYTES="$BYTES" --env ROUNDS="$ROUNDS" --timeout 900
	check "$MODE" 2
	rm -rf "$OUT/run-$MODE"; mv "$OUT/run" "$OUT/run-$MODE"
done
if [ "${MPI_GUESTS:-2}" -gt 2 ]; then
	vm_job mpi --guests "$MPI_GUESTS" --nic e810 --mode iwarp --packages "$PKGS" \
		--file "$OUT/mpi-key" --file "$OUT/mpi-key.pub" --file "$TOP/guest-driver/mpi-check.py" \
		--env BYTES="$BYTES" --env ROUNDS="$ROUNDS" --timeout 1200
	check "iwarp, $MPI_GUESTS guests" "$MPI_GUESTS"
	rm -rf "$OUT/run-$MPI_GUESTS"; mv "$OUT/run" "$OUT/run-$MPI_GUESTS"
fi
VM_RC=0
pass_fail
