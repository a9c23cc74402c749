/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e810-vfio-user: the device.  The PCI function's config space (core/
 * pci.h's identity and capabilities, written by hand), the core's host
 * interface (DMA, MSI-X, the link, the clock, timers and bottom halves
 * the event loop runs), the server's lifetime (init, restart, cleanup,
 * attach), and the device's info and reset.  The protocol, DMA, regions
 * and interrupts are the other layers' (vfu-int.h).
 */
#include "qemu/osdep.h"
#include <errno.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "vfu-int.h"
#include "trace.h"

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
 * PCIe 2.0 endpoint with core/pci.h's link, as QEMU's
 * pcie_endpoint_cap_init and pcie_cap_fill_link_ep_usp write it.
 */
static void vfu_config_pcie(VfuServer *s)
{
    const unsigned e = E810_PCI_CAP_PCIE;
    const uint16_t link = E810_PCI_LINK_SPEED | E810_PCI_LINK_WIDTH << 4;
    uint8_t *c = s->config + e;

    c[0] = 0x10;
    c[1] = 0;
    st16(c + 2, 0x0002);                            /* v2, endpoint */
    st32(c + 4, 1u << 15 | 1u << 28);               /* RBER, FLR */
    cfg_set16(s, e + 8, 0x2810, 0x7CFF, 0);         /* devctl */
    cfg_set16(s, e + 10, 0, 0, 0x000F);             /* devsta */
    st32(c + 12, link);                             /* lnkcap */
    cfg_set16(s, e + 16, 0, 0x00C3, 0);             /* lnkctl */
    st16(c + 18, link | 1u << 13);                  /* lnksta, DLL active */
    st32(c + 0x24, 1u << 4);                        /* devcap2 */
    cfg_set16(s, e + 0x28, 0, 0x0010, 0);           /* devctl2 */
    /* lnkcap2: the speeds up to the link's; lnkctl2: the link's */
    st32(c + 0x2C, ((1u << E810_PCI_LINK_SPEED) - 1) << 1);
    st16(c + 0x30, E810_PCI_LINK_SPEED);
}

/*
 * The config space of the in-QEMU device (e810-pci.c and QEMU's PCI,
 * PM, MSI-X and PCIe code): the same identity and capabilities at the
 * same offsets, writable and write-1-to-clear bits as PCI defines them.
 */
static void vfu_config_init(VfuServer *s)
{
    uint64_t dsn = e810_pci_dsn(s->cfg.dsn, s->cfg.mac);
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
    c[0x0C] = E810_PCI_CACHE_LINE;          /* cache line size */
    s->cfg_wmask[0x0C] = 0xFF;
    s->cfg_wmask[0x0D] = 0xFF;              /* latency timer */
    cfg_bar64(s, PCI_BAR(E810_PCI_REG_BAR), E810_BAR0_SIZE);
    cfg_bar64(s, PCI_BAR(E810_PCI_MSIX_BAR), E810_PCI_MSIX_BAR_SIZE);
    st16(c + 0x2C, E810_PCI_SUBSYS_VENDOR_ID);
    st16(c + 0x2E, E810_PCI_SUBSYS_ID);
    c[0x34] = E810_PCI_CAP_PM;
    s->cfg_wmask[0x3C] = 0xFF;              /* interrupt line */
    c[0x3D] = E810_PCI_INTERRUPT_PIN;

    /* Power management 1.2 */
    c[E810_PCI_CAP_PM] = 0x01;
    c[E810_PCI_CAP_PM + 1] = E810_PCI_CAP_MSIX;
    st16(c + E810_PCI_CAP_PM + 2, E810_PCI_PM_PMC);
    cfg_set16(s, E810_PCI_CAP_PM + 4, 0, E810_PCI_PM_CTRL_WMASK,
              E810_PCI_PM_CTRL_W1C);

    /* MSI-X: the table and PBA in BAR3 */
    c[E810_PCI_CAP_MSIX] = 0x11;
    c[E810_PCI_CAP_MSIX + 1] = E810_PCI_CAP_PCIE;
    cfg_set16(s, MSIX_CTRL, E810_MSIX_VECTORS - 1,
              MSIX_CTRL_ENABLE | MSIX_CTRL_MASKALL, 0);
    st32(c + E810_PCI_CAP_MSIX + 4,
         E810_PCI_MSIX_TABLE_OFF | E810_PCI_MSIX_BAR);
    st32(c + E810_PCI_CAP_MSIX + 8, E810_PCI_MSIX_PBA_OFF | E810_PCI_MSIX_BAR);

    vfu_config_pcie(s);

    /* Device Serial Number, the only extended capability */
    st32(c + E810_PCI_EXTCAP_DSN, 0x0003 | 1u << 16);
    st32(c + E810_PCI_DSN_SERIAL, (uint32_t)dsn);
    st32(c + E810_PCI_DSN_SERIAL + 4, (uint32_t)(dsn >> 32));
}

void vfu_config_write(VfuServer *s, uint32_t off, const uint8_t *data,
                      uint32_t count)
{
    uint16_t old_ctrl = vfu_msix_ctrl(s);

    for (uint32_t i = 0; i < count; i++) {
        uint8_t w = s->cfg_wmask[off + i], c = s->cfg_w1cmask[off + i];
        uint8_t *b = &s->config[off + i];

        *b = (*b & ~w) | (data[i] & w);
        *b &= ~(data[i] & c);
    }
    trace_e810_vfu_config_write(off, count,
                                count >= 4 ? ld32(data) :
                                count >= 2 ? ld16(data) : data[0]);
    if (vfu_msix_ctrl(s) != old_ctrl) {
        vfu_msix_deliver_pending(s);
    }
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

/*
 * A timer or a bottom half (@size bytes, a VfuWork first) into @set,
 * which has room for @max: the core makes a fixed set of them, so
 * running out of room or memory for one is a bug here.
 */
static void *vfu_work_new(VfuWork **set, unsigned *n, unsigned max,
                          size_t size, E810TimerCb *cb, void *cb_opaque,
                          const char *what)
{
    VfuWork *w;

    if (*n == max) {
        vfu_log("fatal", what);
        abort();
    }
    w = calloc(1, size);
    if (!w) {
        abort();
    }
    w->cb = cb;
    w->opaque = cb_opaque;
    set[(*n)++] = w;
    return w;
}

static void vfu_work_free(VfuWork **set, unsigned *n, VfuWork *w)
{
    for (unsigned i = 0; i < *n; i++) {
        if (set[i] == w) {
            set[i] = set[--*n];
            break;
        }
    }
    free(w);
}

static E810Timer *vfu_host_timer_new(void *opaque, E810TimerCb *cb,
                                     void *cb_opaque)
{
    VfuServer *s = opaque;

    return vfu_work_new(s->timer_work, &s->ntimers, VFU_TIMERS_MAX,
                        sizeof(E810Timer), cb, cb_opaque, "too many timers");
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

    vfu_work_free(s->timer_work, &s->ntimers, &t->work);
}

static E810Bh *vfu_host_bh_new(void *opaque, E810TimerCb *cb, void *cb_opaque)
{
    VfuServer *s = opaque;

    return vfu_work_new(s->bh_work, &s->nbhs, VFU_BHS_MAX, sizeof(E810Bh),
                        cb, cb_opaque, "too many bottom halves");
}

static void vfu_host_bh_schedule(void *opaque, E810Bh *bh)
{
    bh->scheduled = true;
}

static void vfu_host_bh_free(void *opaque, E810Bh *bh)
{
    VfuServer *s = opaque;

    vfu_work_free(s->bh_work, &s->nbhs, &bh->work);
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

static const E810HostOps vfu_host_ops = { E810_HOST_OPS_INIT(vfu_host) };

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
        due->work.cb(due->work.opaque);
    }
}

bool vfu_bhs_run(VfuServer *s)
{
    bool ran = false;

    for (unsigned i = 0; i < s->nbhs; i++) {
        E810Bh *b = s->bhs[i];

        if (b->scheduled) {
            b->scheduled = false;
            b->work.cb(b->work.opaque);
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

    vfu_dma_fault_init();
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
    vfu_msix_reset(s);
    e810_core_init(&s->core, &host, cfg->mac);
    s->core.mem_limit = cfg->mem_limit;
    e810_set_link(&s->core, false);
}

/* What a client left: held requests, interrupt eventfds, DMA maps. */
static void vfu_client_state_drop(VfuServer *s)
{
    vfu_deferred_clear(s);
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
    vfu_msix_reset(s);
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

/* ---- the device's requests --------------------------------------------- */

void vfu_cmd_get_info(VfuServer *s, const VfuHdr *h, uint8_t *p,
                      uint32_t plen, int *fds, unsigned nfds)
{
    VfuDeviceInfo i;

    if (!vfu_info_arg(s, h, p, plen, &i, sizeof(i), "get info: short")) {
        return;
    }
    i.argsz = sizeof(i);
    i.flags = VFU_DEVICE_FLAGS_PCI | VFU_DEVICE_FLAGS_RESET;
    i.num_regions = VFU_PCI_NUM_REGIONS;
    i.num_irqs = VFU_PCI_NUM_IRQS;
    vfu_reply_with(s, h, &i, sizeof(i));
}

void vfu_cmd_device_reset(VfuServer *s, const VfuHdr *h, uint8_t *p,
                          uint32_t plen, int *fds, unsigned nfds)
{
    uint8_t cfg_keep[0x40];

    trace_e810_vfu_reset();
    /* A function reset: config space and MSI-X back to power-on (BARs too). */
    memcpy(cfg_keep, s->config, sizeof(cfg_keep));
    vfu_config_init(s);
    s->config[0x3C] = cfg_keep[0x3C];
    vfu_msix_reset(s);
    e810_core_reset(&s->core, E810_RESET_POWER_ON);
    e810_set_link(&s->core, s->link_up);
    vfu_reply(s, h, 0);
}
