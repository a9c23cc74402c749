/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: the privileged UDA queues, ILQ (QP 1) and IEQ (QP 2).
 *
 * The driver creates them as UDA QPs whose SQ and RQ are one contiguous
 * buffer named in the QP context (puda.c:irdma_puda_qp_setctx()): SQ at
 * @8, RQ at @16, encoded sizes @24, CQ @136, completion context @168.
 *
 * Transmit (PFPE_WQEALLOC with the QP id): each valid SQ WQE carries one
 * TCP segment (header + options + payload, checksum 0) at a physical
 * address, the TCP header length in L4LEN and an address handle index.
 * The engine adds Ethernet and IPv4/IPv6 headers from the AH and the ARP
 * cache, computes the checksums, sends or loops the frame back, and writes
 * an SQ completion to the QP's CQ.
 *
 * Receive (port.c decides): the next RQ WQE's buffer gets the IP header
 * (IPv4 after 20 bytes of padding) and the TCP segment at offset 40; the RQ
 * completion carries the length from the buffer start and the IPv4 flag
 * (utils.c:irdma_puda_get_tcpip_info()).  The driver re-posts a buffer by
 * flipping its valid bit in place, so the RQ is an ordinary ring.
 *
 * The IEQ is accepted (creation, RQ, destruction, even a transmit) but the
 * classifier never delivers to it: the offloaded engine only accepts
 * in-order segments, so nothing ever needs the driver's reassembly.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../bytes.h"
#include "../../trace.h"
#include "rdma.h"
#include "wqe.h"
#include "puda.h"
#include "qpctx.h"
#include "port.h"
#include "../snap.h"

/* SQ WQE (gen2 UDA) */
#define WQE_VALID(q)            ((unsigned)((q) >> 63))
/* CQE qword 2/3 */
#define PUDA_MAJ_ERR            0x0001u     /* device choice, not a flush */
/* gen2 ILQ buffer layout */
#define ILQ_IPV4_PAD            20
#define ILQ_TCP_OFFSET          40

static E810PudaQ *puda_q(E810Core *c, uint32_t id)
{
    E810PudaQ *q;

    if (id != E810_PUDA_ILQ_QP && id != E810_PUDA_IEQ_QP) {
        return NULL;
    }
    q = &c->puda.q[id - 1];
    /* The CQP (and every QP with it) may have gone since the create. */
    if (!q->active || !c->rdma.qp[id].valid) {
        return NULL;
    }
    return q;
}

/* Encoded queue size: 4 << n entries of 32 bytes (irdma_get_encoded_wqe_size). */
static uint32_t puda_size(unsigned enc)
{
    return enc <= 13 ? 4u << enc : 0;
}

static void puda_created(E810Core *c, uint32_t id)
{
    E810PudaQ *q = &c->puda.q[id - 1];
    uint8_t ctx[E810_RDMA_QP_CTX_SIZE];
    E810QpCtx x;

    memset(q, 0, sizeof(*q));
    /* In RoCEv2 mode QP 1 is the GSI QP, not a PUDA. */
    if (c->rdma.qp[id].type != QP_TYPE_UDA) {
        return;
    }
    if (e810_dma_read(c, c->rdma.qp[id].ctx_pa, ctx,
                              sizeof(ctx))) {
        e810_guest_error(c, "puda: QP %u context unreadable", id);
        return;
    }
    e810_qpctx_decode_bytes(ctx, &x);
    q->sq_pa = x.sq_addr;
    q->rq_pa = x.rq_addr;
    q->sq_size = puda_size(x.sq_size_enc);
    q->rq_size = puda_size(x.rq_size_enc);
    q->cq = x.txcq;
    q->comp_ctx = x.comp_ctx;
    q->sq_pol = 1;
    q->rq_pol = 1;
    if (!q->sq_size || !q->rq_size || !q->sq_pa || !q->rq_pa) {
        e810_guest_error(c, "puda: QP %u rings sq %u@0x%" PRIx64
                         " rq %u@0x%" PRIx64, id, q->sq_size, q->sq_pa,
                         q->rq_size, q->rq_pa);
        return;
    }
    q->active = true;
    trace_e810_puda_create(id, q->sq_size, q->rq_size, q->cq);
}

/* ---- transmit ----------------------------------------------------------- */

static void puda_tx_drop(E810Core *c, uint32_t id, unsigned idx,
                         const char *why)
{
    c->puda.stats.tx_dropped++;
    trace_e810_puda_tx_drop(id, idx, why);
}

/*
 * The path of a PUDA frame from its AH and ARP entry: Ethernet
 * destination from the ARP cache, everything else from the AH.  The TCP
 * ports are the segment's own.
 */
static void puda_path(E810Core *c, const uint64_t *ah, unsigned arp,
                      E810NetPath *np)
{
    bool v4 = ah[3] & CQPSQ_AH_IPV4VALID;
    unsigned ttl = CQPSQ_AH_HOPLIMIT(ah[2]);

    memset(np, 0, sizeof(*np));
    memcpy(np->dmac, c->rdma.arp[arp].mac, 6);
    e810_rdma_mac_from_u64(np->smac, CQPSQ_AH_MACADDR(ah[0]));
    np->vlan = ah[3] & CQPSQ_AH_INSERTVLANTAG;
    np->vlan_tci = CQPSQ_AH_VLANTAG(ah[1]);
    np->ipv4 = v4;
    np->tos = CQPSQ_AH_TC(ah[1]);
    np->ttl = ttl ? ttl : 64;
    np->proto = IP_PROTO_TCP;
    if (v4) {
        np->ip_id = c->puda.ip_id;
        e810_rdma_ip_from_words(np->dip, true, 0, ah[4]);
        e810_rdma_ip_from_words(np->sip, true, 0, ah[6]);
    } else {
        np->flow_label = CQPSQ_AH_FLOWLABEL(ah[2]);
        e810_rdma_ip_from_words(np->sip, false, ah[7], ah[6]);
        e810_rdma_ip_from_words(np->dip, false, ah[5], ah[4]);
    }
}

/*
 * Build and send the frame of one SQ WQE.  Returns false for a malformed
 * WQE (error completion); a frame that cannot be delivered (no AH, no
 * ARP entry, link down) still completes normally, as a loss on the wire.
 */
static bool puda_tx_one(E810Core *c, uint32_t id, unsigned idx,
                        const uint64_t *w)
{
    uint8_t *f = c->puda.txbuf;
    uint32_t seg_len = QPSQ_FRAG_LEN(w[1]);
    unsigned tcp_hlen = QPSQ_L4LEN(w[3]) * 4;
    uint32_t ahid = QPSQ_AHID(w[3]);
    const uint64_t *ah;
    E810NetPath np;
    unsigned arp;
    size_t l4;
    bool v4, lpb;

    if (QPSQ_OPCODE(w[3]) != OP_RDMA_SEND || seg_len < TCP_HLEN ||
        seg_len > E810_PUDA_MAX_SEG || tcp_hlen < TCP_HLEN ||
        tcp_hlen > seg_len) {
        c->puda.stats.tx_bad_wqe++;
        e810_guest_error(c, "puda: QP %u WQE %u op 0x%x len %u l4len %u", id,
                         idx, QPSQ_OPCODE(w[3]), seg_len, tcp_hlen);
        return false;
    }
    if (!c->rdma.ah ||
        ahid >= e810_rdma_obj_limit(c, E810_HMC_FSIAV, E810_RDMA_MAX_AH) ||
        !c->rdma.ah[ahid].valid) {
        puda_tx_drop(c, id, idx, "no such AH");
        return true;
    }
    ah = c->rdma.ah[ahid].wqe;
    v4 = ah[3] & CQPSQ_AH_IPV4VALID;
    arp = CQPSQ_AH_ARPINDEX(ah[2]);
    if (arp >= E810_RDMA_MAX_ARP || !c->rdma.arp[arp].valid) {
        c->rdma.pestat[v4 ? E810_PE_IP4TXNOROUTE : E810_PE_IP6TXNOROUTE]++;
        puda_tx_drop(c, id, idx, "ARP entry not valid");
        return true;
    }
    puda_path(c, ah, arp, &np);
    l4 = e810_frame_start(f, &np);
    /* The segment, TCP header and ports included, over what start put. */
    if (e810_dma_read(c, w[0], f + l4, seg_len)) {
        c->puda.stats.tx_bad_wqe++;
        e810_guest_error(c, "puda: QP %u WQE %u buffer 0x%" PRIx64
                         " unreadable", id, idx, w[0]);
        return false;
    }
    if (v4) {
        c->puda.ip_id++;
    }
    e810_frame_seal(f, &np, l4 + seg_len);

    lpb = ah[3] & CQPSQ_AH_DOLOOPBACKCHECK;
    trace_e810_puda_tx(id, idx, seg_len, ahid, f[l4 + TCP_OFF_FLAGS], lpb);
    if (!e810_rdma_xmit(c, f, l4 + seg_len, lpb)) {
        puda_tx_drop(c, id, idx, "link down or backend refused");
        return true;
    }
    c->puda.stats.tx_frames++;
    return true;
}

/*
 * Everything valid at the consumer index, at most one ring's worth, each
 * frame only when the transmit gate allows it (txsched.h): the rest is
 * left for the bottom half, so a doorbell storm while the backend is
 * full queues nothing.
 */
static void puda_sq_run(E810Core *c, uint32_t id, E810PudaQ *q)
{
    uint32_t n;

    q->tx_pending = false;
    for (n = 0; n < q->sq_size; n++) {
        uint64_t pa = q->sq_pa + 32ull * q->sq_tail;
        uint8_t raw[32];
        uint64_t w[4], cqe[4] = { 0 };
        unsigned idx = q->sq_tail;
        bool ok;

        if (e810_dma_read(c, pa, raw, sizeof(raw))) {
            e810_guest_error(c, "puda: QP %u SQ WQE %u unreadable", id, idx);
            return;
        }
        for (int i = 0; i < 4; i++) {
            w[i] = ld64(raw + 8 * i);
        }
        if (WQE_VALID(w[3]) != q->sq_pol) {
            /* Run dry: show the tail, then look once more. */
            if (e810_rdma_qp_show_sq_tail(c, id, q->sq_tail)) {
                continue;
            }
            break;
        }
        if (!e810_tx_may_send(c)) {
            q->tx_pending = true;       /* e810_puda_tx_run goes on */
            break;
        }
        ok = puda_tx_one(c, id, idx, w);
        q->sq_tail++;
        if (q->sq_tail == q->sq_size) {
            q->sq_tail = 0;
            q->sq_pol ^= 1;
        }
        if (ok && !(w[3] & QPSQ_SIGCOMPL)) {
            continue;
        }
        cqe[1] = q->comp_ctx;
        cqe[2] = (uint64_t)id << CQ_QPID_S;
        cqe[3] = (uint64_t)idx << CQ_WQEIDX_S | (uint64_t)OP_RDMA_SEND << CQ_OP_S |
                 CQ_SQ;
        if (!ok) {
            cqe[3] |= CQ_ERROR | (uint64_t)PUDA_MAJ_ERR << CQ_MAJERR_S;
        }
        if (!e810_rdma_cq_post(c, q->cq, cqe)) {
            e810_guest_error(c, "puda: QP %u SQ completion lost (CQ %u)", id,
                             q->cq);
        }
    }
    e810_rdma_qp_show_sq_tail(c, id, q->sq_tail);
}

bool e810_puda_doorbell(E810Core *c, uint32_t id)
{
    E810PudaQ *q = puda_q(c, id);

    if (!q) {
        return false;
    }
    puda_sq_run(c, id, q);
    return true;
}

void e810_puda_tx_run(E810Core *c)
{
    for (uint32_t id = E810_PUDA_ILQ_QP; id <= E810_PUDA_IEQ_QP; id++) {
        E810PudaQ *q = puda_q(c, id);

        if (q && q->tx_pending && e810_tx_may_send(c)) {
            puda_sq_run(c, id, q);
        }
    }
}

/* ---- receive ------------------------------------------------------------ */

bool e810_puda_ilq_rx(E810Core *c, bool ipv4, const uint8_t *l3,
                      size_t l3_len, const uint8_t *seg, size_t seg_len)
{
    E810PudaQ *q = puda_q(c, E810_PUDA_ILQ_QP);
    uint8_t hdr[ILQ_TCP_OFFSET], raw[32];
    uint64_t pa, buf, cqe[4] = { 0 };
    uint32_t buf_len, total = ILQ_TCP_OFFSET + seg_len;
    unsigned idx;

    if (!q || q->cq >= E810_RDMA_MAX_CQS || !c->rdma.cq[q->cq].valid) {
        c->puda.stats.rx_no_buf++;
        trace_e810_puda_rx_drop(total, "ILQ not set up");
        return false;
    }
    idx = q->rq_tail;
    pa = q->rq_pa + 32ull * idx;
    if (e810_dma_read(c, pa, raw, sizeof(raw))) {
        c->puda.stats.rx_no_buf++;
        e810_guest_error(c, "puda: ILQ RQ WQE %u unreadable", idx);
        return false;
    }
    if (WQE_VALID(ld64(raw + 24)) != q->rq_pol) {
        c->puda.stats.rx_no_buf++;
        trace_e810_puda_rx_drop(total, "no RQ buffer");
        return false;
    }
    buf = ld64(raw);
    buf_len = QPSQ_FRAG_LEN(ld64(raw + 8));
    if (total > buf_len) {
        c->puda.stats.rx_too_big++;
        trace_e810_puda_rx_drop(total, "larger than the RQ buffer");
        return false;
    }
    memset(hdr, 0, sizeof(hdr));
    memcpy(hdr + (ipv4 ? ILQ_IPV4_PAD : 0), l3, l3_len);
    if (e810_dma_write(c, buf, hdr, sizeof(hdr)) ||
        e810_dma_write(c, buf + ILQ_TCP_OFFSET, seg,
                               seg_len)) {
        c->puda.stats.rx_no_buf++;
        e810_guest_error(c, "puda: ILQ buffer 0x%" PRIx64 " unwritable", buf);
        return false;
    }
    q->rq_tail++;
    if (q->rq_tail == q->rq_size) {
        q->rq_tail = 0;
        q->rq_pol ^= 1;
    }
    e810_rq_cqe(cqe, E810_PUDA_ILQ_QP, q->comp_ctx, idx, OP_TYPE_REC, total,
                ipv4 ? CQ_IPV4 : 0);
    if (!e810_rdma_cq_post(c, q->cq, cqe)) {
        c->puda.stats.rx_no_buf++;
        e810_guest_error(c, "puda: ILQ RQ completion lost (CQ %u)", q->cq);
        return false;
    }
    c->puda.stats.rx_ilq++;
    trace_e810_puda_rx(idx, total, ipv4, seg[13]);
    return true;
}

/* ---- lifetime ----------------------------------------------------------- */

bool e810_puda_qp_event(E810Core *c, uint32_t id, int event)
{
    if (id != E810_PUDA_ILQ_QP && id != E810_PUDA_IEQ_QP) {
        return false;
    }
    if (event == E810_QP_CREATED) {
        puda_created(c, id);
    } else if (event == E810_QP_DESTROYED) {
        c->puda.q[id - 1].active = false;
    }
    return true;
}

void e810_puda_reset(E810Core *c)
{
    memset(c->puda.q, 0, sizeof(c->puda.q));
}

/* ---- saved state -------------------------------------------------------- */

/*
 * E810Puda, record E810_SNAP_PUDA: ip_id, the queues, the port's part
 * (port.c: quads, loopback queue), stats.  txbuf is one frame's scratch;
 * lpb_timer a host resource (made at init, re-armed by port.c).
 *
 * A queue is saved while puda_q() would take it: active and its QP valid.
 * An active queue whose QP went with the CQP (cqp_state_clear leaves the
 * PUDA alone) is never used again (a new CREATE_QP rebuilds it), so it
 * loads as inactive.  active is the sparse table's.
 */
static const E810SnapField puda_q_fields[] = {
    SF_UX(E810PudaQ, sq_pa),
    SF_UX(E810PudaQ, rq_pa),
    SF_UX(E810PudaQ, sq_size),
    SF_UX(E810PudaQ, rq_size),
    SF_UX(E810PudaQ, sq_tail),
    SF_UX(E810PudaQ, rq_tail),
    SF_U(E810PudaQ, sq_pol, 0, 1),
    SF_U(E810PudaQ, rq_pol, 0, 1),
    /* TXCQNUM as read: a CQ that need not exist (checked at each use) */
    SF_U(E810PudaQ, cq, 0, (1u << 25) - 1),
    SF_UX(E810PudaQ, comp_ctx),
    SF_BOOL(E810PudaQ, tx_pending),
    SF_END
};

static const E810SnapField puda_counter_fields[] = {
    SF_UX(E810PudaCounters, tx_frames),
    SF_UX(E810PudaCounters, tx_loopback),
    SF_UX(E810PudaCounters, tx_dropped),
    SF_UX(E810PudaCounters, tx_bad_wqe),
    SF_UX(E810PudaCounters, rx_ilq),
    SF_UX(E810PudaCounters, rx_iwarp),
    SF_UX(E810PudaCounters, rx_no_buf),
    SF_UX(E810PudaCounters, rx_too_big),
    SF_UX(E810PudaCounters, rx_malformed),
    SF_UX(E810PudaCounters, rx_bad_csum),
    SF_UX(E810PudaCounters, rx_apbvt_drop),
    SF_UX(E810PudaCounters, lpb_dropped),
    SF_END
};

static bool puda_q_live(E810Core *c, unsigned i)
{
    return c->puda.q[i].active && c->rdma.qp[i + 1].valid;
}

/* As puda_created made it: on a UDA QP, rings of 4 << n WQEs (n <= 13)
 * somewhere; the consumer indexes inside them. */
static bool puda_q_each(E810SnapR *r, void *e, uint32_t i, void *opaque)
{
    E810Core *c = opaque;
    E810PudaQ *q = e;
    const E810RdmaQp *qp = &c->rdma.qp[i + 1];

    if (!qp->valid || qp->type != QP_TYPE_UDA) {
        return e810_snap_fail(r, "puda.q[%u]: QP %u is not a UDA QP", i,
                              i + 1);
    }
    if (q->sq_size < 4 || q->sq_size > 4u << 13 ||
        (q->sq_size & (q->sq_size - 1))) {
        return e810_snap_fail(r, "puda.q[%u].sq_size: %u", i, q->sq_size);
    }
    if (q->rq_size < 4 || q->rq_size > 4u << 13 ||
        (q->rq_size & (q->rq_size - 1))) {
        return e810_snap_fail(r, "puda.q[%u].rq_size: %u", i, q->rq_size);
    }
    if (!q->sq_pa || !q->rq_pa) {
        return e810_snap_fail(r, "puda.q[%u].%s: 0", i,
                              q->sq_pa ? "rq_pa" : "sq_pa");
    }
    if (q->sq_tail >= q->sq_size) {
        return e810_snap_fail(r, "puda.q[%u].sq_tail: %u in a ring of %u", i,
                              q->sq_tail, q->sq_size);
    }
    if (q->rq_tail >= q->rq_size) {
        return e810_snap_fail(r, "puda.q[%u].rq_tail: %u in a ring of %u", i,
                              q->rq_tail, q->rq_size);
    }
    q->active = true;
    return true;
}

static void e810_puda_save(E810Core *c, E810SnapW *w)
{
    E810Puda *p = &c->puda;
    unsigned n = 0, i;

    e810_snap_put_u16(w, p->ip_id);
    /* The queues as a sparse table (e810_snap_get_sparse reads it). */
    for (i = 0; i < 2; i++) {
        n += puda_q_live(c, i);
    }
    e810_snap_put_u32(w, n);
    for (i = 0; i < 2; i++) {
        if (puda_q_live(c, i)) {
            e810_snap_put_u32(w, i);
            e810_snap_put_fields(w, puda_q_fields, &p->q[i]);
        }
    }
}

static bool e810_puda_load(E810Core *c, E810SnapR *r, uint16_t ver)
{
    E810Puda *p = &c->puda;

    return e810_snap_get_u16(r, &p->ip_id, "puda.ip_id") &&
           e810_snap_get_sparse(r, puda_q_fields, p->q, sizeof(p->q[0]), 2,
                                ver, "puda.q", puda_q_each, c);
}

const E810SnapPart e810_puda_stats_snap =
    E810_SNAP_FLAT("puda.stats", puda.stats, puda_counter_fields, NULL);

const E810SnapPart e810_puda_snap = {
    .name = "puda", .save = e810_puda_save, .load = e810_puda_load,
};
