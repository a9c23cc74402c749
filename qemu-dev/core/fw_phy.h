/* SPDX-License-Identifier: GPL-2.0-or-later */
/* E810 firmware model: phy commands (state and reset). */
#ifndef E810_FW_PHY_H
#define E810_FW_PHY_H

#include "types.h"

typedef struct E810FwPhy {
    int placeholder;
} E810FwPhy;

void e810_fw_phy_reset(E810Core *c, E810ResetType type);

#endif
