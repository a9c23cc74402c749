#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: TCP through two e810 guests with the driver's default offloads
# (Tx checksum, TSO, Rx checksum, RSS hash): guest 0 sends MB MiB of random
# data to guest 1 at MTU 1500, then at MTU 9000 (multi-buffer Rx); both ends'
# MD5 must match, no Tx timeout or hang, clean kernel log.
# Env: MB (default 256, a multiple of 8).  Under TCG (~10-20 Mbit/s) the
# default takes ~3-4 min per MTU.
set -u
. "$(dirname "$0")/lib.sh"


vm_job ice-tcp --guests 2 --nic e810 --env "MB=${MB:-256}" --timeout $((240 + ${MB:-256} * 8))
for g in 0 1; do
	assert_status $g 0
	assert_output $g '^mtu (1500|9000) md5 [0-9a-f]{32}$' 2
	assert_clean_dmesg $g
	bad=$(grep -iE 'tx_timeout|tx timeout|Tx Unit Hang|hang' "$OUT/run/g$g/dmesg.log" | head -3)
	[ -z "$bad" ] || fail "g$g: $bad"
done
for mtu in 1500 9000; do
	s0=$(sed -n "s/^mtu $mtu md5 //p" "$OUT/run/g0/output.log")
	s1=$(sed -n "s/^mtu $mtu md5 //p" "$OUT/run/g1/output.log")
	[ -n "$s0" ] && [ "$s0" = "$s1" ] || fail "MTU $mtu: sent md5 '$s0', received '$s1'"
done
grep -h '^mtu .*Mbit' "$OUT/run/g0/output.log"
pass_fail
