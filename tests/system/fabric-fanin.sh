#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: rdma_cm fan-in on a switch.  NGUESTS (default 4) guests with
# an e810 each join one VDE switch (scripts/vm --guests N: the switch is
# the default past two guests); each reaches every other by ping, then the
# others connect to one persistent rping server on guest 0 at once and move
# COUNT verified iterations of SIZE bytes each.  In each mode of MODES
# (default iwarp roce): every guest's job passes with a clean kernel log,
# the server saw every client's data, and the switch carried frames on
# every port (the relay's counts, OUT/MODE/link.json).
set -u
. "$(dirname "$0")/lib.sh"

N=${NGUESTS:-4}
COUNT=${COUNT:-20}
SIZE=${SIZE:-4096}
for mode in ${MODES:-iwarp roce}; do
	mode_job fabric-fanin "$mode" --guests "$N" --env COUNT="$COUNT" --env SIZE="$SIZE" \
		--timeout 1500
	for g in $(seq 0 $((N - 1))); do
		[ "$mode" = roce ] && assert_rdma_dmesg $g abnormal
		assert_output $g '^ping .* ok$' $((N - 1))
	done
	assert_output 0 "^server data lines $(((N - 1) * COUNT))\$"
	for g in $(seq 1 $((N - 1))); do
		assert_output $g "^client data lines $COUNT exit 0\$"
	done
	ports=$(/usr/bin/python3 - "$OUT/run/link.json" "$N" <<'PY'
import json, sys
st, n = json.load(open(sys.argv[1])), int(sys.argv[2])
print(sum(1 for i in range(n) if st[f'link{i}->sw']['delivered'] and st[f'sw->link{i}']['delivered']))
PY
)
	[ "$ports" = "$N" ] || fail "$mode: the switch carried frames both ways on ${ports:-no} of $N ports"
	echo "$mode: $(grep -h '^server data lines' "$OUT/run/g0/output.log"), frames on $ports ports"
done
modes_done
pass_fail
