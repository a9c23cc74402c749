/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake host for the core unit tests: a window of guest memory, a log of
 * MSI-X messages and transmitted frames, and a virtual clock with timers.
 */
#ifndef E810_FAKE_HOST_H
#define E810_FAKE_HOST_H

#include "e810.h"

#define FAKE_MEM_BASE   0x10000000ull
#define FAKE_MEM_SIZE   (16u << 20)
#define FAKE_MAX_IRQS   256
#define FAKE_MAX_FRAMES 64
#define FAKE_MAX_TIMERS 160
#define FAKE_MAX_BHS    4
#define FAKE_MAX_HELD   8192

struct E810Timer {
    E810TimerCb *cb;
    void *opaque;
    int64_t expire;          /* -1 when not armed */
};

struct E810Bh {
    E810TimerCb *cb;
    void *opaque;
    bool scheduled;
};

typedef struct FakeHost {
    E810Host host;
    uint8_t *mem;
    unsigned irqs[FAKE_MAX_IRQS];
    unsigned nirqs;
    uint8_t *frames[FAKE_MAX_FRAMES];
    size_t frame_len[FAKE_MAX_FRAMES];
    unsigned nframes;
    int64_t now;
    struct E810Timer timers[FAKE_MAX_TIMERS];
    unsigned ntimers;
    unsigned guest_errors;
    unsigned dma_faults;
    /*
     * Re-entrancy mode: a DMA into [bar0_base, bar0_base + BAR0 size)
     * is an MMIO access to @bar0_core, as a DMA aimed at the device's own
     * BAR is in QEMU (dispatched in 4-byte pieces).  Off when NULL.
     */
    E810Core *bar0_core;
    uint64_t bar0_base;
    unsigned bar0_dma;          /* DMA pieces that reached BAR0 */
    bool quiet;                 /* no frame log (fuzzing) */
    /* If set, every sent frame goes here instead of the log. */
    void (*frame_cb)(void *opaque, const void *frame, size_t len);
    void *frame_opaque;
    /* What the device asked of the host (benchmarks). */
    uint64_t n_dma, n_timer_mod, n_frames;
    struct E810Bh bhs[FAKE_MAX_BHS];
    unsigned nbhs;
    uint64_t n_bh_runs;
    /* Bottom-half runs per fake_host_run_bh call (0: a million); what is
     * still scheduled waits for the next call, as a main loop does other
     * work in between (the fuzzers keep a long transfer from running to
     * its end inside one input). */
    unsigned bh_limit;
    /* Timer callbacks per fake_host_advance call (0: no limit); the
     * rest stay due for the next call.  A zero-delay timer that keeps
     * re-arming itself (the engine's loopback answering a 2 GiB READ)
     * would otherwise run to the end of the transfer in one call. */
    unsigned timer_limit;
    /* With work_limited: bottom-half runs and timer callbacks left in
     * all (the fuzzers give each input a fixed amount of deferred work;
     * the clock still moves when it is spent). */
    bool work_limited;
    unsigned bh_left, timers_left;
    /*
     * A backend that cannot take more: while tx_full is set, or frames are
     * still held, a sent frame is held (E810_TX_QUEUED, or quietly
     * without flow) until fake_host_tx_release() hands it on, in order.
     */
    bool tx_full;
    uint8_t *held[FAKE_MAX_HELD];
    size_t held_len[FAKE_MAX_HELD];
    bool held_flow[FAKE_MAX_HELD];      /* reported when handed on */
    unsigned nheld;
    /* What the fuzzers' oracles bound per entry point. */
    uint64_t dma_bytes;                 /* bytes read and written by DMA */
    uint64_t n_frames_held;             /* frames handed while held back */
    uint64_t n_flow_frames;             /* frames handed with flow set */
    unsigned nheld_flow;                /* flow frames among the held */
    /*
     * Called around every timer and bottom half the host runs (@after
     * false, then true): each is a device entry point of its own.
     */
    void (*entry_cb)(void *opaque, bool after);
    void *entry_opaque;
    /* The last migration_blocked call: blocked with its message, or not
     * (NULL, blocked_why ""); how many calls there were. */
    unsigned n_blocked;
    bool blocked;
    char blocked_why[256];
} FakeHost;

void fake_host_init(FakeHost *h);
void fake_host_cleanup(FakeHost *h);
/* Advance the clock, running due timers in order (and bottom halves
 * before and after each). */
void fake_host_advance(FakeHost *h, int64_t ns);
/* Run the scheduled bottom halves (and those they schedule); returns
 * how many ran.  What a host's main loop does after every MMIO exit. */
unsigned fake_host_run_bh(FakeHost *h);
/* Hand on up to @n held frames (to the log or frame_cb) and report each
 * to @c (e810_tx_drained); returns how many. */
unsigned fake_host_tx_release(FakeHost *h, E810Core *c, unsigned n);
/* The backend goes away with frames still held (QEMU's
 * qemu_purge_queued_packets): every held frame is discarded, each flow
 * frame reported to @c as such (e810_tx_drained(c, false)); returns how
 * many frames were held. */
unsigned fake_host_tx_purge(FakeHost *h, E810Core *c);
/* Guest RAM for the next fake_host_init (FAKE_MEM_SIZE bytes, zeroed
 * and owned by the caller, e.g. a fuzzer's snapshot mapping); NULL:
 * allocate. */
void fake_host_set_ram(uint8_t *mem);
/* Pointer into fake guest memory at guest address @addr. */
void *fake_mem(FakeHost *h, uint64_t addr);
unsigned fake_irq_count(FakeHost *h, unsigned vector);

#endif
