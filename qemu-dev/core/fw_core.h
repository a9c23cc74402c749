/* SPDX-License-Identifier: GPL-2.0-or-later */
/* E810 firmware model: core commands (state and reset). */
#ifndef E810_FW_CORE_H
#define E810_FW_CORE_H

#include "types.h"

typedef struct E810FwCore {
    int placeholder;
} E810FwCore;

void e810_fw_core_reset(E810Core *c, E810ResetType type);

#endif
