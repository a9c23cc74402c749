/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 device core: the services every block uses, below all of them.
 *
 * The entry guard, device-initiated DMA, guest-error reporting with its
 * rate limit, the virtual clock, timers behind the entry guard, the bound
 * on host memory and the register file.  Nothing here knows a block: this
 * header includes no block header, and services.c calls no block.
 */
#ifndef E810_SERVICES_H
#define E810_SERVICES_H

#include "types.h"

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
    /* CQP completions never written: their CCQ or CQP went first. */
    uint64_t ccqes_dropped;
    uint64_t faults_injected;   /* fault.h */
    uint64_t adapter_resets;    /* core/global resets this function went through */
    uint64_t faults_skipped;    /* random faults drawn with no room to arm */
} E810Counters;

/* Default for mem_limit: room for a few hundred connected QPs. */
#define E810_MEM_LIMIT_DEFAULT      (256ull << 20)
/* At most this many guest-error lines per second of virtual time. */
#define E810_GUEST_ERROR_BURST      50

/*
 * Entry guard: every entry point runs between e810_enter (false if the
 * device is already running: a re-entry, refused and counted) and
 * e810_leave.  Each entry gets a new number in E810Core.entry, which
 * per-entry limits (the transmit budget, txsched.c) are keyed on.
 */
bool e810_enter(E810Core *c, const char *what, uint64_t addr);
void e810_leave(E810Core *c);

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

void e810_guest_error(E810Core *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void e810_unimp(E810Core *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The device holds state it cannot save (@why, for the user), or with
 * NULL no longer does (the host's optional migration_blocked). */
void e810_migration_blocked(E810Core *c, const char *why);

/*
 * Tables cleared by a reset at the cost of what was used: a map with a
 * bit per chunk of @chunk entries, set before any entry of the chunk is
 * written (e810_dirty_mark); e810_dirty_zero zeroes the marked chunks
 * and forgets them (the others are zero already).  snap.c marks the
 * entries a load reads in the same layout (e810_snap_get_table).
 */
static inline void e810_dirty_mark(uint64_t *map, unsigned chunk, uint32_t idx)
{
    uint32_t ch = idx / chunk;

    map[ch / 64] |= 1ull << (ch % 64);
}
/* May entry @idx be other than zero (its chunk written)? */
static inline bool e810_dirty_test(const uint64_t *map, unsigned chunk,
                                   uint32_t idx)
{
    uint32_t ch = idx / chunk;

    return map[ch / 64] >> (ch % 64) & 1;
}
void e810_dirty_zero(void *base, size_t stride, uint32_t n, unsigned chunk,
                     uint64_t *map, unsigned words);
/* The same for an array member @arr and its map member @map, sizes taken
 * from their declarations. */
#define E810_DIRTY_ZERO(arr, map, chunk) \
    e810_dirty_zero((arr), sizeof((arr)[0]), sizeof(arr) / sizeof((arr)[0]), \
                    (chunk), (map), sizeof(map) / 8)

/*
 * The register file: E810_REGFILE_SIZE bytes of plain storage.  Reads and
 * writes are e810_reg/e810_reg_set (inline, in dev.h next to the storage);
 * a reset zeroes only the pages written since the last one.
 */
void e810_regs_init(E810Core *c);
void e810_regs_cleanup(E810Core *c);
void e810_regs_clear(E810Core *c);
/* Saved state: the pages written since the last reset (snap.h). */
extern const struct E810SnapPart e810_regs_snap;
/* The device's E810Counters (carried in the TXSCHED record). */
extern const struct E810SnapPart e810_counters_snap;

#endif
