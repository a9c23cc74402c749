/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 device core: the entry points (lifetime, resets, BAR0 dispatch, the
 * wire, the bottom half).  The top of the core: it calls the blocks, which
 * call the services (services.c) below them, never back up here.
 */
#include "qemu/osdep.h"
#include "e810.h"
#include "rdma/engine.h"
#include "snap.h"
#include "../trace.h"

/* The bottom half txsched.c schedules, an entry point of its own: the
 * engines' deferred transmit work in turn. */
static void e810_tx_bh(void *opaque)
{
    E810Core *c = opaque;

    if (c->removed) {
        return;                 /* its queued work goes with it */
    }
    if (!e810_enter(c, "bottom half", 0)) {
        /* Cannot happen with a host that runs bottom halves from its
         * main loop; run it again rather than lose the work. */
        c->txs.scheduled = false;
        e810_tx_schedule(c);
        return;
    }
    if (e810_txsched_bh_start(c)) {
        e810_puda_tx_run(c);
        e810_eng_tx_run(c);
    }
    e810_leave(c);
}

/* ---- resets ------------------------------------------------------------- */

static void e810_regs_defaults(E810Core *c)
{
    /* Reset-done bits the driver checks before and after a PF reset;
     * PE_DONE says the RDMA engine is ready too. */
    e810_reg_set(c, GLNVM_ULD, GLNVM_ULD_PCIER_DONE | GLNVM_ULD_PCIER_DONE_1 |
                 GLNVM_ULD_CORER_DONE | GLNVM_ULD_GLOBR_DONE |
                 GLNVM_ULD_POR_DONE | GLNVM_ULD_POR_DONE_1 |
                 GLNVM_ULD_PCIER_DONE_2 | GLNVM_ULD_PE_DONE);
    /* NVM is locked (not blank); Shadow RAM of 2^1 * 512 words. */
    e810_reg_set(c, GLNVM_FLA, GLNVM_FLA_LOCKED);
    e810_reg_set(c, GLNVM_GENS, 1u << GLNVM_GENS_SR_SIZE_S);
    /* The PF number ice reads (bits 2:0) and uses as its port. */
    e810_reg_set(c, PF_FUNC_RID, c->pf_id);
    /* Global reset delay, in 100 ms units: only sizes the driver's poll loop. */
    e810_reg_set(c, GLGEN_RSTCTL, 8);
    /* The firmware's LLDP agent runs and DCBX has settled (fw/dcb.c). */
    e810_reg_set(c, PRTDCB_GENS, PRTDCB_GENS_DCBX_DONE);
    e810_reg_set(c, GLQF_FD_SIZE, E810_FD_GUAR | E810_FD_BEST_EFFORT << 16);
    e810_reg_set(c, PFQF_FD_SIZE, E810_FD_GUAR | E810_FD_BEST_EFFORT << 16);
}

static void e810_do_reset(E810Core *c, E810ResetType type)
{
    trace_e810_reset(type);
    if (type == E810_RESET_PF) {
        c->stats.pf_resets++;
    }
    e810_regs_clear(c);
    e810_intr_reset(c);
    e810_regs_defaults(c);
    e810_aq_reset(c);
    e810_fw_reset(c, type);
    e810_lan_reset(c);
    e810_rdma_reset(c, type);
    e810_rdma_port_reset(c);
    e810_puda_reset(c);
}

void e810_core_reset(E810Core *c, E810ResetType type)
{
    if (!e810_enter(c, "reset", type)) {
        return;
    }
    e810_do_reset(c, type);
    e810_leave(c);
}

/* ---- adapter resets (CORER, GLOBR) --------------------------------------- */

/* While an adapter reset waits, how often the device looks at the drivers. */
#define ADAPTER_RESET_POLL_NS   10000000ll
/*
 * The longest the model waits for the drivers after the warning.  The
 * card waits GLGEN_RSTCTL.GRSTDEL (0.8 s), room enough for software on a
 * real CPU; an emulated guest may need many times that to tear irdma
 * down (seen: over 0.8 s for nvmet-rdma's queues under a loaded TCG
 * host, and irdma's CQP ops then time out).  A driver that answers is
 * never kept waiting: the reset comes as soon as every admin queue is
 * shut.
 */
#define ADAPTER_RESET_GRACE_NS  10000000000ll

/* Runs @fn on every function of @c's card: @c as it is (the caller is in
 * its entry point), every other one inside an entry of its own. */
static void adapter_each(E810Core *c, const char *what,
                         void (*fn)(E810Core *o, E810Adapter *a))
{
    E810Adapter *a = c->adapter;

    for (unsigned i = 0; i < E810_ADAPTER_MAX_PFS; i++) {
        E810Core *o = a->pf[i];

        if (!o) {
            continue;
        }
        if (o == c) {
            fn(o, a);
        } else if (e810_enter(o, what, a->reset_type)) {
            fn(o, a);
            e810_leave(o);
        }
    }
}

static uint32_t rstat_type(E810Adapter *a)
{
    return (a->reset_type == E810_RESET_GLOBAL ? GLGEN_RSTAT_RESET_GLOBR
                                               : GLGEN_RSTAT_RESET_CORER)
           << GLGEN_RSTAT_RESET_TYPE_S;
}

/* The warning: GLGEN_RSTAT says which reset and that it is under way, the
 * reset-done bits drop, and GRST goes to the driver (ice then unplugs
 * irdma, stops its VSIs and shuts its control queues). */
static void adapter_warn(E810Core *o, E810Adapter *a)
{
    trace_e810_adapter_reset("warn", a->reset_type, o->pf_id);
    e810_reg_set(o, GLGEN_RSTAT, rstat_type(a) | 1);
    e810_reg_set(o, GLNVM_ULD, 0);
    e810_intr_oicr(o, PFINT_OICR_GRST);
}

/* The reset itself: every function's state, the package with it; the
 * device is then out of reset (DEVSTATE 0, the done bits set again). */
static void adapter_do_reset(E810Core *o, E810Adapter *a)
{
    trace_e810_adapter_reset("reset", a->reset_type, o->pf_id);
    e810_do_reset(o, a->reset_type);
    e810_reg_set(o, GLGEN_RSTAT, rstat_type(a));
    o->stats.adapter_resets++;
}

static void adapter_reset_finish(E810Core *c)
{
    E810Adapter *a = c->adapter;

    adapter_each(c, "adapter reset", adapter_do_reset);
    a->resetting = false;
    a->reset_by = NULL;
    e810_timer_del(c->reset_timer);
}

/*
 * Starts a core or global reset of @c's card.  The card resets
 * GLGEN_RSTCTL.GRSTDEL after its warning; the model resets as soon as
 * every function's driver has shut its admin queue (each is then done
 * with the device: irdma's teardown ran while the engine still answered),
 * and at the longer of that delay and ADAPTER_RESET_GRACE_NS at the
 * latest.  A reset asked for while one is under way joins it.
 */
static void adapter_reset_start(E810Core *c, E810ResetType type)
{
    E810Adapter *a = c->adapter;
    int64_t now = e810_now(c);
    int64_t grstdel = (int64_t)(e810_reg(c, GLGEN_RSTCTL) &
                                GLGEN_RSTCTL_GRSTDEL_M) * 100000000;

    if (a->resetting) {
        trace_e810_adapter_reset("joined", type, c->pf_id);
        return;
    }
    a->resetting = true;
    a->reset_type = type;
    a->reset_by = c;
    a->reset_deadline = now + (grstdel > ADAPTER_RESET_GRACE_NS ?
                               grstdel : ADAPTER_RESET_GRACE_NS);

    adapter_each(c, "adapter reset", adapter_warn);
    if (!c->reset_timer) {
        adapter_reset_finish(c);        /* a host without timers */
        return;
    }
    e810_timer_mod(c->reset_timer, now + ADAPTER_RESET_POLL_NS);
}

static bool adapter_quiet(E810Adapter *a)
{
    for (unsigned i = 0; i < E810_ADAPTER_MAX_PFS; i++) {
        E810Core *o = a->pf[i];

        if (o && ((e810_reg(o, PF_FW_ATQLEN) | e810_reg(o, PF_FW_ARQLEN)) &
                  PF_FW_xQLEN_ENABLE)) {
            return false;
        }
    }
    return true;
}

static void adapter_reset_timer_cb(void *opaque)
{
    E810Core *c = opaque;
    E810Adapter *a = c->adapter;
    int64_t now = e810_now(c);

    if (!a->resetting || a->reset_by != c) {
        return;
    }
    if (!adapter_quiet(a) && now < a->reset_deadline) {
        e810_timer_mod(c->reset_timer, now + ADAPTER_RESET_POLL_NS);
        return;
    }
    adapter_reset_finish(c);
}

/* GLGEN_RTRIG: ice asks for a core (b0) or global (b1) reset. */
static bool rtrig_write(E810Core *c, uint32_t off, uint32_t val)
{
    if (val & GLGEN_RTRIG_GLOBR) {
        adapter_reset_start(c, E810_RESET_GLOBAL);
    } else if (val & GLGEN_RTRIG_CORER) {
        adapter_reset_start(c, E810_RESET_CORE);
    }
    return true;
}

/* Any value but the "Q1 resource check" (0x0001024d) is critical to irdma. */
#define E810_PE_CRITERR_FAULT   0x00000001u

/* An RDMA-engine critical error (a fault): ice passes PE_CRITERR to
 * irdma, which logs GLPE_CRITERR and asks ice for a PF reset. */
static void e810_pe_crit_err(E810Core *c)
{
    e810_reg_set(c, GLPE_CRITERR, E810_PE_CRITERR_FAULT);
    e810_intr_oicr(c, PFINT_OICR_PE_CRITERR);
}

/* A fault that fires at its time (fault.h): the link, or an AE. */
static void e810_core_leave(E810Core *c);

/*
 * A surprise removal: the function is gone from the bus before its
 * driver hears of it.  A reset it was carrying out ends for the others,
 * it leaves the card, its faults go; from now on no entry point runs
 * (e810_enter), reads return all ones, frames for it are dropped and its
 * timers and bottom half stop.  Its host then unplugs it.
 */
static void e810_core_removed(E810Core *c)
{
    if (c->adapter->resetting && c->adapter->reset_by == c) {
        adapter_reset_finish(c);
    }
    e810_core_leave(c);
    for (unsigned i = 0; i < E810_FAULTS_MAX; i++) {
        c->faults.f[i].kind = 0;
    }
    c->removed = true;
    trace_e810_removed(c->pf_id);
}

static void e810_fault_fire(E810Core *c, E810Fault *f)
{
    bool up;

    if (f->kind == E810_FAULT_REMOVED) {
        e810_core_removed(c);
        return;
    }

    if (f->kind == E810_FAULT_CORE_RESET || f->kind == E810_FAULT_GLOBAL_RESET) {
        adapter_reset_start(c, f->kind == E810_FAULT_CORE_RESET ?
                               E810_RESET_CORE : E810_RESET_GLOBAL);
        return;
    }
    if (f->kind == E810_FAULT_PF_RESET) {
        e810_pe_crit_err(c);
        return;
    }
    if (f->kind == E810_FAULT_QP_AE) {
        if (!e810_eng_fault_ae(c, f->qp, f->ae, f->src)) {
            e810_guest_error(c, "fault: qp-ae for QP %u, which has no "
                             "engine QP", f->qp);
        }
        return;
    }
    up = f->kind == E810_FAULT_LINK_UP ||
         (f->kind == E810_FAULT_LINK_FLAP && !f->down);
    if (c->link_up != up) {
        c->link_up = up;
        trace_e810_link(up);
        e810_fw_phy_link_changed(c);
    }
}

void e810_core_init(E810Core *c, const E810Host *host, const uint8_t mac[6])
{
    memset(c, 0, sizeof(*c));
    c->host = *host;
    memcpy(c->mac, mac, 6);
    c->adapter = &c->own_adapter;
    c->own_adapter.funcs = 1;
    c->own_adapter.pf[0] = c;
    e810_regs_init(c);
    c->link_up = true;
    c->mem_limit = E810_MEM_LIMIT_DEFAULT;
    c->tx_budget = E810_TX_BUDGET;
    e810_txsched_init(c, e810_tx_bh);
    e810_rdma_init(c);
    e810_rdma_port_init(c);
    e810_faults_init(c, e810_fault_fire);
    e810_aq_init(c);
    c->reset_timer = e810_timer_new(c, adapter_reset_timer_cb, c);
    e810_core_reset(c, E810_RESET_POWER_ON);
}

bool e810_core_join(E810Core *c, E810Adapter *a, unsigned pf)
{
    if (pf >= E810_ADAPTER_MAX_PFS || a->pf[pf] || c->adapter != &c->own_adapter) {
        return false;
    }
    c->own_adapter.funcs = 0;
    c->own_adapter.pf[0] = NULL;
    a->pf[pf] = c;
    a->funcs |= 1u << pf;
    c->adapter = a;
    c->pf_id = pf;
    e810_reg_set(c, PF_FUNC_RID, pf);
    return true;
}

/*
 * Leaving the card: a function that was joined to another's adapter goes;
 * if others joined this core's own adapter, they each become a card of
 * their own (their host removes them too: a card's functions go together).
 */
static void e810_core_leave(E810Core *c)
{
    E810Adapter *a = c->adapter;

    for (unsigned i = 0; i < E810_ADAPTER_MAX_PFS; i++) {
        E810Core *o = a->pf[i];

        if (o == c) {
            a->pf[i] = NULL;
            a->funcs &= ~(1u << i);
        } else if (o && a == &c->own_adapter) {
            o->adapter = &o->own_adapter;
            o->own_adapter.funcs = 1u << o->pf_id;
            o->own_adapter.pf[o->pf_id] = o;
            a->pf[i] = NULL;
        }
    }
    c->adapter = &c->own_adapter;
}

void e810_core_cleanup(E810Core *c)
{
    /* A reset this function was carrying out ends now, for the others. */
    if (c->adapter->resetting && c->adapter->reset_by == c &&
        e810_enter(c, "cleanup", 0)) {
        adapter_reset_finish(c);
        e810_leave(c);
    }
    e810_timer_free(c->reset_timer);
    c->reset_timer = NULL;
    e810_core_leave(c);
    e810_faults_cleanup(c);
    e810_aq_cleanup(c);
    e810_rdma_port_cleanup(c);
    e810_rdma_cleanup(c);
    e810_intr_cleanup(c);
    e810_txsched_cleanup(c);
    e810_regs_cleanup(c);
}

/* ---- saved state -------------------------------------------------------- */

/*
 * The records of a saved state, in stream order (snap.h), each made of
 * the parts its blocks declare (E810SnapPart), in order.  Load reads them
 * into a device just reset to power-on; each part checks every value and
 * re-arms its own timers.
 */
typedef struct E810SnapRecord {
    uint16_t id;
    uint16_t ver;               /* the newest version this device writes */
    const char *name;
    const E810SnapPart *parts[3];   /* unused ones NULL */
} E810SnapRecord;

static const E810SnapRecord e810_snap_records[] = {
    { E810_SNAP_REGS, 1, "regs", { &e810_regs_snap } },
    { E810_SNAP_INTR, 1, "intr", { &e810_intr_snap } },
    { E810_SNAP_AQ, 1, "aq", { &e810_aq_snap } },
    /* v2: lock expiry, busy and expired counts; v3: FW logging */
    { E810_SNAP_FW_CORE, 3, "fw.core", { &e810_fw_core_snap } },
    { E810_SNAP_FW_NVM, 1, "fw.nvm", { &e810_fw_nvm_snap } },
    { E810_SNAP_FW_DDP, 1, "fw.ddp", { &e810_fw_ddp_snap } },
    { E810_SNAP_FW_PHY, 1, "fw.phy", { &e810_fw_phy_snap } },
    { E810_SNAP_FW_SWITCH, 1, "fw.sw", { &e810_fw_switch_snap } },
    { E810_SNAP_FW_SCHED, 1, "fw.sched", { &e810_fw_sched_snap } },
    { E810_SNAP_LAN, 1, "lan", { &e810_lan_snap } },
    /* v2: E810Counters.ccqes_dropped; v3: .adapter_resets */
    { E810_SNAP_TXSCHED, 3, "txsched",
      { &e810_txsched_snap, &e810_counters_snap } },
    /* v2: the pending CCQE */
    { E810_SNAP_RDMA, 2, "rdma", { &e810_rdma_snap } },
    { E810_SNAP_PUDA, 1, "puda",
      { &e810_puda_snap, &e810_rdma_port_snap, &e810_puda_stats_snap } },
    { E810_SNAP_ENG, 1, "eng", { &e810_eng_snap } },
};
#define E810_SNAP_NRECORDS \
    (sizeof(e810_snap_records) / sizeof(e810_snap_records[0]))
#define E810_SNAP_NPARTS \
    (sizeof(e810_snap_records[0].parts) / sizeof(e810_snap_records[0].parts[0]))

const char *e810_core_unmigratable(E810Core *c)
{
    if (c->removed) {
        return "e810: the function was removed (fault)";
    }
    if (c->adapter->resetting) {
        return "e810: an adapter reset is under way";
    }
    if (c->aq.held) {
        return "e810: an admin queue command is held (aq-timeout fault)";
    }
    /* Offloaded iWARP connections are not carried (yet). */
    return e810_eng_unmigratable(c);
}

bool e810_core_save(E810Core *c, E810SnapW *w, char *err, size_t n)
{
    const char *why = e810_core_unmigratable(c);
    size_t m;

    if (why) {
        snprintf(err, n, "%s", why);
        return false;
    }
    if (c->busy) {
        /* inside an entry point: its state is half-way */
        snprintf(err, n, "e810: the device is busy");
        return false;
    }
    m = e810_snap_begin(w, E810_SNAP_HDR, E810_SNAP_VERSION);
    e810_snap_put_bytes(w, "E810", 4);
    e810_snap_put_bytes(w, c->mac, 6);
    e810_snap_put_u8(w, c->link_up);
    e810_snap_put_u64(w, c->mem_used);
    e810_snap_end(w, m);
    for (size_t i = 0; i < E810_SNAP_NRECORDS; i++) {
        const E810SnapRecord *b = &e810_snap_records[i];

        m = e810_snap_begin(w, b->id, b->ver);
        for (size_t k = 0; k < E810_SNAP_NPARTS && b->parts[k]; k++) {
            e810_snap_put_part(c, w, b->parts[k]);
        }
        e810_snap_end(w, m);
    }
    m = e810_snap_begin(w, E810_SNAP_END, 1);
    e810_snap_end(w, m);
    return true;
}

static bool snap_header(E810Core *c, E810SnapR *r)
{
    E810SnapR h;
    uint8_t magic[4], mac[6];
    uint64_t used;
    bool link;

    if (!e810_snap_open(r, E810_SNAP_HDR, E810_SNAP_VERSION, &h, NULL)) {
        return false;
    }
    if (!e810_snap_get_bytes(&h, magic, 4, "header") ||
        !e810_snap_get_bytes(&h, mac, 6, "header.mac") ||
        !e810_snap_get_bool(&h, &link, "header.link_up") ||
        !e810_snap_get_u64(&h, &used, "header.mem_used") ||
        !e810_snap_close(&h, "header")) {
        return false;
    }
    if (memcmp(magic, "E810", 4)) {
        return e810_snap_fail(r, "not an E810 device state");
    }
    if (memcmp(mac, c->mac, 6)) {
        return e810_snap_fail(r, "the state is of MAC %02x:%02x:%02x:%02x:"
                              "%02x:%02x, this device has another",
                              mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
    }
    if (c->mem_limit && used > c->mem_limit) {
        return e810_snap_fail(r, "the state holds %" PRIu64 " bytes of "
                              "RDMA memory; rdma-mem-limit here is %" PRIu64,
                              used, c->mem_limit);
    }
    c->link_up = link;
    return true;
}

static bool snap_load(E810Core *c, E810SnapR *r)
{
    E810SnapR sub;
    uint16_t ver;

    if (!snap_header(c, r)) {
        return false;
    }
    for (size_t i = 0; i < E810_SNAP_NRECORDS; i++) {
        const E810SnapRecord *b = &e810_snap_records[i];

        if (!e810_snap_open(r, b->id, b->ver, &sub, &ver)) {
            return false;
        }
        for (size_t k = 0; k < E810_SNAP_NPARTS && b->parts[k]; k++) {
            if (!e810_snap_get_part(c, &sub, ver, b->parts[k])) {
                return false;
            }
        }
        if (!e810_snap_close(&sub, b->name)) {
            return false;
        }
    }
    if (!e810_snap_open(r, E810_SNAP_END, 1, &sub, NULL) ||
        !e810_snap_close(&sub, "end")) {
        return false;
    }
    if (r->left) {
        return e810_snap_fail(r, "%zu bytes after the end record", r->left);
    }
    return true;
}

bool e810_core_load(E810Core *c, const void *buf, size_t len, char *err,
                    size_t n)
{
    E810SnapErr e;
    E810SnapR r;
    bool link = c->link_up;
    bool ok;

    e810_core_reset(c, E810_RESET_POWER_ON);
    if (!e810_enter(c, "load", len)) {
        snprintf(err, n, "the device is busy");
        return false;
    }
    e810_snap_r_init(&r, buf, len, &e);
    ok = snap_load(c, &r) && e810_snap_ok(&r);
    if (!ok) {
        snprintf(err, n, "e810 state: %s", e.msg[0] ? e.msg : "refused");
        e810_do_reset(c, E810_RESET_POWER_ON);
        /* Nothing of the refused stream stays: the counters a reset
         * keeps, and the carrier, are as before the load. */
        memset(&c->stats, 0, sizeof(c->stats));
        memset(&c->txs.stats, 0, sizeof(c->txs.stats));
        memset(c->lan.port_stats, 0, sizeof(c->lan.port_stats));
        memset(c->lan.vsi_stats, 0, sizeof(c->lan.vsi_stats));
        e810_eng_cleanup(c);    /* the RoCE counters, made lazily */
        c->link_up = link;
    }
    e810_leave(c);
    return ok;
}

void e810_core_resume(E810Core *c)
{
    /* Whatever the saved engines had pending runs from the bottom half. */
    e810_tx_schedule(c);
}

/* ---- BAR0 --------------------------------------------------------------- */

/*
 * The BAR0 register map: what an access does beyond plain storage.  A
 * register gets attributes (read-only, write-one-to-clear, clear on
 * read); a block with its own registers gets windows that its handler
 * decodes.  A handler returns true when it took the access, false to
 * leave the register to its attributes.  Rows do not overlap; whatever no
 * row names is plain storage.
 */
enum {
    REG_RO = 1 << 0,            /* writes ignored */
    REG_W1C = 1 << 1,           /* a write clears the bits set in it */
    REG_RC = 1 << 2,            /* a read clears it */
};

typedef bool E810RegRead(E810Core *c, uint32_t off, uint32_t *val);
typedef bool E810RegWrite(E810Core *c, uint32_t off, uint32_t val);

typedef struct E810RegRange {
    uint32_t lo, hi;            /* byte offsets [lo, hi) */
    unsigned attr;              /* REG_* */
    E810RegRead *read;
    E810RegWrite *write;
} E810RegRange;

#define REG(r, attr)                { (r), (r) + 4, (attr), NULL, NULL }
#define REG_WIN(lo, hi, rd, wr)     { (lo), (hi), 0, (rd), (wr) }

static bool pfgen_ctrl_write(E810Core *c, uint32_t off, uint32_t val)
{
    if (val & PFGEN_CTRL_PFSWR) {
        /* Completes at once: the driver then sees PFSWR clear. */
        e810_do_reset(c, E810_RESET_PF);
        return true;
    }
    return false;
}

static bool dyn_ctl_write(E810Core *c, uint32_t off, uint32_t val)
{
    e810_intr_dyn_ctl_write(c, (off - GLINT_DYN_CTL(0)) / 4, val);
    return true;
}

/* Statistics are read-only; lan/stats.c knows which offsets are ones. */
static bool lan_stats_write(E810Core *c, uint32_t off, uint32_t val)
{
    return e810_lan_stats_reg(off);
}

#define LAN_STATS(lo, hi) \
    REG_WIN(lo, hi, e810_lan_stats_read, lan_stats_write)

static const E810RegRange e810_reg_map[] = {
    REG_WIN(PF_FW_ATQBAL, PF_FW_ARQT + 4, NULL, e810_aq_write),
    REG_WIN(PFGEN_CTRL, PFGEN_CTRL + 4, NULL, pfgen_ctrl_write),
    REG(PFPM_WUS, REG_W1C),
    REG(GLPCI_LBARCTRL, REG_RO),            /* strap */
    REG(PF_FUNC_RID, REG_RO),
    LAN_STATS(0x000AC260, 0x000AC264),      /* PRTRPB_RDPC */
    REG(GLNVM_ULD, REG_RO),
    REG(GLNVM_GENS, REG_RO),
    REG(GLNVM_FLA, REG_RO),
    REG(GLGEN_STAT, REG_RO),
    REG(GL_MNG_FWSM, REG_RO),
    REG(GLGEN_RSTCTL, REG_RO),
    REG(GLGEN_RSTAT, REG_RO),
    REG_WIN(GLGEN_RTRIG, GLGEN_RTRIG + 4, NULL, rtrig_write),
    REG_WIN(QRX_CTRL(0), QRX_CTRL(E810_LAN_RXQ), NULL, e810_lan_write),
    REG_WIN(GLINT_ITR(0, 0), GLINT_ITR(E810_ITR_INDICES, 0), NULL,
            e810_intr_write),
    REG_WIN(GLINT_RATE(0), GLINT_RATE(E810_MSIX_VECTORS), NULL,
            e810_intr_write),
    REG_WIN(GLINT_DYN_CTL(0), GLINT_DYN_CTL(E810_MSIX_VECTORS), NULL,
            dyn_ctl_write),
    REG(PFINT_OICR, REG_RC | REG_W1C),      /* the other causes */
    REG_WIN(GLINT_CTL, GLINT_CTL + 4, NULL, e810_intr_write),
    REG(PFINT_ALLOC, REG_RO),
    LAN_STATS(0x00294C00, 0x00296000),      /* GLV_RDPC */
    /* Every QTX_COMM_DBELL: lan/tx.c answers those beyond the queues. */
    REG_WIN(QTX_COMM_DBELL(0), QTX_COMM_DBELL(16384), NULL, e810_lan_write),
    LAN_STATS(0x00300000, 0x00313000),      /* GLV_GOTC..BPTC, GLV_TEPC */
    LAN_STATS(0x00380000, 0x00381400),      /* GLPRT_* */
    LAN_STATS(0x003B0000, 0x003B8000),      /* GLV_GORC..BPRC */
    REG_WIN(PFPE_CQPDB, GLPE_CRITERR + 4, NULL, e810_rdma_write),
    /* Above the register file: the RDMA user doorbell page. */
    REG_WIN(E810_RDMA_DB_PAGE, E810_RDMA_DB_PAGE + E810_RDMA_DB_PAGE_SIZE,
            NULL, e810_rdma_write),
};

static const E810RegRange *e810_reg_range(uint32_t off)
{
    for (size_t i = 0; i < sizeof(e810_reg_map) / sizeof(e810_reg_map[0]);
         i++) {
        if (off >= e810_reg_map[i].lo && off < e810_reg_map[i].hi) {
            return &e810_reg_map[i];
        }
    }
    return NULL;
}

static uint32_t e810_read32(E810Core *c, uint32_t off)
{
    const E810RegRange *r;
    uint32_t val;

    if (off >= E810_REGFILE_SIZE) {
        /* Doorbell and push pages: write-only. */
        return 0;
    }
    r = e810_reg_range(off);
    if (r && r->read && r->read(c, off, &val)) {
        return val;
    }
    val = e810_reg(c, off);
    if (r && (r->attr & REG_RC)) {
        e810_reg_set(c, off, 0);
    }
    return val;
}

static void e810_write32(E810Core *c, uint32_t off, uint32_t val)
{
    const E810RegRange *r = e810_reg_range(off);

    if (r && r->write && r->write(c, off, val)) {
        return;
    }
    if (off >= E810_REGFILE_SIZE) {
        e810_unimp(c, "write 0x%x to doorbell/push space 0x%x", val, off);
        return;
    }
    if (r && (r->attr & REG_RO)) {
        return;
    }
    if (r && (r->attr & REG_W1C)) {
        e810_reg_set(c, off, e810_reg(c, off) & ~val);
        return;
    }
    e810_reg_set(c, off, val);
}

uint64_t e810_mmio_read(E810Core *c, uint64_t addr, unsigned size)
{
    uint64_t val;

    if (addr >= E810_BAR0_SIZE || (addr & (size - 1))) {
        c->stats.mmio_bad_access++;
        e810_guest_error(c, "BAR0 read of %u bytes at 0x%" PRIx64, size, addr);
        return 0;
    }
    if (c->removed) {
        /* no device answers: the read completes with all ones */
        trace_e810_removed_access("read", addr);
        return size == 8 ? ~0ull : (1ull << (size * 8)) - 1;
    }
    if (!e810_enter(c, "read", addr)) {
        return 0;
    }
    if (size == 8) {
        val = e810_read32(c, addr) | (uint64_t)e810_read32(c, addr + 4) << 32;
    } else {
        uint32_t word = e810_read32(c, addr & ~3ull);
        val = word >> ((addr & 3) * 8);
        if (size < 4) {
            val &= (1ull << (size * 8)) - 1;
        }
    }
    e810_leave(c);
    trace_e810_mmio_read(addr, size, val);
    return val;
}

void e810_mmio_write(E810Core *c, uint64_t addr, uint64_t val, unsigned size)
{
    trace_e810_mmio_write(addr, size, val);
    if (addr >= E810_BAR0_SIZE || (addr & (size - 1))) {
        c->stats.mmio_bad_access++;
        e810_guest_error(c, "BAR0 write of %u bytes at 0x%" PRIx64, size, addr);
        return;
    }
    if (!e810_enter(c, "write", addr)) {
        return;
    }
    if (size == 8) {
        e810_write32(c, addr, (uint32_t)val);
        e810_write32(c, addr + 4, (uint32_t)(val >> 32));
    } else if (size == 4) {
        e810_write32(c, addr, (uint32_t)val);
    } else {
        /* Narrow writes merge into the containing register. */
        uint32_t off = addr & ~3ull;
        unsigned shift = (addr & 3) * 8;
        uint32_t mask = (uint32_t)((1ull << (size * 8)) - 1) << shift;
        uint32_t cur = off < E810_REGFILE_SIZE ? e810_reg(c, off) : 0;

        e810_write32(c, off, (cur & ~mask) | (((uint32_t)val << shift) & mask));
    }
    e810_leave(c);
}

/* ---- the wire ----------------------------------------------------------- */

bool e810_can_receive(E810Core *c)
{
    /*
     * Never stall the backend: frames we cannot place are dropped and
     * counted (rx_no_desc), as the hardware does when a ring runs dry.
     */
    (void)c;
    return true;
}

size_t e810_receive(E810Core *c, const uint8_t *frame, size_t len)
{
    E810Frame fr;

    if (!e810_enter(c, "receive", len)) {
        /* A frame the device itself sent while running: dropped. */
        c->stats.rx_dropped++;
        return len;
    }
    /* Parsed once: the port's statistics, steering, the LAN and the
     * engines share it. */
    e810_frame_parse(&fr, frame, len);
    if (c->fw.phy.up) {
        e810_lan_stats_port_rx(c, &fr);
    }
    e810_receive_parsed(c, &fr);
    e810_leave(c);
    return len;
}

void e810_set_link(E810Core *c, bool up)
{
    if (c->link_up == up || !e810_enter(c, "link", up)) {
        return;
    }
    c->link_up = up;
    trace_e810_link(up);
    /* The firmware reports the change to the driver (Link Status Event). */
    e810_fw_phy_link_changed(c);
    e810_leave(c);
}
