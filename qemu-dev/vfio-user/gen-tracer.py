#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Generate e810-vfio-user's tracer from qemu-dev/trace-events.

    gen-tracer.py TRACE-EVENTS OUT.h OUT.c

Every event gets an id (TRACE_<NAME>, as QEMU's tracetool names them), a
state flag the server sets from --trace patterns, and a trace_<name>()
that prints a line as QEMU's log backend does ("name fmt") to the trace
file.  Unlike tests/unit/gen-trace-stub.py (an environment filter for the
tests), this one is switched at run time and costs one load per event
when off."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..'))
from trace_events import events  # noqa: E402


def main():
    src, out_h, out_c = sys.argv[1:4]
    evs = list(events(src))
    h = ["/* Generated from trace-events by gen-tracer.py. */",
         "#ifndef E810_TRACER_H", "#define E810_TRACER_H",
         "#include <inttypes.h>", "#include <stdbool.h>",
         "#include <stdio.h>",
         "enum {"]
    h += ["    TRACE_%s," % name.upper() for name, _, _, _ in evs]
    h += ["    E810_TRACE_NEVENTS", "};",
          "extern bool e810_trace_state[E810_TRACE_NEVENTS];",
          "extern const char *const e810_trace_names[E810_TRACE_NEVENTS];",
          "extern FILE *e810_trace_file;",
          "extern bool e810_trace_timestamps;",
          "void e810_trace_stamp(void);",
          "#define trace_event_get_state_backends(id) (e810_trace_state[id])"]
    for name, args, fmt, names in evs:
        call = ", ".join(['"%s " %s "\\n"' % (name, fmt)] + names)
        h += ["static inline void trace_%s(%s)" % (name, args or "void"),
              "{",
              "    if (e810_trace_state[TRACE_%s]) {" % name.upper(),
              "        if (e810_trace_timestamps) {",
              "            e810_trace_stamp();",
              "        }",
              "        fprintf(e810_trace_file, %s);" % call,
              "    }",
              "}"]
    h.append("#endif")
    c = ["/* Generated from trace-events by gen-tracer.py. */",
         '#include "%s"' % out_h.split('/')[-1],
         "bool e810_trace_state[E810_TRACE_NEVENTS];",
         "FILE *e810_trace_file;",
         "/* --trace-timestamps: each line starts as with QEMU's -msg timestamp=on. */",
         "bool e810_trace_timestamps;",
         "#include <time.h>",
         "void e810_trace_stamp(void)",
         "{",
         "    struct timespec ts;",
         "",
         "    clock_gettime(CLOCK_REALTIME, &ts);",
         '    fprintf(e810_trace_file, "%ld.%06ld:", (long)ts.tv_sec, ts.tv_nsec / 1000);',
         "}",
         "const char *const e810_trace_names[E810_TRACE_NEVENTS] = {"]
    c += ['    "%s",' % name for name, _, _, _ in evs]
    c.append("};")
    with open(out_h, "w") as f:
        f.write("\n".join(h) + "\n")
    with open(out_c, "w") as f:
        f.write("\n".join(c) + "\n")


main()
