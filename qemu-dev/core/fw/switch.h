/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 firmware model: switch commands (0x02xx) and RSS key/LUT (0x0B0x).
 *
 * State: VSI contexts by HW VSI number, lookup rules by rule index, VSI
 * lists, switch resource pools, RSS keys and lookup tables.  The LAN Rx
 * path and the RDMA engine read it through the accessors below.
 */
#ifndef E810_FW_SWITCH_H
#define E810_FW_SWITCH_H

#include "../types.h"

#define E810_FW_MAX_VSI             768
#define E810_VSI_CTX_SIZE           128     /* struct ice_aqc_vsi_props */
#define E810_FW_MAX_RULES           1024
#define E810_FW_MAX_VSI_LISTS       256
#define E810_FW_RES_POOL_SIZE       256
#define E810_FW_RES_POOLS           9
#define E810_RSS_KEY_SIZE           52      /* 40-byte key + 12-byte extension */
#define E810_RSS_VSI_LUT_SIZE       64
#define E810_RSS_GLOBAL_LUT_SIZE    512
#define E810_RSS_PF_LUT_SIZE        2048
#define E810_RSS_GLOBAL_LUTS        16
#define E810_VLAN_NONE              0xFFFF  /* untagged frame */

/* Offsets into the VSI context that other blocks read */
#define E810_VSI_CTX_SW_FLAGS2      4
#define   E810_VSI_RX_VLAN_PRUNE    0x01
#define E810_VSI_CTX_MAP_FLAGS      28
#define E810_VSI_CTX_Q_MAPPING      30
#define E810_VSI_CTX_TC_MAPPING     62
#define E810_VSI_CTX_Q_OPT_RSS      78
#define E810_VSI_CTX_Q_OPT_FLAGS    80
#define   E810_VSI_PE_FLTR_EN       0x01

typedef enum E810VsiState {
    E810_VSI_FREE = 0,
    E810_VSI_IN_USE,
    E810_VSI_RESERVED,          /* freed with "keep allocation" */
} E810VsiState;

typedef struct E810Vsi {
    uint8_t state;              /* E810VsiState */
    uint8_t type;               /* 0 VF, 1 VMDq2, 2 PF, 3 EMP */
    uint8_t vf_id;
    uint8_t ctx[E810_VSI_CTX_SIZE];
    uint8_t rss_key[E810_RSS_KEY_SIZE];
    uint8_t rss_lut[E810_RSS_VSI_LUT_SIZE];
} E810Vsi;

/* A lookup rule (struct ice_sw_rule_lkup_rx_tx without the header bytes). */
typedef struct E810SwRule {
    bool in_use;
    uint8_t type;               /* 0 lookup Rx, 1 lookup Tx */
    uint16_t recipe;            /* lookup type: 1 MAC, 2 MAC+VLAN, 3 promisc... */
    uint16_t src;
    uint32_t act;
    uint16_t hdr_len;
    uint8_t hdr[16];            /* dummy Ethernet header: DA, ..., TPID, TCI */
} E810SwRule;

typedef struct E810VsiList {
    bool in_use;
    uint8_t res_type;           /* 3 replication list, 4 prune list */
    uint8_t map[E810_FW_MAX_VSI / 8];
} E810VsiList;

#define E810_SW_VSI_CHUNK           16
#define E810_SW_RULE_CHUNK          64
#define E810_SW_LIST_CHUNK          32

typedef struct E810FwSwitch {
    E810Vsi vsi[E810_FW_MAX_VSI];
    unsigned nvsi;              /* in use or reserved */
    E810SwRule rule[E810_FW_MAX_RULES];     /* rule index = array index */
    unsigned nrules;
    E810VsiList list[E810_FW_MAX_VSI_LISTS]; /* list ID = array index */
    uint8_t res[E810_FW_RES_POOLS][E810_FW_RES_POOL_SIZE / 8];
    uint16_t port_flags;        /* 0x0203 */
    uint16_t bad_frame_vsi;
    uint8_t local_fwd_mode;
    uint16_t pf_lut_size;
    uint8_t pf_lut[E810_RSS_PF_LUT_SIZE];
    uint8_t global_lut[E810_RSS_GLOBAL_LUTS][E810_RSS_GLOBAL_LUT_SIZE];
    /* The last lookup's answer (every frame of a flow asks the same);
     * any switch command invalidates it. */
    struct {
        bool valid;
        uint8_t mac[6];
        uint16_t vlan;
        int max, n;
        uint16_t vsis[8];
    } lk;
    /* What a reset has to zero (e810_dirty_mark): chunks of the VSIs,
     * rules and VSI lists written since, and the LUTs if set. */
    uint64_t vsi_dirty[(E810_FW_MAX_VSI / E810_SW_VSI_CHUNK + 63) / 64];
    uint64_t rule_dirty[(E810_FW_MAX_RULES / E810_SW_RULE_CHUNK + 63) / 64];
    uint64_t list_dirty[(E810_FW_MAX_VSI_LISTS / E810_SW_LIST_CHUNK + 63) /
                        64];
    bool lut_dirty;
} E810FwSwitch;

void e810_fw_switch_reset(E810Core *c, E810ResetType type);

/* The 128-byte context of HW VSI @vsi, or NULL if no such VSI. */
const uint8_t *e810_fw_vsi_ctx(E810Core *c, unsigned vsi);
/* RDMA: does @vsi hand matching ingress to the RDMA engine (PE filter)? */
bool e810_fw_vsi_pe_enabled(E810Core *c, unsigned vsi);
/* Rx queues of @vsi: how many, and the PF queue of its @idx-th (or -1). */
unsigned e810_fw_vsi_num_rxq(E810Core *c, unsigned vsi);
int e810_fw_vsi_rxq(E810Core *c, unsigned vsi, unsigned idx);

/*
 * Rx switching: the VSIs (ascending, at most @max) a frame to @dst_mac with
 * VLAN @vlan (E810_VLAN_NONE if untagged) is delivered to, per the stored
 * MAC, MAC+VLAN, promiscuous and default-VSI rules and VLAN pruning.
 */
int e810_fw_switch_lookup(E810Core *c, const uint8_t dst_mac[6], uint16_t vlan,
                          uint16_t *vsis, int max);

/* RSS: the 52-byte key of @vsi, and the LUT its context selects. */
const uint8_t *e810_fw_rss_key(E810Core *c, unsigned vsi);
const uint8_t *e810_fw_rss_lut(E810Core *c, unsigned vsi, unsigned *size);

/* Saved state (snap.h): VSIs, rules and lists (the live ones), resource
 * pools, port parameters, RSS tables. */
extern const struct E810SnapPart e810_fw_switch_snap;

#endif
