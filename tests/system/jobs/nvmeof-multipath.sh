#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nvmeof-multipath.sh: the guest side of tests/system/nvmeof-multipath.sh.
# Two guests with the card's two ports on two fabrics.  Guest 0 the
# NVMe/RDMA target, its namespace offered on both ports; guest 1 the host,
# connected through both (native NVMe multipath: one block device, two
# paths).  A verified random-write fio runs on the multipath device while
# the host's port 1 loses its link for LINK_DOWN seconds (a fault on
# function 1): I/O goes on over port 0, the path comes back.
. /job/files/lib.sh
. /job/files/nvmeof
sh /job/files/bringup || exit 1
LINK_DOWN=${LINK_DOWN:-8}
RUNTIME=${RUNTIME:-30}
mark() { echo "nvmeof-test: $*" > /dev/kmsg; echo "== $*"; }
rc=0
if [ $GUEST_ID = 0 ]; then
	nvmet_setup rdma $GUEST_IP 256 || { echo "target setup failed"; vm-barrier up; exit 1; }
	# The second port: the same subsystem on port 1's address.
	mkdir $NVMET/ports/2 && echo ipv4 > $NVMET/ports/2/addr_adrfam &&
		echo rdma > $NVMET/ports/2/addr_trtype && echo "$GUEST_IP1" > $NVMET/ports/2/addr_traddr &&
		echo $PORT > $NVMET/ports/2/addr_trsvcid &&
		ln -s $NVMET/subsystems/$NQN $NVMET/ports/2/subsystems/$NQN ||
		{ echo "second port failed"; rc=1; }
	echo "target up: $GUEST_IP:$PORT and $GUEST_IP1:$PORT"
	vm-barrier up
	vm-barrier done
	rm -f $NVMET/ports/2/subsystems/$NQN; rmdir $NVMET/ports/2
	nvmet_teardown
	exit $rc
fi
vm-barrier up
peer1=${PEERS1%% *}
nvme_connect rdma $PEER_IP --reconnect-delay=1 --ctrl-loss-tmo=120 || { echo "connect 0 failed"; exit 1; }
modprobe nvme-rdma
nvme connect -t rdma -a "$peer1" -s $PORT -n $NQN --hostnqn=$HOSTNQN --reconnect-delay=1 --ctrl-loss-tmo=120 ||
	{ echo "connect 1 failed"; rc=1; }
sleep 2
paths() { ls -d /sys/class/nvme-subsystem/nvme-subsys*/nvme* 2>/dev/null | grep -c 'nvme[0-9]*$'; }
states() { for c in /sys/class/nvme/nvme*; do printf '%s:%s:%s ' "${c##*/}" "$(cat $c/address 2>/dev/null | sed 's/traddr=\([^,]*\).*/\1/')" "$(cat $c/state)"; done; }
echo "multipath $(cat /sys/module/nvme_core/parameters/multipath 2>/dev/null): device $NVME_DEV, $(paths) paths: $(states)"
fio --name=mp --filename=/dev/$NVME_DEV --ioengine=libaio --direct=1 --group_reporting --minimal \
	--numjobs=2 --rw=randwrite --bs=4k --iodepth=16 --size=16M --offset_increment=16M \
	--time_based --runtime=$RUNTIME --verify=crc32c --verify_backlog=256 --verify_fatal=1 > /tmp/fio.mp 2>&1 &
fpid=$!
sleep 4
mark "port 1 down"
vm-monitor "qom-set nic1 fault link-down" || { echo "fault not armed"; rc=1; }
sleep $LINK_DOWN
echo "while port 1 is down: $(states)"
mark "port 1 up"
vm-monitor "qom-set nic1 fault link-up" || { echo "fault not armed"; rc=1; }
r=0; wait $fpid || r=$?
fio_report mp $r || rc=1
t=0
while [ $t -lt 60 ] && [ "$(states | grep -o ':live' | wc -l)" -lt 2 ]; do sleep 1; t=$((t + 1)); done
echo "after: $(states)"
nvme disconnect -n $NQN > /dev/null 2>&1 && echo "disconnected" || { echo "disconnect failed"; rc=1; }
vm-barrier done
exit $rc
