/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Trace points of the e810 directory: QEMU's tracer, or a stub outside QEMU. */
#ifdef E810_IN_QEMU
#include "trace/trace-hw_net_e810.h"
#else
#include "e810-trace-stub.h"
#endif
