/* SPDX-License-Identifier: GPL-2.0-or-later */
/* E810 firmware model: ddp commands. */
#include "e810.h"
#include "bytes.h"
#include "../trace.h"

void e810_fw_ddp_reset(E810Core *c, E810ResetType type)
{
    (void)c;
    (void)type;
}

const E810AqOp e810_fw_ddp_ops[] = {
    { 0, NULL, NULL }
};
