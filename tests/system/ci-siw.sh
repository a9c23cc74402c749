#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test (--full): scripts/ci --rdma siw, the Soft-iWARP reference a
# user runs beside the e810: siw.ko built for the image's kernel
# (guest-driver/siw/build: Debian ships no siw; a trixie chroot the first
# time, as root), the same job (verified rping between the guests) on siw
# over virtio-net, the same report as the e810's, its test cases named
# siw-iwarp.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ci-lib.sh"

ci_run siw 0 "siw job" --rdma siw --timeout 400 "$J/rping-pair.sh" 3
check_junit "$OUT/siw.xml" 2 0 0 'dev siw0 netdev [a-z0-9]+ mode iwarp gid [0-9]+ args 3'
grep -q 'classname="e810-ci.rping-pair.sh.siw-iwarp"' "$OUT/siw.xml" || fail "siw: the report does not name siw"
grep -q 'job: rping exit 0, [1-9][0-9]* verified pings' "$OUT/siw/run/g1/output.log" ||
	fail "siw: no verified rping: $(grep '^job: rping' "$OUT/siw/run/g1/output.log")"
[ -s "$OUT/why.txt" ] && cat "$OUT/why.txt"
pass_fail
