#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: a device server's device process (e810-vfio-user) killed
# mid-traffic (SIGKILL through the launcher, jobs/vfio-user-kill.sh).  The
# server's keeper answers QEMU as a failed device: QEMU keeps running and
# never loses its socket (QEMU's client has no reconnect, and one whose
# server vanishes stalls each access for 5 s or aborts), the guest reads
# its device's config space as all ones, runs on and ends its job (and
# shuts down) as usual; the other guest is unharmed.
set -u
. "$(dirname "$0")/lib.sh"

vfu_server || pass_fail
vm_job vfio-user-kill --guests 2 --nic e810 --mode iwarp --device-backend vfio-user --timeout 120
# Guest 0 ran on after the kill and ended its job; its QEMU was not ended
# by a crash, and it said it was alive 10 s and more after the kill.
assert_status 0 0
assert_status 1 0
assert_output 0 '^before: data lines ([2-9][0-9]|[0-9]{3,})$'
assert_output 0 '^server-kill: exit 0$'
assert_output 1 '^server data lines [1-9]'
killed=$(sed -n 's/^killed at //p' "$OUT/run/g0/output.log")
last=$(sed -n 's/^alive at //p' "$OUT/run/g0/output.log" | tail -1)
echo "g0: server killed at ${killed:-?} s of uptime, last alive at ${last:-?} s"
awk -v k="${killed:-0}" -v l="${last:-0}" 'BEGIN { exit !(k > 0 && l >= k + 10) }' ||
	fail "g0 did not run on 10 s after its server was killed"
assert_output 0 '^config id before: 159b8086$'
assert_output 0 '^config id after: ffffffff$'
grep -q 'answering as a failed device' "$OUT/run/g0/vfu.log" ||
	fail "g0's keeper did not take over: $(tail -3 "$OUT/run/g0/vfu.log")"
grep -qE 'keeper: client hung up; answered [1-9][0-9]* reads' "$OUT/run/g0/vfu.log" ||
	fail "g0's keeper answered no reads: $(tail -3 "$OUT/run/g0/vfu.log")"
# QEMU never saw its server go (no EOF, no reply timeouts).
grep -E 'failed to read header|timed out waiting for reply' "$OUT/run/g0/qemu.log" &&
	fail "g0's QEMU lost its server"
grep -qiE 'abort|assert|core dumped' "$OUT/run/g0/qemu.log" && fail "g0's QEMU: $(grep -m1 -iE 'abort|assert' "$OUT/run/g0/qemu.log")"
assert_clean_dmesg 1
VM_RC=0
pass_fail
