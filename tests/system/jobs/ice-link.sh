#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ice-link.sh: the guest side of tests/system/ice-link.sh.
dev=$(net-up) || { echo "net-up failed"; exit 1; }
c=/sys/class/net/$dev/carrier
echo "netdev $dev carrier $(cat $c) operstate $(cat /sys/class/net/$dev/operstate)"
ip -br link show "$dev"
# wait_carrier VALUE: up to 15 s.
wait_carrier() {
	i=0
	while [ "$(cat $c 2>/dev/null)" != "$1" ]; do
		i=$((i + 1))
		[ $i -gt 150 ] && return 1
		sleep 0.1
	done
}
vm-barrier up
ping -c 3 -i 0.2 -W 5 "$PEER_IP" > /dev/null 2>&1 || echo "warm-up ping failed"
rc=0
for g in 0 1; do
	vm-barrier "flap$g"
	if [ "$GUEST_ID" = $g ]; then
		vm-monitor "set_link n0 off" || rc=1
		if wait_carrier 0; then echo "set_link off: carrier 0"; else echo "set_link off: carrier $(cat $c)"; rc=1; fi
		sleep 1
		vm-monitor "set_link n0 on" || rc=1
		if wait_carrier 1; then echo "set_link on: carrier 1"; else echo "set_link on: carrier $(cat $c)"; rc=1; fi
		ip -br link show "$dev"
	fi
	vm-barrier "flapped$g"
done
ping -c 50 -i 0.05 -W 5 "$PEER_IP" > /tmp/ping.log 2>&1 || rc=1
tail -2 /tmp/ping.log
vm-barrier done
exit $rc
