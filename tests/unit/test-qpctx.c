/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The QP host context decoder (rdma/qpctx.c) against contexts built the
 * way irdma builds them: ctrl.c:irdma_sc_qp_setctx (iWARP),
 * irdma_sc_qp_setctx_roce_gen_2 (RoCE), puda.c:irdma_puda_qp_setctx.
 * The bit ranges here are irdma's (defs.h GENMASK_ULL), written out
 * independently of rdma/defs.h so that a wrong name there shows.
 */
#include <string.h>

#include "rdma/rdma.h"
#include "rdma/qpctx.h"
#include "check.h"

#define QW  (E810_RDMA_QP_CTX_SIZE / 8)

/* FIELD_PREP of bits hi:lo. */
static uint64_t put(unsigned hi, unsigned lo, uint64_t v)
{
    uint64_t m = hi - lo == 63 ? ~0ull : (1ull << (hi - lo + 1)) - 1;

    return (v & m) << lo;
}

/* ether_addr_to_u64: byte 0 most significant of 48 bits. */
static uint64_t mac48(const uint8_t *m)
{
    uint64_t v = 0;
    int i;

    for (i = 0; i < 6; i++) {
        v = v << 8 | m[i];
    }
    return v;
}

static const uint8_t smac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
/* Address words as irdma holds them: word 0 most significant. */
static const uint32_t dip6[4] = { 0x20010db8, 0x11223344, 0x55667788,
                                  0x99aabbcc };
static const uint32_t lip6[4] = { 0xfe800000, 0x00000000, 0x02112233,
                                  0x44556677 };
static const uint8_t dip6_be[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x11, 0x22,
                                     0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
                                     0x99, 0xaa, 0xbb, 0xcc };
static const uint8_t lip6_be[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02,
                                     0x11, 0x22, 0x33, 0x44, 0x55, 0x66,
                                     0x77 };

/* IP words into qwords @hi (ADDR0 63:32, ADDR1 31:0), @lo (ADDR2, ADDR3). */
static void put_ip(uint64_t *hi, uint64_t *lo, const uint32_t *w)
{
    *hi = put(63, 32, w[0]) | put(31, 0, w[1]);
    *lo = put(63, 32, w[2]) | put(31, 0, w[3]);
}

/* irdma_sc_qp_setctx with iWARP and TCP info, IPv6 */
static void iwarp_ctx(uint64_t *x)
{
    memset(x, 0, QW * 8);
    x[0] = put(9, 8, 1) |               /* RQWQESIZE */
           put(1, 0, 1) |               /* DDP_VER */
           put(63, 62, 1) |             /* RDMAP_VER */
           put(21, 20, 2) |             /* PDIDXHI: pd 0x2BEEF >> 16 */
           put(4, 4, 1) |               /* NONAGLE */
           put(5, 5, 1) |               /* INSERTVLANTAG */
           put(18, 16, 5);              /* DUPACK_THRESH */
    x[1] = 0x123456000ull;              /* sq_pa */
    x[2] = 0x123457000ull;              /* rq_pa */
    x[3] = put(11, 8, 3) | put(15, 12, 5) |  /* RQSIZE, SQSIZE */
           put(7, 0, 63) | put(31, 24, 0xB8) |    /* TTL, TOS */
           put(47, 32, 4791) | put(63, 48, 50000); /* SRC, DESTPORTNUM */
    put_ip(&x[5], &x[4], dip6);
    x[6] = put(29, 16, 1460) | put(31, 30, 1) |   /* SNDMSS, SYN_RST */
           put(47, 32, 0x2064) | put(63, 48, 17); /* VLANTAG, ARPIDX */
    x[7] = put(63, 48, 0xBEEF) |        /* PDIDX */
           put(19, 0, 0xABCDE) | put(20, 20, 1) | /* FLOWLABEL, WSCALE */
           put(31, 28, 4) |             /* TCPSTATE */
           put(35, 32, 7) | put(43, 40, 9);       /* RCVSCALE, SNDSCALE */
    x[9] = 0xDEADBEEF00000001ull;       /* TIMESTAMP_* */
    x[10] = put(31, 0, 0x11111111) | put(63, 32, 0x22222222);
    x[11] = put(31, 0, 0x33333333) | put(63, 32, 0x3FFFC);
    x[12] = put(31, 0, 0x44444444) | put(63, 32, 0x55555555);
    x[13] = ~0ull;                      /* SRTT, RTTVAR */
    x[14] = put(31, 0, 0x66666666) | put(63, 32, 0x77777777);
    x[15] = ~0ull;                      /* SNDWL1, SNDWL2 */
    x[16] = put(31, 0, 0x12345) |       /* MAXSNDWND */
            put(53, 48, 14) | put(46, 32, 0x7FFF) | /* REXMIT, ERR_RQ_IDX */
            put(63, 57, 5);             /* RTOMIN */
    x[17] = put(24, 0, 0x1ABCDE) | put(56, 32, 0x123456);
    x[18] = put(63, 8, 0x9876543ull) | put(6, 0, 0x55); /* Q2ADDR, STAT */
    x[19] = mac48(smac) << 16 | put(7, 0, 0xAA);  /* LASTBYTESENT */
    x[20] = put(7, 0, 32) | put(18, 16, 2) |      /* ORDSIZE, IRDSIZE */
            put(20, 20, 1) | put(21, 21, 0) |     /* WRRDRSPOK, RDOK */
            put(22, 22, 1) | put(23, 23, 1) |     /* SNDMARKERS, BINDEN */
            put(24, 24, 1) | put(25, 25, 1) |     /* FASTREGEN, PRIVEN */
            put(28, 28, 1) | put(63, 32, ~0ull);  /* IWARPMODE, MARKOFFS */
    x[21] = 0xFFFF888812345678ull;      /* QPCOMPCTX */
    x[22] = put(25, 16, 0x3FF) | put(43, 32, 0xFFF);
    put_ip(&x[24], &x[23], lip6);
    x[25] = ~0ull;                      /* THIGH, TLOW */
    x[26] = put(16, 0, 0x1FFFF);        /* REMENDPOINTIDX */
}

/* Every field of @q as @want says. */
static void check_ctx(const E810QpCtx *q, const E810QpCtx *w)
{
    CHECK_EQ(q->pd, w->pd);
    CHECK_EQ(q->txcq, w->txcq);
    CHECK_EQ(q->rxcq, w->rxcq);
    CHECK_EQ(q->comp_ctx, w->comp_ctx);
    CHECK_EQ(q->sq_addr, w->sq_addr);
    CHECK_EQ(q->rq_addr, w->rq_addr);
    CHECK_EQ(q->sq_size_enc, w->sq_size_enc);
    CHECK_EQ(q->rq_size_enc, w->rq_size_enc);
    CHECK_EQ(q->rq_wqe_size, w->rq_wqe_size);
    CHECK_EQ(q->priv, w->priv);
    CHECK_EQ(q->rd_ok, w->rd_ok);
    CHECK_EQ(q->wr_ok, w->wr_ok);
    CHECK_EQ(q->ord, w->ord);
    CHECK_EQ(q->ird, w->ird);
    CHECK_EQ(q->rexmit_thresh, w->rexmit_thresh);
    CHECK_EQ(q->rtomin_ms, w->rtomin_ms);
    CHECK_EQ(q->ipv4, w->ipv4);
    CHECK_EQ(q->insert_vlan, w->insert_vlan);
    CHECK_EQ(q->vlan_tag, w->vlan_tag);
    CHECK_EQ(q->ttl, w->ttl);
    CHECK_EQ(q->tos, w->tos);
    CHECK_EQ(q->src_port, w->src_port);
    CHECK_EQ(q->dst_port, w->dst_port);
    CHECK_EQ(q->arp_idx, w->arp_idx);
    CHECK(!memcmp(q->src_mac, w->src_mac, sizeof(q->src_mac)));
    CHECK(!memcmp(q->dest_ip, w->dest_ip, sizeof(q->dest_ip)));
    CHECK(!memcmp(q->local_ip, w->local_ip, sizeof(q->local_ip)));
    CHECK_EQ(q->mss, w->mss);
    CHECK_EQ(q->dupack_thresh, w->dupack_thresh);
    CHECK_EQ(q->rcv_wscale, w->rcv_wscale);
    CHECK_EQ(q->snd_wscale, w->snd_wscale);
    CHECK_EQ(q->snd_nxt, w->snd_nxt);
    CHECK_EQ(q->snd_wnd, w->snd_wnd);
    CHECK_EQ(q->rcv_nxt, w->rcv_nxt);
    CHECK_EQ(q->rcv_wnd, w->rcv_wnd);
    CHECK_EQ(q->snd_una, w->snd_una);
    CHECK_EQ(q->ssthresh, w->ssthresh);
    CHECK_EQ(q->cwnd, w->cwnd);
    CHECK_EQ(q->q2_addr, w->q2_addr);
    CHECK_EQ(q->flow_label, w->flow_label);
    CHECK_EQ(q->pkey, w->pkey);
    CHECK_EQ(q->qkey, w->qkey);
    CHECK_EQ(q->dest_qp, w->dest_qp);
    CHECK_EQ(q->psn_nxt, w->psn_nxt);
    CHECK_EQ(q->epsn, w->epsn);
    CHECK_EQ(q->rnr_thresh, w->rnr_thresh);
}

static void test_iwarp(void)
{
    uint64_t x[QW];
    E810QpCtx q, w = {
        /* TXCQNUM is 24:0: a CQ id past 18 bits survives. */
        .pd = 0x2BEEF, .txcq = 0x1ABCDE, .rxcq = 0x123456,
        .comp_ctx = 0xFFFF888812345678ull,
        .sq_addr = 0x123456000ull, .rq_addr = 0x123457000ull,
        .sq_size_enc = 5, .rq_size_enc = 3, .rq_wqe_size = 1,
        .priv = true, .rd_ok = false, .wr_ok = true, .ord = 32, .ird = 64,
        .rexmit_thresh = 14, .rtomin_ms = 5,
        .ipv4 = false, .insert_vlan = true, .vlan_tag = 0x2064,
        .ttl = 63, .tos = 0xB8, .src_port = 4791, .dst_port = 50000,
        .arp_idx = 17, .mss = 1460,
        .dupack_thresh = 5, .rcv_wscale = 7, .snd_wscale = 9,
        .snd_nxt = 0x11111111, .snd_wnd = 0x22222222,
        .rcv_nxt = 0x33333333, .rcv_wnd = 0x3FFFC, .snd_una = 0x55555555,
        .ssthresh = 0x66666666, .cwnd = 0x77777777,
        .q2_addr = 0x987654300ull,
        /* What the RoCE fields read in an iWARP context. */
        .flow_label = 0xABCDE, .pkey = 0x0907, .qkey = 0,
        .dest_qp = 0, .psn_nxt = 0x111111, .epsn = 0x333333,
        .rnr_thresh = 0,
    };

    memcpy(w.src_mac, smac, 6);
    memcpy(w.dest_ip, dip6_be, 16);
    memcpy(w.local_ip, lip6_be, 16);
    iwarp_ctx(x);
    e810_qpctx_decode(x, &q);
    check_ctx(&q, &w);
}

/* irdma_sc_qp_setctx_roce_gen_2, IPv4 */
static void test_roce(void)
{
    uint64_t x[QW];
    E810QpCtx q, w = {
        .flow_label = 0x54321, .pkey = 0xFFFF, .qkey = 0x11111111,
        .dest_qp = 0xABCDEF, .psn_nxt = 0x00FEDC, .epsn = 0x123ABC,
        .rnr_thresh = 7, .rexmit_thresh = 7, .rtomin_ms = 2, .mss = 4096,
        .src_port = 0xC123, .dst_port = 4791, .ttl = 0, .tos = 0x02,
        .arp_idx = 3, .vlan_tag = 0xE005, .insert_vlan = false, .ipv4 = true,
        .pd = 0x10042, .txcq = 5, .rxcq = 6, .comp_ctx = 0x5A5A5A5A5A5A5A5Aull,
        .sq_addr = 7, .rq_addr = 9, .sq_size_enc = 6, .rq_size_enc = 4,
        .rq_wqe_size = 2, .ord = 0, .ird = 256, .priv = false, .rd_ok = true,
        .wr_ok = false,
        /* What the iWARP fields read in a RoCE context. */
        .rcv_wscale = 0xF, .snd_wscale = 0xF, .snd_nxt = 0xFEDC,
        .snd_wnd = 0xFFFFFF, .rcv_nxt = 0x123ABC, .snd_una = 2,
        .cwnd = 0xFFFFFF,
    };

    memset(x, 0, sizeof(x));
    x[0] = put(9, 8, 2) | put(21, 20, 1) |        /* RQWQESIZE, PDIDXHI */
           put(6, 6, 0) | put(63, 60, 1) |        /* ISQP1, ROCE_TVER */
           put(3, 3, 1);                          /* IPV4 */
    x[1] = 7;                           /* first PBLE index (VQ) */
    x[2] = 9;
    x[3] = put(11, 8, 4) | put(15, 12, 6) | put(7, 0, 0) |
           put(31, 24, 0x02) | put(47, 32, 0xC123) | put(63, 48, 4791);
    x[4] = put(31, 0, 0xC0A80102);      /* DESTIPADDR3 */
    x[6] = put(29, 16, 4096) | put(47, 32, 0xE005) | put(63, 48, 3);
    x[7] = put(47, 32, 0xFFFF) | put(63, 48, 0x0042) |  /* PKEY, PDIDX */
           put(24, 20, 0x1F) | put(19, 0, 0x54321);     /* ACKCREDITS, FL */
    x[8] = put(63, 32, 0x11111111) | put(23, 0, 0xABCDEF);
    x[10] = put(23, 0, 0x00FEDC) | put(55, 32, 0xFFFFFF); /* PSNNXT, LSN */
    x[11] = put(23, 0, 0x123ABC);       /* EPSN */
    x[12] = put(23, 0, 0x1) | put(55, 32, 0x2);  /* PSNMAX, PSNUNA */
    x[14] = put(55, 32, 0xFFFFFF);      /* CWNDROCE */
    x[16] = put(46, 32, 3) | put(56, 54, 7) | put(53, 48, 7) |
            put(63, 57, 2);
    x[17] = put(24, 0, 5) | put(56, 32, 6);
    x[18] = put(6, 0, 3);               /* STAT_INDEX */
    x[19] = mac48(smac) << 16;
    x[20] = put(7, 0, 0) | put(18, 16, 4) | put(20, 20, 0) |
            put(21, 21, 1) | put(26, 26, 1) | put(19, 19, 1) |
            put(25, 25, 0) | put(22, 22, 1) | put(31, 31, 0);
    x[21] = 0x5A5A5A5A5A5A5A5Aull;
    x[23] = put(31, 0, 0xC0A80101);     /* LOCAL_IPADDR3 */
    memcpy(w.src_mac, smac, 6);
    stbe32(w.dest_ip, 0xC0A80102);
    stbe32(w.local_ip, 0xC0A80101);
    e810_qpctx_decode(x, &q);
    check_ctx(&q, &w);
}

/* puda.c:irdma_puda_qp_setctx, decoded from the bytes in memory */
static void test_puda(void)
{
    uint64_t x[QW];
    uint8_t raw[E810_RDMA_QP_CTX_SIZE];
    E810QpCtx q;
    unsigned i;

    memset(x, 0, sizeof(x));
    x[1] = 0x40000;
    x[2] = 0x48000;
    x[3] = put(11, 8, 7) | put(15, 12, 8);
    x[6] = put(29, 16, 2048);
    x[17] = put(24, 0, 2) | put(56, 32, 2);
    x[18] = put(6, 0, 1);
    x[20] = put(25, 25, 1) | put(26, 26, 1);
    x[21] = 0xFFFF8888AAAA0000ull;
    for (i = 0; i < QW; i++) {
        st64(raw + 8 * i, x[i]);
    }
    e810_qpctx_decode_bytes(raw, &q);
    CHECK_EQ(q.sq_addr, 0x40000);
    CHECK_EQ(q.rq_addr, 0x48000);
    CHECK_EQ(q.sq_size_enc, 8);
    CHECK_EQ(q.rq_size_enc, 7);
    CHECK_EQ(q.mss, 2048);
    CHECK_EQ(q.txcq, 2);
    CHECK_EQ(q.rxcq, 2);
    CHECK(q.priv);
    CHECK_EQ(q.comp_ctx, 0xFFFF8888AAAA0000ull);
}

/* IRDSIZE as irdma_sc_get_encoded_ird_size writes it for each IRD. */
static void test_ird(void)
{
    static const struct {
        unsigned enc, ird;
    } t[] = { { 0, 4 }, { 1, 16 }, { 2, 64 }, { 3, 128 }, { 4, 256 } };
    uint64_t x[QW];
    E810QpCtx q;
    unsigned i;

    memset(x, 0, sizeof(x));
    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        x[20] = put(18, 16, t[i].enc);
        e810_qpctx_decode(x, &q);
        CHECK_EQ(q.ird, t[i].ird);
    }
}

/* The rings from the decoded context. */
static void test_rings(void)
{
    uint64_t x[QW];
    E810RdmaRing sq, rq;
    E810QpCtx q;
    int vq;

    iwarp_ctx(x);
    e810_qpctx_decode(x, &q);
    for (vq = 0; vq < 2; vq++) {
        e810_qpctx_rings(&q, vq, &sq, &rq);
        CHECK_EQ(sq.size, 128);
        CHECK_EQ(rq.size, 32);
        CHECK_EQ(sq.virt, vq);
        CHECK_EQ(sq.pa, vq ? 0 : 0x123456000ull);
        CHECK_EQ(rq.pa, vq ? 0 : 0x123457000ull);
        CHECK_EQ(sq.pble_idx, vq ? 0x23456000u : 0);
        CHECK_EQ(rq.pble_idx, vq ? 0x23457000u : 0);
        CHECK_EQ(q.rq_wqe_size, 1);
    }
}

int main(void)
{
    RUN(test_iwarp);
    RUN(test_roce);
    RUN(test_puda);
    RUN(test_ird);
    RUN(test_rings);
    return CHECK_DONE();
}
