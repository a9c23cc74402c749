/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RoCEv2 engine: RC and UD queue pairs.
 *
 * The control path (rdma/qp.c) keeps the QP table; this file follows its
 * CREATE/MODIFY/DESTROY_QP and FLUSH_WQES ops in RoCE mode, reads the
 * RoCE QP host context (ctrl.c:irdma_sc_qp_setctx_roce_gen_2, see
 * docs/roce.md), and moves data:
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
#include "../e810.h"
#include "../bytes.h"
#include "../../trace.h"
#include "../rdma/rdma.h"
#include "../rdma/wqe.h"
#include "../rdma/engine.h"
#include "../rdma/iwarp-hooks.h"
#include "roce.h"
#include "roce-int.h"

#ifndef E810_IN_QEMU
#include <stdlib.h>
#endif

/* UD receive completions carry OP_TYPE_REC: the BTH opcode does not fit
 * the 6-bit field and the driver only looks for WRITE with immediate. */

#define ROCE_MAX_SGE            16
#define ROCE_MAX_INLINE         256
#define ROCE_WQ_MAX             256     /* WQEs the requester tracks */
#define ROCE_WINDOW             64      /* unacknowledged packets */
#define ROCE_ACKREQ_EVERY       16      /* ask for an ACK within a message */
#define ROCE_RTO_NS             (50 * 1000 * 1000LL)
#define ROCE_RTO_MAX_NS         (2000 * 1000 * 1000LL)
#define ROCE_RNR_INFINITE       7
/* RNR NAK timer code the responder sends (5.12 ms): gen2's context has
 * no minimum RNR timer (min_rnr_timer is gen3 only). */
#define ROCE_RNR_CODE           18
/* Inbound READs the responder keeps: at most IRD (256 at most) undone,
 * the rest answered ones kept for duplicates. */
#define ROCE_RD_SLOTS           256

typedef struct RoceWqe {
    E810EngWqe b;
    bool imm;
    bool psn_valid;             /* a transport op with PSNs assigned */
    uint32_t imm_data;
    uint32_t rkey;              /* WRITE/READ R_Key, SEND_INV STag */
    uint64_t raddr;
    uint32_t ah;                /* UD */
    uint32_t qkey, dqpn;        /* UD */
    uint32_t first_psn, npkts;
    uint32_t got;               /* READ: response packets placed */
} RoceWqe;

/* An inbound READ: the responses owed for it, or sent (kept for a
 * duplicate request). */
typedef struct RoceRead {
    uint32_t psn;               /* of the request = of the first response */
    uint32_t npkts;
    uint32_t next;              /* next response to send; npkts: all sent */
    uint32_t msn;               /* carried in its AETHs */
    uint32_t rkey, len;
    uint64_t va;
} RoceRead;

typedef struct RoceQp {
    E810EngQp b;
    uint8_t type;
    uint8_t state;              /* as last seen from the control path */
    bool rd_ok, wr_ok;
    RocePath path;
    unsigned arp;
    unsigned mtu;
    uint16_t pkey;
    uint32_t qkey, dqpn;
    unsigned rexmit_thresh, rnr_thresh, ord;
    /* requester */
    unsigned snd;               /* offset from wq_head of the WQE to send */
    uint32_t snd_pkt;           /* its next packet */
    uint32_t psn_next;          /* first PSN not yet assigned */
    uint32_t psn_una;           /* oldest unacknowledged PSN */
    unsigned retries, rnr_retries;
    bool rnr_wait;
    bool gap_asked;             /* READ responses ahead of psn_una seen */
    uint32_t gap_psn;           /* ... and asked for again from here */
    /* responder */
    uint32_t epsn, msn;
    unsigned ird;
    RoceRead *rd;               /* ROCE_RD_SLOTS, oldest at rd_head */
    unsigned rd_head, rd_cnt;
    unsigned rd_send;           /* from rd_head: first that may be undone */
    bool ack_owed;              /* one ACK/NAK waits behind the responses */
    uint8_t ack_syn;
    uint32_t ack_psn;
    bool nak_sent;
    uint64_t rcv_off;           /* of the receive in progress */
    bool wr_active;
    uint32_t wr_rkey, wr_len, wr_off;
    uint64_t wr_va;
} RoceQp;

/* The transport's own state: counters and the frame being built. */
struct E810Roce {
    E810RoceCounters stats;
    uint8_t tx[ROCE_FRAME_MAX];
};

static E810Roce *roce_get(E810Core *c)
{
    if (!c->rdma.roce) {
        c->rdma.roce = calloc(1, sizeof(E810Roce));
    }
    return c->rdma.roce;
}

static RoceQp *qp_find(E810Core *c, uint32_t id)
{
    E810EngQp *b = e810_eng_find(c, id);

    return b && b->ops == &e810_roce_ops ? (RoceQp *)b : NULL;
}

static RoceQp *roceqp(E810EngQp *b)
{
    return (RoceQp *)b;
}

static void tx_note(RoceQp *q)
{
    e810_eng_tx_note(&q->b);
}

static E810MemOwner owner(RoceQp *q)
{
    return e810_eng_owner(&q->b);
}

/* ---- AEs and CQEs ------------------------------------------------------- */

static void post_ae(RoceQp *q, unsigned code, unsigned src)
{
    uint64_t qw1;

    qw1 = e810_aeqe_qw1(q->b.id, code, src, q->state);
    trace_e810_roce_ae(q->b.id, code, src, q->state);
    e810_rdma_aeq_post(q->b.c, q->b.c->rdma.qp[q->b.id].comp_ctx, qw1);
}

static void qp_fatal(RoceQp *q, unsigned ae, unsigned src)
{
    e810_eng_fatal(&q->b, ae, src);
}

/* Receive completion: @op is the BTH opcode of the last packet (what
 * verbs.h:set_ib_wc_op_rq() looks at), @qw2lo the UD source QP or the
 * invalidated STag. */
static void rq_cqe(RoceQp *q, uint64_t len, unsigned op, uint64_t qw2lo,
                   uint64_t flags, bool imm, uint32_t imm_data)
{
    uint64_t cqe[4], ext[4] = { 0 };

    cqe[0] = len;
    cqe[1] = q->b.c->rdma.qp[q->b.id].comp_ctx;
    cqe[2] = qw2lo | (uint64_t)(q->b.id & 0xFFFFFF) << 32;
    cqe[3] = (uint64_t)((q->b.rcv_idx << q->b.rq_shift) & 0x7FFF) << 32 |
             (uint64_t)(op & 0x3F) << 56 | flags;
    trace_e810_qp_cqe(q->b.id, q->b.rxcq, false, q->b.rcv_idx, op, 0);
    if (imm) {
        cqe[3] |= CQ_EXTCQE;
        ext[0] = imm_data;
        ext[3] = CQ_EXT_IMMVALID;
        e810_rdma_cq_post_ext(q->b.c, q->b.rxcq, cqe, ext);
        return;
    }
    e810_rdma_cq_post(q->b.c, q->b.rxcq, cqe);
}

/* ---- frames ------------------------------------------------------------- */

static void xmit(RoceQp *q, size_t len, unsigned opcode, uint32_t psn,
                 unsigned payload)
{
    E810Roce *e = q->b.c->rdma.roce;

    trace_e810_roce_tx(q->b.id, opcode, psn, payload);
    e->stats.tx_pkts++;
    q->b.c->rdma.pestat[E810_PE_UDPTXPKTS]++;
    if (!e810_rdma_xmit(q->b.c, e->tx, len, false)) {
        e->stats.tx_dropped++;
    }
}

/* ACK or NAK with @syndrome for @psn to the connected peer, now. */
static void ack_out(RoceQp *q, uint8_t syndrome, uint32_t psn)
{
    E810Roce *e = q->b.c->rdma.roce;
    size_t off = roce_frame_start(e->tx, &q->path);
    uint8_t *p = e->tx + off;

    roce_bth_put(p, ROCE_ACK, false, 0, q->pkey, q->dqpn, false, psn);
    p[ROCE_BTH_LEN] = syndrome;
    roce_put24(p + ROCE_BTH_LEN + 1, q->msn & 0xFFFFFF);
    if (syndrome != (ROCE_AETH_ACK | ROCE_AETH_CREDITS_NONE)) {
        trace_e810_roce_nak(q->b.id, syndrome, psn);
    }
    xmit(q, roce_frame_seal(e->tx, &q->path, off,
                            off + ROCE_BTH_LEN + ROCE_AETH_LEN),
         ROCE_ACK, psn, 0);
}

/*
 * The responder owes an ACK or NAK: it leaves after the READ responses
 * before it, when the gate allows (resp_run).  Each acknowledgement
 * covers everything before its PSN, so a newer one replaces one still
 * waiting: however many requests arrive while the backend is full, one
 * frame waits.
 */
static void send_ack(RoceQp *q, uint8_t syndrome, uint32_t psn)
{
    if (q->ack_owed) {
        q->b.c->rdma.roce->stats.acks_coalesced++;
    }
    q->ack_owed = true;
    q->ack_syn = syndrome;
    q->ack_psn = psn;
}

static void send_nak(RoceQp *q, unsigned code, uint32_t psn)
{
    q->b.c->rdma.roce->stats.naks_sent++;
    send_ack(q, ROCE_AETH_NAK | code, psn);
}

/* ---- queues ------------------------------------------------------------- */

static bool op_is_local(unsigned op)
{
    return op == OP_FAST_REGISTER || op == OP_LOCAL_INVALIDATE || op == OP_NOP;
}

static bool op_is_read(unsigned op)
{
    return op == OP_RDMA_READ || op == OP_RDMA_READ_LOC_INV;
}

/* Parse the WQE at the SQ consumer index (uk.c irdma_uk_send/rdma_write/
 * rdma_read/inline_*).  False if none is there.  Local ops run here. */
static bool sq_fetch(RoceQp *q, RoceWqe *w, uint64_t *hdr)
{
    uint8_t raw[32];
    uint64_t h, qw[4];

    if (!e810_eng_sq_fetch(&q->b, &w->b, raw, hdr, qw)) {
        return false;
    }
    h = *hdr;
    w->imm = h & QPSQ_IMMDATAFLAG;
    w->imm_data = (uint32_t)qw[0];
    w->raddr = qw[2];
    w->rkey = (uint32_t)h;
    w->ah = QPSQ_AHID(h);
    w->qkey = (uint32_t)qw[2];
    w->dqpn = (uint32_t)e810_fld(qw[2], 55, 32);
    if (op_is_local(w->b.op)) {
        if (w->b.op == OP_FAST_REGISTER) {
            E810MemOwner o = owner(q);

            w->b.status = (int)e810_fast_reg(&o, qw);
        } else if (w->b.op == OP_LOCAL_INVALIDATE) {
            E810MemOwner o = owner(q);

            w->b.status = (int)e810_stag_invalidate(&o, QPSQ_FRAG_STAG(qw[1]),
                                                    false);
        }
        w->b.done = true;
        return true;
    }
    e810_eng_sq_payload(&q->b, &w->b, raw, h, qw, false);
    return true;
}

/* Take the RQ WQE at the consumer index; false if none is posted. */
static bool rq_take(RoceQp *q)
{
    if (!e810_eng_rq_take(&q->b)) {
        return false;
    }
    q->rcv_off = 0;
    return true;
}

/* ---- timer -------------------------------------------------------------- */

static int64_t rto(RoceQp *q)
{
    int64_t t = ROCE_RTO_NS << (q->retries < 6 ? q->retries : 6);

    return t < ROCE_RTO_MAX_NS ? t : ROCE_RTO_MAX_NS;
}

/* The requester has packets out: (re)start the retransmission timer. */
static void timer_restart(RoceQp *q)
{
    bool busy = roce_psn_diff(q->psn_next, q->psn_una) > 0;

    q->b.deadline = busy ? e810_now(q->b.c) + rto(q) : -1;
    e810_eng_timer_want(&q->b);
}

/* RNR NAK timer codes (IBA table 45), in microseconds. */
static int64_t rnr_us(unsigned code)
{
    static const uint32_t us[32] = {
        655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
        1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
        40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
    };

    return us[code & 31];
}

/* ---- RC requester ------------------------------------------------------- */

static RoceWqe *wq_at(RoceQp *q, unsigned i)
{
    return (RoceWqe *)e810_eng_wq_at(&q->b, i);
}

static unsigned npkts_of(RoceQp *q, uint32_t len)
{
    return len ? (unsigned)((len + (uint64_t)q->mtu - 1) / q->mtu) : 1;
}

/* Send from PSN @psn again: the WQE holding it and its packet. */
static void rewind_to(RoceQp *q, uint32_t psn)
{
    unsigned i;

    for (i = 0; i < q->b.wq_cnt; i++) {
        RoceWqe *w = wq_at(q, i);
        int32_t d;

        if (!w->psn_valid) {
            continue;
        }
        d = roce_psn_diff(psn, w->first_psn);
        if (d >= 0 && (uint32_t)d < w->npkts) {
            q->snd = i;
            /* A READ is asked for again from its first missing
             * response. */
            q->snd_pkt = op_is_read(w->b.op) ? w->got : (uint32_t)d;
            return;
        }
        if (d < 0) {
            break;
        }
    }
    /* Nothing of it was sent: from the first WQE after the sent ones. */
    for (i = 0; i < q->b.wq_cnt; i++) {
        RoceWqe *w = wq_at(q, i);

        if (w->psn_valid && roce_psn_diff(w->first_psn, psn) >= 0) {
            break;
        }
    }
    q->snd = i;
    q->snd_pkt = 0;
}

/* The head WQE retired: the one to send is one nearer the head. */
static void roce_retired(E810EngQp *b)
{
    RoceQp *q = roceqp(b);

    if (q->snd) {
        q->snd--;
    } else {
        q->snd_pkt = 0;
    }
}

static void wq_retire(RoceQp *q)
{
    e810_eng_wq_retire(&q->b);
}

/* Everything up to and including @psn is acknowledged. */
static void ack_upto(RoceQp *q, uint32_t psn)
{
    unsigned i;

    if (roce_psn_diff(psn, q->psn_una) < 0 ||
        roce_psn_diff(psn, q->psn_next) >= 0) {
        return;                 /* old, or for nothing we sent */
    }
    for (i = 0; i < q->b.wq_cnt; i++) {
        RoceWqe *w = wq_at(q, i);

        if (!w->psn_valid) {
            if (w->b.done) {
                continue;       /* a local op between transport ops */
            }
            break;
        }
        if (roce_psn_diff(psn, w->first_psn + w->npkts - 1) < 0) {
            break;
        }
        if (op_is_read(w->b.op)) {
            if (!w->b.done) {
                /* The responder is past a READ whose responses did not
                 * all arrive: ask for the rest. */
                q->psn_una = (w->first_psn + w->got) & ROCE_PSN_MASK;
                rewind_to(q, q->psn_una);
                return;
            }
            continue;
        }
        w->b.done = true;
    }
    q->psn_una = (psn + 1) & ROCE_PSN_MASK;
    q->retries = 0;
}

/* Packet @k of WQE @w. */
static void send_pkt(RoceQp *q, RoceWqe *w, uint32_t k)
{
    E810Roce *e = q->b.c->rdma.roce;
    size_t off = roce_frame_start(e->tx, &q->path), p;
    uint8_t *b = e->tx;
    bool first, last, se = false;
    uint32_t psn, poff, plen = 0;
    unsigned opcode;
    bool ackreq;

    /*
     * A READ is always asked for from its first missing response: its PSN
     * and its remote address must name the same packet, or the responses
     * of a rewound READ land at the wrong offset.
     */
    if (op_is_read(w->b.op)) {
        k = w->got;
    }
    first = k == 0;
    last = k + 1 >= w->npkts;
    psn = (w->first_psn + k) & ROCE_PSN_MASK;
    poff = k * q->mtu;
    p = off + ROCE_BTH_LEN;
    if (op_is_read(w->b.op)) {
        opcode = ROCE_READ_REQ;
        stbe64(b + p, w->raddr + poff);
        stbe32(b + p + 8, w->rkey);
        stbe32(b + p + 12, w->b.len - poff);
        p += ROCE_RETH_LEN;
        last = true;
    } else {
        bool wr = w->b.op == OP_RDMA_WRITE || w->b.op == OP_RDMA_WRITE_SOL;
        bool inv = w->b.op == OP_RDMA_SEND_INV || w->b.op == OP_RDMA_SEND_SOL_EVENT_INV;

        plen = w->b.len - poff < q->mtu ? w->b.len - poff : q->mtu;
        if (wr) {
            opcode = first && last ? (w->imm ? ROCE_WRITE_ONLY_IMM
                                             : ROCE_WRITE_ONLY) :
                     first ? ROCE_WRITE_FIRST :
                     last ? (w->imm ? ROCE_WRITE_LAST_IMM : ROCE_WRITE_LAST) :
                     ROCE_WRITE_MIDDLE;
            if (first) {
                stbe64(b + p, w->raddr);
                stbe32(b + p + 8, w->rkey);
                stbe32(b + p + 12, w->b.len);
                p += ROCE_RETH_LEN;
            }
            se = last && w->imm && w->b.op == OP_RDMA_WRITE_SOL;
        } else {
            opcode = first && last ? (inv ? ROCE_SEND_ONLY_INV :
                                      w->imm ? ROCE_SEND_ONLY_IMM :
                                      ROCE_SEND_ONLY) :
                     first ? ROCE_SEND_FIRST :
                     last ? (inv ? ROCE_SEND_LAST_INV :
                             w->imm ? ROCE_SEND_LAST_IMM : ROCE_SEND_LAST) :
                     ROCE_SEND_MIDDLE;
            se = last && (w->b.op == OP_RDMA_SEND_SOL_EVENT ||
                          w->b.op == OP_RDMA_SEND_SOL_EVENT_INV);
            if (last && inv) {
                stbe32(b + p, w->rkey);
                p += ROCE_IETH_LEN;
            }
        }
        if (last && w->imm) {
            stbe32(b + p, w->imm_data);
            p += ROCE_IMM_LEN;
        }
        if (plen) {
            if (w->b.inl) {
                memcpy(b + p, w->b.inl_data + poff, plen);
            } else {
                E810MemOwner o = owner(q);
                int r = e810_sge_copy(&o, w->b.sge, w->b.nsge, poff, b + p, NULL,
                                      plen, E810_ACC_LOCAL_READ);

                if (r) {
                    w->b.status = (int)e810_xlate_ae(r);
                    w->b.done = true;
                    return;
                }
            }
            p += plen;
        }
        while ((p - off) & 3) {
            b[p++] = 0;
        }
    }
    ackreq = last || ((psn % ROCE_ACKREQ_EVERY) == ROCE_ACKREQ_EVERY - 1);
    roce_bth_put(b + off, (uint8_t)opcode, se, (4 - (plen & 3)) & 3, q->pkey,
                 q->dqpn, ackreq, psn);
    xmit(q, roce_frame_seal(b, &q->path, off, p), opcode, psn, plen);
}

static unsigned reads_outstanding(RoceQp *q)
{
    unsigned i, n = 0;

    for (i = 0; i < q->snd && i < q->b.wq_cnt; i++) {
        RoceWqe *w = wq_at(q, i);

        n += op_is_read(w->b.op) && !w->b.done;
    }
    return n;
}

/* A local fence waits for every WQE before it to be done; done ones still
 * queued for their completion do not hold it. */
static bool wqes_undone(RoceQp *q)
{
    unsigned i;

    for (i = 0; i < q->b.wq_cnt; i++) {
        if (!wq_at(q, i)->b.done) {
            return true;
        }
    }
    return false;
}

/* The RDMA operation statistics (rdma/pestat.c), per message. */
static void count_tx(RoceQp *q, unsigned op)
{
    q->b.c->rdma.pestat[op_is_read(op) ? E810_PE_RDMATXRDS :
                      (op == OP_RDMA_WRITE || op == OP_RDMA_WRITE_SOL) ?
                      E810_PE_RDMATXWRS : E810_PE_RDMATXSNDS]++;
}

static void rc_run(RoceQp *q)
{
    uint64_t h;

    while (!q->b.halted && q->state == QP_STATE_RTS && !q->rnr_wait) {
        RoceWqe *w;

        if (q->snd >= q->b.wq_cnt) {
            if (q->b.wq_cnt == q->b.wq_size) {
                break;
            }
            w = wq_at(q, q->b.wq_cnt);
            if (!sq_fetch(q, w, &h)) {
                if (e810_rdma_qp_show_sq_tail(q->b.c, q->b.id, q->b.sq_idx)) {
                    continue;
                }
                break;
            }
            if ((h & QPSQ_LOCALFENCE) && wqes_undone(q)) {
                break;
            }
            if ((h & QPSQ_READFENCE) && reads_outstanding(q)) {
                break;
            }
            trace_e810_roce_wqe(q->b.id, w->b.idx, w->b.op, w->b.len, h);
            q->b.wq_cnt++;
            e810_eng_sq_advance(&q->b, w->b.quanta);
            if (!w->b.status && !op_is_local(w->b.op)) {
                switch (w->b.op) {
                case OP_RDMA_SEND: case OP_RDMA_SEND_INV: case OP_RDMA_SEND_SOL_EVENT:
                case OP_RDMA_SEND_SOL_EVENT_INV: case OP_RDMA_WRITE:
                case OP_RDMA_WRITE_SOL: case OP_RDMA_READ:
                case OP_RDMA_READ_LOC_INV:
                    break;
                default:
                    w->b.status = AE_WQE_UNEXPECTED_OPCODE;
                    break;
                }
            }
            if (!w->b.status && op_is_read(w->b.op) && w->b.len) {
                E810MemOwner o = owner(q);
                int r = e810_sge_check(&o, w->b.sge, w->b.nsge,
                                       E810_ACC_LOCAL_WRITE);

                if (r) {
                    w->b.status = (int)e810_xlate_ae(r);
                }
            }
            if (w->b.status || op_is_local(w->b.op)) {
                w->b.done = true;
                q->snd++;
                continue;
            }
            count_tx(q, w->b.op);
            w->first_psn = q->psn_next;
            w->npkts = npkts_of(q, w->b.len);
            w->psn_valid = true;
            q->psn_next = (q->psn_next + w->npkts) & ROCE_PSN_MASK;
            q->snd_pkt = 0;
        }
        w = wq_at(q, q->snd);
        if (!w->psn_valid || w->b.done) {
            /* A local op, or (sending again after a rewind) one already
             * done: a READ whose responses all came is not asked again. */
            q->snd++;
            q->snd_pkt = 0;
            continue;
        }
        if (roce_psn_diff(w->first_psn + q->snd_pkt, q->psn_una) >=
            ROCE_WINDOW) {
            break;
        }
        if (op_is_read(w->b.op) && q->snd_pkt == w->got &&
            reads_outstanding(q) >= (q->ord ? q->ord : 1)) {
            break;
        }
        if (!e810_tx_may_send(q->b.c)) {
            tx_note(q);                 /* the bottom half goes on */
            break;
        }
        if (q->b.deadline < 0) {
            q->b.deadline = e810_now(q->b.c) + rto(q);
            e810_eng_timer_want(&q->b);
        }
        send_pkt(q, w, q->snd_pkt);
        if (w->b.done) {          /* its buffers could not be read */
            q->snd++;
            q->snd_pkt = 0;
            continue;
        }
        q->snd_pkt = op_is_read(w->b.op) ? w->npkts : q->snd_pkt + 1;
        if (q->snd_pkt >= w->npkts) {
            q->snd++;
            q->snd_pkt = 0;
        }
    }
    wq_retire(q);
}

static void rx_ack(RoceQp *q, const RocePkt *k)
{
    uint8_t syn;

    if (k->ext_len < ROCE_AETH_LEN) {
        q->b.c->rdma.roce->stats.rx_bad++;
        trace_e810_roce_drop(q->b.id, k->opcode, k->psn, "short AETH");
        return;
    }
    syn = k->ext[0];
    if ((syn & 0x60) != ROCE_AETH_ACK &&
        (roce_psn_diff(k->psn, q->psn_una) < 0 ||
         roce_psn_diff(k->psn, q->psn_next) >= 0)) {
        /*
         * A NAK for a PSN already acknowledged (a duplicate or a late one
         * off the link) or never sent: going back to it would send again
         * what the responder has done, so it is ignored.
         */
        q->b.c->rdma.roce->stats.rx_unexpected++;
        trace_e810_roce_drop(q->b.id, k->opcode, k->psn, "stale NAK");
        return;
    }
    switch (syn & 0x60) {
    case ROCE_AETH_ACK:
        ack_upto(q, k->psn);
        q->rnr_retries = 0;
        break;
    case ROCE_AETH_RNR:
        ack_upto(q, (k->psn - 1) & ROCE_PSN_MASK);
        if (q->rnr_thresh != ROCE_RNR_INFINITE &&
            ++q->rnr_retries > q->rnr_thresh) {
            qp_fatal(q, AE_LLP_TOO_MANY_RNRS, AE_SOURCE_SQ);
            return;
        }
        rewind_to(q, k->psn);
        q->rnr_wait = true;
        q->b.deadline = e810_now(q->b.c) + rnr_us(syn & 0x1F) * 1000;
        e810_eng_timer_want(&q->b);
        trace_e810_roce_retry(q->b.id, "RNR NAK", k->psn, q->rnr_thresh);
        return;
    case ROCE_AETH_NAK:
        ack_upto(q, (k->psn - 1) & ROCE_PSN_MASK);
        if ((syn & 0x1F) == ROCE_NAK_PSN_SEQ) {
            /* A go-back costs a retry like a timeout (IBA 9.7.5.1.3): a
             * peer that NAKs without taking anything ends the QP. */
            if (q->retries >= q->rexmit_thresh) {
                qp_fatal(q, AE_LLP_TOO_MANY_RETRIES, AE_SOURCE_SQ);
                return;
            }
            q->retries++;
            q->b.c->rdma.roce->stats.retransmits++;
            trace_e810_roce_retry(q->b.id, "NAK sequence error", k->psn,
                                  q->rexmit_thresh - q->retries);
            rewind_to(q, k->psn);
            break;
        }
        /* A class B/C error: the WQE at that PSN fails, the QP with it. */
        {
            unsigned i;
            unsigned ae = (syn & 0x1F) == ROCE_NAK_REMOTE_ACCESS ?
                          AE_IB_REMOTE_ACCESS_ERROR :
                          (syn & 0x1F) == ROCE_NAK_REMOTE_OP ?
                          AE_IB_REMOTE_OP_ERROR : AE_IB_INVALID_REQUEST;

            for (i = 0; i < q->b.wq_cnt; i++) {
                RoceWqe *w = wq_at(q, i);

                if (!w->b.done) {
                    w->b.done = true;
                    w->b.status = (int)ae;
                    break;
                }
            }
            wq_retire(q);
            qp_fatal(q, ae, AE_SOURCE_SQ);
        }
        return;
    default:
        q->b.c->rdma.roce->stats.rx_bad++;
        trace_e810_roce_drop(q->b.id, k->opcode, k->psn, "AETH syndrome");
        return;
    }
    timer_restart(q);
    rc_run(q);
}

static void rx_read_resp(RoceQp *q, const RocePkt *k)
{
    E810Roce *e = q->b.c->rdma.roce;
    unsigned f = roce_op(k->opcode);
    bool last = f & ROCE_F_LAST;
    size_t hl = (f & ROCE_F_AETH) ? ROCE_AETH_LEN : 0;
    const uint8_t *data = k->ext + hl;
    size_t len;
    RoceWqe *w = NULL;
    unsigned i;
    int r;

    if (k->ext_len < hl + k->padcnt) {
        e->stats.rx_bad++;
        trace_e810_roce_drop(q->b.id, k->opcode, k->psn, "short response");
        return;
    }
    len = k->ext_len - hl - k->padcnt;
    /*
     * Responses come in PSN order: only the next one of the oldest READ
     * still waiting is taken.  Taking a later READ's response across a
     * hole would acknowledge what the hole holds.
     */
    for (i = 0; i < q->b.wq_cnt && i < q->snd + 1; i++) {
        RoceWqe *x = wq_at(q, i);

        if (x->psn_valid && op_is_read(x->b.op) && !x->b.done) {
            w = x;
            break;
        }
    }
    if (!w || k->psn != ((w->first_psn + w->got) & ROCE_PSN_MASK)) {
        uint32_t want = w ? (w->first_psn + w->got) & ROCE_PSN_MASK : 0;

        e->stats.rx_unexpected++;
        trace_e810_roce_drop(q->b.id, k->opcode, k->psn, "unexpected response");
        if (w && roce_psn_diff(k->psn, want) > 0 &&
            roce_psn_diff(k->psn, q->psn_next) < 0 &&
            (!q->gap_asked || q->gap_psn != want)) {
            /* Ahead of a lost response: ask again from the hole, once
             * per hole (the timer covers a lost request). */
            q->gap_asked = true;
            q->gap_psn = want;
            ack_upto(q, (w->first_psn - 1) & ROCE_PSN_MASK);
            if (q->retries >= q->rexmit_thresh) {
                qp_fatal(q, AE_LLP_TOO_MANY_RETRIES, AE_SOURCE_SQ);
                return;
            }
            q->retries++;
            e->stats.retransmits++;
            trace_e810_roce_retry(q->b.id, "READ response ahead", want,
                                  q->rexmit_thresh - q->retries);
            rewind_to(q, want);
            rc_run(q);
        }
        return;
    }
    /* Everything before the READ is acknowledged by its response. */
    ack_upto(q, (w->first_psn - 1) & ROCE_PSN_MASK);
    if (last != (w->got + 1 == w->npkts) ||
        (!last && len != q->mtu) ||
        (last && len != w->b.len - (uint64_t)w->got * q->mtu)) {
        w->b.done = true;
        w->b.status = AE_ROCE_RSP_LENGTH_ERROR;
        wq_retire(q);
        return;
    }
    if (len) {
        E810MemOwner o = owner(q);

        r = e810_sge_copy(&o, w->b.sge, w->b.nsge, (uint64_t)w->got * q->mtu,
                          NULL, data, len, E810_ACC_LOCAL_WRITE);
        if (r) {
            w->b.done = true;
            w->b.status = (int)e810_xlate_ae(r);
            wq_retire(q);
            return;
        }
    }
    e->stats.rx_pkts++;
    w->got++;
    q->psn_una = (k->psn + 1) & ROCE_PSN_MASK;
    q->retries = 0;
    if (last) {
        w->b.done = true;
        if (w->b.op == OP_RDMA_READ_LOC_INV) {
            E810MemOwner o = owner(q);

            w->b.status = (int)e810_stag_invalidate(&o, w->b.nsge ?
                                                  w->b.sge[0].stag : 0, false);
        }
    }
    timer_restart(q);
    rc_run(q);
}

/* ---- RC responder ------------------------------------------------------- */

/* Where a remote access failed: the NAK and the AE on this QP. */
static void resp_error(RoceQp *q, const RocePkt *k, unsigned nak,
                       unsigned ae)
{
    send_nak(q, nak, k->psn);
    trace_e810_roce_drop(q->b.id, k->opcode, k->psn, "responder error");
    q->b.rcv_active = false;
    q->wr_active = false;
    qp_fatal(q, ae, AE_SOURCE_RQ);
}

static unsigned xlate_nak(int r)
{
    return r == E810_XLATE_DMA || r == E810_XLATE_PBL ?
           ROCE_NAK_REMOTE_OP : ROCE_NAK_REMOTE_ACCESS;
}

static RoceRead *rd_at(RoceQp *q, unsigned i)
{
    return &q->rd[(q->rd_head + i) % ROCE_RD_SLOTS];
}

static unsigned rd_undone(RoceQp *q)
{
    unsigned i, n = 0;

    for (i = q->rd_send; i < q->rd_cnt; i++) {
        n += rd_at(q, i)->next < rd_at(q, i)->npkts;
    }
    return n;
}

/* A duplicate READ request at @psn: answered only if it names a READ
 * still kept, and only from the response it asks for on. */
static void resp_read_dup(RoceQp *q, const RocePkt *k)
{
    E810Roce *e = q->b.c->rdma.roce;
    unsigned i;

    for (i = q->rd_cnt; i-- > 0;) {
        RoceRead *r = rd_at(q, i);
        int32_t d = roce_psn_diff(k->psn, r->psn);

        if (d < 0) {
            continue;
        }
        if ((uint32_t)d >= r->npkts) {
            break;              /* between READs: not one of them */
        }
        if ((uint32_t)d < r->next) {
            r->next = (uint32_t)d;
            if (i < q->rd_send) {
                q->rd_send = i;
            }
        }
        return;
    }
    e->stats.rd_dup_stale++;
    trace_e810_roce_drop(q->b.id, k->opcode, k->psn, "duplicate READ, not recent");
}

/* A READ request at PSN @k->psn: checked now, queued for its responses. */
static void resp_read(RoceQp *q, const RocePkt *k)
{
    E810Roce *e = q->b.c->rdma.roce;
    RoceRead *rd;
    uint64_t va;
    uint32_t rkey, len;
    int r;

    if (k->ext_len < ROCE_RETH_LEN) {
        resp_error(q, k, ROCE_NAK_INVALID_REQ, AE_IB_INVALID_REQUEST);
        return;
    }
    va = ldbe64(k->ext);
    rkey = ldbe32(k->ext + 8);
    len = ldbe32(k->ext + 12);
    if (!q->rd_ok || len > 0x7FFFFFFFu || !q->rd) {
        resp_error(q, k, ROCE_NAK_INVALID_REQ, AE_IB_INVALID_REQUEST);
        return;
    }
    if (rd_undone(q) >= q->ird) {
        /* The requester went past the IRD it was given. */
        e->stats.rd_ird_exceeded++;
        resp_error(q, k, ROCE_NAK_INVALID_REQ, AE_IB_INVALID_REQUEST);
        return;
    }
    if (len) {
        r = e810_rdma_xlate(q->b.c, rkey, va, len, E810_ACC_REMOTE_READ, q->b.pd,
                            false, NULL, NULL);
        if (r) {
            resp_error(q, k, xlate_nak(r), e810_xlate_ae(r));
            return;
        }
    }
    if (q->rd_cnt == ROCE_RD_SLOTS) {
        /* The oldest is answered (undone ones are fewer than IRD). */
        q->rd_head = (q->rd_head + 1) % ROCE_RD_SLOTS;
        q->rd_cnt--;
        if (q->rd_send) {
            q->rd_send--;
        }
    }
    q->b.c->rdma.pestat[E810_PE_RDMARXRDS]++;
    rd = rd_at(q, q->rd_cnt++);
    rd->psn = k->psn;
    rd->npkts = npkts_of(q, len);
    rd->next = 0;
    rd->va = va;
    rd->rkey = rkey;
    rd->len = len;
    q->epsn = (k->psn + rd->npkts) & ROCE_PSN_MASK;
    q->msn = (q->msn + 1) & 0xFFFFFF;
    rd->msn = q->msn;
}

/* Response @i of READ @rd.  False if its data could not be read (the QP
 * has failed). */
static bool resp_read_pkt(RoceQp *q, RoceRead *rd, uint32_t i)
{
    E810Roce *e = q->b.c->rdma.roce;
    size_t off = roce_frame_start(e->tx, &q->path), p;
    uint32_t poff = i * q->mtu;
    uint32_t plen = rd->len - poff < q->mtu ? rd->len - poff : q->mtu;
    uint32_t psn = (rd->psn + i) & ROCE_PSN_MASK;
    unsigned opcode = rd->npkts == 1 ? ROCE_READ_RESP_ONLY :
                      i == 0 ? ROCE_READ_RESP_FIRST :
                      i + 1 == rd->npkts ? ROCE_READ_RESP_LAST :
                      ROCE_READ_RESP_MIDDLE;
    uint8_t *b = e->tx;

    p = off + ROCE_BTH_LEN;
    if (opcode != ROCE_READ_RESP_MIDDLE) {
        b[p] = ROCE_AETH_ACK | ROCE_AETH_CREDITS_NONE;
        roce_put24(b + p + 1, rd->msn);
        p += ROCE_AETH_LEN;
    }
    if (plen) {
        E810XCopy x = { q->b.c, b + p, NULL, false, false };
        int r = e810_rdma_xlate(q->b.c, rd->rkey, rd->va + poff, plen,
                                E810_ACC_REMOTE_READ, q->b.pd, false,
                                e810_xcopy_fn, &x);

        if (r) {
            /* The region changed (or its memory failed) since the request
             * was checked. */
            trace_e810_roce_drop(q->b.id, ROCE_READ_REQ, psn, "READ source");
            ack_out(q, ROCE_AETH_NAK | xlate_nak(r), psn);
            qp_fatal(q, e810_xlate_ae(r), AE_SOURCE_RQ);
            return false;
        }
        p += plen;
    }
    while ((p - off) & 3) {
        b[p++] = 0;
    }
    roce_bth_put(b + off, (uint8_t)opcode, false, (4 - (plen & 3)) & 3,
                 q->pkey, q->dqpn, false, psn);
    xmit(q, roce_frame_seal(b, &q->path, off, p), opcode, psn, plen);
    return true;
}

/*
 * What the responder owes, in PSN order: READ responses, then the one
 * acknowledgement waiting.  Each frame only when the gate allows; what
 * is left waits for the bottom half (tx_note).
 */
static void resp_run(RoceQp *q)
{
    if (!q->rd) {
        return;
    }
    while (q->rd_send < q->rd_cnt) {
        RoceRead *rd = rd_at(q, q->rd_send);

        if (q->b.halted) {
            q->rd_send = q->rd_cnt;     /* an error ends what is owed */
            break;
        }
        if (rd->next >= rd->npkts) {
            q->rd_send++;
            continue;
        }
        if (!e810_tx_may_send(q->b.c)) {
            tx_note(q);
            return;
        }
        if (q->ack_owed && roce_psn_diff(q->ack_psn, rd->psn) < 0) {
            /* What was acknowledged before this READ goes first. */
            q->ack_owed = false;
            ack_out(q, q->ack_syn, q->ack_psn);
            continue;
        }
        if (!resp_read_pkt(q, rd, rd->next)) {
            q->rd_send = q->rd_cnt;
            break;
        }
        rd->next++;
    }
    if (q->ack_owed) {
        if (!e810_tx_may_send(q->b.c)) {
            tx_note(q);
            return;
        }
        q->ack_owed = false;
        ack_out(q, q->ack_syn, q->ack_psn);
    }
}

/* A SEND or WRITE packet's headers past the BTH, and its payload. */
typedef struct RoceReq {
    unsigned op, f;             /* opcode, roce_op() flags */
    const uint8_t *p;           /* payload */
    size_t plen;
    uint32_t imm_data, inv_stag;
} RoceReq;

/* The PSN check: true if the packet is the expected one.  A packet
 * ahead gets one NAK until the gap closes; a duplicate was executed
 * before and is only acknowledged again (a READ answered again). */
static bool resp_psn(RoceQp *q, const RocePkt *k)
{
    E810Roce *e = q->b.c->rdma.roce;
    int32_t d = roce_psn_diff(k->psn, q->epsn);

    if (d > 0) {
        e->stats.rx_out_of_seq++;
        trace_e810_roce_drop(q->b.id, k->opcode, k->psn, "ahead of ePSN");
        if (!q->nak_sent) {
            q->nak_sent = true;
            send_nak(q, ROCE_NAK_PSN_SEQ, q->epsn);
        }
        return false;
    }
    if (d < 0) {
        e->stats.rx_dup++;
        if (k->opcode == ROCE_READ_REQ) {
            resp_read_dup(q, k);
        } else if (k->ackreq) {
            send_ack(q, ROCE_AETH_ACK | ROCE_AETH_CREDITS_NONE,
                     (q->epsn - 1) & ROCE_PSN_MASK);
        }
        return false;
    }
    q->nak_sent = false;
    return true;
}

/* A WRITE's first packet: its RETH, checked against the region. */
static bool resp_reth(RoceQp *q, const RocePkt *k, RoceReq *m, size_t *left)
{
    int r;

    if (*left < ROCE_RETH_LEN) {
        resp_error(q, k, ROCE_NAK_INVALID_REQ, AE_IB_INVALID_REQUEST);
        return false;
    }
    q->wr_va = ldbe64(m->p);
    q->wr_rkey = ldbe32(m->p + 8);
    q->wr_len = ldbe32(m->p + 12);
    q->wr_off = 0;
    m->p += ROCE_RETH_LEN;
    *left -= ROCE_RETH_LEN;
    if (!q->wr_ok || q->wr_len > 0x7FFFFFFFu) {
        resp_error(q, k, ROCE_NAK_INVALID_REQ, AE_IB_INVALID_REQUEST);
        return false;
    }
    if (q->wr_len) {
        r = e810_rdma_xlate(q->b.c, q->wr_rkey, q->wr_va, q->wr_len,
                            E810_ACC_REMOTE_WRITE, q->b.pd, false,
                            NULL, NULL);
        if (r) {
            resp_error(q, k, xlate_nak(r), e810_xlate_ae(r));
            return false;
        }
    }
    return true;
}

/* The extension headers and the payload's length: false (answered) if
 * the packet does not fit the message in progress or is malformed. */
static bool resp_parse(RoceQp *q, const RocePkt *k, RoceReq *m)
{
    bool send = m->f & ROCE_F_SEND, first = m->f & ROCE_F_FIRST;
    size_t left = k->ext_len;

    m->p = k->ext;
    /* A message continues only what was started, and starts only when
     * nothing is open. */
    if ((send && (first == q->b.rcv_active || q->wr_active)) ||
        (!send && (first == q->wr_active || q->b.rcv_active))) {
        goto invalid;
    }
    if ((m->f & ROCE_F_RETH) && !resp_reth(q, k, m, &left)) {
        return false;
    }
    if (m->f & ROCE_F_IETH) {
        if (left < ROCE_IETH_LEN) {
            goto invalid;
        }
        m->inv_stag = ldbe32(m->p);
        m->p += ROCE_IETH_LEN;
        left -= ROCE_IETH_LEN;
    }
    if (m->f & ROCE_F_IMM) {
        if (left < ROCE_IMM_LEN) {
            goto invalid;
        }
        m->imm_data = ldbe32(m->p);
        m->p += ROCE_IMM_LEN;
        left -= ROCE_IMM_LEN;
    }
    if (left < k->padcnt) {
        goto invalid;
    }
    m->plen = left - k->padcnt;
    if (m->plen > q->mtu || (!(m->f & ROCE_F_LAST) && m->plen != q->mtu)) {
        goto invalid;
    }
    return true;
invalid:
    resp_error(q, k, ROCE_NAK_INVALID_REQ, AE_IB_INVALID_REQUEST);
    return false;
}

/* The payload into the receive WQE (SEND) or the region (WRITE). */
static bool resp_place(RoceQp *q, const RocePkt *k, const RoceReq *m)
{
    E810MemOwner o = owner(q);
    int r;

    if (m->f & ROCE_F_SEND) {
        if (m->plen > q->b.rcv_cap - q->rcv_off) {
            resp_error(q, k, ROCE_NAK_INVALID_REQ, AE_IB_INVALID_REQUEST);
            return false;
        }
        if (m->plen) {
            r = e810_sge_copy(&o, q->b.rcv_sge, q->b.rcv_nsge, q->rcv_off,
                              NULL, m->p, m->plen, E810_ACC_LOCAL_WRITE);
            if (r) {
                resp_error(q, k, ROCE_NAK_REMOTE_OP, e810_xlate_ae(r));
                return false;
            }
        }
        q->rcv_off += m->plen;
    } else {
        E810XCopy x = { q->b.c, NULL, m->p, true, false };
        bool last = m->f & ROCE_F_LAST;

        if (m->plen > q->wr_len - q->wr_off ||
            (last && m->plen != q->wr_len - q->wr_off)) {
            resp_error(q, k, ROCE_NAK_INVALID_REQ, AE_IB_INVALID_REQUEST);
            return false;
        }
        if (m->plen) {
            r = e810_rdma_xlate(q->b.c, q->wr_rkey, q->wr_va + q->wr_off,
                                m->plen, E810_ACC_REMOTE_WRITE, q->b.pd,
                                false, e810_xcopy_fn, &x);
            if (r) {
                resp_error(q, k, xlate_nak(r), e810_xlate_ae(r));
                return false;
            }
        }
        q->wr_off += m->plen;
        q->wr_active = !last;
    }
    return true;
}

/* A message's last packet placed: invalidation and the completion;
 * false (answered) if the STag to invalidate is not there. */
static bool resp_complete(RoceQp *q, const RocePkt *k, const RoceReq *m)
{
    uint64_t flags = k->se ? CQ_SOEVENT : 0, lo = 0;
    bool send = m->f & ROCE_F_SEND, imm = m->f & ROCE_F_IMM;

    q->msn = (q->msn + 1) & 0xFFFFFF;
    q->b.c->rdma.pestat[send ? E810_PE_RDMARXSNDS : E810_PE_RDMARXWRS]++;
    if (m->f & ROCE_F_IETH) {
        E810MemOwner o = owner(q);

        if (e810_stag_invalidate(&o, m->inv_stag, true)) {
            resp_error(q, k, ROCE_NAK_INVALID_REQ, AE_AMP_INVALID_STAG);
            return false;
        }
        flags |= CQ_STAG;
        lo = m->inv_stag;
    }
    if (send || imm) {
        q->b.rcv_active = false;
        rq_cqe(q, send ? q->rcv_off : q->wr_len, m->op, lo, flags, imm,
               m->imm_data);
    }
    return true;
}

static void resp_request(RoceQp *q, const RocePkt *k)
{
    E810Roce *e = q->b.c->rdma.roce;
    RoceReq m = { .op = k->opcode, .f = roce_op(k->opcode) };
    bool send = m.f & ROCE_F_SEND;

    if (!resp_psn(q, k)) {
        return;
    }
    if (m.f & ROCE_F_READ_REQ) {
        e->stats.rx_pkts++;
        resp_read(q, k);
        return;
    }
    if (!(m.f & (ROCE_F_SEND | ROCE_F_WRITE)) || (m.f & ROCE_F_UD)) {
        /* Atomics are not offered (no ATOMICS_ALLOWED feature). */
        resp_error(q, k, ROCE_NAK_INVALID_REQ, AE_IB_INVALID_REQUEST);
        return;
    }
    if (!resp_parse(q, k, &m)) {
        return;
    }
    /* A receive WQE for a SEND, or a WRITE with immediate data. */
    if ((send && (m.f & ROCE_F_FIRST)) || (!send && (m.f & ROCE_F_IMM))) {
        if (!rq_take(q)) {
            e->stats.rnr_naks_sent++;
            send_ack(q, ROCE_AETH_RNR | ROCE_RNR_CODE, k->psn);
            trace_e810_roce_drop(q->b.id, m.op, k->psn,
                                 "no receive WQE (RNR)");
            if (!send && (m.f & ROCE_F_FIRST)) {
                q->wr_active = false;
            }
            return;
        }
        q->b.rcv_active = send;
    }
    if (!resp_place(q, k, &m)) {
        return;
    }
    e->stats.rx_pkts++;
    q->epsn = (q->epsn + 1) & ROCE_PSN_MASK;
    if ((m.f & ROCE_F_LAST) && !resp_complete(q, k, &m)) {
        return;
    }
    if (k->ackreq) {
        send_ack(q, ROCE_AETH_ACK | ROCE_AETH_CREDITS_NONE, k->psn);
    }
}

/* ---- UD ----------------------------------------------------------------- */

/* The path of address handle @idx (uda.c:irdma_sc_access_ah). */
static bool ah_path(RoceQp *q, uint32_t idx, RocePath *p)
{
    E810Core *c = q->b.c;
    const uint64_t *a;
    unsigned arp, i;

    if (!c->rdma.ah ||
        idx >= e810_rdma_obj_limit(c, E810_HMC_FSIAV, E810_RDMA_MAX_AH) ||
        !c->rdma.ah[idx].valid) {
        return false;
    }
    a = c->rdma.ah[idx].wqe;
    memset(p, 0, sizeof(*p));
    p->ipv4 = a[3] & (1ull << 59);
    p->vlan = a[3] & (1ull << 60);
    p->vlan_tci = (uint16_t)a[1];
    p->tos = (uint8_t)e810_fld(a[1], 39, 32);
    p->ttl = (uint8_t)e810_fld(a[2], 39, 32);
    p->flow_label = (uint32_t)e810_fld(a[2], 19, 0);
    p->sport = q->path.sport;
    arp = (unsigned)e810_fld(a[2], 63, 48);
    if (arp >= E810_RDMA_MAX_ARP || !c->rdma.arp[arp].valid) {
        return false;
    }
    memcpy(p->dmac, c->rdma.arp[arp].mac, 6);
    for (i = 0; i < 6; i++) {
        p->smac[i] = (uint8_t)(a[0] >> (56 - 8 * i));
    }
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
    E810Roce *e = q->b.c->rdma.roce;
    RocePath path;
    size_t off, p, len;
    uint8_t *b = e->tx;
    unsigned opcode = w->imm ? ROCE_UD_SEND_ONLY_IMM : ROCE_UD_SEND_ONLY;
    uint32_t psn = q->psn_next;

    if (w->b.op != OP_RDMA_SEND && w->b.op != OP_RDMA_SEND_SOL_EVENT) {
        w->b.status = AE_WQE_UNEXPECTED_OPCODE;
        return;
    }
    if (!ah_path(q, w->ah, &path)) {
        w->b.status = AE_WQE_INVALID_PARAMETER;
        e810_guest_error(q->b.c, "rdma: UD QP %u WQE %u: address handle %u "
                         "not valid", q->b.id, w->b.idx, w->ah);
        return;
    }
    if (w->b.len > q->mtu) {
        w->b.status = AE_WQE_INVALID_PARAMETER;   /* DGRAM too long */
        return;
    }
    off = roce_frame_start(b, &path);
    p = off + ROCE_BTH_LEN;
    /* A Q_Key with the high bit set means the QP's own (IBA 10.2.5). */
    stbe32(b + p, (w->qkey & 0x80000000u) ? q->qkey : w->qkey);
    b[p + 4] = 0;
    roce_put24(b + p + 5, q->b.id);
    p += ROCE_DETH_LEN;
    if (w->imm) {
        stbe32(b + p, w->imm_data);
        p += ROCE_IMM_LEN;
    }
    if (w->b.len) {
        if (w->b.inl) {
            memcpy(b + p, w->b.inl_data, w->b.len);
        } else {
            E810MemOwner o = owner(q);
            int r = e810_sge_copy(&o, w->b.sge, w->b.nsge, 0, b + p, NULL,
                                  w->b.len, E810_ACC_LOCAL_READ);

            if (r) {
                w->b.status = (int)e810_xlate_ae(r);
                return;
            }
        }
        p += w->b.len;
    }
    while ((p - off) & 3) {
        b[p++] = 0;
    }
    roce_bth_put(b + off, (uint8_t)opcode, w->b.op == OP_RDMA_SEND_SOL_EVENT,
                 (4 - (w->b.len & 3)) & 3, ROCE_DEFAULT_PKEY, w->dqpn, false,
                 psn);
    q->psn_next = (q->psn_next + 1) & ROCE_PSN_MASK;
    trace_e810_roce_tx(q->b.id, opcode, psn, w->b.len);
    e->stats.tx_pkts++;
    q->b.c->rdma.pestat[E810_PE_UDPTXPKTS]++;
    len = roce_frame_seal(b, &path, off, p);
    if (path.dmac[0] & 1) {
        /* To a group: the wire, and this port's own members when the AH
         * says DOLOOPBACK, as irdma asks for every multicast destination
         * (verbs.c:irdma_setup_ah). */
        bool lpb = q->b.c->rdma.ah[w->ah].wqe[3] & CQPSQ_AH_DOLOOPBACKCHECK;

        e->stats.mcast_tx++;
        trace_e810_roce_mcast_tx(q->b.id,
                                 ldbe32(path.dip + (path.ipv4 ? 0 : 12)), lpb);
        if (!e810_rdma_xmit_group(q->b.c, b, len, lpb)) {
            e->stats.tx_dropped++;
        }
    } else if (!e810_rdma_xmit(q->b.c, b, len, false)) {
        e->stats.tx_dropped++;
    }
}

static void ud_run(RoceQp *q)
{
    RoceWqe w;
    uint64_t h;

    while (!q->b.halted && q->state == QP_STATE_RTS) {
        if (!e810_tx_may_send(q->b.c)) {
            tx_note(q);                 /* the bottom half goes on */
            break;
        }
        if (!sq_fetch(q, &w, &h)) {
            if (e810_rdma_qp_show_sq_tail(q->b.c, q->b.id, q->b.sq_idx)) {
                continue;
            }
            break;
        }
        trace_e810_roce_wqe(q->b.id, w.b.idx, w.b.op, w.b.len, h);
        e810_eng_sq_advance(&q->b, w.b.quanta);
        if (!w.b.status && !op_is_local(w.b.op)) {
            ud_send(q, &w);
        }
        if (w.b.signaled || w.b.status) {
            e810_eng_sq_cqe(&q->b, &w.b);
        }
        if (w.b.status) {
            qp_fatal(q, (unsigned)w.b.status, AE_SOURCE_SQ);
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
static void roce_cqp_doorbell(E810Core *c)
{
    if (!e810_eng_tx_pending(c)) {
        return;
    }
    for (unsigned i = 0; i < E810_RDMA_MAX_QPS; i++) {
        RoceQp *q = qp_find(c, i);

        if (!q || q->type != QP_TYPE_ROCE_UD || !q->b.tx_pending ||
            q->b.in_run) {
            continue;
        }
        if (!e810_tx_may_send(c)) {
            return;
        }
        q->b.tx_pending = false;
        q->b.in_run = true;
        ud_run(q);
        q->b.in_run = false;
    }
}

static void ud_rx(RoceQp *q, const RocePkt *k)
{
    E810Roce *e = q->b.c->rdma.roce;
    bool imm = k->opcode == ROCE_UD_SEND_ONLY_IMM;
    size_t hl = ROCE_DETH_LEN + (imm ? ROCE_IMM_LEN : 0), plen;
    uint8_t grh[ROCE_GRH_LEN];
    E810MemOwner o = owner(q);
    uint32_t qkey, src_qp;

    if (k->ext_len < hl + k->padcnt) {
        e->stats.rx_bad++;
        trace_e810_roce_drop(q->b.id, k->opcode, k->psn, "short UD header");
        return;
    }
    qkey = ldbe32(k->ext);
    src_qp = roce_be24(k->ext + 5);
    if (qkey != q->qkey) {
        e->stats.rx_key++;
        trace_e810_roce_drop(q->b.id, k->opcode, k->psn, "Q_Key");
        return;
    }
    plen = k->ext_len - hl - k->padcnt;
    if (!rq_take(q)) {
        e->stats.ud_dropped++;
        trace_e810_roce_drop(q->b.id, k->opcode, k->psn, "no receive WQE");
        return;
    }
    if (q->b.rcv_cap < ROCE_GRH_LEN || plen > q->b.rcv_cap - ROCE_GRH_LEN) {
        /* The WQE is used up by the datagram it could not hold. */
        e->stats.ud_dropped++;
        trace_e810_roce_drop(q->b.id, k->opcode, k->psn, "receive WQE short");
        rq_cqe(q, 0, OP_TYPE_REC, src_qp,
               CQ_ERROR | (uint64_t)0xFFFF << 16 | AE_WQE_INVALID_PARAMETER,
               false, 0);
        return;
    }
    /* The GRH slot: the IPv6 header, or the IPv4 header in its last 20
     * bytes (union rdma_network_hdr). */
    memset(grh, 0, sizeof(grh));
    memcpy(grh + (k->ipv4 ? 20 : 0), k->l3, k->l3_len);
    if (e810_sge_copy(&o, q->b.rcv_sge, q->b.rcv_nsge, 0, NULL, grh,
                      ROCE_GRH_LEN, E810_ACC_LOCAL_WRITE) ||
        (plen && e810_sge_copy(&o, q->b.rcv_sge, q->b.rcv_nsge, ROCE_GRH_LEN,
                               NULL, k->ext + hl, plen,
                               E810_ACC_LOCAL_WRITE))) {
        e->stats.ud_dropped++;
        trace_e810_roce_drop(q->b.id, k->opcode, k->psn, "receive buffer");
        rq_cqe(q, 0, OP_TYPE_REC, src_qp,
               CQ_ERROR | (uint64_t)0xFFFF << 16 | AE_AMP_INVALID_STAG,
               false, 0);
        return;
    }
    e->stats.rx_pkts++;
    rq_cqe(q, ROCE_GRH_LEN + plen, OP_TYPE_REC, src_qp,
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
static void ud_mcast_rx(E810Core *c, const RocePkt *k, const uint8_t *dmac)
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
        RoceQp *q = qp_find(c, qps[i]);

        if (!q || q->type != QP_TYPE_ROCE_UD || q->b.halted ||
            (q->state != QP_STATE_RTR && q->state != QP_STATE_RTS &&
             q->state != QP_STATE_SQD)) {
            e->stats.rx_no_qp++;
            trace_e810_roce_drop(qps[i], k->opcode, k->psn,
                                 "group member is no ready UD QP");
            continue;
        }
        if ((k->pkey & 0x7FFF) != (q->pkey & 0x7FFF)) {
            e->stats.rx_key++;
            trace_e810_roce_drop(q->b.id, k->opcode, k->psn, "P_Key");
            continue;
        }
        ud_rx(q, k);
    }
}

/* ---- receive ------------------------------------------------------------ */

bool e810_roce_rx(E810Core *c, const E810Frame *fr)
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
    c->rdma.pestat[E810_PE_UDPRXPKTS]++;
    if (k.dqpn == ROCE_MCAST_QPN || (fr->data[0] & 1)) {
        ud_mcast_rx(c, &k, fr->data);
        return true;
    }
    q = qp_find(c, k.dqpn);
    if (!q || q->b.halted ||
        (q->state != QP_STATE_RTR && q->state != QP_STATE_RTS && q->state != QP_STATE_SQD)) {
        e->stats.rx_no_qp++;
        trace_e810_roce_drop(k.dqpn, k.opcode, k.psn, "no QP ready for it");
        return true;
    }
    if ((k.pkey & 0x7FFF) != (q->pkey & 0x7FFF)) {
        e->stats.rx_key++;
        trace_e810_roce_drop(q->b.id, k.opcode, k.psn, "P_Key");
        return true;
    }
    if (q->type == QP_TYPE_ROCE_UD) {
        if (f & ROCE_F_UD) {
            ud_rx(q, &k);
        } else {
            e->stats.rx_no_qp++;
            trace_e810_roce_drop(q->b.id, k.opcode, k.psn, "not UD");
        }
        return true;
    }
    if (k.opcode >= 0x20) {
        e->stats.rx_no_qp++;
        trace_e810_roce_drop(q->b.id, k.opcode, k.psn, "not RC");
        return true;
    }
    if ((f & ROCE_F_ACK) && (f & ROCE_F_ATOMIC)) {
        e->stats.rx_unexpected++;
        trace_e810_roce_drop(q->b.id, k.opcode, k.psn, "atomic ACK");
    } else if (f & (ROCE_F_ACK | ROCE_F_READ_RESP)) {
        /* Responses to the requester, while it has sent anything. */
        if (q->state == QP_STATE_RTS || q->state == QP_STATE_SQD) {
            if (f & ROCE_F_ACK) {
                rx_ack(q, &k);
            } else {
                rx_read_resp(q, &k);
            }
        }
    } else {
        resp_request(q, &k);
        resp_run(q);
    }
    return true;
}

/* ---- timer -------------------------------------------------------------- */

static void qp_timeout(RoceQp *q)
{
    E810Roce *e = q->b.c->rdma.roce;

    q->b.deadline = -1;
    if (q->b.halted) {
        return;
    }
    if (q->rnr_wait) {
        q->rnr_wait = false;
        q->b.deadline = e810_now(q->b.c) + rto(q);
        rc_run(q);
        return;
    }
    if (roce_psn_diff(q->psn_next, q->psn_una) <= 0) {
        return;
    }
    if (e810_tx_backed_up(q->b.c)) {
        /* Our own port is backed up: the peer may not have seen the
         * packets yet, so this is no retry; look again later. */
        q->b.deadline = e810_now(q->b.c) + rto(q);
        return;
    }
    e->stats.timeouts++;
    if (q->retries >= q->rexmit_thresh) {
        qp_fatal(q, AE_LLP_TOO_MANY_RETRIES, AE_SOURCE_SQ);
        return;
    }
    q->retries++;
    e->stats.retransmits++;
    trace_e810_roce_retry(q->b.id, "timeout", q->psn_una,
                          q->rexmit_thresh - q->retries);
    rewind_to(q, q->psn_una);
    q->b.deadline = e810_now(q->b.c) + rto(q);
    rc_run(q);
}

/* The RoCE QP host context (docs/roce.md section 3). */
static void qp_load(RoceQp *q, const uint64_t *x)
{
    E810Core *c = q->b.c;
    unsigned i;

    e810_qp_ctx_rings(x, q->b.vq, &q->b.sq, &q->b.rq, &q->b.rq_shift);
    q->b.pd = (uint32_t)(e810_fld(x[7], 63, 48) | e810_fld(x[0], 21, 20) << 16);
    q->b.txcq = (uint32_t)e810_fld(x[17], 24, 0);
    q->b.rxcq = (uint32_t)e810_fld(x[17], 56, 32);
    q->b.priv = x[20] & (1ull << 25);
    q->wr_ok = x[20] & (1ull << 20);
    q->rd_ok = x[20] & (1ull << 21);
    q->ord = (unsigned)e810_fld(x[20], 7, 0);
    q->ird = e810_qp_ctx_ird(x);
    q->rexmit_thresh = (unsigned)e810_fld(x[16], 53, 48);
    q->rnr_thresh = (unsigned)e810_fld(x[16], 56, 54);
    q->pkey = (uint16_t)e810_fld(x[7], 47, 32);
    q->qkey = (uint32_t)(x[8] >> 32);
    q->dqpn = (uint32_t)e810_fld(x[8], 23, 0);
    q->mtu = (unsigned)e810_fld(x[6], 29, 16);
    if (q->mtu < 256 || q->mtu > 4096) {
        q->mtu = q->mtu > 4096 ? 4096 : 1024;
    }
    q->arp = (unsigned)e810_fld(x[6], 63, 48);
    memset(&q->path, 0, sizeof(q->path));
    q->path.ipv4 = x[0] & (1ull << 3);
    q->path.vlan = x[0] & (1ull << 5);
    q->path.vlan_tci = (uint16_t)e810_fld(x[6], 47, 32);
    q->path.ttl = (uint8_t)e810_fld(x[3], 7, 0);
    q->path.tos = (uint8_t)e810_fld(x[3], 31, 24);
    q->path.sport = (uint16_t)e810_fld(x[3], 47, 32);
    q->path.flow_label = (uint32_t)e810_fld(x[7], 19, 0);
    for (i = 0; i < 6; i++) {
        q->path.smac[i] = (uint8_t)(x[19] >> (56 - 8 * i));
    }
    if (q->arp < E810_RDMA_MAX_ARP && c->rdma.arp[q->arp].valid) {
        memcpy(q->path.dmac, c->rdma.arp[q->arp].mac, 6);
    }
    e810_eng_ctx_ip(q->path.dip, q->path.ipv4, x[5], x[4]);
    e810_eng_ctx_ip(q->path.sip, q->path.ipv4, x[24], x[23]);
    if (!q->path.ttl) {
        q->path.ttl = 64;
    }
}

static void roce_free(E810EngQp *b)
{
    RoceQp *q = roceqp(b);

    if (q->rd) {
        free(q->rd);
        e810_mem_release(b->c, ROCE_RD_SLOTS * sizeof(RoceRead));
    }
}

/* FLUSH_WQES: the QP's timer and (with the SQ's WQEs) what it was
 * sending go. */
static void roce_flushed(E810EngQp *b, bool sq)
{
    RoceQp *q = roceqp(b);

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

/* An RC QP tracks its WQEs and the READs it answers. */
static bool roce_create(E810EngQp *b, uint64_t h, const uint64_t *x)
{
    RoceQp *q = roceqp(b);

    if (!roce_get(b->c)) {
        return false;
    }
    q->type = (uint8_t)CQPSQ_QP_QPTYPE(h);
    q->state = b->c->rdma.qp[b->id].state;
    qp_load(q, x);
    if (q->type != QP_TYPE_ROCE_RC) {
        return true;
    }
    if (!e810_eng_wq_alloc(b, ROCE_WQ_MAX) ||
        !e810_mem_charge(b->c, ROCE_RD_SLOTS * sizeof(RoceRead))) {
        return false;
    }
    q->rd = calloc(ROCE_RD_SLOTS, sizeof(RoceRead));
    if (!q->rd) {
        e810_mem_release(b->c, ROCE_RD_SLOTS * sizeof(RoceRead));
        return false;
    }
    return true;
}

static void roce_modify(E810EngQp *b, uint64_t h, const uint64_t *x,
                        E810CqpResult *r)
{
    RoceQp *q = roceqp(b);
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
        q->epsn = (uint32_t)e810_fld(x[11], 23, 0);
        q->msn = 0;
        q->nak_sent = q->b.rcv_active = q->wr_active = false;
        q->rd_head = q->rd_cnt = q->rd_send = 0;
        q->ack_owed = false;
    }
    if (next == QP_STATE_RTS && prev != QP_STATE_RTS && prev != QP_STATE_SQD) {
        q->psn_next = q->psn_una = (uint32_t)e810_fld(x[10], 23, 0);
        q->retries = q->rnr_retries = 0;
        q->snd = q->snd_pkt = 0;
    }
    trace_e810_roce_qp(id, q->type, next, q->psn_next, q->epsn, q->dqpn,
                       q->mtu, q->arp);
    switch (next) {
    case QP_STATE_RTS:
        e810_eng_doorbell(c, id);
        break;
    case QP_STATE_SQD:
        /* Nothing is held inside the engine between packets: the SQ is
         * drained as soon as the outstanding packets are acknowledged;
         * irdma waits for this AE (verbs.c:irdma_wait_for_suspend). */
        post_ae(q, AE_QP_SUSPEND_COMPLETE, 0);
        break;
    default:
        break;
    }
}

static void roce_run(E810EngQp *b)
{
    RoceQp *q = roceqp(b);

    if (b->in_run) {
        return;
    }
    b->in_run = true;
    if (q->type == QP_TYPE_ROCE_UD) {
        ud_run(q);
    } else {
        resp_run(q);
        rc_run(q);
    }
    b->in_run = false;
}

static void roce_timeout(E810EngQp *b)
{
    qp_timeout(roceqp(b));
}

static void roce_ae(E810EngQp *b, unsigned code, unsigned src)
{
    post_ae(roceqp(b), code, src);
}

static void roce_cleanup(E810Core *c)
{
    free(c->rdma.roce);
    c->rdma.roce = NULL;
}

const E810EngOps e810_roce_ops = {
    .name = "roce", .protocol = PROTOCOL_ROCE,
    .qp_size = sizeof(RoceQp), .wqe_size = sizeof(RoceWqe),
    .takes = roce_takes, .create = roce_create, .modify = roce_modify,
    .flushed = roce_flushed, .release = roce_free, .run = roce_run,
    .timeout = roce_timeout, .ae = roce_ae, .halt = roce_halt,
    .retired = roce_retired, .cqp_doorbell = roce_cqp_doorbell,
    .cleanup = roce_cleanup,
};

const E810RoceCounters *e810_roce_stats(E810Core *c)
{
    return c->rdma.roce ? &c->rdma.roce->stats : NULL;
}
