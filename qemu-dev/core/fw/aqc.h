/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 admin-queue commands: every opcode the firmware model answers, and
 * every descriptor parameter and indirect-buffer field it reads or writes,
 * named once.
 *
 * Names follow the Linux driver's structs (libie's adminq.h for the generic
 * commands, ice_adminq_cmd.h for the rest): AQC_<COMMAND>_<FIELD> is the
 * byte offset of that field in the 16-byte parameter area of the descriptor
 * (bytes 16..31, see aq_param()).  Groups are in ice_adminq_cmd.h's order.
 * Fields after byte 7 of an indirect command are the buffer address.
 * Indirect buffers are laid out by the structs named with each group:
 * AQC_<STRUCT>_<FIELD> offsets from the start of one element, _SIZE its
 * length.
 */
#ifndef E810_FW_AQC_H
#define E810_FW_AQC_H

/* Opcodes (enum libie_adminq_opc, enum ice_adminq_opc) */
enum {
    AQC_OPC_GET_VER = 0x0001,
    AQC_OPC_DRIVER_VER = 0x0002,
    AQC_OPC_Q_SHUTDOWN = 0x0003,
    AQC_OPC_REQ_RES = 0x0008,
    AQC_OPC_RELEASE_RES = 0x0009,
    AQC_OPC_LIST_FUNC_CAPS = 0x000A,
    AQC_OPC_LIST_DEV_CAPS = 0x000B,
    AQC_OPC_MANAGE_MAC_READ = 0x0107,
    AQC_OPC_MANAGE_MAC_WRITE = 0x0108,
    AQC_OPC_CLEAR_PXE_MODE = 0x0110,
    AQC_OPC_GET_SW_CFG = 0x0200,
    AQC_OPC_SET_PORT_PARAMS = 0x0203,
    AQC_OPC_ALLOC_RES = 0x0208,
    AQC_OPC_FREE_RES = 0x0209,
    AQC_OPC_SET_VLAN_MODE_PARAMETERS = 0x020C,
    AQC_OPC_GET_VLAN_MODE_PARAMETERS = 0x020D,
    AQC_OPC_ADD_VSI = 0x0210,
    AQC_OPC_UPDATE_VSI = 0x0211,
    AQC_OPC_FREE_VSI = 0x0213,
    AQC_OPC_ADD_RECIPE = 0x0290,
    AQC_OPC_RECIPE_TO_PROFILE = 0x0291,
    AQC_OPC_GET_RECIPE = 0x0292,
    AQC_OPC_GET_RECIPE_TO_PROFILE = 0x0293,
    AQC_OPC_ADD_SW_RULES = 0x02A0,
    AQC_OPC_UPDATE_SW_RULES = 0x02A1,
    AQC_OPC_REMOVE_SW_RULES = 0x02A2,
    AQC_OPC_CLEAR_PF_CFG = 0x02A4,
    AQC_OPC_GET_DFLT_TOPO = 0x0400,
    AQC_OPC_ADD_SCHED_ELEMS = 0x0401,
    AQC_OPC_CFG_SCHED_ELEMS = 0x0403,
    AQC_OPC_GET_SCHED_ELEMS = 0x0404,
    AQC_OPC_MOVE_SCHED_ELEMS = 0x0408,
    AQC_OPC_QUERY_PORT_ETS = 0x040E,
    AQC_OPC_SUSPEND_SCHED_ELEMS = 0x0409,
    AQC_OPC_RESUME_SCHED_ELEMS = 0x040A,
    AQC_OPC_DELETE_SCHED_ELEMS = 0x040F,
    AQC_OPC_ADD_RL_PROFILES = 0x0410,
    AQC_OPC_QUERY_SCHED_RES = 0x0412,
    AQC_OPC_REMOVE_RL_PROFILES = 0x0415,
    AQC_OPC_SET_TX_TOPO = 0x0417,
    AQC_OPC_GET_TX_TOPO = 0x0418,
    AQC_OPC_GET_PHY_CAPS = 0x0600,
    AQC_OPC_SET_PHY_CFG = 0x0601,
    AQC_OPC_SET_MAC_CFG = 0x0603,
    AQC_OPC_RESTART_AN = 0x0605,
    AQC_OPC_GET_LINK_STATUS = 0x0607,
    AQC_OPC_SET_EVENT_MASK = 0x0613,
    AQC_OPC_SET_MAC_LB = 0x0620,
    AQC_OPC_GET_LINK_TOPO = 0x06E0,
    AQC_OPC_SET_PORT_ID_LED = 0x06E9,
    AQC_OPC_GET_PORT_OPTIONS = 0x06EA,
    AQC_OPC_SFF_EEPROM = 0x06EE,
    AQC_OPC_NVM_READ = 0x0701,
    AQC_OPC_NVM_CHECKSUM = 0x0706,
    AQC_OPC_LLDP_GET_MIB = 0x0A00,
    AQC_OPC_LLDP_MIB_CHANGE = 0x0A01,
    AQC_OPC_GET_CEE_DCB_CFG = 0x0A07,
    AQC_OPC_LLDP_SET_LOCAL_MIB = 0x0A08,
    AQC_OPC_SET_RSS_KEY = 0x0B02,
    AQC_OPC_SET_RSS_LUT = 0x0B03,
    AQC_OPC_GET_RSS_KEY = 0x0B04,
    AQC_OPC_GET_RSS_LUT = 0x0B05,
    AQC_OPC_ADD_TXQS = 0x0C30,
    AQC_OPC_DIS_TXQS = 0x0C31,
    AQC_OPC_CFG_TXQS = 0x0C32,
    AQC_OPC_ADD_RDMA_QSET = 0x0C33,
    AQC_OPC_DOWNLOAD_PKG = 0x0C40,
    AQC_OPC_UPLOAD_SECTION = 0x0C41,
    AQC_OPC_UPDATE_PKG = 0x0C42,
    AQC_OPC_GET_PKG_INFO_LIST = 0x0C43,
    AQC_OPC_FW_LOGS_CONFIG = 0xFF30,
    AQC_OPC_FW_LOGS_REGISTER = 0xFF31,
    AQC_OPC_FW_LOGS_QUERY = 0xFF32,
    AQC_OPC_FW_LOGS_EVENT = 0xFF33,
};

/* ---- libie: generic commands ------------------------------------------ */

/* struct libie_aqc_get_ver (0x0001), all response */
#define AQC_GET_VER_ROM_VER                 0       /* le32 */
#define AQC_GET_VER_FW_BUILD                4       /* le32 */
#define AQC_GET_VER_FW_BRANCH               8
#define AQC_GET_VER_FW_MAJOR                9
#define AQC_GET_VER_FW_MINOR                10
#define AQC_GET_VER_FW_PATCH                11
#define AQC_GET_VER_API_BRANCH              12
#define AQC_GET_VER_API_MAJOR               13
#define AQC_GET_VER_API_MINOR               14
#define AQC_GET_VER_API_PATCH               15

/* struct libie_aqc_driver_ver (0x0002): major, minor, build, subbuild */
#define AQC_DRIVER_VER_MAJOR_VER            0

/* struct libie_aqc_req_res (0x0008, 0x0009) */
#define AQC_REQ_RES_RES_ID                  0       /* le16 */
#define AQC_REQ_RES_ACCESS_TYPE             2       /* le16 */
#define AQC_REQ_RES_TIMEOUT                 4       /* le32, in and out */
#define AQC_REQ_RES_RES_NUMBER              8       /* le32 */
#define AQC_REQ_RES_STATUS                  12      /* le16, out */

/* struct libie_aqc_list_caps (0x000A, 0x000B) */
#define AQC_LIST_CAPS_COUNT                 4       /* le32, out */
/* struct libie_aqc_list_caps_elem, one per capability */
#define AQC_CAPS_ELEM_SIZE                  32
#define AQC_CAPS_ELEM_CAP                   0       /* le16 */
#define AQC_CAPS_ELEM_NUMBER                4       /* le32 */
#define AQC_CAPS_ELEM_LOGICAL_ID            8       /* le32 */
#define AQC_CAPS_ELEM_PHYS_ID               12      /* le32 */

/* ---- ice ---------------------------------------------------------------- */

/* struct ice_aqc_q_shutdown (0x0003) */
#define AQC_Q_SHUTDOWN_DRIVER_UNLOADING     0
#define   AQC_DRIVER_UNLOADING              0x01

/* struct ice_aqc_manage_mac_read (0x0107), also the response */
#define AQC_MANAGE_MAC_READ_FLAGS           0       /* le16, out */
#define   AQC_MAN_MAC_LAN_ADDR_VALID        0x0010
#define AQC_MANAGE_MAC_READ_NUM_ADDR        4       /* out */
/* struct ice_aqc_manage_mac_read_resp */
#define AQC_MAC_READ_RESP_SIZE              8
#define AQC_MAC_READ_RESP_LPORT_NUM         0
#define AQC_MAC_READ_RESP_ADDR_TYPE         1
#define   AQC_MAN_MAC_ADDR_TYPE_LAN         0
#define AQC_MAC_READ_RESP_MAC_ADDR          2       /* 6 bytes */

/* struct ice_aqc_manage_mac_write (0x0108) */
#define AQC_MANAGE_MAC_WRITE_FLAGS          1
#define AQC_MANAGE_MAC_WRITE_MAC_ADDR       2       /* 6 bytes */

/* struct ice_aqc_get_sw_cfg (0x0200) */
#define AQC_GET_SW_CFG_ELEMENT              2       /* le16, out: next */
#define AQC_GET_SW_CFG_NUM_ELEMS            4       /* le16, out */
/* struct ice_aqc_get_sw_cfg_resp_elem */
#define AQC_SW_CFG_ELEM_SIZE                6
#define AQC_SW_CFG_ELEM_VSI_PORT_NUM        0       /* le16 */
#define   AQC_SW_CONF_RESP_TYPE_S           14
#define   AQC_SW_CONF_RESP_PHYS_PORT        0
#define AQC_SW_CFG_ELEM_SWID                2       /* le16 */
#define AQC_SW_CFG_ELEM_PF_VF_NUM           4       /* le16 */

/* struct ice_aqc_set_port_params (0x0203) */
#define AQC_SET_PORT_PARAMS_CMD_FLAGS       0       /* le16 */
#define AQC_SET_PORT_PARAMS_BAD_FRAME_VSI   2       /* le16 */
#define AQC_SET_PORT_PARAMS_LOCAL_FWD_MODE  6

/* struct ice_aqc_alloc_free_res_cmd (0x0208, 0x0209) */
#define AQC_ALLOC_FREE_RES_NUM_ENTRIES      0       /* le16 */
/* struct ice_aqc_alloc_free_res_elem: a header and num_elems le16 IDs */
#define AQC_RES_ELEM_RES_TYPE               0       /* le16 */
#define   AQC_RES_TYPE_M                    0x7F
#define   AQC_RES_TYPE_VSI_LIST_REP         0x03
#define   AQC_RES_TYPE_VSI_LIST_PRUNE       0x04
#define   AQC_RES_TYPE_RECIPE               0x05
#define   AQC_RES_TYPE_SWID                 0x07
#define   AQC_RES_TYPE_FDIR_COUNTER_BLOCK   0x21
#define   AQC_RES_TYPE_FDIR_GUARANTEED      0x22
#define   AQC_RES_TYPE_FDIR_SHARED          0x23
#define   AQC_RES_TYPE_FD_PROF              0x58
#define   AQC_RES_TYPE_FD_TCAM              0x59
#define   AQC_RES_TYPE_HASH_PROF            0x60
#define   AQC_RES_TYPE_HASH_TCAM            0x61
#define AQC_RES_ELEM_NUM_ELEMS              2       /* le16 */
#define AQC_RES_ELEM_ELEM                   4       /* le16 each */

/*
 * struct ice_aqc_add_get_update_free_vsi (0x0210, 0x0211, 0x0213) and its
 * response, struct ice_aqc_add_update_free_vsi_resp, which reuses bytes
 * 2..7 for counts.
 */
#define AQC_VSI_VSI_NUM                     0       /* le16, in and out */
#define   AQC_VSI_NUM_M                     0x3FF
#define   AQC_VSI_IS_VALID                  0x8000
#define AQC_VSI_CMD_FLAGS                   2       /* le16 */
#define   AQC_VSI_KEEP_ALLOC                0x1
#define AQC_VSI_VF_ID                       4
#define AQC_VSI_VSI_FLAGS                   6       /* le16 */
#define AQC_VSI_RESP_EXT_STATUS             2       /* le16, out */
#define AQC_VSI_RESP_VSI_USED               4       /* le16, out */
#define AQC_VSI_RESP_VSI_FREE               6       /* le16, out */

/* struct ice_aqc_sw_rules (0x02A0, 0x02A1, 0x02A2) */
#define AQC_SW_RULES_NUM_RULES              0       /* le16 */
/* struct ice_aqc_sw_rules_elem_hdr, in front of every rule */
#define AQC_SW_RULE_TYPE                    0       /* le16 */
#define   AQC_SW_RULES_T_LKUP_RX            0
#define   AQC_SW_RULES_T_LKUP_TX            1
#define   AQC_SW_RULES_T_LG_ACT             2
#define   AQC_SW_RULES_T_VSI_LIST_SET       3
#define   AQC_SW_RULES_T_VSI_LIST_CLEAR     4
#define   AQC_SW_RULES_T_PRUNE_LIST_SET     5
#define   AQC_SW_RULES_T_PRUNE_LIST_CLEAR   6
#define AQC_SW_RULE_HDR_SIZE                4
/* struct ice_sw_rule_lkup_rx_tx */
#define AQC_LKUP_RECIPE_ID                  4       /* le16 */
#define AQC_LKUP_SRC                        6       /* le16 */
#define AQC_LKUP_ACT                        8       /* le32 */
#define   AQC_ACT_TYPE_M                    0x3
#define   AQC_ACT_VSI_FORWARDING            0
#define   AQC_ACT_PRUNE                     2
#define   AQC_ACT_VSI_ID_S                  4
#define   AQC_ACT_VSI_ID_M                  0x3FF
#define   AQC_ACT_VSI_LIST                  (1u << 14)
#define   AQC_ACT_VALID_BIT                 (1u << 17)
#define   AQC_ACT_DROP                      (1u << 18)
#define AQC_LKUP_INDEX                      12      /* le16, out for Add */
#define AQC_LKUP_HDR_LEN                    14      /* le16 */
#define AQC_LKUP_HDR_DATA                   16      /* hdr_len bytes */
#define AQC_LKUP_SIZE                       16      /* up to hdr_data */
/* struct ice_sw_rule_lg_act: the header and size le32 actions */
#define AQC_LG_ACT_SIZE                     6       /* le16 */
#define AQC_LG_ACT_HDR_SIZE                 8
/* struct ice_sw_rule_vsi_list: the header and number_vsi le16 VSIs */
#define AQC_VSI_LIST_INDEX                  4       /* le16 */
#define AQC_VSI_LIST_NUMBER_VSI             6       /* le16 */
#define AQC_VSI_LIST_VSI                    8
#define AQC_VSI_LIST_HDR_SIZE               8

/* struct ice_aqc_get_topo (0x0400) */
#define AQC_GET_TOPO_PORT_NUM               0
#define AQC_GET_TOPO_NUM_BRANCHES           1       /* out */

/* struct ice_aqc_get_set_tx_topo (0x0417, 0x0418) */
#define AQC_TX_TOPO_SET_FLAGS               0       /* out for Get */

/* struct ice_aqc_sched_elem_cmd (0x0401 .. 0x040F) */
#define AQC_SCHED_ELEM_NUM_ELEM_REQ         0       /* le16 */
#define AQC_SCHED_ELEM_NUM_ELEM_RESP        2       /* le16, out */
/* struct ice_aqc_txsched_move_grp_info_hdr: the header and le32 TEIDs */
#define AQC_MOVE_SRC_PARENT_TEID            0       /* le32 */
#define AQC_MOVE_DEST_PARENT_TEID           4       /* le32 */
#define AQC_MOVE_NUM_ELEMS                  8       /* le16 */
#define AQC_MOVE_HDR_SIZE                   12
/* struct ice_aqc_txsched_elem, with struct ice_aqc_elem_info_bw twice */
#define AQC_ELEM_TYPE                       0
#define AQC_ELEM_VALID_SECTIONS             1
#define   AQC_ELEM_VALID_GENERIC            0x01
#define   AQC_ELEM_VALID_CIR                0x02
#define   AQC_ELEM_VALID_EIR                0x04
#define AQC_ELEM_GENERIC                    2
#define AQC_ELEM_FLAGS                      3
#define   AQC_ELEM_FLAG_SUSPEND             0x01
#define AQC_ELEM_CIR_BW                     4
#define AQC_ELEM_EIR_BW                     8
#define   AQC_BW_PROFILE_IDX                0       /* le16 */
#define   AQC_BW_ALLOC                      2       /* le16 */
#define AQC_ELEM_SRL_ID                     12      /* le16 */
#define AQC_ELEM_SIZE                       16
/* struct ice_aqc_txsched_elem_data */
#define AQC_ELEM_DATA_PARENT_TEID           0       /* le32 */
#define AQC_ELEM_DATA_NODE_TEID             4       /* le32 */
#define AQC_ELEM_DATA_DATA                  8       /* txsched_elem */
#define AQC_ELEM_DATA_SIZE                  24
/*
 * struct ice_aqc_txsched_topo_grp_info_hdr: the header of a group of
 * elements (Add, Get Topology) or TEIDs (Delete)
 */
#define AQC_GRP_PARENT_TEID                 0       /* le32 */
#define AQC_GRP_NUM_ELEMS                   4       /* le16 */
#define AQC_GRP_HDR_SIZE                    8

/* struct ice_aqc_rl_profile (0x0410, 0x0415) */
#define AQC_RL_PROFILE_NUM_PROFILES         0       /* le16 */
#define AQC_RL_PROFILE_NUM_PROCESSED        2       /* le16, out */
/* struct ice_aqc_rl_profile_elem */
#define AQC_RL_ELEM_LEVEL                   0
#define AQC_RL_ELEM_FLAGS                   1
#define   AQC_RL_PROFILE_TYPE_M             0x3
#define   AQC_RL_PROFILE_TYPE_SRL           2
#define AQC_RL_ELEM_PROFILE_ID              2       /* le16 */
#define AQC_RL_ELEM_SIZE                    12

/* struct ice_aqc_query_txsched_res_resp (0x0412): generic properties... */
#define AQC_SCHED_PROPS_PHYS_LEVELS         0       /* le16 */
#define AQC_SCHED_PROPS_LOGICAL_LEVELS      2       /* le16 */
#define AQC_SCHED_PROPS_FLATTENING_BITMAP   4
#define AQC_SCHED_PROPS_MAX_DEVICE_CGDS     5
#define AQC_SCHED_PROPS_MAX_PF_CGDS         6
#define AQC_SCHED_PROPS_RDMA_QSETS          8       /* le16 */
#define AQC_SCHED_PROPS_SIZE                32
/* ...then struct ice_aqc_layer_props per layer */
#define AQC_LAYER_LOGICAL_LAYER             0
#define AQC_LAYER_CHUNK_SIZE                1
#define AQC_LAYER_MAX_DEVICE_NODES          2       /* le16 */
#define AQC_LAYER_MAX_PF_NODES              4       /* le16 */
#define AQC_LAYER_MAX_SIBL_GRP_SZ           10      /* le16 */
#define AQC_LAYER_MAX_CIR_RL_PROFILES       12      /* le16 */
#define AQC_LAYER_MAX_EIR_RL_PROFILES       14      /* le16 */
#define AQC_LAYER_MAX_SRL_PROFILES          16      /* le16 */
#define AQC_LAYER_SIZE                      32

/* struct ice_aqc_get_phy_caps (0x0600) */
#define AQC_GET_PHY_CAPS_LPORT_NUM          0
#define AQC_GET_PHY_CAPS_PARAM0             2       /* le16 */
/* struct ice_aqc_get_phy_caps_data */
#define AQC_PHY_CAPS_PHY_TYPE_LOW           0       /* le64 */
#define AQC_PHY_CAPS_PHY_TYPE_HIGH          8       /* le64 */
#define AQC_PHY_CAPS_CAPS                   16
#define AQC_PHY_CAPS_LOW_POWER_CTRL_AN      17
#define AQC_PHY_CAPS_EEE_CAP                18      /* le16 */
#define AQC_PHY_CAPS_EEER_VALUE             20      /* le16 */
#define AQC_PHY_CAPS_LINK_FEC_OPTIONS       34
#define AQC_PHY_CAPS_MODULE_COMPLIANCE      35      /* ..._enforcement */
#define AQC_PHY_CAPS_EXT_COMPLIANCE_CODE    36
#define AQC_PHY_CAPS_MODULE_TYPE            37      /* 3 bytes */

/* struct ice_aqc_set_phy_cfg (0x0601) */
#define AQC_SET_PHY_CFG_LPORT_NUM           0
/* struct ice_aqc_set_phy_cfg_data */
#define AQC_PHY_CFG_PHY_TYPE_LOW            0       /* le64 */
#define AQC_PHY_CFG_PHY_TYPE_HIGH           8       /* le64 */
#define AQC_PHY_CFG_CAPS                    16
#define AQC_PHY_CFG_LOW_POWER_CTRL_AN       17
#define AQC_PHY_CFG_EEE_CAP                 18      /* le16 */
#define AQC_PHY_CFG_EEER_VALUE              20      /* le16 */
#define AQC_PHY_CFG_LINK_FEC_OPT            22
#define AQC_PHY_CFG_MODULE_COMPLIANCE       23      /* ..._enforcement */
#define AQC_PHY_CFG_SIZE                    24

/* struct ice_aqc_set_mac_cfg (0x0603) */
#define AQC_SET_MAC_CFG_MAX_FRAME_SIZE      0       /* le16 */
#define AQC_SET_MAC_CFG_PARAMS              2
#define AQC_SET_MAC_CFG_TX_TMR_PRIORITY     3
#define AQC_SET_MAC_CFG_TX_TMR_VALUE        4       /* le16 */
#define AQC_SET_MAC_CFG_FC_REFRESH_THRESHOLD 6      /* le16 */
#define AQC_SET_MAC_CFG_DROP_OPTS           8

/* struct ice_aqc_restart_an (0x0605) */
#define AQC_RESTART_AN_LPORT_NUM            0
#define AQC_RESTART_AN_CMD_FLAGS            2

/* struct ice_aqc_get_link_status (0x0607), also the Link Status Event */
#define AQC_GET_LINK_STATUS_LPORT_NUM       0
#define AQC_GET_LINK_STATUS_CMD_FLAGS       2       /* le16, in and out */
/* struct ice_aqc_get_link_status_data, E810's 32 bytes */
#define AQC_LS_LINK_INFO                    2
#define AQC_LS_AN_INFO                      3
#define AQC_LS_MAX_FRAME_SIZE               6       /* le16 */
#define AQC_LS_CFG                          8
#define AQC_LS_LINK_SPEED                   10      /* le16 */
#define AQC_LS_PHY_TYPE_LOW                 16      /* le64 */
#define AQC_LS_PHY_TYPE_HIGH                24      /* le64 */

/* struct ice_aqc_set_event_mask (0x0613) */
#define AQC_SET_EVENT_MASK_LPORT_NUM        0
#define AQC_SET_EVENT_MASK_EVENT_MASK       8       /* le16 */

/* struct ice_aqc_set_mac_lb (0x0620) */
#define AQC_SET_MAC_LB_LB_MODE              0
#define   AQC_MAC_LB_EN                     0x01

/* struct ice_aqc_sff_eeprom (0x06EE) */
#define AQC_SFF_EEPROM_LPORT_NUM            0
#define AQC_SFF_EEPROM_LPORT_NUM_VALID      1
#define   AQC_SFF_PORT_NUM_VALID            0x01
#define AQC_SFF_EEPROM_I2C_BUS_ADDR         2       /* le16 */
#define   AQC_SFF_I2CBUS_7BIT_M             0x7F
#define   AQC_SFF_I2CBUS_TYPE_10BIT         (1u << 10)
#define   AQC_SFF_IS_WRITE                  (1u << 15)
#define AQC_SFF_EEPROM_I2C_MEM_ADDR         4       /* le16 */

/* struct ice_aqc_nvm (0x0701) */
#define AQC_NVM_OFFSET_LOW                  0       /* le16 */
#define AQC_NVM_OFFSET_HIGH                 2
#define AQC_NVM_CMD_FLAGS                   3
#define   AQC_NVM_FLASH_ONLY                0x80
#define AQC_NVM_MODULE_TYPEID               4       /* le16 */
#define AQC_NVM_LENGTH                      6       /* le16 */
#define   AQC_NVM_TX_TOPO_MOD_ID            0x014B  /* PFA TLV: Tx topology */

/* struct ice_aqc_nvm_checksum (0x0706) */
#define AQC_NVM_CHECKSUM_FLAGS              0
#define   AQC_NVM_CHECKSUM_VERIFY           0x01
#define AQC_NVM_CHECKSUM_CHECKSUM           2       /* le16, out */
#define   AQC_NVM_CHECKSUM_CORRECT          0xBABA

/* struct ice_aqc_lldp_get_mib (0x0A00; the 0x0A01 event's layout too) */
#define AQC_LLDP_GET_MIB_TYPE               0
#define   AQC_LLDP_MIB_TYPE_M               0x03
#define   AQC_LLDP_MIB_LOCAL                0
#define   AQC_LLDP_BRID_TYPE_M              0x0C    /* 0: nearest bridge */
#define AQC_LLDP_GET_MIB_LOCAL_LEN          4       /* le16, response */
#define AQC_LLDP_GET_MIB_REMOTE_LEN         6       /* le16, response */

/* struct ice_aqc_query_port_ets (0x040E) and its ice_aqc_port_ets_elem */
#define AQC_PORT_ETS_PORT_TEID              0       /* le32 */
#define AQC_PORT_ETS_TC_VALID_BITS          0
#define AQC_PORT_ETS_UP2TC                  4       /* le32, 3 bits per UP */
#define AQC_PORT_ETS_TC_BW_SHARE            8       /* 8 bytes */
#define AQC_PORT_ETS_TC_NODE_TEID           32      /* le32 per TC */
#define AQC_PORT_ETS_ELEM_SIZE              64

/* struct ice_aqc_lldp_set_local_mib (0x0A08) */
#define AQC_LLDP_SET_LOCAL_MIB_LENGTH       2       /* le16 */

/* struct ice_aqc_get_set_rss_key (0x0B02, 0x0B04) */
#define AQC_RSS_KEY_VSI_ID                  0       /* le16 */
/* struct ice_aqc_get_set_rss_keys: standard key, then extended hash key */
#define AQC_RSS_KEY_STANDARD_SIZE           40

/* struct ice_aqc_get_set_rss_lut (0x0B03, 0x0B05) */
#define AQC_RSS_LUT_VSI_ID                  0       /* le16 */
#define AQC_RSS_LUT_FLAGS                   2       /* le16 */
#define   AQC_RSS_VSI_VALID                 0x8000  /* in vsi_id */
#define   AQC_LUT_TYPE_M                    0x3     /* enum ice_lut_type */
#define   AQC_LUT_TYPE_VSI                  0
#define   AQC_LUT_TYPE_PF                   1
#define   AQC_LUT_TYPE_GLOBAL               2
#define   AQC_LUT_SIZE_512                  (1u << 2)
#define   AQC_LUT_SIZE_2K                   (1u << 3)
#define   AQC_LUT_GLOBAL_IDX_S              4
#define   AQC_LUT_GLOBAL_IDX_M              0xF

/* struct ice_aqc_add_txqs (0x0C30) */
#define AQC_ADD_TXQS_NUM_QGRPS              0
/* struct ice_aqc_add_tx_qgrp: parent_teid, u8 num_txqs, then the queues */
#define AQC_TX_QGRP_PARENT_TEID             0       /* le32 */
#define AQC_TX_QGRP_NUM_TXQS                4
#define AQC_TX_QGRP_HDR_SIZE                8
/* struct ice_aqc_add_txqs_perq */
#define AQC_TXQ_TXQ_ID                      0       /* le16 */
#define AQC_TXQ_Q_TEID                      4       /* le32, out */
#define AQC_TXQ_TXQ_CTX                     8       /* ice_tlan_ctx */
#define AQC_TXQ_CTX_SIZE                    22
#define AQC_TXQ_INFO                        32      /* txsched_elem */
#define AQC_TXQ_SIZE                        48

/* struct ice_aqc_dis_txqs (0x0C31) */
#define AQC_DIS_TXQS_NUM_ENTRIES            1
/* struct ice_aqc_dis_txq_item: the header and num_qs le16 q_ids */
#define AQC_DIS_ITEM_PARENT_TEID            0       /* le32 */
#define AQC_DIS_ITEM_NUM_QS                 4
#define AQC_DIS_ITEM_Q_ID                   6
#define   AQC_Q_DIS_RDMA_QSET               0x8000u /* ..._BUF_ELEM_TYPE_... */

/* struct ice_aqc_add_rdma_qset (0x0C33) */
#define AQC_ADD_RDMA_QSET_NUM_QSET_GRPS     0
/* struct ice_aqc_add_rdma_qset_data: parent_teid, le16 num_qsets, qsets */
#define AQC_QSET_GRP_PARENT_TEID            0       /* le32 */
#define AQC_QSET_GRP_NUM_QSETS              4       /* le16 */
#define AQC_QSET_GRP_HDR_SIZE               8
/* struct ice_aqc_add_tx_rdma_qset_entry */
#define AQC_QSET_TX_QSET_ID                 0       /* le16 */
#define AQC_QSET_QSET_TEID                  4       /* le32, out */
#define AQC_QSET_INFO                       8       /* txsched_elem */
#define AQC_QSET_SIZE                       24

/* struct ice_aqc_download_pkg (0x0C40) */
#define AQC_DOWNLOAD_PKG_FLAGS              0
#define   AQC_DOWNLOAD_PKG_LAST_BUF         0x01

/* struct libie_aqc_fw_log: Set FW Logging (0xFF30), Register (0xFF31),
 * Query (0xFF32); the buffers are struct libie_aqc_fw_log_cfg_resp each */
#define AQC_FW_LOG_FLAGS                    0
#define   AQC_FW_LOG_UART_EN                0x01
#define   AQC_FW_LOG_AQ_EN                  0x02
#define   AQC_FW_LOG_REGISTERED             0x04    /* Query's answer */
#define   AQC_FW_LOG_SET_VALID              0x08
#define   AQC_FW_LOG_AQ_REGISTER            0x01    /* 0xFF31: 0 unregisters */
#define AQC_FW_LOG_RESOLUTION               4       /* le16, 1..128 */
#define AQC_FW_LOG_MDL_CNT                  6       /* le16 */
#define AQC_FW_LOG_MDL_ID                   0       /* le16, per module */
#define AQC_FW_LOG_MDL_LEVEL                2
#define AQC_FW_LOG_MDL_SIZE                 4
#define AQC_FW_LOG_MODULES                  32      /* LIBIE_AQC_FW_LOG_ID_MAX */
#define AQC_FW_LOG_LEVEL_MAX                4       /* LIBIE_FWLOG_LEVEL_VERBOSE */
#define AQC_FW_LOG_RES_MAX                  128

/* Get Package Info List (0x0C43): struct ice_aqc_get_pkg_info_resp... */
#define AQC_PKG_INFO_RESP_COUNT             0       /* le32 */
#define AQC_PKG_INFO_RESP_HDR_SIZE          4
/* ...then struct ice_aqc_get_pkg_info per package */
#define AQC_PKG_INFO_VER                    0       /* 4 bytes */
#define AQC_PKG_INFO_NAME                   4       /* 28 bytes */
#define AQC_PKG_INFO_TRACK_ID               32      /* le32 */
#define AQC_PKG_INFO_IS_IN_NVM              36
#define AQC_PKG_INFO_IS_ACTIVE              37
#define AQC_PKG_INFO_IS_ACTIVE_AT_BOOT      38
#define AQC_PKG_INFO_IS_MODIFIED            39
#define AQC_PKG_INFO_SIZE                   40

#endif
