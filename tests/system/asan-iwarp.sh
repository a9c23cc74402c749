#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: the emulator with the device built with AddressSanitizer and UBSan
# (E810_QEMU_VARIANT=asan, build/qemu-build-asan) under a real workload.
# Two guests bring irdma up in iWARP mode, rping verifies data both ways,
# ib_write_bw and ib_read_bw move 64 KiB messages, then ice and irdma are
# unloaded and loaded again (PF reset, every object torn down) and rping
# runs once more.  Last, a hot-unplug with frames queued in a stalled
# backend: guest 1 writes to guest 0, stops guest 0 (its QEMU no longer
# reads the link, so guest 1's frames wait in QEMU with the device's sent
# callback), powers off its own e810's PCIe slot, and resumes guest 0 only
# once the device is gone: QEMU then hands on what is left of those frames,
# which must no longer reach into the freed device (e810_pci_exit purges
# them; trace e810_pci_exit says how many were held).  Passes only if the
# jobs pass, the kernel logs are clean and neither QEMU printed a sanitizer
# report (they abort on the first).
set -u
. "$(dirname "$0")/lib.sh"

ASAN_QEMU=${E810_STATE:-$TOP/build}/qemu-build-asan/qemu-system-x86_64
# Built every time (incremental: seconds when nothing changed), so the
# emulator under test has the device as it is now.
E810_QEMU_VARIANT=asan "$TOP/scripts/build-qemu" >"$OUT/build.log" 2>&1 ||
	{ tail -20 "$OUT/build.log"; fail "ASan QEMU build failed"; pass_fail; }


# TCG with ASan is slower: generous timeout.  ASan's own leak check at exit
# is off (QEMU's exit path does not free everything; not a device error).
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
vm_job asan-iwarp --guests 2 --nic e810 --qemu "$ASAN_QEMU" --env COLDPLUG=0 \
	--trace 'e810_pci_exit' --trace 'e810_tx_blocked' --timeout 1200
for g in 0 1; do
	assert_status $g 0
	assert_clean_dmesg $g
	for r in rping1 rping2 write_bw read_bw; do
		assert_output $g "^$r: exit 0\$"
	done
	assert_output $g '^rping[12] data lines 20$' 2
	assert_output $g '^unloaded$'
	assert_output $g '^unplug: (server|client) ended$'
	bad=$(grep -E 'AddressSanitizer|LeakSanitizer|runtime error:|SUMMARY: ' \
		"$OUT/run/g$g/qemu.log" 2>/dev/null | head -3)
	[ -z "$bad" ] || fail "g$g QEMU sanitizer report: $bad"
done
assert_output 1 '^unplug: peer stopped$'
assert_output 1 '^unplug: device gone$'
assert_output 1 '^unplug: peer continued$'
# The frames the backend held when the device went (the purge's work).
held=$(sed -n 's/.*e810_pci_exit unplugged with \([0-9]*\) frames held.*/\1/p' \
	"$OUT/run/g1/trace.log" | head -1)
echo "g1: unplugged with ${held:-?} frames held by the stalled backend"
[ "${held:-0}" -gt 0 ] || fail "g1: no frames were held at the unplug (nothing for the purge to do)"
pass_fail
