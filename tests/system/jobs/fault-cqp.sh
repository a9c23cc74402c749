#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fault-cqp.sh: the guest side of tests/system/fault-cqp.sh.  Guest 0 asks
# its device to fail the next CREATE_QP CQP op (docs/faults.md) and
# creates a user-space QP (ibv_rc_pingpong's server creates it first
# thing); then both guests run a verified rping.
. /job/files/lib.sh
sh /job/files/bringup || exit 1
if [ "$GUEST_ID" = 0 ]; then
	vm-monitor "qom-set nic0 fault cqp-error:op=0:count=1" && echo "fault armed"
	timeout 60 ibv_rc_pingpong -d "$(rdma_active)" -g 0 > /tmp/pp.log 2>&1
	echo "ibv_rc_pingpong: exit $?"
	sed 's/^/pp: /' /tmp/pp.log | head -5
fi
vm-barrier after-fault
COUNT=20 SIZES=4096 rping_rounds
echo "rping after the fault: exit $?"
exit 0
