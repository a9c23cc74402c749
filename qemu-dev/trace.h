/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trace points of the e810 directory: QEMU's generated tracer (the unit-test
 * build has a stand-in, tests/unit/shim/trace/trace-hw_net_e810.h).
 */
#include "trace/trace-hw_net_e810.h"

/* Whether e810_guest_error's trace point is on (its text is made then). */
#define E810_TRACING_GUEST_ERROR() \
    trace_event_get_state_backends(TRACE_E810_GUEST_ERROR)
