#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: the unmodified irdma binds to the emulated E810.  Two guests
# run guest-driver/bringup: ice loads, irdma first binds to ice.roce.N in
# RoCEv2 mode (as at any boot: the device model supports that mode with the
# same engine, so it must register cleanly), devlink switches the function
# to iWARP, and irdma registers an iWARP ib device whose port is ACTIVE /
# LINK_UP.  Then irdma is unloaded and loaded again five times, and a user
# process creates and drops verbs objects (ibv_rc_pingpong), and a function
# reset brings the iWARP device back.  The kernel
# log must carry no warning, no CQP timeout and no irdma failure.
set -u
. "$(dirname "$0")/lib.sh"

RELOADS=${RELOADS:-5}

cat > "$OUT/job.sh" <<'EOS'
#!/bin/sh
sh /job/files/bringup || exit 1
echo "--- ibv_devinfo"
ibv_devinfo -v | grep -E 'hca_id|transport|fw_ver|max_qp:|max_cq:|max_mr:|max_pd:|max_sge:|max_qp_wr|state|phys_state|active_mtu'
# ib_dev of the function in iWARP mode (node type RNIC), port state.
ib_ok() {
	for i in /sys/class/infiniband/*; do
		case "$(cat $i/node_type 2>/dev/null)" in
		*RNIC*) grep -q ACTIVE $i/ports/1/state && return 0 ;;
		esac
	done
	return 1
}
n=1
while [ $n -le $RELOADS ]; do
	rmmod irdma || { echo "reload $n: rmmod failed"; exit 1; }
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
for d in /sys/bus/pci/devices/*; do
	[ "$(cat $d/device)" = 0x159b ] && echo 1 > $d/reset && echo "function reset done"
done
t=0
while ! ib_ok && [ $t -lt 150 ]; do sleep 0.2; t=$((t + 1)); done
ib_ok && echo "iWARP device back after reset"
EOS

vm_run --guests 2 --nic e810 --env COLDPLUG=0 --env RELOADS=$RELOADS \
	--file "$TOP/guest-driver/bringup" --script "$OUT/job.sh" --timeout 400
for g in 0 1; do
	assert_status $g 0
	# RoCEv2 at boot works (same engine), then iWARP.
	assert_output $g '^bringup: RoCEv2 device at boot: '
	assert_output $g '^bringup: iWARP device '
	assert_output $g 'state ACTIVE physical_state LINK_UP'
	assert_output $g 'transport:[[:space:]]+iWARP'
	assert_output $g 'max_qp:[[:space:]]+[1-9][0-9]+'
	assert_output $g 'max_mr:[[:space:]]+[1-9][0-9]+'
	assert_output $g "^reloads done: $RELOADS"
	assert_output $g '^user verbs objects released'
	assert_output $g '^iWARP device back after reset'
	assert_clean_dmesg $g
	bad=$(grep -iE 'irdma|infiniband|iw_cm|ib_core' "$OUT/run/g$g/dmesg.log" |
		grep -iE 'fail|timeout|error|warn|unable|invalid' | head -3)
	[ -z "$bad" ] || fail "g$g irdma log: $bad"
done
echo "--- irdma in the kernel log (guest 0):"
grep -E 'irdma' "$OUT/run/g0/dmesg.log" | tail -6
pass_fail
