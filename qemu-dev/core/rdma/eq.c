/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: completion queues, completion event queues (CEQ) and
 * the asynchronous event queue (AEQ), and their routing to MSI-X vectors.
 *
 * All three are device-produced rings in guest memory whose valid bit
 * starts at 1 and flips each time the producer index wraps.  There is no
 * consumer index for CEQs; AEQ consumption is returned as credits through
 * AEQALLOC; CQ arming is read from the CQ's shadow area on CQARM.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../bytes.h"
#include "../../trace.h"
#include "rdma.h"
#include "../snap.h"

static E810RdmaCq *cq_lookup(E810Core *c, uint32_t id)
{
    if (id >= e810_rdma_obj_limit(c, E810_HMC_CQ, E810_RDMA_MAX_CQS)) {
        return NULL;
    }
    e810_rdma_dirty(c->rdma.cq_dirty, id);
    return &c->rdma.cq[id];
}

/* Common ring checks: @size entries, contiguous at @pa or a level-1 PBL. */
static bool ring_setup(E810Core *c, E810RdmaRing *ring, uint32_t size,
                       uint32_t max, uint64_t pa, bool virt, unsigned lpbl,
                       uint32_t pble, E810CqpResult *r, const char *what)
{
    if (size == 0 || size > max) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM, "%s of %u entries", what,
                      size);
        return false;
    }
    if (virt) {
        uint32_t npble = e810_rdma_obj_limit(c, E810_HMC_PBLE,
                                             E810_RDMA_MAX_PBLE);
        if (lpbl > 1 || pble >= npble) {
            e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM,
                          "%s PBL level %u index %u", what, lpbl, pble);
            return false;
        }
    } else if (pa == 0) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM, "%s at address 0", what);
        return false;
    }
    memset(ring, 0, sizeof(*ring));
    ring->pa = virt ? 0 : pa;
    ring->virt = virt;
    ring->pble_idx = pble;
    ring->size = size;
    ring->polarity = 1;
    return true;
}

/* Write one entry of @len bytes at the producer index: everything but the
 * last qword first, then the qword carrying the valid bit. */
static bool ring_put(E810Core *c, E810RdmaRing *ring, unsigned len,
                     const uint64_t *q, unsigned valid_q)
{
    uint8_t buf[32];
    uint64_t pa;
    unsigned i;

    for (i = 0; i < len / 8; i++) {
        uint64_t v = q[i];

        if (i == valid_q) {
            v = (v & ~(1ull << 63)) | (uint64_t)ring->polarity << 63;
        }
        st64(buf + 8 * i, v);
    }
    if (!e810_rdma_ring_addr(c, ring, (uint64_t)ring->head * len, &pa)) {
        return false;
    }
    if ((valid_q && e810_dma_write(c, pa, buf,
                                           8 * valid_q)) ||
        e810_dma_write(c, pa + 8 * valid_q,
                               buf + 8 * valid_q, len - 8 * valid_q)) {
        return false;
    }
    ring->head++;
    if (ring->head == ring->size) {
        ring->head = 0;
        ring->polarity ^= 1;
    }
    return true;
}

/* ---- CEQ / AEQ ---------------------------------------------------------- */

static void ceq_post(E810Core *c, unsigned ceq_id, uint64_t ctx)
{
    E810RdmaEq *eq = ceq_id < E810_RDMA_MAX_CEQS ? &c->rdma.ceq[ceq_id] : NULL;
    uint32_t ctl;
    uint64_t e = ctx & ~(1ull << 63);

    if (!eq || !eq->valid) {
        return;             /* no CEQ yet (e.g. the CCQ before CEQ 0) */
    }
    if (!ring_put(c, &eq->ring, E810_RDMA_CEQE_SIZE, &e, 0)) {
        e810_guest_error(c, "rdma: CEQ %u entry not writable", ceq_id);
        return;
    }
    c->rdma.stats.ceqes++;
    ctl = e810_reg(c, GLINT_CEQCTL(ceq_id));
    trace_e810_rdma_ceqe(ceq_id, ctx, !!(ctl & E810_CTL_CAUSE_ENA),
                         ctl & E810_CTL_MSIX_INDX_M);
    if (ctl & E810_CTL_CAUSE_ENA) {
        e810_intr_cause_ctl(c, ctl);
    }
}

bool e810_rdma_aeq_post(E810Core *c, uint64_t qw0, uint64_t qw1)
{
    E810RdmaEq *aeq = &c->rdma.aeq;
    uint64_t q[2] = { qw0, qw1 };
    uint32_t ctl;

    if (!aeq->valid) {
        return false;
    }
    if (aeq->credits == 0) {
        /* Never overwrite an entry the driver has not consumed. */
        c->rdma.stats.aeq_overflows++;
        e810_guest_error(c, "rdma: AEQ full, event 0x%" PRIx64 " lost", qw1);
        return false;
    }
    if (!ring_put(c, &aeq->ring, E810_RDMA_AEQE_SIZE, q, 1)) {
        e810_guest_error(c, "rdma: AEQ entry not writable");
        return false;
    }
    aeq->credits--;
    c->rdma.stats.aeqes++;
    ctl = e810_reg(c, PFINT_AEQCTL);
    trace_e810_rdma_aeqe(qw0, qw1, !!(ctl & E810_CTL_CAUSE_ENA));
    if (ctl & E810_CTL_CAUSE_ENA) {
        e810_intr_cause_ctl(c, ctl);
    }
    return true;
}

void e810_rdma_aeq_alloc(E810Core *c, uint32_t n)
{
    E810RdmaEq *aeq = &c->rdma.aeq;
    uint32_t room;

    if (!aeq->valid) {
        return;
    }
    room = aeq->ring.size - aeq->credits;
    if (n > room) {
        e810_guest_error(c, "rdma: AEQALLOC %u with %u outstanding", n, room);
        n = room;
    }
    aeq->credits += n;
}

/* CREATE_CEQ and CREATE_AEQ: the same WQE (VMAP, LPBLSIZE, the ring or
 * its first PBLE) but for the size field. */
static bool eq_create(E810Core *c, E810RdmaEq *eq, uint32_t size,
                      uint32_t max, const uint64_t *wqe, E810CqpResult *r,
                      const char *what, uint32_t id)
{
    if (!e810_cqp_new_slot(c, r, eq, eq->valid, what, id)) {
        return false;
    }
    if (!ring_setup(c, &eq->ring, size, max, wqe[4], wqe[3] & CQPSQ_CEQ_VMAP,
                    CQPSQ_CEQ_LPBLSIZE(wqe[3]),
                    CQPSQ_CEQ_FIRSTPMPBLIDX(wqe[6]), r, what)) {
        return false;
    }
    eq->valid = true;
    trace_e810_rdma_eq(eq == &c->rdma.aeq ? "create AEQ" : "create CEQ", id,
                       eq->ring.size, wqe[4]);
    return true;
}

void e810_rdma_ceq_create(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    uint32_t id = CQPSQ_CEQ_CEQID(wqe[3]);
    E810RdmaEq *eq;

    if (id >= E810_RDMA_MAX_CEQS) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_ID, "CEQ id %u", id);
        return;
    }
    eq = &c->rdma.ceq[id];
    eq_create(c, eq, CQPSQ_CEQ_CEQSIZE(wqe[2]), E810_RDMA_MAX_CEQ_SIZE, wqe,
              r, "CEQ", id);
}

void e810_rdma_ceq_destroy(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    uint32_t id = CQPSQ_CEQ_CEQID(wqe[3]);

    if (!e810_cqp_old_slot(c, r, id < E810_RDMA_MAX_CEQS &&
                           c->rdma.ceq[id].valid, "CEQ", id)) {
        return;
    }
    c->rdma.ceq[id].valid = false;
    trace_e810_rdma_eq("destroy CEQ", id, 0, 0);
}

void e810_rdma_aeq_create(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    E810RdmaEq *aeq = &c->rdma.aeq;

    if (eq_create(c, aeq, CQPSQ_AEQ_AEQECNT(wqe[2]), E810_RDMA_MAX_AEQ_SIZE,
                  wqe, r, "AEQ", 0)) {
        aeq->credits = aeq->ring.size;
    }
}

void e810_rdma_aeq_destroy(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    if (!c->rdma.aeq.valid) {
        e810_cqp_fail(c, r, E810_CQP_MIN_INVALID_STATE, "destroy: no AEQ");
        return;
    }
    c->rdma.aeq.valid = false;
    trace_e810_rdma_eq("destroy AEQ", 0, 0, 0);
}

/* ---- CQ ----------------------------------------------------------------- */

void e810_rdma_cq_create(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    uint64_t h = wqe[3];
    uint32_t id = CQPSQ_CQ_CQID(h);
    E810RdmaCq *cq = cq_lookup(c, id);
    E810RdmaCq n;

    if (!e810_cqp_new_slot(c, r, cq, cq && cq->valid, "CQ", id)) {
        return;
    }
    memset(&n, 0, sizeof(n));
    n.ceq_valid = h & CQPSQ_CQ_CEQIDVALID;
    n.ceq = n.ceq_valid ? CQPSQ_CQ_CEQID(h) : 0;
    if (n.ceq_valid && n.ceq >= E810_RDMA_MAX_CEQS) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_ID, "CQ %u on CEQ %u", id, n.ceq);
        return;
    }
    if (!ring_setup(c, &n.ring, CQPSQ_CQ_CQSIZE(wqe[0]),
                    E810_RDMA_MAX_CQ_SIZE, wqe[4], h & CQPSQ_CQ_VIRTMAP,
                    CQPSQ_CQ_LPBLSIZE(h), CQPSQ_CQ_FIRSTPMPBLIDX(wqe[6]),
                    r, "CQ")) {
        return;
    }
    n.ceqe_mask = h & CQPSQ_CQ_ENCEQEMASK;
    n.check_overflow = h & CQPSQ_CQ_CHKOVERFLOW;
    n.ctx = CQPSQ_CQ_CQCTX(wqe[1]);
    n.shadow_pa = wqe[5];
    n.valid = true;
    *cq = n;
    trace_e810_rdma_cq("create", id, n.ring.size, n.ceq, n.ring.virt);
}

void e810_rdma_cq_modify(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    uint64_t h = wqe[3];
    uint32_t id = CQPSQ_CQ_CQID(h);
    E810RdmaCq *cq = cq_lookup(c, id);
    E810RdmaRing ring;

    if (!cq || !cq->valid) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_ID, "modify CQ %u", id);
        return;
    }
    if (!(h & CQPSQ_CQ_CQRESIZE)) {
        return;             /* nothing else is modifiable on gen2 */
    }
    /* Resize: new CQEs go to the start of the new buffer (pass 1). */
    if (!ring_setup(c, &ring, CQPSQ_CQ_CQSIZE(wqe[0]),
                    E810_RDMA_MAX_CQ_SIZE, wqe[4], h & CQPSQ_CQ_VIRTMAP,
                    CQPSQ_CQ_LPBLSIZE(h), CQPSQ_CQ_FIRSTPMPBLIDX(wqe[6]),
                    r, "CQ")) {
        return;
    }
    cq->ring = ring;
    trace_e810_rdma_cq("resize", id, ring.size, cq->ceq, ring.virt);
}

/*
 * When the CCQ goes (its DESTROY_CQ, or the CQP's destroy with the CCQ
 * still there), its consumer index is compared with the slot the engine
 * would write next.  irdma rewrites the index, qword 0 of the CCQ's shadow
 * area, after every CCQE it takes (ctrl.c irdma_sc_ccq_get_cqe_info()).
 * Ahead of the engine means the driver took CCQEs the engine never wrote,
 * i.e. one CCQE twice.  irdma's two CCQ readers can do that at unload:
 * cqp_compl_worker() (under compl_lock) still running from the last CEQE
 * while irdma_sc_cceq_destroy_done() polls for DESTROY_CEQ 0's CCQE
 * without the lock (docs/kernels.md, "Known driver races").  Its CQP SQ
 * tail is then one past its head: the ring looks full, so the CCQ's own
 * DESTROY_CQ is never posted and the CQP goes with the CCQ in place, and
 * irdma_cleanup_pending_cqp_op() puts requests that completed long ago
 * (refcount_t underflow).  Nothing the engine can undo: traced and
 * counted, so that a test tells this from a CCQE the engine wrote once
 * too often (that moves both indexes).
 *
 * At the CQP's destroy irdma has already freed the CCQ's memory
 * (irdma_destroy_ccq() runs first), so this is a look at memory just
 * given back: a diagnostic read, quiet if it fails, and no guest error.
 */
void e810_rdma_ccq_check(E810Core *c, const char *when)
{
    E810RdmaCq *cq = &c->rdma.cq[0];
    uint32_t size = cq->ring.size, cons, ahead;
    uint8_t b[8];

    if (!cq->valid || !cq->shadow_pa ||
        c->host.ops->dma_read(c->host.opaque, cq->shadow_pa, b, sizeof(b))) {
        return;
    }
    cons = ld32(b);
    if (cons >= size) {
        return;             /* not an index into this ring */
    }
    ahead = (cons + size - cq->ring.head) % size;
    if (ahead && ahead < size / 2) {
        c->stats.ccq_overconsumed += ahead;
        trace_e810_rdma_ccq_overconsumed(when, cons, cq->ring.head, ahead);
    }
}

void e810_rdma_cq_destroy(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    uint32_t id = CQPSQ_CQ_CQID(wqe[3]);
    E810RdmaCq *cq = cq_lookup(c, id);

    if (!e810_cqp_old_slot(c, r, cq && cq->valid, "CQ", id)) {
        return;
    }
    if (id == 0) {
        e810_rdma_ccq_check(c, "CCQ destroy");  /* CQ 0 is the CCQ */
    }
    cq->valid = false;
    trace_e810_rdma_cq("destroy", id, 0, 0, 0);
}

static void cq_event(E810Core *c, E810RdmaCq *cq, uint64_t qw3)
{
    bool event;

    /* Only an armed CQ raises an event, once; SE-only arms need SE or an
     * error.  This holds for the CCQ too (ENCEQEMASK clear): irdma creates
     * CEQ 0 through the CCQ before its completion workqueue exists and
     * arms the CCQ only afterwards (hw.c:irdma_ctrl_init_hw()). */
    if (cq->armed) {
        event = true;
    } else {
        event = cq->armed_se && (qw3 & (CQ_SOEVENT | CQ_ERROR));
    }
    if (event && cq->ceq_valid) {
        cq->armed = cq->armed_se = false;
        ceq_post(c, cq->ceq, cq->ctx);
    }
}

bool e810_rdma_cq_post(E810Core *c, unsigned cq_id, const uint64_t cqe[4])
{
    E810RdmaCq *cq = cq_id < E810_RDMA_MAX_CQS ? &c->rdma.cq[cq_id] : NULL;

    if (!cq || !cq->valid) {
        return false;
    }
    if (!ring_put(c, &cq->ring, E810_RDMA_CCQE_SIZE, cqe, 3)) {
        e810_guest_error(c, "rdma: CQ %u entry not writable", cq_id);
        return false;
    }
    cq_event(c, cq, cqe[3]);
    return true;
}

/*
 * A CQE with its extension in the next 32-byte slot (uk.c reads it there
 * when IRDMA_CQ_EXTCQE is set and the CQ has no 64-byte entries).  The
 * extension goes first, so a consumer that sees the base entry valid
 * finds the extension valid too.
 */
bool e810_rdma_cq_post_ext(E810Core *c, unsigned cq_id, const uint64_t cqe[4],
                           const uint64_t ext[4])
{
    E810RdmaCq *cq = cq_id < E810_RDMA_MAX_CQS ? &c->rdma.cq[cq_id] : NULL;
    E810RdmaRing base, after;

    if (!cq || !cq->valid) {
        return false;
    }
    if (cq->ring.size < 2) {
        e810_guest_error(c, "rdma: CQ %u too small for an extended CQE",
                         cq_id);
        return false;
    }
    base = cq->ring;
    if (++cq->ring.head == cq->ring.size) {
        cq->ring.head = 0;
        cq->ring.polarity ^= 1;
    }
    if (!ring_put(c, &cq->ring, E810_RDMA_CCQE_SIZE, ext, 3)) {
        cq->ring = base;
        e810_guest_error(c, "rdma: CQ %u entry not writable", cq_id);
        return false;
    }
    after = cq->ring;
    cq->ring = base;
    if (!ring_put(c, &cq->ring, E810_RDMA_CCQE_SIZE, cqe, 3)) {
        cq->ring = base;
        e810_guest_error(c, "rdma: CQ %u entry not writable", cq_id);
        return false;
    }
    cq->ring = after;
    cq_event(c, cq, cqe[3]);
    return true;
}


void e810_rdma_cq_arm(E810Core *c, uint32_t cq_id)
{
    E810RdmaCq *cq = cq_lookup(c, cq_id);
    uint8_t b[8];
    uint64_t arm;

    if (!cq || !cq->valid) {
        e810_guest_error(c, "rdma: CQARM for CQ %u", cq_id);
        return;
    }
    if (e810_dma_read(c, cq->shadow_pa + CQ_SHADOW_ARM_OFF,
                              b, sizeof(b))) {
        e810_guest_error(c, "rdma: CQ %u shadow area unreadable", cq_id);
        return;
    }
    arm = ld64(b);
    cq->armed = arm & CQ_ARM_NEXT;
    cq->armed_se = !cq->armed && (arm & CQ_ARM_NEXT_SE);
    trace_e810_rdma_cq_arm(cq_id, arm);
    /*
     * Entries written since software last polled are outstanding: software
     * keeps its head in the shadow area (offset 0) at every poll, and polls
     * before it arms without polling again (irdma_cqp_ce_handler, then
     * irdma_sc_ccq_arm).  An entry that landed in between, or one whose
     * doorbell was still on its way when the handler polled, must raise the
     * event now, or the CQ waits for a completion that may never come.
     * (Next-solicited arms are left to the next solicited entry.)
     */
    if (cq->armed &&
        !e810_dma_read(c, cq->shadow_pa + CQ_SHADOW_HEAD_OFF, b, sizeof(b))) {
        uint64_t sw_head = ld64(b);

        if (sw_head < cq->ring.size && sw_head != cq->ring.head) {
            cq_event(c, cq, 0);
        }
    }
}

/* ---- saved state -------------------------------------------------------- */

/* A ring as ring_setup makes it: pble_idx is the WQE's field (28 bits)
 * whether or not the ring is a PBL one. */
static const E810SnapField ring_fields[] = {
    SF_UX(E810RdmaRing, pa),
    SF_BOOL(E810RdmaRing, virt),
    SF_U(E810RdmaRing, pble_idx, 0, (1u << 28) - 1),
    SF_UX(E810RdmaRing, size),
    SF_UX(E810RdmaRing, head),
    SF_U(E810RdmaRing, polarity, 0, 1),
    SF_END
};

/* E810RdmaEq: valid is the table's (sparse); credits are the AEQ's only. */
static const E810SnapField eq_fields[] = {
    SF_SUB(E810RdmaEq, ring, ring_fields),
    SF_UX(E810RdmaEq, credits),
    SF_END
};

/* E810RdmaCq: valid is the table's.  ceq is 0 without ceq_valid. */
static const E810SnapField cq_fields[] = {
    SF_BOOL(E810RdmaCq, ceq_valid),
    SF_BOOL(E810RdmaCq, ceqe_mask),
    SF_BOOL(E810RdmaCq, armed),
    SF_BOOL(E810RdmaCq, armed_se),
    SF_BOOL(E810RdmaCq, check_overflow),
    SF_U(E810RdmaCq, ceq, 0, E810_RDMA_MAX_CEQS - 1),
    SF_UX(E810RdmaCq, ctx),
    SF_UX(E810RdmaCq, shadow_pa),
    SF_SUB(E810RdmaCq, ring, ring_fields),
    SF_END
};

/*
 * What ring_setup lets a ring be and ring_put keeps it: the producer
 * index inside the ring, a PBL ring's first PBLE inside the device's
 * (the committed count may have shrunk since: e810_rdma_pble_read checks
 * that at each use), a contiguous ring somewhere.  @path names the ring's
 * owner ("rdma.cq[3]").
 */
static bool ring_load_check(E810SnapR *r, const E810RdmaRing *ring,
                            uint32_t max, const char *path)
{
    if (ring->size == 0 || ring->size > max) {
        return e810_snap_fail(r, "%s.ring.size: %u not in [1, %u]", path,
                              ring->size, max);
    }
    if (ring->head >= ring->size) {
        return e810_snap_fail(r, "%s.ring.head: %u in a ring of %u", path,
                              ring->head, ring->size);
    }
    if (ring->virt && ring->pble_idx >= E810_RDMA_MAX_PBLE) {
        return e810_snap_fail(r, "%s.ring.pble_idx: %u beyond the device's "
                              "%u PBLEs", path, ring->pble_idx,
                              E810_RDMA_MAX_PBLE);
    }
    if (!ring->virt && ring->pa == 0) {
        return e810_snap_fail(r, "%s.ring.pa: 0", path);
    }
    return true;
}

/* A CEQ, or the AEQ (@aeq): only the AEQ has credits, which AEQALLOC
 * keeps within the ring. */
static bool eq_load_one(E810SnapR *r, E810RdmaEq *eq, bool aeq,
                        const char *path)
{
    if (!ring_load_check(r, &eq->ring, aeq ? E810_RDMA_MAX_AEQ_SIZE :
                         E810_RDMA_MAX_CEQ_SIZE, path)) {
        return false;
    }
    if (eq->credits > (aeq ? eq->ring.size : 0)) {
        return e810_snap_fail(r, "%s.credits: %u in a ring of %u", path,
                              eq->credits, eq->ring.size);
    }
    eq->valid = true;
    return true;
}

static bool ceq_each(E810SnapR *r, void *e, uint32_t idx, void *opaque)
{
    char path[32];

    snprintf(path, sizeof(path), "rdma.ceq[%u]", idx);
    return eq_load_one(r, e, false, path);
}

/*
 * A CQ may lie beyond the committed count (a later COMMIT_FPM_VAL may
 * have shrunk it; the CQ then takes no more CQP ops but its QPs still
 * post to it), so only the table bounds its id.
 */
static bool cq_each(E810SnapR *r, void *e, uint32_t idx, void *opaque)
{
    E810RdmaCq *cq = e;
    char path[32];

    snprintf(path, sizeof(path), "rdma.cq[%u]", idx);
    return ring_load_check(r, &cq->ring, E810_RDMA_MAX_CQ_SIZE, path);
}

static const E810SnapTable ceq_table = {
    E810_SNAP_ARRAY("rdma.ceq", rdma.ceq, E810RdmaEq, eq_fields, valid),
    .each = ceq_each,
};

static const E810SnapTable cq_table = {
    E810_SNAP_ARRAY("rdma.cq", rdma.cq, E810RdmaCq, cq_fields, valid),
    E810_SNAP_MAP(rdma.cq_dirty, E810_RDMA_DIRTY_CHUNK),
    .each = cq_each,
};

void e810_rdma_eq_save(E810Core *c, E810SnapW *w)
{
    E810Rdma *rd = &c->rdma;

    e810_snap_put_table(c, w, &ceq_table);
    e810_snap_put_u8(w, rd->aeq.valid);
    if (rd->aeq.valid) {
        e810_snap_put_fields(w, eq_fields, &rd->aeq);
    }
    e810_snap_put_table(c, w, &cq_table);
}

bool e810_rdma_eq_load(E810Core *c, E810SnapR *r, uint16_t ver)
{
    E810Rdma *rd = &c->rdma;
    bool aeq;

    if (!e810_snap_get_table(c, r, ver, &ceq_table) ||
        !e810_snap_get_bool(r, &aeq, "rdma.aeq.valid")) {
        return false;
    }
    /* A destroyed AEQ's ring is never looked at again: not saved. */
    if (aeq && (!e810_snap_get_fields(r, eq_fields, &rd->aeq, ver,
                                      "rdma.aeq") ||
                !eq_load_one(r, &rd->aeq, true, "rdma.aeq"))) {
        return false;
    }
    return e810_snap_get_table(c, r, ver, &cq_table);
}
