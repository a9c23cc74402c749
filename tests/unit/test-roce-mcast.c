/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RoCEv2 multicast: the CREATE/MODIFY/DESTROY_MCAST_GRP CQP ops as irdma
 * issues them (uda.c:irdma_access_mcast_grp: WQE plus a group context of
 * eight QP entries), datagrams from the wire to a group's UD QPs, a UD
 * send to a multicast address handle going to the wire and looping back
 * to the port's own members, IPv6 groups, two devices on one link, and
 * what a hostile driver can write into the ops.
 */
#include "check.h"

#include "ifx-names.h"
#include "roce/roce.h"
#include "roce/roce-int.h"

#define CQE_IPV4        (1ull << 53)

/* UD QPs 5 .. 5 + NUD - 1 (rdma_cm's, Q_Key RDMA_UDP_QKEY) on CQ 5. */
#define NUD             9
#define UDQP(i)         (5 + (i))
#define UD_QKEY         0x01234567u
#define UD_CQ           5
#define UD_CQ_SIZE      256
#define UD_CQ_PA        M(0x100000)
#define UD_CQ_SHADOW    M(0x102000)
#define UD_PAGE(i)      M(0x110000 + 0x1000 * (i))
#define UD_CTX(i)       UD_PAGE(i)
#define UD_SQ(i)        (UD_PAGE(i) + IFX_UD_SQ)    /* 16 quanta */
#define UD_RQ(i)        (UD_PAGE(i) + IFX_UD_RQ)    /* 16 WQEs */
#define UD_NRQ          16
/* Receive buffers in MR STAG(1) (BUF_PA(1), 64 KiB): 4 per QP. */
#define UD_BUF(i, k)    (BUF_PA(1) + 0x4000 + 0x1000 * (i) + 0x400 * (k))
#define UD_BUF_LEN      0x400
#define MGCTX_PA        M(0x180000)
#define NMCG            64              /* FSIMC committed (fixture) */

#define GRP4            0xEF010203u     /* 239.1.2.3 */
#define AH_MC4          7
#define AH_MC6          8
#define ARP_MC4         3
#define ARP_MC6         4

/* irdma_mcast_mac(): 01:00:5e + the low 23 bits of an IPv4 group; for
 * IPv6, 33:33 and the first four bytes of the address as the driver
 * computes it (the words' bytes in host order). */
static const uint8_t mac4[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };
static const uint8_t grp6[16] = { 0xff, 0x0e, 0, 0, 0, 0, 0, 0,
                                  0, 0, 0, 0, 0x12, 0x34, 0x56, 0x78 };
static const uint8_t mac6[6] = { 0x33, 0x33, 0xff, 0x0e, 0x00, 0x00 };
static const uint8_t peer_mac[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x99 };
static const uint8_t peer_ip6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
                                      0, 0, 0, 0, 0, 0, 0, 0x99 };

static unsigned ud_head, ud_pol;
static unsigned ud_sq_head[NUD];

static void setup(void)
{
    ifx_failures = 0;
    ifx_cur->roce = true;
    ifx_cur->psn[0] = 0x100;
    ifx_cur->psn[1] = 0x200;
    ifx_setup(false);
    CHECK_EQ(ifx_failures, 0);
    CHECK_EQ(e810_rdma_obj_limit(&C, E810_HMC_FSIMC, E810_RDMA_MAX_MCG),
             NMCG);
}

static void teardown(void)
{
    ifx_teardown();
    ifx_cur->roce = false;
}

/* Minor code of the last failed CQP op. */
static unsigned cqp_minor(void)
{
    return e810_mmio_read(&C, PFPE_CQPERRCODES, 4) & 0xFFFF;
}

/* CQ 5 and UD QPs 5.. in RTS, each with four receive WQEs. */
static void ud_setup(void)
{
    uint64_t q[8] = { 0 };

    memset(mem(UD_CQ_PA), 0, 32 * UD_CQ_SIZE);
    q[0] = UD_CQ_SIZE;
    q[1] = 0x5555;
    q[4] = UD_CQ_PA;
    q[5] = UD_CQ_SHADOW;
    CHECK_EQ(cqp(0x03, q, UD_CQ), 0);
    ud_head = 0;
    ud_pol = 1;
    ifx_failures = 0;
    for (unsigned i = 0; i < NUD; i++) {
        ifx_ud_qp(UDQP(i), UD_CQ, UD_PAGE(i), UD_QKEY, COMPCTX(0x50 + i));
        ud_sq_head[i] = 0;
        for (unsigned k = 0; k < 4; k++) {
            uint64_t w = UD_RQ(i) + 32ull * k;

            memset(mem(UD_BUF(i, k)), 0, UD_BUF_LEN);
            set64(w, UD_BUF(i, k));
            set64(w + 8, (uint64_t)UD_BUF_LEN << 32 | STAG(1));
            set64(w + 24, 1ull << 63);
        }
    }
    CHECK_EQ(ifx_failures, 0);
}

/* The next CQE of CQ 5 (and its extension if it has one). */
static bool ud_cqe(uint64_t cqe[4], uint64_t ext[4])
{
    uint64_t pa = UD_CQ_PA + 32ull * ud_head;

    if ((mem64(pa + 24) >> 63) != ud_pol) {
        return false;
    }
    for (int k = 0; k < 4; k++) {
        cqe[k] = mem64(pa + 8 * k);
    }
    if (++ud_head == UD_CQ_SIZE) {
        ud_head = 0;
        ud_pol ^= 1;
    }
    if (cqe[3] & CQE_EXT) {
        pa = UD_CQ_PA + 32ull * ud_head;
        for (int k = 0; k < 4; k++) {
            ext[k] = mem64(pa + 8 * k);
        }
        if (++ud_head == UD_CQ_SIZE) {
            ud_head = 0;
            ud_pol ^= 1;
        }
    }
    return true;
}

/* Receive CQEs per UD QP (index i of UDQP(i)) now in CQ 5; errors and
 * send completions counted apart. */
static void ud_take(unsigned got[NUD], unsigned *sends, unsigned *errors,
                    uint32_t imm_want)
{
    uint64_t cqe[4], ext[4];

    memset(got, 0, sizeof(unsigned) * NUD);
    *sends = *errors = 0;
    while (ud_cqe(cqe, ext)) {
        unsigned qp = (unsigned)(cqe[2] >> 32) & 0xFFFFFF;

        if (cqe[3] & CQE_ERROR) {
            (*errors)++;
            continue;
        }
        if (cqe[3] & (1ull << 62)) {
            (*sends)++;
            continue;
        }
        if (qp >= UDQP(0) && qp < UDQP(NUD)) {
            got[qp - UDQP(0)]++;
            CHECK_EQ(cqe[1], COMPCTX(0x50 + qp - UDQP(0)));
            if (imm_want) {
                CHECK(cqe[3] & CQE_EXT);
                CHECK_EQ(ext[0] & 0xFFFFFFFF, imm_want);
            }
        } else {
            CHECK(!"receive CQE for a QP outside the UD ones");
        }
    }
}

/* The group context irdma writes: QP ids compacted, VALIDENT set. */
static void mgctx(const unsigned *qps, unsigned n)
{
    memset(mem(MGCTX_PA), 0, 8 * MGCTX_ENTRIES);
    for (unsigned i = 0; i < n; i++) {
        set64(MGCTX_PA + 8 * i, MGCTX_VALIDENT | qps[i]);
    }
}

/* CREATE/MODIFY/DESTROY_MCAST_GRP @op for group @idx of IPv4 group
 * GRP4 (or IPv6 grp6): 0 done, 1 error completion. */
static unsigned mcg_op(unsigned op, unsigned idx, bool v6)
{
    uint64_t q[8] = { 0 };

    q[0] = mac_u64(v6 ? mac6 : mac4);
    q[1] = 0;                           /* HMC function of PF 0 */
    q[2] = 7;                           /* QS handle */
    q[4] = MGCTX_PA;
    if (v6) {
        q[7] = ldbe64(grp6);
        q[6] = ldbe64(grp6 + 8);
    } else {
        q[6] = GRP4;
    }
    return cqp(op, q, idx | (v6 ? 0 : CQPSQ_MG_IPV4VALID));
}

/* The group context of the @n QPs @qps, then mcg_op(@op, @idx, @v6). */
static unsigned mcg_ctx_op(unsigned op, unsigned idx, bool v6,
                           const unsigned *qps, unsigned n)
{
    mgctx(qps, n);
    return mcg_op(op, idx, v6);
}

/* Switch filter for @mac on the PF's VSI, as ice adds it for the
 * IP stack's multicast list (rdma_cm joins IPv4 groups there). */
static void mac_filter(const uint8_t *mac)
{
    CHECK_EQ(aq_add_mac_rule(&ifx, ifx_cur->vsi, mac), 0);
}

/* A UD datagram from a peer QP 0x99 to group @v6 ? grp6 : GRP4 with
 * @len bytes of 0xA0 + i and immediate data, delivered to the device. */
static void peer_datagram(bool v6, uint32_t dqpn, const uint8_t *dmac,
                          unsigned len)
{
    static uint8_t f[ROCE_FRAME_MAX];
    RocePath p = { .ipv4 = !v6, .ttl = 64, .sport = 0xC123 };
    size_t off, x;

    memcpy(p.smac, peer_mac, 6);
    memcpy(p.dmac, dmac, 6);
    if (v6) {
        memcpy(p.sip, peer_ip6, 16);
        memcpy(p.dip, grp6, 16);
    } else {
        stbe32(p.sip, 0x0A000099u);
        stbe32(p.dip, GRP4);
    }
    off = roce_frame_start(f, &p);
    x = off + ROCE_BTH_LEN;
    stbe32(f + x, UD_QKEY);
    f[x + 4] = 0;
    roce_put24(f + x + 5, 0x99);
    x += ROCE_DETH_LEN;
    stbe32(f + x, 0xC0FFEE00u + len);
    x += ROCE_IMM_LEN;
    for (unsigned i = 0; i < len; i++) {
        f[x++] = (uint8_t)(0xA0 + i);
    }
    while ((x - off) & 3) {
        f[x++] = 0;
    }
    roce_bth_put(f + off, ROCE_UD_SEND_ONLY_IMM, false, (4 - (len & 3)) & 3,
                 0xFFFF, dqpn, false, 0x1234);
    e810_receive(&C, f, roce_frame_seal(f, &p, off, x));
}

static bool payload_at(uint64_t pa, unsigned len)
{
    const uint8_t *b = mem(pa + ROCE_GRH_LEN);

    for (unsigned i = 0; i < len; i++) {
        if (b[i] != (uint8_t)(0xA0 + i)) {
            return false;
        }
    }
    return true;
}

/* ---- CQP ops ------------------------------------------------------------- */

static void test_mcg_ops(void)
{
    unsigned qps[3] = { UDQP(0), UDQP(1), UDQP(2) };
    const E810RdmaMcg *g;

    setup();
    ud_setup();
    /* The first QP joins: CREATE with one entry. */
    CHECK_EQ(mcg_ctx_op(CQP_OP_CREATE_MCAST_GRP, 1, false, qps, 1), 0);
    g = &C.rdma.mcg[1];
    CHECK(g->valid && g->ipv4 && g->nqp == 1 && g->qp[0] == UDQP(0));
    CHECK(!memcmp(g->mac, mac4, 6));
    CHECK_EQ(ldbe32(g->ip), GRP4);
    CHECK_EQ(g->qs_handle, 7);
    CHECK_EQ(C.rdma.mcg_count, 1);
    /* Two more join: MODIFY with the whole list. */
    CHECK_EQ(mcg_ctx_op(CQP_OP_MODIFY_MCAST_GRP, 1, false, qps, 3), 0);
    CHECK(g->nqp == 3 && g->qp[2] == UDQP(2));
    {
        uint32_t m[MGCTX_ENTRIES * E810_MCG_PER_ADDR];

        CHECK_EQ(e810_rdma_mcg_members(&C, true, g->ip, E810_VLAN_NONE, m,
                                       MGCTX_ENTRIES * E810_MCG_PER_ADDR), 3);
        CHECK_EQ(m[2], UDQP(2));
    }
    /* The first leaves: irdma moves the last entry into its slot. */
    qps[0] = UDQP(2);
    CHECK_EQ(mcg_ctx_op(CQP_OP_MODIFY_MCAST_GRP, 1, false, qps, 2), 0);
    CHECK(g->nqp == 2 && g->qp[0] == UDQP(2) && g->qp[1] == UDQP(1));
    /* The last leaves: DESTROY with the emptied context. */
    CHECK_EQ(mcg_ctx_op(CQP_OP_DESTROY_MCAST_GRP, 1, false, qps, 0), 0);
    CHECK(!g->valid);
    CHECK_EQ(C.rdma.mcg_count, 0);
    {
        uint32_t m[MGCTX_ENTRIES];

        CHECK_EQ(e810_rdma_mcg_members(&C, true, g->ip, E810_VLAN_NONE, m,
                                       MGCTX_ENTRIES), 0);
    }
    /* An IPv6 group in the same slot afterwards. */
    CHECK_EQ(mcg_ctx_op(CQP_OP_CREATE_MCAST_GRP, 1, true, qps, 1), 0);
    CHECK(g->valid && !g->ipv4 && !memcmp(g->ip, grp6, 16));
    CHECK_EQ(mcg_op(CQP_OP_DESTROY_MCAST_GRP, 1, true), 0);
    CHECK_EQ(H.guest_errors, 0);
    teardown();
}

/* What a hostile or broken driver can put into the ops: answered with
 * the CQP's error codes, the table unchanged, the device going on. */
static void test_mcg_hostile(void)
{
    unsigned qps[MGCTX_ENTRIES + 1], i, errs;
    uint64_t q[8] = { 0 };
    const E810RdmaMcg *g;

    setup();
    ud_setup();
    for (i = 0; i < MGCTX_ENTRIES + 1; i++) {
        qps[i] = UDQP(i);
    }
    mgctx(qps, 2);
    errs = H.guest_errors;
    /* Group numbers past the committed FSIMC count, and the field's top. */
    CHECK_EQ(mcg_op(CQP_OP_CREATE_MCAST_GRP, NMCG, false), 1);
    CHECK_EQ(cqp_minor(), E810_CQP_MIN_BAD_ID);
    CHECK_EQ(mcg_op(CQP_OP_CREATE_MCAST_GRP, 0x1FFF, false), 1);
    CHECK_EQ(cqp_minor(), E810_CQP_MIN_BAD_ID);
    /* Destroy of a group that is not there. */
    CHECK_EQ(mcg_op(CQP_OP_DESTROY_MCAST_GRP, 2, false), 1);
    CHECK_EQ(cqp_minor(), E810_CQP_MIN_BAD_ID);
    CHECK_EQ(mcg_op(CQP_OP_DESTROY_MCAST_GRP, NMCG + 5, false), 1);
    CHECK_EQ(cqp_minor(), E810_CQP_MIN_BAD_ID);
    /* Entries naming a QP past the committed count, the same QP twice,
     * a VF's QP.  (An RC QP or a destroyed one is taken: see
     * test_mcg_stale_member.) */
    qps[1] = 0x3FFFF;
    CHECK_EQ(mcg_ctx_op(CQP_OP_CREATE_MCAST_GRP, 2, false, qps, 2), 1);
    CHECK_EQ(cqp_minor(), E810_CQP_MIN_BAD_PARAM);
    qps[1] = e810_rdma_obj_limit(&C, E810_HMC_QP, E810_RDMA_MAX_QPS);
    CHECK_EQ(mcg_ctx_op(CQP_OP_CREATE_MCAST_GRP, 2, false, qps, 2), 1);
    CHECK_EQ(cqp_minor(), E810_CQP_MIN_BAD_PARAM);
    qps[1] = UDQP(0);
    CHECK_EQ(mcg_ctx_op(CQP_OP_CREATE_MCAST_GRP, 2, false, qps, 2), 1);
    CHECK_EQ(cqp_minor(), E810_CQP_MIN_BAD_PARAM);
    qps[1] = UDQP(1);
    mgctx(qps, 2);
    set64(MGCTX_PA + 8, MGCTX_VALIDENT | MGCTX_VFFLAG | 3ull << 22 | UDQP(1));
    CHECK_EQ(mcg_op(CQP_OP_CREATE_MCAST_GRP, 2, false), 1);
    CHECK_EQ(cqp_minor(), E810_CQP_MIN_BAD_PARAM);
    /* A unicast address or MAC, another HMC function, an unreadable
     * context. */
    mgctx(qps, 2);
    q[0] = mac_u64(mac4);
    q[4] = MGCTX_PA;
    q[6] = 0x0A000005;
    CHECK_EQ(cqp(CQP_OP_CREATE_MCAST_GRP, q, 2 | CQPSQ_MG_IPV4VALID), 1);
    CHECK_EQ(cqp_minor(), E810_CQP_MIN_BAD_PARAM);
    q[0] = mac_u64(ifx_mac);
    q[6] = GRP4;
    CHECK_EQ(cqp(CQP_OP_CREATE_MCAST_GRP, q, 2 | CQPSQ_MG_IPV4VALID), 1);
    CHECK_EQ(cqp_minor(), E810_CQP_MIN_BAD_PARAM);
    q[0] = mac_u64(mac4);
    q[1] = 3;
    CHECK_EQ(cqp(CQP_OP_CREATE_MCAST_GRP, q, 2 | CQPSQ_MG_IPV4VALID), 1);
    CHECK_EQ(cqp_minor(), E810_CQP_MIN_BAD_PARAM);
    q[1] = 0;
    q[4] = 0xDEAD0000000ull;
    CHECK_EQ(cqp(CQP_OP_CREATE_MCAST_GRP, q, 2 | CQPSQ_MG_IPV4VALID), 1);
    CHECK_EQ(cqp_minor(), E810_CQP_MIN_DMA);
    CHECK_EQ(C.rdma.mcg_count, 0);
    CHECK(H.guest_errors > errs);

    /* Eight QPs fill a group: the context has no room for a ninth, and
     * what lies past its eight entries is not read. */
    mgctx(qps, MGCTX_ENTRIES);
    set64(MGCTX_PA + 8 * MGCTX_ENTRIES, MGCTX_VALIDENT | UDQP(MGCTX_ENTRIES));
    CHECK_EQ(mcg_op(CQP_OP_CREATE_MCAST_GRP, 2, false), 0);
    g = &C.rdma.mcg[2];
    CHECK_EQ(g->nqp, MGCTX_ENTRIES);
    for (i = 0; i < MGCTX_ENTRIES; i++) {
        CHECK_EQ(g->qp[i], UDQP(i));
    }
    /* Two joins racing in the driver make a second group for the same
     * address (irdma_attach_mcast drops its lock between lookup and
     * create): taken, up to E810_MCG_PER_ADDR groups per address; a
     * datagram reaches each member once. */
    for (i = 1; i < E810_MCG_PER_ADDR; i++) {
        CHECK_EQ(mcg_op(CQP_OP_CREATE_MCAST_GRP, 40 + i, false), 0);
    }
    {
        uint32_t m[MGCTX_ENTRIES * E810_MCG_PER_ADDR];

        CHECK_EQ(e810_rdma_mcg_members(&C, true, g->ip, E810_VLAN_NONE, m,
                                       MGCTX_ENTRIES * E810_MCG_PER_ADDR),
                 MGCTX_ENTRIES);
    }
    CHECK_EQ(mcg_op(CQP_OP_CREATE_MCAST_GRP, 40 + E810_MCG_PER_ADDR, false), 1);
    CHECK_EQ(cqp_minor(), E810_CQP_MIN_BAD_PARAM);
    for (i = 1; i < E810_MCG_PER_ADDR; i++) {
        CHECK_EQ(mcg_op(CQP_OP_DESTROY_MCAST_GRP, 40 + i, false), 0);
    }
    qps[0] = 0x3FFFF;
    CHECK_EQ(mcg_ctx_op(CQP_OP_MODIFY_MCAST_GRP, 2, false, qps, 2), 1);
    CHECK_EQ(g->nqp, MGCTX_ENTRIES);
    CHECK_EQ(g->qp[0], UDQP(0));
    /* Valid entries in any slot count (the driver compacts, the device
     * does not rely on it); a group may be left empty. */
    memset(mem(MGCTX_PA), 0, 8 * MGCTX_ENTRIES);
    set64(MGCTX_PA + 8 * 7, MGCTX_VALIDENT | UDQP(4));
    CHECK_EQ(mcg_op(CQP_OP_MODIFY_MCAST_GRP, 2, false), 0);
    CHECK(g->nqp == 1 && g->qp[0] == UDQP(4));
    memset(mem(MGCTX_PA), 0, 8 * MGCTX_ENTRIES);
    CHECK_EQ(mcg_op(CQP_OP_MODIFY_MCAST_GRP, 2, false), 0);
    CHECK_EQ(g->nqp, 0);
    /* Nothing to deliver to: counted, no CQE. */
    mac_filter(mac4);
    peer_datagram(false, ROCE_MCAST_QPN, mac4, 16);
    CHECK_EQ(e810_roce_stats(&C)->mcast_no_group, 1);
    CHECK(!ud_cqe(q, q + 4));
    CHECK_EQ(mcg_op(CQP_OP_DESTROY_MCAST_GRP, 2, false), 0);
    CHECK_EQ(mcg_op(CQP_OP_DESTROY_MCAST_GRP, 2, false), 1);
    CHECK_EQ(cqp_minor(), E810_CQP_MIN_BAD_ID);
    /* Every group number the driver can hand out, then all gone: the
     * ring went on through all of it. */
    for (i = 1; i < NMCG; i++) {
        uint64_t w[8] = { 0 };

        mgctx(qps + 1, 1);
        w[0] = mac_u64(mac4);
        w[4] = MGCTX_PA;
        w[6] = GRP4 + i;
        CHECK_EQ(cqp(CQP_OP_CREATE_MCAST_GRP, w, i | CQPSQ_MG_IPV4VALID), 0);
    }
    CHECK_EQ(C.rdma.mcg_count, NMCG - 1);
    for (i = 1; i < NMCG; i++) {
        CHECK_EQ(mcg_op(CQP_OP_DESTROY_MCAST_GRP, i, false), 0);
    }
    CHECK_EQ(C.rdma.mcg_count, 0);
    teardown();
}

/*
 * irdma's own race, as rdma-core's multicast tests hit it: two QPs join
 * one address at once and the driver creates two groups for it; each
 * detach then goes to the first group of the address in the driver's
 * list, so a QP can be destroyed while another group still lists it,
 * and the next MODIFY of that group carries the destroyed QP.  The card
 * takes such a list; so does the device, and delivery skips the member.
 */
static void test_mcg_stale_member(void)
{
    unsigned a = UDQP(0), b = UDQP(1), ac[2] = { UDQP(0), UDQP(2) };
    unsigned got[NUD], sends, errs;
    const E810RoceCounters *st;
    uint64_t q[8] = { 0 }, before;

    setup();
    ud_setup();
    st = e810_roce_stats(&C);
    CHECK_EQ(mcg_ctx_op(CQP_OP_CREATE_MCAST_GRP, 1, false, &a, 1), 0);
    CHECK_EQ(mcg_ctx_op(CQP_OP_CREATE_MCAST_GRP, 2, false, &b, 1), 0);
    /* a's detach finds group 2 (newest first), which lacks a: the
     * driver modifies group 2 unchanged; b's detach destroys group 2. */
    CHECK_EQ(mcg_op(CQP_OP_MODIFY_MCAST_GRP, 2, false), 0);
    CHECK_EQ(mcg_ctx_op(CQP_OP_DESTROY_MCAST_GRP, 2, false, &b, 0), 0);
    /* a is destroyed, still in group 1. */
    q[2] = UD_CTX(0);
    CHECK_EQ(cqp(0x02, q, a | 4ull << 48), 0);
    /* The next test's QP joins: group 1 is modified to {a, c}. */
    CHECK_EQ(mcg_ctx_op(CQP_OP_MODIFY_MCAST_GRP, 1, false, ac, 2), 0);
    CHECK_EQ(C.rdma.mcg[1].nqp, 2);
    /* A datagram reaches c; a is counted, not placed. */
    mac_filter(mac4);
    before = st->rx_no_qp;
    peer_datagram(false, ROCE_MCAST_QPN, mac4, 20);
    ud_take(got, &sends, &errs, 0xC0FFEE00u + 20);
    CHECK_EQ(got[2], 1);
    CHECK_EQ(got[1], 0);
    CHECK_EQ(errs, 0);
    CHECK(payload_at(UD_BUF(2, 0), 20));
    CHECK_EQ(st->rx_no_qp, before + 1);
    /* An RC QP's number is taken alike, and skipped alike. */
    ac[0] = 3;
    CHECK_EQ(mcg_ctx_op(CQP_OP_MODIFY_MCAST_GRP, 1, false, ac, 2), 0);
    before = st->rx_no_qp;
    peer_datagram(false, ROCE_MCAST_QPN, mac4, 20);
    ud_take(got, &sends, &errs, 0xC0FFEE00u + 20);
    CHECK_EQ(got[2], 1);
    CHECK_EQ(st->rx_no_qp, before + 1);
    CHECK_EQ(H.guest_errors, 0);
    teardown();
}

/*
 * The driver's other race: a second QP joins while the first one's
 * CREATE is being built, and its MODIFY reaches the CQP first.  Both
 * ops write the whole group, so both are taken in either order and the
 * group ends with what the driver wrote last.
 */
static void test_mcg_modify_first(void)
{
    unsigned ab[2] = { UDQP(0), UDQP(1) };
    uint32_t m[MGCTX_ENTRIES * E810_MCG_PER_ADDR];
    const E810RdmaMcg *g;

    setup();
    ud_setup();
    CHECK_EQ(mcg_ctx_op(CQP_OP_MODIFY_MCAST_GRP, 3, false, ab, 2), 0);
    g = &C.rdma.mcg[3];
    CHECK(g->valid && g->nqp == 2);
    CHECK_EQ(C.rdma.mcg_count, 1);
    CHECK_EQ(mcg_op(CQP_OP_CREATE_MCAST_GRP, 3, false), 0);
    CHECK(g->valid && g->nqp == 2 && g->qp[1] == UDQP(1));
    CHECK_EQ(C.rdma.mcg_count, 1);
    CHECK_EQ(e810_rdma_mcg_members(&C, true, g->ip, E810_VLAN_NONE, m,
                                   MGCTX_ENTRIES * E810_MCG_PER_ADDR), 2);
    CHECK_EQ(mcg_ctx_op(CQP_OP_DESTROY_MCAST_GRP, 3, false, ab, 0), 0);
    CHECK_EQ(C.rdma.mcg_count, 0);
    CHECK_EQ(mcg_op(CQP_OP_DESTROY_MCAST_GRP, 3, false), 1);
    CHECK_EQ(cqp_minor(), E810_CQP_MIN_BAD_ID);
    CHECK_EQ(H.guest_errors, 1);
    teardown();
}

/* In iWARP mode there are no multicast groups. */
static void test_mcg_iwarp(void)
{
    unsigned qp3 = 3;

    ifx_failures = 0;
    ifx_setup(false);
    CHECK_EQ(ifx_failures, 0);
    CHECK_EQ(mcg_ctx_op(CQP_OP_CREATE_MCAST_GRP, 1, false, &qp3, 1), 1);
    CHECK_EQ(cqp_minor(), E810_CQP_MIN_UNSUPPORTED);
    ifx_teardown();
}

/* ---- receive ------------------------------------------------------------- */

static void test_mcast_rx(void)
{
    unsigned qps[2] = { UDQP(0), UDQP(1) }, got[NUD], sends, errs;
    const E810RoceCounters *st;

    setup();
    ud_setup();
    CHECK_EQ(mcg_ctx_op(CQP_OP_CREATE_MCAST_GRP, 1, false, qps, 2), 0);
    st = e810_roce_stats(&C);
    /* No switch filter for the group's MAC yet: not the function's frame
     * (the LAN drops it), nothing for the engine. */
    peer_datagram(false, ROCE_MCAST_QPN, mac4, 100);
    ud_take(got, &sends, &errs, 0);
    CHECK_EQ(got[0] + got[1], 0);
    CHECK_EQ(st->mcast_rx, 0);
    /* With it (the IP stack joined): one copy into each member. */
    mac_filter(mac4);
    peer_datagram(false, ROCE_MCAST_QPN, mac4, 100);
    ud_take(got, &sends, &errs, 0xC0FFEE00u + 100);
    CHECK_EQ(got[0], 1);
    CHECK_EQ(got[1], 1);
    CHECK_EQ(got[2], 0);
    CHECK_EQ(errs, 0);
    CHECK_EQ(st->mcast_rx, 1);
    for (unsigned i = 0; i < 2; i++) {
        const uint8_t *grh = mem(UD_BUF(i, 0));

        CHECK(payload_at(UD_BUF(i, 0), 100));
        CHECK_EQ(grh[20], 0x45);            /* IPv4 header in the slot */
        CHECK_EQ(ldbe32(grh + 36), GRP4);   /* ... to the group */
    }
    /* QP 6 leaves (MODIFY with QP 5 alone): only QP 5 gets the next. */
    CHECK_EQ(mcg_ctx_op(CQP_OP_MODIFY_MCAST_GRP, 1, false, qps, 1), 0);
    peer_datagram(false, ROCE_MCAST_QPN, mac4, 10);
    ud_take(got, &sends, &errs, 0xC0FFEE00u + 10);
    CHECK_EQ(got[0], 1);
    CHECK_EQ(got[1], 0);
    CHECK(payload_at(UD_BUF(0, 1), 10));
    /* Not a multicast datagram: the group's MAC with a QP's number, or
     * QPN 0xFFFFFF to our own MAC; each counted, none placed. */
    peer_datagram(false, UDQP(0), mac4, 10);
    peer_datagram(false, ROCE_MCAST_QPN, ifx_mac, 10);
    ud_take(got, &sends, &errs, 0);
    CHECK_EQ(got[0], 0);
    CHECK_EQ(st->mcast_bad, 2);
    /* A member gone (QP 5 destroyed while listed): skipped, counted. */
    {
        uint64_t q[8] = { 0 };
        uint64_t before = st->rx_no_qp;

        q[2] = UD_CTX(0);
        CHECK_EQ(cqp(0x02, q, UDQP(0) | 4ull << 48), 0);
        peer_datagram(false, ROCE_MCAST_QPN, mac4, 10);
        CHECK_EQ(st->rx_no_qp, before + 1);
    }
    /* Destroyed: the group's datagrams have nowhere to go. */
    CHECK_EQ(mcg_op(CQP_OP_DESTROY_MCAST_GRP, 1, false), 0);
    peer_datagram(false, ROCE_MCAST_QPN, mac4, 10);
    ud_take(got, &sends, &errs, 0);
    CHECK_EQ(got[0] + got[1], 0);
    CHECK_EQ(st->mcast_no_group, 1);
    CHECK_EQ(H.guest_errors, 0);
    teardown();
}

/* An IPv6 group: the datagram with the IPv6 header in the GRH slot. */
static void test_mcast_ipv6(void)
{
    unsigned qps[2] = { UDQP(2), UDQP(3) }, got[NUD], sends, errs;
    uint64_t cqe[4], ext[4];

    setup();
    ud_setup();
    CHECK_EQ(mcg_ctx_op(CQP_OP_CREATE_MCAST_GRP, 9, true, qps, 2), 0);
    mac_filter(mac6);
    peer_datagram(true, ROCE_MCAST_QPN, mac6, 200);
    for (unsigned n = 0; n < 2; n++) {
        CHECK(ud_cqe(cqe, ext));
        CHECK(!(cqe[3] & CQE_IPV4));
        CHECK_EQ(cqe[0], ROCE_GRH_LEN + 200);
        CHECK_EQ(cqe[2] & 0xFFFFFF, 0x99);          /* source QP */
    }
    for (unsigned i = 2; i < 4; i++) {
        const uint8_t *grh = mem(UD_BUF(i, 0));

        CHECK_EQ(grh[0] >> 4, 6);
        CHECK(!memcmp(grh + 24, grp6, 16));
        CHECK(payload_at(UD_BUF(i, 0), 200));
    }
    /* An IPv4 group this port has none of: the IPv6 one is no match. */
    mac_filter(mac4);
    peer_datagram(false, ROCE_MCAST_QPN, mac4, 10);
    ud_take(got, &sends, &errs, 0);
    CHECK_EQ(got[2] + got[3], 0);
    CHECK_EQ(e810_roce_stats(&C)->mcast_no_group, 1);
    CHECK_EQ(H.guest_errors, 0);
    teardown();
}

/* ---- transmit ------------------------------------------------------------ */

/* ARP entry and AH to the group as irdma_setup_ah makes them for a
 * multicast destination: the group's MAC, DOLOOPBACK. */
static void mc_ah(bool v6)
{
    uint64_t q[8] = { 0 };

    q[2] = mac_u64(v6 ? mac6 : mac4);
    CHECK_EQ(cqp(0x0f, q, (v6 ? ARP_MC6 : ARP_MC4) | 1ull << 42), 0);
    CHECK_EQ(ifx_mc_ah(v6 ? AH_MC6 : AH_MC4, v6 ? ARP_MC6 : ARP_MC4,
                       v6 ? grp6 : NULL, GRP4), 0);
}

/* A signaled SEND of @len bytes (0xA0 + i) from UD QP UDQP(@i) to the
 * group's AH, QPN 0xFFFFFF, the QP's own Q_Key. */
static void ud_send_group(unsigned i, unsigned ah, unsigned len)
{
    uint64_t w = UD_SQ(i) + 32ull * ud_sq_head[i]++;

    for (unsigned k = 0; k < len; k++) {
        mem(BUF_PA(0))[k] = (uint8_t)(0xA0 + k);
    }
    set64(w, BUF_PA(0));
    set64(w + 8, (uint64_t)len << 32 | STAG(0));
    set64(w + 16, UD_QKEY | (uint64_t)ROCE_MCAST_QPN << 32);
    set64(w + 24, ah | 0x03ull << 32 | SIG | 1ull << 63);
    ifx_wr(PFPE_WQEALLOC, UDQP(i));
}

static void test_mcast_tx_loopback(bool v6)
{
    unsigned qps[3] = { UDQP(0), UDQP(1), UDQP(4) }, got[NUD], sends, errs;
    const E810RoceCounters *st;
    unsigned nf0;
    const char *bad;
    RocePkt k;

    setup();
    ud_setup();
    /* QP 9 (UDQP(4)) sends and is a member too, as mckey's sender is. */
    CHECK_EQ(mcg_ctx_op(CQP_OP_CREATE_MCAST_GRP, 4, v6, qps, 3), 0);
    mac_filter(v6 ? mac6 : mac4);
    mc_ah(v6);
    nf0 = H.nframes;
    ud_send_group(4, v6 ? AH_MC6 : AH_MC4, 64);
    ifx_run();
    st = e810_roce_stats(&C);
    /* One frame on the wire, to the group. */
    CHECK_EQ(H.nframes, nf0 + 1);
    CHECK(roce_parse(H.frames[nf0], H.frame_len[nf0], &k, &bad));
    CHECK(bad == NULL);
    CHECK(!memcmp(H.frames[nf0], v6 ? mac6 : mac4, 6));
    CHECK_EQ(k.dqpn, ROCE_MCAST_QPN);
    CHECK_EQ(k.opcode, ROCE_UD_SEND_ONLY);
    CHECK_EQ(k.ipv4, !v6);
    if (v6) {
        CHECK(!memcmp(k.dip, grp6, 16));
    } else {
        CHECK_EQ(ldbe32(k.dip), GRP4);
    }
    CHECK_EQ(ldbe32(k.ext), UD_QKEY);
    CHECK_EQ(roce_be24(k.ext + 5), UDQP(4));
    /* And looped back to every member of the port, the sender included. */
    ud_take(got, &sends, &errs, 0);
    CHECK_EQ(sends, 1);
    CHECK_EQ(errs, 0);
    CHECK_EQ(got[0], 1);
    CHECK_EQ(got[1], 1);
    CHECK_EQ(got[4], 1);
    CHECK_EQ(got[2] + got[3], 0);
    CHECK(payload_at(UD_BUF(0, 0), 64));
    CHECK(payload_at(UD_BUF(4, 0), 64));
    CHECK_EQ(st->mcast_tx, 1);
    CHECK_EQ(st->mcast_rx, 1);
    /* Link down: nothing on the wire, counted; the send completes. */
    nf0 = H.nframes;
    e810_set_link(&C, false);
    ud_send_group(4, v6 ? AH_MC6 : AH_MC4, 8);
    ifx_run();
    ud_take(got, &sends, &errs, 0);
    CHECK_EQ(H.nframes, nf0);
    CHECK_EQ(sends, 1);
    CHECK_EQ(errs, 0);
    CHECK_EQ(st->tx_dropped, 1);
    e810_set_link(&C, true);
    CHECK_EQ(H.guest_errors, 0);
    teardown();
}

static void test_mcast_tx_loopback4(void)
{
    test_mcast_tx_loopback(false);
}

static void test_mcast_tx_loopback6(void)
{
    test_mcast_tx_loopback(true);
}

/*
 * mckey's sender: datagrams posted unsignaled, then the AH destroyed and
 * the QP with it (MODIFY_QP to ERROR first), before the bottom half ran.
 * They still go out, as from the card, before the first CQP op.
 */
static void test_mcast_send_then_destroy(void)
{
    unsigned qps[1] = { UDQP(0) }, got[NUD], sends, errs, nf0, n = 12;
    uint64_t q[8] = { 0 };

    setup();
    ud_setup();
    CHECK_EQ(mcg_ctx_op(CQP_OP_CREATE_MCAST_GRP, 1, false, qps, 1), 0);
    mac_filter(mac4);
    mc_ah(false);
    nf0 = H.nframes;
    for (unsigned m = 0; m < n; m++) {
        uint64_t w = UD_SQ(3) + 32ull * m;

        set64(w, BUF_PA(0));
        set64(w + 8, 20ull << 32 | STAG(0));
        set64(w + 16, UD_QKEY | (uint64_t)ROCE_MCAST_QPN << 32);
        set64(w + 24, AH_MC4 | 0x03ull << 32 | 1ull << 63);
        e810_mmio_write(&C, PFPE_WQEALLOC, UDQP(3), 4);     /* no BH yet */
    }
    CHECK_EQ(H.nframes, nf0);
    CHECK_EQ(cqp(0x1e, q, AH_MC4), 0);
    CHECK_EQ(H.nframes, nf0 + n);
    q[2] = UD_CTX(3);
    CHECK_EQ(cqp(0x01, q, UDQP(3) | 4ull << 48 | 6ull << 60), 0);
    CHECK_EQ(cqp(0x02, q, UDQP(3) | 4ull << 48), 0);
    ifx_run();
    ud_take(got, &sends, &errs, 0);
    CHECK_EQ(got[0], 4);                    /* its four receive WQEs */
    CHECK_EQ(errs, 0);
    CHECK_EQ(e810_roce_stats(&C)->mcast_tx, n);
    CHECK_EQ(e810_roce_stats(&C)->ud_dropped, n - 4);
    CHECK_EQ(H.nframes, nf0 + n);
    CHECK_EQ(H.guest_errors, 0);
    /* Before any CQP op (a NOP here): a full SQ of another QP, 16
     * datagrams and their 16 loopback copies, within the doorbell's
     * transmit budget. */
    mc_ah(false);
    nf0 = H.nframes;
    for (unsigned m = 0; m < 16; m++) {
        uint64_t w = UD_SQ(4) + 32ull * m;

        set64(w, BUF_PA(0));
        set64(w + 8, 20ull << 32 | STAG(0));
        set64(w + 16, UD_QKEY | (uint64_t)ROCE_MCAST_QPN << 32);
        set64(w + 24, AH_MC4 | 0x03ull << 32 | 1ull << 63);
    }
    e810_mmio_write(&C, PFPE_WQEALLOC, UDQP(4), 4);
    CHECK_EQ(cqp(0x24, q, 0), 0);           /* a NOP */
    CHECK_EQ(H.nframes, nf0 + 16);
    CHECK(C.txs.stats.entry_max <= E810_TX_BUDGET);
    teardown();
}

/* ---- two devices --------------------------------------------------------- */

static IfxState dev_a = IFX_DEV_A;
static IfxState dev_b = IFX_DEV_B;
static uint8_t link_f[16][ROCE_FRAME_MAX];
static size_t link_len[16];
static unsigned link_n;

static void link_frame(void *opaque, const void *frame, size_t len)
{
    (void)opaque;
    if (link_n < 16 && len <= ROCE_FRAME_MAX) {
        memcpy(link_f[link_n], frame, len);
        link_len[link_n++] = len;
    }
}

/* A on one end of a link sends to the group; B's members and A's own
 * (loopback) each get every datagram. */
static void test_mcast_two_devices(void)
{
    unsigned qps[2] = { UDQP(0), UDQP(1) }, got[NUD], sends, errs;

    ifx_cur = &dev_b;
    setup();
    ud_setup();
    CHECK_EQ(mcg_ctx_op(CQP_OP_CREATE_MCAST_GRP, 1, false, qps, 2), 0);
    mac_filter(mac4);
    ifx_cur = &dev_a;
    setup();
    ud_setup();
    qps[0] = UDQP(3);
    CHECK_EQ(mcg_ctx_op(CQP_OP_CREATE_MCAST_GRP, 5, false, qps, 2), 0);
    mac_filter(mac4);
    mc_ah(false);
    dev_a.dev.h.frame_cb = link_frame;
    link_n = 0;
    for (unsigned m = 0; m < 3; m++) {
        ud_send_group(2, AH_MC4, 50 + m);
    }
    ifx_run();
    ud_take(got, &sends, &errs, 0);
    CHECK_EQ(sends, 3);
    CHECK_EQ(errs, 0);
    CHECK_EQ(got[3], 3);                    /* A's members: loopback */
    CHECK_EQ(got[1], 3);
    CHECK_EQ(got[0], 0);
    CHECK_EQ(link_n, 3);
    ifx_cur = &dev_b;
    for (unsigned i = 0; i < link_n; i++) {
        e810_receive(&C, link_f[i], link_len[i]);
    }
    ud_head = 0;                /* B's CQ 5, untouched so far */
    ud_pol = 1;
    ud_take(got, &sends, &errs, 0);
    CHECK_EQ(got[0], 3);                    /* B's members: the wire */
    CHECK_EQ(got[1], 3);
    CHECK(payload_at(UD_BUF(0, 2), 52));
    CHECK_EQ(e810_roce_stats(&C)->mcast_rx, 3);
    CHECK_EQ(dev_b.dev.h.guest_errors, 0);
    CHECK_EQ(dev_a.dev.h.guest_errors, 0);
    teardown();
    ifx_cur = &dev_a;
    teardown();
}

int main(void)
{
    IfxState *one = ifx_cur;

    RUN(test_mcg_ops);
    RUN(test_mcg_hostile);
    RUN(test_mcg_stale_member);
    RUN(test_mcg_modify_first);
    RUN(test_mcg_iwarp);
    RUN(test_mcast_rx);
    RUN(test_mcast_ipv6);
    RUN(test_mcast_tx_loopback4);
    RUN(test_mcast_tx_loopback6);
    RUN(test_mcast_send_then_destroy);
    RUN(test_mcast_two_devices);
    ifx_cur = one;
    return CHECK_DONE();
}
