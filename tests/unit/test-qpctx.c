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

static void test_iwarp(void)
{
    uint64_t x[QW];
    E810QpCtx q;

    iwarp_ctx(x);
    e810_qpctx_decode(x, &q);
    CHECK(!q.ipv4);
    CHECK(q.insert_vlan);
    CHECK_EQ(q.rq_wqe_size, 1);
    CHECK_EQ(q.dupack_thresh, 5);
    CHECK_EQ(q.pd, 0x2BEEF);
    CHECK_EQ(q.sq_addr, 0x123456000ull);
    CHECK_EQ(q.rq_addr, 0x123457000ull);
    CHECK_EQ(q.sq_size_enc, 5);
    CHECK_EQ(q.rq_size_enc, 3);
    CHECK_EQ(q.ttl, 63);
    CHECK_EQ(q.tos, 0xB8);
    CHECK_EQ(q.src_port, 4791);
    CHECK_EQ(q.dst_port, 50000);
    CHECK(!memcmp(q.dest_ip, dip6_be, 16));
    CHECK(!memcmp(q.local_ip, lip6_be, 16));
    CHECK_EQ(q.mss, 1460);
    CHECK_EQ(q.vlan_tag, 0x2064);
    CHECK_EQ(q.arp_idx, 17);
    CHECK_EQ(q.rcv_wscale, 7);
    CHECK_EQ(q.snd_wscale, 9);
    CHECK_EQ(q.snd_nxt, 0x11111111);
    CHECK_EQ(q.snd_wnd, 0x22222222);
    CHECK_EQ(q.rcv_nxt, 0x33333333);
    CHECK_EQ(q.rcv_wnd, 0x3FFFC);
    CHECK_EQ(q.snd_una, 0x55555555);
    CHECK_EQ(q.ssthresh, 0x66666666);
    CHECK_EQ(q.cwnd, 0x77777777);
    CHECK_EQ(q.rexmit_thresh, 14);
    CHECK_EQ(q.rtomin_ms, 5);
    /* TXCQNUM is 24:0: a CQ id past 18 bits survives. */
    CHECK_EQ(q.txcq, 0x1ABCDE);
    CHECK_EQ(q.rxcq, 0x123456);
    CHECK_EQ(q.q2_addr, 0x987654300ull);
    CHECK(!memcmp(q.src_mac, smac, 6));
    CHECK_EQ(q.ord, 32);
    CHECK_EQ(q.ird, 64);
    CHECK(q.wr_ok);
    CHECK(!q.rd_ok);
    CHECK(q.priv);
    CHECK_EQ(q.comp_ctx, 0xFFFF888812345678ull);
}

/* irdma_sc_qp_setctx_roce_gen_2, IPv4 */
static void test_roce(void)
{
    uint64_t x[QW];
    E810QpCtx q;

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
    e810_qpctx_decode(x, &q);
    CHECK(q.ipv4);
    CHECK(!q.insert_vlan);
    CHECK_EQ(q.rq_wqe_size, 2);
    CHECK_EQ(q.pd, 0x10042);
    CHECK_EQ(q.sq_addr, 7);
    CHECK_EQ(q.rq_addr, 9);
    CHECK_EQ(q.sq_size_enc, 6);
    CHECK_EQ(q.rq_size_enc, 4);
    CHECK_EQ(q.ttl, 0);
    CHECK_EQ(q.tos, 0x02);
    CHECK_EQ(q.src_port, 0xC123);
    CHECK_EQ(q.dst_port, 4791);
    CHECK_EQ(ldbe32(q.dest_ip), 0xC0A80102);
    CHECK_EQ(ldbe32(q.dest_ip + 4), 0);
    CHECK_EQ(ldbe32(q.local_ip), 0xC0A80101);
    CHECK_EQ(q.mss, 4096);
    CHECK_EQ(q.vlan_tag, 0xE005);
    CHECK_EQ(q.arp_idx, 3);
    CHECK_EQ(q.pkey, 0xFFFF);
    CHECK_EQ(q.flow_label, 0x54321);
    CHECK_EQ(q.qkey, 0x11111111);
    CHECK_EQ(q.dest_qp, 0xABCDEF);
    CHECK_EQ(q.psn_nxt, 0x00FEDC);
    CHECK_EQ(q.epsn, 0x123ABC);
    CHECK_EQ(q.rnr_thresh, 7);
    CHECK_EQ(q.rexmit_thresh, 7);
    CHECK_EQ(q.txcq, 5);
    CHECK_EQ(q.rxcq, 6);
    CHECK(!memcmp(q.src_mac, smac, 6));
    CHECK_EQ(q.ord, 0);
    CHECK_EQ(q.ird, 256);
    CHECK(!q.wr_ok);
    CHECK(q.rd_ok);
    CHECK(!q.priv);
    CHECK_EQ(q.comp_ctx, 0x5A5A5A5A5A5A5A5Aull);
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
        CHECK_EQ(e810_qp_ctx_ird(x), t[i].ird);
    }
}

/* The rings: from the decoded context as from the words. */
static void test_rings(void)
{
    uint64_t x[QW];
    E810RdmaRing sq, rq, sq2, rq2;
    unsigned shift;
    E810QpCtx q;
    int vq;

    iwarp_ctx(x);
    e810_qpctx_decode(x, &q);
    for (vq = 0; vq < 2; vq++) {
        e810_qpctx_rings(&q, vq, &sq, &rq);
        e810_qp_ctx_rings(x, vq, &sq2, &rq2, &shift);
        CHECK_EQ(sq.size, 128);
        CHECK_EQ(rq.size, 32);
        CHECK_EQ(sq.virt, vq);
        CHECK_EQ(sq.pa, vq ? 0 : 0x123456000ull);
        CHECK_EQ(rq.pa, vq ? 0 : 0x123457000ull);
        CHECK_EQ(sq.pble_idx, vq ? 0x23456000u : 0);
        CHECK_EQ(rq.pble_idx, vq ? 0x23457000u : 0);
        CHECK(!memcmp(&sq, &sq2, sizeof(sq)));
        CHECK(!memcmp(&rq, &rq2, sizeof(rq)));
        CHECK_EQ(shift, 1);
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
