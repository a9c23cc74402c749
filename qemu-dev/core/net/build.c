/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One frame builder for everything the device sends on its own: the
 * iWARP engine's TCP segments, RoCEv2's UDP datagrams and the PUDA's
 * frames.  A frame is started from its path (headers with their lengths
 * still open), filled by the sender, then sealed: lengths, the IPv4
 * header checksum and the TCP/UDP checksum.
 */
#include "qemu/osdep.h"
#include "net.h"
#include "../bytes.h"

size_t e810_frame_l3_start(const E810NetPath *p)
{
    return ETH_HLEN + (p->vlan ? VLAN_TAG_LEN : 0);
}

size_t e810_frame_l4_start(const E810NetPath *p)
{
    return e810_frame_l3_start(p) + (p->ipv4 ? IPV4_HLEN : IPV6_HLEN);
}

static void put_ipv4(uint8_t *ip, const E810NetPath *p)
{
    ip[IPV4_OFF_VER_IHL] = IPV4_VER_IHL_5;
    ip[IPV4_OFF_TOS] = p->tos;
    stbe16(ip + IPV4_OFF_TOT_LEN, 0);
    stbe16(ip + IPV4_OFF_ID, p->ip_id);
    stbe16(ip + IPV4_OFF_FRAG, IPV4_DF);
    ip[IPV4_OFF_TTL] = p->ttl;
    ip[IPV4_OFF_PROTO] = p->proto;
    stbe16(ip + IPV4_OFF_CSUM, 0);
    memcpy(ip + IPV4_OFF_SRC, p->sip, 4);
    memcpy(ip + IPV4_OFF_DST, p->dip, 4);
}

static void put_ipv6(uint8_t *ip, const E810NetPath *p)
{
    stbe32(ip + IPV6_OFF_VER_TC_FL, 6u << 28 | (uint32_t)p->tos << 20 |
                                    (p->flow_label & IPV6_FLOW_M));
    stbe16(ip + IPV6_OFF_PLEN, 0);
    ip[IPV6_OFF_NH] = p->proto;
    ip[IPV6_OFF_HLIM] = p->ttl;
    memcpy(ip + IPV6_OFF_SRC, p->sip, 16);
    memcpy(ip + IPV6_OFF_DST, p->dip, 16);
}

size_t e810_frame_start(uint8_t *buf, const E810NetPath *p)
{
    size_t l3 = e810_frame_l3_start(p), l4 = e810_frame_l4_start(p);

    memcpy(buf + ETH_OFF_DST, p->dmac, 6);
    memcpy(buf + ETH_OFF_SRC, p->smac, 6);
    if (p->vlan) {
        stbe16(buf + ETH_OFF_TYPE, ETH_P_8021Q);
        stbe16(buf + ETH_OFF_TYPE + VLAN_OFF_TCI, p->vlan_tci);
    }
    stbe16(buf + l3 - 2, p->ipv4 ? ETH_P_IP : ETH_P_IPV6);
    if (p->ipv4) {
        put_ipv4(buf + l3, p);
    } else {
        put_ipv6(buf + l3, p);
    }
    /* TCP and UDP put their ports at the same offsets. */
    stbe16(buf + l4 + UDP_OFF_SPORT, p->sport);
    stbe16(buf + l4 + UDP_OFF_DPORT, p->dport);
    return l4;
}

void e810_tcp_put(uint8_t *th, uint32_t seq, uint32_t ack, uint8_t flags,
                  uint16_t win)
{
    stbe32(th + TCP_OFF_SEQ, seq);
    stbe32(th + TCP_OFF_ACK, ack);
    th[TCP_OFF_DOFF] = (TCP_HLEN / 4) << 4;
    th[TCP_OFF_FLAGS] = flags;
    stbe16(th + TCP_OFF_WIN, win);
    stbe16(th + TCP_OFF_CSUM, 0);
    stbe16(th + TCP_OFF_URG, 0);
}

void e810_frame_set_lengths(uint8_t *buf, const E810NetPath *p, size_t end)
{
    size_t l3 = e810_frame_l3_start(p), l4 = e810_frame_l4_start(p);
    uint8_t *ip = buf + l3;

    if (p->proto == IP_PROTO_UDP) {
        stbe16(buf + l4 + UDP_OFF_LEN, (uint16_t)(end - l4));
    }
    if (p->ipv4) {
        stbe16(ip + IPV4_OFF_TOT_LEN, (uint16_t)(end - l3));
        stbe16(ip + IPV4_OFF_CSUM, 0);
        stbe16(ip + IPV4_OFF_CSUM,
               (uint16_t)~e810_csum_fold(e810_csum_add(0, ip, IPV4_HLEN)));
    } else {
        stbe16(ip + IPV6_OFF_PLEN, (uint16_t)(end - l4));
    }
}

void e810_frame_l4_csum(uint8_t *buf, const E810NetPath *p, size_t end)
{
    size_t l4 = e810_frame_l4_start(p), len = end - l4;
    size_t at = p->proto == IP_PROTO_UDP ? UDP_OFF_CSUM : TCP_OFF_CSUM;
    uint32_t sum;
    uint16_t ck;

    stbe16(buf + l4 + at, 0);
    if (p->proto == IP_PROTO_UDP && p->ipv4) {
        return;
    }
    sum = e810_csum_pseudo(buf + e810_frame_l3_start(p), !p->ipv4, p->proto,
                           (uint32_t)len);
    ck = (uint16_t)~e810_csum_fold(e810_csum_add(sum, buf + l4, len));
    if (p->proto == IP_PROTO_UDP && !ck) {
        ck = 0xFFFF;                /* 0 would say "no checksum" */
    }
    stbe16(buf + l4 + at, ck);
}

size_t e810_frame_seal(uint8_t *buf, const E810NetPath *p, size_t end)
{
    e810_frame_set_lengths(buf, p, end);
    e810_frame_l4_csum(buf, p, end);
    return end;
}
