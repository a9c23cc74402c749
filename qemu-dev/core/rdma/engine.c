/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: the QP data path shared by both transports (see
 * engine.h).  The control path (cqp.c, qp.c) keeps the driver's view of a
 * QP; this file keeps the data path's: the table of data-path QPs, their
 * lifecycle through the CQP's QP ops, the SQ and RQ rings, the WQEs in SQ
 * order and their completions, flushes, the one timer every QP's deadline
 * shares, and the bottom half's round over QPs with work.  What happens on
 * the wire is the transport's (E810EngOps).
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../bytes.h"
#include "../../trace.h"
#include "rdma.h"
#include "engine.h"

typedef struct E810Eng {
    E810EngQp *qp[E810_RDMA_MAX_QPS];
    E810CoreTimer *timer;
    int64_t armed;              /* when the timer fires, -1 not armed */
    unsigned tx_next;           /* where the bottom half goes on */
    bool tx_any;                /* some QP has tx_pending */
} E810Eng;

/* Every transport, found by the protocol the CQP was created with. */
static const E810EngOps *const transports[] = {
    &e810_iwarp_ops, &e810_roce_ops,
};

#define NTRANSPORTS (sizeof(transports) / sizeof(transports[0]))

static const E810EngOps *eng_transport(E810Core *c)
{
    for (unsigned i = 0; i < NTRANSPORTS; i++) {
        if (transports[i]->protocol == c->rdma.protocol) {
            return transports[i];
        }
    }
    return NULL;
}

static E810Eng *eng_get(E810Core *c)
{
    if (!c->rdma.eng) {
        c->rdma.eng = calloc(1, sizeof(E810Eng));
        if (c->rdma.eng) {
            c->rdma.eng->armed = -1;
        }
    }
    return c->rdma.eng;
}

E810EngQp *e810_eng_find(E810Core *c, uint32_t id)
{
    E810Eng *e = c->rdma.eng;

    return e && id < E810_RDMA_MAX_QPS ? e->qp[id] : NULL;
}

void e810_eng_tx_note(E810EngQp *q)
{
    q->tx_pending = true;
    q->c->rdma.eng->tx_any = true;
}

bool e810_eng_tx_pending(E810Core *c)
{
    return c->rdma.eng && c->rdma.eng->tx_any;
}

E810MemOwner e810_eng_owner(E810EngQp *q)
{
    E810MemOwner o = { q->c, q->id, q->pd, q->priv };

    return o;
}

/* ---- timer -------------------------------------------------------------- */

static void eng_timer_cb(void *opaque)
{
    E810Core *c = opaque;
    E810Eng *e = c->rdma.eng;
    int64_t now = e810_now(c), next = -1;

    if (!e) {
        return;
    }
    e->armed = -1;
    for (unsigned i = 0; i < E810_RDMA_MAX_QPS; i++) {
        E810EngQp *q = e->qp[i];

        if (q && q->deadline >= 0 && q->deadline <= now) {
            q->deadline = -1;
            q->ops->timeout(q);
            q = e->qp[i];
        }
        if (q && q->deadline >= 0 && (next < 0 || q->deadline < next)) {
            next = q->deadline;
        }
    }
    if (next >= 0) {
        e->armed = next;
        e810_timer_mod(e->timer, next);
    }
}

/*
 * One timer for every QP, armed for the earliest deadline asked for.  A
 * later deadline, or one taken back, needs nothing: the timer fires at
 * most early, and eng_timer_cb looks at every QP then and arms for the
 * next.  So an ACK or a segment costs no scan of the QP table.
 */
void e810_eng_timer_want(E810EngQp *q)
{
    E810Eng *e = q->c->rdma.eng;
    int64_t deadline = q->deadline;

    if (deadline < 0 || (e->armed >= 0 && e->armed <= deadline)) {
        return;
    }
    if (!e->timer) {
        e->timer = e810_timer_new(q->c, eng_timer_cb, q->c);
        if (!e->timer) {
            return;
        }
    }
    e->armed = deadline;
    e810_timer_mod(e->timer, deadline);
}

/* ---- the work queue and completions ------------------------------------- */

E810EngWqe *e810_eng_wq_at(E810EngQp *q, unsigned i)
{
    unsigned slot = (q->wq_head + i) % q->wq_size;

    return (E810EngWqe *)(q->wq + slot * q->ops->wqe_size);
}

bool e810_eng_wq_alloc(E810EngQp *q, unsigned max)
{
    unsigned n = q->sq.size < max ? q->sq.size : max;
    size_t bytes = (size_t)n * q->ops->wqe_size;

    if (!n || !e810_mem_charge(q->c, bytes)) {
        return false;
    }
    q->wq = calloc(n, q->ops->wqe_size);
    if (!q->wq) {
        e810_mem_release(q->c, bytes);
        return false;
    }
    q->wq_size = n;
    q->wq_head = q->wq_cnt = 0;
    return true;
}

void e810_eng_fatal(E810EngQp *q, unsigned ae, unsigned src)
{
    if (q->halted) {
        return;
    }
    q->halted = true;
    if (q->ops->halt) {
        q->ops->halt(q);
    }
    q->ops->ae(q, ae, src);
}

void e810_eng_sq_cqe(E810EngQp *q, const E810EngWqe *w)
{
    uint64_t cqe[4];

    e810_sq_cqe(cqe, q->id, q->c->rdma.qp[q->id].comp_ctx, w->idx, w->op,
                w->len, (unsigned)w->status);
    trace_e810_qp_cqe(q->id, q->txcq, true, w->idx, w->op, w->status);
    e810_rdma_cq_post(q->c, q->txcq, cqe);
}

void e810_eng_wq_retire(E810EngQp *q)
{
    while (q->wq_cnt) {
        E810EngWqe *w = e810_eng_wq_at(q, 0);

        if (!w->done) {
            break;
        }
        if (w->status && !q->priv) {
            /*
             * A failed WQE of a user QP completes through the flush the
             * driver starts on the AE: its status is the flush code the
             * driver picks for the AE (irdma_ae_to_qp_err_code()), e.g.
             * REM_ACCESS_ERR for a remote access error.  It stays at the
             * head, so the flush CQE names it (e810_flush_user()).
             */
            e810_eng_fatal(q, (unsigned)w->status, AE_SOURCE_SQ);
            return;
        }
        if ((w->signaled || w->status) && !q->halted) {
            e810_eng_sq_cqe(q, w);
        }
        if (w->status) {
            e810_eng_fatal(q, (unsigned)w->status, AE_SOURCE_SQ);
        }
        q->wq_head = (q->wq_head + 1) % q->wq_size;
        q->wq_cnt--;
        if (q->ops->retired) {
            q->ops->retired(q);
        }
    }
}

/* ---- the rings ---------------------------------------------------------- */

bool e810_eng_sq_fetch(E810EngQp *q, E810EngWqe *w, uint8_t raw[32],
                       uint64_t *hdr, uint64_t qw[4])
{
    uint64_t h;

    if (!e810_ring_read(q->c, &q->sq, (uint64_t)q->sq_idx * 32, raw, 32)) {
        return false;
    }
    for (unsigned i = 0; i < 4; i++) {
        qw[i] = ld64(raw + 8 * i);
    }
    h = qw[3];
    if (!!(h & QPSQ_VALID) != q->sq_pol) {
        return false;
    }
    /* The inline buffer is written before it is read. */
    memset(w, 0, offsetof(E810EngWqe, inl_data));
    memset((uint8_t *)w + sizeof(*w), 0, q->ops->wqe_size - sizeof(*w));
    w->idx = q->sq_idx;
    w->op = (uint8_t)QPSQ_OPCODE(h);
    w->signaled = h & QPSQ_SIGCOMPL;
    w->quanta = 1;
    *hdr = h;
    return true;
}

void e810_eng_sq_payload(E810EngQp *q, E810EngWqe *w, const uint8_t *raw,
                         uint64_t h, const uint64_t qw[4], bool keep_empty0)
{
    if (h & QPSQ_INLINEDATAFLAG) {
        w->inl = true;
        w->len = QPSQ_INLINEDATALEN(h);
        w->status = (int)e810_sq_inline(q->c, &q->sq, q->sq_idx, raw, w->len,
                                        E810_WQE_MAX_INLINE, w->inl_data,
                                        &w->quanta);
        return;
    }
    w->status = (int)e810_sq_sges(q->c, &q->sq, q->sq_idx, h, qw, keep_empty0,
                                  w->sge, &w->nsge, &w->len, &w->quanta);
}

void e810_eng_sq_advance(E810EngQp *q, unsigned quanta)
{
    q->sq_idx += quanta;
    if (q->sq_idx >= q->sq.size) {
        q->sq_idx -= q->sq.size;
        q->sq_pol ^= 1;
    }
}

bool e810_eng_rq_take(E810EngQp *q)
{
    uint32_t nwqe = q->rq.size >> q->rq_shift;

    if (!e810_rq_sges(q->c, &q->rq, q->rq_shift, q->rq_idx, q->rq_pol,
                      q->rcv_sge, &q->rcv_nsge, &q->rcv_cap)) {
        return false;
    }
    q->rcv_idx = q->rq_idx;
    q->rcv_active = true;
    if (++q->rq_idx >= nwqe) {
        q->rq_idx = 0;
        q->rq_pol ^= 1;
    }
    return true;
}

void e810_eng_ctx_load(E810EngQp *q, const E810QpCtx *x)
{
    e810_qpctx_rings(x, q->vq, &q->sq, &q->rq);
    q->rq_shift = x->rq_wqe_size;
    q->pd = x->pd;
    q->txcq = x->txcq;
    q->rxcq = x->rxcq;
    q->priv = x->priv;
}

/* ---- lifecycle ---------------------------------------------------------- */

static void eng_drop(E810Core *c, uint32_t id)
{
    E810EngQp *q = e810_eng_find(c, id);
    size_t size;

    if (!q) {
        return;
    }
    size = q->ops->qp_size;
    if (q->ops->release) {
        q->ops->release(q);
    }
    if (q->wq) {
        free(q->wq);
        e810_mem_release(c, (size_t)q->wq_size * q->ops->wqe_size);
    }
    free(q);
    e810_mem_release(c, size);
    c->rdma.eng->qp[id] = NULL;
}

/* The host memory for a QP's data path is not there (mem_limit): the
 * CQP op fails and the QP goes to ERROR. */
void e810_eng_refuse(E810Core *c, E810CqpResult *r, uint32_t id)
{
    c->rdma.qp[id].state = QP_STATE_ERROR;
    e810_cqp_fail(c, r, E810_CQP_MIN_NO_MEMORY,
                  "rdma: QP %u: no device memory for its data path", id);
}

static E810EngQp *eng_create(E810Core *c, uint32_t id, const E810EngOps *ops,
                             uint64_t h, const E810QpCtx *x)
{
    E810Eng *e = eng_get(c);
    E810EngQp *q;

    if (!e || !e810_mem_charge(c, ops->qp_size)) {
        return NULL;
    }
    q = calloc(1, ops->qp_size);
    if (!q) {
        e810_mem_release(c, ops->qp_size);
        return NULL;
    }
    q->c = c;
    q->ops = ops;
    q->id = id;
    q->vq = h & CQPSQ_QP_VQ;
    q->sq_pol = q->rq_pol = 1;
    q->deadline = -1;
    e->qp[id] = q;
    if (!ops->create(q, h, x)) {
        eng_drop(c, id);
        return NULL;
    }
    return q;
}

/*
 * FLUSH_WQES for a user QP: the driver completes nothing itself
 * (hw.c:irdma_flush_wqes() only schedules its software flush for kernel
 * QPs), so the engine writes a flush CQE (major 1) for the oldest
 * outstanding WQE of each queue asked for.  libirdma keeps such a CQE at
 * the head of the CQ and reports every outstanding WQE of that queue
 * from it (irdma_uk_cq_poll_cmpl(), move_cq_head = false).
 */
static void eng_flush(E810EngQp *q, const uint64_t *wqe)
{
    E810FlushQp f = {
        .id = q->id, .comp_ctx = q->c->rdma.qp[q->id].comp_ctx,
        .sq = &q->sq, .rq = &q->rq, .sq_idx = q->sq_idx, .rq_idx = q->rq_idx,
        .sq_pol = q->sq_pol, .rq_pol = q->rq_pol, .rq_shift = q->rq_shift,
        .txcq = q->txcq, .rxcq = q->rxcq, .have_head = q->wq_cnt != 0,
    };
    bool sq = wqe[3] & CQPSQ_FWQE_FLUSHSQ;

    if (!sq && !(wqe[3] & CQPSQ_FWQE_FLUSHRQ)) {
        return;                 /* GEN_AE only: the QP goes on */
    }
    q->halted = true;
    if (q->ops->flushed) {
        q->ops->flushed(q, sq && !q->priv);
    }
    if (q->priv) {
        return;
    }
    if (q->wq_cnt) {
        f.head_idx = e810_eng_wq_at(q, 0)->idx;
        f.head_op = e810_eng_wq_at(q, 0)->op;
    }
    e810_flush_user(q->c, wqe, &f);
    if (sq) {
        q->wq_cnt = 0;
    }
}

void e810_eng_cqp(E810Core *c, unsigned op, const uint64_t *wqe,
                  E810CqpResult *r)
{
    const E810EngOps *ops = eng_transport(c);
    uint64_t h = wqe[3];
    uint32_t id = CQPSQ_QP_ID(h);
    uint8_t raw[E810_RDMA_QP_CTX_SIZE];
    E810QpCtx x;
    E810EngQp *q = e810_eng_find(c, id);

    if (!ops || id >= E810_RDMA_MAX_QPS) {
        return;
    }
    switch (op) {
    case CQP_OP_DESTROY_QP:
        if (q && q->ops->destroy) {
            q->ops->destroy(q);
        }
        eng_drop(c, id);
        return;
    case CQP_OP_FLUSH_WQES:
        /* A QP without an RQ never had a context: nothing to flush. */
        if (q && q->rq.size) {
            eng_flush(q, wqe);
        }
        return;
    case CQP_OP_CREATE_QP:
        if (!ops->takes(CQPSQ_QP_QPTYPE(h), id)) {
            return;
        }
        break;
    case CQP_OP_MODIFY_QP:
        if (!q) {
            return;
        }
        break;
    default:
        return;
    }
    if (e810_dma_read(c, wqe[2], raw, sizeof(raw))) {
        return;                 /* the control path has failed the op */
    }
    e810_qpctx_decode_bytes(raw, &x);
    if (op == CQP_OP_CREATE_QP) {
        eng_drop(c, id);
        if (!eng_create(c, id, ops, h, &x)) {
            e810_eng_refuse(c, r, id);
        }
        return;
    }
    /* A QP sent to ERROR takes no more work and writes no more CQEs;
     * what else goes with it is the transport's. */
    if (CQPSQ_QP_NEXTIWSTATE(h) == QP_STATE_ERROR) {
        q->halted = true;
        if (q->ops->halt) {
            q->ops->halt(q);
        }
    }
    q->ops->modify(q, h, &x, r);
}

void e810_eng_cqp_doorbell(E810Core *c)
{
    const E810EngOps *ops = eng_transport(c);

    if (ops && ops->cqp_doorbell) {
        ops->cqp_doorbell(c);
    }
}

/* The doorbell only notes the work: the bottom half runs it. */
void e810_eng_doorbell(E810Core *c, uint32_t qp_id)
{
    E810EngQp *q = e810_eng_find(c, qp_id);

    if (q) {
        e810_eng_tx_note(q);
        e810_tx_schedule(c);
    }
}

void e810_eng_tx_run(E810Core *c)
{
    E810Eng *e = c->rdma.eng;

    if (!e || !e->tx_any) {
        return;
    }
    e->tx_any = false;
    for (unsigned i = 0; i < E810_RDMA_MAX_QPS; i++) {
        unsigned id = (e->tx_next + i) % E810_RDMA_MAX_QPS;
        E810EngQp *q = e->qp[id];

        if (!e810_tx_may_send(c)) {
            /* Out of budget or blocked: go on from here next time. */
            e->tx_next = id;
            e->tx_any = true;
            return;
        }
        if (q && q->tx_pending) {
            q->tx_pending = false;
            q->ops->run(q);
        }
    }
}

void e810_eng_reset(E810Core *c)
{
    E810Eng *e = c->rdma.eng;

    if (!e) {
        return;
    }
    for (unsigned i = 0; i < E810_RDMA_MAX_QPS; i++) {
        eng_drop(c, i);
    }
    e810_timer_del(e->timer);
    e->armed = -1;
}

void e810_eng_cleanup(E810Core *c)
{
    E810Eng *e = c->rdma.eng;

    if (e) {
        e810_eng_reset(c);
        e810_timer_free(e->timer);
        free(e);
        c->rdma.eng = NULL;
    }
    for (unsigned i = 0; i < NTRANSPORTS; i++) {
        if (transports[i]->cleanup) {
            transports[i]->cleanup(c);
        }
    }
}
