#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# roce-rping.sh: irdma in RoCEv2 mode; two rounds (guest ROUND serves),
# COUNT verified rping iterations at each size in SIZES; the transport and
# the QPs left afterwards.
. /job/files/lib.sh
MODE=roce sh /job/files/bringup || exit 1
IBDEV=$(ls /sys/class/infiniband | head -1)
echo "transport: $(ibv_devinfo -d $IBDEV | sed -n 's/.*transport:[[:space:]]*//p')"
rping_rounds
rc=$?
sleep 1
echo "--- rdma res after"
rdma resource show
echo "qps after: $(rdma resource show qp | grep -vc 'type GSI')"
exit $rc
