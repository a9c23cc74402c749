#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vfio-user-kill.sh: guest 1 serves a long rping, guest 0 connects; once
# data flows guest 0 has the launcher kill its own device server
# (its device process, SIGKILL).  Its QEMU must keep running and the guest
# with it: guest 0 reads its device's config space (all ones once the
# device is gone: the server's keeper answers for it) and says it is
# alive every 2 s for 12 s, then ends its job as usual.
. /job/files/lib.sh
sh /job/files/bringup > /tmp/bringup.log 2>&1 || { cat /tmp/bringup.log; exit 1; }
cat /tmp/bringup.log
if [ "$GUEST_ID" = 1 ]; then
	timeout 120 rping -s -a "$GUEST_IP" -C 100000 -v -S 4096 > /tmp/r.log 2>&1 &
	pid=$!
	listen_wait
	vm-barrier listen
	vm-barrier killed
	kill $pid 2>/dev/null
	wait $pid
	echo "server data lines $(grep -c 'server ping data' /tmp/r.log)"
	exit 0
fi
for d in /sys/bus/pci/devices/*; do
	[ "$(cat $d/vendor)" = 0x8086 ] && [ "$(cat $d/device)" = 0x159b ] && dev=$d
done
# The first config word (vendor, device) as the device answers it now.
cfg_id() { od -An -tx4 -N4 "$dev/config" | tr -d ' '; }
echo "config id before: $(cfg_id)"
vm-barrier listen
timeout 120 rping -c -a "$PEER_IP" -C 100000 -v -S 4096 > /tmp/r.log 2>&1 &
i=0
until [ "$(grep -c '^ping data' /tmp/r.log 2>/dev/null)" -ge 20 ] || [ $i -ge 300 ]; do
	sleep 0.1; i=$((i + 1))
done
echo "before: data lines $(grep -c '^ping data' /tmp/r.log)"
vm-ctl server-kill self
echo "server-kill: exit $?"
read -r up _ < /proc/uptime
echo "killed at $up"
# A device gone from the bus reads as all ones.
echo "config id after: $(cfg_id)"
vm-barrier killed
# The guest runs on with its device failed, 12 s, then ends as usual
# (its drivers let go of a device that reads all ones).
for i in 1 2 3 4 5 6 7; do
	read -r up _ < /proc/uptime
	echo "alive at $up"
	sleep 2
done
exit 0
