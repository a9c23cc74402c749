/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 firmware model: switch commands and RSS key/LUT.
 *
 * Command layouts are in aqc.h; the behaviour the driver relies on is
 * described in ice_switch.c and ice_lib.c.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../snap.h"
#include "../bytes.h"
#include "../../trace.h"

/* Lookup recipes the model accepts */
#define MAX_RECIPES             64

/* Lookup types (recipe IDs of the default recipes) */
#define LKUP_MAC                1
#define LKUP_MAC_VLAN           2
#define LKUP_PROMISC            3
#define LKUP_VLAN               4
#define LKUP_DFLT               5
#define LKUP_PROMISC_VLAN       9

/* RSS LUT choice in the VSI context (q_opt_rss) */
#define CTX_LUT_VSI             0
#define CTX_LUT_PF              2
#define CTX_LUT_GBL             3

/* ---- VSIs ------------------------------------------------------------ */

static E810Vsi *vsi_get(E810FwSwitch *sw, unsigned vsi)
{
    if (vsi >= E810_FW_MAX_VSI || sw->vsi[vsi].state != E810_VSI_IN_USE) {
        return NULL;
    }
    return &sw->vsi[vsi];
}

const uint8_t *e810_fw_vsi_ctx(E810Core *c, unsigned vsi)
{
    E810Vsi *v = vsi_get(&c->fw.sw, vsi);

    return v ? v->ctx : NULL;
}

bool e810_fw_vsi_pe_enabled(E810Core *c, unsigned vsi)
{
    const uint8_t *ctx = e810_fw_vsi_ctx(c, vsi);

    return ctx && (ctx[E810_VSI_CTX_Q_OPT_FLAGS] & E810_VSI_PE_FLTR_EN);
}

unsigned e810_fw_vsi_num_rxq(E810Core *c, unsigned vsi)
{
    const uint8_t *ctx = e810_fw_vsi_ctx(c, vsi);
    unsigned n = 0;

    if (!ctx) {
        return 0;
    }
    if (!(ld16(ctx + E810_VSI_CTX_MAP_FLAGS) & 1)) {
        /* Contiguous: q_mapping[0] is the first queue, [1] the count. */
        return ld16(ctx + E810_VSI_CTX_Q_MAPPING + 2) & 0x7FF;
    }
    /* Scattered: one queue per q_mapping entry; count the leading used ones. */
    while (n < 16 && (n == 0 || ld16(ctx + E810_VSI_CTX_Q_MAPPING + 2 * n))) {
        n++;
    }
    return n;
}

int e810_fw_vsi_rxq(E810Core *c, unsigned vsi, unsigned idx)
{
    const uint8_t *ctx = e810_fw_vsi_ctx(c, vsi);

    if (!ctx || idx >= e810_fw_vsi_num_rxq(c, vsi)) {
        return -1;
    }
    if (!(ld16(ctx + E810_VSI_CTX_MAP_FLAGS) & 1)) {
        return (ld16(ctx + E810_VSI_CTX_Q_MAPPING) & 0x7FF) + idx;
    }
    return ld16(ctx + E810_VSI_CTX_Q_MAPPING + 2 * idx) & 0x7FF;
}

/* Sections of struct ice_aqc_vsi_props by valid_sections bit. */
static const struct {
    uint16_t bit;
    uint8_t off;
    uint8_t len;
} vsi_sections[] = {
    { 1u << 0, 2, 4 },          /* switch */
    { 1u << 1, 6, 2 },          /* security */
    { 1u << 2, 8, 8 },          /* inner VLAN */
    { 1u << 3, 24, 4 },         /* outer tag */
    { 1u << 4, 16, 4 },         /* ingress UP table */
    { 1u << 5, 20, 4 },         /* egress UP table */
    { 1u << 6, 28, 50 },        /* Rx queue mapping + TC mapping */
    { 1u << 7, 78, 6 },         /* queueing options (RSS, PE filter) */
    { 1u << 8, 84, 4 },         /* outer UP table */
    { 1u << 11, 90, 10 },       /* flow director */
    { 1u << 12, 100, 4 },       /* PASID */
};

static void vsi_merge(uint8_t *ctx, const uint8_t *in)
{
    uint16_t valid = ld16(in);

    for (size_t i = 0; i < sizeof(vsi_sections) / sizeof(vsi_sections[0]); i++) {
        if (valid & vsi_sections[i].bit) {
            memcpy(ctx + vsi_sections[i].off, in + vsi_sections[i].off,
                   vsi_sections[i].len);
        }
    }
    st16(ctx, ld16(ctx) | valid);
}

static void vsi_answer_counts(E810FwSwitch *sw, E810AqCmd *cmd)
{
    st16(aq_param(cmd, AQC_VSI_RESP_EXT_STATUS), 0);
    st16(aq_param(cmd, AQC_VSI_RESP_VSI_USED), sw->nvsi);
    st16(aq_param(cmd, AQC_VSI_RESP_VSI_FREE), E810_FW_MAX_VSI - sw->nvsi);
}

/* 0x0210 Add VSI */
int e810_sw_add_vsi(E810Core *c, E810AqCmd *cmd)
{
    E810FwSwitch *sw = &c->fw.sw;
    uint16_t req = ld16(aq_param(cmd, AQC_VSI_VSI_NUM));
    unsigned num = E810_FW_MAX_VSI;
    E810Vsi *v;

    c->fw.sw.lk.valid = false;     /* lookups may change */
    if (!cmd->has_buf || cmd->buf_len < E810_VSI_CTX_SIZE) {
        e810_guest_error(c, "add VSI: context of %u bytes", cmd->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    if (req & AQC_VSI_IS_VALID) {
        num = req & AQC_VSI_NUM_M;
        if (num >= E810_FW_MAX_VSI) {
            e810_guest_error(c, "add VSI: number %u out of range", num);
            return E810_AQ_RC_EINVAL;
        }
        if (sw->vsi[num].state == E810_VSI_IN_USE) {
            e810_guest_error(c, "add VSI: %u already exists", num);
            return E810_AQ_RC_EEXIST;
        }
    } else {
        for (unsigned i = 0; i < E810_FW_MAX_VSI; i++) {
            if (sw->vsi[i].state == E810_VSI_FREE) {
                num = i;
                break;
            }
        }
        if (num == E810_FW_MAX_VSI) {
            e810_guest_error(c, "add VSI: all %u VSIs in use", E810_FW_MAX_VSI);
            return E810_AQ_RC_ENOSPC;
        }
    }
    v = &sw->vsi[num];
    e810_dirty_mark(sw->vsi_dirty, E810_SW_VSI_CHUNK, num);
    if (v->state == E810_VSI_FREE) {
        sw->nvsi++;
    }
    memset(v, 0, sizeof(*v));
    v->state = E810_VSI_IN_USE;
    v->type = ld16(aq_param(cmd, AQC_VSI_VSI_FLAGS)) & 3;
    v->vf_id = *aq_param(cmd, AQC_VSI_VF_ID);
    /*
     * Add VSI takes the whole context: ice flags only the security section
     * valid on the first add but fills in and relies on the Rx queue map and
     * RSS options too.  Update VSI is the one that merges by section.
     */
    memcpy(v->ctx, cmd->buf, E810_VSI_CTX_SIZE);
    vsi_merge(v->ctx, cmd->buf);
    st16(aq_param(cmd, AQC_VSI_VSI_NUM), num);
    vsi_answer_counts(sw, cmd);
    trace_e810_fw_vsi("add", num, sw->nvsi);
    return E810_AQ_RC_OK;
}

/* The VSI named by Update/Free VSI, or an error code. */
static int vsi_from_cmd(E810Core *c, E810AqCmd *cmd, const char *what,
                        unsigned *out)
{
    uint16_t req = ld16(aq_param(cmd, AQC_VSI_VSI_NUM));
    unsigned num = req & AQC_VSI_NUM_M;

    if (num >= E810_FW_MAX_VSI) {
        e810_guest_error(c, "%s: VSI %u out of range", what, num);
        return E810_AQ_RC_EINVAL;
    }
    if (!vsi_get(&c->fw.sw, num)) {
        e810_guest_error(c, "%s: VSI %u does not exist", what, num);
        return E810_AQ_RC_ENOENT;
    }
    *out = num;
    return E810_AQ_RC_OK;
}

/* 0x0211 Update VSI: merge the sections flagged valid. */
int e810_sw_update_vsi(E810Core *c, E810AqCmd *cmd)
{
    E810FwSwitch *sw = &c->fw.sw;
    unsigned num;
    int rc = vsi_from_cmd(c, cmd, "update VSI", &num);

    c->fw.sw.lk.valid = false;     /* lookups may change */
    if (rc) {
        return rc;
    }
    if (!cmd->has_buf || cmd->buf_len < E810_VSI_CTX_SIZE) {
        e810_guest_error(c, "update VSI: context of %u bytes", cmd->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    vsi_merge(sw->vsi[num].ctx, cmd->buf);
    vsi_answer_counts(sw, cmd);
    trace_e810_fw_vsi("update", num, sw->nvsi);
    return E810_AQ_RC_OK;
}

static void list_clear_vsi(E810FwSwitch *sw, unsigned vsi)
{
    for (unsigned i = 0; i < E810_FW_MAX_VSI_LISTS; i++) {
        /* Lists without the VSI stay untouched (they may be all zero). */
        if (sw->list[i].map[vsi / 8] & (1u << (vsi % 8))) {
            sw->list[i].map[vsi / 8] &= ~(1u << (vsi % 8));
        }
    }
}

static bool act_targets_vsi(uint32_t act, unsigned vsi)
{
    unsigned t = act & AQC_ACT_TYPE_M;

    return (t == AQC_ACT_VSI_FORWARDING || t == AQC_ACT_PRUNE) &&
           !(act & AQC_ACT_VSI_LIST) &&
           ((act >> AQC_ACT_VSI_ID_S) & AQC_ACT_VSI_ID_M) == vsi;
}

/* 0x0213 Free VSI: its rules and list memberships go with it. */
int e810_sw_free_vsi(E810Core *c, E810AqCmd *cmd)
{
    E810FwSwitch *sw = &c->fw.sw;
    bool keep = ld16(aq_param(cmd, AQC_VSI_CMD_FLAGS)) & AQC_VSI_KEEP_ALLOC;
    unsigned num;
    int rc = vsi_from_cmd(c, cmd, "free VSI", &num);

    c->fw.sw.lk.valid = false;     /* lookups may change */
    if (rc) {
        return rc;
    }
    for (unsigned i = 0; i < E810_FW_MAX_RULES; i++) {
        E810SwRule *r = &sw->rule[i];

        if (r->in_use &&
            (act_targets_vsi(r->act, num) ||
             (r->type == AQC_SW_RULES_T_LKUP_TX && r->src == num))) {
            r->in_use = false;
            sw->nrules--;
        }
    }
    list_clear_vsi(sw, num);
    memset(&sw->vsi[num], 0, sizeof(sw->vsi[num]));
    if (keep) {
        sw->vsi[num].state = E810_VSI_RESERVED;
    } else {
        sw->nvsi--;
    }
    vsi_answer_counts(sw, cmd);
    trace_e810_fw_vsi(keep ? "free-keep" : "free", num, sw->nvsi);
    return E810_AQ_RC_OK;
}

/* ---- switch configuration ------------------------------------------- */

/* 0x0200 Get Switch Config: the function's own physical port, on a
 * switch of its own (swid = port: the card does not switch between its
 * ports). */
int e810_sw_get_config(E810Core *c, E810AqCmd *cmd)
{
    if (!cmd->has_buf) {
        e810_guest_error(c, "get switch config without a buffer");
        return E810_AQ_RC_EINVAL;
    }
    if (cmd->buf_len < AQC_SW_CFG_ELEM_SIZE) {
        cmd->resp_len = AQC_SW_CFG_ELEM_SIZE;
        return E810_AQ_RC_ENOMEM;
    }
    st16(cmd->buf + AQC_SW_CFG_ELEM_VSI_PORT_NUM,
         c->pf_id | AQC_SW_CONF_RESP_PHYS_PORT << AQC_SW_CONF_RESP_TYPE_S);
    st16(cmd->buf + AQC_SW_CFG_ELEM_SWID, c->pf_id);
    st16(cmd->buf + AQC_SW_CFG_ELEM_PF_VF_NUM, c->pf_id);
    st16(aq_param(cmd, AQC_GET_SW_CFG_ELEMENT), 0);         /* no more */
    st16(aq_param(cmd, AQC_GET_SW_CFG_NUM_ELEMS), 1);
    cmd->resp_len = AQC_SW_CFG_ELEM_SIZE;
    return E810_AQ_RC_OK;
}

/* 0x0203 Set Port Parameters */
int e810_sw_set_port_params(E810Core *c, E810AqCmd *cmd)
{
    E810FwSwitch *sw = &c->fw.sw;

    c->fw.sw.lk.valid = false;     /* lookups may change */
    sw->port_flags = ld16(aq_param(cmd, AQC_SET_PORT_PARAMS_CMD_FLAGS));
    sw->bad_frame_vsi = ld16(aq_param(cmd, AQC_SET_PORT_PARAMS_BAD_FRAME_VSI));
    sw->local_fwd_mode = *aq_param(cmd, AQC_SET_PORT_PARAMS_LOCAL_FWD_MODE);
    return E810_AQ_RC_OK;
}

/* ---- resources ------------------------------------------------------- */

/* Pools of small IDs, counted from 0 (profile IDs index driver tables). */
static const struct {
    uint8_t type;
    uint16_t size;
} res_pools[E810_FW_RES_POOLS] = {
    { AQC_RES_TYPE_RECIPE, MAX_RECIPES },
    { AQC_RES_TYPE_FDIR_COUNTER_BLOCK, 16 },
    { AQC_RES_TYPE_FDIR_GUARANTEED, 16 },
    { AQC_RES_TYPE_FDIR_SHARED, 16 },
    { AQC_RES_TYPE_FD_PROF, E810_FW_RES_POOL_SIZE },
    { AQC_RES_TYPE_FD_TCAM, E810_FW_RES_POOL_SIZE },
    { AQC_RES_TYPE_HASH_PROF, E810_FW_RES_POOL_SIZE },
    { AQC_RES_TYPE_HASH_TCAM, E810_FW_RES_POOL_SIZE },
    { AQC_RES_TYPE_SWID, 1 },
};

static int res_pool(uint8_t type)
{
    for (int i = 0; i < E810_FW_RES_POOLS; i++) {
        if (res_pools[i].type == type) {
            return i;
        }
    }
    return -1;
}

/* For these num_elems is an amount and one handle comes back. */
static bool res_is_block(uint8_t type)
{
    return type == AQC_RES_TYPE_FDIR_COUNTER_BLOCK ||
           type == AQC_RES_TYPE_FDIR_GUARANTEED ||
           type == AQC_RES_TYPE_FDIR_SHARED;
}

static bool bit_test(const uint8_t *map, unsigned i)
{
    return map[i / 8] & (1u << (i % 8));
}

static void bit_set(uint8_t *map, unsigned i, bool on)
{
    if (on) {
        map[i / 8] |= 1u << (i % 8);
    } else {
        map[i / 8] &= ~(1u << (i % 8));
    }
}

/* An Alloc/Free Resources request: the type, its pool (-1: the VSI lists)
 * and how many ID slots the buffer holds. */
typedef struct ResReq {
    uint8_t type;
    int pool;
    unsigned ids;
} ResReq;

/* Parse the Alloc/Free buffer into @q; 0 or the AQ return code. */
static int res_parse(E810Core *c, E810AqCmd *cmd, const char *what,
                     ResReq *q)
{
    uint16_t entries = ld16(aq_param(cmd, AQC_ALLOC_FREE_RES_NUM_ENTRIES));
    uint16_t n;

    c->fw.sw.lk.valid = false;     /* lookups may change */

    if (!cmd->has_buf || cmd->buf_len < AQC_RES_ELEM_ELEM + 2) {
        e810_guest_error(c, "%s: buffer of %u bytes", what, cmd->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    if (entries != 1) {
        e810_guest_error(c, "%s: %u resource entries", what, entries);
        return E810_AQ_RC_EINVAL;
    }
    q->type = ld16(cmd->buf + AQC_RES_ELEM_RES_TYPE) & AQC_RES_TYPE_M;
    n = ld16(cmd->buf + AQC_RES_ELEM_NUM_ELEMS);
    q->pool = res_pool(q->type);
    if (q->type != AQC_RES_TYPE_VSI_LIST_REP &&
        q->type != AQC_RES_TYPE_VSI_LIST_PRUNE && q->pool < 0) {
        e810_unimp(c, "%s: resource type 0x%x", what, q->type);
        return E810_AQ_RC_EINVAL;
    }
    if (n == 0) {
        e810_guest_error(c, "%s: zero elements", what);
        return E810_AQ_RC_EINVAL;
    }
    q->ids = res_is_block(q->type) ? 1 : n;
    if (AQC_RES_ELEM_ELEM + 2 * (size_t)q->ids > cmd->buf_len) {
        e810_guest_error(c, "%s: %u elements overrun the %u-byte buffer",
                         what, n, cmd->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    return 0;
}

/* IDs of resource @pool (-1: the VSI lists) */
static unsigned res_count(int pool)
{
    return pool < 0 ? E810_FW_MAX_VSI_LISTS : res_pools[pool].size;
}

static bool res_in_use(E810FwSwitch *sw, int pool, unsigned id)
{
    return pool < 0 ? sw->list[id].in_use : bit_test(sw->res[pool], id);
}

/* Take (@on) or give back ID @id of @pool; a new VSI list is empty. */
static void res_mark(E810FwSwitch *sw, int pool, unsigned id, uint8_t type,
                     bool on)
{
    if (pool >= 0) {
        bit_set(sw->res[pool], id, on);
        return;
    }
    e810_dirty_mark(sw->list_dirty, E810_SW_LIST_CHUNK, id);
    memset(&sw->list[id], 0, sizeof(sw->list[id]));
    sw->list[id].in_use = on;
    sw->list[id].res_type = on ? type : 0;
}

/* 0x0208 Allocate Resources: the driver's IDs come back in elem[]. */
int e810_sw_alloc_res(E810Core *c, E810AqCmd *cmd)
{
    E810FwSwitch *sw = &c->fw.sw;
    unsigned avail = 0, got = 0;
    ResReq q;
    int rc = res_parse(c, cmd, "alloc resources", &q);

    if (rc) {
        return rc;
    }
    /* Requested indices are not honoured: the driver asks for "any". */
    for (unsigned i = 0; i < res_count(q.pool); i++) {
        avail += !res_in_use(sw, q.pool, i);
    }
    if (avail < q.ids) {
        e810_guest_error(c, "alloc resources: type 0x%x exhausted", q.type);
        return E810_AQ_RC_ENOSPC;
    }
    for (unsigned i = 0; i < res_count(q.pool) && got < q.ids; i++) {
        if (!res_in_use(sw, q.pool, i)) {
            res_mark(sw, q.pool, i, q.type, true);
            st16(cmd->buf + AQC_RES_ELEM_ELEM + 2 * got++, i);
        }
    }
    trace_e810_fw_res("alloc", q.type,
                      ld16(cmd->buf + AQC_RES_ELEM_NUM_ELEMS),
                      ld16(cmd->buf + AQC_RES_ELEM_ELEM));
    cmd->resp_len = AQC_RES_ELEM_ELEM + 2 * q.ids;
    return E810_AQ_RC_OK;
}

/* 0x0209 Free Resources */
int e810_sw_free_res(E810Core *c, E810AqCmd *cmd)
{
    E810FwSwitch *sw = &c->fw.sw;
    ResReq q;
    int rc = res_parse(c, cmd, "free resources", &q);

    if (rc) {
        return rc;
    }
    for (unsigned i = 0; i < q.ids; i++) {
        unsigned id = ld16(cmd->buf + AQC_RES_ELEM_ELEM + 2 * i);

        if (id >= res_count(q.pool) || !res_in_use(sw, q.pool, id)) {
            e810_guest_error(c, "free resources: type 0x%x ID %u not "
                             "allocated", q.type, id);
            return E810_AQ_RC_ENOENT;
        }
    }
    for (unsigned i = 0; i < q.ids; i++) {
        res_mark(sw, q.pool, ld16(cmd->buf + AQC_RES_ELEM_ELEM + 2 * i),
                 q.type, false);
    }
    trace_e810_fw_res("free", q.type, q.ids,
                      ld16(cmd->buf + AQC_RES_ELEM_ELEM));
    return E810_AQ_RC_OK;
}

/* ---- switch rules ---------------------------------------------------- */

/* A rule's size: its fixed part @hdr, then @count (the 16-bit word at
 * @count_off) entries of @unit bytes. */
static size_t rule_shape(E810AqCmd *cmd, size_t off, size_t hdr,
                         size_t count_off, size_t unit)
{
    size_t n;

    if (off + hdr > cmd->buf_len) {
        return 0;
    }
    n = hdr + unit * ld16(cmd->buf + off + count_off);
    return off + n <= cmd->buf_len ? n : 0;
}

/* Size of the rule at @off, or 0 if it does not fit in the buffer. */
static size_t rule_size(E810AqCmd *cmd, size_t off)
{
    if (off + AQC_SW_RULE_HDR_SIZE > cmd->buf_len) {
        return 0;
    }
    switch (ld16(cmd->buf + off + AQC_SW_RULE_TYPE)) {
    case AQC_SW_RULES_T_LKUP_RX:
    case AQC_SW_RULES_T_LKUP_TX:
        /* the header length counts bytes */
        return rule_shape(cmd, off, AQC_LKUP_SIZE, AQC_LKUP_HDR_LEN, 1);
    case AQC_SW_RULES_T_LG_ACT:
        return rule_shape(cmd, off, AQC_LG_ACT_HDR_SIZE, AQC_LG_ACT_SIZE, 4);
    case AQC_SW_RULES_T_VSI_LIST_SET:
    case AQC_SW_RULES_T_VSI_LIST_CLEAR:
    case AQC_SW_RULES_T_PRUNE_LIST_SET:
    case AQC_SW_RULES_T_PRUNE_LIST_CLEAR:
        return rule_shape(cmd, off, AQC_VSI_LIST_HDR_SIZE,
                          AQC_VSI_LIST_NUMBER_VSI, 2);
    default:
        return 0;
    }
}

/* The forward/prune target of an action must exist. */
static int rule_check_act(E810Core *c, uint32_t act)
{
    E810FwSwitch *sw = &c->fw.sw;
    unsigned t = act & AQC_ACT_TYPE_M;
    unsigned id = (act >> AQC_ACT_VSI_ID_S) & AQC_ACT_VSI_ID_M;

    if ((t == AQC_ACT_VSI_FORWARDING && !(act & AQC_ACT_DROP)) ||
        t == AQC_ACT_PRUNE) {
        if (act & AQC_ACT_VSI_LIST) {
            if (id >= E810_FW_MAX_VSI_LISTS || !sw->list[id].in_use) {
                e810_guest_error(c, "switch rule: VSI list %u not allocated", id);
                return E810_AQ_RC_EINVAL;
            }
        } else if (!vsi_get(sw, id)) {
            e810_guest_error(c, "switch rule: VSI %u does not exist", id);
            return E810_AQ_RC_EINVAL;
        }
    }
    return E810_AQ_RC_OK;
}

static int rule_check_list(E810Core *c, const uint8_t *r)
{
    E810FwSwitch *sw = &c->fw.sw;
    unsigned id = ld16(r + AQC_VSI_LIST_INDEX);
    unsigned n = ld16(r + AQC_VSI_LIST_NUMBER_VSI);

    if (id >= E810_FW_MAX_VSI_LISTS || !sw->list[id].in_use) {
        e810_guest_error(c, "VSI list rule: list %u not allocated", id);
        return E810_AQ_RC_ENOENT;
    }
    for (unsigned i = 0; i < n; i++) {
        if (ld16(r + AQC_VSI_LIST_VSI + 2 * i) >= E810_FW_MAX_VSI) {
            e810_guest_error(c, "VSI list rule: VSI %u out of range",
                             ld16(r + AQC_VSI_LIST_VSI + 2 * i));
            return E810_AQ_RC_EINVAL;
        }
    }
    return E810_AQ_RC_OK;
}

static void rule_apply_list(E810FwSwitch *sw, const uint8_t *r, bool set)
{
    E810VsiList *l = &sw->list[ld16(r + AQC_VSI_LIST_INDEX)];
    unsigned n = ld16(r + AQC_VSI_LIST_NUMBER_VSI);

    for (unsigned i = 0; i < n; i++) {
        bit_set(l->map, ld16(r + AQC_VSI_LIST_VSI + 2 * i), set);
    }
}

static bool rule_type_is_set(uint16_t type)
{
    return type == AQC_SW_RULES_T_VSI_LIST_SET ||
           type == AQC_SW_RULES_T_PRUNE_LIST_SET;
}

static void rule_store(E810SwRule *s, const uint8_t *r, bool match_too)
{
    s->type = ld16(r + AQC_SW_RULE_TYPE);
    s->src = ld16(r + AQC_LKUP_SRC);
    s->act = ld32(r + AQC_LKUP_ACT);
    if (match_too) {
        uint16_t len = ld16(r + AQC_LKUP_HDR_LEN);

        s->recipe = ld16(r + AQC_LKUP_RECIPE_ID);
        s->hdr_len = len;
        memset(s->hdr, 0, sizeof(s->hdr));
        memcpy(s->hdr, r + AQC_LKUP_HDR_DATA,
               len < sizeof(s->hdr) ? len : sizeof(s->hdr));
    }
}

/* 0x02A0 / 0x02A1 / 0x02A2 Add / Update / Remove Switch Rules */
enum { RULES_ADD, RULES_UPDATE, RULES_REMOVE };     /* opcode - 0x02A0 */
static const char *const rules_op_name[] = { "add", "update", "remove" };

static bool rule_is_lookup(uint16_t type)
{
    return type == AQC_SW_RULES_T_LKUP_RX || type == AQC_SW_RULES_T_LKUP_TX;
}

/* Check one lookup rule for @op; counts the rules an add needs. */
static int rule_check_lookup(E810Core *c, const uint8_t *r, int op,
                             unsigned *new_rules)
{
    E810FwSwitch *sw = &c->fw.sw;
    unsigned idx = ld16(r + AQC_LKUP_INDEX);
    int rc;

    if (op == RULES_ADD) {
        if (ld16(r + AQC_LKUP_RECIPE_ID) >= MAX_RECIPES) {
            e810_guest_error(c, "add switch rules: recipe %u",
                             ld16(r + AQC_LKUP_RECIPE_ID));
            return E810_AQ_RC_EINVAL;
        }
        (*new_rules)++;
    } else if (idx >= E810_FW_MAX_RULES || !sw->rule[idx].in_use) {
        /* ENOENT is what the driver expects for a stale index. */
        return E810_AQ_RC_ENOENT;
    }
    if (op == RULES_REMOVE) {
        return E810_AQ_RC_OK;
    }
    rc = rule_check_act(c, ld32(r + AQC_LKUP_ACT));
    if (rc) {
        return rc;
    }
    if (ld16(r + AQC_SW_RULE_TYPE) == AQC_SW_RULES_T_LKUP_TX &&
        !vsi_get(sw, ld16(r + AQC_LKUP_SRC))) {
        e810_guest_error(c, "switch rule: source VSI %u does not exist",
                         ld16(r + AQC_LKUP_SRC));
        return E810_AQ_RC_EINVAL;
    }
    return E810_AQ_RC_OK;
}

/* Check all @num rules of the buffer before any is applied. */
static int rules_check(E810Core *c, E810AqCmd *cmd, int op, uint16_t num)
{
    E810FwSwitch *sw = &c->fw.sw;
    unsigned new_rules = 0;
    size_t off = 0;
    int rc = E810_AQ_RC_OK;

    for (unsigned i = 0; i < num && !rc; i++) {
        size_t n = rule_size(cmd, off);
        const uint8_t *r = cmd->buf + off;

        if (!n) {
            e810_guest_error(c, "%s switch rules: rule %u malformed or beyond "
                             "the %u-byte buffer", rules_op_name[op], i,
                             cmd->buf_len);
            return E810_AQ_RC_EINVAL;
        }
        uint16_t type = ld16(r + AQC_SW_RULE_TYPE);

        if (rule_is_lookup(type)) {
            rc = rule_check_lookup(c, r, op, &new_rules);
        } else if (type != AQC_SW_RULES_T_LG_ACT) {
            rc = rule_check_list(c, r);
        }
        off += n;
    }
    if (!rc && new_rules > E810_FW_MAX_RULES - sw->nrules) {
        e810_guest_error(c, "add switch rules: rule table full");
        return E810_AQ_RC_ENOSPC;
    }
    return rc;
}

/* Apply one checked lookup rule. */
static void rule_apply_lookup(E810FwSwitch *sw, uint8_t *r, int op)
{
    unsigned idx = ld16(r + AQC_LKUP_INDEX);

    if (op == RULES_ADD) {
        for (idx = 0; sw->rule[idx].in_use; idx++) {
            /* a free slot exists: counted by rules_check() */
        }
        e810_dirty_mark(sw->rule_dirty, E810_SW_RULE_CHUNK, idx);
        memset(&sw->rule[idx], 0, sizeof(sw->rule[idx]));
        sw->rule[idx].in_use = true;
        sw->nrules++;
        rule_store(&sw->rule[idx], r, true);
        st16(r + AQC_LKUP_INDEX, idx);
    } else if (op == RULES_UPDATE) {
        /* An update without a header keeps the match. */
        rule_store(&sw->rule[idx], r, ld16(r + AQC_LKUP_HDR_LEN) != 0);
    } else if (sw->rule[idx].in_use) {  /* an index named twice */
        sw->rule[idx].in_use = false;
        sw->nrules--;
    }
    trace_e810_fw_sw_rule(rules_op_name[op], idx, sw->rule[idx].recipe,
                          sw->rule[idx].act);
}

/* All rules are checked before any is applied: all or nothing. */
int e810_sw_rules(E810Core *c, E810AqCmd *cmd)
{
    E810FwSwitch *sw = &c->fw.sw;
    int op = cmd->opcode - AQC_OPC_ADD_SW_RULES;
    uint16_t num = ld16(aq_param(cmd, AQC_SW_RULES_NUM_RULES));
    size_t off = 0;
    int rc;

    c->fw.sw.lk.valid = false;     /* lookups may change */
    if (!cmd->has_buf || num == 0) {
        e810_guest_error(c, "%s switch rules: %u rules", rules_op_name[op],
                         num);
        return E810_AQ_RC_EINVAL;
    }
    rc = rules_check(c, cmd, op, num);
    if (rc) {
        return rc;
    }
    for (unsigned i = 0; i < num; i++) {
        size_t n = rule_size(cmd, off);
        uint8_t *r = cmd->buf + off;
        uint16_t type = ld16(r + AQC_SW_RULE_TYPE);

        if (rule_is_lookup(type)) {
            rule_apply_lookup(sw, r, op);
        } else if (type != AQC_SW_RULES_T_LG_ACT) {
            /* Lists: SET adds the VSIs, CLEAR (or removing the rule) drops
             * them. */
            rule_apply_list(sw, r, op != RULES_REMOVE &&
                            rule_type_is_set(type));
        }
        off += n;
    }
    if (op == RULES_ADD) {
        cmd->resp_len = off;
    }
    return E810_AQ_RC_OK;
}

/* ---- Rx lookup ------------------------------------------------------- */

enum { CLS_UCAST, CLS_MCAST, CLS_BCAST };

static int mac_class(const uint8_t *mac)
{
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

    if (!memcmp(mac, bcast, 6)) {
        return CLS_BCAST;
    }
    return (mac[0] & 1) ? CLS_MCAST : CLS_UCAST;
}

/* VLAN ID in the rule's dummy header (TCI, big endian, at byte 14). */
static uint16_t rule_vlan(const E810SwRule *r)
{
    return ((r->hdr[14] << 8) | r->hdr[15]) & 0xFFF;
}

/* Add the rule's forward target(s) to @map. */
static void rule_targets(E810FwSwitch *sw, uint32_t act, uint8_t *map)
{
    unsigned id = (act >> AQC_ACT_VSI_ID_S) & AQC_ACT_VSI_ID_M;

    if (!(act & AQC_ACT_VSI_LIST)) {
        if (id < E810_FW_MAX_VSI) {
            bit_set(map, id, true);
        }
        return;
    }
    if (id < E810_FW_MAX_VSI_LISTS && sw->list[id].in_use) {
        for (unsigned b = 0; b < sizeof(sw->list[id].map); b++) {
            map[b] |= sw->list[id].map[b];
        }
    }
}

static int switch_lookup(E810Core *c, const uint8_t dst_mac[6], uint16_t vlan,
                         uint16_t *vsis, int max)
{
    E810FwSwitch *sw = &c->fw.sw;
    uint8_t hit[E810_FW_MAX_VSI / 8] = { 0 };
    uint8_t vlan_ok[E810_FW_MAX_VSI / 8] = { 0 };
    uint16_t vid = vlan == E810_VLAN_NONE ? 0 : vlan & 0xFFF;
    int cls = mac_class(dst_mac);
    int n = 0;

    for (unsigned i = 0; i < E810_FW_MAX_RULES; i++) {
        const E810SwRule *r = &sw->rule[i];
        bool rx = r->type == AQC_SW_RULES_T_LKUP_RX;
        bool match;

        if (i % E810_SW_RULE_CHUNK == 0 &&
            !e810_dirty_test(sw->rule_dirty, E810_SW_RULE_CHUNK, i)) {
            i += E810_SW_RULE_CHUNK - 1;    /* never written: no rule */
            continue;
        }
        if (!r->in_use) {
            continue;
        }
        if (r->recipe == LKUP_VLAN) {
            if ((r->act & AQC_ACT_TYPE_M) == AQC_ACT_PRUNE &&
                rule_vlan(r) == vid) {
                rule_targets(sw, r->act, vlan_ok);
            }
            continue;
        }
        if ((r->act & AQC_ACT_TYPE_M) != AQC_ACT_VSI_FORWARDING ||
            !(r->act & AQC_ACT_VALID_BIT) || (r->act & AQC_ACT_DROP)) {
            continue;
        }
        /* MAC filters are Tx rules but match on ingress too. */
        switch (r->recipe) {
        case LKUP_MAC:
            match = !memcmp(r->hdr, dst_mac, 6);
            break;
        case LKUP_MAC_VLAN:
            match = !memcmp(r->hdr, dst_mac, 6) && rule_vlan(r) == vid;
            break;
        case LKUP_PROMISC:
            match = rx && mac_class(r->hdr) == cls;
            break;
        case LKUP_PROMISC_VLAN:
            match = rx && mac_class(r->hdr) == cls && rule_vlan(r) == vid;
            break;
        case LKUP_DFLT:
            match = rx;
            break;
        default:
            match = false;
            break;
        }
        if (match) {
            rule_targets(sw, r->act, hit);
        }
    }
    for (unsigned v = 0; v < E810_FW_MAX_VSI && n < max; v++) {
        E810Vsi *vp;

        if (v % E810_SW_VSI_CHUNK == 0 &&
            !e810_dirty_test(sw->vsi_dirty, E810_SW_VSI_CHUNK, v)) {
            v += E810_SW_VSI_CHUNK - 1;     /* never written: no VSI */
            continue;
        }
        vp = vsi_get(sw, v);
        if (!vp || !bit_test(hit, v)) {
            continue;
        }
        /* Tagged frames need a VLAN filter when the VSI prunes. */
        if (vlan != E810_VLAN_NONE &&
            (vp->ctx[E810_VSI_CTX_SW_FLAGS2] & E810_VSI_RX_VLAN_PRUNE) &&
            !bit_test(vlan_ok, v)) {
            continue;
        }
        vsis[n++] = v;
    }
    return n;
}

int e810_fw_switch_lookup(E810Core *c, const uint8_t dst_mac[6], uint16_t vlan,
                          uint16_t *vsis, int max)
{
    E810FwSwitch *sw = &c->fw.sw;
    int n;

    if (sw->lk.valid && sw->lk.vlan == vlan && sw->lk.max == max &&
        !memcmp(sw->lk.mac, dst_mac, 6)) {
        memcpy(vsis, sw->lk.vsis, (size_t)sw->lk.n * sizeof(vsis[0]));
        return sw->lk.n;
    }
    n = switch_lookup(c, dst_mac, vlan, vsis, max);
    if (max <= (int)(sizeof(sw->lk.vsis) / sizeof(sw->lk.vsis[0]))) {
        sw->lk.valid = true;
        memcpy(sw->lk.mac, dst_mac, 6);
        sw->lk.vlan = vlan;
        sw->lk.max = max;
        sw->lk.n = n;
        memcpy(sw->lk.vsis, vsis, (size_t)n * sizeof(vsis[0]));
    }
    return n;
}

/* ---- RSS ------------------------------------------------------------- */

const uint8_t *e810_fw_rss_key(E810Core *c, unsigned vsi)
{
    E810Vsi *v = vsi_get(&c->fw.sw, vsi);

    return v ? v->rss_key : NULL;
}

const uint8_t *e810_fw_rss_lut(E810Core *c, unsigned vsi, unsigned *size)
{
    E810FwSwitch *sw = &c->fw.sw;
    E810Vsi *v = vsi_get(sw, vsi);
    uint8_t opt;

    if (!v) {
        *size = 0;
        return NULL;
    }
    opt = v->ctx[E810_VSI_CTX_Q_OPT_RSS];
    switch (opt & 3) {
    case CTX_LUT_PF:
        *size = sw->pf_lut_size;
        return sw->pf_lut;
    case CTX_LUT_GBL:
        *size = E810_RSS_GLOBAL_LUT_SIZE;
        return sw->global_lut[(opt >> 2) & 0xF];
    default:
        *size = E810_RSS_VSI_LUT_SIZE;
        return v->rss_lut;
    }
}

static E810Vsi *rss_vsi(E810Core *c, E810AqCmd *cmd, const char *what)
{
    /* vsi_id leads both the key and the LUT commands */
    uint16_t id = ld16(aq_param(cmd, AQC_RSS_KEY_VSI_ID));
    E810Vsi *v = vsi_get(&c->fw.sw, id & AQC_VSI_NUM_M);

    if (!(id & AQC_RSS_VSI_VALID) || !v) {
        e810_guest_error(c, "%s: VSI 0x%x invalid or unknown", what, id);
        return NULL;
    }
    if (!cmd->has_buf) {
        e810_guest_error(c, "%s: no buffer", what);
        return NULL;
    }
    return v;
}

/* Set copies the buffer into @table, Get the table into the buffer. */
static void rss_copy(E810AqCmd *cmd, uint8_t *table, size_t n, bool set)
{
    if (set) {
        memcpy(table, cmd->buf, n);
    } else {
        memcpy(cmd->buf, table, n);
        cmd->resp_len = n;
    }
}

/* 0x0B02 / 0x0B04 Set / Get RSS Key */
int e810_sw_rss_key(E810Core *c, E810AqCmd *cmd)
{
    bool set = cmd->opcode == AQC_OPC_SET_RSS_KEY;
    E810Vsi *v = rss_vsi(c, cmd, set ? "set RSS key" : "get RSS key");
    size_t n;

    if (!v) {
        return E810_AQ_RC_EINVAL;
    }
    if (cmd->buf_len < AQC_RSS_KEY_STANDARD_SIZE) {
        e810_guest_error(c, "RSS key buffer of %u bytes", cmd->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    n = cmd->buf_len < E810_RSS_KEY_SIZE ? cmd->buf_len : E810_RSS_KEY_SIZE;
    rss_copy(cmd, v->rss_key, n, set);
    return E810_AQ_RC_OK;
}

/* 0x0B03 / 0x0B05 Set / Get RSS LUT (VSI, PF or global table) */
int e810_sw_rss_lut(E810Core *c, E810AqCmd *cmd)
{
    E810FwSwitch *sw = &c->fw.sw;
    bool set = cmd->opcode == AQC_OPC_SET_RSS_LUT;
    E810Vsi *v = rss_vsi(c, cmd, set ? "set RSS LUT" : "get RSS LUT");
    uint16_t flags = ld16(aq_param(cmd, AQC_RSS_LUT_FLAGS));
    unsigned size, cap;
    uint8_t *lut;

    if (!v) {
        return E810_AQ_RC_EINVAL;
    }
    size = flags & AQC_LUT_SIZE_2K ? 2048 : flags & AQC_LUT_SIZE_512 ? 512 : 64;
    switch (flags & AQC_LUT_TYPE_M) {
    case AQC_LUT_TYPE_VSI:
        lut = v->rss_lut;
        cap = E810_RSS_VSI_LUT_SIZE;
        break;
    case AQC_LUT_TYPE_PF:
        sw->lut_dirty = true;
        lut = sw->pf_lut;
        cap = E810_RSS_PF_LUT_SIZE;
        break;
    case AQC_LUT_TYPE_GLOBAL:
        sw->lut_dirty = true;
        lut = sw->global_lut[(flags >> AQC_LUT_GLOBAL_IDX_S) &
                             AQC_LUT_GLOBAL_IDX_M];
        cap = E810_RSS_GLOBAL_LUT_SIZE;
        break;
    default:
        e810_guest_error(c, "RSS LUT type %u", flags & AQC_LUT_TYPE_M);
        return E810_AQ_RC_EINVAL;
    }
    if (size > cap || cmd->buf_len < size) {
        e810_guest_error(c, "RSS LUT of %u entries (table %u, buffer %u)", size,
                         cap, cmd->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    if (set && (flags & AQC_LUT_TYPE_M) == AQC_LUT_TYPE_PF) {
        sw->pf_lut_size = size;
    }
    rss_copy(cmd, lut, size, set);
    return E810_AQ_RC_OK;
}

/* ---- reset ----------------------------------------------------------- */

/* Zero @sw as memset would, touching the tables' written chunks only. */
static void sw_zero(E810FwSwitch *sw)
{
    uint8_t *b = (uint8_t *)sw;

    E810_DIRTY_ZERO(sw->vsi, sw->vsi_dirty, E810_SW_VSI_CHUNK);
    E810_DIRTY_ZERO(sw->rule, sw->rule_dirty, E810_SW_RULE_CHUNK);
    E810_DIRTY_ZERO(sw->list, sw->list_dirty, E810_SW_LIST_CHUNK);
    if (sw->lut_dirty) {
        memset(sw->pf_lut, 0, sizeof(sw->pf_lut));
        memset(sw->global_lut, 0, sizeof(sw->global_lut));
    }
    /* Everything between and after the tables (the maps included). */
    memset(b + offsetof(E810FwSwitch, nvsi), 0,
           offsetof(E810FwSwitch, rule) - offsetof(E810FwSwitch, nvsi));
    memset(b + offsetof(E810FwSwitch, nrules), 0,
           offsetof(E810FwSwitch, list) - offsetof(E810FwSwitch, nrules));
    memset(b + offsetof(E810FwSwitch, res), 0,
           offsetof(E810FwSwitch, pf_lut) - offsetof(E810FwSwitch, res));
    memset(b + offsetof(E810FwSwitch, lk), 0,
           sizeof(*sw) - offsetof(E810FwSwitch, lk));
}

static void sw_clear(E810Core *c)
{
    E810FwSwitch *sw = &c->fw.sw;

    sw_zero(sw);
    sw->pf_lut_size = E810_RSS_PF_LUT_SIZE;
}

/* 0x02A4 Clear PF Configuration: VSIs, rules, lists, resources, Tx tree. */
int e810_sw_clear_pf_cfg(E810Core *c, E810AqCmd *cmd)
{
    sw_clear(c);
    e810_fw_sched_clear(c);
    trace_e810_fw_vsi("clear-pf", 0, 0);
    return E810_AQ_RC_OK;
}

void e810_fw_switch_reset(E810Core *c, E810ResetType type)
{
    sw_clear(c);
}

/* ---- saved state -------------------------------------------------------- */

/*
 * E810FwSwitch: the live VSIs (state != FREE), rules and lists (in_use),
 * res, the port parameters and the RSS tables are saved.  Derived on
 * load: nvsi and nrules (counts of the live entries), the entries' in_use
 * (true for what the stream holds), lk (the lookup cache: invalid after
 * the power-on reset).  Rule contents and list maps stay unchecked:
 * switch_lookup bounds the ids it takes from them.
 */
static const E810SnapField sw_vsi_fields[] = {
    SF_U(E810Vsi, state, E810_VSI_IN_USE, E810_VSI_RESERVED),
    SF_U(E810Vsi, type, 0, 3),          /* Add VSI keeps 2 bits */
    SF_UX(E810Vsi, vf_id),
    SF_BYTES(E810Vsi, ctx),
    SF_BYTES(E810Vsi, rss_key),
    SF_BYTES(E810Vsi, rss_lut),
    SF_END
};

static const E810SnapField sw_rule_fields[] = {
    SF_UX(E810SwRule, type),
    SF_UX(E810SwRule, recipe),
    SF_UX(E810SwRule, src),
    SF_UX(E810SwRule, act),
    SF_UX(E810SwRule, hdr_len),
    SF_BYTES(E810SwRule, hdr),
    SF_END
};

static const E810SnapField sw_list_fields[] = {
    SF_UX(E810VsiList, res_type),
    SF_BYTES(E810VsiList, map),
    SF_END
};

static const E810SnapField sw_fields[] = {
    SF_BYTES(E810FwSwitch, res),
    SF_UX(E810FwSwitch, port_flags),
    SF_UX(E810FwSwitch, bad_frame_vsi),
    SF_UX(E810FwSwitch, local_fwd_mode),
    SF_UX(E810FwSwitch, pf_lut_size),   /* checked below */
    SF_BYTES(E810FwSwitch, pf_lut),
    SF_BYTES(E810FwSwitch, global_lut),
    SF_END
};

static const E810SnapTable sw_vsi_table = {
    E810_SNAP_ARRAY("fw.sw.vsi", fw.sw.vsi, E810Vsi, sw_vsi_fields, state),
    E810_SNAP_MAP(fw.sw.vsi_dirty, E810_SW_VSI_CHUNK),
};

static const E810SnapTable sw_rule_table = {
    E810_SNAP_ARRAY("fw.sw.rule", fw.sw.rule, E810SwRule, sw_rule_fields,
                    in_use),
    E810_SNAP_MAP(fw.sw.rule_dirty, E810_SW_RULE_CHUNK),
};

static const E810SnapTable sw_list_table = {
    E810_SNAP_ARRAY("fw.sw.list", fw.sw.list, E810VsiList, sw_list_fields,
                    in_use),
    E810_SNAP_MAP(fw.sw.list_dirty, E810_SW_LIST_CHUNK),
};

/* The LUTs are loaded whole: the reset after a failed load zeroes them. */
static bool sw_load_begin(E810Core *c, E810SnapR *r)
{
    c->fw.sw.lut_dirty = true;
    return true;
}

static bool sw_load_check(E810Core *c, E810SnapR *r)
{
    E810FwSwitch *sw = &c->fw.sw;

    /* The sizes Set RSS LUT takes: lookups index pf_lut modulo this. */
    if (sw->pf_lut_size != E810_RSS_VSI_LUT_SIZE &&
        sw->pf_lut_size != E810_RSS_GLOBAL_LUT_SIZE &&
        sw->pf_lut_size != E810_RSS_PF_LUT_SIZE) {
        return e810_snap_fail(r, "fw.sw.pf_lut_size: %u is not 64, 512 or "
                              "2048", sw->pf_lut_size);
    }
    sw->nvsi = 0;
    sw->nrules = 0;
    for (unsigned i = 0; i < E810_FW_MAX_VSI; i++) {
        sw->nvsi += sw->vsi[i].state != E810_VSI_FREE;
    }
    for (unsigned i = 0; i < E810_FW_MAX_RULES; i++) {
        sw->nrules += sw->rule[i].in_use;
    }
    sw->lk.valid = false;
    return true;
}

static const E810SnapItem sw_items[] = {
    { .on_load = sw_load_begin },
    { .table = &sw_vsi_table },
    { .table = &sw_rule_table },
    { .table = &sw_list_table },
    E810_SNAP_FIELDS(fw.sw, sw_fields),
    { .on_load = sw_load_check },
    E810_SNAP_ITEMS_END
};

const E810SnapPart e810_fw_switch_snap = { .name = "fw.sw", .items = sw_items };
