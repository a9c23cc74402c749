#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: two guests with an e810 each on one link, the unmodified ice
# driver brings the netdev up and each guest pings the other 200 times at
# once (ARP, ICMP both ways through the LAN Tx/Rx rings).  No loss, no Tx
# timeout or hang report, clean kernel log.
set -u
. "$(dirname "$0")/lib.sh"

cat > "$OUT/job.sh" <<'EOS'
#!/bin/sh
dev=$(net-up) || { echo "net-up failed"; exit 1; }
echo "netdev $dev"
vm-barrier up
ping -c 200 -i 0.05 -W 5 "$PEER_IP" > /tmp/ping.log 2>&1
rc=$?
tail -3 /tmp/ping.log
vm-barrier done
ip -s link show "$dev"
exit $rc
EOS

vm_run --guests 2 --nic e810 --script "$OUT/job.sh" --timeout 300
for g in 0 1; do
	assert_status $g 0
	assert_output $g '^netdev '
	assert_output $g '^200 packets transmitted, 200 packets received, 0% packet loss'
	assert_clean_dmesg $g
	bad=$(grep -iE 'tx_timeout|tx timeout|Tx Unit Hang|hang' "$OUT/run/g$g/dmesg.log" | head -3)
	[ -z "$bad" ] || fail "g$g: $bad"
done
pass_fail
