/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RoCEv2 engine: what its roles (UD, RC requester, RC responder;
 * ud.c, req.c, resp.c) share, below them and below the transport's
 * control part (qp.c): finding a QP, AEs and fatal errors, RQ
 * completions, building and sending a packet, ACKs and NAKs, fetching SQ
 * WQEs and running their local operations, taking RQ WQEs.
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

E810Roce *roce_get(E810Core *c)
{
    if (!c->rdma.roce) {
        c->rdma.roce = calloc(1, sizeof(E810Roce));
    }
    return c->rdma.roce;
}

RoceQp *roce_qp_find(E810Core *c, uint32_t id)
{
    E810EngQp *b = e810_eng_find(c, id);

    return b && b->ops->protocol == PROTOCOL_ROCE ? (RoceQp *)b : NULL;
}

RoceQp *roce_qp(E810EngQp *b)
{
    return (RoceQp *)b;
}

void roce_tx_note(RoceQp *q)
{
    e810_eng_tx_note(&q->eng);
}

E810MemOwner roce_owner(RoceQp *q)
{
    return e810_eng_owner(&q->eng);
}

/* ---- AEs and CQEs ------------------------------------------------------- */

void roce_post_ae(RoceQp *q, unsigned code, unsigned src)
{
    uint64_t qw1;

    qw1 = e810_aeqe_qw1(q->eng.id, code, src, q->state);
    trace_e810_roce_ae(q->eng.id, code, src, q->state);
    e810_rdma_aeq_post(q->eng.c, q->eng.c->rdma.qp[q->eng.id].comp_ctx, qw1);
}

void roce_fatal(RoceQp *q, unsigned ae, unsigned src)
{
    e810_eng_fatal(&q->eng, ae, src);
}

/* ---- frames ------------------------------------------------------------- */

void roce_xmit(RoceQp *q, size_t len, unsigned opcode, uint32_t psn,
                 unsigned payload)
{
    E810Roce *e = q->eng.c->rdma.roce;

    trace_e810_roce_tx(q->eng.id, opcode, psn, payload);
    e->stats.tx_pkts++;
    /* (the IP and UDP statistics: e810_rdma_xmit) */
    if (!e810_rdma_xmit(q->eng.c, e->tx, len, false)) {
        e->stats.tx_dropped++;
    }
}

/* ACK or NAK with @syndrome for @psn to the connected peer, now. */
void roce_ack_out(RoceQp *q, uint8_t syndrome, uint32_t psn)
{
    E810Roce *e = q->eng.c->rdma.roce;
    size_t off = roce_frame_start(e->tx, &q->path);
    uint8_t *p = e->tx + off;

    roce_bth_put(p, ROCE_ACK, false, 0, q->pkey, q->dqpn, false, psn);
    p[ROCE_BTH_LEN + ROCE_AETH_SYNDROME] = syndrome;
    roce_put24(p + ROCE_BTH_LEN + ROCE_AETH_MSN, q->msn & 0xFFFFFF);
    if (syndrome != (ROCE_AETH_ACK | ROCE_AETH_CREDITS_NONE)) {
        trace_e810_roce_nak(q->eng.id, syndrome, psn);
    }
    roce_xmit(q, roce_frame_seal(e->tx, &q->path, off,
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
void roce_send_ack(RoceQp *q, uint8_t syndrome, uint32_t psn)
{
    if (q->ack_owed) {
        q->eng.c->rdma.roce->stats.acks_coalesced++;
    }
    q->ack_owed = true;
    q->ack_syn = syndrome;
    q->ack_psn = psn;
}

void roce_send_nak(RoceQp *q, unsigned code, uint32_t psn)
{
    q->eng.c->rdma.roce->stats.naks_sent++;
    roce_send_ack(q, ROCE_AETH_NAK | code, psn);
}

/* ---- queues ------------------------------------------------------------- */

bool roce_op_local(unsigned op)
{
    return op == OP_FAST_REGISTER || op == OP_LOCAL_INVALIDATE || op == OP_NOP;
}

bool roce_op_read(unsigned op)
{
    return op == OP_RDMA_READ || op == OP_RDMA_READ_LOC_INV;
}

/* Parse the WQE at the SQ consumer index (uk.c irdma_uk_send/rdma_write/
 * rdma_read/inline_*) into @w, its raw qwords into @qw.  False if none is
 * there.  Nothing happens here: a WQE held back at a fence is parsed
 * again later, so its side effects wait for roce_sq_exec_local(). */
bool roce_sq_fetch(RoceQp *q, RoceWqe *w, uint64_t *hdr, uint64_t qw[4])
{
    uint8_t raw[32];
    uint64_t h;

    if (!e810_eng_sq_fetch(&q->eng, &w->eng, raw, hdr, qw)) {
        return false;
    }
    h = *hdr;
    w->imm = h & QPSQ_IMMDATAFLAG;
    w->imm_data = (uint32_t)qw[0];
    w->raddr = qw[2];
    w->rkey = (uint32_t)h;
    w->ah = QPSQ_AHID(h);
    w->qkey = (uint32_t)qw[2];
    w->dqpn = (uint32_t)QPSQ_DESTQPN(qw[2]);
    if (!roce_op_local(w->eng.op)) {
        e810_eng_sq_payload(&q->eng, &w->eng, raw, h, qw, false);
    }
    return true;
}

/*
 * Carry out a local op (Fast Register, Local Invalidate, NOP) once the
 * SQ has taken it: exactly once per WQE, whatever the fences and the
 * backend did before (issue 31: a fenced Fast Register parsed twice ran
 * twice and the second one found its own MR valid).
 */
void roce_sq_exec_local(RoceQp *q, RoceWqe *w, const uint64_t qw[4])
{
    E810MemOwner o = roce_owner(q);

    if (w->eng.op == OP_FAST_REGISTER) {
        w->eng.status = (int)e810_fast_reg(&o, qw);
    } else if (w->eng.op == OP_LOCAL_INVALIDATE) {
        w->eng.status = (int)e810_stag_invalidate(&o, QPSQ_FRAG_STAG(qw[1]),
                                                false);
    }
    w->eng.done = true;
}

/* Take the RQ WQE at the consumer index; false if none is posted. */
bool roce_rq_take(RoceQp *q)
{
    if (!e810_eng_rq_take(&q->eng)) {
        return false;
    }
    q->rcv_off = 0;
    return true;
}
