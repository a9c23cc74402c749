#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: a CQP op that fails on demand (docs/faults.md).  Guest 0's
# device is asked, through the QEMU monitor, to fail the next CREATE_QP;
# a user-space QP create (ibv_rc_pingpong) must then fail cleanly (an
# error from ibv_create_qp, the process exits non-zero, no hang), and the
# device must keep working: a verified rping both ways right after.  The
# kernel logs have no WARN, BUG or oops.
set -u
. "$(dirname "$0")/lib.sh"

vm_job fault-cqp --guests 2 --nic e810 --mode iwarp --trace 'e810_fault_*' --timeout 900
for g in 0 1; do
	assert_status $g 0
	bad=$(grep -E 'WARNING:|BUG:|Oops|Call Trace' "$OUT/run/g$g/dmesg.log" | head -3)
	[ -z "$bad" ] || fail "g$g kernel log: $bad"
	assert_output $g '^rping after the fault: exit 0$'
done
assert_output 0 '^fault armed'
grep -q '^e810_fault_injected cqp-error (0,' "$OUT/run/g0/trace.log" ||
	fail "g0: no e810_fault_injected cqp-error for CREATE_QP in the device's trace"
pp=$(sed -n 's/^ibv_rc_pingpong: exit //p' "$OUT/run/g0/output.log")
case "$pp" in
''|0|124) fail "ibv_rc_pingpong exit '$pp': expected a failed QP create" ;;
esac
assert_output 0 "^pp: .*[Cc]ouldn't create QP"
echo "--- irdma on the failed CREATE_QP (guest 0):"
grep -iE 'irdma' "$OUT/run/g0/dmesg.log" | grep -viE 'Link ACTIVE|registered' | tail -4
pass_fail
