#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: rping over iWARP inside one guest (client and server on the
# same address).  The software CM's SYN/SYN-ACK/ACK and MPA request/reply
# go through the ILQ and the engine's loopback (AH with DOLOOPBACK), the
# quad is handed to the offloaded QP at RTS, and the pings run over the
# engine's own loopback.  Checks the data, that the ILQ carried the
# handshake (trace), that steering dropped nothing, and a clean kernel log.
# Usage: tests/system/rping-loopback.sh [COUNT]   (env: E810_QEMU)
set -u
. "$(dirname "$0")/lib.sh"
COUNT=${1:-20}

vm_job rping-loopback --guests 1 --nic e810 --mode iwarp --env COUNT="$COUNT" \
	--trace 'e810_*' --timeout 240
assert_status 0 0
assert_clean_dmesg 0
assert_output 0 '^ping data: rdma-ping-[0-9]+: [ -~]+' "$COUNT"
assert_output 0 'server ping data: rdma-ping-[0-9]+: [ -~]+' "$COUNT"
assert_output 0 '^rping client exit 0$'
assert_output 0 '^rping server exit 0$'
T=$OUT/run/g0/trace.log
# SYN, SYN-ACK and the MPA request (payload) went out through the ILQ,
# looped back, and were placed in the ILQ again.
grep -qE 'e810_puda_tx .*flags 0x02 loopback 1' "$T" || fail "no ILQ SYN"
grep -qE 'e810_puda_tx .*flags 0x12 loopback 1' "$T" || fail "no ILQ SYN-ACK"
grep -qE 'e810_puda_rx .*flags 0x02' "$T" || fail "SYN not received on the ILQ"
grep -qE 'e810_steer_quad bind' "$T" || fail "no quad handed to a QP"
! grep -qE 'e810_steer_drop|e810_puda_(tx|rx)_drop' "$T" || fail "steering/PUDA drops: $(grep -cE 'e810_steer_drop|_drop' "$T")"
pass_fail
