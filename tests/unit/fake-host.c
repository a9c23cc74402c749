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
    h->dma_bytes += len;
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
    h->dma_bytes += len;
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

static E810TxResult fake_deliver(FakeHost *h, const void *frame, size_t len)
{
    if (h->frame_cb) {
        h->frame_cb(h->frame_opaque, frame, len);
        return E810_TX_SENT;
    }
    if (h->quiet) {
        return E810_TX_SENT;
    }
    if (h->nframes >= FAKE_MAX_FRAMES) {
        return E810_TX_DROPPED;
    }
    h->frames[h->nframes] = malloc(len);
    memcpy(h->frames[h->nframes], frame, len);
    h->frame_len[h->nframes++] = len;
    return E810_TX_SENT;
}

static E810TxResult fake_send_frame(void *opaque, const void *frame, size_t len,
                                    bool flow)
{
    FakeHost *h = opaque;

    h->n_frames++;
    h->n_flow_frames += flow;
    if (h->tx_full || h->nheld) {
        /* Behind the frames already held, as QEMU's queue keeps order. */
        h->n_frames_held++;
        if (h->nheld >= FAKE_MAX_HELD) {
            return E810_TX_DROPPED;
        }
        h->held[h->nheld] = malloc(len);
        memcpy(h->held[h->nheld], frame, len);
        h->held_flow[h->nheld] = flow;
        h->nheld_flow += flow;
        h->held_len[h->nheld++] = len;
        return flow ? E810_TX_QUEUED : E810_TX_SENT;
    }
    return fake_deliver(h, frame, len);
}

unsigned fake_host_tx_release(FakeHost *h, E810Core *c, unsigned n)
{
    unsigned i, flows = 0;

    for (i = 0; i < n && i < h->nheld; i++) {
        fake_deliver(h, h->held[i], h->held_len[i]);
        free(h->held[i]);
        flows += h->held_flow[i];
    }
    memmove(h->held, h->held + i, (h->nheld - i) * sizeof(h->held[0]));
    memmove(h->held_len, h->held_len + i,
            (h->nheld - i) * sizeof(h->held_len[0]));
    memmove(h->held_flow, h->held_flow + i,
            (h->nheld - i) * sizeof(h->held_flow[0]));
    h->nheld -= i;
    h->nheld_flow -= flows;
    for (unsigned k = 0; k < flows; k++) {
        e810_tx_drained(c, true);
    }
    return i;
}

unsigned fake_host_tx_purge(FakeHost *h, E810Core *c)
{
    unsigned n = h->nheld, flows = 0;

    for (unsigned i = 0; i < n; i++) {
        free(h->held[i]);
        flows += h->held_flow[i];
    }
    h->nheld = 0;
    h->nheld_flow = 0;
    /* As QEMU's sent callback with 0: after the queue is empty, since the
     * core may send again from it (into a backend that is gone). */
    for (unsigned k = 0; k < flows; k++) {
        e810_tx_drained(c, false);
    }
    return n;
}

static void fake_entry(FakeHost *h, bool after)
{
    if (h->entry_cb) {
        h->entry_cb(h->entry_opaque, after);
    }
}

static E810Bh *fake_bh_new(void *opaque, E810TimerCb *cb, void *cb_opaque)
{
    FakeHost *h = opaque;
    E810Bh *b;

    if (h->nbhs >= FAKE_MAX_BHS) {
        return NULL;
    }
    b = &h->bhs[h->nbhs++];
    b->cb = cb;
    b->opaque = cb_opaque;
    b->scheduled = false;
    return b;
}

static void fake_bh_schedule(void *opaque, E810Bh *b)
{
    (void)opaque;
    b->scheduled = true;
}

static void fake_bh_free(void *opaque, E810Bh *b)
{
    (void)opaque;
    b->cb = NULL;
    b->scheduled = false;
}

unsigned fake_host_run_bh(FakeHost *h)
{
    unsigned runs = 0;
    bool any;

    do {
        any = false;
        for (unsigned i = 0; i < h->nbhs; i++) {
            E810Bh *b = &h->bhs[i];

            if (b->cb && b->scheduled) {
                if (h->work_limited && !h->bh_left--) {
                    h->bh_left = 0;
                    return runs;
                }
                b->scheduled = false;
                fake_entry(h, false);
                b->cb(b->opaque);
                fake_entry(h, true);
                h->n_bh_runs++;
                runs++;
                any = true;
            }
        }
    } while (any && runs < (h->bh_limit ? h->bh_limit : 1000000));
    return runs;
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

static void fake_migration_blocked(void *opaque, const char *why)
{
    FakeHost *h = opaque;

    h->n_blocked++;
    h->blocked = why != NULL;
    snprintf(h->blocked_why, sizeof(h->blocked_why), "%s", why ? why : "");
}

static const E810HostOps fake_ops = { E810_HOST_OPS_INIT(fake) };

/* One guest RAM kept across fake hosts: a fuzzer creates one per input,
 * and fresh 16 MiB mappings cost more in page faults than the input. */
static uint8_t *spare_mem, *given_mem;

void fake_host_set_ram(uint8_t *mem)
{
    given_mem = mem;
}

void fake_host_init(FakeHost *h)
{
    memset(h, 0, sizeof(*h));
    if (given_mem) {
        h->mem = given_mem;
    } else if (spare_mem) {
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
    for (unsigned i = 0; i < h->nheld; i++) {
        free(h->held[i]);
    }
    if (h->mem == given_mem) {
        /* The caller's. */
    } else if (!spare_mem) {
        spare_mem = h->mem;
    } else {
        free(h->mem);
    }
    h->mem = NULL;
}

void fake_host_advance(FakeHost *h, int64_t ns)
{
    int64_t end = h->now + ns;
    unsigned fired = 0;

    for (;;) {
        E810Timer *next = NULL;

        if ((h->timer_limit && fired++ >= h->timer_limit) ||
            (h->work_limited && !h->timers_left)) {
            break;
        }
        fake_host_run_bh(h);
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
        if (h->work_limited) {
            h->timers_left--;
        }
        fake_entry(h, false);
        next->cb(next->opaque);
        fake_entry(h, true);
    }
    h->now = end;
    fake_host_run_bh(h);
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
