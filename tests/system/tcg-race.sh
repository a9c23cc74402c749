#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: the reproducer of QEMU's multi-threaded TCG race
# (qemu-dev/overlay/tcg-pin.h, docs/status.md).  One guest, 2 vCPUs, its
# e810 without a driver: guest-driver/mmio-race reads BAR0 on one vCPU
# while the other turns the function's memory decoding off and on (a new
# memory map from that vCPU's thread each time).  QEMU without the fix
# aborts within seconds ("iotlb_to_section: Assertion `section_index <
# d->map.sections_nb' failed"); with it the guest ends its job, every
# value read is the register's or that of a function not decoding, and
# QEMU's log has no assertion.  Under KVM the race cannot happen: the
# test still runs and passes.
set -u
. "$(dirname "$0")/lib.sh"

SECONDS_RUN=${SECONDS_RUN:-30}
"$TOP/guest-driver/build" -q || { fail "guest-driver/build"; pass_fail; }
vm_job tcg-race --guests 1 --nic e810 --smp 2 --env SECONDS=$SECONDS_RUN \
	--file "${E810_STATE:-$TOP/build}/guest-driver/mmio-race" --timeout 300

assert_status 0 0
assert_output 0 '^cpus 2, e810 at '
assert_output 0 '^mmio-race: toggles [0-9]+ reads [0-9]+ other 0$'
assert_output 0 '^mmio-race exit 0$'
grep -h 'mmio-race:' "$OUT/run/g0/output.log"
bad=$(grep -h 'Assertion' "$OUT"/run/g*/qemu.log 2>/dev/null | head -2)
[ -z "$bad" ] || fail "QEMU: $bad"
pass_fail
