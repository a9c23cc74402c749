#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Generate e810-trace-stub.h from qemu-dev/trace-events for builds outside
QEMU: every trace_<event>() prints its line to stderr when the environment
variable E810_TRACE is set (a substring filter, or '*' for all)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'qemu-dev'))
from trace_events import events  # noqa: E402


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
    for name, args, fmt, names in events(src):
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
