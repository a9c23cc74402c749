/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: the pieces of the QP data path that do not depend on
 * the transport (iWARP in qpdp.c, RoCEv2 in core/roce/): data buffers as
 * SGE lists through the STag translation, invalidation and fast
 * registration of STags, reads of the QP rings.
 */
#include "../e810.h"
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
        E810XCopy x = { q->c, NULL, NULL, false, true };
        int r = e810_rdma_xlate(q->c, sge[i].stag, sge[i].to, sge[i].len,
                                access, q->pd, q->priv, e810_xcopy_fn, &x);
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
    uint32_t idx = (uint32_t)e810_fld(h, 31, 8);
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
    } else if (e810_fld(h, 45, 44) == 2 || e810_fld(h, 47, 46) > 2) {
        ae = AE_WQE_INVALID_PARAMETER;
    }
    if (ae) {
        q->c->rdma.stats.stag_errors++;
        trace_e810_rdma_stag_err("fast-register", q->qp_id,
                                 idx << 8 | (uint32_t)e810_fld(h, 7, 0), ae);
        return ae;
    }
    /* Zero based: the first byte offset lies inside the first page. */
    if (!(h & (1ull << 53)) &&
        w[0] >= e810_rdma_page_size((unsigned)e810_fld(h, 47, 46))) {
        e810_guest_error(q->c, "rdma: QP %u fast-register of STag 0x%x with "
                         "first byte offset 0x%" PRIx64, q->qp_id, idx, w[0]);
        return AE_WQE_INVALID_PARAMETER;
    }
    mr->key = (uint8_t)e810_fld(h, 7, 0);
    mr->lpbl = (uint8_t)e810_fld(h, 45, 44);
    mr->page_size = (uint8_t)e810_fld(h, 47, 46);
    mr->rights = (uint8_t)e810_fld(h, 52, 48);
    mr->remote = mr->rights & (E810_ACC_REMOTE_READ | E810_ACC_REMOTE_WRITE);
    mr->va_based = h & (1ull << 53);
    mr->va = w[0];
    mr->len = e810_fld(w[2], 40, 0);
    mr->pa = mr->lpbl ? 0 : (w[1] & 0x000FFFFFFFFFF000ull);
    mr->pble_idx = mr->lpbl ? (uint32_t)(e810_fld(w[1], 11, 0) << 16 |
                                         e810_fld(w[2], 63, 48)) : 0;
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

