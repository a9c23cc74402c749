/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RoCEv2 engine: UD QPs -- datagrams to address handles, received
 * ones behind the GRH slot, multicast groups' members (see qp.c).
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../bytes.h"
#include "../../trace.h"
#include "../rdma/rdma.h"
#include "../rdma/wqe.h"
#include "../rdma/engine.h"
#include "../rdma/port.h"
#include "roce.h"
#include "roce-int.h"
#include "qp-int.h"

/* ---- UD ----------------------------------------------------------------- */

/* The path of address handle @idx (uda.c:irdma_sc_access_ah). */
static bool ah_path(RoceQp *q, uint32_t idx, RocePath *p)
{
    E810Core *c = q->eng.c;
    const uint64_t *a;
    unsigned arp;

    if (!c->rdma.ah ||
        idx >= e810_rdma_obj_limit(c, E810_HMC_FSIAV, E810_RDMA_MAX_AH) ||
        !c->rdma.ah[idx].valid) {
        return false;
    }
    a = c->rdma.ah[idx].wqe;
    memset(p, 0, sizeof(*p));
    p->ipv4 = a[3] & CQPSQ_AH_IPV4VALID;
    p->vlan = a[3] & CQPSQ_AH_INSERTVLANTAG;
    p->vlan_tci = CQPSQ_AH_VLANTAG(a[1]);
    p->tos = CQPSQ_AH_TC(a[1]);
    p->ttl = CQPSQ_AH_HOPLIMIT(a[2]);
    p->flow_label = CQPSQ_AH_FLOWLABEL(a[2]);
    p->sport = q->path.sport;
    arp = CQPSQ_AH_ARPINDEX(a[2]);
    if (arp >= E810_RDMA_MAX_ARP || !c->rdma.arp[arp].valid) {
        return false;
    }
    memcpy(p->dmac, c->rdma.arp[arp].mac, 6);
    e810_rdma_mac_from_u64(p->smac, CQPSQ_AH_MACADDR(a[0]));
    if (p->ipv4) {
        stbe32(p->dip, (uint32_t)a[4]);
        stbe32(p->sip, (uint32_t)a[6]);
    } else {
        stbe64(p->dip, a[5]);
        stbe64(p->dip + 8, a[4]);
        stbe64(p->sip, a[7]);
        stbe64(p->sip + 8, a[6]);
    }
    if (!p->ttl) {
        p->ttl = 64;
    }
    return true;
}

static void ud_send(RoceQp *q, RoceWqe *w)
{
    E810Roce *e = q->eng.c->rdma.roce;
    RocePath path;
    size_t off, p, len;
    uint8_t *b = e->tx;
    unsigned opcode = w->imm ? ROCE_UD_SEND_ONLY_IMM : ROCE_UD_SEND_ONLY;
    uint32_t psn = q->psn_next;

    if (w->eng.op != OP_RDMA_SEND && w->eng.op != OP_RDMA_SEND_SOL_EVENT) {
        w->eng.status = AE_WQE_UNEXPECTED_OPCODE;
        return;
    }
    if (!ah_path(q, w->ah, &path)) {
        w->eng.status = AE_WQE_INVALID_PARAMETER;
        e810_guest_error(q->eng.c, "rdma: UD QP %u WQE %u: address handle %u "
                         "not valid", q->eng.id, w->eng.idx, w->ah);
        return;
    }
    if (w->eng.len > q->mtu) {
        w->eng.status = AE_WQE_INVALID_PARAMETER;   /* DGRAM too long */
        return;
    }
    off = roce_frame_start(b, &path);
    p = off + ROCE_BTH_LEN;
    /* A Q_Key with the high bit set means the QP's own (IBA 10.2.5). */
    stbe32(b + p + ROCE_DETH_QKEY,
           (w->qkey & 0x80000000u) ? q->qkey : w->qkey);
    b[p + ROCE_DETH_SRCQP - 1] = 0;
    roce_put24(b + p + ROCE_DETH_SRCQP, q->eng.id);
    p += ROCE_DETH_LEN;
    if (w->imm) {
        stbe32(b + p, w->imm_data);
        p += ROCE_IMM_LEN;
    }
    if (w->eng.len) {
        if (w->eng.inl) {
            memcpy(b + p, w->eng.inl_data, w->eng.len);
        } else {
            E810MemOwner o = roce_owner(q);
            int r = e810_sge_copy(&o, w->eng.sge, w->eng.nsge, 0, b + p, NULL,
                                  w->eng.len, E810_ACC_LOCAL_READ);

            if (r) {
                w->eng.status = (int)e810_xlate_ae(r);
                return;
            }
        }
        p += w->eng.len;
    }
    while ((p - off) & 3) {
        b[p++] = 0;
    }
    roce_bth_put(b + off, (uint8_t)opcode, w->eng.op == OP_RDMA_SEND_SOL_EVENT,
                 (4 - (w->eng.len & 3)) & 3, ROCE_DEFAULT_PKEY, w->dqpn, false,
                 psn);
    q->psn_next = (q->psn_next + 1) & ROCE_PSN_MASK;
    trace_e810_roce_tx(q->eng.id, opcode, psn, w->eng.len);
    e->stats.tx_pkts++;
    len = roce_frame_seal(b, &path, off, p);
    if (path.dmac[0] & 1) {
        /* To a group: the wire, and this port's own members when the AH
         * says DOLOOPBACK, as irdma asks for every multicast destination
         * (verbs.c:irdma_setup_ah). */
        bool lpb = q->eng.c->rdma.ah[w->ah].wqe[3] & CQPSQ_AH_DOLOOPBACKCHECK;

        e->stats.mcast_tx++;
        trace_e810_roce_mcast_tx(q->eng.id,
                                 ldbe32(path.dip + (path.ipv4 ? 0 : 12)), lpb);
        if (!e810_rdma_xmit_group(q->eng.c, b, len, lpb)) {
            e->stats.tx_dropped++;
        }
    } else if (!e810_rdma_xmit(q->eng.c, b, len, false)) {
        e->stats.tx_dropped++;
    }
}

void roce_ud_run(RoceQp *q)
{
    RoceWqe w;
    uint64_t h, qw[4];

    while (!q->eng.halted && q->state == QP_STATE_RTS) {
        if (!e810_tx_may_send(q->eng.c)) {
            roce_tx_note(q);                 /* the bottom half goes on */
            break;
        }
        if (!roce_sq_fetch(q, &w, &h, qw)) {
            if (e810_rdma_qp_show_sq_tail(q->eng.c, q->eng.id, q->eng.sq_idx)) {
                continue;
            }
            break;
        }
        trace_e810_roce_wqe(q->eng.id, w.eng.idx, w.eng.op, w.eng.len, h);
        e810_eng_sq_advance(&q->eng, w.eng.quanta);
        if (roce_op_local(w.eng.op)) {
            roce_sq_exec_local(q, &w, qw);
        } else if (!w.eng.status) {
            ud_send(q, &w);
        }
        if (w.eng.signaled || w.eng.status) {
            e810_eng_sq_cqe(&q->eng, &w.eng);
        }
        if (w.eng.status) {
            roce_fatal(q, (unsigned)w.eng.status, AE_SOURCE_SQ);
        }
    }
}

/*
 * UD datagrams posted before a CQP op go out before it, within the CQP
 * entry's budget.  The card sends a datagram long before the driver's
 * next command reaches its CQP, but the engine's bottom half, which runs
 * the SQs after their doorbells, may not have run yet on a loaded host:
 * mckey posts its datagrams unsignaled, then destroys the AH and the QP
 * at once, and in two guests under TCG none or a third of them left
 * before the AH was gone.  RC QPs keep their pace (ACK-clocked).  What
 * the budget leaves stays for the bottom half.
 */
void roce_cqp_doorbell(E810Core *c)
{
    if (!e810_eng_tx_pending(c)) {
        return;
    }
    for (unsigned i = 0; i < e810_eng_qp_end(c); i++) {
        RoceQp *q = roce_qp_find(c, i);

        if (!q || q->type != QP_TYPE_ROCE_UD || !q->eng.tx_pending ||
            q->eng.in_run) {
            continue;
        }
        if (!e810_tx_may_send(c)) {
            return;
        }
        q->eng.tx_pending = false;
        q->eng.in_run = true;
        roce_ud_run(q);
        q->eng.in_run = false;
    }
}

/* A datagram taken a receive WQE but not placed: counted, and the WQE
 * completes in error with @ae. */
static void ud_rx_error(RoceQp *q, const RocePkt *k, uint32_t src_qp,
                        const char *why, unsigned ae)
{
    q->eng.c->rdma.roce->stats.ud_dropped++;
    trace_e810_roce_drop(q->eng.id, k->opcode, k->psn, why);
    e810_eng_rq_cqe(&q->eng, 0, OP_TYPE_REC, src_qp,
                    CQ_ERROR | (uint64_t)0xFFFF << CQ_MAJERR_S | ae, false, 0);
}

void roce_ud_rx(RoceQp *q, const RocePkt *k)
{
    E810Roce *e = q->eng.c->rdma.roce;
    bool imm = k->opcode == ROCE_UD_SEND_ONLY_IMM;
    size_t hl = ROCE_DETH_LEN + (imm ? ROCE_IMM_LEN : 0), plen;
    uint8_t grh[ROCE_GRH_LEN];
    E810MemOwner o = roce_owner(q);
    uint32_t qkey, src_qp;

    if (k->ext_len < hl + k->padcnt) {
        e->stats.rx_bad++;
        trace_e810_roce_drop(q->eng.id, k->opcode, k->psn, "short UD header");
        return;
    }
    qkey = ldbe32(k->ext + ROCE_DETH_QKEY);
    src_qp = roce_be24(k->ext + ROCE_DETH_SRCQP);
    if (qkey != q->qkey) {
        e->stats.rx_key++;
        trace_e810_roce_drop(q->eng.id, k->opcode, k->psn, "Q_Key");
        return;
    }
    plen = k->ext_len - hl - k->padcnt;
    if (!roce_rq_take(q)) {
        e->stats.ud_dropped++;
        trace_e810_roce_drop(q->eng.id, k->opcode, k->psn, "no receive WQE");
        return;
    }
    if (q->eng.rcv_cap < ROCE_GRH_LEN || plen > q->eng.rcv_cap - ROCE_GRH_LEN) {
        /* The WQE is used up by the datagram it could not hold. */
        ud_rx_error(q, k, src_qp, "receive WQE short",
                    AE_WQE_INVALID_PARAMETER);
        return;
    }
    /* The GRH slot: the IPv6 header, or the IPv4 header in its last 20
     * bytes (union rdma_network_hdr). */
    memset(grh, 0, sizeof(grh));
    memcpy(grh + (k->ipv4 ? 20 : 0), k->l3, k->l3_len);
    if (e810_sge_copy(&o, q->eng.rcv_sge, q->eng.rcv_nsge, 0, NULL, grh,
                      ROCE_GRH_LEN, E810_ACC_LOCAL_WRITE) ||
        (plen && e810_sge_copy(&o, q->eng.rcv_sge, q->eng.rcv_nsge, ROCE_GRH_LEN,
                               NULL, k->ext + hl, plen,
                               E810_ACC_LOCAL_WRITE))) {
        ud_rx_error(q, k, src_qp, "receive buffer", AE_AMP_INVALID_STAG);
        return;
    }
    e->stats.rx_pkts++;
    e810_eng_rq_cqe(&q->eng, ROCE_GRH_LEN + plen, OP_TYPE_REC, src_qp,
                    (k->ipv4 ? CQ_IPV4 : 0) | (k->se ? CQ_SOEVENT : 0), imm,
                    ldbe32(k->ext + ROCE_DETH_LEN));
}

/*
 * A datagram to a multicast group: multicast MAC, DestQP 0xFFFFFF (the
 * IBA's multicast QPN) and a multicast IP destination together, else it
 * is dropped.  One copy goes to each UD QP of the group this port has
 * for the address (at most E810_MCG_PER_ADDR groups of MGCTX_ENTRIES:
 * rdma/mcg.c), each as ud_rx
 * takes a datagram to that QP; a member that is gone, not ready or of
 * another P_Key is skipped and counted as for a unicast datagram.
 */
void roce_ud_mcast_rx(E810Core *c, const RocePkt *k, const uint8_t *dmac)
{
    E810Roce *e = c->rdma.roce;
    bool mc_ip = k->ipv4 ? (k->dip[0] & 0xF0) == 0xE0 : k->dip[0] == 0xFF;
    uint16_t vid = k->vlan ? (k->vlan_tci & 0xFFF) : E810_VLAN_NONE;
    uint32_t qps[MGCTX_ENTRIES * E810_MCG_PER_ADDR];
    unsigned n, i;

    if (k->dqpn != ROCE_MCAST_QPN || !mc_ip || !(dmac[0] & 1) ||
        (k->opcode != ROCE_UD_SEND_ONLY &&
         k->opcode != ROCE_UD_SEND_ONLY_IMM)) {
        e->stats.mcast_bad++;
        trace_e810_roce_drop(k->dqpn, k->opcode, k->psn,
                             "not a UD datagram to a multicast group");
        return;
    }
    /* The members as they are now: placing a datagram runs no CQP op,
     * but the lists are the control path's. */
    n = e810_rdma_mcg_members(c, k->ipv4, k->dip, vid, qps,
                              MGCTX_ENTRIES * E810_MCG_PER_ADDR);
    if (!n) {
        e->stats.mcast_no_group++;
        trace_e810_roce_drop(k->dqpn, k->opcode, k->psn,
                             "no multicast group of this port");
        return;
    }
    e->stats.mcast_rx++;
    trace_e810_roce_mcast_rx(ldbe32(k->dip + (k->ipv4 ? 0 : 12)), k->opcode,
                             n);
    for (i = 0; i < n; i++) {
        RoceQp *q = roce_qp_find(c, qps[i]);

        if (!q || q->type != QP_TYPE_ROCE_UD || q->eng.halted ||
            (q->state != QP_STATE_RTR && q->state != QP_STATE_RTS &&
             q->state != QP_STATE_SQD)) {
            e->stats.rx_no_qp++;
            trace_e810_roce_drop(qps[i], k->opcode, k->psn,
                                 "group member is no ready UD QP");
            continue;
        }
        if ((k->pkey & 0x7FFF) != (q->pkey & 0x7FFF)) {
            e->stats.rx_key++;
            trace_e810_roce_drop(q->eng.id, k->opcode, k->psn, "P_Key");
            continue;
        }
        roce_ud_rx(q, k);
    }
}
