/* SPDX-License-Identifier: GPL-2.0-or-later */
/* E810 firmware model: nvm commands (state and reset). */
#ifndef E810_FW_NVM_H
#define E810_FW_NVM_H

#include "types.h"

typedef struct E810FwNvm {
    int placeholder;
} E810FwNvm;

void e810_fw_nvm_reset(E810Core *c, E810ResetType type);

#endif
