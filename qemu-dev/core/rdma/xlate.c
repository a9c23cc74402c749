/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: STag translation.  Turns (STag, tagged offset, length)
 * into guest-physical pieces, checking the STag's key, protection domain,
 * access rights and bounds, through the region's page list (contiguous,
 * one level or two levels of PBLEs).  Page lists live in guest memory and
 * may be rewritten by the driver at any time, so nothing is cached.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../bytes.h"
#include "rdma.h"

#define PBLE_PER_LEAF   512

/* Base address of page @i of @mr. */
static bool mr_page(E810Core *c, const E810RdmaMr *mr, uint64_t i,
                    uint64_t pgsz, uint64_t *pa)
{
    uint64_t leaf;

    switch (mr->lpbl) {
    case 0:
        *pa = (mr->pa & ~(pgsz - 1)) + i * pgsz;
        return true;
    case 1:
        return i <= 0xFFFFFFFFull - mr->pble_idx &&
               e810_rdma_pble_read(c, mr->pble_idx + (uint32_t)i, pa);
    case 3:
        /* Root entries hold PBLE indexes of the leaves. */
        if (i / PBLE_PER_LEAF > 0xFFFFFFFFull - mr->pble_idx ||
            !e810_rdma_pble_read(c, mr->pble_idx + (uint32_t)(i / PBLE_PER_LEAF),
                                 &leaf) ||
            leaf > 0xFFFFFFFFull - i % PBLE_PER_LEAF) {
            return false;
        }
        return e810_rdma_pble_read(c, (uint32_t)(leaf + i % PBLE_PER_LEAF), pa);
    default:
        return false;
    }
}

int e810_rdma_xlate(E810Core *c, uint32_t stag, uint64_t to, uint64_t len,
                    unsigned access, uint32_t pd, bool privileged,
                    E810RdmaSegFn *fn, void *opaque)
{
    uint32_t idx = stag >> 8;
    const E810RdmaMr *mr;
    uint64_t pgsz, off, left;

    /* Zero-length operations name STags that need not exist. */
    if (len == 0) {
        return E810_XLATE_OK;
    }
    if (stag == 0) {
        /* STag 0 is a bus address, for privileged (kernel PUDA) QPs only. */
        if (!privileged || (access & (E810_ACC_REMOTE_READ | E810_ACC_REMOTE_WRITE))) {
            return E810_XLATE_STAG_ZERO;
        }
        return !fn || fn(opaque, to, len) ? E810_XLATE_OK : E810_XLATE_DMA;
    }
    if (!c->rdma.mr) {
        return E810_XLATE_INVALID;
    }
    mr = &c->rdma.mr[idx % E810_RDMA_MAX_MRS];
    if (!mr->valid || !mr->registered || mr->stag_idx != idx) {
        return E810_XLATE_INVALID;
    }
    if (mr->key != (stag & 0xFF)) {
        return E810_XLATE_KEY;
    }
    if (mr->pd != pd) {
        return E810_XLATE_PD;
    }
    if ((access & mr->rights) != access ||
        ((access & (E810_ACC_REMOTE_READ | E810_ACC_REMOTE_WRITE)) && !mr->remote)) {
        return E810_XLATE_RIGHTS;
    }
    pgsz = e810_rdma_page_size(mr->page_size);
    if (!pgsz) {
        return E810_XLATE_PBL;
    }
    if (mr->len == 0 && mr->lpbl == 0 && mr->pa == 0 && mr->va_based) {
        /* The kernel's DMA MR (irdma_get_dma_mr): VA 0, length 0, PA 0
         * stands for all of memory, addresses are bus addresses. */
        if (!privileged) {
            return E810_XLATE_BOUNDS;
        }
        return !fn || fn(opaque, to, len) ? E810_XLATE_OK : E810_XLATE_DMA;
    }
    /*
     * Bounds, without overflow: [to, to + len) inside the region, whose
     * length has at most 46 bits; the page offset of its start is below
     * pgsz.  So off + len stays far below 2^64 and the loop visits
     * exactly @len bytes or fails.
     */
    if (len > mr->len || mr->len >= 1ull << 46) {
        return E810_XLATE_BOUNDS;
    }
    if (mr->va_based) {
        if (to < mr->va || to - mr->va > mr->len - len) {
            return E810_XLATE_BOUNDS;
        }
        off = (to - mr->va) + (mr->va & (pgsz - 1));
    } else {
        /* Zero based: the VA field holds the first byte offset, which
         * REG_MR and fast-register keep inside the first page. */
        if (mr->va >= pgsz || to > mr->len - len) {
            return E810_XLATE_BOUNDS;
        }
        off = to + mr->va;
    }
    if (!fn) {
        /* A check only: the pages are looked up when they are used, so
         * checking a 2 GiB request costs no walk of its page list. */
        return E810_XLATE_OK;
    }
    for (left = len; left; ) {
        uint64_t page, n = pgsz - (off & (pgsz - 1));

        if (n > left) {
            n = left;
        }
        if (!mr_page(c, mr, off / pgsz, pgsz, &page)) {
            return E810_XLATE_PBL;
        }
        if (!fn(opaque, (page & ~(pgsz - 1)) + (off & (pgsz - 1)), n)) {
            return E810_XLATE_DMA;
        }
        off += n;
        left -= n;
    }
    return E810_XLATE_OK;
}
