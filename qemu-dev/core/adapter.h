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
} E810Adapter;

#endif
