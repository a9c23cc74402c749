#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: iwarp-stall.sh over RoCEv2 (irdma's default mode): a stuck
# peer never freezes the guest, the RoCE requester stops while the backend
# is full and resumes, every byte arrives verified.
export TEST_NAME=${TEST_NAME:-roce-stall}
export RDMA_MODE=roce
exec bash "$(dirname "$0")/iwarp-stall.sh"
