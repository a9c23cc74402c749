#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test (--full): a soak.  For SOAK seconds (default 1800) guest 1
# runs a verified fio on guest 0's NVMe/RDMA target and rounds of a
# verified rping and of ib_write_bw against it, in RoCEv2 mode, while
# guest 0's card takes a random fault about once a minute (--fault
# random, seeded: SEED, default 1207; the same seed gives the same faults
# at the same times): link flaps, QP AEs, core and global resets.  Not
# the PF reset of an RDMA-engine critical error: irdma then fails every
# CQP op (rf->reset: -EBUSY), so ib_core WARNs when nvmet-rdma drains its
# QPs and at the device's removal, on any device (docs/status.md);
# fault-reset covers that reset without a kernel ULP.
# Passes if the card always recovers (after every failed round a later
# one passes, and no stretch without a passing round of each kind lasts
# longer than RECOVER seconds), the last rounds pass, fio verified every
# block with no error, a 32 MiB pattern reads back the same on the host
# and the target, no I/O error reached the host's block layer, the kernel
# logs have no WARN, BUG or oops, the device injected faults, and guest
# 0's QEMU is flat: the same fd count at the end as at the start, its own
# memory (not the guest's RAM) at most GROW_KB more.  Prints the faults
# and the recoveries.
set -u
. "$(dirname "$0")/lib.sh"

SOAK=${SOAK:-1800}
SEED=${SEED:-1207}
PERIOD=${PERIOD:-60}
RECOVER=${RECOVER:-300}
GROW_KB=${GROW_KB:-32768}
# Faults for the first SOAK - 2 periods (one every 0.5-1.5 periods): the
# last ones leave time to see the recovery.
COUNT=$(( SOAK / PERIOD > 3 ? SOAK / PERIOD - 2 : 1 ))
SPEC="random:seed=$SEED:period=$PERIOD:count=$COUNT:kinds=link-flap,qp-ae,core-reset,global-reset"
echo "soak: $SOAK s, g0 faults $SPEC"
vm_job soak --guests 2 --nic e810 --mem 1024 --extras --mode roce --env SOAK="$SOAK" \
	--file "$TOP/guest-driver/nvmeof" --fault "g0:$SPEC" \
	--trace 'e810_fault_*' --trace 'e810_adapter_reset' --timeout $((SOAK + 1200))
H=$OUT/run/g1/output.log
for g in 0 1; do
	assert_status $g 0
	bad=$(grep -E 'WARNING:|BUG:|Oops|Call Trace' "$OUT/run/g$g/dmesg.log" | head -3)
	[ -z "$bad" ] || fail "g$g kernel log: $bad"
done
echo "--- the faults (guest 0's faults.log):"
cat "$OUT/run/g0/faults.log"
n=$(grep -c '^injected ' "$OUT/run/g0/faults.log")
[ "$n" -ge 1 ] || fail "no fault injected"
echo "--- the recoveries (guest 0's target, guest 1's nvme host):"
grep -E '^[0-9.]+ (irdma back|port re)' "$OUT/run/g0/output.log"
grep -E 'nvme nvme[0-9]+: (Successfully reconnected|starting error recovery|Reconnecting)' \
	"$OUT/run/g1/dmesg.log" | tail -20
echo "--- the rounds:"
grep -E '^round ' "$H" | awk '{ print $3, $6 }' |
	sort | uniq -c
# Every kind of round: the longest stretch between passing rounds (from
# the start, and to the end), and the last round passed.
for kind in rping write_bw; do
	awk -v k="$kind" -v lim="$RECOVER" -v soak="$SOAK" '
		$1 == "round" && $3 == k { t = $5 + 0; if ($6 == "ok") { if (t - last > gap) gap = t - last; last = t }; end = $6 }
		END {
			if (soak - last > gap) gap = soak - last
			printf "%s: longest stretch without a passing round %.0f s, last round %s\n", k, gap, end
			exit !(gap <= lim && end == "ok")
		}' "$H" || fail "$kind: a stretch longer than $RECOVER s without a passing round, or the last round failed"
done
assert_output 1 '^fio soak exit 0: '
grep '^fio soak exit' "$H"
pm=$(sed -n 's/^pattern md5 //p' "$H")
rm=$(sed -n 's/^readback md5 //p' "$H")
tm=$(sed -n 's/^target md5 //p' "$OUT/run/g0/output.log")
[ -n "$pm" ] && [ "$pm" = "$rm" ] && [ "$pm" = "$tm" ] ||
	fail "32 MiB pattern: md5 $pm, read back $rm, on the target $tm"
bad=$(grep -iE 'nvme.*(I/O error|critical)|blk_update_request|Buffer I/O error' \
	"$OUT/run/g1/dmesg.log" | head -3)
[ -z "$bad" ] || fail "g1 I/O errors: $bad"
# Guest 0's QEMU, start and end.
s=$(sed -n 's/^start: usage: g0 qemu rss [0-9]* kB own \([0-9]*\) kB fds \([0-9]*\).*/\1 \2/p' "$H")
e=$(sed -n 's/^end: usage: g0 qemu rss [0-9]* kB own \([0-9]*\) kB fds \([0-9]*\).*/\1 \2/p' "$H")
echo "g0's QEMU: own memory and fds at the start: $s; at the end: $e"
if [ -n "$s" ] && [ -n "$e" ]; then
	[ "${s#* }" = "${e#* }" ] || fail "g0's QEMU: ${s#* } fds at the start, ${e#* } at the end"
	[ $(( ${e% *} - ${s% *} )) -le "$GROW_KB" ] ||
		fail "g0's QEMU: own memory grew $(( ${e% *} - ${s% *} )) kB (at most $GROW_KB)"
	grep -q '^end: .* e810s 1$' "$H" || fail "g0's QEMU: not one live e810 object at the end"
else
	fail "g0's QEMU was not measured at the start and the end"
fi
pass_fail
