/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Core unit tests: LAN Tx (doorbell, gather, checksum offload, TSO, VLAN
 * insertion, descriptor-done write-back, interrupt) and LAN Rx (queue context
 * registers, steering, flex write-back, multi-buffer frames, drops), with
 * descriptors laid out as the ice driver writes them.
 */
#include "aq-util.h"
#include "net-util.h"
#include "check.h"

static AqTest t;
static AqMsg m;

/* Guest memory layout (above the admin queue's rings and buffers). */
#define TX_RING         (FAKE_MEM_BASE + 0x800000)
#define TX_BUFS         (FAKE_MEM_BASE + 0x900000)
#define RX_RING         (FAKE_MEM_BASE + 0xA00000)
#define RX_BUFS         (FAKE_MEM_BASE + 0xB00000)
#define TXQ             5
#define TX_QLEN         256
#define TX_VEC          3
#define RXQ_FIRST       4           /* VSI's queues start at PF queue 4 */
#define RX_QLEN         64
#define RX_BUF          2048
#define RX_VEC          7

static const uint8_t rss_key[40] = {
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
    0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
    0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
    0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

static uint32_t rd(uint32_t off)
{
    return e810_mmio_read(&t.c, off, 4);
}

static void wr(uint32_t off, uint32_t val)
{
    e810_mmio_write(&t.c, off, val, 4);
}

static uint8_t *mem(uint64_t addr)
{
    return fake_mem(&t.h, addr);
}

/* ---- reference algorithms (written independently of the device) ------- */

/* The L4 checksum of @l4 (checksum field at @coff treated as 0). */
static uint16_t ref_l4_csum(const uint8_t *ip, bool v6, uint8_t proto,
                            const uint8_t *l4, size_t len, unsigned coff)
{
    uint8_t ph[40], seg[16384];
    size_t phl;
    uint16_t s;

    phl = ref_pseudo(ph, ip, v6, proto, len);
    memcpy(seg, l4, len);
    seg[coff] = seg[coff + 1] = 0;
    s = ~ref_sum(ph, phl, seg, len);
    if (proto == 17 && s == 0) {
        s = 0xFFFF;
    }
    return s;
}

static bool ipv4_hdr_ok(const uint8_t *ip)
{
    return ref_sum(ip, (ip[0] & 0xF) * 4, NULL, 0) == 0xFFFF;
}

/* Toeplitz, bit by bit over the key as a long bit string. */
static uint32_t ref_toeplitz(const uint8_t *key, const uint8_t *in, size_t n)
{
    uint32_t h = 0;

    for (size_t bit = 0; bit < n * 8; bit++) {
        if (in[bit / 8] & (0x80 >> (bit % 8))) {
            uint32_t w = 0;

            for (unsigned k = 0; k < 32; k++) {
                size_t kb = bit + k;

                w = w << 1 | ((key[kb / 8] >> (7 - kb % 8)) & 1);
            }
            h ^= w;
        }
    }
    return h;
}

static uint32_t ref_crc32(const uint8_t *p, size_t len)
{
    uint32_t crc = 0xFFFFFFFFu;

    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++) {
            crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1));
        }
    }
    return ~crc;
}

/* ---- frame builders --------------------------------------------------- */

static size_t eth(uint8_t *f, const uint8_t *dst, const uint8_t *src,
                  uint16_t type)
{
    memcpy(f, dst, 6);
    memcpy(f + 6, src, 6);
    stbe16(f + 12, type);
    return 14;
}

static void fill_payload(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)(i * 7 + seed + (i >> 8));
    }
}

/*
 * Ethernet + IPv4/IPv6 + TCP/UDP with @plen bytes of payload.  With
 * @seed_len < 0 the L4 checksum is final (as on the wire); otherwise it
 * holds the pseudo-header seed the stack leaves for the device, including
 * the length @seed_len (0 for TSO, where the device adds it).
 */
static size_t build(uint8_t *f, const uint8_t *dst, bool v6, uint8_t proto,
                    size_t plen, long seed_len)
{
    size_t l3 = eth(f, dst, aq_peer_mac, v6 ? 0x86DD : 0x0800);
    uint8_t *ip = f + l3;
    size_t iplen = v6 ? 40 : 20;
    uint8_t *l4 = ip + iplen;
    size_t l4h = proto == 6 ? 20 : 8;
    size_t l4len = l4h + plen;
    unsigned coff = proto == 6 ? 16 : 6;

    memset(ip, 0, iplen + l4h);
    if (v6) {
        ip[0] = 0x60;
        stbe16(ip + 4, l4len);
        ip[6] = proto;
        ip[7] = 64;
        ip[8] = 0xfd;
        ip[23] = 1;
        ip[24] = 0xfd;
        ip[39] = 2;
    } else {
        ip[0] = 0x45;
        stbe16(ip + 2, iplen + l4len);
        stbe16(ip + 4, 0x1234);
        ip[6] = 0x40;                       /* DF */
        ip[8] = 64;
        ip[9] = proto;
        ip[12] = 10, ip[15] = 1;
        ip[16] = 10, ip[19] = 2;
        stbe16(ip + 10, ~ref_sum(ip, 20, NULL, 0));
    }
    stbe16(l4, 40000);
    stbe16(l4 + 2, 5001);
    if (proto == 6) {
        stbe32(l4 + 4, 0x10000000);
        stbe32(l4 + 8, 0x20000000);
        l4[12] = 5 << 4;
        l4[13] = 0x18 | 0x01;               /* PSH ACK FIN */
        stbe16(l4 + 14, 512);
    } else {
        stbe16(l4 + 4, l4len);
    }
    fill_payload(l4 + l4h, plen, proto);
    if (seed_len < 0) {
        stbe16(l4 + coff, ref_l4_csum(ip, v6, proto, l4, l4len, coff));
    } else {
        /* ~csum of the pseudo-header, stored uncomplemented (the seed). */
        uint8_t ph[40];
        size_t phl = ref_pseudo(ph, ip, v6, proto, seed_len);

        stbe16(l4 + coff, ref_sum(ph, phl, NULL, 0));
    }
    return l3 + iplen + l4len;
}

/* ---- Tx helpers ------------------------------------------------------- */

static void tx_setup(void)
{
    E810TxQueueCtx *q = &t.c.fw.sched.txq[TXQ];

    aq_test_init(&t);
    /* A queue as Add Tx LAN Queues leaves it (fw_sched has its own tests). */
    q->enabled = true;
    q->gen++;
    q->base = TX_RING;
    q->qlen = TX_QLEN;
    q->src_vsi = 0;
    wr(QINT_TQCTL(TXQ), E810_CTL_CAUSE_ENA | TX_VEC);
    wr(GLINT_DYN_CTL(TX_VEC), GLINT_DYN_CTL_INTENA);
}

static void txd_data(unsigned idx, uint64_t addr, unsigned size, unsigned cmd,
                     uint32_t offs, uint16_t l2tag1)
{
    uint8_t *d = mem(TX_RING + idx * 16);

    st64(d, addr);
    st64(d + 8, E810_TXD_DTYPE_DATA | (uint64_t)cmd << E810_TXD_CMD_S |
         (uint64_t)offs << E810_TXD_OFF_S |
         (uint64_t)size << E810_TXD_BUF_SZ_S |
         (uint64_t)l2tag1 << E810_TXD_L2TAG1_S);
}

static void txd_ctx(unsigned idx, uint32_t tunnel, uint16_t l2tag2,
                    unsigned cmd, uint32_t tso_len, uint32_t mss)
{
    uint8_t *d = mem(TX_RING + idx * 16);

    st64(d, tunnel | (uint64_t)l2tag2 << 32);
    st64(d + 8, E810_TXD_DTYPE_CTX | (uint64_t)cmd << E810_TXCD_CMD_S |
         (uint64_t)tso_len << E810_TXCD_TSO_LEN_S |
         (uint64_t)mss << E810_TXCD_MSS_S);
}

static unsigned txd_dtype(unsigned idx)
{
    return ld64(mem(TX_RING + idx * 16 + 8)) & 0xF;
}

static uint32_t offsets(unsigned maclen, unsigned iplen, unsigned l4len)
{
    return maclen / 2 | (iplen / 4) << 7 | (l4len / 4) << 14;
}

#define EOP_RS  (E810_TXD_CMD_EOP | E810_TXD_CMD_RS)

/* ---- Tx tests --------------------------------------------------------- */

static void test_tx_single(void)
{
    uint8_t f[64];
    size_t n;

    tx_setup();
    CHECK(t.c.fw.phy.up);
    n = eth(f, aq_peer_mac, aq_test_mac, 0x0806);
    memset(f + n, 0xa5, 28);
    n += 28;
    memcpy(mem(TX_BUFS), f, n);
    txd_data(0, TX_BUFS, n, EOP_RS, 0, 0);
    wr(QTX_COMM_DBELL(TXQ), 1);

    CHECK_EQ(t.h.nframes, 1);
    CHECK_EQ(t.h.frame_len[0], 60);             /* padded by the MAC */
    CHECK(!memcmp(t.h.frames[0], f, n));
    CHECK_EQ(t.h.frames[0][59], 0);
    CHECK_EQ(txd_dtype(0), E810_TXD_DTYPE_DONE);
    CHECK_EQ(rd(QTX_COMM_HEAD(TXQ)) & QTX_COMM_HEAD_HEAD_M, 1);
    CHECK_EQ(fake_irq_count(&t.h, TX_VEC), 1);
    CHECK_EQ(t.c.stats.tx_frames, 1);

    /* A second packet continues at the device's head and wraps the ring. */
    t.c.lan.txq[TXQ].head = TX_QLEN - 1;
    txd_data(TX_QLEN - 1, TX_BUFS, n, E810_TXD_CMD_RS, 0, 0);
    txd_data(0, TX_BUFS + 100, n, EOP_RS, 0, 0);
    memcpy(mem(TX_BUFS + 100), f, n);
    wr(GLINT_DYN_CTL(TX_VEC), GLINT_DYN_CTL_INTENA);
    wr(QTX_COMM_DBELL(TXQ), 1);
    CHECK_EQ(t.h.nframes, 2);
    CHECK_EQ(t.h.frame_len[1], 2 * n);
    CHECK(!memcmp(t.h.frames[1], f, n));
    CHECK(!memcmp(t.h.frames[1] + n, f, n));
    CHECK_EQ(txd_dtype(TX_QLEN - 1), E810_TXD_DTYPE_DONE);
    CHECK_EQ(txd_dtype(0), E810_TXD_DTYPE_DONE);
    CHECK_EQ(fake_irq_count(&t.h, TX_VEC), 2);
    aq_test_cleanup(&t);
}

/*
 * A backend that cannot take more (a stuck peer, a lone hub port): LAN
 * frames take no part in the back-pressure -- the ring goes on to its
 * tail and completes, the host keeps (or drops) what it cannot send, and
 * nothing waits for it (ice's Tx watchdog never sees a hung queue).
 */
static void test_tx_backend_full(void)
{
    uint8_t f[60];
    size_t n = eth(f, aq_peer_mac, aq_test_mac, 0x0806);

    tx_setup();
    for (unsigned i = 0; i < 4; i++) {
        memset(f + n, i, sizeof(f) - n);
        memcpy(mem(TX_BUFS + 0x100 * i), f, sizeof(f));
        txd_data(i, TX_BUFS + 0x100 * i, sizeof(f), EOP_RS, 0, 0);
    }
    t.h.tx_full = true;
    wr(QTX_COMM_DBELL(TXQ), 4);
    CHECK_EQ(t.h.nheld, 4);
    CHECK(!t.c.txs.blocked);
    CHECK_EQ(rd(QTX_COMM_HEAD(TXQ)) & QTX_COMM_HEAD_HEAD_M, 4);
    for (unsigned i = 0; i < 4; i++) {
        CHECK_EQ(txd_dtype(i), E810_TXD_DTYPE_DONE);
    }
    t.h.tx_full = false;
    CHECK_EQ(fake_host_tx_release(&t.h, &t.c, FAKE_MAX_HELD), 4);
    CHECK_EQ(t.h.nframes, 4);
    for (unsigned i = 0; i < 4 && i < t.h.nframes; i++) {
        CHECK_EQ(t.h.frames[i][n], i);
    }
    CHECK_EQ(t.c.stats.tx_dropped, 0);
    CHECK_EQ(t.c.txs.stats.blocked, 0);
    aq_test_cleanup(&t);
}

static void test_tx_multi_desc(void)
{
    uint8_t f[1514];
    size_t n = build(f, aq_peer_mac, false, 17, 1472, -1);

    tx_setup();
    /* Header, then the payload in two pieces at unrelated addresses. */
    memcpy(mem(TX_BUFS), f, 42);
    memcpy(mem(TX_BUFS + 0x3000), f + 42, 1000);
    memcpy(mem(TX_BUFS + 0x1001), f + 1042, n - 1042);
    txd_data(0, TX_BUFS, 42, 0, 0, 0);
    txd_data(1, TX_BUFS + 0x3000, 1000, 0, 0, 0);
    txd_data(2, TX_BUFS + 0x1001, n - 1042, EOP_RS, 0, 0);
    wr(QTX_COMM_DBELL(TXQ), 3);

    CHECK_EQ(t.h.nframes, 1);
    CHECK_EQ(t.h.frame_len[0], n);
    CHECK(!memcmp(t.h.frames[0], f, n));
    /* Only the RS descriptor is written back. */
    CHECK_EQ(txd_dtype(0), 0);
    CHECK_EQ(txd_dtype(1), 0);
    CHECK_EQ(txd_dtype(2), E810_TXD_DTYPE_DONE);
    CHECK_EQ(rd(QTX_COMM_HEAD(TXQ)), 3);
    CHECK_EQ(fake_irq_count(&t.h, TX_VEC), 1);
    aq_test_cleanup(&t);
}

/* Send @f (@n bytes) with checksum offload and check the L4 result. */
static void tx_csum_case(bool v6, uint8_t proto, size_t plen, unsigned idx)
{
    uint8_t f[2048], want[2048];
    size_t iplen = v6 ? 40 : 20, l4h = proto == 6 ? 20 : 8;
    size_t n = build(f, aq_peer_mac, v6, proto, plen, l4h + plen);
    unsigned coff = proto == 6 ? 16 : 6;
    unsigned cmd = EOP_RS | (proto == 6 ? E810_TXD_CMD_L4T_TCP :
                             E810_TXD_CMD_L4T_UDP) |
                   (v6 ? E810_TXD_CMD_IIPT_IPV6 : E810_TXD_CMD_IIPT_IPV4);
    const uint8_t *out;

    build(want, aq_peer_mac, v6, proto, plen, -1);
    CHECK(ldbe16(f + 14 + iplen + coff) != ldbe16(want + 14 + iplen + coff));
    memcpy(mem(TX_BUFS + idx * 0x1000), f, n);
    txd_data(idx, TX_BUFS + idx * 0x1000, n, cmd, offsets(14, iplen, l4h), 0);
    wr(QTX_COMM_DBELL(TXQ), idx + 1);
    CHECK_EQ(t.h.nframes, idx + 1);
    out = t.h.frames[idx];
    CHECK_EQ(t.h.frame_len[idx], n);
    CHECK_EQ(ldbe16(out + 14 + iplen + coff), ldbe16(want + 14 + iplen + coff));
    CHECK(!memcmp(out, want, n));
}

static void test_tx_csum(void)
{
    tx_setup();
    tx_csum_case(false, 6, 1000, 0);        /* IPv4/TCP */
    tx_csum_case(false, 17, 333, 1);        /* IPv4/UDP, odd length */
    tx_csum_case(true, 6, 1201, 2);         /* IPv6/TCP */
    tx_csum_case(true, 17, 64, 3);          /* IPv6/UDP */

    /* IPv4 header checksum on request (IIPT = IPv4 with checksum). */
    {
        uint8_t f[128];
        size_t n = build(f, aq_peer_mac, false, 17, 20, -1);

        stbe16(f + 24, 0);
        memcpy(mem(TX_BUFS + 0x8000), f, n);
        txd_data(4, TX_BUFS + 0x8000, n, EOP_RS | E810_TXD_CMD_IIPT_IPV4_CSUM,
                 offsets(14, 20, 8), 0);
        wr(QTX_COMM_DBELL(TXQ), 5);
        CHECK_EQ(t.h.nframes, 5);
        CHECK(ipv4_hdr_ok(t.h.frames[4] + 14));
    }
    CHECK_EQ(t.c.stats.tx_bad_desc, 0);
    CHECK_EQ(t.h.guest_errors, 0);
    aq_test_cleanup(&t);
}

/* TSO of @paylen bytes at @mss; verifies every segment against the original. */
static void tso_case(bool v6, size_t paylen, unsigned mss, unsigned first_idx)
{
    static uint8_t f[70000];
    size_t iplen = v6 ? 40 : 20, hlen = 14 + iplen + 20;
    size_t n = build(f, aq_peer_mac, v6, 6, paylen, 0);
    unsigned segs = (paylen + mss - 1) / mss;
    unsigned idx = first_idx, nf0 = t.h.nframes;
    unsigned cmd = E810_TXD_CMD_L4T_TCP |
                   (v6 ? E810_TXD_CMD_IIPT_IPV6 : E810_TXD_CMD_IIPT_IPV4_CSUM);
    uint32_t offs = offsets(14, iplen, 20);
    size_t off = 0;

    /* As ice_tso leaves it: IPv4 total length and checksum zeroed. */
    if (!v6) {
        stbe16(f + 16, 0);
        stbe16(f + 24, 0);
    } else {
        stbe16(f + 18, 0);
    }
    memcpy(mem(TX_BUFS), f, n);
    txd_ctx(idx++, 0, 0, E810_TXCD_CMD_TSO, paylen, mss);
    /* Headers in their own descriptor, then ≤ 16000-byte chunks. */
    txd_data(idx++, TX_BUFS, hlen, cmd, offs, 0);
    off = hlen;
    while (off < n) {
        size_t sz = n - off > 16000 ? 16000 : n - off;

        txd_data(idx++, TX_BUFS + off, sz, cmd | (off + sz == n ? EOP_RS : 0),
                 offs, 0);
        off += sz;
    }
    wr(QTX_COMM_DBELL(TXQ), idx);
    CHECK_EQ(t.h.nframes - nf0, segs);
    CHECK_EQ(txd_dtype(idx - 1), E810_TXD_DTYPE_DONE);

    for (unsigned s = 0; s < segs && nf0 + s < t.h.nframes; s++) {
        const uint8_t *o = t.h.frames[nf0 + s];
        const uint8_t *ip = o + 14, *tcp = ip + iplen;
        size_t plen = s + 1 < segs ? mss : paylen - (size_t)s * mss;
        uint8_t fl = s + 1 < segs ? 0x10 : 0x19;

        CHECK_EQ(t.h.frame_len[nf0 + s], hlen + plen);
        CHECK(!memcmp(o, f, 14));
        CHECK(!memcmp(o + hlen, f + hlen + (size_t)s * mss, plen));
        if (v6) {
            CHECK_EQ(ldbe16(ip + 4), 20 + plen);
        } else {
            CHECK_EQ(ldbe16(ip + 2), 20 + 20 + plen);
            CHECK_EQ(ldbe16(ip + 4), (uint16_t)(0x1234 + s));
            CHECK(ipv4_hdr_ok(ip));
        }
        CHECK_EQ(ldbe32(tcp + 4), 0x10000000 + s * mss);
        CHECK_EQ(ldbe32(tcp + 8), 0x20000000);
        CHECK_EQ(tcp[13], fl);
        CHECK_EQ(ldbe16(tcp + 16),
                 ref_l4_csum(ip, v6, 6, tcp, 20 + plen, 16));
    }
}

static void test_tx_tso(void)
{
    tx_setup();
    tso_case(false, 65536, 1448, 0);
    CHECK_EQ(t.h.nframes, 46);
    CHECK_EQ(t.h.frame_len[45], 14 + 40 + 65536 - 45 * 1448);
    CHECK_EQ(t.c.stats.tx_tso, 1);
    aq_test_cleanup(&t);

    tx_setup();
    tso_case(true, 9000, 1440, 0);          /* IPv6, 7 segments */
    tso_case(false, 8948, 8948, 3);         /* MTU 9000: one full segment */
    CHECK_EQ(t.c.stats.tx_bad_desc, 0);
    CHECK_EQ(t.h.guest_errors, 0);
    aq_test_cleanup(&t);
}

static void test_tx_vlan_insert(void)
{
    uint8_t f[128];
    size_t n = build(f, aq_peer_mac, false, 17, 30, -1);
    const uint8_t *o;

    tx_setup();
    memcpy(mem(TX_BUFS), f, n);
    txd_data(0, TX_BUFS, n, EOP_RS | E810_TXD_CMD_IL2TAG1, 0, 0x2005);
    wr(QTX_COMM_DBELL(TXQ), 1);
    CHECK_EQ(t.h.nframes, 1);
    o = t.h.frames[0];
    CHECK_EQ(t.h.frame_len[0], n + 4);
    CHECK(!memcmp(o, f, 12));
    CHECK_EQ(ldbe16(o + 12), 0x8100);
    CHECK_EQ(ldbe16(o + 14), 0x2005);
    CHECK(!memcmp(o + 16, f + 12, n - 12));
    aq_test_cleanup(&t);
}

static void test_tx_malformed(void)
{
    uint8_t f[1514];
    size_t n = build(f, aq_peer_mac, false, 6, 1000, 0);
    unsigned i = 0, errs;

    tx_setup();
    memcpy(mem(TX_BUFS), f, n);

    /* Zero-length buffer only: nothing to send, still completed. */
    txd_data(i++, TX_BUFS, 0, EOP_RS, 0, 0);
    wr(QTX_COMM_DBELL(TXQ), i);
    CHECK_EQ(t.c.stats.tx_zero_desc, 1);
    CHECK_EQ(t.c.stats.tx_bad_desc, 1);
    CHECK_EQ(txd_dtype(i - 1), E810_TXD_DTYPE_DONE);

    /* Oversized non-TSO frame (2 x 16383 bytes). */
    txd_data(i++, TX_BUFS, 16383, 0, 0, 0);
    txd_data(i++, TX_BUFS, 16383, EOP_RS, 0, 0);
    wr(QTX_COMM_DBELL(TXQ), i);
    CHECK_EQ(t.c.stats.tx_oversize, 1);
    CHECK_EQ(txd_dtype(i - 1), E810_TXD_DTYPE_DONE);

    /* TSO with MSS 0, with a length that does not match, with L4LEN
     * pointing past the frame, with an unknown L4 type. */
    txd_ctx(i++, 0, 0, E810_TXCD_CMD_TSO, 1000, 0);
    txd_data(i++, TX_BUFS, n, EOP_RS | E810_TXD_CMD_L4T_TCP |
             E810_TXD_CMD_IIPT_IPV4_CSUM, offsets(14, 20, 20), 0);
    txd_ctx(i++, 0, 0, E810_TXCD_CMD_TSO, 5000, 536);
    txd_data(i++, TX_BUFS, n, EOP_RS | E810_TXD_CMD_L4T_TCP |
             E810_TXD_CMD_IIPT_IPV4_CSUM, offsets(14, 20, 20), 0);
    txd_ctx(i++, 0, 0, E810_TXCD_CMD_TSO, 1000, 536);
    txd_data(i++, TX_BUFS, n, EOP_RS | E810_TXD_CMD_L4T_TCP |
             E810_TXD_CMD_IIPT_IPV4_CSUM, offsets(254, 508, 60), 0);
    txd_ctx(i++, 0, 0, E810_TXCD_CMD_TSO, 1000, 536);
    txd_data(i++, TX_BUFS, n, EOP_RS | E810_TXD_CMD_IIPT_IPV4_CSUM,
             offsets(14, 20, 20), 0);
    /* Checksum offload with headers beyond a short frame. */
    txd_data(i++, TX_BUFS, 20, EOP_RS | E810_TXD_CMD_L4T_TCP |
             E810_TXD_CMD_IIPT_IPV4_CSUM, offsets(14, 20, 20), 0);
    /* Unknown descriptor type. */
    st64(mem(TX_RING + i * 16), TX_BUFS);
    st64(mem(TX_RING + i * 16 + 8), 5 | (uint64_t)EOP_RS << 4);
    i++;
    txd_data(i++, TX_BUFS, 60, EOP_RS, 0, 0);
    wr(QTX_COMM_DBELL(TXQ), i);
    CHECK_EQ(t.c.stats.tx_bad_desc, 7);
    CHECK_EQ(t.h.nframes, 0);
    for (unsigned k = 0; k < i; k++) {
        unsigned dt = txd_dtype(k);
        uint64_t qw1 = ld64(mem(TX_RING + k * 16 + 8));

        if ((qw1 >> 4) & E810_TXD_CMD_RS && (dt == 0 || dt == 0xF)) {
            CHECK_EQ(dt, E810_TXD_DTYPE_DONE);
        }
    }
    CHECK_EQ(rd(QTX_COMM_HEAD(TXQ)), i);

    /* Buffer outside guest memory: DMA error, packet dropped, completed. */
    errs = t.c.stats.dma_errors;
    txd_data(i++, 0xdead00000000ull, 100, EOP_RS, 0, 0);
    wr(QTX_COMM_DBELL(TXQ), i);
    CHECK_EQ(t.c.stats.dma_errors, errs + 1);
    CHECK_EQ(txd_dtype(i - 1), E810_TXD_DTYPE_DONE);

    /* No EOP before tail: waits; the rest arrives with the next doorbell. */
    txd_data(i++, TX_BUFS, 30, 0, 0, 0);
    wr(QTX_COMM_DBELL(TXQ), i);
    CHECK_EQ(t.h.nframes, 0);
    CHECK_EQ(rd(QTX_COMM_HEAD(TXQ)), i - 1);
    txd_data(i++, TX_BUFS + 30, 30, EOP_RS, 0, 0);
    wr(QTX_COMM_DBELL(TXQ), i);
    CHECK_EQ(t.h.nframes, 1);
    CHECK_EQ(t.h.frame_len[0], 60);
    CHECK(!memcmp(t.h.frames[0], f, 60));

    /* 128 descriptors without EOP: dropped as one malformed packet. */
    errs = t.c.stats.tx_bad_desc;
    for (unsigned k = 0; k < 130; k++) {
        txd_data(i++, TX_BUFS, 5, k == 129 ? EOP_RS : E810_TXD_CMD_RS, 0, 0);
    }
    wr(QTX_COMM_DBELL(TXQ), i);
    CHECK_EQ(t.c.stats.tx_bad_desc, errs + 2);    /* 128, then a 20-byte runt */
    CHECK_EQ(rd(QTX_COMM_HEAD(TXQ)), i);

    /* Doorbells: tail beyond the ring, queue beyond the device, disabled. */
    errs = t.c.stats.tx_bad_doorbell;
    wr(QTX_COMM_DBELL(TXQ), TX_QLEN);
    wr(QTX_COMM_DBELL(3000), 1);
    wr(QTX_COMM_DBELL(TXQ + 1), 1);
    CHECK_EQ(t.c.stats.tx_bad_doorbell, errs + 3);

    /* Ring outside guest memory: nothing fetched, nothing crashes. */
    t.c.fw.sched.txq[TXQ].base = 0xdead00000000ull;
    errs = t.c.stats.dma_errors;
    wr(QTX_COMM_DBELL(TXQ), (i + 1) % TX_QLEN);
    CHECK_EQ(t.c.stats.dma_errors, errs + 1);
    CHECK_EQ(t.h.nframes, 1);
    aq_test_cleanup(&t);
}

static void test_tx_requeue_and_irq_routing(void)
{
    uint8_t f[60];

    tx_setup();
    memset(f, 0x11, sizeof(f));
    memcpy(f, aq_peer_mac, 6);
    memcpy(mem(TX_BUFS), f, 60);
    txd_data(0, TX_BUFS, 60, EOP_RS, 0, 0);
    txd_data(1, TX_BUFS, 60, EOP_RS, 0, 0);
    wr(QTX_COMM_DBELL(TXQ), 2);
    CHECK_EQ(t.c.lan.txq[TXQ].head, 2);
    /* Re-created by the firmware: starts at descriptor 0 again. */
    t.c.fw.sched.txq[TXQ].gen++;
    txd_data(0, TX_BUFS, 60, EOP_RS, 0, 0);
    /* Cause disabled: write-back happens, no interrupt. */
    wr(QINT_TQCTL(TXQ), TX_VEC);
    wr(GLINT_DYN_CTL(TX_VEC), GLINT_DYN_CTL_INTENA);
    wr(QTX_COMM_DBELL(TXQ), 1);
    CHECK_EQ(t.h.nframes, 3);
    CHECK_EQ(t.c.lan.txq[TXQ].head, 1);
    CHECK_EQ(txd_dtype(0), E810_TXD_DTYPE_DONE);
    CHECK_EQ(fake_irq_count(&t.h, TX_VEC), 1);
    aq_test_cleanup(&t);
}

/* ---- Rx helpers ------------------------------------------------------- */

static int aq_rss_key(uint16_t vsi)
{
    aq_msg_init(&m, 0x0B02, 52, true);
    st16(m.desc + 16, vsi | 0x8000);
    memcpy(m.buf, rss_key, sizeof(rss_key));
    return aq_send(&t, &m);
}

static int aq_rss_pf_lut(uint16_t vsi, uint8_t fill)
{
    aq_msg_init(&m, 0x0B03, 2048, true);
    st16(m.desc + 16, vsi | 0x8000);
    st16(m.desc + 18, 1 | (1 << 3));        /* PF LUT, 2K entries */
    for (unsigned i = 0; i < 2048; i++) {
        m.buf[i] = fill == 0xFF ? i % 4 : fill;
    }
    return aq_send(&t, &m);
}

/* The context as ice_setup_rx_ctx fills it, written as ice_write_rxq_ctx. */
static void rxq_write_ctx(unsigned q, uint64_t ring, unsigned qlen,
                          unsigned buf, unsigned rxmax, bool crcstrip)
{
    uint8_t b[32] = { 0 };

    put_bits(b, 32, 57, ring >> 7);
    put_bits(b, 89, 13, qlen);
    put_bits(b, 102, 7, (buf + 127) / 128);
    put_bits(b, 116, 1, 1);                 /* 32-byte descriptors */
    put_bits(b, 117, 1, crcstrip);
    put_bits(b, 119, 1, 1);                 /* l2tsel */
    put_bits(b, 174, 14, rxmax);
    put_bits(b, 198, 3, 1);
    put_bits(b, 201, 1, 1);
    for (unsigned i = 0; i < 8; i++) {
        wr(QRX_CONTEXT(i, q), ld32(b + 4 * i));
    }
}

/* Post descriptors [from, to) with a 2 KiB buffer each, like ice_alloc_rx_bufs. */
static void rx_post(unsigned from, unsigned to)
{
    for (unsigned i = from; i < to; i++) {
        uint8_t *d = mem(RX_RING + i * 32);

        memset(d, 0, 32);
        st64(d, RX_BUFS + i * RX_BUF);
    }
}

static uint16_t vsi_num;

static void rx_setup_q(unsigned q, unsigned rxmax, bool crcstrip)
{
    rxq_write_ctx(q, RX_RING, RX_QLEN, RX_BUF, rxmax, crcstrip);
    wr(QRXFLXP_CNTXT(q), E810_RXDID_FLEX_NIC | 3 << 8 | 1 << 11);
    wr(QRX_TAIL(q), 0);
    rx_post(0, RX_QLEN);
    wr(QRX_TAIL(q), RX_QLEN - 8);
    wr(QINT_RQCTL(q), E810_CTL_CAUSE_ENA | RX_VEC);
    wr(GLINT_DYN_CTL(RX_VEC), GLINT_DYN_CTL_INTENA);
    wr(QRX_CTRL(q), QRX_CTRL_QENA_REQ);
}

static void rx_setup(void)
{
    aq_test_init(&t);
    CHECK_EQ(aq_add_pf_vsi(&t, RXQ_FIRST, 1, false, &vsi_num), 0);
    CHECK_EQ(aq_add_mac_rule(&t, vsi_num, aq_test_mac), 0);
    CHECK_EQ(aq_add_mac_rule(&t, vsi_num, bcast_mac), 0);
    CHECK_EQ(aq_rss_key(vsi_num), 0);
    rx_setup_q(RXQ_FIRST, 5 * RX_BUF, true);
}

static const uint8_t *rxd(unsigned i)
{
    return mem(RX_RING + i * 32);
}

/* ---- Rx tests --------------------------------------------------------- */

static void test_rx_context(void)
{
    const E810RxRing *r = &t.c.lan.rxq[RXQ_FIRST];

    rx_setup();
    CHECK_EQ(rd(QRX_CTRL(RXQ_FIRST)) & (QRX_CTRL_QENA_REQ | QRX_CTRL_QENA_STAT),
             QRX_CTRL_QENA_REQ | QRX_CTRL_QENA_STAT);
    CHECK(r->enabled && r->valid);
    CHECK_EQ(r->base, RX_RING);
    CHECK_EQ(r->qlen, RX_QLEN);
    CHECK_EQ(r->dbuf, RX_BUF);
    CHECK_EQ(r->rxmax, 5 * RX_BUF);
    CHECK(r->crcstrip && r->l2tsel && r->dsize32);
    CHECK_EQ(r->head, 0);
    /* The context reads back as written (plain registers). */
    CHECK_EQ(rd(QRX_CONTEXT(1, RXQ_FIRST)), (uint32_t)(RX_RING >> 7));
    /* Disable: QENA_STAT follows at once. */
    wr(QRX_CTRL(RXQ_FIRST), 0);
    CHECK_EQ(rd(QRX_CTRL(RXQ_FIRST)) & QRX_CTRL_QENA_STAT, 0);
    CHECK(!r->enabled);
    /* A bad context (16-byte descriptors) is refused at enable time. */
    wr(QRX_CONTEXT(3, RXQ_FIRST), rd(QRX_CONTEXT(3, RXQ_FIRST)) & ~(1u << 20));
    wr(QRX_CTRL(RXQ_FIRST), QRX_CTRL_QENA_REQ);
    CHECK(r->enabled && !r->valid);
    CHECK(t.h.guest_errors > 0);
    aq_test_cleanup(&t);
}

static void test_rx_frame(void)
{
    uint8_t f[1514], tuple[12];
    size_t n = build(f, aq_test_mac, false, 6, 1000, -1);
    const uint8_t *d;
    uint16_t st;

    rx_setup();
    d = rxd(0);
    CHECK_EQ(e810_receive(&t.c, f, n), n);
    CHECK_EQ(t.c.stats.rx_frames, 1);
    CHECK_EQ(d[0], E810_RXDID_FLEX_NIC);
    CHECK_EQ(ld16(d + 2) & 0x3FF, E810_PTYPE_IPV4_TCP);
    CHECK_EQ(ld16(d + 4) & 0x3FFF, n);
    st = ld16(d + 8);
    CHECK(st & E810_RXD_STATUS0_DD);
    CHECK(st & E810_RXD_STATUS0_EOF);
    CHECK(st & E810_RXD_STATUS0_L3L4P);
    CHECK(st & E810_RXD_STATUS0_RSS_VALID);
    CHECK(!(st & (E810_RXD_STATUS0_IPE | E810_RXD_STATUS0_L4E |
                  E810_RXD_STATUS0_RXE | E810_RXD_STATUS0_L2TAG1P)));
    memcpy(tuple, f + 26, 8);
    memcpy(tuple + 8, f + 34, 4);
    CHECK_EQ(ld32(d + 12), ref_toeplitz(rss_key, tuple, 12));
    CHECK(ld32(d + 12) != 0);
    CHECK(!memcmp(mem(RX_BUFS), f, n));
    CHECK_EQ(fake_irq_count(&t.h, RX_VEC), 1);

    /* Bad TCP checksum: still delivered, L4 error reported. */
    f[n - 1] ^= 0xFF;
    e810_receive(&t.c, f, n);
    st = ld16(rxd(1) + 8);
    CHECK(st & E810_RXD_STATUS0_L3L4P);
    CHECK(st & E810_RXD_STATUS0_L4E);
    CHECK(!(st & E810_RXD_STATUS0_IPE));

    /* IPv4/UDP, IPv6/TCP, IPv6/UDP, ARP broadcast. */
    n = build(f, aq_test_mac, false, 17, 100, -1);
    e810_receive(&t.c, f, n);
    CHECK_EQ(ld16(rxd(2) + 2) & 0x3FF, E810_PTYPE_IPV4_UDP);
    CHECK_EQ(ld16(rxd(2) + 8) & 0x3F, 0x0B);        /* DD EOF L3L4P */
    n = build(f, aq_test_mac, true, 6, 500, -1);
    e810_receive(&t.c, f, n);
    CHECK_EQ(ld16(rxd(3) + 2) & 0x3FF, E810_PTYPE_IPV6_TCP);
    CHECK_EQ(ld16(rxd(3) + 8) & 0x3F, 0x0B);
    n = build(f, aq_test_mac, true, 17, 7, -1);
    e810_receive(&t.c, f, n);
    CHECK_EQ(ld16(rxd(4) + 2) & 0x3FF, E810_PTYPE_IPV6_UDP);
    CHECK_EQ(ld16(rxd(4) + 8) & 0x3F, 0x0B);
    n = eth(f, bcast_mac, aq_peer_mac, 0x0806);
    memset(f + n, 0, 46);
    e810_receive(&t.c, f, 60);
    CHECK_EQ(ld16(rxd(5) + 2) & 0x3FF, E810_PTYPE_L2);
    CHECK_EQ(ld16(rxd(5) + 8), E810_RXD_STATUS0_DD | E810_RXD_STATUS0_EOF);
    CHECK_EQ(ld32(rxd(5) + 12), 0);
    CHECK_EQ(t.c.lan.rxq[RXQ_FIRST].head, 6);
    CHECK_EQ(t.c.stats.rx_dropped, 0);
    aq_test_cleanup(&t);
}

static void test_rx_jumbo(void)
{
    static uint8_t f[9014];
    size_t n = build(f, aq_test_mac, false, 17, 9014 - 42, -1);

    rx_setup();
    t.c.lan.rxq[RXQ_FIRST].head = RX_QLEN - 2;      /* wrap inside the frame */
    wr(QRX_TAIL(RXQ_FIRST), 8);
    e810_receive(&t.c, f, n);
    CHECK_EQ(t.c.stats.rx_frames, 1);
    for (unsigned i = 0; i < 5; i++) {
        unsigned at = (RX_QLEN - 2 + i) % RX_QLEN;
        const uint8_t *d = rxd(at);
        size_t want = i < 4 ? RX_BUF : n - 4 * RX_BUF;

        CHECK_EQ(ld16(d + 4) & 0x3FFF, want);
        CHECK(ld16(d + 8) & E810_RXD_STATUS0_DD);
        CHECK_EQ(!!(ld16(d + 8) & E810_RXD_STATUS0_EOF), i == 4);
        CHECK(!memcmp(mem(RX_BUFS + at * RX_BUF), f + i * RX_BUF, want));
    }
    CHECK(ld16(rxd(2) + 8) & E810_RXD_STATUS0_L3L4P);
    CHECK_EQ(t.c.lan.rxq[RXQ_FIRST].head, 3);
    CHECK_EQ(fake_irq_count(&t.h, RX_VEC), 1);

    /* Larger than rxmax: dropped. */
    wr(QRX_CTRL(RXQ_FIRST), 0);
    rx_setup_q(RXQ_FIRST, 1522, true);
    e810_receive(&t.c, f, n);
    CHECK_EQ(t.c.stats.rx_oversize, 1);
    aq_test_cleanup(&t);
}

static void test_rx_drops(void)
{
    uint8_t f[1514];
    size_t n = build(f, aq_test_mac, false, 6, 200, -1);
    uint64_t d0;

    rx_setup();
    /* No descriptors: head == tail. */
    wr(QRX_TAIL(RXQ_FIRST), 0);
    e810_receive(&t.c, f, n);
    CHECK_EQ(t.c.stats.rx_no_desc, 1);
    CHECK_EQ(t.c.stats.rx_dropped, 1);
    CHECK_EQ(ld16(rxd(0) + 8), 0);
    CHECK_EQ(fake_irq_count(&t.h, RX_VEC), 0);
    /* Too few for a multi-buffer frame. */
    {
        static uint8_t j[9014];
        size_t jn = build(j, aq_test_mac, false, 17, 9014 - 42, -1);

        wr(QRX_TAIL(RXQ_FIRST), 3);
        e810_receive(&t.c, j, jn);
        CHECK_EQ(t.c.stats.rx_no_desc, 2);
        CHECK_EQ(t.c.lan.rxq[RXQ_FIRST].head, 0);
    }
    wr(QRX_TAIL(RXQ_FIRST), 8);

    /* Link down. */
    e810_set_link(&t.c, false);
    e810_receive(&t.c, f, n);
    CHECK_EQ(t.c.stats.rx_link_down, 1);
    e810_set_link(&t.c, true);

    /* Nobody's MAC. */
    memcpy(f, nobody_mac, 6);
    e810_receive(&t.c, f, n);
    CHECK_EQ(t.c.stats.rx_no_vsi, 1);
    memcpy(f, aq_test_mac, 6);

    /* Runt and giant frames. */
    e810_receive(&t.c, f, 10);
    CHECK_EQ(t.c.stats.rx_runt, 1);
    {
        static uint8_t g[16000];

        memcpy(g, aq_test_mac, 6);
        e810_receive(&t.c, g, sizeof(g));
        CHECK_EQ(t.c.stats.rx_oversize, 1);
    }

    /* Unsupported descriptor format, disabled queue, tail beyond ring. */
    wr(QRXFLXP_CNTXT(RXQ_FIRST), 1);
    e810_receive(&t.c, f, n);
    wr(QRXFLXP_CNTXT(RXQ_FIRST), E810_RXDID_FLEX_NIC);
    wr(QRX_TAIL(RXQ_FIRST), RX_QLEN + 5);
    e810_receive(&t.c, f, n);
    wr(QRX_TAIL(RXQ_FIRST), 8);
    wr(QRX_CTRL(RXQ_FIRST), 0);
    e810_receive(&t.c, f, n);
    CHECK_EQ(t.c.stats.rx_queue_off, 3);
    CHECK_EQ(t.c.stats.rx_frames, 0);
    CHECK_EQ(t.c.stats.rx_dropped, 9);

    /* Buffer address outside memory: frame marked RXE, nothing overrun. */
    wr(QRX_CTRL(RXQ_FIRST), QRX_CTRL_QENA_REQ);
    d0 = ld64(rxd(0));
    st64(mem(RX_RING), 0xdead00000000ull);
    e810_receive(&t.c, f, n);
    CHECK(ld16(rxd(0) + 8) & E810_RXD_STATUS0_RXE);
    CHECK(t.c.stats.dma_errors > 0);
    (void)d0;

    /* Ring outside memory: whole frame dropped before anything is written. */
    t.c.lan.rxq[RXQ_FIRST].base = 0xdead00000000ull;
    e810_receive(&t.c, f, n);
    CHECK_EQ(t.c.stats.rx_queue_off, 4);
    aq_test_cleanup(&t);
}

static void test_rx_rss_vlan_fcs(void)
{
    uint8_t f[1514], g[1518];
    size_t n;
    unsigned hits[4] = { 0 };

    rx_setup();
    /* Four queues, LUT spreading over them. */
    aq_msg_init(&m, 0x0211, 128, true);
    st16(m.desc + 16, vsi_num | 0x8000);
    st16(m.buf, 1 << 6);
    st16(m.buf + 30, RXQ_FIRST);
    st16(m.buf + 32, 4);
    st16(m.buf + 62, 2 << 11);
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(aq_rss_pf_lut(vsi_num, 0xFF), 0);
    for (unsigned q = RXQ_FIRST + 1; q < RXQ_FIRST + 4; q++) {
        wr(QRXFLXP_CNTXT(q), E810_RXDID_FLEX_NIC);
        wr(QRX_TAIL(q), 0);
        wr(QINT_RQCTL(q), E810_CTL_CAUSE_ENA | RX_VEC);
        /* Not enabled: frames hashed there are dropped as queue-off. */
    }
    n = build(f, aq_test_mac, false, 6, 64, -1);
    for (unsigned p = 0; p < 32; p++) {
        uint8_t tuple[12];
        uint32_t h;

        stbe16(f + 34, 1000 + p);
        stbe16(f + 50, 0);
        stbe16(f + 50, ref_l4_csum(f + 14, false, 6, f + 34, n - 34, 16));
        memcpy(tuple, f + 26, 8);
        memcpy(tuple + 8, f + 34, 4);
        h = ref_toeplitz(rss_key, tuple, 12);
        hits[(h % 2048) % 4]++;
        e810_receive(&t.c, f, n);
    }
    CHECK_EQ(t.c.stats.rx_frames, hits[0]);
    CHECK_EQ(t.c.stats.rx_queue_off, 32 - hits[0]);
    CHECK(hits[0] > 0 && hits[0] < 32);
    aq_test_cleanup(&t);

    /* VLAN stripping (inner EMODE "strip both") into L2TAG1. */
    rx_setup();
    aq_msg_init(&m, 0x0211, 128, true);
    st16(m.desc + 16, vsi_num | 0x8000);
    st16(m.buf, 1 << 2);
    m.buf[12] = 3;                          /* Tx all, EMODE 0: strip */
    CHECK_EQ(aq_send(&t, &m), 0);
    n = build(f, aq_test_mac, false, 17, 100, -1);
    memcpy(g, f, 12);
    stbe16(g + 12, 0x8100);
    stbe16(g + 14, 0x6007);
    memcpy(g + 16, f + 12, n - 12);
    e810_receive(&t.c, g, n + 4);
    CHECK_EQ(ld16(rxd(0) + 4), n);
    CHECK(ld16(rxd(0) + 8) & E810_RXD_STATUS0_L2TAG1P);
    CHECK(ld16(rxd(0) + 8) & E810_RXD_STATUS0_L3L4P);
    CHECK_EQ(ld16(rxd(0) + 2) & 0x3FF, E810_PTYPE_IPV4_UDP);
    CHECK_EQ(ld16(rxd(0) + 10), 0x6007);
    CHECK(!memcmp(mem(RX_BUFS), f, n));
    aq_test_cleanup(&t);

    /* CRC kept (crcstrip 0): 4 more bytes, the frame's FCS. */
    rx_setup();
    wr(QRX_CTRL(RXQ_FIRST), 0);
    rx_setup_q(RXQ_FIRST, 5 * RX_BUF, false);
    e810_receive(&t.c, f, n);
    CHECK_EQ(ld16(rxd(0) + 4), n + 4);
    CHECK_EQ(ld32(mem(RX_BUFS + n)), ref_crc32(f, n));
    aq_test_cleanup(&t);
}

static void test_mac_loopback(void)
{
    uint8_t f[1514];
    size_t n = build(f, aq_test_mac, false, 6, 300, 20 + 300);

    rx_setup();
    {
        E810TxQueueCtx *q = &t.c.fw.sched.txq[TXQ];

        q->enabled = true;
        q->gen++;
        q->base = TX_RING;
        q->qlen = TX_QLEN;
    }
    t.c.fw.phy.mac_loopback = true;
    memcpy(mem(TX_BUFS), f, n);
    txd_data(0, TX_BUFS, n, EOP_RS | E810_TXD_CMD_L4T_TCP |
             E810_TXD_CMD_IIPT_IPV4, offsets(14, 20, 20), 0);
    wr(QTX_COMM_DBELL(TXQ), 1);
    CHECK_EQ(t.h.nframes, 0);
    CHECK_EQ(t.c.stats.rx_frames, 1);
    /* Checksum filled in on the way out, verified on the way in. */
    CHECK_EQ(ld16(rxd(0) + 8) & 0x3F, 0x0B);
    CHECK_EQ(txd_dtype(0), E810_TXD_DTYPE_DONE);
    aq_test_cleanup(&t);
}

/* ---- statistics registers (ice_update_pf_stats / ice_update_eth_stats) */

/* Offsets from ice_hw_autogen.h, port 0 / VSI v. */
#define T_GLPRT_GORCL       0x00380000
#define T_GLPRT_UPRCL       0x00381300
#define T_GLPRT_MPRCL       0x00381340
#define T_GLPRT_BPRCL       0x00381380
#define T_GLPRT_GOTCL       0x00380B40
#define T_GLPRT_UPTCL       0x003811C0
#define T_GLPRT_PRC64L      0x00380900
#define T_GLPRT_PRC1522L    0x00380A40
#define T_GLPRT_PTC127L     0x00380BC0
#define T_GLPRT_RUC         0x00380200
#define T_GLPRT_RLEC        0x00380140
#define T_GLPRT_TDOLD       0x00381280
#define T_GLPRT_CRCERRS     0x00380100
#define T_PRTRPB_RDPC       0x000AC260
#define T_GLV_GORCL(v)      (0x003B0000 + 8 * (v))
#define T_GLV_UPRCL(v)      (0x003B2000 + 8 * (v))
#define T_GLV_BPRCL(v)      (0x003B6000 + 8 * (v))
#define T_GLV_GOTCL(v)      (0x00300000 + 8 * (v))
#define T_GLV_UPTCL(v)      (0x0030A000 + 8 * (v))
#define T_GLV_RDPC(v)       (0x00294C04 + 4 * (v))
#define T_GLV_TEPC(v)       (0x00312000 + 4 * (v))

static uint64_t rd64(uint32_t off)
{
    return e810_mmio_read(&t.c, off, 8);
}

static void test_stats(void)
{
    static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
    uint8_t f[1514], g[64];
    size_t n = build(f, aq_test_mac, false, 6, 1000, -1);   /* 1054 bytes */
    size_t an;
    E810TxQueueCtx *q;

    rx_setup();
    CHECK_EQ(rd64(T_GLPRT_GORCL), 0);
    /* Unicast, broadcast (a 42-byte ARP the link did not pad), multicast
     * nobody subscribed to (the MAC counts it, the switch drops it). */
    e810_receive(&t.c, f, n);
    an = eth(g, bcast_mac, aq_peer_mac, 0x0806);
    memset(g + an, 0, 28);
    e810_receive(&t.c, g, an + 28);
    memcpy(f, mcast, 6);
    e810_receive(&t.c, f, n);
    memcpy(f, aq_test_mac, 6);
    CHECK_EQ(t.c.stats.rx_frames, 2);
    CHECK_EQ(rd64(T_GLPRT_UPRCL), 1);
    CHECK_EQ(rd64(T_GLPRT_BPRCL), 1);
    CHECK_EQ(rd64(T_GLPRT_MPRCL), 1);
    /* Wire bytes: padded to 60, with the FCS. */
    CHECK_EQ(rd64(T_GLPRT_GORCL), (n + 4) * 2 + 64);
    CHECK_EQ(rd64(T_GLPRT_PRC64L), 1);
    CHECK_EQ(rd64(T_GLPRT_PRC1522L), 2);
    /* The VSI counts what it was given. */
    CHECK_EQ(rd64(T_GLV_GORCL(vsi_num)), n + an + 28);
    CHECK_EQ(rd64(T_GLV_UPRCL(vsi_num)), 1);
    CHECK_EQ(rd64(T_GLV_BPRCL(vsi_num)), 1);

    /* Drops: a runt at the MAC; no descriptors at the VSI and port. */
    e810_receive(&t.c, f, 10);
    CHECK_EQ(rd(T_GLPRT_RUC), 1);
    wr(QRX_TAIL(RXQ_FIRST), t.c.lan.rxq[RXQ_FIRST].head);
    e810_receive(&t.c, f, n);
    CHECK_EQ(t.c.stats.rx_no_desc, 1);
    CHECK_EQ(rd(T_GLV_RDPC(vsi_num)), 1);
    CHECK_EQ(rd(T_PRTRPB_RDPC), 1);
    CHECK_EQ(rd64(T_GLPRT_UPRCL), 2);
    CHECK_EQ(rd(T_GLPRT_CRCERRS), 0);
    /* An 802.3 length field longer than the payload, also behind a VLAN
     * tag (the parse finds it there); one that fits is no error. */
    an = eth(g, bcast_mac, aq_peer_mac, 46);
    memset(g + an, 0, 46);
    e810_receive(&t.c, g, an + 46);
    CHECK_EQ(rd(T_GLPRT_RLEC), 0);
    stbe16(g + 12, 47);
    e810_receive(&t.c, g, an + 46);
    CHECK_EQ(rd(T_GLPRT_RLEC), 1);
    stbe16(g + 12, 0x8100);
    stbe16(g + 14, 5);
    stbe16(g + 16, 43);
    e810_receive(&t.c, g, an + 46);
    CHECK_EQ(rd(T_GLPRT_RLEC), 2);
    stbe16(g + 16, 42);
    e810_receive(&t.c, g, an + 46);
    CHECK_EQ(rd(T_GLPRT_RLEC), 2);

    /* Tx from the VSI's queue: one frame sent, one malformed, one while
     * the link is down. */
    q = &t.c.fw.sched.txq[TXQ];
    q->enabled = true;
    q->gen++;
    q->base = TX_RING;
    q->qlen = TX_QLEN;
    q->src_vsi = vsi_num;
    n = eth(f, aq_peer_mac, aq_test_mac, 0x0800);
    memset(f + n, 0x5a, 86);
    n += 86;                                            /* 100 bytes */
    memcpy(mem(TX_BUFS), f, n);
    txd_data(0, TX_BUFS, n, EOP_RS, 0, 0);
    txd_data(1, TX_BUFS, 8, EOP_RS, 0, 0);              /* too short */
    wr(QTX_COMM_DBELL(TXQ), 2);
    CHECK_EQ(t.h.nframes, 1);
    CHECK_EQ(rd64(T_GLPRT_UPTCL), 1);
    CHECK_EQ(rd64(T_GLPRT_GOTCL), n + 4);
    CHECK_EQ(rd64(T_GLPRT_PTC127L), 1);
    CHECK_EQ(rd64(T_GLV_GOTCL(vsi_num)), n);
    CHECK_EQ(rd64(T_GLV_UPTCL(vsi_num)), 1);
    CHECK_EQ(rd(T_GLV_TEPC(vsi_num)), 1);
    t.c.fw.phy.up = false;
    txd_data(2, TX_BUFS, n, EOP_RS, 0, 0);
    wr(QTX_COMM_DBELL(TXQ), 3);
    t.c.fw.phy.up = true;
    CHECK_EQ(rd(T_GLPRT_TDOLD), 1);
    CHECK_EQ(rd64(T_GLPRT_UPTCL), 1);
    /* The VSI sent it; the port dropped it. */
    CHECK_EQ(rd64(T_GLV_GOTCL(vsi_num)), 2 * n);

    /* Read-only, kept across a PF reset; 40-bit counters read as L/H
     * and wrap at 2^40. */
    wr(T_GLPRT_UPRCL, 0x1234);
    CHECK_EQ(rd64(T_GLPRT_UPRCL), 2);
    wr(PFGEN_CTRL, PFGEN_CTRL_PFSWR);
    CHECK_EQ(rd64(T_GLPRT_UPRCL), 2);
    CHECK_EQ(rd64(T_GLV_GOTCL(vsi_num)), 2 * n);
    t.c.lan.port_stats[E810_PS_GORC] = (3ull << 40) | 0x12345678ABull;
    CHECK_EQ(rd(T_GLPRT_GORCL), 0x345678AB);
    CHECK_EQ(rd(T_GLPRT_GORCL + 4), 0x12);
    CHECK_EQ(rd64(T_GLPRT_GORCL), 0x12345678ABull);
    /* Other ports count nothing. */
    CHECK_EQ(rd64(T_GLPRT_UPRCL + 8), 0);
    aq_test_cleanup(&t);
}

int main(void)
{
    RUN(test_tx_single);
    RUN(test_tx_backend_full);
    RUN(test_tx_multi_desc);
    RUN(test_tx_csum);
    RUN(test_tx_tso);
    RUN(test_tx_vlan_insert);
    RUN(test_tx_malformed);
    RUN(test_tx_requeue_and_irq_routing);
    RUN(test_rx_context);
    RUN(test_rx_frame);
    RUN(test_rx_jumbo);
    RUN(test_rx_drops);
    RUN(test_rx_rss_vlan_fcs);
    RUN(test_mac_loopback);
    RUN(test_stats);
    return CHECK_DONE();
}
