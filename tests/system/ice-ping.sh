#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: two guests with an e810 each on one link, the unmodified ice
# driver brings the netdev up and each guest pings the other 200 times at
# once (ARP, ICMP both ways through the LAN Tx/Rx rings).  No loss, no Tx
# timeout or hang report, clean kernel log.  The device's statistics as
# ethtool -S reads them count the 400 echo requests and replies each way,
# at the VSI and at the port.
set -u
. "$(dirname "$0")/lib.sh"

vm_job ice-ping --guests 2 --nic e810 --timeout 300
for g in 0 1; do
	assert_status $g 0
	assert_output $g '^netdev '
	assert_output $g '^200 packets transmitted, 200 packets received, 0% packet loss'
	assert_clean_dmesg $g
	bad=$(grep -iE 'tx_timeout|tx timeout|Tx Unit Hang|hang' "$OUT/run/g$g/dmesg.log" | head -3)
	[ -z "$bad" ] || fail "g$g: $bad"
	# 200 requests out and 200 replies back, 200 requests in and 200
	# replies out; 98-byte frames (102 on the wire).
	for s in rx_unicast tx_unicast rx_unicast.nic tx_unicast.nic; do
		assert_ge $g "$s" "$(ethtool_stat $g $s)" 400
	done
	assert_ge $g rx_bytes "$(ethtool_stat $g rx_bytes)" $((400 * 98))
	assert_ge $g tx_bytes "$(ethtool_stat $g tx_bytes)" $((400 * 98))
	assert_ge $g rx_bytes.nic "$(ethtool_stat $g rx_bytes.nic)" $((400 * 102))
	assert_ge $g tx_bytes.nic "$(ethtool_stat $g tx_bytes.nic)" $((400 * 102))
	assert_ge $g rx_size_127.nic "$(ethtool_stat $g rx_size_127.nic)" 400
	[ "$(ethtool_stat $g tx_errors)" = 0 ] || fail "g$g tx_errors $(ethtool_stat $g tx_errors)"
done
pass_fail
