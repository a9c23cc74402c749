/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e810-vfio-user: DMA.  The client's DMA regions (DMA_MAP, DMA_UNMAP),
 * each a mapping of the file it sent or, without one, reached through
 * DMA_READ/DMA_WRITE messages of ours; and the device's DMA into them,
 * guarded against a file the client shrinks under its mapping.
 */
#include "qemu/osdep.h"
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "vfu-int.h"
#include "trace.h"

/* ---- the region table -------------------------------------------------- */

static void vfu_dma_region_free(VfuDmaRegion *r)
{
    if (r->map) {
        munmap(r->map, r->map_len);
    }
    memset(r, 0, sizeof(*r));
}

static VfuDmaRegion *vfu_dma_find(VfuServer *s, uint64_t addr)
{
    for (unsigned i = 0; i < s->ndma; i++) {
        VfuDmaRegion *r = &s->dma[i];

        if (addr >= r->iova && addr - r->iova < r->size) {
            return r;
        }
    }
    return NULL;
}

void vfu_dma_clear(VfuServer *s)
{
    for (unsigned i = 0; i < s->ndma; i++) {
        vfu_dma_region_free(&s->dma[i]);
    }
    s->ndma = 0;
}

/* ---- copies through the client's files --------------------------------- */

/*
 * The client can shrink a file after we mapped it: touching the pages
 * past its new end raises SIGBUS.  That fails the DMA instead of the
 * server (the one signal handler here; single-threaded).
 */
static sigjmp_buf dma_fault_jmp;
static volatile sig_atomic_t dma_copying;

static void dma_sigbus(int sig)
{
    if (dma_copying) {
        dma_copying = 0;
        siglongjmp(dma_fault_jmp, 1);
    }
    signal(SIGBUS, SIG_DFL);
    raise(SIGBUS);
}

/*
 * Installed once, at init (before the seccomp allow-list, which has no
 * rt_sigaction).  SA_NODEFER: leaving the handler by siglongjmp leaves
 * SIGBUS unblocked, so sigsetjmp need not save the mask (a system call
 * per DMA otherwise).
 */
void vfu_dma_fault_init(void)
{
    static bool installed;
    struct sigaction sa = { .sa_handler = dma_sigbus, .sa_flags = SA_NODEFER };

    if (!installed) {
        sigaction(SIGBUS, &sa, NULL);
        installed = true;
    }
}

static bool dma_copy(void *dst, const void *src, size_t n)
{
    if (sigsetjmp(dma_fault_jmp, 0)) {
        return false;
    }
    dma_copying = 1;
    memcpy(dst, src, n);
    dma_copying = 0;
    return true;
}

/* ---- DMA through messages (regions without an fd) ---------------------- */

/* One DMA_READ/DMA_WRITE chunk, and its reply (vfu_await_reply). */
static int vfu_dma_msg_one(VfuServer *s, bool write, uint64_t addr,
                           uint8_t *buf, uint32_t len)
{
    uint16_t id = s->next_id++;
    uint32_t size = VFU_HDR_SIZE + VFU_DMA_RW_FIXED + (write ? len : 0);
    VfuHdr h = {
        .id = id,
        .command = write ? VFU_CMD_DMA_WRITE : VFU_CMD_DMA_READ,
        .size = size,
        .flags = VFU_FLAG_REQUEST,
    };
    uint8_t *m = s->aux;
    int err;

    memset(m, 0, size);
    memcpy(m, &h, sizeof(h));
    st64(m + VFU_HDR_SIZE, addr);
    st32(m + VFU_HDR_SIZE + 8, len);
    if (write) {
        memcpy(m + VFU_HDR_SIZE + VFU_DMA_RW_DATA, buf, len);
    }
    if (!vfu_send_all(s, m, size)) {
        return -EPIPE;
    }
    err = vfu_await_reply(s, id, m);
    if (err || write) {
        return err;
    }
    memcpy(&h, m, sizeof(h));
    if (h.size < VFU_HDR_SIZE + VFU_DMA_RW_DATA + (uint64_t)len ||
        ld32(m + VFU_HDR_SIZE + 8) != len) {
        return -EINVAL;
    }
    memcpy(buf, m + VFU_HDR_SIZE + VFU_DMA_RW_DATA, len);
    return 0;
}

static int vfu_dma_msg(VfuServer *s, bool write, uint64_t addr, void *buf,
                       size_t len)
{
    uint64_t chunk = s->peer_max_xfer;
    uint8_t *p = buf;

    if (chunk > VFU_MAX_XFER - 64) {
        chunk = VFU_MAX_XFER - 64;
    }
    while (len) {
        uint32_t n = len < chunk ? len : chunk;
        int err = vfu_dma_msg_one(s, write, addr, p, n);

        if (err) {
            s->stats.dma_msg_errors++;
            trace_e810_vfu_dma_msg(write ? "write" : "read", addr, n, -err);
            return -1;
        }
        p += n;
        addr += n;
        len -= n;
    }
    return 0;
}

/* ---- the device's DMA -------------------------------------------------- */

/*
 * Device DMA: a memory copy through the client's mapped files, a
 * DMA_READ/WRITE message for a region without one; ranges may cross
 * regions.  Any byte outside them fails the whole access.
 */
int vfu_dma(VfuServer *s, bool write, uint64_t addr, void *buf, size_t len)
{
    uint8_t *p = buf;

    if (!(ld16(s->config + PCI_COMMAND) & PCI_COMMAND_MASTER)) {
        s->stats.dma_blocked++;
        trace_e810_vfu_dma_miss(write ? "write (bus master off)" :
                                "read (bus master off)", addr, len);
        return -1;
    }
    while (len) {
        VfuDmaRegion *r = vfu_dma_find(s, addr);
        uint64_t in, n;

        if (!r || !(r->prot & (write ? VFU_DMA_WRITE : VFU_DMA_READ))) {
            s->stats.dma_miss++;
            trace_e810_vfu_dma_miss(write ? "write" : "read", addr, len);
            return -1;
        }
        in = addr - r->iova;
        n = r->size - in < len ? r->size - in : len;
        if (r->host) {
            if (!(write ? dma_copy(r->host + in, p, n) :
                  dma_copy(p, r->host + in, n))) {
                s->stats.dma_miss++;
                trace_e810_vfu_dma_miss(write ? "write (file shrunk)" :
                                        "read (file shrunk)", addr, len);
                return -1;
            }
        } else if (vfu_dma_msg(s, write, addr, p, n)) {
            return -1;
        }
        p += n;
        addr += n;
        len -= n;
    }
    return 0;
}

/* ---- DMA_MAP, DMA_UNMAP ------------------------------------------------ */

void vfu_cmd_dma_map(VfuServer *s, const VfuHdr *h, uint8_t *p,
                     uint32_t plen, int *fds, unsigned nfds)
{
    VfuDmaMap m;
    VfuDmaRegion *r;
    uint64_t end;

    if (plen < sizeof(m) || nfds > 1) {
        vfu_error(s, h, EINVAL, "dma map: size or fds");
        return;
    }
    memcpy(&m, p, sizeof(m));
    trace_e810_vfu_dma_map(m.iova, m.size, m.offset, m.flags, nfds == 1);
    if (m.argsz < sizeof(m) || !m.size ||
        (m.flags & ~(VFU_DMA_READ | VFU_DMA_WRITE)) ||
        (m.iova | m.size) & (VFU_PAGE_SIZE - 1) ||
        m.iova + m.size < m.iova || m.offset + m.size < m.offset ||
        m.size > SIZE_MAX / 2) {
        vfu_error(s, h, EINVAL, "dma map: bad range or flags");
        return;
    }
    end = m.iova + m.size;
    for (unsigned i = 0; i < s->ndma; i++) {
        if (m.iova < s->dma[i].iova + s->dma[i].size && s->dma[i].iova < end) {
            vfu_error(s, h, EEXIST, "dma map: overlaps a mapping");
            return;
        }
    }
    if (s->ndma == VFU_MAX_DMA) {
        vfu_error(s, h, ENOSPC, "dma map: too many mappings");
        return;
    }
    r = &s->dma[s->ndma];
    memset(r, 0, sizeof(*r));
    r->iova = m.iova;
    r->size = m.size;
    r->prot = m.flags & (VFU_DMA_READ | VFU_DMA_WRITE);
    if (nfds) {
        uint64_t skew = m.offset & (VFU_PAGE_SIZE - 1);
        int prot = (r->prot & VFU_DMA_READ ? PROT_READ : 0) |
                   (r->prot & VFU_DMA_WRITE ? PROT_WRITE : 0);
        struct stat st;
        void *map;

        /* Pages past the end of the file would fault on access. */
        if (fstat(fds[0], &st) || (S_ISREG(st.st_mode) &&
            (uint64_t)st.st_size < m.offset + m.size)) {
            vfu_error(s, h, EINVAL, "dma map: beyond the end of the file");
            return;
        }
        map = mmap(NULL, m.size + skew, prot ? prot : PROT_NONE, MAP_SHARED,
                   fds[0], m.offset - skew);
        if (map == MAP_FAILED) {
            vfu_error(s, h, errno, "dma map: mmap failed");
            return;
        }
        r->map = map;
        r->map_len = m.size + skew;
        r->host = (uint8_t *)map + skew;
    }
    s->ndma++;
    vfu_reply(s, h, 0);
}

void vfu_cmd_dma_unmap(VfuServer *s, const VfuHdr *h, uint8_t *p,
                       uint32_t plen, int *fds, unsigned nfds)
{
    VfuDmaUnmap u;
    uint64_t end, freed = 0;
    unsigned removed = 0;

    if (plen < sizeof(u)) {
        vfu_error(s, h, EINVAL, "dma unmap: short");
        return;
    }
    memcpy(&u, p, sizeof(u));
    if (u.argsz < sizeof(u) || (u.flags & ~VFU_DMA_UNMAP_ALL)) {
        vfu_error(s, h, u.flags & VFU_DMA_UNMAP_DIRTY ? ENOTSUP : EINVAL,
                  "dma unmap: flags");
        return;
    }
    if (u.flags & VFU_DMA_UNMAP_ALL) {
        if (u.iova || u.size) {
            vfu_error(s, h, EINVAL, "dma unmap: all with a range");
            return;
        }
        u.iova = 0;
        end = UINT64_MAX;
    } else {
        end = u.iova + u.size;
        if (!u.size || end < u.iova) {
            vfu_error(s, h, EINVAL, "dma unmap: bad range");
            return;
        }
    }
    /* A mapping is removed whole or not at all, as VFIO's type1. */
    for (unsigned i = 0; i < s->ndma; i++) {
        VfuDmaRegion *r = &s->dma[i];
        bool overlap = r->iova < end && u.iova < r->iova + r->size;
        bool inside = r->iova >= u.iova && r->iova + r->size <= end;

        if (overlap && !inside) {
            vfu_error(s, h, EINVAL, "dma unmap: splits a mapping");
            return;
        }
    }
    for (unsigned i = 0; i < s->ndma;) {
        VfuDmaRegion *r = &s->dma[i];

        if (r->iova >= u.iova && r->iova + r->size <= end) {
            freed += r->size;
            removed++;
            vfu_dma_region_free(r);
            s->dma[i] = s->dma[--s->ndma];
        } else {
            i++;
        }
    }
    trace_e810_vfu_dma_unmap(u.iova, u.size, u.flags, removed);
    u.argsz = sizeof(u);
    u.size = freed;
    vfu_reply_with(s, h, &u, sizeof(u));
}
