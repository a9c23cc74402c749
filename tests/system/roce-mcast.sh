#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: RoCEv2 multicast between two guests on the emulated E810.
# rdma_cm's mckey joins GROUP in both guests (CREATE_MCAST_GRP, then
# MODIFY_MCAST_GRP when guest 1's sender joins beside its receiver, and
# back on leave; DESTROY with the last), guest 1 sends COUNT UD datagrams
# of every size in SIZES to the group: guest 0's receiver takes them from
# the wire, guest 1's from the device's loopback (the AH's DOLOOPBACK),
# and each must get every one (mckey's receiver polls for COUNT
# completions).  The device's traces count one group delivery per
# datagram in each guest and no multicast drop; the link carries COUNT
# frames per size to the group's MAC with DestQP 0xFFFFFF, each with a
# good ICRC; the kernel logs hold no irdma error (no "Cmd Error", no CQP
# failure) and the RDMA resources are back to their baseline.
set -u
. "$(dirname "$0")/lib.sh"

# mckey's sender destroys its QP right after posting: the device sends
# what is posted then, within one entry's budget (32 datagrams with the
# loopback copies), so COUNT stays below that.
COUNT=${COUNT:-30}
SIZES=${SIZES:-100 1024}
GROUP=${GROUP:-239.1.1.10}

vm_job roce-mcast --guests 2 --nic e810 --mode roce \
	--env COUNT="$COUNT" --env SIZES="$SIZES" --env GROUP="$GROUP" \
	--pcap "$OUT/link.pcap" --trace 'e810_roce_mcast_*' \
	--trace 'e810_rdma_mcg' --trace 'e810_roce_drop' \
	--trace 'e810_rdma_cqp_err' --qemu-arg '-d guest_errors' --timeout 900

nsizes=$(wc -w <<< "$SIZES")
for g in 0 1; do
	assert_rdma_guest $g abnormal
	assert_output $g '^bringup: RoCEv2 device irdma'
	for size in $SIZES; do
		assert_output $g "^size $size: groups of [^:]*: .*$GROUP "
		assert_output $g "^size $size: receiver mckey: joined dgid: ::ffff:$GROUP"
		assert_output $g "^size $size: receiver 1 complete exit 0\$"
	done
	assert_output $g '^res counts back to baseline'
	bad=$(grep -E 'Cmd Error|cqp opcode|maj_err_code|CQP.*(fail|timeout)' "$OUT/run/g$g/dmesg.log" | head -3)
	[ -z "$bad" ] && echo "g$g dmesg: no CQP error" || fail "g$g kernel log: $bad"
	assert_no_rdma_gerr $g
	assert_no_trace $g 'e810_rdma_cqp_err' 'CQP ops failed'
	assert_no_trace $g 'e810_roce_drop.*(multicast|group member)' 'multicast datagrams dropped'
	# Every datagram reached this guest's group once: from the wire in
	# guest 0, through the loopback in guest 1.
	n=$(grep -c 'e810_roce_mcast_rx' "$OUT/run/g$g/trace.log" 2>/dev/null)
	echo "g$g: ${n:-0} datagrams to the group, $(grep -c 'e810_rdma_mcg' "$OUT/run/g$g/trace.log") group ops"
	[ "${n:-0}" = $((COUNT * nsizes)) ] || fail "g$g: ${n:-0} group deliveries, expected $((COUNT * nsizes))"
	grep -q 'e810_rdma_mcg create multicast group' "$OUT/run/g$g/trace.log" ||
		fail "g$g: no CREATE_MCAST_GRP"
	grep -q 'e810_rdma_mcg destroy multicast group' "$OUT/run/g$g/trace.log" ||
		fail "g$g: no DESTROY_MCAST_GRP"
	grep -E '^ipv6 exit' "$OUT/run/g$g/output.log"
done
for size in $SIZES; do
	assert_output 1 "^size $size: sender 1 complete exit 0\$"
done
# Guest 1's sender joined beside its receiver: the group was modified.
grep -q 'e810_rdma_mcg modify multicast group .*: 2 qps' "$OUT/run/g1/trace.log" ||
	fail "g1: no MODIFY_MCAST_GRP to two QPs"
# Sent once, looped back to both of guest 1's members.
n=$(grep -c 'e810_roce_mcast_tx.*loopback 1' "$OUT/run/g1/trace.log")
[ "$n" = $((COUNT * nsizes)) ] || fail "g1: $n multicast sends with loopback, expected $((COUNT * nsizes))"

# The wire: every RoCEv2 frame with a good ICRC and checksums, and the
# datagrams to the group: its MAC, DestQP 0xFFFFFF, UD SEND with
# immediate (mckey's), COUNT per size.
wire=$(/usr/bin/python3 "$TOP/tests/wire/roce-check.py" "$OUT/link.pcap")
wrc=$?
echo "wire: $wire"
[ $wrc = 0 ] || fail "RoCEv2 frames on the wire: $wire"
mc=$(/usr/bin/python3 - "$OUT/link.pcap" "$GROUP" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
end = '<' if struct.unpack('<I', d[:4])[0] in (0xa1b2c3d4, 0xa1b23c4d) else '>'
g = bytes(int(x) for x in sys.argv[2].split('.'))
mac = bytes([0x01, 0x00, 0x5e, g[1] & 0x7f, g[2], g[3]])
off, n = 24, 0
while off + 16 <= len(d):
    incl = struct.unpack(end + 'IIII', d[off:off + 16])[2]
    f = d[off + 16:off + 16 + incl]
    off += 16 + incl
    if (len(f) > 58 and f[:6] == mac and f[12:14] == b'\x08\x00' and
            f[23] == 17 and f[30:34] == g and f[36:38] == b'\x12\xb7' and
            f[42] == 0x65 and f[47:50] == b'\xff\xff\xff'):
        n += 1
print(n)
EOF
)
echo "wire: $mc datagrams to $GROUP"
[ "$mc" = $((COUNT * nsizes)) ] || fail "$mc datagrams to the group on the wire, expected $((COUNT * nsizes))"
pass_fail
