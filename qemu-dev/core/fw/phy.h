/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 firmware model: PHY, MAC and link commands (0x06xx), the Link Status
 * Event.
 *
 * Model: one logical port (0) with an SFP28 25GBASE-SR module always
 * present.  The link is up when the host netdev has carrier, the link is
 * enabled (Set PHY Config EN_LINK / Restart AN) and the configured PHY types
 * include the module's.  The firmware default enables the link, so the link
 * is already up when the driver probes, as on real boards.
 */
#ifndef E810_FW_PHY_H
#define E810_FW_PHY_H

#include "../types.h"

/* Get PHY Caps (0x0600) report modes, param0 bits 3:1. */
#define E810_PHY_REPORT_MODE_M      0x000Eu
#define E810_PHY_REPORT_NO_MEDIA    0x0000u
#define E810_PHY_REPORT_MEDIA       0x0002u
#define E810_PHY_REPORT_ACTIVE      0x0004u
#define E810_PHY_REPORT_DFLT        0x0008u
#define E810_PHY_CAPS_LEN           560     /* incl. 16 qualified modules */

/* Caps byte (Get PHY Caps and Set PHY Config share bits 0..3 and 7). */
#define E810_PHY_CAP_TX_PAUSE       (1u << 0)
#define E810_PHY_CAP_RX_PAUSE       (1u << 1)
#define E810_PHY_CAP_LOW_POWER      (1u << 2)
#define E810_PHY_CAP_EN_LINK        (1u << 3)
#define E810_PHY_CAP_AN_MODE        (1u << 4)   /* get only */
#define E810_PHY_CAP_AUTO_LINK_UPDT (1u << 5)   /* set only */
#define E810_PHY_CAP_LESM           (1u << 6)
#define E810_PHY_CAP_AUTO_FEC       (1u << 7)
#define E810_PHY_SET_CAPS_VALID     0xEFu

/* link_fec_options */
#define E810_PHY_FEC_10G_KR_EN      (1u << 0)
#define E810_PHY_FEC_10G_KR_REQ     (1u << 1)
#define E810_PHY_FEC_25G_RS_528_REQ (1u << 2)
#define E810_PHY_FEC_25G_KR_REQ     (1u << 3)
#define E810_PHY_FEC_25G_RS_544_REQ (1u << 4)
#define E810_PHY_FEC_25G_RS_EN      (1u << 6)
#define E810_PHY_FEC_25G_KR_EN      (1u << 7)

/* PHY types (phy_type_low bits) this model uses. */
#define E810_PHY_10G_SFI_DA         (1ull << 13)
#define E810_PHY_10GBASE_SR         (1ull << 14)
#define E810_PHY_10GBASE_LR         (1ull << 15)
#define E810_PHY_10G_SFI_AOC_ACC    (1ull << 17)
#define E810_PHY_10G_SFI_C2C        (1ull << 18)
#define E810_PHY_25GBASE_CR         (1ull << 20)
#define E810_PHY_25GBASE_CR_S       (1ull << 21)
#define E810_PHY_25GBASE_CR1        (1ull << 22)
#define E810_PHY_25GBASE_SR         (1ull << 23)
#define E810_PHY_25GBASE_LR         (1ull << 24)
#define E810_PHY_25G_AUI_AOC_ACC    (1ull << 28)
#define E810_PHY_25G_AUI_C2C        (1ull << 29)

/* Get Link Status (0x0607) */
#define E810_LS_DATA_LEN            32      /* E810 layout (no link partner) */
#define E810_LSE_M                  0x3u
#define E810_LSE_DIS                0x2u
#define E810_LSE_ENA                0x3u
#define E810_LSE_IS_ENABLED         0x1u
#define E810_LINK_INFO_UP           (1u << 0)
#define E810_LINK_INFO_MEDIA        (1u << 6)
#define E810_LINK_INFO_SIGNAL       (1u << 7)
#define E810_AN_INFO_FEC_EN         (1u << 3)
#define E810_AN_INFO_PAUSE_TX       (1u << 5)
#define E810_AN_INFO_PAUSE_RX       (1u << 6)
#define E810_AN_INFO_QUALIFIED      (1u << 7)
#define E810_LINK_CFG_KR_FEC        (1u << 0)
#define E810_LINK_CFG_RS_528_FEC    (1u << 1)
#define E810_LINK_CFG_PACING_M      0xF8u
#define E810_LINK_SPEED_25G         (1u << 7)

/* Set Event Mask (0x0613): a set bit suppresses that event. */
#define E810_LINK_EVENT_UPDOWN      (1u << 1)

/* Set MAC Config (0x0603) */
#define E810_MAC_FRAME_MAX          9728

/* Restart AN (0x0605) */
#define E810_RESTART_AN_LINK_ENABLE (1u << 2)

/* The configuration Set PHY Config stores (its 24-byte buffer). */
typedef struct E810PhyCfg {
    uint64_t phy_type_low;
    uint64_t phy_type_high;
    uint8_t caps;
    uint8_t low_power_ctrl_an;
    uint16_t eee_cap;
    uint16_t eeer_value;
    uint8_t link_fec_opt;
    uint8_t module_compliance;
} E810PhyCfg;

typedef struct E810FwPhy {
    /* Port state: survives PF reset (the firmware keeps the PHY running). */
    E810PhyCfg active;          /* what ACTIVE_CFG reports */
    bool link_en;               /* link enabled as last applied */
    bool up;                    /* effective link state */
    uint16_t event_mask;        /* suppressed link events */
    uint16_t max_frame_size;
    uint8_t mac_params;         /* pacing bits, reported in link status cfg */
    uint8_t tx_tmr_priority;
    uint16_t tx_tmr_value;
    uint16_t fc_refresh_threshold;
    uint8_t drop_opts;
    /* Per driver instance: cleared by PF reset. */
    bool lse_ena;               /* Link Status Events requested */
    bool mac_loopback;          /* 0x0620: for the LAN data path */
    uint64_t lse_posted;
    uint64_t lse_suppressed;    /* link changes not reported (LSE off/masked) */
} E810FwPhy;

void e810_fw_phy_reset(E810Core *c, E810ResetType type);
/* The host's carrier (c->link_up) changed: re-evaluate, maybe post an LSE. */
void e810_fw_phy_link_changed(E810Core *c);

/* Saved state (snap.h). */
extern const struct E810SnapPart e810_fw_phy_snap;

#endif
