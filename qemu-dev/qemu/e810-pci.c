/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Intel E810 (E810-XXV SFP, 8086:159B) PCIe function: the QEMU glue.
 *
 * This file only adapts QEMU to the device core in ../core: PCI identity and
 * capabilities, the BARs, MSI-X, the NIC backend, timers and logging.  All
 * device behaviour lives in the core, which knows nothing about QEMU.
 */
#include "qemu/osdep.h"
#include "qemu-version.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qemu/units.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/blocker.h"
#include "migration/vmstate.h"
#include "net/net.h"
#include "system/dma.h"
#include "system/runstate.h"
#include "qom/object.h"

#include "../core/e810.h"
#include "../core/snap.h"
#include "../core/pci.h"
#include "../trace.h"

#define TYPE_E810 "e810"
OBJECT_DECLARE_SIMPLE_TYPE(E810PCIState, E810)

struct E810PCIState {
    PCIDevice parent_obj;

    MemoryRegion mmio;
    MemoryRegion msix;
    NICState *nic;
    NICConf conf;
    uint64_t dsn;
    uint64_t mem_limit;     /* bytes of host memory for RDMA connections */
    unsigned tx_held;       /* frames QEMU holds with e810_host_frame_sent */
    uint64_t tx_held_drops; /* frames dropped at E810_GLUE_HELD_MAX */

    /*
     * Migration: the core's saved state in transit, and the blocker the
     * core asks for while it holds state it cannot save.
     */
    uint8_t *snap;
    uint32_t snap_len;
    Error *blocker;
    VMChangeStateEntry *vm_change;

    /* Faults asked for (fault property, qom-set): the last spec. */
    char *fault;

    E810Core core;
};

/* ---- host interface for the core --------------------------------------- */

/* The core counts and traces failed DMA (e810_dma_read/write). */
static int e810_host_dma_read(void *opaque, uint64_t addr, void *buf,
                              size_t len)
{
    MemTxResult r = pci_dma_read(PCI_DEVICE(opaque), addr, buf, len);

    return r == MEMTX_OK ? 0 : -1;
}

static int e810_host_dma_write(void *opaque, uint64_t addr, const void *buf,
                               size_t len)
{
    MemTxResult r = pci_dma_write(PCI_DEVICE(opaque), addr, buf, len);

    return r == MEMTX_OK ? 0 : -1;
}

static void e810_host_msix_notify(void *opaque, unsigned vector)
{
    PCIDevice *pdev = PCI_DEVICE(opaque);

    if (msix_enabled(pdev)) {
        msix_notify(pdev, vector);
    }
}

/*
 * Frames QEMU may hold for us with a sent callback.  QEMU's own queue
 * limit does not apply to those, so this is the glue's bound on them,
 * whatever the core does (it stops far below: E810_TX_QUEUED_MAX).
 */
#define E810_GLUE_HELD_MAX      512

/* A frame the backend had queued was handed on (or purged: @ret 0). */
static void e810_host_frame_sent(NetClientState *nc, ssize_t ret)
{
    E810PCIState *s = qemu_get_nic_opaque(nc);

    if (s->tx_held) {
        s->tx_held--;
    }
    e810_tx_drained(&s->core, ret > 0);
}

/*
 * Never blocks the caller: when the backend cannot take the frame, QEMU
 * queues it and (@flow) calls e810_host_frame_sent once it is delivered;
 * the core sends no new RDMA frames until then.  Without @flow QEMU
 * queues up to its limit and drops beyond it, as for any NIC.
 */
static E810TxResult e810_host_send_frame(void *opaque, const void *frame,
                                         size_t len, bool flow)
{
    E810PCIState *s = opaque;
    ssize_t ret;

    if (flow && s->tx_held >= E810_GLUE_HELD_MAX) {
        /* Lost as on a congested wire; the core counts it. */
        s->tx_held_drops++;
        trace_e810_tx_held_drop(len, s->tx_held, s->tx_held_drops);
        return E810_TX_DROPPED;
    }
    ret = qemu_send_packet_async(qemu_get_queue(s->nic), frame, len,
                                 flow ? e810_host_frame_sent : NULL);
    trace_e810_tx_frame(len, ret >= 0);
    if (ret == 0 && flow) {
        s->tx_held++;
        return E810_TX_QUEUED;
    }
    return ret >= 0 ? E810_TX_SENT : E810_TX_DROPPED;
}

static int64_t e810_host_clock_ns(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/*
 * Timers run with the device's re-entrancy guard engaged, as QEMU does for
 * MMIO dispatch, NIC delivery and guarded bottom halves: a DMA or MSI-X
 * write the device issues from a timer that lands in its own BARs then
 * fails (MEMTX_ACCESS_ERROR) instead of running device code underneath
 * the timer's.  The core has a guard of its own as well (E810Core.busy).
 */
struct E810Timer {
    QEMUTimer *qt;
    E810PCIState *s;
    E810TimerCb *cb;
    void *opaque;
};

static void e810_host_timer_cb(void *opaque)
{
    E810Timer *t = opaque;
    MemReentrancyGuard *g = &DEVICE(t->s)->mem_reentrancy_guard;
    bool was = g->engaged_in_io;

    g->engaged_in_io = true;
    t->cb(t->opaque);
    g->engaged_in_io = was;
}

static E810Timer *e810_host_timer_new(void *opaque, E810TimerCb *cb,
                                      void *cb_opaque)
{
    E810Timer *t = g_new0(E810Timer, 1);

    t->s = opaque;
    t->cb = cb;
    t->opaque = cb_opaque;
    t->qt = timer_new_ns(QEMU_CLOCK_VIRTUAL, e810_host_timer_cb, t);
    return t;
}

static void e810_host_timer_mod(void *opaque, E810Timer *t, int64_t expire)
{
    timer_mod(t->qt, expire);
}

static void e810_host_timer_del(void *opaque, E810Timer *t)
{
    timer_del(t->qt);
}

static void e810_host_timer_free(void *opaque, E810Timer *t)
{
    timer_free(t->qt);
    g_free(t);
}

/* Bottom halves carry the device's re-entrancy guard, like its timers. */
static E810Bh *e810_host_bh_new(void *opaque, E810TimerCb *cb, void *cb_opaque)
{
    return (E810Bh *)qemu_bh_new_guarded(cb, cb_opaque,
                                         &DEVICE(opaque)->mem_reentrancy_guard);
}

static void e810_host_bh_schedule(void *opaque, E810Bh *bh)
{
    qemu_bh_schedule((QEMUBH *)bh);
}

static void e810_host_bh_free(void *opaque, E810Bh *bh)
{
    qemu_bh_delete((QEMUBH *)bh);
}

static void e810_host_guest_error(void *opaque, const char *msg)
{
    qemu_log_mask(LOG_GUEST_ERROR, "e810: %s\n", msg);
}

static void e810_host_unimp(void *opaque, const char *msg)
{
    qemu_log_mask(LOG_UNIMP, "e810: %s\n", msg);
}

/*
 * The core holds state it cannot save (@why) or no longer does (NULL).
 * The blocker is "internal": it comes and goes with the guest's
 * connections, so it does not conflict with -only-migratable.  If a
 * migration is already running, adding fails; the core's save then
 * refuses with the same message.
 */
static void e810_host_migration_blocked(void *opaque, const char *why)
{
    E810PCIState *s = opaque;

    if (why && !s->blocker) {
        Error *err = NULL;

        error_setg(&s->blocker, "%s", why);
        if (migrate_add_blocker_internal(&s->blocker, &err) < 0) {
            warn_report_err(err);
        }
    } else if (!why && s->blocker) {
        migrate_del_blocker(&s->blocker);
    }
    trace_e810_migration_blocked(why ? why : "");
}

static const E810HostOps e810_host_ops = { E810_HOST_OPS_INIT(e810_host) };

/* ---- BAR0 --------------------------------------------------------------- */

static uint64_t e810_mmio_read_cb(void *opaque, hwaddr addr, unsigned size)
{
    E810PCIState *s = opaque;

    return e810_mmio_read(&s->core, addr, size);
}

static void e810_mmio_write_cb(void *opaque, hwaddr addr, uint64_t val,
                               unsigned size)
{
    E810PCIState *s = opaque;

    e810_mmio_write(&s->core, addr, val, size);
}

static const MemoryRegionOps e810_mmio_ops = {
    .read = e810_mmio_read_cb,
    .write = e810_mmio_write_cb,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

/* ---- the NIC backend ---------------------------------------------------- */

static bool e810_nc_can_receive(NetClientState *nc)
{
    E810PCIState *s = qemu_get_nic_opaque(nc);

    return e810_can_receive(&s->core);
}

static ssize_t e810_nc_receive(NetClientState *nc, const uint8_t *buf,
                               size_t size)
{
    E810PCIState *s = qemu_get_nic_opaque(nc);

    return e810_receive(&s->core, buf, size);
}

static void e810_nc_link_status_changed(NetClientState *nc)
{
    E810PCIState *s = qemu_get_nic_opaque(nc);

    e810_set_link(&s->core, !nc->link_down);
}

static NetClientInfo e810_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = e810_nc_can_receive,
    .receive = e810_nc_receive,
    .link_status_changed = e810_nc_link_status_changed,
};

static void e810_vm_change(void *opaque, bool running, RunState state);

/* ---- PCI ---------------------------------------------------------------- */

/* core/pci.h's numbers (e810-vfio-user's too) are PCI's, as QEMU names them. */
QEMU_BUILD_BUG_ON(E810_PCI_CLASS >> 8 != PCI_CLASS_NETWORK_ETHERNET);
QEMU_BUILD_BUG_ON(E810_PCI_PM_PMC != (PCI_PM_CAP_VER_1_2 | PCI_PM_CAP_PME_D0 |
                                      PCI_PM_CAP_PME_D3hot));
QEMU_BUILD_BUG_ON(E810_PCI_PM_CTRL_WMASK !=
                  (PCI_PM_CTRL_STATE_MASK | PCI_PM_CTRL_PME_ENABLE));
QEMU_BUILD_BUG_ON(E810_PCI_PM_CTRL_W1C != PCI_PM_CTRL_PME_STATUS);
QEMU_BUILD_BUG_ON(E810_PCI_LINK_SPEED != QEMU_PCI_EXP_LNK_16GT ||
                  E810_PCI_LINK_WIDTH != QEMU_PCI_EXP_LNK_X8);

/*
 * Hot-plugged, a card's further ports come before function 0 (QEMU shows
 * the slot to the guest when function 0 arrives): function 0 takes the
 * slot's e810 functions into its card, with its serial number, before
 * the guest can see any of them.
 */
static bool e810_pci_adopt(E810PCIState *s, Error **errp)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    PCIBus *bus = pci_get_bus(pdev);
    E810PCIState *fn[8] = { NULL };

    for (unsigned f = 1; f < 8; f++) {
        PCIDevice *o = pci_find_device(bus, pci_bus_num(bus),
                                       PCI_DEVFN(PCI_SLOT(pdev->devfn), f));

        if (!o || !object_dynamic_cast(OBJECT(o), TYPE_E810)) {
            continue;
        }
        fn[f] = E810(o);
        if (fn[f]->core.adapter != &fn[f]->core.own_adapter ||
            s->core.adapter->pf[f]) {
            error_setg(errp, "e810: function %u of the slot belongs to "
                       "another card", f);
            return false;
        }
    }
    for (unsigned f = 1; f < 8; f++) {
        if (fn[f]) {
            e810_core_join(&fn[f]->core, s->core.adapter, f);
            fn[f]->dsn = s->dsn;
            pci_set_quad(PCI_DEVICE(fn[f])->config + E810_PCI_DSN_SERIAL,
                         s->dsn);
        }
    }
    return true;
}

/* BAR0, the register file; BAR3, MSI-X's table and PBA (msix_init). */
static void e810_pci_bars(E810PCIState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    uint8_t type = PCI_BASE_ADDRESS_SPACE_MEMORY |
                   PCI_BASE_ADDRESS_MEM_TYPE_64 |
                   PCI_BASE_ADDRESS_MEM_PREFETCH;

    memory_region_init_io(&s->mmio, OBJECT(s), &e810_mmio_ops, s,
                          "e810-mmio", E810_BAR0_SIZE);
    pci_register_bar(pdev, E810_PCI_REG_BAR, type, &s->mmio);
    memory_region_init(&s->msix, OBJECT(s), "e810-msix",
                       E810_PCI_MSIX_BAR_SIZE);
    pci_register_bar(pdev, E810_PCI_MSIX_BAR, type, &s->msix);
}

/*
 * Power management, MSI-X and PCIe at core/pci.h's offsets, as
 * e810-vfio-user writes them by hand.  On failure nothing of them is
 * left.
 */
static bool e810_pci_caps(E810PCIState *s, Error **errp)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    if (pci_add_capability(pdev, PCI_CAP_ID_PM, E810_PCI_CAP_PM,
                           PCI_PM_SIZEOF, errp) < 0) {
        return false;
    }
    pci_set_word(pdev->config + E810_PCI_CAP_PM + PCI_PM_PMC, E810_PCI_PM_PMC);
    pci_set_word(pdev->wmask + E810_PCI_CAP_PM + PCI_PM_CTRL,
                 E810_PCI_PM_CTRL_WMASK);
    pci_set_word(pdev->w1cmask + E810_PCI_CAP_PM + PCI_PM_CTRL,
                 E810_PCI_PM_CTRL_W1C);

    if (msix_init(pdev, E810_MSIX_VECTORS,
                  &s->msix, E810_PCI_MSIX_BAR, E810_PCI_MSIX_TABLE_OFF,
                  &s->msix, E810_PCI_MSIX_BAR, E810_PCI_MSIX_PBA_OFF,
                  E810_PCI_CAP_MSIX, errp) < 0) {
        return false;
    }
    for (unsigned i = 0; i < E810_MSIX_VECTORS; i++) {
        msix_vector_use(pdev, i);
    }

    if (pcie_endpoint_cap_init(pdev, E810_PCI_CAP_PCIE) < 0) {
        error_setg(errp, "e810: cannot add the PCIe capability");
        msix_uninit(pdev, &s->msix, &s->msix);
        return false;
    }
    pcie_cap_fill_link_ep_usp(pdev, E810_PCI_LINK_WIDTH, E810_PCI_LINK_SPEED);
    return true;
}

/*
 * A further port of a card: function 0 of the slot is the card's first
 * (@f0, NULL for function 0 itself or one hot-plugged before it), and
 * the card has one serial number.  Hot-plugged, the further ports come
 * first (QEMU shows the slot to the guest when function 0 arrives):
 * function 0 then takes them into its card (e810_pci_adopt).
 */
static bool e810_pci_find_f0(E810PCIState *s, PCIDevice **f0, Error **errp)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    PCIBus *bus = pci_get_bus(pdev);

    *f0 = NULL;
    if (!PCI_FUNC(pdev->devfn)) {
        return true;
    }
    *f0 = pci_find_device(bus, pci_bus_num(bus),
                          PCI_DEVFN(PCI_SLOT(pdev->devfn), 0));
    if (!*f0 && DEVICE(s)->hotplugged) {
        return true;
    }
    if (!*f0 || !object_dynamic_cast(OBJECT(*f0), TYPE_E810)) {
        error_setg(errp, "e810: function %u needs an e810 at function 0 of "
                   "its slot, before it (the card's first port)",
                   PCI_FUNC(pdev->devfn));
        return false;
    }
    if (!s->dsn) {
        s->dsn = E810(*f0)->dsn;
    }
    return true;
}

/*
 * The NIC and the core, in the card of @f0 (or, function 0 hot-plugged,
 * with the further ports already there).  On failure neither is left.
 */
static bool e810_pci_core_init(E810PCIState *s, PCIDevice *f0, Error **errp)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    DeviceState *dev = DEVICE(s);
    E810Host host = { .ops = &e810_host_ops, .opaque = s };

    s->nic = qemu_new_nic(&e810_net_info, &s->conf,
                          object_get_typename(OBJECT(s)), dev->id,
                          &dev->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);

    e810_core_init(&s->core, &host, s->conf.macaddr.a);
    if (f0 && !e810_core_join(&s->core, E810(f0)->core.adapter,
                              PCI_FUNC(pdev->devfn))) {
        error_setg(errp, "e810: function %u cannot join the card of "
                   "function 0", PCI_FUNC(pdev->devfn));
        goto fail;
    }
    if (!PCI_FUNC(pdev->devfn) && dev->hotplugged &&
        !e810_pci_adopt(s, errp)) {
        goto fail;
    }
    return true;

fail:
    e810_core_cleanup(&s->core);
    qemu_del_nic(s->nic);
    return false;
}

static void e810_pci_realize(PCIDevice *pdev, Error **errp)
{
    E810PCIState *s = E810(pdev);
    PCIDevice *f0;
    char macstr[18];

    pdev->config[PCI_INTERRUPT_PIN] = E810_PCI_INTERRUPT_PIN;
    pdev->config[PCI_CACHE_LINE_SIZE] = E810_PCI_CACHE_LINE;
    e810_pci_bars(s);
    if (!e810_pci_caps(s, errp)) {
        return;
    }
    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    if (!e810_pci_find_f0(s, &f0, errp)) {
        msix_uninit(pdev, &s->msix, &s->msix);
        return;
    }
    s->dsn = e810_pci_dsn(s->dsn, s->conf.macaddr.a);
    pcie_dev_ser_num_init(pdev, E810_PCI_EXTCAP_DSN, s->dsn);
    if (!e810_pci_core_init(s, f0, errp)) {
        msix_uninit(pdev, &s->msix, &s->msix);
        return;
    }

    s->core.mem_limit = s->mem_limit;
    if (s->fault && *s->fault) {
        char err[200];

        /* Checked when set: it arms. */
        if (!e810_fault_arm(&s->core, s->fault, err, sizeof(err))) {
            error_report("e810: fault=%s: %s", s->fault, err);
        }
    }
    e810_set_link(&s->core, !qemu_get_queue(s->nic)->link_down);
    s->vm_change = qemu_add_vm_change_state_handler(e810_vm_change, s);

    snprintf(macstr, sizeof(macstr), "%02x:%02x:%02x:%02x:%02x:%02x",
             s->conf.macaddr.a[0], s->conf.macaddr.a[1], s->conf.macaddr.a[2],
             s->conf.macaddr.a[3], s->conf.macaddr.a[4], s->conf.macaddr.a[5]);
    trace_e810_pci_realize(macstr, s->dsn);
}

/* The fault property (docs/faults.md): set before realize it is armed
 * then; set on a running device (qom-set) it is armed at once. */
static char *e810_get_fault(Object *obj, Error **errp)
{
    return g_strdup(E810(obj)->fault ? E810(obj)->fault : "");
}

/* faults-injected (read-only): what was injected so far, one a line
 * ("SECONDS KIND A B", virtual time), for the test's report. */
static char *e810_get_faults_injected(Object *obj, Error **errp)
{
    char *log = g_malloc(E810_FAULT_LOG_MAX * 48 + 32);

    e810_fault_log(&E810(obj)->core, log, E810_FAULT_LOG_MAX * 48 + 32);
    return log;
}

static void e810_set_fault(Object *obj, const char *value, Error **errp)
{
    E810PCIState *s = E810(obj);
    char err[200];

    if (!e810_fault_check(value, err, sizeof(err))) {
        error_setg(errp, "e810: fault: %s", err);
        return;
    }
    if (DEVICE(obj)->realized &&
        !e810_fault_arm(&s->core, value, err, sizeof(err))) {
        error_setg(errp, "e810: fault: %s", err);
        return;
    }
    g_free(s->fault);
    s->fault = g_strdup(value);
}

static void e810_pci_exit(PCIDevice *pdev)
{
    E810PCIState *s = E810(pdev);

    /*
     * Frames we queued in the backend carry e810_host_frame_sent, which
     * reaches into this device: hand them back (as discarded) while the
     * device is still here.  qemu_del_nic only purges what the backend
     * queued for us, not what we queued at it.
     */
    trace_e810_pci_exit(s->tx_held, s->tx_held_drops);
    if (s->blocker) {
        migrate_del_blocker(&s->blocker);
    }
    qemu_del_vm_change_state_handler(s->vm_change);
    g_free(s->snap);
    s->snap = NULL;
    g_free(s->fault);
    s->fault = NULL;
    qemu_purge_queued_packets(qemu_get_queue(s->nic));
    qemu_del_nic(s->nic);
    e810_core_cleanup(&s->core);
    pcie_cap_exit(pdev);
    msix_uninit(pdev, &s->msix, &s->msix);
}

/*
 * Resettable "hold" phase: the core's power-on reset (config space and
 * MSI-X are the PCI core's), then the link as the backend has it.
 */
static void e810_qdev_reset_hold(Object *obj, ResetType type)
{
    E810PCIState *s = E810(obj);

    e810_core_reset(&s->core, E810_RESET_POWER_ON);
    e810_set_link(&s->core, !qemu_get_queue(s->nic)->link_down);
}

/* ---- migration ---------------------------------------------------------- */

/*
 * The device's state travels as one buffer in the core's own format
 * (core/snap.h), which the core writes and checks on load: a stream is
 * untrusted.  Config space and MSI-X are the PCI core's.
 */
static bool e810_pre_save(void *opaque, Error **errp)
{
    E810PCIState *s = opaque;
    E810SnapW w;
    char err[256];

    e810_snap_w_init(&w);
    if (!e810_core_save(&s->core, &w, err, sizeof(err))) {
        e810_snap_w_free(&w);
        error_setg(errp, "%s", err);
        return false;
    }
    if (w.len > E810_SNAP_MAX) {
        error_setg(errp, "e810: device state of %zu bytes is too big", w.len);
        e810_snap_w_free(&w);
        return false;
    }
    g_free(s->snap);
    s->snap = g_memdup2(w.buf, w.len);
    s->snap_len = w.len;
    e810_snap_w_free(&w);
    trace_e810_migration_save(s->snap_len);
    return true;
}

static int e810_post_save(void *opaque)
{
    E810PCIState *s = opaque;

    g_free(s->snap);
    s->snap = NULL;
    s->snap_len = 0;
    return 0;
}

static bool e810_pre_load(void *opaque, Error **errp)
{
    E810PCIState *s = opaque;

    /* Frames queued at the backend carry callbacks into the old state. */
    qemu_purge_queued_packets(qemu_get_queue(s->nic));
    s->tx_held = 0;
    g_free(s->snap);
    s->snap = NULL;
    s->snap_len = 0;
    return true;
}

/* Checked before the buffer is allocated with the stream's length. */
static bool e810_snap_len_ok(void *opaque, int version_id)
{
    E810PCIState *s = opaque;

    return s->snap_len > 0 && s->snap_len <= E810_SNAP_MAX;
}

static bool e810_post_load(void *opaque, int version_id, Error **errp)
{
    E810PCIState *s = opaque;
    char err[256];
    bool ok;

    ok = e810_core_load(&s->core, s->snap, s->snap_len, err, sizeof(err));
    trace_e810_migration_load(s->snap_len, ok);
    g_free(s->snap);
    s->snap = NULL;
    s->snap_len = 0;
    if (!ok) {
        error_setg(errp, "%s", err);
        return false;
    }
    /* The carrier as the source had it (a "set_link off" included). */
    qemu_get_queue(s->nic)->link_down = !s->core.link_up;
    return true;
}

/* Deferred work the saved engines had pending runs once the VM does. */
static void e810_vm_change(void *opaque, bool running, RunState state)
{
    E810PCIState *s = opaque;

    if (running) {
        e810_core_resume(&s->core);
    }
}

static const VMStateDescription e810_vmstate = {
    .name = "e810",
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_save_errp = e810_pre_save,
    .post_save = e810_post_save,
    .pre_load_errp = e810_pre_load,
    .post_load_errp = e810_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_PCI_DEVICE(parent_obj, E810PCIState),
        VMSTATE_MSIX(parent_obj, E810PCIState),
        VMSTATE_UINT32(snap_len, E810PCIState),
        VMSTATE_VALIDATE("e810 state size", e810_snap_len_ok),
        VMSTATE_VBUFFER_ALLOC_UINT32(snap, E810PCIState, 1, NULL, snap_len),
        VMSTATE_END_OF_LIST()
    },
};

static const Property e810_properties[] = {
    DEFINE_NIC_PROPERTIES(E810PCIState, conf),
    DEFINE_PROP_UINT64("dsn", E810PCIState, dsn, 0),
    /*
     * Host memory the device may allocate for RDMA connections (0: no
     * bound); a QP beyond it fails to connect with a CQP error.
     */
    DEFINE_PROP_SIZE("rdma-mem-limit", E810PCIState, mem_limit,
                     E810_MEM_LIMIT_DEFAULT),
};

/*
 * e810 objects alive in this QEMU (made, not yet finalized).  After a
 * hot-unplug and re-plug it is what the machine has, unless something
 * still holds the old device (the hot-unplug test reads it).  Objects
 * come and go under the BQL.
 */
static uint32_t e810_live;

static void e810_instance_init(Object *obj)
{
    e810_live++;
}

static void e810_instance_finalize(Object *obj)
{
    e810_live--;
}

static void e810_get_live(Object *obj, Visitor *v, const char *name,
                          void *opaque, Error **errp)
{
    uint32_t n = e810_live;

    visit_type_uint32(v, name, &n, errp);
}

#if QEMU_VERSION_MAJOR > 10 || \
    (QEMU_VERSION_MAJOR == 10 && QEMU_VERSION_MINOR >= 1)
static void e810_class_init(ObjectClass *klass, const void *data)
#else
static void e810_class_init(ObjectClass *klass, void *data)
#endif
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = e810_pci_realize;
    k->exit = e810_pci_exit;
    k->vendor_id = E810_PCI_VENDOR_ID;
    k->device_id = E810_PCI_DEVICE_ID;
    k->revision = E810_PCI_REVISION;
    k->class_id = E810_PCI_CLASS >> 8;     /* prog-if 0 */
    k->subsystem_vendor_id = E810_PCI_SUBSYS_VENDOR_ID;
    k->subsystem_id = E810_PCI_SUBSYS_ID;

    dc->desc = "Intel E810-XXV Ethernet Controller (ice, irdma)";
    dc->vmsd = &e810_vmstate;
    rc->phases.hold = e810_qdev_reset_hold;
    device_class_set_props(dc, e810_properties);
    object_class_property_add_str(klass, "fault", e810_get_fault,
                                  e810_set_fault);
    object_class_property_set_description(klass, "fault",
        "faults to inject (docs/faults.md), e.g. link-flap:at=3:count=2");
    object_class_property_add_str(klass, "faults-injected",
                                  e810_get_faults_injected, NULL);
    object_class_property_set_description(klass, "faults-injected",
        "the faults injected so far: SECONDS KIND A B, one a line");
    object_class_property_add(klass, "x-live-instances", "uint32",
                              e810_get_live, NULL, NULL, NULL);
    object_class_property_set_description(klass, "x-live-instances",
        "e810 devices alive in this QEMU (a leak check)");
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo e810_info = {
    .name = TYPE_E810,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(E810PCIState),
    .instance_init = e810_instance_init,
    .instance_finalize = e810_instance_finalize,
    .class_init = e810_class_init,
    .interfaces = (const InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void e810_register_types(void)
{
    type_register_static(&e810_info);
}

type_init(e810_register_types)
