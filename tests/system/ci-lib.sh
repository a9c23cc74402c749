# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers of the system tests that run scripts/ci as a user would
# (ci-runner.sh, ci-siw.sh); source after lib.sh.

CI=$TOP/scripts/ci
J=$TOP/tests/system/ci

# check_junit FILE TESTS FAILURES ERRORS [REGEX-IN-SYSTEM-OUT]
check_junit() {
	/usr/bin/python3 - "$@" <<'PY' || fail "junit $1: see above"
import re, sys
import xml.etree.ElementTree as ET
path, tests, failures, errors = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
want = sys.argv[5] if len(sys.argv) > 5 else None
bad = []
root = ET.parse(path).getroot()
if root.tag != 'testsuites':
    bad.append(f'root element {root.tag}')
suites = root.findall('testsuite')
if not suites:
    bad.append('no testsuite')
s = suites[0]
for k in ('name', 'tests', 'failures', 'errors', 'time', 'timestamp'):
    if s.get(k) is None:
        bad.append(f'testsuite lacks {k}')
cases = s.findall('testcase')
nf = sum(1 for c in cases if c.find('failure') is not None)
ne = sum(1 for c in cases if c.find('error') is not None)
if (len(cases), nf, ne) != (tests, failures, errors):
    bad.append(f'cases/failures/errors {len(cases)}/{nf}/{ne}, expected {tests}/{failures}/{errors}')
if (int(s.get('tests')), int(s.get('failures')), int(s.get('errors'))) != (tests, failures, errors):
    bad.append('testsuite counts disagree with its test cases')
for c in cases:
    for k in ('name', 'classname', 'time'):
        if not c.get(k):
            bad.append(f'testcase lacks {k}')
    float(c.get('time'))
    for e in c.findall('failure') + c.findall('error'):
        if not e.get('message'):
            bad.append('failure/error without message')
    out = c.findtext('system-out') or ''
    if want and not re.search(want, out):
        bad.append(f'{c.get("name")}: system-out lacks /{want}/')
print(f'junit {path}: {len(cases)} cases, {nf} failures, {ne} errors' + ('' if not bad else ': ' + '; '.join(bad)))
sys.exit(1 if bad else 0)
PY
}

# why DIR: what each guest of the scripts/ci run in DIR ended with, for a
# run that did not end as expected; printed last, where a CI log's tail
# shows it.
why() {
	local g
	{
		echo "=== why: $1"
		for g in "$1"/run/g*; do
			[ -d "$g" ] || continue
			echo "--- ${g##*/}: status '$(cat "$g/status" 2>/dev/null)'"
			echo "--- ${g##*/}/output.log (last lines)"
			tail -8 "$g/output.log" 2>/dev/null | cut -c1-300
			echo "--- ${g##*/}/console.log (last lines)"
			tail -25 "$g/console.log" 2>/dev/null | cut -c1-300
			echo "--- ${g##*/}/qemu.log (last lines)"
			tail -8 "$g/qemu.log" 2>/dev/null | cut -c1-300
		done
		cat "$1/run/snapshot.log" 2>/dev/null
	} >> "$OUT/why.txt"
}
rm -f "$OUT/why.txt"

# ci_run NAME RC WHAT ARGS...: scripts/ci ARGS with --junit $OUT/NAME.xml and
# --out $OUT/NAME, its log printed; WHAT failed unless it exits RC.
ci_run() {
	local name=$1 want=$2 what=$3 rc
	shift 3
	"$CI" --junit "$OUT/$name.xml" --out "$OUT/$name" "$@" > "$OUT/$name.log" 2>&1
	rc=$?
	cat "$OUT/$name.log"
	[ $rc = "$want" ] || { fail "$what: exit $rc, expected $want"; why "$OUT/$name"; }
}
