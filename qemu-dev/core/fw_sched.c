/* SPDX-License-Identifier: GPL-2.0-or-later */
/* E810 firmware model: sched commands. */
#include "e810.h"
#include "bytes.h"
#include "../trace.h"

void e810_fw_sched_reset(E810Core *c, E810ResetType type)
{
    (void)c;
    (void)type;
}

const E810AqOp e810_fw_sched_ops[] = {
    { 0, NULL, NULL }
};
