#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest job (docs/kernels.md, "irdma takes one CCQE twice"); run as
#   scripts/vm --out OUT --file tests/system/jobs/lib.sh \
#     --file guest-driver/bringup --script tests/tools/ccq-takers.sh \
#     --guests 2 --nic e810 --env COLDPLUG=0 --env RELOADS=30 --timeout 900
# Who takes the CCQEs at irdma's unload: the completion worker (kworker),
# the waiting process's own first poll (irdma_cqp_ce_handler called from
# irdma_wait_event: that leaves the worker to run later with nothing to
# do), or a polled op (irdma_sc_poll_for_cqp_op_done).
. /job/files/lib.sh
sh /job/files/bringup || exit 1
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T
echo 16384 > $T/buffer_size_kb
echo > $T/trace
n=1
while [ $n -le $RELOADS ]; do
	# A kprobe on a module goes with it: one for each unload.
	echo "r:ccq$n irdma_sc_ccq_get_cqe_info ret=\$retval" >> $T/kprobe_events || { echo "no kprobe"; exit 1; }
	echo 'ret == 0' > $T/events/kprobes/ccq$n/filter
	echo 1 > $T/events/kprobes/ccq$n/enable
	rmmod irdma || { echo "reload $n: rmmod failed"; exit 1; }
	modprobe irdma || { echo "reload $n: modprobe failed"; exit 1; }
	t=0
	while ! ib_ok && [ $t -lt 100 ]; do sleep 0.2; t=$((t + 1)); done
	n=$((n + 1))
done
grep -v '^#' $T/trace | awk '/ccq[0-9]+:/ { c = $1; sub(/-[0-9]+$/, "", c);
	if (c ~ /^kworker/) k++; else if ($0 ~ /poll_for_cqp_op_done/) q++; else p++ }
	END { printf "ccqe-takers: worker %d first-poll %d polled-op %d\n", k, p, q }'
dmesg | grep -c 'refcount_t: underflow' | sed 's/^/underflow warnings: /'
echo "reloads done: $RELOADS"
