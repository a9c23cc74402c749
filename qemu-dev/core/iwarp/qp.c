/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: the iWARP transport (its QPs over core/iwarp/'s
 * TCP/MPA/DDP/RDMAP connections).
 *
 * At MODIFY_QP to RTS with TOECTXVALID the QP's TCP state is taken from
 * its host context (ctrl.c:irdma_sc_qp_setctx(), cm.c:irdma_init_tcp_ctx())
 * and handed to an iWARP engine connection (core/iwarp/).  From then on
 * this file consumes the QP's SQ (WQEs as uk.c writes them, including the
 * three connection WQEs the CM puts at quanta 0-2: LSMM or RTR, NOP with
 * local fence, GEN_RTS_AE), takes RQ WQEs when Sends arrive, writes CQEs
 * in SQ order to the QP's CQs, and raises the AEs the driver's CM waits
 * for (hw.c:irdma_process_aeq()).  Every access to data buffers goes
 * through the STag translation (xlate.c), with the QP's PD and rights.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../bytes.h"
#include "../../trace.h"
#include "../rdma/rdma.h"
#include "qp.h"
#include "../rdma/engine.h"
#include "../rdma/wqe.h"
#include "../rdma/port.h"
#include "iwarp.h"
#include "hdr.h"

#define IWQP_INFLIGHT           256
/* Host memory of one connection: the engine state and its buffers. */
#define IWQP_CONN_BYTES         (sizeof(IwConn) + IW_RBUF + IW_OOO_BYTES)

typedef E810Sge IwarpSge;

typedef struct IwarpWqe {
    E810EngWqe eng;
    uint64_t seq;               /* cookie for the iWARP engine */
    bool is_read;
} IwarpWqe;

typedef struct IwarpQp {
    E810EngQp eng;
    bool up;                    /* connection handed over */
    IwConn *conn;               /* from the hand-over (up) on */
    uint64_t q2_pa;
    bool wait_pdu, got_pdu;
    uint64_t next_seq;
    bool orphaned;              /* in ERROR, its connection still closing */
    unsigned gather_ae;         /* why the last payload read failed */
} IwarpQp;

static IwarpQp *qp_find(E810Core *c, uint32_t id)
{
    E810EngQp *b = e810_eng_find(c, id);

    return b && b->ops == &e810_iwarp_ops ? (IwarpQp *)b : NULL;
}

static IwarpQp *iwqp(E810EngQp *b)
{
    return (IwarpQp *)b;
}

static IwarpWqe *wq_at(IwarpQp *q, unsigned i)
{
    return (IwarpWqe *)e810_eng_wq_at(&q->eng, i);
}

static uint8_t qp_iwstate(IwarpQp *q)
{
    return q->eng.c->rdma.qp[q->eng.id].state;
}

/* ---- AEs and CQEs ------------------------------------------------------- */

static void post_ae(IwarpQp *q, unsigned code, unsigned src, bool q2data)
{
    E810Core *c = q->eng.c;
    unsigned tcp = q->up ? q->conn->state : IW_TCP_CLOSED;
    uint64_t qw1;

    qw1 = e810_aeqe_qw1(q->eng.id, code, src, qp_iwstate(q)) |
          (uint64_t)(tcp & 0xF) << AEQE_TCPSTATE_S | (q2data ? AEQE_Q2DATA : 0);
    trace_e810_iw_ae(q->eng.id, code, src, qp_iwstate(q), tcp);
    e810_rdma_aeq_post(c, c->rdma.qp[q->eng.id].comp_ctx, qw1);
}

/* ---- guest memory through STags ----------------------------------------- */

/* The shared SGE code (wqe.c) with this QP as the owner. */
static int sge_copy(IwarpQp *q, const IwarpSge *sge, unsigned n, uint64_t off,
                    uint8_t *buf, const uint8_t *src, size_t len,
                    unsigned access)
{
    E810MemOwner o = { q->eng.c, q->eng.id, q->eng.pd, q->eng.priv };

    return e810_sge_copy(&o, sge, n, off, buf, src, len, access);
}

static int sge_check(IwarpQp *q, const IwarpSge *sge, unsigned n,
                     unsigned access)
{
    E810MemOwner o = { q->eng.c, q->eng.id, q->eng.pd, q->eng.priv };

    return e810_sge_check(&o, sge, n, access);
}

#define xlate_ae e810_xlate_ae

static int xlate_term(int r, bool tagged)
{
    switch (r) {
    case E810_XLATE_OK:
        return 0;
    case E810_XLATE_PD:
        return tagged ? IW_T_DDP_T_UNASSOC : IW_T_RDMAP_UNASSOC_STAG;
    case E810_XLATE_RIGHTS:
        return IW_T_RDMAP_ACCESS;
    case E810_XLATE_BOUNDS:
        return tagged ? IW_T_DDP_T_BOUNDS : IW_T_RDMAP_BOUNDS;
    case E810_XLATE_PBL:
    case E810_XLATE_DMA:
        return IW_T_RDMAP_CATASTROPHIC;
    default:
        return tagged ? IW_T_DDP_T_INV_STAG : IW_T_RDMAP_INV_STAG;
    }
}

static unsigned term_ae(uint32_t term)
{
    switch (term) {
    case IW_T_RDMAP_INV_STAG: case IW_T_DDP_T_INV_STAG:
    case IW_T_RDMAP_CANT_INV:
        return AE_AMP_INVALID_STAG;
    case IW_T_RDMAP_UNASSOC_STAG: case IW_T_DDP_T_UNASSOC:
        return AE_AMP_BAD_PD;
    case IW_T_RDMAP_BOUNDS: case IW_T_DDP_T_BOUNDS:
        return AE_AMP_BOUNDS_VIOLATION;
    case IW_T_RDMAP_ACCESS:
        return AE_AMP_RIGHTS_VIOLATION;
    case IW_T_RDMAP_TO_WRAP: case IW_T_DDP_T_TO_WRAP:
        return AE_AMP_TO_WRAP;
    case IW_T_DDP_U_NO_BUF:
        return AE_DDP_NO_BUFFER;
    case IW_T_DDP_U_TOO_LONG:
        return AE_DDP_TOO_LONG;
    case IW_T_DDP_U_INV_MO:
        return AE_DDP_INVALID_MO;
    case IW_T_DDP_U_INV_QN:
        return AE_DDP_INVALID_QN;
    case IW_T_DDP_U_MSN_RANGE:
        return AE_DDP_MSN_GAP;
    case IW_T_DDP_U_VERSION: case IW_T_DDP_T_VERSION:
        return AE_DDP_BAD_VERSION;
    case IW_T_RDMAP_BAD_VERSION:
        return AE_RDMAP_BAD_VERSION;
    case IW_T_MPA_CRC:
        return AE_LLP_RECEIVED_MPA_CRC_ERROR;
    case IW_T_RDMAP_UNEXP_OP:
        return AE_RDMAP_UNEXPECTED_OPCODE;
    default:
        return AE_BAD_READ_REQ;
    }
}

/* ---- STag invalidation and fast registration (privileged) ------------- */

static unsigned stag_invalidate(IwarpQp *q, uint32_t stag, bool remote)
{
    E810MemOwner o = { q->eng.c, q->eng.id, q->eng.pd, q->eng.priv };

    return e810_stag_invalidate(&o, stag, remote);
}

static unsigned fast_reg(IwarpQp *q, const uint64_t *w)
{
    E810MemOwner o = { q->eng.c, q->eng.id, q->eng.pd, q->eng.priv };

    return e810_fast_reg(&o, w);
}

/* ---- SQ ----------------------------------------------------------------- */

static void qp_fatal(IwarpQp *q, unsigned ae, unsigned src)
{
    e810_eng_fatal(&q->eng, ae, src);
}

static IwarpWqe *wq_by_seq(IwarpQp *q, uint64_t seq)
{
    unsigned i;

    for (i = 0; i < q->eng.wq_cnt; i++) {
        IwarpWqe *w = wq_at(q, i);

        if (w->seq == seq) {
            return w;
        }
    }
    return NULL;
}

/* Whether a WQE before the next one (a READ, with @reads) is not done:
 * what a read or local fence waits for.  Done WQEs still queued for their
 * completion do not count: several posted with one doorbell reach here
 * before any of them retires. */
static bool wq_undone(IwarpQp *q, bool reads)
{
    unsigned i;

    for (i = 0; i < q->eng.wq_cnt; i++) {
        IwarpWqe *w = wq_at(q, i);

        if ((w->is_read || !reads) && !w->eng.done) {
            return true;
        }
    }
    return false;
}

static bool wq_has_read(IwarpQp *q)
{
    return wq_undone(q, true);
}

/* Parse the WQE at the SQ consumer index.  Returns false if none is
 * there (valid bit not ours) or it cannot be read.  Local ops carry no
 * payload; a zero-length first fragment is kept (MPA's RTR is a
 * zero-length READ). */
static bool sq_fetch(IwarpQp *q, IwarpWqe *w, uint64_t *hdr, uint64_t qw[4])
{
    uint8_t raw[32];
    unsigned op;

    if (!e810_eng_sq_fetch(&q->eng, &w->eng, raw, hdr, qw)) {
        return false;
    }
    op = w->eng.op;
    if (!(*hdr & QPSQ_INLINEDATAFLAG) &&
        (op == OP_FAST_REGISTER || op == OP_LOCAL_INVALIDATE ||
         op == OP_NOP || op == OP_GEN_RTS_AE)) {
        return true;
    }
    e810_eng_sq_payload(&q->eng, &w->eng, raw, *hdr, qw, true);
    return true;
}

/* An RDMA operation handed to the connection (@r 0) counts. */
static void pe_count(IwarpQp *q, int r, unsigned which)
{
    if (!r) {
        q->eng.c->rdma.pestat[which]++;
    }
}

/* A send or write handed to the connection: 0, or nonzero when the
 * engine's queue is full. */
static int post_send_write(IwarpQp *q, IwarpWqe *w, uint64_t h,
                           const uint64_t qw[4])
{
    static const uint8_t map[] = {
        [OP_RDMA_SEND] = IW_OP_SEND,
        [OP_RDMA_SEND_INV] = IW_OP_SEND_INV,
        [OP_RDMA_SEND_SOL_EVENT] = IW_OP_SEND_SE,
        [OP_RDMA_SEND_SOL_EVENT_INV] = IW_OP_SEND_SE_INV,
    };
    int r, err;

    if (h & QPSQ_IMMDATAFLAG) {
        w->eng.status = AE_WQE_UNEXPECTED_OPCODE;     /* not on iWARP */
        return 0;
    }
    if (!w->eng.inl) {
        err = sge_check(q, w->eng.sge, w->eng.nsge, E810_ACC_LOCAL_READ);
        if (err) {
            w->eng.status = (int)xlate_ae(err);
            return 0;
        }
    }
    if (h & QPSQ_STREAMMODE) {
        r = iw_post_raw(q->conn, w->eng.len, w->seq);
        q->wait_pdu = h & QPSQ_WAITFORRCVPDU;
    } else if (w->eng.op == OP_RDMA_WRITE || w->eng.op == OP_RDMA_WRITE_SOL) {
        r = iw_post_write(q->conn, (uint32_t)h, qw[2], w->eng.len, w->seq);
        pe_count(q, r, E810_PE_RDMATXWRS);
    } else {
        r = iw_post_send(q->conn, map[w->eng.op], (uint32_t)h, w->eng.len,
                         w->seq);
        pe_count(q, r, E810_PE_RDMATXSNDS);
    }
    return r;
}

static int post_read(IwarpQp *q, IwarpWqe *w, uint64_t h, const uint64_t qw[4])
{
    int r, err;

    w->is_read = true;
    if (w->eng.len) {
        err = sge_check(q, w->eng.sge, w->eng.nsge, E810_ACC_LOCAL_WRITE);
        if (err) {
            w->eng.status = (int)xlate_ae(err);
            return 0;
        }
    }
    r = iw_post_read(q->conn, w->eng.nsge ? w->eng.sge[0].stag : 0,
                     w->eng.nsge ? w->eng.sge[0].to : 0, w->eng.len,
                     (uint32_t)h, qw[2], w->seq);
    /* Zero-length Reads (MPA's RTR) are not counted: the receiving side
     * does not see them as Read Requests. */
    if (w->eng.len) {
        pe_count(q, r, E810_PE_RDMATXRDS);
    }
    return r;
}

/* Carry out WQE @w: local ops here, the rest handed to the connection.
 * Nonzero when the connection cannot take it now (queue or ORD full). */
static int wqe_post(IwarpQp *q, IwarpWqe *w, uint64_t h, const uint64_t qw[4])
{
    if (w->eng.status) {
        return 0;
    }
    switch (w->eng.op) {
    case OP_NOP:
        return 0;
    case OP_GEN_RTS_AE:
        w->eng.signaled = false;
        post_ae(q, AE_LLP_CONNECTION_ESTABLISHED, 0, false);
        return 0;
    case OP_LOCAL_INVALIDATE:
        w->eng.status = (int)stag_invalidate(q, QPSQ_FRAG_STAG(qw[1]), false);
        return 0;
    case OP_FAST_REGISTER:
        w->eng.status = (int)fast_reg(q, qw);
        return 0;
    case OP_RDMA_SEND:
    case OP_RDMA_SEND_SOL_EVENT:
    case OP_RDMA_SEND_INV:
    case OP_RDMA_SEND_SOL_EVENT_INV:
    case OP_RDMA_WRITE:
    case OP_RDMA_WRITE_SOL:
        return post_send_write(q, w, h, qw);
    case OP_RDMA_READ:
    case OP_RDMA_READ_LOC_INV:
        return post_read(q, w, h, qw);
    default:
        w->eng.status = AE_WQE_UNEXPECTED_OPCODE;
        return 0;
    }
}

/* Whether an op completes when posted (it is not the connection's). */
static bool op_local(unsigned op)
{
    return op == OP_NOP || op == OP_GEN_RTS_AE ||
           op == OP_LOCAL_INVALIDATE || op == OP_FAST_REGISTER;
}

static void sq_run(IwarpQp *q)
{
    if (q->eng.in_run) {
        return;
    }
    q->eng.in_run = true;
    while (q->up && !q->eng.halted && qp_iwstate(q) == QP_STATE_RTS &&
           q->eng.wq_cnt < q->eng.wq_size && !q->conn->dead) {
        IwarpWqe *w = wq_at(q, q->eng.wq_cnt);
        uint64_t h, qw[4];

        if (q->wait_pdu && !q->got_pdu) {
            break;
        }
        if (!sq_fetch(q, w, &h, qw)) {
            /* Run dry: show the tail (6.x rings only then), look again. */
            if (e810_rdma_qp_show_sq_tail(q->eng.c, q->eng.id, q->eng.sq_idx)) {
                continue;
            }
            break;
        }
        if ((h & QPSQ_LOCALFENCE) && wq_undone(q, false)) {
            break;
        }
        if ((h & QPSQ_READFENCE) && wq_has_read(q)) {
            break;
        }
        w->seq = q->next_seq;
        trace_e810_iw_wqe(q->eng.id, w->eng.idx, w->eng.op, w->eng.len, h);
        /* In the queue before the engine may ask for its payload. */
        q->eng.wq_cnt++;
        if (wqe_post(q, w, h, qw)) {
            /* Engine queue or ORD full: retry when work completes. */
            w->is_read = false;
            q->eng.wq_cnt--;
            break;
        }
        if (w->eng.status || op_local(w->eng.op)) {
            w->eng.done = true;
        }
        q->next_seq++;
        e810_eng_sq_advance(&q->eng, w->eng.quanta);
    }
    if (q->up && !q->eng.halted) {
        e810_rdma_qp_show_sq_tail(q->eng.c, q->eng.id, q->eng.sq_idx);
    }
    e810_eng_wq_retire(&q->eng);
    q->eng.in_run = false;
}

/* ---- engine callbacks --------------------------------------------------- */

static void cb_frame_out(void *opaque, const uint8_t *frame, size_t len)
{
    IwarpQp *q = opaque;

    e810_rdma_xmit(q->eng.c, frame, len, false);
}

/* The engine's gate before each frame: when sending must wait, the QP
 * is noted for the bottom half, which kicks it again. */
static bool cb_tx_ready(void *opaque)
{
    IwarpQp *q = opaque;

    if (!e810_tx_may_send(q->eng.c)) {
        e810_eng_tx_note(&q->eng);
        return false;
    }
    return true;
}

static bool cb_tx_backed_up(void *opaque)
{
    IwarpQp *q = opaque;

    return e810_tx_backed_up(q->eng.c);
}

static int64_t cb_now(void *opaque)
{
    IwarpQp *q = opaque;

    return e810_now(q->eng.c);
}

/* The iWARP engine's one deadline per connection is the QP's. */
static void cb_timer(void *opaque, int64_t deadline)
{
    IwarpQp *q = opaque;

    q->eng.deadline = deadline;
    e810_eng_timer_want(&q->eng);
}

static int cb_gather(void *opaque, uint64_t cookie, uint64_t off,
                     uint8_t *buf, size_t len)
{
    IwarpQp *q = opaque;
    IwarpWqe *w = wq_by_seq(q, cookie);
    int r;

    q->gather_ae = 0;
    /* Flushed work is the guest's again (a kernel ULP may reuse its
     * buffers once the driver reported it flushed): a segment of it lost
     * on the way is not sent again from there, the connection ends with a
     * RST instead (IW_EV_REXMIT_FAILED). */
    if (!w || q->orphaned) {
        return IW_T_RDMAP_CATASTROPHIC;
    }
    if (w->eng.inl) {
        if (off > w->eng.len || len > w->eng.len - off) {
            return IW_T_RDMAP_CATASTROPHIC;
        }
        memcpy(buf, w->eng.inl_data + off, len);
        return 0;
    }
    r = sge_copy(q, w->eng.sge, w->eng.nsge, off, buf, NULL, len,
                 E810_ACC_LOCAL_READ);
    if (r) {
        w->eng.status = (int)xlate_ae(r);
        q->gather_ae = xlate_ae(r);
        return IW_T_RDMAP_CATASTROPHIC;
    }
    return 0;
}

static int cb_place(void *opaque, uint32_t stag, uint64_t to,
                    const uint8_t *data, size_t len, bool read_resp,
                    uint64_t cookie, uint64_t sink_to)
{
    IwarpQp *q = opaque;
    E810XCopy x = { q->eng.c, NULL, data, true, false };
    int r;

    if (read_resp) {
        IwarpWqe *w = wq_by_seq(q, cookie);

        if (!w) {
            return IW_T_DDP_T_INV_STAG;
        }
        /* Scatter into the Read's local SGE list by offset. */
        r = sge_copy(q, w->eng.sge, w->eng.nsge, to - sink_to, NULL, data, len,
                     E810_ACC_LOCAL_WRITE);
        return xlate_term(r, true);
    }
    r = e810_rdma_xlate(q->eng.c, stag, to, len, E810_ACC_REMOTE_WRITE, q->eng.pd,
                        false, e810_xcopy_fn, &x);
    pe_count(q, r, E810_PE_RDMARXWRS);
    return xlate_term(r, true);
}

static int cb_recv(void *opaque, const IwRecvSeg *s)
{
    IwarpQp *q = opaque;
    bool inv = false;
    int r;

    if (q->eng.halted) {
        return IW_T_DDP_U_NO_BUF;
    }
    if (s->first) {
        if (!e810_eng_rq_take(&q->eng)) {
            return IW_T_DDP_U_NO_BUF;
        }
    }
    if ((uint64_t)s->mo + s->len > q->eng.rcv_cap) {
        return IW_T_DDP_U_TOO_LONG;
    }
    if (s->len) {
        r = sge_copy(q, q->eng.rcv_sge, q->eng.rcv_nsge, s->mo, NULL, s->data,
                     s->len, E810_ACC_LOCAL_WRITE);
        if (r) {
            return IW_T_DDP_U_NO_BUF;   /* local protection error */
        }
    }
    if (!s->last) {
        return 0;
    }
    q->eng.rcv_active = false;
    if (s->op == IW_OP_SEND_INV || s->op == IW_OP_SEND_SE_INV) {
        if (stag_invalidate(q, s->inv_stag, true)) {
            return IW_T_RDMAP_CANT_INV;
        }
        inv = true;
    }
    e810_eng_rq_cqe(&q->eng, (uint64_t)s->mo + s->len, OP_TYPE_REC,
                    inv ? s->inv_stag : 0,
                    (inv ? CQ_STAG : 0) |
                    ((s->op == IW_OP_SEND_SE || s->op == IW_OP_SEND_SE_INV) ?
                     CQ_SOEVENT : 0), false, 0);
    q->eng.c->rdma.pestat[E810_PE_RDMARXSNDS]++;
    return 0;
}

static int cb_read_check(void *opaque, uint32_t stag, uint64_t to,
                         uint32_t len)
{
    IwarpQp *q = opaque;

    q->eng.c->rdma.pestat[E810_PE_RDMARXRDS]++;
    return xlate_term(e810_rdma_xlate(q->eng.c, stag, to, len,
                                      E810_ACC_REMOTE_READ, q->eng.pd, false,
                                      NULL, NULL), false);
}

static int cb_read_fetch(void *opaque, uint32_t stag, uint64_t to,
                         uint8_t *buf, size_t len)
{
    IwarpQp *q = opaque;
    E810XCopy x = { q->eng.c, buf, NULL, false, false };

    return xlate_term(e810_rdma_xlate(q->eng.c, stag, to, len,
                                      E810_ACC_REMOTE_READ, q->eng.pd, false,
                                      e810_xcopy_fn, &x), false);
}

static void cb_done(void *opaque, uint64_t cookie, int status)
{
    IwarpQp *q = opaque;
    IwarpWqe *w = wq_by_seq(q, cookie);

    if (!w) {
        return;
    }
    w->eng.done = true;
    if (status && !w->eng.status) {
        w->eng.status = status > 0 ? (int)term_ae((uint32_t)status)
                               : AE_WQE_INVALID_PARAMETER;
    }
    if (!w->eng.status && w->eng.op == OP_RDMA_READ_LOC_INV) {
        /* The sink STag (local SGE 0) is invalidated once the Read
         * Response has been placed, before the completion. */
        w->eng.status = (int)stag_invalidate(q, w->eng.nsge ? w->eng.sge[0].stag : 0,
                                           false);
    }
    if (!q->eng.in_run) {
        sq_run(q);
    }
}

static void cb_event(void *opaque, IwEvent ev, uint32_t term,
                     const uint8_t *data, size_t len)
{
    IwarpQp *q = opaque;

    trace_e810_iw_event(q->eng.id, ev, term, q->conn->state);
    switch (ev) {
    case IW_EV_FIRST_FPDU:
        q->got_pdu = true;
        break;
    case IW_EV_FIN_RCVD:
        post_ae(q, AE_LLP_FIN_RECEIVED, 0, false);
        break;
    case IW_EV_CLOSE_COMPLETE:
        post_ae(q, AE_LLP_CLOSE_COMPLETE, 0, false);
        break;
    case IW_EV_RESET_RCVD:
        q->eng.halted = true;
        post_ae(q, AE_LLP_CONNECTION_RESET, 0, false);
        break;
    case IW_EV_TOO_MANY_RETRIES:
        q->eng.halted = true;
        post_ae(q, AE_LLP_TOO_MANY_RETRIES, 0, false);
        break;
    case IW_EV_TERMINATE_RCVD: {
        size_t n = len < Q2_BUF_SIZE - Q2_BAD_FRAME_OFFSET ?
                   len : Q2_BUF_SIZE - Q2_BAD_FRAME_OFFSET;
        bool ok = q->q2_pa &&
                  !e810_dma_write(q->eng.c, q->q2_pa + Q2_BAD_FRAME_OFFSET,
                                             data, n);
        post_ae(q, AE_LLP_TERMINATE_RECEIVED, 0, ok);
        break;
    }
    case IW_EV_ERROR: {
        unsigned src = AE_SOURCE_RQ;

        if (len >= 2 && (data[IW_DDP_CTRL] & IW_DDP_T)) {
            src = AE_SOURCE_IN_RR_WR;
        } else if (len >= 2 && (data[IW_RDMAP_CTRL] & IW_RDMAP_OPCODE_M) ==
                   IW_OP_READ_REQ) {
            src = AE_SOURCE_OUT_RR;
        }
        post_ae(q, term_ae(term), src, false);
        break;
    }
    case IW_EV_TERMINATE_SENT:
        break;
    case IW_EV_REXMIT_FAILED:
        /* A retransmission found its source gone (the guest deregistered
         * or invalidated the MR, a DMA failed): the connection is reset,
         * the QP is done, the driver hears why (once: a QP already in
         * error, its WQEs flushed, says nothing more). */
        if (term != IW_T_RDMAP_CATASTROPHIC) {
            qp_fatal(q, term_ae(term), AE_SOURCE_SQ);
        } else {
            qp_fatal(q, q->gather_ae ? q->gather_ae : AE_LCE_QP_CATASTROPHIC,
                     AE_SOURCE_SQ);
        }
        break;
    }
}

static const IwOps iwarp_qp_ops = {
    .frame_out = cb_frame_out, .tx_ready = cb_tx_ready,
    .tx_backed_up = cb_tx_backed_up, .now = cb_now, .timer = cb_timer,
    .gather = cb_gather, .place = cb_place, .recv = cb_recv,
    .read_check = cb_read_check, .read_fetch = cb_read_fetch,
    .done = cb_done, .event = cb_event,
};

/* ---- control path hooks ------------------------------------------------- */

/* Where a connection stands when the driver changes it (close, error,
 * destroy): whether its FIN is out, and what still holds it back. */
static void trace_close(IwarpQp *q, const char *what)
{
    const IwConn *k = q->conn;

    trace_e810_iw_close(q->eng.id, what, k->state, k->snd_max - k->snd_una,
                        k->mq_cnt - k->mq_tx, k->fin_sent);
}

/*
 * The QP goes to ERROR without RESETCON (FLUSH_WQES, MODIFY_QP) with its
 * connection still open.  irdma does that when a close outlives its close
 * timer (HZ/10, cm.c:irdma_schedule_cm_timer()): the timer marks the
 * connection CLOSED and reset (cm.c:irdma_handle_close_entry(), last_aeq
 * = IRDMA_AE_RESET_SENT), irdma_cm_disconn_true() flushes the QP, and the
 * MODIFY_QP to ERROR of its destroy then asks for no RST
 * (verbs.c:irdma_modify_qp(): RESETCON only while hw_tcp_state is open).
 * The work is gone, but the peer still waits for our FIN: the connection
 * goes on without the work -- a FIN asked for goes right after what was
 * sent, the peer's ACKs and FIN are still taken (port.c) -- and
 * DESTROY_QP resets what is then still open (qp_release_conn()).
 */
static void qp_orphan(IwarpQp *q, const char *why)
{
    if (!q->up || q->orphaned || !iw_conn_open(q->conn)) {
        return;
    }
    q->orphaned = true;
    iw_orphan(q->conn);
    trace_close(q, why);
}

/*
 * DESTROY_QP takes the connection's state away.  One still open is
 * aborted as TCP's ABORT call does it (RFC 9293 3.10.5): a RST from
 * ESTABLISHED, FIN-WAIT-1/2 and CLOSE-WAIT; nothing once both FINs are out
 * (CLOSING, LAST-ACK, TIME-WAIT).  irdma sends no RST itself for an
 * offloaded connection (cm.c:irdma_cm_close(), IRDMA_CM_STATE_OFFLOADED)
 * and, past its close timer, asks for none (see qp_orphan()): without it
 * a peer that never got our FIN would wait for it for ever, its QP and
 * cm_id never released.
 */
static void qp_release_conn(IwarpQp *q)
{
    IwTcpState st = q->conn->state;
    bool rst = st == IW_TCP_ESTABLISHED || st == IW_TCP_FIN_WAIT_1 ||
               st == IW_TCP_FIN_WAIT_2 || st == IW_TCP_CLOSE_WAIT;

    if (!iw_conn_open(q->conn)) {
        return;
    }
    trace_close(q, rst ? "destroyed: reset" : "destroyed");
    if (rst) {
        iw_abort(q->conn);
    }
}

/* The connection and its statistics go with the QP. */
static void iw_free(E810EngQp *b)
{
    IwarpQp *q = iwqp(b);
    E810Core *c = b->c;
    const IwStats *st;

    if (!q->conn) {
        return;
    }
    st = &q->conn->stats;
    if (q->up) {
        trace_e810_iw_tcp_stats(b->id, st->tx_segs, st->rexmits, st->rto,
                                st->spurious_rto, st->fast_rexmits,
                                st->ooo_queued, st->ooo_drops,
                                q->conn->srtt_ns / 1000,
                                q->conn->rto_ns / 1000);
    }
    /* Its retransmissions stay in the statistics. */
    c->rdma.pestat[E810_PE_TCPRTXSEG] += st->rexmits;
    iw_conn_destroy(q->conn);
    free(q->conn);
    q->conn = NULL;
    e810_mem_release(c, IWQP_CONN_BYTES);
    e810_eng_conn_held(c, false);
}

/* What the QP context says of the QP (at CREATE_QP and every MODIFY_QP):
 * the shell's part, the Q2 buffer, and the RDMA limits of a live
 * connection. */
static void qp_load_iwarp(IwarpQp *q, const E810QpCtx *x)
{
    e810_eng_ctx_load(&q->eng, x);
    q->q2_pa = x->q2_addr;
    if (q->up) {
        q->conn->p.rd_ok = x->rd_ok;
        q->conn->p.wr_ok = x->wr_ok;
        q->conn->p.ord = (uint16_t)x->ord;
        q->conn->p.ird = (uint16_t)x->ird;
    }
}

/* Allocate the connection and the work queue, charged to mem_limit. */
static bool qp_alloc_conn(IwarpQp *q)
{
    E810Core *c = q->eng.c;

    if (!e810_mem_charge(c, IWQP_CONN_BYTES)) {
        return false;
    }
    q->conn = calloc(1, sizeof(*q->conn));
    if (!q->conn) {
        e810_mem_release(c, IWQP_CONN_BYTES);
        return false;
    }
    if (!q->eng.wq && !e810_eng_wq_alloc(&q->eng)) {
        free(q->conn);
        q->conn = NULL;
        e810_mem_release(c, IWQP_CONN_BYTES);
        return false;
    }
    e810_eng_conn_held(c, true);
    return true;
}

/* The connection as the context hands it over (cm.c:irdma_init_tcp_ctx()
 * wrote its TCP state): RTOMIN in milliseconds (irdma asks for 5), the
 * congestion state it starts with, DUPACK_THRESH (0: 3). */
static void conn_params(E810Core *c, const E810QpCtx *x, IwConnParams *p)
{
    memset(p, 0, sizeof(*p));
    p->ipv4 = x->ipv4;
    memcpy(p->lmac, x->src_mac, 6);
    if (x->arp_idx < E810_RDMA_MAX_ARP) {
        memcpy(p->rmac, c->rdma.arp[x->arp_idx].mac, 6);
    }
    memcpy(p->rip, x->dest_ip, 16);
    memcpy(p->lip, x->local_ip, 16);
    p->lport = x->src_port;
    p->rport = x->dst_port;
    p->vlan = x->insert_vlan;
    p->vlan_tci = x->vlan_tag;
    p->ttl = x->ttl;
    p->tos = x->tos;
    p->mss = x->mss;
    p->rcv_scale = x->rcv_wscale;
    p->snd_scale = x->snd_wscale;
    p->snd_nxt = x->snd_nxt;
    p->snd_wnd = x->snd_wnd;
    p->rcv_nxt = x->rcv_nxt;
    p->rcv_wnd = x->rcv_wnd ? x->rcv_wnd : 0x3FFFC;
    p->snd_una = x->snd_una;
    p->rexmit_thresh = x->rexmit_thresh;
    p->rto_min_ns = (int64_t)x->rtomin_ms * 1000 * 1000;
    p->ssthresh = x->ssthresh;
    p->cwnd = x->cwnd;
    p->dupack_thresh = x->dupack_thresh;
    p->ord = (uint16_t)x->ord;
    p->ird = (uint16_t)x->ird;
    p->rd_ok = x->rd_ok;
    p->wr_ok = x->wr_ok;
}

/* RTS: the hand-over with TOECTXVALID; false if it has no memory. */
static bool qp_rts(IwarpQp *q, const E810QpCtx *x, bool toe)
{
    E810Core *c = q->eng.c;
    IwConnParams p;

    if (!toe || q->up) {
        qp_load_iwarp(q, x);
        return true;
    }
    if (!q->conn && !qp_alloc_conn(q)) {
        return false;
    }
    if (x->arp_idx >= E810_RDMA_MAX_ARP || !c->rdma.arp[x->arp_idx].valid) {
        e810_guest_error(c, "rdma: QP %u to RTS with ARP index %u not valid",
                         q->eng.id, x->arp_idx);
    }
    conn_params(c, x, &p);
    if (!iw_conn_init(q->conn, &p, &iwarp_qp_ops, q)) {
        return false;
    }
    q->up = true;
    q->eng.deadline = -1;
    qp_load_iwarp(q, x);
    trace_e810_iw_rts(q->eng.id, p.lport, p.rport, p.snd_nxt, p.rcv_nxt, p.mss,
                      p.snd_wnd, x->arp_idx);
    return true;
}

static void iw_flushed(E810EngQp *b, bool sq)
{
    qp_orphan(iwqp(b), "flushed");
}

/* iWARP RC QPs; QPs 0-2 are the CQP's and the PUDA's. */
static bool iw_takes(unsigned type, uint32_t id)
{
    return type == QP_TYPE_IWARP && id >= 3;
}

/* The connection and its work queue come at the hand-over. */
static bool iw_create(E810EngQp *b, uint64_t h, const E810QpCtx *x)
{
    IwarpQp *q = iwqp(b);

    qp_load_iwarp(q, x);
    return true;
}

static void iw_destroy(E810EngQp *b)
{
    IwarpQp *q = iwqp(b);

    if (q->up) {
        qp_release_conn(q);
    }
}

/* TERMINATE: the Terminate message the driver left in the Q2 buffer goes
 * out (action 0 or 1), the connection closes (action 0 or 2). */
static void iw_terminate(IwarpQp *q, unsigned act)
{
    uint8_t t[64];

    if ((act == 0 || act == 1) && q->q2_pa &&
        !e810_dma_read(q->eng.c, q->q2_pa, t, sizeof(t))) {
        /* Length from hdrct (TERMLEN cannot hold it). */
        uint8_t hdrct = t[IW_TERM_HDRCT];
        size_t n = IW_TERM_HDR_LEN;

        if (hdrct & IW_TERM_HDRCT_M) {
            n += IW_TERM_DDP_SEG_LEN_LEN;
        }
        if (hdrct & IW_TERM_HDRCT_D) {
            /* the terminated segment's DDP header, tagged or not */
            n += (t[n] & IW_DDP_T) ? IW_DDP_TAGGED_HDR : IW_DDP_UNTAGGED_HDR;
        }
        if (hdrct & IW_TERM_HDRCT_R) {
            n += IW_READ_REQ_LEN;
        }
        iw_send_terminate(q->conn, t, n);
    }
    if (act == 0 || act == 2) {
        iw_close(q->conn);
        trace_close(q, "terminate");
    }
}

static void iw_modify(E810EngQp *b, uint64_t h, const E810QpCtx *x,
                      E810CqpResult *r)
{
    IwarpQp *q = iwqp(b);
    E810Core *c = b->c;
    unsigned next;

    qp_load_iwarp(q, x);
    next = CQPSQ_QP_NEXTIWSTATE(h);
    switch (next) {
    case QP_STATE_RTS:
        if (!qp_rts(q, x, h & CQPSQ_QP_TOECTXVALID)) {
            e810_eng_refuse(c, r, b->id);
            return;
        }
        sq_run(q);
        break;
    case QP_STATE_CLOSING:
        if (q->up) {
            iw_close(q->conn);
            trace_close(q, "closing");
        }
        break;
    case QP_STATE_TERMINATE:
        if (q->up) {
            iw_terminate(q, CQPSQ_QP_TERMACT(h));
        }
        break;
    case QP_STATE_ERROR:
        if (q->up && (h & CQPSQ_QP_RESETCON)) {
            iw_abort(q->conn);
        } else {
            qp_orphan(q, "error");
        }
        break;
    default:
        break;
    }
}

static void iw_run(E810EngQp *b)
{
    IwarpQp *q = iwqp(b);

    if (q->up) {
        sq_run(q);
        /* What the engine held back with nothing new posted. */
        if (q->up && !q->conn->dead) {
            iw_kick(q->conn);
        }
    }
}

static void iw_timeout(E810EngQp *b)
{
    IwarpQp *q = iwqp(b);

    if (q->up) {
        iw_timer(q->conn);
        sq_run(q);
    }
}

/* E810EngOps.abort: the offloaded connection reset (RST), the peer's
 * side ends too. */
static void iw_fault_abort(E810EngQp *b)
{
    IwarpQp *q = iwqp(b);

    if (q->up && q->conn && iw_conn_open(q->conn)) {
        trace_close(q, "fault: reset");
        iw_abort(q->conn);
    }
}

static void iw_ae(E810EngQp *b, unsigned code, unsigned src)
{
    post_ae(iwqp(b), code, src, false);
}

/* ---- saved state -------------------------------------------------------- */

/*
 * An iWARP QP without an offloaded connection: its flags, Q2 and the next
 * WQE cookie.  A QP with one is not saved (the engine refuses the whole
 * save, e810_eng_unmigratable); the flag says so to the loader, which
 * refuses it, so that a stream with one can never load half a QP.  The WQ
 * comes with the connection (qp_alloc_conn), so such a QP has none.
 */
static const E810SnapField iwarp_qp_fields[] = {
    SF_BOOL(IwarpQp, up),
    SF_UX(IwarpQp, q2_pa),
    SF_BOOL(IwarpQp, wait_pdu),
    SF_BOOL(IwarpQp, got_pdu),
    SF_UX(IwarpQp, next_seq),
    SF_BOOL(IwarpQp, orphaned),
    SF_UX(IwarpQp, gather_ae),
    SF_END
};

static const E810SnapField iwarp_wqe_fields[] = {
    SF_UX(IwarpWqe, seq),
    SF_BOOL(IwarpWqe, is_read),
    SF_END
};

static void iw_save(E810EngQp *b, E810SnapW *w)
{
    IwarpQp *q = iwqp(b);

    e810_snap_put_u8(w, q->conn != NULL);
    e810_snap_put_fields(w, iwarp_qp_fields, q);
}

static bool iw_load(E810EngQp *b, E810SnapR *r, uint16_t ver,
                    const char *path)
{
    IwarpQp *q = iwqp(b);
    char name[64];
    bool conn;

    snprintf(name, sizeof(name), "%s.conn", path);
    if (!e810_snap_get_bool(r, &conn, name)) {
        return false;
    }
    if (conn) {
        return e810_snap_fail(r, "%s: an offloaded connection, which this "
                              "version does not carry", name);
    }
    if (!e810_snap_get_fields(r, iwarp_qp_fields, q, ver, path)) {
        return false;
    }
    if (q->up) {
        return e810_snap_fail(r, "%s.up: handed over, without a connection",
                              path);
    }
    if (b->wq_size) {
        return e810_snap_fail(r, "%s.wq_size: %u WQEs without a connection",
                              path, b->wq_size);
    }
    return true;
}

/* A cookie is below the QP's next one and names one WQE (wq_by_seq). */
static bool iw_wqe_check(E810EngQp *b, E810EngWqe *bw, unsigned i,
                         E810SnapR *r, const char *path)
{
    IwarpQp *q = iwqp(b);
    IwarpWqe *w = (IwarpWqe *)bw;

    if (w->seq >= q->next_seq) {
        return e810_snap_fail(r, "%s.seq: %" PRIu64 " >= the QP's next %"
                              PRIu64, path, w->seq, q->next_seq);
    }
    for (unsigned k = 0; k < i; k++) {
        if (wq_at(q, k)->seq == w->seq) {
            return e810_snap_fail(r, "%s.seq: %" PRIu64 " is WQE %u's too",
                                  path, w->seq, k);
        }
    }
    return true;
}

/* E810EngOps.rx: a segment of the 4-tuple that QP @qp_id owns. */
static bool iw_rx(E810Core *c, uint32_t qp_id, const E810Frame *fr)
{
    IwarpQp *q = qp_find(c, qp_id);

    /* A connection reset or closed takes nothing more: the segment is
     * the classifier's again (a QP in ERROR keeps its quad only while its
     * connection finishes, qp_orphan()). */
    if (!q || !q->up || !iw_conn_open(q->conn)) {
        return false;
    }
    /* Parsed once at the device's entry; e810_rdma_steer() matched the
     * quad and checked the checksums and the TCP header. */
    iw_input_segment(q->conn, fr->data, fr->l4_off, fr->l4_len);
    sq_run(q);
    return true;
}

/* iWARP needs no halt, retire, CQP doorbell or cleanup hook: a halted
 * QP's connection may still be closing, and nothing is per device. */
const E810EngOps e810_iwarp_ops = {
    .name = "iwarp",
    .protocol = PROTOCOL_IWARP,
    .qp_size = sizeof(IwarpQp),
    .wqe_size = sizeof(IwarpWqe),
    .wq_max = IWQP_INFLIGHT,
    .takes = iw_takes,
    .create = iw_create,
    .modify = iw_modify,
    .destroy = iw_destroy,
    .flushed = iw_flushed,
    .release = iw_free,
    .run = iw_run,
    .timeout = iw_timeout,
    .ae = iw_ae,
    .save = iw_save,
    .load = iw_load,
    .wqe_fields = iwarp_wqe_fields,
    .wqe_check = iw_wqe_check,
    .rx = iw_rx,
    .rexmits = e810_iwarp_rexmits,
    .abort = iw_fault_abort,
};

uint64_t e810_iwarp_rexmits(E810Core *c)
{
    uint64_t n = 0;

    for (unsigned i = 0; i < e810_eng_qp_end(c); i++) {
        IwarpQp *q = qp_find(c, i);

        if (q && q->conn) {
            n += q->conn->stats.rexmits;
        }
    }
    return n;
}
