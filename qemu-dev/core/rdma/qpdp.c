/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: the iWARP QP data path.
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
#include "../dev.h"
#include "../bytes.h"
#include "../../trace.h"
#include "rdma.h"
#include "qpdp.h"
#include "wqe.h"
#include "iwarp-hooks.h"
#include "../iwarp/iwarp.h"

#ifndef E810_IN_QEMU
#include <stdlib.h>
#endif

#define QPDP_MAX_SGE            16
#define QPDP_INFLIGHT           256
#define QPDP_MAX_INLINE         256
#define QPDP_MAX_MSG            0x7FFFFFFFu
/* Host memory of one connection: the engine state and its buffers. */
#define QPDP_CONN_BYTES         (sizeof(IwConn) + IW_RBUF + IW_OOO_BYTES)

typedef E810Sge QpdpSge;

typedef struct QpdpWqe {
    uint64_t seq;               /* cookie for the engine */
    uint32_t idx;               /* first quantum */
    uint8_t quanta;
    uint8_t op;
    bool signaled;
    bool done;
    bool is_read;
    int status;                 /* 0 or an AE code */
    unsigned nsge;
    QpdpSge sge[QPDP_MAX_SGE];
    uint32_t len;
    bool inl;
    uint8_t inl_data[QPDP_MAX_INLINE];
} QpdpWqe;

typedef struct QpdpQp {
    E810Core *c;
    uint32_t id;
    bool vq;
    bool up;                    /* connection handed over */
    IwConn *conn;               /* from the hand-over (up) on */
    E810RdmaRing sq, rq;
    unsigned rq_shift;
    uint32_t sq_idx, rq_idx;
    uint8_t sq_pol, rq_pol;
    uint32_t txcq, rxcq, pd;
    bool priv;
    uint64_t q2_pa;
    bool wait_pdu, got_pdu;
    bool halted;                /* ERROR: no more work, no more CQEs */
    uint64_t next_seq;
    QpdpWqe *wq;                /* wq_size, in SQ order, from up on */
    unsigned wq_size;
    unsigned wq_head, wq_cnt;
    /* Receive in progress */
    bool rcv_active;
    uint32_t rcv_idx;
    unsigned rcv_nsge;
    QpdpSge rcv_sge[QPDP_MAX_SGE];
    uint64_t rcv_cap;
    int64_t deadline;
    bool in_run;
    bool tx_pending;            /* work for the bottom half (txsched.h) */
    bool orphaned;              /* in ERROR, its connection still closing */
    unsigned gather_ae;         /* why the last payload read failed */
} QpdpQp;

struct E810Qpdp {
    QpdpQp *qp[E810_RDMA_MAX_QPS];
    E810CoreTimer *timer;
    int64_t armed;
    unsigned tx_next;           /* where the bottom half goes on */
    bool tx_any;                /* some QP has tx_pending */
};

static E810Qpdp *qpdp_get(E810Core *c)
{
    if (!c->rdma.qpdp) {
        c->rdma.qpdp = calloc(1, sizeof(E810Qpdp));
        if (c->rdma.qpdp) {
            c->rdma.qpdp->armed = -1;
        }
    }
    return c->rdma.qpdp;
}

static QpdpQp *qp_find(E810Core *c, uint32_t id)
{
    E810Qpdp *d = c->rdma.qpdp;

    return d && id < E810_RDMA_MAX_QPS ? d->qp[id] : NULL;
}

static uint8_t qp_iwstate(QpdpQp *q)
{
    return q->c->rdma.qp[q->id].state;
}

/* ---- AEs and CQEs ------------------------------------------------------- */

static void post_ae(QpdpQp *q, unsigned code, unsigned src, bool q2data)
{
    E810Core *c = q->c;
    unsigned tcp = q->up ? q->conn->state : IW_TCP_CLOSED;
    uint64_t qw1;

    qw1 = e810_aeqe_qw1(q->id, code, src, qp_iwstate(q)) |
          (uint64_t)(tcp & 0xF) << AEQE_TCPSTATE_S | (q2data ? AEQE_Q2DATA : 0);
    trace_e810_iw_ae(q->id, code, src, qp_iwstate(q), tcp);
    e810_rdma_aeq_post(c, c->rdma.qp[q->id].comp_ctx, qw1);
}

static void sq_cqe(QpdpQp *q, const QpdpWqe *w)
{
    uint64_t cqe[4];

    e810_sq_cqe(cqe, q->id, q->c->rdma.qp[q->id].comp_ctx, w->idx, w->op,
                w->len, (unsigned)w->status);
    trace_e810_iw_cqe(q->id, q->txcq, true, w->idx, w->op, w->status);
    e810_rdma_cq_post(q->c, q->txcq, cqe);
}

/* ---- guest memory through STags ----------------------------------------- */

/* The shared SGE code (wqe.c) with this QP as the owner. */
static int sge_copy(QpdpQp *q, const QpdpSge *sge, unsigned n, uint64_t off,
                    uint8_t *buf, const uint8_t *src, size_t len,
                    unsigned access)
{
    E810MemOwner o = { q->c, q->id, q->pd, q->priv };

    return e810_sge_copy(&o, sge, n, off, buf, src, len, access);
}

static int sge_check(QpdpQp *q, const QpdpSge *sge, unsigned n,
                     unsigned access)
{
    E810MemOwner o = { q->c, q->id, q->pd, q->priv };

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

static unsigned stag_invalidate(QpdpQp *q, uint32_t stag, bool remote)
{
    E810MemOwner o = { q->c, q->id, q->pd, q->priv };

    return e810_stag_invalidate(&o, stag, remote);
}

static unsigned fast_reg(QpdpQp *q, const uint64_t *w)
{
    E810MemOwner o = { q->c, q->id, q->pd, q->priv };

    return e810_fast_reg(&o, w);
}

/* ---- SQ ----------------------------------------------------------------- */

static bool ring_read(QpdpQp *q, const E810RdmaRing *ring, uint64_t off,
                      uint8_t *buf, size_t len)
{
    return e810_ring_read(q->c, ring, off, buf, len);
}

static void qp_fatal(QpdpQp *q, unsigned ae, unsigned src)
{
    if (q->halted) {
        return;
    }
    q->halted = true;
    post_ae(q, ae, src, false);
}

/* Retire finished WQEs in SQ order, writing CQEs for signaled ones and
 * errors. */
static void wq_retire(QpdpQp *q)
{
    while (q->wq_cnt) {
        QpdpWqe *w = &q->wq[q->wq_head];

        if (!w->done) {
            break;
        }
        if (w->status && !q->priv) {
            /* As on RoCE (roce/qp.c wq_retire()): a user QP's failed WQE
             * completes through the driver's flush, with the flush code
             * the driver derives from the AE; it stays at the head. */
            qp_fatal(q, (unsigned)w->status, AE_SOURCE_SQ);
            return;
        }
        if ((w->signaled || w->status) && !q->halted) {
            sq_cqe(q, w);
        }
        if (w->status) {
            qp_fatal(q, (unsigned)w->status, AE_SOURCE_SQ);
        }
        q->wq_head = (q->wq_head + 1) % q->wq_size;
        q->wq_cnt--;
    }
}

static QpdpWqe *wq_by_seq(QpdpQp *q, uint64_t seq)
{
    unsigned i;

    for (i = 0; i < q->wq_cnt; i++) {
        QpdpWqe *w = &q->wq[(q->wq_head + i) % q->wq_size];

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
static bool wq_undone(QpdpQp *q, bool reads)
{
    unsigned i;

    for (i = 0; i < q->wq_cnt; i++) {
        QpdpWqe *w = &q->wq[(q->wq_head + i) % q->wq_size];

        if ((w->is_read || !reads) && !w->done) {
            return true;
        }
    }
    return false;
}

static bool wq_has_read(QpdpQp *q)
{
    return wq_undone(q, true);
}

/* Parse the WQE at the SQ consumer index.  Returns false if none is
 * there (valid bit not ours) or it cannot be read. */
static bool sq_fetch(QpdpQp *q, QpdpWqe *w, uint64_t *hdr, uint64_t qw[4])
{
    uint8_t raw[32];
    uint64_t h;
    unsigned i;

    if (!ring_read(q, &q->sq, (uint64_t)q->sq_idx * 32, raw, 32)) {
        return false;
    }
    for (i = 0; i < 4; i++) {
        qw[i] = ld64(raw + 8 * i);
    }
    h = qw[3];
    if (!!(h & QPSQ_VALID) != q->sq_pol) {
        return false;
    }
    memset(w, 0, offsetof(QpdpWqe, inl_data));
    w->idx = q->sq_idx;
    w->op = (uint8_t)QPSQ_OPCODE(h);
    w->signaled = h & QPSQ_SIGCOMPL;
    w->quanta = 1;
    *hdr = h;
    if (h & QPSQ_INLINEDATAFLAG) {
        unsigned len = QPSQ_INLINEDATALEN(h);

        w->inl = true;
        w->len = len;
        w->status = (int)e810_sq_inline(q->c, &q->sq, q->sq_idx, raw, len,
                                        QPDP_MAX_INLINE, w->inl_data,
                                        &w->quanta);
        return true;
    }
    if (w->op == OP_FAST_REGISTER || w->op == OP_LOCAL_INVALIDATE ||
        w->op == OP_NOP || w->op == OP_GEN_RTS_AE) {
        return true;
    }
    w->status = (int)e810_sq_sges(q->c, &q->sq, q->sq_idx, h, qw, true,
                                  w->sge, &w->nsge, &w->len, &w->quanta);
    return true;
}

static void sq_advance(QpdpQp *q, unsigned quanta)
{
    q->sq_idx += quanta;
    if (q->sq_idx >= q->sq.size) {
        q->sq_idx -= q->sq.size;
        q->sq_pol ^= 1;
    }
}

/* An RDMA operation handed to the connection (@r 0) counts. */
static void pe_count(QpdpQp *q, int r, unsigned which)
{
    if (!r) {
        q->c->rdma.pestat[which]++;
    }
}

static void sq_run(QpdpQp *q)
{
    if (q->in_run) {
        return;
    }
    q->in_run = true;
    while (q->up && !q->halted && qp_iwstate(q) == QP_STATE_RTS &&
           q->wq_cnt < q->wq_size && !q->conn->dead) {
        QpdpWqe *w = &q->wq[(q->wq_head + q->wq_cnt) % q->wq_size];
        uint64_t h, qw[4];
        int r = 0, err;

        if (q->wait_pdu && !q->got_pdu) {
            break;
        }
        if (!sq_fetch(q, w, &h, qw)) {
            /* Run dry: show the tail (6.x rings only then), look again. */
            if (e810_rdma_qp_show_sq_tail(q->c, q->id, q->sq_idx)) {
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
        trace_e810_iw_wqe(q->id, w->idx, w->op, w->len, h);
        /* In the queue before the engine may ask for its payload. */
        q->wq_cnt++;
        if (!w->status) {
            switch (w->op) {
            case OP_NOP:
                w->done = true;
                break;
            case OP_GEN_RTS_AE:
                w->done = true;
                w->signaled = false;
                post_ae(q, AE_LLP_CONNECTION_ESTABLISHED, 0, false);
                break;
            case OP_LOCAL_INVALIDATE:
                w->done = true;
                w->status = (int)stag_invalidate(q, QPSQ_FRAG_STAG(qw[1]), false);
                break;
            case OP_FAST_REGISTER:
                w->done = true;
                w->status = (int)fast_reg(q, qw);
                break;
            case OP_RDMA_SEND:
            case OP_RDMA_SEND_SOL_EVENT:
            case OP_RDMA_SEND_INV:
            case OP_RDMA_SEND_SOL_EVENT_INV:
            case OP_RDMA_WRITE:
            case OP_RDMA_WRITE_SOL:
                if (h & QPSQ_IMMDATAFLAG) {
                    w->status = AE_WQE_UNEXPECTED_OPCODE;   /* not on iWARP */
                    w->done = true;
                    break;
                }
                if (!w->inl) {
                    err = sge_check(q, w->sge, w->nsge, E810_ACC_LOCAL_READ);
                    if (err) {
                        w->status = (int)xlate_ae(err);
                        w->done = true;
                        break;
                    }
                }
                if (h & QPSQ_STREAMMODE) {
                    r = iw_post_raw(q->conn, w->len, w->seq);
                    q->wait_pdu = h & QPSQ_WAITFORRCVPDU;
                } else if (w->op == OP_RDMA_WRITE ||
                           w->op == OP_RDMA_WRITE_SOL) {
                    r = iw_post_write(q->conn, (uint32_t)h, qw[2], w->len,
                                      w->seq);
                    pe_count(q, r, E810_PE_RDMATXWRS);
                } else {
                    static const uint8_t map[] = {
                        [OP_RDMA_SEND] = IW_OP_SEND,
                        [OP_RDMA_SEND_INV] = IW_OP_SEND_INV,
                        [OP_RDMA_SEND_SOL_EVENT] = IW_OP_SEND_SE,
                        [OP_RDMA_SEND_SOL_EVENT_INV] = IW_OP_SEND_SE_INV,
                    };
                    r = iw_post_send(q->conn, map[w->op], (uint32_t)h,
                                     w->len, w->seq);
                    pe_count(q, r, E810_PE_RDMATXSNDS);
                }
                break;
            case OP_RDMA_READ:
            case OP_RDMA_READ_LOC_INV:
                w->is_read = true;
                if (w->len) {
                    err = sge_check(q, w->sge, w->nsge, E810_ACC_LOCAL_WRITE);
                    if (err) {
                        w->status = (int)xlate_ae(err);
                        w->done = true;
                        break;
                    }
                }
                r = iw_post_read(q->conn, w->nsge ? w->sge[0].stag : 0,
                                 w->nsge ? w->sge[0].to : 0, w->len,
                                 (uint32_t)h, qw[2], w->seq);
                /* Zero-length Reads (MPA's RTR) are not counted: the
                 * receiving side does not see them as Read Requests. */
                if (w->len) {
                    pe_count(q, r, E810_PE_RDMATXRDS);
                }
                break;
            default:
                w->status = AE_WQE_UNEXPECTED_OPCODE;
                w->done = true;
                break;
            }
        } else {
            w->done = true;
        }
        if (r) {
            /* Engine queue or ORD full: retry when work completes. */
            w->is_read = false;
            q->wq_cnt--;
            break;
        }
        if (w->status) {
            w->done = true;
        }
        q->next_seq++;
        sq_advance(q, w->quanta);
    }
    if (q->up && !q->halted) {
        e810_rdma_qp_show_sq_tail(q->c, q->id, q->sq_idx);
    }
    wq_retire(q);
    q->in_run = false;
}

/* ---- engine callbacks --------------------------------------------------- */

static void cb_frame_out(void *opaque, const uint8_t *frame, size_t len)
{
    QpdpQp *q = opaque;

    e810_rdma_xmit(q->c, frame, len, false);
}

/* Note work of @q for the bottom half (e810_qpdp_tx_run). */
static void tx_note(QpdpQp *q)
{
    q->tx_pending = true;
    q->c->rdma.qpdp->tx_any = true;
}

/* The engine's gate before each frame: when sending must wait, the QP
 * is noted for the bottom half, which kicks it again. */
static bool cb_tx_ready(void *opaque)
{
    QpdpQp *q = opaque;

    if (!e810_tx_may_send(q->c)) {
        tx_note(q);
        return false;
    }
    return true;
}

static bool cb_tx_backed_up(void *opaque)
{
    QpdpQp *q = opaque;

    return e810_tx_backed_up(q->c);
}

static int64_t cb_now(void *opaque)
{
    QpdpQp *q = opaque;

    return e810_now(q->c);
}

static void timer_rearm(E810Core *c)
{
    E810Qpdp *d = c->rdma.qpdp;
    int64_t min = -1;
    unsigned i;

    for (i = 0; i < E810_RDMA_MAX_QPS; i++) {
        QpdpQp *q = d->qp[i];

        if (q && q->deadline >= 0 && (min < 0 || q->deadline < min)) {
            min = q->deadline;
        }
    }
    if (min == d->armed) {
        return;
    }
    d->armed = min;
    if (min < 0) {
        e810_timer_del(d->timer);
        return;
    }
    e810_timer_mod(d->timer, min);
}

static void qpdp_timer_cb(void *opaque)
{
    E810Core *c = opaque;
    E810Qpdp *d = c->rdma.qpdp;
    int64_t now = e810_now(c);
    unsigned i;

    if (!d) {
        return;
    }
    d->armed = -1;
    for (i = 0; i < E810_RDMA_MAX_QPS; i++) {
        QpdpQp *q = d->qp[i];

        if (q && q->up && q->deadline >= 0 && q->deadline <= now) {
            q->deadline = -1;
            iw_timer(q->conn);
            sq_run(q);
        }
    }
    timer_rearm(c);
}

/*
 * The engine asks only for earlier deadlines (a later one waits for the
 * early expiry), so this is O(1): the shared timer moves only forward in
 * urgency; the slot scan happens when it fires.
 */
static void cb_timer(void *opaque, int64_t deadline)
{
    QpdpQp *q = opaque;
    E810Qpdp *d = q->c->rdma.qpdp;

    q->deadline = deadline;
    if (!d->timer) {
        d->timer = e810_timer_new(q->c, qpdp_timer_cb, q->c);
    }
    if (deadline < 0) {
        return;                 /* a spurious expiry is harmless */
    }
    if (d->armed < 0 || deadline < d->armed) {
        d->armed = deadline;
        e810_timer_mod(d->timer, deadline);
    }
}

static int cb_gather(void *opaque, uint64_t cookie, uint64_t off,
                     uint8_t *buf, size_t len)
{
    QpdpQp *q = opaque;
    QpdpWqe *w = wq_by_seq(q, cookie);
    int r;

    q->gather_ae = 0;
    /* Flushed work is the guest's again (a kernel ULP may reuse its
     * buffers once the driver reported it flushed): a segment of it lost
     * on the way is not sent again from there, the connection ends with a
     * RST instead (IW_EV_REXMIT_FAILED). */
    if (!w || q->orphaned) {
        return IW_T_RDMAP_CATASTROPHIC;
    }
    if (w->inl) {
        if (off > w->len || len > w->len - off) {
            return IW_T_RDMAP_CATASTROPHIC;
        }
        memcpy(buf, w->inl_data + off, len);
        return 0;
    }
    r = sge_copy(q, w->sge, w->nsge, off, buf, NULL, len, E810_ACC_LOCAL_READ);
    if (r) {
        w->status = (int)xlate_ae(r);
        q->gather_ae = xlate_ae(r);
        return IW_T_RDMAP_CATASTROPHIC;
    }
    return 0;
}

static int cb_place(void *opaque, uint32_t stag, uint64_t to,
                    const uint8_t *data, size_t len, bool read_resp,
                    uint64_t cookie, uint64_t sink_to)
{
    QpdpQp *q = opaque;
    E810XCopy x = { q->c, NULL, data, true, false };
    int r;

    if (read_resp) {
        QpdpWqe *w = wq_by_seq(q, cookie);

        if (!w) {
            return IW_T_DDP_T_INV_STAG;
        }
        /* Scatter into the Read's local SGE list by offset. */
        r = sge_copy(q, w->sge, w->nsge, to - sink_to, NULL, data, len,
                     E810_ACC_LOCAL_WRITE);
        return xlate_term(r, true);
    }
    r = e810_rdma_xlate(q->c, stag, to, len, E810_ACC_REMOTE_WRITE, q->pd,
                        false, e810_xcopy_fn, &x);
    pe_count(q, r, E810_PE_RDMARXWRS);
    return xlate_term(r, true);
}

static int rq_take(QpdpQp *q)
{
    uint32_t nwqe = q->rq.size >> q->rq_shift;

    if (!e810_rq_sges(q->c, &q->rq, q->rq_shift, q->rq_idx, q->rq_pol,
                      q->rcv_sge, &q->rcv_nsge, &q->rcv_cap)) {
        return IW_T_DDP_U_NO_BUF;
    }
    q->rcv_idx = q->rq_idx;
    q->rcv_active = true;
    if (++q->rq_idx >= nwqe) {
        q->rq_idx = 0;
        q->rq_pol ^= 1;
    }
    return 0;
}

static int cb_recv(void *opaque, const IwRecvSeg *s)
{
    QpdpQp *q = opaque;
    uint64_t cqe[4];
    bool inv = false;
    int r;

    if (q->halted) {
        return IW_T_DDP_U_NO_BUF;
    }
    if (s->first) {
        r = rq_take(q);
        if (r) {
            return r;
        }
    }
    if ((uint64_t)s->mo + s->len > q->rcv_cap) {
        return IW_T_DDP_U_TOO_LONG;
    }
    if (s->len) {
        r = sge_copy(q, q->rcv_sge, q->rcv_nsge, s->mo, NULL, s->data, s->len,
                     E810_ACC_LOCAL_WRITE);
        if (r) {
            return IW_T_DDP_U_NO_BUF;   /* local protection error */
        }
    }
    if (!s->last) {
        return 0;
    }
    q->rcv_active = false;
    if (s->op == IW_OP_SEND_INV || s->op == IW_OP_SEND_SE_INV) {
        if (stag_invalidate(q, s->inv_stag, true)) {
            return IW_T_RDMAP_CANT_INV;
        }
        inv = true;
    }
    cqe[0] = (uint64_t)s->mo + s->len;
    cqe[1] = q->c->rdma.qp[q->id].comp_ctx;
    cqe[2] = (inv ? s->inv_stag : 0) | (uint64_t)(q->id & 0xFFFFFF) << 32;
    cqe[3] = (uint64_t)((q->rcv_idx << q->rq_shift) & 0x7FFF) << 32 |
             (uint64_t)OP_TYPE_REC << 56 | (inv ? CQ_STAG : 0) |
             ((s->op == IW_OP_SEND_SE || s->op == IW_OP_SEND_SE_INV) ?
              CQ_SOEVENT : 0);
    trace_e810_iw_cqe(q->id, q->rxcq, false, q->rcv_idx, s->op, 0);
    e810_rdma_cq_post(q->c, q->rxcq, cqe);
    q->c->rdma.pestat[E810_PE_RDMARXSNDS]++;
    return 0;
}

static int cb_read_check(void *opaque, uint32_t stag, uint64_t to,
                         uint32_t len)
{
    QpdpQp *q = opaque;

    q->c->rdma.pestat[E810_PE_RDMARXRDS]++;
    return xlate_term(e810_rdma_xlate(q->c, stag, to, len,
                                      E810_ACC_REMOTE_READ, q->pd, false,
                                      NULL, NULL), false);
}

static int cb_read_fetch(void *opaque, uint32_t stag, uint64_t to,
                         uint8_t *buf, size_t len)
{
    QpdpQp *q = opaque;
    E810XCopy x = { q->c, buf, NULL, false, false };

    return xlate_term(e810_rdma_xlate(q->c, stag, to, len,
                                      E810_ACC_REMOTE_READ, q->pd, false,
                                      e810_xcopy_fn, &x), false);
}

static void cb_done(void *opaque, uint64_t cookie, int status)
{
    QpdpQp *q = opaque;
    QpdpWqe *w = wq_by_seq(q, cookie);

    if (!w) {
        return;
    }
    w->done = true;
    if (status && !w->status) {
        w->status = status > 0 ? (int)term_ae((uint32_t)status)
                               : AE_WQE_INVALID_PARAMETER;
    }
    if (!w->status && w->op == OP_RDMA_READ_LOC_INV) {
        /* The sink STag (local SGE 0) is invalidated once the Read
         * Response has been placed, before the completion. */
        w->status = (int)stag_invalidate(q, w->nsge ? w->sge[0].stag : 0,
                                         false);
    }
    if (!q->in_run) {
        sq_run(q);
    }
}

static void cb_event(void *opaque, IwEvent ev, uint32_t term,
                     const uint8_t *data, size_t len)
{
    QpdpQp *q = opaque;

    trace_e810_iw_event(q->id, ev, term, q->conn->state);
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
        q->halted = true;
        post_ae(q, AE_LLP_CONNECTION_RESET, 0, false);
        break;
    case IW_EV_TOO_MANY_RETRIES:
        q->halted = true;
        post_ae(q, AE_LLP_TOO_MANY_RETRIES, 0, false);
        break;
    case IW_EV_TERMINATE_RCVD: {
        size_t n = len < Q2_BUF_SIZE - Q2_BAD_FRAME_OFFSET ?
                   len : Q2_BUF_SIZE - Q2_BAD_FRAME_OFFSET;
        bool ok = q->q2_pa &&
                  !e810_dma_write(q->c, q->q2_pa + Q2_BAD_FRAME_OFFSET,
                                             data, n);
        post_ae(q, AE_LLP_TERMINATE_RECEIVED, 0, ok);
        break;
    }
    case IW_EV_ERROR: {
        unsigned src = AE_SOURCE_RQ;

        if (len >= 2 && (data[0] & 0x80)) {
            src = AE_SOURCE_IN_RR_WR;
        } else if (len >= 2 && (data[1] & 0xF) == IW_OP_READ_REQ) {
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

static const IwOps qpdp_ops = {
    .frame_out = cb_frame_out, .tx_ready = cb_tx_ready,
    .tx_backed_up = cb_tx_backed_up, .now = cb_now, .timer = cb_timer,
    .gather = cb_gather, .place = cb_place, .recv = cb_recv,
    .read_check = cb_read_check, .read_fetch = cb_read_fetch,
    .done = cb_done, .event = cb_event,
};

/* ---- control path hooks ------------------------------------------------- */

/* Where a connection stands when the driver changes it (close, error,
 * destroy): whether its FIN is out, and what still holds it back. */
static void trace_close(QpdpQp *q, const char *what)
{
    const IwConn *k = q->conn;

    trace_e810_iw_close(q->id, what, k->state, k->snd_max - k->snd_una,
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
 * sent, the peer's ACKs and FIN are still taken (steer.c) -- and
 * DESTROY_QP resets what is then still open (qp_release_conn()).
 */
static void qp_orphan(QpdpQp *q, const char *why)
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
static void qp_release_conn(QpdpQp *q)
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

static void qp_drop(E810Core *c, uint32_t id)
{
    E810Qpdp *d = c->rdma.qpdp;
    QpdpQp *q = qp_find(c, id);

    if (!q) {
        return;
    }
    if (q->conn) {
        const IwStats *st = &q->conn->stats;

        if (q->up) {
            trace_e810_iw_tcp_stats(id, st->tx_segs, st->rexmits, st->rto,
                                    st->spurious_rto,
                                    st->fast_rexmits, st->ooo_queued,
                                    st->ooo_drops,
                                    q->conn->srtt_ns / 1000,
                                    q->conn->rto_ns / 1000);
        }
        /* Its retransmissions stay in the statistics. */
        c->rdma.pestat[E810_PE_TCPRTXSEG] += q->conn->stats.rexmits;
        iw_conn_destroy(q->conn);
        free(q->conn);
        e810_mem_release(c, QPDP_CONN_BYTES);
    }
    if (q->wq) {
        free(q->wq);
        e810_mem_release(c, (size_t)q->wq_size * sizeof(QpdpWqe));
    }
    free(q);
    e810_mem_release(c, sizeof(QpdpQp));
    d->qp[id] = NULL;
    if (d->timer) {
        timer_rearm(c);
    }
}

static void ip_from_ctx(uint8_t *ip, bool v4, uint64_t hi_pair,
                        uint64_t lo_pair)
{
    /* hi_pair: ADDR0 63:32 | ADDR1 31:0; lo_pair: ADDR2 63:32 | ADDR3. */
    uint32_t w[4] = { (uint32_t)(hi_pair >> 32), (uint32_t)hi_pair,
                      (uint32_t)(lo_pair >> 32), (uint32_t)lo_pair };
    unsigned i;

    memset(ip, 0, 16);
    if (v4) {
        st32(ip, 0);
        ip[0] = w[3] >> 24;
        ip[1] = w[3] >> 16;
        ip[2] = w[3] >> 8;
        ip[3] = (uint8_t)w[3];
        return;
    }
    for (i = 0; i < 4; i++) {
        ip[4 * i] = w[i] >> 24;
        ip[4 * i + 1] = w[i] >> 16;
        ip[4 * i + 2] = w[i] >> 8;
        ip[4 * i + 3] = (uint8_t)w[i];
    }
}

static void qp_load_iwarp(QpdpQp *q, const uint64_t *x)
{
    q->priv = x[20] & (1ull << 25);
    q->pd = (uint32_t)(e810_fld(x[7], 63, 48) | e810_fld(x[0], 21, 20) << 16);
    q->txcq = (uint32_t)e810_fld(x[17], 24, 0);
    q->rxcq = (uint32_t)e810_fld(x[17], 56, 32);
    q->q2_pa = x[18] & ~0xFFull;
    if (q->up) {
        q->conn->p.rd_ok = x[20] & (1ull << 21);
        q->conn->p.wr_ok = x[20] & (1ull << 20);
        q->conn->p.ord = (uint16_t)e810_fld(x[20], 7, 0);
        q->conn->p.ird = (uint16_t)e810_qp_ctx_ird(x);
    }
}

/* Rings: sizes from ctx qword 3, addresses (or PBLE indexes when the
 * QP was created with VQ) from qwords 1-2. */
static void qp_load_rings(QpdpQp *q, const uint64_t *x)
{
    e810_qp_ctx_rings(x, q->vq, &q->sq, &q->rq, &q->rq_shift);
}

/* Allocate the connection and the work queue, charged to mem_limit. */
static bool qp_alloc_conn(QpdpQp *q)
{
    E810Core *c = q->c;
    unsigned n = q->sq.size < QPDP_INFLIGHT ? q->sq.size : QPDP_INFLIGHT;
    size_t wq_bytes = (size_t)n * sizeof(QpdpWqe);

    if (!n || !e810_mem_charge(c, QPDP_CONN_BYTES)) {
        return false;
    }
    if (!e810_mem_charge(c, wq_bytes)) {
        e810_mem_release(c, QPDP_CONN_BYTES);
        return false;
    }
    q->conn = calloc(1, sizeof(*q->conn));
    q->wq = calloc(n, sizeof(QpdpWqe));
    if (!q->conn || !q->wq) {
        free(q->conn);
        free(q->wq);
        q->conn = NULL;
        q->wq = NULL;
        e810_mem_release(c, QPDP_CONN_BYTES + wq_bytes);
        return false;
    }
    q->wq_size = n;
    q->wq_head = q->wq_cnt = 0;
    return true;
}

/* RTS: the hand-over with TOECTXVALID; false if it has no memory. */
static bool qp_rts(QpdpQp *q, const uint64_t *x, bool toe)
{
    E810Core *c = q->c;
    IwConnParams p;
    unsigned arp = (unsigned)e810_fld(x[6], 63, 48), i;

    if (!toe || q->up) {
        qp_load_iwarp(q, x);
        return true;
    }
    if (!q->conn && !qp_alloc_conn(q)) {
        return false;
    }
    memset(&p, 0, sizeof(p));
    p.ipv4 = x[0] & (1ull << 3);
    for (i = 0; i < 6; i++) {
        p.lmac[i] = (uint8_t)(x[19] >> (56 - 8 * i));
        p.rmac[i] = arp < E810_RDMA_MAX_ARP ? c->rdma.arp[arp].mac[i] : 0;
    }
    if (arp >= E810_RDMA_MAX_ARP || !c->rdma.arp[arp].valid) {
        e810_guest_error(c, "rdma: QP %u to RTS with ARP index %u not valid",
                         q->id, arp);
    }
    ip_from_ctx(p.rip, p.ipv4, x[5], x[4]);
    ip_from_ctx(p.lip, p.ipv4, x[24], x[23]);
    p.lport = (uint16_t)e810_fld(x[3], 47, 32);
    p.rport = (uint16_t)e810_fld(x[3], 63, 48);
    p.vlan = x[0] & (1ull << 5);
    p.vlan_tci = (uint16_t)e810_fld(x[6], 47, 32);
    p.ttl = (uint8_t)e810_fld(x[3], 7, 0);
    p.tos = (uint8_t)e810_fld(x[3], 31, 24);
    p.mss = (uint16_t)e810_fld(x[6], 29, 16);
    p.rcv_scale = (uint8_t)e810_fld(x[7], 35, 32);
    p.snd_scale = (uint8_t)e810_fld(x[7], 43, 40);
    p.snd_nxt = (uint32_t)x[10];
    p.snd_wnd = (uint32_t)(x[10] >> 32);
    p.rcv_nxt = (uint32_t)x[11];
    p.rcv_wnd = (uint32_t)(x[11] >> 32);
    p.snd_una = (uint32_t)(x[12] >> 32);
    p.rexmit_thresh = (unsigned)e810_fld(x[16], 53, 48);
    /* RTOMIN, in milliseconds (irdma asks for 5), the congestion state
     * irdma_init_tcp_ctx() starts with, DUPACK_THRESH (0: 3). */
    p.rto_min_ns = (int64_t)e810_fld(x[16], 63, 57) * 1000 * 1000;
    p.ssthresh = (uint32_t)x[14];
    p.cwnd = (uint32_t)(x[14] >> 32);
    p.dupack_thresh = (unsigned)e810_fld(x[0], 18, 16);
    p.ord = (uint16_t)e810_fld(x[20], 7, 0);
    p.ird = (uint16_t)e810_qp_ctx_ird(x);
    p.rd_ok = x[20] & (1ull << 21);
    p.wr_ok = x[20] & (1ull << 20);
    if (!p.rcv_wnd) {
        p.rcv_wnd = 0x3FFFC;
    }
    if (!iw_conn_init(q->conn, &p, &qpdp_ops, q)) {
        return false;
    }
    q->up = true;
    q->deadline = -1;
    qp_load_iwarp(q, x);
    trace_e810_iw_rts(q->id, p.lport, p.rport, p.snd_nxt, p.rcv_nxt, p.mss,
                      p.snd_wnd, arp);
    return true;
}

/*
 * FLUSH_WQES for a user QP: the driver completes nothing itself
 * (hw.c:irdma_flush_wqes() only schedules its software flush for kernel
 * QPs), so the engine writes a flush CQE (major 1) for the oldest
 * outstanding WQE of each queue asked for.  libirdma keeps such a CQE at
 * the head of the CQ and reports every outstanding WQE of that queue
 * from it (irdma_uk_cq_poll_cmpl(), move_cq_head = false).
 */
static void qp_flush(QpdpQp *q, const uint64_t *wqe)
{
    E810FlushQp f = {
        .id = q->id, .comp_ctx = q->c->rdma.qp[q->id].comp_ctx,
        .sq = &q->sq, .rq = &q->rq, .sq_idx = q->sq_idx, .rq_idx = q->rq_idx,
        .sq_pol = q->sq_pol, .rq_pol = q->rq_pol, .rq_shift = q->rq_shift,
        .txcq = q->txcq, .rxcq = q->rxcq, .have_head = q->wq_cnt != 0,
    };

    if (!(wqe[3] & (CQPSQ_FWQE_FLUSHSQ | CQPSQ_FWQE_FLUSHRQ))) {
        return;                 /* GEN_AE only: the QP goes on */
    }
    q->halted = true;
    qp_orphan(q, "flushed");
    if (q->priv) {
        return;
    }
    if (q->wq_cnt) {
        f.head_idx = q->wq[q->wq_head].idx;
        f.head_op = q->wq[q->wq_head].op;
    }
    e810_flush_user(q->c, wqe, &f);
    if (wqe[3] & CQPSQ_FWQE_FLUSHSQ) {
        q->wq_cnt = 0;
    }
}

/* The host memory for a QP's data path is not there (mem_limit): the
 * CQP op fails and the QP goes to ERROR. */
static void qpdp_refuse(E810Core *c, E810CqpResult *r, uint32_t id)
{
    c->rdma.qp[id].state = QP_STATE_ERROR;
    e810_cqp_fail(c, r, E810_CQP_MIN_NO_MEMORY,
                  "rdma: QP %u: no device memory for its data path", id);
}

void e810_qpdp_cqp(E810Core *c, unsigned op, const uint64_t *wqe,
                   E810CqpResult *r)
{
    uint64_t h = wqe[3];
    uint32_t id = CQPSQ_QP_ID(h);
    E810Qpdp *d;
    QpdpQp *q;
    uint8_t raw[E810_RDMA_QP_CTX_SIZE];
    uint64_t x[E810_RDMA_QP_CTX_SIZE / 8];
    unsigned next, i;

    if (id < 3 || id >= E810_RDMA_MAX_QPS || c->rdma.protocol != 1) {
        return;
    }
    switch (op) {
    case CQP_OP_CREATE_QP:
        if (CQPSQ_QP_QPTYPE(h) != 1) {
            return;
        }
        d = qpdp_get(c);
        if (!d) {
            return;
        }
        qp_drop(c, id);
        /* The connection and its work queue come at the hand-over. */
        if (!e810_mem_charge(c, sizeof(*q))) {
            qpdp_refuse(c, r, id);
            return;
        }
        q = calloc(1, sizeof(*q));
        if (!q) {
            e810_mem_release(c, sizeof(*q));
            qpdp_refuse(c, r, id);
            return;
        }
        q->c = c;
        q->id = id;
        q->vq = h & CQPSQ_QP_VQ;
        q->sq_pol = q->rq_pol = 1;
        q->deadline = -1;
        d->qp[id] = q;
        break;
    case CQP_OP_DESTROY_QP:
        q = qp_find(c, id);
        if (q && q->up) {
            qp_release_conn(q);
        }
        qp_drop(c, id);
        return;
    case CQP_OP_MODIFY_QP:
        break;
    case CQP_OP_FLUSH_WQES:
        q = qp_find(c, id);
        if (q && q->rq.size) {
            qp_flush(q, wqe);
        }
        return;
    default:
        return;
    }
    q = qp_find(c, id);
    if (!q) {
        return;
    }
    if (e810_dma_read(c, wqe[2], raw, sizeof(raw))) {
        return;
    }
    for (i = 0; i < E810_RDMA_QP_CTX_SIZE / 8; i++) {
        x[i] = ld64(raw + 8 * i);
    }
    qp_load_rings(q, x);
    qp_load_iwarp(q, x);
    if (op == CQP_OP_CREATE_QP) {
        return;
    }
    next = CQPSQ_QP_NEXTIWSTATE(h);
    switch (next) {
    case QP_STATE_RTS:
        if (!qp_rts(q, x, h & CQPSQ_QP_TOECTXVALID)) {
            qpdp_refuse(c, r, id);
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
            unsigned act = CQPSQ_QP_TERMACT(h);
            uint8_t t[64];

            if ((act == 0 || act == 1) && q->q2_pa &&
                !e810_dma_read(c, q->q2_pa, t,
                                       sizeof(t))) {
                /* Length from hdrct (TERMLEN cannot hold it). */
                size_t n = 4;

                if (t[2] & 0x80) {
                    n += 2;
                }
                if (t[2] & 0x40) {
                    n += (t[(t[2] & 0x80) ? 6 : 4] & 0x80) ? 14 : 18;
                }
                if (t[2] & 0x20) {
                    n += 28;
                }
                iw_send_terminate(q->conn, t, n);
            }
            if (act == 0 || act == 2) {
                iw_close(q->conn);
                trace_close(q, "terminate");
            }
        }
        break;
    case QP_STATE_ERROR:
        q->halted = true;
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

/* The doorbell only notes the work: the bottom half runs it. */
void e810_qpdp_doorbell(E810Core *c, uint32_t qp_id)
{
    QpdpQp *q = qp_find(c, qp_id);

    if (q && q->up) {
        tx_note(q);
        e810_tx_schedule(c);
    }
}

void e810_qpdp_tx_run(E810Core *c)
{
    E810Qpdp *d = c->rdma.qpdp;

    if (!d || !d->tx_any) {
        return;
    }
    d->tx_any = false;
    for (unsigned i = 0; i < E810_RDMA_MAX_QPS; i++) {
        unsigned id = (d->tx_next + i) % E810_RDMA_MAX_QPS;
        QpdpQp *q = d->qp[id];

        if (!e810_tx_may_send(c)) {
            /* Out of budget or blocked: go on from here next time. */
            d->tx_next = id;
            d->tx_any = true;
            return;
        }
        if (!q || !q->tx_pending) {
            continue;
        }
        q->tx_pending = false;
        if (q->up) {
            sq_run(q);
            /* What the engine held back with nothing new posted. */
            if (q->up && !q->conn->dead) {
                iw_kick(q->conn);
            }
        }
    }
}

bool e810_iwarp_rx(E810Core *c, uint32_t qp_id, const E810Frame *fr)
{
    QpdpQp *q = qp_find(c, qp_id);

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

void e810_qpdp_reset(E810Core *c)
{
    E810Qpdp *d = c->rdma.qpdp;
    unsigned i;

    if (!d) {
        return;
    }
    for (i = 0; i < E810_RDMA_MAX_QPS; i++) {
        if (d->qp[i]) {
            qp_drop(c, i);
        }
    }
    e810_timer_del(d->timer);
    d->armed = -1;
}

uint64_t e810_qpdp_rexmits(E810Core *c)
{
    E810Qpdp *d = c->rdma.qpdp;
    uint64_t n = 0;

    for (unsigned i = 0; d && i < E810_RDMA_MAX_QPS; i++) {
        if (d->qp[i] && d->qp[i]->conn) {
            n += d->qp[i]->conn->stats.rexmits;
        }
    }
    return n;
}

void e810_qpdp_cleanup(E810Core *c)
{
    E810Qpdp *d = c->rdma.qpdp;

    if (!d) {
        return;
    }
    e810_qpdp_reset(c);
    e810_timer_free(d->timer);
    free(d);
    c->rdma.qpdp = NULL;
}
