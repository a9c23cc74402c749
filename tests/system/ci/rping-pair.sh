#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A scripts/ci job as a user would write one: verified rping between the
# two guests (guest 0 serves), with what scripts/ci puts in the environment.
set -u
echo "job: guest $GUEST_ID $GUEST_IP peer $PEER_IP dev $RDMA_DEV netdev $NETDEV mode $MODE gid $GID_INDEX args $*"
count=${1:-5}
if [ "$GUEST_ID" = 0 ]; then
	rping -s -a "$GUEST_IP" -C "$count" -S 2000 -v -V > /tmp/rping.log 2>&1 &
	rdma-listen-wait 30 || { echo "job: no listener"; exit 1; }
	vm-barrier listening
	wait $!
	rc=$?
else
	vm-barrier listening
	sleep 1
	rping -c -a "$PEER_IP" -C "$count" -S 2000 -v -V > /tmp/rping.log 2>&1
	rc=$?
fi
cat /tmp/rping.log
echo "job: rping exit $rc, $(grep -c 'ping data' /tmp/rping.log) verified pings"
exit $rc
