#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# soak.sh: the guest side of tests/system/soak.sh.  For SOAK seconds guest
# 1 (NVMe/RDMA host, rdma_cm clients) runs a verified random-write fio on
# guest 0's NVMe/RDMA target and, beside it, rounds of a verified rping
# and of ib_write_bw against servers on guest 0, while guest 0's card
# takes random faults (the host's --fault random:...).  Guest 0 keeps its
# servers up (each is started again when it ends) and re-creates its
# NVMe/RDMA port whenever irdma comes back as a new device (nvmet-rdma
# drops its listener with the old one).  Every round says when it ran and
# whether it passed; at the end fio's verdict, a 32 MiB pattern compared
# on both sides, and guest 0's QEMU measured at the start and the end
# (vm-ctl usage).
. /job/files/lib.sh
. /job/files/nvmeof
up || exit 1
SOAK=${SOAK:-1800}
mark() { echo "soak: $*" > /dev/kmsg; echo "$(uptime_s) $*"; }
# stop_servers: ends the servers of the rounds (the image has no pkill).
stop_servers() {
	for p in /proc/[0-9]*; do
		read -r c < "$p/comm" 2>/dev/null || continue
		case "$c" in ib_write_bw|rping) kill "${p#/proc/}" 2>/dev/null ;; esac
	done
}
rc=0
if [ "$GUEST_ID" = 0 ]; then
	nvmet_setup rdma "$GUEST_IP" 256 || { echo "target setup failed"; vm-barrier up; exit 1; }
	# Servers for the peer's rounds, again whenever one ends (a round
	# done, or its device gone under it).
	( while [ ! -e /tmp/stop ]; do
		timeout 300 rping -s -a "$GUEST_IP" -C 100 -v -V -S 4096 > /tmp/rping-s.log 2>&1
		sleep 0.2
	done ) &
	( while [ ! -e /tmp/stop ]; do
		d=$(rdma_active 5) && timeout 120 ib_write_bw -F -R -d "$d" -s 65536 -D 3 > /tmp/bw-s.log 2>&1
		sleep 0.2
	done ) &
	vm-barrier up
	# The card takes random faults from now on (resets among them).
	unreg_begin "random faults"
	idx=$(dev_index)
	# Until the host says it is done (its address 10.0.0.201 answers: one
	# guest's barriers go through one port, so none may wait here).
	j=0
	while :; do
		j=$((j + 1))
		if [ $((j % 5)) = 0 ] && ping -c 1 -W 1 10.0.0.201 > /dev/null 2>&1; then
			touch /tmp/stop
			break
		fi
		i=$(dev_index)
		if [ -n "$i" ] && [ "$i" != "$idx" ] && rdma_active 1 > /dev/null 2>&1; then
			mark "irdma back as a new device: index $idx -> $i"
			# A server whose device went may wait on it for good
			# (ib_write_bw does): its loop starts a new one.
			stop_servers
			nvmet_port_del
			if nvmet_port_add; then mark "port re-created"; else mark "port re-add failed"; rc=1; fi
			idx=$i
		fi
		sleep 1
	done
	vm-barrier done
	echo "target md5 $(dd if=/dev/ram0 bs=1M skip=128 count=32 2>/dev/null | md5sum | cut -d' ' -f1)"
	vm-barrier compared
	nvmet_teardown
	exit $rc
fi
vm-barrier up
# done_addr: tells guest 0 the rounds are over (see there).
done_addr() {
	ip addr add 10.0.0.201/32 dev "$(rdma_netdev)" || echo "done address not added"
}
nvme_connect rdma "$PEER_IP" --reconnect-delay=1 --ctrl-loss-tmo=600 ||
	{ echo "connect failed"; done_addr; vm-barrier done; exit 1; }
ctrl=$(nvme_ctrl)
echo "connected: $ctrl $NVME_DEV"
vm-ctl usage 0 | sed 's/^/start: /'
fio --name=soak --filename=/dev/$NVME_DEV --ioengine=libaio --direct=1 --group_reporting \
	--minimal --numjobs=2 --rw=randwrite --bs=4k --iodepth=8 --size=16M \
	--offset_increment=16M --time_based --runtime="$SOAK" \
	--verify=crc32c --verify_backlog=256 --verify_fatal=1 > /tmp/fio.soak 2>&1 &
fpid=$!
t0=$(uptime_s)
k=0
while [ "$(awk -v a="$t0" -v b="$(uptime_s)" -v s="$SOAK" 'BEGIN { print (b - a < s) }')" = 1 ]; do
	k=$((k + 1))
	r=0
	timeout 120 rping -c -a "$PEER_IP" -C 100 -v -V -S 4096 > /tmp/rping-c.log 2>&1 || r=$?
	n=$(grep -c '^ping data: rdma-ping-' /tmp/rping-c.log)
	rping_teardown_race /tmp/rping-c.log 100 && [ "$n" = 100 ] && r=0
	[ "$n" = 100 ] || [ $r != 0 ] || r=1
	echo "round $k rping at $(since "$t0"): $([ $r = 0 ] && echo ok || echo "failed ($r, $n pings): $(rping_errors /tmp/rping-c.log | tail -1)")"
	[ $r = 0 ] || sleep 2
	r=0
	d=$(rdma_active 5) && timeout 60 ib_write_bw -F -R -d "$d" -s 65536 -D 3 "$PEER_IP" > /tmp/bw-c.log 2>&1 || r=$?
	[ -n "$d" ] || r=1
	echo "round $k write_bw at $(since "$t0"): $([ $r = 0 ] && echo "ok $(awk '$1 == 65536 { print $4 " MB/s" }' /tmp/bw-c.log)" || echo "failed ($r): $(grep -v '^ *$' /tmp/bw-c.log | tail -1 | cut -c1-100)")"
	[ $r = 0 ] || sleep 2
done
r=0; wait $fpid || r=$?
fio_report soak $r || rc=1
echo "controller $(cat /sys/class/nvme/$ctrl/state 2>/dev/null)"
nvme_pattern 32 128 || rc=1
nvme_disconnect && echo "disconnected" || { echo "disconnect failed"; rc=1; }
vm-ctl usage 0 | sed 's/^/end: /'
done_addr
vm-barrier done
vm-barrier compared
exit $rc
