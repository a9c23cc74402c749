#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Self-test of the two driver races the checks tolerate, on canned guest
# logs (no guest is booted).  First assert_clean_dmesg's one tolerated
# kernel warning, irdma's CCQ unload race (docs/kernels.md, "Known driver
# races").  The warning passes only with the device's
# witness (e810_rdma_ccq_overconsumed in the guest's QEMU trace).  It fails
# without the witness, next to any other warning, and when the trace does
# not start in irdma_cleanup_pending_cqp_op.  The 6.1 block is the one the
# race leaves (6.1, TCG); the 7.3 one has 7.3's WARNING line.
# Then ib_core's race at unregistration (ib_unreg_race, vm_run): "ib_query_port
# failed (-19)" passes only inside a stretch the job marked (jobs/lib.sh
# unreg_begin/unreg_end), with the log as written kept in dmesg.raw.log.
set -u
. "$(dirname "$0")/lib.sh"

race_block() {	# race_block STYLE: the warning, 6.1's or 7.3's WARNING line
	local warn='WARNING: CPU: 1 PID: 152 at lib/refcount.c:28 refcount_warn_saturate+0xba/0x110'
	[ "$1" = 7.3 ] && warn='WARNING: lib/refcount.c:28 at refcount_warn_saturate+0xa9/0x100, CPU#1: devlink/152'
	cat <<EOF
[   11.739490] ------------[ cut here ]------------
[   11.739596] refcount_t: underflow; use-after-free.
[   11.740048] $warn
[   11.740482] Modules linked in: irdma i40e rdma_ucm rdma_cm ib_cm iw_cm configfs ib_uverbs ib_core ice
[   11.740834] CPU: 1 PID: 152 Comm: devlink Not tainted 6.1.0-57-amd64 #1  Debian 6.1.192-3
[   11.741033] RIP: 0010:refcount_warn_saturate+0xba/0x110
[   11.744680] Call Trace:
[   11.745382]  <TASK>
[   11.745523]  irdma_cleanup_pending_cqp_op+0x6f/0x100 [irdma]
[   11.747068]  irdma_ctrl_deinit_hw+0x74/0x3a0 [irdma]
[   11.747165]  irdma_ib_dealloc_device+0x1a/0x30 [irdma]
[   11.747219]  ib_dealloc_device+0x17/0xc0 [ib_core]
[   11.747485]  irdma_remove+0x1a/0x60 [irdma]
[   11.748158]  ? do_syscall_64+0x69/0xb0
[   11.748280]  entry_SYSCALL_64_after_hwframe+0x6e/0xd8
[   11.748885]  </TASK>
[   11.748952] ---[ end trace 0000000000000000 ]---
EOF
}
other_warning() {
	cat <<'EOF'
[   20.000000] ------------[ cut here ]------------
[   20.000001] WARNING: CPU: 0 PID: 5 at drivers/infiniband/hw/irdma/hw.c:123 irdma_foo+0x1/0x2 [irdma]
[   20.000002] Call Trace:
[   20.000003]  <TASK>
[   20.000004]  irdma_bar+0x1/0x2 [irdma]
[   20.000005]  </TASK>
[   20.000006] ---[ end trace 0000000000000000 ]---
EOF
}
WITNESS='e810_rdma_ccq_overconsumed CQP destroy: CCQ consumer index 27 past producer index 26 by 1: the driver took CCQEs the engine never wrote'

# case NAME EXPECT(pass|fail) WITNESS(0|1): the canned dmesg on stdin.
case_() {
	local n=${#FAILS[@]} d=$OUT/run/g0
	mkdir -p "$d"
	{ echo '[    0.000000] Linux version 6.1.0-57-amd64'; cat; echo '[   30.000000] done'; } > "$d/dmesg.log"
	: > "$d/console.log"
	: > "$d/trace.log"
	[ "$3" = 1 ] && echo "$WITNESS" > "$d/trace.log"
	assert_clean_dmesg 0 2>/dev/null
	if [ "$2" = pass ]; then
		[ ${#FAILS[@]} = "$n" ] || { FAILS=("${FAILS[@]:0:n}"); fail "$1: failed, should pass"; return; }
	else
		[ ${#FAILS[@]} -gt "$n" ] || { fail "$1: passed, should fail"; return; }
		FAILS=("${FAILS[@]:0:n}")
	fi
	echo "$1: ok"
}

# (stdin through process substitution: case_ must run in this shell)
case_ 'race (6.1) with witness' pass 1 < <(race_block 6.1)
case_ 'race (7.3) with witness' pass 1 < <(race_block 7.3)
case_ 'race without witness' fail 0 < <(race_block 6.1)
case_ 'race and another warning' fail 1 < <(race_block 6.1; other_warning)
case_ 'underflow elsewhere' fail 1 < <(race_block 6.1 |
	sed 's/irdma_cleanup_pending_cqp_op+/irdma_other_cleanup+/')
case_ 'block without its end' fail 1 < <(race_block 6.1 | sed '/---\[ end trace/d')
case_ 'clean log' pass 0 < <(echo '[    1.000000] nothing wrong')

# ucase NAME EXPECT(pass|fail) [kept]: the canned dmesg on stdin through
# vm_run's ib_unreg_race, then assert_rdma_dmesg; with "kept" the log must
# be left as written.
IB_LINE='[   23.612345] infiniband irdma0: ib_query_port failed (-19)'
BEGIN_MARK='[   23.100000] e810-test: irdma unregistration expected (rmmod irdma)'
END_MARK='[   23.900000] e810-test: irdma unregistration over'
ucase() {
	local n=${#FAILS[@]} d=$OUT/run/g0
	mkdir -p "$d"
	{ echo '[    0.000000] Linux version 6.12.0-1-amd64'; cat; echo '[   30.000000] done'; } > "$d/dmesg.log"
	cp "$d/dmesg.log" "$d/written"
	ib_unreg_race "$d" 2>/dev/null
	assert_rdma_dmesg 0
	if [ "$2" = pass ]; then
		[ ${#FAILS[@]} = "$n" ] || { FAILS=("${FAILS[@]:0:n}"); fail "$1: failed, should pass"; return; }
		cmp -s "$d/written" "$d/dmesg.raw.log" || { fail "$1: dmesg.raw.log is not the log as written"; return; }
	else
		[ ${#FAILS[@]} -gt "$n" ] || { fail "$1: passed, should fail"; return; }
		FAILS=("${FAILS[@]:0:n}")
		[ "${3:-}" != kept ] || cmp -s "$d/written" "$d/dmesg.log" ||
			{ fail "$1: the log was changed"; return; }
	fi
	echo "$1: ok"
}
ucase 'ib_query_port -19 while irdma unregisters' pass < <(printf '%s\n' "$BEGIN_MARK" "$IB_LINE" "$END_MARK")
ucase 'ib_query_port -19 in a stretch left open' pass < <(printf '%s\n' "$BEGIN_MARK" "$IB_LINE")
ucase 'ib_query_port -19 unmarked' fail kept < <(printf '%s\n' "$IB_LINE")
ucase 'ib_query_port -19 after the stretch' fail kept < <(printf '%s\n' "$BEGIN_MARK" "$END_MARK" "$IB_LINE")
ucase 'ib_query_port -22 while irdma unregisters' fail kept < <(printf '%s\n' "$BEGIN_MARK" "${IB_LINE/-19/-22}" "$END_MARK")
ucase 'another irdma failure while it unregisters' fail < <(printf '%s\n' "$BEGIN_MARK" "$IB_LINE" \
	'[   23.700000] irdma 0000:01:00.0: failed to destroy CQP' "$END_MARK")
pass_fail
