#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fault-qp-ae.sh: the guest side of tests/system/fault-qp-ae.sh.  Guest 1
# serves two rping connections (ports 7174 and 7175), guest 0 runs both
# clients; once both move data, guest 0 asks its device for an AE on the
# next QP whose SQ doorbell rings (docs/faults.md).
. /job/files/lib.sh
sh /job/files/bringup || exit 1
ping_lines() {
	grep -c "$1" "$2" 2>/dev/null
}
if [ "$GUEST_ID" = 1 ]; then
	for p in 7174 7175; do
		rping -s -a "$GUEST_IP" -p $p -C "$COUNT" -v -V -S 1024 > /tmp/s$p.log 2>&1 &
		eval pid$p=$!
	done
	listen_wait fault-qp-ae
	vm-barrier listening
	wait $pid7174; r1=$?
	wait $pid7175; r2=$?
	echo "server 7174: exit $r1 lines $(ping_lines 'server ping data' /tmp/s7174.log) disconnect $(ping_lines 'DISCONNECT EVENT' /tmp/s7174.log)"
	echo "server 7175: exit $r2 lines $(ping_lines 'server ping data' /tmp/s7175.log) disconnect $(ping_lines 'DISCONNECT EVENT' /tmp/s7175.log)"
	exit 0
fi
vm-barrier listening
for p in 7174 7175; do
	rping -c -a "$PEER_IP" -p $p -C "$COUNT" -v -V -S 1024 > /tmp/c$p.log 2>&1 &
	eval pid$p=$!
done
t=0
while [ $t -lt 600 ]; do
	a=$(ping_lines '^ping data' /tmp/c7174.log)
	b=$(ping_lines '^ping data' /tmp/c7175.log)
	[ "${a:-0}" -ge 20 ] && [ "${b:-0}" -ge 20 ] && break
	sleep 0.2
	t=$((t + 1))
done
echo "both moving: $a and $b lines"
vm-monitor "qom-set nic0 fault qp-ae:qp=next:ae=0x0502" && echo "fault armed"
wait $pid7174; r1=$?
wait $pid7175; r2=$?
echo "client 7174: exit $r1 lines $(ping_lines '^ping data' /tmp/c7174.log) disconnect $(ping_lines 'DISCONNECT EVENT' /tmp/c7174.log)"
echo "client 7175: exit $r2 lines $(ping_lines '^ping data' /tmp/c7175.log) disconnect $(ping_lines 'DISCONNECT EVENT' /tmp/c7175.log)"
grep -hvE '^(server )?ping data' /tmp/c7174.log /tmp/c7175.log | tail -6
exit 0
