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


vm_job verbs-lifecycle --guests 1 --nic e810 --mem 1024 --mode iwarp \
	--env LOOPS=$LOOPS --env MR_MIB=$MR_MIB --env FILL=$FILL \
	--file "$TOP/build/guest-driver/verbs-lifecycle" \
	--trace 'e810_rdma_cqp_op' --trace 'e810_rdma_cqp_err' \
	--trace 'e810_rdma_sd' --trace 'e810_rdma_fpm_commit' \
	--qemu-arg '-d guest_errors' --timeout 900
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
assert_no_trace 0 '^e810_rdma_cqp_err' "CQP ops failed"
# Guest errors the RDMA engine reported (-d guest_errors, into qemu.log).
assert_no_rdma_gerr 0
echo "--- guest 0:"
grep -E '^(device|port 1|phase|loop|exhaust|pble|verbs-lifecycle|res |FAIL|resize|rereg|alloc_mw|holding|killed|second|rmmod|after reload|reloaded)' "$OUT/run/g0/output.log"
pass_fail
