/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "fake-host.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool in_window(uint64_t addr, size_t len)
{
    return addr >= FAKE_MEM_BASE && len <= FAKE_MEM_SIZE &&
           addr - FAKE_MEM_BASE <= FAKE_MEM_SIZE - len;
}

static bool in_bar0(FakeHost *h, uint64_t addr, size_t len)
{
    return h->bar0_core && addr >= h->bar0_base && len <= E810_BAR0_SIZE &&
           addr - h->bar0_base <= E810_BAR0_SIZE - len;
}

static int fake_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
    FakeHost *h = opaque;

    h->n_dma++;
    if (in_bar0(h, addr, len)) {
        uint8_t *b = buf;

        for (size_t i = 0; i < len; i += 4) {
            uint32_t v = (uint32_t)e810_mmio_read(h->bar0_core,
                                                  (addr - h->bar0_base + i) & ~3ull, 4);
            size_t n = len - i < 4 ? len - i : 4;

            memcpy(b + i, &v, n);
            h->bar0_dma++;
        }
        return 0;
    }
    if (!in_window(addr, len)) {
        h->dma_faults++;
        return -1;
    }
    memcpy(buf, h->mem + (addr - FAKE_MEM_BASE), len);
    return 0;
}

static int fake_dma_write(void *opaque, uint64_t addr, const void *buf, size_t len)
{
    FakeHost *h = opaque;

    h->n_dma++;
    if (in_bar0(h, addr, len)) {
        const uint8_t *b = buf;

        for (size_t i = 0; i < len; i += 4) {
            uint32_t v = 0;
            size_t n = len - i < 4 ? len - i : 4;

            memcpy(&v, b + i, n);
            e810_mmio_write(h->bar0_core, (addr - h->bar0_base + i) & ~3ull,
                            v, 4);
            h->bar0_dma++;
        }
        return 0;
    }
    if (!in_window(addr, len)) {
        h->dma_faults++;
        return -1;
    }
    memcpy(h->mem + (addr - FAKE_MEM_BASE), buf, len);
    return 0;
}

static void fake_msix_notify(void *opaque, unsigned vector)
{
    FakeHost *h = opaque;

    if (h->nirqs < FAKE_MAX_IRQS) {
        h->irqs[h->nirqs++] = vector;
    }
}

static bool fake_send_frame(void *opaque, const void *frame, size_t len)
{
    FakeHost *h = opaque;

    h->n_frames++;
    if (h->frame_cb) {
        h->frame_cb(h->frame_opaque, frame, len);
        return true;
    }
    if (h->quiet) {
        return true;
    }
    if (h->nframes >= FAKE_MAX_FRAMES) {
        return false;
    }
    h->frames[h->nframes] = malloc(len);
    memcpy(h->frames[h->nframes], frame, len);
    h->frame_len[h->nframes++] = len;
    return true;
}

static int64_t fake_clock_ns(void *opaque)
{
    return ((FakeHost *)opaque)->now;
}

static E810Timer *fake_timer_new(void *opaque, E810TimerCb *cb, void *cb_opaque)
{
    FakeHost *h = opaque;
    E810Timer *t = NULL;

    /* Reuse a freed slot first. */
    for (unsigned i = 0; i < h->ntimers && !t; i++) {
        if (!h->timers[i].cb) {
            t = &h->timers[i];
        }
    }
    if (!t) {
        if (h->ntimers >= FAKE_MAX_TIMERS) {
            return NULL;
        }
        t = &h->timers[h->ntimers++];
    }
    t->cb = cb;
    t->opaque = cb_opaque;
    t->expire = -1;
    return t;
}

static void fake_timer_mod(void *opaque, E810Timer *t, int64_t expire)
{
    ((FakeHost *)opaque)->n_timer_mod++;
    t->expire = expire;
}

static void fake_timer_del(void *opaque, E810Timer *t)
{
    (void)opaque;
    t->expire = -1;
}

static void fake_timer_free(void *opaque, E810Timer *t)
{
    (void)opaque;
    t->expire = -1;
    t->cb = NULL;
}

static void fake_guest_error(void *opaque, const char *msg)
{
    FakeHost *h = opaque;

    h->guest_errors++;
    if (getenv("E810_VERBOSE")) {
        fprintf(stderr, "guest error: %s\n", msg);
    }
}

static void fake_unimp(void *opaque, const char *msg)
{
    (void)opaque;
    if (getenv("E810_VERBOSE")) {
        fprintf(stderr, "unimplemented: %s\n", msg);
    }
}

static const E810HostOps fake_ops = {
    .dma_read = fake_dma_read,
    .dma_write = fake_dma_write,
    .msix_notify = fake_msix_notify,
    .send_frame = fake_send_frame,
    .clock_ns = fake_clock_ns,
    .timer_new = fake_timer_new,
    .timer_mod = fake_timer_mod,
    .timer_del = fake_timer_del,
    .timer_free = fake_timer_free,
    .guest_error = fake_guest_error,
    .unimp = fake_unimp,
};

/* One guest RAM kept across fake hosts: a fuzzer creates one per input,
 * and fresh 16 MiB mappings cost more in page faults than the input. */
static uint8_t *spare_mem;

void fake_host_init(FakeHost *h)
{
    memset(h, 0, sizeof(*h));
    if (spare_mem) {
        h->mem = spare_mem;
        spare_mem = NULL;
        memset(h->mem, 0, FAKE_MEM_SIZE);
    } else {
        h->mem = calloc(1, FAKE_MEM_SIZE);
    }
    h->host.ops = &fake_ops;
    h->host.opaque = h;
}

void fake_host_cleanup(FakeHost *h)
{
    for (unsigned i = 0; i < h->nframes; i++) {
        free(h->frames[i]);
    }
    if (!spare_mem) {
        spare_mem = h->mem;
    } else {
        free(h->mem);
    }
    h->mem = NULL;
}

void fake_host_advance(FakeHost *h, int64_t ns)
{
    int64_t end = h->now + ns;

    for (;;) {
        E810Timer *next = NULL;

        for (unsigned i = 0; i < h->ntimers; i++) {
            E810Timer *t = &h->timers[i];
            if (t->cb && t->expire >= 0 && t->expire <= end &&
                (!next || t->expire < next->expire)) {
                next = t;
            }
        }
        if (!next) {
            break;
        }
        if (next->expire > h->now) {
            h->now = next->expire;
        }
        next->expire = -1;
        next->cb(next->opaque);
    }
    h->now = end;
}

void *fake_mem(FakeHost *h, uint64_t addr)
{
    assert(in_window(addr, 1));
    return h->mem + (addr - FAKE_MEM_BASE);
}

unsigned fake_irq_count(FakeHost *h, unsigned vector)
{
    unsigned n = 0;

    for (unsigned i = 0; i < h->nirqs; i++) {
        n += h->irqs[i] == vector;
    }
    return n;
}
