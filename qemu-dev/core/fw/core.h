/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 firmware model: core commands (version, driver version, queue
 * shutdown, resource ownership, capabilities, manage MAC, PXE, FW log).
 */
#ifndef E810_FW_CORE_H
#define E810_FW_CORE_H

#include "../types.h"

/* What Get Version (0x0001) reports.  API 1.5 is what ice expects of E810. */
#define E810_FW_MAJOR               4
#define E810_FW_MINOR               40
#define E810_FW_PATCH               0
#define E810_FW_BUILD               0x0000e810u
#define E810_FW_API_MAJOR           1
#define E810_FW_API_MINOR           5
#define E810_FW_API_PATCH           0

/* Shared resources of Request/Release Resource (0x0008 / 0x0009). */
enum {
    E810_RES_NVM = 1,
    E810_RES_SDP = 2,
    E810_RES_CHANGE_LOCK = 3,
    E810_RES_GLOBAL_CFG_LOCK = 4,
    E810_RES_COUNT,
};
#define E810_RES_ACCESS_READ        1
#define E810_RES_ACCESS_WRITE       2
/* Status field of the global config lock answer. */
#define E810_RES_GLBL_SUCCESS       0
#define E810_RES_GLBL_IN_PROG       1
#define E810_RES_GLBL_DONE          2

/* Capability IDs we advertise (list caps elements, 0x000A / 0x000B). */
#define E810_CAP_VALID_FUNCTIONS    0x0005
#define E810_CAP_VSI                0x0017
#define E810_CAP_RSS                0x0040
#define E810_CAP_RXQS               0x0041
#define E810_CAP_TXQS               0x0042
#define E810_CAP_MSIX               0x0043
#define E810_CAP_FD                 0x0045
#define E810_CAP_MAX_MTU            0x0047
#define E810_CAP_RDMA               0x0051
#define E810_CAP_TX_SCHED_TOPO      0x0085  /* Tx topology compatibility mode */
#define E810_CAP_DCB                0x0018  /* number 1; logical: TC bitmap;
                                             * physical: max TCs */

/* Resource sizes behind the capabilities. */
#define E810_FW_NUM_VSI             768
#define E810_FW_NUM_QUEUES          64
#define E810_FW_RSS_LUT_SIZE        2048
#define E810_FW_RSS_ENTRY_WIDTH     6
#define E810_FW_MAX_MTU             9728

typedef struct E810FwRes {
    bool held;
    uint16_t access;
    uint64_t expires_ns;        /* virtual clock: the hold ends then */
} E810FwRes;

typedef struct E810FwCore {
    E810FwRes res[E810_RES_COUNT];  /* indexed by resource id */
    uint8_t driver_ver[4];          /* last Driver Version: major..subbuild */
    bool driver_unloading;          /* last Queue Shutdown said so */
    uint64_t res_grants;            /* granted Request Resource commands */
    uint64_t res_busy;              /* refused: another function holds it */
    uint64_t res_expired;           /* holds of this function that timed out */
    /* FW logging (0xFF30..0xFF32): the firmware's, kept across every
     * reset but power-on; nothing is ever logged (no event is sent). */
    uint8_t log_flags;              /* AQC_FW_LOG_UART_EN, _AQ_EN, _REGISTERED */
    uint16_t log_resolution;
    uint8_t log_level[32];          /* per module (AQC_FW_LOG_MODULES) */
} E810FwCore;

void e810_fw_core_reset(E810Core *c, E810ResetType type);
/* Whether the function currently owns resource @res_id. */
bool e810_fw_res_held(E810Core *c, unsigned res_id);

/* Saved state (snap.h). */
extern const struct E810SnapPart e810_fw_core_snap;

#endif
