#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: the card's two ports.  One guest has an E810-XXV with two
# ports (scripts/vm --ports 2: functions 0 and 1 of one slot, one serial
# number) whose ports are cabled to each other (back to back, SPDK's test
# host).  In each mode of MODES (default roce iwarp): ice and irdma come up
# on both functions with a clean kernel log, each irdma device ACTIVE; the
# two functions report one DSN; the card resets its core (both functions
# warned and reset, both ice rebuilt, both irdma devices registered anew
# and ACTIVE); then rping -V (and ib_write_bw) connect port 0 to port 1: in
# RoCEv2 through the cable (port 1 in a network namespace of the guest;
# the relay between the ports carried the data both ways), in iWARP to
# port 1's address from port 0's namespace as SPDK does (irdma's iWARP
# CM works in the initial namespace only: jobs/fabric-b2b.sh).
set -u
. "$(dirname "$0")/lib.sh"

COUNT=${COUNT:-20}
SIZE=${SIZE:-4096}
for mode in ${MODES:-roce iwarp}; do
	mode_job fabric-b2b "$mode" --guests 1 --ports 2 --env COUNT="$COUNT" --env SIZE="$SIZE" \
		--timeout 900
	assert_output 0 '^irdma[0-9]* ACTIVE$' 2
	# the card's core reset (both functions), both irdma back ACTIVE
	assert_output 0 '^after the core reset \([0-9]+ s\): .*port 0 irdma[0-9]+ ACTIVE, port 1 irdma[0-9]+ ACTIVE$'
	assert_ice_dmesg 0 'ice [0-9a-f:.]+: Failed to  disable RDMA filtering$'
	[ "$mode" = roce ] && assert_rdma_dmesg 0 abnormal
	assert_output 0 "^client data lines $COUNT exit 0\$"
	assert_output 0 "^server data lines $COUNT exit 0\$"
	# perftest between the ports (ib_write_bw over rdma_cm, 64 KiB)
	assert_output 0 '^perftest write_bw port 0 -> port 1: client exit 0 server exit 0, [0-9.]+ MB/s$'
	read -r _ s0 s1 _ < <(grep -h '^serials:' "$OUT/run/g0/output.log")
	[ -n "${s0:-}" ] && [ "$s0" = "${s1:-}" ] || fail "$mode: the two functions' serial numbers: '${s0:-}' '${s1:-}'"
	n=$(grep -c 'ice 0000:0[0-9]:00\.[01]' "$OUT/run/g0/dmesg.log")
	[ "${n:-0}" -gt 0 ] || fail "$mode: no ice line of either function"
	# The package is the card's: one function downloads it, the other
	# finds it there (probe order decides which).
	grep -q "ice 0000:[0-9a-f]*:00\.[01]: The DDP package was successfully loaded" "$OUT/run/g0/dmesg.log" ||
		fail "$mode: no function loaded the DDP package"
	grep -q "ice 0000:[0-9a-f]*:00\.[01]: DDP package already present on device" "$OUT/run/g0/dmesg.log" ||
		fail "$mode: no function found the DDP package already on the card"
	both=$(/usr/bin/python3 - "$OUT/run/link-g0.json" "$COUNT" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))
print(int(min(st['0->1']['delivered'], st['1->0']['delivered']) >= 2 * int(sys.argv[2])))
PY
)
	[ "$mode" = iwarp ] || [ "$both" = 1 ] || fail "$mode: the cable between the ports carried fewer than $((2 * COUNT)) frames a way"
	echo "$mode: $(grep -h '^devices:' "$OUT/run/g0/output.log"); $(grep -h '^client data lines' "$OUT/run/g0/output.log")"
done
modes_done
pass_fail
