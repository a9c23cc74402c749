#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: two guests with an e810 each on one link.  Each guest must see
# the PCI function at 8086:159B with its BARs, and loading the unmodified ice
# driver must neither hang nor crash QEMU nor produce a kernel warning.  The
# test reports how far ice got (the device is still being built up: a probe
# failure is printed, not hidden); tests/system/ice-*.sh hold ice to more.
set -u
. "$(dirname "$0")/lib.sh"

cat > "$OUT/job.sh" <<'EOS'
#!/bin/sh
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
EOS

vm_run --guests 2 --nic e810 --env COLDPLUG=0 --script "$OUT/job.sh" --timeout 300
for g in 0 1; do
	assert_status $g 0
	assert_output $g '^device [0-9a-f:.]+ class 0x020000 subsys 0x8086:0x0003$'
	assert_output $g '^modprobe ice exit 0'
	# ice bound to the function and said something about it.
	assert_output $g '^ice 0000:|ice: Intel\(R\) Ethernet Connection E800 Series'
	assert_clean_dmesg $g
done
echo "--- how far ice got (guest 0):"
grep -E 'ice 0000' "$OUT/run/g0/output.log" | tail -8
pass_fail
