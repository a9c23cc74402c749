/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RoCEv2 engine: the RC responder -- the expected PSN, SEND and
 * WRITE placed, READs answered from a queue of recent ones, the
 * acknowledgement owed after them (see qp.c for the whole).
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

/* ---- RC responder ------------------------------------------------------- */

/* Where a remote access failed: the NAK and the AE on this QP. */
static void resp_error(RoceQp *q, const RocePkt *k, unsigned nak,
                       unsigned ae)
{
    roce_send_nak(q, nak, k->psn);
    trace_e810_roce_drop(q->eng.id, k->opcode, k->psn, "responder error");
    q->eng.rcv_active = false;
    q->wr_active = false;
    roce_fatal(q, ae, AE_SOURCE_RQ);
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
    E810Roce *e = q->eng.c->rdma.roce;
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
    trace_e810_roce_drop(q->eng.id, k->opcode, k->psn,
                         "duplicate READ, not recent");
}

/* A READ request at PSN @k->psn: checked now, queued for its responses. */
static void resp_read(RoceQp *q, const RocePkt *k)
{
    E810Roce *e = q->eng.c->rdma.roce;
    RoceRead *rd;
    uint64_t va;
    uint32_t rkey, len;
    int r;

    if (k->ext_len < ROCE_RETH_LEN) {
        resp_error(q, k, ROCE_NAK_INVALID_REQ, AE_IB_INVALID_REQUEST);
        return;
    }
    roce_reth_get(k->ext, &va, &rkey, &len);
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
        r = e810_rdma_xlate(q->eng.c, rkey, va, len, E810_ACC_REMOTE_READ,
                            q->eng.pd, false, NULL, NULL);
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
    q->eng.c->rdma.pestat[E810_PE_RDMARXRDS]++;
    rd = rd_at(q, q->rd_cnt++);
    rd->psn = k->psn;
    rd->npkts = roce_npkts(q, len);
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
    E810Roce *e = q->eng.c->rdma.roce;
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
        b[p + ROCE_AETH_SYNDROME] = ROCE_AETH_ACK | ROCE_AETH_CREDITS_NONE;
        roce_put24(b + p + ROCE_AETH_MSN, rd->msn);
        p += ROCE_AETH_LEN;
    }
    if (plen) {
        E810XCopy x = { q->eng.c, b + p, NULL, false, false };
        int r = e810_rdma_xlate(q->eng.c, rd->rkey, rd->va + poff, plen,
                                E810_ACC_REMOTE_READ, q->eng.pd, false,
                                e810_xcopy_fn, &x);

        if (r) {
            /* The region changed (or its memory failed) since the request
             * was checked. */
            trace_e810_roce_drop(q->eng.id, ROCE_READ_REQ, psn, "READ source");
            roce_ack_out(q, ROCE_AETH_NAK | xlate_nak(r), psn);
            roce_fatal(q, e810_xlate_ae(r), AE_SOURCE_RQ);
            return false;
        }
        p += plen;
    }
    while ((p - off) & 3) {
        b[p++] = 0;
    }
    roce_bth_put(b + off, (uint8_t)opcode, false, (4 - (plen & 3)) & 3,
                 q->pkey, q->dqpn, false, psn);
    roce_xmit(q, roce_frame_seal(b, &q->path, off, p), opcode, psn, plen);
    return true;
}

/*
 * What the responder owes, in PSN order: READ responses, then the one
 * acknowledgement waiting.  Each frame only when the gate allows; what
 * is left waits for the bottom half (tx_note).
 */
void roce_resp_run(RoceQp *q)
{
    if (!q->rd) {
        return;
    }
    while (q->rd_send < q->rd_cnt) {
        RoceRead *rd = rd_at(q, q->rd_send);

        if (q->eng.halted) {
            q->rd_send = q->rd_cnt;     /* an error ends what is owed */
            break;
        }
        if (rd->next >= rd->npkts) {
            q->rd_send++;
            continue;
        }
        if (!e810_tx_may_send(q->eng.c)) {
            roce_tx_note(q);
            return;
        }
        if (q->ack_owed && roce_psn_diff(q->ack_psn, rd->psn) < 0) {
            /* What was acknowledged before this READ goes first. */
            q->ack_owed = false;
            roce_ack_out(q, q->ack_syn, q->ack_psn);
            continue;
        }
        if (!resp_read_pkt(q, rd, rd->next)) {
            q->rd_send = q->rd_cnt;
            break;
        }
        rd->next++;
    }
    if (q->ack_owed) {
        if (!e810_tx_may_send(q->eng.c)) {
            roce_tx_note(q);
            return;
        }
        q->ack_owed = false;
        roce_ack_out(q, q->ack_syn, q->ack_psn);
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
    E810Roce *e = q->eng.c->rdma.roce;
    int32_t d = roce_psn_diff(k->psn, q->epsn);

    if (d > 0) {
        e->stats.rx_out_of_seq++;
        trace_e810_roce_drop(q->eng.id, k->opcode, k->psn, "ahead of ePSN");
        if (!q->nak_sent) {
            q->nak_sent = true;
            roce_send_nak(q, ROCE_NAK_PSN_SEQ, q->epsn);
        }
        return false;
    }
    if (d < 0) {
        e->stats.rx_dup++;
        if (k->opcode == ROCE_READ_REQ) {
            resp_read_dup(q, k);
        } else if (k->ackreq) {
            roce_send_ack(q, ROCE_AETH_ACK | ROCE_AETH_CREDITS_NONE,
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
    roce_reth_get(m->p, &q->wr_va, &q->wr_rkey, &q->wr_len);
    q->wr_off = 0;
    m->p += ROCE_RETH_LEN;
    *left -= ROCE_RETH_LEN;
    if (!q->wr_ok || q->wr_len > 0x7FFFFFFFu) {
        resp_error(q, k, ROCE_NAK_INVALID_REQ, AE_IB_INVALID_REQUEST);
        return false;
    }
    if (q->wr_len) {
        r = e810_rdma_xlate(q->eng.c, q->wr_rkey, q->wr_va, q->wr_len,
                            E810_ACC_REMOTE_WRITE, q->eng.pd, false,
                            NULL, NULL);
        if (r) {
            resp_error(q, k, xlate_nak(r), e810_xlate_ae(r));
            return false;
        }
    }
    return true;
}

/* A 4-byte extension header (IETH, ImmDt) into @v; false if short. */
static bool ext32(RoceReq *m, size_t *left, uint32_t *v)
{
    if (*left < 4) {
        return false;
    }
    *v = ldbe32(m->p);
    m->p += 4;
    *left -= 4;
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
    if ((send && (first == q->eng.rcv_active || q->wr_active)) ||
        (!send && (first == q->wr_active || q->eng.rcv_active))) {
        goto invalid;
    }
    if ((m->f & ROCE_F_RETH) && !resp_reth(q, k, m, &left)) {
        return false;
    }
    if (((m->f & ROCE_F_IETH) && !ext32(m, &left, &m->inv_stag)) ||
        ((m->f & ROCE_F_IMM) && !ext32(m, &left, &m->imm_data))) {
        goto invalid;
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
    E810MemOwner o = roce_owner(q);
    int r;

    if (m->f & ROCE_F_SEND) {
        if (m->plen > q->eng.rcv_cap - q->rcv_off) {
            resp_error(q, k, ROCE_NAK_INVALID_REQ, AE_IB_INVALID_REQUEST);
            return false;
        }
        if (m->plen) {
            r = e810_sge_copy(&o, q->eng.rcv_sge, q->eng.rcv_nsge, q->rcv_off,
                              NULL, m->p, m->plen, E810_ACC_LOCAL_WRITE);
            if (r) {
                resp_error(q, k, ROCE_NAK_REMOTE_OP, e810_xlate_ae(r));
                return false;
            }
        }
        q->rcv_off += m->plen;
    } else {
        E810XCopy x = { q->eng.c, NULL, m->p, true, false };
        bool last = m->f & ROCE_F_LAST;

        if (m->plen > q->wr_len - q->wr_off ||
            (last && m->plen != q->wr_len - q->wr_off)) {
            resp_error(q, k, ROCE_NAK_INVALID_REQ, AE_IB_INVALID_REQUEST);
            return false;
        }
        if (m->plen) {
            r = e810_rdma_xlate(q->eng.c, q->wr_rkey, q->wr_va + q->wr_off,
                                m->plen, E810_ACC_REMOTE_WRITE, q->eng.pd,
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
    q->eng.c->rdma.pestat[send ? E810_PE_RDMARXSNDS : E810_PE_RDMARXWRS]++;
    if (m->f & ROCE_F_IETH) {
        E810MemOwner o = roce_owner(q);

        if (e810_stag_invalidate(&o, m->inv_stag, true)) {
            resp_error(q, k, ROCE_NAK_INVALID_REQ, AE_AMP_INVALID_STAG);
            return false;
        }
        flags |= CQ_STAG;
        lo = m->inv_stag;
    }
    if (send || imm) {
        q->eng.rcv_active = false;
        e810_eng_rq_cqe(&q->eng, send ? q->rcv_off : q->wr_len, m->op, lo,
                        flags, imm, m->imm_data);
    }
    return true;
}

void roce_resp_request(RoceQp *q, const RocePkt *k)
{
    E810Roce *e = q->eng.c->rdma.roce;
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
        /* Atomics are not offered (E810_ENG_FTN_FLAGS, engine.h). */
        resp_error(q, k, ROCE_NAK_INVALID_REQ, AE_IB_INVALID_REQUEST);
        return;
    }
    if (!resp_parse(q, k, &m)) {
        return;
    }
    /* A receive WQE for a SEND, or a WRITE with immediate data. */
    if ((send && (m.f & ROCE_F_FIRST)) || (!send && (m.f & ROCE_F_IMM))) {
        if (!roce_rq_take(q)) {
            e->stats.rnr_naks_sent++;
            roce_send_ack(q, ROCE_AETH_RNR | ROCE_RNR_CODE, k->psn);
            trace_e810_roce_drop(q->eng.id, m.op, k->psn,
                                 "no receive WQE (RNR)");
            if (!send && (m.f & ROCE_F_FIRST)) {
                q->wr_active = false;
            }
            return;
        }
        q->eng.rcv_active = send;
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
        roce_send_ack(q, ROCE_AETH_ACK | ROCE_AETH_CREDITS_NONE, k->psn);
    }
}
