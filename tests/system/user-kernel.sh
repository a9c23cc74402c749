#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: a kernel handed over as a user would, not as one of
# images/build's packaged kernels.  Debian's 6.12 kernel package is
# unpacked with dpkg-deb -x, as a bzImage plus a modules directory (the
# shape `make modules_install INSTALL_MOD_PATH=DIR` leaves), and given to
# scripts/vm with --kernel-image/--modules:
#  - a config without irdma is refused before anything boots, naming the
#    option to turn on (the kernel's config-RELEASE, and with no config at
#    all, the modules present);
#  - the whole kernel runs the irdma-probe and iwarp-rping system tests
#    unchanged, and the guests really ran it (uname, dmesg).
set -u
. "$(dirname "$0")/lib.sh"

# Debian's 6.12 kernel package (images/build downloads it into its cache).
img=$(E810_KERNEL=6.12 "$TOP/images/build" --print-dir 2>"$OUT/images-build.log") ||
	{ cat "$OUT/images-build.log"; fail "images/build --kernel 6.12"; pass_fail; }
pkg=$(awk '$4 == "kernel" { print $1 "_" $2 }' "$img/manifest.txt" | head -1)
deb=$(ls "$TOP"/build/images/debs/"${pkg}"_amd64.deb 2>/dev/null | head -1)
[ -f "$deb" ] || { fail "no .deb for $pkg"; pass_fail; }
K=$OUT/kernel
dpkg-deb -x "$deb" "$K"
rel=$(basename "$img")
bz=$K/boot/vmlinuz-$rel
moddir=$(ls -d "$K"/usr/lib/modules/"$rel" "$K"/lib/modules/"$rel" 2>/dev/null | head -1)
[ -f "$bz" ] && [ -d "$moddir" ] || { fail "unpacked package lacks vmlinuz or modules"; pass_fail; }
echo "their kernel: $bz, modules under $K"

job=$OUT/uname.sh
printf '#!/bin/sh\nuname -r\n' > "$job"

# 1. irdma turned off in the config: refused at once, before any boot.
N=$OUT/no-irdma
mkdir -p "$N/boot" "$N/usr/lib/modules"
sed 's/^CONFIG_INFINIBAND_IRDMA=.*/# CONFIG_INFINIBAND_IRDMA is not set/' \
	"$K/boot/config-$rel" > "$N/boot/config-$rel"
ln -s "$moddir" "$N/usr/lib/modules/$rel"
t0=$(date +%s)
"$VM" --out "$OUT/no-irdma-run" --guests 1 --nic e810 --kernel-image "$bz" --modules "$N" \
	--script "$job" --timeout 60 > "$OUT/no-irdma.log" 2>&1
rc=$?
dt=$(( $(date +%s) - t0 ))
[ $rc != 0 ] || fail "a kernel without irdma was booted (exit 0)"
grep -q 'CONFIG_INFINIBAND_IRDMA=m (or y)' "$OUT/no-irdma.log" ||
	fail "the refusal does not name CONFIG_INFINIBAND_IRDMA: $(tail -5 "$OUT/no-irdma.log")"
grep -q 'e810.config' "$OUT/no-irdma.log" || fail "the refusal does not point at the fragment"
[ ! -d "$OUT/no-irdma-run/g0" ] || fail "a guest was started for a kernel without irdma"
[ $dt -le 30 ] || fail "the refusal took $dt s"
echo "no irdma (config): refused in $dt s: $(grep -m1 CONFIG_INFINIBAND_IRDMA "$OUT/no-irdma.log")"

# 2. No config anywhere and no irdma.ko: the modules tell.
M=$OUT/no-config
mkdir -p "$M/usr/lib/modules"
cp -al "$moddir" "$M/usr/lib/modules/$rel"
find "$M/usr/lib/modules/$rel" -name 'irdma.ko*' -delete
rm -f "$M/usr/lib/modules/$rel/build"
"$TOP/images/build" --kernel-image "$bz" --modules "$M" --check-only > "$OUT/no-config.log" 2>&1
rc=$?
[ $rc != 0 ] || fail "check-only passed a kernel without irdma.ko"
grep -q 'CONFIG_INFINIBAND_IRDMA' "$OUT/no-config.log" || fail "no-config refusal: $(tail -3 "$OUT/no-config.log")"
grep -q 'its modules' "$OUT/no-config.log" || fail "no-config refusal does not say the modules were checked"
echo "no irdma (modules only): $(grep -m1 CONFIG_INFINIBAND_IRDMA "$OUT/no-config.log")"

# 3. The whole kernel: the system tests themselves, unchanged.
for t in irdma-probe iwarp-rping; do
	E810_VM_ARGS="--kernel-image $bz --modules $K" TEST_NAME=user-kernel-$t \
		OUT=$OUT/$t bash "$TOP/tests/system/$t.sh" > "$OUT/$t.log" 2>&1 ||
		fail "$t on their kernel: $(grep -E '^(FAIL|  check failed)' "$OUT/$t.log" | head -3)"
	grep -E '^(PASS|FAIL)' "$OUT/$t.log"
	for g in 0 1; do
		grep -q "Linux version $rel " "$OUT/$t/run/g$g/dmesg.log" ||
			fail "$t g$g did not run $rel: $(head -1 "$OUT/$t/run/g$g/dmesg.log")"
	done
	grep -q "user-" "$OUT/$t/run/g0/cmdline" ||
		fail "$t g0 did not boot the image built from their kernel"
done
pass_fail
