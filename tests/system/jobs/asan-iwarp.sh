#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# asan-iwarp.sh: rping both ways, ib_write_bw and ib_read_bw at 64 KiB,
# ice and irdma unloaded and loaded again, rping once more; then guest 1's
# e810 hot-unplugged while its frames wait in guest 0's stopped QEMU.
# -F: a failed clock calibration under host load does not end perftest
# (see iwarp-perftest.sh).
. /job/files/lib.sh

# run_pair TAG SERVER-CMD CLIENT-CMD: guest 0 serves, guest 1 connects; the
# exit status said, with the log's end if it failed.
run_pair() {
	pair "$1" 0 300 "$2" "$3"
	echo "$1: exit $r"
	[ $r = 0 ] || tail -5 /tmp/$1.log
	vm-barrier "done-$1"
}

up
run_pair rping1 "rping -s -a $GUEST_IP -C 20 -v -V -S 4096" "rping -c -a $PEER_IP -C 20 -v -V -S 4096"
echo "rping1 data lines $(grep -c 'ping data: rdma-ping-' /tmp/rping1.log)"
run_pair write_bw "ib_write_bw -F -R -d $IBDEV -s 65536 -n 20" "ib_write_bw -F -R -d $IBDEV -s 65536 -n 20 $PEER_IP"
run_pair read_bw "ib_read_bw -F -R -d $IBDEV -s 65536 -n 20" "ib_read_bw -F -R -d $IBDEV -s 65536 -n 20 $PEER_IP"
# Tear everything down and bring it up again: PF reset, objects freed.
unreg_begin "modprobe -r irdma"
modprobe -r irdma && modprobe -r ice && echo "unloaded"
unreg_end
up
run_pair rping2 "rping -s -a $GUEST_IP -C 20 -v -V -S 65535" "rping -c -a $PEER_IP -C 20 -v -V -S 65535"
echo "rping2 data lines $(grep -c 'ping data: rdma-ping-' /tmp/rping2.log)"
# Hot-unplug of guest 1's e810 while its frames wait in a stalled backend.
wb="ib_write_bw -F -R -d $IBDEV -s 65536 -n 100000"
# out_octets: the bytes the RDMA device has sent (its ip4OutOctets).
out_octets() {
	v=$(rdma statistic show link "$IBDEV/1" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "ip4OutOctets") print $(i + 1) }')
	echo "${v:-0}"
}
if [ "$GUEST_ID" = 0 ]; then
	timeout 120 $wb -q 8 > /tmp/unplug.log 2>&1 &
	pid=$!
	listen_wait unplug
	vm-barrier listen-unplug
	vm-barrier unplugged
	# Its peer's device is gone without a word on the wire: the server
	# would wait for its timeout (~100 s); its outcome is not the test's.
	kill $pid 2>/dev/null
	wait
	echo "unplug: server ended"
else
	vm-barrier listen-unplug || exit 1
	out0=$(out_octets)
	timeout 120 $wb -q 8 $PEER_IP > /tmp/unplug.log 2>&1 &
	# Stop the peer with data in flight, however long the connection
	# takes to come up under ASan (a fixed 3 s once stopped it before
	# any: nothing was held for the purge).  Eight QPs: their windows
	# together outgrow the link socket's buffers, so that frames wait in
	# QEMU (one QP's window once fitted: nothing held).
	i=0
	while [ $(( $(out_octets) - out0 )) -lt 8388608 ] && [ $i -lt 1200 ]; do
		sleep 0.1; i=$((i + 1))
	done
	echo "unplug: $(( ($(out_octets) - out0) >> 20 )) MiB sent before the stop"
	vm-monitor -g 0 stop >/dev/null && echo "unplug: peer stopped"
	sleep 2
	bdf=
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat $d/vendor)" = 0x8086 ] && [ "$(cat $d/device)" = 0x159b ] && bdf=${d##*/}
	done
	slot=
	for s in /sys/bus/pci/slots/*; do
		[ "$(cat $s/address 2>/dev/null)" = "${bdf%.*}" ] && slot=$s
	done
	echo "unplug: $bdf in slot ${slot:-none}"
	[ -n "$slot" ] && echo 0 > $slot/power
	i=0
	while [ -e /sys/bus/pci/devices/$bdf ] && [ $i -lt 120 ]; do sleep 1; i=$((i + 1)); done
	[ -e /sys/bus/pci/devices/$bdf ] || echo "unplug: device gone"
	vm-monitor -g 0 cont >/dev/null && echo "unplug: peer continued"
	wait
	sleep 2
	vm-barrier unplugged
	echo "unplug: client ended"
fi
