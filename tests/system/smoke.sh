#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Smoke test of the guest image and launcher: one guest with virtio-net.
# Checks the image's tools, modules and ice DDP file, the job environment,
# vm-monitor and vm-barrier, and Soft-RoCE loopback (rping to itself).
# Usage: tests/system/smoke.sh   (env: E810_QEMU, E810_KERNEL)
set -u
. "$(dirname "$0")/lib.sh"

vm_job smoke --timeout 90
assert_status 0 0
assert_clean_dmesg 0
assert_output 0 '^tool ' 9
assert_output 0 '^ip is iproute2$'
assert_output 0 '^ddp ok$'
assert_output 0 '^module .* loaded$' 3
assert_output 0 '^monitor ok$'
assert_output 0 '^barrier ok$'
assert_output 0 '^rxe0 active$'
assert_output 0 '^ping data: rdma-ping-9: '
assert_output 0 '^loopback ok$'
pass_fail
