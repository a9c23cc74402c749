#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: RoCEv2 connection management between two e810 guests in
# irdma's default mode: ucmatose with one and CONNS connections, then
# CYCLES rping connect/disconnect cycles through the device's GSI QP,
# resources back to the start (iwarp-cm.sh with RDMA_MODE=roce).
export TEST_NAME=${TEST_NAME:-roce-cm}
export RDMA_MODE=roce
export CYCLES=${CYCLES:-50}
exec bash "$(dirname "$0")/iwarp-cm.sh"
