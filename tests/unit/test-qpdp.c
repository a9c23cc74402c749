/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iWARP QP data path (rdma/qpdp.c) unit tests on one device: two
 * offloaded QPs connected to each other through the engine's loopback
 * (destination MAC = our own), driven the way irdma drives them: CQP ops
 * for MRs, CQs, the AEQ and the QPs (context as irdma_sc_qp_setctx()),
 * SQ WQEs as uk.c writes them and the WQEALLOC doorbell.  Checks Send,
 * inline Send, RDMA Write, RDMA Read, CQEs, remote access errors (AE),
 * graceful close (AEs), user-QP flush, fast registration (contiguous and
 * level-1 page lists, key rotation), local invalidate, Read with Local
 * Invalidate and Send with Invalidate.  Setup follows test-puda.c.
 */
#include "fake-host.h"
#include "aq-util.h"
#include "bytes.h"
#include "check.h"

static AqTest t;
static AqMsg m;
#define h (t.h)
#define c (t.c)

static const uint8_t our_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
#define OUR_IP          0x0A000001u

#define M(off)          (FAKE_MEM_BASE + 0x800000 + (off))
#define CTX_PA          M(0x0000)
#define SQ_PA           M(0x1000)
#define QUERY_PA        M(0x2000)
#define COMMIT_PA       M(0x3000)
#define CCQ_PA          M(0x4000)
#define CCQ_SHADOW      M(0x5000)
#define AEQ_PA          M(0x6000)
#define CQ3_PA          M(0x8000)
#define CQ3_SHADOW      M(0x8800)
#define Q2_PA(i)        M(0x9000 + 0x200 * (i))
#define QPCTX_PA(i)     (Q2_PA(i) + 0x100)
#define QSQ_PA(i)       M(0xA000 + 0x1000 * (i))
#define QRQ_PA(i)       (QSQ_PA(i) + 0x800)
#define BUF_PA(i)       M(0x10000 + 0x10000 * (i))
#define CQP_SQ_SIZE     64
#define CCQ_SIZE        64
#define CQ3_SIZE        256
#define AEQ_SIZE        64
#define QSQ_QUANTA      64              /* enc 4 */
#define QRQ_WQES        16              /* enc 2 */
#define PD              1
#define STAG(i)         ((uint32_t)(0x10 + (i)) << 8 | 0x5A)
#define COMPCTX(i)      (0xFFFF888000000000ull + (i))

static unsigned sq_head, sq_pol, ccq_head, ccq_pol, cq3_head, cq3_pol;
static unsigned aeq_head, aeq_pol;
static unsigned qsq_head[2], qsq_pol[2], qrq_head[2], qrq_pol[2];

static void wr(uint32_t off, uint32_t val)
{
    e810_mmio_write(&c, off, val, 4);
}

static uint8_t *mem(uint64_t pa)
{
    return fake_mem(&h, pa);
}

static uint64_t mem64(uint64_t pa)
{
    return ld64(mem(pa));
}

static void set64(uint64_t pa, uint64_t v)
{
    st64(mem(pa), v);
}

static void post(const uint64_t q[8], uint64_t hdr)
{
    uint64_t pa = SQ_PA + 64ull * sq_head;

    if (sq_head == 0) {
        sq_pol ^= 1;
    }
    for (int i = 0; i < 8; i++) {
        set64(pa + 8 * i, q ? q[i] : 0);
    }
    set64(pa + 24, hdr | (uint64_t)sq_pol << 63);
    sq_head = (sq_head + 1) % CQP_SQ_SIZE;
    wr(PFPE_CQPDB, sq_head);
}

static unsigned cqp(unsigned op, const uint64_t q[8], uint64_t hdr_extra)
{
    uint64_t pa = CCQ_PA + 32ull * ccq_head;
    unsigned err;

    post(q, (uint64_t)op << 32 | hdr_extra);
    if ((mem64(pa + 24) >> 63) != ccq_pol) {
        return 2;
    }
    err = (mem64(pa + 24) >> 55) & 1;
    ccq_head = (ccq_head + 1) % CCQ_SIZE;
    if (ccq_head == 0) {
        ccq_pol ^= 1;
    }
    return err;
}

static uint64_t mac_u64(const uint8_t *a)
{
    uint64_t v = 0;

    for (int i = 0; i < 6; i++) {
        v = v << 8 | a[i];
    }
    return v;
}

static int aq_vsi_add_pe(uint16_t *num)
{
    int rc;

    aq_msg_init(&m, 0x0210, 128, true);
    st16(m.desc + 22, 2);
    st16(m.buf, (1 << 0) | (1 << 1) | (1 << 2) | (1 << 6) | (1 << 7));
    m.buf[4] = 1 << 4;
    m.buf[12] = 3 | (3 << 3);
    st16(m.buf + 30, 0);
    st16(m.buf + 32, 1);
    st16(m.buf + 62, 2 << 11);
    m.buf[78] = 2;
    m.buf[80] = 1;                          /* PE filter enable */
    rc = aq_send(&t, &m);
    *num = ld16(m.desc + 16) & 0x3FF;
    return rc;
}

static int aq_mac_rule(uint16_t vsi, const uint8_t *da)
{
    uint8_t *r = m.buf;

    aq_msg_init(&m, 0x02A0, 32, true);
    st16(m.desc + 16, 1);
    st16(r, 1);
    st16(r + 4, 1);
    st16(r + 6, vsi);
    st32(r + 8, (uint32_t)vsi << 4 | 1u << 17 | 1u << 2 | 1u << 3);
    st16(r + 14, 16);
    memcpy(r + 16, da, 6);
    r[16 + 12] = 0x81;
    return aq_send(&t, &m);
}

/* QP context for QP 3 + @i, connected to the other one. */
static void qp_ctx(unsigned i, bool user)
{
    uint64_t x = QPCTX_PA(i);
    uint16_t lport = i ? 5000 : 40000, rport = i ? 40000 : 5000;
    uint32_t snd = i ? 700000 : 0xFFFFFF00u, rcv = i ? 0xFFFFFF00u : 700000;

    memset(mem(Q2_PA(i)), 0, 0x200);
    set64(x + 0, 1ull << 3);
    set64(x + 8, QSQ_PA(i));
    set64(x + 16, QRQ_PA(i));
    set64(x + 24, 64 | 2ull << 8 | 4ull << 12 | (uint64_t)lport << 32 |
          (uint64_t)rport << 48);
    set64(x + 32, OUR_IP);
    set64(x + 48, 1460ull << 16 | 1ull << 48);
    set64(x + 56, 5ull << 28 | 2ull << 32 | 2ull << 40 | (uint64_t)PD << 48);
    set64(x + 80, snd | 0x3FFFCull << 32);
    set64(x + 88, rcv | 0x3FFFCull << 32);
    set64(x + 96, snd | (uint64_t)snd << 32);
    set64(x + 128, 8ull << 48);
    set64(x + 136, 3 | 3ull << 32);
    set64(x + 144, Q2_PA(i));
    set64(x + 152, mac_u64(our_mac) << 16);
    set64(x + 160, 16 | 1ull << 16 | 1ull << 20 | 1ull << 21 |
          (user ? 0 : 1ull << 25) | 1ull << 28);
    set64(x + 168, COMPCTX(i));
    set64(x + 184, OUR_IP);
}

static void setup(bool user)
{
    uint64_t q[8] = { 0 };
    uint16_t vsi;
    unsigned i;

    aq_test_init(&t);
    CHECK_EQ(aq_vsi_add_pe(&vsi), 0);
    CHECK_EQ(aq_mac_rule(vsi, our_mac), 0);
    sq_head = 0;
    sq_pol = 0;
    ccq_head = 0;
    ccq_pol = 1;
    cq3_head = 0;
    cq3_pol = 1;
    aeq_head = 0;
    aeq_pol = 1;
    memset(mem(CTX_PA), 0, 64);
    set64(CTX_PA + 0, 5ull << 8 | 1 << 3);          /* 64 WQEs, iWARP */
    set64(CTX_PA + 8, SQ_PA);
    set64(CTX_PA + 32, 1u << 16);
    wr(PFPE_CCQPHIGH, (uint32_t)(CTX_PA >> 32));
    wr(PFPE_CCQPLOW, (uint32_t)CTX_PA);
    q[4] = QUERY_PA;
    post(q, 0x20ull << 32);
    memset(mem(COMMIT_PA), 0, 208);
    set64(COMMIT_PA + 0, 64);
    set64(COMMIT_PA + 8, 128);
    set64(COMMIT_PA + 32, 16);
    set64(COMMIT_PA + 48, 256);
    set64(COMMIT_PA + 112, 4096);
    q[4] = COMMIT_PA;
    post(q, 0x21ull << 32 | 208);
    memset(q, 0, sizeof(q));
    q[0] = CCQ_SIZE;
    q[4] = CCQ_PA;
    q[5] = CCQ_SHADOW;
    memset(mem(CCQ_PA), 0, 32 * CCQ_SIZE);
    post(q, 0x03ull << 32 | 1ull << 46);
    ccq_head = 1;
    /* AEQ */
    memset(q, 0, sizeof(q));
    memset(mem(AEQ_PA), 0, 16 * AEQ_SIZE);
    q[2] = AEQ_SIZE;
    q[4] = AEQ_PA;
    CHECK_EQ(cqp(0x19, q, 0), 0);
    /* CQ 3 for both QPs */
    memset(q, 0, sizeof(q));
    memset(mem(CQ3_PA), 0, 32 * CQ3_SIZE);
    q[0] = CQ3_SIZE;
    q[1] = 0x3333;
    q[4] = CQ3_PA;
    q[5] = CQ3_SHADOW;
    CHECK_EQ(cqp(0x03, q, 3), 0);
    /* ARP 1 = ourselves (loopback) */
    memset(q, 0, sizeof(q));
    q[2] = mac_u64(our_mac);
    CHECK_EQ(cqp(0x0f, q, 1 | 1ull << 42), 0);
    for (i = 0; i < 2; i++) {
        /* MR over BUF(i): 64 KiB, local write + remote read/write */
        memset(q, 0, sizeof(q));
        memset(mem(BUF_PA(i)), 0, 0x10000);
        q[0] = BUF_PA(i);                       /* VA = PA */
        q[1] = 0x10000 | (uint64_t)PD << 46;
        q[2] = STAG(i);
        q[4] = BUF_PA(i);
        CHECK_EQ(cqp(0x0a, q, 0xFull << 48 | 1ull << 53 | 1ull << 59), 0);
        /* QP 3 + i */
        qp_ctx(i, user);
        memset(mem(QSQ_PA(i)), 0, 0x1000);
        memset(q, 0, sizeof(q));
        q[2] = QPCTX_PA(i);
        CHECK_EQ(cqp(0x00, q, (3 + i) | 1ull << 48 | 1ull << 60), 0);
        qsq_head[i] = 0;
        qsq_pol[i] = 1;
        qrq_head[i] = 0;
        qrq_pol[i] = 1;
    }
    for (i = 0; i < 2; i++) {
        memset(q, 0, sizeof(q));
        q[2] = QPCTX_PA(i);
        CHECK_EQ(cqp(0x01, q, (3 + i) | 1ull << 48 | 1ull << 43 | 2ull << 60),
                 0);
    }
}

static void teardown(void)
{
    aq_test_cleanup(&t);
}

/* Write an SQ WQE (quantum 0 from @q, header @hdr) to QP 3 + @i. */
static unsigned sq_post(unsigned i, const uint64_t q[4], uint64_t hdr,
                        unsigned quanta, const uint8_t *extra)
{
    uint64_t pa = QSQ_PA(i) + 32ull * qsq_head[i];
    unsigned idx = qsq_head[i], k;

    for (k = 1; k < quanta; k++) {
        memcpy(mem(pa + 32 * k), extra + 32 * (k - 1), 32);
    }
    set64(pa, q[0]);
    set64(pa + 8, q[1]);
    set64(pa + 16, q[2]);
    set64(pa + 24, hdr | (uint64_t)qsq_pol[i] << 63);
    qsq_head[i] += quanta;
    if (qsq_head[i] >= QSQ_QUANTA) {
        qsq_head[i] -= QSQ_QUANTA;
        qsq_pol[i] ^= 1;
    }
    wr(PFPE_WQEALLOC, 3 + i);
    return idx;
}

static void rq_post(unsigned i, uint64_t to, uint32_t len)
{
    uint64_t pa = QRQ_PA(i) + 32ull * qrq_head[i];

    set64(pa, to);
    set64(pa + 8, (uint64_t)len << 32 | STAG(i) | (uint64_t)qrq_pol[i] << 63);
    set64(pa + 16, 0);
    set64(pa + 24, (uint64_t)qrq_pol[i] << 63);
    if (++qrq_head[i] == QRQ_WQES) {
        qrq_head[i] = 0;
        qrq_pol[i] ^= 1;
    }
}

static void run(void)
{
    for (int k = 0; k < 200; k++) {
        fake_host_advance(&h, 1000000);
    }
}

static bool cqe_next(uint64_t cqe[4])
{
    uint64_t pa = CQ3_PA + 32ull * cq3_head;

    for (int i = 0; i < 4; i++) {
        cqe[i] = mem64(pa + 8 * i);
    }
    if ((cqe[3] >> 63) != cq3_pol) {
        return false;
    }
    if (++cq3_head == CQ3_SIZE) {
        cq3_head = 0;
        cq3_pol ^= 1;
    }
    return true;
}

static bool aeqe_next(uint64_t *qw0, unsigned *qp, unsigned *code)
{
    uint64_t pa = AEQ_PA + 16ull * aeq_head;
    uint64_t q1 = mem64(pa + 8);

    if ((q1 >> 63) != aeq_pol) {
        return false;
    }
    *qw0 = mem64(pa);
    *qp = q1 & 0x3FFFF;
    *code = (q1 >> 34) & 0xFFF;
    if (++aeq_head == AEQ_SIZE) {
        aeq_head = 0;
        aeq_pol ^= 1;
    }
    wr(PFPE_AEQALLOC, 1);
    return true;
}

static void fill(uint64_t pa, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++) {
        mem(pa)[i] = (uint8_t)(seed + i * 13 + (i >> 7));
    }
}

static void test_send_write_read(void)
{
    uint64_t q[4], cqe[4], ctx;
    unsigned idx, qp, code, n;
    uint8_t inl[96];

    setup(false);
    /* Send 3000 bytes QP3 -> QP4 */
    fill(BUF_PA(0), 3000, 1);
    rq_post(1, BUF_PA(1) + 0x100, 4096);
    q[0] = BUF_PA(0);
    q[1] = 3000ull << 32 | STAG(0);
    q[2] = 0;
    idx = sq_post(0, q, 0x03ull << 32 | 1ull << 62, 1, NULL);
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
    q[0] = BUF_PA(0) + 0x1000;
    q[1] = 20000ull << 32 | STAG(0);
    q[2] = BUF_PA(1) + 0x2000;
    sq_post(0, q, 0x00ull << 32 | STAG(1), 1, NULL);
    for (unsigned k = 0; k < 50; k++) {
        inl[k < 8 ? k : 0] = 0;
    }
    rq_post(1, BUF_PA(1) + 0x8000, 100);
    memset(inl, 0, sizeof(inl));
    for (unsigned k = 0; k < 42; k++) {
        inl[k + (k / 31)] = (uint8_t)(0xA0 + k);    /* bytes 8..49 */
    }
    inl[31] = 0x80;                                 /* valid bytes */
    inl[63] = 0x80;
    q[0] = 0;
    q[1] = 0x0706050403020100ull;
    q[2] = 0;
    idx = sq_post(0, q, 0x05ull << 32 | 1ull << 62 | 1ull << 57 |
                  50ull << 48, 3, inl);
    run();
    CHECK(!memcmp(mem(BUF_PA(1) + 0x2000), mem(BUF_PA(0) + 0x1000), 20000));
    for (unsigned k = 0; k < 8; k++) {
        CHECK_EQ(mem(BUF_PA(1) + 0x8000)[k], k);
    }
    for (unsigned k = 0; k < 42; k++) {
        CHECK_EQ(mem(BUF_PA(1) + 0x8000)[8 + k], 0xA0 + k);
    }
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
    fill(BUF_PA(1) + 0x6000, 10000, 3);
    {
        uint8_t frag[32] = { 0 };

        st64(frag, BUF_PA(0) + 0xA000);
        st64(frag + 8, 6000ull << 32 | STAG(0) | 1ull << 63);
        q[0] = BUF_PA(0) + 0x8000;
        q[1] = 4000ull << 32 | STAG(0);
        q[2] = BUF_PA(1) + 0x6000;
        /* ADDFRAGCNT 1: 1 + 1 quanta */
        idx = sq_post(0, q, 0x01ull << 32 | 1ull << 62 | 1ull << 38 |
                      STAG(1), 2, frag);
    }
    run();
    CHECK(!memcmp(mem(BUF_PA(0) + 0x8000), mem(BUF_PA(1) + 0x6000), 4000));
    CHECK(!memcmp(mem(BUF_PA(0) + 0xA000), mem(BUF_PA(1) + 0x6000 + 4000),
                  6000));
    CHECK(cqe_next(cqe));
    CHECK_EQ((cqe[3] >> 56) & 0x3F, 0x01);
    CHECK_EQ((cqe[3] >> 32) & 0x7FFF, idx);
    CHECK(!(cqe[3] & (1ull << 55)));
    CHECK(!cqe_next(cqe));
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
    uint64_t q[4], ctx;
    unsigned qp, code;
    bool seen = false;

    setup(false);
    /* Write to an STag QP4 does not have: QP4 raises an AMP AE. */
    q[0] = BUF_PA(0);
    q[1] = 100ull << 32 | STAG(0);
    q[2] = 0;
    sq_post(0, q, 0x00ull << 32 | 0x777777u, 1, NULL);
    run();
    while (aeqe_next(&ctx, &qp, &code)) {
        if (qp == 4 && code == 0x0103) {
            seen = true;
        }
    }
    CHECK(seen);
    /* Send without a posted receive: no buffer. */
    teardown();
    setup(false);
    seen = false;
    q[1] = 10ull << 32 | STAG(0);
    sq_post(0, q, 0x03ull << 32, 1, NULL);
    run();
    while (aeqe_next(&ctx, &qp, &code)) {
        if (qp == 4 && code == 0x0306) {
            seen = true;
        }
    }
    CHECK(seen);
    /* Local protection error: bad lkey -> error CQE for the WQE. */
    {
        uint64_t cqe[4];

        q[1] = 10ull << 32 | 0x999999u;
        sq_post(0, q, 0x03ull << 32 | 1ull << 62, 1, NULL);
        run();
        CHECK(cqe_next(cqe));
        CHECK(cqe[3] & (1ull << 55));
        CHECK(cqe[3] & (1ull << 62));
    }
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

/* ALLOC_STAG (irdma_sc_alloc_stag): an STag with no mapping yet. */
static void alloc_stag(uint32_t idx)
{
    uint64_t q[8] = { 0 };

    q[1] = (uint64_t)PD << 46;
    q[2] = (uint64_t)idx << 8;
    CHECK_EQ(cqp(0x09, q, 1ull << 43 | 1ull << 44 | 1ull << 53), 0);
}

/* FAST_REGISTER WQE on QP 3 + @i as irdma_sc_mr_fast_register() writes it. */
static unsigned fast_reg_post(unsigned i, uint32_t stag, uint64_t va,
                              uint64_t len, uint64_t first_pa, unsigned lpbl,
                              uint32_t pble, unsigned rights)
{
    uint64_t q[4];

    q[0] = va;
    q[1] = (first_pa & 0x000FFFFFFFFFFFFFull) | ((pble >> 16) & 0xFFF);
    q[2] = len | (uint64_t)(pble & 0xFFFF) << 48;
    return sq_post(i, q, (stag & 0xFF) | (uint64_t)(stag >> 8) << 8 |
                   0x09ull << 32 | (uint64_t)lpbl << 44 |
                   (uint64_t)rights << 48 | 1ull << 53 | 1ull << 61 |
                   1ull << 62, 1, NULL);
}

/* The next CQE must be QP 3 + @i's SQ WQE @idx of opcode @op with
 * status @status (0: success). */
static void expect_sq_cqe(unsigned i, unsigned idx, unsigned op,
                          unsigned status)
{
    uint64_t cqe[4];

    CHECK(cqe_next(cqe));
    CHECK(cqe[3] & (1ull << 62));
    CHECK_EQ(cqe[1], COMPCTX(i));
    CHECK_EQ((cqe[3] >> 32) & 0x7FFF, idx);
    CHECK_EQ((cqe[3] >> 56) & 0x3F, op);
    CHECK_EQ(!!(cqe[3] & (1ull << 55)), !!status);
    if (status) {
        CHECK_EQ(cqe[3] & 0xFFFF, status);
    }
}

/* What nvme-rdma does on its host side: QP 4 fast-registers a region over
 * three scattered pages (level-1 PBL, VA based, first byte offset), the
 * peer writes and reads it, then invalidates it remotely with Send with
 * Invalidate; a later Write to it is an access error: an AE on QP 4 and
 * a TERMINATE on the wire (QP 3 gets TERMINATE_RCVD). */
static void test_fast_reg_remote(void)
{
    const uint64_t va = 0x7F0000000123ull;
    const uint32_t fr = FR_IDX(0) << 8 | 0x11;
    uint64_t pbl, q[4], cqe[4], ctx;
    unsigned idx, qp, code;
    bool ae4 = false, term3 = false;

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
    q[0] = BUF_PA(0);
    q[1] = 5000ull << 32 | STAG(0);
    q[2] = va + 0x800;
    sq_post(0, q, 0x00ull << 32 | fr, 1, NULL);
    run();
    CHECK(!memcmp(mem(PG(0) + 0x923), mem(BUF_PA(0)), 0x1000 - 0x923));
    CHECK(!memcmp(mem(PG(1)), mem(BUF_PA(0)) + 0x1000 - 0x923,
                  5000 - (0x1000 - 0x923)));
    CHECK(!cqe_next(cqe));

    /* Read 9000 bytes from VA + 0x10 (three pages) back. */
    fill(PG(2), 0x1000, 5);
    q[0] = BUF_PA(0) + 0x4000;
    q[1] = 9000ull << 32 | STAG(0);
    q[2] = va + 0x10;
    idx = sq_post(0, q, 0x01ull << 32 | 1ull << 62 | fr, 1, NULL);
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
    q[0] = BUF_PA(0);
    q[1] = 16ull << 32 | STAG(0);
    q[2] = 0;
    sq_post(0, q, 0x04ull << 32 | fr, 1, NULL);
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
    q[0] = BUF_PA(0);
    q[1] = 100ull << 32 | STAG(0);
    q[2] = va;
    sq_post(0, q, 0x00ull << 32 | fr, 1, NULL);
    run();
    while (aeqe_next(&ctx, &qp, &code)) {
        if (qp == 4 && code == 0x0103) {
            ae4 = true;
        }
    }
    CHECK(ae4);
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
    while (aeqe_next(&ctx, &qp, &code)) {
        if (qp == 3 && code == 0x0509) {
            term3 = true;
        }
    }
    CHECK(term3);
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
    bool seen = false;

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
    while (aeqe_next(&ctx, &qp, &code)) {
        if (qp == 3 && code == 0x010c) {
            seen = true;
        }
    }
    CHECK(seen);
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
    q[0] = BUF_PA(0);
    q[1] = 16ull << 32 | STAG(0);
    q[2] = 0;
    sq_post(0, q, 0x04ull << 32 | (FR_IDX(2) << 8 | 0x44), 1, NULL);
    run();
    seen = false;
    while (aeqe_next(&ctx, &qp, &code)) {
        if (qp == 4 && code == 0x0103) {
            seen = true;
        }
    }
    CHECK(seen);
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

int main(void)
{
    RUN(test_send_write_read);
    RUN(test_remote_error);
    RUN(test_user_flush);
    RUN(test_fast_reg_remote);
    RUN(test_read_local_inv);
    return CHECK_DONE();
}
