#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ice-reload.sh: the guest side of tests/system/ice-reload.sh.
modprobe ice || { echo "modprobe ice failed"; exit 1; }
dev=$(net-up) || { echo "net-up failed"; exit 1; }
echo "load 0: $dev carrier $(cat /sys/class/net/$dev/carrier)"
n=1
while [ $n -le $RELOADS ]; do
	rmmod ice || { echo "reload $n: rmmod failed"; exit 1; }
	[ -e /sys/module/ice ] && { echo "reload $n: ice still loaded"; exit 1; }
	modprobe ice || { echo "reload $n: modprobe failed"; exit 1; }
	dev=$(net-up) || { echo "reload $n: net-up failed"; exit 1; }
	echo "reload $n: $dev carrier $(cat /sys/class/net/$dev/carrier)"
	n=$((n + 1))
done
vm-barrier reloaded
ping -c 50 -i 0.05 -W 5 "$PEER_IP" > /tmp/ping.log 2>&1
rc=$?
tail -2 /tmp/ping.log
vm-barrier done
exit $rc
