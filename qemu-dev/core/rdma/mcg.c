/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: RoCEv2 multicast groups.
 *
 * irdma attaches a UD QP to a group (verbs.c:irdma_attach_mcast) by
 * keeping the group's QP list itself and handing the whole of it to the
 * engine: CREATE_MCAST_GRP when the first QP joins, MODIFY_MCAST_GRP for
 * every change after that, DESTROY_MCAST_GRP when the last one leaves
 * (uda.c:irdma_access_mcast_grp).  The WQE names the group (MGIDX), its
 * destination IP and MAC, VLAN and QS handle; the QPs are in a separate
 * group context of IRDMA_MAX_MGS_PER_CTX (8) entries in guest memory,
 * read here once per op.
 *
 * The table is indexed by MGIDX and holds as many groups as FSIMC
 * objects were committed (see E810_RDMA_MAX_MCG).  Two joins that race
 * in the driver (irdma_attach_mcast looks the address up, drops its lock
 * to allocate, and creates) give two groups for one address; the card
 * takes both, so the device does too, up to E810_MCG_PER_ADDR: a
 * datagram to an address is then placed in at most that many times
 * eight QPs, whatever the guest wrote.  The receive side (roce/ud.c)
 * gathers the members of an address with e810_rdma_mcg_members.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../bytes.h"
#include "../regs.h"
#include "../../trace.h"
#include "rdma.h"
#include "../snap.h"

/* Multicast per the address family: 224.0.0.0/4, ff00::/8. */
static bool ip_is_multicast(bool ipv4, const uint8_t *ip)
{
    return ipv4 ? (ip[0] & 0xF0) == 0xE0 : ip[0] == 0xFF;
}

static E810RdmaMcg *mcg_lookup(E810Core *c, uint32_t idx)
{
    if (!c->rdma.mcg ||
        idx >= e810_rdma_obj_limit(c, E810_HMC_FSIMC, E810_RDMA_MAX_MCG)) {
        return NULL;
    }
    e810_rdma_dirty(c->rdma.mcg_dirty, idx);
    return &c->rdma.mcg[idx];
}

/* How many other valid groups have the address of @g. */
static unsigned mcg_same_addr(E810Core *c, const E810RdmaMcg *g,
                              const E810RdmaMcg *self)
{
    uint32_t n = e810_rdma_obj_limit(c, E810_HMC_FSIMC, E810_RDMA_MAX_MCG);
    uint32_t seen = 0;
    unsigned same = 0;

    for (uint32_t i = 0; i < n && seen < c->rdma.mcg_count; i++) {
        const E810RdmaMcg *o = &c->rdma.mcg[i];

        if (!o->valid) {
            continue;
        }
        seen++;
        if (o != self && o->ipv4 == g->ipv4 &&
            !memcmp(o->ip, g->ip, g->ipv4 ? 4 : 16)) {
            same++;
        }
    }
    return same;
}

/*
 * The group context at @pa: the valid entries' QPs into @g.  Every valid
 * entry must name a QP number of this function, once (a VF's QP, VFFLAG,
 * is refused: there are no VFs).  irdma_create_mg_ctx writes QPID,
 * VALIDENT and a DESTPORT of 0; the port, PFID and the ignore-port flag
 * mean nothing to RoCEv2 delivery here and are not looked at.
 */
static bool mcg_read_ctx(E810Core *c, uint32_t idx, uint64_t pa,
                         E810RdmaMcg *g, E810CqpResult *r)
{
    uint32_t nqp = e810_rdma_obj_limit(c, E810_HMC_QP, E810_RDMA_MAX_QPS);
    uint8_t raw[MGCTX_ENTRIES * 8];

    if (e810_dma_read(c, pa, raw, sizeof(raw))) {
        e810_cqp_fail(c, r, E810_CQP_MIN_DMA,
                      "multicast group %u context at 0x%" PRIx64, idx, pa);
        return false;
    }
    g->nqp = 0;
    for (unsigned i = 0; i < MGCTX_ENTRIES; i++) {
        uint64_t e = ld64(raw + 8 * i);
        uint32_t qp = MGCTX_QPID(e);

        if (!(e & MGCTX_VALIDENT)) {
            continue;
        }
        if (e & MGCTX_VFFLAG) {
            e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM,
                          "multicast group %u entry %u: VF %u (no VFs)",
                          idx, i, MGCTX_VFID(e));
            return false;
        }
        /* Only the number is checked: a listed QP need not exist.  The
         * driver leaves destroyed QPs in a group when two groups share
         * an address (irdma_detach_mcast removes the QP from the first
         * group of the address only, whichever it is in), and its next
         * MODIFY carries them.  Delivery skips members that are not
         * ready UD QPs at that moment (roce/ud.c). */
        if (qp >= nqp) {
            e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM,
                          "multicast group %u entry %u: QP %u of %u",
                          idx, i, qp, nqp);
            return false;
        }
        if (!c->rdma.qp[qp].valid || c->rdma.qp[qp].type != QP_TYPE_ROCE_UD) {
            trace_e810_rdma_mcg_stale(idx, qp);
        }
        for (unsigned k = 0; k < g->nqp; k++) {
            if (g->qp[k] == qp) {
                e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM,
                              "multicast group %u: QP %u listed twice",
                              idx, qp);
                return false;
            }
        }
        g->qp[g->nqp++] = qp;
    }
    return true;
}

void e810_rdma_mcg(E810Core *c, unsigned op, const uint64_t *wqe,
                   E810CqpResult *r)
{
    uint64_t h = wqe[3];
    uint32_t idx = CQPSQ_MG_MGIDX(h);
    E810RdmaMcg *g = mcg_lookup(c, idx);
    E810RdmaMcg n;
    unsigned fn = CQPSQ_MG_HMC_FCN_ID(wqe[1]);
    const char *what = op == CQP_OP_CREATE_MCAST_GRP ? "create" :
                       op == CQP_OP_MODIFY_MCAST_GRP ? "modify" : "destroy";

    /* A RoCE feature: in iWARP mode the driver has no multicast verbs. */
    if (c->rdma.protocol != PROTOCOL_ROCE) {
        e810_cqp_fail(c, r, E810_CQP_MIN_UNSUPPORTED,
                      "multicast group %u outside RoCEv2 mode", idx);
        return;
    }
    if (!g) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_ID, "%s multicast group %u "
                      "(%u committed)", what, idx,
                      e810_rdma_obj_limit(c, E810_HMC_FSIMC,
                                          E810_RDMA_MAX_MCG));
        return;
    }
    if (op == CQP_OP_DESTROY_MCAST_GRP && !g->valid) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_ID,
                      "%s multicast group %u: no such group", what, idx);
        return;
    }
    /* CREATE and MODIFY both write the group whole, so either is taken
     * whether the group exists or not: when a second QP joins while the
     * first one's CREATE is still being built, irdma posts the MODIFY
     * first (irdma_attach_mcast lists the group before its CREATE), and
     * the CREATE then finds the group there. */
    if ((op == CQP_OP_CREATE_MCAST_GRP) == g->valid) {
        trace_e810_rdma_mcg_order(what, idx);
    }
    if (op == CQP_OP_DESTROY_MCAST_GRP) {
        /* The driver writes the emptied context again; nothing of it is
         * needed to let the group go. */
        g->valid = false;
        c->rdma.mcg_count--;
        trace_e810_rdma_mcg(what, idx, 0, g->ipv4,
                            ldbe32(g->ip + (g->ipv4 ? 0 : 12)));
        return;
    }
    /* The group as the WQE describes it, checked before it replaces the
     * old one: a refused MODIFY leaves the group as it was. */
    memset(&n, 0, sizeof(n));
    n.valid = true;
    n.ipv4 = h & CQPSQ_MG_IPV4VALID;
    n.vlan_valid = h & CQPSQ_MG_VLANVALID;
    n.vlan_id = CQPSQ_MG_VLANID(wqe[2]);
    n.qs_handle = CQPSQ_MG_QS_HANDLE(wqe[2]);
    for (unsigned i = 0; i < 6; i++) {
        n.mac[i] = (uint8_t)(wqe[0] >> (40 - 8 * i));
    }
    e810_rdma_ip_from_words(n.ip, n.ipv4, wqe[7], wqe[6]);
    if (fn != (e810_reg(c, PF_FUNC_RID) & 7)) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM,
                      "%s multicast group %u: HMC function %u", what, idx, fn);
        return;
    }
    if (!ip_is_multicast(n.ipv4, n.ip) || !(n.mac[0] & 1)) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM,
                      "%s multicast group %u: IPv%c address or MAC "
                      "0x%012" PRIx64 " not multicast", what, idx,
                      n.ipv4 ? '4' : '6',
                      (uint64_t)(wqe[0] & 0xFFFFFFFFFFFFull));
        return;
    }
    if (mcg_same_addr(c, &n, g) >= E810_MCG_PER_ADDR) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM,
                      "%s multicast group %u: its address has %u groups",
                      what, idx, E810_MCG_PER_ADDR);
        return;
    }
    if (!mcg_read_ctx(c, idx, wqe[4], &n, r)) {
        return;
    }
    if (!g->valid) {
        c->rdma.mcg_count++;
    }
    *g = n;
    trace_e810_rdma_mcg(what, idx, n.nqp, n.ipv4,
                        ldbe32(n.ip + (n.ipv4 ? 0 : 12)));
}

unsigned e810_rdma_mcg_members(E810Core *c, bool ipv4, const uint8_t *ip,
                               uint16_t vid, uint32_t *qps, unsigned max)
{
    uint32_t n = e810_rdma_obj_limit(c, E810_HMC_FSIMC, E810_RDMA_MAX_MCG);
    uint32_t seen = 0;
    unsigned got = 0, groups = 0;

    if (!c->rdma.mcg) {
        return 0;
    }
    for (uint32_t i = 0; i < n && seen < c->rdma.mcg_count &&
         groups < E810_MCG_PER_ADDR; i++) {
        const E810RdmaMcg *g = &c->rdma.mcg[i];

        if (!g->valid) {
            continue;
        }
        seen++;
        if (g->ipv4 != ipv4 || memcmp(g->ip, ip, ipv4 ? 4 : 16)) {
            continue;
        }
        groups++;
        /* A group with a VLAN takes that VLAN's datagrams only; the
         * driver gives one only when the group address is on a VLAN
         * netdev (irdma_get_vlan_ipv4), and otherwise the VLAN is the
         * switch's business. */
        if (g->vlan_valid && vid != g->vlan_id) {
            continue;
        }
        /* A QP in two groups of the address takes the datagram once. */
        for (unsigned k = 0; k < g->nqp && k < MGCTX_ENTRIES; k++) {
            unsigned j;

            for (j = 0; j < got && qps[j] != g->qp[k]; j++) {
            }
            if (j == got && got < max) {
                qps[got++] = g->qp[k];
            }
        }
    }
    return got;
}

/* ---- saved state -------------------------------------------------------- */

/* valid is the sparse table's; mcg_count is recounted as groups load. */
static const E810SnapField mcg_fields[] = {
    SF_BOOL(E810RdmaMcg, ipv4),
    SF_BOOL(E810RdmaMcg, vlan_valid),
    SF_U(E810RdmaMcg, vlan_id, 0, 0xFFF),
    SF_U(E810RdmaMcg, qs_handle, 0, 0x3FF),
    SF_BYTES(E810RdmaMcg, mac),
    SF_BYTES(E810RdmaMcg, ip),
    SF_U(E810RdmaMcg, nqp, 0, MGCTX_ENTRIES),
    /* Numbers below the committed QP count when written, which a later
     * COMMIT_FPM_VAL may have lowered: the table bounds them. */
    SF_UA(E810RdmaMcg, qp, 0, E810_RDMA_MAX_QPS - 1),
    SF_END
};

/* Groups exist in RoCEv2 mode only (e810_rdma_mcg refuses them else). */
static bool mcg_each(E810SnapR *r, void *e, uint32_t idx, void *opaque)
{
    E810Core *c = opaque;

    if (c->rdma.protocol != PROTOCOL_ROCE) {
        return e810_snap_fail(r, "rdma.mcg[%u]: a multicast group outside "
                              "RoCEv2 mode", idx);
    }
    c->rdma.mcg_count++;
    return true;
}

static const E810SnapTable mcg_table = {
    E810_SNAP_PTR("rdma.mcg", rdma.mcg, E810_RDMA_MAX_MCG, E810RdmaMcg,
                  mcg_fields, valid),
    E810_SNAP_MAP(rdma.mcg_dirty, E810_RDMA_DIRTY_CHUNK),
    .each = mcg_each,
};

void e810_rdma_mcg_save(E810Core *c, E810SnapW *w)
{
    e810_snap_put_table(c, w, &mcg_table);
}

bool e810_rdma_mcg_load(E810Core *c, E810SnapR *r, uint16_t ver)
{
    return e810_snap_get_table(c, r, ver, &mcg_table);
}
