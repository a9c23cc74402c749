/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the device as a hostile guest drives it.  An input is a
 * scenario byte (which set-up to start from, re-entrancy mode on/off) and
 * then a sequence of operations: register writes and reads (the registers
 * ice and irdma use, or any offset), guest memory contents and pointers,
 * admin-queue commands, CQP WQEs, SQ/RQ WQEs of the two set-up QPs, PF
 * resets, link changes, frames, LAN Tx/Rx descriptors and doorbells, ILQ
 * (connection manager) segments, time passing (timers run), and the
 * backend holding frames, resets and the unplug with frames held
 * (fuzz_common_op).  Oracles: fuzz-common.h.
 */
#include "fuzz-common.h"

/* Registers worth hitting more often than a random offset would. */
static const uint32_t regs[] = {
    PFPE_CQPDB, PFPE_WQEALLOC, PFPE_CQARM, PFPE_CQACK, PFPE_AEQALLOC,
    PFPE_CCQPLOW, PFPE_CCQPHIGH, PFPE_CCQPSTATUS, PFPE_CQPTAIL,
    E810_RDMA_DB_PAGE + E810_RDMA_DB_WQEALLOC,
    E810_RDMA_DB_PAGE + E810_RDMA_DB_CQARM,
    PFGEN_CTRL, GLINT_CTL, GLINT_DYN_CTL(0), GLINT_DYN_CTL(1),
    GLINT_DYN_CTL(63), GLINT_ITR(0, 1), GLINT_ITR(2, 5), GLINT_RATE(1),
    PFINT_OICR, PF_FW_ATQT, PF_FW_ATQLEN, PF_FW_ATQBAL, PF_FW_ATQBAH,
    PF_FW_ARQT, PF_FW_ARQLEN, PF_FW_ARQBAL, PF_FW_ARQH,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The scenario's set-up; iWARP ones get the ILQ a way to the wire. */
static void build(unsigned scen, void *opaque)
{
    (void)opaque;
    fuzz_build_scen(scen);
    if (scen == SCEN_IWARP_KERNEL || scen == SCEN_IWARP_USER) {
        fuzz_ilq_route();
    }
}

/* This input's scenario, and whether it is an iWARP one. */
static unsigned scen;
static bool iw;

/* Ops 4, 5, 6 of the iWARP scenarios: a CQP, SQ or RQ WQE. */
static void (*const iw_wqe[])(FuzzIn *in) = {
    fuzz_cqp_wqe, fuzz_sq_wqe, fuzz_rq_wqe,
};

static void mmio_op(FuzzIn *in, uint8_t op)
{
    if (op >= 0xF0) {
        if (iw) {
            fuzz_ilq_send(in);
        }
        return;
    }
    switch (op % 16) {
    case 0: {
        uint8_t k = in8(in);
        uint32_t off = k < 0xC0 ? regs[k % (sizeof(regs) / sizeof(regs[0]))]
                                : (in32(in) % E810_BAR0_SIZE) & ~3u;

        fz_mmio_write(off, in32(in), 4);
        break;
    }
    case 1: {
        uint32_t off = in32(in) % E810_BAR0_SIZE;

        fz_mmio_read(off, 1u << (in8(in) % 4));
        break;
    }
    case 2:
        fuzz_mem_write(in);
        break;
    case 3:
        fuzz_mem_pointer(in);
        break;
    case 4:
    case 5:
    case 6:
        if (iw) {
            iw_wqe[op % 16 - 4](in);
        }
        break;
    case 7:
        fuzz_advance(in);
        break;
    case 8:
        fuzz_aq_cmd(in);
        break;
    case 9:
        fuzz_frame_raw(in);
        break;
    case 10:
        FZ_GUEST("link", e810_set_link(&ifx.c, in8(in) & 1));
        break;
    case 11:
        fz_mmio_write(PFGEN_CTRL, PFGEN_CTRL_PFSWR, 4);
        break;
    case 12: {
        /* Unaligned / narrow / wide accesses. */
        uint32_t off = in32(in) % E810_BAR0_SIZE;
        uint64_t val = in64(in);

        fz_mmio_write(off, val, 1u << (in8(in) % 4));
        break;
    }
    case 13:
        if (scen == SCEN_LAN) {
            fuzz_lan_tx(in);
        }
        break;
    case 14:
        if (scen == SCEN_LAN) {
            fuzz_lan_rx(in);
        }
        break;
    default:
        FZ_GUEST("reset", e810_core_reset(&ifx.c, in8(in) & 1 ?
                                          E810_RESET_PF :
                                          E810_RESET_POWER_ON));
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzIn in = { data, size };

    scen = fuzz_start_self(&in, build);
    iw = scen == SCEN_IWARP_KERNEL || scen == SCEN_IWARP_USER;
    fuzz_run(&in, mmio_op);
    return 0;
}
