/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 firmware model: what answers behind the admin queue.  One header and
 * one source file per command family; each family keeps its own state.
 */
#ifndef E810_FW_H
#define E810_FW_H

#include "../types.h"
#include "core.h"
#include "nvm.h"
#include "ddp.h"
#include "switch.h"
#include "sched.h"
#include "phy.h"

typedef struct E810Fw {
    E810FwCore core;
    E810FwNvm nvm;
    E810FwDdp ddp;
    E810FwSwitch sw;
    E810FwSched sched;
    E810FwPhy phy;
} E810Fw;

static inline void e810_fw_reset(E810Core *c, E810ResetType type)
{
    e810_fw_core_reset(c, type);
    e810_fw_nvm_reset(c, type);
    e810_fw_ddp_reset(c, type);
    e810_fw_switch_reset(c, type);
    e810_fw_sched_reset(c, type);
    e810_fw_phy_reset(c, type);
}

#endif
