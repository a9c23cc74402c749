/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The driver's side of the RDMA engine's control QP, for unit tests and
 * fuzzers: a CQP SQ and its CCQ in fake guest memory, WQEs posted with the
 * valid bit of the current pass as irdma_sc_cqp_post_sq() does, and CCQEs
 * taken by their valid bit.
 */
#ifndef E810_CQP_UTIL_H
#define E810_CQP_UTIL_H

#include "fake-host.h"
#include "bytes.h"
#include "net-util.h"

/*
 * Where the tests put the CQP's host context, its SQ, the FPM query and
 * commit buffers and the CCQ with its shadow area: pages 0-5 above the
 * includer's M(0) (each test defines M(off) for its memory layout).
 */
#define CTX_PA          M(0x0000)
#define SQ_PA           M(0x1000)
#define QUERY_PA        M(0x2000)
#define COMMIT_PA       M(0x3000)
#define CCQ_PA          M(0x4000)
#define CCQ_SHADOW      M(0x5000)

typedef struct CqpRing {
    FakeHost *h;
    E810Core *c;
    uint64_t sq_pa, ccq_pa;
    unsigned sq_size, ccq_size;     /* WQEs (64 bytes), CCQEs (32 bytes) */
    unsigned sq_head, sq_pol;       /* next WQE, valid bit of its pass */
    unsigned ccq_head, ccq_pol;     /* next CCQE, valid bit it must show */
} CqpRing;

/* A ring at @sq_pa / @ccq_pa; the first pass writes valid bit 1. */
void cqp_ring_init(CqpRing *r, FakeHost *h, E810Core *c, uint64_t sq_pa,
                   unsigned sq_size, uint64_t ccq_pa, unsigned ccq_size);
/* Post one WQE (qwords 0-2 and 4-7 from @q, may be NULL; header @hdr, the
 * valid bit added) and ring PFPE_CQPDB.  Returns its index. */
unsigned cqp_ring_post(CqpRing *r, const uint64_t q[8], uint64_t hdr);
/* The next CCQE into @cqe; false if it is not valid yet. */
bool cqp_ring_ccqe(CqpRing *r, uint64_t cqe[4]);
/* The next CCQE, waited for as the driver does (the device writes it
 * E810_RDMA_CCQE_DELAY_NS after its WQE ran); false if none came. */
bool cqp_ring_wait_ccqe(CqpRing *r, uint64_t cqe[4]);
/* Post op @op and take its CCQE: 0 done, 1 error completion, 2 none. */
unsigned cqp_ring_op(CqpRing *r, unsigned op, const uint64_t q[8],
                     uint64_t hdr_extra);
/* Create the CCQ (CQ 0 at ccq_pa, shadow area @shadow_pa; CHKOVERFLOW
 * and the header flags @hdr_extra, e.g. CEQIDVALID); its own completion
 * takes the first CCQE, which is waited for and skipped. */
void cqp_ring_create_ccq(CqpRing *r, uint64_t shadow_pa, uint64_t hdr_extra);
/* Receive WQEs 0..@n-1 of a PUDA QP (ILQ/IEQ) at @rq_pa, one buffer of
 * @len bytes each from @bufs_pa, as irdma_puda_post_recvbuf() writes
 * them initially (valid bit 1). */
void puda_post_rq(FakeHost *h, uint64_t rq_pa, uint64_t bufs_pa, unsigned n,
                  unsigned len);

/* The guest pieces an STag translation handed over, up to 8 of them. */
typedef struct XlatePieces {
    unsigned n;
    uint64_t pa[8], len[8];
} XlatePieces;
/* e810_rdma_xlate() of @len bytes at @to through @stag into @p (emptied
 * first; a ninth piece stops the walk).  What e810_rdma_xlate() returns. */
int xlate_pieces(E810Core *c, uint32_t stag, uint64_t to, uint64_t len,
                 unsigned access, uint32_t pd, bool privileged,
                 XlatePieces *p);

#endif
