/* SPDX-License-Identifier: GPL-2.0-or-later */
/* E810 firmware model: switch commands (state and reset). */
#ifndef E810_FW_SWITCH_H
#define E810_FW_SWITCH_H

#include "types.h"

typedef struct E810FwSwitch {
    int placeholder;
} E810FwSwitch;

void e810_fw_switch_reset(E810Core *c, E810ResetType type);

#endif
