/* SPDX-License-Identifier: GPL-2.0-or-later */
/* E810 firmware model: sched commands (state and reset). */
#ifndef E810_FW_SCHED_H
#define E810_FW_SCHED_H

#include "types.h"

typedef struct E810FwSched {
    int placeholder;
} E810FwSched;

void e810_fw_sched_reset(E810Core *c, E810ResetType type);

#endif
