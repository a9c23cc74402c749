/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RoCEv2 engine: RC and UD queue pairs, the RoCEv2 transport of the
 * QP engine (rdma/engine.h).
 *
 * This file is its control part: it follows CREATE/MODIFY_QP in RoCE
 * mode, reads the RoCE QP host context (ctrl.c:
 * irdma_sc_qp_setctx_roce_gen_2, see docs/roce.md), hands received
 * packets to the role that takes them, and is the transport's
 * E810EngOps.  What the roles share is in common.c.  The roles, each in
 * its file:
 *
 *  - UD (QP 1, the GSI QP rdma_cm's connection manager talks through, and
 *    any IB_QPT_UD QP): each SQ WQE is one datagram to the address handle
 *    it names; a received datagram fills one RQ WQE behind a 40-byte GRH
 *    slot with the IP header.
 *  - RC requester: messages cut into path-MTU packets with consecutive
 *    PSNs, at most ROCE_WINDOW packets unacknowledged; coalesced ACKs and
 *    READ responses retire WQEs in order; a NAK (PSN sequence error) or
 *    the retransmission timer goes back to the oldest unacknowledged PSN
 *    (go-back-N), REXMIT_THRESH times, then the QP fails with
 *    LLP_TOO_MANY_RETRIES; RNR NAKs wait the peer's timer, RNRNAK_THRESH
 *    times (7: forever).
 *  - RC responder: the expected PSN (ePSN) and MSN; a duplicate is
 *    re-acknowledged, a PSN ahead gets one NAK; SEND into RQ WQEs, WRITE
 *    and READ through the STag translation with the QP's PD and the
 *    region's remote rights.  An inbound READ is checked and queued (at
 *    most IRD undone); its responses leave through the transmit gate
 *    like any data, in PSN order, with the acknowledgement owed after
 *    them (one, coalesced).  A duplicate READ is answered only from the
 *    queue of recent ones, from the PSN it asks for.
 *
 * Data buffers are guest memory read or written when a packet is built or
 * placed, never copied into the engine: a retransmission reads the WQE's
 * buffers again, as the hardware does.
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

/* ---- receive ------------------------------------------------------------ */

static bool roce_rx(E810Core *c, uint32_t qp_id, const E810Frame *fr)
{
    E810Roce *e = c->rdma.roce;
    const char *bad;
    RocePkt k;
    RoceQp *q;
    unsigned f;

    if (!roce_parse_frame(fr, &k, &bad)) {
        return false;
    }
    f = roce_op(k.opcode);
    if (!e) {
        e = roce_get(c);
        if (!e) {
            c->stats.rx_dropped++;
            return true;
        }
    }
    if (bad) {
        e->stats.rx_bad++;
        trace_e810_roce_drop(k.dqpn, k.opcode, k.psn, bad);
        return true;
    }
    trace_e810_roce_rx(k.dqpn, k.opcode, k.psn, (unsigned)k.ext_len);
    e810_pestat_rx(c, fr);      /* IP octets and packets, UDP datagrams */
    if (k.dqpn == ROCE_MCAST_QPN || (fr->data[0] & 1)) {
        roce_ud_mcast_rx(c, &k, fr->data);
        return true;
    }
    q = roce_qp_find(c, k.dqpn);
    if (!q || q->eng.halted ||
        (q->state != QP_STATE_RTR && q->state != QP_STATE_RTS &&
         q->state != QP_STATE_SQD)) {
        e->stats.rx_no_qp++;
        trace_e810_roce_drop(k.dqpn, k.opcode, k.psn, "no QP ready for it");
        return true;
    }
    if ((k.pkey & 0x7FFF) != (q->pkey & 0x7FFF)) {
        e->stats.rx_key++;
        trace_e810_roce_drop(q->eng.id, k.opcode, k.psn, "P_Key");
        return true;
    }
    if (q->type == QP_TYPE_ROCE_UD) {
        if (f & ROCE_F_UD) {
            roce_ud_rx(q, &k);
        } else {
            e->stats.rx_no_qp++;
            trace_e810_roce_drop(q->eng.id, k.opcode, k.psn, "not UD");
        }
        return true;
    }
    if (k.opcode >= 0x20) {
        e->stats.rx_no_qp++;
        trace_e810_roce_drop(q->eng.id, k.opcode, k.psn, "not RC");
        return true;
    }
    if ((f & ROCE_F_ACK) && (f & ROCE_F_ATOMIC)) {
        e->stats.rx_unexpected++;
        trace_e810_roce_drop(q->eng.id, k.opcode, k.psn, "atomic ACK");
    } else if (f & (ROCE_F_ACK | ROCE_F_READ_RESP)) {
        /* Responses to the requester, while it has sent anything. */
        if (q->state == QP_STATE_RTS || q->state == QP_STATE_SQD) {
            if (f & ROCE_F_ACK) {
                roce_rx_ack(q, &k);
            } else {
                roce_rx_read_resp(q, &k);
            }
        }
    } else {
        roce_resp_request(q, &k);
        roce_resp_run(q);
    }
    return true;
}


/* The RoCE QP host context (docs/roce.md section 3). */
static void qp_load(RoceQp *q, const E810QpCtx *x)
{
    E810Core *c = q->eng.c;

    e810_eng_ctx_load(&q->eng, x);
    q->wr_ok = x->wr_ok;
    q->rd_ok = x->rd_ok;
    q->ord = x->ord;
    q->ird = x->ird;
    q->rexmit_thresh = x->rexmit_thresh;
    q->rnr_thresh = x->rnr_thresh;
    q->pkey = x->pkey;
    q->qkey = x->qkey;
    q->dqpn = x->dest_qp;
    q->mtu = x->mss;
    if (q->mtu < 256 || q->mtu > 4096) {
        q->mtu = q->mtu > 4096 ? 4096 : 1024;
    }
    q->arp = x->arp_idx;
    memset(&q->path, 0, sizeof(q->path));
    q->path.ipv4 = x->ipv4;
    q->path.vlan = x->insert_vlan;
    q->path.vlan_tci = x->vlan_tag;
    q->path.ttl = x->ttl ? x->ttl : 64;
    q->path.tos = x->tos;
    q->path.sport = x->src_port;
    q->path.flow_label = x->flow_label;
    memcpy(q->path.smac, x->src_mac, 6);
    if (q->arp < E810_RDMA_MAX_ARP && c->rdma.arp[q->arp].valid) {
        memcpy(q->path.dmac, c->rdma.arp[q->arp].mac, 6);
    }
    memcpy(q->path.dip, x->dest_ip, 16);
    memcpy(q->path.sip, x->local_ip, 16);
}

static void roce_free(E810EngQp *b)
{
    RoceQp *q = roce_qp(b);

    if (q->rd) {
        free(q->rd);
        e810_mem_release(b->c, ROCE_RD_SLOTS * sizeof(RoceRead));
    }
}

/* FLUSH_WQES: the QP's timer and (with the SQ's WQEs) what it was
 * sending go. */
static void roce_flushed(E810EngQp *b, bool sq)
{
    RoceQp *q = roce_qp(b);

    b->deadline = -1;
    if (sq) {
        q->snd = q->snd_pkt = 0;
    }
}

static void roce_halt(E810EngQp *b)
{
    b->deadline = -1;
}

static bool roce_takes(unsigned type, uint32_t id)
{
    return type == QP_TYPE_ROCE_RC || type == QP_TYPE_ROCE_UD;
}

/* The READs an RC QP answers, charged. */
static bool rd_alloc(RoceQp *q)
{
    if (!e810_mem_charge(q->eng.c, ROCE_RD_SLOTS * sizeof(RoceRead))) {
        return false;
    }
    q->rd = calloc(ROCE_RD_SLOTS, sizeof(RoceRead));
    if (!q->rd) {
        e810_mem_release(q->eng.c, ROCE_RD_SLOTS * sizeof(RoceRead));
        return false;
    }
    return true;
}

/* An RC QP tracks its WQEs and the READs it answers. */
static bool roce_create(E810EngQp *b, uint64_t h, const E810QpCtx *x)
{
    RoceQp *q = roce_qp(b);

    if (!roce_get(b->c)) {
        return false;
    }
    q->type = (uint8_t)CQPSQ_QP_QPTYPE(h);
    q->state = b->c->rdma.qp[b->id].state;
    qp_load(q, x);
    if (q->type != QP_TYPE_ROCE_RC) {
        return true;
    }
    return e810_eng_wq_alloc(b) && rd_alloc(q);
}

static void roce_modify(E810EngQp *b, uint64_t h, const E810QpCtx *x,
                        E810CqpResult *r)
{
    RoceQp *q = roce_qp(b);
    E810Core *c = b->c;
    uint32_t id = b->id;
    unsigned next, prev;

    prev = q->state;
    next = CQPSQ_QP_NEXTIWSTATE(h);
    /* The state follows the control path's whatever the op says of the
     * type; the context only describes a QP of the type it was created
     * with. */
    if (CQPSQ_QP_QPTYPE(h) == q->type) {
        qp_load(q, x);
    }
    q->state = (uint8_t)next;
    if (next == QP_STATE_RTR && prev != QP_STATE_RTR && prev != QP_STATE_RTS) {
        q->epsn = x->epsn;
        q->msn = 0;
        q->nak_sent = q->eng.rcv_active = q->wr_active = false;
        q->rd_head = q->rd_cnt = q->rd_send = 0;
        q->ack_owed = false;
    }
    if (next == QP_STATE_RTS && prev != QP_STATE_RTS && prev != QP_STATE_SQD) {
        q->psn_next = q->psn_una = x->psn_nxt;
        q->retries = q->rnr_retries = 0;
        q->snd = q->snd_pkt = 0;
    }
    trace_e810_roce_qp(id, q->type, next, q->psn_next, q->epsn, q->dqpn,
                       q->mtu, q->arp);
    if (next == QP_STATE_RTS) {
        e810_eng_doorbell(c, id);
    } else if (next == QP_STATE_SQD) {
        /* Nothing is held inside the engine between packets: the SQ is
         * drained as soon as the outstanding packets are acknowledged;
         * irdma waits for this AE (verbs.c:irdma_wait_for_suspend). */
        roce_post_ae(q, AE_QP_SUSPEND_COMPLETE, 0);
    }
}

static void roce_run(E810EngQp *b)
{
    RoceQp *q = roce_qp(b);

    if (b->in_run) {
        return;
    }
    b->in_run = true;
    if (q->type == QP_TYPE_ROCE_UD) {
        roce_ud_run(q);
    } else {
        roce_resp_run(q);
        roce_rc_run(q);
    }
    b->in_run = false;
}

static void roce_timeout(E810EngQp *b)
{
    roce_rc_timeout(roce_qp(b));
}

static void roce_ae(E810EngQp *b, unsigned code, unsigned src)
{
    roce_post_ae(roce_qp(b), code, src);
}

/* ---- saved state -------------------------------------------------------- */

/*
 * A RoCE QP is all saved: the path (with the ARP MAC taken at MODIFY),
 * requester and responder, then for RC the READs answered from rd_head;
 * a WQE adds its RoceWqe fields.  The checks are what indexing needs and
 * what the runtime keeps: the PSNs and MSNs are 24 bits, the path MTU is
 * qp_load()'s, an RC QP has its WQ and read slots and a UD QP neither.
 */
static const E810SnapField roce_path_fields[] = {
    SF_BOOL(RocePath, ipv4),
    SF_BYTES(RocePath, smac),
    SF_BYTES(RocePath, dmac),
    SF_BOOL(RocePath, vlan),
    SF_UX(RocePath, vlan_tci),
    SF_BYTES(RocePath, sip),
    SF_BYTES(RocePath, dip),
    SF_UX(RocePath, tos),
    SF_UX(RocePath, ttl),
    SF_UX(RocePath, flow_label),
    SF_UX(RocePath, sport),
    SF_END
};

static const E810SnapField roce_qp_fields[] = {
    SF_U(RoceQp, type, QP_TYPE_ROCE_RC, QP_TYPE_ROCE_UD),
    SF_U(RoceQp, state, QP_STATE_IDLE, QP_STATE_ERROR),
    SF_BOOL(RoceQp, rd_ok),
    SF_BOOL(RoceQp, wr_ok),
    SF_SUB(RoceQp, path, roce_path_fields),
    SF_UX(RoceQp, arp),
    SF_U(RoceQp, mtu, 256, 4096),
    SF_UX(RoceQp, pkey),
    SF_UX(RoceQp, qkey),
    SF_UX(RoceQp, dqpn),
    SF_UX(RoceQp, rexmit_thresh),
    SF_UX(RoceQp, rnr_thresh),
    SF_U(RoceQp, ord, 0, 255),          /* ORDSIZE: 8 bits */
    SF_UX(RoceQp, snd),
    SF_UX(RoceQp, snd_pkt),
    SF_U(RoceQp, psn_next, 0, ROCE_PSN_MASK),
    SF_U(RoceQp, psn_una, 0, ROCE_PSN_MASK),
    SF_UX(RoceQp, retries),
    SF_UX(RoceQp, rnr_retries),
    SF_BOOL(RoceQp, rnr_wait),
    SF_BOOL(RoceQp, gap_asked),
    SF_U(RoceQp, gap_psn, 0, ROCE_PSN_MASK),
    SF_U(RoceQp, epsn, 0, ROCE_PSN_MASK),
    SF_U(RoceQp, msn, 0, 0xFFFFFF),
    SF_U(RoceQp, ird, 0, ROCE_RD_SLOTS),
    SF_U(RoceQp, rd_head, 0, ROCE_RD_SLOTS - 1),
    SF_U(RoceQp, rd_cnt, 0, ROCE_RD_SLOTS),
    SF_UX(RoceQp, rd_send),
    SF_BOOL(RoceQp, ack_owed),
    SF_UX(RoceQp, ack_syn),
    SF_U(RoceQp, ack_psn, 0, ROCE_PSN_MASK),
    SF_BOOL(RoceQp, nak_sent),
    SF_UX(RoceQp, rcv_off),
    SF_BOOL(RoceQp, wr_active),
    SF_UX(RoceQp, wr_rkey),
    SF_UX(RoceQp, wr_len),
    SF_UX(RoceQp, wr_off),
    SF_UX(RoceQp, wr_va),
    SF_END
};

static const E810SnapField roce_read_fields[] = {
    SF_U(RoceRead, psn, 0, ROCE_PSN_MASK),
    SF_U(RoceRead, npkts, 1, UINT32_MAX),
    SF_UX(RoceRead, next),
    SF_U(RoceRead, msn, 0, 0xFFFFFF),
    SF_UX(RoceRead, rkey),
    SF_UX(RoceRead, len),
    SF_UX(RoceRead, va),
    SF_END
};

static const E810SnapField roce_wqe_fields[] = {
    SF_BOOL(RoceWqe, imm),
    SF_BOOL(RoceWqe, psn_valid),
    SF_UX(RoceWqe, imm_data),
    SF_UX(RoceWqe, rkey),
    SF_UX(RoceWqe, raddr),
    SF_UX(RoceWqe, ah),
    SF_UX(RoceWqe, qkey),
    SF_UX(RoceWqe, dqpn),
    SF_U(RoceWqe, first_psn, 0, ROCE_PSN_MASK),
    SF_UX(RoceWqe, npkts),
    SF_UX(RoceWqe, got),
    SF_END
};

static const E810SnapField roce_stats_fields[] = {
    SF_UX(E810RoceCounters, tx_pkts),
    SF_UX(E810RoceCounters, rx_pkts),
    SF_UX(E810RoceCounters, rx_bad),
    SF_UX(E810RoceCounters, rx_no_qp),
    SF_UX(E810RoceCounters, rx_key),
    SF_UX(E810RoceCounters, rx_dup),
    SF_UX(E810RoceCounters, rx_out_of_seq),
    SF_UX(E810RoceCounters, rx_unexpected),
    SF_UX(E810RoceCounters, ud_dropped),
    SF_UX(E810RoceCounters, naks_sent),
    SF_UX(E810RoceCounters, rnr_naks_sent),
    SF_UX(E810RoceCounters, retransmits),
    SF_UX(E810RoceCounters, timeouts),
    SF_UX(E810RoceCounters, tx_dropped),
    SF_UX(E810RoceCounters, acks_coalesced),
    SF_UX(E810RoceCounters, rd_dup_stale),
    SF_UX(E810RoceCounters, rd_ird_exceeded),
    SF_UX(E810RoceCounters, mcast_tx),
    SF_UX(E810RoceCounters, mcast_rx),
    SF_UX(E810RoceCounters, mcast_no_group),
    SF_UX(E810RoceCounters, mcast_bad),
    SF_END
};

/* The counters (their E810Roce is made with the first RoCE QP or frame
 * and outlives the CQP); the frame buffer is scratch. */
static void roce_dev_save(E810Core *c, E810SnapW *w)
{
    e810_snap_put_u8(w, c->rdma.roce != NULL);
    if (c->rdma.roce) {
        e810_snap_put_fields(w, roce_stats_fields, &c->rdma.roce->stats);
    }
}

static bool roce_dev_load(E810Core *c, E810SnapR *r, uint16_t ver)
{
    bool have;

    if (!e810_snap_get_bool(r, &have, "roce")) {
        return false;
    }
    if (!have) {
        /* As on the source: no RoCE yet (a reset keeps it, a load not). */
        free(c->rdma.roce);
        c->rdma.roce = NULL;
        return true;
    }
    if (!roce_get(c)) {
        return e810_snap_fail(r, "roce: out of host memory");
    }
    return e810_snap_get_fields(r, roce_stats_fields, &c->rdma.roce->stats,
                                ver, "roce.stats");
}

static void roce_save(E810EngQp *b, E810SnapW *w)
{
    RoceQp *q = roce_qp(b);

    e810_snap_put_fields(w, roce_qp_fields, q);
    for (unsigned i = 0; q->rd && i < q->rd_cnt; i++) {
        e810_snap_put_fields(w, roce_read_fields,
                             &q->rd[(q->rd_head + i) % ROCE_RD_SLOTS]);
    }
}

static bool roce_load(E810EngQp *b, E810SnapR *r, uint16_t ver,
                      const char *path)
{
    RoceQp *q = roce_qp(b);
    unsigned ctl = b->c->rdma.qp[b->id].type;
    bool rc;
    char name[64];

    if (!roce_get(b->c)) {
        return e810_snap_fail(r, "%s: out of host memory", path);
    }
    if (!e810_snap_get_fields(r, roce_qp_fields, q, ver, path)) {
        return false;
    }
    rc = q->type == QP_TYPE_ROCE_RC;
    if (q->type != ctl) {
        return e810_snap_fail(r, "%s.type: %u, the control QP's is %u", path,
                              q->type, ctl);
    }
    if (rc != (b->wq_size != 0)) {
        return e810_snap_fail(r, "%s.wq_size: %u for a%s QP", path,
                              b->wq_size, rc ? "n RC" : " UD");
    }
    if (q->snd > b->wq_cnt) {
        return e810_snap_fail(r, "%s.snd: %u > wq_cnt %u", path, q->snd,
                              b->wq_cnt);
    }
    if (q->rd_send > q->rd_cnt) {
        return e810_snap_fail(r, "%s.rd_send: %u > rd_cnt %u", path,
                              q->rd_send, q->rd_cnt);
    }
    if (!rc && q->rd_cnt) {
        return e810_snap_fail(r, "%s.rd_cnt: %u READs on a UD QP", path,
                              q->rd_cnt);
    }
    if (q->rcv_off > b->rcv_cap) {
        return e810_snap_fail(r, "%s.rcv_off: %" PRIu64 " > rcv_cap %" PRIu64,
                              path, q->rcv_off, b->rcv_cap);
    }
    if (q->wr_off > q->wr_len) {
        return e810_snap_fail(r, "%s.wr_off: %u > wr_len %u", path,
                              q->wr_off, q->wr_len);
    }
    if (rc && !rd_alloc(q)) {
        return e810_snap_fail(r, "%s: rdma-mem-limit %" PRIu64 " is below "
                              "what the saved QPs take", path,
                              b->c->mem_limit);
    }
    for (unsigned i = 0; i < q->rd_cnt; i++) {
        RoceRead *rd = &q->rd[(q->rd_head + i) % ROCE_RD_SLOTS];

        snprintf(name, sizeof(name), "%s.rd[%u]", path, i);
        if (!e810_snap_get_fields(r, roce_read_fields, rd, ver, name)) {
            return false;
        }
        if (rd->next > rd->npkts) {
            return e810_snap_fail(r, "%s.next: %u > npkts %u", name,
                                  rd->next, rd->npkts);
        }
    }
    return true;
}

/*
 * A WQE with PSNs has at least one packet and no more than its length
 * makes at the smallest MTU (roce_npkts at the MTU then): an inline one
 * is one packet, so a packet's offset in it is 0.  The WQE the requester
 * sends from has its next packet among them (a READ's may be one past,
 * all asked for).
 */
static bool roce_wqe_check(E810EngQp *b, E810EngWqe *bw, unsigned i,
                           E810SnapR *r, const char *path)
{
    RoceQp *q = roce_qp(b);
    RoceWqe *w = (RoceWqe *)bw;
    uint64_t most;

    if (w->got > w->npkts) {
        return e810_snap_fail(r, "%s.got: %u > npkts %u", path, w->got,
                              w->npkts);
    }
    if (!w->psn_valid) {
        return true;
    }
    most = w->eng.len ? ((uint64_t)w->eng.len + 255) / 256 : 1;
    if (w->npkts < 1 || w->npkts > most) {
        return e810_snap_fail(r, "%s.npkts: %u not in [1, %" PRIu64 "] for "
                              "%u bytes", path, w->npkts, most, w->eng.len);
    }
    if (i == q->snd && (q->snd_pkt > w->npkts ||
                        (q->snd_pkt == w->npkts && !w->eng.done &&
                         !roce_op_read(w->eng.op)))) {
        return e810_snap_fail(r, "%s.snd_pkt: %u, the WQE it sends from has "
                              "%u packets", path, q->snd_pkt, w->npkts);
    }
    return true;
}

static void roce_cleanup(E810Core *c)
{
    free(c->rdma.roce);
    c->rdma.roce = NULL;
}

const E810EngOps e810_roce_ops = {
    .name = "roce", .protocol = PROTOCOL_ROCE,
    .qp_size = sizeof(RoceQp), .wqe_size = sizeof(RoceWqe),
    .wq_max = ROCE_WQ_MAX,
    .takes = roce_takes, .create = roce_create, .modify = roce_modify,
    .flushed = roce_flushed, .release = roce_free, .run = roce_run,
    .timeout = roce_timeout, .ae = roce_ae, .halt = roce_halt,
    .retired = roce_retired, .cqp_doorbell = roce_cqp_doorbell,
    .cleanup = roce_cleanup, .save = roce_save, .load = roce_load,
    .wqe_fields = roce_wqe_fields, .wqe_check = roce_wqe_check,
    .dev_save = roce_dev_save, .dev_load = roce_dev_load,
    .rx = roce_rx,
};

const E810RoceCounters *e810_roce_stats(E810Core *c)
{
    return c->rdma.roce ? &c->rdma.roce->stats : NULL;
}
