/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: a hostile RoCEv2 peer.  Starts from two RC QPs (3 and
 * 4) in RoCE mode, connected through the device's loopback
 * (iwarp-fixture.c with roce set), and plays QP 3's end towards QP 4 and
 * QP 4's towards QP 3: BTH packets with fuzz opcode, flags, PSN (near the
 * expected one or anywhere) and extension headers/payload, with a good
 * ICRC or a bad one, to QP 3, 4, 1 or any QP number; raw frames; receive
 * and send WQEs on both QPs (retransmission, ACK/NAK handling, READ
 * responses); QP state changes and time; the backend holding frames,
 * resets and the unplug (fuzz_common_op).  Multicast: UD QPs 5 and 6
 * are members of an IPv4 group; the input writes the group ops as a
 * hostile driver would, sends datagrams to groups as a peer, and sends
 * to the group from QP 5 (the wire and the loopback).
 *
 * The first input byte selects kernel or user QPs, re-entrancy mode, and
 * the remote scenario: the QPs' peer (ARP 1) is a remote MAC, so what the
 * device answers (READ responses, ACKs, NAKs) goes to the host's wire,
 * where the oracles see it, and the input plays that remote peer.  Every
 * scenario has a large region (BIG_STAG: 2 GiB from the start of guest
 * RAM, remote read and write) for READ requests of any length.
 */
#include "fuzz-common.h"
#include "roce/roce-int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BIG_STAG        ((0x20u << 8) | 0x5A)
#define BIG_VA          FAKE_MEM_BASE
#define BIG_LEN         0x80000000ull
#define ROCE_MTU        1024

static bool remote;
/* The PSN QP 3 + i expects next, as far as the harness can tell. */
static uint32_t epsn[2];

/* Ethernet/IP/UDP of a packet from the peer (ourselves, or the remote
 * peer of the remote scenario) to us. */
static void peer_path(RocePath *p)
{
    memset(p, 0, sizeof(*p));
    p->ipv4 = true;
    p->ttl = 64;
    p->sport = 0xC000;
    memcpy(p->smac, remote ? fuzz_peer_mac : ifx_mac, 6);
    memcpy(p->dmac, ifx_mac, 6);
    stbe32(p->sip, remote ? FUZZ_PEER_IP : OUR_IP);
    stbe32(p->dip, OUR_IP);
}

static void send_roce(FuzzIn *in)
{
    static uint8_t f[ROCE_FRAME_MAX];
    RocePath p;
    uint8_t m = in8(in), op = in8(in);
    uint32_t psn = in32(in), qpn;
    size_t off, n = in16(in) % (4096 + 20);  /* payload + extension headers */
    size_t len;

    peer_path(&p);
    switch (m & 3) {
    case 0: qpn = 3; break;
    case 1: qpn = 4; break;
    case 2: qpn = 1; break;
    default: qpn = in32(in); break;
    }
    /* Mostly opcodes the engine knows, near the PSNs it expects. */
    if (!(m & 4)) {
        op %= 0x18;
    }
    if (!(m & 8)) {
        psn = (qpn == 4 ? 0xFFFFF0u : 0x100u) + (int8_t)psn;
    }
    off = roce_frame_start(f, &p);
    roce_bth_put(f + off, op, m & 0x10, (m >> 5) & 3, 0xFFFF, qpn, m & 0x80,
                 psn);
    inbuf(in, f + off + ROCE_BTH_LEN, n);
    len = roce_frame_seal(f, &p, off, off + ROCE_BTH_LEN + n);
    if (in8(in) == 0xA5) {
        f[len - 1] ^= 1;                /* bad ICRC */
    }
    fz_receive(f, len);
}

/*
 * A READ request (or an ATOMIC) to QP 3 + (m & 1) at the PSN it expects,
 * or a duplicate below it: RETH for the large region or input-chosen,
 * with lengths up to 0x7FFFFFFF and beyond.
 */
static void send_read(FuzzIn *in)
{
    static uint8_t f[256];
    static const uint32_t lens[] = { 0x7FFFFFFF, 0, 1, ROCE_MTU,
                                     ROCE_MTU * 200 + 1, 0x80000000u,
                                     16u << 20, 0xFFFFFFFFu };
    RocePath p;
    uint8_t m = in8(in), k = in8(in);
    unsigned i = m & 1;
    uint32_t psn = epsn[i], len, rkey = BIG_STAG, npkt;
    uint64_t va = BIG_VA;
    size_t off, n = ROCE_RETH_LEN;
    uint8_t *e;

    if (m & 2) {
        psn -= 1 + k;                   /* a duplicate */
    }
    switch (m >> 5) {
    case 0:
    case 1:
        len = lens[k % 8];
        break;
    case 2:
        len = in16(in);
        break;
    case 3:
        len = (uint32_t)k * ROCE_MTU;
        break;
    default:
        len = in32(in);
        if (!(m & 0x80)) {
            len &= 0x7FFFFFFF;
        }
        break;
    }
    if (m & 8) {
        rkey = in32(in);
    }
    if (m & 0x10) {
        va = BIG_VA + in32(in);
    }
    peer_path(&p);
    off = roce_frame_start(f, &p);
    roce_bth_put(f + off, (m & 3) == 3 && (k & 0x10) ? 0x13 + (k & 1) :
                 ROCE_READ_REQ, false, 0, 0xFFFF, 3 + i, m & 4,
                 psn & ROCE_PSN_MASK);
    e = f + off + ROCE_BTH_LEN;
    stbe64(e, va);
    stbe32(e + 8, rkey);
    stbe32(e + 12, len);
    if ((m & 3) == 3 && (k & 0x10)) {
        /* AtomicETH: VA, R_Key, swap/add, compare */
        stbe64(e + 12, in64(in));
        stbe64(e + 20, in64(in));
        n = 28;
    }
    fz_receive(f, roce_frame_seal(f, &p, off, off + ROCE_BTH_LEN + n));
    if (!(m & 2)) {
        npkt = len ? (len + ROCE_MTU - 1) / ROCE_MTU : 1;
        epsn[i] = (epsn[i] + npkt) & ROCE_PSN_MASK;
    }
}

/* ---- multicast ----------------------------------------------------------- */

#define MC_QP(i)        (5 + (i))
#define MC_PAGE(i)      M(0x110000 + 0x1000 * (i))
#define MC_BUF(i, k)    (BUF_PA(1) + 0x4000 + 0x1000 * (i) + 0x400 * (k))
#define MC_QKEY         0x01234567u
#define MC_CTX_PA       M(0x180000)
#define MC_GRP4         0xEF010203u
#define MC_AH4          7
#define MC_AH6          8
static const uint8_t mc_mac4[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };
static const uint8_t mc_mac6[6] = { 0x33, 0x33, 0xff, 0x0e, 0x00, 0x00 };
static const uint8_t mc_grp6[16] = { 0xff, 0x0e, [12] = 0x12, 0x34, 0x56,
                                     0x78 };
/* SQ and RQ producer indexes of the UD QPs (the set-up leaves 0 and 4). */
static unsigned mc_sq[2], mc_rq[2];

/*
 * A group op (uda.c:irdma_access_mcast_grp) as the input writes it.  m:
 * group number 1:0 (or 16 bits from the input with bit 7), VLAN 2, IPv6
 * 3, opcode 5:4 (create, modify, destroy, create), the eight context
 * entries from the input 6; e: entries 2:0 (count - 1), the first QP of
 * a run of the list below 7:3;
 * x: MAC and address from the input 0, IPv4 group 3:1.
 */
static void mc_cqp(FuzzIn *in)
{
    static const uint32_t qps[8] = { 5, 6, 3, 4, 1, 0, 63, 0x3FFFF };
    uint8_t m = in8(in), e = in8(in), x = in8(in);
    uint64_t q[8] = { 0 };
    unsigned idx = (m & 0x80) ? in16(in) : m & 3;
    bool v6 = m & 8;
    uint64_t h = idx | (v6 ? 0 : CQPSQ_MG_IPV4VALID);

    for (unsigned i = 0; i < MGCTX_ENTRIES; i++) {
        uint64_t v = 0;

        if (m & 0x40) {
            v = in64(in);
        } else if (i < (e & 7) + 1u) {
            v = MGCTX_VALIDENT | qps[((e >> 3) + i) & 7];
        }
        st64(fake_mem(&ifx.h, MC_CTX_PA + 8 * i), v);
    }
    q[0] = mac_u64(v6 ? mc_mac6 : mc_mac4);
    q[4] = MC_CTX_PA;
    if (v6) {
        q[7] = ldbe64(mc_grp6);
        q[6] = ldbe64(mc_grp6 + 8);
    } else {
        q[6] = MC_GRP4 + ((x >> 1) & 7);
    }
    if (m & 4) {
        h |= CQPSQ_MG_VLANVALID;
        q[2] = (uint64_t)(in16(in) & 0xFFF) << 32;
    }
    if (x & 1) {
        q[0] = in64(in);
        q[6] = in64(in);
        q[7] = in64(in);
    }
    FZ_GUEST("CQP", ifx_cqp(CQP_OP_CREATE_MCAST_GRP + ((m >> 4) & 3) % 3, q,
                            h));
}

/* A UD datagram from the peer to a group: mostly well formed, else with
 * another QPN, MAC, opcode, Q_Key, a VLAN tag or a bad ICRC. */
static void mc_datagram(FuzzIn *in)
{
    static uint8_t f[ROCE_FRAME_MAX];
    uint8_t m = in8(in);
    bool v6 = m & 1;
    RocePath p;
    size_t off, x, n = in16(in) % 1100;
    uint32_t dqpn = (m & 2) ? in32(in) : ROCE_MCAST_QPN;
    uint8_t op = (m & 8) ? in8(in) : ROCE_UD_SEND_ONLY + (m >> 7);

    peer_path(&p);
    p.ipv4 = !v6;
    memcpy(p.dmac, (m & 4) ? ifx_mac : v6 ? mc_mac6 : mc_mac4, 6);
    if (v6) {
        memset(p.sip, 0xFD, 16);
        memcpy(p.dip, mc_grp6, 16);
    } else {
        stbe32(p.dip, MC_GRP4);
    }
    if (m & 0x40) {
        p.vlan = true;
        p.vlan_tci = in16(in);
    }
    off = roce_frame_start(f, &p);
    x = off + ROCE_BTH_LEN;
    stbe32(f + x, (m & 0x10) ? in32(in) : MC_QKEY);
    f[x + 4] = 0;
    roce_put24(f + x + 5, 0x99);
    x += ROCE_DETH_LEN;
    inbuf(in, f + x, n);
    x += n;
    roce_bth_put(f + off, op, false, 0, 0xFFFF, dqpn, false, 1);
    x = roce_frame_seal(f, &p, off, x);
    if (m & 0x20) {
        f[x - 1] ^= 1;
    }
    fz_receive(f, x);
}

/* A UD SEND from QP 5 or 6 to the group's AH (IPv4 or IPv6) or any. */
static void mc_send(FuzzIn *in)
{
    uint8_t m = in8(in);
    unsigned i = m & 1, len = in16(in) % 1200;
    unsigned ah = (m & 2) ? MC_AH6 : (m & 4) ? in8(in) : MC_AH4;
    uint64_t w = MC_PAGE(i) + IFX_UD_SQ + 32ull * (mc_sq[i] % 16);
    uint32_t dqpn = (m & 8) ? in32(in) : ROCE_MCAST_QPN;

    st64(fake_mem(&ifx.h, w), BUF_PA(0));
    st64(fake_mem(&ifx.h, w + 8), (uint64_t)len << 32 | STAG(0));
    st64(fake_mem(&ifx.h, w + 16), MC_QKEY | (uint64_t)dqpn << 32);
    st64(fake_mem(&ifx.h, w + 24), ah | 0x03ull << 32 | 1ull << 62 |
         (uint64_t)((mc_sq[i] / 16 + 1) & 1) << 63);
    mc_sq[i]++;
    FZ_GUEST("UD doorbell", ifx_wr(PFPE_WQEALLOC, MC_QP(i)));
}

/* Receive WQEs for QP 5 or 6 (1 KiB each, in its four buffers). */
static void mc_recv(FuzzIn *in)
{
    uint8_t m = in8(in);
    unsigned i = m & 1;

    for (unsigned n = 0; n < 1u + ((m >> 1) & 3); n++) {
        uint64_t w = MC_PAGE(i) + IFX_UD_RQ + 32ull * (mc_rq[i] % 16);

        st64(fake_mem(&ifx.h, w), MC_BUF(i, mc_rq[i] % 4));
        st64(fake_mem(&ifx.h, w + 8), 0x400ull << 32 | STAG(1));
        st64(fake_mem(&ifx.h, w + 24), (uint64_t)((mc_rq[i] / 16 + 1) & 1)
                                      << 63);
        mc_rq[i]++;
    }
}

static void mc_op(FuzzIn *in, uint8_t op)
{
    switch (op & 3) {
    case 0:
        mc_cqp(in);
        break;
    case 1:
        mc_datagram(in);
        break;
    case 2:
        mc_send(in);
        break;
    default:
        mc_recv(in);
        break;
    }
}

/* UD QPs 5 and 6 on CQ 3, each with four receive WQEs, members of group
 * 1 (239.1.2.3, the switch delivering its MAC); ARP 3/4 and AHs 7/8 to
 * the IPv4 and IPv6 groups with DOLOOPBACK, as irdma_setup_ah makes
 * them. */
static void build_mcast(void)
{
    uint64_t q[8] = { 0 };

    for (unsigned i = 0; i < 2; i++) {
        ifx_ud_qp(MC_QP(i), 3, MC_PAGE(i), MC_QKEY, COMPCTX(0x50 + i));
        for (unsigned k = 0; k < 4; k++) {
            uint64_t w = MC_PAGE(i) + IFX_UD_RQ + 32ull * k;

            ifx_set64(w, MC_BUF(i, k));
            ifx_set64(w + 8, 0x400ull << 32 | STAG(1));
            ifx_set64(w + 24, 1ull << 63);
        }
    }
    if (aq_add_mac_rule(&ifx, ifx_cur->vsi, mc_mac4) ||
        aq_add_mac_rule(&ifx, ifx_cur->vsi, mc_mac6)) {
        ifx_failures++;
    }
    for (unsigned v6 = 0; v6 < 2; v6++) {
        memset(q, 0, sizeof(q));
        q[2] = mac_u64(v6 ? mc_mac6 : mc_mac4);
        ifx_failures += ifx_cqp(0x0f, q, (3 + v6) | 1ull << 42) != 0;
        ifx_failures += ifx_mc_ah(v6 ? MC_AH6 : MC_AH4, 3 + v6,
                                  v6 ? mc_grp6 : NULL, MC_GRP4) != 0;
    }
    memset(q, 0, sizeof(q));
    st64(ifx_mem(MC_CTX_PA), MGCTX_VALIDENT | MC_QP(0));
    st64(ifx_mem(MC_CTX_PA + 8), MGCTX_VALIDENT | MC_QP(1));
    q[0] = mac_u64(mc_mac4);
    q[4] = MC_CTX_PA;
    q[6] = MC_GRP4;
    ifx_failures += ifx_cqp(CQP_OP_CREATE_MCAST_GRP, q,
                            1 | CQPSQ_MG_IPV4VALID) != 0;
}

/* The scenario: RoCE QPs 3 and 4 (to ourselves or the remote peer),
 * the large region, and the multicast group's UD QPs. */
static void build(unsigned id, void *opaque)
{
    uint64_t q[8] = { 0 };

    (void)opaque;
    ifx_cur->roce = true;
    ifx_cur->psn[0] = 0xFFFFF0;
    ifx_cur->psn[1] = 0x000100;
    fuzz_build_scen((id & 1) ? SCEN_IWARP_USER : SCEN_IWARP_KERNEL);
    q[0] = BIG_VA;
    q[1] = BIG_LEN | (uint64_t)PD << 46;
    q[2] = BIG_STAG;
    q[4] = BIG_VA;
    if (ifx_cqp(0x0a, q, 0xFull << 48 | 1ull << 53 | 1ull << 59)) {
        ifx_failures++;
    }
    build_mcast();
}

/* Ops 4 and 5: an RQ or SQ WQE of QP 3 or 4. */
static void (*const qp_wqe[])(FuzzIn *in) = { fuzz_rq_wqe, fuzz_sq_wqe };

static void roce_fuzz_op(FuzzIn *in, uint8_t op)
{
    if (op >= 0xF0) {
        send_read(in);
        return;
    }
    if (op >= 0xE8) {
        mc_op(in, op);
        return;
    }
    switch (op % 8) {
    case 0:
    case 1:
    case 2:
        send_roce(in);
        break;
    case 3:
        fuzz_frame_raw(in);
        break;
    case 4:
    case 5:
        qp_wqe[op % 8 - 4](in);
        break;
    case 6: {
        /* QP 3 + (k & 1) to SQD / ERROR / RTR again, or (3) destroyed. */
        static const uint64_t next[] = { 3ull << 60, 6ull << 60,
                                         4ull << 60, 0 };
        uint8_t k = in8(in);
        unsigned i = k & 1;

        fuzz_qp_cqp(QPCTX_PA(i), (3 + i) | 3ull << 48, (k >> 1) % 4 == 3,
                    next[(k >> 1) % 4]);
        break;
    }
    default:
        fuzz_advance(in);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzIn in = { data, size };
    uint8_t s0 = in8(&in);
    static const IfxState local = FUZZ_IFX_TMPL;
    static const IfxState far = {
        .mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 },
        .peer_mac = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0b },
        .ip = OUR_IP, .peer_ip = FUZZ_PEER_IP,
    };

    remote = s0 & 2;
    fuzz_start(s0 & 3, remote ? &far : &local, build, s0 & 4);
    epsn[0] = 0x000100;
    epsn[1] = 0xFFFFF0;
    mc_sq[0] = mc_sq[1] = 0;
    mc_rq[0] = mc_rq[1] = 4;
    fuzz_run(&in, roce_fuzz_op);
    return 0;
}
