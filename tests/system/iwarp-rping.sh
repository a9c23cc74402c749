#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: iWARP between two guests on the emulated E810.  Both guests
# bring irdma up in iWARP mode; irdma's connection manager negotiates MPA
# over our link (the active side sends the MPA request, the passive side
# answers), then rping moves verified data with SEND, RDMA READ and RDMA
# WRITE.  Two rounds, one per direction, each with COUNT iterations at
# every size in SIZES.  The link is captured: the MPA request and reply must
# be on the wire with revision 2, and the kernel logs must stay clean.
# The engine's statistics (rdma statistic show) count the rounds' RDMA
# operations and at least their bytes, and the port's (ethtool -S) all of
# those bytes too.
set -u
. "$(dirname "$0")/lib.sh"

rping_pair_job iwarp-rping 100 iwarp
for g in 0 1; do
	assert_rdma_guest $g
	assert_rping_rounds $g
	# Each guest is the server of one round: per iteration it reads the
	# client's buffer and writes it back, and both sides send twice.
	bytes=0
	for size in $SIZES; do bytes=$((bytes + COUNT * size)); done
	n=$((COUNT * $(echo $SIZES | wc -w)))
	for s in OutRdmaReads InRdmaReads OutRdmaWrites InRdmaWrites; do
		assert_ge $g "$s" "$(rdma_stat $g "(iw)?$s")" $n
	done
	assert_ge $g OutRdmaSends "$(rdma_stat $g '(iw)?OutRdmaSends')" $((4 * n))
	assert_ge $g InRdmaSends "$(rdma_stat $g '(iw)?InRdmaSends')" $((4 * n))
	in_oct=$(rdma_stat $g ip4InOctets)
	assert_ge $g ip4InOctets "$in_oct" $((2 * bytes))
	assert_ge $g ip4OutOctets "$(rdma_stat $g ip4OutOctets)" $((2 * bytes))
	assert_ge $g InSegs "$(rdma_stat $g '(tcp)?InSegs')" $((4 * n))
	assert_ge $g OutSegs "$(rdma_stat $g '(tcp)?OutSegs')" $((4 * n))
	assert_ge $g rx_bytes.nic "$(ethtool_stat $g rx_bytes.nic)" "${in_oct:-1}"
	echo "g$g: rdma $(grep '^rdma-stat:' "$OUT/run/g$g/output.log" | tail -1 |
		grep -oE '(ip4InOctets|ip4OutOctets|InSegs|OutSegs|RetransSegs|InRdmaWrites|OutRdmaWrites) [0-9]+' | tr '\n' ' ')"
done

# MPA on the wire (RFC 5044/6581): the key, then the flags byte and the
# revision byte 2.  Two connections per size and round.
n_req=$(grep -c . < <(grep -aob 'MPA ID Req Frame' "$OUT/link.pcap"))
n_rep=$(grep -c . < <(grep -aob 'MPA ID Rep Frame' "$OUT/link.pcap"))
[ "$n_req" -ge 1 ] || fail "no MPA request on the wire"
[ "$n_rep" -ge 1 ] || fail "no MPA reply on the wire"
rev=$(/usr/bin/python3 - "$OUT/link.pcap" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
revs = set()
for key in (b'MPA ID Req Frame', b'MPA ID Rep Frame'):
    i = d.find(key)
    while i >= 0:
        revs.add(d[i + 17])
        i = d.find(key, i + 1)
print(' '.join(str(r) for r in sorted(revs)))
PY
)
[ "$rev" = 2 ] || fail "MPA revision on the wire: '$rev', expected 2"
echo "MPA on the wire: $n_req requests, $n_rep replies, revision $rev"
pass_fail
