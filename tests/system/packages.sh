#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: a Debian package the image does not carry, added with
# --packages, runs an RDMA tool of its own over the device: qperf's RC
# bandwidth and latency tests over rdma_cm between the guests (RoCEv2),
# through scripts/ci.  The image must hold qperf, the guests must run it
# from there (a read-only disk laid under /usr, not guest RAM), and the
# tool must report its figures.  kmod comes too:
# its modprobe (a relative link to kmod that the base image's busybox
# applet shadows) must be the one on PATH, and work; and two modules the
# image lacks, added by name (--kmods null_blk,loop), load.
set -u
. "$(dirname "$0")/lib.sh"

img=$("$TOP/images/packages" --print-image qperf kmod 2>"$OUT/packages.log") ||
	{ cat "$OUT/packages.log"; fail "images/packages qperf kmod"; pass_fail; }
unsquashfs -l "$img" 2>/dev/null | grep -qx 'squashfs-root/usr/bin/qperf' || fail "the image has no usr/bin/qperf"
grep -q '^qperf ' "${img%.squashfs}.manifest" || fail "the manifest does not list qperf"
echo "image: $img ($(du -k "$img" | cut -f1) KiB): $(grep -v '^#' "${img%.squashfs}.manifest" | cut -d' ' -f1,2 | tr '\n' ' ')"

"$TOP/scripts/ci" --mode roce --packages qperf,kmod --kmods null_blk,loop --junit "$OUT/report.xml" --out "$OUT/ci" \
	--timeout 500 "$TOP/tests/system/ci/qperf.sh" > "$OUT/ci.log" 2>&1
rc=$?
cat "$OUT/ci.log"
[ $rc = 0 ] || fail "scripts/ci exit $rc"
o=$OUT/ci/run/g1/output.log
grep -E 'bw|latency|job:' "$o"
grep -q '^job: qperf /usr/bin/qperf: qperf 0\.' "$o" || fail "qperf not run from the package"
grep -q '^job: kmods: null_blk and loop loaded, /dev/nullb0 there' "$o" ||
	fail "modules added by name: $(grep '^job: kmods' "$o")"
grep -qE '^job: modprobe /usr/local/sbin/modprobe: kmod version [0-9]+' "$o" ||
	fail "kmod's modprobe not first on PATH or not working: $(grep '^job: modprobe' "$o")"
grep -q '^job: packages: squashfs ro, /usr overlay, qperf in the root file system: no$' "$o" ||
	fail "the packages are not on their disk: $(grep '^job: packages' "$o")"
grep -qE 'bw *= *[0-9.]+ [KMG]B/sec' "$o" || fail "no qperf bandwidth figure"
grep -qE 'latency *= *[0-9.]+ (us|ms)' "$o" || fail "no qperf latency figure"
pass_fail
