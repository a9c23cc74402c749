#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: RoCEv2 between two guests on the emulated E810, the mode
# irdma binds in at boot (no devlink switch).  rdma_cm's connection manager
# talks through the GSI QP 1 (a UD QP of the device), then rping moves
# verified data with SEND, RDMA READ and RDMA WRITE over RC QPs.  Two
# rounds, one per direction, COUNT iterations at every size in SIZES.  The
# link is captured: every RoCEv2 frame on it must carry a good ICRC and
# IPv4 checksum (tests/wire/roce-check.py recomputes them with zlib), the
# UD (CM MADs) and RC opcodes must all be there, Wireshark's dissector
# (sid's tshark, tests/wire/tshark) must decode every one of them as
# InfiniBand over RoCEv2 with the same ICRC, and the kernel logs must stay
# clean.
set -u
. "$(dirname "$0")/lib.sh"

rping_pair_job roce-rping 50 roce
for g in 0 1; do
	assert_rdma_guest $g abnormal
	assert_output $g '^bringup: RoCEv2 device irdma'
	assert_output $g '^bringup: GID of .*RoCE v2'
	assert_output $g '^transport: InfiniBand'
	assert_output $g '^qps after: 0$'
	assert_rping_rounds $g
done

# The wire: every RoCEv2 frame with a good ICRC; CM MADs on UD (0x64),
# and SEND_ONLY, RDMA WRITE, READ request/response and ACKs on RC.
wire=$(/usr/bin/python3 "$TOP/tests/wire/roce-check.py" "$OUT/link.pcap")
wrc=$?
echo "wire: $wire"
[ $wrc = 0 ] || fail "RoCEv2 frames on the wire: $wire"
for op in 0x64 0x04 0x0a 0x0c 0x10 0x11; do
	grep -q "op$op=" <<< "$wire" || fail "no BTH opcode $op on the wire"
done

# Wireshark's view (it shows the ICRC but does not verify it: the
# recomputation above does): every RoCEv2 frame dissected with a BTH and
# the ICRC field, the opcodes as counted above.
TSHARK=$TOP/tests/wire/tshark
if "$TSHARK" -q "$OUT/link.pcap" -Y 'udp.dstport == 4791' -T fields \
	-e infiniband.bth.opcode -e infiniband.invariant.crc > "$OUT/tshark.txt" 2> "$OUT/tshark.log"; then
	n=$(sed -n 's/^frames \([0-9]*\) .*/\1/p' <<< "$wire")
	n_ib=$(awk -F'\t' '$1 != "" && $2 ~ /^0x/' "$OUT/tshark.txt" | wc -l)
	echo "tshark: $n_ib of $n RoCEv2 frames decoded as InfiniBand with BTH and ICRC"
	[ "$n_ib" = "$n" ] || fail "tshark decoded $n_ib of $n RoCEv2 frames"
	ops=$(awk -F'\t' '{ c[$1]++ } END { for (o in c) printf "op0x%02x=%d\n", o, c[o] }' "$OUT/tshark.txt" | sort | tr '\n' ' ')
	for o in $ops; do
		[[ " $wire " == *" $o "* ]] || fail "tshark's opcode count $o differs from the capture check"
	done
else
	fail "tshark failed: $(tail -1 "$OUT/tshark.log")"
fi
pass_fail
