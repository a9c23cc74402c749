/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A device set up the way irdma sets it up, for unit tests and fuzzers:
 * AQ VSI with the PE filter and a MAC rule, CQP + CCQ, FPM committed, an
 * AEQ, CQ 3, ARP 1 = our own MAC, and two iWARP QPs (3 and 4) with an MR
 * each, connected to each other through the engine's loopback.  Helpers
 * post CQP, SQ and RQ WQEs as irdma and uk.c write them.
 */
#include "iwarp-fixture.h"
#include "rdma/defs.h"
#include <inttypes.h>
#include <stdio.h>

unsigned ifx_failures;

/* Set-up steps that must work: counted, so a test or fuzzer can tell. */
#define CHECK_EQ(a, b) do { \
    uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b); \
    if (a_ != b_) { \
        fprintf(stderr, "%s:%d: %s == 0x%" PRIx64 ", expected 0x%" PRIx64 "\n", \
                __FILE__, __LINE__, #a, a_, b_); \
        ifx_failures++; \
    } \
} while (0)

#define t ifx
#define h (t.h)
#define c (t.c)

/* One device talking to itself (engine loopback): its peer is itself. */
static IfxState ifx_default = {
    .mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 },
    .peer_mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 },
    .ip = OUR_IP, .peer_ip = OUR_IP,
};
IfxState *ifx_cur = &ifx_default;
#define our_mac ifx_mac


/* A register write, then what the host's main loop runs after it. */
void ifx_wr(uint32_t off, uint32_t val)
{
    e810_mmio_write(&c, off, val, 4);
    fake_host_run_bh(&h);
}

uint8_t *ifx_mem(uint64_t pa)
{
    return fake_mem(&h, pa);
}

uint64_t ifx_mem64(uint64_t pa)
{
    return ld64(ifx_mem(pa));
}

void ifx_set64(uint64_t pa, uint64_t v)
{
    st64(ifx_mem(pa), v);
}

static void ifx_post(const uint64_t q[8], uint64_t hdr)
{
    cqp_ring_post(&ifx_cur->cqp, q, hdr);
}

unsigned ifx_cqp(unsigned op, const uint64_t q[8], uint64_t hdr_extra)
{
    return cqp_ring_op(&ifx_cur->cqp, op, q, hdr_extra);
}

/* QP context for QP 3 + @i, connected to the other one. */
void ifx_qp_ctx(unsigned i, bool user)
{
    uint64_t x = QPCTX_PA(i);
    uint16_t lport = i ? 5000 : 40000, rport = i ? 40000 : 5000;
    uint32_t snd = i ? 700000 : 0xFFFFFF00u, rcv = i ? 0xFFFFFF00u : 700000;

    memset(ifx_mem(Q2_PA(i)), 0, 0x200);
    ifx_set64(x + 0, 1ull << 3);
    ifx_set64(x + 8, QSQ_PA(i));
    ifx_set64(x + 16, QRQ_PA(i));
    ifx_set64(x + 24, 64 | 2ull << 8 | 4ull << 12 | (uint64_t)lport << 32 |
          (uint64_t)rport << 48);
    ifx_set64(x + 32, ifx_cur->peer_ip);
    ifx_set64(x + 48, (uint64_t)(ifx_cur->mss ? ifx_cur->mss : 1460) << 16 |
              1ull << 48);
    ifx_set64(x + 56, 5ull << 28 | 2ull << 32 | 2ull << 40 | (uint64_t)PD << 48);
    ifx_set64(x + 80, snd | 0x3FFFCull << 32);
    ifx_set64(x + 88, rcv | 0x3FFFCull << 32);
    ifx_set64(x + 96, snd | (uint64_t)snd << 32);
    ifx_set64(x + 112, 0x3FFFFFFFull | 2920ull << 32);  /* ssthresh, cwnd */
    ifx_set64(x + 128, 8ull << 48 | 5ull << 57);        /* rexmit, RTOMIN */
    ifx_set64(x + 136, 3 | 3ull << 32);
    ifx_set64(x + 144, Q2_PA(i));
    ifx_set64(x + 152, mac_u64(our_mac) << 16);
    ifx_set64(x + 160, 16 | 1ull << 16 | 1ull << 20 | 1ull << 21 |
          (user ? 0 : 1ull << 25) | 1ull << 28);
    ifx_set64(x + 168, COMPCTX(i));
    ifx_set64(x + 184, ifx_cur->ip);
}

/* RoCE QP context (ctrl.c:irdma_sc_qp_setctx_roce_gen_2) for QP 3 + @i,
 * talking to QP 3 + (1 - i) of the peer with the defaults irdma writes. */
void ifx_qp_ctx_roce(unsigned i, bool user)
{
    uint64_t x = QPCTX_PA(i);
    uint32_t psn = ifx_cur->psn[i], epsn = ifx_cur->psn[1 - i];

    memset(ifx_mem(Q2_PA(i)), 0, 0x200);
    ifx_set64(x + 0, 1ull << 3);
    ifx_set64(x + 8, QSQ_PA(i));
    ifx_set64(x + 16, QRQ_PA(i));
    ifx_set64(x + 24, 64 | 2ull << 8 | 4ull << 12 |
              (uint64_t)(0xC000 + i) << 32 | 4791ull << 48);
    ifx_set64(x + 32, ifx_cur->peer_ip);
    ifx_set64(x + 48, (uint64_t)(ifx_cur->mss ? ifx_cur->mss : 1024) << 16 |
              1ull << 48);
    ifx_set64(x + 56, 0x1Eull << 20 | 0xFFFFull << 32 | (uint64_t)PD << 48);
    ifx_set64(x + 64, (3 + (1 - i)) | 0ull << 32);
    ifx_set64(x + 80, psn | 0xFFFFull << 32);
    ifx_set64(x + 88, epsn);
    ifx_set64(x + 96, psn | (uint64_t)psn << 32);
    ifx_set64(x + 112, 0x400ull << 32);
    ifx_set64(x + 128, 7ull << 48 | 7ull << 54 | 5ull << 57);
    ifx_set64(x + 136, 3 | 3ull << 32);
    ifx_set64(x + 152, mac_u64(our_mac) << 16);
    ifx_set64(x + 160, 16 | 1ull << 16 | 1ull << 20 | 1ull << 21 |
              (user ? 0 : 1ull << 24 | 1ull << 25));
    ifx_set64(x + 168, COMPCTX(i));
    ifx_set64(x + 184, ifx_cur->ip);
}

/*
 * The ILQ as irdma creates it (irdma_puda_create_rsrc): CQ 1, QP 1 (UDA)
 * with ILQ_NBUF receive buffers of ILQ_BUF bytes, and a SYN listener (quad
 * hash, APBVT) on ILQ_PORT: what the connection manager's traffic uses.
 */
static void ifx_setup_ilq(void)
{
    uint64_t q[8] = { 0 };

    memset(ifx_mem(ILQ_CQ_PA), 0, 32 * ILQ_NBUF * 4);
    q[0] = ILQ_NBUF * 4;
    q[1] = 0x1111;
    q[4] = ILQ_CQ_PA;
    q[5] = ILQ_CQ_SHADOW;
    CHECK_EQ(ifx_cqp(0x03, q, 1), 0);
    memset(ifx_mem(ILQ_CTX_PA), 0, 256);
    memset(ifx_mem(ILQ_SQ_PA), 0, 32 * ILQ_NBUF);
    ifx_set64(ILQ_CTX_PA + 8, ILQ_SQ_PA);
    ifx_set64(ILQ_CTX_PA + 16, ILQ_RQ_PA);
    ifx_set64(ILQ_CTX_PA + 24, 2ull << 8 | 2ull << 12);     /* 16 each */
    ifx_set64(ILQ_CTX_PA + 48, (uint64_t)ILQ_BUF << 16);
    ifx_set64(ILQ_CTX_PA + 136, 1 | 1ull << 32);
    ifx_set64(ILQ_CTX_PA + 160, 1ull << 25);
    ifx_set64(ILQ_CTX_PA + 168, 0xFFFF8880DEAD0001ull);
    puda_post_rq(&h, ILQ_RQ_PA, ILQ_BUFS, ILQ_NBUF, ILQ_BUF);
    memset(q, 0, sizeof(q));
    q[2] = ILQ_CTX_PA;
    CHECK_EQ(ifx_cqp(0x00, q, 1 | 2ull << 48 | 2ull << 60 | 1ull << 42), 0);
    memset(q, 0, sizeof(q));
    q[0] = mac_u64(our_mac);
    q[1] = 1ull << 32 | ILQ_PORT;
    q[6] = ifx_cur->ip;
    CHECK_EQ(ifx_cqp(0x25, q, 2ull << 42 | 1ull << 60 | 1ull << 61), 0);
    memset(q, 0, sizeof(q));
    q[2] = ILQ_PORT;
    CHECK_EQ(ifx_cqp(0x23, q, 1ull << 62), 0);
}

void ifx_setup(bool user)
{
    uint64_t q[8] = { 0 };
    uint16_t vsi;
    unsigned i;

    aq_test_init(&t);
    memcpy(c.mac, ifx_cur->mac, 6);     /* the port MAC of this device */
    CHECK_EQ(aq_add_pf_vsi(&t, 0, 1, true, &vsi), 0);
    CHECK_EQ(aq_add_mac_rule(&t, vsi, our_mac), 0);
    ifx_cur->vsi = vsi;
    cqp_ring_init(&ifx_cur->cqp, &h, &c, SQ_PA, CQP_SQ_SIZE, CCQ_PA,
                  CCQ_SIZE);
    ifx_cq3_head = 0;
    ifx_cq3_pol = 1;
    ifx_aeq_head = 0;
    ifx_aeq_pol = 1;
    memset(ifx_mem(CTX_PA), 0, 64);
    /* 64 WQEs, iWARP (1) or RoCEv2 (2) */
    ifx_set64(CTX_PA + 0, 5ull << 8 | (ifx_cur->roce ? 2u : 1u) << 3);
    ifx_set64(CTX_PA + 8, SQ_PA);
    ifx_set64(CTX_PA + 32, 1u << 16);
    ifx_wr(PFPE_CCQPHIGH, (uint32_t)(CTX_PA >> 32));
    ifx_wr(PFPE_CCQPLOW, (uint32_t)CTX_PA);
    q[4] = QUERY_PA;
    ifx_post(q, 0x20ull << 32);
    memset(ifx_mem(COMMIT_PA), 0, 208);
    ifx_set64(COMMIT_PA + 0, 64);
    ifx_set64(COMMIT_PA + 8, 128);
    ifx_set64(COMMIT_PA + 32, 16);
    ifx_set64(COMMIT_PA + 48, 256);
    ifx_set64(COMMIT_PA + 112, 4096);
    if (ifx_cur->roce || ifx_cur->nah) {
        /* address handles */
        ifx_set64(COMMIT_PA + 8 * E810_HMC_FSIAV,
                  ifx_cur->nah ? ifx_cur->nah : 64);
    }
    if (ifx_cur->roce) {
        /* multicast groups */
        ifx_set64(COMMIT_PA + 8 * E810_HMC_FSIMC,
                  ifx_cur->nmcg ? ifx_cur->nmcg : 64);
    }
    q[4] = COMMIT_PA;
    ifx_post(q, 0x21ull << 32 | 208);
    cqp_ring_create_ccq(&ifx_cur->cqp, CCQ_SHADOW, 0);
    /* AEQ */
    memset(q, 0, sizeof(q));
    memset(ifx_mem(AEQ_PA), 0, 16 * AEQ_SIZE);
    q[2] = AEQ_SIZE;
    q[4] = AEQ_PA;
    CHECK_EQ(ifx_cqp(0x19, q, 0), 0);
    /* CQ 3 for both QPs */
    memset(q, 0, sizeof(q));
    memset(ifx_mem(CQ3_PA), 0, 32 * CQ3_SIZE);
    q[0] = CQ3_SIZE;
    q[1] = 0x3333;
    q[4] = CQ3_PA;
    q[5] = CQ3_SHADOW;
    CHECK_EQ(ifx_cqp(0x03, q, 3), 0);
    /* ARP 1 = ourselves (loopback) */
    memset(q, 0, sizeof(q));
    q[2] = mac_u64(ifx_cur->peer_mac);
    CHECK_EQ(ifx_cqp(0x0f, q, 1 | 1ull << 42), 0);
    for (i = 0; i < 2; i++) {
        /* MR over BUF(i): 64 KiB, local write + remote read/write */
        memset(q, 0, sizeof(q));
        memset(ifx_mem(BUF_PA(i)), 0, 0x10000);
        q[0] = BUF_PA(i);                       /* VA = PA */
        q[1] = 0x10000 | (uint64_t)PD << 46;
        q[2] = STAG(i);
        q[4] = BUF_PA(i);
        CHECK_EQ(ifx_cqp(0x0a, q, 0xFull << 48 | 1ull << 53 | 1ull << 59), 0);
        /* QP 3 + i */
        if (ifx_cur->roce) {
            ifx_qp_ctx_roce(i, user);
        } else {
            ifx_qp_ctx(i, user);
        }
        memset(ifx_mem(QSQ_PA(i)), 0, 0x1000);
        memset(ifx_mem(QSHADOW_PA(i)), 0, 0x40);
        memset(q, 0, sizeof(q));
        q[2] = QPCTX_PA(i);
        q[5] = QSHADOW_PA(i);
        CHECK_EQ(ifx_cqp(0x00, q, (3 + i) |
                         (ifx_cur->roce ? 3ull : 1ull) << 48 | 1ull << 60), 0);
        ifx_qsq_head[i] = 0;
        ifx_qsq_pol[i] = 1;
        ifx_qrq_head[i] = 0;
        ifx_qrq_pol[i] = 1;
    }
    if (ifx_cur->roce) {
        /* INIT -> RTR (with the ARP index) -> RTS, as
         * verbs.c:irdma_modify_qp_roce() does. */
        for (i = 0; i < 2; i++) {
            memset(q, 0, sizeof(q));
            q[2] = QPCTX_PA(i);
            CHECK_EQ(ifx_cqp(0x01, q, (3 + i) | 3ull << 48 | 1ull << 59 |
                             4ull << 60), 0);
            CHECK_EQ(ifx_cqp(0x01, q, (3 + i) | 3ull << 48 | 2ull << 60), 0);
        }
        return;
    }
    for (i = 0; i < 2; i++) {
        memset(q, 0, sizeof(q));
        q[2] = QPCTX_PA(i);
        CHECK_EQ(ifx_cqp(0x01, q, (3 + i) | 1ull << 48 | 1ull << 43 |
                         (ifx_cur->no_conn ? 1ull : 2ull) << 60), 0);
    }
    ifx_setup_ilq();
}

void ifx_ud_ctx(uint64_t ctx, uint64_t sq, uint64_t rq, uint32_t qkey,
                unsigned cq, uint64_t comp)
{
    ifx_set64(ctx + 0, 1ull << 3);
    ifx_set64(ctx + 8, sq);
    ifx_set64(ctx + 16, rq);
    ifx_set64(ctx + 24, 64 | 2ull << 8 | 2ull << 12 | 0xC000ull << 32 |
              4791ull << 48);
    ifx_set64(ctx + 48, 1024ull << 16);
    ifx_set64(ctx + 56, 0xFFFFull << 32 | (uint64_t)PD << 48);
    ifx_set64(ctx + 64, (uint64_t)qkey << 32);
    ifx_set64(ctx + 136, cq | (uint64_t)cq << 32);
    ifx_set64(ctx + 168, comp);
}

void ifx_ud_create(unsigned qpn, uint64_t ctx, uint64_t shadow)
{
    uint64_t q[8] = { 0 };

    q[2] = ctx;
    q[5] = shadow;
    CHECK_EQ(ifx_cqp(0x00, q, qpn | 4ull << 48), 0);
    CHECK_EQ(ifx_cqp(0x01, q, qpn | 4ull << 48 | 4ull << 60), 0);
    CHECK_EQ(ifx_cqp(0x01, q, qpn | 4ull << 48 | 2ull << 60), 0);
}

void ifx_ud_qp(unsigned qpn, unsigned cq, uint64_t page, uint32_t qkey,
               uint64_t comp)
{
    memset(ifx_mem(page), 0, 0x1000);
    ifx_ud_ctx(page, page + IFX_UD_SQ, page + IFX_UD_RQ, qkey, cq, comp);
    ifx_set64(page + 152, mac_u64(our_mac) << 16);
    ifx_set64(page + 160, 1ull << 24 | 1ull << 25);
    ifx_set64(page + 184, ifx_cur->ip);
    ifx_ud_create(qpn, page, page + 0xE00);
}

unsigned ifx_mc_ah(unsigned ah, unsigned arp, const uint8_t *grp6,
                   uint32_t grp4)
{
    uint64_t q[8] = { 0 };

    q[0] = mac_u64(ifx_mac) << 16;
    q[1] = (uint64_t)PD << 48;
    q[2] = (uint64_t)arp << 48 | 64ull << 32;
    if (grp6) {
        q[5] = ldbe64(grp6);
        q[4] = ldbe64(grp6 + 8);
        q[7] = 0xFD00000000000000ull;
        q[6] = 1;
    } else {
        q[4] = grp4;
        q[6] = OUR_IP;
    }
    return ifx_cqp(0x1c, q, ah | CQPSQ_AH_DOLOOPBACKCHECK |
                   (grp6 ? 0 : CQPSQ_AH_IPV4VALID));
}

void ifx_teardown(void)
{
    aq_test_cleanup(&t);
}

void ifx_setup_roce_pair(IfxState *a, IfxState *b)
{
    a->roce = b->roce = true;
    a->psn[0] = b->psn[0] = 0x10;
    a->psn[1] = b->psn[1] = 0xFFFFFA;
    ifx_failures = 0;
    ifx_cur = a;
    ifx_setup(false);
    ifx_cur = b;
    ifx_setup(false);
}

void ifx_teardown_two(IfxState *a, IfxState *b)
{
    ifx_cur = a;
    ifx_teardown();
    ifx_cur = b;
    ifx_teardown();
}

/* Write an SQ WQE (quantum 0 from @q, header @hdr) to QP 3 + @i. */
unsigned ifx_sq_put(unsigned i, const uint64_t q[4], uint64_t hdr,
                    unsigned quanta, const uint8_t *extra)
{
    uint64_t pa = QSQ_PA(i) + 32ull * ifx_qsq_head[i];
    unsigned idx = ifx_qsq_head[i], k;

    for (k = 1; k < quanta; k++) {
        memcpy(ifx_mem(pa + 32 * k), extra + 32 * (k - 1), 32);
    }
    ifx_set64(pa, q[0]);
    ifx_set64(pa + 8, q[1]);
    ifx_set64(pa + 16, q[2]);
    ifx_set64(pa + 24, hdr | (uint64_t)ifx_qsq_pol[i] << 63);
    ifx_qsq_head[i] += quanta;
    if (ifx_qsq_head[i] >= QSQ_QUANTA) {
        ifx_qsq_head[i] -= QSQ_QUANTA;
        ifx_qsq_pol[i] ^= 1;
    }
    return idx;
}

unsigned ifx_sq_post(unsigned i, const uint64_t q[4], uint64_t hdr,
                     unsigned quanta, const uint8_t *extra)
{
    unsigned idx = ifx_sq_put(i, q, hdr, quanta, extra);

    ifx_wr(PFPE_WQEALLOC, 3 + i);
    return idx;
}

unsigned ifx_sq_op_put(unsigned i, unsigned op, uint64_t loc, uint32_t len,
                       uint64_t raddr, uint64_t flags)
{
    uint64_t q[4] = { loc, (uint64_t)len << 32 | STAG(i), raddr, 0 };

    return ifx_sq_put(i, q, (uint64_t)op << 32 | flags, 1, NULL);
}

unsigned ifx_sq_op(unsigned i, unsigned op, uint64_t loc, uint32_t len,
                   uint64_t raddr, uint64_t flags)
{
    unsigned idx = ifx_sq_op_put(i, op, loc, len, raddr, flags);

    ifx_wr(PFPE_WQEALLOC, 3 + i);
    return idx;
}

unsigned ifx_sq_inline50(unsigned i, uint64_t q0, uint64_t flags)
{
    uint64_t q[4] = { q0, 0x0706050403020100ull, 0, 0 };
    uint8_t inl[64] = { 0 };

    for (unsigned k = 0; k < 42; k++) {
        inl[k + (k / 31)] = (uint8_t)(0xA0 + k);    /* bytes 8..49 */
    }
    inl[31] = 0x80;                                 /* valid bytes */
    inl[63] = 0x80;
    return ifx_sq_post(i, q, 0x05ull << 32 | 1ull << 57 | 50ull << 48 | flags,
                       3, inl);
}

bool ifx_inline50_at(uint64_t pa)
{
    const uint8_t *m = ifx_mem(pa);

    for (unsigned k = 0; k < 50; k++) {
        if (m[k] != (k < 8 ? k : 0xA0 + k - 8)) {
            return false;
        }
    }
    return true;
}

unsigned ifx_read_2sge(uint64_t frag_valid)
{
    uint64_t q[4] = { BUF_PA(0) + 0x8000, 4000ull << 32 | STAG(0),
                      BUF_PA(1) + 0x6000, 0 };
    uint8_t frag[32] = { 0 };

    ifx_fill(BUF_PA(1) + 0x6000, 10000, 3);
    st64(frag, BUF_PA(0) + 0xA000);
    st64(frag + 8, 6000ull << 32 | STAG(0) | frag_valid);
    /* ADDFRAGCNT 1: 1 + 1 quanta */
    return ifx_sq_post(0, q, 0x01ull << 32 | 1ull << 62 | 1ull << 38 |
                       STAG(1), 2, frag);
}

bool ifx_read_2sge_done(unsigned idx)
{
    uint64_t cqe[4];

    return !memcmp(ifx_mem(BUF_PA(0) + 0x8000), ifx_mem(BUF_PA(1) + 0x6000),
                   4000) &&
           !memcmp(ifx_mem(BUF_PA(0) + 0xA000),
                   ifx_mem(BUF_PA(1) + 0x6000 + 4000), 6000) &&
           ifx_cqe_next(cqe) && ((cqe[3] >> 56) & 0x3F) == 0x01 &&
           ((cqe[3] >> 32) & 0x7FFF) == idx && !(cqe[3] & (1ull << 55)) &&
           !ifx_cqe_next(cqe);
}

void ifx_rq_post(unsigned i, uint64_t to, uint32_t len)
{
    uint64_t pa = QRQ_PA(i) + 32ull * ifx_qrq_head[i];

    ifx_set64(pa, to);
    ifx_set64(pa + 8, (uint64_t)len << 32 | STAG(i) | (uint64_t)ifx_qrq_pol[i] << 63);
    ifx_set64(pa + 16, 0);
    ifx_set64(pa + 24, (uint64_t)ifx_qrq_pol[i] << 63);
    if (++ifx_qrq_head[i] == QRQ_WQES) {
        ifx_qrq_head[i] = 0;
        ifx_qrq_pol[i] ^= 1;
    }
}

void ifx_run(void)
{
    for (int k = 0; k < 200; k++) {
        fake_host_advance(&h, 1000000);
    }
}

bool ifx_cqe_next(uint64_t cqe[4])
{
    uint64_t pa = CQ3_PA + 32ull * ifx_cq3_head;

    for (int i = 0; i < 4; i++) {
        cqe[i] = ifx_mem64(pa + 8 * i);
    }
    if ((cqe[3] >> 63) != ifx_cq3_pol) {
        return false;
    }
    if (++ifx_cq3_head == CQ3_SIZE) {
        ifx_cq3_head = 0;
        ifx_cq3_pol ^= 1;
    }
    return true;
}

unsigned ifx_ae_src;

bool ifx_aeqe_next(uint64_t *qw0, unsigned *qp, unsigned *code)
{
    uint64_t pa = AEQ_PA + 16ull * ifx_aeq_head;
    uint64_t q1 = ifx_mem64(pa + 8);

    if ((q1 >> 63) != ifx_aeq_pol) {
        return false;
    }
    *qw0 = ifx_mem64(pa);
    *qp = q1 & 0x3FFFF;
    *code = (q1 >> 34) & 0xFFF;
    ifx_ae_src = (q1 >> 50) & 0xF;
    if (++ifx_aeq_head == AEQ_SIZE) {
        ifx_aeq_head = 0;
        ifx_aeq_pol ^= 1;
    }
    ifx_wr(PFPE_AEQALLOC, 1);
    return true;
}

bool ifx_ae_seen(unsigned qpn, unsigned ae)
{
    uint64_t qw0;
    unsigned got_qp, got_code;
    bool seen = false;

    while (ifx_aeqe_next(&qw0, &got_qp, &got_code)) {
        seen |= got_qp == qpn && got_code == ae;
    }
    return seen;
}

void ifx_fill(uint64_t pa, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++) {
        ifx_mem(pa)[i] = (uint8_t)(seed + i * 13 + (i >> 7));
    }
}


void ifx_alloc_stag(uint32_t idx)
{
    uint64_t q[8] = { 0 };

    q[1] = (uint64_t)PD << 46;
    q[2] = (uint64_t)idx << 8;
    if (ifx_cqp(0x09, q, 1ull << 43 | 1ull << 44 | 1ull << 53)) {
        ifx_failures++;
    }
}

unsigned ifx_fast_reg_post(unsigned i, uint32_t stag, uint64_t va,
                           uint64_t len, uint64_t first_pa, unsigned lpbl,
                           uint32_t pble, unsigned rights)
{
    uint64_t q[4];

    q[0] = va;
    q[1] = (first_pa & 0x000FFFFFFFFFFFFFull) | ((pble >> 16) & 0xFFF);
    q[2] = len | (uint64_t)(pble & 0xFFFF) << 48;
    return ifx_sq_post(i, q, (stag & 0xFF) | (uint64_t)(stag >> 8) << 8 |
                       0x09ull << 32 | (uint64_t)lpbl << 44 |
                       (uint64_t)rights << 48 | 1ull << 53 | 1ull << 61 |
                       1ull << 62, 1, NULL);
}

unsigned ifx_local_inv_put(unsigned i, uint32_t stag)
{
    uint64_t q[4] = { 0, stag, 0, 0 };

    return ifx_sq_put(i, q, 0x0aull << 32 | 1ull << 62, 1, NULL);
}

bool ifx_sq_cqe_is(unsigned i, unsigned idx, unsigned op, unsigned status)
{
    uint64_t cqe[4];
    bool ok;

    if (!ifx_cqe_next(cqe)) {
        fprintf(stderr, "no CQE (wanted QP %u SQ WQE %u)\n", 3 + i, idx);
        return false;
    }
    ok = (cqe[3] & (1ull << 62)) && cqe[1] == COMPCTX(i) &&
         ((cqe[3] >> 32) & 0x7FFF) == idx && ((cqe[3] >> 56) & 0x3F) == op &&
         !!(cqe[3] & (1ull << 55)) == !!status &&
         (!status || (cqe[3] & 0xFFFF) == status);
    if (!ok) {
        fprintf(stderr, "CQE %016" PRIx64 " %016" PRIx64 " %016" PRIx64
                " %016" PRIx64 ", wanted QP %u SQ WQE %u op 0x%x status "
                "0x%x\n", cqe[0], cqe[1], cqe[2], cqe[3], 3 + i, idx, op,
                status);
    }
    return ok;
}
