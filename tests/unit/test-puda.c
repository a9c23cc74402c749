/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PUDA (ILQ/IEQ) and RDMA receive steering unit tests: ILQ transmit builds
 * Ethernet/IPv4/IPv6/TCP frames from an address handle (checksums checked
 * against an independent implementation) and completes on the ILQ CQ;
 * loopback goes through a zero-delay timer into the classifier; received
 * segments land in ILQ buffers at offset 40 with the gen2 CQE; steering
 * for listen / established / offloaded / APBVT / LAN; malformed frames and
 * WQEs are dropped and counted.
 */
#include "aq-util.h"
#include "cqp-util.h"
#include "check.h"

static AqTest t;
#define h (t.h)
#define c (t.c)

#define OUR_IP          0x0A000001u
#define PEER_IP         0x0A000002u

/* Guest memory above the admin queue (which ends at 0x4C0000). */
#define M(off)          (FAKE_MEM_BASE + 0x800000 + (off))
#define CEQ_PA          M(0x6000)
#define CQ1_PA          M(0x7000)
#define CQ1_SHADOW      M(0x8000)
#define QPCTX_PA        M(0x9000)
#define ILQ_SQ          M(0xA000)       /* 16 x 32 bytes */
#define ILQ_RQ          M(0xA200)       /* 16 x 32 bytes */
#define ILQ_SHADOW      M(0xA400)       /* SQ doorbell shadow area */
#define QP5CTX_PA       M(0xB000)
#define TXBUF_PA        M(0x10000)      /* 16 x 2 KiB */
#define RXBUF_PA        M(0x20000)      /* 16 x 1 KiB */
#define CQP_SQ_SIZE     16
#define CCQ_SIZE        64
#define CQ1_SIZE        64
#define PUDA_Q          16
#define PUDA_ENC        2               /* 4 << 2 = 16 */
#define RXBUF           1024
#define ILQ_COMPCTX     0xFFFF8880DEAD0001ull
#define CQ1_CTX         0xFFFF8880CAFE0000ull
#define CEQ_VEC         4

static CqpRing ring;
static unsigned cq1_head, cq1_pol;
static unsigned ilq_sq_head, ilq_sq_pol;

static uint32_t rd(uint32_t off)
{
    return e810_mmio_read(&c, off, 4);
}

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

/* ---- reference checksums (independent of the device code) ------------- */

/* TCP checksum of @tcp (its checksum field taken as 0). */
static uint16_t ref_tcp_csum(const uint8_t *ip, bool v6, const uint8_t *tcp,
                             size_t len)
{
    uint8_t ph[40], seg[2048];
    size_t phl;

    phl = ref_pseudo(ph, ip, v6, 6, len);
    memcpy(seg, tcp, len);
    seg[16] = seg[17] = 0;
    return ~ref_sum(ph, phl, seg, len);
}

/* ---- CQP plumbing (the driver's side) --------------------------------- */

static void post(const uint64_t q[8], uint64_t hdr)
{
    cqp_ring_post(&ring, q, hdr);
}

/* Post a CQP op and return its CCQE's error bit (0 = fine). */
static unsigned cqp(unsigned op, const uint64_t q[8], uint64_t hdr_extra)
{
    return cqp_ring_op(&ring, op, q, hdr_extra);
}

static void ah_add(unsigned idx, bool lpb, uint32_t src, uint32_t dst,
                   unsigned arp)
{
    uint64_t q[8] = { 0 };

    q[0] = mac_u64(aq_test_mac) << 16;
    q[1] = 0x10ull << 32;                   /* TC */
    q[2] = (uint64_t)arp << 48 | 0x40ull << 32;
    q[4] = dst;
    q[6] = src;
    CHECK_EQ(cqp(0x1c, q, idx | 1ull << 59 | (uint64_t)lpb << 62), 0);
}

static void ah6_add(unsigned idx, const uint32_t src[4], const uint32_t dst[4],
                    unsigned arp)
{
    uint64_t q[8] = { 0 };

    q[0] = mac_u64(aq_test_mac) << 16;
    q[2] = (uint64_t)arp << 48 | 0x40ull << 32 | 0x12345;
    q[5] = (uint64_t)dst[0] << 32 | dst[1];
    q[4] = (uint64_t)dst[2] << 32 | dst[3];
    q[7] = (uint64_t)src[0] << 32 | src[1];
    q[6] = (uint64_t)src[2] << 32 | src[3];
    CHECK_EQ(cqp(0x1c, q, idx), 0);
}

/* Quad hash entry: @type 1 established, 2 SYN; @add or delete. */
static void qhash(unsigned type, bool add, uint32_t lip, uint16_t lport,
                  uint32_t rip, uint16_t rport)
{
    uint64_t q[8] = { 0 };

    q[0] = mac_u64(aq_test_mac);
    q[1] = 1ull << 32 | (uint64_t)rport << 16 | lport;
    q[4] = rip;
    q[6] = lip;
    CHECK_EQ(cqp(0x25, q, (uint64_t)type << 42 | 1ull << 60 |
                 (uint64_t)add << 61), 0);
}

static void apbvt(uint16_t port, bool add)
{
    uint64_t q[8] = { 0 };

    q[2] = port;
    CHECK_EQ(cqp(0x23, q, (uint64_t)add << 62), 0);
}

/* Post RQ buffers [0, PUDA_Q) as irdma_puda_post_recvbuf(initial). */
static void ilq_post_rq(void)
{
    puda_post_rq(&h, ILQ_RQ, RXBUF_PA, PUDA_Q, RXBUF);
}

static uint16_t vsi_num;

static void setup_pe(bool pe)
{
    uint64_t q[8] = { 0 };

    aq_test_init(&t);
    CHECK_EQ(aq_add_pf_vsi(&t, 0, 1, pe, &vsi_num), 0);
    CHECK_EQ(aq_add_mac_rule(&t, vsi_num, aq_test_mac), 0);
    cqp_ring_init(&ring, &h, &c, SQ_PA, CQP_SQ_SIZE, CCQ_PA, CCQ_SIZE);
    cq1_head = 0;
    cq1_pol = 1;
    ilq_sq_head = 0;
    ilq_sq_pol = 0;
    /* CQP, iWARP */
    memset(mem(CTX_PA), 0, 64);
    set64(CTX_PA + 0, 3ull << 8 | 1 << 3);
    set64(CTX_PA + 8, SQ_PA);
    set64(CTX_PA + 32, 1u << 16);
    wr(PFPE_CCQPHIGH, (uint32_t)(CTX_PA >> 32));
    wr(PFPE_CCQPLOW, (uint32_t)CTX_PA);
    CHECK_EQ(rd(PFPE_CCQPSTATUS), PFPE_CCQPSTATUS_DONE);
    /* FPM: objects only, no SDs are needed for these tests. */
    q[4] = QUERY_PA;
    post(q, 0x20ull << 32);
    memset(mem(COMMIT_PA), 0, 208);
    set64(COMMIT_PA + 0, 64);           /* QP */
    set64(COMMIT_PA + 8, 128);          /* CQ */
    set64(COMMIT_PA + 32, 16);          /* ARP */
    set64(COMMIT_PA + 48, 256);         /* MR */
    set64(COMMIT_PA + 104, 16);         /* FSIAV (AH) */
    set64(COMMIT_PA + 112, 4096);       /* PBLE */
    q[4] = COMMIT_PA;
    post(q, 0x21ull << 32 | 208);
    /* CCQ (CQ 0) */
    cqp_ring_create_ccq(&ring, CCQ_SHADOW, 1ull << 49);
    CHECK_EQ(mem64(CCQ_PA + 24) >> 63, 1);
    /* CEQ 0 -> vector CEQ_VEC */
    memset(q, 0, sizeof(q));
    memset(mem(CEQ_PA), 0, 64 * 8);
    q[2] = 64;
    q[4] = CEQ_PA;
    CHECK_EQ(cqp(0x16, q, 0), 0);
    wr(GLINT_CEQCTL(0), E810_CTL_CAUSE_ENA | CEQ_VEC);
    wr(GLINT_DYN_CTL(CEQ_VEC), GLINT_DYN_CTL_INTENA);
    /* ILQ CQ 1 on CEQ 0, CEQE mask (like irdma_puda_cq_create) */
    memset(q, 0, sizeof(q));
    memset(mem(CQ1_PA), 0, 32 * CQ1_SIZE);
    q[0] = CQ1_SIZE;
    q[1] = CQ1_CTX;
    q[4] = CQ1_PA;
    q[5] = CQ1_SHADOW;
    CHECK_EQ(cqp(0x03, q, 1 | 1ull << 49 | 1ull << 48), 0);
    /* ILQ QP 1: UDA, RTS, context as irdma_puda_qp_setctx */
    memset(mem(QPCTX_PA), 0, 256);
    memset(mem(ILQ_SQ), 0, 32 * PUDA_Q);
    set64(QPCTX_PA + 8, ILQ_SQ);
    set64(QPCTX_PA + 16, ILQ_RQ);
    set64(QPCTX_PA + 24, PUDA_ENC << 8 | PUDA_ENC << 12);
    set64(QPCTX_PA + 48, (uint64_t)RXBUF << 16);
    set64(QPCTX_PA + 136, 1 | 1ull << 32);
    set64(QPCTX_PA + 160, 1ull << 25);
    set64(QPCTX_PA + 168, ILQ_COMPCTX);
    ilq_post_rq();
    memset(q, 0, sizeof(q));
    memset(mem(ILQ_SHADOW), 0, 64);
    q[2] = QPCTX_PA;
    q[5] = ILQ_SHADOW;
    CHECK_EQ(cqp(0x00, q, 1 | 2ull << 48 | 2ull << 60 | 1ull << 42), 0);
    CHECK(c.puda.q[0].active);
    CHECK_EQ(c.puda.q[0].sq_size, PUDA_Q);
    /* ARP 0 = peer, 1 = ourselves */
    memset(q, 0, sizeof(q));
    q[2] = mac_u64(aq_peer_mac);
    CHECK_EQ(cqp(0x0f, q, 0 | 1ull << 42), 0);
    q[2] = mac_u64(aq_test_mac);
    CHECK_EQ(cqp(0x0f, q, 1 | 1ull << 42), 0);
    ah_add(0, false, OUR_IP, PEER_IP, 0);
    ah_add(1, true, OUR_IP, OUR_IP, 1);
}

static void setup(void)
{
    setup_pe(true);
}

static void teardown(void)
{
    aq_test_cleanup(&t);
}

/* Arm CQ 1 for the next completion (irdma_uk_cq_request_notification). */
static void cq1_arm(void)
{
    set64(CQ1_SHADOW + 32, 1u << 14 | 1u << 15);
    wr(PFPE_CQARM, 1);
}

static bool cq1_next(uint64_t cqe[4])
{
    uint64_t pa = CQ1_PA + 32ull * cq1_head;

    for (int i = 0; i < 4; i++) {
        cqe[i] = mem64(pa + 8 * i);
    }
    if ((cqe[3] >> 63) != cq1_pol) {
        return false;
    }
    cq1_head = (cq1_head + 1) % CQ1_SIZE;
    if (cq1_head == 0) {
        cq1_pol ^= 1;
    }
    return true;
}

/* Write a TCP segment into Tx buffer @slot and post it as irdma_puda_send,
 * without the doorbell. */
static unsigned ilq_put(unsigned slot, const uint8_t *seg, unsigned len,
                        unsigned tcphlen, unsigned ah, unsigned op)
{
    uint64_t buf = TXBUF_PA + 2048ull * slot;
    uint64_t w = ILQ_SQ + 32ull * ilq_sq_head;
    unsigned idx = ilq_sq_head;

    memcpy(mem(buf), seg, len);
    if (ilq_sq_head == 0) {
        ilq_sq_pol ^= 1;
    }
    set64(w, buf);
    set64(w + 8, (uint64_t)len << 32 | (uint64_t)ilq_sq_pol << 63);
    set64(w + 16, 0);
    set64(w + 24, (uint64_t)op << 32 | (uint64_t)(tcphlen / 4) << 42 | ah |
          1ull << 62 | (uint64_t)ilq_sq_pol << 63);
    ilq_sq_head = (ilq_sq_head + 1) % PUDA_Q;
    return idx;
}

static unsigned ilq_send(unsigned slot, const uint8_t *seg, unsigned len,
                         unsigned tcphlen, unsigned ah, unsigned op)
{
    unsigned idx = ilq_put(slot, seg, len, tcphlen, ah, op);

    wr(PFPE_WQEALLOC, 1);
    return idx;
}

/* The doorbell decision of the 6.1/6.12 drivers (uk.c:irdma_uk_qp_post_wr):
 * ring only if the engine's SQ tail in the shadow area lies among the WQEs
 * posted since the last call.  Returns whether it rang. */
static unsigned ilq_initial;

static bool post_wr_6x(void)
{
    uint32_t tail = mem64(ILQ_SHADOW) & 0x7FFF, head = ilq_sq_head;
    bool ring = false;

    if (head != ilq_initial && head != tail) {
        if (head > ilq_initial) {
            ring = tail >= ilq_initial && tail < head;
        } else {
            ring = tail >= ilq_initial || tail < head;
        }
    }
    if (ring) {
        wr(PFPE_WQEALLOC, 1);
    }
    ilq_initial = head;
    return ring;
}

/* A TCP header (+ MSS option when SYN) and @plen payload bytes, checksum 0,
 * as the CM builds it. */
static unsigned mk_seg(uint8_t *s, uint16_t sport, uint16_t dport,
                       uint8_t flags, unsigned plen)
{
    unsigned hl = (flags & 0x02) ? 24 : 20;

    memset(s, 0, hl);
    stbe16(s, sport);
    stbe16(s + 2, dport);
    stbe32(s + 4, 0x11223344);
    stbe32(s + 8, (flags & 0x10) ? 0x55667788 : 0);
    s[12] = (hl / 4) << 4;
    s[13] = flags;
    stbe16(s + 14, 0xFFFF);
    if (hl == 24) {
        s[20] = 2;
        s[21] = 4;
        stbe16(s + 22, 1460);
    }
    for (unsigned i = 0; i < plen; i++) {
        s[hl + i] = (uint8_t)(i * 7 + 1);
    }
    return hl + plen;
}

/* A full IPv4 frame carrying @seg, correct checksums. */
static size_t mk_frame4(uint8_t *f, uint32_t src, uint32_t dst,
                        const uint8_t *seg, unsigned len)
{
    /* DF set, as a Linux TCP stack sends */
    uint8_t *tcp = ref_eth_ip4(f, aq_test_mac, aq_peer_mac, src, dst, 6, len,
                               0x4000);

    memcpy(tcp, seg, len);
    stbe16(tcp + 16, ref_tcp_csum(f + 14, false, tcp, len));
    return 34 + len;
}

static size_t mk_syn4(uint8_t *f, uint32_t src, uint16_t sport, uint32_t dst,
                      uint16_t dport, uint8_t flags, unsigned plen)
{
    uint8_t seg[1600];
    unsigned len = mk_seg(seg, sport, dport, flags, plen);

    return mk_frame4(f, src, dst, seg, len);
}

/* ---- tests ------------------------------------------------------------ */

static void test_ilq_tx(void)
{
    uint8_t seg[64];
    uint64_t cqe[4];
    const uint8_t *f, *ip, *tcp;
    unsigned len, idx, irqs;

    setup();
    cq1_arm();
    irqs = fake_irq_count(&h, CEQ_VEC);
    len = mk_seg(seg, 40000, 5000, 0x02, 0);
    idx = ilq_send(0, seg, len, 24, 0, 0x03);
    CHECK_EQ(h.nframes, 1);
    CHECK_EQ(c.puda.stats.tx_frames, 1);
    f = h.frames[0];
    CHECK_EQ(h.frame_len[0], 60);           /* 14 + 20 + 24, padded */
    CHECK(!memcmp(f, aq_peer_mac, 6));
    CHECK(!memcmp(f + 6, aq_test_mac, 6));
    CHECK_EQ(ldbe16(f + 12), 0x0800);
    ip = f + 14;
    CHECK_EQ(ip[0], 0x45);
    CHECK_EQ(ip[1], 0x10);
    CHECK_EQ(ldbe16(ip + 2), 44);
    CHECK_EQ(ldbe16(ip + 6), 0x4000);
    CHECK_EQ(ip[8], 0x40);
    CHECK_EQ(ip[9], 6);
    CHECK_EQ(ldbe32(ip + 12), OUR_IP);
    CHECK_EQ(ldbe32(ip + 16), PEER_IP);
    CHECK_EQ(ref_sum(ip, 20, NULL, 0), 0xFFFF);
    tcp = ip + 20;
    CHECK(!memcmp(tcp, seg, 16));
    CHECK(!memcmp(tcp + 18, seg + 18, len - 18));
    CHECK_EQ(ldbe16(tcp + 16), ref_tcp_csum(ip, false, tcp, len));
    /* SQ completion: SQ=1, index, op SEND, QP id, completion context. */
    CHECK(cq1_next(cqe));
    CHECK_EQ(cqe[1], ILQ_COMPCTX);
    CHECK_EQ((cqe[2] >> 32) & 0xFFFFFF, 1);
    CHECK_EQ((cqe[3] >> 32) & 0x7FFF, idx);
    CHECK_EQ((cqe[3] >> 62) & 1, 1);
    CHECK_EQ((cqe[3] >> 56) & 0x3F, 3);
    CHECK_EQ((cqe[3] >> 55) & 1, 0);
    /* Armed: one CEQE with the CQ context, one interrupt. */
    CHECK_EQ(mem64(CEQ_PA), 1ull << 63 | CQ1_CTX);
    CHECK_EQ(fake_irq_count(&h, CEQ_VEC), irqs + 1);
    /* A second doorbell without new WQEs sends nothing. */
    wr(PFPE_WQEALLOC, 1);
    CHECK_EQ(h.nframes, 1);
    /* Two WQEs, one doorbell; wrap the SQ ring (polarity flips). */
    for (unsigned i = 1; i < PUDA_Q + 3; i++) {
        ilq_send(i % 8, seg, len, 24, 0, 0x03);
    }
    CHECK_EQ(h.nframes, PUDA_Q + 3);
    CHECK_EQ(c.puda.q[0].sq_tail, 3);
    CHECK_EQ(c.puda.q[0].sq_pol, 0);
    for (unsigned i = 1; i < PUDA_Q + 3; i++) {
        CHECK(cq1_next(cqe));
        CHECK_EQ((cqe[3] >> 32) & 0x7FFF, i % PUDA_Q);
    }
    CHECK_EQ(h.guest_errors, 0);
    teardown();
}

/* 6.x drivers ring the SQ doorbell only when the shadow area says the
 * engine has run dry: the tail must follow every pass, wrap included. */
static void test_ilq_sq_tail_shadow(void)
{
    uint8_t seg[64];
    unsigned len, rings = 0, i;

    setup();
    ilq_initial = 0;
    CHECK_EQ(mem64(ILQ_SHADOW), 0);
    len = mk_seg(seg, 40000, 5000, 0x10, 8);
    for (i = 0; i < 2 * PUDA_Q + 5; i++) {
        ilq_put(i % 8, seg, len, 20, 0, 0x03);
        rings += post_wr_6x();
        CHECK_EQ(h.nframes, i + 1);
        CHECK_EQ(mem64(ILQ_SHADOW), ilq_sq_head);
    }
    CHECK_EQ(rings, 2 * PUDA_Q + 5);
    /* Two WQEs before one post: one doorbell sends both. */
    ilq_put(0, seg, len, 20, 0, 0x03);
    ilq_put(1, seg, len, 20, 0, 0x03);
    CHECK(post_wr_6x());
    CHECK_EQ(h.nframes, 2 * PUDA_Q + 7);
    CHECK_EQ(mem64(ILQ_SHADOW), ilq_sq_head);
    /* Nothing new: no doorbell, the tail stays. */
    CHECK(!post_wr_6x());
    CHECK_EQ(h.guest_errors, 0);
    teardown();
}

static void test_ilq_tx_ipv6_vlan(void)
{
    static const uint32_t src[4] = { 0xfd000000, 0, 0, 1 };
    static const uint32_t dst[4] = { 0xfd000000, 0, 0, 2 };
    uint8_t seg[64];
    uint64_t cqe[4];
    const uint8_t *f, *ip;
    unsigned len;

    setup();
    ah6_add(2, src, dst, 0);
    len = mk_seg(seg, 40000, 5000, 0x12, 8);
    ilq_send(0, seg, len, 20, 2, 0x03);
    CHECK_EQ(h.nframes, 1);
    f = h.frames[0];
    CHECK_EQ(ldbe16(f + 12), 0x86DD);
    ip = f + 14;
    CHECK_EQ(ip[0] >> 4, 6);
    CHECK_EQ(ldbe32(ip) & 0xFFFFF, 0x12345);
    CHECK_EQ(ldbe16(ip + 4), len);
    CHECK_EQ(ip[6], 6);
    CHECK_EQ(ip[7], 0x40);
    CHECK_EQ(ldbe32(ip + 8), 0xfd000000);
    CHECK_EQ(ldbe32(ip + 20), 1);
    CHECK_EQ(ldbe32(ip + 36), 2);
    CHECK_EQ(ldbe16(ip + 40 + 16), ref_tcp_csum(ip, true, ip + 40, len));
    CHECK(cq1_next(cqe));
    /* VLAN insertion from the AH. */
    {
        uint64_t q[8] = { 0 };

        q[0] = mac_u64(aq_test_mac) << 16;
        q[1] = 0x2005;                      /* PCP 1, VID 5 */
        q[2] = 0x40ull << 32;
        q[4] = PEER_IP;
        q[6] = OUR_IP;
        CHECK_EQ(cqp(0x1c, q, 3 | 1ull << 59 | 1ull << 60), 0);
    }
    ilq_send(1, seg, len, 20, 3, 0x03);
    CHECK_EQ(h.nframes, 2);
    f = h.frames[1];
    CHECK_EQ(ldbe16(f + 12), 0x8100);
    CHECK_EQ(ldbe16(f + 14), 0x2005);
    CHECK_EQ(ldbe16(f + 16), 0x0800);
    CHECK_EQ(ref_sum(f + 18, 20, NULL, 0), 0xFFFF);
    CHECK(cq1_next(cqe));
    teardown();
}

static void test_ilq_tx_bad(void)
{
    uint8_t seg[64];
    uint64_t cqe[4];
    unsigned len;

    setup();
    len = mk_seg(seg, 40000, 5000, 0x10, 0);
    /* No such AH: lost on the wire, completed normally. */
    ilq_send(0, seg, len, 20, 9, 0x03);
    CHECK_EQ(h.nframes, 0);
    CHECK_EQ(c.puda.stats.tx_dropped, 1);
    CHECK(cq1_next(cqe));
    CHECK_EQ((cqe[3] >> 55) & 1, 0);
    /* Wrong opcode, L4LEN beyond the length, length 0, huge length:
     * error completions, nothing sent. */
    ilq_send(0, seg, len, 20, 0, 0x00);
    ilq_send(0, seg, len, 40, 0, 0x03);
    ilq_send(0, seg, 0, 20, 0, 0x03);
    ilq_send(0, seg, len, 20, 0, 0x03);    /* a good one after them */
    CHECK_EQ(h.nframes, 1);
    for (int i = 0; i < 3; i++) {
        CHECK(cq1_next(cqe));
        CHECK_EQ((cqe[3] >> 55) & 1, 1);
        CHECK_EQ((cqe[3] >> 62) & 1, 1);
    }
    CHECK(cq1_next(cqe));
    CHECK_EQ((cqe[3] >> 55) & 1, 0);
    /* Length 1 GiB: refused before any DMA. */
    {
        uint64_t w = ILQ_SQ + 32ull * ilq_sq_head;

        if (ilq_sq_head == 0) {
            ilq_sq_pol ^= 1;
        }
        set64(w, TXBUF_PA);
        set64(w + 8, 0x40000000ull << 32 | (uint64_t)ilq_sq_pol << 63);
        set64(w + 24, 3ull << 32 | 5ull << 42 | 1ull << 62 |
              (uint64_t)ilq_sq_pol << 63);
        ilq_sq_head = (ilq_sq_head + 1) % PUDA_Q;
        wr(PFPE_WQEALLOC, 1);
    }
    CHECK(cq1_next(cqe));
    CHECK_EQ((cqe[3] >> 55) & 1, 1);
    CHECK_EQ(c.puda.stats.tx_bad_wqe, 4);
    CHECK_EQ(h.nframes, 1);
    /* Doorbell for QP 2 that does not exist: guest error, no crash. */
    wr(PFPE_WQEALLOC, 2);
    teardown();
}

/* Check RQ completion @cqe and buffer @i for an IPv4 segment @seg/@len. */
static void check_rx4(const uint64_t cqe[4], unsigned i, const uint8_t *frame,
                      unsigned seglen)
{
    const uint8_t *b = mem(RXBUF_PA + (uint64_t)RXBUF * i);

    CHECK_EQ(cqe[0] & 0xFFFFFFFF, 40 + seglen);
    CHECK_EQ(cqe[1], ILQ_COMPCTX);
    CHECK_EQ((cqe[2] >> 32) & 0xFFFFFF, 1);
    CHECK_EQ((cqe[3] >> 32) & 0x7FFF, i);
    CHECK_EQ((cqe[3] >> 62) & 1, 0);        /* RQ */
    CHECK_EQ((cqe[3] >> 53) & 1, 1);        /* IPv4 */
    CHECK_EQ((cqe[3] >> 55) & 1, 0);
    CHECK(!memcmp(b + 20, frame + 14, 20));
    CHECK(!memcmp(b + 40, frame + 34, seglen));
}

static void test_ilq_rx_and_loopback(void)
{
    uint8_t seg[64], f[2048];
    uint64_t cqe[4];
    unsigned len, irqs;
    size_t n;

    setup();
    /* Listener on 10.0.0.1:5000 */
    qhash(2, true, OUR_IP, 5000, 0, 0);
    apbvt(5000, true);
    cq1_arm();
    irqs = fake_irq_count(&h, CEQ_VEC);
    n = mk_syn4(f, PEER_IP, 40000, OUR_IP, 5000, 0x02, 0);
    e810_receive(&c, f, n);
    CHECK_EQ(c.puda.stats.rx_ilq, 1);
    CHECK(cq1_next(cqe));
    check_rx4(cqe, 0, f, 24);
    CHECK_EQ(fake_irq_count(&h, CEQ_VEC), irqs + 1);
    /* Ethernet padding is not part of the segment. */
    n = mk_syn4(f, PEER_IP, 40001, OUR_IP, 5000, 0x02, 0);
    memset(f + n, 0xEE, 8);
    e810_receive(&c, f, n + 8);
    CHECK(cq1_next(cqe));
    check_rx4(cqe, 1, f, 24);

    /* Loopback: a SYN from 10.0.0.1:40000 to our own listener, via AH 1.
     * Nothing on the wire; delivered from the timer, not the doorbell. */
    len = mk_seg(seg, 40002, 5000, 0x02, 0);
    ilq_send(0, seg, len, 24, 1, 0x03);
    CHECK_EQ(h.nframes, 0);
    CHECK(cq1_next(cqe));                   /* the SQ completion */
    CHECK_EQ((cqe[3] >> 62) & 1, 1);
    CHECK_EQ(c.puda.stats.rx_ilq, 2);
    fake_host_advance(&h, 0);
    CHECK_EQ(c.puda.stats.rx_ilq, 3);
    CHECK(cq1_next(cqe));
    CHECK_EQ((cqe[3] >> 62) & 1, 0);
    CHECK_EQ((cqe[3] >> 32) & 0x7FFF, 2);
    {
        const uint8_t *b = mem(RXBUF_PA + 2ull * RXBUF);

        CHECK_EQ(ldbe32(b + 20 + 12), OUR_IP);
        CHECK_EQ(ldbe32(b + 20 + 16), OUR_IP);
        CHECK_EQ(ldbe16(b + 40), 40002);
        CHECK_EQ(ref_sum(b + 20, 20, NULL, 0), 0xFFFF);
    }
    /* The same with the AH's loopback flag clear but our own MAC as the
     * ARP entry (the offloaded QPs' case). */
    ah_add(4, false, OUR_IP, OUR_IP, 1);
    len = mk_seg(seg, 40003, 5000, 0x02, 0);
    ilq_send(0, seg, len, 24, 4, 0x03);
    CHECK_EQ(h.nframes, 0);
    fake_host_advance(&h, 0);
    CHECK_EQ(c.puda.stats.rx_ilq, 4);

    /* RQ wrap: buffers are re-posted by flipping the valid bit in place. */
    while (cq1_next(cqe)) {
    }
    for (unsigned i = 4; i < PUDA_Q; i++) {
        n = mk_syn4(f, PEER_IP, 41000 + i, OUR_IP, 5000, 0x02, 0);
        e810_receive(&c, f, n);
    }
    CHECK_EQ(c.puda.stats.rx_ilq, PUDA_Q);
    n = mk_syn4(f, PEER_IP, 42000, OUR_IP, 5000, 0x02, 0);
    e810_receive(&c, f, n);                 /* ring is empty */
    CHECK_EQ(c.puda.stats.rx_no_buf, 1);
    set64(ILQ_RQ + 8, (uint64_t)RXBUF << 32);   /* putback of index 0 */
    set64(ILQ_RQ + 24, 0);
    e810_receive(&c, f, n);
    CHECK_EQ(c.puda.stats.rx_ilq, PUDA_Q + 1);
    CHECK_EQ(c.puda.q[0].rq_tail, 1);
    CHECK_EQ(c.puda.q[0].rq_pol, 0);
    CHECK_EQ(h.guest_errors, 0);
    teardown();
}

static void test_ilq_rx_ipv6(void)
{
    uint8_t f[256], seg[64];
    uint64_t cqe[4], q[8] = { 0 };
    unsigned len;
    uint8_t *ip = f + 14;
    const uint8_t *b;

    setup();
    b = mem(RXBUF_PA);
    /* SYN entry for fd00::1 port 6000 */
    q[0] = mac_u64(aq_test_mac);
    q[1] = 1ull << 32 | 6000;
    q[7] = 0xfd00000000000000ull;
    q[6] = 1;
    CHECK_EQ(cqp(0x25, q, 2ull << 42 | 1ull << 61), 0);
    len = mk_seg(seg, 40000, 6000, 0x02, 0);
    memcpy(f, aq_test_mac, 6);
    memcpy(f + 6, aq_peer_mac, 6);
    stbe16(f + 12, 0x86DD);
    memset(ip, 0, 40);
    stbe32(ip, 6u << 28);
    stbe16(ip + 4, len);
    ip[6] = 6;
    ip[7] = 64;
    stbe32(ip + 8, 0xfd000000);
    stbe32(ip + 20, 2);
    stbe32(ip + 24, 0xfd000000);
    stbe32(ip + 36, 1);
    memcpy(ip + 40, seg, len);
    stbe16(ip + 40 + 16, ref_tcp_csum(ip, true, ip + 40, len));
    e810_receive(&c, f, 54 + len);
    CHECK_EQ(c.puda.stats.rx_ilq, 1);
    CHECK(cq1_next(cqe));
    CHECK_EQ(cqe[0] & 0xFFFFFFFF, 40 + len);
    CHECK_EQ((cqe[3] >> 53) & 1, 0);        /* not IPv4 */
    CHECK(!memcmp(b, ip, 40 + len));
    /* Another address: not ours to take (no APBVT entry): LAN. */
    stbe32(ip + 36, 3);
    stbe16(ip + 40 + 16, ref_tcp_csum(ip, true, ip + 40, len));
    e810_receive(&c, f, 54 + len);
    CHECK_EQ(c.puda.stats.rx_ilq, 1);
    teardown();
}

/* An IPv4 TCP segment @sip:@sp -> @dip:@dp with @flags from the wire;
 * the ILQ then has taken @ilq segments and the APBVT dropped @apbvt. */
static void steer_expect(uint32_t sip, uint16_t sp, uint32_t dip, uint16_t dp,
                         uint8_t flags, uint64_t ilq, uint64_t apbvt)
{
    uint8_t f[2048];
    size_t n = mk_syn4(f, sip, sp, dip, dp, flags, 0);

    e810_receive(&c, f, n);
    CHECK_EQ(c.puda.stats.rx_ilq, ilq);
    CHECK_EQ(c.puda.stats.rx_apbvt_drop, apbvt);
}

static void test_steering(void)
{
    uint8_t f[2048];
    uint64_t q[8] = { 0 };
    size_t n;
    uint64_t lan_drops;

    setup();
    qhash(2, true, OUR_IP, 5000, 0, 0);
    apbvt(5000, true);
    apbvt(40000, true);
    /* Established loopback quad 10.0.0.1:40000 <-> 10.0.0.1:5000 (active
     * side), passive side 10.0.0.1:5000 <-> 10.0.0.1:40000. */
    qhash(1, true, OUR_IP, 40000, OUR_IP, 5000);

    /* Pure SYN to the listener -> ILQ */
    steer_expect(PEER_IP, 33333, OUR_IP, 5000, 0x02, 1, 0);
    /* ACK to the listener port without a quad -> dropped (APBVT) */
    steer_expect(PEER_IP, 33333, OUR_IP, 5000, 0x10, 1, 1);
    /* Established quad, all four elements -> ILQ */
    steer_expect(OUR_IP, 5000, OUR_IP, 40000, 0x12, 2, 1);
    /* Same ports, other remote address: not the quad -> APBVT drop */
    steer_expect(PEER_IP, 5000, OUR_IP, 40000, 0x12, 2, 2);
    /* The reverse direction of the loopback quad is a different entry:
     * 10.0.0.1:40000 -> 10.0.0.1:5000 is a pure SYN to the listener. */
    steer_expect(OUR_IP, 40000, OUR_IP, 5000, 0x02, 3, 2);
    /* Plain LAN traffic: other port -> LAN (dropped there: no Rx queue) */
    lan_drops = c.stats.rx_dropped;
    n = mk_syn4(f, PEER_IP, 33333, OUR_IP, 22, 0x02, 0);
    e810_receive(&c, f, n);
    CHECK_EQ(c.puda.stats.rx_ilq, 3);
    CHECK_EQ(c.stats.rx_dropped, lan_drops + 1);
    /* Not our MAC -> LAN */
    n = mk_syn4(f, PEER_IP, 33333, OUR_IP, 5000, 0x02, 0);
    f[5] ^= 1;
    e810_receive(&c, f, n);
    CHECK_EQ(c.puda.stats.rx_ilq, 3);
    /* UDP and ARP -> LAN */
    n = mk_syn4(f, PEER_IP, 33333, OUR_IP, 5000, 0x02, 0);
    f[14 + 9] = 17;
    e810_receive(&c, f, n);
    stbe16(f + 12, 0x0806);
    e810_receive(&c, f, n);
    CHECK_EQ(c.puda.stats.rx_ilq, 3);
    CHECK_EQ(c.stats.rx_dropped, lan_drops + 4);
    /* Delete the listener: SYN now dropped by APBVT; drop the port too:
     * LAN. */
    qhash(2, false, OUR_IP, 5000, 0, 0);
    n = mk_syn4(f, PEER_IP, 33333, OUR_IP, 5000, 0x02, 0);
    e810_receive(&c, f, n);
    CHECK_EQ(c.puda.stats.rx_apbvt_drop, 3);
    apbvt(5000, false);
    e810_receive(&c, f, n);
    CHECK_EQ(c.puda.stats.rx_apbvt_drop, 3);
    CHECK_EQ(c.stats.rx_dropped, lan_drops + 5);

    /* Offloaded QP 5 takes over the loopback quad at RTS (TOECTXVALID). */
    memset(mem(QP5CTX_PA), 0, 256);
    set64(QP5CTX_PA + 0, 1ull << 3);
    set64(QP5CTX_PA + 24, 40000ull << 32 | 5000ull << 48);
    set64(QP5CTX_PA + 32, OUR_IP);
    set64(QP5CTX_PA + 184, OUR_IP);
    set64(QP5CTX_PA + 168, 0x5555);
    q[2] = QP5CTX_PA;
    CHECK_EQ(cqp(0x00, q, 5 | 1ull << 48 | 1ull << 60), 0);
    CHECK(!e810_bit(c.puda.bound, 5));
    CHECK_EQ(cqp(0x01, q, 5 | 1ull << 48 | 1ull << 43 | 2ull << 60), 0);
    CHECK(e810_bit(c.puda.bound, 5));
    CHECK_EQ(c.puda.quad[5].lport, 40000);
    CHECK_EQ(c.puda.quad[5].rport, 5000);
    CHECK_EQ(ldbe32(c.puda.quad[5].lip), OUR_IP);
    /* The iWARP transport (iwarp/qp.c) owns the quad now and consumes it. */
    n = mk_syn4(f, OUR_IP, 5000, OUR_IP, 40000, 0x10, 0);
    e810_receive(&c, f, n);
    CHECK_EQ(c.puda.stats.rx_ilq, 3);
    CHECK_EQ(c.puda.stats.rx_iwarp, 1);
    /* The CM's ESTABLISHED quad hash entry was replaced by the QP (irdma
     * forgets it at RTS and never deletes it): the table has no entry for
     * the quad any more. */
    {
        unsigned live = 0;

        for (int i = 0; i < E810_RDMA_MAX_QHASH; i++) {
            live += c.rdma.qhash[i].valid && c.rdma.qhash[i].type == 1;
        }
        CHECK_EQ(live, 0);
    }
    /* Destroy: unbound; the quad is no longer steered to the ILQ. */
    CHECK_EQ(cqp(0x02, q, 5), 0);
    CHECK(!e810_bit(c.puda.bound, 5));
    e810_receive(&c, f, n);
    CHECK_EQ(c.puda.stats.rx_ilq, 3);

    /* RDMA steering is off without the VSI's PE filter. */
    teardown();
    setup_pe(false);
    qhash(2, true, OUR_IP, 5000, 0, 0);
    n = mk_syn4(f, PEER_IP, 33333, OUR_IP, 5000, 0x02, 0);
    e810_receive(&c, f, n);
    CHECK_EQ(c.puda.stats.rx_ilq, 0);
    teardown();
}

static void test_rx_malformed(void)
{
    uint8_t f[2048], g[2048];
    size_t n;

    setup();
    qhash(2, true, OUR_IP, 5000, 0, 0);
    apbvt(5000, true);
    n = mk_syn4(f, PEER_IP, 33333, OUR_IP, 5000, 0x02, 0);

    /* IPv4 options (IHL 6) */
    memcpy(g, f, 34);
    g[14] = 0x46;
    memset(g + 34, 1, 4);
    memcpy(g + 38, f + 34, n - 34);
    stbe16(g + 16, ldbe16(f + 16) + 4);
    e810_receive(&c, g, n + 4);
    CHECK_EQ(c.puda.stats.rx_malformed, 1);
    /* IPv4 total length beyond the frame */
    memcpy(g, f, n);
    stbe16(g + 16, 1500);
    e810_receive(&c, g, n);
    CHECK_EQ(c.puda.stats.rx_malformed, 2);
    /* Total length 0xFFFF */
    stbe16(g + 16, 0xFFFF);
    e810_receive(&c, g, n);
    CHECK_EQ(c.puda.stats.rx_malformed, 3);
    /* TCP data offset beyond the segment, and below 5 */
    memcpy(g, f, n);
    g[34 + 12] = 0xF0;
    e810_receive(&c, g, n);
    g[34 + 12] = 0x10;
    e810_receive(&c, g, n);
    CHECK_EQ(c.puda.stats.rx_malformed, 5);
    /* Truncated TCP header: IP length says 8 bytes of TCP */
    memcpy(g, f, n);
    stbe16(g + 16, 28);
    e810_receive(&c, g, 14 + 28);
    CHECK_EQ(c.puda.stats.rx_malformed, 6);
    /* Cut before the ports: the LAN's business, not counted here */
    e810_receive(&c, f, 14 + 20 + 2);
    CHECK_EQ(c.puda.stats.rx_malformed, 6);
    /* Bad TCP checksum, bad IP header checksum */
    memcpy(g, f, n);
    g[34 + 16] ^= 0x55;
    e810_receive(&c, g, n);
    memcpy(g, f, n);
    g[14 + 8] = 1;                          /* TTL changed, checksum not */
    e810_receive(&c, g, n);
    CHECK_EQ(c.puda.stats.rx_bad_csum, 2);
    /* Fits the frame but not the 1 KiB ILQ buffer: 40 + 24 + 980 */
    n = mk_syn4(g, PEER_IP, 33333, OUR_IP, 5000, 0x02, 980);
    e810_receive(&c, g, n);
    CHECK_EQ(c.puda.stats.rx_too_big, 1);
    /* Just fits: 40 + 24 + 960 = 1024 */
    n = mk_syn4(g, PEER_IP, 33333, OUR_IP, 5000, 0x02, 960);
    e810_receive(&c, g, n);
    CHECK_EQ(c.puda.stats.rx_ilq, 1);
    /* Short frames of every length up to the TCP header: no crash. */
    n = mk_syn4(f, PEER_IP, 33333, OUR_IP, 5000, 0x02, 0);
    for (size_t l = 0; l < n; l++) {
        e810_receive(&c, f, l);
    }
    CHECK_EQ(c.puda.stats.rx_ilq, 1);
    CHECK_EQ(h.guest_errors, 0);
    teardown();
}

/*
 * ILQ doorbells while the backend takes nothing: one frame goes to the
 * host (and blocks the device), the rest of the SQ waits however often
 * the guest rings; once the backend drains, the bottom half sends it.
 */
static void test_ilq_tx_backed_up(void)
{
    uint8_t seg[64];
    uint64_t cqe[4];
    unsigned len, i, n;

    setup();
    len = mk_seg(seg, 40000, 5000, 0x10, 0);
    h.tx_full = true;
    for (i = 0; i < 8; i++) {
        ilq_put(i, seg, len, 20, 0, 0x03);
    }
    for (i = 0; i < 200; i++) {
        wr(PFPE_WQEALLOC, 1);
    }
    fake_host_run_bh(&h);
    CHECK_EQ(h.nheld, 1);
    CHECK_EQ(c.txs.stats.queued_max, 1);
    CHECK_EQ(c.txs.stats.capped_queued, 0);
    CHECK_EQ(c.txs.stats.capped_entry, 0);
    CHECK_EQ(c.puda.stats.tx_frames, 1);
    h.tx_full = false;
    CHECK_EQ(fake_host_tx_release(&h, &c, FAKE_MAX_HELD), 1);
    fake_host_run_bh(&h);
    CHECK_EQ(h.nframes, 8);
    CHECK_EQ(c.puda.stats.tx_frames, 8);
    for (n = 0; cq1_next(cqe); n++) {
        CHECK_EQ((cqe[3] >> 32) & 0x7FFF, n);
        CHECK_EQ((cqe[3] >> 55) & 1, 0);
    }
    CHECK_EQ(n, 8);
    CHECK_EQ(h.guest_errors, 0);
    teardown();
}

int main(void)
{
    RUN(test_ilq_tx);
    RUN(test_ilq_tx_backed_up);
    RUN(test_ilq_sq_tail_shadow);
    RUN(test_ilq_tx_ipv6_vlan);
    RUN(test_ilq_tx_bad);
    RUN(test_ilq_rx_and_loopback);
    RUN(test_ilq_rx_ipv6);
    RUN(test_steering);
    RUN(test_rx_malformed);
    return CHECK_DONE();
}
