/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: QP lifetime and state, STags (memory regions), and the
 * small device tables the control QP maintains (ARP cache, address
 * handles, quad hash, accelerated ports, work-scheduler nodes, statistics
 * instances).  Only the control path lives here; moving data is for the
 * transport.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../bytes.h"
#include "../../trace.h"
#include "rdma.h"
#include "puda.h"
#include "engine.h"
#include "../snap.h"

static E810RdmaQp *qp_lookup(E810Core *c, uint32_t id)
{
    if (id >= e810_rdma_obj_limit(c, E810_HMC_QP, E810_RDMA_MAX_QPS)) {
        return NULL;
    }
    return &c->rdma.qp[id];
}

/* CREATE/MODIFY/DESTROY_QP of @id succeeded: the PUDA's QPs are its own,
 * the others' quads the port's steering binds and unbinds. */
static void qp_event(E810Core *c, uint32_t id, const uint64_t *wqe, int ev)
{
    if (!e810_puda_qp_event(c, id, ev)) {
        e810_steer_qp_event(c, id, wqe, ev);
    }
}

/* Read the QP host context; returns its completion context word. */
static bool qp_read_ctx(E810Core *c, uint64_t pa, uint64_t *comp_ctx,
                        E810CqpResult *r)
{
    uint8_t ctx[E810_RDMA_QP_CTX_SIZE];

    if (e810_dma_read(c, pa, ctx, sizeof(ctx))) {
        e810_cqp_fail(c, r, E810_CQP_MIN_DMA, "QP context at 0x%" PRIx64, pa);
        return false;
    }
    *comp_ctx = ld64(ctx + QPC_COMPCTX);
    return true;
}

static bool qp_post_ae(E810Core *c, uint32_t id, E810RdmaQp *qp,
                       unsigned code, unsigned src)
{
    return e810_rdma_aeq_post(c, qp->comp_ctx,
                              e810_aeqe_qw1(id, code, src, qp->state));
}

void e810_rdma_qp_create(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    uint64_t h = wqe[3];
    uint32_t id = CQPSQ_QP_ID(h);
    E810RdmaQp *qp = qp_lookup(c, id);
    unsigned type = CQPSQ_QP_QPTYPE(h), next = CQPSQ_QP_NEXTIWSTATE(h);
    uint64_t comp;

    if (!e810_cqp_new_slot(c, r, qp, qp && qp->valid, "QP", id)) {
        return;
    }
    if (type < 1 || type > 4 || next > QP_STATE_ERROR) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM, "QP %u type %u state %u",
                      id, type, next);
        return;
    }
    if (!qp_read_ctx(c, wqe[2], &comp, r)) {
        return;
    }
    memset(qp, 0, sizeof(*qp));
    qp->valid = true;
    qp->type = type;
    qp->state = next ? next : QP_STATE_IDLE;
    qp->ctx_pa = wqe[2];
    qp->shadow_pa = wqe[5];
    qp->comp_ctx = comp;
    trace_e810_rdma_qp("create", id, type, qp->state);
    qp_event(c, id, wqe, E810_QP_CREATED);
}

void e810_rdma_qp_modify(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    uint64_t h = wqe[3];
    uint32_t id = CQPSQ_QP_ID(h);
    E810RdmaQp *qp = qp_lookup(c, id);
    unsigned next = CQPSQ_QP_NEXTIWSTATE(h);
    uint64_t comp;

    if (!qp || !qp->valid) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_ID, "modify QP %u", id);
        return;
    }
    if (next == 0 || next > QP_STATE_ERROR) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM, "QP %u to state %u", id,
                      next);
        return;
    }
    /* Out of ERROR only through a reset to IDLE (a new create). */
    if (qp->state == QP_STATE_ERROR && next != QP_STATE_ERROR) {
        e810_cqp_fail(c, r, E810_CQP_MIN_INVALID_STATE,
                      "QP %u from error to %u", id, next);
        return;
    }
    if (!qp_read_ctx(c, wqe[2], &comp, r)) {
        return;
    }
    qp->ctx_pa = wqe[2];
    qp->comp_ctx = comp;
    qp->state = next;
    trace_e810_rdma_qp("modify", id, qp->type, next);
    qp_event(c, id, wqe, E810_QP_MODIFIED);
}

void e810_rdma_qp_destroy(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    uint32_t id = CQPSQ_QP_ID(wqe[3]);
    E810RdmaQp *qp = qp_lookup(c, id);

    if (!e810_cqp_old_slot(c, r, qp && qp->valid, "QP", id)) {
        return;
    }
    qp->valid = false;
    trace_e810_rdma_qp("destroy", id, qp->type, 0);
    qp_event(c, id, wqe, E810_QP_DESTROYED);
}

void e810_rdma_qp_flush(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    uint64_t h = wqe[3];
    uint32_t id = CQPSQ_QP_ID(h);
    E810RdmaQp *qp = qp_lookup(c, id);

    if (!qp || !qp->valid) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_ID, "flush/AE for QP %u", id);
        return;
    }
    if (h & CQPSQ_FWQE_GENERATE_AE) {
        qp_post_ae(c, id, qp, CQPSQ_FWQE_AECODE(wqe[1]),
                   CQPSQ_FWQE_AESOURCE(wqe[1]));
    }
    /* No WQE is in flight inside the engine, so a requested SQ flush is
     * reported as done (the driver completes the WQEs itself); see
     * hw.c:irdma_hw_flush_wqes() for how the minor code is read. */
    if (h & CQPSQ_FWQE_FLUSHSQ) {
        r->min = E810_CQP_COMPL_SQ_FLUSHED;
    } else if (h & CQPSQ_FWQE_FLUSHRQ) {
        r->min = E810_CQP_COMPL_RQ_FLUSHED;
    }
    if (h & (CQPSQ_FWQE_FLUSHSQ | CQPSQ_FWQE_FLUSHRQ)) {
        qp->state = QP_STATE_ERROR;
    }
}

void e810_rdma_qp_suspend(E810Core *c, const uint64_t *wqe, bool resume,
                          E810CqpResult *r)
{
    uint32_t id = CQPSQ_QP_ID(wqe[3]);
    E810RdmaQp *qp = qp_lookup(c, id);

    if (!qp || !qp->valid) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_ID, "suspend/resume QP %u", id);
        return;
    }
    qp->suspended = !resume;
    if (!resume) {
        /* Nothing is queued in the engine: suspension is immediate. */
        qp_post_ae(c, id, qp, AE_QP_SUSPEND_COMPLETE, 0);
    }
}

void e810_rdma_upload_ctx(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    uint32_t id = CQPSQ_QP_ID(wqe[3]);
    E810RdmaQp *qp = qp_lookup(c, id);
    uint8_t ctx[E810_RDMA_QP_CTX_SIZE];

    if (!qp || !qp->valid) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_ID, "upload context of QP %u", id);
        return;
    }
    if (e810_dma_read(c, qp->ctx_pa, ctx, sizeof(ctx)) ||
        e810_dma_write(c, wqe[2], ctx, sizeof(ctx))) {
        e810_cqp_fail(c, r, E810_CQP_MIN_DMA, "upload context of QP %u", id);
    }
}

void e810_rdma_wqe_alloc(E810Core *c, uint32_t val)
{
    uint32_t id = val & 0xFFFFF;    /* 31:20 only carry push-mode data */
    E810RdmaQp *qp = qp_lookup(c, id);

    if (!qp || !qp->valid) {
        e810_guest_error(c, "rdma: SQ doorbell for QP %u", id);
        return;
    }
    if ((id == E810_PUDA_ILQ_QP || id == E810_PUDA_IEQ_QP) &&
        e810_puda_doorbell(c, id)) {
        return;
    }
    trace_e810_rdma_sq_doorbell(id, qp->state);
    e810_eng_doorbell(c, id);
}

/* ---- STags -------------------------------------------------------------- */

void e810_rdma_stag(E810Core *c, unsigned op, const uint64_t *wqe,
                    E810CqpResult *r)
{
    uint64_t h = wqe[3];
    uint32_t idx = CQPSQ_STAG_IDX(wqe[2]);
    uint32_t nmr = e810_rdma_obj_limit(c, E810_HMC_MR, E810_RDMA_MAX_MRS);
    E810RdmaMr *mr;

    /* The low bits of the 24-bit index are the HMC index; the driver
     * keeps random bits above them, so the full value is the key. */
    if (!nmr || !c->rdma.mr || (idx % E810_RDMA_MAX_MRS) >= nmr) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_ID, "STag index 0x%x", idx);
        return;
    }
    mr = &c->rdma.mr[idx % E810_RDMA_MAX_MRS];
    e810_rdma_dirty(c->rdma.mr_dirty, idx % E810_RDMA_MAX_MRS);
    if (op == CQP_OP_DEALLOC_STAG) {
        if (!mr->valid || mr->stag_idx != idx) {
            e810_cqp_fail(c, r, E810_CQP_MIN_BAD_ID, "dealloc STag 0x%x", idx);
            return;
        }
        mr->valid = false;
        trace_e810_rdma_stag("dealloc", idx, 0, 0);
        return;
    }
    if (mr->valid) {
        e810_cqp_fail(c, r, E810_CQP_MIN_INVALID_STATE, "STag 0x%x in use",
                      idx);
        return;
    }
    if (!e810_rdma_mr_shape_ok(CQPSQ_STAG_LPBLSIZE(h),
                               CQPSQ_STAG_HPAGESIZE(h))) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM,
                      "STag 0x%x PBL level %u page size %u", idx,
                      CQPSQ_STAG_LPBLSIZE(h), CQPSQ_STAG_HPAGESIZE(h));
        return;
    }
    if (op == CQP_OP_REG_MR &&
        !e810_rdma_mr_fbo_ok(CQPSQ_STAG_HPAGESIZE(h),
                             h & CQPSQ_STAG_VABASEDTO, wqe[0])) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM,
                      "STag 0x%x first byte offset 0x%" PRIx64
                      " beyond its first page", idx, wqe[0]);
        return;
    }
    memset(mr, 0, sizeof(*mr));
    mr->valid = true;
    mr->registered = op == CQP_OP_REG_MR;
    mr->stag_idx = idx;
    mr->key = op == CQP_OP_REG_MR ? CQPSQ_STAG_KEY(wqe[2]) : 0;
    mr->rights = CQPSQ_STAG_ARIGHTS(h);
    mr->lpbl = CQPSQ_STAG_LPBLSIZE(h);
    mr->page_size = CQPSQ_STAG_HPAGESIZE(h);
    mr->va_based = h & CQPSQ_STAG_VABASEDTO;
    mr->remote = h & CQPSQ_STAG_REMACCENABLED;
    mr->pd = CQPSQ_STAG_PDID(wqe[1], wqe[2]);
    mr->len = CQPSQ_STAG_STAGLEN(wqe[1]);
    mr->va = wqe[0];
    mr->pa = mr->lpbl ? 0 : wqe[4];
    mr->pble_idx = mr->lpbl ? CQPSQ_STAG_FIRSTPMPBLIDX(wqe[6]) : 0;
    trace_e810_rdma_stag(op == CQP_OP_REG_MR ? "register" : "alloc", idx,
                         mr->len, mr->rights);
}

/* ---- ARP cache, address handles ----------------------------------------- */

void e810_rdma_arp(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    uint64_t h = wqe[3];
    uint32_t idx = CQPSQ_MAT_ARPENTRYIDX(h);

    if (idx >= e810_rdma_obj_limit(c, E810_HMC_ARP, E810_RDMA_MAX_ARP)) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_ID, "ARP index %u", idx);
        return;
    }
    c->rdma.arp[idx].valid = h & CQPSQ_MAT_ENTRYVALID;
    e810_rdma_mac_from_u64(c->rdma.arp[idx].mac, c->rdma.arp[idx].valid ?
                           CQPSQ_MAT_MACADDR(wqe[2]) : 0);
    trace_e810_rdma_arp(idx, c->rdma.arp[idx].valid,
                        CQPSQ_MAT_MACADDR(wqe[2]));
}

void e810_rdma_ah(E810Core *c, unsigned op, const uint64_t *wqe,
                  E810CqpResult *r)
{
    uint32_t idx = CQPSQ_AH_AVIDX(wqe[3]);

    if (!c->rdma.ah ||
        idx >= e810_rdma_obj_limit(c, E810_HMC_FSIAV, E810_RDMA_MAX_AH)) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_ID, "AH index %u", idx);
        return;
    }
    e810_rdma_dirty(c->rdma.ah_dirty, idx);
    if (op == CQP_OP_DESTROY_AH) {
        c->rdma.ah[idx].valid = false;
        return;
    }
    if (op == CQP_OP_CREATE_AH && c->rdma.ah[idx].valid) {
        e810_cqp_fail(c, r, E810_CQP_MIN_INVALID_STATE, "AH %u exists", idx);
        return;
    }
    c->rdma.ah[idx].valid = true;
    memcpy(c->rdma.ah[idx].wqe, wqe, sizeof(c->rdma.ah[idx].wqe));
    r->retval = 0;              /* 0 = the AH is valid (utils.c) */
}

/* ---- quad hash, accelerated ports --------------------------------------- */

static bool qhash_same(const E810RdmaQhash *a, const E810RdmaQhash *b)
{
    return a->type == b->type && a->ipv4 == b->ipv4 && a->vlan == b->vlan &&
           a->lport == b->lport && a->rport == b->rport &&
           a->lip[0] == b->lip[0] && a->lip[1] == b->lip[1] &&
           a->rip[0] == b->rip[0] && a->rip[1] == b->rip[1];
}

void e810_rdma_qhash(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    uint64_t h = wqe[3];
    unsigned manage = CQPSQ_QHASH_MANAGE(h);
    E810RdmaQhash e, *free_slot = NULL;
    int i;

    memset(&e, 0, sizeof(e));
    e.type = (uint8_t)CQPSQ_QHASH_ENTRYTYPE(h);
    e.ipv4 = h & CQPSQ_QHASH_IPV4VALID;
    e.vlan = (h & CQPSQ_QHASH_VLANVALID) ? CQPSQ_QHASH_VLANID(wqe[2]) : 0xFFFF;
    e.lport = CQPSQ_QHASH_DEST_PORT(wqe[1]);
    e.rport = CQPSQ_QHASH_SRC_PORT(wqe[1]);
    e.qpn = CQPSQ_QHASH_QPN(wqe[1]);
    e.qs_handle = CQPSQ_QHASH_QS_HANDLE(wqe[2]);
    e810_rdma_mac_from_u64(e.lmac, wqe[0]);
    e.rip[0] = wqe[4];
    e.rip[1] = e.ipv4 ? 0 : wqe[5];
    e.lip[0] = wqe[6];
    e.lip[1] = e.ipv4 ? 0 : wqe[7];
    if (e.ipv4) {
        e.rip[0] &= 0xFFFFFFFF;
        e.lip[0] &= 0xFFFFFFFF;
    }
    if (manage > 2 || e.type < 1 || e.type > 2) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM, "quad hash op %u type %u",
                      manage, e.type);
        return;
    }
    for (i = 0; i < E810_RDMA_MAX_QHASH; i++) {
        E810RdmaQhash *q = &c->rdma.qhash[i];

        if (q->valid && qhash_same(q, &e)) {
            if (manage == 0) {
                q->valid = false;
            } else {
                e.valid = true;
                *q = e;
            }
            trace_e810_rdma_qhash(manage, e.type, e.lport, e.rport, e.qpn);
            return;
        }
        if (!q->valid && !free_slot) {
            free_slot = q;
        }
    }
    if (manage == 0) {
        /* Deleting what is not there leaves the table as asked. */
        trace_e810_rdma_qhash(manage, e.type, e.lport, e.rport, e.qpn);
        return;
    }
    if (!free_slot) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM, "quad hash table full");
        return;
    }
    e.valid = true;
    *free_slot = e;
    trace_e810_rdma_qhash(manage, e.type, e.lport, e.rport, e.qpn);
}

void e810_rdma_apbvt(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    unsigned port = CQPSQ_MAPT_PORT(wqe[2]);
    bool add = wqe[3] & CQPSQ_MAPT_ADDPORT;

    e810_bit_set(c->rdma.apbvt, port, add);
    trace_e810_rdma_apbvt(port, add);
}

/* ---- work scheduler, statistics ----------------------------------------- */

void e810_rdma_ws_node(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    uint64_t h = wqe[3];
    unsigned op = CQPSQ_WS_NODEOP(h);
    unsigned id = CQPSQ_WS_NODEID(h);
    bool leaf = h & CQPSQ_WS_NODETYPE;
    uint32_t teid = 0;

    if (id >= E810_RDMA_MAX_WS_NODES || op > 2) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM, "WS node %u op %u", id, op);
        return;
    }
    switch (op) {
    case 0:
        e810_bit_set(c->rdma.ws_node, id, true);
        /* A leaf's qs_handle is what the driver hands to ice's
         * add-RDMA-qset; the node id is unique and fits its 10 bits. */
        if (leaf) {
            r->retval = id;
        }
        break;
    case 1:
        if (!e810_bit(c->rdma.ws_node, id)) {
            e810_cqp_fail(c, r, E810_CQP_MIN_BAD_ID, "modify WS node %u", id);
            return;
        }
        if (leaf && !e810_fw_rdma_qset_teid(c, id, &teid)) {
            /* The qset should be in the Tx scheduler by now; say if not. */
            trace_e810_rdma_ws("modify, no qset", id, leaf, 0);
            return;
        }
        break;
    case 2:
        e810_bit_set(c->rdma.ws_node, id, false);
        break;
    }
    trace_e810_rdma_ws(op == 0 ? "add" : op == 1 ? "modify" : "delete", id,
                       leaf, teid);
}

/* ---- saved state -------------------------------------------------------- */

/*
 * Each table's valid flag is the sparse table's: an entry in the stream is
 * a valid one.  The widths are the WQE fields' the values come from.
 */
static const E810SnapField qp_fields[] = {
    SF_U(E810RdmaQp, type, QP_TYPE_IWARP, QP_TYPE_ROCE_UD),
    SF_U(E810RdmaQp, state, QP_STATE_IDLE, QP_STATE_ERROR),
    SF_BOOL(E810RdmaQp, suspended),
    SF_UX(E810RdmaQp, ctx_pa),
    SF_UX(E810RdmaQp, shadow_pa),
    SF_UX(E810RdmaQp, comp_ctx),
    SF_BOOL(E810RdmaQp, sq_tail_shown),
    SF_U(E810RdmaQp, sq_tail_pub, 0, 0x7FFF),
    SF_END
};

static const E810SnapField mr_fields[] = {
    SF_BOOL(E810RdmaMr, registered),
    SF_U(E810RdmaMr, stag_idx, 0, (1u << 24) - 1),
    SF_UX(E810RdmaMr, key),
    SF_U(E810RdmaMr, rights, 0, 0x1F),
    SF_U(E810RdmaMr, lpbl, 0, 3),
    SF_U(E810RdmaMr, page_size, 0, 2),
    SF_BOOL(E810RdmaMr, va_based),
    SF_BOOL(E810RdmaMr, remote),
    SF_U(E810RdmaMr, pd, 0, (1u << 24) - 1),
    SF_UX(E810RdmaMr, va),
    SF_U(E810RdmaMr, len, 0, (1ull << 46) - 1),
    SF_UX(E810RdmaMr, pa),
    SF_U(E810RdmaMr, pble_idx, 0, (1u << 28) - 1),
    SF_END
};

static const E810SnapField arp_fields[] = {
    SF_BYTES(E810RdmaArp, mac),
    SF_END
};

static const E810SnapField ah_fields[] = {
    SF_UAX(E810RdmaAh, wqe),
    SF_END
};

static const E810SnapField qhash_fields[] = {
    SF_U(E810RdmaQhash, type, QHASH_TYPE_ESTABLISHED, QHASH_TYPE_SYN),
    SF_BOOL(E810RdmaQhash, ipv4),
    SF_UX(E810RdmaQhash, vlan),
    SF_UX(E810RdmaQhash, lport),
    SF_UX(E810RdmaQhash, rport),
    SF_U(E810RdmaQhash, qpn, 0, (1u << 18) - 1),
    SF_U(E810RdmaQhash, qs_handle, 0, 0x3FF),
    SF_BYTES(E810RdmaQhash, lmac),
    SF_UAX(E810RdmaQhash, rip),
    SF_UAX(E810RdmaQhash, lip),
    SF_END
};

static const E810SnapField bitmap_fields[] = {
    SF_BYTES(E810Rdma, apbvt),
    SF_BYTES(E810Rdma, ws_node),
    SF_BYTES(E810Rdma, stats_inst),
    SF_END
};

/*
 * An STag as REG_MR, ALLOC_STAG and FAST_REGISTER leave it: in the slot
 * of its index, of a shape they accept, and a mapped zero-based region's
 * first byte offset inside its first page.  Not against the committed MR
 * count, which a later COMMIT_FPM_VAL may have lowered under it.
 */
static bool mr_each(E810SnapR *r, void *e, uint32_t idx, void *opaque)
{
    E810RdmaMr *mr = e;

    if (mr->stag_idx % E810_RDMA_MAX_MRS != idx) {
        return e810_snap_fail(r, "rdma.mr[%u].stag_idx: 0x%x is not this "
                              "slot's", idx, mr->stag_idx);
    }
    if (!e810_rdma_mr_shape_ok(mr->lpbl, mr->page_size)) {
        return e810_snap_fail(r, "rdma.mr[%u].lpbl: PBL level %u", idx,
                              mr->lpbl);
    }
    if (mr->registered &&
        !e810_rdma_mr_fbo_ok(mr->page_size, mr->va_based, mr->va)) {
        return e810_snap_fail(r, "rdma.mr[%u].va: first byte offset 0x%"
                              PRIx64 " beyond the first page", idx, mr->va);
    }
    return true;
}

static const E810SnapTable arp_table = {
    E810_SNAP_ARRAY("rdma.arp", rdma.arp, E810RdmaArp, arp_fields, valid),
};

static const E810SnapTable qhash_table = {
    E810_SNAP_ARRAY("rdma.qhash", rdma.qhash, E810RdmaQhash, qhash_fields,
                    valid),
};

/* Like the CQs, a QP may lie beyond a lowered committed count. */
static const E810SnapTable qp_table = {
    E810_SNAP_ARRAY("rdma.qp", rdma.qp, E810RdmaQp, qp_fields, valid),
};

/* The allocated tables are empty if their allocation failed. */
static const E810SnapTable mr_table = {
    E810_SNAP_PTR("rdma.mr", rdma.mr, E810_RDMA_MAX_MRS, E810RdmaMr,
                  mr_fields, valid),
    E810_SNAP_MAP(rdma.mr_dirty, E810_RDMA_DIRTY_CHUNK),
    .each = mr_each,
};

static const E810SnapTable ah_table = {
    E810_SNAP_PTR("rdma.ah", rdma.ah, E810_RDMA_MAX_AH, E810RdmaAh,
                  ah_fields, valid),
    E810_SNAP_MAP(rdma.ah_dirty, E810_RDMA_DIRTY_CHUNK),
};

void e810_rdma_tables_save(E810Core *c, E810SnapW *w)
{
    e810_snap_put_table(c, w, &mr_table);
    e810_snap_put_table(c, w, &arp_table);
    e810_snap_put_table(c, w, &ah_table);
    e810_snap_put_table(c, w, &qhash_table);
    e810_snap_put_fields(w, bitmap_fields, &c->rdma);
}

bool e810_rdma_tables_load(E810Core *c, E810SnapR *r, uint16_t ver)
{
    return e810_snap_get_table(c, r, ver, &mr_table) &&
           e810_snap_get_table(c, r, ver, &arp_table) &&
           e810_snap_get_table(c, r, ver, &ah_table) &&
           e810_snap_get_table(c, r, ver, &qhash_table) &&
           e810_snap_get_fields(r, bitmap_fields, &c->rdma, ver, "rdma");
}

void e810_rdma_qps_save(E810Core *c, E810SnapW *w)
{
    e810_snap_put_table(c, w, &qp_table);
}

bool e810_rdma_qps_load(E810Core *c, E810SnapR *r, uint16_t ver)
{
    return e810_snap_get_table(c, r, ver, &qp_table);
}
