/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Short names for the RoCE unit tests (test-roce.c, test-roce-mcast.c)
 * over iwarp-fixture.h: the device and guest memory of ifx_cur, the CQP,
 * and the WQE/CQE bits they test.
 */
#ifndef E810_IFX_NAMES_H
#define E810_IFX_NAMES_H

#include "iwarp-fixture.h"

#define H (ifx.h)
#define C (ifx.c)
#define mem ifx_mem
#define mem64 ifx_mem64
#define set64 ifx_set64
#define cqp ifx_cqp

#define SIG             (1ull << 62)    /* WQE header: signaled */
#define CQE_ERROR       (1ull << 55)
#define CQE_EXT         (1ull << 50)

#endif
