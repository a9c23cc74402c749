/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 admin queue engine.  Commands run synchronously when the driver
 * writes the ATQ tail: the driver polls only ATQH for completion (1 s
 * timeout), so finishing inside the register write is both simplest and
 * fastest.  Events go to the ARQ slot at ARQH and raise the AdminQ cause.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../snap.h"
#include "../bytes.h"
#include "../../trace.h"

/* Commands the model answers with nothing done (the comment above each
 * entry says why). */
static int aq_ok(E810Core *c, E810AqCmd *cmd)
{
    return E810_AQ_RC_OK;
}

static int aq_enoent(E810Core *c, E810AqCmd *cmd)
{
    return E810_AQ_RC_ENOENT;
}

static int aq_esrch(E810Core *c, E810AqCmd *cmd)
{
    return E810_AQ_RC_ESRCH;
}

/*
 * Every admin-queue command the firmware answers, by opcode (the driver's
 * ice_adminq_cmd.h names); handlers live in their family's file in fw/.
 */
static const E810AqOp e810_aq_ops[] = {
    { AQC_OPC_GET_VER, "get_version", e810_fw_get_version },
    { AQC_OPC_DRIVER_VER, "driver_version", e810_fw_driver_version },
    { AQC_OPC_Q_SHUTDOWN, "queue_shutdown", e810_fw_queue_shutdown },
    { AQC_OPC_REQ_RES, "request_resource", e810_fw_request_resource },
    { AQC_OPC_RELEASE_RES, "release_resource", e810_fw_release_resource },
    { AQC_OPC_LIST_FUNC_CAPS, "list_func_caps", e810_fw_list_caps },
    { AQC_OPC_LIST_DEV_CAPS, "list_dev_caps", e810_fw_list_caps },
    { AQC_OPC_MANAGE_MAC_READ, "manage_mac_read", e810_fw_manage_mac_read },
    { AQC_OPC_MANAGE_MAC_WRITE, "manage_mac_write", e810_fw_manage_mac_write },
    /* no PXE agent ever ran: nothing to clear */
    { AQC_OPC_CLEAR_PXE_MODE, "clear_pxe", aq_ok },
    { AQC_OPC_GET_SW_CFG, "get_sw_cfg", e810_sw_get_config },
    { AQC_OPC_SET_PORT_PARAMS, "set_port_params", e810_sw_set_port_params },
    { AQC_OPC_ALLOC_RES, "alloc_res", e810_sw_alloc_res },
    { AQC_OPC_FREE_RES, "free_res", e810_sw_free_res },
    /* single VLAN mode is all the switch does */
    { AQC_OPC_SET_VLAN_MODE_PARAMETERS, "set_vlan_mode", aq_ok },
    /* with Upload Section: no double VLAN mode, ice stays in single VLAN
     * mode ("QinQ functionality cannot be enabled") */
    { AQC_OPC_GET_VLAN_MODE_PARAMETERS, "get_vlan_mode", aq_esrch },
    { AQC_OPC_ADD_VSI, "add_vsi", e810_sw_add_vsi },
    { AQC_OPC_UPDATE_VSI, "update_vsi", e810_sw_update_vsi },
    { AQC_OPC_FREE_VSI, "free_vsi", e810_sw_free_vsi },
    /* recipes are not offered: the driver falls back */
    { AQC_OPC_ADD_RECIPE, "add_recipe", aq_esrch },
    { AQC_OPC_RECIPE_TO_PROFILE, "recipe_to_profile", aq_esrch },
    { AQC_OPC_GET_RECIPE, "get_recipe", aq_esrch },
    { AQC_OPC_GET_RECIPE_TO_PROFILE, "get_recipe_to_profile", aq_esrch },
    { AQC_OPC_ADD_SW_RULES, "add_sw_rules", e810_sw_rules },
    { AQC_OPC_UPDATE_SW_RULES, "update_sw_rules", e810_sw_rules },
    { AQC_OPC_REMOVE_SW_RULES, "remove_sw_rules", e810_sw_rules },
    { AQC_OPC_CLEAR_PF_CFG, "clear_pf_cfg", e810_sw_clear_pf_cfg },
    { AQC_OPC_GET_DFLT_TOPO, "get_dflt_topo", e810_sched_get_dflt_topo },
    { AQC_OPC_ADD_SCHED_ELEMS, "add_sched_elems", e810_sched_add_elems },
    { AQC_OPC_CFG_SCHED_ELEMS, "cfg_sched_elems", e810_sched_cfg_elems },
    { AQC_OPC_GET_SCHED_ELEMS, "query_sched_elems", e810_sched_query_elems },
    { AQC_OPC_MOVE_SCHED_ELEMS, "move_sched_elems", e810_sched_move_elems },
    { AQC_OPC_SUSPEND_SCHED_ELEMS, "suspend_sched_elems", e810_sched_suspend },
    { AQC_OPC_RESUME_SCHED_ELEMS, "resume_sched_elems", e810_sched_suspend },
    { AQC_OPC_DELETE_SCHED_ELEMS, "delete_sched_elems", e810_sched_delete },
    { AQC_OPC_ADD_RL_PROFILES, "add_rl_profiles", e810_sched_add_rl },
    { AQC_OPC_QUERY_SCHED_RES, "query_sched_res", e810_sched_query_res },
    { AQC_OPC_REMOVE_RL_PROFILES, "remove_rl_profiles", e810_sched_remove_rl },
    { AQC_OPC_SET_TX_TOPO, "set_tx_topo", e810_sched_set_tx_topo },
    { AQC_OPC_GET_TX_TOPO, "get_tx_topo", e810_sched_get_tx_topo },
    { AQC_OPC_GET_PHY_CAPS, "get_phy_caps", e810_phy_get_caps },
    { AQC_OPC_SET_PHY_CFG, "set_phy_cfg", e810_phy_set_cfg },
    { AQC_OPC_SET_MAC_CFG, "set_mac_cfg", e810_phy_set_mac_cfg },
    { AQC_OPC_RESTART_AN, "restart_an", e810_phy_restart_an },
    { AQC_OPC_GET_LINK_STATUS, "get_link_status", e810_phy_get_link_status },
    { AQC_OPC_SET_EVENT_MASK, "set_event_mask", e810_phy_set_event_mask },
    { AQC_OPC_SET_MAC_LB, "set_mac_lb", e810_phy_set_mac_lb },
    /* an empty netlist: ENOENT is "no such node" to ice (no cage, no
     * recovered clock, no CGU/GNSS), which logs nothing */
    { AQC_OPC_GET_LINK_TOPO, "get_link_topo", aq_enoent },
    /* ethtool -p: there is no LED to blink */
    { AQC_OPC_SET_PORT_ID_LED, "set_port_id_led", aq_ok },
    /* port split is not configurable; ice leaves its PHY lane unset,
     * which only PTP (not offered) would need */
    { AQC_OPC_GET_PORT_OPTIONS, "get_port_options", aq_esrch },
    { AQC_OPC_SFF_EEPROM, "sff_eeprom", e810_phy_sff_eeprom },
    { AQC_OPC_NVM_READ, "nvm_read", e810_fw_nvm_read },
    { AQC_OPC_NVM_CHECKSUM, "nvm_checksum", e810_fw_nvm_checksum },
    { AQC_OPC_QUERY_PORT_ETS, "query_port_ets", e810_dcb_query_port_ets },
    { AQC_OPC_LLDP_GET_MIB, "lldp_get_mib", e810_lldp_get_mib },
    /* the MIB never changes: whether events are wanted makes no odds */
    { AQC_OPC_LLDP_MIB_CHANGE, "lldp_mib_change", aq_ok },
    /* the agent runs IEEE DCBX: ENOENT makes ice read the IEEE MIB */
    { AQC_OPC_GET_CEE_DCB_CFG, "get_cee_dcb_cfg", aq_enoent },
    { AQC_OPC_LLDP_SET_LOCAL_MIB, "lldp_set_local_mib", e810_lldp_local_mib },
    { AQC_OPC_SET_RSS_KEY, "set_rss_key", e810_sw_rss_key },
    { AQC_OPC_SET_RSS_LUT, "set_rss_lut", e810_sw_rss_lut },
    { AQC_OPC_GET_RSS_KEY, "get_rss_key", e810_sw_rss_key },
    { AQC_OPC_GET_RSS_LUT, "get_rss_lut", e810_sw_rss_lut },
    { AQC_OPC_ADD_TXQS, "add_txqs", e810_sched_add_txqs },
    { AQC_OPC_DIS_TXQS, "dis_txqs", e810_sched_dis_txqs },
    /* Move / Reconfigure Tx Queues (DCB, LAG): nothing to model */
    { AQC_OPC_CFG_TXQS, "cfg_txqs", aq_ok },
    { AQC_OPC_ADD_RDMA_QSET, "add_rdma_qsets", e810_sched_add_qsets },
    { AQC_OPC_DOWNLOAD_PKG, "download_pkg", e810_fw_download_pkg },
    /* no package section can be read back (double VLAN mode, above) */
    { AQC_OPC_UPLOAD_SECTION, "upload_section", aq_esrch },
    { AQC_OPC_UPDATE_PKG, "update_pkg", e810_fw_update_pkg },
    { AQC_OPC_GET_PKG_INFO_LIST, "get_pkg_info_list", e810_fw_get_pkg_info },
    { AQC_OPC_FW_LOGS_CONFIG, "fw_logs_config", e810_fw_log_config },
    { AQC_OPC_FW_LOGS_REGISTER, "fw_logs_register", e810_fw_log_register },
    { AQC_OPC_FW_LOGS_QUERY, "fw_logs_query", e810_fw_log_query },
    /* the firmware's event, not a command */
    { AQC_OPC_FW_LOGS_EVENT, "fw_logs_event", aq_esrch },
};

static const E810AqOp *e810_aq_find(uint16_t opcode)
{
    for (size_t i = 0; i < sizeof(e810_aq_ops) / sizeof(e810_aq_ops[0]); i++) {
        if (e810_aq_ops[i].opcode == opcode) {
            return &e810_aq_ops[i];
        }
    }
    return NULL;
}

const char *e810_aq_opcode_name(uint16_t opcode)
{
    const E810AqOp *op = e810_aq_find(opcode);

    return op ? op->name : "unknown";
}

void e810_aq_reset(E810Core *c)
{
    E810Aq *aq = &c->aq;

    aq->commands = aq->errors = aq->events = aq->events_lost = 0;
    aq->held = aq->resume = false;
    e810_timer_del(aq->timer);
}

static uint64_t e810_aq_base(E810Core *c, uint32_t bal, uint32_t bah)
{
    return (uint64_t)e810_reg(c, bah) << 32 | e810_reg(c, bal);
}

/* The descriptor's header fields into @cmd, no buffer read, no response. */
static void aq_cmd_decode(E810AqCmd *cmd)
{
    cmd->flags = ld16(cmd->desc + AQ_DESC_FLAGS);
    cmd->opcode = ld16(cmd->desc + AQ_DESC_OPCODE);
    cmd->has_buf = cmd->flags & E810_AQ_FLAG_BUF;
    cmd->buf_len = 0;
    cmd->resp_len = -1;
}

/* Run one command already read into c->aq.cmd; returns the return code. */
static int e810_aq_exec(E810Core *c, E810AqCmd *cmd)
{
    const E810AqOp *op;
    uint16_t datalen = ld16(cmd->desc + AQ_DESC_DATALEN);
    uint64_t buf_addr = (uint64_t)ld32(cmd->desc + AQ_DESC_ADDR_H) << 32 |
                        ld32(cmd->desc + AQ_DESC_ADDR_L);

    aq_cmd_decode(cmd);

    if (cmd->has_buf) {
        if (datalen == 0 || datalen > E810_AQ_BUF_MAX) {
            e810_guest_error(c, "AQ opcode 0x%04x: buffer length %u (1..%u)",
                             cmd->opcode, datalen, E810_AQ_BUF_MAX);
            return E810_AQ_RC_EINVAL;
        }
        cmd->buf_len = datalen;
        if (e810_dma_read(c, buf_addr, cmd->buf, datalen)) {
            e810_guest_error(c, "AQ opcode 0x%04x: cannot read buffer at 0x%" PRIx64,
                             cmd->opcode, buf_addr);
            return E810_AQ_RC_EIO;
        }
        memset(cmd->buf + datalen, 0, E810_AQ_BUF_MAX - datalen);
    } else {
        memset(cmd->buf, 0, sizeof(cmd->buf));
    }

    op = e810_aq_find(cmd->opcode);
    if (!op) {
        /* Unknown to this firmware: the driver treats ESRCH as "not supported". */
        e810_unimp(c, "AQ opcode 0x%04x", cmd->opcode);
        return E810_AQ_RC_ESRCH;
    }
    return op->fn(c, cmd);
}

static void e810_aq_process_atq(E810Core *c);

/* The held command's time is up: it runs, and the ones queued behind it. */
static void aq_hold_done(void *opaque)
{
    E810Core *c = opaque;

    if (c->aq.held) {
        c->aq.held = false;
        c->aq.resume = true;
        e810_aq_process_atq(c);
        c->aq.resume = false;
    }
}

void e810_aq_init(E810Core *c)
{
    c->aq.timer = e810_timer_new(c, aq_hold_done, c);
}

void e810_aq_cleanup(E810Core *c)
{
    e810_timer_free(c->aq.timer);
    c->aq.timer = NULL;
}

/*
 * Faults on an AQ command (fault.h) at the head of the ATQ: true if it is
 * held (the queue then stands still); *rc non-zero if it is to complete
 * with that code instead of running.
 */
static bool aq_fault(E810Core *c, uint16_t opcode, int *rc)
{
    uint16_t frc;
    int64_t hold;

    *rc = 0;
    if (c->aq.resume) {
        c->aq.resume = false;
        return false;
    }
    if (!e810_fault_aq(c, opcode, &frc, &hold)) {
        return false;
    }
    if (hold && c->aq.timer) {
        c->aq.held = true;
        e810_timer_mod(c->aq.timer, e810_now(c) + hold);
        return true;
    }
    *rc = frc;
    return false;
}

static void e810_aq_process_atq(E810Core *c)
{
    E810AqCmd *cmd = &c->aq.cmd;
    uint32_t qlen = e810_reg(c, PF_FW_ATQLEN);
    uint32_t len = qlen & PF_FW_xQLEN_LEN_M;
    uint32_t tail = e810_reg(c, PF_FW_ATQT);
    uint32_t head = e810_reg(c, PF_FW_ATQH) & PF_FW_xQH_M;
    uint64_t base = e810_aq_base(c, PF_FW_ATQBAL, PF_FW_ATQBAH);

    if (tail == head || c->aq.held) {
        /* ice zeroes head and tail before enabling the queue: nothing to
         * do; or a held command stops the queue (aq_fault). */
        return;
    }
    if (!(qlen & PF_FW_xQLEN_ENABLE) || len == 0) {
        e810_guest_error(c, "ATQ tail written while the queue is disabled");
        return;
    }
    if (tail >= len || head >= len) {
        e810_guest_error(c, "ATQ tail %u / head %u beyond ring length %u",
                         tail, head, len);
        return;
    }

    while (head != tail) {
        uint64_t slot = base + (uint64_t)head * E810_AQ_DESC_SIZE;
        int rc;

        if (e810_dma_read(c, slot, cmd->desc,
                                  E810_AQ_DESC_SIZE)) {
            e810_reg_set(c, PF_FW_ATQLEN, qlen | PF_FW_xQLEN_CRIT);
            e810_guest_error(c, "ATQ descriptor at 0x%" PRIx64 " unreadable", slot);
            return;
        }
        if (aq_fault(c, ld16(cmd->desc + AQ_DESC_OPCODE), &rc)) {
            return;
        }
        if (rc) {
            aq_cmd_decode(cmd);     /* refused by the fault: not carried out */
        } else {
            rc = e810_aq_exec(c, cmd);
        }
        c->aq.commands++;
        if (rc) {
            c->aq.errors++;
        }

        /*
         * Data goes back when the handler produced some, also with an error
         * (e.g. a package download's error offset).  A response longer than
         * the driver's buffer is not written: datalen then tells the driver
         * how much it would need (ENOMEM convention).
         */
        if (cmd->resp_len >= 0 && cmd->resp_len <= cmd->buf_len) {
            uint64_t buf_addr =
                (uint64_t)ld32(cmd->desc + AQ_DESC_ADDR_H) << 32 |
                ld32(cmd->desc + AQ_DESC_ADDR_L);
            uint16_t n = cmd->resp_len;

            if (n && e810_dma_write(c, buf_addr, cmd->buf, n)) {
                e810_guest_error(c, "AQ opcode 0x%04x: cannot write buffer at 0x%"
                                 PRIx64, cmd->opcode, buf_addr);
                rc = E810_AQ_RC_EIO;
            } else {
                st16(cmd->desc + AQ_DESC_DATALEN, n);
            }
        } else if (cmd->resp_len > cmd->buf_len) {
            if (rc == E810_AQ_RC_OK) {
                rc = E810_AQ_RC_ENOMEM;
            }
            st16(cmd->desc + AQ_DESC_DATALEN, cmd->resp_len);
        }
        cmd->flags = (cmd->flags & ~E810_AQ_FLAG_ERR) | E810_AQ_FLAG_DD |
                     E810_AQ_FLAG_CMP | (rc ? E810_AQ_FLAG_ERR : 0);
        st16(cmd->desc + AQ_DESC_FLAGS, cmd->flags);
        st16(cmd->desc + AQ_DESC_RETVAL, rc);
        trace_e810_aq_cmd(cmd->opcode, e810_aq_opcode_name(cmd->opcode),
                          cmd->buf_len, rc);
        if (e810_dma_write(c, slot, cmd->desc,
                                   E810_AQ_DESC_SIZE)) {
            e810_reg_set(c, PF_FW_ATQLEN, qlen | PF_FW_xQLEN_CRIT);
            e810_guest_error(c, "ATQ descriptor at 0x%" PRIx64 " unwritable", slot);
            return;
        }
        head = (head + 1) % len;
        e810_reg_set(c, PF_FW_ATQH, head);
        /* A command may have reset or disabled the queue (e.g. shutdown). */
        qlen = e810_reg(c, PF_FW_ATQLEN);
        if (!(qlen & PF_FW_xQLEN_ENABLE) || (qlen & PF_FW_xQLEN_LEN_M) != len) {
            return;
        }
    }
}

bool e810_aq_write(E810Core *c, uint32_t off, uint32_t val)
{
    switch (off) {
    case PF_FW_ATQT:
        e810_reg_set(c, off, val & PF_FW_xQH_M);
        e810_aq_process_atq(c);
        return true;
    case PF_FW_ATQH:
    case PF_FW_ARQH:
    case PF_FW_ARQT:
        e810_reg_set(c, off, val & PF_FW_xQH_M);
        return true;
    case PF_FW_ATQLEN:
    case PF_FW_ARQLEN:
        /* Error flags are write-one-to-clear... by writing them as zero. */
        e810_reg_set(c, off, val);
        return true;
    default:
        return false;
    }
}

bool e810_aq_post_event(E810Core *c, uint16_t opcode, const uint8_t params[16],
                        const void *payload, uint16_t len)
{
    uint32_t qlen = e810_reg(c, PF_FW_ARQLEN);
    uint32_t n = qlen & PF_FW_xQLEN_LEN_M;
    uint32_t head = e810_reg(c, PF_FW_ARQH);
    uint32_t tail = e810_reg(c, PF_FW_ARQT);
    uint64_t slot, buf_addr;
    uint8_t desc[E810_AQ_DESC_SIZE];
    uint32_t fw_ctl;

    if (!(qlen & PF_FW_xQLEN_ENABLE) || n == 0 || head >= n || head == tail) {
        c->aq.events_lost++;
        if (qlen & PF_FW_xQLEN_ENABLE) {
            e810_reg_set(c, PF_FW_ARQLEN, qlen | PF_FW_xQLEN_OVFL);
        }
        trace_e810_aq_event_lost(opcode, head, tail, n);
        return false;
    }
    slot = e810_aq_base(c, PF_FW_ARQBAL, PF_FW_ARQBAH) +
           (uint64_t)head * E810_AQ_DESC_SIZE;
    if (e810_dma_read(c, slot, desc, sizeof(desc))) {
        c->aq.events_lost++;
        e810_guest_error(c, "ARQ descriptor at 0x%" PRIx64 " unreadable", slot);
        return false;
    }
    buf_addr = (uint64_t)ld32(desc + AQ_DESC_ADDR_H) << 32 |
               ld32(desc + AQ_DESC_ADDR_L);
    if (len > ld16(desc + AQ_DESC_DATALEN)) {
        c->aq.events_lost++;
        e810_guest_error(c, "ARQ buffer of %u bytes too small for event 0x%04x",
                         ld16(desc + AQ_DESC_DATALEN), opcode);
        return false;
    }
    if (len && e810_dma_write(c, buf_addr, payload, len)) {
        c->aq.events_lost++;
        e810_guest_error(c, "ARQ buffer at 0x%" PRIx64 " unwritable", buf_addr);
        return false;
    }
    memset(desc, 0, AQ_DESC_PARAMS);
    st16(desc + AQ_DESC_FLAGS, E810_AQ_FLAG_DD | E810_AQ_FLAG_CMP |
         (len ? E810_AQ_FLAG_BUF : 0) | (len > 512 ? E810_AQ_FLAG_LB : 0));
    st16(desc + AQ_DESC_OPCODE, opcode);
    st16(desc + AQ_DESC_DATALEN, len);
    if (params) {
        /* 24..31 keep the buffer address */
        memcpy(desc + AQ_DESC_PARAMS, params, 8);
    }
    if (e810_dma_write(c, slot, desc, sizeof(desc))) {
        c->aq.events_lost++;
        e810_guest_error(c, "ARQ descriptor at 0x%" PRIx64 " unwritable", slot);
        return false;
    }
    e810_reg_set(c, PF_FW_ARQH, (head + 1) % n);
    c->aq.events++;
    trace_e810_aq_event(opcode, len);

    fw_ctl = e810_reg(c, PFINT_FW_CTL);
    if (fw_ctl & E810_CTL_CAUSE_ENA) {
        e810_intr_cause_ctl(c, fw_ctl);
    }
    return true;
}

/* ---- saved state -------------------------------------------------------- */

/* E810Aq: the counters.  Not saved: cmd, scratch of the command being run
 * (none is in progress outside an MMIO write). */
static const E810SnapField aq_fields[] = {
    SF_UX(E810Aq, commands),
    SF_UX(E810Aq, errors),
    SF_UX(E810Aq, events),
    SF_UX(E810Aq, events_lost),
    SF_END
};


const E810SnapPart e810_aq_snap = E810_SNAP_FLAT("aq", aq, aq_fields, NULL);
