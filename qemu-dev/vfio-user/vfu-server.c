/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e810-vfio-user: the vfio-user message handler, the PCI function's
 * config space and MSI-X, DMA regions, and the core's host interface.
 *
 * Every message is untrusted: sizes, offsets, counts and indices are
 * checked before use, a bad request gets an error reply (or, posted,
 * a counter and a trace line) and the server goes on.
 */
#include "qemu/osdep.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "vfu-server.h"
#include "bytes.h"
#include "txsched.h"
#include "trace.h"

/* vfio-user is little-endian on the wire: bytes.h's ld/st are too. */

#define VFU_PAGE_SIZE       4096u

#define PCI_COMMAND         0x04
#define PCI_COMMAND_MASTER  0x0004
#define PCI_STATUS          0x06
#define PCI_BAR0            0x10
#define PCI_BAR3            0x1C
#define MSIX_CTRL           (E810_PCI_CAP_MSIX + 2)
#define MSIX_CTRL_ENABLE    0x8000
#define MSIX_CTRL_MASKALL   0x4000

/* ---- little helpers (ld16..st64: the core's bytes.h, little-endian) -- */

static void close_fds(int *fds, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (fds[i] >= 0) {
            close(fds[i]);
            fds[i] = -1;
        }
    }
}

int64_t vfu_clock_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

void vfu_log(const char *kind, const char *msg)
{
    trace_e810_vfu_log(kind, msg);
    fprintf(stderr, "e810-vfio-user: %s: %s\n", kind, msg);
}

/* ---- sending ----------------------------------------------------------- */

/*
 * Blocking with the socket's send timeout: replies are never dropped.
 * With a keeper, its notes say the whole message went out before it does
 * (a client woken by our send may act, even kill us, before we run
 * again); a send that stops part way is not blocked in but waited for
 * with the notes made exact (poll, the same 5 s), so a device killed
 * meanwhile leaves the keeper the rest to end.
 */
static bool vfu_send_all(VfuServer *s, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    VfuKeep *k = s->keep;

    if (s->sock < 0 || s->broken) {
        return false;
    }
    if (k) {
        VfuHdr h;

        /* The keeper answers what is owed, and ends a cut message. */
        if (len >= sizeof(h)) {
            memcpy(&h, buf, sizeof(h));
            if ((h.flags & VFU_FLAG_TYPE_MASK) == VFU_FLAG_REPLY) {
                vfu_keep_paid(k, h.id);
            }
        }
        k->tx_end = k->tx + len;
        k->tx = k->tx_end;
    }
    while (len) {
        ssize_t n = send(s->sock, p, len,
                         MSG_NOSIGNAL | (k ? MSG_DONTWAIT : 0));

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && k && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pfd = { .fd = s->sock, .events = POLLOUT };
            int rc;

            k->tx = k->tx_end - len;
            do {
                rc = poll(&pfd, 1, 5000);
            } while (rc < 0 && errno == EINTR);
            k->tx = k->tx_end;
            if (rc > 0) {
                continue;
            }
            errno = rc ? errno : ETIMEDOUT;
        }
        if (n <= 0) {
            s->stats.send_errors++;
            s->broken = true;
            trace_e810_vfu_link("client send failed", errno);
            if (k) {
                k->tx = k->tx_end - len;
            }
            return false;
        }
        p += n;
        len -= n;
    }
    return true;
}

/* Reply to @req with @len payload bytes already in s->reply after a header. */
static void vfu_reply(VfuServer *s, const VfuHdr *req, size_t len)
{
    VfuHdr h = {
        .id = req->id,
        .command = req->command,
        .size = VFU_HDR_SIZE + len,
        .flags = VFU_FLAG_REPLY,
    };

    if (req->flags & VFU_FLAG_NO_REPLY) {
        return;
    }
    memcpy(s->reply, &h, sizeof(h));
    vfu_send_all(s, s->reply, h.size);
}

static void vfu_error(VfuServer *s, const VfuHdr *req, int err,
                      const char *why)
{
    VfuHdr h = {
        .id = req->id,
        .command = req->command,
        .size = VFU_HDR_SIZE,
        .flags = VFU_FLAG_REPLY | VFU_FLAG_ERROR,
        .error = err,
    };

    s->stats.bad_msgs++;
    trace_e810_vfu_error(req->id, req->command, err, why);
    if (req->flags & VFU_FLAG_NO_REPLY) {
        s->stats.posted_errors++;
        return;
    }
    vfu_send_all(s, &h, sizeof(h));
}

/* ---- config space ------------------------------------------------------ */

static void cfg_set16(VfuServer *s, unsigned off, uint16_t v, uint16_t wmask,
                      uint16_t w1c)
{
    st16(s->config + off, v);
    st16(s->cfg_wmask + off, wmask);
    st16(s->cfg_w1cmask + off, w1c);
}

static void cfg_set32(VfuServer *s, unsigned off, uint32_t v, uint32_t wmask,
                      uint32_t w1c)
{
    st32(s->config + off, v);
    st32(s->cfg_wmask + off, wmask);
    st32(s->cfg_w1cmask + off, w1c);
}

/* A 64-bit prefetchable memory BAR of @size bytes at @off (two dwords). */
static void cfg_bar64(VfuServer *s, unsigned off, uint32_t size)
{
    cfg_set32(s, off, 0x0C, ~(size - 1) & ~0xFu, 0);
    cfg_set32(s, off + 4, 0, 0xFFFFFFFFu, 0);
}

/*
 * The config space of the in-QEMU device (e810-pci.c and QEMU's PCI,
 * PM, MSI-X and PCIe code): the same identity and capabilities at the
 * same offsets, writable and write-1-to-clear bits as PCI defines them.
 */
static void vfu_config_init(VfuServer *s)
{
    uint64_t dsn = s->cfg.dsn ? s->cfg.dsn : e810_pci_dsn_from_mac(s->cfg.mac);
    uint8_t *c = s->config;

    memset(s->config, 0, sizeof(s->config));
    memset(s->cfg_wmask, 0, sizeof(s->cfg_wmask));
    memset(s->cfg_w1cmask, 0, sizeof(s->cfg_w1cmask));

    st16(c + 0x00, E810_PCI_VENDOR_ID);
    st16(c + 0x02, E810_PCI_DEVICE_ID);
    /* IO, memory, bus master, parity, SERR, INTx disable */
    cfg_set16(s, PCI_COMMAND, 0, 0x0547, 0);
    /* capability list; parity, aborts, SERR are write-1-to-clear */
    cfg_set16(s, PCI_STATUS, 0x0010, 0, 0xF900);
    c[0x08] = E810_PCI_REVISION;
    c[0x09] = E810_PCI_CLASS & 0xFF;
    c[0x0A] = (E810_PCI_CLASS >> 8) & 0xFF;
    c[0x0B] = (E810_PCI_CLASS >> 16) & 0xFF;
    c[0x0C] = 0x10;                         /* cache line size */
    s->cfg_wmask[0x0C] = 0xFF;
    s->cfg_wmask[0x0D] = 0xFF;              /* latency timer */
    cfg_bar64(s, PCI_BAR0, E810_BAR0_SIZE);
    cfg_bar64(s, PCI_BAR3, E810_PCI_MSIX_BAR_SIZE);
    st16(c + 0x2C, E810_PCI_VENDOR_ID);
    st16(c + 0x2E, E810_PCI_SUBSYS_ID);
    c[0x34] = E810_PCI_CAP_PM;
    s->cfg_wmask[0x3C] = 0xFF;              /* interrupt line */
    c[0x3D] = 1;                            /* INTA# */

    /* Power management 1.2: PME from D0 and D3hot */
    c[E810_PCI_CAP_PM] = 0x01;
    c[E810_PCI_CAP_PM + 1] = E810_PCI_CAP_MSIX;
    st16(c + E810_PCI_CAP_PM + 2, 0x0003 | 1u << 11 | 1u << 14);
    cfg_set16(s, E810_PCI_CAP_PM + 4, 0, 0x0103, 0x8000);

    /* MSI-X: 64 vectors, table in BAR3 at 0, PBA in BAR3 at 0x8000 */
    c[E810_PCI_CAP_MSIX] = 0x11;
    c[E810_PCI_CAP_MSIX + 1] = E810_PCI_CAP_PCIE;
    cfg_set16(s, MSIX_CTRL, E810_MSIX_VECTORS - 1,
              MSIX_CTRL_ENABLE | MSIX_CTRL_MASKALL, 0);
    st32(c + E810_PCI_CAP_MSIX + 4, E810_PCI_MSIX_TABLE_OFF | 3);
    st32(c + E810_PCI_CAP_MSIX + 8, E810_PCI_MSIX_PBA_OFF | 3);

    /* PCIe 2.0 endpoint; link 16 GT/s x8 (a PCIe 4.0 x8 part) */
    c[E810_PCI_CAP_PCIE] = 0x10;
    c[E810_PCI_CAP_PCIE + 1] = 0;
    st16(c + E810_PCI_CAP_PCIE + 2, 0x0002);                 /* v2, endpoint */
    st32(c + E810_PCI_CAP_PCIE + 4, 1u << 15 | 1u << 28);   /* RBER, FLR */
    cfg_set16(s, E810_PCI_CAP_PCIE + 8, 0x2810, 0x7CFF, 0);  /* devctl */
    cfg_set16(s, E810_PCI_CAP_PCIE + 10, 0, 0, 0x000F);      /* devsta */
    st32(c + E810_PCI_CAP_PCIE + 12, 4 | 8u << 4);           /* lnkcap */
    cfg_set16(s, E810_PCI_CAP_PCIE + 16, 0, 0x00C3, 0);      /* lnkctl */
    st16(c + E810_PCI_CAP_PCIE + 18, 4 | 8u << 4 | 1u << 13);/* lnksta */
    st32(c + E810_PCI_CAP_PCIE + 0x24, 1u << 4);             /* devcap2 */
    cfg_set16(s, E810_PCI_CAP_PCIE + 0x28, 0, 0x0010, 0);    /* devctl2 */
    st32(c + E810_PCI_CAP_PCIE + 0x2C, 0x1E);                /* lnkcap2: 2.5-16 GT/s */
    st16(c + E810_PCI_CAP_PCIE + 0x30, 4);                   /* lnkctl2 */

    /* Device Serial Number, the only extended capability */
    st32(c + E810_PCI_EXTCAP_DSN, 0x0003 | 1u << 16);
    st32(c + E810_PCI_EXTCAP_DSN + 4, (uint32_t)dsn);
    st32(c + E810_PCI_EXTCAP_DSN + 8, (uint32_t)(dsn >> 32));
}

static uint16_t msix_ctrl(VfuServer *s)
{
    return ld16(s->config + MSIX_CTRL);
}

static void msix_deliver_pending(VfuServer *s);

static void vfu_config_write(VfuServer *s, uint32_t off, const uint8_t *data,
                             uint32_t count)
{
    uint16_t old_ctrl = msix_ctrl(s);

    for (uint32_t i = 0; i < count; i++) {
        uint8_t w = s->cfg_wmask[off + i], c = s->cfg_w1cmask[off + i];
        uint8_t *b = &s->config[off + i];

        *b = (*b & ~w) | (data[i] & w);
        *b &= ~(data[i] & c);
    }
    trace_e810_vfu_config_write(off, count,
                                count >= 4 ? ld32(data) :
                                count >= 2 ? ld16(data) : data[0]);
    if (msix_ctrl(s) != old_ctrl) {
        msix_deliver_pending(s);
    }
}

/* ---- MSI-X ------------------------------------------------------------ */

static bool msix_vector_masked(VfuServer *s, unsigned v)
{
    if (s->msix_irq_masked & (1ull << v)) {
        return true;
    }
    /*
     * QEMU's vfio-user client emulates the table itself and never
     * accesses ours; its per-vector masks reach us as SET_IRQS mask
     * actions.  So our table's mask bits count once the client uses it.
     */
    return s->msix_table_used && (s->msix_table[v * 16 + 12] & 1);
}

/* Enabled and not function-masked: 0; else why not (for the trace). */
static int msix_off(VfuServer *s)
{
    uint16_t ctrl = msix_ctrl(s);

    if (!(ctrl & MSIX_CTRL_ENABLE)) {
        return 3;
    }
    return (ctrl & MSIX_CTRL_MASKALL) ? 1 : 0;
}

static void msix_fire(VfuServer *s, unsigned v)
{
    uint64_t one = 1;

    if (s->msix_fd[v] < 0) {
        s->stats.irq_no_fd++;
        trace_e810_vfu_irq(v, 2);
        return;
    }
    if (write(s->msix_fd[v], &one, sizeof(one)) != sizeof(one)) {
        /* An eventfd only refuses at its 2^64-2 ceiling: still pending. */
        s->stats.irq_no_fd++;
        trace_e810_vfu_irq(v, 2);
        return;
    }
    trace_e810_vfu_irq(v, 0);
}

static void vfu_msix_notify(VfuServer *s, unsigned v)
{
    int off;

    if (v >= E810_MSIX_VECTORS) {
        s->stats.irq_bad++;
        trace_e810_vfu_irq(v, 3);
        return;
    }
    off = msix_off(s);
    if (off == 3) {
        /* As the glue: no MSI-X, no message (msix_enabled()). */
        s->stats.irq_disabled++;
        trace_e810_vfu_irq(v, 3);
        return;
    }
    if (off || msix_vector_masked(s, v)) {
        s->msix_pba |= 1ull << v;
        trace_e810_vfu_irq(v, 1);
        return;
    }
    msix_fire(s, v);
}

static void msix_deliver_pending(VfuServer *s)
{
    if (msix_off(s)) {
        return;
    }
    for (unsigned v = 0; v < E810_MSIX_VECTORS; v++) {
        if ((s->msix_pba & (1ull << v)) && !msix_vector_masked(s, v)) {
            s->msix_pba &= ~(1ull << v);
            msix_fire(s, v);
        }
    }
}

static void msix_reset(VfuServer *s)
{
    memset(s->msix_table, 0, sizeof(s->msix_table));
    for (unsigned v = 0; v < E810_MSIX_VECTORS; v++) {
        s->msix_table[v * 16 + 12] = 1;     /* masked at reset */
    }
    s->msix_pba = 0;
    s->msix_irq_masked = 0;
    s->msix_table_used = false;
}

/* ---- DMA ---------------------------------------------------------------- */

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

static int vfu_dma_msg(VfuServer *s, bool write, uint64_t addr, void *buf,
                       size_t len);

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
static void dma_fault_init(void)
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

/*
 * Device DMA: a memory copy through the client's mapped files, a
 * DMA_READ/WRITE message for a region without one; ranges may cross
 * regions.  Any byte outside them fails the whole access.
 */
static int vfu_dma(VfuServer *s, bool write, uint64_t addr, void *buf,
                   size_t len)
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

/* ---- our requests to the client (DMA without an fd) -------------------- */

/* From the client: exactly @len bytes, counted for the keeper. */
static bool vfu_read_full(VfuServer *s, void *buf, size_t len)
{
    uint8_t *p = buf;

    while (len) {
        ssize_t n = recv(s->sock, p, len, 0);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        if (s->keep) {
            s->keep->rx += n;
        }
        p += n;
        len -= n;
    }
    return true;
}

/* Keep a request that came while we waited; run after the current one. */
static void vfu_defer(VfuServer *s, const VfuHdr *h, const uint8_t *buf,
                      int *fds, unsigned nfds)
{
    VfuDeferred *d;

    if (s->ndeferred == VFU_DEFERRED_MAX) {
        s->stats.deferred_drops++;
        trace_e810_vfu_deferred_drop(h->command, s->stats.deferred_drops);
        close_fds(fds, nfds);
        vfu_error(s, h, EBUSY, "too many requests during a DMA wait");
        return;
    }
    d = &s->deferred[s->ndeferred++];
    d->buf = malloc(h->size);
    if (!d->buf) {
        s->ndeferred--;
        s->stats.deferred_drops++;
        trace_e810_vfu_deferred_drop(h->command, s->stats.deferred_drops);
        close_fds(fds, nfds);
        vfu_error(s, h, ENOMEM, "no memory to hold a request");
        return;
    }
    memcpy(d->buf, buf, h->size);
    d->len = h->size;
    memcpy(d->fds, fds, nfds * sizeof(int));
    d->nfds = nfds;
}

static int vfu_recv_hdr(VfuServer *s, VfuHdr *h, int *fds, unsigned *nfds,
                        bool *ctrunc);

/*
 * One DMA_READ/DMA_WRITE chunk, then wait (bounded in time and in
 * messages) for its reply; requests arriving meanwhile are deferred.
 */
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
    for (unsigned i = 0; i < VFU_DMA_WAIT_MSGS; i++) {
        struct pollfd pfd = { .fd = s->sock, .events = POLLIN };
        int fds[VFU_MAX_FDS];
        unsigned nfds = 0;
        bool ctrunc = false;
        VfuHdr r;
        int rc;

        if (poll(&pfd, 1, s->dma_wait_ms) <= 0) {
            return -ETIMEDOUT;
        }
        rc = vfu_recv_hdr(s, &r, fds, &nfds, &ctrunc);
        if (rc <= 0 || r.size < VFU_HDR_SIZE || r.size > VFU_MAX_MSG) {
            close_fds(fds, nfds);
            s->broken = true;
            return -EPIPE;
        }
        memcpy(m, &r, sizeof(r));
        if (!vfu_read_full(s, m + VFU_HDR_SIZE, r.size - VFU_HDR_SIZE)) {
            close_fds(fds, nfds);
            s->broken = true;
            return -EPIPE;
        }
        if ((r.flags & VFU_FLAG_TYPE_MASK) == VFU_FLAG_REQUEST) {
            vfu_defer(s, &r, m, fds, nfds);
            continue;
        }
        close_fds(fds, nfds);
        if (r.id != id) {
            s->stats.stray_replies++;
            trace_e810_vfu_error(r.id, r.command, EINVAL, "stray reply");
            continue;
        }
        if (r.flags & VFU_FLAG_ERROR) {
            return r.error ? -(int)r.error : -EIO;
        }
        if (!write) {
            if (r.size < VFU_HDR_SIZE + VFU_DMA_RW_DATA + (uint64_t)len ||
                ld32(m + VFU_HDR_SIZE + 8) != len) {
                return -EINVAL;
            }
            memcpy(buf, m + VFU_HDR_SIZE + VFU_DMA_RW_DATA, len);
        }
        return 0;
    }
    return -ETIMEDOUT;
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

/* ---- the core's host interface ----------------------------------------- */

static int vfu_host_dma_read(void *opaque, uint64_t addr, void *buf,
                             size_t len)
{
    return vfu_dma(opaque, false, addr, buf, len);
}

static int vfu_host_dma_write(void *opaque, uint64_t addr, const void *buf,
                              size_t len)
{
    /* vfu_dma only reads @buf when writing. */
    return vfu_dma(opaque, true, addr, (void *)buf, len);
}

static void vfu_host_msix_notify(void *opaque, unsigned vector)
{
    vfu_msix_notify(opaque, vector);
}

static E810TxResult vfu_host_send_frame(void *opaque, const void *frame,
                                        size_t len, bool flow)
{
    VfuServer *s = opaque;

    if (!s->send_frame) {
        s->stats.tx_no_link++;
        trace_e810_vfu_link_drop("tx (no link)", len, s->stats.tx_no_link);
        return E810_TX_DROPPED;
    }
    return s->send_frame(s->link_opaque, frame, len, flow);
}

static int64_t vfu_host_clock_ns(void *opaque)
{
    return vfu_clock_ns();
}

static E810Timer *vfu_host_timer_new(void *opaque, E810TimerCb *cb,
                                     void *cb_opaque)
{
    VfuServer *s = opaque;
    E810Timer *t;

    /* The core makes a fixed set of timers: running out is a bug here. */
    if (s->ntimers == VFU_TIMERS_MAX) {
        vfu_log("fatal", "too many timers");
        abort();
    }
    t = calloc(1, sizeof(*t));
    if (!t) {
        abort();
    }
    t->cb = cb;
    t->opaque = cb_opaque;
    s->timers[s->ntimers++] = t;
    return t;
}

static void vfu_host_timer_mod(void *opaque, E810Timer *t, int64_t expire)
{
    t->expire = expire;
    t->armed = true;
}

static void vfu_host_timer_del(void *opaque, E810Timer *t)
{
    t->armed = false;
}

static void vfu_host_timer_free(void *opaque, E810Timer *t)
{
    VfuServer *s = opaque;

    for (unsigned i = 0; i < s->ntimers; i++) {
        if (s->timers[i] == t) {
            s->timers[i] = s->timers[--s->ntimers];
            break;
        }
    }
    free(t);
}

static E810Bh *vfu_host_bh_new(void *opaque, E810TimerCb *cb, void *cb_opaque)
{
    VfuServer *s = opaque;
    E810Bh *b;

    if (s->nbhs == VFU_BHS_MAX) {
        vfu_log("fatal", "too many bottom halves");
        abort();
    }
    b = calloc(1, sizeof(*b));
    if (!b) {
        abort();
    }
    b->cb = cb;
    b->opaque = cb_opaque;
    s->bhs[s->nbhs++] = b;
    return b;
}

static void vfu_host_bh_schedule(void *opaque, E810Bh *bh)
{
    bh->scheduled = true;
}

static void vfu_host_bh_free(void *opaque, E810Bh *bh)
{
    VfuServer *s = opaque;

    for (unsigned i = 0; i < s->nbhs; i++) {
        if (s->bhs[i] == bh) {
            s->bhs[i] = s->bhs[--s->nbhs];
            break;
        }
    }
    free(bh);
}

static void vfu_host_guest_error(void *opaque, const char *msg)
{
    vfu_log("guest error", msg);
}

static void vfu_host_unimp(void *opaque, const char *msg)
{
    vfu_log("unimplemented", msg);
}

static void vfu_host_migration_blocked(void *opaque, const char *why)
{
    /* No migration over vfio-user here: nothing to block. */
}

static const E810HostOps vfu_host_ops = {
    .dma_read = vfu_host_dma_read,
    .dma_write = vfu_host_dma_write,
    .msix_notify = vfu_host_msix_notify,
    .send_frame = vfu_host_send_frame,
    .clock_ns = vfu_host_clock_ns,
    .timer_new = vfu_host_timer_new,
    .timer_mod = vfu_host_timer_mod,
    .timer_del = vfu_host_timer_del,
    .timer_free = vfu_host_timer_free,
    .bh_new = vfu_host_bh_new,
    .bh_schedule = vfu_host_bh_schedule,
    .bh_free = vfu_host_bh_free,
    .guest_error = vfu_host_guest_error,
    .unimp = vfu_host_unimp,
    .migration_blocked = vfu_host_migration_blocked,
};

int64_t vfu_timers_next(VfuServer *s)
{
    int64_t next = -1;

    for (unsigned i = 0; i < s->ntimers; i++) {
        if (s->timers[i]->armed &&
            (next < 0 || s->timers[i]->expire < next)) {
            next = s->timers[i]->expire;
        }
    }
    return next;
}

/*
 * Expired timers, each at most once per call: a callback may re-arm
 * itself or free timers, so rescan from the start after each.
 */
void vfu_timers_run(VfuServer *s, int64_t now)
{
    for (unsigned pass = 0; pass < VFU_TIMERS_MAX; pass++) {
        E810Timer *due = NULL;

        for (unsigned i = 0; i < s->ntimers; i++) {
            E810Timer *t = s->timers[i];

            if (t->armed && t->expire <= now &&
                (!due || t->expire < due->expire)) {
                due = t;
            }
        }
        if (!due) {
            return;
        }
        due->armed = false;
        due->cb(due->opaque);
    }
}

bool vfu_bhs_run(VfuServer *s)
{
    bool ran = false;

    for (unsigned i = 0; i < s->nbhs; i++) {
        E810Bh *b = s->bhs[i];

        if (b->scheduled) {
            b->scheduled = false;
            b->cb(b->opaque);
            ran = true;
        }
    }
    return ran;
}

void vfu_set_link(VfuServer *s, bool up)
{
    s->link_up = up;
    e810_set_link(&s->core, up);
}

/* ---- lifetime ---------------------------------------------------------- */

void vfu_server_init(VfuServer *s, const VfuConfig *cfg)
{
    E810Host host = { .ops = &vfu_host_ops, .opaque = s };

    dma_fault_init();
    memset(s, 0, sizeof(*s));
    s->sock = -1;
    s->cfg = *cfg;
    s->dma_wait_ms = 5000;
    s->peer_max_xfer = VFU_MAX_XFER;
    s->msg = malloc(VFU_MAX_MSG);
    s->aux = malloc(VFU_MAX_MSG);
    s->reply = malloc(VFU_MAX_MSG);
    if (!s->msg || !s->aux || !s->reply) {
        abort();
    }
    for (unsigned v = 0; v < E810_MSIX_VECTORS; v++) {
        s->msix_fd[v] = -1;
    }
    s->intx_fd = s->intx_unmask_fd = -1;
    vfu_config_init(s);
    msix_reset(s);
    e810_core_init(&s->core, &host, cfg->mac);
    s->core.mem_limit = cfg->mem_limit;
    e810_set_link(&s->core, false);
}

static void vfu_irqs_close(VfuServer *s)
{
    close_fds(s->msix_fd, E810_MSIX_VECTORS);
    close_fds(&s->intx_fd, 1);
    close_fds(&s->intx_unmask_fd, 1);
}

static void vfu_dma_clear(VfuServer *s)
{
    for (unsigned i = 0; i < s->ndma; i++) {
        vfu_dma_region_free(&s->dma[i]);
    }
    s->ndma = 0;
}

/* What a client left: held requests, interrupt eventfds, DMA maps. */
static void vfu_client_state_drop(VfuServer *s)
{
    for (unsigned i = 0; i < s->ndeferred; i++) {
        close_fds(s->deferred[i].fds, s->deferred[i].nfds);
        free(s->deferred[i].buf);
    }
    s->ndeferred = 0;
    vfu_irqs_close(s);
    vfu_dma_clear(s);
}

void vfu_server_restart(VfuServer *s)
{
    vfu_client_state_drop(s);
    for (unsigned i = 0; i < s->ntimers; i++) {
        s->timers[i]->armed = false;
    }
    for (unsigned i = 0; i < s->nbhs; i++) {
        s->bhs[i]->scheduled = false;
    }
    s->negotiated = false;
    s->broken = false;
    s->peer_max_xfer = VFU_MAX_XFER;
    s->next_id = 0;
    s->msix_irq_masked = 0;
    s->msix_table_used = false;
    memset(&s->stats, 0, sizeof(s->stats));
    vfu_config_init(s);
    msix_reset(s);
    e810_core_reset(&s->core, E810_RESET_POWER_ON);
    s->core.mem_limit = s->cfg.mem_limit;
    s->link_up = false;
    e810_set_link(&s->core, false);
}

void vfu_server_cleanup(VfuServer *s)
{
    e810_core_cleanup(&s->core);
    vfu_client_state_drop(s);
    for (unsigned i = 0; i < s->ntimers; i++) {
        free(s->timers[i]);
    }
    for (unsigned i = 0; i < s->nbhs; i++) {
        free(s->bhs[i]);
    }
    s->ntimers = s->nbhs = 0;
    if (s->sock >= 0) {
        close(s->sock);
        s->sock = -1;
    }
    free(s->msg);
    free(s->aux);
    free(s->reply);
    s->msg = s->aux = s->reply = NULL;
}

void vfu_server_attach(VfuServer *s, int fd)
{
    /* A client that stalls mid-message or stops reading is cut off. */
    struct timeval tv = { .tv_sec = 5 };

    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    s->sock = fd;
    s->negotiated = false;
    s->broken = false;
}

/* ---- requests ---------------------------------------------------------- */

/* The "max_data_xfer_size" number in the client's capabilities, if any. */
static uint64_t caps_max_xfer(const char *json)
{
    const char *k = strstr(json, "\"max_data_xfer_size\"");
    uint64_t v = 0;
    int digits = 0;

    if (!k) {
        return VFU_MAX_XFER;
    }
    k += strlen("\"max_data_xfer_size\"");
    while (*k == ' ' || *k == ':') {
        k++;
    }
    while (*k >= '0' && *k <= '9' && digits < 12) {
        v = v * 10 + (*k++ - '0');
        digits++;
    }
    return v >= 4096 ? v : VFU_MAX_XFER;
}

static void vfu_cmd_version(VfuServer *s, const VfuHdr *h, const uint8_t *p,
                            uint32_t plen)
{
    int n;

    if (plen < sizeof(VfuVersion)) {
        vfu_error(s, h, EINVAL, "version: short");
        return;
    }
    if (ld16(p) != 0) {
        vfu_error(s, h, ENOTSUP, "version: major not 0");
        return;
    }
    s->peer_max_xfer = VFU_MAX_XFER;
    if (plen > sizeof(VfuVersion)) {
        if (p[plen - 1] != '\0') {
            vfu_error(s, h, EINVAL, "version: capabilities not terminated");
            return;
        }
        s->peer_max_xfer = caps_max_xfer((const char *)p + 4);
    }
    trace_e810_vfu_version(ld16(p), ld16(p + 2), s->peer_max_xfer);
    /* Short, so it fits the client's buffer (its request's size). */
    st16(s->reply + VFU_HDR_SIZE, 0);
    st16(s->reply + VFU_HDR_SIZE + 2, 0);
    n = snprintf((char *)s->reply + VFU_HDR_SIZE + 4, 256,
                 "{\"capabilities\":{\"max_msg_fds\":%u,"
                 "\"max_data_xfer_size\":%u,\"pgsizes\":%u,"
                 "\"max_dma_maps\":%u,\"write_multiple\":true}}",
                 VFU_MAX_FDS, VFU_MAX_XFER, VFU_PAGE_SIZE, VFU_MAX_DMA);
    s->negotiated = true;
    vfu_reply(s, h, 4 + n + 1);
}

static void vfu_cmd_dma_map(VfuServer *s, const VfuHdr *h, const uint8_t *p,
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

static void vfu_cmd_dma_unmap(VfuServer *s, const VfuHdr *h, const uint8_t *p,
                              uint32_t plen)
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
    memcpy(s->reply + VFU_HDR_SIZE, &u, sizeof(u));
    vfu_reply(s, h, sizeof(u));
}

static void vfu_cmd_get_info(VfuServer *s, const VfuHdr *h, const uint8_t *p,
                             uint32_t plen)
{
    VfuDeviceInfo i;

    if (plen < sizeof(i) || ld32(p) < sizeof(i)) {
        vfu_error(s, h, EINVAL, "get info: short");
        return;
    }
    i.argsz = sizeof(i);
    i.flags = VFU_DEVICE_FLAGS_PCI | VFU_DEVICE_FLAGS_RESET;
    i.num_regions = VFU_PCI_NUM_REGIONS;
    i.num_irqs = VFU_PCI_NUM_IRQS;
    memcpy(s->reply + VFU_HDR_SIZE, &i, sizeof(i));
    vfu_reply(s, h, sizeof(i));
}

static uint64_t region_size(uint32_t index)
{
    switch (index) {
    case VFU_PCI_BAR0_REGION:
        return E810_BAR0_SIZE;
    case VFU_PCI_BAR3_REGION:
        return E810_PCI_MSIX_BAR_SIZE;
    case VFU_PCI_CONFIG_REGION:
        return VFU_CONFIG_SIZE;
    default:
        return 0;
    }
}

static void vfu_cmd_region_info(VfuServer *s, const VfuHdr *h,
                                const uint8_t *p, uint32_t plen)
{
    VfuRegionInfo ri;

    if (plen < sizeof(ri) || ld32(p) < sizeof(ri)) {
        vfu_error(s, h, EINVAL, "region info: short");
        return;
    }
    memcpy(&ri, p, sizeof(ri));
    if (ri.index >= VFU_PCI_NUM_REGIONS) {
        vfu_error(s, h, EINVAL, "region info: no such region");
        return;
    }
    ri.argsz = sizeof(ri);
    ri.size = region_size(ri.index);
    ri.flags = ri.size ? VFU_REGION_FLAG_READ | VFU_REGION_FLAG_WRITE : 0;
    ri.cap_offset = 0;
    /* Offsets as the kernel's vfio-pci spaces them (no mmap offered). */
    ri.offset = (uint64_t)ri.index << 40;
    memcpy(s->reply + VFU_HDR_SIZE, &ri, sizeof(ri));
    vfu_reply(s, h, sizeof(ri));
}

static void vfu_cmd_irq_info(VfuServer *s, const VfuHdr *h, const uint8_t *p,
                             uint32_t plen)
{
    VfuIrqInfo ii;

    if (plen < sizeof(ii) || ld32(p) < sizeof(ii)) {
        vfu_error(s, h, EINVAL, "irq info: short");
        return;
    }
    memcpy(&ii, p, sizeof(ii));
    switch (ii.index) {
    case VFU_PCI_INTX_IRQ:
        /* Pin A exists (as in QEMU) but the device only uses MSI-X. */
        ii.count = 1;
        ii.flags = VFU_IRQ_INFO_EVENTFD | VFU_IRQ_INFO_MASKABLE |
                   VFU_IRQ_INFO_AUTOMASKED;
        break;
    case VFU_PCI_MSI_IRQ:
        ii.count = 0;
        ii.flags = VFU_IRQ_INFO_EVENTFD | VFU_IRQ_INFO_NORESIZE;
        break;
    case VFU_PCI_MSIX_IRQ:
        ii.count = E810_MSIX_VECTORS;
        ii.flags = VFU_IRQ_INFO_EVENTFD;
        break;
    default:
        vfu_error(s, h, EINVAL, "irq info: no such index");
        return;
    }
    ii.argsz = sizeof(ii);
    memcpy(s->reply + VFU_HDR_SIZE, &ii, sizeof(ii));
    vfu_reply(s, h, sizeof(ii));
}

static unsigned irq_count(uint32_t index)
{
    switch (index) {
    case VFU_PCI_INTX_IRQ:
        return 1;
    case VFU_PCI_MSIX_IRQ:
        return E810_MSIX_VECTORS;
    default:
        return 0;
    }
}

static void set_fd(int *slot, int fd)
{
    if (*slot >= 0) {
        close(*slot);
    }
    *slot = fd;
}

/*
 * An interrupt fd must be an eventfd (an anonymous inode: no file type in
 * its mode; a pipe, socket or file would let a client stall or redirect
 * the device's writes), and is written without blocking.
 */
static bool irq_fd_ok(int fd)
{
    struct stat st;
    int fl;

    if (fstat(fd, &st) || (st.st_mode & S_IFMT)) {
        return false;
    }
    fl = fcntl(fd, F_GETFL);
    return fl >= 0 && ((fl & O_NONBLOCK) ||
                       fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0);
}

/*
 * VFIO_DEVICE_SET_IRQS semantics: exactly one data type and one action;
 * DATA_NONE|TRIGGER with count 0 tears the index down; eventfds come as
 * SCM_RIGHTS, all of the range or none (QEMU sends a range of "no
 * eventfd" without fds).
 */
static void vfu_cmd_set_irqs(VfuServer *s, const VfuHdr *h, const uint8_t *p,
                             uint32_t plen, int *fds, unsigned nfds)
{
    VfuIrqSet is;
    uint32_t data, action;
    unsigned max;
    const uint8_t *bools = p + sizeof(is);

    if (plen < sizeof(is)) {
        vfu_error(s, h, EINVAL, "set irqs: short");
        return;
    }
    memcpy(&is, p, sizeof(is));
    trace_e810_vfu_set_irqs(is.index, is.start, is.count, is.flags, nfds);
    data = is.flags & VFU_IRQ_SET_DATA_MASK;
    action = is.flags & VFU_IRQ_SET_ACTION_MASKS;
    if (is.argsz < sizeof(is) ||
        (is.flags & ~(VFU_IRQ_SET_DATA_MASK | VFU_IRQ_SET_ACTION_MASKS)) ||
        __builtin_popcount(data) != 1 || __builtin_popcount(action) != 1 ||
        is.index >= VFU_PCI_NUM_IRQS) {
        vfu_error(s, h, EINVAL, "set irqs: flags or index");
        return;
    }
    max = irq_count(is.index);
    if (data == VFU_IRQ_SET_DATA_NONE && action == VFU_IRQ_SET_ACTION_TRIGGER &&
        is.count == 0) {
        if (nfds) {
            vfu_error(s, h, EINVAL, "set irqs: fds with no data");
            return;
        }
        if (is.index == VFU_PCI_MSIX_IRQ) {
            close_fds(s->msix_fd, E810_MSIX_VECTORS);
        } else if (is.index == VFU_PCI_INTX_IRQ) {
            close_fds(&s->intx_fd, 1);
            close_fds(&s->intx_unmask_fd, 1);
        }
        vfu_reply(s, h, 0);
        return;
    }
    if (is.start >= max || is.count > max - is.start || !is.count) {
        vfu_error(s, h, EINVAL, "set irqs: range");
        return;
    }
    if ((data == VFU_IRQ_SET_DATA_EVENTFD && nfds && nfds != is.count) ||
        (data != VFU_IRQ_SET_DATA_EVENTFD && nfds)) {
        vfu_error(s, h, EINVAL, "set irqs: fd count");
        return;
    }
    for (unsigned i = 0; i < nfds; i++) {
        if (!irq_fd_ok(fds[i])) {
            vfu_error(s, h, EINVAL, "set irqs: not an eventfd");
            return;
        }
    }
    if (data == VFU_IRQ_SET_DATA_BOOL && plen - sizeof(is) < is.count) {
        vfu_error(s, h, EINVAL, "set irqs: short bool data");
        return;
    }
    if (data == VFU_IRQ_SET_DATA_EVENTFD &&
        action == VFU_IRQ_SET_ACTION_MASK) {
        vfu_error(s, h, EINVAL, "set irqs: eventfd for mask");
        return;
    }

    if (is.index == VFU_PCI_INTX_IRQ) {
        /* Never asserted; the fds are kept for the client's sake. */
        if (data == VFU_IRQ_SET_DATA_EVENTFD) {
            set_fd(action == VFU_IRQ_SET_ACTION_TRIGGER ? &s->intx_fd :
                   &s->intx_unmask_fd, nfds ? fds[0] : -1);
            if (nfds) {
                fds[0] = -1;
            }
        }
        vfu_reply(s, h, 0);
        return;
    }

    for (uint32_t i = 0; i < is.count; i++) {
        unsigned v = is.start + i;
        bool on = data != VFU_IRQ_SET_DATA_BOOL || bools[i];

        if (data == VFU_IRQ_SET_DATA_EVENTFD) {
            set_fd(&s->msix_fd[v], nfds ? fds[i] : -1);
            if (nfds) {
                fds[i] = -1;
            }
        } else if (!on) {
            continue;
        } else if (action == VFU_IRQ_SET_ACTION_MASK) {
            s->msix_irq_masked |= 1ull << v;
        } else if (action == VFU_IRQ_SET_ACTION_UNMASK) {
            s->msix_irq_masked &= ~(1ull << v);
        } else {
            vfu_msix_notify(s, v);
        }
    }
    msix_deliver_pending(s);
    vfu_reply(s, h, 0);
}

/* BAR3: the MSI-X table (bytes as written) and the PBA (read-only). */
static void bar3_access(VfuServer *s, bool write, uint64_t off, uint8_t *data,
                        uint32_t count)
{
    const uint64_t tsize = sizeof(s->msix_table);

    if (off + count <= tsize) {
        s->msix_table_used = true;
        if (write) {
            memcpy(s->msix_table + off, data, count);
            msix_deliver_pending(s);
        } else {
            memcpy(data, s->msix_table + off, count);
        }
        return;
    }
    if (off >= E810_PCI_MSIX_PBA_OFF && off + count <= E810_PCI_MSIX_PBA_OFF + 8) {
        if (!write) {
            uint8_t pba[8];

            st64(pba, s->msix_pba);
            memcpy(data, pba + (off - E810_PCI_MSIX_PBA_OFF), count);
            return;
        }
    }
    /* Reserved space, or a PBA write: ignored as in PCI, but counted. */
    s->stats.bar3_ignored++;
    trace_e810_vfu_region(write ? "bar3 write ignored" : "bar3 read as 0",
                          VFU_PCI_BAR3_REGION, off, count);
    if (!write) {
        memset(data, 0, count);
    }
}

/* One access to @region; the range was checked against its size. */
static int region_access(VfuServer *s, bool write, uint32_t region,
                         uint64_t off, uint8_t *data, uint32_t count)
{
    switch (region) {
    case VFU_PCI_CONFIG_REGION:
        if (write) {
            vfu_config_write(s, off, data, count);
        } else {
            memcpy(data, s->config + off, count);
        }
        return 0;
    case VFU_PCI_BAR0_REGION:
        /* As a CPU access: 1, 2, 4 or 8 bytes (the core checks alignment). */
        if (count != 1 && count != 2 && count != 4 && count != 8) {
            return -EINVAL;
        }
        if (write) {
            uint64_t v = 0;

            memcpy(&v, data, count);
            e810_mmio_write(&s->core, off, v, count);
        } else {
            uint64_t v = e810_mmio_read(&s->core, off, count);

            memcpy(data, &v, count);
        }
        return 0;
    case VFU_PCI_BAR3_REGION:
        bar3_access(s, write, off, data, count);
        return 0;
    default:
        return -EINVAL;
    }
}

static int region_check(uint32_t region, uint64_t off, uint32_t count)
{
    uint64_t size;

    if (region >= VFU_PCI_NUM_REGIONS) {
        return -EINVAL;
    }
    size = region_size(region);
    if (!count || count > VFU_REGION_RW_MAX || off >= size ||
        count > size - off) {
        return -EINVAL;
    }
    return 0;
}

static void vfu_cmd_region_rw(VfuServer *s, const VfuHdr *h, uint8_t *p,
                              uint32_t plen, bool write)
{
    VfuRegionRw rw;
    int err;

    if (plen < sizeof(rw)) {
        vfu_error(s, h, EINVAL, "region rw: short");
        return;
    }
    memcpy(&rw, p, sizeof(rw));
    trace_e810_vfu_region(write ? "write" : "read", rw.region, rw.offset,
                          rw.count);
    err = region_check(rw.region, rw.offset, rw.count);
    if (err) {
        vfu_error(s, h, -err, "region rw: region or range");
        return;
    }
    if (write) {
        if (plen - sizeof(rw) != rw.count) {
            vfu_error(s, h, EINVAL, "region write: data size");
            return;
        }
        err = region_access(s, true, rw.region, rw.offset, p + sizeof(rw),
                            rw.count);
        if (err) {
            vfu_error(s, h, -err, "region write: access");
            return;
        }
        memcpy(s->reply + VFU_HDR_SIZE, &rw, sizeof(rw));
        vfu_reply(s, h, sizeof(rw));
        return;
    }
    if (plen != sizeof(rw)) {
        vfu_error(s, h, EINVAL, "region read: size");
        return;
    }
    err = region_access(s, false, rw.region, rw.offset,
                        s->reply + VFU_HDR_SIZE + sizeof(rw), rw.count);
    if (err) {
        vfu_error(s, h, -err, "region read: access");
        return;
    }
    memcpy(s->reply + VFU_HDR_SIZE, &rw, sizeof(rw));
    vfu_reply(s, h, sizeof(rw) + rw.count);
}

/*
 * REGION_WRITE_MULTI: posted writes batched by the client.  Checked
 * whole before any is done, so a bad batch has no partial effect.
 */
static void vfu_cmd_write_multi(VfuServer *s, const VfuHdr *h,
                                const uint8_t *p, uint32_t plen)
{
    uint64_t n;

    if (plen < 8) {
        vfu_error(s, h, EINVAL, "write multi: short");
        return;
    }
    n = ld64(p);
    if (!n || n > VFU_MULTI_MAX || plen - 8 < n * sizeof(VfuWriteOne)) {
        vfu_error(s, h, EINVAL, "write multi: count");
        return;
    }
    for (uint64_t i = 0; i < n; i++) {
        VfuWriteOne w;

        memcpy(&w, p + 8 + i * sizeof(w), sizeof(w));
        if (w.count > VFU_MULTI_DATA ||
            region_check(w.region, w.offset, w.count) ||
            (w.region == VFU_PCI_BAR0_REGION && w.count != 1 &&
             w.count != 2 && w.count != 4 && w.count != 8)) {
            vfu_error(s, h, EINVAL, "write multi: entry");
            return;
        }
    }
    for (uint64_t i = 0; i < n; i++) {
        VfuWriteOne w;

        memcpy(&w, p + 8 + i * sizeof(w), sizeof(w));
        trace_e810_vfu_region("write (multi)", w.region, w.offset, w.count);
        region_access(s, true, w.region, w.offset, w.data, w.count);
    }
    vfu_reply(s, h, 0);
}

static void vfu_device_reset(VfuServer *s)
{
    uint8_t cfg_keep[0x40];

    trace_e810_vfu_reset();
    /* A function reset: config space and MSI-X back to power-on (BARs too). */
    memcpy(cfg_keep, s->config, sizeof(cfg_keep));
    vfu_config_init(s);
    s->config[0x3C] = cfg_keep[0x3C];
    msix_reset(s);
    e810_core_reset(&s->core, E810_RESET_POWER_ON);
    e810_set_link(&s->core, s->link_up);
}

void vfu_handle_msg(VfuServer *s, uint8_t *buf, size_t len, int *fds,
                    unsigned nfds)
{
    VfuHdr h = { 0 };
    uint8_t *p = buf + VFU_HDR_SIZE;
    uint32_t plen;

    memcpy(&h, buf, len < sizeof(h) ? len : sizeof(h));
    trace_e810_vfu_msg(h.id, h.command, h.size, h.flags, nfds);
    if (len < VFU_HDR_SIZE || h.size != len) {
        vfu_error(s, &h, EINVAL, "bad message size");
        goto out;
    }
    plen = h.size - VFU_HDR_SIZE;
    if ((h.flags & VFU_FLAG_TYPE_MASK) == VFU_FLAG_REPLY) {
        /* Nothing of ours is outstanding here: never reply to a reply. */
        s->stats.stray_replies++;
        trace_e810_vfu_error(h.id, h.command, EINVAL, "stray reply");
        goto out;
    }
    if ((h.flags & VFU_FLAG_TYPE_MASK) != VFU_FLAG_REQUEST ||
        (h.flags & ~(VFU_FLAG_TYPE_MASK | VFU_FLAG_NO_REPLY))) {
        vfu_error(s, &h, EINVAL, "bad flags");
        goto out;
    }
    if (nfds && h.command != VFU_CMD_DMA_MAP &&
        h.command != VFU_CMD_DEVICE_SET_IRQS) {
        vfu_error(s, &h, EINVAL, "fds with a command that takes none");
        goto out;
    }
    if (!s->negotiated && h.command != VFU_CMD_VERSION) {
        vfu_error(s, &h, EINVAL, "no version negotiated");
        goto out;
    }

    switch (h.command) {
    case VFU_CMD_VERSION:
        vfu_cmd_version(s, &h, p, plen);
        break;
    case VFU_CMD_DMA_MAP:
        vfu_cmd_dma_map(s, &h, p, plen, fds, nfds);
        break;
    case VFU_CMD_DMA_UNMAP:
        vfu_cmd_dma_unmap(s, &h, p, plen);
        break;
    case VFU_CMD_DEVICE_GET_INFO:
        vfu_cmd_get_info(s, &h, p, plen);
        break;
    case VFU_CMD_DEVICE_GET_REGION_INFO:
        vfu_cmd_region_info(s, &h, p, plen);
        break;
    case VFU_CMD_DEVICE_GET_IRQ_INFO:
        vfu_cmd_irq_info(s, &h, p, plen);
        break;
    case VFU_CMD_DEVICE_SET_IRQS:
        vfu_cmd_set_irqs(s, &h, p, plen, fds, nfds);
        break;
    case VFU_CMD_REGION_READ:
        vfu_cmd_region_rw(s, &h, p, plen, false);
        break;
    case VFU_CMD_REGION_WRITE:
        vfu_cmd_region_rw(s, &h, p, plen, true);
        break;
    case VFU_CMD_REGION_WRITE_MULTI:
        vfu_cmd_write_multi(s, &h, p, plen);
        break;
    case VFU_CMD_DEVICE_RESET:
        vfu_device_reset(s);
        vfu_reply(s, &h, 0);
        break;
    default:
        /* GET_REGION_IO_FDS, DIRTY_PAGES, DMA_* (ours), unknown */
        vfu_error(s, &h, ENOTSUP, "command not supported");
        break;
    }
out:
    close_fds(fds, nfds);
}

/* ---- receiving --------------------------------------------------------- */

/*
 * The header, with any fds: 1 read, 0 end of stream, -1 error.
 * @ctrunc: more fds were sent than VFU_MAX_FDS (the kernel closed those).
 */
static int vfu_recv_hdr(VfuServer *s, VfuHdr *h, int *fds, unsigned *nfds,
                        bool *ctrunc)
{
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(VFU_MAX_FDS * sizeof(int))];
    } ctl;
    /* With a keeper, the header is read where it can see it. */
    uint8_t *hb = s->keep ? s->keep->hdr : (uint8_t *)h;
    struct iovec iov = { .iov_base = hb, .iov_len = sizeof(*h) };
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1,
        .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
    };
    ssize_t n;

    *nfds = 0;
    if (s->keep) {
        s->keep->msg_start = s->keep->rx;
    }
    do {
        n = recvmsg(s->sock, &mh, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
        return n < 0 ? -1 : 0;
    }
    if (s->keep) {
        s->keep->rx += n;
    }
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            unsigned k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

            for (unsigned i = 0; i < k; i++) {
                int fd;

                memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                if (*nfds < VFU_MAX_FDS) {
                    fds[(*nfds)++] = fd;
                } else {
                    close(fd);
                    *ctrunc = true;
                }
            }
        }
    }
    if (mh.msg_flags & MSG_CTRUNC) {
        *ctrunc = true;
    }
    if ((size_t)n < sizeof(*h) &&
        !vfu_read_full(s, hb + n, sizeof(*h) - n)) {
        close_fds(fds, *nfds);
        *nfds = 0;
        return -1;
    }
    if (s->keep) {
        memcpy(h, hb, sizeof(*h));
        vfu_keep_owe(s->keep, h);
    }
    return 1;
}

int vfu_server_recv(VfuServer *s)
{
    int fds[VFU_MAX_FDS];
    unsigned nfds = 0;
    bool ctrunc = false;
    VfuHdr h;
    int rc = vfu_recv_hdr(s, &h, fds, &nfds, &ctrunc);

    if (rc <= 0) {
        return rc;
    }
    if (h.size < VFU_HDR_SIZE) {
        /* Nothing more belongs to it: answer and read on. */
        close_fds(fds, nfds);
        vfu_error(s, &h, EINVAL, "size below the header's");
        return s->broken ? -1 : 1;
    }
    if (h.size > VFU_MAX_MSG) {
        /* Skip the body (the stream stays in step), then refuse. */
        uint64_t left = h.size - VFU_HDR_SIZE;

        close_fds(fds, nfds);
        while (left) {
            size_t n = left < VFU_MAX_MSG ? left : VFU_MAX_MSG;

            if (!vfu_read_full(s, s->msg, n)) {
                return -1;
            }
            left -= n;
        }
        vfu_error(s, &h, E2BIG, "message larger than max_data_xfer_size");
        return s->broken ? -1 : 1;
    }
    memcpy(s->msg, &h, sizeof(h));
    if (!vfu_read_full(s, s->msg + VFU_HDR_SIZE, h.size - VFU_HDR_SIZE)) {
        close_fds(fds, nfds);
        return -1;
    }
    if (ctrunc) {
        close_fds(fds, nfds);
        vfu_error(s, &h, EINVAL, "too many fds");
        return s->broken ? -1 : 1;
    }
    vfu_handle_msg(s, s->msg, h.size, fds, nfds);
    vfu_run_deferred(s);
    return s->broken ? -1 : 1;
}

void vfu_run_deferred(VfuServer *s)
{
    /* Handling one may defer more: bounded by the queue's size per pass. */
    for (unsigned pass = 0; pass < 4 * VFU_DEFERRED_MAX && s->ndeferred;
         pass++) {
        VfuDeferred d = s->deferred[0];

        memmove(&s->deferred[0], &s->deferred[1],
                --s->ndeferred * sizeof(s->deferred[0]));
        memcpy(s->msg, d.buf, d.len);
        free(d.buf);
        vfu_handle_msg(s, s->msg, d.len, d.fds, d.nfds);
    }
}
