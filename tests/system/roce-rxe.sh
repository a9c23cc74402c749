#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: the emulated E810 in RoCEv2 mode against Linux's Soft-RoCE
# (rdma_rxe over virtio-net), both ways.  Guest 0 has the e810 (irdma,
# RoCEv2 at boot), guest 1 a virtio-net NIC with an rxe device; rdma_cm
# connects them through each side's GSI QP 1 (irdma: the device's UD QP;
# rxe: its software one).  Round 0: rping server on the e810, client on
# rxe; round 1 the other way; COUNT verified iterations at every size in
# SIZES.  rxe checks the ICRC of every frame it takes (rxe_icrc_check), so
# a bad one shows as a hang; the capture is checked too
# (tests/wire/roce-check.py), and both kernel logs must stay clean.
set -u
. "$(dirname "$0")/lib.sh"

COUNT=${COUNT:-50}
SIZES=${SIZES:-64 4096 65535}

cat > "$OUT/job.sh" <<EOS
#!/bin/sh
if [ \$GUEST_ID = 0 ]; then
	MODE=roce sh /job/files/bringup || exit 1
else
	modprobe virtio_net 2>/dev/null	# COLDPLUG=0 (for the e810 guest) loads nothing
	dev=\$(net-up) || exit 1
	rdma link add rxe0 type rxe netdev \$dev || exit 1
	rdma link show
	i=0
	until ping -c 1 -W 2 \$PEER_IP >/dev/null; do
		i=\$((i + 1)); [ \$i -lt 15 ] || exit 1
	done
fi
rc=0
for round in 0 1; do
	for size in $SIZES; do
		tag="round \$round size \$size"
		if [ \$GUEST_ID = \$round ]; then
			timeout 300 rping -s -a \$GUEST_IP -C $COUNT -v -V -S \$size > /tmp/rping.log 2>&1 &
			pid=\$!
			i=0
			until rdma resource show cm_id 2>/dev/null | grep -q LISTEN; do
				i=\$((i + 1)); [ \$i -lt 200 ] || { echo "\$tag: server not listening"; cat /tmp/rping.log; exit 1; }
				sleep 0.1
			done
			vm-barrier "listen-\$round-\$size"
			r=0; wait \$pid || r=\$?
			echo "\$tag: server data lines \$(grep -c 'server ping data: rdma-ping-' /tmp/rping.log) exit \$r"
		else
			vm-barrier "listen-\$round-\$size" || exit 1
			timeout 300 rping -c -a \$PEER_IP -C $COUNT -v -V -S \$size > /tmp/rping.log 2>&1
			r=\$?
			echo "\$tag: client data lines \$(grep -c '^ping data: rdma-ping-' /tmp/rping.log) exit \$r"
		fi
		[ \$r = 0 ] || { tail -5 /tmp/rping.log; rc=1; }
		vm-barrier "done-\$round-\$size"
	done
done
exit \$rc
EOS

vm_run --guests 2 --nic0 e810 --nic1 virtio --env COLDPLUG=0 \
	--file "$TOP/guest-driver/bringup" --script "$OUT/job.sh" \
	--pcap "$OUT/link.pcap" --timeout 900
for g in 0 1; do
	assert_status $g 0
	assert_clean_dmesg $g
	for size in $SIZES; do
		assert_output $g "^round [01] size $size: (server|client) data lines $COUNT exit 0\$" 2
	done
done
bad=$(grep -iE 'irdma.*(fail|error|timeout|timed out|abnormal)' "$OUT/run/g0/dmesg.log" | head -3)
[ -z "$bad" ] || fail "g0 irdma says: $bad"
bad=$(grep -iE 'rxe.*(fail|error|bad|invalid)' "$OUT/run/g1/dmesg.log" | head -3)
[ -z "$bad" ] || fail "g1 rxe says: $bad"
wire=$(/usr/bin/python3 "$TOP/tests/wire/roce-check.py" "$OUT/link.pcap")
wrc=$?
echo "wire: $wire"
[ $wrc = 0 ] || fail "RoCEv2 frames on the wire: $wire"
pass_fail
