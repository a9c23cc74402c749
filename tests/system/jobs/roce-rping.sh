#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# roce-rping.sh: irdma in RoCEv2 mode; two rounds (guest ROUND serves),
# COUNT verified rping iterations at each size in SIZES; the transport and
# the QPs left afterwards.
. /job/files/lib.sh
MODE=roce sh /job/files/bringup || exit 1
IBDEV=$(ls /sys/class/infiniband | head -1)
echo "transport: $(ibv_devinfo -d $IBDEV | sed -n 's/.*transport:[[:space:]]*//p')"
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
sleep 1
echo "--- rdma res after"
rdma resource show
echo "qps after: $(rdma resource show qp | grep -vc 'type GSI')"
exit $rc
