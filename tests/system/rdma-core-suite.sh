#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: rdma-core's own test suite on the device, in RoCEv2 and in
# iWARP mode, one guest per mode (loopback QPs and rdma_cm to the guest's
# own address), as a new user would run it: the suite and pyverbs from the
# image's rdma-core (python3-pyverbs, added with --packages), one test at a
# time with a timeout (tests/system/jobs/rdma-core-suite.py).  Every result
# is compared with tests/system/rdma-core-suite.expected, which names for
# each test that does not pass the reason (the driver's decision, with the
# source line): a test that fails, errors, hangs or skips where the file
# does not say so fails this test.  SUITE_MODES (default "roce iwarp")
# selects the modes.
set -u
. "$(dirname "$0")/lib.sh"

EXPECTED=$TOP/tests/system/rdma-core-suite.expected
# The suite as python3-pyverbs ships it (some files gzipped), unpacked.
deb=$(ls "$TOP"/build/images/apt/archives/python3-pyverbs_*_amd64.deb 2>/dev/null | tail -1)
if [ -z "$deb" ]; then
	"$TOP/images/packages" --print-image python3-pyverbs > /dev/null || { fail "python3-pyverbs"; pass_fail; }
	deb=$(ls "$TOP"/build/images/apt/archives/python3-pyverbs_*_amd64.deb | tail -1)
fi
X=$OUT/pyverbs
mkdir -p "$X"
dpkg-deb -x "$deb" "$X"
S=$X/usr/share/doc/rdma-core/tests
gunzip -f "$S"/*.gz
echo "suite: $(ls "$S"/test_*.py | wc -l) test files from $(basename "$deb")"

for mode in ${SUITE_MODES:-roce iwarp}; do
	OUTM=$OUT/$mode
	"$VM" --out "$OUTM" ${E810_VM_ARGS:-} --guests 1 --nic e810 --packages python3-pyverbs \
		--file "$TOP/tests/system/jobs/lib.sh" --file "$TOP/guest-driver/bringup" \
		--file "$TOP/tests/system/jobs/rdma-core-suite.py" --file "$S:job/files/suite" \
		--env MODE=$mode --env SUITE_DIR=/job/files/suite --env PER=60 --env TOTAL=900 --env SUITE_ONLY=${SUITE_ONLY:-} \
		--script "$TOP/tests/system/jobs/rdma-core-suite.sh" --timeout 1500 > "$OUT/$mode.vm.log" 2>&1
	rc=$?
	tail -3 "$OUT/$mode.vm.log"
	[ $rc = 0 ] || fail "$mode: scripts/vm exit $rc"
	o=$OUTM/g0/output.log
	grep -q '^SUITE done' "$o" || fail "$mode: the suite did not finish"
	grep -E '^suite: ' "$o"
	/usr/bin/python3 - "$mode" "$o" "$EXPECTED" "$OUT/$mode.report" <<'PY' || fail "$mode: results differ from the expected file (see above)"
import fnmatch, re, sys
mode, out, exp, rep = sys.argv[1:5]
# MODE STATUS TEST-PATTERN | MESSAGE-PATTERN | WHY (fnmatch patterns; the
# test's id without "tests.", the message its result line ends with)
expected = []          # (test pattern, status, message pattern, why)
for n, line in enumerate(open(exp), 1):
    line = line.rstrip('\n')
    if not line.strip() or line.startswith('#'):
        continue
    head, msg, why = (line.split(' | ', 2) + ['', ''])[:3]
    f = head.split()
    if len(f) != 3 or not why:
        sys.exit(f'{exp}:{n}: not "MODE STATUS TEST | MESSAGE | WHY"')
    if f[0] in (mode, 'both'):
        expected.append((f[2], f[1], msg.strip(), why.strip()))
res = []
for line in open(out, errors='replace'):
    m = re.match(r'RESULT (\S+) (\S+) (\S+) \| (.*)', line.rstrip('\n'))
    if m:
        res.append((m.group(3), m.group(1), float(m.group(2)), m.group(4)))
counts, bad, lines = {}, [], []
for tid, st, secs, why in res:
    counts[st] = counts.get(st, 0) + 1
    short = tid.replace('tests.', '', 1)
    if st == 'pass':
        if any(fnmatch.fnmatchcase(short, p) for p, _, _, _ in expected):
            lines.append(f'  now passes (the file expects otherwise): {short}')
        continue
    want = next((x for x in expected if fnmatch.fnmatchcase(short, x[0])
                 and st in x[1].split(',') and fnmatch.fnmatchcase(why, x[2])), None)
    if not want:
        bad.append(f'{st}: {short} | {why}')
        lines.append(f'  {st:5} {short} | {why} | NOT EXPECTED')
    else:
        lines.append(f'  {st:5} {short} | {why} | {want[3]}')
tot = ' '.join(f'{k} {counts.get(k, 0)}' for k in ('pass', 'fail', 'error', 'hang', 'skip', 'xfail', 'xpass'))
with open(rep, 'w') as f:
    f.write(f'{mode}: {len(res)} tests: {tot}\n' + '\n'.join(lines) + '\n')
print(f'{mode}: {len(res)} tests: {tot}')
for b in bad:
    print(f'  UNEXPECTED {b}')
sys.exit(1 if bad or not res else 0)
PY
	assert_clean_dmesg_file() { :; }
	bad=$(grep -E 'WARNING:|BUG:|Oops|general protection|cqp opcode|Cmd Error|hung_task' "$OUTM/g0/dmesg.log" | head -3)
	[ -z "$bad" ] || fail "$mode dmesg: $bad"
done
pass_fail
