/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: the iWARP transport of the QP engine (qp.c) as the
 * rest of the device sees it; the engine reaches it through
 * e810_iwarp_ops (engine.h).
 */
#ifndef E810_IWARP_QP_H
#define E810_IWARP_QP_H

#include "../types.h"
#include "../rdma/rdma.h"

/* TCP segments the live connections retransmitted. */
uint64_t e810_iwarp_rexmits(E810Core *c);

#endif
