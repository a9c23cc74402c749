/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 device core: the device's state, E810Core, and the register file's
 * accessors.
 *
 * Every block includes this header (and its own).  It is made of the
 * blocks' state types, so it includes the headers that define them; the
 * entry points (e810.h) are not here: blocks never call the dispatcher.
 */
#ifndef E810_DEV_H
#define E810_DEV_H

#include "types.h"
#include "services.h"
#include "regs.h"
#include "intr.h"
#include "fw/aq.h"
#include "fw/fw.h"
#include "lan/lan.h"
#include "rdma/rdma.h"
#include "fault.h"
#include "rdma/puda.h"
#include "txsched.h"
#include "adapter.h"

struct E810Core {
    E810Host host;
    uint8_t mac[6];
    bool link_up;               /* carrier as the host's netdev reports it */

    /* The card this function is part of (adapter.h): its own (own_adapter)
     * or another function's; pf_id is this function's number on it, the
     * PF number ice reads and the port it drives. */
    E810Adapter *adapter;
    E810Adapter own_adapter;
    uint8_t pf_id;

    uint32_t *regs;             /* E810_REGFILE_SIZE / 4 words */
    /* 4 KiB pages of regs written since the last reset: a reset clears
     * only those (most of the 6 MiB file is never written). */
    uint64_t regs_dirty[E810_REGFILE_SIZE / 4096 / 64];
    E810Vector vec[E810_MSIX_VECTORS];
    E810Counters stats;
    E810Aq aq;
    E810Fw fw;
    E810Lan lan;
    E810Rdma rdma;
    E810Puda puda;              /* ILQ/IEQ, RDMA receive steering */
    E810TxSched txs;            /* frame output, deferred data path */
    E810Faults faults;          /* armed by tests (fault.h), not saved */
    E810CoreTimer *reset_timer; /* an adapter reset this function started */

    /*
     * Entry guard.  Everything the device does starts at one entry point
     * (MMIO, a received frame, a link change, a reset, a timer) and runs
     * to completion; a DMA or an MSI-X message the device issues on the
     * way may target the device's own BAR, and such an access must not
     * run device code while the outer activity holds pointers into its
     * state.  It is refused and counted (QEMU's own re-entrancy guard
     * does the same for MMIO and NIC delivery; the glue extends that to
     * timers).
     */
    bool busy;
    /* Gone from the bus (fault "removed"): no entry point runs again. */
    bool removed;
    uint64_t entry;             /* number of the current/last entry */

    /* Host memory the device allocates on the guest's behalf (RDMA
     * connections), bounded by mem_limit (bytes; 0: no bound). */
    uint64_t mem_limit;
    uint64_t mem_used;

    /* RDMA data frames per entry point (E810_TX_BUDGET; a host may set
     * fewer, e.g. the fuzz harnesses, to bound the work of one input). */
    unsigned tx_budget;

    /* Guest-error log rate limit (see e810_guest_error). */
    int64_t gerr_window;
    unsigned gerr_in_window;
};

static inline uint32_t e810_reg(E810Core *c, uint32_t off)
{
    return c->regs[off >> 2];
}

static inline void e810_reg_set(E810Core *c, uint32_t off, uint32_t val)
{
    c->regs[off >> 2] = val;
    c->regs_dirty[off >> 18] |= 1ull << ((off >> 12) & 63);
}

#endif
