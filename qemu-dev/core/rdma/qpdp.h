/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: the iWARP QP data path (qpdp.c) as the control path
 * sees it.
 */
#ifndef E810_QPDP_H
#define E810_QPDP_H

#include "../types.h"
#include "rdma.h"

typedef struct E810Qpdp E810Qpdp;

/* After a CQP op on a QP (CREATE/MODIFY/DESTROY_QP, FLUSH_WQES) completed
 * without an error: take over, update, flush or drop the offloaded
 * connection. */
void e810_qpdp_cqp(E810Core *c, unsigned op, const uint64_t *wqe,
                   E810CqpResult *r);
/* SQ doorbell (WQEALLOC / user page) for an iWARP QP (id >= 3). */
void e810_qpdp_doorbell(E810Core *c, uint32_t qp_id);
/* The bottom half (e810.c): pending QPs in turn, within the budget. */
void e810_qpdp_tx_run(E810Core *c);
/* The engine goes away (CQP destroy, PF reset) / the device is freed. */
void e810_qpdp_reset(E810Core *c);
/* TCP segments the live connections retransmitted. */
uint64_t e810_qpdp_rexmits(E810Core *c);
void e810_qpdp_cleanup(E810Core *c);

#endif
