#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# iwarp-rping.sh: two rounds (guest ROUND serves), COUNT verified rping
# iterations at each size in SIZES, then the device's statistics.
. /job/files/lib.sh
sh /job/files/bringup || exit 1
rc=0
for round in 0 1; do
	for size in $SIZES; do
		tag="round $round size $size"
		pair "rping-$round-$size" $round 300 \
			"rping -s -a $GUEST_IP -C $COUNT -v -V -S $size" \
			"rping -c -a $PEER_IP -C $COUNT -v -V -S $size"
		if [ $GUEST_ID = $round ]; then
			echo "$tag: server data lines $(grep -c 'server ping data: rdma-ping-' /tmp/rping-$round-$size.log) exit $r"
		else
			echo "$tag: client data lines $(grep -c '^ping data: rdma-ping-' /tmp/rping-$round-$size.log) exit $r"
		fi
		[ $r = 0 ] || { tail -5 /tmp/rping-$round-$size.log; rc=1; }
		vm-barrier "done-$round-$size"
	done
done
echo "--- rdma res after"
rdma resource show
stats "$(rdma_netdev)"
exit $rc
