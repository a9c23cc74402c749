/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 firmware model: transmit scheduler commands (0x04xx) and the Tx
 * queue commands that hang leaves off the tree (0x0C30..0x0C33).
 *
 * The scheduler is bookkeeping only: a table of nodes named by TEID, each
 * with a parent, a layer and the 16-byte element data the driver wrote.
 * Nothing in the data path depends on scheduling; what other blocks need
 * is the Tx queue context (base, length, VSI) that 0x0C30 carries.
 */
#ifndef E810_FW_SCHED_H
#define E810_FW_SCHED_H

#include "../types.h"

#define E810_SCHED_LAYERS           9       /* logical = physical layers */
#define E810_SCHED_QGRP_LAYER       7       /* parents of queue/qset leaves */
#define E810_SCHED_LEAF_LAYER       8
#define E810_SCHED_EP_LAYER         2       /* software entry point */
#define E810_SCHED_MAX_NODES        4096
#define E810_SCHED_INVAL_TEID       0xFFFFFFFFu
#define E810_SCHED_MAX_RL_PROF      64
#define E810_FW_MAX_TXQ             2048    /* Tx queues of the device */

/* Element types (struct ice_aqc_txsched_elem::elem_type) */
#define E810_SCHED_ELEM_ROOT        1
#define E810_SCHED_ELEM_TC          2
#define E810_SCHED_ELEM_GENERIC     3
#define E810_SCHED_ELEM_ENTRY_POINT 4
#define E810_SCHED_ELEM_LEAF        5
#define E810_SCHED_ELEM_PADDED      6

typedef enum E810SchedKind {
    E810_SCHED_FREE = 0,
    E810_SCHED_NODE,            /* root, TC, entry point, generic nodes */
    E810_SCHED_TXQ,             /* LAN Tx queue leaf; ref = queue number */
    E810_SCHED_QSET,            /* RDMA qset leaf; ref = qs_handle */
} E810SchedKind;

typedef struct E810SchedNode {
    uint8_t kind;               /* E810SchedKind */
    uint8_t layer;
    uint8_t mark;               /* scratch for subtree walks */
    uint16_t nchildren;
    uint16_t ref;
    uint32_t parent;            /* TEID; E810_SCHED_INVAL_TEID for the root */
    uint8_t data[16];           /* struct ice_aqc_txsched_elem, as stored */
} E810SchedNode;

/*
 * A LAN Tx queue as 0x0C30 created it (struct ice_tlan_ctx unpacked).
 * The Tx engine owns the ring state; @gen changes every time the queue is
 * (re)created so that engine knows to restart at head 0.
 */
typedef struct E810TxQueueCtx {
    bool enabled;
    uint32_t gen;
    uint32_t teid;              /* scheduler leaf */
    uint64_t base;              /* ring address in bytes */
    uint16_t qlen;              /* ring length in descriptors */
    uint16_t src_vsi;           /* HW VSI number the queue sends for */
    uint8_t port_num;
    uint8_t cgd_num;
    uint8_t pf_num;
    uint16_t vmvf_num;
    uint8_t vmvf_type;
    bool tsyn_ena;
    bool alt_vlan;
    uint8_t cpuid;
    bool wb_mode;               /* 0: descriptor write-back, 1: head write-back */
    uint16_t cmpq_id;
    uint16_t qnum_in_func;
    uint8_t quanta_prof_idx;
    bool tso_ena;
    uint16_t tso_qnum;
    bool legacy_int;
    bool drop_ena;
    uint8_t raw[22];            /* the context as the driver packed it */
} E810TxQueueCtx;

typedef struct E810RlProfile {
    bool in_use;
    uint8_t level;
    uint8_t type;               /* 0 CIR, 1 EIR, 2 SRL */
    uint16_t id;
    uint8_t elem[12];           /* struct ice_aqc_rl_profile_elem */
} E810RlProfile;

#define E810_SCHED_DIRTY_CHUNK      64

typedef struct E810FwSched {
    E810SchedNode node[E810_SCHED_MAX_NODES];   /* TEID = index + 1 */
    uint32_t nnodes;
    uint32_t next;              /* allocation hint, so TEIDs are not reused at once */
    uint32_t root_teid;
    uint32_t tc_teid;
    uint32_t ep_teid;
    E810TxQueueCtx txq[E810_FW_MAX_TXQ];
    E810RlProfile rl[E810_SCHED_MAX_RL_PROF];
    /* Chunks of E810_SCHED_DIRTY_CHUNK nodes and Tx queue contexts
     * written since they were last zeroed: a reset zeroes those only. */
    uint64_t node_dirty[E810_SCHED_MAX_NODES / E810_SCHED_DIRTY_CHUNK / 64];
    uint64_t txq_dirty[(E810_FW_MAX_TXQ / E810_SCHED_DIRTY_CHUNK + 63) / 64];
} E810FwSched;

void e810_fw_sched_reset(E810Core *c, E810ResetType type);
/* Back to the default tree, all Tx queues gone (Clear PF Config, resets). */
void e810_fw_sched_clear(E810Core *c);

/* For the LAN Tx engine: queue @q (PF space) or NULL if out of range. */
const E810TxQueueCtx *e810_fw_txq(E810Core *c, unsigned q);
/* For the RDMA engine: the TEID of the qset with @qs_handle. */
bool e810_fw_rdma_qset_teid(E810Core *c, uint16_t qs_handle, uint32_t *teid);
/* A scheduler node by TEID, or NULL (tests, debugging). */
const E810SchedNode *e810_fw_sched_node(E810Core *c, uint32_t teid);

/* Saved state (snap.h): the tree (live nodes), the Tx queue contexts and
 * the RL profiles.  Load checks the tree's shape and recounts. */
extern const struct E810SnapPart e810_fw_sched_snap;

#endif
