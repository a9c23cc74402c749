/* SPDX-License-Identifier: GPL-2.0-or-later */
/* E810 firmware model: ddp commands (state and reset). */
#ifndef E810_FW_DDP_H
#define E810_FW_DDP_H

#include "types.h"

typedef struct E810FwDdp {
    int placeholder;
} E810FwDdp;

void e810_fw_ddp_reset(E810Core *c, E810ResetType type);

#endif
