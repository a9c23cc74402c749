/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stand-in for QEMU's "qemu/osdep.h" in the unit-test, fuzz and bench
 * builds of the device core (top-level meson.build).
 *
 * In QEMU every .c file includes "qemu/osdep.h" first and nothing else
 * pulls in the standard C headers; the core follows that rule, so outside
 * QEMU this header has to provide what the core uses from osdep: the
 * standard C headers below.  It defines none of osdep's own macros
 * (MIN, MAX, ARRAY_SIZE, QEMU_PACKED, ...): the core does not use them.
 */
#ifndef E810_SHIM_QEMU_OSDEP_H
#define E810_SHIM_QEMU_OSDEP_H

/* QEMU compiles with -D_GNU_SOURCE; this header comes first, so here. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#endif
