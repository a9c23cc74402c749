#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test, run only by name (scripts/test system surprise-unplug): a
# surprise removal of the card during traffic (docs/faults.md, "Surprise
# removal": the device's fault "removed", reads all ones, then the slot's
# removal), and the card back.  What users expect, asserted: guest 0
# survives it, ice and irdma let go of the card, no WARN, BUG or oops,
# and once the card is back ice and irdma probe it in the mode it had and
# a verified rping runs both ways.
#
# It fails today for the drivers, not the device (docs/status.md,
# "Surprise removal"): ice 7.3's ice_remove reads GL_MNG_FWSM, which a
# device gone from the bus answers with all ones, takes the card for one
# in recovery mode and returns without removing its netdev or irdma (the
# BAR is unmapped under them: free_irq and devlink WARNs, then a page
# fault in ice_start_xmit, a panic); 6.12's irdma times out its CQP ops
# and asks for a reset, ice's netdev cannot stop "while reset is in
# progress", and the kernel faults in the allocator a few seconds later.
# E810_KERNEL picks the guest kernel.
set -u
. "$(dirname "$0")/lib.sh"

vm_job hot-unplug --guests 2 --nic e810 --mode iwarp --env CYCLES=1 \
	--env HOTPLUG=surprise --timeout 900
assert_output 0 '^cycle 1: hotplug: g0 nic0 out \(surprise\) after '
assert_output 0 "^cycle 1: out: function '', ib devices ''\$"
assert_output 0 '^cycle 1: back after [0-9.]+ s: function [0-9a-f:.]+, irdma[0-9]+, iWARP$'
for g in 0 1; do
	assert_status $g 0
	assert_output $g '^rping after cycle 1: exit 0$'
	bad=$(grep -E 'WARNING:|BUG:|Oops|Call Trace|Kernel panic' "$OUT/run/g$g/console.log" \
		"$OUT/run/g$g/dmesg.log" 2>/dev/null | head -3)
	[ -z "$bad" ] || fail "g$g kernel log: $bad"
done
pass_fail
