#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# rxe-rping.sh: Soft-RoCE on virtio-net; guest 0 serves COUNT verified
# pings of SIZE bytes, guest 1 is the client.
. /job/files/lib.sh
set -e
dev=$(net-up)
rdma link add rxe0 type rxe netdev $dev
if [ $GUEST_ID = 0 ]; then
	rdma link show
	# Listen, wait until the cm_id is listening, then let the client go.
	rping -s -a $GUEST_IP -C $COUNT -v -V -S $SIZE > /tmp/rping.log 2>&1 &
	pid=$!
	listen_wait server
	vm-barrier listening
	rc=0; wait $pid || rc=$?
	cat /tmp/rping.log
	echo "rping server exit $rc"
	exit $rc
fi
# The peer may configure its address a few seconds later (the guests boot
# in parallel): ask again rather than let one lost ARP end the test.
i=0
until ping -c 1 -W 2 $PEER_IP; do
	i=$((i + 1)); [ $i -lt 15 ] || exit 1
done
vm-barrier listening
rping -c -a $PEER_IP -C $COUNT -v -V -S $SIZE
echo "rping client exit $?"
