/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stand-in for QEMU's generated tracer of hw/net/e810 (qemu-dev/trace.h
 * includes it) in the builds outside QEMU: the stub gen-trace-stub.py makes
 * from qemu-dev/trace-events, whose trace_e810_*() print to stderr when
 * E810_TRACE is set.
 */
#ifndef E810_SHIM_TRACE_HW_NET_E810_H
#define E810_SHIM_TRACE_HW_NET_E810_H

#include "e810-trace-stub.h"

/*
 * What the core asks of QEMU's trace state API: whether an event is on.
 * QEMU's event ids are TRACE_<EVENT>; here they are the events' names.
 */
#define TRACE_E810_GUEST_ERROR "e810_guest_error"
#define trace_event_get_state_backends(id) e810_trace_on(id)

#endif
