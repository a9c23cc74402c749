/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The adapter: what the PCI functions (one per port) of one E810 card
 * share.  An E810-XXV has two ports, functions 0 and 1 of one slot; ice
 * learns its PF number from PF_FUNC_RID and how many functions the card
 * has from the device capability VALID_FUNCTIONS (a bitmap), and each PF
 * drives the port of its own number.  A device core alone is an adapter
 * of one function (its own); the host joins a core to another core's
 * adapter to make a card of several.
 */
#ifndef E810_ADAPTER_H
#define E810_ADAPTER_H

#include <stdint.h>

#define E810_ADAPTER_MAX_PFS    8

typedef struct E810Core E810Core;

typedef struct E810Adapter {
    uint8_t funcs;              /* VALID_FUNCTIONS: bit n = PF n present */
    E810Core *pf[E810_ADAPTER_MAX_PFS];
    /*
     * A core or global reset under way (e810.c): every function was warned
     * (PFINT_OICR.GRST, GLGEN_RSTAT busy); @by's timer carries it out once
     * every function's driver has shut its admin queue, or at @deadline
     * (GLGEN_RSTCTL.GRSTDEL after the warning, 10 s at least: e810.c).
     */
    bool resetting;
    uint8_t reset_type;         /* E810ResetType */
    E810Core *reset_by;
    int64_t reset_deadline;
} E810Adapter;

#endif
