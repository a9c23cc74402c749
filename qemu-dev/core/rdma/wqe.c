/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: the pieces of the QP data path that do not depend on
 * the transport (iWARP in core/iwarp/qp.c, RoCEv2 in core/roce/): data buffers as
 * SGE lists through the STag translation, invalidation and fast
 * registration of STags, reads of the QP rings.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../bytes.h"
#include "../../trace.h"
#include "rdma.h"
#include "wqe.h"

bool e810_xcopy_fn(void *opaque, uint64_t pa, uint64_t len)
{
    E810XCopy *x = opaque;
    int r;

    if (x->dry) {
        return true;
    }
    if (x->write) {
        r = e810_dma_write(x->c, pa, x->src, len);
        x->src += len;
    } else {
        r = e810_dma_read(x->c, pa, x->buf, len);
        x->buf += len;
    }
    return r == 0;
}

int e810_sge_copy(const E810MemOwner *q, const E810Sge *sge, unsigned n,
                  uint64_t off, uint8_t *buf, const uint8_t *src, size_t len,
                  unsigned access)
{
    unsigned i;

    for (i = 0; i < n && len; i++) {
        uint64_t l = sge[i].len, chunk;
        E810XCopy x = { q->c, buf, src, src != NULL, false };
        int r;

        if (off >= l) {
            off -= l;
            continue;
        }
        chunk = l - off < len ? l - off : len;
        r = e810_rdma_xlate(q->c, sge[i].stag, sge[i].to + off, chunk, access,
                            q->pd, q->priv, e810_xcopy_fn, &x);
        if (r) {
            return r;
        }
        if (buf) {
            buf += chunk;
        }
        if (src) {
            src += chunk;
        }
        len -= chunk;
        off = 0;
    }
    return len ? E810_XLATE_BOUNDS : 0;
}

int e810_sge_check(const E810MemOwner *q, const E810Sge *sge, unsigned n,
                   unsigned access)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        int r = e810_rdma_xlate(q->c, sge[i].stag, sge[i].to, sge[i].len,
                                access, q->pd, q->priv, NULL, NULL);
        if (r) {
            return r;
        }
    }
    return 0;
}

unsigned e810_xlate_ae(int r)
{
    switch (r) {
    case E810_XLATE_PD:
        return AE_AMP_BAD_PD;
    case E810_XLATE_RIGHTS:
        return AE_AMP_RIGHTS_VIOLATION;
    case E810_XLATE_BOUNDS:
        return AE_AMP_BOUNDS_VIOLATION;
    case E810_XLATE_STAG_ZERO:
        return AE_STAG_ZERO_INVALID;
    case E810_XLATE_DMA:
        return AE_LCE_QP_CATASTROPHIC;     /* guest memory unreadable */
    default:
        return AE_AMP_INVALID_STAG;
    }
}

/* xlate result -> Terminate code for a tagged (DDP) or RDMAP access. */

static E810RdmaMr *mr_of(E810Core *c, uint32_t stag)
{
    E810RdmaMr *mr;

    if (!c->rdma.mr) {
        return NULL;
    }
    mr = &c->rdma.mr[(stag >> 8) % E810_RDMA_MAX_MRS];
    return mr->valid && mr->stag_idx == stag >> 8 ? mr : NULL;
}

/* Invalidate @stag for QP @q: locally (Local Invalidate, Read with Local
 * Invalidate) or on a peer's request (Send with Invalidate; the region must
 * then be remotely accessible).  Returns 0 or the AE code of the failure. */
unsigned e810_stag_invalidate(const E810MemOwner *q, uint32_t stag,
                              bool remote)
{
    E810RdmaMr *mr = mr_of(q->c, stag);
    unsigned ae = 0;

    if (!mr || !mr->registered) {
        ae = AE_AMP_INVALID_STAG;
    } else if (mr->pd != q->pd) {
        ae = AE_AMP_BAD_PD;
    } else if (mr->key != (stag & 0xFF)) {
        ae = AE_AMP_INVALID_STAG;
    } else if (remote && !mr->remote) {
        ae = AE_AMP_INV_NO_REMOTE;
    }
    if (ae) {
        q->c->rdma.stats.stag_errors++;
        trace_e810_rdma_stag_err(remote ? "remote invalidate" : "invalidate",
                                 q->qp_id, stag, ae);
        return ae;
    }
    mr->registered = false;
    q->c->rdma.pestat[E810_PE_RDMAVINV]++;
    trace_e810_rdma_stag(remote ? "remote invalidate" : "invalidate",
                         stag >> 8, mr->len, mr->rights);
    return 0;
}

unsigned e810_fast_reg(const E810MemOwner *q, const uint64_t *w)
{
    uint64_t h = w[3];
    uint32_t idx = QPSQ_STAGINDEX(h);
    E810RdmaMr *mr = mr_of(q->c, idx << 8);
    unsigned ae = 0;

    if (!q->priv) {
        return AE_WQE_UNEXPECTED_OPCODE;
    }
    if (!mr) {
        ae = AE_AMP_INVALID_STAG;
    } else if (mr->pd != q->pd) {
        ae = AE_AMP_BAD_PD;
    } else if (mr->registered) {
        /* Fast registration needs an invalid (free) STag. */
        ae = AE_AMP_FASTREG_VALID_STAG;
    } else if (!e810_rdma_mr_shape_ok(QPSQ_LPBLSIZE(h), QPSQ_HPAGESIZE(h))) {
        ae = AE_WQE_INVALID_PARAMETER;
    }
    if (ae) {
        q->c->rdma.stats.stag_errors++;
        trace_e810_rdma_stag_err("fast-register", q->qp_id,
                                 idx << 8 | QPSQ_STAGKEY(h), ae);
        return ae;
    }
    if (!e810_rdma_mr_fbo_ok(QPSQ_HPAGESIZE(h), h & QPSQ_VABASEDTO, w[0])) {
        e810_guest_error(q->c, "rdma: QP %u fast-register of STag 0x%x with "
                         "first byte offset 0x%" PRIx64, q->qp_id, idx, w[0]);
        return AE_WQE_INVALID_PARAMETER;
    }
    mr->key = QPSQ_STAGKEY(h);
    mr->lpbl = (uint8_t)QPSQ_LPBLSIZE(h);
    mr->page_size = (uint8_t)QPSQ_HPAGESIZE(h);
    mr->rights = (uint8_t)QPSQ_STAGRIGHTS(h);
    mr->remote = mr->rights & (E810_ACC_REMOTE_READ | E810_ACC_REMOTE_WRITE);
    mr->va_based = h & QPSQ_VABASEDTO;
    mr->va = w[0];
    mr->len = QPSQ_STAGLEN(w[2]);
    mr->pa = mr->lpbl ? 0 : QPSQ_PBLADDR(w[1]);
    mr->pble_idx = mr->lpbl ? QPSQ_FIRSTPMPBLIDX(w[1], w[2]) : 0;
    mr->registered = true;
    trace_e810_rdma_stag("fast-register", idx, mr->len, mr->rights);
    return 0;
}


bool e810_ring_read(E810Core *c, const E810RdmaRing *ring, uint64_t off,
                    void *buf, size_t len)
{
    uint64_t pa;

    if (!e810_rdma_ring_addr(c, ring, off, &pa) ||
        e810_dma_read(c, pa, buf, len)) {
        return false;
    }
    return true;
}

unsigned e810_sq_inline(E810Core *c, const E810RdmaRing *sq, uint32_t idx,
                        const uint8_t *raw, unsigned len, unsigned max,
                        uint8_t *out, uint8_t *quanta)
{
    uint8_t buf[32];
    unsigned got, k;

    if (len > max || e810_inline_quanta(len) > 8) {
        return AE_WQE_INVALID_PARAMETER;
    }
    *quanta = (uint8_t)e810_inline_quanta(len);
    /* uk.c irdma_copy_inline_data: qword 1, then 31 bytes per quantum. */
    got = len < 8 ? len : 8;
    memcpy(out, raw + 8, got);
    for (k = 1; got < len; k++) {
        unsigned n = len - got < 31 ? len - got : 31;

        if (!e810_ring_read(c, sq, ((uint64_t)idx + k) * 32, buf, 32)) {
            return AE_WQE_INVALID_PARAMETER;
        }
        memcpy(out + got, buf, n);
        got += n;
    }
    return 0;
}

static void sge_from(E810Sge *s, uint64_t to, uint64_t frag)
{
    s->to = to;
    s->stag = QPSQ_FRAG_STAG(frag);
    s->len = QPSQ_FRAG_LEN(frag);
}

unsigned e810_sq_sges(E810Core *c, const E810RdmaRing *sq, uint32_t idx,
                      uint64_t h, const uint64_t *qw, bool keep_empty0,
                      E810Sge *sge, unsigned *nsge, uint32_t *len,
                      uint8_t *quanta)
{
    unsigned nfrag = QPSQ_ADDFRAGCNT(h), n = 0, k;
    uint64_t sum = 0;

    *nsge = 0;
    *len = 0;
    if (1 + (nfrag + 1) / 2 > 8) {
        *quanta = 1;
        return AE_WQE_INVALID_PARAMETER;
    }
    *quanta = (uint8_t)(1 + (nfrag + 1) / 2);
    if (!(h & QPSQ_IMMDATAFLAG) && (keep_empty0 || QPSQ_FRAG_LEN(qw[1]))) {
        sge_from(&sge[n++], qw[0], qw[1]);
    }
    for (k = 0; k < nfrag && n < E810_WQE_MAX_SGE; k++) {
        uint8_t f[16];

        if (!e810_ring_read(c, sq, (uint64_t)idx * 32 + 32 + 16 * k, f, 16)) {
            *nsge = n;
            return AE_WQE_INVALID_PARAMETER;
        }
        if (!QPSQ_FRAG_LEN(ld64(f + 8))) {
            continue;               /* null pad fragment */
        }
        sge_from(&sge[n++], ld64(f), ld64(f + 8));
    }
    *nsge = n;
    for (k = 0; k < n; k++) {
        sum += sge[k].len;
    }
    /* A longer SGE list is a malformed WQE, not a wrapped length. */
    if (sum > E810_WQE_MAX_MSG) {
        return AE_WQE_INVALID_PARAMETER;
    }
    *len = (uint32_t)sum;
    return 0;
}

bool e810_rq_sges(E810Core *c, const E810RdmaRing *rq, unsigned shift,
                  uint32_t idx, unsigned pol, E810Sge *sge, unsigned *nsge,
                  uint64_t *cap)
{
    unsigned wqe_size = 32u << shift, nfrag, n = 0, k;
    uint64_t base = (uint64_t)idx * wqe_size, qw1, qw3;
    uint8_t raw[32];

    if (!(rq->size >> shift) || !e810_ring_read(c, rq, base, raw, 32)) {
        return false;
    }
    qw3 = ld64(raw + 24);
    if (!!(qw3 & QPSQ_VALID) != pol) {
        return false;
    }
    qw1 = ld64(raw + 8);
    if (QPSQ_FRAG_LEN(qw1)) {
        sge_from(&sge[n++], ld64(raw), qw1);
    }
    nfrag = QPSQ_ADDFRAGCNT(qw3);
    for (k = 0; k < nfrag && n < E810_WQE_MAX_SGE; k++) {
        uint8_t f[16];

        if (32 + 16 * k + 16 > wqe_size ||
            !e810_ring_read(c, rq, base + 32 + 16 * k, f, 16)) {
            break;
        }
        if (QPSQ_FRAG_LEN(ld64(f + 8))) {
            sge_from(&sge[n++], ld64(f), ld64(f + 8));
        }
    }
    *nsge = n;
    *cap = 0;
    for (k = 0; k < n; k++) {
        *cap += sge[k].len;
    }
    return true;
}

void e810_rq_cqe(uint64_t cqe[4], uint32_t qp, uint64_t comp_ctx, uint32_t idx,
                 unsigned op, uint64_t len, uint64_t flags)
{
    cqe[0] = len;
    cqe[1] = comp_ctx;
    cqe[2] = (uint64_t)(qp & 0xFFFFFF) << CQ_QPID_S;
    cqe[3] = (uint64_t)(idx & 0x7FFF) << CQ_WQEIDX_S |
             (uint64_t)(op & 0x3F) << CQ_OP_S | flags;
}

void e810_sq_cqe(uint64_t cqe[4], uint32_t qp, uint64_t comp_ctx, uint32_t idx,
                 unsigned op, uint32_t len, unsigned status)
{
    /* the same words, with the SQ bit and the WQE's status */
    e810_rq_cqe(cqe, qp, comp_ctx, idx, op, len,
                CQ_SQ | (status ? CQ_ERROR | (uint64_t)(status & 0xFFFF) |
                                  (uint64_t)0xFFFF << CQ_MAJERR_S : 0));
}

void e810_flush_user(E810Core *c, const uint64_t *wqe, const E810FlushQp *f)
{
    uint64_t h = wqe[3], cqe[4];
    bool user = h & CQPSQ_FWQE_USERFLCODE;
    unsigned sq_min = user ? CQPSQ_FWQE_SQMNERR(wqe[2]) : 0;
    unsigned rq_min = user ? CQPSQ_FWQE_RQMNERR(wqe[2]) : 0;
    uint8_t raw[32];

    cqe[0] = 0;
    cqe[1] = f->comp_ctx;
    cqe[2] = (uint64_t)(f->id & 0xFFFFFF) << CQ_QPID_S;
    if (h & CQPSQ_FWQE_FLUSHSQ) {
        uint32_t idx = f->sq_idx;
        unsigned op = 0;
        bool any = false;

        if (f->have_head) {
            idx = f->head_idx;
            op = f->head_op;
            any = true;
        } else if (e810_ring_read(c, f->sq, (uint64_t)idx * 32, raw, 32) &&
                   !!(ld64(raw + 24) & QPSQ_VALID) == f->sq_pol) {
            op = QPSQ_OPCODE(ld64(raw + 24));
            any = true;
        }
        if (any) {
            cqe[3] = (uint64_t)(idx & 0x7FFF) << CQ_WQEIDX_S |
                     (uint64_t)(op & 0x3F) << CQ_OP_S | CQ_SQ | CQ_ERROR |
                     (uint64_t)FLUSH_MAJOR_ERR << CQ_MAJERR_S | sq_min;
            trace_e810_rdma_flush_cqe(f->id, f->txcq, true, idx, op, sq_min);
            e810_rdma_cq_post(c, f->txcq, cqe);
        }
    }
    if ((h & CQPSQ_FWQE_FLUSHRQ) && f->rq->size) {
        uint32_t idx = f->rq_idx;

        if (e810_ring_read(c, f->rq, (uint64_t)idx * (32u << f->rq_shift),
                           raw, 32) &&
            !!(ld64(raw + 24) & QPSQ_VALID) == f->rq_pol) {
            e810_rq_cqe(cqe, f->id, f->comp_ctx, idx << f->rq_shift,
                        OP_TYPE_REC, 0, CQ_ERROR | rq_min |
                        (uint64_t)FLUSH_MAJOR_ERR << CQ_MAJERR_S);
            trace_e810_rdma_flush_cqe(f->id, f->rxcq, false, idx, OP_TYPE_REC,
                                      rq_min);
            e810_rdma_cq_post(c, f->rxcq, cqe);
        }
    }
}

/*
 * The SQ doorbell shadow area (its address in the QP create WQE @40): the
 * engine keeps the SQ quantum it will fetch next in qword 0 bits 14:0
 * (IRDMA_QP_DBSA_HW_SQ_TAIL).  The 6.1 and 6.12 drivers read it after
 * writing a WQE (uk.c:irdma_uk_qp_post_wr()) and ring PFPE_WQEALLOC only
 * if that tail lies among the WQEs posted since their last doorbell, i.e.
 * when the engine has run dry; otherwise they expect it to go on by the
 * valid bits.  7.x rings unconditionally and ignores the area.
 *
 * Returns true when a new value was written: the caller must then look
 * at the WQE under the tail again, since a driver that read the old value
 * before this write has not rung for it.
 */
bool e810_rdma_qp_show_sq_tail(E810Core *c, uint32_t qp_id, uint32_t tail)
{
    E810RdmaQp *qp = qp_id < e810_rdma_obj_limit(c, E810_HMC_QP,
                                                  E810_RDMA_MAX_QPS) ?
                     &c->rdma.qp[qp_id] : NULL;
    uint8_t b[8];

    if (!qp || !qp->valid || !qp->shadow_pa) {
        return false;
    }
    tail &= 0x7FFF;
    if (qp->sq_tail_shown && qp->sq_tail_pub == tail) {
        return false;
    }
    st64(b, tail);
    if (c->host.ops->dma_write(c->host.opaque, qp->shadow_pa, b, sizeof(b))) {
        c->stats.dma_errors++;
        e810_guest_error(c, "rdma: QP %u doorbell shadow area 0x%" PRIx64
                         " unwritable", qp_id, qp->shadow_pa);
        qp->shadow_pa = 0;      /* once, not on every SQ pass */
        return false;
    }
    qp->sq_tail_shown = true;
    qp->sq_tail_pub = tail;
    trace_e810_rdma_sq_tail(qp_id, tail);
    return true;
}
