/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RoCEv2 engine: the RC requester -- SQ WQEs cut into packets,
 * acknowledgements and READ responses retiring them, go-back-N and the
 * retransmission and RNR timers (see qp.c for the whole).
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

    q->eng.deadline = busy ? e810_now(q->eng.c) + rto(q) : -1;
    e810_eng_timer_want(&q->eng);
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
    return (RoceWqe *)e810_eng_wq_at(&q->eng, i);
}

/* Send from PSN @psn again: the WQE holding it and its packet. */
static void rewind_to(RoceQp *q, uint32_t psn)
{
    unsigned i;

    for (i = 0; i < q->eng.wq_cnt; i++) {
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
            q->snd_pkt = roce_op_read(w->eng.op) ? w->got : (uint32_t)d;
            return;
        }
        if (d < 0) {
            break;
        }
    }
    /* Nothing of it was sent: from the first WQE after the sent ones. */
    for (i = 0; i < q->eng.wq_cnt; i++) {
        RoceWqe *w = wq_at(q, i);

        if (w->psn_valid && roce_psn_diff(w->first_psn, psn) >= 0) {
            break;
        }
    }
    q->snd = i;
    q->snd_pkt = 0;
}

/* The head WQE retired: the one to send is one nearer the head. */
void roce_retired(E810EngQp *b)
{
    RoceQp *q = roce_qp(b);

    if (q->snd) {
        q->snd--;
    } else {
        q->snd_pkt = 0;
    }
}

static void wq_retire(RoceQp *q)
{
    e810_eng_wq_retire(&q->eng);
}

/* Everything up to and including @psn is acknowledged. */
static void ack_upto(RoceQp *q, uint32_t psn)
{
    unsigned i;

    if (roce_psn_diff(psn, q->psn_una) < 0 ||
        roce_psn_diff(psn, q->psn_next) >= 0) {
        return;                 /* old, or for nothing we sent */
    }
    for (i = 0; i < q->eng.wq_cnt; i++) {
        RoceWqe *w = wq_at(q, i);

        if (!w->psn_valid) {
            if (w->eng.done) {
                continue;       /* a local op between transport ops */
            }
            break;
        }
        if (roce_psn_diff(psn, w->first_psn + w->npkts - 1) < 0) {
            break;
        }
        if (roce_op_read(w->eng.op)) {
            if (!w->eng.done) {
                /* The responder is past a READ whose responses did not
                 * all arrive: ask for the rest. */
                q->psn_una = (w->first_psn + w->got) & ROCE_PSN_MASK;
                rewind_to(q, q->psn_una);
                return;
            }
            continue;
        }
        w->eng.done = true;
    }
    q->psn_una = (psn + 1) & ROCE_PSN_MASK;
    q->retries = 0;
}

/* Packet @k of WQE @w. */
static void send_pkt(RoceQp *q, RoceWqe *w, uint32_t k)
{
    E810Roce *e = q->eng.c->rdma.roce;
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
    if (roce_op_read(w->eng.op)) {
        k = w->got;
    }
    first = k == 0;
    last = k + 1 >= w->npkts;
    psn = (w->first_psn + k) & ROCE_PSN_MASK;
    poff = k * q->mtu;
    p = off + ROCE_BTH_LEN;
    if (roce_op_read(w->eng.op)) {
        opcode = ROCE_READ_REQ;
        roce_reth_put(b + p, w->raddr + poff, w->rkey, w->eng.len - poff);
        p += ROCE_RETH_LEN;
        last = true;
    } else {
        bool wr = w->eng.op == OP_RDMA_WRITE || w->eng.op == OP_RDMA_WRITE_SOL;
        bool inv = w->eng.op == OP_RDMA_SEND_INV ||
                   w->eng.op == OP_RDMA_SEND_SOL_EVENT_INV;

        plen = w->eng.len - poff < q->mtu ? w->eng.len - poff : q->mtu;
        if (wr) {
            opcode = first && last ? (w->imm ? ROCE_WRITE_ONLY_IMM
                                             : ROCE_WRITE_ONLY) :
                     first ? ROCE_WRITE_FIRST :
                     last ? (w->imm ? ROCE_WRITE_LAST_IMM : ROCE_WRITE_LAST) :
                     ROCE_WRITE_MIDDLE;
            if (first) {
                roce_reth_put(b + p, w->raddr, w->rkey, w->eng.len);
                p += ROCE_RETH_LEN;
            }
            se = last && w->imm && w->eng.op == OP_RDMA_WRITE_SOL;
        } else {
            opcode = first && last ? (inv ? ROCE_SEND_ONLY_INV :
                                      w->imm ? ROCE_SEND_ONLY_IMM :
                                      ROCE_SEND_ONLY) :
                     first ? ROCE_SEND_FIRST :
                     last ? (inv ? ROCE_SEND_LAST_INV :
                             w->imm ? ROCE_SEND_LAST_IMM : ROCE_SEND_LAST) :
                     ROCE_SEND_MIDDLE;
            se = last && (w->eng.op == OP_RDMA_SEND_SOL_EVENT ||
                          w->eng.op == OP_RDMA_SEND_SOL_EVENT_INV);
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
            if (w->eng.inl) {
                memcpy(b + p, w->eng.inl_data + poff, plen);
            } else {
                E810MemOwner o = roce_owner(q);
                int r = e810_sge_copy(&o, w->eng.sge, w->eng.nsge, poff, b + p,
                                      NULL, plen, E810_ACC_LOCAL_READ);

                if (r) {
                    w->eng.status = (int)e810_xlate_ae(r);
                    w->eng.done = true;
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
    roce_xmit(q, roce_frame_seal(b, &q->path, off, p), opcode, psn, plen);
}

static unsigned reads_outstanding(RoceQp *q)
{
    unsigned i, n = 0;

    for (i = 0; i < q->snd && i < q->eng.wq_cnt; i++) {
        RoceWqe *w = wq_at(q, i);

        n += roce_op_read(w->eng.op) && !w->eng.done;
    }
    return n;
}

/* A local fence waits for every WQE before it to be done; done ones still
 * queued for their completion do not hold it. */
static bool wqes_undone(RoceQp *q)
{
    unsigned i;

    for (i = 0; i < q->eng.wq_cnt; i++) {
        if (!wq_at(q, i)->eng.done) {
            return true;
        }
    }
    return false;
}

/* The RDMA operation statistics (rdma/pestat.c), per message. */
static void count_tx(RoceQp *q, unsigned op)
{
    q->eng.c->rdma.pestat[roce_op_read(op) ? E810_PE_RDMATXRDS :
                      (op == OP_RDMA_WRITE || op == OP_RDMA_WRITE_SOL) ?
                      E810_PE_RDMATXWRS : E810_PE_RDMATXSNDS]++;
}

/* A WQE the SQ has just taken that goes on the wire: an opcode RC
 * sends, and a READ's local buffers writable; else its status is set. */
static void wqe_check(RoceQp *q, RoceWqe *w)
{
    E810MemOwner o;
    int r;

    if (w->eng.status) {
        return;
    }
    switch (w->eng.op) {
    case OP_RDMA_SEND: case OP_RDMA_SEND_INV:
    case OP_RDMA_SEND_SOL_EVENT:
    case OP_RDMA_SEND_SOL_EVENT_INV: case OP_RDMA_WRITE:
    case OP_RDMA_WRITE_SOL: case OP_RDMA_READ:
    case OP_RDMA_READ_LOC_INV:
        break;
    default:
        w->eng.status = AE_WQE_UNEXPECTED_OPCODE;
        return;
    }
    if (roce_op_read(w->eng.op) && w->eng.len) {
        o = roce_owner(q);
        r = e810_sge_check(&o, w->eng.sge, w->eng.nsge, E810_ACC_LOCAL_WRITE);
        if (r) {
            w->eng.status = (int)e810_xlate_ae(r);
        }
    }
}

void roce_rc_run(RoceQp *q)
{
    uint64_t h, qw[4];

    while (!q->eng.halted && q->state == QP_STATE_RTS && !q->rnr_wait) {
        RoceWqe *w;

        if (q->snd >= q->eng.wq_cnt) {
            if (q->eng.wq_cnt == q->eng.wq_size) {
                break;
            }
            w = wq_at(q, q->eng.wq_cnt);
            if (!roce_sq_fetch(q, w, &h, qw)) {
                if (e810_rdma_qp_show_sq_tail(q->eng.c, q->eng.id, q->eng.sq_idx)) {
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
            trace_e810_roce_wqe(q->eng.id, w->eng.idx, w->eng.op, w->eng.len, h);
            q->eng.wq_cnt++;
            e810_eng_sq_advance(&q->eng, w->eng.quanta);
            if (roce_op_local(w->eng.op)) {
                roce_sq_exec_local(q, w, qw);
            } else {
                wqe_check(q, w);
            }
            if (w->eng.status || roce_op_local(w->eng.op)) {
                w->eng.done = true;
                q->snd++;
                continue;
            }
            count_tx(q, w->eng.op);
            w->first_psn = q->psn_next;
            w->npkts = roce_npkts(q, w->eng.len);
            w->psn_valid = true;
            q->psn_next = (q->psn_next + w->npkts) & ROCE_PSN_MASK;
            q->snd_pkt = 0;
        }
        w = wq_at(q, q->snd);
        if (!w->psn_valid || w->eng.done) {
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
        if (roce_op_read(w->eng.op) && q->snd_pkt == w->got &&
            reads_outstanding(q) >= (q->ord ? q->ord : 1)) {
            break;
        }
        if (!e810_tx_may_send(q->eng.c)) {
            roce_tx_note(q);                 /* the bottom half goes on */
            break;
        }
        if (q->eng.deadline < 0) {
            q->eng.deadline = e810_now(q->eng.c) + rto(q);
            e810_eng_timer_want(&q->eng);
        }
        send_pkt(q, w, q->snd_pkt);
        if (w->eng.done) {          /* its buffers could not be read */
            q->snd++;
            q->snd_pkt = 0;
            continue;
        }
        q->snd_pkt = roce_op_read(w->eng.op) ? w->npkts : q->snd_pkt + 1;
        if (q->snd_pkt >= w->npkts) {
            q->snd++;
            q->snd_pkt = 0;
        }
    }
    wq_retire(q);
}

void roce_rx_ack(RoceQp *q, const RocePkt *k)
{
    uint8_t syn;

    if (k->ext_len < ROCE_AETH_LEN) {
        q->eng.c->rdma.roce->stats.rx_bad++;
        trace_e810_roce_drop(q->eng.id, k->opcode, k->psn, "short AETH");
        return;
    }
    syn = k->ext[ROCE_AETH_SYNDROME];
    if ((syn & 0x60) != ROCE_AETH_ACK &&
        (roce_psn_diff(k->psn, q->psn_una) < 0 ||
         roce_psn_diff(k->psn, q->psn_next) >= 0)) {
        /*
         * A NAK for a PSN already acknowledged (a duplicate or a late one
         * off the link) or never sent: going back to it would send again
         * what the responder has done, so it is ignored.
         */
        q->eng.c->rdma.roce->stats.rx_unexpected++;
        trace_e810_roce_drop(q->eng.id, k->opcode, k->psn, "stale NAK");
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
            roce_fatal(q, AE_LLP_TOO_MANY_RNRS, AE_SOURCE_SQ);
            return;
        }
        rewind_to(q, k->psn);
        q->rnr_wait = true;
        q->eng.deadline = e810_now(q->eng.c) + rnr_us(syn & 0x1F) * 1000;
        e810_eng_timer_want(&q->eng);
        trace_e810_roce_retry(q->eng.id, "RNR NAK", k->psn, q->rnr_thresh);
        return;
    case ROCE_AETH_NAK:
        ack_upto(q, (k->psn - 1) & ROCE_PSN_MASK);
        if ((syn & 0x1F) == ROCE_NAK_PSN_SEQ) {
            /* A go-back costs a retry like a timeout (IBA 9.7.5.1.3): a
             * peer that NAKs without taking anything ends the QP. */
            if (q->retries >= q->rexmit_thresh) {
                roce_fatal(q, AE_LLP_TOO_MANY_RETRIES, AE_SOURCE_SQ);
                return;
            }
            q->retries++;
            q->eng.c->rdma.roce->stats.retransmits++;
            trace_e810_roce_retry(q->eng.id, "NAK sequence error", k->psn,
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

            for (i = 0; i < q->eng.wq_cnt; i++) {
                RoceWqe *w = wq_at(q, i);

                if (!w->eng.done) {
                    w->eng.done = true;
                    w->eng.status = (int)ae;
                    break;
                }
            }
            wq_retire(q);
            roce_fatal(q, ae, AE_SOURCE_SQ);
        }
        return;
    default:
        q->eng.c->rdma.roce->stats.rx_bad++;
        trace_e810_roce_drop(q->eng.id, k->opcode, k->psn, "AETH syndrome");
        return;
    }
    timer_restart(q);
    roce_rc_run(q);
}

void roce_rx_read_resp(RoceQp *q, const RocePkt *k)
{
    E810Roce *e = q->eng.c->rdma.roce;
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
        trace_e810_roce_drop(q->eng.id, k->opcode, k->psn, "short response");
        return;
    }
    len = k->ext_len - hl - k->padcnt;
    /*
     * Responses come in PSN order: only the next one of the oldest READ
     * still waiting is taken.  Taking a later READ's response across a
     * hole would acknowledge what the hole holds.
     */
    for (i = 0; i < q->eng.wq_cnt && i < q->snd + 1; i++) {
        RoceWqe *x = wq_at(q, i);

        if (x->psn_valid && roce_op_read(x->eng.op) && !x->eng.done) {
            w = x;
            break;
        }
    }
    if (!w || k->psn != ((w->first_psn + w->got) & ROCE_PSN_MASK)) {
        uint32_t want = w ? (w->first_psn + w->got) & ROCE_PSN_MASK : 0;

        e->stats.rx_unexpected++;
        trace_e810_roce_drop(q->eng.id, k->opcode, k->psn, "unexpected response");
        if (w && roce_psn_diff(k->psn, want) > 0 &&
            roce_psn_diff(k->psn, q->psn_next) < 0 &&
            (!q->gap_asked || q->gap_psn != want)) {
            /* Ahead of a lost response: ask again from the hole, once
             * per hole (the timer covers a lost request). */
            q->gap_asked = true;
            q->gap_psn = want;
            ack_upto(q, (w->first_psn - 1) & ROCE_PSN_MASK);
            if (q->retries >= q->rexmit_thresh) {
                roce_fatal(q, AE_LLP_TOO_MANY_RETRIES, AE_SOURCE_SQ);
                return;
            }
            q->retries++;
            e->stats.retransmits++;
            trace_e810_roce_retry(q->eng.id, "READ response ahead", want,
                                  q->rexmit_thresh - q->retries);
            rewind_to(q, want);
            roce_rc_run(q);
        }
        return;
    }
    /* Everything before the READ is acknowledged by its response. */
    ack_upto(q, (w->first_psn - 1) & ROCE_PSN_MASK);
    if (last != (w->got + 1 == w->npkts) ||
        (!last && len != q->mtu) ||
        (last && len != w->eng.len - (uint64_t)w->got * q->mtu)) {
        w->eng.done = true;
        w->eng.status = AE_ROCE_RSP_LENGTH_ERROR;
        wq_retire(q);
        return;
    }
    if (len) {
        E810MemOwner o = roce_owner(q);

        r = e810_sge_copy(&o, w->eng.sge, w->eng.nsge, (uint64_t)w->got * q->mtu,
                          NULL, data, len, E810_ACC_LOCAL_WRITE);
        if (r) {
            w->eng.done = true;
            w->eng.status = (int)e810_xlate_ae(r);
            wq_retire(q);
            return;
        }
    }
    e->stats.rx_pkts++;
    w->got++;
    q->psn_una = (k->psn + 1) & ROCE_PSN_MASK;
    q->retries = 0;
    if (last) {
        w->eng.done = true;
        if (w->eng.op == OP_RDMA_READ_LOC_INV) {
            E810MemOwner o = roce_owner(q);

            uint32_t stag = w->eng.nsge ? w->eng.sge[0].stag : 0;

            w->eng.status = (int)e810_stag_invalidate(&o, stag, false);
        }
    }
    timer_restart(q);
    roce_rc_run(q);
}


/* ---- timer -------------------------------------------------------------- */

void roce_rc_timeout(RoceQp *q)
{
    E810Roce *e = q->eng.c->rdma.roce;

    q->eng.deadline = -1;
    if (q->eng.halted) {
        return;
    }
    if (q->rnr_wait) {
        q->rnr_wait = false;
        q->eng.deadline = e810_now(q->eng.c) + rto(q);
        roce_rc_run(q);
        return;
    }
    if (roce_psn_diff(q->psn_next, q->psn_una) <= 0) {
        return;
    }
    if (e810_tx_backed_up(q->eng.c)) {
        /* Our own port is backed up: the peer may not have seen the
         * packets yet, so this is no retry; look again later. */
        q->eng.deadline = e810_now(q->eng.c) + rto(q);
        return;
    }
    e->stats.timeouts++;
    if (q->retries >= q->rexmit_thresh) {
        roce_fatal(q, AE_LLP_TOO_MANY_RETRIES, AE_SOURCE_SQ);
        return;
    }
    q->retries++;
    e->stats.retransmits++;
    trace_e810_roce_retry(q->eng.id, "timeout", q->psn_una,
                          q->rexmit_thresh - q->retries);
    rewind_to(q, q->psn_una);
    q->eng.deadline = e810_now(q->eng.c) + rto(q);
    roce_rc_run(q);
}
