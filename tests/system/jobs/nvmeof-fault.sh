#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nvmeof-fault.sh: the guest side of tests/system/nvmeof-fault.sh.  Guest
# 0 the NVMe/RDMA target, guest 1 the host running a verified random-write
# fio (verify_backlog: what it wrote is read back and checked as it goes)
# through two faults (docs/faults.md): the host's link flaps (down 2 s),
# then the target's card resets its core.  After the reset irdma comes
# back; nvmet-rdma has dropped its listener with the old device
# (nvmet_rdma_device_removal: it repairs a listener only on an address
# change), so the target re-creates its port, as an admin does.  The host
# reconnects and fio ends without an error; then a 32 MiB pattern goes
# through and is compared on both sides.
. /job/files/lib.sh
. /job/files/nvmeof
sh /job/files/bringup || exit 1
RUNTIME=${RUNTIME:-40}
mark() { echo "nvmeof-test: $*" > /dev/kmsg; echo "== $*"; }
rc=0
if [ $GUEST_ID = 0 ]; then
	nvmet_setup rdma $GUEST_IP 256 || { echo "target setup failed"; vm-barrier up; exit 1; }
	vm-barrier up
	vm-barrier io-running
	# The host's link flaps now: this side's connections see it too.
	mark "link flap (the host's)"
	vm-barrier flapped
	sleep 2
	idx=$(dev_index)
	mark "core reset"
	unreg_begin "core reset"
	vm-monitor "qom-set nic0 fault core-reset" || { echo "fault not armed"; rc=1; }
	t=0
	while [ $t -lt 240 ]; do
		i=$(dev_index)
		[ -n "$i" ] && [ "$i" != "$idx" ] && rdma_active 1 > /dev/null 2>&1 && break
		sleep 0.5
		t=$((t + 1))
	done
	echo "irdma back after $((t / 2)) s: index $idx -> ${i:-none}"
	unreg_end
	# nvmet-rdma's listener went with the old device.
	nvmet_port_del; nvmet_port_add && echo "port re-created" || { echo "port re-add failed"; rc=1; }
	mark "port re-created"
	vm-barrier io-done
	vm-barrier written
	echo "target md5 $(dd if=/dev/ram0 bs=1M skip=128 count=32 2>/dev/null | md5sum | cut -d' ' -f1)"
	vm-barrier compared
	vm-barrier disconnected
	nvmet_teardown
	exit $rc
fi
vm-barrier up
nvme_connect rdma $PEER_IP --reconnect-delay=1 --ctrl-loss-tmo=300 || { echo "connect failed"; exit 1; }
ctrl=$(nvme_ctrl)
echo "connected: $ctrl $NVME_DEV"
fio --name=faults --filename=/dev/$NVME_DEV --ioengine=libaio --direct=1 --group_reporting \
	--minimal --numjobs=2 --rw=randwrite --bs=4k --iodepth=16 --size=16M \
	--offset_increment=16M --time_based --runtime=$RUNTIME \
	--verify=crc32c --verify_backlog=256 --verify_fatal=1 > /tmp/fio.faults 2>&1 &
fpid=$!
sleep 3
vm-barrier io-running
mark "link flap"
vm-monitor "qom-set nic0 fault link-flap:period=4:count=1" || { echo "fault not armed"; rc=1; }
sleep 5
vm-barrier flapped
r=0; wait $fpid || r=$?
fio_report faults $r || rc=1
echo "controller $(cat /sys/class/nvme/$ctrl/state 2>/dev/null)"
vm-barrier io-done
nvme_pattern 32 128 || rc=1
vm-barrier written
vm-barrier compared
nvme_disconnect && echo "disconnected" || { echo "disconnect failed"; rc=1; }
vm-barrier disconnected
exit $rc
