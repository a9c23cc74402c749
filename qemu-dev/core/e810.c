/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 device core: the entry points (lifetime, resets, BAR0 dispatch, the
 * wire, the bottom half).  The top of the core: it calls the blocks, which
 * call the services (services.c) below them, never back up here.
 */
#include "e810.h"
#include "rdma/qpdp.h"
#include "roce/roce.h"
#include "../trace.h"

#ifndef E810_IN_QEMU
#include <stdlib.h>
#endif

/* The deferred transmit work (txsched.c), an entry point of its own. */
static void e810_tx_bh(void *opaque)
{
    E810Core *c = opaque;

    if (!e810_enter(c, "bottom half", 0)) {
        /* Cannot happen with a host that runs bottom halves from its
         * main loop; run it again rather than lose the work. */
        c->txs.scheduled = false;
        e810_tx_schedule(c);
        return;
    }
    if (e810_txsched_bh_start(c)) {
        e810_puda_tx_run(c);
        e810_qpdp_tx_run(c);
        e810_roce_tx_run(c);
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
    /* Global reset delay, in 100 ms units: only sizes the driver's poll loop. */
    e810_reg_set(c, GLGEN_RSTCTL, 8);
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

void e810_core_init(E810Core *c, const E810Host *host, const uint8_t mac[6])
{
    memset(c, 0, sizeof(*c));
    c->host = *host;
    memcpy(c->mac, mac, 6);
    e810_regs_init(c);
    c->link_up = true;
    c->mem_limit = E810_MEM_LIMIT_DEFAULT;
    e810_txsched_init(c, e810_tx_bh);
    e810_rdma_init(c);
    e810_puda_init(c);
    e810_core_reset(c, E810_RESET_POWER_ON);
}

void e810_core_cleanup(E810Core *c)
{
    e810_puda_cleanup(c);
    e810_rdma_cleanup(c);
    e810_intr_cleanup(c);
    e810_txsched_cleanup(c);
    e810_regs_cleanup(c);
}

/* ---- BAR0 --------------------------------------------------------------- */

static uint32_t e810_read32(E810Core *c, uint32_t off)
{
    uint32_t val;

    if (off >= E810_REGFILE_SIZE) {
        /* Doorbell and push pages: write-only. */
        return 0;
    }
    if (e810_lan_stats_read(c, off, &val)) {
        return val;
    }
    val = e810_reg(c, off);
    switch (off) {
    case PFINT_OICR:
        /* Read-to-clear cause register. */
        e810_reg_set(c, off, 0);
        break;
    default:
        break;
    }
    return val;
}

static void e810_write32(E810Core *c, uint32_t off, uint32_t val)
{
    /* RDMA engine registers and its user doorbell page (above the file). */
    if (e810_rdma_write(c, off, val)) {
        return;
    }
    if (off >= E810_REGFILE_SIZE) {
        e810_unimp(c, "write 0x%x to doorbell/push space 0x%x", val, off);
        return;
    }
    if (off >= GLINT_DYN_CTL(0) && off < GLINT_DYN_CTL(E810_MSIX_VECTORS)) {
        e810_intr_dyn_ctl_write(c, (off - GLINT_DYN_CTL(0)) / 4, val);
        return;
    }
    if (e810_intr_write(c, off, val)) {
        return;
    }
    if (e810_aq_write(c, off, val)) {
        return;
    }
    if (e810_lan_stats_reg(off)) {
        return;                 /* statistics are read-only */
    }
    if (e810_lan_write(c, off, val)) {
        return;
    }
    switch (off) {
    case PFGEN_CTRL:
        if (val & PFGEN_CTRL_PFSWR) {
            /* Completes at once: the driver then sees PFSWR clear. */
            e810_do_reset(c, E810_RESET_PF);
            return;
        }
        break;
    /* Read-only status and identity registers. */
    case GLNVM_ULD:
    case GLNVM_FLA:
    case GLNVM_GENS:
    case GLGEN_RSTAT:
    case GLGEN_RSTCTL:
    case GL_MNG_FWSM:
    case PF_FUNC_RID:
    case PFINT_ALLOC:
    case GLGEN_STAT:
        return;
    case PFPM_WUS:
    case PFINT_OICR:
        /* Write-one-to-clear. */
        e810_reg_set(c, off, e810_reg(c, off) & ~val);
        return;
    default:
        break;
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
    if (!e810_enter(c, "receive", len)) {
        /* A frame the device itself sent while running: dropped. */
        c->stats.rx_dropped++;
        return len;
    }
    if (c->fw.phy.up) {
        e810_lan_stats_port_rx(c, frame, len);
    }
    e810_receive_frame(c, frame, len);
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
