# SPDX-License-Identifier: GPL-2.0-or-later
"""TAP for the Python checks of tests/unit that look at one directory:
numbered points, each with its notes as '# ' lines above it (where a
harness shows them), the plan last."""
import sys


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = False

    def point(self, ok, name, notes=()):
        self.n += 1
        self.failed |= not ok
        for note in notes:
            print('# ' + note)
        print('%s %d - %s' % ('ok' if ok else 'not ok', self.n, name))

    def done(self):
        """Print the plan; the exit status (1 if a point failed)."""
        print('1..%d' % self.n)
        return 1 if self.failed else 0


def run_on_dir(usage, check):
    """check(DIR, point) on the one argument DIR, point(ok, name, notes=())
    printing each result; the exit status (2 with usage printed for
    another command line)."""
    if len(sys.argv) != 2:
        print(usage, file=sys.stderr)
        return 2
    tap = Tap()
    check(sys.argv[1], tap.point)
    return tap.done()
