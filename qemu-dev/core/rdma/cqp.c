/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: registers, the control QP (CQP) and its opcode table.
 *
 * CQP work requests run inside the CQPDB write and CQPTAIL moves with
 * them; the CCQE of the last one comes E810_RDMA_CCQE_DELAY_NS later,
 * from a timer, as the card's completions come after some time.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../bytes.h"
#include "../../trace.h"
#include "rdma.h"
#include "engine.h"
#include "../snap.h"

/* QUERY_RDMA_FEATURES reply: FW version and feature flags. */
#define E810_RDMA_FW_MAJOR      1
#define E810_RDMA_FW_MINOR      0
#define FEATURE_FW_INFO         0
#define FEATURE_FTN_FLAGS       32

static void cqp_query_features(E810Core *c, const uint64_t *wqe,
                               E810CqpResult *r)
{
    uint32_t len = CQPSQ_QUERY_RDMA_FEATURES_BUF_LEN(wqe[3]);
    uint8_t buf[16];

    /* Two features: FW info (carrying the feature count) and the function
     * flags, the QP engine's (engine.h). */
    if (len < sizeof(buf)) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM,
                      "feature buffer of %u bytes", len);
        return;
    }
    st64(buf, (uint64_t)FEATURE_FW_INFO << 48 | 2ull << 32 |
         E810_RDMA_FW_MAJOR << 16 | E810_RDMA_FW_MINOR);
    st64(buf + 8, (uint64_t)FEATURE_FTN_FLAGS << 48 | E810_ENG_FTN_FLAGS);
    if (e810_dma_write(c, wqe[4], buf, sizeof(buf))) {
        e810_cqp_fail(c, r, E810_CQP_MIN_DMA,
                      "feature buffer at 0x%" PRIx64, wqe[4]);
    }
}

/* ---- the opcode table ---------------------------------------------------- */

/*
 * Every CQP opcode the engine runs, like the admin queue's command tables:
 * one row per opcode, a handler taking (core, opcode, WQE, result).  The
 * adapters below give the per-object handlers that do not need the opcode
 * the common signature.
 */
typedef void E810CqpHandler(E810Core *c, unsigned op, const uint64_t *wqe,
                            E810CqpResult *r);

typedef struct E810CqpOp {
    const char *name;
    E810CqpHandler *fn;
} E810CqpOp;

#define CQP_ADAPT(fn)                                                       \
    static void cqp_##fn(E810Core *c, unsigned op, const uint64_t *wqe,    \
                         E810CqpResult *r)                                  \
    {                                                                       \
        (void)op;                                                           \
        e810_rdma_##fn(c, wqe, r);                                          \
    }
CQP_ADAPT(query_fpm)
CQP_ADAPT(commit_fpm)
CQP_ADAPT(update_sds)
CQP_ADAPT(cq_create)
CQP_ADAPT(cq_modify)
CQP_ADAPT(cq_destroy)
CQP_ADAPT(ceq_create)
CQP_ADAPT(ceq_destroy)
CQP_ADAPT(aeq_create)
CQP_ADAPT(aeq_destroy)
CQP_ADAPT(qp_create)
CQP_ADAPT(qp_modify)
CQP_ADAPT(qp_destroy)
CQP_ADAPT(qp_flush)
CQP_ADAPT(upload_ctx)
CQP_ADAPT(arp)
CQP_ADAPT(qhash)
CQP_ADAPT(apbvt)
CQP_ADAPT(ws_node)

static void cqp_nop(E810Core *c, unsigned op, const uint64_t *wqe,
                    E810CqpResult *r)
{
}

static void cqp_features(E810Core *c, unsigned op, const uint64_t *wqe,
                         E810CqpResult *r)
{
    cqp_query_features(c, wqe, r);
}

static void cqp_suspend(E810Core *c, unsigned op, const uint64_t *wqe,
                        E810CqpResult *r)
{
    e810_rdma_qp_suspend(c, wqe, op == CQP_OP_RESUME_QP, r);
}

static void cqp_gather(E810Core *c, unsigned op, const uint64_t *wqe,
                       E810CqpResult *r)
{
    e810_pestat_gather(c, wqe, r);
}

static void cqp_push_pages(E810Core *c, unsigned op, const uint64_t *wqe,
                           E810CqpResult *r)
{
    /* No push pages exist (gen2 never enables push mode).  An allocation
     * succeeds with an index past any page, which
     * verbs.c:irdma_alloc_push_page() takes as "none" without logging an
     * error; a free has nothing to do. */
    if (!(wqe[3] & CQPSQ_MPP_FREE_PAGE)) {
        r->retval = 0xFFFFFFFFu;
    }
}

static const E810CqpOp cqp_ops[CQP_OP_COUNT] = {
    [CQP_OP_CREATE_QP]            = { "CREATE_QP", cqp_qp_create },
    [CQP_OP_MODIFY_QP]            = { "MODIFY_QP", cqp_qp_modify },
    [CQP_OP_DESTROY_QP]           = { "DESTROY_QP", cqp_qp_destroy },
    [CQP_OP_CREATE_CQ]            = { "CREATE_CQ", cqp_cq_create },
    [CQP_OP_MODIFY_CQ]            = { "MODIFY_CQ", cqp_cq_modify },
    [CQP_OP_DESTROY_CQ]           = { "DESTROY_CQ", cqp_cq_destroy },
    [CQP_OP_ALLOC_STAG]           = { "ALLOC_STAG", e810_rdma_stag },
    [CQP_OP_REG_MR]               = { "REG_MR", e810_rdma_stag },
    [CQP_OP_DEALLOC_STAG]         = { "DEALLOC_STAG", e810_rdma_stag },
    [CQP_OP_MANAGE_ARP]           = { "MANAGE_ARP", cqp_arp },
    [CQP_OP_MANAGE_PUSH_PAGES]    = { "MANAGE_PUSH_PAGES", cqp_push_pages },
    [CQP_OP_QUERY_RDMA_FEATURES]  = { "QUERY_RDMA_FEATURES", cqp_features },
    [CQP_OP_UPLOAD_CONTEXT]       = { "UPLOAD_CONTEXT", cqp_upload_ctx },
    [CQP_OP_CREATE_CEQ]           = { "CREATE_CEQ", cqp_ceq_create },
    [CQP_OP_DESTROY_CEQ]          = { "DESTROY_CEQ", cqp_ceq_destroy },
    [CQP_OP_CREATE_AEQ]           = { "CREATE_AEQ", cqp_aeq_create },
    [CQP_OP_DESTROY_AEQ]          = { "DESTROY_AEQ", cqp_aeq_destroy },
    [CQP_OP_CREATE_AH]            = { "CREATE_AH", e810_rdma_ah },
    [CQP_OP_MODIFY_AH]            = { "MODIFY_AH", e810_rdma_ah },
    [CQP_OP_DESTROY_AH]           = { "DESTROY_AH", e810_rdma_ah },
    [CQP_OP_UPDATE_PE_SDS]        = { "UPDATE_PE_SDS", cqp_update_sds },
    [CQP_OP_QUERY_FPM_VAL]        = { "QUERY_FPM_VAL", cqp_query_fpm },
    [CQP_OP_COMMIT_FPM_VAL]       = { "COMMIT_FPM_VAL", cqp_commit_fpm },
    [CQP_OP_FLUSH_WQES]           = { "FLUSH_WQES/GEN_AE", cqp_qp_flush },
    [CQP_OP_MANAGE_APBVT]         = { "MANAGE_APBVT", cqp_apbvt },
    [CQP_OP_NOP]                  = { "NOP", cqp_nop },
    [CQP_OP_MANAGE_QHASH]         = { "MANAGE_QHASH", cqp_qhash },
    [CQP_OP_CREATE_MCAST_GRP]     = { "CREATE_MCAST_GRP", e810_rdma_mcg },
    [CQP_OP_MODIFY_MCAST_GRP]     = { "MODIFY_MCAST_GRP", e810_rdma_mcg },
    [CQP_OP_DESTROY_MCAST_GRP]    = { "DESTROY_MCAST_GRP", e810_rdma_mcg },
    [CQP_OP_SUSPEND_QP]           = { "SUSPEND_QP", cqp_suspend },
    [CQP_OP_RESUME_QP]            = { "RESUME_QP", cqp_suspend },
    [CQP_OP_SHMC_PAGES_ALLOCATED] = { "SHMC_PAGES_ALLOCATED", cqp_nop },
    [CQP_OP_WORK_SCHED_NODE]      = { "WORK_SCHED_NODE", cqp_ws_node },
    [CQP_OP_MANAGE_STATS]         = { "MANAGE_STATS", e810_rdma_stats },
    [CQP_OP_GATHER_STATS]         = { "GATHER_STATS", cqp_gather },
};

const char *e810_cqp_opcode_name(unsigned op)
{
    return op < CQP_OP_COUNT && cqp_ops[op].name ? cqp_ops[op].name : "?";
}

/* ---- one WQE ------------------------------------------------------------ */

static void cqp_execute(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    unsigned op = CQPSQ_OPCODE(wqe[3]);

    if (e810_fault_cqp(c, op, &r->maj, &r->min)) {
        return;                 /* refused, as asked (fault.h) */
    }

    if (!cqp_ops[op].fn) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_OPCODE, "opcode 0x%x", op);
        return;
    }
    cqp_ops[op].fn(c, op, wqe, r);
    if (!r->maj) {
        e810_eng_cqp(c, op, wqe, r);    /* the QP engine follows */
    }
}

/* Write the CCQE of the WQE at @idx (CQ id 0 is the CCQ). */
static void ccqe_write(E810Core *c, uint32_t idx, const E810CqpResult *r)
{
    E810Rdma *rd = &c->rdma;
    uint64_t cqe[4];

    if (!rd->cq[0].valid) {
        c->stats.ccqes_dropped++;
        trace_e810_rdma_ccqe_dropped(idx, "no CCQ");
        return;
    }
    cqe[0] = 0;
    cqe[1] = rd->cqp_cookie;
    cqe[2] = r->retval;
    cqe[3] = (uint64_t)r->min | (uint64_t)r->maj << 16 |
             (uint64_t)idx << 32 | (r->maj ? CQ_ERROR : 0);
    if (e810_rdma_cq_post(c, 0, cqe)) {
        rd->stats.ccqes++;
    }
}

/* The WQE before cqp_tail, whose CCQE may still be pending. */
static uint32_t cqp_last(const E810Rdma *rd)
{
    return (rd->cqp_tail + rd->cqp_size - 1) % rd->cqp_size;
}

/* Write the pending CCQE now: its time is up, or the next WQE runs. */
static void ccqe_flush(E810Core *c)
{
    E810Rdma *rd = &c->rdma;

    if (rd->ccqe_pending) {
        rd->ccqe_pending = false;
        e810_timer_del(rd->ccqe_timer);
        ccqe_write(c, cqp_last(rd), &rd->ccqe_res);
    }
}

static void ccqe_timer_cb(void *opaque)
{
    E810Core *c = opaque;

    if (c->rdma.cqp_active) {
        ccqe_flush(c);
    }
}

/* Completion of the WQE at @idx: CQPTAIL now, the CCQ (once it exists)
 * after E810_RDMA_CCQE_DELAY_NS. */
static void cqp_complete(E810Core *c, uint32_t idx, const E810CqpResult *r)
{
    E810Rdma *rd = &c->rdma;
    bool err = r->maj != 0;

    if (err) {
        rd->stats.cqp_errors++;
        e810_reg_set(c, PFPE_CQPERRCODES, (uint32_t)r->maj << 16 | r->min);
    }
    e810_reg_set(c, PFPE_CQPTAIL, rd->cqp_tail | (err ? PFPE_CQPTAIL_OP_ERR : 0));
    if (!rd->cq[0].valid) {
        return;                 /* before the CCQ, or its own destroy */
    }
    if (!rd->ccqe_timer) {
        ccqe_write(c, idx, r);  /* a host without timers */
        return;
    }
    rd->ccqe_res = *r;
    rd->ccqe_pending = true;
    e810_timer_mod(rd->ccqe_timer, e810_now(c) + E810_RDMA_CCQE_DELAY_NS);
}

static void cqp_doorbell(E810Core *c, uint32_t head)
{
    E810Rdma *rd = &c->rdma;
    uint32_t budget;

    if (!rd->cqp_active) {
        e810_guest_error(c, "rdma: CQP doorbell %u without a CQP", head);
        return;
    }
    if (head >= rd->cqp_size) {
        e810_guest_error(c, "rdma: CQP doorbell %u beyond ring of %u",
                         head, rd->cqp_size);
        return;
    }
    if (rd->in_cqp) {
        return;
    }
    rd->in_cqp = true;
    e810_eng_cqp_doorbell(c);
    for (budget = rd->cqp_size; budget && rd->cqp_tail != head; budget--) {
        uint32_t idx = rd->cqp_tail;
        uint64_t addr = rd->cqp_sq_pa + (uint64_t)idx * E810_RDMA_CQP_WQE_SIZE;
        uint8_t raw[E810_RDMA_CQP_WQE_SIZE];
        uint64_t wqe[8];
        E810CqpResult r = { 0 };
        int i;

        ccqe_flush(c);          /* in order: the last op's CCQE first */
        if (e810_dma_read(c, addr, raw, sizeof(raw))) {
            e810_guest_error(c, "rdma: CQP WQE %u at 0x%" PRIx64
                             " not readable", idx, addr);
            /* Consume it with an error so the driver does not hang. */
            memset(wqe, 0, sizeof(wqe));
            r.maj = E810_CQP_MAJ_ERR;
            r.min = E810_CQP_MIN_DMA;
        } else {
            for (i = 0; i < 8; i++) {
                wqe[i] = ld64(raw + 8 * i);
            }
            if (!!(wqe[3] & CQPSQ_WQEVALID) != rd->cqp_polarity) {
                /* Not yet written: the doorbell ran ahead of the ring. */
                e810_guest_error(c, "rdma: CQP WQE %u has stale valid bit",
                                 idx);
                break;
            }
            trace_e810_rdma_cqp_op(idx, CQPSQ_OPCODE(wqe[3]), wqe[3],
                                   e810_cqp_opcode_name(CQPSQ_OPCODE(wqe[3])));
            cqp_execute(c, wqe, &r);
        }
        rd->stats.cqp_ops++;
        rd->cqp_tail = (idx + 1) % rd->cqp_size;
        if (rd->cqp_tail == 0) {
            rd->cqp_polarity ^= 1;
        }
        if (r.maj) {
            trace_e810_rdma_cqp_err(idx, CQPSQ_OPCODE(wqe[3]), r.maj, r.min,
                                    e810_cqp_opcode_name(CQPSQ_OPCODE(wqe[3])));
        }
        /* The CQP may have been torn down by a reset hook meanwhile. */
        if (!rd->cqp_active) {
            break;
        }
        cqp_complete(c, idx, &r);
    }
    rd->in_cqp = false;
}

/* ---- CQP create / destroy (CCQPLOW write) -------------------------------- */

/* Zero the chunks of table @base (@n entries of @stride bytes) that
 * @map says were written, and forget them. */
static void table_clear(void *base, size_t stride, uint32_t n, uint64_t *map,
                        unsigned words)
{
    for (unsigned w = 0; w < words; w++) {
        while (map[w]) {
            uint32_t first = (w * 64 + (unsigned)__builtin_ctzll(map[w])) *
                             E810_RDMA_DIRTY_CHUNK;
            uint32_t cnt = n - first < E810_RDMA_DIRTY_CHUNK ?
                           n - first : E810_RDMA_DIRTY_CHUNK;

            if (base && first < n) {
                memset((uint8_t *)base + first * stride, 0, cnt * stride);
            }
            map[w] &= map[w] - 1;
        }
    }
}

static void cqp_state_clear(E810Core *c)
{
    E810Rdma *rd = &c->rdma;
    E810RdmaMr *mr = rd->mr;
    void *ah = rd->ah;
    E810RdmaMcg *mcg = rd->mcg;
    struct E810Eng *eng = rd->eng;
    struct E810Roce *roce = rd->roce;
    E810CoreTimer *ccqe_timer = rd->ccqe_timer;

    if (rd->ccqe_pending) {
        /* The CQP goes (destroy, reset): its CCQ is no place to write. */
        c->stats.ccqes_dropped++;
        trace_e810_rdma_ccqe_dropped(cqp_last(rd), "CQP gone");
    }
    e810_timer_del(ccqe_timer);
    e810_eng_reset(c);
    /* The tables stay allocated; what was written of them is cleared. */
    table_clear(mr, sizeof(*rd->mr), E810_RDMA_MAX_MRS, rd->mr_dirty,
                sizeof(rd->mr_dirty) / 8);
    table_clear(rd->cq, sizeof(rd->cq[0]), E810_RDMA_MAX_CQS, rd->cq_dirty,
                sizeof(rd->cq_dirty) / 8);
    table_clear(ah, sizeof(*rd->ah), E810_RDMA_MAX_AH, rd->ah_dirty,
                sizeof(rd->ah_dirty) / 8);
    table_clear(mcg, sizeof(*rd->mcg), E810_RDMA_MAX_MCG, rd->mcg_dirty,
                sizeof(rd->mcg_dirty) / 8);
    /* Everything the engine knows goes with the CQP (the CQs above). */
    memset(rd, 0, offsetof(E810Rdma, cq));
    memset((uint8_t *)rd + offsetof(E810Rdma, ceq), 0,
           sizeof(*rd) - offsetof(E810Rdma, ceq));
    rd->mr = mr;
    rd->ah = ah;
    rd->mcg = mcg;
    rd->eng = eng;
    rd->roce = roce;
    rd->ccqe_timer = ccqe_timer;
    e810_rdma_hmc_reset(c);
}

static void cqp_create(E810Core *c, uint64_t pa)
{
    E810Rdma *rd = &c->rdma;
    uint8_t raw[64];
    uint64_t q0, q4;
    unsigned enc;
    uint16_t minor = 0;

    if (e810_dma_read(c, pa, raw, sizeof(raw))) {
        minor = E810_CQP_MIN_DMA;
        e810_guest_error(c, "rdma: CQP context at 0x%" PRIx64 " unreadable", pa);
        goto fail;
    }
    q0 = ld64(raw);
    q4 = ld64(raw + 32);
    enc = CQPHC_SQSIZE(q0);
    /* Encoded size n means 2^(n+1) WQEs; CQPTAIL holds 11 bits. */
    if (enc < 1 || enc > 10) {
        minor = E810_CQP_MIN_BAD_PARAM;
        e810_guest_error(c, "rdma: CQP SQ size code %u", enc);
        goto fail;
    }
    if (CQPHC_PROTOCOL(q0) != 1 && CQPHC_PROTOCOL(q0) != 2) {
        minor = E810_CQP_MIN_BAD_PARAM;
        e810_guest_error(c, "rdma: CQP protocol %u", CQPHC_PROTOCOL(q0));
        goto fail;
    }
    if (CQPHC_HW_MAJVER(q4) != 1) {
        minor = E810_CQP_MIN_BAD_PARAM;
        e810_guest_error(c, "rdma: CQP HW major version %u",
                         CQPHC_HW_MAJVER(q4));
        goto fail;
    }
    cqp_state_clear(c);
    rd->cqp_active = true;
    rd->cqp_ctx_pa = pa;
    rd->cqp_size = 1u << (enc + 1);
    rd->cqp_sq_pa = ld64(raw + 8) & ~0x1FFull;
    rd->cqp_cookie = ld64(raw + 24);
    rd->protocol = CQPHC_PROTOCOL(q0);
    rd->cqp_tail = 0;
    rd->cqp_polarity = 1;
    e810_reg_set(c, PFPE_CQPTAIL, 0);
    e810_reg_set(c, PFPE_CQPERRCODES, 0);
    e810_reg_set(c, PFPE_CCQPSTATUS, PFPE_CCQPSTATUS_DONE);
    trace_e810_rdma_cqp_create(pa, rd->cqp_size, rd->protocol);
    return;
fail:
    e810_reg_set(c, PFPE_CQPERRCODES, E810_CQP_MAJ_ERR << 16 | minor);
    e810_reg_set(c, PFPE_CCQPSTATUS,
                 PFPE_CCQPSTATUS_DONE | PFPE_CCQPSTATUS_ERR);
}

static void cqp_destroy(E810Core *c)
{
    trace_e810_rdma_cqp_destroy(c->rdma.stats.cqp_ops);
    e810_rdma_ccq_check(c, "CQP destroy");
    cqp_state_clear(c);
    e810_reg_set(c, PFPE_CCQPSTATUS, 0);
    e810_reg_set(c, PFPE_CQPTAIL, 0);
}

/* ---- registers ---------------------------------------------------------- */

static void rdma_regs_defaults(E810Core *c)
{
    uint32_t lbar = e810_reg(c, GLPCI_LBARCTRL);

    /* The PE firmware is up: irdma_wait_pe_ready() polls for 0x80. */
    e810_reg_set(c, GLPE_CPUSTATUS0, GLPE_CPUSTATUS_READY);
    e810_reg_set(c, GLPE_CPUSTATUS1, GLPE_CPUSTATUS_READY);
    e810_reg_set(c, GLPE_CPUSTATUS2, GLPE_CPUSTATUS_READY);
    lbar &= ~(3u << GLPCI_LBARCTRL_PE_DB_SIZE_S);
    e810_reg_set(c, GLPCI_LBARCTRL,
                 lbar | E810_PE_DB_SIZE_8M << GLPCI_LBARCTRL_PE_DB_SIZE_S);
}

bool e810_rdma_write(E810Core *c, uint32_t off, uint32_t val)
{
    E810Rdma *rd = &c->rdma;

    if (off >= E810_RDMA_DB_PAGE && off < E810_RDMA_DB_PAGE + E810_RDMA_DB_PAGE_SIZE) {
        /* libirdma's doorbells: same meaning as WQEALLOC and CQARM. */
        rd->stats.doorbells++;
        switch (off - E810_RDMA_DB_PAGE) {
        case E810_RDMA_DB_WQEALLOC:
            e810_rdma_wqe_alloc(c, val);
            break;
        case E810_RDMA_DB_CQARM:
            e810_rdma_cq_arm(c, val);
            break;
        default:
            e810_guest_error(c, "rdma: doorbell page write at +0x%x",
                             off - E810_RDMA_DB_PAGE);
            break;
        }
        return true;
    }
    switch (off) {
    case PFPE_CCQPLOW: {
        uint64_t pa = (uint64_t)e810_reg(c, PFPE_CCQPHIGH) << 32 | val;

        e810_reg_set(c, off, val);
        if (pa) {
            cqp_create(c, pa);
        } else {
            cqp_destroy(c);
        }
        return true;
    }
    case PFPE_CQPDB:
        e810_reg_set(c, off, val);
        if (val == 0 && !rd->cqp_active) {
            return true;        /* irdma_sc_cqp_init() clears it */
        }
        cqp_doorbell(c, val & PFPE_CQPTAIL_WQTAIL_M);
        return true;
    case PFPE_CQPTAIL:
        /* Device-maintained; the driver only zeroes it before create. */
        if (!rd->cqp_active) {
            e810_reg_set(c, off, 0);
            rd->cqp_tail = 0;
        }
        return true;
    case PFPE_CCQPSTATUS:
        if (!rd->cqp_active) {
            e810_reg_set(c, off, val);
        }
        return true;
    case PFPE_CQPERRCODES:
    case GLPE_CPUSTATUS0:
    case GLPE_CPUSTATUS1:
    case GLPE_CPUSTATUS2:
    case GLPE_CRITERR:
    case PFHMC_ERRORINFO:
    case PFHMC_ERRORDATA:
        return true;            /* read-only */
    case PFPE_CQARM:
        rd->stats.doorbells++;
        e810_rdma_cq_arm(c, val);
        return true;
    case PFPE_CQACK:
        return true;            /* nothing outstanding per CQ is modelled */
    case PFPE_AEQALLOC:
        e810_rdma_aeq_alloc(c, val);
        return true;
    case PFPE_WQEALLOC:
        rd->stats.doorbells++;
        e810_rdma_wqe_alloc(c, val);
        return true;
    default:
        return false;
    }
}

void e810_rdma_reset(E810Core *c, E810ResetType type)
{
    /* A PF reset takes the engine down with the function. */
    (void)type;
    cqp_state_clear(c);
    rdma_regs_defaults(c);
}

void e810_rdma_init(E810Core *c)
{
    E810Rdma *rd = &c->rdma;

    rd->mr = calloc(E810_RDMA_MAX_MRS, sizeof(*rd->mr));
    rd->ah = calloc(E810_RDMA_MAX_AH, sizeof(*rd->ah));
    rd->mcg = calloc(E810_RDMA_MAX_MCG, sizeof(*rd->mcg));
    rd->ccqe_timer = e810_timer_new(c, ccqe_timer_cb, c);
}

void e810_rdma_cleanup(E810Core *c)
{
    e810_eng_cleanup(c);
    e810_timer_free(c->rdma.ccqe_timer);
    c->rdma.ccqe_timer = NULL;
    free(c->rdma.mr);
    free(c->rdma.ah);
    free(c->rdma.mcg);
    c->rdma.mr = NULL;
    c->rdma.ah = NULL;
    c->rdma.mcg = NULL;
}

/* ---- saved state -------------------------------------------------------- */

/*
 * E810Rdma, record E810_SNAP_RDMA:
 *   cqp_active, then, only with it (cqp_state_clear wipes the rest):
 *   the CQP below; HMC counts and SDs (hmc.c); CEQs, AEQ, CQs (eq.c);
 *   STags, ARP, AHs, quad hash, bitmaps (qp.c); multicast groups (mcg.c);
 *   the control QPs (qp.c), last.
 *   Then always pestat and stats, which outlive a CQP (doorbells count
 *   without one).
 * Then (version 2) the pending CCQE (ccqe_save).
 * Not saved: in_cqp (false: CQP ops run to completion within an entry);
 * ccqe_timer (host; started again by ccqe_load);
 * obj[].max_cnt, size_log2 and base (hmc.c derives them); mcg_count
 * (recounted); the tables behind mr, ah and mcg are host memory allocated
 * at init, of which the valid entries are saved; eng and roce are the QP
 * engine's (record E810_SNAP_ENG, engine.c).
 */
static const E810SnapField rdma_cqp_fields[] = {
    SF_UX(E810Rdma, cqp_ctx_pa),
    SF_UX(E810Rdma, cqp_sq_pa),
    SF_UX(E810Rdma, cqp_cookie),
    /* 2^(n+1) WQEs with n in 1..10 (cqp_create) */
    SF_U(E810Rdma, cqp_size, 4, 2048),
    SF_UX(E810Rdma, cqp_tail),
    SF_U(E810Rdma, cqp_polarity, 0, 1),
    SF_U(E810Rdma, protocol, PROTOCOL_IWARP, PROTOCOL_ROCE),
    SF_END
};

static const E810SnapField rdma_counter_fields[] = {
    SF_UX(E810RdmaCounters, cqp_ops),
    SF_UX(E810RdmaCounters, cqp_errors),
    SF_UX(E810RdmaCounters, ccqes),
    SF_UX(E810RdmaCounters, ceqes),
    SF_UX(E810RdmaCounters, aeqes),
    SF_UX(E810RdmaCounters, aeq_overflows),
    SF_UX(E810RdmaCounters, doorbells),
    SF_UX(E810RdmaCounters, stag_errors),
    SF_END
};

static const E810SnapField rdma_stat_fields[] = {
    SF_UAX(E810Rdma, pestat),
    SF_SUB(E810Rdma, stats, rdma_counter_fields),
    SF_END
};

/* Version 2: the pending CCQE, [u8 pending] then, if set, [u16 major]
 * [u16 minor] [u32 retval]; its timer starts again at load. */
static void ccqe_save(const E810Rdma *rd, E810SnapW *w)
{
    e810_snap_put_u8(w, rd->ccqe_pending);
    if (rd->ccqe_pending) {
        e810_snap_put_u16(w, rd->ccqe_res.maj);
        e810_snap_put_u16(w, rd->ccqe_res.min);
        e810_snap_put_u32(w, rd->ccqe_res.retval);
    }
}

static bool ccqe_load(E810Core *c, E810SnapR *r)
{
    E810Rdma *rd = &c->rdma;

    if (!e810_snap_get_bool(r, &rd->ccqe_pending, "rdma.ccqe_pending")) {
        return false;
    }
    if (!rd->ccqe_pending) {
        return true;
    }
    if (!e810_snap_get_u16(r, &rd->ccqe_res.maj, "rdma.ccqe_res.maj") ||
        !e810_snap_get_u16(r, &rd->ccqe_res.min, "rdma.ccqe_res.min") ||
        !e810_snap_get_u32(r, &rd->ccqe_res.retval, "rdma.ccqe_res.retval")) {
        return false;
    }
    e810_timer_mod(rd->ccqe_timer, e810_now(c) + E810_RDMA_CCQE_DELAY_NS);
    return true;
}

static void e810_rdma_save(E810Core *c, E810SnapW *w)
{
    E810Rdma *rd = &c->rdma;

    e810_snap_put_u8(w, rd->cqp_active);
    if (rd->cqp_active) {
        e810_snap_put_fields(w, rdma_cqp_fields, rd);
        ccqe_save(rd, w);
        e810_rdma_hmc_save(c, w);
        e810_rdma_eq_save(c, w);
        e810_rdma_tables_save(c, w);
        e810_rdma_mcg_save(c, w);
        e810_rdma_qps_save(c, w);
    }
    e810_snap_put_fields(w, rdma_stat_fields, rd);
}

static bool e810_rdma_load(E810Core *c, E810SnapR *r, uint16_t ver)
{
    E810Rdma *rd = &c->rdma;

    if (!e810_snap_get_bool(r, &rd->cqp_active, "rdma.cqp_active")) {
        return false;
    }
    if (rd->cqp_active) {
        if (!e810_snap_get_fields(r, rdma_cqp_fields, rd, ver, "rdma")) {
            return false;
        }
        if (rd->cqp_size & (rd->cqp_size - 1)) {
            return e810_snap_fail(r, "rdma.cqp_size: %u WQEs, not a power "
                                  "of 2", rd->cqp_size);
        }
        if (rd->cqp_tail >= rd->cqp_size) {
            return e810_snap_fail(r, "rdma.cqp_tail: %u in a ring of %u",
                                  rd->cqp_tail, rd->cqp_size);
        }
        if (ver >= 2 && !ccqe_load(c, r)) {
            return false;
        }
        if (!e810_rdma_hmc_load(c, r, ver) ||
            !e810_rdma_eq_load(c, r, ver) ||
            !e810_rdma_tables_load(c, r, ver) ||
            !e810_rdma_mcg_load(c, r, ver) ||
            !e810_rdma_qps_load(c, r, ver)) {
            return false;
        }
    }
    return e810_snap_get_fields(r, rdma_stat_fields, rd, ver, "rdma");
}

const E810SnapPart e810_rdma_snap = {
    .name = "rdma", .save = e810_rdma_save, .load = e810_rdma_load,
};
