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
 *
 * As everywhere in QEMU, every .c file includes "qemu/osdep.h" first and
 * that provides the standard C headers; the unit-test build has a small
 * stand-in for it (tests/unit/shim/qemu/osdep.h).
 */
#ifndef E810_HOST_H
#define E810_HOST_H

typedef struct E810Timer E810Timer;
typedef struct E810Bh E810Bh;
typedef void E810TimerCb(void *opaque);

/* What became of a frame handed to send_frame. */
typedef enum E810TxResult {
    E810_TX_DROPPED,    /* lost (counted by the core) */
    E810_TX_SENT,       /* on the wire */
    /*
     * The backend cannot take more: the host keeps the frame and delivers
     * it later, then calls e810_tx_drained() once for it (also if it is
     * discarded after all).  The device sends no new data until then.
     */
    E810_TX_QUEUED,
} E810TxResult;

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
    /*
     * Put one Ethernet frame (no FCS) on the wire.  Never blocks.  With
     * @flow false the host answers sent or dropped only: a frame it has
     * to queue is its own business (LAN frames: the guest's stack does
     * its own flow control, and a Tx ring must never hang on a peer that
     * takes nothing, e.g. a lone hub port).
     */
    E810TxResult (*send_frame)(void *host, const void *frame, size_t len,
                               bool flow);
    /* Monotonic virtual clock in nanoseconds. */
    int64_t (*clock_ns)(void *host);
    /* One-shot timers on the virtual clock. */
    E810Timer *(*timer_new)(void *host, E810TimerCb *cb, void *opaque);
    void (*timer_mod)(void *host, E810Timer *t, int64_t expire_ns);
    void (*timer_del)(void *host, E810Timer *t);
    void (*timer_free)(void *host, E810Timer *t);
    /*
     * Deferred work (a bottom half): @cb runs once from the host's main
     * loop after each bh_schedule, outside any device entry point.  The
     * RDMA data path runs there (txsched.h): a host must provide these.
     */
    E810Bh *(*bh_new)(void *host, E810TimerCb *cb, void *opaque);
    void (*bh_schedule)(void *host, E810Bh *bh);
    void (*bh_free)(void *host, E810Bh *bh);
    /* A guest programmed something invalid (LOG_GUEST_ERROR in QEMU). */
    void (*guest_error)(void *host, const char *msg);
    /* Something the device does not model yet (LOG_UNIMP in QEMU). */
    void (*unimp)(void *host, const char *msg);
    /*
     * Optional.  The device holds state it cannot save (@why, a message
     * for the user) or, with NULL, no longer does: a migration or snapshot
     * is refused meanwhile (QEMU: a migration blocker).
     */
    void (*migration_blocked)(void *host, const char *why);
} E810HostOps;

/*
 * Every member of E810HostOps, filled from functions named
 * <prefix>_<member>: a host writes
 *     static const E810HostOps ops = { E810_HOST_OPS_INIT(my_host) };
 * and defines my_host_dma_read, my_host_dma_write, ... (one for each).
 */
#define E810_HOST_OPS_INIT(prefix) \
    .dma_read = prefix##_dma_read, \
    .dma_write = prefix##_dma_write, \
    .msix_notify = prefix##_msix_notify, \
    .send_frame = prefix##_send_frame, \
    .clock_ns = prefix##_clock_ns, \
    .timer_new = prefix##_timer_new, \
    .timer_mod = prefix##_timer_mod, \
    .timer_del = prefix##_timer_del, \
    .timer_free = prefix##_timer_free, \
    .bh_new = prefix##_bh_new, \
    .bh_schedule = prefix##_bh_schedule, \
    .bh_free = prefix##_bh_free, \
    .guest_error = prefix##_guest_error, \
    .unimp = prefix##_unimp, \
    .migration_blocked = prefix##_migration_blocked

typedef struct E810Host {
    const E810HostOps *ops;
    void *opaque;
} E810Host;

#endif
