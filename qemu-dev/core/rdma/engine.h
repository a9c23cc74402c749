/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: the QP data path shared by both transports.
 *
 * One engine per device holds the data-path QPs, their one timer and the
 * bottom half's round (engine.c).  What a QP is to the engine -- its SQ
 * and RQ, CQs, PD, the WQEs it works on in SQ order, the receive in
 * progress -- is E810EngQp, the first member of each transport's QP
 * (iwarp/qp.c for iWARP, roce/ for RoCEv2).  The transport is chosen per
 * QP at CREATE_QP from the protocol the CQP was created with, and the
 * engine reaches it only through its E810EngOps: adding a transport is a
 * table, not a second copy of the shell.
 */
#ifndef E810_RDMA_ENGINE_H
#define E810_RDMA_ENGINE_H

#include "../types.h"
#include "../snap.h"
#include "rdma.h"
#include "wqe.h"
#include "qpctx.h"

typedef struct E810EngQp E810EngQp;

/* An SQ WQE as the engine tracks it; the first member of the
 * transport's WQE (the rest follows it, E810EngOps.wqe_size apart). */
typedef struct E810EngWqe {
    uint32_t idx;               /* first quantum */
    uint8_t quanta;
    uint8_t op;
    bool signaled;
    bool done;
    bool inl;
    int status;                 /* 0 or an AE code */
    unsigned nsge;
    E810Sge sge[E810_WQE_MAX_SGE];
    uint32_t len;
    uint8_t inl_data[E810_WQE_MAX_INLINE];
} E810EngWqe;

typedef struct E810EngOps {
    const char *name;
    unsigned protocol;          /* the CQP's (CQPHC_PROTOCOL) */
    size_t qp_size;             /* the transport's QP, E810EngQp first */
    size_t wqe_size;            /* its WQE, E810EngWqe first */
    unsigned wq_max;            /* WQEs a WQ holds (fewer for a small SQ) */
    /* Whether CREATE_QP of a QP of @type makes QP @id one of ours. */
    bool (*takes)(unsigned type, uint32_t id);
    /* CREATE_QP: the context @x read; false refuses the op (no memory). */
    bool (*create)(E810EngQp *q, uint64_t h, const E810QpCtx *x);
    /* MODIFY_QP with the context @x. */
    void (*modify)(E810EngQp *q, uint64_t h, const E810QpCtx *x,
                   E810CqpResult *r);
    /* DESTROY_QP, before the QP is freed (may be NULL). */
    void (*destroy)(E810EngQp *q);
    /* FLUSH_WQES with SQ or RQ: the QP stopped, its SQ's WQEs gone with
     * @sq; may be NULL. */
    void (*flushed)(E810EngQp *q, bool sq);
    /* The QP's own memory besides the shell and its WQ (may be NULL). */
    void (*release)(E810EngQp *q);
    /* The bottom half's turn: send what the QP has. */
    void (*run)(E810EngQp *q);
    /* Its deadline passed (already cleared). */
    void (*timeout)(E810EngQp *q);
    /* An AE for the QP. */
    void (*ae)(E810EngQp *q, unsigned code, unsigned src);
    /* A fault stops the QP (fault.h): its connection goes at once, as
     * the card's does when it fails a QP (may be NULL: nothing to drop). */
    void (*abort)(E810EngQp *q);
    /* The QP stopped with an error (may be NULL). */
    void (*halt)(E810EngQp *q);
    /* The head WQE retired (may be NULL). */
    void (*retired)(E810EngQp *q);
    /*
     * A frame (parsed once at the device's entry, untagged) that the
     * port steered to the engine: for iWARP, @qp_id is the offloaded QP
     * owning its TCP 4-tuple, whose IP and TCP headers have been checked
     * (lengths, no IPv4 options, checksums); for RoCEv2 (@qp_id 0) a UDP
     * datagram for the port or a group it takes.  True if consumed
     * (placed, or dropped and counted); false: the port goes on steering
     * it as if no QP owned it.
     */
    bool (*rx)(E810Core *c, uint32_t qp_id, const E810Frame *fr);
    /* TCP segments its connections sent again (statistics; may be NULL). */
    uint64_t (*rexmits)(E810Core *c);
    /* A CQP doorbell, before its WQEs run (may be NULL). */
    void (*cqp_doorbell)(E810Core *c);
    /* The transport's own state freed with the device (may be NULL). */
    void (*cleanup)(E810Core *c);
    /*
     * Saved state (snap.h): the transport's part of a QP, after the
     * engine's (its WQ allocated, wq_cnt set, the WQEs not read yet).
     * load checks what it reads, allocates what the QP owns (charged as
     * at CREATE_QP) and names a failure after @path ("eng.qp[5]").
     */
    void (*save)(E810EngQp *q, E810SnapW *w);
    bool (*load)(E810EngQp *q, E810SnapR *r, uint16_t ver, const char *path);
    /* The transport's part of a WQE, after the engine's part of it: its
     * fields (offsets in the transport's WQE), which the engine saves
     * and loads; then wqe_check checks WQE @w, the @i-th from the WQ's
     * head (the QP is loaded). */
    const E810SnapField *wqe_fields;
    bool (*wqe_check)(E810EngQp *q, E810EngWqe *w, unsigned i, E810SnapR *r,
                      const char *path);
    /* The transport's own state of the device, before any QP (may be
     * NULL). */
    void (*dev_save)(E810Core *c, E810SnapW *w);
    bool (*dev_load)(E810Core *c, E810SnapR *r, uint16_t ver);
} E810EngOps;

struct E810EngQp {
    E810Core *c;
    const E810EngOps *ops;
    uint32_t id;
    bool vq;
    bool halted;                /* ERROR: no more work, no more CQEs */
    bool in_run;
    bool tx_pending;            /* work for the bottom half (txsched.h) */
    int64_t deadline;           /* the QP's timer, -1 none */
    E810RdmaRing sq, rq;
    unsigned rq_shift;
    uint32_t sq_idx, rq_idx;
    uint8_t sq_pol, rq_pol;
    uint32_t txcq, rxcq, pd;
    bool priv;
    /* The WQEs taken from the SQ and not retired, in SQ order. */
    uint8_t *wq;
    unsigned wq_size, wq_head, wq_cnt;
    /* The receive in progress: the RQ WQE it fills. */
    bool rcv_active;
    uint32_t rcv_idx;
    unsigned rcv_nsge;
    E810Sge rcv_sge[E810_WQE_MAX_SGE];
    uint64_t rcv_cap;
};

/*
 * What the QP engine offers the driver, as QUERY_RDMA_FEATURES' function
 * flags (irdma's IRDMA_FEATURE_*, cqp.c reports them): no ATOMIC_OPS --
 * neither transport carries atomics; the RoCE responder answers them as
 * invalid requests (roce/resp.c), libirdma refuses to post them -- and no
 * RSRC_VER2 (the driver keeps its gen2 IRD/ORD).
 */
#define E810_ENG_FTN_FLAGS      0ull

extern const E810EngOps e810_iwarp_ops;
extern const E810EngOps e810_roce_ops;

/* ---- the engine's entry points (control path, doorbells, bottom half) -- */

/* After a CQP op on a QP (CREATE/MODIFY/DESTROY_QP, FLUSH_WQES) completed
 * without an error: the data path follows it. */
void e810_eng_cqp(E810Core *c, unsigned op, const uint64_t *wqe,
                  E810CqpResult *r);
/* A CQP doorbell, before its WQEs run. */
void e810_eng_cqp_doorbell(E810Core *c);
/* SQ doorbell (WQEALLOC, the user page): only notes the work. */
void e810_eng_doorbell(E810Core *c, uint32_t qp_id);
/* The bottom half (e810.c): pending QPs in turn, within the budget. */
void e810_eng_tx_run(E810Core *c);
/* Every QP dropped (CQP destroy, PF reset) / the engine freed. */
void e810_eng_reset(E810Core *c);
void e810_eng_cleanup(E810Core *c);
/*
 * Saved state: the data-path QPs (record E810_SNAP_ENG).  Load runs after
 * the control path's record (the protocol, HMC counts and control QPs)
 * into a device just reset; it re-arms the engine's timer.  An offloaded
 * connection is not carried: e810_eng_unmigratable says why the engine
 * cannot be saved now (a message for the user), or NULL.
 */
/* An AE that stops QP @qp_id (a fault asked for, fault.h); false if the
 * engine has no such QP. */
bool e810_eng_fault_ae(E810Core *c, uint32_t qp_id, unsigned ae,
                       unsigned src);
/* The port's way into the transport (E810EngOps.rx, .rexmits). */
bool e810_eng_rx(E810Core *c, uint32_t qp_id, const E810Frame *fr);
uint64_t e810_eng_rexmits(E810Core *c);
extern const struct E810SnapPart e810_eng_snap;
/* The part's load, which the unit tests also call on their own. */
bool e810_eng_load(E810Core *c, E810SnapR *r, uint16_t ver);
const char *e810_eng_unmigratable(E810Core *c);

/* ---- the shell, for the transports -------------------------------------- */

E810EngQp *e810_eng_find(E810Core *c, uint32_t id);
/* The QP ids in use are below this: loops over the QPs stop there. */
uint32_t e810_eng_qp_end(E810Core *c);
/* Work for the bottom half; whether some QP has any. */
void e810_eng_tx_note(E810EngQp *q);
bool e810_eng_tx_pending(E810Core *c);
/* @q's deadline is set: the one timer fires by then. */
void e810_eng_timer_want(E810EngQp *q);
/* The WQE @i places after the WQ's head. */
E810EngWqe *e810_eng_wq_at(E810EngQp *q, unsigned i);
/* Allocate the WQ: up to ops->wq_max WQEs, no more than the SQ holds;
 * charged to mem_limit.  False without memory. */
bool e810_eng_wq_alloc(E810EngQp *q);
/* A QP took (@held) or gave back an offloaded connection (iWARP): while
 * any is held the host is told the device cannot be migrated. */
void e810_eng_conn_held(E810Core *c, bool held);
/* The WQE at the SQ consumer index: its first quantum into @raw, @hdr
 * and @qw; @w cleared with its index, opcode, signaled flag and one
 * quantum.  False if none is there (valid bit not ours) or unreadable. */
bool e810_eng_sq_fetch(E810EngQp *q, E810EngWqe *w, uint8_t raw[32],
                       uint64_t *hdr, uint64_t qw[4]);
/* Its payload: the inline data, or the SGE list (a zero-length first
 * fragment kept with @keep_empty0, as iWARP's zero-length READ needs). */
void e810_eng_sq_payload(E810EngQp *q, E810EngWqe *w, const uint8_t *raw,
                         uint64_t h, const uint64_t qw[4], bool keep_empty0);
void e810_eng_sq_advance(E810EngQp *q, unsigned quanta);
/* Take the RQ WQE at the consumer index into the receive in progress;
 * false if none is posted. */
bool e810_eng_rq_take(E810EngQp *q);
/* No host memory for QP @id's data path: the CQP op fails, the QP goes
 * to ERROR. */
void e810_eng_refuse(E810Core *c, E810CqpResult *r, uint32_t id);
/* The QP stops with an AE (once). */
void e810_eng_fatal(E810EngQp *q, unsigned ae, unsigned src);
/* SQ completion for @w on the QP's send CQ. */
void e810_eng_sq_cqe(E810EngQp *q, const E810EngWqe *w);
/* Receive completion for the receive in progress on the QP's receive CQ:
 * @op the CQE's opcode, @qw2lo the UD source QP or the invalidated STag,
 * @flags qword 3's (error, invalidate, solicited event); with @imm an
 * extended CQE carries @imm_data. */
void e810_eng_rq_cqe(E810EngQp *q, uint64_t len, unsigned op, uint64_t qw2lo,
                     uint64_t flags, bool imm, uint32_t imm_data);
/* Retire finished WQEs in SQ order (CQEs for signaled ones and errors). */
void e810_eng_wq_retire(E810EngQp *q);
/* Who accesses memory for the QP (xlate.c). */
E810MemOwner e810_eng_owner(E810EngQp *q);
/* What both transports take of the QP context: the rings, PD, CQs and
 * privilege. */
void e810_eng_ctx_load(E810EngQp *q, const E810QpCtx *x);

#endif
