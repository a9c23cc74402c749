#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A scripts/ci job with a tool the image does not carry (scripts/ci
# --packages qperf): qperf's RC bandwidth and latency over rdma_cm (-cm1)
# between the guests.  Debian's qperf 0.4.11 tells the client its data port
# before it listens on it (a race in qperf itself, fixed upstream), so a
# rejected connection is tried again, at most 3 times.
set -u
echo "job: qperf $(command -v qperf): $(qperf --version 2>&1)"
# The packages are on their own disk, laid under /usr, not in guest RAM.
echo "job: packages: $(awk '$2 == "/run/packages" { print $3 " " $4 }' /proc/mounts | cut -d, -f1)," \
	"/usr $(awk '$2 == "/usr" { print $3 }' /proc/mounts)," \
	"qperf in the root file system: $([ -e /run/packages/usr/bin/qperf ] && echo no || echo yes)"
# kmod's programs (--packages kmod), which the base image's busybox
# applets shadow: usable as installed, first on PATH.
echo "job: modprobe $(command -v modprobe): $(modprobe --version 2>&1 | head -1)"
# Modules added by name (scripts/ci --kmods null_blk,loop): loadable.
if modprobe null_blk nr_devices=1 && modprobe loop && [ -b /dev/nullb0 ]; then
	echo "job: kmods: null_blk and loop loaded, /dev/nullb0 there"
else
	echo "job: kmods: failed: $(ls /usr/lib/modules/$(uname -r)/kernel/drivers/block 2>&1 | tr '\n' ' ')"
fi
if [ "$GUEST_ID" = 0 ]; then
	qperf > /tmp/qperf-server.log 2>&1 &
	sleep 1
	vm-barrier server-up
	vm-barrier client-done
	kill %1 2>/dev/null
	exit 0
fi
vm-barrier server-up
rc=1
for try in 1 2 3; do
	qperf -cm1 "$PEER_IP" rc_bw rc_lat > /tmp/qperf.log 2>&1
	rc=$?
	cat /tmp/qperf.log
	[ $rc = 0 ] && grep -q 'bw *=' /tmp/qperf.log && grep -q 'latency *=' /tmp/qperf.log && break
	echo "job: qperf try $try failed ($rc)"
	rc=1
	sleep 1
done
vm-barrier client-done
echo "job: qperf exit $rc"
exit $rc
