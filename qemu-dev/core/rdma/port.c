/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: its port.  Frames the engines build leave here
 * (e810_rdma_xmit: the wire, or the loopback queue for this port's own
 * MAC), the loopback queue feeds them back in from a timer, and every
 * received frame is steered here between the LAN function and the
 * engines (e810_receive_frame).
 *
 * Every frame from the wire (or looped back) passes here before the LAN
 * switch.  Only untagged TCP over IPv4/IPv6 to the port MAC, with the main
 * VSI's PE filter on (ice_rdma_update_vsi_filter()) and the engine in
 * iWARP mode, is considered; the rules, in order:
 *
 *   1. the 4-tuple is owned by an offloaded QP (MODIFY_QP with TOECTXVALID
 *      read its quad from the QP context; QP in RTS/CLOSING/TERMINATE, or
 *      in ERROR while its connection finishes its close)
 *      -> the engine (e810_eng_rx); if it declines, continue with 2;
 *   2. ESTABLISHED quad hash entry (MANAGE_QHASH, type 1) on all four
 *      elements -> ILQ (QP 1);
 *   3. SYN (listen) entry on destination IP and port, pure SYN -> ILQ;
 *   4. destination port in the APBVT -> drop (the guest TCP stack must
 *      not answer segments of RDMA connections with a RST);
 *   5. otherwise -> LAN.
 *
 * In RoCEv2 mode the rule is simpler: UDP to port 4791 for the port MAC,
 * or for a multicast MAC the switch delivers to the function (a RoCEv2
 * multicast group), with the PE filter on goes to the RoCE engine
 * (core/roce/), everything else to the LAN.
 *
 * All four tuple elements are compared because a loopback connection uses
 * one IP address for both ends.  A segment that matched 1-4 but has
 * malformed headers (truncated, IPv4 options, lengths beyond the frame,
 * bad checksums) is dropped and counted; anything unparsable before the
 * ports goes to the LAN, which has its own rules.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../bytes.h"
#include "../../trace.h"
#include "rdma.h"
#include "puda.h"
#include "qpctx.h"
#include "engine.h"
#include "port.h"
#include "../snap.h"

enum { V_LAN, V_ILQ, V_QP, V_APBVT };

typedef struct RxSeg {
    bool ipv4;
    const uint8_t *l3;          /* IP header */
    size_t l3_len;              /* 20 (IPv4, no options) or 40 */
    const uint8_t *tcp;
    size_t seg_len;             /* TCP header + payload, per the IP header */
    size_t pkt_len;             /* Ethernet + IP packet (no padding) */
    const char *bad;            /* why the headers are unusable, or NULL */
    unsigned bad_kind;          /* E810_PE_ERR_* of @bad */
    bool csum_ok;               /* IPv4 header and TCP checksums */
    E810Quad quad;              /* local = destination of the frame */
} RxSeg;

/* A quad address from the driver's address words, zero-padded to 16. */
static void quad_ip(uint8_t *out, bool v4, uint64_t hi, uint64_t lo)
{
    memset(out, 0, 16);
    e810_rdma_ip_from_words(out, v4, hi, lo);
}

/*
 * Untagged TCP over IPv4 (no fragments) or IPv6 (no extension headers),
 * from the frame's one parse.  False: not such a frame (LAN).  True: the
 * ports are known; s->bad says whether the rest can be used.
 */
static bool rx_seg(const E810Frame *fr, RxSeg *s)
{
    const uint8_t *ip = e810_frame_l3(fr);
    unsigned doff;

    memset(s, 0, sizeof(*s));
    if (fr->ntags || (!fr->ipv4 && !fr->ipv6) || fr->proto != IP_PROTO_TCP ||
        fr->frag || fr->ip_ext || !fr->have_ports) {
        return false;
    }
    s->ipv4 = fr->ipv4;
    s->l3 = ip;
    s->l3_len = fr->l3_hlen;
    if (fr->ipv4) {
        memcpy(s->quad.rip, ip + 12, 4);
        memcpy(s->quad.lip, ip + 16, 4);
    } else {
        memcpy(s->quad.rip, ip + 8, 16);
        memcpy(s->quad.lip, ip + 24, 16);
    }
    s->quad.ipv4 = s->ipv4;
    s->tcp = ip + s->l3_len;
    s->quad.rport = fr->sport;
    s->quad.lport = fr->dport;
    if (fr->ip_options) {
        s->bad = "IPv4 options";
        return true;
    }
    if (!fr->l3_ok) {
        s->bad = fr->ipv4 ? "IPv4 total length beyond the frame"
                          : "IPv6 payload length beyond the frame";
        s->bad_kind = E810_PE_ERR_TRUNC;
        return true;
    }
    s->seg_len = fr->l4_len;
    s->pkt_len = fr->l3_end;
    s->csum_ok = fr->l3_csum_ok && fr->l4_csum_ok;
    doff = s->seg_len >= TCP_HLEN ? (s->tcp[12] >> 4) * 4u : 0;
    if (s->seg_len < TCP_HLEN) {
        s->bad = "truncated TCP header";
        s->bad_kind = E810_PE_ERR_TCP;
    } else if (doff < TCP_HLEN || doff > s->seg_len) {
        s->bad = "bad TCP data offset";
        s->bad_kind = E810_PE_ERR_TCP;
    }
    return true;
}

static bool quad_eq(const E810Quad *a, const E810Quad *b)
{
    return a->ipv4 == b->ipv4 && a->lport == b->lport &&
           a->rport == b->rport && !memcmp(a->lip, b->lip, 16) &&
           !memcmp(a->rip, b->rip, 16);
}

/* Offloaded QP owning @q, or 0. */
static uint32_t rx_find_qp(E810Core *c, const E810Quad *q)
{
    E810Puda *p = &c->puda;
    uint32_t n = e810_rdma_obj_limit(c, E810_HMC_QP, E810_RDMA_MAX_QPS);

    if (!p->bound) {
        return 0;
    }
    for (uint32_t i = 0; i < n; i += 8) {
        if (!p->bound[i / 8]) {
            continue;
        }
        for (uint32_t id = i; id < i + 8 && id < n; id++) {
            const E810RdmaQp *qp = &c->rdma.qp[id];

            /* ERROR too: irdma flushes a QP whose close outlives its
             * close timer (cm.c:irdma_handle_close_entry()) while the
             * peer's ACKs and FIN are still on their way; the data path
             * takes them as long as its connection is open. */
            if (!e810_bit(p->bound, id) || !qp->valid ||
                qp->type != QP_TYPE_IWARP ||
                (qp->state != QP_STATE_RTS && qp->state != QP_STATE_CLOSING &&
                 qp->state != QP_STATE_TERMINATE &&
                 qp->state != QP_STATE_ERROR)) {
                continue;
            }
            if (quad_eq(&p->quad[id], q)) {
                return id;
            }
        }
    }
    return 0;
}

/* The quad hash entry for @s: ESTABLISHED on the quad, else a SYN entry
 * for a pure SYN.  Untagged frames only match entries without a VLAN. */
static const E810RdmaQhash *rx_find_qhash(E810Core *c, const RxSeg *s,
                                          bool syn)
{
    for (int i = 0; i < E810_RDMA_MAX_QHASH; i++) {
        const E810RdmaQhash *e = &c->rdma.qhash[i];
        E810Quad q;

        if (!e->valid || e->ipv4 != s->ipv4 || e->vlan != E810_VLAN_NONE ||
            e->lport != s->quad.lport ||
            e->type != (syn ? QHASH_TYPE_SYN : QHASH_TYPE_ESTABLISHED)) {
            continue;
        }
        quad_ip(q.lip, e->ipv4, e->lip[1], e->lip[0]);
        if (memcmp(q.lip, s->quad.lip, 16)) {
            continue;
        }
        if (syn) {
            return e;
        }
        quad_ip(q.rip, e->ipv4, e->rip[1], e->rip[0]);
        if (e->rport == s->quad.rport && !memcmp(q.rip, s->quad.rip, 16)) {
            return e;
        }
    }
    return NULL;
}

static bool rx_pe_enabled(E810Core *c, const uint8_t *frame)
{
    uint16_t vsis[8];
    int n = e810_fw_switch_lookup(c, frame, E810_VLAN_NONE, vsis, 8);

    for (int i = 0; i < n; i++) {
        if (e810_fw_vsi_pe_enabled(c, vsis[i])) {
            return true;
        }
    }
    return false;
}

/* A segment for the engine that it discards (@kind: E810_PE_ERR_*). */
static void rx_drop(E810Core *c, uint64_t *ctr, const RxSeg *s,
                    unsigned kind, const char *why)
{
    (*ctr)++;
    e810_pestat_rx_err(c, s->ipv4, kind);
    trace_e810_steer_drop(s->quad.rport, s->quad.lport, why);
}

bool e810_rdma_steer(E810Core *c, const E810Frame *fr)
{
    const uint8_t *frame = fr->data;
    size_t len = fr->len;
    E810Puda *p = &c->puda;
    uint32_t qp_id;
    RxSeg s;
    int v;

    if (!c->rdma.cqp_active || len < 14) {
        return false;
    }
    if (c->rdma.protocol == PROTOCOL_ROCE) {
        /* RoCEv2: UDP to port 4791 belongs to the engine; the rest is the
         * LAN's (ARP, IP, the guest's own traffic).  Datagrams to a
         * multicast group come to a multicast MAC: the function takes
         * them when the switch has a filter for that MAC (rdma_cm joins
         * the group in the IP stack too, ip_mc_inc_group(), and ice adds
         * the MAC to the VSI) or multicast promiscuity. */
        if (memcmp(frame, c->mac, 6) && !(frame[0] & 1)) {
            return false;
        }
        return rx_pe_enabled(c, frame) && e810_eng_rx(c, 0, fr);
    }
    if (memcmp(frame, c->mac, 6)) {
        return false;
    }
    if (c->rdma.protocol != PROTOCOL_IWARP) {
        return false;
    }
    if (!rx_seg(fr, &s) || !rx_pe_enabled(c, frame)) {
        return false;
    }
    qp_id = rx_find_qp(c, &s.quad);
    if (qp_id) {
        v = V_QP;
    } else if (rx_find_qhash(c, &s, false)) {
        v = V_ILQ;
    } else if (e810_bit(c->rdma.apbvt, s.quad.lport) ||
               rx_find_qhash(c, &s, true)) {
        /* Listening or accelerated port: a pure SYN for a listener goes
         * to the CM, everything else is dropped. */
        v = V_APBVT;
        if (!s.bad && (s.tcp[13] & (TCP_SYN | TCP_ACK)) == TCP_SYN &&
            rx_find_qhash(c, &s, true)) {
            v = V_ILQ;
        }
    } else {
        return false;
    }
    if (s.bad) {
        rx_drop(c, &p->stats.rx_malformed, &s, s.bad_kind, s.bad);
        return true;
    }
    if (!s.csum_ok) {
        rx_drop(c, &p->stats.rx_bad_csum, &s, E810_PE_ERR_DISCARD,
                "bad checksum");
        return true;
    }
    e810_pestat_rx(c, fr);
    if (v == V_QP) {
        trace_e810_steer(s.quad.rport, s.quad.lport, s.tcp[13], "qp", qp_id);
        if (e810_eng_rx(c, qp_id, fr)) {
            p->stats.rx_iwarp++;
            return true;
        }
        /* Declined: as if the QP did not own the quad. */
        if (rx_find_qhash(c, &s, false)) {
            v = V_ILQ;
        } else if ((s.tcp[13] & (TCP_SYN | TCP_ACK)) == TCP_SYN &&
                   rx_find_qhash(c, &s, true)) {
            v = V_ILQ;
        } else {
            v = V_APBVT;
        }
    }
    if (v == V_APBVT) {
        rx_drop(c, &p->stats.rx_apbvt_drop, &s, E810_PE_ERR_DISCARD,
                "accelerated port");
        return true;
    }
    trace_e810_steer(s.quad.rport, s.quad.lport, s.tcp[13], "ilq",
                     E810_PUDA_ILQ_QP);
    e810_puda_ilq_rx(c, s.ipv4, s.l3, s.l3_len, s.tcp, s.seg_len);
    return true;
}

void e810_receive_parsed(E810Core *c, const E810Frame *fr)
{
    /* Segments of RDMA connections never reach the LAN (and its stack). */
    if (c->fw.phy.up && e810_rdma_steer(c, fr)) {
        return;
    }
    e810_lan_receive(c, fr);
}

void e810_receive_frame(E810Core *c, const uint8_t *frame, size_t len)
{
    E810Frame fr;

    /* Parsed once here; steering, the LAN and the engines share it. */
    e810_frame_parse(&fr, frame, len);
    e810_receive_parsed(c, &fr);
}

/* ---- offloaded quads ---------------------------------------------------- */

/* The offloaded QP takes over its quad: the ESTABLISHED quad hash entry
 * the CM added for it (to see the MPA exchange on the ILQ) is replaced by
 * the QP's own.  irdma forgets that entry at this point (qhash_set =
 * false in irdma_accept() and irdma_cm_event_connected()) and never
 * deletes it, so keeping it would fill the table one connection at a
 * time. */
static void qhash_replace(E810Core *c, uint32_t id, const E810Quad *q)
{
    for (int i = 0; i < E810_RDMA_MAX_QHASH; i++) {
        E810RdmaQhash *e = &c->rdma.qhash[i];
        E810Quad eq;

        if (!e->valid || e->type != QHASH_TYPE_ESTABLISHED || e->ipv4 != q->ipv4 ||
            e->lport != q->lport || e->rport != q->rport) {
            continue;
        }
        quad_ip(eq.lip, e->ipv4, e->lip[1], e->lip[0]);
        quad_ip(eq.rip, e->ipv4, e->rip[1], e->rip[0]);
        if (memcmp(eq.lip, q->lip, 16) || memcmp(eq.rip, q->rip, 16)) {
            continue;
        }
        e->valid = false;
        trace_e810_steer_quad("qhash-replaced", id, q->lport, q->rport);
    }
}

void e810_steer_qp_event(E810Core *c, uint32_t id, const uint64_t *wqe,
                         int event)
{
    E810Puda *p = &c->puda;
    const E810RdmaQp *qp;
    uint8_t ctx[E810_RDMA_QP_CTX_SIZE];
    E810QpCtx x;
    E810Quad *q;

    if (id >= E810_RDMA_MAX_QPS || !p->bound) {
        return;
    }
    if (event != E810_QP_MODIFIED) {
        if (e810_bit(p->bound, id)) {
            trace_e810_steer_quad("unbind", id, p->quad[id].lport,
                                  p->quad[id].rport);
        }
        e810_bit_set(p->bound, id, false);
        return;
    }
    qp = &c->rdma.qp[id];
    if (!wqe || !(wqe[3] & CQPSQ_QP_TOECTXVALID) || !qp->valid ||
        qp->type != QP_TYPE_IWARP) {
        return;
    }
    if (e810_dma_read(c, qp->ctx_pa, ctx, sizeof(ctx))) {
        e810_guest_error(c, "steer: QP %u context unreadable", id);
        return;
    }
    q = &p->quad[id];
    memset(q, 0, sizeof(*q));
    e810_qpctx_decode_bytes(ctx, &x);
    q->ipv4 = x.ipv4;
    q->lport = x.src_port;
    q->rport = x.dst_port;
    memcpy(q->rip, x.dest_ip, sizeof(q->rip));
    memcpy(q->lip, x.local_ip, sizeof(q->lip));
    e810_bit_set(p->bound, id, true);
    trace_e810_steer_quad("bind", id, q->lport, q->rport);
    qhash_replace(c, id, q);
}

/* ---- transmit ----------------------------------------------------------- */

bool e810_rdma_xmit(E810Core *c, const uint8_t *frame, size_t len,
                    bool loopback)
{
    uint8_t pad[60];

    if (len < 60) {
        memset(pad, 0, sizeof(pad));
        memcpy(pad, frame, len);
        frame = pad;
        len = sizeof(pad);
    }
    if (loopback || !memcmp(frame, c->mac, 6)) {
        e810_tx_spend(c);
        c->puda.stats.tx_loopback++;
        e810_pestat_tx(c, frame, len);
        e810_rx_loopback(c, frame, len);
        return true;
    }
    e810_lan_stats_port_tx(c, frame, len, c->fw.phy.up);
    if (!c->fw.phy.up) {
        return false;
    }
    e810_pestat_tx(c, frame, len);
    return e810_wire_send(c, frame, len, true);
}

bool e810_rdma_xmit_group(E810Core *c, const uint8_t *frame, size_t len,
                          bool loopback)
{
    bool sent = e810_rdma_xmit(c, frame, len, false);

    if (loopback) {
        /* The copy for our own members costs the entry's budget like
         * any looped-back frame; it is the same datagram for the
         * statistics. */
        e810_tx_spend(c);
        c->puda.stats.tx_loopback++;
        e810_rx_loopback(c, frame, len);
    }
    return sent;
}

/* ---- loopback ----------------------------------------------------------- */

static void lpb_timer_cb(void *opaque)
{
    E810Core *c = opaque;
    E810Puda *p = &c->puda;
    /* Only what is queued now: frames sent while delivering wait for the
     * next round, so two engines answering each other cannot spin here. */
    unsigned n = p->lpb_count;

    while (n-- && p->lpb_count) {
        E810LpbFrame fr = p->lpb[p->lpb_head];

        p->lpb_head = (p->lpb_head + 1) % E810_LPB_MAX;
        p->lpb_count--;
        e810_receive_frame(c, fr.data, fr.len);
        free(fr.data);
    }
    if (p->lpb_count && p->lpb_timer) {
        e810_timer_mod(p->lpb_timer, e810_now(c));
    }
}

void e810_rx_loopback(E810Core *c, const uint8_t *frame, size_t len)
{
    E810Puda *p = &c->puda;
    E810LpbFrame *fr;

    if (!p->lpb_timer || p->lpb_count == E810_LPB_MAX) {
        p->stats.lpb_dropped++;
        trace_e810_steer_lpb(len, p->lpb_count, false);
        return;
    }
    fr = &p->lpb[(p->lpb_head + p->lpb_count) % E810_LPB_MAX];
    fr->data = malloc(len);
    if (!fr->data) {
        p->stats.lpb_dropped++;
        return;
    }
    memcpy(fr->data, frame, len);
    fr->len = len;
    p->lpb_count++;
    trace_e810_steer_lpb(len, p->lpb_count, true);
    e810_timer_mod(p->lpb_timer, e810_now(c));
}

static void lpb_flush(E810Core *c)
{
    E810Puda *p = &c->puda;

    while (p->lpb_count) {
        free(p->lpb[p->lpb_head].data);
        p->lpb_head = (p->lpb_head + 1) % E810_LPB_MAX;
        p->lpb_count--;
    }
    p->lpb_head = 0;
    e810_timer_del(p->lpb_timer);
}

/* ---- lifetime (from e810.c) ---------------------------------------------- */

void e810_rdma_port_init(E810Core *c)
{
    E810Puda *p = &c->puda;

    p->quad = calloc(E810_RDMA_MAX_QPS, sizeof(*p->quad));
    p->bound = calloc(E810_RDMA_MAX_QPS / 8, 1);
    p->lpb_timer = e810_timer_new(c, lpb_timer_cb, c);
}

void e810_rdma_port_cleanup(E810Core *c)
{
    E810Puda *p = &c->puda;

    lpb_flush(c);
    e810_timer_free(p->lpb_timer);
    p->lpb_timer = NULL;
    free(p->quad);
    free(p->bound);
    p->quad = NULL;
    p->bound = NULL;
}

void e810_rdma_port_reset(E810Core *c)
{
    E810Puda *p = &c->puda;

    lpb_flush(c);
    if (p->bound) {
        memset(p->bound, 0, E810_RDMA_MAX_QPS / 8);
    }
}

/* ---- saved state (e810_puda_save/load) ---------------------------------- */

/*
 * The quads of the bound QPs, as a sparse table, and the loopback queue:
 * [u32 head][u32 count] then count frames from head, each [u32 len] and
 * its bytes.  A bound bit whose QP went with the CQP (cqp_state_clear
 * leaves the bitmap alone) matches nothing (rx_find_qp wants a valid QP)
 * and a new CREATE_QP clears it: it is not saved.
 */
static const E810SnapField quad_fields[] = {
    SF_BOOL(E810Quad, ipv4),
    SF_BYTES(E810Quad, lip),
    SF_BYTES(E810Quad, rip),
    SF_UX(E810Quad, lport),
    SF_UX(E810Quad, rport),
    SF_END
};

static bool quad_live(E810Core *c, uint32_t id)
{
    return e810_bit(c->puda.bound, id) && c->rdma.qp[id].valid;
}

/* Only MODIFY_QP of a valid iWARP QP binds a quad. */
static bool quad_each(E810SnapR *r, void *e, uint32_t id, void *opaque)
{
    E810Core *c = opaque;
    const E810RdmaQp *qp = &c->rdma.qp[id];

    if (!qp->valid || qp->type != QP_TYPE_IWARP) {
        return e810_snap_fail(r, "puda.quad[%u]: QP %u is not an iWARP QP",
                              id, id);
    }
    e810_bit_set(c->puda.bound, id, true);
    return true;
}

static void e810_rdma_port_save(E810Core *c, E810SnapW *w)
{
    E810Puda *p = &c->puda;
    uint32_t n = 0, id, nq = p->bound && p->quad ? E810_RDMA_MAX_QPS : 0;

    /* Whole bytes of the bound map clear hold no quad. */
    for (id = 0; id < nq; id++) {
        if (id % 8 == 0 && !p->bound[id / 8]) {
            id += 7;
            continue;
        }
        n += quad_live(c, id);
    }
    e810_snap_put_u32(w, n);
    for (id = 0; id < nq; id++) {
        if (id % 8 == 0 && !p->bound[id / 8]) {
            id += 7;
            continue;
        }
        if (quad_live(c, id)) {
            e810_snap_put_u32(w, id);
            e810_snap_put_fields(w, quad_fields, &p->quad[id]);
        }
    }
    e810_snap_put_u32(w, p->lpb_head);
    e810_snap_put_u32(w, p->lpb_count);
    for (unsigned k = 0; k < p->lpb_count; k++) {
        const E810LpbFrame *fr = &p->lpb[(p->lpb_head + k) % E810_LPB_MAX];

        e810_snap_put_u32(w, fr->len);
        e810_snap_put_bytes(w, fr->data, fr->len);
    }
}

static bool e810_rdma_port_load(E810Core *c, E810SnapR *r, uint16_t ver)
{
    E810Puda *p = &c->puda;
    uint64_t head, count, len;
    char name[40];

    if (!e810_snap_get_sparse(r, quad_fields, p->quad, sizeof(p->quad[0]),
                              p->bound && p->quad ? E810_RDMA_MAX_QPS : 0,
                              ver, "puda.quad", quad_each, c) ||
        !e810_snap_get_range(r, &head, 4, 0, E810_LPB_MAX - 1,
                             "puda.lpb_head") ||
        !e810_snap_get_range(r, &count, 4, 0, E810_LPB_MAX,
                             "puda.lpb_count")) {
        return false;
    }
    if (count && !p->lpb_timer) {
        return e810_snap_fail(r, "puda.lpb_count: %u frames and no loopback "
                              "timer here", (unsigned)count);
    }
    /* Counted as they are placed: a failure's reset frees them. */
    p->lpb_head = head;
    for (unsigned k = 0; k < count; k++) {
        E810LpbFrame *fr = &p->lpb[(p->lpb_head + k) % E810_LPB_MAX];

        snprintf(name, sizeof(name), "puda.lpb[%u].len", k);
        /* What the engines send: an Ethernet header at least, a frame of
         * the port at most. */
        if (!e810_snap_get_range(r, &len, 4, 14, E810_LAN_FRAME_BUF, name)) {
            return false;
        }
        fr->data = malloc(len);
        if (!fr->data) {
            return e810_snap_fail(r, "puda.lpb[%u]: out of memory", k);
        }
        fr->len = len;
        p->lpb_count++;
        snprintf(name, sizeof(name), "puda.lpb[%u]", k);
        if (!e810_snap_get_bytes(r, fr->data, len, name)) {
            return false;
        }
    }
    /* The queue drains at the next timer run, as it would have. */
    if (p->lpb_count) {
        e810_timer_mod(p->lpb_timer, e810_now(c));
    }
    return true;
}

const E810SnapPart e810_rdma_port_snap = {
    .name = "port", .save = e810_rdma_port_save, .load = e810_rdma_port_load,
};
