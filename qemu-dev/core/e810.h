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
#include "aq.h"
#include "fw.h"
#include "lan.h"
#include "rdma/rdma.h"
#include "rdma/puda.h"

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
} E810Counters;

/*
 * One MSI-X vector's interrupt state (GLINT_DYN_CTL holds INTENA).  A cause
 * latches in pending_itr until the vector fires; moderation (GLINT_ITR,
 * GLINT_RATE) may defer a fire to the vector's timer.
 */
typedef struct E810Vector {
    E810Core *core;             /* for the timer callback */
    uint8_t pending_itr;        /* causes latched: bit i = ITR index i (3: none) */
    bool fired;                 /* last_fire_ns is valid */
    bool timer_armed;
    int64_t last_fire_ns;       /* virtual clock at the last MSI-X message */
    int64_t timer_at;           /* when timer_armed */
    E810Timer *timer;           /* deferred fire, created on first use */
} E810Vector;

struct E810Core {
    E810Host host;
    uint8_t mac[6];
    bool link_up;               /* carrier as the host's netdev reports it */

    uint32_t *regs;             /* E810_REGFILE_SIZE / 4 words */
    E810Vector vec[E810_MSIX_VECTORS];
    E810Counters stats;
    E810Aq aq;
    E810Fw fw;
    E810Lan lan;
    E810Rdma rdma;
    E810Puda puda;              /* ILQ/IEQ, RDMA receive steering */
};

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

/*
 * Interrupt causes: latch a cause for @vector and fire it if enabled, once
 * the vector's ITR interval for @itr_idx (0-2; 3 = no ITR) and its rate
 * limit since its last interrupt have passed.
 */
void e810_intr_cause_itr(E810Core *c, unsigned vector, unsigned itr_idx);
/* A cause routed by a *_CTL register value (MSIX_INDX 10:0, ITR_INDX 12:11). */
void e810_intr_cause_ctl(E810Core *c, uint32_t ctl);
/* A cause that no ITR holds off (ITR index 3). */
void e810_intr_cause(E810Core *c, unsigned vector);

/* Internal helpers shared by the blocks. */
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
}

#endif
