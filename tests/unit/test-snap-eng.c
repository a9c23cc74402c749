/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The QP engine's saved state (record E810_SNAP_ENG, rdma/engine.c with
 * the RoCE and iWARP parts) in whole-device snapshots.  Two devices back
 * to back on a link the test steps (as test-roce.c's): A is saved in the
 * middle of a transfer, what is on the wire is lost, A is restored into a
 * fresh core on a fresh host with A's guest memory and clock, and the
 * transfer finishes with the same completions and memory as a twin run
 * that was never migrated.  Then the iWARP side: a QP without a
 * connection round-trips; offloaded connections refuse the save and
 * block migration through the host until they are gone.  Then the
 * loader's checks, each on a state saved with one field made bad.
 */
#include "check.h"

#include "ifx-names.h"
#include "snap.h"
#include "rdma/engine.h"
#include "roce/roce.h"
#include "roce/roce-int.h"
#include "roce/qp-int.h"

#undef mem                  /* FakeHost.mem here */
#define rq_post ifx_rq_post
#define fill ifx_fill

#define WQEALLOC        PFPE_WQEALLOC
#define BUF_SIZE        0x10000

static IfxState dev_a = IFX_DEV_A;
static IfxState dev_b = IFX_DEV_B;
static IfxState *one_device;

/* ---- the link ----------------------------------------------------------- */

#define LINK_QMAX 1024
static struct {
    IfxState *dst;
    size_t len;
    uint8_t f[ROCE_FRAME_MAX];
} link_q[LINK_QMAX];
static unsigned link_n;

static void link_frame(void *opaque, const void *frame, size_t len)
{
    CHECK(link_n < LINK_QMAX && len <= ROCE_FRAME_MAX);
    if (link_n < LINK_QMAX && len <= ROCE_FRAME_MAX) {
        link_q[link_n].dst = opaque;
        link_q[link_n].len = len;
        memcpy(link_q[link_n].f, frame, len);
        link_n++;
    }
}

static void link_attach(IfxState *d, IfxState *peer)
{
    d->dev.h.frame_cb = link_frame;
    d->dev.h.frame_opaque = peer;
}

/* The first @max frames on the link delivered in order (what they make
 * the devices send queues behind them), then 1 ms on both devices. */
static void link_deliver(unsigned max)
{
    unsigned n = link_n < max ? link_n : max;

    for (unsigned i = 0; i < n; i++) {
        e810_receive(&link_q[i].dst->dev.c, link_q[i].f, link_q[i].len);
    }
    memmove(link_q, link_q + n, (link_n - n) * sizeof(link_q[0]));
    link_n -= n;
    fake_host_advance(&dev_a.dev.h, 1000000);
    fake_host_advance(&dev_b.dev.h, 1000000);
}

static void link_step(void)
{
    link_deliver(LINK_QMAX);
}

/* A's QP 3 and B's QP 4, RC in RTS at path MTU 256, on one link. */
static void two_devices(void)
{
    link_n = 0;
    dev_a.mss = dev_b.mss = 256;
    ifx_setup_roce_pair(&dev_a, &dev_b);
    CHECK_EQ(ifx_failures, 0);
    link_attach(&dev_a, &dev_b);
    link_attach(&dev_b, &dev_a);
}

static void two_devices_end(void)
{
    link_n = 0;
    ifx_teardown_two(&dev_a, &dev_b);
    ifx_cur = one_device;
    dev_a.mss = dev_b.mss = 0;
}

static RoceQp *roce_qp3(IfxState *d, unsigned id)
{
    return roce_qp_find(&d->dev.c, id);
}

/* ---- saving and restoring a device -------------------------------------- */

static bool save(E810Core *c, E810SnapW *w)
{
    char err[256] = "";

    e810_snap_w_init(w);
    if (!e810_core_save(c, w, err, sizeof(err))) {
        printf("# save: %s\n", err);
        return false;
    }
    return true;
}

/* The record @id's payload in the stream @w: its offset, *@len bytes. */
static size_t record_at(const E810SnapW *w, unsigned id, size_t *len)
{
    size_t off = 0;

    while (off + 8 <= w->len) {
        unsigned rid = w->buf[off] | w->buf[off + 1] << 8;
        size_t n = ld32(w->buf + off + 4);

        if (rid == id) {
            *len = n;
            return off + 8;
        }
        off += 8 + n;
    }
    CHECK(false);
    *len = 0;
    return 0;
}

/*
 * Device @d saved; what is on the wire lost; @d restored into a fresh core
 * on a fresh host with @d's guest memory and clock.  Saving the restored
 * device gives the same bytes, and it holds as much device memory.  Then
 * the host resumes it (e810_core_resume, as at VM start).
 */
static void migrate(IfxState *d, IfxState *peer)
{
    static uint8_t ram[FAKE_MEM_SIZE];
    int64_t now = d->dev.h.now;
    uint64_t used = d->dev.c.mem_used;
    E810SnapW w, w2;
    char err[256] = "";

    CHECK(save(&d->dev.c, &w));
    link_n = 0;
    memcpy(ram, d->dev.h.mem, FAKE_MEM_SIZE);
    e810_core_cleanup(&d->dev.c);
    fake_host_cleanup(&d->dev.h);
    fake_host_init(&d->dev.h);
    memcpy(d->dev.h.mem, ram, FAKE_MEM_SIZE);
    d->dev.h.now = now;
    e810_core_init(&d->dev.c, &d->dev.h.host, d->mac);
    if (!e810_core_load(&d->dev.c, w.buf, w.len, err, sizeof(err))) {
        printf("# load: %s\n", err);
        CHECK(false);
    }
    CHECK_EQ(d->dev.c.mem_used, used);
    CHECK(save(&d->dev.c, &w2));
    CHECK_EQ(w2.len, w.len);
    CHECK(w2.len == w.len && !memcmp(w.buf, w2.buf, w.len));
    e810_snap_w_free(&w);
    e810_snap_w_free(&w2);
    link_attach(d, peer);
    e810_core_resume(&d->dev.c);
    fake_host_run_bh(&d->dev.h);
}

/* Whether one of @h's timers is armed for @at. */
static bool timer_at(FakeHost *h, int64_t at)
{
    for (unsigned i = 0; i < h->ntimers; i++) {
        if (h->timers[i].cb && h->timers[i].expire == at) {
            return true;
        }
    }
    return false;
}

/* ---- what a run leaves: completions and memory -------------------------- */

#define MAX_CQES 16

typedef struct Outcome {
    unsigned n[2];
    uint64_t cqe[2][MAX_CQES][4];
    uint8_t buf[2][2][BUF_SIZE];        /* device, BUF_PA(i) */
} Outcome;

static Outcome plain, moved;

/* CQ 3 of both devices (their QPs' completions) into @o. */
static void collect(Outcome *o)
{
    IfxState *d[2] = { &dev_a, &dev_b };
    uint64_t cqe[4];

    for (unsigned k = 0; k < 2; k++) {
        ifx_cur = d[k];
        while (ifx_cqe_next(cqe)) {
            CHECK(o->n[k] < MAX_CQES);
            if (o->n[k] < MAX_CQES) {
                memcpy(o->cqe[k][o->n[k]++], cqe, sizeof(cqe));
            }
        }
    }
}

/* Steps until A has @na completions and B @nb, then the memory. */
static void run_until(Outcome *o, unsigned na, unsigned nb)
{
    IfxState *d[2] = { &dev_a, &dev_b };

    for (unsigned k = 0; k < 5000 && (o->n[0] < na || o->n[1] < nb); k++) {
        link_step();
        collect(o);
    }
    for (unsigned k = 0; k < 20; k++) {
        link_step();            /* nothing more comes */
        collect(o);
    }
    CHECK_EQ(o->n[0], na);
    CHECK_EQ(o->n[1], nb);
    for (unsigned k = 0; k < 2; k++) {
        for (unsigned i = 0; i < 2; i++) {
            memcpy(o->buf[k][i], fake_mem(&d[k]->dev.h, BUF_PA(i)), BUF_SIZE);
        }
    }
}

static void same_outcome(void)
{
    for (unsigned k = 0; k < 2; k++) {
        CHECK_EQ(moved.n[k], plain.n[k]);
        CHECK(!memcmp(moved.cqe[k], plain.cqe[k], sizeof(plain.cqe[k])));
        for (unsigned i = 0; i < 2; i++) {
            CHECK(!memcmp(moved.buf[k][i], plain.buf[k][i], BUF_SIZE));
        }
    }
    for (unsigned k = 0; k < 2; k++) {
        for (unsigned i = 0; i < moved.n[k]; i++) {
            CHECK(!(moved.cqe[k][i][3] & CQE_ERROR));
        }
    }
}

/* A scenario on two_devices(), run once as it is and once with a device
 * migrated (@migrate) on the way. */
typedef void Scenario(bool migrate, Outcome *o);

static void twins(Scenario *fn)
{
    memset(&plain, 0, sizeof(plain));
    memset(&moved, 0, sizeof(moved));
    for (int mig = 0; mig < 2; mig++) {
        two_devices();
        fn(mig, mig ? &moved : &plain);
        two_devices_end();
    }
    same_outcome();
}

/* ---- RoCE RC ------------------------------------------------------------- */

static bool same_bytes(IfxState *x, uint64_t xa, IfxState *y, uint64_t ya,
                       size_t len)
{
    return !memcmp(fake_mem(&x->dev.h, xa), fake_mem(&y->dev.h, ya), len);
}

/* A's QP 3 posts a WRITE of 30000 bytes from BUF_PA(0) to B's BUF_PA(1)
 * and a SEND of 3000 from BUF_PA(0) + 0x8000, both signaled, on one
 * doorbell; two steps of the link. */
static void write_and_send(void)
{
    ifx_cur = &dev_a;
    ifx_sq_op_put(0, 0x00, BUF_PA(0), 30000, BUF_PA(1), SIG | STAG(1));
    ifx_sq_op_put(0, 0x03, BUF_PA(0) + 0x8000, 3000, 0, SIG);
    ifx_wr(WQEALLOC, 3);
    link_step();
    link_step();
}

/*
 * A WRITE of 30000 bytes (118 packets, a window of 64) and a SEND of 3000
 * behind it: saved with the first window delivered, its ACKs and the next
 * packets on the wire.
 */
static void sc_write(bool mig, Outcome *o)
{
    RoceQp *q;

    ifx_cur = &dev_a;
    fill(BUF_PA(0), 30000, 1);
    fill(BUF_PA(0) + 0x8000, 3000, 2);
    ifx_cur = &dev_b;
    rq_post(1, BUF_PA(1) + 0x9000, 4096);
    write_and_send();
    q = roce_qp3(&dev_a, 3);
    CHECK_EQ(q->eng.wq_cnt, 2);
    CHECK(roce_psn_diff(q->psn_next, q->psn_una) > 0);
    CHECK(link_n > 0);
    if (mig) {
        migrate(&dev_a, &dev_b);
        q = roce_qp3(&dev_a, 3);
        CHECK_EQ(q->eng.wq_cnt, 2);
    }
    run_until(o, 2, 1);
    /* Without what was on the wire, the restored A went back for it. */
    CHECK(!mig || e810_roce_stats(&dev_a.dev.c)->retransmits > 0);
    CHECK(same_bytes(&dev_b, BUF_PA(1), &dev_a, BUF_PA(0), 30000));
    CHECK(same_bytes(&dev_b, BUF_PA(1) + 0x9000, &dev_a, BUF_PA(0) + 0x8000,
                     3000));
}

/* A READ of 30000 bytes: saved with 50 of its 118 responses placed, the
 * rest lost; the restored requester asks again from the 51st. */
static void sc_read(bool mig, Outcome *o)
{
    RoceWqe *w;

    ifx_cur = &dev_b;
    fill(BUF_PA(1), 30000, 3);
    ifx_cur = &dev_a;
    ifx_sq_op(0, 0x01, BUF_PA(0), 30000, BUF_PA(1), SIG | STAG(1));
    link_step();
    link_deliver(50);
    w = (RoceWqe *)e810_eng_wq_at(&roce_qp3(&dev_a, 3)->eng, 0);
    CHECK(w->psn_valid && w->got == 50 && w->npkts == 118);
    CHECK(link_n > 0);
    if (mig) {
        migrate(&dev_a, &dev_b);
        w = (RoceWqe *)e810_eng_wq_at(&roce_qp3(&dev_a, 3)->eng, 0);
        CHECK_EQ(w->got, 50);
    }
    run_until(o, 1, 0);
    CHECK(!mig || e810_roce_stats(&dev_a.dev.c)->retransmits > 0);
    CHECK(same_bytes(&dev_a, BUF_PA(0), &dev_b, BUF_PA(1), 30000));
}

/*
 * A the responder: B READs 30000 bytes from A while A's backend takes
 * nothing, so A holds the READ in a read slot with its responses owed.
 * Saved then; the one response the old host held is lost with it, and
 * the restored A sends the rest from the bottom half.
 */
static void sc_responder(bool mig, Outcome *o)
{
    RoceQp *q;

    ifx_cur = &dev_a;
    fill(BUF_PA(0), 30000, 4);
    dev_a.dev.h.tx_full = true;
    ifx_cur = &dev_b;
    ifx_sq_op(1, 0x01, BUF_PA(1), 30000, BUF_PA(0), SIG | STAG(0));
    link_step();
    q = roce_qp3(&dev_a, 3);
    CHECK_EQ(q->rd_cnt, 1);
    CHECK(q->rd_send < q->rd_cnt);
    CHECK(q->rd[q->rd_head].next < q->rd[q->rd_head].npkts);
    CHECK_EQ(dev_a.dev.h.nheld, 1);
    dev_a.dev.h.tx_full = false;
    if (mig) {
        migrate(&dev_a, &dev_b);
        q = roce_qp3(&dev_a, 3);
        CHECK_EQ(q->rd_cnt, 1);
    } else {
        fake_host_tx_release(&dev_a.dev.h, &dev_a.dev.c, FAKE_MAX_HELD);
    }
    run_until(o, 0, 1);
    CHECK(same_bytes(&dev_b, BUF_PA(1), &dev_a, BUF_PA(0), 30000));
}

/* A SEND before B has a receive WQE: saved while A waits out the RNR
 * NAK's timer, which the restored A keeps (the same deadline). */
static void sc_rnr(bool mig, Outcome *o)
{
    RoceQp *q;
    int64_t at;

    ifx_cur = &dev_a;
    fill(BUF_PA(0), 3000, 5);
    ifx_sq_op(0, 0x03, BUF_PA(0), 3000, 0, SIG);
    link_step();
    link_step();
    q = roce_qp3(&dev_a, 3);
    CHECK(q->rnr_wait);
    at = q->eng.deadline;
    CHECK(at > dev_a.dev.h.now);
    ifx_cur = &dev_b;
    rq_post(1, BUF_PA(1), 4096);
    if (mig) {
        migrate(&dev_a, &dev_b);
        q = roce_qp3(&dev_a, 3);
        CHECK(q->rnr_wait);
        CHECK_EQ(q->eng.deadline, at);
        CHECK(timer_at(&dev_a.dev.h, at));
    }
    run_until(o, 1, 1);
    CHECK(same_bytes(&dev_b, BUF_PA(1), &dev_a, BUF_PA(0), 3000));
}

static void test_rc_mid_write(void)
{
    twins(sc_write);
}

static void test_rc_mid_read(void)
{
    twins(sc_read);
}

static void test_rc_responder(void)
{
    twins(sc_responder);
}

static void test_rc_rnr_wait(void)
{
    twins(sc_rnr);
}

/* ---- RoCE UD ------------------------------------------------------------- */

#define UD_QP           5
#define UD_PAGE         M(0x40000)
#define UD_QKEY         0x1234u
#define UD_AH           5
#define UD_RBUF(i)      (BUF_PA(0) + 0xC000 + 0x200 * (i))
#define UD_SBUF(i)      (BUF_PA(0) + 0xE000 + 0x200 * (i))

static unsigned ud_sq_head[2];

/* UD QP 5 on CQ 3 of ifx_cur with four receive buffers, and AH 5 to
 * the peer's address (ARP 1 is the peer's MAC). */
static void ud_setup(unsigned k)
{
    uint64_t q[8] = { 0 };

    ifx_ud_qp(UD_QP, 3, UD_PAGE, UD_QKEY, COMPCTX(UD_QP));
    for (unsigned i = 0; i < 4; i++) {
        uint64_t w = UD_PAGE + IFX_UD_RQ + 32ull * i;

        set64(w, UD_RBUF(i));
        set64(w + 8, 0x180ull << 32 | STAG(0));
        set64(w + 24, 1ull << 63);
    }
    q[0] = mac_u64(ifx_mac) << 16;
    q[1] = (uint64_t)PD << 48;
    q[2] = 1ull << 48 | 64ull << 32;
    q[4] = ifx_cur->peer_ip;
    q[6] = ifx_cur->ip;
    CHECK_EQ(cqp(0x1c, q, UD_AH | 1ull << 59), 0);
    ud_sq_head[k] = 0;
}

/* A datagram of 100 bytes from ifx_cur (device @k) to the peer's QP 5. */
static void ud_send(unsigned k, unsigned seed)
{
    uint64_t w = UD_PAGE + IFX_UD_SQ + 32ull * ud_sq_head[k]++;

    fill(UD_SBUF(seed % 8), 100, seed);
    set64(w, UD_SBUF(seed % 8));
    set64(w + 8, 100ull << 32 | STAG(0));
    set64(w + 16, UD_QKEY | (uint64_t)UD_QP << 32);
    set64(w + 24, UD_AH | 0x03ull << 32 | SIG | 1ull << 63);
    ifx_wr(WQEALLOC, UD_QP);
}

/* UD QP 5 on both: a datagram each way, A saved and restored, a datagram
 * each way again (A's SQ and RQ go on where they were). */
static void sc_ud(bool mig, Outcome *o)
{
    ifx_cur = &dev_a;
    ud_setup(0);
    ifx_cur = &dev_b;
    ud_setup(1);
    ud_send(1, 10);
    ifx_cur = &dev_a;
    ud_send(0, 20);
    link_step();
    collect(o);
    CHECK_EQ(o->n[0], 2);
    CHECK_EQ(o->n[1], 2);
    if (mig) {
        migrate(&dev_a, &dev_b);
        CHECK_EQ(roce_qp3(&dev_a, UD_QP)->eng.rq_idx, 1);
    }
    ifx_cur = &dev_b;
    ud_send(1, 11);
    ifx_cur = &dev_a;
    ud_send(0, 21);
    run_until(o, 4, 4);
    /* The payloads behind the 40-byte GRH slot. */
    CHECK(same_bytes(&dev_a, UD_RBUF(1) + 40, &dev_b, UD_SBUF(3), 100));
    CHECK(same_bytes(&dev_b, UD_RBUF(1) + 40, &dev_a, UD_SBUF(5), 100));
}

static void test_ud(void)
{
    twins(sc_ud);
}

/* ---- iWARP --------------------------------------------------------------- */

/* The second core the iWARP tests restore into. */
static FakeHost h2;
static E810Core c2;

static bool load2(const E810SnapW *w, char *err, size_t n)
{
    return e810_core_load(&c2, w->buf, w->len, err, n);
}

/* Loading @w into c2 fails, its message naming @what, and leaves c2 as
 * it was made (no device memory). */
static void load2_refused(const E810SnapW *w, const char *what)
{
    char err[256] = "";

    CHECK(!load2(w, err, sizeof(err)));
    printf("# %s\n", err);
    CHECK(strstr(err, what) != NULL);
    CHECK_EQ(c2.mem_used, 0);
}

static void destroy_qp(unsigned id, uint64_t ctx, unsigned type)
{
    uint64_t q[8] = { 0 };

    q[2] = ctx;
    CHECK_EQ(cqp(0x02, q, id | (uint64_t)type << 48), 0);
}

/*
 * QPs 3 and 4 connected (offloaded TCP): the host hears at the first, the
 * save is refused with the count and writes nothing.  Closing a
 * connection keeps it held (the QP has it until destroyed); destroying
 * the QPs gives the host a NULL at the last one.
 */
static void test_iwarp_blocker(void)
{
    uint64_t q[8] = { 0 };
    E810SnapW w;
    char err[256] = "";
    const char *why;

    ifx_cur = one_device;
    ifx_failures = 0;
    ifx_setup(false);
    CHECK_EQ(ifx_failures, 0);
    CHECK(H.blocked);
    CHECK_EQ(H.n_blocked, 1);
    CHECK(strstr(H.blocked_why, "e810: 1 offloaded iWARP connection(s) "
                 "open; migration and snapshots need them closed") != NULL);
    why = e810_core_unmigratable(&C);
    CHECK(why && strstr(why, "2 offloaded iWARP connection(s)"));
    e810_snap_w_init(&w);
    CHECK(!e810_core_save(&C, &w, err, sizeof(err)));
    CHECK(strstr(err, "2 offloaded iWARP connection(s) open") != NULL);
    CHECK(strstr(err, "rping") != NULL);
    CHECK_EQ(w.len, 0);

    q[2] = QPCTX_PA(0);
    CHECK_EQ(cqp(0x01, q, 3 | 1ull << 48 | 3ull << 60), 0);    /* CLOSING */
    ifx_run();
    CHECK(H.blocked);
    destroy_qp(3, QPCTX_PA(0), 1);
    CHECK(H.blocked);
    CHECK_EQ(H.n_blocked, 1);
    CHECK(strstr(e810_core_unmigratable(&C), " 1 offloaded") != NULL);
    CHECK(!e810_core_save(&C, &w, err, sizeof(err)));
    CHECK_EQ(w.len, 0);
    destroy_qp(4, QPCTX_PA(1), 1);
    CHECK(!H.blocked);
    CHECK_EQ(H.n_blocked, 2);
    CHECK_EQ(H.blocked_why[0], 0);
    CHECK(e810_core_unmigratable(&C) == NULL);
    CHECK(e810_core_save(&C, &w, err, sizeof(err)));
    e810_snap_w_free(&w);
    ifx_teardown();
}

/* iWARP QP 5 created and modified (IDLE, then RTS without a connection
 * handed over) after QPs 3 and 4 are gone: saved and restored. */
static void iwarp_idle_qp(void)
{
    uint64_t q[8] = { 0 };

    ifx_cur = one_device;
    ifx_failures = 0;
    ifx_setup(false);
    CHECK_EQ(ifx_failures, 0);
    destroy_qp(3, QPCTX_PA(0), 1);
    destroy_qp(4, QPCTX_PA(1), 1);
    ifx_qp_ctx(0, false);
    q[2] = QPCTX_PA(0);
    q[5] = QSHADOW_PA(0);
    CHECK_EQ(cqp(0x00, q, 5 | 1ull << 48 | 1ull << 60), 0);
    CHECK_EQ(cqp(0x01, q, 5 | 1ull << 48 | 1ull << 60), 0);
    CHECK_EQ(cqp(0x01, q, 5 | 1ull << 48 | 2ull << 60), 0);
    CHECK(!H.blocked);
    fake_host_init(&h2);
    e810_core_init(&c2, &h2.host, ifx_mac);
}

static void iwarp_idle_end(void)
{
    e810_core_cleanup(&c2);
    fake_host_cleanup(&h2);
    ifx_teardown();
}

static void test_iwarp_idle(void)
{
    E810SnapW w, w2;
    E810EngQp *q;
    char err[256] = "";

    iwarp_idle_qp();
    CHECK(save(&C, &w));
    if (!load2(&w, err, sizeof(err))) {
        printf("# load: %s\n", err);
        CHECK(false);
    }
    q = e810_eng_find(&c2, 5);
    CHECK(q && q->ops == &e810_iwarp_ops && !q->wq && !q->wq_size);
    CHECK(q && q->sq.size == QSQ_QUANTA && q->deadline == -1);
    CHECK(e810_eng_find(&c2, 3) == NULL);
    CHECK_EQ(c2.mem_used, C.mem_used);
    CHECK(!h2.blocked);
    CHECK(save(&c2, &w2));
    CHECK(w2.len == w.len && !memcmp(w.buf, w2.buf, w.len));
    e810_snap_w_free(&w);
    e810_snap_w_free(&w2);
    iwarp_idle_end();
}

/*
 * The iWARP part is the end of the ENG record here (no WQ, no WQEs): the
 * conn flag, then up, q2_pa, wait_pdu, got_pdu, next_seq, orphaned and
 * gather_ae (25 bytes); the WQ's size, head and count 6 bytes before.
 */
#define IW_PART         25

static void iwarp_bad(size_t from_end, uint8_t val, const char *field)
{
    E810SnapW w;
    size_t off, len;

    CHECK(save(&C, &w));
    off = record_at(&w, E810_SNAP_ENG, &len);
    w.buf[off + len - from_end] = val;
    load2_refused(&w, field);
    CHECK(e810_eng_find(&c2, 5) == NULL);
    e810_snap_w_free(&w);
}

static void test_iwarp_checks(void)
{
    iwarp_idle_qp();
    iwarp_bad(IW_PART, 1, "eng.qp[5].conn");
    iwarp_bad(IW_PART - 1, 1, "eng.qp[5].up");
    iwarp_bad(IW_PART - 1, 2, "eng.qp[5].up");
    iwarp_bad(IW_PART + 6, 1, "eng.qp[5].wq_size");     /* no connection */
    iwarp_bad(IW_PART + 5, 2, "eng.qp[5].wq_size");     /* 512 > 256 */
    iwarp_idle_end();
}

/* ---- the loader's checks ------------------------------------------------- */

/*
 * A's state with everything in it: A answered one of B's READs (a read
 * slot), then sends a WRITE of 118 packets (64 out, the WQE being sent)
 * and a SEND behind it.  Saved with one field made bad, the load fails
 * naming it and leaves a reset device; the field is put back after.
 */
static void rich_state(void)
{
    two_devices();
    ifx_cur = &dev_a;
    fill(BUF_PA(0), 30000, 7);
    ifx_cur = &dev_b;
    ifx_sq_op(1, 0x01, BUF_PA(1), 2000, BUF_PA(0), SIG | STAG(0));
    rq_post(1, BUF_PA(1) + 0x9000, 4096);
    link_step();
    link_step();
    write_and_send();
    fake_host_init(&h2);
    e810_core_init(&c2, &h2.host, dev_a.mac);
}

static void bad(void *field, size_t size, uint64_t val, const char *name)
{
    uint8_t old[8];
    E810SnapW w;

    memcpy(old, field, size);
    memcpy(field, &val, size);          /* little-endian host */
    CHECK(save(&dev_a.dev.c, &w));
    memcpy(field, old, size);
    load2_refused(&w, name);
    CHECK(e810_eng_find(&c2, 3) == NULL);
    e810_snap_w_free(&w);
}

#define BAD(f, v, name)     bad(&(f), sizeof(f), (uint64_t)(v), name)

/*
 * What a field of A cannot hold (a bool of 2, a count past its array): the
 * u32 at @mark_at set to a marker while A is saved finds its place in the
 * stream, and @n bytes @rel bytes from there become @val.
 */
static void bad_bytes(uint32_t *mark_at, int rel, uint32_t val, size_t n,
                      const char *name)
{
    static const uint8_t mark[4] = { 0xA5, 0x5A, 0xC3, 0x3C };
    uint32_t keep = *mark_at;
    E810SnapW w;
    uint8_t *p;

    memcpy(mark_at, mark, 4);
    CHECK(save(&dev_a.dev.c, &w));
    *mark_at = keep;
    p = memmem(w.buf, w.len, mark, 4);
    CHECK(p && !memmem(p + 1, w.len - (p + 1 - w.buf), mark, 4));
    if (p) {
        for (size_t i = 0; i < n; i++) {
            p[rel + i] = (uint8_t)(val >> (8 * i));
        }
        load2_refused(&w, name);
    }
    e810_snap_w_free(&w);
}

/* A WQE's engine part from its idx: quanta, op, signaled, done, inl,
 * status, nsge, len. */
#define WQE_DONE        7
#define WQE_INL         8
#define WQE_NSGE        13
#define WQE_LEN         17

static void test_checks(void)
{
    RoceQp *q;
    RoceWqe *w0, *w1;
    RoceRead *rd;
    E810SnapW w;
    char err[256] = "";

    rich_state();
    q = roce_qp3(&dev_a, 3);
    w0 = (RoceWqe *)e810_eng_wq_at(&q->eng, 0);
    w1 = (RoceWqe *)e810_eng_wq_at(&q->eng, 1);
    rd = &q->rd[q->rd_head];
    CHECK_EQ(q->eng.wq_cnt, 2);
    CHECK(w0->psn_valid && w0->npkts == 118 && !w0->eng.done);
    CHECK_EQ(q->snd, 1);
    CHECK(w1->psn_valid && w1->npkts == 12 && q->snd_pkt < 12);
    CHECK_EQ(q->rd_cnt, 1);

    /* As it is, it loads. */
    CHECK(save(&dev_a.dev.c, &w));
    CHECK(load2(&w, err, sizeof(err)));
    CHECK(e810_eng_find(&c2, 3) != NULL);
    CHECK_EQ(c2.mem_used, dev_a.dev.c.mem_used);

    /* The shell */
    BAD(q->eng.deadline, -2, "eng.qp[3].deadline");
    BAD(q->eng.sq.size, 6, "eng.qp[3].sq.size");
    BAD(q->eng.rq.size, 2, "eng.qp[3].rq.size");
    BAD(q->eng.rq.size, 8u << 15, "eng.qp[3].rq.size");
    BAD(q->eng.sq.head, 64, "eng.qp[3].sq.head");
    BAD(q->eng.rq_shift, 4, "eng.qp[3].rq_shift");
    BAD(q->eng.sq_pol, 2, "eng.qp[3].sq_pol");
    BAD(q->eng.txcq, 1u << 25, "eng.qp[3].txcq");
    BAD(q->eng.pd, 1u << 18, "eng.qp[3].pd");
    BAD(q->eng.wq_cnt, q->eng.wq_size + 1, "eng.qp[3].wq_cnt");
    BAD(q->eng.wq_head, q->eng.wq_size, "eng.qp[3].wq_head");
    /* A WQE */
    BAD(w0->eng.quanta, 0, "eng.qp[3].wq[0].quanta");
    BAD(w1->eng.quanta, 9, "eng.qp[3].wq[1].quanta");
    BAD(w0->eng.op, 64, "eng.qp[3].wq[0].op");
    BAD(w1->eng.status, -1, "eng.qp[3].wq[1].status");
    /* RoCE's part of a WQE */
    BAD(w0->got, 119, "eng.qp[3].wq[0].got");
    BAD(w0->npkts, 0, "eng.qp[3].wq[0].npkts");
    BAD(w0->npkts, 118 + 1, "eng.qp[3].wq[0].npkts");
    BAD(w0->first_psn, 1u << 24, "eng.qp[3].wq[0].first_psn");
    BAD(q->snd_pkt, 12, "eng.qp[3].wq[1].snd_pkt");
    /* RoCE's part of the QP */
    BAD(q->type, QP_TYPE_ROCE_UD, "eng.qp[3].type");
    BAD(q->type, 2, "eng.qp[3].type");
    BAD(q->state, 7, "eng.qp[3].state");
    BAD(q->mtu, 255, "eng.qp[3].mtu");
    BAD(q->mtu, 4097, "eng.qp[3].mtu");
    BAD(q->ord, 256, "eng.qp[3].ord");
    BAD(q->ird, 257, "eng.qp[3].ird");
    BAD(q->snd, 3, "eng.qp[3].snd");
    BAD(q->psn_next, 1u << 24, "eng.qp[3].psn_next");
    BAD(q->epsn, 1u << 24, "eng.qp[3].epsn");
    BAD(q->msn, 1u << 24, "eng.qp[3].msn");
    BAD(q->rd_head, 256, "eng.qp[3].rd_head");
    BAD(q->rd_cnt, 257, "eng.qp[3].rd_cnt");
    BAD(q->rd_send, 2, "eng.qp[3].rd_send");
    BAD(q->rcv_off, q->eng.rcv_cap + 1, "eng.qp[3].rcv_off");
    BAD(q->wr_off, q->wr_len + 1, "eng.qp[3].wr_off");
    BAD(rd->next, rd->npkts + 1, "eng.qp[3].rd[0].next");
    BAD(rd->npkts, 0, "eng.qp[3].rd[0].npkts");
    BAD(rd->psn, 1u << 24, "eng.qp[3].rd[0].psn");
    /* What the fields cannot hold, in the stream */
    bad_bytes(&w0->eng.idx, WQE_DONE, 2, 1, "eng.qp[3].wq[0].done");
    bad_bytes(&w0->eng.idx, WQE_NSGE, E810_WQE_MAX_SGE + 1, 4,
              "eng.qp[3].wq[0].nsge");
    bad_bytes(&w0->eng.idx, WQE_INL, 1, 1, "eng.qp[3].wq[0].len");
    bad_bytes(&q->eng.rcv_idx, 4, E810_WQE_MAX_SGE + 1, 4,
              "eng.qp[3].rcv_nsge");
    /* A QP the control path does not have (as RoCE's) */
    BAD(dev_a.dev.c.rdma.qp[3].valid, false, "eng.qp[3]");

    /*
     * Every cut of the record fails and leaves nothing behind: the
     * engine's loader alone over each cut of the payload, into c2 with
     * the rest of the state loaded and its QPs dropped; and a few cuts
     * of the whole stream (the record's length made the cut's, the end
     * record after it).
     */
    {
        size_t off, len;
        uint8_t *cut = malloc(w.len + 8);
        unsigned fails = 0;
        uint64_t base;

        CHECK(load2(&w, err, sizeof(err)));
        e810_eng_reset(&c2);
        base = c2.mem_used;
        off = record_at(&w, E810_SNAP_ENG, &len);
        for (size_t n = 0; n <= len; n++) {
            E810SnapErr e;
            E810SnapR r;
            bool ok;

            e810_snap_r_init(&r, w.buf + off, n, &e);
            ok = e810_eng_load(&c2, &r, 1) && !r.left;
            CHECK_EQ(ok, n == len);
            CHECK(ok || e.msg[0]);
            fails += !ok;
            e810_eng_reset(&c2);
            CHECK_EQ(c2.mem_used, base);
        }
        CHECK_EQ(fails, len);
        for (unsigned k = 0; k <= 4; k++) {
            size_t n = k < 4 ? len * k / 4 : len;
            bool ok;

            memcpy(cut, w.buf, off + n);
            st32(cut + off - 4, n);
            st16(cut + off + n, E810_SNAP_END);
            st16(cut + off + n + 2, 1);
            st32(cut + off + n + 4, 0);
            ok = e810_core_load(&c2, cut, off + n + 8, err, sizeof(err));
            CHECK_EQ(ok, n == len);
            CHECK(ok || c2.mem_used == 0);
        }
        /* QP ids: in the table, and the control path's */
        memcpy(cut, w.buf, w.len);
        st32(cut + off + 1 + sizeof(E810RoceCounters) + 4, 1024);
        CHECK(!e810_core_load(&c2, cut, w.len, err, sizeof(err)));
        CHECK(strstr(err, "eng.qp.id") != NULL);
        st32(cut + off + 1 + sizeof(E810RoceCounters) + 4, 7);
        CHECK(!e810_core_load(&c2, cut, w.len, err, sizeof(err)));
        printf("# %s\n", err);
        CHECK(strstr(err, "eng.qp[7]") != NULL);
        free(cut);
    }
    e810_snap_w_free(&w);

    /* Too little device memory for the QPs here. */
    c2.mem_limit = dev_a.dev.c.mem_used - 1;
    CHECK(save(&dev_a.dev.c, &w));
    load2_refused(&w, "rdma-mem-limit");
    e810_snap_w_free(&w);

    e810_core_cleanup(&c2);
    fake_host_cleanup(&h2);
    two_devices_end();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    one_device = ifx_cur;
    RUN(test_rc_mid_write);
    RUN(test_rc_mid_read);
    RUN(test_rc_responder);
    RUN(test_rc_rnr_wait);
    RUN(test_ud);
    RUN(test_iwarp_blocker);
    RUN(test_iwarp_idle);
    RUN(test_iwarp_checks);
    RUN(test_checks);
    return CHECK_DONE();
}
