#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# roce-rxe.sh: guest 0 brings irdma up in RoCEv2 mode, guest 1 makes an
# rxe device on its virtio-net NIC; two rounds (guest ROUND serves), COUNT
# verified rping iterations at each size in SIZES.
. /job/files/lib.sh
if [ $GUEST_ID = 0 ]; then
	MODE=roce sh /job/files/bringup || exit 1
else
	modprobe virtio_net 2>/dev/null	# loaded by --mode's coldplug; not with COLDPLUG=0
	dev=$(net-up) || exit 1
	rdma link add rxe0 type rxe netdev $dev || exit 1
	rdma link show
	i=0
	until ping -c 1 -W 2 $PEER_IP >/dev/null; do
		i=$((i + 1)); [ $i -lt 15 ] || exit 1
	done
fi
rping_rounds
rc=$?
exit $rc
