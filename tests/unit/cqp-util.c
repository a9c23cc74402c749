/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The driver's side of the control QP (see cqp-util.h). */
#include "cqp-util.h"
#include "rdma/rdma.h"

void cqp_ring_init(CqpRing *r, FakeHost *h, E810Core *c, uint64_t sq_pa,
                   unsigned sq_size, uint64_t ccq_pa, unsigned ccq_size)
{
    *r = (CqpRing) {
        .h = h, .c = c, .sq_pa = sq_pa, .sq_size = sq_size,
        .ccq_pa = ccq_pa, .ccq_size = ccq_size, .ccq_pol = 1,
    };
}

unsigned cqp_ring_post(CqpRing *r, const uint64_t q[8], uint64_t hdr)
{
    uint64_t pa = r->sq_pa + 64ull * r->sq_head;
    unsigned idx = r->sq_head;

    if (r->sq_head == 0) {
        r->sq_pol ^= 1;
    }
    for (int i = 0; i < 8; i++) {
        st64(fake_mem(r->h, pa + 8 * i), q ? q[i] : 0);
    }
    st64(fake_mem(r->h, pa + 24), hdr | (uint64_t)r->sq_pol << 63);
    r->sq_head = (r->sq_head + 1) % r->sq_size;
    e810_mmio_write(r->c, PFPE_CQPDB, r->sq_head, 4);
    return idx;
}

bool cqp_ring_ccqe(CqpRing *r, uint64_t cqe[4])
{
    uint64_t pa = r->ccq_pa + 32ull * r->ccq_head;

    for (int i = 0; i < 4; i++) {
        cqe[i] = ld64(fake_mem(r->h, pa + 8 * i));
    }
    if ((cqe[3] >> 63) != r->ccq_pol) {
        return false;
    }
    r->ccq_head = (r->ccq_head + 1) % r->ccq_size;
    if (r->ccq_head == 0) {
        r->ccq_pol ^= 1;
    }
    return true;
}

bool cqp_ring_wait_ccqe(CqpRing *r, uint64_t cqe[4])
{
    if (cqp_ring_ccqe(r, cqe)) {
        return true;
    }
    fake_host_advance(r->h, E810_RDMA_CCQE_DELAY_NS);
    return cqp_ring_ccqe(r, cqe);
}

unsigned cqp_ring_op(CqpRing *r, unsigned op, const uint64_t q[8],
                     uint64_t hdr_extra)
{
    uint64_t cqe[4];

    cqp_ring_post(r, q, (uint64_t)op << 32 | hdr_extra);
    if (!cqp_ring_wait_ccqe(r, cqe)) {
        return 2;
    }
    return (cqe[3] >> 55) & 1;
}

void cqp_ring_create_ccq(CqpRing *r, uint64_t shadow_pa, uint64_t hdr_extra)
{
    uint64_t q[8] = { r->ccq_size, 0, 0, 0, r->ccq_pa, shadow_pa };

    memset(fake_mem(r->h, r->ccq_pa), 0, 32ull * r->ccq_size);
    cqp_ring_post(r, q, 0x03ull << 32 | 1ull << 46 | hdr_extra);
    fake_host_advance(r->h, E810_RDMA_CCQE_DELAY_NS);   /* its CCQE */
    r->ccq_head = 1;
}

void puda_post_rq(FakeHost *h, uint64_t rq_pa, uint64_t bufs_pa, unsigned n,
                  unsigned len)
{
    for (unsigned i = 0; i < n; i++) {
        uint8_t *w = fake_mem(h, rq_pa + 32ull * i);

        st64(w, bufs_pa + (uint64_t)len * i);
        st64(w + 8, (uint64_t)len << 32 | 1ull << 63);
        st64(w + 16, 0);
        st64(w + 24, 1ull << 63);
    }
}

static bool xlate_piece(void *opaque, uint64_t pa, uint64_t len)
{
    XlatePieces *p = opaque;

    if (p->n == 8) {
        return false;
    }
    p->pa[p->n] = pa;
    p->len[p->n++] = len;
    return true;
}

int xlate_pieces(E810Core *c, uint32_t stag, uint64_t to, uint64_t len,
                 unsigned access, uint32_t pd, bool privileged,
                 XlatePieces *p)
{
    memset(p, 0, sizeof(*p));
    return e810_rdma_xlate(c, stag, to, len, access, pd, privileged,
                           xlate_piece, p);
}
