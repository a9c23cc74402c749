#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# irdma-probe.sh: the guest side of tests/system/irdma-probe.sh.
. /job/files/lib.sh
sh /job/files/bringup || exit 1
echo "--- ibv_devinfo"
ibv_devinfo -v | grep -E 'hca_id|transport|fw_ver|max_qp:|max_cq:|max_mr:|max_pd:|max_sge:|max_qp_wr|state|phys_state|active_mtu'
n=1
while [ $n -le $RELOADS ]; do
	unreg_begin "rmmod irdma"
	rmmod irdma || { echo "reload $n: rmmod failed"; exit 1; }
	unreg_end
	[ -z "$(ls /sys/class/infiniband/ 2>/dev/null)" ] || { echo "reload $n: ib device left behind"; exit 1; }
	modprobe irdma || { echo "reload $n: modprobe failed"; exit 1; }
	t=0
	while ! ib_ok && [ $t -lt 100 ]; do sleep 0.2; t=$((t + 1)); done
	ib_ok || { echo "reload $n: no ACTIVE iWARP device"; exit 1; }
	echo "reload $n ok"
	n=$((n + 1))
done
echo "reloads done: $RELOADS"
rdma link show
# User-space verbs objects (PD, MR, virtually mapped CQ, QP through
# libirdma and the doorbell page) are created and released again.
before=$(rdma res show qp | wc -l)
ibv_rc_pingpong -d irdma0 -g 0 > /tmp/pp.log 2>&1 &
pp=$!
sleep 3
during=$(rdma res show qp | wc -l)
kill $pp; wait $pp 2>/dev/null
sleep 1
after=$(rdma res show qp | wc -l)
echo "user QPs: before $before during $during after $after"
[ "$during" -gt "$before" ] && [ "$after" = "$before" ] && echo "user verbs objects released"
rdma res show
# A function reset: ice tears irdma down, resets, and plugs it again.
unreg_begin "function reset"
for d in /sys/bus/pci/devices/*; do
	[ "$(cat $d/device)" = 0x159b ] && echo 1 > $d/reset && echo "function reset done"
done
t=0
while ! ib_ok && [ $t -lt 150 ]; do sleep 0.2; t=$((t + 1)); done
ib_ok && echo "iWARP device back after reset"
unreg_end
