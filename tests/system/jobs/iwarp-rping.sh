#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# iwarp-rping.sh: two rounds (guest ROUND serves), COUNT verified rping
# iterations at each size in SIZES, then the device's statistics.
. /job/files/lib.sh
sh /job/files/bringup || exit 1
rping_rounds
rc=$?
echo "--- rdma res after"
rdma resource show
stats "$(rdma_netdev)"
exit $rc
