/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 firmware model: DCB as the card ships it, with the firmware's LLDP
 * agent running in IEEE mode and one traffic class (ETS 100 % on TC 0, PFC
 * off, willing), no LLDP peer.  ice reads it at probe (ice_init_dcb): the
 * DCBX status (PRTDCB_GENS: done), the CEE config (none: IEEE), the local
 * MIB (an LLDPDU with the ETS and PFC TLVs) and the remote one (none), then
 * the port's ETS (its one TC node).  No MIB changes: no event is sent.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../bytes.h"
#include "../../trace.h"

/* IEEE 802.1Qaz TLVs in an LLDPDU: header = type << 9 | length (BE). */
#define LLDP_TLV(type, len)     ((type) << 9 | (len))
#define LLDP_ORG_TLV            127
#define LLDP_8021_OUI           0x0080C2
#define LLDP_ETS_CFG            9
#define LLDP_ETS_REC            10
#define LLDP_PFC_CFG            11
#define LLDP_ETS_LEN            25      /* OUI, subtype, 1 + 4 + 8 + 8 */
#define LLDP_PFC_LEN            6
#define LLDP_TSA_ETS            2
#define LLDP_WILLING            0x80
#define LLDP_MIB_LEN            100

static size_t put_tlv(uint8_t *p, unsigned type, unsigned len)
{
    stbe16(p, LLDP_TLV(type, len));
    return 2;
}

/* An ETS TLV (CFG or REC): every priority on TC 0, TC 0 ETS at 100 %. */
static size_t put_ets(uint8_t *p, unsigned subtype, uint8_t first)
{
    size_t n = put_tlv(p, LLDP_ORG_TLV, LLDP_ETS_LEN);

    stbe32(p + n, LLDP_8021_OUI << 8 | subtype);
    p[n + 4] = first;                   /* willing, CBS, max TCs (0 = 8) */
    memset(p + n + 5, 0, 4 + 8 + 8);    /* priority table: all TC 0 */
    p[n + 9] = 100;                     /* TC 0's bandwidth */
    p[n + 17] = LLDP_TSA_ETS;           /* TC 0's algorithm */
    return n + LLDP_ETS_LEN;
}

/* The local MIB as the agent sends it, Ethernet header first. */
static size_t lldp_local_mib(E810Core *c, uint8_t *b)
{
    static const uint8_t nearest_bridge[6] = { 0x01, 0x80, 0xC2, 0, 0, 0x0E };
    size_t n = 0;

    memcpy(b, nearest_bridge, 6);
    memcpy(b + 6, c->mac, 6);
    stbe16(b + 12, 0x88CC);
    n = 14;
    n += put_tlv(b + n, 1, 7);          /* chassis ID: a MAC address */
    b[n++] = 4;
    memcpy(b + n, c->mac, 6);
    n += 6;
    n += put_tlv(b + n, 2, 7);          /* port ID: a MAC address */
    b[n++] = 3;
    memcpy(b + n, c->mac, 6);
    n += 6;
    n += put_tlv(b + n, 3, 2);          /* TTL */
    stbe16(b + n, 120);
    n += 2;
    n += put_ets(b + n, LLDP_ETS_CFG, LLDP_WILLING);
    n += put_ets(b + n, LLDP_ETS_REC, 0);
    n += put_tlv(b + n, LLDP_ORG_TLV, LLDP_PFC_LEN);
    stbe32(b + n, LLDP_8021_OUI << 8 | LLDP_PFC_CFG);
    b[n + 4] = LLDP_WILLING | 8;        /* PFC capable on 8 TCs */
    b[n + 5] = 0;                       /* none enabled */
    n += LLDP_PFC_LEN;
    n += put_tlv(b + n, 0, 0);          /* end of LLDPDU */
    return n;
}

/* 0x0A00 Get LLDP MIB */
int e810_lldp_get_mib(E810Core *c, E810AqCmd *cmd)
{
    uint8_t type = *aq_param(cmd, AQC_LLDP_GET_MIB_TYPE);
    uint8_t mib[LLDP_MIB_LEN];
    size_t n;

    if (!cmd->has_buf) {
        e810_guest_error(c, "LLDP Get MIB without a buffer");
        return E810_AQ_RC_EINVAL;
    }
    /* The agent talks to the nearest bridge only, and no peer answers. */
    if ((type & AQC_LLDP_BRID_TYPE_M) ||
        (type & AQC_LLDP_MIB_TYPE_M) != AQC_LLDP_MIB_LOCAL) {
        return E810_AQ_RC_ENOENT;
    }
    n = lldp_local_mib(c, mib);
    if (cmd->buf_len < n) {
        return E810_AQ_RC_ENOMEM;
    }
    memcpy(cmd->buf, mib, n);
    st16(aq_param(cmd, AQC_LLDP_GET_MIB_LOCAL_LEN), n);
    st16(aq_param(cmd, AQC_LLDP_GET_MIB_REMOTE_LEN), 0);
    cmd->resp_len = n;
    return E810_AQ_RC_OK;
}

/* 0x0A08 Set Local LLDP MIB: one TC is all the port runs; the MIB the
 * agent sends stays as it is. */
int e810_lldp_local_mib(E810Core *c, E810AqCmd *cmd)
{
    uint16_t len = ld16(aq_param(cmd, AQC_LLDP_SET_LOCAL_MIB_LENGTH));

    if (!cmd->has_buf || len > cmd->buf_len) {
        e810_guest_error(c, "LLDP Set Local MIB: length %u, buffer %u",
                         len, cmd->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    return E810_AQ_RC_OK;
}

/* 0x040E Query Port ETS: TC 0 and its node under the root; the other
 * TCs have none (ICE_INVAL_TEID). */
int e810_dcb_query_port_ets(E810Core *c, E810AqCmd *cmd)
{
    const E810FwSched *s = &c->fw.sched;
    uint32_t teid = ld32(aq_param(cmd, AQC_PORT_ETS_PORT_TEID));
    uint8_t *b = cmd->buf;

    if (!cmd->has_buf || cmd->buf_len < AQC_PORT_ETS_ELEM_SIZE) {
        e810_guest_error(c, "Query Port ETS: a buffer of %u bytes",
                         cmd->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    if (!s->root_teid || teid != s->root_teid) {
        e810_guest_error(c, "Query Port ETS: TEID %u is not the port's "
                         "root (%u)", teid, s->root_teid);
        return E810_AQ_RC_EINVAL;
    }
    memset(b, 0, AQC_PORT_ETS_ELEM_SIZE);
    b[AQC_PORT_ETS_TC_VALID_BITS] = 0x01;
    st32(b + AQC_PORT_ETS_UP2TC, 0);
    b[AQC_PORT_ETS_TC_BW_SHARE] = 100;
    for (unsigned tc = 0; tc < 8; tc++) {
        st32(b + AQC_PORT_ETS_TC_NODE_TEID + 4 * tc,
             tc ? E810_SCHED_INVAL_TEID : s->tc_teid);
    }
    cmd->resp_len = AQC_PORT_ETS_ELEM_SIZE;
    return E810_AQ_RC_OK;
}
