/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Core unit tests: switch (0x02xx), RSS (0x0B0x), scheduler (0x04xx) and Tx
 * queue (0x0C3x) firmware commands, in the order the ice driver probes and
 * opens, then malformed input and full tables.
 */
#include "aq-util.h"
#include "net-util.h"
#include "check.h"

static AqTest t;
static AqMsg m;

static const uint8_t mac0[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t mcast[6] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 };

/* Topology learnt from 0x0400 */
static uint32_t root_teid, tc_teid, ep_teid;

/* ---- command helpers (layouts per ice_adminq_cmd.h) ------------------- */

static int direct(uint16_t op)
{
    aq_msg_init(&m, op, 0, false);
    return aq_send(&t, &m);
}

static int clear_pf_cfg(void)
{
    return direct(0x02A4);
}

static int get_dflt_topo(void)
{
    int rc;

    aq_msg_init(&m, 0x0400, 4096, false);
    rc = aq_send(&t, &m);
    if (rc == 0) {
        root_teid = ld32(m.buf + 8 + 4);
        tc_teid = ld32(m.buf + 8 + 24 + 4);
        ep_teid = ld32(m.buf + 8 + 48 + 4);
    }
    return rc;
}

static int query(uint32_t teid, uint8_t *elem)
{
    int rc;

    aq_msg_init(&m, 0x0404, 24, true);
    st16(m.desc + 16, 1);
    st32(m.buf + 4, teid);
    rc = aq_send(&t, &m);
    if (rc == 0) {
        CHECK_EQ(ld16(m.desc + 18), 1);
        CHECK_EQ(aq_datalen(&m), 24);
        if (elem) {
            memcpy(elem, m.buf, 24);
        }
    }
    return rc;
}

static uint32_t parent_of(uint32_t teid)
{
    uint8_t e[24];

    return query(teid, e) == 0 ? ld32(e) : 0xdeadbeef;
}

/* 0x0401: @n generic nodes under @parent, TEIDs into @teids. */
static int add_nodes(uint32_t parent, unsigned n, uint32_t *teids)
{
    int rc;

    aq_msg_init(&m, 0x0401, 8 + 24 * n, true);
    st16(m.desc + 16, 1);
    st32(m.buf, parent);
    st16(m.buf + 4, n);
    for (unsigned i = 0; i < n; i++) {
        uint8_t *e = m.buf + 8 + 24 * i;

        st32(e, parent);
        e[8] = 3;               /* SE_GENERIC */
        e[9] = 7;
        st16(e + 8 + 6, 4);
        st16(e + 8 + 10, 4);
    }
    rc = aq_send(&t, &m);
    if (rc == 0) {
        CHECK_EQ(ld16(m.desc + 18), 1);
        for (unsigned i = 0; i < n; i++) {
            teids[i] = ld32(m.buf + 8 + 24 * i + 4);
        }
    }
    return rc;
}

static uint32_t add_node(uint32_t parent)
{
    uint32_t teid = 0;

    CHECK_EQ(add_nodes(parent, 1, &teid), 0);
    CHECK(teid != 0 && teid != 0xFFFFFFFFu);
    /* The driver queries every node it adds. */
    CHECK_EQ(parent_of(teid), parent);
    return teid;
}

/* A group header's end and its one TEID at @off of the buffer:
 * num_elems 1, 2 reserved bytes, @teid. */
static void put_one_teid(unsigned off, uint32_t teid)
{
    st16(m.buf + off, 1);
    st32(m.buf + off + 4, teid);
}

static int del_node(uint32_t parent, uint32_t teid)
{
    aq_msg_init(&m, 0x040F, 12, true);
    st16(m.desc + 16, 1);
    st32(m.buf, parent);
    put_one_teid(4, teid);
    return aq_send(&t, &m);
}

static int move_node(uint32_t src, uint32_t dst, uint32_t teid)
{
    aq_msg_init(&m, 0x0408, 16, true);
    st16(m.desc + 16, 1);
    st32(m.buf, src);
    st32(m.buf + 4, dst);
    put_one_teid(8, teid);
    return aq_send(&t, &m);
}

static int add_txq(uint32_t parent, uint16_t q, uint64_t ring, uint16_t qlen,
                   uint16_t vsi, uint32_t *teid)
{
    uint8_t *ctx = m.buf + 16;
    int rc;

    aq_txq_msg(&m, parent, q, ring, qlen, vsi);
    /* The rest of what ice_setup_tx_ctx sets (pf_num stays 0). */
    put_bits(ctx, 90, 1, 1);            /* tsyn_ena */
    put_bits(ctx, 164, 1, 1);           /* legacy_int */
    rc = aq_send(&t, &m);
    if (rc == 0) {
        CHECK_EQ(aq_datalen(&m), 56);
        *teid = ld32(m.buf + 12);
    }
    return rc;
}

static int dis_txq(uint32_t parent, uint16_t id)
{
    aq_dis_txq_msg(&m, parent, id);
    return aq_send(&t, &m);
}

static int add_qset(uint32_t parent, uint16_t handle, uint32_t *teid)
{
    int rc;

    aq_add_qset_msg(&m, parent, handle);
    rc = aq_send(&t, &m);
    if (rc == 0) {
        *teid = ld32(m.buf + 12);
    }
    return rc;
}

/* A PF VSI context as ice_vsi_init sends it: queues @first.. (@n), PF LUT. */
static void vsi_ctx(uint8_t *b, uint16_t first, uint16_t n)
{
    memset(b, 0, 128);
    st16(b, (1 << 0) | (1 << 1) | (1 << 2) | (1 << 6) | (1 << 7));
    b[4] = 1 << 4;                      /* LAN enable */
    b[12] = 3 | (3 << 3);               /* Tx all, show nothing */
    st16(b + 30, first);
    st16(b + 32, n);
    st16(b + 62, 2 << 11);              /* TC0: offset 0, 4 queues */
    b[78] = 2;                          /* PF LUT */
}

static int add_vsi(uint16_t *num)
{
    int rc;

    aq_msg_init(&m, 0x0210, 128, true);
    st16(m.desc + 22, 2);               /* PF type */
    vsi_ctx(m.buf, 0, 4);
    rc = aq_send(&t, &m);
    if (rc == 0) {
        *num = ld16(m.desc + 16) & 0x3FF;
    }
    return rc;
}

static int update_vsi(uint16_t num, uint16_t valid, unsigned off, uint8_t val)
{
    aq_msg_init(&m, 0x0211, 128, true);
    st16(m.desc + 16, num | 0x8000);
    st16(m.buf, valid);
    m.buf[off] = val;
    return aq_send(&t, &m);
}

static int free_vsi(uint16_t num, bool keep)
{
    aq_msg_init(&m, 0x0213, 0, false);
    st16(m.desc + 16, num | 0x8000);
    st16(m.desc + 18, keep ? 1 : 0);
    return aq_send(&t, &m);
}

/* struct ice_sw_rule_lkup_rx_tx with the 16-byte dummy header. */
static void lkup_rule(uint8_t *r, uint16_t type, uint16_t recipe, uint16_t src,
                      uint32_t act, const uint8_t *da, int vlan)
{
    memset(r, 0, 32);
    st16(r, type);
    st16(r + 4, recipe);
    st16(r + 6, src);
    st32(r + 8, act);
    st16(r + 14, 16);
    r[16 + 0] = 2;
    r[16 + 6] = 2;
    r[16 + 12] = 0x81;
    if (da) {
        memcpy(r + 16, da, 6);
    }
    if (vlan >= 0) {
        r[16 + 12] = 0x81;
        r[16 + 13] = 0x00;
        r[16 + 14] = vlan >> 8;
        r[16 + 15] = vlan & 0xff;
    }
}

#define ACT_FWD_VSI(v)  (((uint32_t)(v) << 4) | (1u << 17) | (1u << 2) | (1u << 3))

static int add_rule(uint16_t type, uint16_t recipe, uint16_t src, uint32_t act,
                    const uint8_t *da, int vlan, uint16_t *idx)
{
    int rc;

    aq_msg_init(&m, 0x02A0, 32, true);
    st16(m.desc + 16, 1);
    lkup_rule(m.buf, type, recipe, src, act, da, vlan);
    rc = aq_send(&t, &m);
    if (rc == 0 && idx) {
        CHECK_EQ(aq_datalen(&m), 32);
        *idx = ld16(m.buf + 12);
    }
    return rc;
}

static int add_mac_rule(uint16_t vsi, const uint8_t *da, uint16_t *idx)
{
    return add_rule(1, 1, vsi, ACT_FWD_VSI(vsi), da, -1, idx);
}

static int remove_rule(uint16_t idx)
{
    /* As ice_fill_sw_rule does for removal: type 0, no header. */
    aq_msg_init(&m, 0x02A2, 16, true);
    st16(m.desc + 16, 1);
    st16(m.buf + 12, idx);
    return aq_send(&t, &m);
}

/* As ice_aq_alloc_free_res: allocate (0x0208) @n resources of @type, their
 * IDs into @ids if not NULL, or free (0x0209) the @n in @ids. */
static int alloc_free_res(uint16_t op, uint16_t type, uint16_t n,
                          uint16_t *ids)
{
    bool alloc = op == 0x0208;
    int rc;

    aq_msg_init(&m, op, 4 + 2 * n, true);
    st16(m.desc + 16, 1);
    st16(m.buf, type);
    st16(m.buf + 2, n);
    for (unsigned i = 0; !alloc && i < n; i++) {
        st16(m.buf + 4 + 2 * i, ids[i]);
    }
    rc = aq_send(&t, &m);
    for (unsigned i = 0; alloc && rc == 0 && ids && i < n; i++) {
        ids[i] = ld16(m.buf + 4 + 2 * i);
    }
    return rc;
}

static int alloc_res(uint16_t type, uint16_t n, uint16_t *ids)
{
    return alloc_free_res(0x0208, type, n, ids);
}

static int free_res(uint16_t type, uint16_t id)
{
    return alloc_free_res(0x0209, type, 1, &id);
}

static int list_rule(uint16_t op, uint16_t type, uint16_t list, uint16_t vsi)
{
    aq_msg_init(&m, op, 10, true);
    st16(m.desc + 16, 1);
    st16(m.buf, type);
    st16(m.buf + 4, list);
    st16(m.buf + 6, 1);
    st16(m.buf + 8, vsi);
    return aq_send(&t, &m);
}

static int lookup(const uint8_t *da, uint16_t vlan, uint16_t *vsis)
{
    return e810_fw_switch_lookup(&t.c, da, vlan, vsis, 8);
}

/* Probe-time scheduler bring-up; leaves the VSI path's queue group. */
static void probe_sched(void)
{
    CHECK_EQ(get_dflt_topo(), 0);
    CHECK_EQ(del_node(tc_teid, ep_teid), 0);
}

/* ---- tests ------------------------------------------------------------- */

static void test_probe_open_flow(void)
{
    uint32_t l[8], agg3, agg4, txq_teid, rl6, rl7, qset_teid, teid;
    uint16_t vsi, bc_idx, mac_idx, vsis[8], list_id, prune_idx, promisc_idx;
    const E810TxQueueCtx *q;
    uint8_t e[24];
    unsigned errors;

    aq_test_init(&t);
    errors = t.h.guest_errors;

    /* ice_init_hw: clear PF config, switch config, scheduler resources. */
    CHECK_EQ(clear_pf_cfg(), 0);
    aq_msg_init(&m, 0x0200, 2048, false);
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(ld16(m.desc + 18), 0);                 /* no continuation */
    CHECK_EQ(ld16(m.desc + 20), 1);
    CHECK_EQ(aq_datalen(&m), 6);
    CHECK_EQ(ld16(m.buf) >> 14, 0);                 /* physical port */
    CHECK_EQ(ld16(m.buf) & 0x3FF, 0);

    aq_msg_init(&m, 0x0412, 320, false);
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(ld16(m.buf + 2), 9);                   /* logical_levels */
    CHECK_EQ(ld16(m.buf + 0), 9);
    CHECK_EQ(ld16(m.buf + 32 + 1 * 32 + 10), 8);    /* TCs per root */
    CHECK_EQ(ld16(m.buf + 32 + 5 * 32 + 10), 16);
    CHECK_EQ(ld16(m.buf + 32 + 8 * 32 + 10), 8);    /* leaves per queue group */
    CHECK(ld16(m.buf + 32 + 3 * 32 + 12) != 0);     /* CIR profiles */

    /* ice_sched_init_port: default branch, query, delete default nodes. */
    aq_msg_init(&m, 0x0400, 4096, false);
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(m.desc[17], 1);                        /* num_branches */
    CHECK_EQ(ld16(m.buf + 4), 3);                   /* num_elems */
    CHECK_EQ(m.buf[8 + 0 * 24 + 8], 1);             /* root */
    CHECK_EQ(m.buf[8 + 1 * 24 + 8], 2);             /* TC */
    CHECK_EQ(m.buf[8 + 2 * 24 + 8], 4);             /* entry point at layer 2 */
    root_teid = ld32(m.buf + 8 + 4);
    tc_teid = ld32(m.buf + 8 + 24 + 4);
    ep_teid = ld32(m.buf + 8 + 48 + 4);
    CHECK_EQ(ld32(m.buf + 8 + 24), root_teid);
    CHECK_EQ(ld32(m.buf + 8 + 48), tc_teid);
    CHECK(root_teid && tc_teid && ep_teid);
    CHECK_EQ(query(tc_teid, e), 0);
    CHECK_EQ(ld32(e), root_teid);
    CHECK_EQ(ld32(e + 4), tc_teid);
    CHECK_EQ(e[8], 2);
    CHECK_EQ(query(ep_teid, e), 0);
    CHECK_EQ(ld32(e), tc_teid);
    CHECK_EQ(e[8], 4);
    CHECK_EQ(del_node(tc_teid, ep_teid), 0);
    CHECK_EQ(ld16(m.desc + 18), 1);
    CHECK_EQ(query(ep_teid, NULL), E810_AQ_RC_EINVAL);

    /* ice_alloc_fd_res_cntr */
    CHECK_EQ(alloc_res(0x21, 1, NULL), 0);
    CHECK_EQ(aq_datalen(&m), 6);

    /* ice_init_pf_sw: port params, PF VSI. */
    aq_msg_init(&m, 0x0203, 0, false);
    m.desc[22] = 1 << 2;
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(add_vsi(&vsi), 0);
    CHECK_EQ(ld16(m.desc + 20), 1);                 /* vsi_used */
    CHECK_EQ(ld16(m.desc + 22), 767);               /* vsi_free */
    CHECK(e810_fw_vsi_ctx(&t.c, vsi) != NULL);
    CHECK_EQ(e810_fw_vsi_num_rxq(&t.c, vsi), 4);
    CHECK_EQ(e810_fw_vsi_rxq(&t.c, vsi, 3), 3);
    CHECK_EQ(e810_fw_vsi_rxq(&t.c, vsi, 4), -1);
    CHECK(!e810_fw_vsi_pe_enabled(&t.c, vsi));

    /* ice_sched_add_vsi_to_topo / child nodes: layers 2..7 */
    l[1] = tc_teid;
    for (unsigned i = 2; i <= 7; i++) {
        l[i] = add_node(l[i - 1]);
    }
    /* ice_set_agg_vsi: aggregator at layer 3 + node at 4, move the VSI node. */
    agg3 = add_node(l[2]);
    agg4 = add_node(agg3);
    CHECK_EQ(move_node(l[4], agg4, l[5]), 0);
    CHECK_EQ(ld16(m.desc + 18), 1);
    CHECK_EQ(parent_of(l[5]), agg4);
    CHECK_EQ(parent_of(l[7]), l[6]);

    /* ice_vsi_cfg_txq: one queue and its leaf. */
    CHECK_EQ(add_txq(l[7], 3, 0x12345680ull, 256, vsi, &txq_teid), 0);
    CHECK_EQ(query(txq_teid, e), 0);
    CHECK_EQ(ld32(e), l[7]);
    CHECK_EQ(e[8], 5);                              /* leaf */
    q = e810_fw_txq(&t.c, 3);
    CHECK(q && q->enabled);
    CHECK_EQ(q->base, 0x12345680ull);
    CHECK_EQ(q->qlen, 256);
    CHECK_EQ(q->src_vsi, vsi);
    CHECK_EQ(q->teid, txq_teid);
    CHECK_EQ(q->vmvf_type, 2);
    CHECK(q->legacy_int && q->tso_ena && q->tsyn_ena);
    CHECK_EQ(q->tso_qnum, 3);
    CHECK(!e810_fw_txq(&t.c, 2)->enabled);
    CHECK(e810_fw_txq(&t.c, E810_FW_MAX_TXQ) == NULL);

    /* ice_init_mac_fltr: permanent MAC and broadcast, Tx rules. */
    CHECK_EQ(add_mac_rule(vsi, mac0, &mac_idx), 0);
    CHECK_EQ(add_mac_rule(vsi, bcast_mac, &bc_idx), 0);
    CHECK(mac_idx != bc_idx);
    CHECK_EQ(lookup(mac0, E810_VLAN_NONE, vsis), 1);
    CHECK_EQ(vsis[0], vsi);
    CHECK_EQ(lookup(bcast_mac, E810_VLAN_NONE, vsis), 1);
    CHECK_EQ(lookup(nobody_mac, E810_VLAN_NONE, vsis), 0);
    CHECK_EQ(lookup(mcast, E810_VLAN_NONE, vsis), 0);
    /* Bring-up so far refused nothing but the deleted entry point's query. */
    CHECK_EQ(t.h.guest_errors, errors + 1);

    /* ice_vsi_vlan_setup: VLAN pruning, VLAN 0 through a prune list. */
    CHECK_EQ(update_vsi(vsi, 1 << 0, 4, (1 << 4) | 1), 0);
    CHECK_EQ(alloc_res(0x04 | 0x80, 1, &list_id), 0);
    CHECK_EQ(list_rule(0x02A0, 5, list_id, vsi), 0);
    CHECK_EQ(add_rule(1, 4, vsi, (1u << 14) | ((uint32_t)list_id << 4) | 2 |
                      (1u << 15) | (1u << 16), NULL, 0, &prune_idx), 0);
    CHECK_EQ(lookup(mac0, E810_VLAN_NONE, vsis), 1);
    CHECK_EQ(lookup(mac0, 0, vsis), 1);             /* priority-tagged */
    CHECK_EQ(lookup(mac0, 5, vsis), 0);             /* pruned */

    /* ALLMULTI: an Rx promiscuous rule for multicast. */
    {
        const uint8_t mc_pattern[6] = { 0x03, 0, 0, 0, 0, 0 };

        CHECK_EQ(add_rule(0, 3, 0, ACT_FWD_VSI(vsi), mc_pattern, -1,
                          &promisc_idx), 0);
        CHECK_EQ(lookup(mcast, E810_VLAN_NONE, vsis), 1);
        CHECK_EQ(lookup(nobody_mac, E810_VLAN_NONE, vsis), 0);
        CHECK_EQ(lookup(mcast, E810_VLAN_NONE, vsis), 1);
        CHECK_EQ(lookup(mcast, E810_VLAN_NONE, vsis), 1);  /* cached */
        CHECK_EQ(vsis[0], vsi);
        CHECK_EQ(remove_rule(promisc_idx), 0);
        /* the removal is seen by the very next (cached) lookup */
        CHECK_EQ(lookup(mcast, E810_VLAN_NONE, vsis), 0);
    }

    /* irdma: PE filter on through Update VSI (Q_OPT section only). */
    CHECK_EQ(update_vsi(vsi, 1 << 7, 80, 1), 0);
    CHECK(e810_fw_vsi_pe_enabled(&t.c, vsi));
    CHECK_EQ(e810_fw_vsi_num_rxq(&t.c, vsi), 4);    /* other sections kept */
    CHECK_EQ(e810_fw_vsi_ctx(&t.c, vsi)[4], (1 << 4) | 1);

    /* RDMA qsets: RDMA-owned layers 6-7 under the VSI node, one qset. */
    rl6 = add_node(l[5]);
    rl7 = add_node(rl6);
    CHECK_EQ(add_qset(rl7, 0x11, &qset_teid), 0);
    CHECK_EQ(query(qset_teid, e), 0);
    CHECK_EQ(ld32(e), rl7);
    CHECK_EQ(e[8], 5);
    CHECK(e810_fw_rdma_qset_teid(&t.c, 0x11, &teid));
    CHECK_EQ(teid, qset_teid);
    CHECK_EQ(dis_txq(rl7, 0x11 | 0x8000), 0);
    CHECK(!e810_fw_rdma_qset_teid(&t.c, 0x11, &teid));
    CHECK_EQ(dis_txq(rl7, 0x11 | 0x8000), E810_AQ_RC_ENOENT);
    CHECK_EQ(update_vsi(vsi, 1 << 7, 80, 0), 0);
    CHECK(!e810_fw_vsi_pe_enabled(&t.c, vsi));

    /* ndo_stop: rules away (a stale index is ENOENT), queue disabled. */
    CHECK_EQ(remove_rule(mac_idx), 0);
    CHECK_EQ(remove_rule(mac_idx), E810_AQ_RC_ENOENT);
    CHECK_EQ(remove_rule(999), E810_AQ_RC_ENOENT);
    CHECK_EQ(remove_rule(60000), E810_AQ_RC_ENOENT);
    CHECK_EQ(lookup(mac0, E810_VLAN_NONE, vsis), 0);
    CHECK_EQ(lookup(bcast_mac, E810_VLAN_NONE, vsis), 1);
    CHECK_EQ(dis_txq(l[7], 3), 0);
    CHECK(!e810_fw_txq(&t.c, 3)->enabled);
    CHECK_EQ(query(txq_teid, NULL), E810_AQ_RC_EINVAL);
    CHECK_EQ(dis_txq(l[7], 3), E810_AQ_RC_ENOENT);
    /* VLAN 0 removal: list cleared and freed, rule removed. */
    CHECK_EQ(remove_rule(prune_idx), 0);
    CHECK_EQ(list_rule(0x02A1, 6, list_id, vsi), 0);
    CHECK_EQ(free_res(0x04, list_id), 0);
    CHECK_EQ(free_res(0x04, list_id), E810_AQ_RC_ENOENT);

    /* Teardown: sched nodes, then the VSI (its remaining rule goes too). */
    CHECK_EQ(del_node(agg4, l[5]), 0);              /* takes 6, 7 and RDMA nodes */
    CHECK_EQ(query(l[7], NULL), E810_AQ_RC_EINVAL);
    CHECK_EQ(query(rl7, NULL), E810_AQ_RC_EINVAL);
    CHECK_EQ(free_vsi(vsi, false), 0);
    CHECK_EQ(ld16(m.desc + 20), 0);
    CHECK_EQ(ld16(m.desc + 22), 768);
    CHECK(e810_fw_vsi_ctx(&t.c, vsi) == NULL);
    CHECK_EQ(lookup(bcast_mac, E810_VLAN_NONE, vsis), 0);
    CHECK_EQ(free_vsi(vsi, false), E810_AQ_RC_ENOENT);
    aq_test_cleanup(&t);
}

/* Something of everything, for the reset tests. */
static void populate(uint16_t *vsi, uint32_t *qg)
{
    uint32_t n = tc_teid, teid;
    uint16_t idx;

    probe_sched();
    CHECK_EQ(add_vsi(vsi), 0);
    for (unsigned i = 2; i <= 7; i++) {
        n = add_node(n);
    }
    *qg = n;
    CHECK_EQ(add_txq(n, 0, 0x100000, 64, *vsi, &teid), 0);
    CHECK_EQ(add_mac_rule(*vsi, bcast_mac, &idx), 0);
    CHECK_EQ(alloc_res(0x60 | (1 << 13), 1, NULL), 0);
}

static void check_default_state(uint16_t vsi)
{
    uint16_t vsis[8];
    const E810SchedNode *ep;

    CHECK(e810_fw_vsi_ctx(&t.c, vsi) == NULL);
    CHECK(!e810_fw_txq(&t.c, 0)->enabled);
    CHECK_EQ(lookup(bcast_mac, E810_VLAN_NONE, vsis), 0);
    CHECK_EQ(t.c.fw.sched.nnodes, 3);
    CHECK_EQ(t.c.fw.sw.nrules, 0);
    ep = e810_fw_sched_node(&t.c, t.c.fw.sched.ep_teid);
    CHECK(ep && ep->layer == 2 && ep->data[0] == 4);
}

static void test_clear_pf_config(void)
{
    uint16_t vsi, id;
    uint32_t qg;

    aq_test_init(&t);
    populate(&vsi, &qg);
    CHECK_EQ(clear_pf_cfg(), 0);
    check_default_state(vsi);
    /* Resources are handed out from 0 again. */
    CHECK_EQ(alloc_res(0x60 | (1 << 13), 1, &id), 0);
    CHECK_EQ(id, 0);
    /* The rebuild path runs the default topology again. */
    CHECK_EQ(get_dflt_topo(), 0);
    CHECK_EQ(ld16(m.buf + 4), 3);
    aq_test_cleanup(&t);
}

static void test_pf_reset(void)
{
    uint16_t vsi;
    uint32_t qg, gen;

    aq_test_init(&t);
    populate(&vsi, &qg);
    gen = e810_fw_txq(&t.c, 0)->gen;
    /* PFSWR through the register, as ice_pf_reset does. */
    aq_wr(&t, PFGEN_CTRL, PFGEN_CTRL_PFSWR);
    check_default_state(vsi);
    /* The Tx engine can tell a re-created queue from the old one. */
    CHECK_EQ(e810_fw_txq(&t.c, 0)->gen, gen);
    CHECK_EQ(t.c.fw.sw.nvsi, 0);
    aq_test_cleanup(&t);
}

static void test_txq_context_fields(void)
{
    uint32_t n = 0, teid;
    uint16_t vsi;
    const E810TxQueueCtx *q;
    uint8_t *ctx = m.buf + 8 + 8;

    aq_test_init(&t);
    probe_sched();
    CHECK_EQ(add_vsi(&vsi), 0);
    n = tc_teid;
    for (unsigned i = 2; i <= 7; i++) {
        n = add_node(n);
    }
    /* Every field at its ice_tlan_ctx_fields position, distinct values. */
    aq_msg_init(&m, 0x0C30, 56, true);
    m.desc[16] = 1;
    st32(m.buf, n);
    m.buf[4] = 1;
    st16(m.buf + 8, 2047);
    put_bits(ctx, 0, 57, 0x1ABCDEF012345ull);
    put_bits(ctx, 57, 3, 5);
    put_bits(ctx, 60, 5, 17);
    put_bits(ctx, 65, 3, 6);
    put_bits(ctx, 68, 10, 777);
    put_bits(ctx, 78, 2, 1);
    put_bits(ctx, 80, 10, 1000);
    put_bits(ctx, 92, 1, 1);
    put_bits(ctx, 93, 8, 0xA5);
    put_bits(ctx, 101, 1, 1);
    put_bits(ctx, 105, 9, 300);
    put_bits(ctx, 114, 14, 9999);
    put_bits(ctx, 135, 13, 8160);
    put_bits(ctx, 148, 4, 9);
    put_bits(ctx, 153, 11, 2000);
    put_bits(ctx, 165, 1, 1);
    m.buf[8 + 32 + 1] = 1;
    CHECK_EQ(aq_send(&t, &m), 0);
    teid = ld32(m.buf + 8 + 4);
    q = e810_fw_txq(&t.c, 2047);
    CHECK(q->enabled);
    CHECK_EQ(q->teid, teid);
    CHECK_EQ(q->base, 0x1ABCDEF012345ull << 7);
    CHECK_EQ(q->port_num, 5);
    CHECK_EQ(q->cgd_num, 17);
    CHECK_EQ(q->pf_num, 6);
    CHECK_EQ(q->vmvf_num, 777);
    CHECK_EQ(q->vmvf_type, 1);
    CHECK_EQ(q->src_vsi, 1000);
    CHECK(!q->tsyn_ena);
    CHECK(q->alt_vlan);
    CHECK_EQ(q->cpuid, 0xA5);
    CHECK(q->wb_mode);
    CHECK_EQ(q->cmpq_id, 300);
    CHECK_EQ(q->qnum_in_func, 9999);
    CHECK_EQ(q->qlen, 8160);
    CHECK_EQ(q->quanta_prof_idx, 9);
    CHECK(!q->tso_ena);
    CHECK_EQ(q->tso_qnum, 2000);
    CHECK(!q->legacy_int);
    CHECK(q->drop_ena);
    CHECK_EQ(q->raw[21], ctx[21]);
    /* Deleting the queue group takes the queue with it. */
    CHECK_EQ(del_node(parent_of(n), n), 0);
    CHECK(!e810_fw_txq(&t.c, 2047)->enabled);
    CHECK_EQ(query(teid, NULL), E810_AQ_RC_EINVAL);
    aq_test_cleanup(&t);
}

static void test_rss(void)
{
    uint16_t vsi;
    unsigned size;
    const uint8_t *lut;

    aq_test_init(&t);
    CHECK_EQ(add_vsi(&vsi), 0);

    aq_msg_init(&m, 0x0B02, 52, true);
    st16(m.desc + 16, vsi | 0x8000);
    for (unsigned i = 0; i < 52; i++) {
        m.buf[i] = i + 1;
    }
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(e810_fw_rss_key(&t.c, vsi)[51], 52);
    aq_msg_init(&m, 0x0B04, 52, false);
    st16(m.desc + 16, vsi | 0x8000);
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(aq_datalen(&m), 52);
    CHECK_EQ(m.buf[0], 1);
    CHECK_EQ(m.buf[40], 41);

    /* PF LUT of 2048 (type 1, size 2K), as ice_set_rss_lut for the PF VSI. */
    aq_msg_init(&m, 0x0B03, 2048, true);
    st16(m.desc + 16, vsi | 0x8000);
    st16(m.desc + 18, 1 | (1 << 3));
    for (unsigned i = 0; i < 2048; i++) {
        m.buf[i] = i % 4;
    }
    CHECK_EQ(aq_send(&t, &m), 0);
    lut = e810_fw_rss_lut(&t.c, vsi, &size);
    CHECK_EQ(size, 2048);
    CHECK(lut && lut[2047] == 3 && lut[5] == 1);
    aq_msg_init(&m, 0x0B05, 2048, false);
    st16(m.desc + 16, vsi | 0x8000);
    st16(m.desc + 18, 1 | (1 << 3));
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(aq_datalen(&m), 2048);
    CHECK_EQ(m.buf[6], 2);

    /* VSI LUT, and a context pointing at it. */
    aq_msg_init(&m, 0x0B03, 64, true);
    st16(m.desc + 16, vsi | 0x8000);
    memset(m.buf, 7, 64);
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(update_vsi(vsi, 1 << 7, 78, 0), 0);
    lut = e810_fw_rss_lut(&t.c, vsi, &size);
    CHECK_EQ(size, 64);
    CHECK_EQ(lut[63], 7);

    /* Refused: a 2K table in 64 bytes, no valid bit, unknown VSI, bad type. */
    aq_msg_init(&m, 0x0B03, 64, true);
    st16(m.desc + 16, vsi | 0x8000);
    st16(m.desc + 18, 1 | (1 << 3));
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_msg_init(&m, 0x0B03, 64, true);
    st16(m.desc + 16, vsi);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_msg_init(&m, 0x0B02, 52, true);
    st16(m.desc + 16, 500 | 0x8000);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_msg_init(&m, 0x0B03, 512, true);
    st16(m.desc + 16, vsi | 0x8000);
    st16(m.desc + 18, 3 | (1 << 2));
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_msg_init(&m, 0x0B02, 16, true);
    st16(m.desc + 16, vsi | 0x8000);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    CHECK(e810_fw_rss_key(&t.c, 700) == NULL);
    aq_test_cleanup(&t);
}

static void test_resources(void)
{
    uint16_t ids[256], id;

    aq_test_init(&t);
    /* Profiles / TCAM entries count from 0, per type. */
    CHECK_EQ(alloc_res(0x60 | (1 << 13), 2, ids), 0);
    CHECK_EQ(ids[0], 0);
    CHECK_EQ(ids[1], 1);
    CHECK_EQ(alloc_res(0x61 | (1 << 13) | (1 << 12), 1, ids), 0);
    CHECK_EQ(ids[0], 0);
    CHECK_EQ(free_res(0x60, 0), 0);
    CHECK_EQ(alloc_res(0x60 | (1 << 13), 1, &id), 0);
    CHECK_EQ(id, 0);
    /* FD pools: num_elems is an amount, one handle comes back. */
    CHECK_EQ(alloc_res(0x22, 1, NULL), 0);
    aq_msg_init(&m, 0x0208, 6, true);
    st16(m.desc + 16, 1);
    st16(m.buf, 0x23);
    st16(m.buf + 2, 1024);
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(aq_datalen(&m), 6);
    /* Exhaustion, unknown types and IDs. */
    CHECK_EQ(alloc_res(0x58, 256, ids), 0);
    CHECK_EQ(ids[255], 255);
    CHECK_EQ(alloc_res(0x58, 1, ids), E810_AQ_RC_ENOSPC);
    CHECK_EQ(alloc_res(0x7E, 1, ids), E810_AQ_RC_EINVAL);
    CHECK_EQ(free_res(0x59, 7), E810_AQ_RC_ENOENT);
    CHECK_EQ(free_res(0x04, 999), E810_AQ_RC_ENOENT);
    /* More elements than the buffer holds. */
    aq_msg_init(&m, 0x0208, 6, true);
    st16(m.desc + 16, 1);
    st16(m.buf, 0x60);
    st16(m.buf + 2, 100);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_msg_init(&m, 0x0208, 4, true);
    st16(m.desc + 16, 1);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    /* VSI lists run out too. */
    for (unsigned i = 0; i < E810_FW_MAX_VSI_LISTS; i++) {
        CHECK_EQ(alloc_res(0x03, 1, &id), 0);
    }
    CHECK_EQ(alloc_res(0x03, 1, &id), E810_AQ_RC_ENOSPC);
    aq_test_cleanup(&t);
}

static void test_vsi_limits(void)
{
    uint16_t num = 0;
    unsigned errors;

    aq_test_init(&t);
    errors = t.h.guest_errors;
    for (unsigned i = 0; i < E810_FW_MAX_VSI; i++) {
        CHECK_EQ(add_vsi(&num), 0);
    }
    CHECK_EQ(num, 767);
    CHECK_EQ(add_vsi(&num), E810_AQ_RC_ENOSPC);
    CHECK_EQ(free_vsi(100, true), 0);               /* keep allocation */
    CHECK_EQ(add_vsi(&num), E810_AQ_RC_ENOSPC);
    aq_msg_init(&m, 0x0210, 128, true);
    st16(m.desc + 16, 100 | 0x8000);                /* reuse the kept one */
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(ld16(m.desc + 16), 100);
    st16(m.desc + 16, 100 | 0x8000);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EEXIST);
    CHECK_EQ(free_vsi(5, false), 0);
    CHECK_EQ(add_vsi(&num), 0);
    CHECK_EQ(num, 5);
    /* Out of range, short context, unknown VSI. */
    aq_msg_init(&m, 0x0210, 128, true);
    st16(m.desc + 16, 800 | 0x8000);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    CHECK_EQ(free_vsi(5, false), 0);
    aq_msg_init(&m, 0x0210, 64, true);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    CHECK_EQ(update_vsi(900, 1, 4, 0), E810_AQ_RC_EINVAL);
    CHECK_EQ(update_vsi(5, 1, 4, 0), E810_AQ_RC_ENOENT);
    CHECK_EQ(free_vsi(1023, false), E810_AQ_RC_EINVAL);
    aq_msg_init(&m, 0x0211, 0, false);
    st16(m.desc + 16, 6 | 0x8000);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);   /* no buffer */
    CHECK(t.h.guest_errors > errors);
    aq_test_cleanup(&t);
}

static void test_rule_limits(void)
{
    uint16_t vsi, idx, list;
    uint8_t da[6] = { 0x02, 0, 0, 0, 0, 0 };
    unsigned added = 0;
    int rc = 0;

    aq_test_init(&t);
    CHECK_EQ(add_vsi(&vsi), 0);
    /* Malformed: count beyond the buffer, header beyond it, bad targets. */
    aq_msg_init(&m, 0x02A0, 32, true);
    st16(m.desc + 16, 10);
    lkup_rule(m.buf, 1, 1, vsi, ACT_FWD_VSI(vsi), mac0, -1);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_msg_init(&m, 0x02A0, 32, true);
    st16(m.desc + 16, 1);
    lkup_rule(m.buf, 1, 1, vsi, ACT_FWD_VSI(vsi), mac0, -1);
    st16(m.buf + 14, 5000);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_msg_init(&m, 0x02A0, 32, true);
    st16(m.desc + 16, 1);
    lkup_rule(m.buf, 9, 1, vsi, ACT_FWD_VSI(vsi), mac0, -1);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);   /* unknown rule type */
    CHECK_EQ(add_rule(1, 1, vsi, ACT_FWD_VSI(700), mac0, -1, NULL), E810_AQ_RC_EINVAL);
    CHECK_EQ(add_rule(1, 1, 700, ACT_FWD_VSI(vsi), mac0, -1, NULL), E810_AQ_RC_EINVAL);
    CHECK_EQ(add_rule(1, 1, vsi, (1u << 14) | (200u << 4) | (1u << 17), mac0, -1,
                      NULL), E810_AQ_RC_EINVAL);     /* unallocated list */
    CHECK_EQ(add_rule(1, 200, vsi, ACT_FWD_VSI(vsi), mac0, -1, NULL),
             E810_AQ_RC_EINVAL);                     /* recipe out of range */
    CHECK_EQ(list_rule(0x02A0, 3, 42, vsi), E810_AQ_RC_ENOENT);
    CHECK_EQ(alloc_res(0x03, 1, &list), 0);
    CHECK_EQ(list_rule(0x02A0, 3, list, 4000), E810_AQ_RC_EINVAL);
    CHECK_EQ(t.c.fw.sw.nrules, 0);

    /* Two rules in one buffer; a bad second one adds neither. */
    aq_msg_init(&m, 0x02A0, 64, true);
    st16(m.desc + 16, 2);
    lkup_rule(m.buf, 1, 1, vsi, ACT_FWD_VSI(vsi), mac0, -1);
    lkup_rule(m.buf + 32, 1, 1, vsi, ACT_FWD_VSI(701), nobody_mac, -1);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    CHECK_EQ(t.c.fw.sw.nrules, 0);
    lkup_rule(m.buf + 32, 1, 1, vsi, ACT_FWD_VSI(vsi), nobody_mac, -1);
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(t.c.fw.sw.nrules, 2);
    CHECK(ld16(m.buf + 12) != ld16(m.buf + 32 + 12));

    /* Forward to a replication list. */
    CHECK_EQ(list_rule(0x02A0, 3, list, vsi), 0);
    CHECK_EQ(add_rule(1, 1, vsi, (1u << 14) | ((uint32_t)list << 4) | (1u << 17),
                      mcast, -1, &idx), 0);
    {
        uint16_t vsis[8];

        CHECK_EQ(lookup(mcast, E810_VLAN_NONE, vsis), 1);
        CHECK_EQ(vsis[0], vsi);
        CHECK_EQ(lookup(mcast, E810_VLAN_NONE, vsis), 1);
        /* Update the rule to drop: no longer delivered. */
        aq_msg_init(&m, 0x02A1, 32, true);
        st16(m.desc + 16, 1);
        lkup_rule(m.buf, 1, 1, vsi, (1u << 18) | (1u << 17), NULL, -1);
        st16(m.buf + 12, idx);
        st16(m.buf + 14, 0);
        CHECK_EQ(aq_send(&t, &m), 0);
        CHECK_EQ(lookup(mcast, E810_VLAN_NONE, vsis), 0);
        st16(m.buf + 12, 1000);
        CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_ENOENT);
    }

    /* Fill the table. */
    while (added < E810_FW_MAX_RULES + 1) {
        da[5] = added;
        da[4] = added >> 8;
        rc = add_mac_rule(vsi, da, &idx);
        if (rc) {
            break;
        }
        added++;
    }
    CHECK_EQ(rc, E810_AQ_RC_ENOSPC);
    CHECK_EQ(t.c.fw.sw.nrules, E810_FW_MAX_RULES);
    CHECK_EQ(remove_rule(idx), 0);
    CHECK_EQ(add_mac_rule(vsi, da, &idx), 0);
    aq_test_cleanup(&t);
}

static void test_sched_malformed(void)
{
    uint32_t l[8], teid, ids[16];
    unsigned nodes;

    aq_test_init(&t);
    /* A short topology buffer: ENOMEM and the size needed. */
    aq_msg_init(&m, 0x0400, 100, false);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_ENOMEM);
    CHECK_EQ(aq_datalen(&m), 224);
    aq_msg_init(&m, 0x0412, 64, false);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_ENOMEM);
    CHECK_EQ(aq_datalen(&m), 320);
    probe_sched();
    l[1] = tc_teid;
    for (unsigned i = 2; i <= 7; i++) {
        l[i] = add_node(l[i - 1]);
    }
    nodes = t.c.fw.sched.nnodes;

    /* Counts beyond the buffer. */
    aq_msg_init(&m, 0x0401, 64, true);
    st16(m.desc + 16, 1);
    st32(m.buf, l[3]);
    st16(m.buf + 4, 200);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_msg_init(&m, 0x0401, 32, true);
    st16(m.desc + 16, 3);                           /* 3 groups, room for 1 */
    st32(m.buf, l[3]);
    st16(m.buf + 4, 1);
    m.buf[16] = 3;
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    CHECK_EQ(t.c.fw.sched.nnodes, nodes);           /* rolled back */
    aq_msg_init(&m, 0x0404, 24, true);
    st16(m.desc + 16, 100);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_msg_init(&m, 0x040F, 12, true);
    st16(m.desc + 16, 1);
    st32(m.buf, l[6]);
    st16(m.buf + 4, 50);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);

    /* Unknown TEIDs and wrong places. */
    CHECK_EQ(query(0, NULL), E810_AQ_RC_EINVAL);
    CHECK_EQ(query(0xFFFFFFFFu, NULL), E810_AQ_RC_EINVAL);
    CHECK_EQ(query(0xdead, NULL), E810_AQ_RC_EINVAL);
    CHECK_EQ(add_nodes(0xdead, 1, ids), E810_AQ_RC_EINVAL);
    CHECK_EQ(add_nodes(root_teid, 1, ids), E810_AQ_RC_EINVAL);   /* layer 1 */
    CHECK_EQ(add_nodes(l[7], 1, ids), E810_AQ_RC_EINVAL);        /* layer 8 */
    CHECK_EQ(del_node(root_teid, tc_teid), E810_AQ_RC_EPERM);
    CHECK_EQ(del_node(l[3], l[5]), E810_AQ_RC_EINVAL);           /* not its child */
    CHECK_EQ(del_node(l[3], 0x7777), E810_AQ_RC_EINVAL);
    CHECK_EQ(move_node(l[4], l[2], l[5]), E810_AQ_RC_EINVAL);    /* wrong layer */
    CHECK_EQ(move_node(l[4], 0x7777, l[5]), E810_AQ_RC_EINVAL);
    CHECK_EQ(move_node(l[3], l[4], l[5]), E810_AQ_RC_EINVAL);    /* wrong source */
    CHECK_EQ(add_txq(l[6], 1, 0x1000, 64, 0, &teid), E810_AQ_RC_EINVAL);
    CHECK_EQ(add_txq(0x7777, 1, 0x1000, 64, 0, &teid), E810_AQ_RC_EINVAL);
    CHECK_EQ(add_txq(l[7], 5000, 0x1000, 64, 0, &teid), E810_AQ_RC_EINVAL);
    CHECK_EQ(add_txq(l[7], 1, 0x1000, 0, 0, &teid), E810_AQ_RC_EINVAL);
    CHECK_EQ(add_txq(l[7], 1, 0x1000, 64, 0, &teid), 0);
    CHECK_EQ(add_txq(l[7], 1, 0x1000, 64, 0, &teid), E810_AQ_RC_EEXIST);
    CHECK_EQ(add_qset(l[6], 1, &teid), E810_AQ_RC_EINVAL);
    CHECK_EQ(add_qset(l[7], 0x8001, &teid), E810_AQ_RC_EINVAL);
    aq_msg_init(&m, 0x0C30, 56, true);
    m.desc[16] = 1;
    st32(m.buf, l[7]);
    m.buf[4] = 5;                                   /* 5 queues in 56 bytes */
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_msg_init(&m, 0x0C31, 8, true);
    m.desc[17] = 1;
    st32(m.buf, l[7]);
    m.buf[4] = 200;
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    CHECK(e810_fw_txq(&t.c, 1)->enabled);
    aq_msg_init(&m, 0x0C31, 0, false);              /* VF reset flavour */
    CHECK_EQ(aq_send(&t, &m), 0);
    aq_msg_init(&m, 0x0409, 8, true);
    st16(m.desc + 16, 2);
    st32(m.buf, l[3]);
    st32(m.buf + 4, 0x7777);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    st32(m.buf + 4, l[4]);
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(e810_fw_sched_node(&t.c, l[4])->data[3] & 1, 1);
    st16(m.desc + 2, 0x040A);
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(e810_fw_sched_node(&t.c, l[4])->data[3] & 1, 0);

    /* Configure keeps the element type. */
    aq_msg_init(&m, 0x0403, 24, true);
    st16(m.desc + 16, 1);
    st32(m.buf + 4, l[4]);
    st16(m.buf + 8 + 4, 9);                         /* CIR profile */
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(ld16(m.desc + 18), 1);
    CHECK_EQ(e810_fw_sched_node(&t.c, l[4])->data[0], 3);
    CHECK_EQ(ld16(e810_fw_sched_node(&t.c, l[4])->data + 4), 9);

    /* RL profiles get IDs from 1; unknown removal is ENOENT. */
    aq_msg_init(&m, 0x0410, 12, true);
    st16(m.desc + 16, 1);
    m.buf[0] = 3;
    m.buf[1] = 1;
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(ld16(m.desc + 18), 1);
    CHECK_EQ(ld16(m.buf + 2), 1);
    st16(m.desc + 2, 0x0415);
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_ENOENT);
    aq_msg_init(&m, 0x0410, 12, true);
    st16(m.desc + 16, 1);
    m.buf[0] = 0;                                   /* levels are 1..9 */
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    for (unsigned i = 0; i < E810_SCHED_MAX_RL_PROF; i++) {
        m.buf[0] = 2;
        CHECK_EQ(aq_send(&t, &m), 0);
    }
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_ENOSPC);
    CHECK_EQ(direct(0x0417), E810_AQ_RC_ESRCH);
    /*
     * Get Tx Topology as ice_cfg_tx_topo() sends it (RD, 4 KiB buffer, get
     * flags = RAM): no LOAD_NEW/ISSUED flag, so with the 9 logical layers of
     * 0x0412 ice takes the "default topology already applied" exit.
     */
    aq_msg_init(&m, 0x0418, 4096, true);
    m.desc[16] = 0xFF;
    m.desc[17] = 2;
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(m.desc[16] & 0x30, 0);
    CHECK_EQ(E810_SCHED_LAYERS, 9);
    CHECK_EQ(direct(0x0291), E810_AQ_RC_ESRCH);
    aq_test_cleanup(&t);
}

static void test_sched_full(void)
{
    uint32_t l2[16], l3[16], l4[16], qg, teid;
    unsigned total, before;
    int rc = 0;

    aq_test_init(&t);
    probe_sched();
    /* A queue group takes 8 leaves, the 9th is refused. */
    qg = tc_teid;
    for (unsigned i = 2; i <= 7; i++) {
        qg = add_node(qg);
    }
    for (unsigned q = 0; q < 8; q++) {
        CHECK_EQ(add_txq(qg, q, 0x1000 * (q + 1), 64, 0, &teid), 0);
    }
    CHECK_EQ(add_txq(qg, 8, 0x9000, 64, 0, &teid), E810_AQ_RC_ENOSPC);
    CHECK(!e810_fw_txq(&t.c, 8)->enabled);
    CHECK_EQ(clear_pf_cfg(), 0);
    probe_sched();

    /* 16 per parent under the TC, then fill the whole node table. */
    CHECK_EQ(add_nodes(tc_teid, 16, l2), 0);
    CHECK_EQ(add_nodes(tc_teid, 1, l3), E810_AQ_RC_ENOSPC);
    for (unsigned a = 0; a < 16 && !rc; a++) {
        rc = add_nodes(l2[a], 16, l3);
        for (unsigned b = 0; b < 16 && !rc; b++) {
            rc = add_nodes(l3[b], 16, l4);
        }
    }
    CHECK_EQ(rc, E810_AQ_RC_ENOSPC);
    total = t.c.fw.sched.nnodes;
    CHECK(total > E810_SCHED_MAX_NODES - 16);
    CHECK(total <= E810_SCHED_MAX_NODES);
    /* Deleting a layer-2 node frees its 16 x 16 descendants too. */
    before = t.c.fw.sched.nnodes;
    CHECK_EQ(del_node(tc_teid, l2[0]), 0);
    CHECK_EQ(t.c.fw.sched.nnodes, before - 1 - 16 - 256);
    CHECK_EQ(e810_fw_sched_node(&t.c, tc_teid)->nchildren, 15);
    aq_test_cleanup(&t);
}

static void test_no_buffer(void)
{
    static const uint16_t ops[] = {
        0x0200, 0x0208, 0x0209, 0x0210, 0x02A0, 0x02A1, 0x02A2, 0x0B02, 0x0B03,
        0x0B04, 0x0B05, 0x0400, 0x0401, 0x0403, 0x0404, 0x0408, 0x0409, 0x040F,
        0x0410, 0x0412, 0x0415, 0x0C30, 0x0C33,
    };
    uint16_t vsi;

    aq_test_init(&t);
    CHECK_EQ(add_vsi(&vsi), 0);
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        aq_msg_init(&m, ops[i], 0, false);
        st16(m.desc + 16, 1);
        m.desc[17] = 1;
        st16(m.desc + 16, vsi | 0x8000);
        m.desc[16] = 1;
        CHECK(aq_send(&t, &m) != 0);
    }
    aq_test_cleanup(&t);
}

/*
 * ice's first Add VSI flags only the security section valid, yet relies on
 * the queue map it filled in: Add VSI must take the whole context.
 */
static void test_add_vsi_whole_context(void)
{
    uint16_t num;

    aq_test_init(&t);
    aq_msg_init(&m, 0x0210, 128, true);
    st16(m.desc + 22, 2);               /* PF type */
    vsi_ctx(m.buf, 8, 4);
    st16(m.buf, 1 << 1);                /* valid_sections: security only */
    CHECK_EQ(aq_send(&t, &m), 0);
    num = ld16(m.desc + 16) & 0x3FF;
    CHECK_EQ(e810_fw_vsi_num_rxq(&t.c, num), 4);
    CHECK_EQ(e810_fw_vsi_rxq(&t.c, num, 0), 8);
    CHECK_EQ(e810_fw_vsi_rxq(&t.c, num, 3), 11);
    aq_test_cleanup(&t);
}

int main(void)
{
    RUN(test_probe_open_flow);
    RUN(test_clear_pf_config);
    RUN(test_pf_reset);
    RUN(test_txq_context_fields);
    RUN(test_rss);
    RUN(test_resources);
    RUN(test_vsi_limits);
    RUN(test_rule_limits);
    RUN(test_sched_malformed);
    RUN(test_sched_full);
    RUN(test_no_buffer);
    RUN(test_add_vsi_whole_context);
    return CHECK_DONE();
}
