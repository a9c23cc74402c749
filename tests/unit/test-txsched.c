/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Transmit scheduling (core/txsched.c) unit tests on two devices back to
 * back (iwarp-fixture.c, as bench/engine.c): an SQ doorbell sends nothing
 * itself, the bottom half sends E810_TX_BUDGET frames per run; a backend
 * that cannot take more (the fake host holds frames, E810_TX_QUEUED)
 * stops the iWARP and RoCEv2 engines and the LAN Tx queues after one
 * frame, and they go on frame by frame as the backend drains -- no frame
 * lost, nothing retransmitted, the data where it belongs; a backend that
 * never drains lets connections time out after E810_TX_GRACE_NS.
 */
#include "check.h"

#include "iwarp-fixture.h"
#include "iwarp/qp.h"
#include "roce/roce.h"

#define SIG             (1ull << 62)
#define CQE_ERROR       (1ull << 55)
#define OP_WRITE        (0x00ull << 32)
#define LEN             60000u          /* fits the 64 KiB MRs */
#define FRAME_MAX       2048
#define WIRE_CAP        2048

static IfxState dev_a = IFX_DEV_A;
static IfxState dev_b = IFX_DEV_B;

/* One direction of the link: frames in order, delivered by pump(). */
typedef struct Wire {
    uint8_t (*f)[FRAME_MAX];
    size_t len[WIRE_CAP];
    unsigned head, cnt, total;
    E810Core *dst;
} Wire;

static Wire a_to_b, b_to_a;

static void wire_put(void *opaque, const void *frame, size_t len)
{
    Wire *w = opaque;
    unsigned i;

    CHECK(w->cnt < WIRE_CAP && len <= FRAME_MAX);
    if (w->cnt == WIRE_CAP || len > FRAME_MAX) {
        return;
    }
    i = (w->head + w->cnt++) % WIRE_CAP;
    memcpy(w->f[i], frame, len);
    w->len[i] = len;
    w->total++;
}

/* Deliver both ways and run the bottom halves until nothing moves. */
static void pump(void)
{
    for (;;) {
        Wire *w = a_to_b.cnt ? &a_to_b : &b_to_a;
        unsigned i;

        if (!w->cnt) {
            if (!fake_host_run_bh(&dev_a.dev.h) &&
                !fake_host_run_bh(&dev_b.dev.h)) {
                return;
            }
            continue;
        }
        i = w->head;
        w->head = (w->head + 1) % WIRE_CAP;
        w->cnt--;
        e810_receive(w->dst, w->f[i], w->len[i]);
    }
}

static void two_devices(bool roce, uint16_t mss)
{
    IfxState *d[2] = { &dev_a, &dev_b };

    for (int i = 0; i < 2; i++) {
        d[i]->roce = roce;
        d[i]->mss = mss;
        d[i]->psn[0] = d[i]->psn[1] = 0x100;
        ifx_cur = d[i];
        ifx_failures = 0;
        ifx_setup(false);
        CHECK_EQ(ifx_failures, 0);
    }
    if (!a_to_b.f) {
        a_to_b.f = malloc(WIRE_CAP * FRAME_MAX);
        b_to_a.f = malloc(WIRE_CAP * FRAME_MAX);
    }
    a_to_b.head = a_to_b.cnt = a_to_b.total = 0;
    b_to_a.head = b_to_a.cnt = b_to_a.total = 0;
    a_to_b.dst = &dev_b.dev.c;
    b_to_a.dst = &dev_a.dev.c;
    dev_a.dev.h.frame_cb = wire_put;
    dev_a.dev.h.frame_opaque = &a_to_b;
    dev_b.dev.h.frame_cb = wire_put;
    dev_b.dev.h.frame_opaque = &b_to_a;
    pump();
}

static void two_devices_down(void)
{
    ifx_teardown_two(&dev_a, &dev_b);
}

/* A's QP 3 writes @len bytes of pattern @seed from BUF(0) at @off to
 * B's BUF(1) at @off; the doorbell itself is left to the caller. */
static void put_write(uint32_t off, uint32_t len, unsigned seed)
{
    uint64_t q[4] = { 0 };

    ifx_cur = &dev_a;
    ifx_fill(BUF_PA(0) + off, len, seed);
    q[0] = BUF_PA(0) + off;
    q[1] = (uint64_t)len << 32 | STAG(0);
    q[2] = BUF_PA(1) + off;
    ifx_sq_put(0, q, OP_WRITE | SIG | STAG(1), 1, NULL);
}

/* Pump and let time pass until A has @n completions (all without error). */
static unsigned wait_cqes(unsigned n)
{
    uint64_t cqe[4];
    unsigned got = 0;

    for (unsigned k = 0; k < 3000 && got < n; k++) {
        pump();
        ifx_cur = &dev_a;
        while (ifx_cqe_next(cqe)) {
            CHECK(!(cqe[3] & CQE_ERROR));
            got++;
        }
        if (got < n) {
            fake_host_advance(&dev_a.dev.h, 1000000);
            fake_host_advance(&dev_b.dev.h, 1000000);
        }
    }
    return got;
}

static bool written(uint32_t off, uint32_t len)
{
    return !memcmp(fake_mem(&dev_b.dev.h, BUF_PA(1) + off),
                   fake_mem(&dev_a.dev.h, BUF_PA(0) + off), len);
}

/* Run A's bottom half once, as one main-loop iteration would. */
static void bh_once(void)
{
    struct E810Bh *b = &dev_a.dev.h.bhs[0];

    CHECK(b->cb && b->scheduled);
    b->scheduled = false;
    b->cb(b->opaque);
}

/*
 * iWARP: the doorbell only schedules; the bottom half sends at most
 * E810_TX_BUDGET frames and reschedules itself for the rest.
 */
static void test_doorbell_deferred_budget(void)
{
    E810Core *a = &dev_a.dev.c;
    uint64_t y0;
    unsigned n0;

    /* Small segments: more of them than the budget fit the window. */
    two_devices(false, 536);
    /* Open the congestion window first (slow start). */
    for (unsigned i = 0; i < 3; i++) {
        put_write(0, 0x10000, 10 + i);
        ifx_wr(PFPE_WQEALLOC, 3);
        CHECK_EQ(wait_cqes(1), 1);
    }
    for (unsigned i = 0; i < 4; i++) {
        put_write(0x4000 * i, 0x4000, i);
    }
    n0 = a_to_b.total;
    y0 = a->txs.stats.yields;
    e810_mmio_write(a, PFPE_WQEALLOC, 3, 4);
    CHECK_EQ(a_to_b.total, n0);         /* nothing on the vCPU's time */
    CHECK(a->txs.scheduled);
    bh_once();
    CHECK_EQ(a_to_b.total - n0, E810_TX_BUDGET);
    CHECK(a->txs.scheduled);            /* the rest comes next time */
    CHECK_EQ(a->txs.stats.yields - y0, 1);
    CHECK_EQ(wait_cqes(4), 4);
    CHECK(written(0, 0x10000));
    CHECK(a_to_b.total - n0 > E810_TX_BUDGET);
    CHECK_EQ(e810_iwarp_rexmits(a), 0);
    CHECK_EQ(dev_a.dev.h.guest_errors, 0);
    two_devices_down();
}

/*
 * A backend that holds frames: one frame goes out and is queued, then
 * the engine stops; each frame the backend hands on lets exactly one more
 * go.  Once it drains freely the transfer completes without a single
 * retransmission (a queued frame is not a lost one).
 */
static void backpressure(bool roce)
{
    E810Core *a = &dev_a.dev.c;
    FakeHost *ha = &dev_a.dev.h;
    unsigned n0, qp, code;
    uint64_t ctx;

    two_devices(roce, 0);
    put_write(0, LEN, 7);
    ha->tx_full = true;
    n0 = a_to_b.total;
    e810_mmio_write(a, PFPE_WQEALLOC, 3, 4);
    CHECK_EQ(ha->nheld, 0);
    fake_host_run_bh(ha);
    CHECK_EQ(ha->nheld, 1);
    CHECK(a->txs.blocked);
    CHECK_EQ(a->txs.stats.blocked, 1);
    fake_host_run_bh(ha);
    CHECK_EQ(ha->nheld, 1);             /* stopped, not spinning */
    for (unsigned k = 1; k <= 10; k++) {
        CHECK_EQ(fake_host_tx_release(ha, a, 1), 1);
        CHECK(!a->txs.blocked);
        pump();
        CHECK_EQ(ha->nheld, 1);         /* the next one, and no more */
        CHECK_EQ(a_to_b.total - n0, k);
    }
    CHECK_EQ(a->txs.stats.blocked, 11);
    CHECK_EQ(a->txs.stats.resumed, 10);
    /* Backed up for 3 s, past the 2.5 s the retransmission limit would
     * allow a silent peer: no retry counted, nothing sent again. */
    for (unsigned k = 0; k < 30; k++) {
        fake_host_advance(ha, 100000000);
        fake_host_advance(&dev_b.dev.h, 100000000);
        pump();
    }
    CHECK_EQ(ha->nheld, 1);
    CHECK_EQ(a_to_b.total - n0, 10);
    ha->tx_full = false;
    fake_host_tx_release(ha, a, FAKE_MAX_HELD);
    CHECK_EQ(ha->nheld, 0);
    CHECK_EQ(wait_cqes(1), 1);
    CHECK(written(0, LEN));
    CHECK_EQ(a->txs.stats.resumed, 11);
    CHECK_EQ(a->txs.stats.lost_queued, 0);
    CHECK_EQ(a->stats.tx_dropped, 0);
    if (roce) {
        CHECK_EQ(e810_roce_stats(a)->retransmits, 0);
        CHECK_EQ(e810_roce_stats(a)->tx_dropped, 0);
    } else {
        CHECK_EQ(e810_iwarp_rexmits(a), 0);
    }
    CHECK_EQ(ha->guest_errors, 0);
    ifx_cur = &dev_a;
    CHECK(!ifx_aeqe_next(&ctx, &qp, &code));   /* no retry limit, no error */
    two_devices_down();
}

static void test_backpressure_iwarp(void)
{
    backpressure(false);
}

static void test_backpressure_roce(void)
{
    backpressure(true);
}

/* iWARP: a 3000-byte WRITE (pattern @seed) rung while A's backend takes
 * nothing: its first frame is held and A is blocked. */
static void write_into_full_backend(unsigned seed)
{
    E810Core *a = &dev_a.dev.c;

    two_devices(false, 0);
    put_write(0, 3000, seed);
    dev_a.dev.h.tx_full = true;
    e810_mmio_write(a, PFPE_WQEALLOC, 3, 4);
    fake_host_run_bh(&dev_a.dev.h);
    CHECK(a->txs.blocked);
}

/* A queued frame the backend throws away after all is counted as lost,
 * and sending resumes. */
static void test_queued_frame_discarded(void)
{
    E810Core *a = &dev_a.dev.c;

    write_into_full_backend(3);
    CHECK_EQ(dev_a.dev.h.nheld, 1);
    /* The host purges its queue (the peer went away). */
    free(dev_a.dev.h.held[0]);
    dev_a.dev.h.nheld = 0;
    dev_a.dev.h.tx_full = false;
    e810_tx_drained(a, false);
    CHECK(!a->txs.blocked);
    CHECK_EQ(a->txs.stats.lost_queued, 1);
    CHECK_EQ(a->stats.tx_dropped, 1);
    /* TCP sends the lost segment again on its timer. */
    CHECK_EQ(wait_cqes(1), 1);
    CHECK(written(0, 3000));
    CHECK(e810_iwarp_rexmits(a) >= 1);
    two_devices_down();
}

/*
 * A backend that never takes anything (a peer gone for good): within
 * E810_TX_GRACE_NS the connection waits, past it the retransmission
 * limit ends it with IRDMA_AE_LLP_TOO_MANY_RETRIES, as on a dead link
 * (no RTT sample yet: RTO 1 s, doubling, 8 retries).
 */
static void test_backed_up_past_grace(void)
{
    E810Core *a = &dev_a.dev.c;
    unsigned qp, code, k;
    uint64_t ctx;
    bool seen = false;

    write_into_full_backend(4);
    for (k = 0; k < 4000 && !seen; k++) {
        fake_host_advance(&dev_a.dev.h, 100000000);
        ifx_cur = &dev_a;
        while (ifx_aeqe_next(&ctx, &qp, &code)) {
            if (qp == 3 && code == 0x050a) {
                seen = true;
            }
        }
        /* Nothing gives up inside the grace. */
        CHECK(seen ? (int64_t)(k + 1) * 100000000 >= E810_TX_GRACE_NS : true);
    }
    CHECK(seen);
    CHECK(e810_iwarp_rexmits(a) > 0);
    /* Past the grace frames went without back-pressure: only the first
     * one is waited for. */
    CHECK_EQ(a->txs.queued, 1);
    CHECK(dev_a.dev.h.nheld > 1);
    dev_a.dev.h.tx_full = false;
    fake_host_tx_release(&dev_a.dev.h, a, FAKE_MAX_HELD);
    CHECK(!a->txs.blocked);
    two_devices_down();
}

int main(void)
{
    RUN(test_doorbell_deferred_budget);
    RUN(test_backpressure_iwarp);
    RUN(test_backpressure_roce);
    RUN(test_queued_frame_discarded);
    RUN(test_backed_up_past_grace);
    return CHECK_DONE();
}
