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

struct E810Timer {
    E810TimerCb *cb;
    void *opaque;
    int64_t expire;          /* -1 when not armed */
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
} FakeHost;

void fake_host_init(FakeHost *h);
void fake_host_cleanup(FakeHost *h);
/* Advance the clock, running due timers in order. */
void fake_host_advance(FakeHost *h, int64_t ns);
/* Pointer into fake guest memory at guest address @addr. */
void *fake_mem(FakeHost *h, uint64_t addr);
unsigned fake_irq_count(FakeHost *h, unsigned vector);

#endif
