/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 firmware model: what answers behind the admin queue.  One header and
 * one source file per command family; each family keeps its own state.
 */
#ifndef E810_FW_H
#define E810_FW_H

#include "../types.h"
#include "aq.h"
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

/* Admin-queue command handlers (the table is in aq.c); each returns an
 * E810_AQ_RC_* code. */
/* core.c */
E810AqHandler e810_fw_get_version;
E810AqHandler e810_fw_driver_version;
E810AqHandler e810_fw_queue_shutdown;
E810AqHandler e810_fw_request_resource;
E810AqHandler e810_fw_release_resource;
E810AqHandler e810_fw_list_caps;
E810AqHandler e810_fw_manage_mac_read;
E810AqHandler e810_fw_manage_mac_write;
E810AqHandler e810_fw_log_config;
E810AqHandler e810_fw_log_register;
E810AqHandler e810_fw_log_query;
/* nvm.c */
E810AqHandler e810_fw_nvm_read;
E810AqHandler e810_fw_nvm_checksum;
/* ddp.c */
E810AqHandler e810_fw_download_pkg;
E810AqHandler e810_fw_update_pkg;
E810AqHandler e810_fw_get_pkg_info;
/* switch.c */
E810AqHandler e810_sw_get_config;
E810AqHandler e810_sw_set_port_params;
E810AqHandler e810_sw_alloc_res;
E810AqHandler e810_sw_free_res;
E810AqHandler e810_sw_add_vsi;
E810AqHandler e810_sw_update_vsi;
E810AqHandler e810_sw_free_vsi;
E810AqHandler e810_sw_rules;             /* Add, Update, Remove */
E810AqHandler e810_sw_clear_pf_cfg;
E810AqHandler e810_sw_rss_key;           /* Set and Get, by opcode */
E810AqHandler e810_sw_rss_lut;
/* sched.c */
E810AqHandler e810_sched_get_dflt_topo;
E810AqHandler e810_sched_add_elems;
E810AqHandler e810_sched_cfg_elems;
E810AqHandler e810_sched_query_elems;
E810AqHandler e810_sched_move_elems;
E810AqHandler e810_sched_suspend;        /* Suspend and Resume, by opcode */
E810AqHandler e810_sched_delete;
E810AqHandler e810_sched_add_rl;
E810AqHandler e810_sched_query_res;
E810AqHandler e810_sched_remove_rl;
E810AqHandler e810_sched_set_tx_topo;
E810AqHandler e810_sched_get_tx_topo;
E810AqHandler e810_sched_add_txqs;
E810AqHandler e810_sched_dis_txqs;
E810AqHandler e810_sched_add_qsets;
/* phy.c */
E810AqHandler e810_phy_get_caps;
E810AqHandler e810_phy_set_cfg;
E810AqHandler e810_phy_set_mac_cfg;
E810AqHandler e810_phy_restart_an;
E810AqHandler e810_phy_get_link_status;
E810AqHandler e810_phy_set_event_mask;
E810AqHandler e810_phy_set_mac_lb;
E810AqHandler e810_phy_sff_eeprom;
/* dcb.c: DCB and the firmware's LLDP agent */
E810AqHandler e810_lldp_get_mib;
E810AqHandler e810_lldp_local_mib;
E810AqHandler e810_dcb_query_port_ets;

#endif
