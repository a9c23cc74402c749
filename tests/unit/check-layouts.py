#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Keep every layout named once: no e810_fld(<expr>, <number>, <number>)
in the device core's .c files.  Bit-field decodes with literal bit numbers
belong in headers (rdma/defs.h and friends), under the driver's names.

Usage: check-layouts.py CORE_DIR   (prints TAP)
"""
import os
import re
import sys

from tap import run_on_dir

# Files allowed literal decodes (none: every layout is named in a header).
EXEMPT = set()

NUMBER = re.compile(r'^(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*$')
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)


def strip_comments(text):
    # Keep the newlines so that line numbers still match.
    return COMMENT.sub(lambda m: '\n' * m.group(0).count('\n'), text)


def args_at(text, i):
    """The top-level arguments of the call whose '(' is at text[i]."""
    depth, start, out = 0, i + 1, []
    for j in range(i, len(text)):
        ch = text[j]
        if ch in '([{':
            depth += 1
        elif ch in ')]}':
            depth -= 1
            if depth == 0:
                out.append(text[start:j].strip())
                return out
        elif ch == ',' and depth == 1:
            out.append(text[start:j].strip())
            start = j + 1
    return None


def literal_decodes(text):
    """(line, call) for each e810_fld with two literal bit numbers."""
    text = strip_comments(text)
    found = []
    for m in re.finditer(r'\be810_fld\s*\(', text):
        args = args_at(text, m.end() - 1)
        if args and len(args) == 3 and NUMBER.match(args[1]) and \
           NUMBER.match(args[2]):
            line = text.count('\n', 0, m.start()) + 1
            found.append((line, 'e810_fld(%s)' % ', '.join(args)))
    return found


def check(core, point):
    # The detector itself, so that a broken pattern cannot pass silently.
    sample = ('x = e810_fld(w[3], 47, 32);\n'
              'y = e810_fld(ld64(p + 8), 0x3F, 0u);\n'
              'z = e810_fld(v, hi, lo); /* e810_fld(v, 1, 0) */\n'
              'q = QPC_TTL(e810_fld(v, 63, 0));\n')
    got = [line for line, _ in literal_decodes(sample)]
    point(got == [1, 2, 4], 'detector finds literal decodes (got %s)' % got)

    for root, dirs, files in os.walk(core):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith('.c'):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, core).replace(os.sep, '/')
            with open(path, encoding='utf-8') as fh:
                hits = literal_decodes(fh.read())
            if rel in EXEMPT:
                if not hits:
                    print('# %s has no literal decodes left: drop its '
                          'exemption' % rel)
                continue
            for line, call in hits:
                print('# %s:%d: %s: name the field in a header' %
                      (rel, line, call))
            point(not hits, '%s: no literal bit-field decodes' % rel)


if __name__ == '__main__':
    sys.exit(run_on_dir(__doc__, check))
