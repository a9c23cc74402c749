#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: iWARP connection management between two guests on the
# emulated E810.  Guest 0 listens, guest 1 connects:
#  - ucmatose with one connection, then with CONNS connections, MSGS
#    messages each way on every connection;
#  - CYCLES connect/disconnect cycles: a persistent rping server (-P), the
#    client runs rping -C 1 (connect, one verified ping, disconnect) CYCLES
#    times.
# Afterwards (servers stopped) the rdma resource counts (pd, cq, qp, cm_id,
# mr) are back to what they were after bring-up on both guests, and the
# kernel logs are clean.  RDMA_MODE=roce: the same over RoCEv2 (roce-cm.sh),
# where rdma_cm talks through the device's GSI QP 1, which stays.
set -u
. "$(dirname "$0")/lib.sh"

CONNS=${CONNS:-4}
MSGS=${MSGS:-5}
CYCLES=${CYCLES:-100}
RDMA_MODE=${RDMA_MODE:-iwarp}

vm_job iwarp-cm --guests 2 --nic e810 --mode "$RDMA_MODE" --env CONNS="$CONNS" \
	--env MSGS="$MSGS" --env CYCLES="$CYCLES" --env MODE="$RDMA_MODE" \
	--timeout ${TIMEOUT:-900}
for g in 0 1; do
	assert_status $g 0
	assert_clean_dmesg $g
	assert_output $g "^ucmatose -c 1: exit 0, 1 complete"
	assert_output $g "^ucmatose -c $CONNS: exit 0, 1 complete"
	if [ "$RDMA_MODE" = roce ]; then
		assert_rdma_dmesg $g abnormal
		assert_output $g '^rdma device: irdma[0-9]+ \(InfiniBand '
		# The GSI QP (and its CQ and PD) stay; the job compares with the start.
		assert_output $g "^resources at end: pd [0-9]+ cq [0-9]+ qp [0-9]+ cm_id 0 mr 0\$"
	else
		assert_rdma_dmesg $g
		assert_output $g '^rdma device: irdma[0-9]+ \(iWARP '
		assert_output $g "^resources at end: pd 0 cq 0 qp 0 cm_id 0 mr 0\$"
	fi
done
assert_output 1 "^cycles: $CYCLES of $CYCLES ok "
assert_output 0 "^rping server: $CYCLES connections served\$"
grep -hE '^(ucmatose|cycles|resources|rping server)' "$OUT/run/g1/output.log" "$OUT/run/g0/output.log"
pass_fail
