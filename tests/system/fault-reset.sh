#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: the card's resets on demand (docs/faults.md), in iWARP and
# in RoCEv2 mode.  Guest 0's card goes through a core reset the device
# asks for, one ice asks for (ethtool --reset, ice 7.x), a global reset,
# and a PF reset that irdma asks for after an RDMA-engine critical error.
# After each, ice and irdma come back (irdma registered anew, ACTIVE, in
# the same mode) and a verified rping runs both ways; the kernel logs
# have no WARN, BUG or oops, ice and irdma report no failure beyond what
# the drivers say on the card for these resets (below), and the device
# traced each reset.
set -u
. "$(dirname "$0")/lib.sh"

# ice on a reset the card asks for (core, global): the GRST interrupt
# sets hw->reset_ongoing, so every AQ command fails at once (-EBUSY,
# ice_controlq.c); irdma's removal then asks ice to clear the VSI's RDMA
# filter, and ice logs that it could not (ice_idc.c,
# ice_rdma_update_vsi_filter).  Once per such reset, not for a reset ice
# asks for itself (it sets reset_ongoing only after irdma has gone).
RESET_FILTER_LINE='ice [0-9a-f:.]+: Failed to  disable RDMA filtering$'

for MODE in ${MODES:-iwarp roce}; do
	vm_job fault-reset --guests 2 --nic e810 --mode "$MODE" \
		--trace 'e810_fault_*' --trace 'e810_adapter_reset' --timeout 1200
	for g in 0 1; do
		assert_status $g 0
		assert_ice_dmesg $g "$RESET_FILTER_LINE|irdma[0-9]+: critical PE Error, GLPE_CRITERR=0x00000001\$"
	done
	n=$(grep -cE "$RESET_FILTER_LINE" "$OUT/run/g0/dmesg.log")
	[ "$n" -le 2 ] || fail "$MODE: g0 ice: $n 'Failed to disable RDMA filtering', expected at most 2 (one per reset the card asked for)"
	want=$(sed -n 's/^mode before: //p' "$OUT/run/g0/output.log")
	case "$MODE:$want" in iwarp:iWARP|roce:RoCE) ;; *) fail "$MODE: g0 mode before the resets '$want'" ;; esac
	for kind in core-reset ethtool-corer global-reset pf-reset; do
		if [ "$kind" = ethtool-corer ] &&
		    grep -q "^$kind: ethtool --reset unsupported" "$OUT/run/g0/output.log"; then
			echo "note: this guest kernel's ice has no ethtool --reset (7.x has)"
		else
			assert_output 0 "^$kind: back after [0-9]+ s: index [0-9]+ -> [0-9]+, $want\$"
		fi
		for g in 0 1; do
			assert_output $g "^rping after $kind: exit 0\$"
		done
	done
	# The device's side: core resets (the fault's and ethtool's) and one
	# global reset of guest 0's card; the PF reset is ice's (PFSWR).
	n=$(grep -c '^e810_adapter_reset reset type 2 ' "$OUT/run/g0/trace.log")
	[ "$n" -ge 1 ] || fail "$MODE: g0: $n core resets traced, expected >= 1"
	n=$(grep -c '^e810_adapter_reset reset type 3 ' "$OUT/run/g0/trace.log")
	[ "$n" = 1 ] || fail "$MODE: g0: $n global resets traced, expected 1"
	grep -q 'critical PE Error, GLPE_CRITERR=0x00000001' "$OUT/run/g0/dmesg.log" ||
		fail "$MODE: g0: irdma did not report the critical error"
	# irdma: nothing failed, timed out or errored but the critical error
	# asked for.
	bad=$(grep -E 'irdma' "$OUT/run/g0/dmesg.log" |
		grep -iE 'fail|timeout|timed out|error|unable' | grep -v 'critical PE Error' | head -5)
	[ -z "$bad" ] || fail "$MODE: g0 irdma says: $bad"
	echo "--- $MODE: ice and irdma across the resets (guest 0):"
	grep -E '(ice|irdma)' "$OUT/run/g0/dmesg.log" | tail -12
done
pass_fail
