/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RoCEv2 engine: frames on the wire.  Ethernet, optional 802.1Q tag,
 * IPv4 (no options, DF) or IPv6 (no extension headers), UDP to port 4791,
 * then the IB transport headers, payload, pad to 4 bytes and the
 * invariant CRC (IBA annex A17.3.3).
 */
#include "../dev.h"
#include "../bytes.h"
#include "../net/net.h"
#include "roce-int.h"


static size_t l3_len_of(const RocePath *p)
{
    return p->ipv4 ? 20 : 40;
}

size_t roce_frame_start(uint8_t *buf, const RocePath *p)
{
    size_t off = 12;
    uint8_t *ip;

    memcpy(buf, p->dmac, 6);
    memcpy(buf + 6, p->smac, 6);
    if (p->vlan) {
        stbe16(buf + off, ETH_P_8021Q);
        stbe16(buf + off + 2, p->vlan_tci);
        off += 4;
    }
    stbe16(buf + off, p->ipv4 ? ETH_P_IP : ETH_P_IPV6);
    off += 2;
    ip = buf + off;
    if (p->ipv4) {
        ip[0] = 0x45;
        ip[1] = p->tos;
        stbe16(ip + 4, 0);              /* identification */
        stbe16(ip + 6, 0x4000);         /* DF */
        ip[8] = p->ttl;
        ip[9] = IP_PROTO_UDP;
        memcpy(ip + 12, p->sip, 4);
        memcpy(ip + 16, p->dip, 4);
    } else {
        stbe32(ip, 6u << 28 | (uint32_t)p->tos << 20 |
                   (p->flow_label & 0xFFFFF));
        ip[6] = IP_PROTO_UDP;
        ip[7] = p->ttl;
        memcpy(ip + 8, p->sip, 16);
        memcpy(ip + 24, p->dip, 16);
    }
    off += l3_len_of(p);
    stbe16(buf + off, p->sport);
    stbe16(buf + off + 2, ROCE_UDP_PORT);
    return off + 8;
}

void roce_bth_put(uint8_t *bth, uint8_t opcode, bool se, unsigned padcnt,
                  uint16_t pkey, uint32_t dqpn, bool ackreq, uint32_t psn)
{
    bth[0] = opcode;
    bth[1] = (se ? 0x80 : 0) | (uint8_t)((padcnt & 3) << 4);  /* TVer 0 */
    stbe16(bth + 2, pkey);
    bth[4] = 0;
    roce_put24(bth + 5, dqpn & ROCE_QPN_MASK);
    bth[8] = ackreq ? 0x80 : 0;
    roce_put24(bth + 9, psn & ROCE_PSN_MASK);
}

uint32_t roce_icrc(const uint8_t *l3, size_t l3_len, size_t len)
{
    static const uint8_t lrh[8] = { 0xFF, 0xFF, 0xFF, 0xFF,
                                    0xFF, 0xFF, 0xFF, 0xFF };
    uint8_t m[40 + 8 + ROCE_BTH_LEN];
    size_t hl = l3_len + 8 + ROCE_BTH_LEN;
    uint32_t crc;

    /* The fields routers may change are ones in the CRC: the masked LRH
     * of RoCEv1, IP class/flow/TTL/checksum, UDP checksum, BTH F/B/resv. */
    memcpy(m, l3, hl);
    if (l3_len == 20) {
        m[1] = 0xFF;
        m[8] = 0xFF;
        m[10] = m[11] = 0xFF;
    } else {
        m[0] |= 0x0F;
        m[1] = m[2] = m[3] = 0xFF;
        m[7] = 0xFF;
    }
    m[l3_len + 6] = m[l3_len + 7] = 0xFF;
    m[l3_len + 8 + 4] = 0xFF;
    crc = e810_crc32_update(0xFFFFFFFFu, lrh, sizeof(lrh));
    crc = e810_crc32_update(crc, m, hl);
    crc = e810_crc32_update(crc, l3 + hl, len - hl);
    return ~crc;
}

size_t roce_frame_seal(uint8_t *buf, const RocePath *p, size_t bth_off,
                       size_t end)
{
    size_t l3l = l3_len_of(p), udp_off = bth_off - 8, l3_off = udp_off - l3l;
    uint8_t *ip = buf + l3_off, *udp = buf + udp_off;
    size_t udp_len = end + ROCE_ICRC_LEN - udp_off;
    uint32_t icrc;

    stbe16(udp + 4, (uint16_t)udp_len);
    stbe16(udp + 6, 0);
    if (p->ipv4) {
        stbe16(ip + 2, (uint16_t)(l3l + udp_len));
        stbe16(ip + 10, 0);
        stbe16(ip + 10, (uint16_t)~e810_csum_fold(e810_csum_add(0, ip,
                                                                     20)));
    } else {
        stbe16(ip + 4, (uint16_t)udp_len);
    }
    icrc = roce_icrc(ip, l3l, end - l3_off);
    st32(buf + end, icrc);              /* least significant byte first */
    if (!p->ipv4) {
        /* UDP over IPv6 must carry a checksum (RFC 8200 8.1). */
        uint32_t sum = e810_csum_pseudo(ip, true, IP_PROTO_UDP,
                                        (uint32_t)udp_len);
        uint16_t ck = (uint16_t)~e810_csum_fold(e810_csum_add(sum, udp,
                                                              udp_len));

        stbe16(udp + 6, ck ? ck : 0xFFFF);
    }
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
        memcpy(k->sip, k->l3 + 12, 4);
        memcpy(k->dip, k->l3 + 16, 4);
    } else {
        memcpy(k->sip, k->l3 + 8, 16);
        memcpy(k->dip, k->l3 + 24, 16);
    }
    udp = e810_frame_l4(fr);
    udp_len = ldbe16(udp + 4);
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
    k->opcode = bth[0];
    k->se = bth[1] & 0x80;
    k->mig = bth[1] & 0x40;
    k->padcnt = (bth[1] >> 4) & 3;
    k->pkey = ldbe16(bth + 2);
    k->dqpn = roce_be24(bth + 5);
    k->ackreq = bth[8] & 0x80;
    k->psn = roce_be24(bth + 9);
    if (bth[1] & 0x0F) {
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
