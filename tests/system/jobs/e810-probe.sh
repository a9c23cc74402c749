#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e810-probe.sh: the guest side of tests/system/e810-probe.sh.
found=
for d in /sys/bus/pci/devices/*; do
	if [ "$(cat $d/vendor)" = 0x8086 ] && [ "$(cat $d/device)" = 0x159b ]; then
		found=${d##*/}
	fi
done
[ -n "$found" ] || { echo "no 8086:159b function"; exit 1; }
d=/sys/bus/pci/devices/$found
echo "device $found class $(cat $d/class) subsys $(cat $d/subsystem_vendor):$(cat $d/subsystem_device)"
# BAR0 (32 MiB) and BAR3 (64 KiB, MSI-X) from the resource table.
awk 'NR==1 || NR==4 { printf "bar%d size 0x%x\n", NR-1, strtonum($2) - strtonum($1) + 1 }' $d/resource 2>/dev/null ||
	sed -n '1p;4p' $d/resource
start=$(date +%s)
timeout 120 modprobe ice
rc=$?
echo "modprobe ice exit $rc after $(( $(date +%s) - start )) s"
sleep 1
echo "driver: $(basename "$(readlink $d/driver 2>/dev/null)" 2>/dev/null)"
for n in /sys/class/net/*; do
	[ "$(readlink -f $n/device 2>/dev/null)" = "$(readlink -f $d)" ] && echo "netdev ${n##*/}"
done
echo "--- ice log"
dmesg | grep -E ' ice |ice:' | head -60
exit $rc
