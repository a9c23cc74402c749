/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: what the iWARP and RoCEv2 QP data paths share -- SGE
 * lists moved through the STag translation, the AE codes for its
 * failures, local/remote invalidation, fast registration, and reads of a
 * QP's rings.
 */
#ifndef E810_RDMA_WQE_H
#define E810_RDMA_WQE_H

#include "../types.h"
#include "rdma.h"

typedef struct E810Sge {
    uint32_t stag;
    uint64_t to;
    uint32_t len;
} E810Sge;

/* Whose memory: the QP's protection domain and privilege. */
typedef struct E810MemOwner {
    E810Core *c;
    uint32_t qp_id;
    uint32_t pd;
    bool priv;
} E810MemOwner;

/* A copy through e810_rdma_xlate: to guest memory from @src (@write), from
 * it into @buf, or only a check (@dry). */
typedef struct E810XCopy {
    E810Core *c;
    uint8_t *buf;
    const uint8_t *src;
    bool write;
    bool dry;
} E810XCopy;
bool e810_xcopy_fn(void *opaque, uint64_t pa, uint64_t len);

/* Copy @len bytes at offset @off of an SGE list to (@src) or from (@buf)
 * the host; an E810_XLATE_* result. */
int e810_sge_copy(const E810MemOwner *o, const E810Sge *sge, unsigned n,
                  uint64_t off, uint8_t *buf, const uint8_t *src, size_t len,
                  unsigned access);
/* Every SGE translates with @access. */
int e810_sge_check(const E810MemOwner *o, const E810Sge *sge, unsigned n,
                   unsigned access);
/* The AE for a failed local translation. */
unsigned e810_xlate_ae(int r);
/* Invalidate @stag (locally, or on a peer's request: @remote); 0 or AE. */
unsigned e810_stag_invalidate(const E810MemOwner *o, uint32_t stag,
                              bool remote);
/* FAST_REGISTER SQ WQE @w (4 qwords); 0 or AE. */
unsigned e810_fast_reg(const E810MemOwner *o, const uint64_t *w);
/* @len bytes at byte @off of @ring. */
bool e810_ring_read(E810Core *c, const E810RdmaRing *ring, uint64_t off,
                    void *buf, size_t len);

/* Work requests as uk.c writes them, shared by both transports. */
#define E810_WQE_MAX_SGE            16
#define E810_WQE_MAX_INLINE         256
#define E810_WQE_MAX_MSG            0x7FFFFFFFu     /* the driver's max_msg_sz */

/* SQ quanta (32 bytes) an inline payload of @len bytes takes: 8 bytes in
 * quantum 0 (qword 1), 31 in each further one. */
static inline unsigned e810_inline_quanta(unsigned len)
{
    return len <= 8 ? 1 : 1 + (len - 8 + 30) / 31;
}

/*
 * The inline payload of the SQ WQE at quantum @idx, whose first quantum is
 * @raw, into @out (@len <= @max bytes); sets *@quanta.  0 or the AE.
 */
unsigned e810_sq_inline(E810Core *c, const E810RdmaRing *sq, uint32_t idx,
                        const uint8_t *raw, unsigned len, unsigned max,
                        uint8_t *out, uint8_t *quanta);
/*
 * The SGEs of the SQ WQE at quantum @idx (header @h, first quantum @qw):
 * fragment 0 in quantum 0 unless it holds immediate data (a zero-length
 * one only with @keep_empty0), ADDFRAGCNT more at byte 32 + 16 k, zero-
 * length pads skipped.  Fills @sge (at most E810_WQE_MAX_SGE), *@nsge,
 * *@len (checked against E810_WQE_MAX_MSG) and *@quanta.  0 or the AE.
 */
unsigned e810_sq_sges(E810Core *c, const E810RdmaRing *sq, uint32_t idx,
                      uint64_t h, const uint64_t *qw, bool keep_empty0,
                      E810Sge *sge, unsigned *nsge, uint32_t *len,
                      uint8_t *quanta);

/* A send-queue completion for the WQE at quantum @idx (@status: 0 or AE). */
void e810_sq_cqe(uint64_t cqe[4], uint32_t qp, uint64_t comp_ctx, uint32_t idx,
                 unsigned op, uint32_t len, unsigned status);
/* A receive completion (the transports, the PUDA, a flush): @idx is the
 * RQ WQE's first quantum, @flags what qword 3 adds (error, invalidate,
 * solicited event, IPv4); qword 2's low half is the caller's. */
void e810_rq_cqe(uint64_t cqe[4], uint32_t qp, uint64_t comp_ctx, uint32_t idx,
                 unsigned op, uint64_t len, uint64_t flags);

/*
 * FLUSH_WQES as user QPs get it: one flush CQE for the oldest outstanding
 * WQE of each queue asked for; libirdma reports every later WQE of that
 * queue from it (irdma_uk_cq_poll_cmpl(), move_cq_head = false).  The
 * transport says which SQ WQE is oldest when it knows (@have_head).
 */
typedef struct E810FlushQp {
    uint32_t id;
    uint64_t comp_ctx;
    const E810RdmaRing *sq, *rq;
    uint32_t sq_idx, rq_idx;
    unsigned sq_pol, rq_pol, rq_shift;
    uint32_t txcq, rxcq;
    bool have_head;
    uint32_t head_idx;
    unsigned head_op;
} E810FlushQp;

void e810_flush_user(E810Core *c, const uint64_t *wqe, const E810FlushQp *f);

/*
 * The SGEs of the RQ WQE at @idx (WQEs of 32 << @shift bytes) if it is
 * posted (its valid bit is @pol); *@cap is their total length.  False if
 * none is posted or it cannot be read.
 */
bool e810_rq_sges(E810Core *c, const E810RdmaRing *rq, unsigned shift,
                  uint32_t idx, unsigned pol, E810Sge *sge, unsigned *nsge,
                  uint64_t *cap);

#endif
