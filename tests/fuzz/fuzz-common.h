/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the libFuzzer targets over the device core (fuzz-mmio.c,
 * fuzz-wire.c): an input reader, the device set-ups the inputs start
 * from, and the operations both targets use.  Guest RAM is the fake host's
 * 16 MiB window; any DMA outside it fails like a failed DMA in QEMU.  In
 * re-entrancy mode the 32 MiB right above RAM is the device's own BAR0:
 * a DMA there is an MMIO access to the device, as in QEMU.
 */
#ifndef E810_FUZZ_COMMON_H
#define E810_FUZZ_COMMON_H

#include "iwarp-fixture.h"
#include "fuzz-snap.h"
#include "e810.h"
#include "snap.h"

#include <inttypes.h>
#include <time.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_BAR0_BASE  (FAKE_MEM_BASE + FAKE_MEM_SIZE)
#define FUZZ_MAX_OPS    256

typedef struct FuzzIn {
    const uint8_t *p;
    size_t left;
} FuzzIn;

static inline uint8_t in8(FuzzIn *in)
{
    if (!in->left) {
        return 0;
    }
    in->left--;
    return *in->p++;
}

/* Little endian; one read per statement (operand order is unspecified). */
static inline uint16_t in16(FuzzIn *in)
{
    uint16_t lo = in8(in);

    return (uint16_t)(lo | in8(in) << 8);
}

static inline uint32_t in32(FuzzIn *in)
{
    uint32_t lo = in16(in);

    return lo | (uint32_t)in16(in) << 16;
}

static inline uint64_t in64(FuzzIn *in)
{
    uint64_t lo = in32(in);

    return lo | (uint64_t)in32(in) << 32;
}

/* Up to @n bytes into @buf (zero-filled past the end of the input). */
static inline void inbuf(FuzzIn *in, void *buf, size_t n)
{
    size_t k = n < in->left ? n : in->left;

    memcpy(buf, in->p, k);
    memset((uint8_t *)buf + k, 0, n - k);
    in->p += k;
    in->left -= k;
}

/* Scenarios an input starts from (low 2 bits of its first byte). */
enum { SCEN_BARE, SCEN_IWARP_KERNEL, SCEN_IWARP_USER, SCEN_LAN };

/*
 * Oracles: a hostile guest or peer must not make one device entry point
 * (an MMIO access, a received frame, a timer, the bottom half) do
 * unbounded work or hand the host unbounded frames or memory.  Checked
 * after every entry the harness makes and every timer and bottom half
 * the fake host runs; each entry counts its own work, not that of the
 * entries nested in it (a register write followed by the bottom halves).
 * A violation aborts, so libFuzzer keeps the input and the replay fails.
 *
 * The bounds are what legitimate paths need, with room:
 * - flow-controlled (RDMA) frames: the transmit gate's limits
 *   (txsched.h), counted by the core and again by the fake host;
 * - any frames: a LAN Tx doorbell may send a whole ring (8K descriptors);
 * - DMA: a LAN ring of 8K descriptors of 16 KiB buffers is 128 MiB from
 *   one doorbell, so MMIO entries get 256 MiB; a received frame, a timer
 *   or the bottom half moves at most E810_TX_ENTRY_MAX frames of 9 KiB
 *   plus their completions: 4 MiB;
 * - core heap: 8 MiB allocated per entry (the largest legitimate object
 *   is the 6 MiB register file, allocated outside any entry);
 * - CPU time: 2 s per entry, a backstop far above anything legitimate
 *   under ASan (the deterministic bounds above catch the real cases).
 *   The thread's CPU time, not the wall clock: on a loaded machine a
 *   wall-clock limit fired on an input that replays in 20 ms.
 */
#define FUZZ_FRAMES_MAX         (8192 + 2 * E810_TX_ENTRY_MAX)
#define FUZZ_DMA_MMIO_MAX       (256ull << 20)
#define FUZZ_DMA_ENTRY_MAX      (4ull << 20)
#define FUZZ_DMA_CALLS_MAX      (1u << 20)
#define FUZZ_ALLOC_MAX          (8ull << 20)
#define FUZZ_CPU_NS_MAX         2000000000ll
#define FUZZ_DEPTH              8

typedef struct FuzzMeter {
    uint64_t frames, flow, held, dma, ndma, alloc;
    int64_t ns;
} FuzzMeter;

static FuzzMeter meter_base[FUZZ_DEPTH], meter_acc[FUZZ_DEPTH];
static unsigned fuzz_migrations;    /* in this input (fuzz_migrate) */
static const char *meter_what[FUZZ_DEPTH];
static bool meter_mmio[FUZZ_DEPTH];
static unsigned meter_depth;

static inline int64_t cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static inline FuzzMeter meter_now(void)
{
    FuzzMeter m = {
        ifx.h.n_frames, ifx.h.n_flow_frames, ifx.h.n_frames_held,
        ifx.h.dma_bytes, ifx.h.n_dma, fuzz_alloc_total(), cpu_ns(),
    };

    return m;
}

static inline void meter_add(FuzzMeter *acc, const FuzzMeter *a,
                             const FuzzMeter *b)
{
    acc->frames += a->frames - b->frames;
    acc->flow += a->flow - b->flow;
    acc->held += a->held - b->held;
    acc->dma += a->dma - b->dma;
    acc->ndma += a->ndma - b->ndma;
    acc->alloc += a->alloc - b->alloc;
    acc->ns += a->ns - b->ns;
}

/* E810_FUZZ_ORACLES=0: report only (to measure, or to look for memory
 * errors while a resource bug the oracles know is still open). */
static inline void oracle_fail(const char *what, const char *name,
                               uint64_t val, uint64_t bound)
{
    static int off = -1;

    if (off < 0) {
        const char *e = getenv("E810_FUZZ_ORACLES");

        off = e && !strcmp(e, "0");
    }
    if (off) {
        return;
    }
    fprintf(stderr, "fuzz oracle: %s: %s = %" PRIu64 " (bound %" PRIu64
            ")\n", what, name, val, bound);
    abort();
}

/* The transmit gate's counters: never past its limits, never dropping. */
static inline void oracle_gate(const char *what)
{
    const E810TxSchedStats *st = &ifx.c.txs.stats;

    if (st->capped_entry) {
        oracle_fail(what, "capped_entry", st->capped_entry, 0);
    }
    if (st->capped_queued) {
        oracle_fail(what, "capped_queued", st->capped_queued, 0);
    }
    if (st->entry_max > E810_TX_ENTRY_MAX) {
        oracle_fail(what, "entry_max", st->entry_max, E810_TX_ENTRY_MAX);
    }
    if (st->queued_max > E810_TX_QUEUED_MAX) {
        oracle_fail(what, "queued_max", st->queued_max, E810_TX_QUEUED_MAX);
    }
    if (ifx.h.nheld_flow > E810_TX_QUEUED_MAX) {
        oracle_fail(what, "flow frames held by the host", ifx.h.nheld_flow,
                    E810_TX_QUEUED_MAX);
    }
}

static inline void fuzz_entry_begin(const char *what, bool mmio)
{
    FuzzMeter now = meter_now();

    if (meter_depth >= FUZZ_DEPTH) {
        abort();
    }
    if (meter_depth) {
        /* The outer entry's own work so far; it resumes at our end. */
        meter_add(&meter_acc[meter_depth - 1], &now,
                  &meter_base[meter_depth - 1]);
    }
    meter_base[meter_depth] = now;
    memset(&meter_acc[meter_depth], 0, sizeof(meter_acc[0]));
    meter_what[meter_depth] = what;
    meter_mmio[meter_depth] = mmio;
    meter_depth++;
}

static inline void fuzz_entry_end(void)
{
    FuzzMeter now = meter_now(), *d;
    const char *what;
    uint64_t dma_max;

    meter_depth--;
    d = &meter_acc[meter_depth];
    what = meter_what[meter_depth];
    meter_add(d, &now, &meter_base[meter_depth]);
    if (meter_depth) {
        meter_base[meter_depth - 1] = now;
    }
    oracle_gate(what);
    if (d->flow > E810_TX_ENTRY_MAX) {
        oracle_fail(what, "flow frames handed", d->flow, E810_TX_ENTRY_MAX);
    }
    if (d->frames > FUZZ_FRAMES_MAX) {
        oracle_fail(what, "frames handed", d->frames, FUZZ_FRAMES_MAX);
    }
    if (d->held > FUZZ_FRAMES_MAX) {
        oracle_fail(what, "frames handed while blocked", d->held,
                    FUZZ_FRAMES_MAX);
    }
    dma_max = meter_mmio[meter_depth] ? FUZZ_DMA_MMIO_MAX : FUZZ_DMA_ENTRY_MAX;
    if (d->dma > dma_max) {
        oracle_fail(what, "DMA bytes", d->dma, dma_max);
    }
    if (d->ndma > FUZZ_DMA_CALLS_MAX) {
        oracle_fail(what, "DMA calls", d->ndma, FUZZ_DMA_CALLS_MAX);
    }
    if (d->alloc > FUZZ_ALLOC_MAX) {
        oracle_fail(what, "heap bytes allocated", d->alloc, FUZZ_ALLOC_MAX);
    }
    if (d->ns > FUZZ_CPU_NS_MAX) {
        oracle_fail(what, "CPU ns", (uint64_t)d->ns, FUZZ_CPU_NS_MAX);
    }
}

/* Timers and bottom halves the fake host runs. */
static inline void fuzz_host_entry(void *opaque, bool after)
{
    (void)opaque;
    if (after) {
        fuzz_entry_end();
    } else {
        fuzz_entry_begin("timer or bottom half", false);
    }
}

/* Entry points the harness calls, metered. */
static inline void fz_mmio_write(uint64_t off, uint64_t val, unsigned size)
{
    fuzz_entry_begin("MMIO write", true);
    e810_mmio_write(&ifx.c, off, val, size);
    fuzz_entry_end();
}

static inline void fz_mmio_read(uint64_t off, unsigned size)
{
    fuzz_entry_begin("MMIO read", true);
    e810_mmio_read(&ifx.c, off, size);
    fuzz_entry_end();
}

static inline void fz_receive(const uint8_t *f, size_t n)
{
    fuzz_entry_begin("receive", false);
    e810_receive(&ifx.c, f, n);
    fuzz_entry_end();
}

/* A harness step of several entries (helpers that write registers and run
 * the bottom halves): bounded as an MMIO entry. */
#define FZ_GUEST(what, stmt) do { \
    fuzz_entry_begin(what, true); \
    stmt; \
    fuzz_entry_end(); \
} while (0)

/* LAN scenario: one VSI (PF queue 4) with our MAC, Rx queue 4 with 64
 * descriptors of 2 KiB posted, Tx queue 5 of 256 descriptors. */
#define LAN_TX_RING     (FAKE_MEM_BASE + 0xC00000)
#define LAN_TX_BUFS     (FAKE_MEM_BASE + 0xC10000)
#define LAN_RX_RING     (FAKE_MEM_BASE + 0xD00000)
#define LAN_RX_BUFS     (FAKE_MEM_BASE + 0xD10000)
#define LAN_TXQ         5
#define LAN_TX_QLEN     256
#define LAN_RXQ         4
#define LAN_RX_QLEN     64

static unsigned lan_tx_tail, lan_rx_tail;
static unsigned fz_ilq_head, fz_ilq_pol;

static inline uint64_t fuzz_addr(FuzzIn *in);

/* The Tx queue's way through the scheduler, as ice adds it: a generic
 * node on each of layers 3..7 under the entry point, the queue's leaf. */
static inline void lan_add_txq(uint16_t vsi)
{
    uint32_t teid[3], parent, leaf;

    ifx_failures += aq_dflt_topo(&ifx, teid) != 0;
    parent = teid[2];
    for (unsigned l = 3; l <= 7; l++) {
        ifx_failures += aq_add_node(&ifx, parent, &parent) != 0;
    }
    ifx_failures += aq_add_txq(&ifx, parent, LAN_TXQ, LAN_TX_RING,
                               LAN_TX_QLEN, vsi, &leaf) != 0;
}

static inline void lan_setup(void)
{
    uint8_t b[32] = { 0 };
    uint16_t vsi;

    if (aq_add_pf_vsi(&ifx, LAN_RXQ, 1, false, &vsi) ||
        aq_add_mac_rule(&ifx, vsi, ifx_mac)) {
        ifx_failures++;
    }
    /* Rx queue context as ice_setup_rx_ctx writes it. */
    put_bits(b, 32, 57, LAN_RX_RING >> 7);
    put_bits(b, 89, 13, LAN_RX_QLEN);
    put_bits(b, 102, 7, 16);
    put_bits(b, 116, 1, 1);
    put_bits(b, 117, 1, 1);
    put_bits(b, 119, 1, 1);
    put_bits(b, 174, 14, 9728);
    put_bits(b, 198, 3, 1);
    put_bits(b, 201, 1, 1);
    for (unsigned i = 0; i < 8; i++) {
        ifx_wr(QRX_CONTEXT(i, LAN_RXQ), ld32(b + 4 * i));
    }
    ifx_wr(QRXFLXP_CNTXT(LAN_RXQ), 2 | 3 << 8 | 1 << 11);
    for (unsigned i = 0; i < LAN_RX_QLEN; i++) {
        st64(fake_mem(&ifx.h, LAN_RX_RING + i * 32), LAN_RX_BUFS + i * 2048);
    }
    lan_rx_tail = LAN_RX_QLEN - 8;
    ifx_wr(QRX_TAIL(LAN_RXQ), lan_rx_tail);
    ifx_wr(QINT_RQCTL(LAN_RXQ), E810_CTL_CAUSE_ENA | 7);
    ifx_wr(GLINT_DYN_CTL(7), GLINT_DYN_CTL_INTENA);
    ifx_wr(QRX_CTRL(LAN_RXQ), QRX_CTRL_QENA_REQ);
    /* The Tx queue through the firmware, as ice adds it: the default
     * topology, a generic node on each of layers 3..7, the queue's leaf
     * (so its saved state is one the device can reach). */
    lan_add_txq(vsi);
    ifx_wr(QINT_TQCTL(LAN_TXQ), E810_CTL_CAUSE_ENA | 3);
    ifx_wr(GLINT_DYN_CTL(3), GLINT_DYN_CTL_INTENA);
    lan_tx_tail = 0;
}

/* 1..8 Tx descriptors from the input at the tail, then the doorbell. */
static inline void fuzz_lan_tx(FuzzIn *in)
{
    uint8_t b = in8(in);
    unsigned n = 1 + (b & 7);

    for (unsigned k = 0; k < n; k++) {
        uint8_t *d = fake_mem(&ifx.h, LAN_TX_RING + lan_tx_tail * 16);
        uint64_t q0 = in64(in), q1 = in64(in);

        if (b & 0x80) {
            /* A data buffer in RAM (filled by earlier memory ops). */
            q0 = LAN_TX_BUFS + (q0 & 0xFFFF);
        }
        st64(d, q0);
        st64(d + 8, q1);
        lan_tx_tail = (lan_tx_tail + 1) % LAN_TX_QLEN;
    }
    FZ_GUEST("LAN Tx doorbell", ifx_wr(QTX_COMM_DBELL(LAN_TXQ),
                                       (b & 0x40) ? in16(in) : lan_tx_tail));
}

/* Give Rx descriptors back (tail), sometimes with input-chosen buffers. */
static inline void fuzz_lan_rx(FuzzIn *in)
{
    uint8_t b = in8(in);
    unsigned n = 1 + (b & 15);

    for (unsigned k = 0; k < n; k++) {
        uint8_t *d = fake_mem(&ifx.h, LAN_RX_RING + lan_rx_tail * 32);

        memset(d, 0, 32);
        st64(d, (b & 0x80) ? fuzz_addr(in)
                           : LAN_RX_BUFS + lan_rx_tail * 2048);
        lan_rx_tail = (lan_rx_tail + 1) % LAN_RX_QLEN;
    }
    FZ_GUEST("LAN Rx tail", ifx_wr(QRX_TAIL(LAN_RXQ),
                                   (b & 0x40) ? in16(in) : lan_rx_tail));
}

/* Our own MAC and IP, talking to ourselves (iwarp-fixture.c's default):
 * the members of an IfxState template, and such a template. */
#define FUZZ_IFX_SELF   .mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 }, \
                        .peer_mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 }, \
                        .ip = OUR_IP, .peer_ip = OUR_IP
#define FUZZ_IFX_TMPL   { FUZZ_IFX_SELF }
/* A remote peer on the wire (fuzz-roce's remote scenario, the ILQ's AH). */
static const uint8_t fuzz_peer_mac[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0b };
#define FUZZ_PEER_IP    0x0A000002u

/* RDMA data frames per device entry point in the fuzz targets. */
#ifndef FUZZ_TX_BUDGET
#define FUZZ_TX_BUDGET  8
#endif

/* Set up scenario @scen (the body of every target's build). */
static inline void fuzz_build_scen(unsigned scen)
{
    ifx_failures = 0;
    switch (scen) {
    case SCEN_IWARP_KERNEL:
    case SCEN_IWARP_USER:
        ifx_setup(scen == SCEN_IWARP_USER);
        break;
    case SCEN_LAN:
        aq_test_init(&ifx);
        lan_setup();
        break;
    default:
        aq_test_init(&ifx);
        break;
    }
    ifx.h.quiet = true;
    /* A 2 GiB READ would otherwise be answered to its end, a budget per
     * bottom-half run, inside one input. */
    ifx.h.bh_limit = 1;
    ifx.h.timer_limit = 32;
    /* Per input (restored with the snapshot): enough for a connection
     * to time out (REXMIT_THRESH retries), not for a 2 GiB transfer. */
    ifx.h.work_limited = true;
    ifx.h.bh_left = 128;
    ifx.h.timers_left = 256;
}

static inline void fuzz_check_setup(unsigned id)
{
    if (ifx_failures) {
        fprintf(stderr, "fuzz: set-up of scenario %u failed\n", id);
        abort();
    }
}

/*
 * Start an input from snapshot @id (built by @build on first use), in
 * re-entrancy mode or not.  Harness state outside the snapshot is the
 * caller's to reset.
 */
static inline void fuzz_start(unsigned id, const IfxState *tmpl,
                              FuzzBuildFn *build, bool reenter)
{
    fuzz_snap_begin(id, tmpl, build, NULL);
    fuzz_check_setup(id);
    /* The guest's ring positions as the set-ups leave them. */
    lan_tx_tail = 0;
    lan_rx_tail = LAN_RX_QLEN - 8;
    fz_ilq_head = 0;
    fz_ilq_pol = 1;
    meter_depth = 0;
    fuzz_migrations = 0;
    /* Fewer data frames per entry than the device's 64: an input's
     * work stays small (a READ of 2 GiB costs 8 frames per entry, not
     * 64), and the yield and resume paths are reached sooner. */
    ifx.c.tx_budget = FUZZ_TX_BUDGET;
    ifx.h.bar0_core = reenter ? &ifx.c : NULL;
    ifx.h.bar0_base = FUZZ_BAR0_BASE;
    ifx.h.entry_cb = fuzz_host_entry;
    ifx.h.entry_opaque = NULL;
    oracle_gate("set-up");
}

/*
 * Start an input whose first byte picks set-up 0-3 (bits 0-1, built by
 * @build on a device talking to itself, with address handles for the
 * ILQ's route, fuzz_ilq_route) and re-entrancy mode (bit 2).  Returns the
 * set-up.
 */
static inline unsigned fuzz_start_self(FuzzIn *in, FuzzBuildFn *build)
{
    static const IfxState tmpl = { FUZZ_IFX_SELF, .nah = 16 };
    uint8_t s0 = in8(in);

    fuzz_start(s0 & 3, &tmpl, build, s0 & 4);
    return s0 & 3;
}

/* The backend goes away (as QEMU's purge at unplug), then the device. */
static inline void fuzz_unplug(void)
{
    size_t bytes;
    unsigned n;

    fake_host_tx_purge(&ifx.h, &ifx.c);
    ifx.h.entry_cb = NULL;
    ifx.h.bar0_core = NULL;
    e810_core_cleanup(&ifx.c);
    n = fuzz_arena_live(&bytes);
    if (n) {
        fprintf(stderr, "fuzz: leak: %u core allocations (%zu bytes) left "
                "after e810_core_cleanup\n", n, bytes);
        abort();
    }
}

/* End of an input: let what was started finish (retransmissions,
 * loopback, ITR), then unplug unless the input did. */
static inline void fuzz_finish(bool unplugged)
{
    if (!unplugged) {
        fake_host_advance(&ifx.h, 2000000000ll);
        oracle_gate("end");
        fuzz_unplug();
    }
}

/* ILQ (QP 1) send WQEs from the input, then its SQ doorbell: TCP segments
 * the connection manager would send, through AH 0 (ARP 2, a remote MAC:
 * the frames reach the host) or another AH. */
static unsigned fz_ilq_head, fz_ilq_pol;
#define FUZZ_ILQ_TXBUF  M(0x40000)

static inline void fuzz_ilq_send(FuzzIn *in)
{
    uint8_t b = in8(in);
    unsigned n = 1 + (b & 15);

    for (unsigned k = 0; k < n; k++) {
        uint64_t w = ILQ_SQ_PA + 32ull * fz_ilq_head;
        uint64_t buf = FUZZ_ILQ_TXBUF + 2048ull * fz_ilq_head;
        uint32_t len = (b & 0x80) ? in16(in) : 20 + in8(in) % 100;
        unsigned hl = (b & 0x40) ? in8(in) % 16 : 5;
        unsigned ah = (b & 0x20) ? in8(in) : 0;
        uint8_t seg[64];

        inbuf(in, seg, sizeof(seg));
        memcpy(ifx_mem(buf), seg, sizeof(seg));
        ifx_set64(w, buf);
        ifx_set64(w + 8, (uint64_t)len << 32 | (uint64_t)fz_ilq_pol << 63);
        ifx_set64(w + 16, 0);
        ifx_set64(w + 24, 3ull << 32 | (uint64_t)hl << 42 | ah | 1ull << 62 |
                  (uint64_t)fz_ilq_pol << 63);
        if (++fz_ilq_head == ILQ_NBUF) {
            fz_ilq_head = 0;
            fz_ilq_pol ^= 1;
        }
    }
    FZ_GUEST("ILQ doorbell", ifx_wr(PFPE_WQEALLOC, 1));
}

/* The ILQ's way out (iWARP scenarios): ARP 2 = a remote MAC, AH 0 to it. */
static inline void fuzz_ilq_route(void)
{
    uint64_t q[8] = { 0 };

    q[2] = mac_u64(fuzz_peer_mac);
    if (ifx_cqp(0x0f, q, 2 | 1ull << 42)) {
        ifx_failures++;
    }
    memset(q, 0, sizeof(q));
    q[0] = mac_u64(ifx_mac) << 16;
    q[2] = 2ull << 48 | 0x40ull << 32;
    q[4] = FUZZ_PEER_IP;
    q[6] = OUR_IP;
    if (ifx_cqp(0x1c, q, 0 | 1ull << 59)) {
        ifx_failures++;
    }
}


/*
 * Migration: the device's state saved, patched as the input says (a
 * corrupt or hostile stream), and loaded back into the device, which runs
 * on from what loaded (or from a power-on reset when the load refused).
 *
 * k: patches 2:0 (up to 7), cut the stream inside a record 3, each patch
 * an XOR (else a store) 4.  A patch: a record index, an offset in it and
 * a byte; the records are found by walking the stream, so patches land in
 * what the loader checks, not only in register pages.
 *
 * Oracles: an unpatched state must load (a state the device reached is a
 * state it accepts: a loader check never stricter than the runtime), and
 * saving it again must give the same bytes (nothing saved is lost).
 */
#define FUZZ_SNAP_RECS  64

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_MIG_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_MIG_ASAN 1
#endif
#ifdef FUZZ_MIG_ASAN
#include <sanitizer/asan_interface.h>
#define FUZZ_MIG_POISON(p, n)       ASAN_POISON_MEMORY_REGION(p, n)
#define FUZZ_MIG_UNPOISON(p, n)     ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define FUZZ_MIG_POISON(p, n)       ((void)(p), (void)(n))
#define FUZZ_MIG_UNPOISON(p, n)     ((void)(p), (void)(n))
#endif

/*
 * The streams' buffers, kept from one migration to the next: a writer
 * grown afresh each time (doubling reallocs of up to 128 KiB under ASan,
 * on fresh pages) was a good part of a migration's cost.  Not a leak:
 * reachable from here.
 */
static E810SnapW fuzz_mig_w[2];

static inline void fuzz_mig_w_take(E810SnapW *w, unsigned i)
{
    *w = fuzz_mig_w[i];
    w->len = 0;
}

static inline void fuzz_mig_w_keep(E810SnapW *w, unsigned i)
{
    fuzz_mig_w[i] = *w;
}
/* Migrations per input: each saves and loads the whole device (twice
 * with the oracle); more per input would only slow the search. */
#define FUZZ_MIGRATIONS 4

static inline void fuzz_migrate(FuzzIn *in)
{
    uint8_t k = in8(in);
    unsigned npatch = k & 7, nrec = 0;
    size_t rec_off[FUZZ_SNAP_RECS], rec_len[FUZZ_SNAP_RECS];
    E810SnapW w, w2;
    char err[256];
    bool ok;

    if (fuzz_migrations++ >= FUZZ_MIGRATIONS) {
        return;
    }
    fuzz_mig_w_take(&w, 0);
    if (!e810_core_save(&ifx.c, &w, err, sizeof(err))) {
        fuzz_mig_w_keep(&w, 0);     /* refused (phase A: live iWARP) */
        return;
    }
    for (size_t o = 0; o + 8 <= w.len && nrec < FUZZ_SNAP_RECS; nrec++) {
        size_t n = (size_t)w.buf[o + 4] | (size_t)w.buf[o + 5] << 8 |
                   (size_t)w.buf[o + 6] << 16 | (size_t)w.buf[o + 7] << 24;

        rec_off[nrec] = o + 8;
        rec_len[nrec] = n;
        o += 8 + n;
    }
    for (unsigned i = 0; i < npatch && nrec; i++) {
        unsigned r = in8(in) % nrec;
        size_t at = rec_off[r] + (rec_len[r] ? in16(in) % rec_len[r] : 0);
        uint8_t v = in8(in);

        if (at < w.len) {
            w.buf[at] = (k & 0x10) ? w.buf[at] ^ v : v;
        }
    }
    if ((k & 8) && nrec) {
        unsigned r = in8(in) % nrec;

        w.len = rec_off[r] - 8 + in16(in) % (rec_len[r] + 8);
    }
    /* What the backend held goes, as QEMU purges it before a load. */
    fake_host_tx_purge(&ifx.h, &ifx.c);
    fuzz_entry_begin("load", false);
    /* The buffer past the stream is out of bounds for the loader. */
    FUZZ_MIG_POISON(w.buf + w.len, w.cap - w.len);
    ok = e810_core_load(&ifx.c, w.buf, w.len, err, sizeof(err));
    FUZZ_MIG_UNPOISON(w.buf + w.len, w.cap - w.len);
    if (npatch || (k & 8)) {
        /* The transmit gate's statistics, which the oracles read, are
         * whatever a patched stream said: start them afresh. */
        memset(&ifx.c.txs.stats, 0, sizeof(ifx.c.txs.stats));
    }
    fuzz_entry_end();
    if (!ok && !npatch && !(k & 8)) {
        fprintf(stderr, "fuzz: the device refused its own state: %s\n", err);
        abort();
    }
    if (ok && !npatch && !(k & 8)) {
        fuzz_mig_w_take(&w2, 1);
        if (!e810_core_save(&ifx.c, &w2, err, sizeof(err)) ||
            w2.len != w.len || memcmp(w.buf, w2.buf, w.len)) {
            size_t at = 0;

            while (at < w.len && at < w2.len && w.buf[at] == w2.buf[at]) {
                at++;
            }
            fprintf(stderr, "fuzz: a loaded state saves differently (%zu "
                    "bytes, then %zu; first difference at %zu)\n", w.len,
                    w2.len, at);
            abort();
        }
        fuzz_mig_w_keep(&w2, 1);
    }
    fuzz_mig_w_keep(&w, 0);
    e810_core_resume(&ifx.c);
    fake_host_run_bh(&ifx.h);
}

/*
 * Operations every target has (op bytes 0xF8..0xFF): back-pressure (the
 * backend holds frames, then hands some on), a migration of the device
 * (fuzz_migrate), a reset with frames still held, and the unplug.
 * Returns false when the input ends (unplugged).
 */
static inline bool fuzz_common_op(FuzzIn *in, uint8_t op)
{
    switch (op & 7) {
    case 0:
        ifx.h.tx_full = true;
        break;
    case 1:
        fuzz_migrate(in);
        break;
    case 2:
        ifx.h.tx_full = false;
        break;
    case 3:
    case 4: {
        uint8_t n = in8(in);

        /* Handing on frames is the host's (no entry); the bottom halves
         * it schedules are entries. */
        fake_host_tx_release(&ifx.h, &ifx.c, n == 0xFF ? FAKE_MAX_HELD :
                             1u + n % 64);
        fake_host_run_bh(&ifx.h);
        break;
    }
    case 5:
        FZ_GUEST("reset", e810_core_reset(&ifx.c, in8(in) & 1 ?
                                          E810_RESET_PF :
                                          E810_RESET_POWER_ON));
        fake_host_run_bh(&ifx.h);
        break;
    case 6:
        fuzz_unplug();
        return false;
    default:
        ifx.h.tx_full = false;
        fake_host_tx_release(&ifx.h, &ifx.c, FAKE_MAX_HELD);
        fake_host_run_bh(&ifx.h);
        break;
    }
    return true;
}

/* A guest address an input names: mostly RAM, sometimes BAR0. */
static inline uint64_t fuzz_addr(FuzzIn *in)
{
    uint8_t k = in8(in);
    uint32_t off = in32(in);

    switch (k & 3) {
    case 0:
    case 1:
        return FAKE_MEM_BASE + off % FAKE_MEM_SIZE;
    case 2:
        return FUZZ_BAR0_BASE + (off % E810_BAR0_SIZE & ~3u);
    default:
        return (uint64_t)off << 12 | k;     /* anywhere (fails) */
    }
}

/* Write fuzz bytes into guest RAM at an input-chosen place. */
static inline void fuzz_mem_write(FuzzIn *in)
{
    uint32_t off = in32(in) % FAKE_MEM_SIZE;
    size_t n = in8(in);
    uint8_t buf[256];

    if (n > FAKE_MEM_SIZE - off) {
        n = FAKE_MEM_SIZE - off;
    }
    inbuf(in, buf, n);
    memcpy(ifx.h.mem + off, buf, n);
}

/* Store a guest address (RAM or BAR0) into guest RAM: rings, contexts and
 * buffers the guest points the device at. */
static inline void fuzz_mem_pointer(FuzzIn *in)
{
    uint32_t off = (in32(in) % (FAKE_MEM_SIZE - 8)) & ~7u;
    uint64_t a = fuzz_addr(in);

    st64(ifx.h.mem + off, a);
}

/* A CQP WQE from the input at the next CQP SQ slot, then the doorbell. */
static inline void fuzz_cqp_wqe(FuzzIn *in)
{
    uint64_t q[8];

    for (int i = 0; i < 8; i++) {
        q[i] = in64(in);
    }
    /* Sometimes point the op's buffer/context address somewhere chosen. */
    if (q[7] & 1) {
        q[2] = fuzz_addr(in);
    }
    if (q[7] & 2) {
        q[4] = fuzz_addr(in);
    }
    FZ_GUEST("CQP", cqp_ring_post(&ifx_cur->cqp, q, q[3] & ~(1ull << 63)));
}

/* SQ WQE of QP 3 + (b & 1), 1..4 quanta from the input, doorbell. */
static inline void fuzz_sq_wqe(FuzzIn *in)
{
    uint8_t b = in8(in);
    unsigned i = b & 1, quanta = 1 + ((b >> 1) & 3), k;
    uint64_t q[4];
    uint8_t extra[96];

    for (k = 0; k < 4; k++) {
        q[k] = in64(in);
    }
    inbuf(in, extra, 32 * (quanta - 1));
    if (b & 0x10) {
        /* Use the QP's own MRs, as a well-formed WQE would. */
        q[1] = (q[1] & ~0xFFFFFFFFull) | STAG(i);
        q[0] = BUF_PA(i) + (q[0] & 0xFFFF);
        q[1] &= ~(0x7FFF0000ull << 32);
    }
    FZ_GUEST("SQ doorbell", ifx_sq_post(i, q, q[3] & ~(1ull << 63), quanta,
                                        extra));
}

/* RQ WQE for QP 3 + (b & 1). */
static inline void fuzz_rq_wqe(FuzzIn *in)
{
    uint8_t b = in8(in);
    uint32_t len = in16(in);
    uint64_t to = BUF_PA(b & 1) + in16(in);

    if (b & 2) {
        to = fuzz_addr(in);
    }
    ifx_rq_post(b & 1, to, len);
}

static inline void fuzz_advance(FuzzIn *in)
{
    fake_host_advance(&ifx.h, (int64_t)in8(in) * 1000000 + 1);
}

/* An admin-queue command: descriptor (and a buffer) from the input. */
static inline void fuzz_aq_cmd(FuzzIn *in)
{
    unsigned i = ifx.atq_ntu;
    uint8_t *d = fake_mem(&ifx.h, ATQ_RING + i * 32);
    uint64_t buf = ATQ_BUFS + (uint64_t)i * 4096;

    inbuf(in, d, 32);
    if (d[0] & 0x10) {                  /* E810_AQ_FLAG_BUF, low byte */
        st32(d + 24, buf >> 32);
        st32(d + 28, (uint32_t)buf);
        inbuf(in, fake_mem(&ifx.h, buf), 128);
    }
    ifx.atq_ntu = (i + 1) % AQ_LEN;
    FZ_GUEST("AQ doorbell", ifx_wr(PF_FW_ATQT, ifx.atq_ntu));
}

/* One frame from the input onto the wire side of the device. */
static inline void fuzz_frame_raw(FuzzIn *in)
{
    uint8_t f[9216];
    size_t n = in16(in) % sizeof(f);

    inbuf(in, f, n);
    if (n >= 12 && (f[0] & 1) == 0 && (f[0] & 2)) {
        memcpy(f, ifx_mac, 6);          /* often: to us */
    }
    fz_receive(f, n);
}

/*
 * CQP for a set-up QP with its context at @ctx: DESTROY_QP if @destroy,
 * else MODIFY_QP with @modify (next state and the rest); @hdr the QP
 * number and type of both.
 */
static inline void fuzz_qp_cqp(uint64_t ctx, uint64_t hdr, bool destroy,
                               uint64_t modify)
{
    uint64_t q[8] = { 0 };

    q[2] = ctx;
    if (destroy) {
        FZ_GUEST("CQP", ifx_cqp(0x02, q, hdr));
    } else {
        FZ_GUEST("CQP", ifx_cqp(0x01, q, hdr | modify));
    }
}

/* A target's own operation (op byte @op below 0xF8) from @in. */
typedef void FuzzOpFn(FuzzIn *in, uint8_t op);

/*
 * The operations of an input after its set-up: up to FUZZ_MAX_OPS op
 * bytes, 0xF8..0xFF the common ones (fuzz_common_op), the others the
 * target's @op; then the end of the input (fuzz_finish).
 */
static inline void fuzz_run(FuzzIn *in, FuzzOpFn *op)
{
    bool live = true;

    for (unsigned ops = 0; live && in->left && ops < FUZZ_MAX_OPS; ops++) {
        uint8_t b = in8(in);

        if (b >= 0xF8) {
            live = fuzz_common_op(in, b);
        } else {
            op(in, b);
        }
    }
    fuzz_finish(!live);
}

#endif
