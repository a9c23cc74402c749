# SPDX-License-Identifier: GPL-2.0-or-later
"""qemu-dev/trace-events as the generators outside QEMU read it
(tests/unit/gen-trace-stub.py, qemu-dev/vfio-user/gen-tracer.py)."""
import re
import sys

_PAT = re.compile(r'^(\w+)\((.*)\)\s+(".*)$')


def events(path):
    """(name, args, fmt, arg_names) per event, in file order; exits on a
    line it cannot read."""
    for line in open(path):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        m = _PAT.match(line)
        if not m:
            sys.exit("cannot parse trace event: " + line)
        name, args, fmt = m.groups()
        names = [a.strip().split()[-1].lstrip('*') for a in args.split(',')
                 if a.strip() and a.strip() != 'void']
        yield name, args, fmt, names
