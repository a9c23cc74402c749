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

#endif
