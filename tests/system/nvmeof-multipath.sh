#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: NVMe-oF multipath over the card's two ports (issue 34).
# Two guests with two-port cards on two fabrics; guest 0's nvmet offers
# one namespace on both ports, guest 1 connects through both (native NVMe
# multipath: one block device, two controllers).  A verified random-write
# fio runs on it while the host's port 1 loses its link for 8 s: fio ends
# without an error (the I/O went on over port 0), both paths are live at
# the end, no I/O error reaches the block layer.  RoCEv2 and iWARP.
set -u
. "$(dirname "$0")/lib.sh"

for MODE in ${MODES:-roce iwarp}; do
	vm_job nvmeof-multipath --guests 2 --ports 2 --nic e810 --mem 1024 --extras --mode "$MODE" \
		--env MODE="$MODE" --file "$TOP/guest-driver/nvmeof" --trace 'e810_fault_*' --timeout 900
	H=$OUT/run/g1/output.log
	for g in 0 1; do
		assert_status $g 0
		assert_clean_dmesg $g
	done
	assert_output 1 '^multipath Y: device nvme[0-9]+n[0-9]+, 2 paths: '
	assert_output 1 '^fio mp exit 0: '
	grep -E '^(multipath|fio mp|while port|after)' "$H"
	n=$(grep '^after: ' "$H" | grep -o ':live' | wc -l)
	[ "$n" = 2 ] || fail "$MODE: $n paths live at the end: $(grep '^after: ' "$H")"
	grep -q '^e810_fault_injected link-down' "$OUT/run/g1/trace.log" || fail "$MODE: g1: no link-down traced"
	bad=$(grep -iE 'nvme.*(I/O error|critical)|blk_update_request|Buffer I/O error' "$OUT/run/g1/dmesg.log" | head -3)
	[ -z "$bad" ] || fail "$MODE: g1 I/O errors: $bad"
done
pass_fail
