/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RoCEv2 engine: frames on the wire.  Ethernet, optional 802.1Q tag,
 * IPv4 (no options, DF) or IPv6 (no extension headers), UDP to port 4791,
 * then the IB transport headers, payload, pad to 4 bytes and the
 * invariant CRC (IBA annex A17.3.3).  Ethernet, IP and UDP come from
 * the core's one frame builder (net/build.c).
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../bytes.h"
#include "../net/net.h"
#include "roce-int.h"


/* The builder's view of a RoCEv2 path: UDP to port 4791, IPv4 ID 0. */
static void net_path(const RocePath *p, E810NetPath *np)
{
    memcpy(np->dmac, p->dmac, 6);
    memcpy(np->smac, p->smac, 6);
    np->vlan = p->vlan;
    np->vlan_tci = p->vlan_tci;
    np->ipv4 = p->ipv4;
    memcpy(np->sip, p->sip, 16);
    memcpy(np->dip, p->dip, 16);
    np->tos = p->tos;
    np->ttl = p->ttl;
    np->flow_label = p->flow_label;
    np->ip_id = 0;
    np->proto = IP_PROTO_UDP;
    np->sport = p->sport;
    np->dport = ROCE_UDP_PORT;
}

size_t roce_frame_start(uint8_t *buf, const RocePath *p)
{
    E810NetPath np;

    net_path(p, &np);
    return e810_frame_start(buf, &np) + UDP_HLEN;
}

void roce_bth_put(uint8_t *bth, uint8_t opcode, bool se, unsigned padcnt,
                  uint16_t pkey, uint32_t dqpn, bool ackreq, uint32_t psn)
{
    bth[ROCE_BTH_OPCODE] = opcode;
    /* TVer 0 */
    bth[ROCE_BTH_FLAGS] = (se ? ROCE_BTH_SE : 0) |
                          ((padcnt << ROCE_BTH_PAD_S) & ROCE_BTH_PAD_M);
    stbe16(bth + ROCE_BTH_PKEY, pkey);
    bth[ROCE_BTH_DESTQP - 1] = 0;
    roce_put24(bth + ROCE_BTH_DESTQP, dqpn & ROCE_QPN_MASK);
    bth[ROCE_BTH_ACK] = ackreq ? ROCE_BTH_ACKREQ : 0;
    roce_put24(bth + ROCE_BTH_PSN, psn & ROCE_PSN_MASK);
}

uint32_t roce_icrc(const uint8_t *l3, size_t l3_len, size_t len)
{
    static const uint8_t lrh[8] = { 0xFF, 0xFF, 0xFF, 0xFF,
                                    0xFF, 0xFF, 0xFF, 0xFF };
    uint8_t m[IPV6_HLEN + UDP_HLEN + ROCE_BTH_LEN];
    size_t hl = l3_len + UDP_HLEN + ROCE_BTH_LEN;
    uint32_t crc;

    /* The fields routers may change are ones in the CRC: the masked LRH
     * of RoCEv1, IP class/flow/TTL/checksum, UDP checksum, BTH F/B/resv. */
    memcpy(m, l3, hl);
    if (l3_len == IPV4_HLEN) {
        m[IPV4_OFF_TOS] = 0xFF;
        m[IPV4_OFF_TTL] = 0xFF;
        memset(m + IPV4_OFF_CSUM, 0xFF, 2);
    } else {
        m[IPV6_OFF_VER_TC_FL] |= 0x0F;
        memset(m + IPV6_OFF_VER_TC_FL + 1, 0xFF, 3);
        m[IPV6_OFF_HLIM] = 0xFF;
    }
    memset(m + l3_len + UDP_OFF_CSUM, 0xFF, 2);
    m[l3_len + UDP_HLEN + 4] = 0xFF;  /* BTH resv8a */
    crc = e810_crc32_update(0xFFFFFFFFu, lrh, sizeof(lrh));
    crc = e810_crc32_update(crc, m, hl);
    crc = e810_crc32_update(crc, l3 + hl, len - hl);
    return ~crc;
}

size_t roce_frame_seal(uint8_t *buf, const RocePath *p, size_t bth_off,
                       size_t end)
{
    E810NetPath np;
    size_t l3_off;

    net_path(p, &np);
    l3_off = e810_frame_l3_start(&np);
    /* The ICRC covers the lengths but not the UDP checksum, which covers
     * the ICRC: lengths, ICRC, then the checksum. */
    e810_frame_set_lengths(buf, &np, end + ROCE_ICRC_LEN);
    st32(buf + end, roce_icrc(buf + l3_off, bth_off - UDP_HLEN - l3_off,
                              end - l3_off));   /* LSB first */
    e810_frame_l4_csum(buf, &np, end + ROCE_ICRC_LEN);
    return end + ROCE_ICRC_LEN;
}

bool roce_parse_frame(const E810Frame *fr, RocePkt *k, const char **bad)
{
    const uint8_t *udp, *bth;
    size_t udp_len;

    *bad = NULL;
    memset(k, 0, sizeof(*k));
    if ((!fr->ipv4 && !fr->ipv6) || fr->proto != IP_PROTO_UDP || fr->frag ||
        !fr->have_ports || fr->dport != ROCE_UDP_PORT) {
        return false;                   /* not RoCEv2 (a fragment: LAN's) */
    }
    /* From here on it is RoCEv2: anything wrong is a drop. */
    memcpy(k->smac, fr->data + 6, 6);
    k->vlan = fr->vlan != E810_FRAME_NO_VLAN;
    k->vlan_tci = fr->tci;
    k->ipv4 = fr->ipv4;
    k->l3 = e810_frame_l3(fr);
    k->l3_len = fr->l3_hlen;
    if (fr->ip_options || fr->ip_ext || fr->ntags > 1) {
        *bad = "IP options or extension headers, or two VLAN tags";
        return true;
    }
    if (!fr->l3_ok) {
        *bad = "IP length";
        return true;
    }
    if (!fr->l3_csum_ok) {
        *bad = "IPv4 header checksum";
        return true;
    }
    if (!fr->l4_csum_ok) {
        *bad = "UDP checksum";
        return true;
    }
    if (k->ipv4) {
        memcpy(k->sip, k->l3 + IPV4_OFF_SRC, 4);
        memcpy(k->dip, k->l3 + IPV4_OFF_DST, 4);
    } else {
        memcpy(k->sip, k->l3 + IPV6_OFF_SRC, 16);
        memcpy(k->dip, k->l3 + IPV6_OFF_DST, 16);
    }
    udp = e810_frame_l4(fr);
    udp_len = ldbe16(udp + UDP_OFF_LEN);
    if (udp_len != fr->l4_len) {
        *bad = "UDP length";
        return true;
    }
    if (udp_len < UDP_HLEN + ROCE_BTH_LEN + ROCE_ICRC_LEN) {
        *bad = "short transport header";
        return true;
    }
    if (roce_icrc(k->l3, k->l3_len, fr->l3_end - fr->l3_off - ROCE_ICRC_LEN) !=
        ld32(fr->data + fr->l3_end - ROCE_ICRC_LEN)) {
        *bad = "ICRC";
        return true;
    }
    k->sport = fr->sport;
    bth = udp + UDP_HLEN;
    k->opcode = bth[ROCE_BTH_OPCODE];
    k->se = bth[ROCE_BTH_FLAGS] & ROCE_BTH_SE;
    k->mig = bth[ROCE_BTH_FLAGS] & ROCE_BTH_MIG;
    k->padcnt = (bth[ROCE_BTH_FLAGS] & ROCE_BTH_PAD_M) >> ROCE_BTH_PAD_S;
    k->pkey = ldbe16(bth + ROCE_BTH_PKEY);
    k->dqpn = roce_be24(bth + ROCE_BTH_DESTQP);
    k->ackreq = bth[ROCE_BTH_ACK] & ROCE_BTH_ACKREQ;
    k->psn = roce_be24(bth + ROCE_BTH_PSN);
    if (bth[ROCE_BTH_FLAGS] & ROCE_BTH_TVER_M) {
        *bad = "transport header version";
        return true;
    }
    k->ext = bth + ROCE_BTH_LEN;
    k->ext_len = udp_len - UDP_HLEN - ROCE_BTH_LEN - ROCE_ICRC_LEN;
    return true;
}

bool roce_parse(const uint8_t *f, size_t len, RocePkt *k, const char **bad)
{
    E810Frame fr;

    e810_frame_parse(&fr, f, len);
    return roce_parse_frame(&fr, k, bad);
}
