#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: NVMe over Fabrics through the card's faults (docs/faults.md),
# in RoCEv2 and iWARP mode.  Guest 1 (host, nvme-rdma) runs a verified
# random-write fio while its link flaps and then the target's card (guest
# 0, nvmet-rdma) resets its core: irdma comes back on the target, the
# target re-creates its port (nvmet-rdma drops its listener with the
# device), the host reconnects, and fio ends without an error; a 32 MiB
# pattern written afterwards reads back the same on the host and on the
# target's ramdisk.  The logs have no WARN/BUG/oops, no AE, and no I/O
# error reaches the host's block layer.
set -u
. "$(dirname "$0")/lib.sh"

RESET_FILTER_LINE='ice [0-9a-f:.]+: Failed to  disable RDMA filtering$'
# A link down for 2 s outlasts an iWARP connection's retransmissions as
# irdma sets them up (RTOMIN 5 ms doubling, REXMIT_THRESH 8: ~1.3 s), so
# the flap may end a queue's connection with "LLP too many retries" (AE
# 0x050a) on whichever side was sending (the host, or the target when it
# was returning data), as on the card; nvme-rdma then recovers.  That AE
# only, and only after the flap (each guest marks it in its log).
FLAP_AE='irdma[0-9]+: abnormal ae_id = 0x50a bool qp=1 qp_id = [0-9]+, ae_src=0$'
for MODE in ${MODES:-roce iwarp}; do
	vm_job nvmeof-fault --guests 2 --nic e810 --mem 1024 --extras --mode "$MODE" \
		--env MODE="$MODE" --file "$TOP/guest-driver/nvmeof" \
		--trace 'e810_fault_*' --trace 'e810_adapter_reset' --timeout 900
	H=$OUT/run/g1/output.log
	for g in 0 1; do
		assert_status $g 0
		assert_ice_dmesg $g "$RESET_FILTER_LINE"
		bad=$(sed -n '/nvmeof-test: link flap/,$p' "$OUT/run/g$g/dmesg.log" | grep -vE "$FLAP_AE" |
			cat <(sed '/nvmeof-test: link flap/q' "$OUT/run/g$g/dmesg.log") - |
			grep -iE 'irdma' | grep -iE 'fail|error|timeout|timed out|warn|unable|invalid|ae_id' | head -3)
		[ -z "$bad" ] || fail "$MODE: g$g irdma says: $bad"
	done
	assert_output 1 '^fio faults exit 0: '
	grep '^fio faults exit' "$H" | head -1
	assert_output 0 '^irdma back after [0-9]+ s: index [0-9]+ -> [0-9]+$'
	assert_output 0 '^port re-created$'
	pm=$(sed -n 's/^pattern md5 //p' "$H")
	rm=$(sed -n 's/^readback md5 //p' "$H")
	tm=$(sed -n 's/^target md5 //p' "$OUT/run/g0/output.log")
	echo "$MODE: md5 pattern $pm readback $rm target $tm"
	[ -n "$pm" ] && [ "$pm" = "$rm" ] && [ "$pm" = "$tm" ] ||
		fail "$MODE: 32 MiB pattern: md5 $pm, read back $rm, on the target $tm"
	grep -q '^e810_fault_injected link-flap' "$OUT/run/g1/trace.log" ||
		fail "$MODE: g1: no link flap in the device's trace"
	grep -q '^e810_adapter_reset reset type 2 ' "$OUT/run/g0/trace.log" ||
		fail "$MODE: g0: no core reset in the device's trace"
	grep -qE 'nvme nvme[0-9]+: Successfully reconnected' "$OUT/run/g1/dmesg.log" ||
		fail "$MODE: g1: the host did not reconnect"
	# No I/O error reaches the block layer at any point (the flap may
	# outlast RoCE's retries and start an error recovery: allowed).
	bad=$(grep -iE 'nvme.*(I/O error|critical)|blk_update_request|Buffer I/O error' \
		"$OUT/run/g1/dmesg.log" | head -3)
	[ -z "$bad" ] || fail "$MODE: g1 I/O errors: $bad"
	echo "--- $MODE: nvme on the host across the faults:"
	grep -E 'nvme|nvmeof-test' "$OUT/run/g1/dmesg.log" | tail -10
done
pass_fail
