#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: a Debian package the image does not carry, added with
# --packages, runs an RDMA tool of its own over the device: qperf's RC
# bandwidth and latency tests over rdma_cm between the guests (RoCEv2),
# through scripts/ci.  The archive must hold qperf, the guests must run
# it from there, and the tool must report its figures.
set -u
. "$(dirname "$0")/lib.sh"

arch=$("$TOP/images/packages" --print-archive qperf 2>"$OUT/packages.log") ||
	{ cat "$OUT/packages.log"; fail "images/packages qperf"; pass_fail; }
cpio -it < "$arch" 2>/dev/null | grep -qx 'usr/bin/qperf' || fail "the archive has no usr/bin/qperf"
grep -q '^qperf ' "${arch%.cpio}.manifest" || fail "the manifest does not list qperf"
echo "archive: $arch ($(du -k "$arch" | cut -f1) KiB): $(grep -v '^#' "${arch%.cpio}.manifest" | cut -d' ' -f1,2 | tr '\n' ' ')"

"$TOP/scripts/ci" --mode roce --packages qperf --junit "$OUT/report.xml" --out "$OUT/ci" \
	--timeout 500 "$TOP/tests/system/ci/qperf.sh" > "$OUT/ci.log" 2>&1
rc=$?
cat "$OUT/ci.log"
[ $rc = 0 ] || fail "scripts/ci exit $rc"
o=$OUT/ci/run/g1/output.log
grep -E 'bw|latency|job:' "$o"
grep -q '^job: qperf /usr/bin/qperf: qperf 0\.' "$o" || fail "qperf not run from the package"
grep -qE 'bw *= *[0-9.]+ [KMG]B/sec' "$o" || fail "no qperf bandwidth figure"
grep -qE 'latency *= *[0-9.]+ (us|ms)' "$o" || fail "no qperf latency figure"
pass_fail
