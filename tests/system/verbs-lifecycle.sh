#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: verbs objects from user space on the emulated E810's iWARP
# device.  One guest (1 GiB, for a 256 MiB MR) brings irdma up in iWARP
# mode (guest-driver/bringup), records the `rdma res` object counts, runs
# guest-driver/verbs-lifecycle (device/port attributes; PDs, CQs with
# resize, MRs of 4 KiB .. 256 MiB with several access flags and rereg, RC
# QPs through RESET/INIT/ERR, memory windows; then the PBLE fill that makes
# irdma use two-level page lists), and checks that the program passes, that
# the counts are back to the baseline and that the kernel log is clean.
# Then the program holds a mix of objects (64 CQs, 256 QPs half in INIT,
# 2049 MRs) and is killed: the kernel's cleanup must release them all.
# Once more, but irdma is unloaded under the holding process; after it is
# loaded again a short run of the program must pass.
# The device side is watched through the CQP trace: REG_MR requests with
# contiguous, level-1 and level-2 page lists must all have been seen, and
# no CQP op may have failed.
# Environment: LOOPS (default 2), MR_MIB (default 256), FILL=0 skips the
# PBLE fill.
set -u
. "$(dirname "$0")/lib.sh"

LOOPS=${LOOPS:-2}
MR_MIB=${MR_MIB:-256}
FILL=${FILL:-1}

"$TOP/guest-driver/build" -q || { echo "FAIL: $TEST_NAME: guest-driver/build"; exit 1; }

cat > "$OUT/job.sh" <<'EOS'
#!/bin/sh
sh /job/files/bringup || exit 1
dev=$(rdma link show | awk '/state ACTIVE/ { split($2, a, "/"); print a[1]; exit }')
# "N: dev: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 ..." -> "pd 0 cq 0 qp 0 cm_id 0 mr 0"
res() {
	rdma res show | awk -v d="$dev:" '$2 == d {
		for (i = 3; i < NF; i += 2)
			if ($i ~ /^(pd|cq|qp|cm_id|mr)$/) printf "%s %s ", $i, $(i + 1)
		print "" }'
}
before=$(res)
echo "res before: $before"
fill=
[ "$FILL" = 1 ] || fill=-F
t0=$(cut -d' ' -f1 /proc/uptime)
/job/files/verbs-lifecycle -d "$dev" -n "$LOOPS" -m "$MR_MIB" $fill
rc=$?
t1=$(cut -d' ' -f1 /proc/uptime)
echo "verbs-lifecycle exit $rc after $(awk -v a=$t0 -v b=$t1 'BEGIN { print b - a }') s"
sleep 1
after=$(res)
echo "res after: $after"
[ -n "$before" ] && [ "$before" = "$after" ] && echo "res counts back to baseline"
# A process that dies holding objects: the kernel destroys them all.
/job/files/verbs-lifecycle -d "$dev" -m 64 -H > /tmp/hold.log 2>&1 &
pid=$!
t=0
while ! grep -q '^holding' /tmp/hold.log && [ $t -lt 600 ]; do sleep 0.2; t=$((t + 1)); done
cat /tmp/hold.log
echo "res holding: $(res)"
kill -9 $pid
wait $pid 2>/dev/null
t=0
while [ "$(res)" != "$before" ] && [ $t -lt 150 ]; do sleep 0.2; t=$((t + 1)); done
echo "res after kill: $(res)"
[ -n "$before" ] && [ "$before" = "$(res)" ] && echo "killed process's objects released"
# irdma unloaded under a process holding objects: the core takes them
# away (disassociate) or waits for it; then irdma comes back.
/job/files/verbs-lifecycle -d "$dev" -m 64 -H > /tmp/hold2.log 2>&1 &
pid=$!
t=0
while ! grep -q '^holding' /tmp/hold2.log && [ $t -lt 600 ]; do sleep 0.2; t=$((t + 1)); done
echo "second holder: $(grep '^holding' /tmp/hold2.log)"
( rmmod irdma; echo "rmmod exit $?" > /tmp/rmmod.rc ) &
t=0
while [ ! -e /tmp/rmmod.rc ] && [ $t -lt 50 ]; do sleep 0.2; t=$((t + 1)); done
[ -e /tmp/rmmod.rc ] && echo "rmmod returned while the holder lived"
kill -9 $pid
wait $pid 2>/dev/null
t=0
while [ ! -e /tmp/rmmod.rc ] && [ $t -lt 150 ]; do sleep 0.2; t=$((t + 1)); done
cat /tmp/rmmod.rc 2>/dev/null
modprobe irdma
rdma-wait "$dev" 30 >/dev/null 2>&1
rdma link show
/job/files/verbs-lifecycle -d "$dev" -n 1 -m 64 -X -F > /tmp/again.log 2>&1
echo "after reload: $(tail -1 /tmp/again.log)"
grep '^FAIL' /tmp/again.log
echo "res after reload: $(res)"
[ "$(res)" = "$before" ] && echo "reloaded device clean"
rdma res show
exit $rc
EOS

vm_run --guests 1 --nic e810 --mem 1024 --env COLDPLUG=0 \
	--env LOOPS=$LOOPS --env MR_MIB=$MR_MIB --env FILL=$FILL \
	--file "$TOP/guest-driver/bringup" \
	--file "$TOP/build/guest-driver/verbs-lifecycle" \
	--trace 'e810_rdma_cqp_op' --trace 'e810_rdma_cqp_err' \
	--trace 'e810_rdma_sd' --trace 'e810_rdma_fpm_commit' \
	--qemu-arg '-d guest_errors' \
	--script "$OUT/job.sh" --timeout 900
assert_status 0 0
assert_output 0 '^bringup: iWARP device '
assert_output 0 '^verbs-lifecycle: PASS '
assert_output 0 '^res counts back to baseline'
assert_output 0 '^holding: cq 64 qp 256 mr 2049'
assert_output 0 '^killed process.s objects released'
assert_output 0 '^rmmod exit 0'
assert_output 0 '^after reload: verbs-lifecycle: PASS '
assert_output 0 '^reloaded device clean'
assert_clean_dmesg 0
bad=$(grep -iE 'irdma|infiniband|iw_cm|ib_core|ib_uverbs' "$OUT/run/g0/dmesg.log" |
	grep -iE 'fail|timeout|error|warn|unable|invalid' | head -3)
[ -z "$bad" ] || fail "irdma log: $bad"

# Device side: REG_MR (op 0x0a) page-list modes (LPBLSIZE, hdr bits 45:44)
# and page sizes (bits 47:46); CQP ops that failed.
trace=$OUT/run/g0/trace.log
levels=$(awk '$1 == "e810_rdma_cqp_op" && $5 == "0x0a" { print $7 }' "$trace" |
	python3 -c '
import sys, collections
c = collections.Counter()
for h in sys.stdin:
    h = int(h, 16)
    c["lvl%d/%s" % ((h >> 44) & 3, ("4K", "2M", "1G", "?")[(h >> 46) & 3])] += 1
print(" ".join("%s:%d" % kv for kv in sorted(c.items())))')
echo "--- REG_MR page lists (level/page size:count): $levels"
for want in lvl0 lvl1; do
	echo "$levels" | grep -q "$want/" || fail "no REG_MR with $want page list"
done
if [ "$FILL" = 1 ]; then
	echo "$levels" | grep -q 'lvl3/' || fail "no REG_MR with a level-2 page list"
fi
# The HMC as irdma sized it and the segments it mapped (the PBLE fill adds
# one SD per 256K page-list entries).
echo "--- HMC: $(grep -m1 '^e810_rdma_fpm_commit' "$trace" | cut -d' ' -f2-)"
echo "--- SDs written valid: $(awk '$1 == "e810_rdma_sd" && $5 == 1 { print $7 }' "$trace" |
	sort | uniq -c | awk '{ printf "%s direct=%s ", $1, $2 }')"
errs=$(grep -c '^e810_rdma_cqp_err' "$trace")
[ "$errs" = 0 ] || fail "$errs CQP ops failed: $(grep -m3 '^e810_rdma_cqp_err' "$trace" | tr '\n' ';')"
# Guest errors the RDMA engine reported (-d guest_errors, into qemu.log).
gerr=$(grep -i 'rdma' "$OUT/run/g0/qemu.log" 2>/dev/null | head -3)
[ -z "$gerr" ] || fail "RDMA engine guest errors: $(echo "$gerr" | tr '\n' ';')"
echo "--- guest 0:"
grep -E '^(device|port 1|phase|loop|exhaust|pble|verbs-lifecycle|res |FAIL|resize|rereg|alloc_mw|holding|killed|second|rmmod|after reload|reloaded)' "$OUT/run/g0/output.log"
pass_fail
