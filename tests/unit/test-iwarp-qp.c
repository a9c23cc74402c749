/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iWARP QP data path (iwarp/qp.c) unit tests on one device: two
 * offloaded QPs connected to each other through the engine's loopback
 * (destination MAC = our own), driven the way irdma drives them: CQP ops
 * for MRs, CQs, the AEQ and the QPs (context as irdma_sc_qp_setctx()),
 * SQ WQEs as uk.c writes them and the WQEALLOC doorbell.  Checks Send,
 * inline Send, RDMA Write, RDMA Read, CQEs, remote access errors (AE),
 * graceful close (AEs), user-QP flush, fast registration (contiguous and
 * level-1 page lists, key rotation), local invalidate, Read with Local
 * Invalidate and Send with Invalidate.  Setup follows test-puda.c.
 * Then two devices back to back: the close with data in flight (ACKs
 * held or lost, a zero window, a backed-up backend, irdma's close timer
 * flushing the QP before the close is done) and the destroy of a QP
 * whose connection is still open (a RST).
 */
#include "check.h"

#include "iwarp-fixture.h"
#include "iwarp/qp.h"

#define t ifx
#define h (ifx.h)
#define c (ifx.c)
#define our_mac ifx_mac
#define wr ifx_wr
#define mem ifx_mem
#define mem64 ifx_mem64
#define set64 ifx_set64
#define cqp ifx_cqp
#define qp_ctx ifx_qp_ctx
#define setup(user) do { \
    ifx_failures = 0; \
    ifx_setup(user); \
    CHECK_EQ(ifx_failures, 0); \
} while (0)
#define teardown ifx_teardown
#define sq_post ifx_sq_post
#define sq_put ifx_sq_put
#define rq_post ifx_rq_post
#define run ifx_run
#define cqe_next ifx_cqe_next
#define aeqe_next ifx_aeqe_next
#define fill ifx_fill
#define sq_head ifx_sq_head
#define sq_pol ifx_sq_pol
#define ccq_head ifx_ccq_head
#define ccq_pol ifx_ccq_pol
#define cq3_head ifx_cq3_head
#define cq3_pol ifx_cq3_pol
#define aeq_head ifx_aeq_head
#define aeq_pol ifx_aeq_pol
#define qsq_head ifx_qsq_head
#define qsq_pol ifx_qsq_pol
#define qrq_head ifx_qrq_head
#define qrq_pol ifx_qrq_pol

static void test_send_write_read(void)
{
    uint64_t cqe[4], ctx;
    unsigned idx, qp, code, n;

    setup(false);
    /* Send 3000 bytes QP3 -> QP4 */
    fill(BUF_PA(0), 3000, 1);
    rq_post(1, BUF_PA(1) + 0x100, 4096);
    idx = ifx_sq_op(0, 0x03, BUF_PA(0), 3000, 0, 1ull << 62);
    run();
    CHECK(!memcmp(mem(BUF_PA(1) + 0x100), mem(BUF_PA(0)), 3000));
    n = 0;
    while (cqe_next(cqe)) {
        n++;
        CHECK(!(cqe[3] & (1ull << 55)));
        if (cqe[3] & (1ull << 62)) {            /* SQ of QP 3 */
            CHECK_EQ(cqe[1], COMPCTX(0));
            CHECK_EQ((cqe[3] >> 32) & 0x7FFF, idx);
            CHECK_EQ((cqe[3] >> 56) & 0x3F, 0x03);
        } else {                                /* RQ of QP 4 */
            CHECK_EQ(cqe[1], COMPCTX(1));
            CHECK_EQ(cqe[0], 3000);
            CHECK_EQ((cqe[2] >> 32) & 0xFFFFFF, 4);
            CHECK_EQ((cqe[3] >> 56) & 0x3F, 0x3e);
            CHECK_EQ((cqe[3] >> 32) & 0x7FFF, 0);
        }
    }
    CHECK_EQ(n, 2);

    /* RDMA Write 20000 bytes into QP4's MR at +0x2000, unsignaled, then a
     * signaled inline Send (50 bytes: 3 quanta) with SE. */
    fill(BUF_PA(0) + 0x1000, 20000, 7);
    ifx_sq_op(0, 0x00, BUF_PA(0) + 0x1000, 20000, BUF_PA(1) + 0x2000, STAG(1));
    rq_post(1, BUF_PA(1) + 0x8000, 100);
    idx = ifx_sq_inline50(0, 0, 1ull << 62);
    run();
    CHECK(!memcmp(mem(BUF_PA(1) + 0x2000), mem(BUF_PA(0) + 0x1000), 20000));
    CHECK(ifx_inline50_at(BUF_PA(1) + 0x8000));
    n = 0;
    while (cqe_next(cqe)) {
        n++;
        if (cqe[3] & (1ull << 62)) {
            CHECK_EQ((cqe[3] >> 32) & 0x7FFF, idx);     /* Write unsignaled */
        } else {
            CHECK_EQ(cqe[0], 50);
            CHECK(cqe[3] & (1ull << 54));               /* solicited */
        }
    }
    CHECK_EQ(n, 2);

    /* RDMA Read 10000 bytes of QP4's MR into two SGEs of QP3's */
    idx = ifx_read_2sge(1ull << 63);
    run();
    CHECK(ifx_read_2sge_done(idx));
    CHECK(!aeqe_next(&ctx, &qp, &code));

    /* Graceful close: QP3 -> CLOSING sends FIN; QP4 sees FIN_RECEIVED. */
    {
        uint64_t w[8] = { 0 };

        w[2] = QPCTX_PA(0);
        CHECK_EQ(cqp(0x01, w, 3 | 1ull << 48 | 3ull << 60), 0);
        run();
        CHECK(aeqe_next(&ctx, &qp, &code));
        CHECK_EQ(qp, 4);
        CHECK_EQ(code, 0x0503);
        CHECK_EQ(ctx, COMPCTX(1));
        w[2] = QPCTX_PA(1);
        CHECK_EQ(cqp(0x01, w, 4 | 1ull << 48 | 3ull << 60), 0);
        run();
        n = 0;
        while (aeqe_next(&ctx, &qp, &code)) {
            CHECK_EQ(code, 0x0501);
            n++;
        }
        CHECK_EQ(n, 2);
    }
    CHECK_EQ(h.guest_errors, 0);
    teardown();
}

static void test_remote_error(void)
{
    uint64_t q[4];

    setup(false);
    /* Write to an STag QP4 does not have: QP4 raises an AMP AE. */
    ifx_sq_op(0, 0x00, BUF_PA(0), 100, 0, 0x777777u);
    run();
    CHECK(ifx_ae_seen(4, 0x0103));
    /* Send without a posted receive: no buffer. */
    teardown();
    setup(false);
    ifx_sq_op(0, 0x03, BUF_PA(0), 10, 0, 0);
    run();
    CHECK(ifx_ae_seen(4, 0x0306));
    /* Local protection error: bad lkey -> error CQE for the WQE. */
    {
        uint64_t cqe[4];

        q[0] = BUF_PA(0);
        q[1] = 10ull << 32 | 0x999999u;
        q[2] = 0;
        sq_post(0, q, 0x03ull << 32 | 1ull << 62, 1, NULL);
        run();
        CHECK(cqe_next(cqe));
        CHECK(cqe[3] & (1ull << 55));
        CHECK(cqe[3] & (1ull << 62));
    }
    teardown();
}

/* A user QP's failing WQE (local protection error: an SGE past its MR)
 * completes through the driver's flush, as on RoCE (docs/errors.md): no
 * error CQE, the AE with the SQ as its source, then the flush CQE names
 * the WQE with the driver's code (FLUSH_PROT_ERR 2 for AMP AEs). */
/*
 * qp-ae faults (fault.h): an AE for QP 3 at its time, and one for the
 * next QP whose SQ doorbell rings; each stops that QP, resets its
 * connection (the peer QP gets the reset) and is counted.
 */
static void test_fault_qp_ae(void)
{
    char err[128];

    setup(false);
    CHECK(e810_fault_arm(&c, "qp-ae:qp=3:ae=0x050a:at=0.5", err, sizeof(err)));
    fake_host_advance(&h, 400000000);
    CHECK(!ifx_ae_seen(3, 0x050a));
    fake_host_advance(&h, 100000000);
    run();
    /* The AE, and its connection reset on the wire: the peer QP sees it. */
    {
        uint64_t qw0;
        unsigned qp, code;
        bool mine = false, peer = false;

        while (ifx_aeqe_next(&qw0, &qp, &code)) {
            mine |= qp == 3 && code == 0x050a;
            peer |= qp == 4 && code == 0x0502;
        }
        CHECK(mine);
        CHECK(peer);
    }
    CHECK_EQ(c.stats.faults_injected, 1);
    teardown();
    setup(false);
    CHECK(e810_fault_arm(&c, "qp-ae:qp=next:ae=0x0502", err, sizeof(err)));
    ifx_sq_op(0, 0x03, BUF_PA(0), 10, 0, 0);
    run();
    CHECK(ifx_ae_seen(3, 0x0502));
    CHECK_EQ(c.stats.faults_injected, 1);
    CHECK_EQ(c.faults.f[0].kind, 0);            /* once */
    teardown();
}

static void test_user_error_flush(void)
{
    uint64_t w[8] = { 0 }, cqe[4], ctx;
    unsigned idx, qp, code, ae = 0, src = 0;

    setup(true);
    idx = ifx_sq_op(0, 0x00, BUF_PA(0) + 0x10000 - 0x10, 0x100, BUF_PA(1),
                    STAG(1) | 1ull << 62);
    run();
    CHECK(!cqe_next(cqe));
    while (aeqe_next(&ctx, &qp, &code)) {
        if (qp == 3) {
            ae = code;
            src = ifx_ae_src;
        }
    }
    CHECK_EQ(ae, 0x0108);
    CHECK_EQ(src, 5);
    w[2] = 2ull << 32 | 1ull << 48;
    CHECK_EQ(cqp(0x22, w, 3 | 1ull << 61 | 1ull << 60), 0);
    CHECK(cqe_next(cqe));
    CHECK(cqe[3] & (1ull << 62));
    CHECK(cqe[3] & (1ull << 55));
    CHECK_EQ((cqe[3] >> 16) & 0xFFFF, 1);
    CHECK_EQ(cqe[3] & 0xFFFF, 2);
    CHECK_EQ((cqe[3] >> 32) & 0x7FFF, idx);
    teardown();
}

static void test_user_flush(void)
{
    uint64_t w[8] = { 0 }, cqe[4];

    setup(true);
    rq_post(1, BUF_PA(1), 100);
    w[2] = 0;
    /* FLUSH_WQES on QP 4, RQ, user flush code 5 */
    w[2] = 5;
    CHECK_EQ(cqp(0x22, w, 4 | 1ull << 62 | 1ull << 60), 0);
    CHECK(cqe_next(cqe));
    CHECK(cqe[3] & (1ull << 55));
    CHECK_EQ((cqe[3] >> 16) & 0xFFFF, 1);
    CHECK_EQ(cqe[3] & 0xFFFF, 5);
    CHECK(!(cqe[3] & (1ull << 62)));
    CHECK_EQ(cqe[1], COMPCTX(1));
    teardown();
}

/* FLUSH_WQES with only GENERATE_AE (irdma_gen_ae): the AE is posted, the
 * QP is not flushed and keeps moving data. */
static void test_gen_ae_only(void)
{
    uint64_t w[8] = { 0 }, cqe[4];
    unsigned n = 0;

    setup(true);
    w[1] = 0x0101 | 1ull << 16;
    CHECK_EQ(cqp(0x22, w, 4 | 1ull << 59), 0);
    CHECK(ifx_ae_seen(4, 0x0101));
    fill(BUF_PA(0), 3000, 3);
    rq_post(1, BUF_PA(1) + 0x100, 4096);
    ifx_sq_op(0, 0x03, BUF_PA(0), 3000, 0, 1ull << 62);
    run();
    CHECK(!memcmp(mem(BUF_PA(1) + 0x100), mem(BUF_PA(0)), 3000));
    while (cqe_next(cqe)) {
        CHECK(!(cqe[3] & (1ull << 55)));
        n++;
    }
    CHECK_EQ(n, 2);
    teardown();
}

/* ---- regression tests for guest-reachable memory-safety bugs ----------- */

#define BAR0_BASE       0xF0000000ull   /* outside guest RAM */

/*
 * A CQ resized onto the device's own BAR (PFGEN_CTRL): the Receive CQE
 * written from the loopback timer, and the Send CQE written from the ACK
 * path, would each issue a PF reset from inside the data path, freeing the
 * QPs under it.  The device refuses the access to itself; nothing is reset.
 */
static void test_reentry_cq_on_bar0(void)
{
    uint64_t q[8] = { 0 };
    uint64_t pf_resets;

    setup(false);
    h.bar0_core = &c;
    h.bar0_base = BAR0_BASE;
    pf_resets = c.stats.pf_resets;
    q[0] = 16;
    q[4] = BAR0_BASE + PFGEN_CTRL;
    CHECK_EQ(cqp(0x04, q, 3 | 1ull << 43), 0);
    /* 1-byte signaled Send: RQ CQE len 1 = PFSWR; SQ CQE after the ACK. */
    fill(BUF_PA(0), 16, 5);
    rq_post(1, BUF_PA(1), 64);
    ifx_sq_op(0, 0x03, BUF_PA(0), 1, 0, 1ull << 62);
    run();
    /* And a timer-driven retransmission path: more traffic after it. */
    rq_post(1, BUF_PA(1), 64);
    ifx_sq_op(0, 0x03, BUF_PA(0), 1, 0, 1ull << 62);
    run();
    CHECK(h.bar0_dma > 0);
    CHECK(c.stats.reentry_blocked > 0);
    CHECK_EQ(c.stats.pf_resets, pf_resets);
    CHECK_EQ(mem(BUF_PA(1))[0], mem(BUF_PA(0))[0]);
    h.bar0_core = NULL;
    teardown();
}

/* A DMA issued from a device timer re-entering MMIO is refused the same
 * way as one issued from MMIO (the core guard covers both). */
static void test_reentry_mmio_from_doorbell(void)
{
    uint64_t q[8] = { 0 };

    setup(false);
    h.bar0_core = &c;
    h.bar0_base = BAR0_BASE;
    /* A QP context read from BAR0 (the CQP runs from the doorbell MMIO). */
    q[2] = BAR0_BASE + PFGEN_CTRL;
    cqp(0x01, q, 3 | 1ull << 48 | 2ull << 60);
    CHECK(c.stats.reentry_blocked > 0);
    CHECK_EQ(c.stats.pf_resets, 0);
    h.bar0_core = NULL;
    teardown();
}

typedef struct Collect {
    uint64_t bytes;
    unsigned pieces;
} Collect;

static bool collect_fn(void *opaque, uint64_t pa, uint64_t len)
{
    Collect *k = opaque;

    (void)pa;
    k->bytes += len;
    k->pieces++;
    return true;
}

/*
 * Zero-based MR with a first byte offset near 2^64: off + len wrapped, the
 * copy loop never ran and the translation said OK, so an uninitialised
 * frame went out.  REG_MR refuses such an offset; the translation checks
 * it too and always hands over exactly len bytes or fails.
 */
static void test_xlate_fbo_wrap(void)
{
    uint64_t q[8] = { 0 };
    uint32_t stag = (uint32_t)0x20 << 8 | 0x11;
    E810RdmaMr *mr;
    Collect k = { 0 };
    int r;

    setup(false);
    q[0] = 0xFFFFFFFFFFFFF000ull;           /* "first byte offset" */
    q[1] = 0x10000 | (uint64_t)PD << 46;
    q[2] = stag;
    q[4] = BUF_PA(0);
    /* zero based (no VABASED bit 59), remote access (53) */
    CHECK_EQ(cqp(0x0a, q, 0xFull << 48 | 1ull << 53), 1);
    /* An FBO inside the first page is fine. */
    q[0] = 0x123;
    CHECK_EQ(cqp(0x0a, q, 0xFull << 48 | 1ull << 53), 0);
    r = e810_rdma_xlate(&c, stag, 0x100, 0x1000, E810_ACC_REMOTE_READ, PD,
                        false, collect_fn, &k);
    CHECK_EQ(r, E810_XLATE_OK);
    CHECK_EQ(k.bytes, 0x1000);
    /* Even if the offset were corrupt, no silent success. */
    mr = &c.rdma.mr[0x20];
    mr->va = 0xFFFFFFFFFFFFF000ull;
    k.bytes = 0;
    r = e810_rdma_xlate(&c, stag, 0x100, 0x1000, E810_ACC_REMOTE_READ, PD,
                        false, collect_fn, &k);
    CHECK_EQ(r, E810_XLATE_BOUNDS);
    CHECK_EQ(k.bytes, 0);
    /* VA-based: a tagged offset near 2^64 is out of bounds, not wrapped. */
    k.bytes = 0;
    r = e810_rdma_xlate(&c, STAG(0), ~0ull - 10, 100, E810_ACC_REMOTE_READ,
                        PD, false, collect_fn, &k);
    CHECK_EQ(r, E810_XLATE_BOUNDS);
    CHECK_EQ(k.bytes, 0);
    teardown();
}

/* The wire sees the same: an RDMA Read of the corrupt region gets a
 * Terminate-class error (AE at the responder), never bytes. */
static void test_read_of_bad_region(void)
{

    setup(false);
    memset(mem(BUF_PA(0) + 0x4000), 0xEE, 0x1000);
    c.rdma.mr[0x11].va_based = false;       /* QP4's MR, STAG(1) */
    c.rdma.mr[0x11].va = 0xFFFFFFFFFFFFF000ull;
    ifx_sq_op(0, 0x01, BUF_PA(0) + 0x4000, 0x1000, 0x100, 1ull << 62 | STAG(1));
    run();
    for (unsigned i = 0; i < 0x1000; i++) {
        if (mem(BUF_PA(0) + 0x4000)[i] != 0xEE) {
            CHECK(!"Read placed bytes from a bad region");
            break;
        }
    }
    /* AMP bounds at the responder */
    CHECK(ifx_ae_seen(4, 0x0108));
    teardown();
}

/* 3 SGEs of 2^31-1 bytes: the sum wrapped in 32 bits.  Now an invalid WQE
 * (error CQE + AE), no message of a made-up length. */
/*
 * Two NOPs and a SEND with the local fence, posted with one doorbell (as a
 * chain of posts does, or several posts before the deferred run): the NOPs
 * are done at once, so the fence does not hold the SEND, which arrives.
 */
static void test_local_fence_after_done(void)
{
    uint64_t cqe[4];
    unsigned n = 0;

    setup(false);
    fill(BUF_PA(0), 100, 4);
    rq_post(1, BUF_PA(1), 4096);
    ifx_sq_op_put(0, 0x0c, 0, 0, 0, 0);
    ifx_sq_op_put(0, 0x0c, 0, 0, 0, 0);
    ifx_sq_op(0, 0x03, BUF_PA(0), 100, 0, 1ull << 62 | 1ull << 61);
    run();
    while (cqe_next(cqe)) {
        CHECK(!(cqe[3] & (1ull << 55)));
        n++;
    }
    CHECK_EQ(n, 2);                 /* the SEND's and the receive's */
    CHECK(!memcmp(mem(BUF_PA(1)), mem(BUF_PA(0)), 100));
    teardown();
}

static void test_sge_sum(void)
{
    uint64_t q[4], cqe[4];
    uint8_t frag[32] = { 0 };

    setup(false);
    st64(frag, BUF_PA(0));
    st64(frag + 8, 0x7FFFFFFFull << 32 | STAG(0));
    st64(frag + 16, BUF_PA(0));
    st64(frag + 24, 0x7FFFFFFFull << 32 | STAG(0));
    q[0] = BUF_PA(0);
    q[1] = 0x7FFFFFFFull << 32 | STAG(0);
    q[2] = BUF_PA(1);
    /* RDMA Write, ADDFRAGCNT 2: 2 quanta */
    sq_post(0, q, 0x00ull << 32 | 1ull << 62 | 2ull << 38 | STAG(1), 2, frag);
    run();
    CHECK(cqe_next(cqe));
    CHECK(cqe[3] & (1ull << 55));
    CHECK_EQ(cqe[3] & 0xFFFF, 0x020b);
    CHECK(ifx_ae_seen(3, 0x020b));
    teardown();
}

/*
 * An RDMA Write whose source cannot be read (its MR points outside guest
 * memory): the engine used to stream the whole length as zeros.  Now not
 * one byte goes out; the WQE completes in error with a catastrophic AE.
 */
static void test_write_source_unreadable(void)
{
    uint64_t q[8] = { 0 }, cqe[4];
    uint32_t stag = (uint32_t)0x30 << 8 | 0x22;

    setup(false);
    q[0] = 0x100000000000ull;               /* VA = PA, outside RAM */
    q[1] = 0x100000 | (uint64_t)PD << 46;
    q[2] = stag;
    q[4] = 0x100000000000ull;
    CHECK_EQ(cqp(0x0a, q, 0xFull << 48 | 1ull << 53 | 1ull << 59), 0);
    memset(mem(BUF_PA(1)), 0xEE, 0x10000);
    memset(q, 0, sizeof(q));
    q[0] = 0x100000000000ull;
    q[1] = 60000ull << 32 | stag;
    q[2] = BUF_PA(1);
    sq_post(0, q, 0x00ull << 32 | 1ull << 62 | STAG(1), 1, NULL);
    run();
    for (unsigned i = 0; i < 0x10000; i++) {
        if (mem(BUF_PA(1))[i] != 0xEE) {
            CHECK(!"made-up Write payload placed");
            break;
        }
    }
    CHECK(cqe_next(cqe));
    CHECK(cqe[3] & (1ull << 55));
    CHECK_EQ(cqe[3] & 0xFFFF, 0x0700);
    CHECK(ifx_ae_seen(3, 0x0700));
    CHECK(c.stats.dma_errors >= 1);
    teardown();
}

/* Host memory per QP: small at create, the connection at RTS; bounded by
 * mem_limit with a CQP error; all returned at destroy. */
static void test_qp_memory(void)
{
    uint64_t q[8] = { 0 };
    uint64_t created, connected;

    setup(false);
    connected = c.mem_used;                 /* QPs 3 and 4 connected */
    CHECK(connected > 0);
    for (unsigned i = 0; i < 2; i++) {
        q[2] = QPCTX_PA(i);
        CHECK_EQ(cqp(0x02, q, (3 + i) | 1ull << 48), 0);
    }
    CHECK_EQ(c.mem_used, 0);
    for (unsigned i = 0; i < 2; i++) {
        q[2] = QPCTX_PA(i);
        CHECK_EQ(cqp(0x00, q, (3 + i) | 1ull << 48 | 1ull << 60), 0);
    }
    created = c.mem_used;
    CHECK(created > 0 && created < 8192);
    printf("# per iWARP QP: %" PRIu64 " bytes at create, %" PRIu64
           " when connected (SQ of %u quanta); limit %" PRIu64 " MiB\n",
           created / 2, connected / 2, QSQ_QUANTA,
           (uint64_t)E810_MEM_LIMIT_DEFAULT >> 20);
    /* Room for one connection only. */
    c.mem_limit = created + connected / 2 + 1;
    q[2] = QPCTX_PA(0);
    CHECK_EQ(cqp(0x01, q, 3 | 1ull << 48 | 1ull << 43 | 2ull << 60), 0);
    q[2] = QPCTX_PA(1);
    CHECK_EQ(cqp(0x01, q, 4 | 1ull << 48 | 1ull << 43 | 2ull << 60), 1);
    CHECK(c.stats.mem_refused >= 1);
    CHECK(c.mem_used <= c.mem_limit);
    c.mem_limit = E810_MEM_LIMIT_DEFAULT;
    teardown();
}

/* A guest that floods guest errors: all counted, the log rate limited. */
static void test_guest_error_rate_limit(void)
{
    unsigned before;

    setup(false);
    before = h.guest_errors;
    for (unsigned i = 0; i < 1000; i++) {
        e810_mmio_read(&c, E810_BAR0_SIZE + 4 * i, 4);
    }
    CHECK(h.guest_errors - before <= E810_GUEST_ERROR_BURST + 1);
    CHECK(c.stats.guest_errors_suppressed >= 1000 - E810_GUEST_ERROR_BURST - 1);
    fake_host_advance(&h, 2000000000ll);
    e810_mmio_read(&c, E810_BAR0_SIZE, 4);
    /* A new second: the summary line and the message itself. */
    CHECK(h.guest_errors - before >= E810_GUEST_ERROR_BURST + 2);
    teardown();
}

/* A failed DMA counts once (the host only reports it). */
static void test_dma_error_counted_once(void)
{
    uint8_t b[8];
    uint64_t n;

    setup(false);
    n = c.stats.dma_errors;
    CHECK(e810_dma_read(&c, 0x10, b, sizeof(b)) != 0);
    CHECK_EQ(c.stats.dma_errors, n + 1);
    teardown();
}

/* ---- fast registration, invalidation ------------------------------------ */

#define PBLE_SD_PA      M(0x400000)     /* direct SD backing the PBLEs */
#define PG(i)           M(0x60000 + 0x3000 * (i))   /* scattered pages */
#define FR_IDX(i)       (0x40u + (i))

/* Map the PBLE object through a direct SD; returns the PBLEs' address. */
static uint64_t map_pbles(void)
{
    uint64_t base = c.rdma.obj[E810_HMC_PBLE].base, q[8] = { 0 };
    unsigned sd = (unsigned)(base >> 21);

    q[0] = sd | 1u << 15 | 1u << 31;
    q[1] = PBLE_SD_PA | 512 << 2 | 2 | 1;
    CHECK_EQ(cqp(0x1f, q, 0), 0);
    return PBLE_SD_PA + (base & ((2u << 20) - 1));
}

#define alloc_stag      ifx_alloc_stag
#define fast_reg_post   ifx_fast_reg_post
#define expect_sq_cqe(i, idx, op, st) CHECK(ifx_sq_cqe_is(i, idx, op, st))

/* What nvme-rdma does on its host side: QP 4 fast-registers a region over
 * three scattered pages (level-1 PBL, VA based, first byte offset), the
 * peer writes and reads it, then invalidates it remotely with Send with
 * Invalidate; a later Write to it is an access error: an AE on QP 4 and
 * a TERMINATE on the wire (QP 3 gets TERMINATE_RCVD). */
static void test_fast_reg_remote(void)
{
    const uint64_t va = 0x7F0000000123ull;
    const uint32_t fr = FR_IDX(0) << 8 | 0x11;
    uint64_t pbl, cqe[4], ctx;
    unsigned idx, qp, code;

    setup(false);
    pbl = map_pbles();
    set64(pbl + 8 * 100, PG(0));
    set64(pbl + 8 * 101, PG(1));
    set64(pbl + 8 * 102, PG(2));
    memset(mem(PG(0)), 0, 0x1000);
    memset(mem(PG(1)), 0, 0x1000);
    memset(mem(PG(2)), 0, 0x1000);
    alloc_stag(FR_IDX(0));
    idx = fast_reg_post(1, fr, va, 3 * 4096 - 0x123, PG(0), 1, 100, 0x0F);
    run();
    expect_sq_cqe(1, idx, 0x09, 0);
    CHECK(!cqe_next(cqe));

    /* Write 5000 bytes at VA + 0x800: page 0 from 0x923, then page 1. */
    fill(BUF_PA(0), 5000, 9);
    ifx_sq_op(0, 0x00, BUF_PA(0), 5000, va + 0x800, fr);
    run();
    CHECK(!memcmp(mem(PG(0) + 0x923), mem(BUF_PA(0)), 0x1000 - 0x923));
    CHECK(!memcmp(mem(PG(1)), mem(BUF_PA(0)) + 0x1000 - 0x923,
                  5000 - (0x1000 - 0x923)));
    CHECK(!cqe_next(cqe));

    /* Read 9000 bytes from VA + 0x10 (three pages) back. */
    fill(PG(2), 0x1000, 5);
    idx = ifx_sq_op(0, 0x01, BUF_PA(0) + 0x4000, 9000, va + 0x10,
                    1ull << 62 | fr);
    run();
    expect_sq_cqe(0, idx, 0x01, 0);
    CHECK(!memcmp(mem(BUF_PA(0) + 0x4000), mem(PG(0) + 0x133),
                  0x1000 - 0x133));
    CHECK(!memcmp(mem(BUF_PA(0) + 0x4000 + 0x1000 - 0x133), mem(PG(1)),
                  0x1000));
    CHECK(!memcmp(mem(BUF_PA(0) + 0x4000 + 0x2000 - 0x133), mem(PG(2)),
                  9000 - (0x2000 - 0x133)));

    /* Send with Invalidate: QP 4's receive completes with the STag. */
    rq_post(1, BUF_PA(1), 64);
    ifx_sq_op(0, 0x04, BUF_PA(0), 16, 0, fr);
    run();
    CHECK(cqe_next(cqe));
    CHECK(!(cqe[3] & (1ull << 62)));
    CHECK(!(cqe[3] & (1ull << 55)));
    CHECK(cqe[3] & (1ull << 53));               /* STag invalidated */
    CHECK_EQ((uint32_t)cqe[2], fr);
    CHECK_EQ(cqe[0], 16);
    CHECK(!c.rdma.mr[FR_IDX(0)].registered);
    CHECK(!aeqe_next(&ctx, &qp, &code));

    /* The invalidated STag refuses the peer's Write: AE + TERMINATE. */
    memset(mem(PG(0)), 0xEE, 0x1000);
    ifx_sq_op(0, 0x00, BUF_PA(0), 100, va, fr);
    run();
    CHECK(ifx_ae_seen(4, 0x0103));
    /* irdma_terminate_connection(): the TERMINATE header in Q2 (RDMAP,
     * remote protection, invalid STag), MODIFY_QP to TERMINATE. */
    {
        uint64_t w[8] = { 0 };

        memset(mem(Q2_PA(1)), 0, 64);
        mem(Q2_PA(1))[0] = 0x01;
        w[2] = QPCTX_PA(1);
        CHECK_EQ(cqp(0x01, w, 4 | 1ull << 48 | 5ull << 60), 0);
    }
    run();
    CHECK(ifx_ae_seen(3, 0x0509));
    CHECK_EQ(mem(PG(0))[0x123], 0xEE);          /* nothing placed */
    teardown();
}

/* What rdma_rw (nvmet-rdma) does for iWARP Read sinks: fast-register a
 * local MR with remote write, RDMA Read with Local Invalidate into it,
 * rotate the key (ib_update_fast_reg_key) and register it again, at a
 * high rate.  Then local invalidate, and the errors: a fast-register of
 * a valid STag (AE FASTREG_VALID_STAG), reads with a stale key. */
static void test_read_local_inv(void)
{
    uint64_t pbl, q[4], cqe[4], ctx;
    unsigned idx, qp, code, k, key = 0x30;

    setup(false);
    pbl = map_pbles();
    set64(pbl + 8 * 200, PG(0));
    set64(pbl + 8 * 201, PG(1));
    alloc_stag(FR_IDX(1));
    for (k = 0; k < 40; k++) {
        uint32_t s = FR_IDX(1) << 8 | (key + k);
        uint64_t va = 0xFFFF888000000000ull + 0x1000 * k + 0x40 * (k % 7);
        unsigned len = 1000 + 173 * k;

        fill(BUF_PA(1) + 0x100, len, k);
        memset(mem(PG(0)), 0, 0x1000);
        memset(mem(PG(1)), 0, 0x1000);
        /* Alternate contiguous (one page, LPBLSIZE 0) and level 1. */
        if (len + (va & 0xFFF) <= 0x1000) {
            idx = fast_reg_post(0, s, va, len, PG(0), 0, 0, 0x0A);
        } else {
            idx = fast_reg_post(0, s, va, len, PG(0), 1, 200, 0x0A);
        }
        q[0] = va;
        q[1] = (uint64_t)len << 32 | s;
        q[2] = BUF_PA(1) + 0x100;
        sq_post(0, q, 0x0bull << 32 | 1ull << 62 | STAG(1), 1, NULL);
        run();
        expect_sq_cqe(0, idx, 0x09, 0);
        CHECK(cqe_next(cqe));
        CHECK_EQ((cqe[3] >> 56) & 0x3F, 0x0b);
        CHECK(!(cqe[3] & (1ull << 55)));
        CHECK(!c.rdma.mr[FR_IDX(1)].registered);
        {
            unsigned o = va & 0xFFF, n0 = len < 0x1000 - o ? len : 0x1000 - o;

            CHECK(!memcmp(mem(PG(0) + o), mem(BUF_PA(1) + 0x100), n0));
            CHECK(!memcmp(mem(PG(1)), mem(BUF_PA(1) + 0x100 + n0), len - n0));
        }
    }
    CHECK(!aeqe_next(&ctx, &qp, &code));

    /* Register, Local Invalidate, register again (all signaled). */
    key = 0x90;
    idx = fast_reg_post(0, FR_IDX(1) << 8 | key, 0x1000, 4096, PG(0), 0, 0,
                        0x0A);
    run();
    expect_sq_cqe(0, idx, 0x09, 0);
    q[0] = 0;
    q[1] = FR_IDX(1) << 8 | key;
    q[2] = 0;
    idx = sq_post(0, q, 0x0aull << 32 | 1ull << 62, 1, NULL);
    run();
    expect_sq_cqe(0, idx, 0x0a, 0);
    CHECK(!c.rdma.mr[FR_IDX(1)].registered);
    idx = fast_reg_post(0, FR_IDX(1) << 8 | (key + 1), 0x1000, 4096, PG(0),
                        0, 0, 0x0A);
    run();
    expect_sq_cqe(0, idx, 0x09, 0);
    /* Fast-register of a valid STag: error CQE and AE, QP stops. */
    idx = fast_reg_post(0, FR_IDX(1) << 8 | (key + 2), 0x1000, 4096, PG(0),
                        0, 0, 0x0A);
    run();
    expect_sq_cqe(0, idx, 0x09, 0x010c);
    CHECK(ifx_ae_seen(3, 0x010c));
    CHECK_EQ(c.rdma.stats.stag_errors, 1);
    CHECK_EQ(c.rdma.mr[FR_IDX(1)].key, key + 1);
    teardown();

    /* Send with Invalidate naming a region without remote access: the
     * receiver refuses (AE on QP 4), the region stays registered. */
    setup(false);
    map_pbles();
    alloc_stag(FR_IDX(2));
    idx = fast_reg_post(1, FR_IDX(2) << 8 | 0x44, 0x3000, 256, PG(1), 0, 0,
                        0x03);
    run();
    expect_sq_cqe(1, idx, 0x09, 0);
    rq_post(1, BUF_PA(1), 64);
    ifx_sq_op(0, 0x04, BUF_PA(0), 16, 0, FR_IDX(2) << 8 | 0x44);
    run();
    CHECK(ifx_ae_seen(4, 0x0103));
    CHECK(c.rdma.mr[FR_IDX(2)].registered);
    teardown();

    /* A Read whose sink names the previous key is a local access error. */
    setup(false);
    pbl = map_pbles();
    set64(pbl + 8 * 200, PG(0));
    alloc_stag(FR_IDX(1));
    idx = fast_reg_post(0, FR_IDX(1) << 8 | 0x21, 0x2000, 512, PG(0), 1, 200,
                        0x0A);
    q[0] = 0x2000;
    q[1] = 512ull << 32 | (FR_IDX(1) << 8 | 0x20);
    q[2] = BUF_PA(1);
    k = sq_post(0, q, 0x0bull << 32 | 1ull << 62 | STAG(1), 1, NULL);
    run();
    expect_sq_cqe(0, idx, 0x09, 0);
    expect_sq_cqe(0, k, 0x0b, 0x0103);
    CHECK(c.rdma.mr[FR_IDX(1)].registered);     /* not invalidated */
    teardown();
}

/* The 6.1/6.12 drivers (uk.c:irdma_uk_qp_post_wr) ring the SQ doorbell
 * only if the engine's tail in the shadow area lies among the WQEs posted
 * since their last doorbell decision. */
static void test_sq_tail_shadow(void)
{
    uint64_t q[4], cqe[4];
    unsigned initial = 0, rings = 0, n = 0, k;

    setup(false);
    for (k = 0; k < QSQ_QUANTA + 8; k++) {
        uint32_t tail, head;

        rq_post(1, BUF_PA(1) + 0x100 * (k % 16), 0x100);
        fill(BUF_PA(0) + 0x100 * (k % 16), 0x100, k);
        q[0] = BUF_PA(0) + 0x100 * (k % 16);
        q[1] = 0x100ull << 32 | STAG(0);
        q[2] = 0;
        sq_put(0, q, 0x03ull << 32 | 1ull << 62, 1, NULL);
        tail = mem64(QSHADOW_PA(0)) & 0x7FFF;
        head = qsq_head[0];
        if (head > initial ? tail >= initial && tail < head
                           : tail >= initial || tail < head) {
            wr(PFPE_WQEALLOC, 3);
            rings++;
        }
        initial = head;
        run();
        CHECK(!memcmp(mem(BUF_PA(1) + 0x100 * (k % 16)),
                      mem(BUF_PA(0) + 0x100 * (k % 16)), 0x100));
        CHECK_EQ(mem64(QSHADOW_PA(0)), qsq_head[0]);
        while (cqe_next(cqe)) {
            CHECK(!(cqe[3] & (1ull << 55)));
            n++;
        }
    }
    CHECK_EQ(rings, QSQ_QUANTA + 8);
    CHECK_EQ(n, 2 * (QSQ_QUANTA + 8));
    CHECK_EQ(h.guest_errors, 0);
    teardown();
}

/* Frames that leave the device while the path is cut: only counted. */
static unsigned cut_frames;
static int64_t cut_t[16];

static void cut_sink(void *opaque, const void *frame, size_t len)
{
    (void)opaque;
    (void)frame;
    (void)len;
    if (cut_frames < 16) {
        cut_t[cut_frames] = h.now;
    }
    cut_frames++;
}

/*
 * A Write that goes through (the RTT sample), then the path cut: our
 * frames no longer loop back (another MAC) and go to cut_sink.
 */
static void write_then_cut(void)
{
    setup(false);
    fill(BUF_PA(0), 3000, 5);
    ifx_sq_op(0, 0x00, BUF_PA(0), 3000, BUF_PA(1) + 0x2000, STAG(1));
    run();
    CHECK(!memcmp(mem(BUF_PA(1) + 0x2000), mem(BUF_PA(0)), 3000));
    c.mac[5] ^= 1;
    cut_frames = 0;
    h.frame_cb = cut_sink;
}

/*
 * TCP retransmission as the QP context asks for it: after an RTT sample
 * the RTO sits on RTOMIN (5 ms, as irdma sets it); with the path cut,
 * the retransmissions back off, and after REXMIT_THRESH (8) of them the
 * connection is dropped with IRDMA_AE_LLP_TOO_MANY_RETRIES (0x050a).
 */
static void test_rexmit_limit(void)
{
    uint64_t ctx;
    unsigned qp, code;

    write_then_cut();
    /* One segment. */
    ifx_sq_op(0, 0x00, BUF_PA(0), 1000, BUF_PA(1) + 0x2000, STAG(1));
    run();
    CHECK(cut_frames >= 2);
    /* First retransmission one RTOMIN after the original. */
    CHECK(cut_t[1] - cut_t[0] >= 5000000 && cut_t[1] - cut_t[0] < 6000000);
    /* then doubling */
    if (cut_frames >= 3) {
        CHECK(cut_t[2] - cut_t[1] >= 10000000 &&
              cut_t[2] - cut_t[1] < 12000000);
    }
    while (aeqe_next(&ctx, &qp, &code)) {
        CHECK(code != 0x050a);
    }
    /* 5 ms * (2^9 - 1): the ninth expiry ends it. */
    for (unsigned k = 0; k < 20; k++) {
        run();
    }
    CHECK(ifx_ae_seen(3, 0x050a));
    /* original + 8 retransmissions + the RST */
    CHECK_EQ(cut_frames, 10);
    h.frame_cb = NULL;
    c.mac[5] ^= 1;
    teardown();
}

/*
 * The MR of a Write in flight is deregistered before the segment is
 * resent: the engine reads the payload again from the MR (it keeps no
 * copy), finds the STag invalid, and ends the connection through the
 * hardware's error path: AE AMP_INVALID_STAG (0x0103) on the sender, a
 * RST, LLP_CONNECTION_RESET (0x0502) on the peer; no made-up bytes and
 * no successful completion.
 */
static void test_rexmit_mr_gone(void)
{
    uint64_t q[8] = { 0 }, cqe[4], ctx;
    unsigned i, qp, code;
    bool seen_amp = false, seen_rst = false;

    write_then_cut();           /* the first transmission is lost */
    fill(BUF_PA(0), 1000, 9);
    ifx_sq_op(0, 0x00, BUF_PA(0), 1000, BUF_PA(1) + 0x8000, STAG(1));
    CHECK_EQ(cut_frames, 1);
    q[2] = STAG(0);
    CHECK_EQ(cqp(0x0d, q, 0), 0);
    h.frame_cb = NULL;
    c.mac[5] ^= 1;
    for (unsigned k = 0; k < 5; k++) {
        run();
    }
    while (aeqe_next(&ctx, &qp, &code)) {
        seen_amp |= qp == 3 && code == 0x0103;
        seen_rst |= qp == 4 && code == 0x0502;
    }
    CHECK(seen_amp);
    CHECK(seen_rst);
    for (i = 0; i < 1000; i++) {
        if (mem(BUF_PA(1) + 0x8000)[i]) {
            CHECK(!"bytes placed");
            break;
        }
    }
    while (cqe_next(cqe)) {
        CHECK(cqe[3] & (1ull << 55));           /* no success */
    }
    teardown();
}

/* GATHER_STATS into @pa: 0 on success. */
static unsigned gather(uint64_t pa)
{
    uint64_t w[8] = { 0 };

    memset(mem(pa), 0xEE, 1024);
    w[4] = pa;
    return cqp(0x2e, w, 0);
}

/* A counter of the gather buffer at @byte, bits @bit..+@width
 * (icrdma_hw_stat_map). */
static uint64_t stat_at(uint64_t pa, unsigned byte, unsigned bit,
                        unsigned width)
{
    return (mem64(pa + byte) >> bit) & ((1ull << width) - 1);
}

#define ST_IP4RXOCTS(p)     stat_at(p, 8, 0, 48)
#define ST_IP4RXPKTS(p)     stat_at(p, 16, 0, 48)
#define ST_IP4TXOCTS(p)     stat_at(p, 104, 0, 48)
#define ST_IP4TXPKTS(p)     stat_at(p, 112, 0, 48)
#define ST_TCPRXSEGS(p)     stat_at(p, 192, 32, 32)
#define ST_TCPTXSEG(p)      stat_at(p, 208, 0, 48)
#define ST_TCPRTXSEG(p)     stat_at(p, 216, 32, 32)
#define ST_RDMARXWRS(p)     stat_at(p, 240, 0, 48)
#define ST_RDMARXRDS(p)     stat_at(p, 248, 0, 48)
#define ST_RDMARXSNDS(p)    stat_at(p, 256, 0, 48)
#define ST_RDMATXWRS(p)     stat_at(p, 264, 0, 48)
#define ST_RDMATXRDS(p)     stat_at(p, 272, 0, 48)
#define ST_RDMATXSNDS(p)    stat_at(p, 280, 0, 48)

static void test_gather_stats(void)
{
    const uint64_t s0 = BUF_PA(2), s1 = BUF_PA(2) + 0x400;
    uint64_t cqe[4];
    uint64_t tx_segs, tx_pkts;

    setup(false);
    CHECK_EQ(gather(s0), 0);
    /* Nothing but the buffer's 41 counters: the rest is zero. */
    CHECK_EQ(mem64(s0 + 1016), 0);
    CHECK_EQ(ST_RDMATXSNDS(s0), 0);

    /* A Send of 3000 bytes, an RDMA Write of 20000, an RDMA Read of
     * 10000, QP 3 -> QP 4 through the loopback. */
    fill(BUF_PA(0), 0x8000, 1);
    rq_post(1, BUF_PA(1), 4096);
    ifx_sq_op(0, 0x03, BUF_PA(0), 3000, 0, 1ull << 62);
    ifx_sq_op(0, 0x00, BUF_PA(0), 20000, BUF_PA(1) + 0x1000,
              1ull << 62 | STAG(1));
    ifx_sq_op(0, 0x01, BUF_PA(0) + 0x6000, 10000, BUF_PA(1) + 0x1000,
              1ull << 62 | STAG(1));
    run();
    while (cqe_next(cqe)) {
        CHECK(!(cqe[3] & (1ull << 55)));
    }
    CHECK(!memcmp(mem(BUF_PA(1)), mem(BUF_PA(0)), 3000));
    CHECK(!memcmp(mem(BUF_PA(0) + 0x6000), mem(BUF_PA(0)), 10000));

    CHECK_EQ(gather(s1), 0);
    CHECK_EQ(ST_RDMATXSNDS(s1), 1);
    CHECK_EQ(ST_RDMARXSNDS(s1), 1);
    CHECK_EQ(ST_RDMATXWRS(s1), 1);
    CHECK_EQ(ST_RDMATXRDS(s1), 1);
    CHECK_EQ(ST_RDMARXRDS(s1), 1);
    /* Inbound Writes count per tagged segment: 20000 bytes at MSS 1460
     * (less the MPA/DDP framing) take 14 or more. */
    CHECK(ST_RDMARXWRS(s1) >= 14);
    /* Through the loopback every segment sent is received, one per IPv4
     * packet; the octets hold at least the payload. */
    tx_segs = ST_TCPTXSEG(s1) - ST_TCPTXSEG(s0);
    tx_pkts = ST_IP4TXPKTS(s1) - ST_IP4TXPKTS(s0);
    CHECK(tx_segs >= 2 * 14 + 7);
    CHECK_EQ(tx_pkts, tx_segs);
    CHECK_EQ(ST_IP4RXPKTS(s1) - ST_IP4RXPKTS(s0), tx_pkts);
    CHECK_EQ(ST_TCPRXSEGS(s1) - ST_TCPRXSEGS(s0), tx_segs);
    CHECK(ST_IP4TXOCTS(s1) - ST_IP4TXOCTS(s0) >= 33000 + 40 * tx_pkts);
    CHECK_EQ(ST_IP4RXOCTS(s1) - ST_IP4RXOCTS(s0),
             ST_IP4TXOCTS(s1) - ST_IP4TXOCTS(s0));
    CHECK_EQ(ST_TCPRTXSEG(s1), 0);
    CHECK_EQ(c.rdma.pestat[E810_PE_RDMAVINV], 0);

    /* A buffer outside guest memory: the op fails, nothing else. */
    {
        uint64_t w[8] = { 0 };

        w[4] = 0xdead00000000ull;
        CHECK_EQ(cqp(0x2e, w, 0), 1);
    }
    teardown();
}

/* ---- close with data in flight, two devices ---------------------------- */

/*
 * Two devices back to back (IFX_DEV_A / IFX_DEV_B); A's QP 3 (port 40000)
 * is connected to B's QP 4 (port 5000).  The link is a queue per
 * direction the test controls: B's frames to A can be held (the ACKs of
 * data in flight), thrown away, or carry a zero window.  irdma's part is
 * played by the test: MODIFY_QP to CLOSING on rdma_disconnect()
 * (verbs.c:irdma_modify_qp(), IB_QPS_SQD) and on LLP_FIN_RECEIVED
 * (hw.c:irdma_process_aeq()), the close timer's FLUSH_WQES
 * (cm.c:irdma_handle_close_entry() -> irdma_cm_disconn_true()), and the
 * destroy (MODIFY_QP to ERROR, DESTROY_QP).
 */

/* This part names both devices' hosts and cores itself. */
#undef h
#undef c

#define CL_CAP          4096
#define CL_FRAME_MAX    2048
#define AE_CLOSE_DONE   0x0501
#define AE_RESET        0x0502
#define AE_FIN_RCVD     0x0503
#define TCPF_FIN        0x01
#define TCPF_RST        0x04
#define QP_CLOSING      3
#define QP_ERROR        6
#define RESETCON        (1ull << 58)

static IfxState cl_a = IFX_DEV_A;
static IfxState cl_b = IFX_DEV_B;

typedef struct ClWire {
    uint8_t (*f)[CL_FRAME_MAX];
    size_t len[CL_CAP];
    unsigned head, cnt;
    E810Core *dst;
    FakeHost *src;
    bool hold;                  /* keep frames queued */
    bool cut;                   /* lose every frame */
    bool zero_wnd;              /* announce a zero window */
    unsigned fins, rsts, data;  /* frames sent, by kind */
    int64_t fin_t, data_t;      /* sender's clock: first FIN, last data */
} ClWire;

static ClWire cl_ab, cl_ba;     /* A to B, B to A */

/* The TCP checksum of the IPv4 frame @f (no options, TCP at 34). */
static uint16_t cl_tcp_csum(const uint8_t *f)
{
    size_t tlen = (size_t)ldbe16(f + 16) - 20, i;
    uint32_t sum = 6 + (uint32_t)tlen;

    for (i = 26; i < 34; i += 2) {
        sum += ldbe16(f + i);
    }
    for (i = 0; i + 1 < tlen; i += 2) {
        sum += ldbe16(f + 34 + i);
    }
    if (tlen & 1) {
        sum += (uint32_t)f[34 + tlen - 1] << 8;
    }
    while (sum >> 16) {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    return (uint16_t)~sum;
}

static void cl_put(void *opaque, const void *frame, size_t len)
{
    ClWire *w = opaque;
    uint8_t *f;
    unsigned i;

    CHECK(w->cnt < CL_CAP && len <= CL_FRAME_MAX);
    if (w->cnt == CL_CAP || len > CL_FRAME_MAX) {
        return;
    }
    i = (w->head + w->cnt) % CL_CAP;
    f = w->f[i];
    memcpy(f, frame, len);
    if (len >= 54 && ldbe16(f + 12) == 0x0800 && f[23] == 6) {
        if ((f[47] & TCPF_FIN) && !w->fins++) {
            w->fin_t = w->src->now;
        }
        w->rsts += !!(f[47] & TCPF_RST);
        if (ldbe16(f + 16) > 40) {
            w->data++;
            w->data_t = w->src->now;
        }
        if (w->zero_wnd) {
            stbe16(f + 48, 0);
            stbe16(f + 50, 0);
            stbe16(f + 50, cl_tcp_csum(f));
        }
    }
    if (w->cut) {
        return;
    }
    w->len[i] = len;
    w->cnt++;
}

static unsigned cl_deliver(ClWire *w)
{
    unsigned n = 0;

    while (w->cnt && !w->hold) {
        unsigned i = w->head;

        w->head = (w->head + 1) % CL_CAP;
        w->cnt--;
        e810_receive(w->dst, w->f[i], w->len[i]);
        n++;
    }
    return n;
}

/* Throw away what the link holds from @w. */
static void cl_lose(ClWire *w)
{
    w->head = (w->head + w->cnt) % CL_CAP;
    w->cnt = 0;
}

/* Deliver what the link lets through and run both devices' bottom halves
 * until nothing moves (as the host's main loop would), then let @ms
 * milliseconds pass. */
static void cl_step(unsigned ms)
{
    unsigned k;

    for (k = 0; k < 10000; k++) {
        unsigned n = cl_deliver(&cl_ab) + cl_deliver(&cl_ba);

        n += fake_host_run_bh(&cl_a.dev.h) + fake_host_run_bh(&cl_b.dev.h);
        if (!n) {
            break;
        }
    }
    CHECK(k < 10000);
    for (k = 0; k < ms; k++) {
        fake_host_advance(&cl_a.dev.h, 1000000);
        fake_host_advance(&cl_b.dev.h, 1000000);
        cl_step(0);
    }
}

/* AEs so far, per device and QP (3, 4), in order. */
static unsigned cl_ae_n[2][2];
static unsigned cl_ae[2][2][16];

static unsigned cl_aes(IfxState *d, unsigned qp, unsigned code)
{
    uint64_t ctx;
    unsigned q, got, n = 0;
    int i = d == &cl_b;

    ifx_cur = d;
    while (aeqe_next(&ctx, &q, &got)) {
        if (q >= 3 && q <= 4 && cl_ae_n[i][q - 3] < 16) {
            cl_ae[i][q - 3][cl_ae_n[i][q - 3]++] = got;
        }
    }
    for (unsigned k = 0; k < cl_ae_n[i][qp - 3]; k++) {
        n += cl_ae[i][qp - 3][k] == code;
    }
    return n;
}

static void cl_setup(bool user)
{
    IfxState *d[2] = { &cl_a, &cl_b };
    ClWire *w[2] = { &cl_ab, &cl_ba };

    for (int i = 0; i < 2; i++) {
        uint8_t (*f)[CL_FRAME_MAX] = w[i]->f;

        ifx_cur = d[i];
        ifx_failures = 0;
        ifx_setup(user);
        CHECK_EQ(ifx_failures, 0);
        memset(w[i], 0, sizeof(*w[i]));
        w[i]->f = f ? f : malloc(CL_CAP * CL_FRAME_MAX);
        w[i]->src = &d[i]->dev.h;
        w[i]->dst = &d[1 - i]->dev.c;
        d[i]->dev.h.frame_cb = cl_put;
        d[i]->dev.h.frame_opaque = w[i];
    }
    memset(cl_ae_n, 0, sizeof(cl_ae_n));
    cl_step(0);
}

static void cl_down(void)
{
    CHECK_EQ(cl_a.dev.h.guest_errors + cl_b.dev.h.guest_errors, 0);
    ifx_cur = &cl_a;
    ifx_teardown();
    ifx_cur = &cl_b;
    ifx_teardown();
}

/* MODIFY_QP of QP @qp on @d to @state, as irdma_hw_modify_qp() posts it;
 * @extra: more header bits. */
static void cl_modify(IfxState *d, unsigned qp, unsigned state, uint64_t extra)
{
    uint64_t w[8] = { 0 };

    ifx_cur = d;
    w[2] = QPCTX_PA(qp - 3);
    CHECK_EQ(cqp(0x01, w, qp | 1ull << 48 | (uint64_t)state << 60 | extra),
             0);
}

/* irdma's close timer went off on A: irdma_cm_disconn_true() flushes the
 * QP (FLUSH_WQES, SQ and RQ), which the device moves to ERROR. */
static void cl_flush_a(void)
{
    uint64_t w[8] = { 0 };

    ifx_cur = &cl_a;
    CHECK_EQ(cqp(0x22, w, 3 | 1ull << 61 | 1ull << 62), 0);
}

/* _irdma_destroy_qp() on A: MODIFY_QP to ERROR (RESETCON only while the
 * driver believes the connection open), then DESTROY_QP. */
static void cl_destroy_a(bool resetcon)
{
    uint64_t w[8] = { 0 };

    cl_modify(&cl_a, 3, QP_ERROR, resetcon ? RESETCON : 0);
    ifx_cur = &cl_a;
    CHECK_EQ(cqp(0x02, w, 3 | 1ull << 48), 0);
}

/* A's QP 3: a signaled Write of @len bytes (BUF 0 to B's BUF 1), rung. */
static void cl_write(uint32_t len)
{
    ifx_cur = &cl_a;
    fill(BUF_PA(0), len, 21);
    ifx_sq_op(0, 0x00, BUF_PA(0), len, BUF_PA(1), STAG(1) | 1ull << 62);
}

static bool cl_written(uint32_t len)
{
    return !memcmp(fake_mem(&cl_b.dev.h, BUF_PA(1)),
                   fake_mem(&cl_a.dev.h, BUF_PA(0)), len);
}

/*
 * The rest of a graceful close from here: A's FIN reaches B within @ms
 * (LLP_FIN_RECEIVED), B's driver moves its QP to CLOSING, B's FIN comes
 * back, and both ends report LLP_CLOSE_COMPLETE, without a RST.
 */
static void cl_expect_close(unsigned ms)
{
    unsigned k;

    for (k = 0; k < ms && !cl_aes(&cl_b, 4, AE_FIN_RCVD); k++) {
        cl_step(1);
    }
    CHECK_EQ(cl_ab.fins, 1);
    CHECK_EQ(cl_aes(&cl_b, 4, AE_FIN_RCVD), 1);
    cl_modify(&cl_b, 4, QP_CLOSING, 0);
    cl_step(10);
    CHECK_EQ(cl_ba.fins, 1);
    CHECK_EQ(cl_aes(&cl_a, 3, AE_CLOSE_DONE), 1);
    CHECK_EQ(cl_aes(&cl_b, 4, AE_CLOSE_DONE), 1);
    CHECK_EQ(cl_ab.rsts + cl_ba.rsts, 0);
}

/* cl_expect_close(@ms), the FIN in the same pass as the last data, and
 * B has all @len bytes. */
static void cl_expect_close_behind_data(unsigned ms, uint32_t len)
{
    cl_expect_close(ms);
    CHECK_EQ(cl_ab.fin_t, cl_ab.data_t);
    CHECK(cl_written(len));
}

/*
 * rdma_disconnect() with a Write in flight: most of it not even sent
 * (slow start) and B's ACKs held when the close comes.  Once they arrive
 * the rest goes and the FIN right behind the last data, in the same pass;
 * both sides close.
 */
static void test_close_data_in_flight(void)
{
    cl_setup(false);
    cl_write(60000);
    cl_ba.hold = true;
    cl_step(0);
    CHECK(cl_ab.data > 0 && cl_ab.data < 10);
    cl_modify(&cl_a, 3, QP_CLOSING, 0);
    cl_step(0);
    CHECK_EQ(cl_ab.fins, 0);        /* not before the data */
    cl_ba.hold = false;
    cl_expect_close_behind_data(100, 60000);
    cl_down();
}

/*
 * The close comes while B announces a zero window: the data waits for
 * the window (a zero-window probe now and then, one segment each), the
 * FIN behind it; once the window opens the rest goes, then the FIN.
 */
static void test_close_zero_window(void)
{
    unsigned sent;

    cl_setup(false);
    cl_ba.zero_wnd = true;
    cl_write(60000);
    cl_step(5);
    cl_modify(&cl_a, 3, QP_CLOSING, 0);
    sent = cl_ab.data;
    cl_step(20);
    /* 42 segments in all: far from all sent, the FIN still behind */
    CHECK(cl_ab.data > sent && cl_ab.data < 20);
    CHECK_EQ(cl_ab.fins, 0);
    cl_ba.zero_wnd = false;
    cl_expect_close_behind_data(3000, 60000);
    cl_down();
}

/*
 * The ACKs of the data in flight are lost: A's retransmission timer
 * sends again, the ACK of that opens the window, the rest of the data
 * and the FIN go.
 */
static void test_close_last_ack_lost(void)
{
    cl_setup(false);
    cl_write(6000);
    cl_ba.hold = true;
    cl_step(0);
    cl_modify(&cl_a, 3, QP_CLOSING, 0);
    cl_step(0);
    CHECK_EQ(cl_ab.fins, 0);
    cl_lose(&cl_ba);
    cl_ba.hold = false;
    cl_expect_close(3000);
    CHECK(e810_iwarp_rexmits(&cl_a.dev.c) >= 1);
    CHECK(cl_written(6000));
    cl_down();
}

/*
 * A's backend is backed up when the close comes (e810_tx_may_send() says
 * no): the FIN waits like the data and goes from the bottom half once
 * the backend has drained.
 */
static void test_close_backed_up(void)
{
    FakeHost *ha = &cl_a.dev.h;

    cl_setup(false);
    cl_write(60000);
    ha->tx_full = true;
    cl_step(1);
    CHECK_EQ(ha->nheld, 1);
    CHECK(cl_a.dev.c.txs.blocked);
    cl_modify(&cl_a, 3, QP_CLOSING, 0);
    cl_step(10);
    CHECK_EQ(ha->nheld, 1);
    for (unsigned k = 0; k < 400 && ha->nheld; k++) {
        fake_host_tx_release(ha, &cl_a.dev.c, 1);
        cl_step(0);
    }
    ha->tx_full = false;
    fake_host_tx_release(ha, &cl_a.dev.c, FAKE_MAX_HELD);
    cl_expect_close(3000);
    CHECK(cl_a.dev.c.txs.stats.resumed > 1);
    CHECK(cl_written(60000));
    cl_down();
}

/*
 * The qperf hang (rc_bw, then rdma_disconnect()): the close takes longer
 * than irdma's close timer (HZ/10) because B's ACKs are late, so the
 * driver flushes A's QP while data is still in flight (FLUSH_WQES moves
 * it to ERROR).  The ACKs that come next must still reach A's connection
 * and A's FIN must go out -- right at the flush, after what was sent:
 * the flushed work is not sent any more.  B closes normally; A's later
 * destroy (no RESETCON: the driver took the connection as reset) sends
 * nothing more, the connection being in TIME_WAIT by then.
 */
static void close_flushed(bool user, bool backed_up)
{
    FakeHost *ha = &cl_a.dev.h;
    unsigned data;

    cl_setup(user);
    cl_write(60000);
    cl_ba.hold = true;
    cl_step(0);
    cl_modify(&cl_a, 3, QP_CLOSING, 0);
    ha->tx_full = backed_up;
    cl_step(100);
    cl_flush_a();
    cl_step(0);
    data = cl_ab.data;
    CHECK_EQ(cl_ab.fins, !backed_up);
    if (backed_up) {
        ha->tx_full = false;
        fake_host_tx_release(ha, &cl_a.dev.c, FAKE_MAX_HELD);
        cl_step(0);
        CHECK_EQ(cl_ab.fins, 1);
    }
    cl_ba.hold = false;
    cl_expect_close(100);
    CHECK_EQ(cl_ab.data, data);     /* nothing of the flushed work */
    cl_destroy_a(false);
    cl_step(10);
    CHECK_EQ(cl_ab.rsts, 0);
    CHECK_EQ(cl_aes(&cl_b, 4, AE_RESET), 0);
    cl_down();
}

static void test_close_flushed_in_flight(void)
{
    close_flushed(false, false);
    close_flushed(true, false);
    close_flushed(false, true);
}

/*
 * As above, but what A sent before the flush was lost: the flushed work
 * is the guest's again (a kernel ULP may reuse the buffers once the
 * driver reported them flushed), so it is not sent again from there; the
 * retransmission ends the connection with a RST, and B hears
 * LLP_CONNECTION_RESET rather than getting made-up bytes.
 */
static void test_close_flushed_lost(void)
{
    cl_setup(false);
    cl_ab.cut = true;
    cl_write(60000);
    cl_step(0);
    cl_modify(&cl_a, 3, QP_CLOSING, 0);
    cl_step(100);
    cl_flush_a();
    cl_step(0);
    CHECK_EQ(cl_ab.fins, 1);        /* lost as well */
    cl_ab.cut = false;
    cl_step(2000);
    CHECK_EQ(cl_ab.rsts, 1);
    CHECK_EQ(cl_aes(&cl_b, 4, AE_RESET), 1);
    CHECK_EQ(cl_aes(&cl_b, 4, AE_FIN_RCVD), 0);
    for (unsigned i = 0; i < 60000; i++) {
        if (((uint8_t *)fake_mem(&cl_b.dev.h, BUF_PA(1)))[i]) {
            CHECK(!"bytes placed");
            break;
        }
    }
    cl_destroy_a(false);
    cl_step(10);
    CHECK_EQ(cl_ab.rsts, 1);
    cl_down();
}

/*
 * A QP destroyed with its connection still open, the driver asking for
 * no RST (MODIFY_QP to ERROR without RESETCON, as after its close timer
 * or with the netdev down): the connection outlives the ERROR (nothing
 * sent, the peer not told yet), but DESTROY_QP resets it as TCP's ABORT
 * does, so the peer's QP hears LLP_CONNECTION_RESET instead of waiting
 * for a FIN for ever.
 */
static void test_destroy_open_resets(void)
{
    cl_setup(false);
    cl_write(3000);
    cl_step(10);
    CHECK(cl_written(3000));
    cl_modify(&cl_a, 3, QP_ERROR, 0);
    cl_step(10);
    CHECK_EQ(cl_ab.rsts + cl_ab.fins, 0);
    CHECK_EQ(cl_aes(&cl_b, 4, AE_RESET), 0);
    cl_destroy_a(false);
    cl_step(10);
    CHECK_EQ(cl_ab.rsts, 1);
    CHECK_EQ(cl_ab.fins, 0);
    CHECK_EQ(cl_aes(&cl_b, 4, AE_RESET), 1);
    cl_down();

    /* The same once A's FIN is out but B never answered (FIN-WAIT-2). */
    cl_setup(false);
    cl_modify(&cl_a, 3, QP_CLOSING, 0);
    cl_step(10);
    CHECK_EQ(cl_aes(&cl_b, 4, AE_FIN_RCVD), 1);
    cl_flush_a();
    cl_destroy_a(false);
    cl_step(10);
    CHECK_EQ(cl_ab.rsts, 1);
    CHECK_EQ(cl_aes(&cl_b, 4, AE_RESET), 1);
    cl_down();
}

/* Restore the one-device names for what follows. */
#define h (ifx.h)
#define c (ifx.c)

int main(void)
{
    RUN(test_send_write_read);
    RUN(test_remote_error);
    RUN(test_fault_qp_ae);
    RUN(test_user_flush);
    RUN(test_user_error_flush);
    RUN(test_gen_ae_only);
    RUN(test_reentry_cq_on_bar0);
    RUN(test_reentry_mmio_from_doorbell);
    RUN(test_xlate_fbo_wrap);
    RUN(test_read_of_bad_region);
    RUN(test_local_fence_after_done);
    RUN(test_sge_sum);
    RUN(test_write_source_unreadable);
    RUN(test_qp_memory);
    RUN(test_guest_error_rate_limit);
    RUN(test_dma_error_counted_once);
    RUN(test_fast_reg_remote);
    RUN(test_read_local_inv);
    RUN(test_sq_tail_shadow);
    RUN(test_rexmit_limit);
    RUN(test_rexmit_mr_gone);
    RUN(test_gather_stats);
    RUN(test_close_data_in_flight);
    RUN(test_close_zero_window);
    RUN(test_close_last_ack_lost);
    RUN(test_close_backed_up);
    RUN(test_close_flushed_in_flight);
    RUN(test_close_flushed_lost);
    RUN(test_destroy_open_resets);
    return CHECK_DONE();
}
