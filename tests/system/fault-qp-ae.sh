#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: a QP's asynchronous error on demand (docs/faults.md).  Two
# rping connections run between two guests in iWARP mode; the client
# guest's device is asked, through the QEMU monitor (qom-set of the e810's
# fault property), for an LLP connection reset AE (0x0502) on the next QP
# whose SQ doorbell rings.  That connection must end with an error on
# both sides, and the other one must run to its last verified ping; the
# device counts one injected fault and the kernel logs have no WARN, BUG
# or oops.
set -u
. "$(dirname "$0")/lib.sh"

COUNT=${COUNT:-3000}
vm_job fault-qp-ae --guests 2 --nic e810 --mode iwarp --env COUNT="$COUNT" \
	--trace 'e810_fault_*' --timeout 900
for g in 0 1; do
	assert_status $g 0
	bad=$(grep -E 'WARNING:|BUG:|Oops|Call Trace' "$OUT/run/g$g/dmesg.log" | head -3)
	[ -z "$bad" ] || fail "g$g kernel log: $bad"
done
assert_output 0 '^fault armed'
grep -q '^e810_fault_injected qp-ae' "$OUT/run/g0/trace.log" ||
	fail "g0: no e810_fault_injected qp-ae in the device's trace"
# Exactly one connection ended early, seen on both sides (rping reports
# the disconnect and stops; its exit status is 0 either way); the other
# ran to its last verified ping.
failed=
for p in 7174 7175; do
	c=$(sed -n "s/^client $p: exit [0-9]* lines \([0-9]*\) disconnect \([0-9]*\)$/\1 \2/p" "$OUT/run/g0/output.log")
	s=$(sed -n "s/^server $p: exit [0-9]* lines \([0-9]*\) disconnect \([0-9]*\)$/\1 \2/p" "$OUT/run/g1/output.log")
	echo "port $p: client lines/disconnects '$c', server '$s'"
	set -- $c $s
	[ $# = 4 ] || { fail "port $p: no result on both sides"; continue; }
	if [ "$1" = "$COUNT" ]; then
		[ "$3" = "$COUNT" ] || fail "port $p: the client's $COUNT pings, the server's $3"
	else
		[ "$2" -ge 1 ] && [ "$4" -ge 1 ] && [ "$3" -lt "$COUNT" ] ||
			fail "port $p: ended after $1 pings, but not on both sides (disconnects $2/$4, server lines $3)"
		failed="$failed $p"
	fi
done
[ "$(echo $failed | wc -w)" = 1 ] || fail "connections that ended early:${failed:- none}, expected one"
pass_fail
