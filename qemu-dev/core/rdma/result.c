/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: what a CQP op answers when it fails, and the checks
 * of the object slots that CREATE and DESTROY ops name.  Below every CQP
 * handler (hmc.c, eq.c, qp.c, mcg.c, pestat.c, the QP engine) and the
 * dispatcher (cqp.c), so that no handler calls back into the dispatcher.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../../trace.h"
#include "rdma.h"

void e810_cqp_fail(E810Core *c, E810CqpResult *r, uint16_t minor,
                   const char *fmt, ...)
{
    char msg[200];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    r->maj = E810_CQP_MAJ_ERR;
    r->min = minor;
    /* Invalid-state answers are part of normal driver flows (e.g. a
     * modify racing a close), not guest programming errors. */
    if (minor == E810_CQP_MIN_INVALID_STATE) {
        trace_e810_rdma_cqp_refused(msg);
        return;
    }
    e810_guest_error(c, "rdma cqp: %s", msg);
}

bool e810_cqp_new_slot(E810Core *c, E810CqpResult *r, const void *slot,
                       bool taken, const char *what, uint32_t id)
{
    if (!slot) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_ID, "create %s %u", what, id);
        return false;
    }
    if (taken) {
        e810_cqp_fail(c, r, E810_CQP_MIN_INVALID_STATE, "%s %u exists", what,
                      id);
        return false;
    }
    return true;
}

bool e810_cqp_old_slot(E810Core *c, E810CqpResult *r, bool live,
                       const char *what, uint32_t id)
{
    if (!live) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_ID, "destroy %s %u", what, id);
    }
    return live;
}
