/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 firmware model: transmit scheduler and Tx queue commands.
 *
 * Command layouts are in aqc.h; layer numbers follow the ice driver's
 * ice_sched.c.  The tree the driver builds is:
 * root (layer 0) -> TC (1) -> entry point and generic nodes (2..7, VSI at
 * 5, queue groups at 7) -> leaves (8: LAN Tx queues, RDMA qsets).
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../snap.h"
#include "../bytes.h"
#include "../../trace.h"

/* struct ice_aqc_get_topo_elem: one block per branch */
#define TOPO_BRANCH_SIZE \
    (AQC_GRP_HDR_SIZE + E810_SCHED_LAYERS * AQC_ELEM_DATA_SIZE)
/* struct ice_aqc_query_txsched_res_resp */
#define RES_SIZE \
    (AQC_SCHED_PROPS_SIZE + E810_SCHED_LAYERS * AQC_LAYER_SIZE)
#define TXQ_MAX_GRPS        127     /* ICE_LAN_TXQ_MAX_QGRPS */

/* Most elements one command can name: sizes the rollback lists. */
#define SCHED_MAX_PER_CMD   (E810_AQ_BUF_MAX / 4)

/*
 * Children a node of layer L may have = sibling-group size of layer L + 1,
 * as 0x0412 reports it: 8 TCs, 16 per generic node, 8 leaves per queue
 * group (the driver sizes queue groups from this).
 */
static const uint16_t sched_sibl_grp[E810_SCHED_LAYERS] = {
    1, 8, 16, 16, 16, 16, 16, 16, 8
};

/* Node @i starts a chunk never written since zeroed: all free. */
static bool sched_chunk_free(const E810FwSched *s, uint32_t i)
{
    return i % E810_SCHED_DIRTY_CHUNK == 0 &&
           !e810_dirty_test(s->node_dirty, E810_SCHED_DIRTY_CHUNK, i);
}

static void sched_dirty(uint64_t *map, uint32_t idx)
{
    uint32_t ch = idx / E810_SCHED_DIRTY_CHUNK;

    map[ch / 64] |= 1ull << (ch % 64);
}

/*
 * The nodes and, if @txq_all, the Tx queue contexts back to zero; if not,
 * only the queues' enabled and teid.  Only chunks written since they
 * were last zeroed are touched (the rest are zero).
 */
static void sched_zero_tables(E810FwSched *s, bool txq_all)
{
    E810_DIRTY_ZERO(s->node, s->node_dirty, E810_SCHED_DIRTY_CHUNK);
    if (txq_all) {
        E810_DIRTY_ZERO(s->txq, s->txq_dirty, E810_SCHED_DIRTY_CHUNK);
        return;
    }
    for (unsigned w = 0; w < sizeof(s->txq_dirty) / 8; w++) {
        for (uint64_t m = s->txq_dirty[w]; m; m &= m - 1) {
            unsigned first = (w * 64 + (unsigned)__builtin_ctzll(m)) *
                             E810_SCHED_DIRTY_CHUNK;

            for (unsigned q = first;
                 q < first + E810_SCHED_DIRTY_CHUNK && q < E810_FW_MAX_TXQ;
                 q++) {
                s->txq[q].enabled = false;
                s->txq[q].teid = 0;
            }
        }
    }
}

/* All of @s zero, as memset would leave it. */
static void sched_zero(E810FwSched *s)
{
    sched_zero_tables(s, true);
    memset(s->rl, 0, sizeof(s->rl));
    s->nnodes = 0;
    s->next = 0;
    s->root_teid = 0;
    s->tc_teid = 0;
    s->ep_teid = 0;
}

static E810SchedNode *sched_node(E810FwSched *s, uint32_t teid)
{
    E810SchedNode *n;

    if (teid == 0 || teid > E810_SCHED_MAX_NODES) {
        return NULL;
    }
    n = &s->node[teid - 1];
    return n->kind == E810_SCHED_FREE ? NULL : n;
}

const E810SchedNode *e810_fw_sched_node(E810Core *c, uint32_t teid)
{
    return sched_node(&c->fw.sched, teid);
}

static bool sched_is_leaf(const E810SchedNode *n)
{
    return n->kind == E810_SCHED_TXQ || n->kind == E810_SCHED_QSET ||
           n->data[AQC_ELEM_TYPE] == E810_SCHED_ELEM_LEAF;
}

static uint32_t sched_free_count(E810FwSched *s)
{
    return E810_SCHED_MAX_NODES - s->nnodes;
}

/* Caller checked the parent, its capacity and sched_free_count(). */
static uint32_t sched_alloc(E810FwSched *s, uint32_t parent, uint8_t layer,
                            uint8_t kind, uint16_t ref, const uint8_t data[16])
{
    E810SchedNode *p = sched_node(s, parent);

    for (uint32_t i = 0; i < E810_SCHED_MAX_NODES; i++) {
        uint32_t slot = (s->next + i) % E810_SCHED_MAX_NODES;
        E810SchedNode *n = &s->node[slot];

        if (n->kind != E810_SCHED_FREE) {
            continue;
        }
        sched_dirty(s->node_dirty, slot);
        memset(n, 0, sizeof(*n));
        n->kind = kind;
        n->layer = layer;
        n->ref = ref;
        n->parent = parent;
        if (data) {
            memcpy(n->data, data, sizeof(n->data));
        }
        if (p) {
            p->nchildren++;
        }
        s->nnodes++;
        s->next = (slot + 1) % E810_SCHED_MAX_NODES;
        trace_e810_fw_sched_node("add", slot + 1, parent, layer);
        return slot + 1;
    }
    return 0;
}

static void sched_release(E810Core *c, uint32_t teid)
{
    E810FwSched *s = &c->fw.sched;
    E810SchedNode *n = &s->node[teid - 1];

    if (n->kind == E810_SCHED_TXQ && n->ref < E810_FW_MAX_TXQ &&
        s->txq[n->ref].teid == teid) {
        s->txq[n->ref].enabled = false;
        s->txq[n->ref].teid = 0;
        trace_e810_fw_txq("disable", n->ref, teid, s->txq[n->ref].base,
                          s->txq[n->ref].qlen);
    }
    trace_e810_fw_sched_node("del", teid, n->parent, n->layer);
    memset(n, 0, sizeof(*n));
    s->nnodes--;
}

/*
 * Delete @teid and everything below it.  Layers grow strictly downwards,
 * so one marking pass per layer finds the whole subtree in O(layers * N).
 */
static void sched_delete_subtree(E810Core *c, uint32_t teid)
{
    E810FwSched *s = &c->fw.sched;
    E810SchedNode *top = sched_node(s, teid);
    E810SchedNode *p;
    bool any = false;

    if (!top) {
        return;
    }
    p = sched_node(s, top->parent);
    if (p && p->nchildren) {
        p->nchildren--;
    }
    if (!top->nchildren) {
        sched_release(c, teid);
        return;
    }
    for (uint32_t i = 0; i < E810_SCHED_MAX_NODES; i++) {
        if (s->node[i].mark) {      /* free nodes stay untouched (zero) */
            s->node[i].mark = 0;
        }
    }
    top->mark = 1;
    for (unsigned layer = top->layer + 1; layer < E810_SCHED_LAYERS; layer++) {
        for (uint32_t i = 0; i < E810_SCHED_MAX_NODES; i++) {
            E810SchedNode *n = &s->node[i];
            E810SchedNode *up;

            if (n->kind == E810_SCHED_FREE || n->layer != layer) {
                continue;
            }
            up = sched_node(s, n->parent);
            if (up && up->mark) {
                n->mark = 1;
                any = true;
            }
        }
    }
    if (any) {
        for (uint32_t i = 0; i < E810_SCHED_MAX_NODES; i++) {
            if (s->node[i].kind != E810_SCHED_FREE && s->node[i].mark &&
                i + 1 != teid) {
                sched_release(c, i + 1);
            }
        }
    }
    sched_release(c, teid);
}

static void sched_default_data(uint8_t *d, uint8_t type)
{
    memset(d, 0, AQC_ELEM_SIZE);
    d[AQC_ELEM_TYPE] = type;
    d[AQC_ELEM_VALID_SECTIONS] =
        AQC_ELEM_VALID_GENERIC | AQC_ELEM_VALID_CIR | AQC_ELEM_VALID_EIR;
    /* CIR and EIR weights: the driver's default */
    st16(d + AQC_ELEM_CIR_BW + AQC_BW_ALLOC, 4);
    st16(d + AQC_ELEM_EIR_BW + AQC_BW_ALLOC, 4);
}

void e810_fw_sched_clear(E810Core *c)
{
    E810FwSched *s = &c->fw.sched;
    uint8_t d[16];

    /* Nodes zeroed, queues disabled (their contexts kept). */
    sched_zero_tables(s, false);
    s->nnodes = 0;
    s->next = 0;
    memset(s->rl, 0, sizeof(s->rl));

    /* The firmware's default branch: root -> TC 0 -> software entry point. */
    sched_default_data(d, E810_SCHED_ELEM_ROOT);
    s->root_teid = sched_alloc(s, E810_SCHED_INVAL_TEID, 0, E810_SCHED_NODE, 0, d);
    sched_default_data(d, E810_SCHED_ELEM_TC);
    s->tc_teid = sched_alloc(s, s->root_teid, 1, E810_SCHED_NODE, 0, d);
    sched_default_data(d, E810_SCHED_ELEM_ENTRY_POINT);
    s->ep_teid = sched_alloc(s, s->tc_teid, E810_SCHED_EP_LAYER,
                             E810_SCHED_NODE, 0, d);
}

void e810_fw_sched_reset(E810Core *c, E810ResetType type)
{
    E810FwSched *s = &c->fw.sched;

    if (type == E810_RESET_POWER_ON) {
        sched_zero(s);
    }
    e810_fw_sched_clear(c);
}

const E810TxQueueCtx *e810_fw_txq(E810Core *c, unsigned q)
{
    return q < E810_FW_MAX_TXQ ? &c->fw.sched.txq[q] : NULL;
}

bool e810_fw_rdma_qset_teid(E810Core *c, uint16_t qs_handle, uint32_t *teid)
{
    E810FwSched *s = &c->fw.sched;

    for (uint32_t i = 0; i < E810_SCHED_MAX_NODES; i++) {
        if (s->node[i].kind == E810_SCHED_QSET && s->node[i].ref == qs_handle) {
            *teid = i + 1;
            return true;
        }
    }
    return false;
}

/* Fill one struct ice_aqc_txsched_elem_data from the database. */
static void sched_put_elem(E810FwSched *s, uint8_t *e, uint32_t teid)
{
    E810SchedNode *n = &s->node[teid - 1];

    st32(e + AQC_ELEM_DATA_PARENT_TEID, n->parent);
    st32(e + AQC_ELEM_DATA_NODE_TEID, teid);
    memcpy(e + AQC_ELEM_DATA_DATA, n->data, AQC_ELEM_SIZE);
}

/* 0x0400 Get Default Topology */
int e810_sched_get_dflt_topo(E810Core *c, E810AqCmd *cmd)
{
    E810FwSched *s = &c->fw.sched;
    uint32_t chain[3];
    unsigned n = 0;

    if (!cmd->has_buf) {
        e810_guest_error(c, "get default topology without a buffer");
        return E810_AQ_RC_EINVAL;
    }
    if (*aq_param(cmd, AQC_GET_TOPO_PORT_NUM) != c->pf_id) {
        e810_guest_error(c, "get default topology: port %u",
                         *aq_param(cmd, AQC_GET_TOPO_PORT_NUM));
        return E810_AQ_RC_EINVAL;
    }
    if (cmd->buf_len < TOPO_BRANCH_SIZE) {
        cmd->resp_len = TOPO_BRANCH_SIZE;
        return E810_AQ_RC_ENOMEM;
    }
    chain[n++] = s->root_teid;
    chain[n++] = s->tc_teid;
    /* The entry point is gone once the driver deleted it; report what is left. */
    if (sched_node(s, s->ep_teid) && s->node[s->ep_teid - 1].parent == s->tc_teid) {
        chain[n++] = s->ep_teid;
    }
    memset(cmd->buf, 0, TOPO_BRANCH_SIZE);
    st32(cmd->buf + AQC_GRP_PARENT_TEID, E810_SCHED_INVAL_TEID);
    st16(cmd->buf + AQC_GRP_NUM_ELEMS, n);
    for (unsigned i = 0; i < n; i++) {
        sched_put_elem(s, cmd->buf + AQC_GRP_HDR_SIZE +
                       i * AQC_ELEM_DATA_SIZE, chain[i]);
    }
    *aq_param(cmd, AQC_GET_TOPO_NUM_BRANCHES) = 1;
    cmd->resp_len = TOPO_BRANCH_SIZE;
    return E810_AQ_RC_OK;
}

/* Check that @parent can take @count more generic children. */
static int sched_check_parent(E810Core *c, uint32_t parent, unsigned count,
                              unsigned child_layer_min, unsigned child_layer_max,
                              E810SchedNode **out)
{
    E810FwSched *s = &c->fw.sched;
    E810SchedNode *p = sched_node(s, parent);
    unsigned layer;

    if (!p || sched_is_leaf(p)) {
        e810_guest_error(c, "scheduler: parent TEID 0x%x unknown or a leaf", parent);
        return E810_AQ_RC_EINVAL;
    }
    layer = p->layer + 1;
    if (layer < child_layer_min || layer > child_layer_max) {
        e810_guest_error(c, "scheduler: no children of layer %u allowed here", layer);
        return E810_AQ_RC_EINVAL;
    }
    if (p->nchildren + count > sched_sibl_grp[layer]) {
        e810_guest_error(c, "scheduler: TEID 0x%x would have %u children (max %u)",
                         parent, p->nchildren + count, sched_sibl_grp[layer]);
        return E810_AQ_RC_ENOSPC;
    }
    if (count > sched_free_count(s)) {
        e810_guest_error(c, "scheduler: node table full");
        return E810_AQ_RC_ENOSPC;
    }
    *out = p;
    return E810_AQ_RC_OK;
}

static void sched_rollback(E810Core *c, const uint32_t *teids, unsigned n)
{
    while (n--) {
        sched_delete_subtree(c, teids[n]);
    }
}

/*
 * The group at @off of an add command: a header of @hdr bytes (parent TEID,
 * then the entry count, 8 or 16 bits wide) and that many entries of @entry
 * bytes.  False when the group is empty or overruns the buffer.  Tx queue
 * and qset groups keep parent and count where element groups do.
 */
_Static_assert(AQC_TX_QGRP_PARENT_TEID == AQC_GRP_PARENT_TEID &&
               AQC_QSET_GRP_PARENT_TEID == AQC_GRP_PARENT_TEID &&
               AQC_TX_QGRP_NUM_TXQS == AQC_GRP_NUM_ELEMS &&
               AQC_QSET_GRP_NUM_QSETS == AQC_GRP_NUM_ELEMS,
               "add groups share their header's places");
static bool sched_group(const E810AqCmd *cmd, size_t off, size_t hdr,
                        size_t entry, bool count16, uint32_t *parent,
                        uint16_t *n)
{
    if (off + hdr > cmd->buf_len) {
        return false;
    }
    *parent = ld32(cmd->buf + off + AQC_GRP_PARENT_TEID);
    *n = count16 ? ld16(cmd->buf + off + AQC_GRP_NUM_ELEMS)
                 : cmd->buf[off + AQC_GRP_NUM_ELEMS];
    return *n != 0 && off + hdr + (size_t)*n * entry <= cmd->buf_len;
}

/* 0x0401 Add Scheduler Elements */
int e810_sched_add_elems(E810Core *c, E810AqCmd *cmd)
{
    E810FwSched *s = &c->fw.sched;
    uint16_t groups = ld16(aq_param(cmd, AQC_SCHED_ELEM_NUM_ELEM_REQ));
    uint32_t added[SCHED_MAX_PER_CMD];
    unsigned nadded = 0;
    size_t off = 0;
    int rc;

    if (!cmd->has_buf || groups == 0) {
        e810_guest_error(c, "add sched elems: %u groups, buffer %u", groups,
                         cmd->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    for (unsigned g = 0; g < groups; g++) {
        E810SchedNode *p;
        uint32_t parent;
        uint16_t n;

        if (!sched_group(cmd, off, AQC_GRP_HDR_SIZE, AQC_ELEM_DATA_SIZE, true,
                         &parent, &n)) {
            goto bad_len;
        }
        rc = sched_check_parent(c, parent, n, E810_SCHED_EP_LAYER,
                                E810_SCHED_QGRP_LAYER, &p);
        if (rc) {
            goto fail;
        }
        for (unsigned i = 0; i < n; i++) {
            uint8_t *e = cmd->buf + off + AQC_GRP_HDR_SIZE +
                         i * AQC_ELEM_DATA_SIZE;
            uint8_t type = e[AQC_ELEM_DATA_DATA + AQC_ELEM_TYPE];

            if (type != E810_SCHED_ELEM_GENERIC && type != E810_SCHED_ELEM_PADDED) {
                e810_guest_error(c, "add sched elems: element type %u", type);
                rc = E810_AQ_RC_EINVAL;
                goto fail;
            }
        }
        for (unsigned i = 0; i < n; i++) {
            uint8_t *e = cmd->buf + off + AQC_GRP_HDR_SIZE +
                         i * AQC_ELEM_DATA_SIZE;
            uint32_t teid = sched_alloc(s, parent, p->layer + 1, E810_SCHED_NODE,
                                        0, e + AQC_ELEM_DATA_DATA);

            added[nadded++] = teid;
            st32(e + AQC_ELEM_DATA_PARENT_TEID, parent);
            st32(e + AQC_ELEM_DATA_NODE_TEID, teid);
        }
        off += AQC_GRP_HDR_SIZE + (size_t)n * AQC_ELEM_DATA_SIZE;
    }
    st16(aq_param(cmd, AQC_SCHED_ELEM_NUM_ELEM_RESP), groups);
    cmd->resp_len = off;
    return E810_AQ_RC_OK;

bad_len:
    e810_guest_error(c, "add sched elems: groups overrun the %u-byte buffer",
                     cmd->buf_len);
    rc = E810_AQ_RC_EINVAL;
fail:
    sched_rollback(c, added, nadded);
    return rc;
}

/* Elements named by TEID in an array of struct ice_aqc_txsched_elem_data. */
static int sched_check_elems(E810Core *c, E810AqCmd *cmd, uint16_t n,
                             const char *what)
{
    if (!cmd->has_buf || n == 0 ||
        (size_t)n * AQC_ELEM_DATA_SIZE > cmd->buf_len) {
        e810_guest_error(c, "%s: %u elements in a %u-byte buffer", what, n,
                         cmd->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    for (unsigned i = 0; i < n; i++) {
        uint32_t teid = ld32(cmd->buf + i * AQC_ELEM_DATA_SIZE +
                             AQC_ELEM_DATA_NODE_TEID);

        if (!sched_node(&c->fw.sched, teid)) {
            e810_guest_error(c, "%s: unknown TEID 0x%x", what, teid);
            return E810_AQ_RC_EINVAL;
        }
    }
    return E810_AQ_RC_OK;
}

/* 0x0403 Configure Scheduler Elements: new bandwidth data, same place. */
int e810_sched_cfg_elems(E810Core *c, E810AqCmd *cmd)
{
    E810FwSched *s = &c->fw.sched;
    uint16_t n = ld16(aq_param(cmd, AQC_SCHED_ELEM_NUM_ELEM_REQ));
    int rc = sched_check_elems(c, cmd, n, "configure sched elems");

    if (rc) {
        return rc;
    }
    for (unsigned i = 0; i < n; i++) {
        const uint8_t *e = cmd->buf + i * AQC_ELEM_DATA_SIZE;
        E810SchedNode *node = sched_node(s, ld32(e + AQC_ELEM_DATA_NODE_TEID));

        /* Type and flags are reserved in this command. */
        memcpy(node->data + AQC_ELEM_VALID_SECTIONS,
               e + AQC_ELEM_DATA_DATA + AQC_ELEM_VALID_SECTIONS, 2);
        memcpy(node->data + AQC_ELEM_CIR_BW,
               e + AQC_ELEM_DATA_DATA + AQC_ELEM_CIR_BW,
               AQC_ELEM_SIZE - AQC_ELEM_CIR_BW);
    }
    st16(aq_param(cmd, AQC_SCHED_ELEM_NUM_ELEM_RESP), n);
    return E810_AQ_RC_OK;
}

/* 0x0404 Query Scheduler Elements */
int e810_sched_query_elems(E810Core *c, E810AqCmd *cmd)
{
    uint16_t n = ld16(aq_param(cmd, AQC_SCHED_ELEM_NUM_ELEM_REQ));
    int rc = sched_check_elems(c, cmd, n, "query sched elems");

    if (rc) {
        return rc;
    }
    for (unsigned i = 0; i < n; i++) {
        uint8_t *e = cmd->buf + i * AQC_ELEM_DATA_SIZE;

        sched_put_elem(&c->fw.sched, e, ld32(e + AQC_ELEM_DATA_NODE_TEID));
    }
    st16(aq_param(cmd, AQC_SCHED_ELEM_NUM_ELEM_RESP), n);
    cmd->resp_len = n * AQC_ELEM_DATA_SIZE;
    return E810_AQ_RC_OK;
}

/* 0x0408 Move Scheduler Elements: re-parent within the same layer. */
int e810_sched_move_elems(E810Core *c, E810AqCmd *cmd)
{
    E810FwSched *s = &c->fw.sched;
    uint16_t groups = ld16(aq_param(cmd, AQC_SCHED_ELEM_NUM_ELEM_REQ));
    uint16_t moved = 0;
    size_t off = 0;
    int rc = E810_AQ_RC_OK;

    if (!cmd->has_buf || groups == 0) {
        e810_guest_error(c, "move sched elems: %u groups", groups);
        return E810_AQ_RC_EINVAL;
    }
    for (unsigned g = 0; g < groups; g++) {
        uint32_t src, dst;
        uint16_t n;
        E810SchedNode *d, *sp;

        if (off + AQC_MOVE_HDR_SIZE > cmd->buf_len) {
            rc = E810_AQ_RC_EINVAL;
            break;
        }
        src = ld32(cmd->buf + off + AQC_MOVE_SRC_PARENT_TEID);
        dst = ld32(cmd->buf + off + AQC_MOVE_DEST_PARENT_TEID);
        n = ld16(cmd->buf + off + AQC_MOVE_NUM_ELEMS);
        if (n == 0 || off + AQC_MOVE_HDR_SIZE + (size_t)n * 4 > cmd->buf_len) {
            e810_guest_error(c, "move sched elems: %u TEIDs overrun the buffer", n);
            rc = E810_AQ_RC_EINVAL;
            break;
        }
        d = sched_node(s, dst);
        if (!d || sched_is_leaf(d) || d->layer + 1 >= E810_SCHED_LAYERS) {
            e810_guest_error(c, "move sched elems: bad destination 0x%x", dst);
            rc = E810_AQ_RC_EINVAL;
            break;
        }
        if (d->nchildren + n > sched_sibl_grp[d->layer + 1]) {
            e810_guest_error(c, "move sched elems: destination 0x%x full", dst);
            rc = E810_AQ_RC_ENOSPC;
            break;
        }
        for (unsigned i = 0; i < n && !rc; i++) {
            uint32_t teid = ld32(cmd->buf + off + AQC_MOVE_HDR_SIZE + i * 4);
            E810SchedNode *node = sched_node(s, teid);

            /* Same layer only: this also rules out moving under a descendant. */
            if (!node || node->parent != src || node->layer != d->layer + 1 ||
                node->layer < E810_SCHED_EP_LAYER) {
                e810_guest_error(c, "move sched elems: TEID 0x%x cannot move "
                                 "from 0x%x to 0x%x", teid, src, dst);
                rc = E810_AQ_RC_EINVAL;
            }
        }
        if (rc) {
            break;
        }
        sp = sched_node(s, src);
        for (unsigned i = 0; i < n; i++) {
            uint32_t teid = ld32(cmd->buf + off + AQC_MOVE_HDR_SIZE + i * 4);
            E810SchedNode *node = sched_node(s, teid);

            /* A TEID named twice has already moved. */
            if (node->parent == dst) {
                continue;
            }
            if (sp && sp->nchildren) {
                sp->nchildren--;
            }
            node->parent = dst;
            d->nchildren++;
            trace_e810_fw_sched_node("move", teid, dst, node->layer);
        }
        moved++;
        off += AQC_MOVE_HDR_SIZE + (size_t)n * 4;
    }
    st16(aq_param(cmd, AQC_SCHED_ELEM_NUM_ELEM_RESP), moved);
    return rc;
}

/* 0x0409 / 0x040A Suspend / Resume: a flag in the element data. */
int e810_sched_suspend(E810Core *c, E810AqCmd *cmd)
{
    E810FwSched *s = &c->fw.sched;
    bool suspend = cmd->opcode == AQC_OPC_SUSPEND_SCHED_ELEMS;
    uint16_t n = ld16(aq_param(cmd, AQC_SCHED_ELEM_NUM_ELEM_REQ));

    if (!cmd->has_buf || n == 0 || (size_t)n * 4 > cmd->buf_len) {
        e810_guest_error(c, "suspend/resume: %u TEIDs in %u bytes", n, cmd->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    for (unsigned i = 0; i < n; i++) {
        uint32_t teid = ld32(cmd->buf + i * 4);

        if (!sched_node(s, teid)) {
            e810_guest_error(c, "suspend/resume: unknown TEID 0x%x", teid);
            return E810_AQ_RC_EINVAL;
        }
    }
    for (unsigned i = 0; i < n; i++) {
        E810SchedNode *node = sched_node(s, ld32(cmd->buf + i * 4));

        if (suspend) {
            node->data[AQC_ELEM_FLAGS] |= AQC_ELEM_FLAG_SUSPEND;
        } else {
            node->data[AQC_ELEM_FLAGS] &= ~AQC_ELEM_FLAG_SUSPEND;
        }
    }
    st16(aq_param(cmd, AQC_SCHED_ELEM_NUM_ELEM_RESP), n);
    return E810_AQ_RC_OK;
}

/* 0x040F Delete Scheduler Elements (with whatever hangs below them) */
int e810_sched_delete(E810Core *c, E810AqCmd *cmd)
{
    E810FwSched *s = &c->fw.sched;
    uint16_t groups = ld16(aq_param(cmd, AQC_SCHED_ELEM_NUM_ELEM_REQ));
    size_t off = 0;

    if (!cmd->has_buf || groups == 0) {
        e810_guest_error(c, "delete sched elems: %u groups", groups);
        return E810_AQ_RC_EINVAL;
    }
    /* Validate everything first: the command either happens or not. */
    for (unsigned g = 0; g < groups; g++) {
        uint32_t parent;
        uint16_t n;

        if (off + AQC_GRP_HDR_SIZE > cmd->buf_len) {
            goto bad_len;
        }
        parent = ld32(cmd->buf + off + AQC_GRP_PARENT_TEID);
        n = ld16(cmd->buf + off + AQC_GRP_NUM_ELEMS);
        if (n == 0 || off + AQC_GRP_HDR_SIZE + (size_t)n * 4 > cmd->buf_len) {
            goto bad_len;
        }
        for (unsigned i = 0; i < n; i++) {
            uint32_t teid = ld32(cmd->buf + off + AQC_GRP_HDR_SIZE + i * 4);
            E810SchedNode *node = sched_node(s, teid);

            if (!node || node->parent != parent) {
                e810_guest_error(c, "delete sched elems: TEID 0x%x is not a "
                                 "child of 0x%x", teid, parent);
                return E810_AQ_RC_EINVAL;
            }
            if (node->layer < E810_SCHED_EP_LAYER) {
                e810_guest_error(c, "delete sched elems: root/TC 0x%x", teid);
                return E810_AQ_RC_EPERM;
            }
        }
        off += AQC_GRP_HDR_SIZE + (size_t)n * 4;
    }
    off = 0;
    for (unsigned g = 0; g < groups; g++) {
        uint16_t n = ld16(cmd->buf + off + AQC_GRP_NUM_ELEMS);

        for (unsigned i = 0; i < n; i++) {
            sched_delete_subtree(c, ld32(cmd->buf + off + AQC_GRP_HDR_SIZE +
                                         i * 4));
        }
        off += AQC_GRP_HDR_SIZE + (size_t)n * 4;
    }
    st16(aq_param(cmd, AQC_SCHED_ELEM_NUM_ELEM_RESP), groups);
    return E810_AQ_RC_OK;

bad_len:
    e810_guest_error(c, "delete sched elems: groups overrun the %u-byte buffer",
                     cmd->buf_len);
    return E810_AQ_RC_EINVAL;
}

/* How many profiles an Add/Remove RL Profiles command carries, into @n;
 * false unless its buffer holds them all. */
static bool rl_count(E810Core *c, E810AqCmd *cmd, const char *what,
                     uint16_t *n)
{
    *n = ld16(aq_param(cmd, AQC_RL_PROFILE_NUM_PROFILES));
    if (!cmd->has_buf || *n == 0 ||
        (size_t)*n * AQC_RL_ELEM_SIZE > cmd->buf_len) {
        e810_guest_error(c, "%s RL profiles: %u in %u bytes", what, *n,
                         cmd->buf_len);
        return false;
    }
    return true;
}

/* 0x0410 Add RL Profiles: store them, hand out profile IDs from 1. */
int e810_sched_add_rl(E810Core *c, E810AqCmd *cmd)
{
    E810FwSched *s = &c->fw.sched;
    uint16_t n;
    unsigned free_slots = 0;

    if (!rl_count(c, cmd, "add", &n)) {
        return E810_AQ_RC_EINVAL;
    }
    for (unsigned i = 0; i < E810_SCHED_MAX_RL_PROF; i++) {
        free_slots += !s->rl[i].in_use;
    }
    if (n > free_slots) {
        e810_guest_error(c, "add RL profiles: table full");
        return E810_AQ_RC_ENOSPC;
    }
    for (unsigned i = 0; i < n; i++) {
        uint8_t *e = cmd->buf + i * AQC_RL_ELEM_SIZE;
        uint8_t level = e[AQC_RL_ELEM_LEVEL];
        uint8_t type = e[AQC_RL_ELEM_FLAGS] & AQC_RL_PROFILE_TYPE_M;

        if (level < 1 || level > E810_SCHED_LAYERS ||
            type > AQC_RL_PROFILE_TYPE_SRL) {
            e810_guest_error(c, "add RL profiles: level %u type %u", level,
                             type);
            return E810_AQ_RC_EINVAL;
        }
    }
    for (unsigned i = 0; i < n; i++) {
        uint8_t *e = cmd->buf + i * AQC_RL_ELEM_SIZE;

        for (unsigned j = 0; j < E810_SCHED_MAX_RL_PROF; j++) {
            E810RlProfile *p = &s->rl[j];

            if (!p->in_use) {
                p->in_use = true;
                p->level = e[AQC_RL_ELEM_LEVEL];
                p->type = e[AQC_RL_ELEM_FLAGS] & AQC_RL_PROFILE_TYPE_M;
                p->id = j + 1;
                st16(e + AQC_RL_ELEM_PROFILE_ID, p->id);
                memcpy(p->elem, e, AQC_RL_ELEM_SIZE);
                break;
            }
        }
    }
    st16(aq_param(cmd, AQC_RL_PROFILE_NUM_PROCESSED), n);
    cmd->resp_len = n * AQC_RL_ELEM_SIZE;
    return E810_AQ_RC_OK;
}

/* 0x0415 Remove RL Profiles */
int e810_sched_remove_rl(E810Core *c, E810AqCmd *cmd)
{
    E810FwSched *s = &c->fw.sched;
    uint16_t n, done = 0;

    if (!rl_count(c, cmd, "remove", &n)) {
        return E810_AQ_RC_EINVAL;
    }
    for (unsigned i = 0; i < n; i++) {
        const uint8_t *e = cmd->buf + i * AQC_RL_ELEM_SIZE;
        uint16_t id = ld16(e + AQC_RL_ELEM_PROFILE_ID);

        for (unsigned j = 0; j < E810_SCHED_MAX_RL_PROF; j++) {
            E810RlProfile *p = &s->rl[j];

            if (p->in_use && p->id == id &&
                p->level == e[AQC_RL_ELEM_LEVEL] &&
                p->type == (e[AQC_RL_ELEM_FLAGS] & AQC_RL_PROFILE_TYPE_M)) {
                p->in_use = false;
                done++;
                break;
            }
        }
    }
    st16(aq_param(cmd, AQC_RL_PROFILE_NUM_PROCESSED), done);
    return done == n ? E810_AQ_RC_OK : E810_AQ_RC_ENOENT;
}

/* 0x0412 Query Scheduler Resource Allocation */
int e810_sched_query_res(E810Core *c, E810AqCmd *cmd)
{
    uint8_t *b = cmd->buf;

    if (!cmd->has_buf) {
        return E810_AQ_RC_EINVAL;
    }
    if (cmd->buf_len < RES_SIZE) {
        cmd->resp_len = RES_SIZE;
        return E810_AQ_RC_ENOMEM;
    }
    memset(b, 0, RES_SIZE);
    st16(b + AQC_SCHED_PROPS_PHYS_LEVELS, E810_SCHED_LAYERS);
    st16(b + AQC_SCHED_PROPS_LOGICAL_LEVELS, E810_SCHED_LAYERS);
    b[AQC_SCHED_PROPS_FLATTENING_BITMAP] = 0;
    b[AQC_SCHED_PROPS_MAX_DEVICE_CGDS] = 8;
    b[AQC_SCHED_PROPS_MAX_PF_CGDS] = 8;
    st16(b + AQC_SCHED_PROPS_RDMA_QSETS, 256);
    for (unsigned i = 0; i < E810_SCHED_LAYERS; i++) {
        uint8_t *l = b + AQC_SCHED_PROPS_SIZE + i * AQC_LAYER_SIZE;
        uint16_t nodes = i == 0 ? 1 : i == 1 ? 8 : E810_SCHED_MAX_NODES;

        l[AQC_LAYER_LOGICAL_LAYER] = i;
        l[AQC_LAYER_CHUNK_SIZE] = 1;
        st16(l + AQC_LAYER_MAX_DEVICE_NODES, nodes);
        st16(l + AQC_LAYER_MAX_PF_NODES, nodes);
        st16(l + AQC_LAYER_MAX_SIBL_GRP_SZ, sched_sibl_grp[i]);
        st16(l + AQC_LAYER_MAX_CIR_RL_PROFILES, E810_SCHED_MAX_RL_PROF);
        st16(l + AQC_LAYER_MAX_EIR_RL_PROFILES, E810_SCHED_MAX_RL_PROF);
        st16(l + AQC_LAYER_MAX_SRL_PROFILES, E810_SCHED_MAX_RL_PROF);
    }
    cmd->resp_len = RES_SIZE;
    return E810_AQ_RC_OK;
}

/*
 * 0x0418 Get Tx Topology: the default 9-layer tree, nothing pending (flags
 * byte 0: no LOAD_NEW, no ISSUED), so ice_cfg_tx_topo() ends with -EEXIST
 * ("already applied").  The topology buffer is not read by ice.
 */
int e810_sched_get_tx_topo(E810Core *c, E810AqCmd *cmd)
{
    *aq_param(cmd, AQC_TX_TOPO_SET_FLAGS) = 0;
    return E810_AQ_RC_OK;
}

/* 0x0417 Set Tx Topology: the 5-layer tree is not modelled. */
int e810_sched_set_tx_topo(E810Core *c, E810AqCmd *cmd)
{
    e810_unimp(c, "Set Tx Topology (5-layer scheduler)");
    return E810_AQ_RC_ESRCH;
}

/* struct ice_tlan_ctx: field positions from ice_common.c ice_tlan_ctx_fields. */
#define TXQ_F(f, lsb, width)    E810_BF(E810TxQueueCtx, f, lsb, width, 0)
static const E810BitField txq_ctx_layout[] = {
    E810_BF(E810TxQueueCtx, base, 0, 57, 7),        /* 128-byte units */
    TXQ_F(port_num, 57, 3), TXQ_F(cgd_num, 60, 5), TXQ_F(pf_num, 65, 3),
    TXQ_F(vmvf_num, 68, 10), TXQ_F(vmvf_type, 78, 2), TXQ_F(src_vsi, 80, 10),
    TXQ_F(tsyn_ena, 90, 1), TXQ_F(alt_vlan, 92, 1), TXQ_F(cpuid, 93, 8),
    TXQ_F(wb_mode, 101, 1), TXQ_F(cmpq_id, 105, 9),
    TXQ_F(qnum_in_func, 114, 14), TXQ_F(qlen, 135, 13),
    TXQ_F(quanta_prof_idx, 148, 4), TXQ_F(tso_ena, 152, 1),
    TXQ_F(tso_qnum, 153, 11), TXQ_F(legacy_int, 164, 1),
    TXQ_F(drop_ena, 165, 1),
};

static void txq_unpack(E810TxQueueCtx *q, const uint8_t *ctx)
{
    memcpy(q->raw, ctx, AQC_TXQ_CTX_SIZE);
    e810_bits_unpack(q, ctx, txq_ctx_layout,
                     sizeof(txq_ctx_layout) / sizeof(txq_ctx_layout[0]));
}

/*
 * 0x0C30 Add Tx LAN Queues and 0x0C33 Add RDMA Qsets share their buffer's
 * shape: groups of a parent TEID, a count and fixed-size entries, each
 * entry becoming a leaf whose TEID is written back.  A kind supplies the
 * sizes, a check of one group's entries (before anything is added) and
 * what to do with each new leaf.
 */
typedef struct SchedAddKind {
    const char *what;
    unsigned num_grps;          /* parameter holding the group count (u8) */
    size_t grp_hdr, entry_size;
    bool qsets;
    int (*check)(E810Core *c, const uint8_t *ent, uint16_t n);
    uint32_t (*add)(E810Core *c, uint8_t *e, uint32_t parent);
} SchedAddKind;

static int sched_add_leaves(E810Core *c, E810AqCmd *cmd, const SchedAddKind *k)
{
    uint8_t groups = *aq_param(cmd, k->num_grps);
    uint32_t added[SCHED_MAX_PER_CMD];
    unsigned nadded = 0;
    size_t off = 0;
    int rc;

    if (!cmd->has_buf || groups == 0 || groups > TXQ_MAX_GRPS) {
        e810_guest_error(c, "%s: %u groups", k->what, groups);
        return E810_AQ_RC_EINVAL;
    }
    for (unsigned g = 0; g < groups; g++) {
        E810SchedNode *p;
        uint32_t parent;
        uint16_t n;

        if (!sched_group(cmd, off, k->grp_hdr, k->entry_size, k->qsets,
                         &parent, &n)) {
            e810_guest_error(c, "%s: groups overrun the %u-byte buffer",
                             k->what, cmd->buf_len);
            rc = E810_AQ_RC_EINVAL;
            goto fail;
        }
        rc = sched_check_parent(c, parent, n, E810_SCHED_LEAF_LAYER,
                                E810_SCHED_LEAF_LAYER, &p);
        if (!rc) {
            rc = k->check(c, cmd->buf + off + k->grp_hdr, n);
        }
        if (rc) {
            goto fail;
        }
        for (unsigned i = 0; i < n; i++) {
            uint8_t *e = cmd->buf + off + k->grp_hdr + i * k->entry_size;

            added[nadded++] = k->add(c, e, parent);
        }
        off += k->grp_hdr + (size_t)n * k->entry_size;
    }
    cmd->resp_len = off;
    return E810_AQ_RC_OK;

fail:
    sched_rollback(c, added, nadded);
    return rc;
}

static int txq_check(E810Core *c, const uint8_t *ent, uint16_t n)
{
    E810FwSched *s = &c->fw.sched;

    for (unsigned i = 0; i < n; i++) {
        const uint8_t *e = ent + i * AQC_TXQ_SIZE;
        uint16_t q = ld16(e + AQC_TXQ_TXQ_ID);

        if (q >= E810_FW_MAX_TXQ || s->txq[q].enabled) {
            e810_guest_error(c, "add Tx queues: queue %u out of range or "
                             "already enabled", q);
            return q >= E810_FW_MAX_TXQ ? E810_AQ_RC_EINVAL : E810_AQ_RC_EEXIST;
        }
        for (unsigned j = 0; j < i; j++) {
            if (ld16(ent + j * AQC_TXQ_SIZE + AQC_TXQ_TXQ_ID) == q) {
                e810_guest_error(c, "add Tx queues: queue %u twice", q);
                return E810_AQ_RC_EINVAL;
            }
        }
        if (ld_bits(e + AQC_TXQ_TXQ_CTX, 135, 13) == 0) {
            e810_guest_error(c, "add Tx queues: queue %u has length 0", q);
            return E810_AQ_RC_EINVAL;
        }
        /* Documented in ice_ena_vsi_txq: without it firmware says EINVAL. */
        if (!(e[AQC_TXQ_INFO + AQC_ELEM_VALID_SECTIONS] &
              AQC_ELEM_VALID_GENERIC)) {
            e810_guest_error(c, "add Tx queues: queue %u without generic "
                             "scheduler section", q);
            return E810_AQ_RC_EINVAL;
        }
    }
    return 0;
}

/* A leaf per queue, the queue enabled with its context. */
static uint32_t txq_add(E810Core *c, uint8_t *e, uint32_t parent)
{
    E810FwSched *s = &c->fw.sched;
    uint16_t q = ld16(e + AQC_TXQ_TXQ_ID);
    E810TxQueueCtx *tq = &s->txq[q];
    uint8_t data[16];
    uint32_t teid;
    uint32_t gen = tq->gen;

    memcpy(data, e + AQC_TXQ_INFO, AQC_ELEM_SIZE);
    data[AQC_ELEM_TYPE] = E810_SCHED_ELEM_LEAF;
    teid = sched_alloc(s, parent, E810_SCHED_LEAF_LAYER, E810_SCHED_TXQ, q,
                       data);
    sched_dirty(s->txq_dirty, q);
    memset(tq, 0, sizeof(*tq));
    txq_unpack(tq, e + AQC_TXQ_TXQ_CTX);
    tq->gen = gen + 1;
    tq->teid = teid;
    tq->enabled = true;
    st32(e + AQC_TXQ_Q_TEID, teid);
    trace_e810_fw_txq("enable", q, teid, tq->base, tq->qlen);
    return teid;
}

static int qset_check(E810Core *c, const uint8_t *ent, uint16_t n)
{
    for (unsigned i = 0; i < n; i++) {
        uint16_t handle = ld16(ent + i * AQC_QSET_SIZE + AQC_QSET_TX_QSET_ID);

        if (handle & AQC_Q_DIS_RDMA_QSET) {
            /* 0x0C31 could never name it again. */
            e810_guest_error(c, "add RDMA qsets: qs_handle 0x%x", handle);
            return E810_AQ_RC_EINVAL;
        }
    }
    return 0;
}

/* A leaf remembered by its qs_handle. */
static uint32_t qset_add(E810Core *c, uint8_t *e, uint32_t parent)
{
    uint8_t data[16];
    uint32_t teid;

    memcpy(data, e + AQC_QSET_INFO, AQC_ELEM_SIZE);
    data[AQC_ELEM_TYPE] = E810_SCHED_ELEM_LEAF;
    teid = sched_alloc(&c->fw.sched, parent, E810_SCHED_LEAF_LAYER,
                       E810_SCHED_QSET, ld16(e + AQC_QSET_TX_QSET_ID), data);
    st32(e + AQC_QSET_QSET_TEID, teid);
    return teid;
}

static const SchedAddKind add_txqs = {
    "add Tx queues", AQC_ADD_TXQS_NUM_QGRPS,
    AQC_TX_QGRP_HDR_SIZE, AQC_TXQ_SIZE, false, txq_check, txq_add,
};
static const SchedAddKind add_qsets = {
    "add RDMA qsets", AQC_ADD_RDMA_QSET_NUM_QSET_GRPS,
    AQC_QSET_GRP_HDR_SIZE, AQC_QSET_SIZE, true, qset_check, qset_add,
};

/* 0x0C30 Add Tx LAN Queues */
int e810_sched_add_txqs(E810Core *c, E810AqCmd *cmd)
{
    return sched_add_leaves(c, cmd, &add_txqs);
}

/* 0x0C33 Add RDMA Qsets */
int e810_sched_add_qsets(E810Core *c, E810AqCmd *cmd)
{
    return sched_add_leaves(c, cmd, &add_qsets);
}

/* Size of one struct ice_aqc_dis_txq_item, with its alignment padding. */
static size_t dis_item_size(uint8_t num_qs)
{
    return AQC_DIS_ITEM_Q_ID + 2u * num_qs + (num_qs % 2 == 0 ? 2 : 0);
}

static uint32_t qset_find(E810FwSched *s, uint16_t handle, uint32_t parent)
{
    uint32_t any = 0;

    for (uint32_t i = 0; i < E810_SCHED_MAX_NODES; i++) {
        const E810SchedNode *n = &s->node[i];

        if (n->kind == E810_SCHED_QSET && n->ref == handle) {
            if (n->parent == parent) {
                return i + 1;
            }
            any = any ? any : i + 1;
        }
    }
    return any;
}

/* 0x0C31 Disable Tx Queues: LAN queues and (bit 15) RDMA qsets. */
int e810_sched_dis_txqs(E810Core *c, E810AqCmd *cmd)
{
    E810FwSched *s = &c->fw.sched;
    uint8_t entries = *aq_param(cmd, AQC_DIS_TXQS_NUM_ENTRIES);
    unsigned missing = 0;
    size_t off = 0;

    if (entries == 0) {
        /* VM/VF reset flavour without a list: nothing of ours to stop. */
        return E810_AQ_RC_OK;
    }
    if (!cmd->has_buf || entries > TXQ_MAX_GRPS) {
        e810_guest_error(c, "disable Tx queues: %u entries", entries);
        return E810_AQ_RC_EINVAL;
    }
    for (unsigned i = 0; i < entries; i++) {
        if (off + AQC_DIS_ITEM_Q_ID > cmd->buf_len ||
            off + dis_item_size(cmd->buf[off + AQC_DIS_ITEM_NUM_QS]) >
            cmd->buf_len) {
            e810_guest_error(c, "disable Tx queues: item %u overruns the "
                             "%u-byte buffer", i, cmd->buf_len);
            return E810_AQ_RC_EINVAL;
        }
        off += dis_item_size(cmd->buf[off + AQC_DIS_ITEM_NUM_QS]);
    }
    off = 0;
    for (unsigned i = 0; i < entries; i++) {
        uint32_t parent = ld32(cmd->buf + off + AQC_DIS_ITEM_PARENT_TEID);
        uint8_t num_qs = cmd->buf[off + AQC_DIS_ITEM_NUM_QS];

        for (unsigned j = 0; j < num_qs; j++) {
            uint16_t id = ld16(cmd->buf + off + AQC_DIS_ITEM_Q_ID + 2 * j);

            if (id & AQC_Q_DIS_RDMA_QSET) {
                uint32_t teid = qset_find(s, id & ~AQC_Q_DIS_RDMA_QSET, parent);

                if (teid) {
                    sched_delete_subtree(c, teid);
                } else {
                    missing++;
                }
            } else if (id < E810_FW_MAX_TXQ && s->txq[id].enabled) {
                sched_delete_subtree(c, s->txq[id].teid);
            } else {
                missing++;
            }
        }
        off += dis_item_size(num_qs);
    }
    if (missing) {
        /* The driver tolerates this; it is not a guest error. */
        return E810_AQ_RC_ENOENT;
    }
    return E810_AQ_RC_OK;
}

/* ---- saved state -------------------------------------------------------- */

/*
 * E810FwSched: the live nodes (kind != FREE), next, the default branch's
 * TEIDs, the Tx queue contexts that were ever created (gen != 0) and the
 * RL profiles in use are saved.  Derived on load: nnodes and each node's
 * nchildren (counted from the parents), mark (scratch, 0), rl[].in_use
 * (true for what the stream holds), and every E810TxQueueCtx field but
 * enabled, gen, teid and raw, which txq_unpack takes from raw as Add Tx
 * LAN Queues does.
 */
static const E810SnapField sched_node_fields[] = {
    SF_U(E810SchedNode, kind, E810_SCHED_NODE, E810_SCHED_QSET),
    SF_U(E810SchedNode, layer, 0, E810_SCHED_LEAF_LAYER),
    SF_UX(E810SchedNode, ref),
    SF_UX(E810SchedNode, parent),       /* checked once all are in */
    SF_BYTES(E810SchedNode, data),
    SF_END
};

static const E810SnapField sched_txq_fields[] = {
    SF_BOOL(E810TxQueueCtx, enabled),
    SF_U(E810TxQueueCtx, gen, 1, UINT32_MAX),
    SF_UX(E810TxQueueCtx, teid),        /* checked when enabled */
    SF_BYTES(E810TxQueueCtx, raw),
    SF_END
};

static const E810SnapField sched_rl_fields[] = {
    SF_U(E810RlProfile, level, 1, E810_SCHED_LAYERS),   /* as 0x0410 */
    SF_U(E810RlProfile, type, 0, AQC_RL_PROFILE_TYPE_SRL),
    SF_UX(E810RlProfile, id),
    SF_BYTES(E810RlProfile, elem),
    SF_END
};

/* Every TEID is a slot + 1; the default branch always exists. */
static const E810SnapField sched_fields[] = {
    SF_U(E810FwSched, next, 0, E810_SCHED_MAX_NODES - 1),
    SF_U(E810FwSched, root_teid, 1, E810_SCHED_MAX_NODES),
    SF_U(E810FwSched, tc_teid, 1, E810_SCHED_MAX_NODES),
    /* The driver may delete the entry point: its TEID may name nothing. */
    SF_U(E810FwSched, ep_teid, 1, E810_SCHED_MAX_NODES),
    SF_END
};

/* Nodes of the tree live on layers 0-7 (add_elems, the default branch),
 * queue and qset leaves on layer 8 (sched_add_leaves). */
static bool sched_node_each(E810SnapR *r, void *e, uint32_t idx, void *opaque)
{
    E810SchedNode *n = e;
    bool leaf = n->kind != E810_SCHED_NODE;

    if (leaf != (n->layer == E810_SCHED_LEAF_LAYER)) {
        return e810_snap_fail(r, "fw.sched.node[%u].layer: %u for a %s", idx,
                              n->layer, leaf ? "leaf" : "node");
    }
    return true;
}

/* The tree: one root, every other node under a live node one layer up,
 * which also rules out cycles; then the counts that derive from it. */
static bool sched_load_tree(E810Core *c, E810SnapR *r)
{
    E810FwSched *s = &c->fw.sched;
    const E810SchedNode *root = sched_node(s, s->root_teid);
    const E810SchedNode *tc = sched_node(s, s->tc_teid);

    if (!root || root->layer != 0) {
        return e810_snap_fail(r, "fw.sched.root_teid: TEID %u is no root",
                              s->root_teid);
    }
    if (!tc || tc->layer != 1) {
        return e810_snap_fail(r, "fw.sched.tc_teid: TEID %u is no TC node",
                              s->tc_teid);
    }
    for (uint32_t i = 0; i < E810_SCHED_MAX_NODES; i++) {
        const E810SchedNode *n = &s->node[i];
        const E810SchedNode *p;

        if (sched_chunk_free(s, i)) {
            i += E810_SCHED_DIRTY_CHUNK - 1;
            continue;
        }
        if (n->kind == E810_SCHED_FREE) {
            continue;
        }
        s->nnodes++;
        if (n->layer == 0) {
            if (i + 1 != s->root_teid || n->parent != E810_SCHED_INVAL_TEID) {
                return e810_snap_fail(r, "fw.sched.node[%u]: a second root",
                                      i);
            }
            continue;
        }
        p = sched_node(s, n->parent);
        if (!p || p->layer + 1 != n->layer) {
            return e810_snap_fail(r, "fw.sched.node[%u].parent: TEID 0x%x "
                                  "is no node of layer %u", i, n->parent,
                                  n->layer - 1);
        }
        s->node[n->parent - 1].nchildren++;
    }
    return true;
}

/* Unpacked from raw as txq_add does; an enabled queue has its leaf. */
static bool sched_txq_each(E810SnapR *r, void *e, uint32_t q, void *opaque)
{
    E810FwSched *s = &((E810Core *)opaque)->fw.sched;
    E810TxQueueCtx *tq = e;
    const E810SchedNode *leaf;
    uint8_t raw[sizeof(tq->raw)];

    memcpy(raw, tq->raw, sizeof(raw));
    txq_unpack(tq, raw);
    if (tq->qlen == 0) {
        return e810_snap_fail(r, "fw.sched.txq[%u].raw: length 0", q);
    }
    leaf = tq->enabled ? sched_node(s, tq->teid) : NULL;
    if (tq->enabled &&
        (!leaf || leaf->kind != E810_SCHED_TXQ || leaf->ref != q)) {
        return e810_snap_fail(r, "fw.sched.txq[%u].teid: TEID 0x%x is not "
                              "this queue's leaf", q, tq->teid);
    }
    return true;
}

/* Not the default branch e810_fw_sched_reset made: the stream's. */
static bool sched_load_begin(E810Core *c, E810SnapR *r)
{
    sched_zero(&c->fw.sched);
    return true;
}

static const E810SnapTable sched_node_table = {
    E810_SNAP_ARRAY("fw.sched.node", fw.sched.node, E810SchedNode,
                    sched_node_fields, kind),
    E810_SNAP_MAP(fw.sched.node_dirty, E810_SCHED_DIRTY_CHUNK),
    .each = sched_node_each,
};

static const E810SnapTable sched_txq_table = {
    E810_SNAP_ARRAY("fw.sched.txq", fw.sched.txq, E810TxQueueCtx,
                    sched_txq_fields, gen),
    E810_SNAP_MAP(fw.sched.txq_dirty, E810_SCHED_DIRTY_CHUNK),
    .each = sched_txq_each,
};

/* No map: a reset zeroes all of them. */
static const E810SnapTable sched_rl_table = {
    E810_SNAP_ARRAY("fw.sched.rl", fw.sched.rl, E810RlProfile,
                    sched_rl_fields, in_use),
};

static const E810SnapItem sched_items[] = {
    { .on_load = sched_load_begin },
    E810_SNAP_FIELDS(fw.sched, sched_fields),
    { .table = &sched_node_table },
    { .on_load = sched_load_tree },
    { .table = &sched_txq_table },
    { .table = &sched_rl_table },
    E810_SNAP_ITEMS_END
};

const E810SnapPart e810_fw_sched_snap = {
    .name = "fw.sched", .items = sched_items,
};
