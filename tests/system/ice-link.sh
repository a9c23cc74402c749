#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: the state ice reaches at boot and the link as the QEMU monitor
# sets it.  Two guests with an e810 each: the DDP package is loaded (no Safe
# Mode), the netdev is up with carrier, and the kernel log holds no warning
# and no ice failure beyond the few a device without DCB/QinQ makes
# unavoidable (lib.sh ICE_DMESG_EXPECTED).  Then each guest in turn has its
# QEMU drop the link ("set_link n0 off"): the guest's carrier must go to 0
# with ice logging "NIC Link is Down", and back to 1 ("NIC Link is up") on
# "set_link n0 on"; afterwards both ping each other without loss.
set -u
. "$(dirname "$0")/lib.sh"

cat > "$OUT/job.sh" <<'EOS'
#!/bin/sh
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
EOS

vm_run --guests 2 --nic e810 --script "$OUT/job.sh" --timeout 300
for g in 0 1; do
	d=$OUT/run/g$g/dmesg.log
	assert_status $g 0
	assert_output $g '^netdev [^ ]+ carrier 1 operstate up$'
	assert_output $g '^set_link off: carrier 0$'
	assert_output $g '^set_link on: carrier 1$'
	assert_output $g '^50 packets transmitted, 50 packets received, 0% packet loss'
	grep -q 'The DDP package was successfully loaded' "$d" || fail "g$g: no 'DDP package was successfully loaded'"
	[ "$(grep -c 'NIC Link is Down' "$d")" -ge 1 ] || fail "g$g: no 'NIC Link is Down'"
	[ "$(grep -c 'NIC Link is up' "$d")" -ge 2 ] || fail "g$g: fewer than 2 'NIC Link is up'"
	assert_ice_dmesg $g
done
pass_fail
