#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: our iWARP frames as a third-party dissector sees them.  Two
# e810 guests run a short rping (SEND, RDMA READ, RDMA WRITE), one
# ib_write_bw -R and one ib_read_bw -R over iWARP; the link is captured and
# Debian's tshark (sid, through tests/wire/tshark: bookworm's 4.0 lacks the
# MPA v2 fields) must decode it as MPA/DDP/RDMAP:
#  - at least one MPA request and one reply, every one revision 2;
#  - the MPA v2 enhanced connection fields: IRD and ORD present and
#    consistent per connection (nonzero on at least one request and one
#    reply), the peer-to-peer flag and the RTR type bits present;
#  - every FPDU's CRC valid (iwarp_mpa.crc_check "Good CRC32"), FPDUs exist;
#  - RDMAP Send, RDMA Write, Read Request and Read Response all present.
set -u
. "$(dirname "$0")/lib.sh"

TSHARK=$TOP/tests/wire/tshark
COUNT=${COUNT:-10}
# Make (or reuse) the tshark chroot before booting anything.
"$TSHARK" -- -v > "$OUT/tshark-version.txt" 2> "$OUT/tshark-build.log" ||
	{ tail -20 "$OUT/tshark-build.log"; echo "FAIL: $TEST_NAME: tests/wire/tshark setup failed"; exit 1; }
echo "tshark: $(head -1 "$OUT/tshark-version.txt")"

vm_job iwarp-wire --guests 2 --nic e810 --mode iwarp --env COUNT="$COUNT" \
	--pcap "$OUT/link.pcap" --timeout ${TIMEOUT:-600}
for g in 0 1; do
	assert_status $g 0
	assert_clean_dmesg $g
	for name in rping write_bw read_bw; do
		assert_output $g "^run $name: exit 0\$"
	done
done
[ -s "$OUT/link.pcap" ] || { fail "no capture"; pass_fail; }

# The MPA request and reply frames, one line each.
F_MPA='-e frame.number -e iwarp_mpa.key.req -e iwarp_mpa.key.rep -e iwarp_mpa.rev
	-e iwarp_mpa.enhanced_flag -e iwarp_mpa.enhanced.a -e iwarp_mpa.enhanced.b
	-e iwarp_mpa.enhanced.c -e iwarp_mpa.enhanced.D -e iwarp_mpa.enhanced.ird
	-e iwarp_mpa.enhanced.ord -e tcp.stream'
"$TSHARK" -q "$OUT/link.pcap" -Y 'iwarp_mpa.req or iwarp_mpa.rep' -T fields \
	-E separator='|' -E occurrence=f $F_MPA > "$OUT/mpa.txt" 2> "$OUT/tshark.err" ||
	fail "tshark failed: $(grep -v 'Running as user' "$OUT/tshark.err" | head -3)"
n_req=$(awk -F'|' '$2 != ""' "$OUT/mpa.txt" | wc -l)
n_rep=$(awk -F'|' '$3 != ""' "$OUT/mpa.txt" | wc -l)
[ "$n_req" -ge 1 ] || fail "tshark sees no MPA request"
[ "$n_rep" -ge 1 ] || fail "tshark sees no MPA reply"
bad=$(awk -F'|' '$4 != 2' "$OUT/mpa.txt" | head -3)
[ -z "$bad" ] || fail "MPA frames not revision 2: $bad"
# Enhanced RDMA connection establishment (RFC 6581): the flag set, the
# peer-to-peer flag (A) and the RTR type flags (B send, C write, D read)
# decoded, at least one RTR type offered.  IRD/ORD: what the application
# asked for (perftest's write_bw connects with IRD 0), so per connection
# the responder's ORD must not exceed the initiator's IRD nor the
# initiator's ORD the responder's IRD, and at least one request and one
# reply carry IRD and ORD both nonzero.
bad=$(awk -F'|' '$5 != "True" || $6 != "True" || $7 == "" || $8 == "" || $9 == "" ||
	$10 == "" || $11 == "" || ($7 != "True" && $8 != "True" && $9 != "True")' "$OUT/mpa.txt" | head -3)
[ -z "$bad" ] || fail "MPA v2 enhanced fields wrong (frame|req|rep|rev|enh|p2p|B|C|D|ird|ord|stream): $bad"
bad=$(awk -F'|' '$2 != "" { ird[$12] = $10; ord[$12] = $11 }
	$3 != "" && ($12 in ird) && ($11 + 0 > ird[$12] + 0 || ord[$12] + 0 > $10 + 0) {
		print "stream " $12 ": req ird/ord " ird[$12] "/" ord[$12] " rep " $10 "/" $11 }' "$OUT/mpa.txt" | head -3)
[ -z "$bad" ] || fail "MPA IRD/ORD inconsistent: $bad"
awk -F'|' '$2 != "" && $10 > 0 && $11 > 0' "$OUT/mpa.txt" | grep -q . || fail "no MPA request with IRD and ORD nonzero"
awk -F'|' '$3 != "" && $10 > 0 && $11 > 0' "$OUT/mpa.txt" | grep -q . || fail "no MPA reply with IRD and ORD nonzero"

# Every FPDU: the dissector recomputes the CRC32c ("CRC check: 0x... (Good
# CRC32)", anything else is a bad one).
"$TSHARK" -q "$OUT/link.pcap" -Y iwarp_mpa.fpdu -V 2> "$OUT/tshark.err" |
	grep -E '^ *CRC check:' > "$OUT/crc.txt"
n_fpdu=$(wc -l < "$OUT/crc.txt")
n_bad=$(grep -vc 'Good CRC32' "$OUT/crc.txt")
[ "$n_fpdu" -gt 0 ] || fail "tshark sees no FPDU"
[ "$n_bad" = 0 ] || fail "$n_bad of $n_fpdu FPDUs with a bad CRC: $(grep -v 'Good CRC32' "$OUT/crc.txt" | head -3)"

# DDP/RDMAP decoded: the RDMAP opcodes on the wire.
"$TSHARK" -q "$OUT/link.pcap" -Y iwarp_rdma -T fields -E occurrence=a -E aggregator=, \
	-e iwarp_rdma.opcode 2> "$OUT/tshark.err" | tr , '\n' | sort | uniq -c > "$OUT/opcodes.txt"
ops=""
for op in 0x00:Write 0x01:ReadRequest 0x02:ReadResponse 0x03:Send; do
	n=$(awk -v o="${op%%:*}" '$2 == o { print $1 }' "$OUT/opcodes.txt")
	[ "${n:-0}" -gt 0 ] || fail "no RDMAP ${op#*:} (opcode ${op%%:*}) decoded"
	ops="$ops ${op#*:} ${n:-0}"
done

echo "tshark: MPA $n_req requests, $n_rep replies, revision 2; ird/ord/p2p/B/C/D per frame:" \
	$(awk -F'|' '{ print ($2 != "" ? "req" : "rep") "=" $10 "/" $11 "/" $6 "/" $7 "/" $8 "/" $9 }' "$OUT/mpa.txt")
echo "tshark: $n_fpdu FPDUs, $n_bad bad CRC; RDMAP:$ops"
pass_fail
