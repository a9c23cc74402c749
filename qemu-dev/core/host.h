/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 device core: the host interface.
 *
 * The core is plain C and never calls QEMU.  Everything it needs from the
 * outside world (guest memory, interrupts, the wire, time, logging) goes
 * through E810HostOps, which the QEMU glue implements for real and the unit
 * tests implement with fakes.  Trace points are the one exception: the core
 * calls trace_e810_*() from "trace.h", which is QEMU's generated tracer in a
 * QEMU build and a generated stub in the unit-test build.
 */
#ifndef E810_HOST_H
#define E810_HOST_H

#if defined(__has_include)
#if __has_include("qemu/osdep.h")
#define E810_IN_QEMU 1
#endif
#endif

#ifdef E810_IN_QEMU
#include "qemu/osdep.h"
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#endif

typedef struct E810Timer E810Timer;
typedef void E810TimerCb(void *opaque);

typedef struct E810HostOps {
    /*
     * Device-initiated DMA.  Return 0 on success, non-zero when any byte of
     * the range could not be accessed (the core then takes the hardware's
     * error path).
     */
    int (*dma_read)(void *host, uint64_t addr, void *buf, size_t len);
    int (*dma_write)(void *host, uint64_t addr, const void *buf, size_t len);
    /* Send MSI-X message @vector (PCI function relative). */
    void (*msix_notify)(void *host, unsigned vector);
    /* Put one Ethernet frame (no FCS) on the wire; false if it was dropped. */
    bool (*send_frame)(void *host, const void *frame, size_t len);
    /* Monotonic virtual clock in nanoseconds. */
    int64_t (*clock_ns)(void *host);
    /* One-shot timers on the virtual clock. */
    E810Timer *(*timer_new)(void *host, E810TimerCb *cb, void *opaque);
    void (*timer_mod)(void *host, E810Timer *t, int64_t expire_ns);
    void (*timer_del)(void *host, E810Timer *t);
    void (*timer_free)(void *host, E810Timer *t);
    /* A guest programmed something invalid (LOG_GUEST_ERROR in QEMU). */
    void (*guest_error)(void *host, const char *msg);
    /* Something the device does not model yet (LOG_UNIMP in QEMU). */
    void (*unimp)(void *host, const char *msg);
} E810HostOps;

typedef struct E810Host {
    const E810HostOps *ops;
    void *opaque;
} E810Host;

#endif
