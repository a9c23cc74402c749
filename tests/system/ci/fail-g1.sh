#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A scripts/ci job that fails in guest 1 only (exit 7), after printing a
# line the report must carry.
echo "job: guest $GUEST_ID on $RDMA_DEV"
ibv_devinfo -d "$RDMA_DEV" | grep -E 'transport|state'
if [ "$GUEST_ID" = 1 ]; then
	echo "job: failing on purpose in guest 1"
	exit 7
fi
