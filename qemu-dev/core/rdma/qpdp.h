/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: the iWARP transport of the QP engine (qpdp.c) as the
 * rest of the device sees it; the engine reaches it through
 * e810_iwarp_ops (engine.h).
 */
#ifndef E810_QPDP_H
#define E810_QPDP_H

#include "../types.h"
#include "rdma.h"

/* TCP segments the live connections retransmitted. */
uint64_t e810_qpdp_rexmits(E810Core *c);

#endif
