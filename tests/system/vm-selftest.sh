#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Self-test of scripts/vm's failure reporting, which other tests rely on:
# a job exit code is passed through, a hung guest is reported as "timeout",
# and a QEMU killed by a signal as "qemu-crashed" (not as a guest failure).
# Usage: tests/system/vm-selftest.sh   (env: E810_QEMU, E810_KERNEL)
set -u
. "$(dirname "$0")/lib.sh"
REAL_QEMU=${E810_QEMU:-$TOP/build/qemu-build/qemu-system-x86_64}

check() {  # check RUN-DIR GUEST EXPECTED-STATUS EXPECTED-VM-RC-NONZERO
	local st
	st=$(cat "$1/g$2/status" 2>/dev/null)
	[ "$st" = "$3" ] || fail "$(basename "$1"): g$2 status '$st', expected '$3'"
}

# 1. Exit code pass-through, two guests, different scripts.
printf '#!/bin/sh\nexit 3\n' > "$OUT/exit3.sh"
printf '#!/bin/sh\ntrue\n' > "$OUT/true.sh"
"$VM" --quiet --out "$OUT/exit" --guests 2 --script "$OUT/exit3.sh" --script1 "$OUT/true.sh" --timeout 60
[ $? != 0 ] || fail "exit: scripts/vm returned 0 although a job exited 3"
check "$OUT/exit" 0 3
check "$OUT/exit" 1 0

# 2. A job that never ends.
printf '#!/bin/sh\nsleep 1000\n' > "$OUT/hang.sh"
"$VM" --quiet --out "$OUT/hang" --script "$OUT/hang.sh" --timeout 15
[ $? != 0 ] || fail "hang: scripts/vm returned 0"
check "$OUT/hang" 0 timeout

# 3. QEMU dies by SIGSEGV while the job runs: a wrapper that schedules the
# signal for its own pid, then execs QEMU (which keeps the pid).
cat > "$OUT/crashing-qemu" <<EOS
#!/bin/bash
( sleep 6; kill -SEGV \$\$ ) &
exec "$REAL_QEMU" "\$@"
EOS
chmod +x "$OUT/crashing-qemu"
"$VM" --out "$OUT/crash" --qemu "$OUT/crashing-qemu" --script "$OUT/hang.sh" --timeout 60 > "$OUT/crash.txt"
[ $? != 0 ] || fail "crash: scripts/vm returned 0"
check "$OUT/crash" 0 qemu-crashed
grep -q 'qemu crashed (signal 11)' "$OUT/crash.txt" || fail "crash: no 'qemu crashed (signal 11)' in the summary"
pass_fail
