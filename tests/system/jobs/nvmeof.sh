#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nvmeof.sh: guest 0 the NVMe/RDMA target, guest 1 the host running fio
# (SEQ_MB, RAND_MB per job), a controller reset under verified writes, a
# pattern read back, a reconnect and a port removal of PORT_DOWN s under
# I/O.
. /job/files/lib.sh
. /job/files/nvmeof
sh /job/files/bringup || exit 1
dev=$(rdma_active)
res() { rdma_res_ulp $dev; }
mark() { echo "nvmeof-test: $*" > /dev/kmsg; echo "== $*"; }
baseline() {
	res_baseline res "$before"
	rdma res show cq | sed "s/^/cq: /"
}
before=$(res)
echo "res before: $before"
rc=0
if [ $GUEST_ID = 0 ]; then
	nvmet_setup rdma $GUEST_IP 256 || { echo "target setup failed"; vm-barrier up; exit 1; }
	echo "target up: $(cat $NVMET/ports/1/addr_traddr):$PORT"
	vm-barrier up
	vm-barrier written
	echo "target md5 $(dd if=/dev/ram0 bs=1M skip=160 count=64 2>/dev/null | md5sum | cut -d' ' -f1)"
	vm-barrier compared
	vm-barrier io-running
	sleep 3
	mark "port removed"
	nvmet_port_del || { echo "port removal failed"; rc=1; }
	sleep $PORT_DOWN
	nvmet_port_add || { echo "port re-add failed"; rc=1; }
	mark "port back"
	vm-barrier io-done
	vm-barrier disconnected
	nvmet_teardown
	baseline
	exit $rc
fi
vm-barrier up
FIO="fio --ioengine=libaio --direct=1 --group_reporting --minimal --verify=crc32c --verify_fatal=1 --numjobs=2"
fio_run() {
	name=$1
	shift
	$FIO --name=$name --filename=/dev/$NVME_DEV "$@" > /tmp/fio.$name 2>&1
	fio_report $name $? || rc=1
}
SEQ="--bs=128k --iodepth=8 --size=${SEQ_MB}M --offset_increment=${SEQ_MB}M"
RAND="--bs=4k --iodepth=16 --size=${RAND_MB}M --offset=$((2 * SEQ_MB))M --offset_increment=${RAND_MB}M"
t0=$(uptime_s)
nvme_connect rdma $PEER_IP --reconnect-delay=1 --ctrl-loss-tmo=120 || { echo "connect failed"; exit 1; }
echo "namespace $NVME_DEV: $(($(cat /sys/block/$NVME_DEV/size) / 2048)) MiB, io queues $(ls -d /sys/class/nvme/nvme*/ 2>/dev/null | wc -l) ctrl"
nvme list 2>&1 | grep -i nvme
echo "connected after $(since $t0) s"
echo "during connect: res $(res)"
fio_run seqwrite --rw=write $SEQ --do_verify=0
fio_run seqread --rw=read $SEQ
fio_run randwrite --rw=randwrite $RAND
fio_run randread --rw=randread $RAND --verify_header_seed=0
# A controller reset in the middle of verified random writes (each pass
# 2 x RAND_MB of 4 KiB commands: every MR of the queues is registered,
# invalidated and registered again many times): the I/O in flight is
# retried on the new queues, fio sees no error.
ctrl=$(nvme_ctrl)
mark "controller reset"
$FIO --name=reset --filename=/dev/$NVME_DEV --rw=randwrite --bs=4k --iodepth=16 \
	--size=${RAND_MB}M --offset=$((2 * SEQ_MB + 2 * RAND_MB))M --offset_increment=${RAND_MB}M \
	--loops=3 > /tmp/fio.reset 2>&1 &
fpid=$!
sleep 2
t0=$(uptime_s)
echo 1 > /sys/class/nvme/$ctrl/reset_controller || { echo "reset_controller failed"; rc=1; }
nvmeof_wait 60 grep -qx live /sys/class/nvme/$ctrl/state &&
	echo "controller reset: live after $(since $t0) s" ||
	{ echo "controller reset: state $(cat /sys/class/nvme/$ctrl/state)"; rc=1; }
r=0; wait $fpid || r=$?
fio_report reset $r || rc=1
mark "controller reset done"
nvme_pattern 64 160 || rc=1
vm-barrier written
vm-barrier compared
nvme_disconnect && echo "disconnected" || { echo "disconnect failed"; rc=1; }
nvme_connect rdma $PEER_IP --reconnect-delay=1 --ctrl-loss-tmo=120 && echo "reconnected" ||
	{ echo "reconnect failed"; rc=1; }
fio_run seqread2 --rw=read $SEQ
mark "port flap"
$FIO --name=flap --filename=/dev/$NVME_DEV --rw=read $SEQ --time_based --runtime=$((PORT_DOWN + 10)) > /tmp/fio.flap 2>&1 &
fpid=$!
sleep 1
vm-barrier io-running
r=0; wait $fpid || r=$?
fio_report flap $r || rc=1
vm-barrier io-done
fio_run afterflap --rw=randread $RAND --verify_header_seed=0
nvme_disconnect && echo "disconnected" || { echo "disconnect failed"; rc=1; }
vm-barrier disconnected
baseline
exit $rc
