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
    uint32_t qp_end;            /* qp[] is NULL from here on */
    E810CoreTimer *timer;
    int64_t armed;              /* when the timer fires, -1 not armed */
    unsigned tx_next;           /* where the bottom half goes on */
    bool tx_any;                /* some QP has tx_pending */
    unsigned conns;             /* offloaded connections the QPs hold */
    char why[160];              /* e810_eng_unmigratable's message */
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

bool e810_eng_rx(E810Core *c, uint32_t qp_id, const E810Frame *fr)
{
    const E810EngOps *ops = eng_transport(c);

    return ops && ops->rx && ops->rx(c, qp_id, fr);
}

uint64_t e810_eng_rexmits(E810Core *c)
{
    const E810EngOps *ops = eng_transport(c);

    return ops && ops->rexmits ? ops->rexmits(c) : 0;
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

uint32_t e810_eng_qp_end(E810Core *c)
{
    return c->rdma.eng ? c->rdma.eng->qp_end : 0;
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
    for (unsigned i = 0; i < e->qp_end; i++) {
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

/* A WQ of @n WQEs, charged (CREATE_QP's and a load's). */
static bool eng_wq_alloc_n(E810EngQp *q, unsigned n)
{
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

bool e810_eng_wq_alloc(E810EngQp *q)
{
    unsigned max = q->ops->wq_max;

    return eng_wq_alloc_n(q, q->sq.size < max ? q->sq.size : max);
}

/* A fault's AE: the QP's connection dropped, then the QP stopped. */
static void eng_fault_stop(E810EngQp *q, unsigned ae, unsigned src)
{
    if (!q->halted && q->ops->abort) {
        q->ops->abort(q);
    }
    e810_eng_fatal(q, ae, src);
}

bool e810_eng_fault_ae(E810Core *c, uint32_t qp_id, unsigned ae,
                       unsigned src)
{
    E810EngQp *q = e810_eng_find(c, qp_id);

    if (q) {
        eng_fault_stop(q, ae, src);
    }
    return q != NULL;
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

void e810_eng_rq_cqe(E810EngQp *q, uint64_t len, unsigned op, uint64_t qw2lo,
                     uint64_t flags, bool imm, uint32_t imm_data)
{
    uint64_t cqe[4], ext[4] = { 0 };

    e810_rq_cqe(cqe, q->id, q->c->rdma.qp[q->id].comp_ctx,
                q->rcv_idx << q->rq_shift, op, len, flags);
    cqe[2] |= qw2lo;
    trace_e810_qp_cqe(q->id, q->rxcq, false, q->rcv_idx, op, 0);
    if (imm) {
        cqe[3] |= CQ_EXTCQE;
        ext[0] = imm_data;
        ext[3] = CQ_EXT_IMMVALID;
        e810_rdma_cq_post_ext(q->c, q->rxcq, cqe, ext);
        return;
    }
    e810_rdma_cq_post(q->c, q->rxcq, cqe);
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
    if (id >= e->qp_end) {
        e->qp_end = id + 1;
    }
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
    uint16_t ae, src;

    if (q && e810_fault_doorbell(c, qp_id, &ae, &src)) {
        eng_fault_stop(q, ae, src);     /* as asked (fault.h) */
        return;
    }
    if (q) {
        e810_eng_tx_note(q);
        e810_tx_schedule(c);
    }
}

void e810_eng_tx_run(E810Core *c)
{
    E810Eng *e = c->rdma.eng;
    bool may = false;

    if (!e || !e->tx_any) {
        return;
    }
    e->tx_any = false;
    for (unsigned i = 0; i < E810_RDMA_MAX_QPS; i++) {
        unsigned id = (e->tx_next + i) % E810_RDMA_MAX_QPS;
        E810EngQp *q = e->qp[id];

        /* Once it said yes, it says yes until a QP runs (time passing
         * only ends a back-up): asked again after each run. */
        if (!may && !e810_tx_may_send(c)) {
            /* Out of budget or blocked: go on from here next time. */
            e->tx_next = id;
            e->tx_any = true;
            return;
        }
        may = true;
        if (id >= e->qp_end) {
            /* NULL up to the wrap, and the gate stays open: on at 0 */
            i += E810_RDMA_MAX_QPS - 1 - id;
            continue;
        }
        if (q && q->tx_pending) {
            q->tx_pending = false;
            q->ops->run(q);
            may = false;
        }
    }
}

void e810_eng_reset(E810Core *c)
{
    E810Eng *e = c->rdma.eng;

    if (!e) {
        return;
    }
    for (unsigned i = 0; i < e->qp_end; i++) {
        if (e->qp[i]) {
            eng_drop(c, i);
        }
    }
    e->qp_end = 0;
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

/* ---- offloaded connections ---------------------------------------------- */

static const char *eng_why(E810Eng *e)
{
    snprintf(e->why, sizeof(e->why), "e810: %u offloaded iWARP "
             "connection(s) open; migration and snapshots need them closed "
             "(disconnect the RDMA consumers, e.g. rping/NVMe-oF/NFS, first)",
             e->conns);
    return e->why;
}

void e810_eng_conn_held(E810Core *c, bool held)
{
    E810Eng *e = c->rdma.eng;

    if (!e || (!held && !e->conns)) {
        return;
    }
    e->conns += held ? 1 : -1;
    if (held && e->conns == 1) {
        e810_migration_blocked(c, eng_why(e));
    } else if (!held && !e->conns) {
        e810_migration_blocked(c, NULL);
    }
}

const char *e810_eng_unmigratable(E810Core *c)
{
    E810Eng *e = c->rdma.eng;

    return e && e->conns ? eng_why(e) : NULL;
}

/* ---- saved state -------------------------------------------------------- */

/*
 * The record: each transport's device part (dev_save), the number of
 * QPs, then the QPs in ascending id.  A QP is its id, the shell's fields,
 * the receive's SGEs, the WQ's size, head and count, the transport's
 * part, then the WQEs in ring order from the head (each the engine's
 * part, its SGEs or inline bytes, the transport's part), put back in the
 * same slots.  Derived on load: c, ops (the CQP's protocol), id, in_run,
 * the WQ's stride (ops->wqe_size); the engine's tx_any, tx_next and its
 * timer, armed for the earliest deadline.
 *
 * The checks are what indexing and C need plus what the runtime keeps,
 * never more: MODIFY_QP may give a QP smaller rings than it had, and a
 * WQE of 8 quanta steps past the end of a 4-entry SQ, so the ring
 * indexes (sq_idx, rq_idx, a WQE's idx) are left unchecked -- they only
 * ever make DMA offsets and masked CQE fields.  The same goes for the
 * CQ numbers (a CQ that is not there takes no CQE, eq.c).
 */

/* SQSIZE and RQSIZE: 4 << n WQEs, n 4 bits. */
#define ENG_RING_MAX            (4u << 15)
/* TXCQNUM, RXCQNUM: 25 bits (a CQ number beyond the table is dropped at
 * the post); PDIDX with PDIDXHI: 18 bits. */
#define ENG_CQ_NUM_MAX          ((1u << 25) - 1)
#define ENG_PD_MAX              ((1u << 18) - 1)
/* A WQE of more quanta is refused with one (wqe.c); QPSQ_OPCODE 6 bits. */
#define ENG_WQE_MAX_QUANTA      8
#define ENG_WQE_OP_MAX          63

static const E810SnapField eng_ring_fields[] = {
    SF_UX(E810RdmaRing, pa),
    SF_BOOL(E810RdmaRing, virt),
    SF_UX(E810RdmaRing, pble_idx),
    SF_U(E810RdmaRing, size, 4, ENG_RING_MAX),
    SF_UX(E810RdmaRing, head),
    SF_U(E810RdmaRing, polarity, 0, 1),
    SF_END
};

static const E810SnapField eng_qp_fields[] = {
    SF_BOOL(E810EngQp, vq),
    SF_BOOL(E810EngQp, halted),
    SF_BOOL(E810EngQp, tx_pending),
    SF_S(E810EngQp, deadline, -1, INT64_MAX),
    SF_SUB(E810EngQp, sq, eng_ring_fields),
    SF_SUB(E810EngQp, rq, eng_ring_fields),
    SF_U(E810EngQp, rq_shift, 0, 3),
    SF_UX(E810EngQp, sq_idx),
    SF_UX(E810EngQp, rq_idx),
    SF_U(E810EngQp, sq_pol, 0, 1),
    SF_U(E810EngQp, rq_pol, 0, 1),
    SF_U(E810EngQp, txcq, 0, ENG_CQ_NUM_MAX),
    SF_U(E810EngQp, rxcq, 0, ENG_CQ_NUM_MAX),
    SF_U(E810EngQp, pd, 0, ENG_PD_MAX),
    SF_BOOL(E810EngQp, priv),
    SF_BOOL(E810EngQp, rcv_active),
    SF_UX(E810EngQp, rcv_idx),
    SF_U(E810EngQp, rcv_nsge, 0, E810_WQE_MAX_SGE),
    SF_UX(E810EngQp, rcv_cap),
    SF_END
};

static const E810SnapField eng_sge_fields[] = {
    SF_UX(E810Sge, stag),
    SF_UX(E810Sge, to),
    SF_UX(E810Sge, len),
    SF_END
};

/* nsge and len come before the SGEs and inline bytes they count. */
static const E810SnapField eng_wqe_fields[] = {
    SF_UX(E810EngWqe, idx),
    SF_U(E810EngWqe, quanta, 1, ENG_WQE_MAX_QUANTA),
    SF_U(E810EngWqe, op, 0, ENG_WQE_OP_MAX),
    SF_BOOL(E810EngWqe, signaled),
    SF_BOOL(E810EngWqe, done),
    SF_BOOL(E810EngWqe, inl),
    SF_S(E810EngWqe, status, 0, INT32_MAX),
    SF_U(E810EngWqe, nsge, 0, E810_WQE_MAX_SGE),
    SF_UX(E810EngWqe, len),
    SF_END
};

static void eng_put_sges(E810SnapW *w, const E810Sge *sge, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        e810_snap_put_fields(w, eng_sge_fields, &sge[i]);
    }
}

static bool eng_get_sges(E810SnapR *r, E810Sge *sge, unsigned n,
                         uint16_t ver, const char *path, const char *what)
{
    char name[96];

    for (unsigned i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "%s.%s[%u]", path, what, i);
        if (!e810_snap_get_fields(r, eng_sge_fields, &sge[i], ver, name)) {
            return false;
        }
    }
    return true;
}

static void eng_wqe_save(E810EngQp *q, const E810EngWqe *w, E810SnapW *s)
{
    e810_snap_put_fields(s, eng_wqe_fields, w);
    eng_put_sges(s, w->sge, w->nsge);
    if (w->inl) {
        e810_snap_put_bytes(s, w->inl_data, w->len);
    }
    e810_snap_put_fields(s, q->ops->wqe_fields, w);
}

static void eng_qp_save(E810EngQp *q, E810SnapW *w)
{
    e810_snap_put_u32(w, q->id);
    e810_snap_put_fields(w, eng_qp_fields, q);
    eng_put_sges(w, q->rcv_sge, q->rcv_nsge);
    e810_snap_put_u16(w, q->wq_size);
    e810_snap_put_u16(w, q->wq_head);
    e810_snap_put_u16(w, q->wq_cnt);
    q->ops->save(q, w);
    for (unsigned i = 0; i < q->wq_cnt; i++) {
        eng_wqe_save(q, e810_eng_wq_at(q, i), w);
    }
}

static void e810_eng_save(E810Core *c, E810SnapW *w)
{
    E810Eng *e = c->rdma.eng;
    uint32_t n = 0;

    /* With a connection held e810_core_save refused before writing
     * anything (e810_eng_unmigratable); a QP's connection is not here. */
    for (unsigned i = 0; i < NTRANSPORTS; i++) {
        if (transports[i]->dev_save) {
            transports[i]->dev_save(c, w);
        }
    }
    for (unsigned i = 0; e && i < e->qp_end; i++) {
        n += e->qp[i] != NULL;
    }
    e810_snap_put_u32(w, n);
    for (unsigned i = 0; e && i < e->qp_end; i++) {
        if (e->qp[i]) {
            eng_qp_save(e->qp[i], w);
        }
    }
}

static bool eng_ring_check(E810SnapR *r, const E810RdmaRing *ring,
                           const char *path, const char *what)
{
    if (ring->size & (ring->size - 1)) {
        return e810_snap_fail(r, "%s.%s.size: %u is not 4 << n", path, what,
                              ring->size);
    }
    if (ring->head >= ring->size) {
        return e810_snap_fail(r, "%s.%s.head: %u >= size %u", path, what,
                              ring->head, ring->size);
    }
    return true;
}

static bool eng_wqe_load(E810EngQp *q, unsigned i, E810SnapR *r,
                         uint16_t ver, const char *qpath)
{
    E810EngWqe *w = e810_eng_wq_at(q, i);
    char path[64];

    snprintf(path, sizeof(path), "%s.wq[%u]", qpath, i);
    if (!e810_snap_get_fields(r, eng_wqe_fields, w, ver, path) ||
        !eng_get_sges(r, w->sge, w->nsge, ver, path, "sge")) {
        return false;
    }
    if (w->inl) {
        if (w->len > E810_WQE_MAX_INLINE) {
            return e810_snap_fail(r, "%s.len: %u inline bytes, at most %u",
                                  path, w->len, E810_WQE_MAX_INLINE);
        }
        if (!e810_snap_get_bytes(r, w->inl_data, w->len, path)) {
            return false;
        }
    }
    return e810_snap_get_fields(r, q->ops->wqe_fields, w, ver, path) &&
           q->ops->wqe_check(q, w, i, r, path);
}

/* QP @id of transport @ops into the engine: charged and allocated as at
 * CREATE_QP.  On a failure the QP stays in the table, consistent enough
 * for the reset that follows to free it with what was charged. */
static bool eng_qp_load(E810Core *c, E810Eng *e, const E810EngOps *ops,
                        uint32_t id, E810SnapR *r, uint16_t ver)
{
    const E810RdmaQp *ctl = &c->rdma.qp[id];
    uint64_t wq_size, wq_head, wq_cnt;
    E810EngQp *q;
    char path[32];

    snprintf(path, sizeof(path), "eng.qp[%u]", id);
    if (!ctl->valid || !ops->takes(ctl->type, id)) {
        return e810_snap_fail(r, "%s: no %s QP of the control path has "
                              "that id (valid %u, type %u)", path, ops->name,
                              ctl->valid, ctl->type);
    }
    if (!e810_mem_charge(c, ops->qp_size)) {
        return e810_snap_fail(r, "%s: rdma-mem-limit %" PRIu64 " is below "
                              "what the saved QPs take", path, c->mem_limit);
    }
    q = calloc(1, ops->qp_size);
    if (!q) {
        e810_mem_release(c, ops->qp_size);
        return e810_snap_fail(r, "%s: out of host memory", path);
    }
    q->c = c;
    q->ops = ops;
    q->id = id;
    q->deadline = -1;
    e->qp[id] = q;
    if (id >= e->qp_end) {
        e->qp_end = id + 1;
    }
    if (!e810_snap_get_fields(r, eng_qp_fields, q, ver, path) ||
        !eng_ring_check(r, &q->sq, path, "sq") ||
        !eng_ring_check(r, &q->rq, path, "rq") ||
        !eng_get_sges(r, q->rcv_sge, q->rcv_nsge, ver, path, "rcv_sge")) {
        return false;
    }
    snprintf(path, sizeof(path), "eng.qp[%u].wq_size", id);
    if (!e810_snap_get_range(r, &wq_size, 2, 0, ops->wq_max, path)) {
        return false;
    }
    snprintf(path, sizeof(path), "eng.qp[%u].wq_head", id);
    if (!e810_snap_get_range(r, &wq_head, 2, 0,
                             wq_size ? wq_size - 1 : 0, path)) {
        return false;
    }
    snprintf(path, sizeof(path), "eng.qp[%u].wq_cnt", id);
    if (!e810_snap_get_range(r, &wq_cnt, 2, 0, wq_size, path)) {
        return false;
    }
    snprintf(path, sizeof(path), "eng.qp[%u]", id);
    if (wq_size && !eng_wq_alloc_n(q, wq_size)) {
        return e810_snap_fail(r, "%s: rdma-mem-limit %" PRIu64 " is below "
                              "what the saved QPs take", path, c->mem_limit);
    }
    q->wq_head = wq_head;
    q->wq_cnt = wq_cnt;
    if (!ops->load(q, r, ver, path)) {
        return false;
    }
    for (unsigned i = 0; i < q->wq_cnt; i++) {
        if (!eng_wqe_load(q, i, r, ver, path)) {
            return false;
        }
    }
    return e810_snap_ok(r);
}

bool e810_eng_load(E810Core *c, E810SnapR *r, uint16_t ver)
{
    const E810EngOps *ops = eng_transport(c);
    uint64_t n, id;
    int64_t prev = -1;
    E810Eng *e = c->rdma.eng;

    if (e) {
        /* Derived (below); a reset leaves them as they were. */
        e->tx_any = false;
        e->tx_next = 0;
    }
    for (unsigned i = 0; i < NTRANSPORTS; i++) {
        if (transports[i]->dev_load && !transports[i]->dev_load(c, r, ver)) {
            return false;
        }
    }
    if (!e810_snap_get_range(r, &n, 4, 0, E810_RDMA_MAX_QPS, "eng.count")) {
        return false;
    }
    if (!n) {
        return true;
    }
    if (!ops) {
        return e810_snap_fail(r, "eng: %u QPs, but no CQP protocol with a "
                              "data path (%u)", (unsigned)n,
                              c->rdma.protocol);
    }
    e = eng_get(c);
    if (!e) {
        return e810_snap_fail(r, "eng: out of host memory");
    }
    for (uint64_t k = 0; k < n; k++) {
        if (!e810_snap_get_range(r, &id, 4, prev + 1, E810_RDMA_MAX_QPS - 1,
                                 "eng.qp.id") ||
            !eng_qp_load(c, e, ops, id, r, ver)) {
            return false;
        }
        prev = id;
    }
    /* Derived: the bottom half's work and the one timer. */
    for (unsigned i = 0; i < E810_RDMA_MAX_QPS; i++) {
        E810EngQp *q = e->qp[i];

        if (q) {
            e->tx_any |= q->tx_pending;
            e810_eng_timer_want(q);
        }
    }
    return true;
}

const E810SnapPart e810_eng_snap = {
    .name = "eng", .save = e810_eng_save, .load = e810_eng_load,
};
