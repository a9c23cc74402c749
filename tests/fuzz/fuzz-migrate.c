/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the loader of the device's saved state (snapshots and
 * migration streams are untrusted input).  An input picks a set-up, then
 * runs operations among which most are migrations (fuzz_migrate: the
 * state saved, patched in its records or cut, loaded back), between some
 * traffic: frames, time passing, LAN descriptors, CQP and QP WQEs.  After
 * a load the device keeps running from what it loaded, so a state that
 * passes the checks but breaks an invariant the runtime relies on shows up
 * in the traffic that follows, the input's end (timers, retransmissions)
 * and the unplug (leaks).
 *
 * Set-ups (low 2 bits of the first byte): LAN queues; iWARP mode with the
 * ILQ/IEQ, CQs and MRs (its connected QPs destroyed, since live offloaded
 * connections are not saved); two connected RoCEv2 RC QPs; bare (admin
 * queue only).  Oracles: fuzz-common.h and fuzz_migrate's own.
 */
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MIG_LAN, MIG_IWARP, MIG_ROCE, MIG_BARE };

static void build(unsigned id, void *opaque)
{
    (void)opaque;
    switch (id) {
    case MIG_LAN:
        fuzz_build_scen(SCEN_LAN);
        break;
    case MIG_IWARP:
        fuzz_build_scen(SCEN_IWARP_KERNEL);
        fuzz_ilq_route();
        for (unsigned i = 0; i < 2; i++) {
            uint64_t q[8] = { 0 };

            q[2] = QPCTX_PA(i);
            ifx_failures += ifx_cqp(0x02, q, 3 + i) != 0;
        }
        break;
    case MIG_ROCE:
        ifx_cur->roce = true;
        ifx_cur->psn[0] = 0xFFFFF0;
        ifx_cur->psn[1] = 0x000100;
        fuzz_build_scen(SCEN_IWARP_KERNEL);
        break;
    default:
        fuzz_build_scen(SCEN_BARE);
        break;
    }
}

static unsigned scen;

/* Traffic of ops 6, 7 and 8 in each set-up (NULL: none there). */
static void (*const traffic[][3])(FuzzIn *in) = {
    [MIG_LAN] = { fuzz_lan_tx, fuzz_lan_rx, NULL },
    [MIG_IWARP] = { fuzz_cqp_wqe, NULL, fuzz_ilq_send },
    [MIG_ROCE] = { fuzz_cqp_wqe, fuzz_sq_wqe, fuzz_rq_wqe },
    [MIG_BARE] = { NULL, NULL, NULL },
};

static void migrate_op(FuzzIn *in, uint8_t op)
{
    switch (op % 10) {
    case 0:
    case 1:
    case 2:
    case 3:
        fuzz_migrate(in);
        break;
    case 4:
        fuzz_advance(in);
        break;
    case 5:
        fuzz_frame_raw(in);
        break;
    case 9:
        fuzz_aq_cmd(in);
        break;
    default:
        if (traffic[scen][op % 10 - 6]) {
            traffic[scen][op % 10 - 6](in);
        }
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzIn in = { data, size };

    scen = fuzz_start_self(&in, build);
    fuzz_run(&in, migrate_op);
    return 0;
}
