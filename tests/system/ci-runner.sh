#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test: scripts/ci, the job runner CI systems call, used from
# outside as a user would.
#  - a passing job (verified rping between the guests, iWARP) exits 0, its
#    JUnit report is valid with two passing test cases that carry the
#    job's output, and the artifacts folder holds each guest's logs and the
#    capture;
#  - a job failing in one guest exits 1, the report has one failure with
#    the job's exit code and output, the artifacts include the QEMU logs;
#  - a run the infrastructure cannot finish (timeout during boot) exits 2
#    and reports errors, not failures;
#  - RoCEv2 mode (--mode roce) brings the RoCEv2 device up for the job;
#  - --rdma rxe runs the same job on Soft-RoCE over virtio-net, same report.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ci-lib.sh"

# 1. Passing job, iWARP, with capture and artifacts.
ci_run pass 0 "passing job" --artifacts "$OUT/pass-art" --pcap --timeout 400 "$J/rping-pair.sh" 4
check_junit "$OUT/pass.xml" 2 0 0 'job: rping exit 0, [1-9][0-9]* verified pings'
for g in 0 1; do
	for f in output.log dmesg.log console.log status; do
		[ -s "$OUT/pass-art/g$g/$f" ] || fail "pass artifacts: g$g/$f missing"
	done
	grep -q "dev irdma[0-9] netdev [a-z0-9]* mode iwarp gid [0-9]* args 4" "$OUT/pass-art/g$g/output.log" ||
		fail "g$g: job environment: $(grep '^job: guest' "$OUT/pass-art/g$g/output.log")"
	grep -q 'e810-ci: rdma-core: loads .*/libibverbs.so' "$OUT/pass-art/g$g/output.log" ||
		fail "g$g: no line on the libibverbs loaded"
	grep -q 'e810-ci: rdma-core: loads .*libirdma-rdmav.*\.so' "$OUT/pass-art/g$g/output.log" ||
		fail "g$g: no line on the provider loaded"
done
[ -s "$OUT/pass-art/link.pcap" ] || fail "pass artifacts: no link.pcap"
grep -q 'MPA ID Req Frame' "$OUT/pass-art/link.pcap" || fail "the capture has no MPA request"
sum=$(grep -c 'ping data' "$OUT/pass-art/g1/output.log")
[ "$sum" -ge 4 ] || fail "g1 verified $sum pings, expected 4"

# 2. A job that fails in guest 1.
ci_run fail 1 "failing job" --artifacts "$OUT/fail-art" --timeout 400 "$J/fail-g1.sh"
check_junit "$OUT/fail.xml" 2 1 0 'job: guest [01] on irdma'
grep -q 'message="job exit 7"' "$OUT/fail.xml" || fail "the failure does not carry exit 7"
grep -q 'failing on purpose in guest 1' "$OUT/fail.xml" || fail "the failure lacks the job's output"
[ -f "$OUT/fail-art/g1/qemu.log" ] && [ -f "$OUT/fail-art/g1/cmdline" ] ||
	fail "failure artifacts lack qemu.log/cmdline"

# 3. The infrastructure: no time to boot (a fresh boot: from a snapshot
# the job may well start within the time).
ci_run infra 2 "timeout in boot" --timeout 8 --no-snapshot "$J/fail-g1.sh"
check_junit "$OUT/infra.xml" 2 0 2
grep -q 'timeout before the job started' "$OUT/infra.xml" || fail "the error does not say timeout before the job"

# 4. RoCEv2 mode.
ci_run roce 0 "RoCEv2 job" --mode roce --timeout 400 "$J/rping-pair.sh" 2
check_junit "$OUT/roce.xml" 2 0 0 'mode roce gid [0-9]+ args 2'
grep -q 'e810-ci: device irdma[0-9] (roce)' "$OUT/roce/run/g0/output.log" || fail "roce: no RoCEv2 device line"
# The job's own JUnit file (JUNIT_DIR) merged: per guest, its two cases.
/usr/bin/python3 - "$OUT/roce.xml" <<'PY' || fail "roce: the job's JUnit cases are not in the report"
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
got = sorted((s.get('name'), c.get('classname'), c.get('name'), c.find('skipped') is not None)
             for s in root.findall('testsuite')[1:] for c in s.findall('testcase'))
want = sorted((f'e810-ci.rping-pair.sh.g{g}.pair.xml', f'g{g}.pair', n, n == 'always-skipped')
              for g in (0, 1) for n in (f'rping-g{g}', 'always-skipped'))
print('job junit cases:', got)
sys.exit(0 if got == want and root.get('tests') == '6' and root.get('skipped') == '2' else 1)
PY
grep -q 'e810-ci: junit-file' "$OUT/roce.xml" && fail "roce: the JUnit transfer lines stayed in the output"
for g in 0 1; do
	for f in /dev/fd/0 /dev/stdin /dev/stdout /dev/stderr /boot/config-; do
		grep -q "^job: has $f" "$OUT/roce/run/g$g/output.log" || fail "g$g: the guest lacks $f"
	done
	grep -qE '^job: config says CONFIG_INFINIBAND_IRDMA=[ym]$' "$OUT/roce/run/g$g/output.log" ||
		fail "g$g: $(grep '^job: config says' "$OUT/roce/run/g$g/output.log")"
done

# 5. The same job on a software reference (Soft-RoCE on virtio-net).
ci_run rxe 0 "rxe job" --rdma rxe --timeout 400 "$J/rping-pair.sh" 2
check_junit "$OUT/rxe.xml" 2 0 0 'dev rxe0 netdev [a-z0-9]+ mode roce gid [0-9]+ args 2'
grep -q 'classname="e810-ci.rping-pair.sh.rxe-roce"' "$OUT/rxe.xml" || fail "rxe: the report does not name rxe"
[ -s "$OUT/why.txt" ] && cat "$OUT/why.txt"
pass_fail
