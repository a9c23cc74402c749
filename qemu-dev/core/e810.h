/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 device core: state and the entry points the host (QEMU glue or unit
 * tests) calls.
 */
#ifndef E810_H
#define E810_H

#include "types.h"
#include "regs.h"
#include "intr.h"
#include "fw/aq.h"
#include "fw/fw.h"
#include "lan/lan.h"
#include "rdma/rdma.h"
#include "rdma/puda.h"
#include "txsched.h"

/* Counters for everything the device refused or lost (never silent). */
typedef struct E810Counters {
    uint64_t guest_errors;      /* invalid guest programming */
    uint64_t dma_errors;        /* DMA to/from guest memory failed */
    uint64_t rx_dropped;        /* frames from the wire not delivered */
    uint64_t tx_dropped;        /* frames the backend refused */
    uint64_t mmio_bad_access;   /* unaligned or out-of-range accesses */
    uint64_t irq_raised;        /* MSI-X messages sent */
    uint64_t pf_resets;
    /* LAN Tx */
    uint64_t tx_frames;         /* frames sent (or looped back) */
    uint64_t tx_bytes;
    uint64_t tx_tso;            /* TSO packets segmented */
    uint64_t tx_bad_desc;       /* packets dropped: malformed descriptors/headers */
    uint64_t tx_oversize;       /* packets dropped: beyond the frame/TSO limits */
    uint64_t tx_zero_desc;      /* zero-length data descriptors (skipped) */
    uint64_t tx_bad_doorbell;   /* doorbells of disabled queues / beyond the ring */
    /* LAN Rx: each drop also counts in rx_dropped */
    uint64_t rx_frames;         /* frames placed in a queue */
    uint64_t rx_bytes;
    uint64_t rx_link_down;
    uint64_t rx_runt;
    uint64_t rx_oversize;       /* beyond the maximum frame or the queue's rxmax */
    uint64_t rx_no_vsi;         /* no switch rule matched */
    uint64_t rx_queue_off;      /* target queue disabled or badly programmed */
    uint64_t rx_no_desc;        /* no free descriptors */
    /* Device-initiated accesses that would have re-entered the device
     * (a DMA or MSI-X write aimed at its own BAR): refused. */
    uint64_t reentry_blocked;
    uint64_t guest_errors_suppressed;   /* log lines over the rate limit */
    uint64_t mem_refused;       /* host allocations over mem_limit */
    /* CCQEs the driver took beyond those the engine wrote, seen when the
     * CCQ or the CQP goes (e810_rdma_ccq_check: irdma's unload race). */
    uint64_t ccq_overconsumed;
} E810Counters;

/*
 * A core timer: the host's timer behind the device's entry guard, so a
 * timer callback runs like any other entry point (see e810_enter()).
 */
struct E810CoreTimer {
    E810Core *c;
    E810TimerCb *cb;
    void *opaque;
    E810Timer *t;
};

/*
 * One MSI-X vector's interrupt state (GLINT_DYN_CTL holds INTENA).  A cause
 * latches in pending_itr until the vector fires; moderation (GLINT_ITR,
 * GLINT_RATE) may defer a fire to the vector's timer.
 */
struct E810Core {
    E810Host host;
    uint8_t mac[6];
    bool link_up;               /* carrier as the host's netdev reports it */

    uint32_t *regs;             /* E810_REGFILE_SIZE / 4 words */
    /* 4 KiB pages of regs written since the last reset: a reset clears
     * only those (most of the 6 MiB file is never written). */
    uint64_t regs_dirty[E810_REGFILE_SIZE / 4096 / 64];
    E810Vector vec[E810_MSIX_VECTORS];
    E810Counters stats;
    E810Aq aq;
    E810Fw fw;
    E810Lan lan;
    E810Rdma rdma;
    E810Puda puda;              /* ILQ/IEQ, RDMA receive steering */
    E810TxSched txs;            /* frame output, deferred data path */

    /*
     * Entry guard.  Everything the device does starts at one entry point
     * (MMIO, a received frame, a link change, a reset, a timer) and runs
     * to completion; a DMA or an MSI-X message the device issues on the
     * way may target the device's own BAR, and such an access must not
     * run device code while the outer activity holds pointers into its
     * state.  It is refused and counted (QEMU's own re-entrancy guard
     * does the same for MMIO and NIC delivery; the glue extends that to
     * timers).
     */
    bool busy;

    /* Host memory the device allocates on the guest's behalf (RDMA
     * connections), bounded by mem_limit (bytes; 0: no bound). */
    uint64_t mem_limit;
    uint64_t mem_used;

    /* Guest-error log rate limit (see e810_guest_error). */
    int64_t gerr_window;
    unsigned gerr_in_window;
};

/* Default for mem_limit: room for a few hundred connected QPs. */
#define E810_MEM_LIMIT_DEFAULT      (256ull << 20)
/* At most this many guest-error lines per second of virtual time. */
#define E810_GUEST_ERROR_BURST      50

/* Lifetime */
void e810_core_init(E810Core *c, const E810Host *host, const uint8_t mac[6]);
void e810_core_cleanup(E810Core *c);
void e810_core_reset(E810Core *c, E810ResetType type);

/* BAR0 access; @size is 1, 2, 4 or 8 bytes. */
uint64_t e810_mmio_read(E810Core *c, uint64_t addr, unsigned size);
void e810_mmio_write(E810Core *c, uint64_t addr, uint64_t val, unsigned size);

/* The wire */
bool e810_can_receive(E810Core *c);
/* Returns @len if the frame was consumed (delivered or counted as dropped). */
size_t e810_receive(E810Core *c, const uint8_t *frame, size_t len);
void e810_set_link(E810Core *c, bool up);
/* The host handed on (@delivered) or discarded one frame it had queued
 * (send_frame returned E810_TX_QUEUED).  Safe to call at any time. */
void e810_tx_drained(E810Core *c, bool delivered);

/* Internal helpers shared by the blocks. */

/*
 * Device-initiated DMA: 0 on success; on failure counted in
 * stats.dma_errors and traced once, here (the host only reports it).
 */
int e810_dma_read(E810Core *c, uint64_t addr, void *buf, size_t len);
int e810_dma_write(E810Core *c, uint64_t addr, const void *buf, size_t len);

/* Virtual clock (0 if the host has none). */
int64_t e810_now(E810Core *c);

/* Timers behind the entry guard; e810_timer_new returns NULL if the host
 * has no timers.  All calls accept NULL. */
E810CoreTimer *e810_timer_new(E810Core *c, E810TimerCb *cb, void *opaque);
void e810_timer_mod(E810CoreTimer *t, int64_t expire_ns);
void e810_timer_del(E810CoreTimer *t);
void e810_timer_free(E810CoreTimer *t);

/* Charge/release host memory against mem_limit; false (and counted) if
 * the allocation would go over it. */
bool e810_mem_charge(E810Core *c, size_t bytes);
void e810_mem_release(E810Core *c, size_t bytes);

/* The receive path without the entry guard, for frames the device loops
 * back to itself from inside an activity of its own. */
void e810_receive_frame(E810Core *c, const uint8_t *frame, size_t len);

void e810_guest_error(E810Core *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void e810_unimp(E810Core *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static inline uint32_t e810_reg(E810Core *c, uint32_t off)
{
    return c->regs[off >> 2];
}

static inline void e810_reg_set(E810Core *c, uint32_t off, uint32_t val)
{
    c->regs[off >> 2] = val;
    c->regs_dirty[off >> 18] |= 1ull << ((off >> 12) & 63);
}

#endif
