/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 device core: the services below every block (services.h).
 */
#include "qemu/osdep.h"
#include "dev.h"
#include "snap.h"
#include "../trace.h"

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

/* ---- guest errors ------------------------------------------------------- */

#define E810_MSG_MAX 256

/*
 * Guest errors are always counted and traced; the log line (LOG_GUEST_ERROR
 * in QEMU) is rate limited, so a guest cannot flood the host's log: at most
 * E810_GUEST_ERROR_BURST lines per second of virtual time, then one line
 * saying how many were suppressed when the next second starts.
 */
void e810_guest_error(E810Core *c, const char *fmt, ...)
{
    char msg[E810_MSG_MAX];
    va_list ap;
    int64_t now = e810_now(c);
    bool traced = E810_TRACING_GUEST_ERROR(), logged = false;

    c->stats.guest_errors++;
    if (c->host.ops->guest_error) {
        if (now - c->gerr_window >= 1000000000ll || now < c->gerr_window) {
            uint64_t dropped = c->stats.guest_errors_suppressed;

            c->gerr_window = now;
            c->gerr_in_window = 0;
            if (dropped) {
                char note[96];

                snprintf(note, sizeof(note),
                         "%" PRIu64 " guest-error messages suppressed so far",
                         dropped);
                c->host.ops->guest_error(c->host.opaque, note);
            }
        }
        if (c->gerr_in_window >= E810_GUEST_ERROR_BURST) {
            c->stats.guest_errors_suppressed++;
        } else {
            c->gerr_in_window++;
            logged = true;
        }
    }
    /* The text is made only for a reader: the trace, or a log line within
     * the burst.  A guest that makes the device fail thousands of times
     * per entry (a READ source in the device's own BAR, 4 bytes at a
     * time) costs a counter, not a formatted message each time. */
    if (!traced && !logged) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (traced) {
        trace_e810_guest_error(msg);
    }
    if (logged) {
        c->host.ops->guest_error(c->host.opaque, msg);
    }
}

void e810_unimp(E810Core *c, const char *fmt, ...)
{
    char msg[E810_MSG_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    trace_e810_unimp(msg);
    if (c->host.ops->unimp) {
        c->host.ops->unimp(c->host.opaque, msg);
    }
}

void e810_migration_blocked(E810Core *c, const char *why)
{
    if (c->host.ops->migration_blocked) {
        c->host.ops->migration_blocked(c->host.opaque, why);
    }
}

/* ---- clock and DMA ------------------------------------------------------ */

int64_t e810_now(E810Core *c)
{
    return c->host.ops->clock_ns ? c->host.ops->clock_ns(c->host.opaque) : 0;
}

int e810_dma_read(E810Core *c, uint64_t addr, void *buf, size_t len)
{
    if (c->host.ops->dma_read(c->host.opaque, addr, buf, len)) {
        c->stats.dma_errors++;
        trace_e810_dma_error("read", addr, len);
        return -1;
    }
    return 0;
}

int e810_dma_write(E810Core *c, uint64_t addr, const void *buf, size_t len)
{
    if (c->host.ops->dma_write(c->host.opaque, addr, buf, len)) {
        c->stats.dma_errors++;
        trace_e810_dma_error("write", addr, len);
        return -1;
    }
    return 0;
}

/* ---- the entry guard and timers behind it ------------------------------- */

bool e810_enter(E810Core *c, const char *what, uint64_t addr)
{
    if (c->removed) {
        trace_e810_removed_access(what, addr);
        return false;
    }
    if (c->busy) {
        c->stats.reentry_blocked++;
        trace_e810_reentry_blocked(what, addr);
        e810_guest_error(c, "device access to itself refused (%s 0x%" PRIx64
                         ")", what, addr);
        return false;
    }
    c->busy = true;
    c->entry++;
    return true;
}

void e810_leave(E810Core *c)
{
    c->busy = false;
}

static void e810_timer_trampoline(void *opaque)
{
    E810CoreTimer *t = opaque;
    E810Core *c = t->c;

    if (c->removed) {
        return;                 /* a removed function's timers stop */
    }
    if (!e810_enter(c, "timer", 0)) {
        /* Cannot happen with a host that runs timers from its main loop;
         * try again shortly rather than lose the event. */
        c->host.ops->timer_mod(c->host.opaque, t->t, e810_now(c) + 1000);
        return;
    }
    t->cb(t->opaque);
    e810_leave(c);
}

E810CoreTimer *e810_timer_new(E810Core *c, E810TimerCb *cb, void *opaque)
{
    E810CoreTimer *t;

    if (!c->host.ops->timer_new) {
        return NULL;
    }
    t = calloc(1, sizeof(*t));
    if (!t) {
        return NULL;
    }
    t->c = c;
    t->cb = cb;
    t->opaque = opaque;
    t->t = c->host.ops->timer_new(c->host.opaque, e810_timer_trampoline, t);
    if (!t->t) {
        free(t);
        return NULL;
    }
    return t;
}

void e810_timer_mod(E810CoreTimer *t, int64_t expire_ns)
{
    if (t) {
        t->c->host.ops->timer_mod(t->c->host.opaque, t->t, expire_ns);
    }
}

void e810_timer_del(E810CoreTimer *t)
{
    if (t) {
        t->c->host.ops->timer_del(t->c->host.opaque, t->t);
    }
}

void e810_timer_free(E810CoreTimer *t)
{
    if (t) {
        t->c->host.ops->timer_del(t->c->host.opaque, t->t);
        t->c->host.ops->timer_free(t->c->host.opaque, t->t);
        free(t);
    }
}

/* ---- host memory -------------------------------------------------------- */

bool e810_mem_charge(E810Core *c, size_t bytes)
{
    if (c->mem_limit && (bytes > c->mem_limit ||
                         c->mem_used > c->mem_limit - bytes)) {
        c->stats.mem_refused++;
        trace_e810_mem_refused(bytes, c->mem_used, c->mem_limit);
        e810_guest_error(c, "device memory limit reached: %zu bytes more "
                         "refused (%" PRIu64 " of %" PRIu64 " in use)",
                         bytes, c->mem_used, c->mem_limit);
        return false;
    }
    c->mem_used += bytes;
    return true;
}

void e810_mem_release(E810Core *c, size_t bytes)
{
    c->mem_used = bytes > c->mem_used ? 0 : c->mem_used - bytes;
}

/* ---- tables cleared by what was used ------------------------------------- */

#ifdef E810_VERIFY_CLEARS
/*
 * Test builds: after a reset every byte of a table is zero, marked chunk
 * or not; a byte that is not was written without e810_dirty_mark (or
 * e810_reg_set), and a fast reset would leave it to the next user.
 */
static void verify_zero(const void *base, size_t len, const char *what)
{
    static const uint8_t zero[4096];
    const uint8_t *p = base;

    for (size_t off = 0; off < len; off += sizeof(zero)) {
        size_t n = len - off < sizeof(zero) ? len - off : sizeof(zero);

        if (memcmp(p + off, zero, n)) {
            for (size_t i = 0; i < n; i++) {
                if (p[off + i]) {
                    fprintf(stderr, "e810: %s: byte %zu not zero after a "
                            "reset (written without marking it)\n",
                            what, off + i);
                    break;
                }
            }
            abort();
        }
    }
}
#endif

void e810_dirty_zero(void *base, size_t stride, uint32_t n, unsigned chunk,
                     uint64_t *map, unsigned words)
{
    for (unsigned w = 0; w < words; w++) {
        while (map[w]) {
            uint32_t first = (w * 64 + (unsigned)__builtin_ctzll(map[w])) *
                             chunk;

            if (first < n) {
                memset((uint8_t *)base + first * stride, 0,
                       (n - first < chunk ? n - first : chunk) * stride);
            }
            map[w] &= map[w] - 1;
        }
    }
#ifdef E810_VERIFY_CLEARS
    verify_zero(base, (size_t)n * stride, "a table cleared by chunks");
#endif
}

/* ---- the register file -------------------------------------------------- */

void e810_regs_init(E810Core *c)
{
    c->regs = calloc(1, E810_REGFILE_SIZE);
}

void e810_regs_cleanup(E810Core *c)
{
    free(c->regs);
    c->regs = NULL;
}

void e810_regs_clear(E810Core *c)
{
    for (unsigned i = 0; i < E810_REGFILE_SIZE / 4096 / 64; i++) {
        while (c->regs_dirty[i]) {
            unsigned b = (unsigned)__builtin_ctzll(c->regs_dirty[i]);

            memset(c->regs + ((i * 64 + b) << 10), 0, 4096);
            c->regs_dirty[i] &= c->regs_dirty[i] - 1;
        }
    }
#ifdef E810_VERIFY_CLEARS
    verify_zero(c->regs, E810_REGFILE_SIZE, "the register file");
#endif
}

/*
 * Saved state: [u32 count] then (u32 page, 4 KiB) for each written page.
 * Values are not checked: the registers are guest-writable storage and
 * every reader of one checks what it reads.
 */
/* A page of registers, little-endian (a copy on a little-endian host). */
static void regs_put_page(E810SnapW *w, const uint32_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    e810_snap_put_bytes(w, p, 4096);
#else
    for (unsigned k = 0; k < 1024; k++) {
        e810_snap_put_u32(w, p[k]);
    }
#endif
}

static bool regs_get_page(E810SnapR *r, uint32_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return e810_snap_get_bytes(r, p, 4096, "regs");
#else
    for (unsigned k = 0; k < 1024; k++) {
        if (!e810_snap_get_u32(r, &p[k], "regs")) {
            return false;
        }
    }
    return true;
#endif
}

static void e810_regs_save(E810Core *c, E810SnapW *w)
{
    unsigned n = 0;

    for (unsigned i = 0; i < E810_REGFILE_SIZE / 4096 / 64; i++) {
        n += __builtin_popcountll(c->regs_dirty[i]);
    }
    e810_snap_put_u32(w, n);
    for (unsigned pg = 0; pg < E810_REGFILE_SIZE / 4096; pg++) {
        if (c->regs_dirty[pg >> 6] & (1ull << (pg & 63))) {
            e810_snap_put_u32(w, pg);
            regs_put_page(w, c->regs + (pg << 10));
        }
    }
}

static bool e810_regs_load(E810Core *c, E810SnapR *r, uint16_t ver)
{
    const unsigned pages = E810_REGFILE_SIZE / 4096;
    uint64_t n, pg;
    int64_t prev = -1;

    (void)ver;
    if (!e810_snap_get_range(r, &n, 4, 0, pages, "regs.count")) {
        return false;
    }
    for (uint64_t i = 0; i < n; i++) {
        if (!e810_snap_get_range(r, &pg, 4, prev + 1, pages - 1,
                                 "regs.page")) {
            return false;
        }
        prev = pg;
        if (!regs_get_page(r, c->regs + (pg << 10))) {
            return false;
        }
        c->regs_dirty[pg >> 6] |= 1ull << (pg & 63);
    }
    return true;
}

const E810SnapPart e810_regs_snap = {
    .name = "regs", .save = e810_regs_save, .load = e810_regs_load,
};


/*
 * The device's E810Counters, all saved (diagnostics that tests compare).
 * They have no record of their own: the TXSCHED record carries them.
 */
static const E810SnapField counters_fields[] = {
    SF_UX(E810Counters, guest_errors),
    SF_UX(E810Counters, dma_errors),
    SF_UX(E810Counters, rx_dropped),
    SF_UX(E810Counters, tx_dropped),
    SF_UX(E810Counters, mmio_bad_access),
    SF_UX(E810Counters, irq_raised),
    SF_UX(E810Counters, pf_resets),
    SF_UX(E810Counters, tx_frames),
    SF_UX(E810Counters, tx_bytes),
    SF_UX(E810Counters, tx_tso),
    SF_UX(E810Counters, tx_bad_desc),
    SF_UX(E810Counters, tx_oversize),
    SF_UX(E810Counters, tx_zero_desc),
    SF_UX(E810Counters, tx_bad_doorbell),
    SF_UX(E810Counters, rx_frames),
    SF_UX(E810Counters, rx_bytes),
    SF_UX(E810Counters, rx_link_down),
    SF_UX(E810Counters, rx_runt),
    SF_UX(E810Counters, rx_oversize),
    SF_UX(E810Counters, rx_no_vsi),
    SF_UX(E810Counters, rx_queue_off),
    SF_UX(E810Counters, rx_no_desc),
    SF_UX(E810Counters, reentry_blocked),
    SF_UX(E810Counters, guest_errors_suppressed),
    SF_UX(E810Counters, mem_refused),
    SF_UX(E810Counters, ccq_overconsumed),
    SF_UX_SINCE(E810Counters, ccqes_dropped, 2),   /* txsched record v2 */
    SF_UX_SINCE(E810Counters, faults_injected, 2),
    SF_UX_SINCE(E810Counters, adapter_resets, 3),  /* txsched record v3 */
    SF_UX_SINCE(E810Counters, faults_skipped, 3),
    SF_END
};
_Static_assert(sizeof(E810Counters) == 30 * sizeof(uint64_t),
               "a new counter needs its row in counters_fields");


const E810SnapPart e810_counters_snap =
    E810_SNAP_FLAT("stats", stats, counters_fields, NULL);
