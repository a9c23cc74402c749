#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: the unmodified irdma binds to the emulated E810.  Two guests
# run guest-driver/bringup: ice loads, irdma first binds to ice.roce.N in
# RoCEv2 mode (as at any boot: the device model supports that mode with the
# same engine, so it must register cleanly), devlink switches the function
# to iWARP, and irdma registers an iWARP ib device whose port is ACTIVE /
# LINK_UP.  Then irdma is unloaded and loaded again five times, and a user
# process creates and drops verbs objects (ibv_rc_pingpong), and a function
# reset brings the iWARP device back.  The kernel
# log must carry no warning, no CQP timeout and no irdma failure.
set -u
. "$(dirname "$0")/lib.sh"

RELOADS=${RELOADS:-5}


vm_job irdma-probe --guests 2 --nic e810 --env COLDPLUG=0 --env RELOADS=$RELOADS \
	--timeout 400
for g in 0 1; do
	assert_status $g 0
	# RoCEv2 at boot works (same engine), then iWARP.
	assert_output $g '^bringup: RoCEv2 device at boot: '
	assert_output $g '^bringup: iWARP device '
	assert_output $g 'state ACTIVE physical_state LINK_UP'
	assert_output $g 'transport:[[:space:]]+iWARP'
	assert_output $g 'max_qp:[[:space:]]+[1-9][0-9]+'
	assert_output $g 'max_mr:[[:space:]]+[1-9][0-9]+'
	assert_output $g "^reloads done: $RELOADS"
	assert_output $g '^user verbs objects released'
	assert_output $g '^iWARP device back after reset'
	assert_clean_dmesg $g
	bad=$(grep -iE 'irdma|infiniband|iw_cm|ib_core' "$OUT/run/g$g/dmesg.log" |
		grep -iE 'fail|timeout|error|warn|unable|invalid' | head -3)
	[ -z "$bad" ] || fail "g$g irdma log: $bad"
done
echo "--- irdma in the kernel log (guest 0):"
grep -E 'irdma' "$OUT/run/g0/dmesg.log" | tail -6
pass_fail
