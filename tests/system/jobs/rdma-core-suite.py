#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs rdma-core's own test suite (the tests/ folder python3-pyverbs ships)
one test at a time, in this process, each under an alarm, and prints one
line per test:

  RESULT <status> <seconds> <test id> | <reason>

status: pass, fail, error, skip, hang (the alarm fired), xfail, xpass.
A test that wedges the whole process (the alarm cannot end it) is found by
the caller: the progress file names the test that started last; run this
again and it resumes after that test (marked hang).

usage: rdma-core-suite.py TESTS_DIR PROGRESS_FILE TIMEOUT [run_tests.py args]
"""
import os
import signal
import sys
import time
import traceback
import unittest
from importlib.machinery import SourceFileLoader


class Hang(Exception):
    pass


def on_alarm(signum, frame):
    raise Hang('no result within the timeout')


def flat(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from flat(t)
        else:
            yield t


def first_line(text):
    lines = [x for x in str(text).strip().splitlines() if x.strip()]
    # A traceback's last line says what happened.
    return (lines[-1] if lines else '').strip()[:300]


def how_it_ended(rc):
    """The shell's exit status of a run in words: 'killed by SIGSEGV'."""
    if not rc.isdigit():
        return 'exit status unknown'
    n = int(rc)
    if n > 128:
        try:
            return f'killed by {signal.Signals(n - 128).name}'
        except ValueError:
            pass
    return f'exit {n}'


def main():
    tests_dir, progress, timeout = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sys.path.insert(0, tests_dir)
    sys.argv = [os.path.join(tests_dir, 'run_tests.py')] + sys.argv[4:]
    from args_parser import parser
    parser.parse_args()
    tests = SourceFileLoader('tests', os.path.join(tests_dir, '__init__.py')).load_module()
    cases = list(flat(unittest.TestLoader().loadTestsFromModule(tests)))
    only = os.environ.get('SUITE_ONLY')
    if only:
        # A subset to look into one test (fnmatch patterns, comma separated).
        import fnmatch
        cases = [c for c in cases if any(fnmatch.fnmatchcase(c.id(), '*' + p + '*')
                                         for p in only.split(','))]
    seen = {}
    if os.path.exists(progress):
        for line in open(progress):
            what, _, tid = line.strip().partition(' ')
            seen[tid] = what
    signal.signal(signal.SIGALRM, on_alarm)
    print(f'SUITE {len(cases)} tests', flush=True)
    with open(progress, 'a') as prog:
        for case in cases:
            tid = case.id()
            if seen.get(tid) == 'done':
                continue
            if seen.get(tid) == 'start':
                # The last run died in this test; the caller says how
                # (SUITE_LAST_RC: the shell's exit status of that run).
                print(f'RESULT hang {timeout} {tid} | the process did not survive it'
                      f' ({how_it_ended(os.environ.get("SUITE_LAST_RC", ""))})', flush=True)
                prog.write(f'done {tid}\n')
                prog.flush()
                continue
            prog.write(f'start {tid}\n')
            prog.flush()
            res = unittest.TestResult()
            t0 = time.time()
            signal.alarm(timeout)
            try:
                case.run(res)
            except Hang:
                res.errors.append((case, 'Hang: no result within the timeout'))
            finally:
                signal.alarm(0)
            dt = time.time() - t0
            if any('Hang:' in e for _, e in res.errors):
                st, why = 'hang', f'no result within {timeout} s'
            elif res.errors:
                st, why = 'error', first_line(res.errors[0][1])
            elif res.failures:
                st, why = 'fail', first_line(res.failures[0][1])
            elif res.skipped:
                st, why = 'skip', first_line(res.skipped[0][1])
            elif res.expectedFailures:
                st, why = 'xfail', ''
            elif res.unexpectedSuccesses:
                st, why = 'xpass', ''
            else:
                st, why = 'pass', ''
            print(f'RESULT {st} {dt:.1f} {tid} | {why}', flush=True)
            if st in ('error', 'fail'):
                for _, tb in res.errors + res.failures:
                    for line in tb.strip().splitlines()[-8:]:
                        print(f'  {line}')
            prog.write(f'done {tid}\n')
            prog.flush()
    print('SUITE done', flush=True)


if __name__ == '__main__':
    try:
        main()
    except Exception:  # noqa: BLE001 - the caller reads the output
        traceback.print_exc()
        sys.exit(3)
