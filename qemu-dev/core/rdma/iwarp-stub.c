/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Placeholder for the offloaded iWARP receive path: until the data path
 * exists, segments of offloaded connections continue to the ILQ steering
 * rules.  Remove this file from sources.txt when the data path provides
 * e810_iwarp_rx().
 */
#include "../e810.h"
#include "iwarp-hooks.h"

bool e810_iwarp_rx(E810Core *c, uint32_t qp_id, const uint8_t *frame,
                   size_t len)
{
    (void)c;
    (void)qp_id;
    (void)frame;
    (void)len;
    return false;
}
