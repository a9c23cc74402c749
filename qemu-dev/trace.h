/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Trace points of the e810 directory: QEMU's tracer, or a stub outside QEMU. */
#ifdef E810_IN_QEMU
#include "trace/trace-hw_net_e810.h"
/* Whether e810_guest_error's trace point is on (its text is made then). */
#define E810_TRACING_GUEST_ERROR() \
    trace_event_get_state_backends(TRACE_E810_GUEST_ERROR)
#else
#include "e810-trace-stub.h"
#define E810_TRACING_GUEST_ERROR() e810_trace_on("e810_guest_error")
#endif
