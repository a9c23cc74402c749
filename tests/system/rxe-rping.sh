#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: Soft-RoCE (rdma_rxe) between two guests with virtio-net.
# Guest 0 runs an rping server, guest 1 the client (100 verified pings of
# SIZE bytes); both must print the data pattern, exit 0, and log no kernel
# warning.  Checks the launcher, the image's RDMA user space and the barrier.
# Usage: tests/system/rxe-rping.sh [SIZE]   (env: E810_QEMU, E810_KERNEL)
set -u
. "$(dirname "$0")/lib.sh"
SIZE=${1:-1024}
COUNT=100

vm_job rxe-rping --guests 2 --nic virtio --env SIZE="$SIZE" --env COUNT="$COUNT" --timeout 120
for g in 0 1; do
	assert_status $g 0
	assert_clean_dmesg $g
done
# rping -v prints one line per ping with the rotating ASCII pattern.
assert_output 0 'server ping data: rdma-ping-[0-9]+: [ -~]+' $COUNT
assert_output 1 '^ping data: rdma-ping-[0-9]+: [ -~]+' $COUNT
assert_output 0 '^rping server exit 0$'
assert_output 1 '^rping client exit 0$'
pass_fail
