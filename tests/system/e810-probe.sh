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


vm_job e810-probe --guests 2 --nic e810 --env COLDPLUG=0 --timeout 300
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
