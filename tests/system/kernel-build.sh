#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test (scripts/test --full only: the build takes long on 2 cores):
# a kernel built from Debian's linux-source with the shipped fragment
# (images/e810.config merged into x86_64_defconfig, tests/tools/build-kernel)
# is handed over as bzImage + `make modules_install` directory and passes
# irdma-probe unchanged; the built tree itself is then booted with
# --kernel-tree and brings irdma up in iWARP mode.  The build's wall time
# is printed (and kept in build-kernel.time).
set -u
. "$(dirname "$0")/lib.sh"

K=$TOP/build/user-kernel
t0=$(date +%s)
"$TOP/tests/tools/build-kernel" --out "$K" > "$OUT/build-kernel.log" 2>&1 ||
	{ tail -30 "$OUT/build-kernel.log"; fail "tests/tools/build-kernel failed"; pass_fail; }
dt=$(( $(date +%s) - t0 ))
echo "$dt" > "$OUT/build-kernel.time"
grep -E 'build-kernel: (configure|build|built|up to date)' "$OUT/build-kernel.log" | tail -4
echo "kernel from linux-source: $(cat "$K/release") in $dt s (0 if it was built before)"
rel=$(cat "$K/release")

E810_KERNEL= E810_VM_ARGS="--kernel-image $K/bzImage --modules $K/mods" TEST_NAME=kernel-build-irdma-probe \
	OUT=$OUT/irdma-probe bash "$TOP/tests/system/irdma-probe.sh" > "$OUT/irdma-probe.log" 2>&1 ||
	fail "irdma-probe on the built kernel: $(grep -E '^(FAIL|  check failed)' "$OUT/irdma-probe.log" | head -3)"
grep -E '^(PASS|FAIL)' "$OUT/irdma-probe.log"
grep -q "Linux version $rel " "$OUT/irdma-probe/run/g0/dmesg.log" || fail "g0 did not run $rel"

# The tree itself (--kernel-tree: its bzImage, .config, modules installed from it).
tree=$(ls -d "$TOP"/build/kernel-src/linux-source-*/ 2>/dev/null | tail -1)
tree=${tree%/}
if [ -n "$tree" ] && [ -f "$tree/.config" ]; then
	printf '#!/bin/sh\nsh /job/files/bringup && uname -r\n' > "$OUT/tree-job.sh"
	vm_run --kernel-tree "$tree" --nic e810 --file "$TOP/guest-driver/bringup" \
		--script "$OUT/tree-job.sh" --timeout 300
	assert_status 0 0
	assert_output 0 '^bringup: iWARP device irdma'
	assert_output 0 "^$rel\$"
else
	fail "build-kernel left no configured tree under build/kernel-src"
fi
pass_fail
