#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: nvmeof.sh over RoCEv2 (issue 31).  nvme-rdma's host
# fast-registers an MR per command with the local fence, behind commands
# still in flight; the controller reset and the port removal reuse every
# MR of the queues.  The same assertions as over iWARP: no AE, no error
# recovery before the port removal, data verified.
export TEST_NAME=${TEST_NAME:-nvmeof-roce${E810_KERNEL:+@$E810_KERNEL}}
NVMEOF_MODE=roce exec "$(dirname "$0")/nvmeof.sh" "$@"
