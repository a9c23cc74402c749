#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: the device out of process (e810-vfio-user; scripts/vm
# --device-backend vfio-user) behind QEMU's vfio-user client, here our
# emulator's (scripts/test --full runs the core set on a stock QEMU, built
# and Debian's).  The server is the unit build's (ASan and UBSan: a memory
# error in it ends it, and the run fails).
#  1. iwarp-rping and roce-rping as they are, through the servers (their
#     own checks: data verified, statistics, the wire from the server's
#     --pcap).
# A server killed under a running guest: tests/system/vfio-user-kill.sh.
set -u
. "$(dirname "$0")/lib.sh"

vfu_server || pass_fail
ninja -C "${E810_STATE:-$TOP/build}/unit" qemu-dev/vfio-user/e810-vfio-user > "$OUT/server-build.log" 2>&1 ||
	{ tail -20 "$OUT/server-build.log"; fail "e810-vfio-user build"; pass_fail; }

for t in iwarp-rping roce-rping; do
	E810_VM_ARGS="${E810_VM_ARGS:-} --device-backend vfio-user" TEST_NAME=$TEST_NAME-$t \
		bash "$TOP/tests/system/$t.sh" > "$OUT/$t.log" 2>&1
	rc=$?
	tail -1 "$OUT/$t.log"
	[ $rc = 0 ] || { tail -25 "$OUT/$t.log"; fail "$t through e810-vfio-user"; }
done

VM_RC=0
pass_fail
