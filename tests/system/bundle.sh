#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: build once, run anywhere.  scripts/bundle packs the emulator,
# the guest image and the launchers; the tarball is unpacked in a fresh
# folder and, with nothing of the checkout in its environment, its own
# scripts/ci runs verified rping between two guests (iWARP).  The run must
# use the bundle's QEMU and image, not the checkout's.
set -u
. "$(dirname "$0")/lib.sh"

t0=$(date +%s)
tarball=$("$TOP/scripts/bundle" --out "$OUT/e810-bundle.tar.gz" 2>"$OUT/bundle.log") ||
	{ cat "$OUT/bundle.log"; fail "scripts/bundle failed"; pass_fail; }
echo "bundle: $(du -m "$tarball" | cut -f1) MB in $(( $(date +%s) - t0 )) s"
F=$OUT/fresh
mkdir -p "$F"
tar -C "$F" -xzf "$tarball" || fail "unpacking the bundle"
B=$(ls -d "$F"/e810-* | head -1)
[ -x "$B/scripts/ci" ] && [ -x "$B/build/qemu-build/qemu-system-x86_64" ] || { fail "bundle layout"; pass_fail; }
[ -f "$B/build/images/default/initramfs.cpio.zst" ] || fail "bundle has no default image"
cat "$B/RUNTIME.txt"
# Nothing in the bundle points back into the checkout.
if find "$B" -type l -lname "$TOP*" | grep -q .; then fail "links into the checkout"; fi

env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$OUT" \
	"$B/scripts/ci" --junit "$OUT/report.xml" --out "$OUT/ci" --timeout 400 \
	"$B/tests/system/ci/rping-pair.sh" 3 > "$OUT/ci.log" 2>&1
rc=$?
cat "$OUT/ci.log"
[ $rc = 0 ] || fail "the bundle's scripts/ci: exit $rc"
grep -q "^$B/build/qemu-build/qemu-system-x86_64 " "$OUT/ci/run/g0/cmdline" ||
	fail "not the bundle's QEMU: $(cut -c1-120 "$OUT/ci/run/g0/cmdline")"
grep -q -- "-initrd $OUT/ci/run/g0/initrd" "$OUT/ci/run/g0/cmdline" || fail "initrd not from the run"
grep -q -- "$B/build/images/" "$OUT/ci/run/g0/cmdline" || fail "kernel not from the bundle"
grep -q 'job: rping exit 0, [1-9]' "$OUT/ci/run/g1/output.log" || fail "no verified rping in g1"
# A bundle refuses what needs a checkout, clearly.
"$B/scripts/vm" --packages qperf --script /dev/null > "$OUT/refuse.log" 2>&1 &&
	fail "the bundle accepted --packages"
grep -q 'need a checkout' "$OUT/refuse.log" || fail "no clear refusal: $(tail -1 "$OUT/refuse.log")"
pass_fail
