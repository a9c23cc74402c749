#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: savevm and loadvm of a guest with ice and irdma up, in
# iWARP and in RoCEv2 mode.  Guest 1 saves guest 0 (idle, drivers up)
# with the monitor's savevm, checks rping -V against it, tries a second
# savevm while an rping connection is open (iWARP: refused with the
# device's message, the connection unharmed; RoCEv2: saved, the
# connection unharmed), then loads the first state back with loadvm: the
# rewound guest 0 serves a new rping -V, its RDMA link ACTIVE, its kernel
# log clean.
set -u
. "$(dirname "$0")/lib.sh"

COUNT=${COUNT:-50}
for mode in ${MODES:-iwarp roce}; do
	mode_job snapshot-loadvm $mode --savevm --env COUNT="$COUNT" \
		--timeout 900
	assert_output 1 '^monitor savevm s1: rc 0 \(no output\)'
	assert_output 1 "^before: rping ok, data lines $COUNT\$"
	assert_output 1 '^during: rping ok, data lines 2000$'
	if [ $mode = iwarp ]; then
		assert_output 1 '^monitor savevm s2: rc 0 .*Error: .*offloaded iWARP connection'
	else
		assert_output 1 '^monitor savevm s2: rc 0 \(no output\)'
	fi
	assert_output 1 '^monitor loadvm s1: rc 0 \(no output\)'
	assert_output 1 "^after: rping ok, data lines $COUNT\$"
	# Guest 0 served three times (before, during, after the rewind) and
	# its link was ACTIVE each time.
	assert_output 0 "^served rping $COUNT: exit 0 data lines $COUNT\$" 2
	assert_output 0 '^served rping 2000: exit 0 data lines 2000$'
	assert_output 0 '^link: .*state ACTIVE' 3
	echo "$mode: $(grep -E '^(monitor|before|during|after)' "$OUT/run/g1/output.log" | tr '\n' '|')"
done
modes_done
pass_fail
