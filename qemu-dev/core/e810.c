/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 device core: register file, resets, MMIO dispatch, interrupt block.
 */
#include "e810.h"
#include "../trace.h"

#ifndef E810_IN_QEMU
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#endif

#define E810_MSG_MAX 256

void e810_guest_error(E810Core *c, const char *fmt, ...)
{
    char msg[E810_MSG_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    c->stats.guest_errors++;
    trace_e810_guest_error(msg);
    if (c->host.ops->guest_error) {
        c->host.ops->guest_error(c->host.opaque, msg);
    }
}

void e810_unimp(E810Core *c, const char *fmt, ...)
{
    char msg[E810_MSG_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    trace_e810_unimp(msg);
    if (c->host.ops->unimp) {
        c->host.ops->unimp(c->host.opaque, msg);
    }
}

/* ---- interrupt block ---------------------------------------------------- */

static void e810_intr_try_fire(E810Core *c, unsigned v)
{
    uint32_t dyn = e810_reg(c, GLINT_DYN_CTL(v));

    if (!c->vec[v].pending || !(dyn & GLINT_DYN_CTL_INTENA)) {
        return;
    }
    c->vec[v].pending = false;
    /* Auto-mask: the driver's handlers re-arm with INTENA; they never mask. */
    if (!(e810_reg(c, GLINT_CTL) & GLINT_CTL_DIS_AUTOMASK)) {
        e810_reg_set(c, GLINT_DYN_CTL(v), dyn & ~GLINT_DYN_CTL_INTENA);
    }
    c->stats.irq_raised++;
    trace_e810_irq_raise(v);
    c->host.ops->msix_notify(c->host.opaque, v);
}

void e810_intr_cause(E810Core *c, unsigned vector)
{
    if (vector >= E810_MSIX_VECTORS) {
        e810_guest_error(c, "interrupt cause routed to vector %u (of %u)",
                         vector, E810_MSIX_VECTORS);
        return;
    }
    trace_e810_irq_cause(vector);
    c->vec[vector].pending = true;
    e810_intr_try_fire(c, vector);
}

static void e810_dyn_ctl_write(E810Core *c, unsigned v, uint32_t val)
{
    uint32_t old = e810_reg(c, GLINT_DYN_CTL(v));
    uint32_t keep = GLINT_DYN_CTL_INTENA;
    uint32_t next;

    /* INTENA_MSK: this write leaves INTENA as it is. */
    if (val & GLINT_DYN_CTL_INTENA_MSK) {
        next = (old & keep) | (val & ~keep);
    } else {
        next = val;
    }
    /* SWINT_TRIG, CLEARPBA and INTENA_MSK are actions, not state. */
    next &= ~(GLINT_DYN_CTL_SWINT_TRIG | GLINT_DYN_CTL_CLEARPBA |
              GLINT_DYN_CTL_INTENA_MSK);
    e810_reg_set(c, GLINT_DYN_CTL(v), next);
    if (val & GLINT_DYN_CTL_SWINT_TRIG) {
        c->vec[v].pending = true;
    }
    e810_intr_try_fire(c, v);
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

void e810_core_reset(E810Core *c, E810ResetType type)
{
    trace_e810_reset(type);
    if (type == E810_RESET_PF) {
        c->stats.pf_resets++;
    }
    memset(c->regs, 0, E810_REGFILE_SIZE);
    memset(c->vec, 0, sizeof(c->vec));
    e810_regs_defaults(c);
    e810_aq_reset(c);
    e810_fw_reset(c, type);
    e810_lan_reset(c);
    e810_rdma_reset(c, type);
    e810_puda_reset(c);
}

void e810_core_init(E810Core *c, const E810Host *host, const uint8_t mac[6])
{
    memset(c, 0, sizeof(*c));
    c->host = *host;
    memcpy(c->mac, mac, 6);
    c->regs = calloc(1, E810_REGFILE_SIZE);
    c->link_up = true;
    e810_rdma_init(c);
    e810_puda_init(c);
    e810_core_reset(c, E810_RESET_POWER_ON);
}

void e810_core_cleanup(E810Core *c)
{
    e810_puda_cleanup(c);
    e810_rdma_cleanup(c);
    free(c->regs);
    c->regs = NULL;
}

/* ---- BAR0 --------------------------------------------------------------- */

static uint32_t e810_read32(E810Core *c, uint32_t off)
{
    uint32_t val;

    if (off >= E810_REGFILE_SIZE) {
        /* Doorbell and push pages: write-only. */
        return 0;
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
        e810_dyn_ctl_write(c, (off - GLINT_DYN_CTL(0)) / 4, val);
        return;
    }
    if (e810_aq_write(c, off, val)) {
        return;
    }
    if (e810_lan_write(c, off, val)) {
        return;
    }
    switch (off) {
    case PFGEN_CTRL:
        if (val & PFGEN_CTRL_PFSWR) {
            /* Completes at once: the driver then sees PFSWR clear. */
            e810_core_reset(c, E810_RESET_PF);
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
    if (size == 8) {
        val = e810_read32(c, addr) | (uint64_t)e810_read32(c, addr + 4) << 32;
    } else {
        uint32_t word = e810_read32(c, addr & ~3ull);
        val = word >> ((addr & 3) * 8);
        if (size < 4) {
            val &= (1ull << (size * 8)) - 1;
        }
    }
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
    /* Segments of RDMA connections never reach the LAN (and its stack). */
    if (c->fw.phy.up && e810_rdma_steer(c, frame, len)) {
        return len;
    }
    e810_lan_receive(c, frame, len);
    return len;
}

void e810_set_link(E810Core *c, bool up)
{
    if (c->link_up == up) {
        return;
    }
    c->link_up = up;
    trace_e810_link(up);
    /* The firmware reports the change to the driver (Link Status Event). */
    e810_fw_phy_link_changed(c);
}
