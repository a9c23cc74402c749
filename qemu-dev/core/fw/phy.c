/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 firmware model: PHY, MAC and link commands and the Link Status Event.
 * The port model is described in phy.h.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../snap.h"
#include "../bytes.h"
#include "../../trace.h"

/* PHY types the SFP28 SR module supports (TOPO_CAP_MEDIA). */
#define PHY_MEDIA_TYPES         E810_PHY_25GBASE_SR
/* PHY types the SFP28 cage supports with any module (TOPO_CAP_NO_MEDIA). */
#define PHY_PORT_TYPES \
    (E810_PHY_10G_SFI_DA | E810_PHY_10GBASE_SR | E810_PHY_10GBASE_LR | \
     E810_PHY_10G_SFI_AOC_ACC | E810_PHY_10G_SFI_C2C | E810_PHY_25GBASE_CR | \
     E810_PHY_25GBASE_CR_S | E810_PHY_25GBASE_CR1 | E810_PHY_25GBASE_SR | \
     E810_PHY_25GBASE_LR | E810_PHY_25G_AUI_AOC_ACC | E810_PHY_25G_AUI_C2C)
/* FEC abilities at 25G (BASE-R and RS), default request RS-528. */
#define PHY_FEC_ABILITY \
    (E810_PHY_FEC_10G_KR_EN | E810_PHY_FEC_25G_RS_EN | E810_PHY_FEC_25G_KR_EN)
#define PHY_FEC_DFLT            (PHY_FEC_ABILITY | E810_PHY_FEC_25G_RS_528_REQ)

/* SFF-8024 identifier / extended compliance of the module. */
#define SFF_ID_SFP              0x03
#define SFF_EXT_25GBASE_SR      0x02
#define SFF_EEPROM_ADDR         0x50    /* 7-bit address of the A0h page */
#define SFF_READ_MAX            16

/* Every port command carries lport_num in its first parameter byte. */
static uint8_t phy_lport(E810AqCmd *cmd)
{
    return *aq_param(cmd, AQC_GET_PHY_CAPS_LPORT_NUM);
}

static bool phy_lport_ok(E810Core *c, E810AqCmd *cmd)
{
    if (phy_lport(cmd) != c->pf_id) {
        e810_guest_error(c, "AQ 0x%04x: logical port %u is not this PF's",
                         cmd->opcode, phy_lport(cmd));
        return false;
    }
    return true;
}

/* Abilities the port reports: pause both ways, auto-FEC, no AN. */
#define PHY_ABILITY_CAPS \
    (E810_PHY_CAP_TX_PAUSE | E810_PHY_CAP_RX_PAUSE | E810_PHY_CAP_AUTO_FEC)

/* A configuration of PHY types @types with @caps and the default FEC. */
static E810PhyCfg phy_cfg(uint64_t types, uint8_t caps)
{
    E810PhyCfg cfg = {
        .phy_type_low = types,
        .caps = caps,
        .link_fec_opt = PHY_FEC_DFLT,
    };
    return cfg;
}

/*
 * The answer is @need bytes: datalen says so; false (ENOMEM) if the driver's
 * buffer is smaller.
 */
static bool phy_resp_fits(E810Core *c, E810AqCmd *cmd, unsigned need,
                          const char *what)
{
    cmd->resp_len = need;
    if (cmd->buf_len < need) {
        e810_guest_error(c, "%s buffer of %u bytes (needs %u)", what,
                         cmd->buf_len, need);
        return false;
    }
    return true;
}

/* The power-on default configuration; DFLT_CFG reports it too. */
static E810PhyCfg phy_default_cfg(void)
{
    return phy_cfg(PHY_MEDIA_TYPES,
                   E810_PHY_CAP_EN_LINK | E810_PHY_CAP_AUTO_FEC);
}

static bool phy_compute_up(E810Core *c)
{
    E810FwPhy *p = &c->fw.phy;

    /* No common PHY type with the module: the link cannot train. */
    return c->link_up && p->link_en && (p->active.phy_type_low & PHY_MEDIA_TYPES);
}

/* FEC the link runs with, from what the active config allows. */
static uint8_t phy_link_fec(E810FwPhy *p)
{
    uint8_t fec = p->active.link_fec_opt;

    if (fec & (E810_PHY_FEC_25G_RS_528_REQ | E810_PHY_FEC_25G_RS_544_REQ)) {
        return E810_LINK_CFG_RS_528_FEC;
    }
    if (fec & E810_PHY_FEC_25G_KR_REQ) {
        return E810_LINK_CFG_KR_FEC;
    }
    if (p->active.caps & E810_PHY_CAP_AUTO_FEC) {
        return E810_LINK_CFG_RS_528_FEC;
    }
    return 0;
}

static void phy_link_status(E810Core *c, uint8_t d[E810_LS_DATA_LEN])
{
    E810FwPhy *p = &c->fw.phy;
    uint8_t an = E810_AN_INFO_QUALIFIED;
    uint8_t fec = 0;

    memset(d, 0, E810_LS_DATA_LEN);
    d[AQC_LS_LINK_INFO] = E810_LINK_INFO_MEDIA |
                      (c->link_up ? E810_LINK_INFO_SIGNAL : 0) |
                      (p->up ? E810_LINK_INFO_UP : 0);
    if (p->up) {
        /* The partner is assumed to agree to the pause we advertise. */
        an |= (p->active.caps & E810_PHY_CAP_TX_PAUSE) ? E810_AN_INFO_PAUSE_TX : 0;
        an |= (p->active.caps & E810_PHY_CAP_RX_PAUSE) ? E810_AN_INFO_PAUSE_RX : 0;
        fec = phy_link_fec(p);
        an |= fec ? E810_AN_INFO_FEC_EN : 0;
        st16(d + AQC_LS_LINK_SPEED, E810_LINK_SPEED_25G);
    }
    d[AQC_LS_AN_INFO] = an;
    st16(d + AQC_LS_MAX_FRAME_SIZE, p->max_frame_size);
    d[AQC_LS_CFG] = fec | (p->mac_params & E810_LINK_CFG_PACING_M);
    /* The module's PHY type even while down, so the media type stays known. */
    st64(d + AQC_LS_PHY_TYPE_LOW, PHY_MEDIA_TYPES);
    st64(d + AQC_LS_PHY_TYPE_HIGH, 0);
}

/* Re-evaluate the link; on a change post a Link Status Event if wanted. */
static void phy_update_link(E810Core *c)
{
    E810FwPhy *p = &c->fw.phy;
    bool up = phy_compute_up(c);
    uint8_t params[16] = { 0 };
    uint8_t data[E810_LS_DATA_LEN];
    bool report;

    if (up == p->up) {
        return;
    }
    p->up = up;
    report = p->lse_ena && !(p->event_mask & E810_LINK_EVENT_UPDOWN);
    trace_e810_phy_link(up, c->link_up, p->link_en, report);
    if (!report) {
        p->lse_suppressed++;
        return;
    }
    params[AQC_GET_LINK_STATUS_LPORT_NUM] = c->pf_id;
    st16(params + AQC_GET_LINK_STATUS_CMD_FLAGS, E810_LSE_IS_ENABLED);
    phy_link_status(c, data);
    if (e810_aq_post_event(c, AQC_OPC_GET_LINK_STATUS, params, data,
                           sizeof(data))) {
        p->lse_posted++;
    }
}

void e810_fw_phy_link_changed(E810Core *c)
{
    phy_update_link(c);
}

void e810_fw_phy_reset(E810Core *c, E810ResetType type)
{
    E810FwPhy *p = &c->fw.phy;

    if (type == E810_RESET_POWER_ON) {
        memset(p, 0, sizeof(*p));
        p->active = phy_default_cfg();
        p->link_en = true;
        p->max_frame_size = E810_MAC_FRAME_MAX;
        p->up = phy_compute_up(c);
        return;
    }
    /* PF reset: the PHY keeps running; the driver's registrations go. */
    p->lse_ena = false;
    p->mac_loopback = false;
}

/* ---- 0x0600 Get PHY Caps ------------------------------------------------ */

static void phy_put_module(uint8_t *b)
{
    /* SFP28 optical module: SFP+ identification, 10GBASE-SR compliance bit
     * (dual-rate modules set it) and the 25GBASE-SR extended code. */
    b[AQC_PHY_CAPS_EXT_COMPLIANCE_CODE] = SFF_EXT_25GBASE_SR;
    b[AQC_PHY_CAPS_MODULE_TYPE + 0] = 0xA0;
    b[AQC_PHY_CAPS_MODULE_TYPE + 1] = 1u << 4;
    b[AQC_PHY_CAPS_MODULE_TYPE + 2] = 0xA0;
}

static void phy_put_cfg(uint8_t *b, const E810PhyCfg *cfg)
{
    st64(b + AQC_PHY_CAPS_PHY_TYPE_LOW, cfg->phy_type_low);
    st64(b + AQC_PHY_CAPS_PHY_TYPE_HIGH, cfg->phy_type_high);
    b[AQC_PHY_CAPS_CAPS] = cfg->caps;
    b[AQC_PHY_CAPS_LOW_POWER_CTRL_AN] = cfg->low_power_ctrl_an;
    st16(b + AQC_PHY_CAPS_EEE_CAP, cfg->eee_cap);
    st16(b + AQC_PHY_CAPS_EEER_VALUE, cfg->eeer_value);
    b[AQC_PHY_CAPS_LINK_FEC_OPTIONS] = cfg->link_fec_opt;
    b[AQC_PHY_CAPS_MODULE_COMPLIANCE] = cfg->module_compliance;
}

int e810_phy_get_caps(E810Core *c, E810AqCmd *cmd)
{
    uint16_t param0 = ld16(aq_param(cmd, AQC_GET_PHY_CAPS_PARAM0));
    uint16_t mode = param0 & E810_PHY_REPORT_MODE_M;
    E810PhyCfg cfg;
    uint8_t *b = cmd->buf;

    /* No port check: the command means "my port" and ice leaves its
     * lport_num 0 on every PF (ice_aq_get_phy_caps). */
    if (!cmd->has_buf) {
        e810_guest_error(c, "Get PHY Caps without a buffer");
        return E810_AQ_RC_EINVAL;
    }
    if (!phy_resp_fits(c, cmd, E810_PHY_CAPS_LEN, "Get PHY Caps")) {
        return E810_AQ_RC_ENOMEM;
    }
    memset(b, 0, E810_PHY_CAPS_LEN);
    switch (mode) {
    case E810_PHY_REPORT_NO_MEDIA:
        /* What the port could do with any module: no module data. */
        cfg = phy_cfg(PHY_PORT_TYPES, PHY_ABILITY_CAPS);
        phy_put_cfg(b, &cfg);
        break;
    case E810_PHY_REPORT_MEDIA:
        /* What the port can do with this module. */
        cfg = phy_cfg(PHY_MEDIA_TYPES, PHY_ABILITY_CAPS);
        phy_put_cfg(b, &cfg);
        phy_put_module(b);
        break;
    case E810_PHY_REPORT_ACTIVE:
        phy_put_cfg(b, &c->fw.phy.active);
        phy_put_module(b);
        break;
    case E810_PHY_REPORT_DFLT:
        cfg = phy_default_cfg();
        phy_put_cfg(b, &cfg);
        phy_put_module(b);
        break;
    default:
        e810_guest_error(c, "Get PHY Caps report mode 0x%x", mode >> 1);
        cmd->resp_len = -1;
        return E810_AQ_RC_EINVAL;
    }
    trace_e810_phy_get_caps(mode >> 1, ld64(b + AQC_PHY_CAPS_PHY_TYPE_LOW),
                            b[AQC_PHY_CAPS_CAPS],
                            b[AQC_PHY_CAPS_LINK_FEC_OPTIONS]);
    return E810_AQ_RC_OK;
}

/* ---- 0x0601 Set PHY Config ---------------------------------------------- */

int e810_phy_set_cfg(E810Core *c, E810AqCmd *cmd)
{
    E810FwPhy *p = &c->fw.phy;
    const uint8_t *b = cmd->buf;
    E810PhyCfg cfg;

    if (!phy_lport_ok(c, cmd)) {
        return E810_AQ_RC_EINVAL;
    }
    if (!cmd->has_buf || cmd->buf_len < AQC_PHY_CFG_SIZE) {
        e810_guest_error(c, "Set PHY Config buffer of %u bytes (needs %u)",
                         cmd->buf_len, AQC_PHY_CFG_SIZE);
        return E810_AQ_RC_EINVAL;
    }
    if (b[AQC_PHY_CFG_CAPS] & ~E810_PHY_SET_CAPS_VALID) {
        e810_guest_error(c, "Set PHY Config caps 0x%02x has reserved bits",
                         b[AQC_PHY_CFG_CAPS]);
        return E810_AQ_RC_EINVAL;
    }
    cfg = (E810PhyCfg) {
        .phy_type_low = ld64(b + AQC_PHY_CFG_PHY_TYPE_LOW),
        .phy_type_high = ld64(b + AQC_PHY_CFG_PHY_TYPE_HIGH),
        /* AUTO_LINK_UPDT is an action, not part of the stored config. */
        .caps = b[AQC_PHY_CFG_CAPS] & ~E810_PHY_CAP_AUTO_LINK_UPDT,
        .low_power_ctrl_an = b[AQC_PHY_CFG_LOW_POWER_CTRL_AN],
        .eee_cap = ld16(b + AQC_PHY_CFG_EEE_CAP),
        .eeer_value = ld16(b + AQC_PHY_CFG_EEER_VALUE),
        .link_fec_opt = b[AQC_PHY_CFG_LINK_FEC_OPT],
        .module_compliance = b[AQC_PHY_CFG_MODULE_COMPLIANCE],
    };
    p->active = cfg;
    trace_e810_phy_set_cfg(cfg.phy_type_low, b[AQC_PHY_CFG_CAPS],
                           cfg.link_fec_opt);
    /* Without AUTO_LINK_UPDT the config waits for Restart AN. */
    if (b[AQC_PHY_CFG_CAPS] & E810_PHY_CAP_AUTO_LINK_UPDT) {
        p->link_en = cfg.caps & E810_PHY_CAP_EN_LINK;
        phy_update_link(c);
    }
    return E810_AQ_RC_OK;
}

/* ---- 0x0603 Set MAC Config ---------------------------------------------- */

int e810_phy_set_mac_cfg(E810Core *c, E810AqCmd *cmd)
{
    E810FwPhy *p = &c->fw.phy;
    uint16_t max_frame = ld16(aq_param(cmd, AQC_SET_MAC_CFG_MAX_FRAME_SIZE));

    if (max_frame == 0 || max_frame > E810_MAC_FRAME_MAX) {
        e810_guest_error(c, "Set MAC Config max frame size %u (1..%u)",
                         max_frame, E810_MAC_FRAME_MAX);
        return E810_AQ_RC_EINVAL;
    }
    p->max_frame_size = max_frame;
    p->mac_params = *aq_param(cmd, AQC_SET_MAC_CFG_PARAMS);
    p->tx_tmr_priority = *aq_param(cmd, AQC_SET_MAC_CFG_TX_TMR_PRIORITY);
    p->tx_tmr_value = ld16(aq_param(cmd, AQC_SET_MAC_CFG_TX_TMR_VALUE));
    p->fc_refresh_threshold =
        ld16(aq_param(cmd, AQC_SET_MAC_CFG_FC_REFRESH_THRESHOLD));
    p->drop_opts = *aq_param(cmd, AQC_SET_MAC_CFG_DROP_OPTS);
    trace_e810_phy_set_mac_cfg(max_frame, p->mac_params);
    return E810_AQ_RC_OK;
}

/* ---- 0x0605 Restart AN -------------------------------------------------- */

int e810_phy_restart_an(E810Core *c, E810AqCmd *cmd)
{
    E810FwPhy *p = &c->fw.phy;
    uint8_t flags = *aq_param(cmd, AQC_RESTART_AN_CMD_FLAGS);

    if (!phy_lport_ok(c, cmd)) {
        return E810_AQ_RC_EINVAL;
    }
    /* Applies the stored config with this link-enable; ACTIVE_CFG follows
     * so the driver's "is the link enabled" check sees the truth. */
    p->link_en = flags & E810_RESTART_AN_LINK_ENABLE;
    if (p->link_en) {
        p->active.caps |= E810_PHY_CAP_EN_LINK;
    } else {
        p->active.caps &= ~E810_PHY_CAP_EN_LINK;
    }
    trace_e810_phy_restart_an(p->link_en);
    phy_update_link(c);
    return E810_AQ_RC_OK;
}

/* ---- 0x0607 Get Link Status --------------------------------------------- */

int e810_phy_get_link_status(E810Core *c, E810AqCmd *cmd)
{
    E810FwPhy *p = &c->fw.phy;
    uint16_t flags = ld16(aq_param(cmd, AQC_GET_LINK_STATUS_CMD_FLAGS));

    if (!phy_lport_ok(c, cmd)) {
        return E810_AQ_RC_EINVAL;
    }
    if (!cmd->has_buf) {
        e810_guest_error(c, "Get Link Status without a buffer");
        return E810_AQ_RC_EINVAL;
    }
    if (cmd->buf_len > E810_LS_DATA_LEN) {
        /* The longer layout with link-partner data is E830 only. */
        e810_guest_error(c, "Get Link Status datalen %u (E810 answers %u)",
                         cmd->buf_len, E810_LS_DATA_LEN);
        return E810_AQ_RC_EINVAL;
    }
    if (!phy_resp_fits(c, cmd, E810_LS_DATA_LEN, "Get Link Status")) {
        return E810_AQ_RC_ENOMEM;
    }
    switch (flags & E810_LSE_M) {
    case E810_LSE_ENA:
        p->lse_ena = true;
        break;
    case E810_LSE_DIS:
        p->lse_ena = false;
        break;
    default:
        break;      /* no change requested */
    }
    phy_link_status(c, cmd->buf);
    st16(aq_param(cmd, AQC_GET_LINK_STATUS_CMD_FLAGS),
         p->lse_ena ? E810_LSE_IS_ENABLED : 0);
    trace_e810_phy_link_status(p->up, p->lse_ena);
    return E810_AQ_RC_OK;
}

/* ---- 0x0613 Set Event Mask ---------------------------------------------- */

int e810_phy_set_event_mask(E810Core *c, E810AqCmd *cmd)
{
    if (!phy_lport_ok(c, cmd)) {
        return E810_AQ_RC_EINVAL;
    }
    /* Every bit is accepted: ice sets reserved ones when it masks "all". */
    c->fw.phy.event_mask =
        ld16(aq_param(cmd, AQC_SET_EVENT_MASK_EVENT_MASK));
    trace_e810_phy_event_mask(c->fw.phy.event_mask);
    return E810_AQ_RC_OK;
}

/* ---- 0x0620 Set MAC Loopback -------------------------------------------- */

int e810_phy_set_mac_lb(E810Core *c, E810AqCmd *cmd)
{
    /* Bit 0 enables loopback; bit 1 picks the clock and changes nothing here. */
    c->fw.phy.mac_loopback =
        *aq_param(cmd, AQC_SET_MAC_LB_LB_MODE) & AQC_MAC_LB_EN;
    return E810_AQ_RC_OK;
}

/* ---- 0x06EE SFF EEPROM -------------------------------------------------- */

static void put_str(uint8_t *d, const char *s, size_t n)
{
    size_t l = strlen(s);

    memset(d, ' ', n);
    memcpy(d, s, l < n ? l : n);
}

/* Page A0h of an SFF-8472 SFP28 25GBASE-SR module without diagnostics. */
static void sff_a0_page(uint8_t p[256])
{
    unsigned sum = 0;

    memset(p, 0, 256);
    p[0] = SFF_ID_SFP;
    p[1] = 0x04;                /* serial ID defined by two-wire interface */
    p[2] = 0x07;                /* LC connector */
    p[3] = 1u << 4;             /* 10GBASE-SR */
    p[11] = 0x06;               /* 64B/66B */
    p[12] = 0xFF;               /* nominal rate: see byte 66 */
    p[18] = 10;                 /* OM4: 100 m */
    p[19] = 7;                  /* OM3: 70 m */
    put_str(p + 20, "QEMU", 16);
    p[36] = SFF_EXT_25GBASE_SR;
    p[37] = 0x52;               /* vendor OUI 52:54:00 */
    p[38] = 0x54;
    p[39] = 0x00;
    put_str(p + 40, "E810-SFP28-SR", 16);
    put_str(p + 56, "A", 4);
    p[60] = 850 >> 8;           /* wavelength, nm */
    p[61] = 850 & 0xFF;
    for (int i = 0; i < 63; i++) {
        sum += p[i];
    }
    p[63] = sum;
    p[65] = 0x1A;               /* LOS, TX_FAULT, TX_DISABLE implemented */
    p[66] = 103;                /* 25.75 Gb/s in 250 Mb/s units */
    put_str(p + 68, "QEMU0001", 16);
    put_str(p + 84, "250101", 8);
    p[94] = 0x08;               /* SFF-8472 rev 12.3, no diagnostics (92 = 0) */
    sum = 0;
    for (int i = 64; i < 95; i++) {
        sum += p[i];
    }
    p[95] = sum;
}

int e810_phy_sff_eeprom(E810Core *c, E810AqCmd *cmd)
{
    uint8_t lport_valid = *aq_param(cmd, AQC_SFF_EEPROM_LPORT_NUM_VALID);
    uint16_t bus = ld16(aq_param(cmd, AQC_SFF_EEPROM_I2C_BUS_ADDR));
    uint16_t mem = ld16(aq_param(cmd, AQC_SFF_EEPROM_I2C_MEM_ADDR));
    uint8_t page[256];

    if ((lport_valid & AQC_SFF_PORT_NUM_VALID) &&
        phy_lport(cmd) != c->pf_id) {
        e810_guest_error(c, "SFF EEPROM: logical port %u does not exist",
                         phy_lport(cmd));
        return E810_AQ_RC_EINVAL;
    }
    if (!cmd->has_buf || cmd->buf_len > SFF_READ_MAX || mem > 0xFF ||
        mem + cmd->buf_len > 256) {
        e810_guest_error(c, "SFF EEPROM access of %u bytes at 0x%x",
                         cmd->buf_len, mem);
        return E810_AQ_RC_EINVAL;
    }
    if (bus & AQC_SFF_IS_WRITE) {
        return E810_AQ_RC_EACCES;           /* the module is read-only here */
    }
    if ((bus & AQC_SFF_I2CBUS_TYPE_10BIT) ||
        (bus & AQC_SFF_I2CBUS_7BIT_M) != SFF_EEPROM_ADDR) {
        /* Only A0h answers: no diagnostics page (A2h) on this module. */
        return E810_AQ_RC_EIO;
    }
    sff_a0_page(page);
    memcpy(cmd->buf, page + mem, cmd->buf_len);
    cmd->resp_len = cmd->buf_len;
    return E810_AQ_RC_OK;
}

/* ---- saved state -------------------------------------------------------- */

/* Everything in E810FwPhy is saved. */
static const E810SnapField fw_phy_cfg_fields[] = {
    SF_UX(E810PhyCfg, phy_type_low),
    SF_UX(E810PhyCfg, phy_type_high),
    SF_UX(E810PhyCfg, caps),
    SF_UX(E810PhyCfg, low_power_ctrl_an),
    SF_UX(E810PhyCfg, eee_cap),
    SF_UX(E810PhyCfg, eeer_value),
    SF_UX(E810PhyCfg, link_fec_opt),
    SF_UX(E810PhyCfg, module_compliance),
    SF_END
};

static const E810SnapField fw_phy_fields[] = {
    SF_SUB(E810FwPhy, active, fw_phy_cfg_fields),
    SF_BOOL(E810FwPhy, link_en),
    SF_BOOL(E810FwPhy, up),
    SF_UX(E810FwPhy, event_mask),
    /* what Set MAC Config accepts */
    SF_U(E810FwPhy, max_frame_size, 1, E810_MAC_FRAME_MAX),
    SF_UX(E810FwPhy, mac_params),
    SF_UX(E810FwPhy, tx_tmr_priority),
    SF_UX(E810FwPhy, tx_tmr_value),
    SF_UX(E810FwPhy, fc_refresh_threshold),
    SF_UX(E810FwPhy, drop_opts),
    SF_BOOL(E810FwPhy, lse_ena),
    SF_BOOL(E810FwPhy, mac_loopback),
    SF_UX(E810FwPhy, lse_posted),
    SF_UX(E810FwPhy, lse_suppressed),
    SF_END
};


const E810SnapPart e810_fw_phy_snap =
    E810_SNAP_FLAT("fw.phy", fw.phy, fw_phy_fields, NULL);
