#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Generate e810-trace-stub.h from qemu-dev/trace-events for builds outside
QEMU: every trace_<event>() prints its line to stderr when the environment
variable E810_TRACE is set (a substring filter, or '*' for all)."""
import re
import sys


def main():
    src, dst = sys.argv[1], sys.argv[2]
    out = ["/* Generated from trace-events by gen-trace-stub.py. */",
           "#ifndef E810_TRACE_STUB_H", "#define E810_TRACE_STUB_H",
           "#include <inttypes.h>", "#include <stdbool.h>",
           "#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>",
           "static inline bool e810_trace_on(const char *ev)",
           "{",
           "    static const char *f;",
           "    static bool read;",
           "",
           "    if (!read) {",
           "        f = getenv(\"E810_TRACE\");",
           "        read = true;",
           "    }",
           "    return f && (!strcmp(f, \"*\") || strstr(ev, f));",
           "}"]
    pat = re.compile(r'^(\w+)\((.*)\)\s+(".*)$')
    for line in open(src):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        m = pat.match(line)
        if not m:
            sys.exit("cannot parse trace event: " + line)
        name, args, fmt = m.groups()
        names = [a.strip().split()[-1].lstrip('*') for a in args.split(',')
                 if a.strip() and a.strip() != 'void']
        call = ", ".join([fmt] + names) if names else fmt
        out += ["static inline void trace_%s(%s)" % (name, args or "void"),
                "{",
                "    if (e810_trace_on(\"%s\")) {" % name,
                "        fprintf(stderr, \"%s \");" % name,
                "        fprintf(stderr, %s);" % call,
                "        fputc('\\n', stderr);",
                "    }",
                "}"]
    out.append("#endif")
    with open(dst, "w") as f:
        f.write("\n".join(out) + "\n")


main()
