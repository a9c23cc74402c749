#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ice-ping.sh: 200 pings at once each way, then the device's statistics.
dev=$(net-up) || { echo "net-up failed"; exit 1; }
echo "netdev $dev"
vm-barrier up
ping -c 200 -i 0.05 -W 5 "$PEER_IP" > /tmp/ping.log 2>&1
rc=$?
tail -3 /tmp/ping.log
vm-barrier done
ip -s link show "$dev"
ethtool -S "$dev" | sed 's/^ */ethtool: /'
exit $rc
