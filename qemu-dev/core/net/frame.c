/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One parse of a received frame: VLAN tags, IPv4/IPv6 (with IPv6
 * extension headers), the L4 ports, and every checksum verified once.
 * Everything is bounded by the frame's length; a header that does not fit
 * is simply not claimed.
 */
#include "qemu/osdep.h"
#include "net.h"
#include "../bytes.h"

static bool is_tag(uint16_t et)
{
    return et == ETH_P_8021Q || et == ETH_P_8021AD || et == ETH_P_QINQ1;
}

static bool is_ipv6_ext(uint8_t nh)
{
    return nh == 0 || nh == 43 || nh == 44 || nh == 60;
}

/* L4 checksum of [l4, l4 + len) for @proto; true if good or not checked. */
static bool l4_csum_ok(const uint8_t *ip, bool v6, uint8_t proto,
                       const uint8_t *l4, size_t len)
{
    uint32_t sum;

    switch (proto) {
    case IP_PROTO_TCP:
        if (len < TCP_HLEN) {
            return false;
        }
        break;
    case IP_PROTO_UDP:                      /* 0 = not computed (IPv4) */
        if (len < UDP_HLEN) {
            return false;
        }
        if (!v6 && ldbe16(l4 + 6) == 0) {
            return true;
        }
        break;
    case IP_PROTO_SCTP: {                   /* CRC32c, its field as zero */
        static const uint8_t zero[4];
        uint32_t st;

        if (len < 12) {
            return false;
        }
        st = e810_crc32c_update(~0u, l4, 8);
        st = e810_crc32c_update(st, zero, 4);
        st = e810_crc32c_update(st, l4 + 12, len - 12);
        return ~st == ld32(l4 + 8);
    }
    case IP_PROTO_ICMP:                     /* no pseudo-header */
        return len >= 4 && e810_csum_fold(e810_csum_add(0, l4, len)) == 0xFFFF;
    case IP_PROTO_ICMPV6:
        if (len < 4) {
            return false;
        }
        break;
    default:
        return true;
    }
    sum = e810_csum_pseudo(ip, v6, proto, (uint32_t)len);
    return e810_csum_fold(e810_csum_add(sum, l4, len)) == 0xFFFF;
}

static void parse_ipv4(E810Frame *fr, const uint8_t *ip, size_t avail)
{
    size_t hlen, total;

    if (avail < IPV4_HLEN || (ip[0] >> 4) != 4) {
        return;
    }
    fr->ipv4 = true;
    fr->proto = ip[9];
    fr->frag = ldbe16(ip + 6) & 0x3FFF;
    hlen = (ip[0] & 0xF) * 4u;
    if (hlen < IPV4_HLEN) {
        return;
    }
    fr->ip_options = hlen != IPV4_HLEN;
    fr->l3_hlen = hlen;
    if (avail >= hlen + 4) {
        fr->have_ports = true;
    }
    total = ldbe16(ip + 2);
    if (total < hlen || total > avail) {
        return;
    }
    fr->l3_ok = true;
    fr->l3_end = fr->l3_off + total;
    fr->l3_csum_ok = e810_csum_fold(e810_csum_add(0, ip, hlen)) == 0xFFFF;
}

static void parse_ipv6(E810Frame *fr, const uint8_t *ip, size_t avail)
{
    size_t hlen = IPV6_HLEN, end;
    uint8_t nh;

    if (avail < IPV6_HLEN || (ip[0] >> 4) != 6) {
        return;
    }
    fr->ipv6 = true;
    fr->l3_csum_ok = true;
    nh = ip[6];
    fr->proto = nh;
    fr->ip_ext = is_ipv6_ext(nh);
    fr->l3_hlen = hlen;
    if (!fr->ip_ext && avail >= hlen + 4) {
        fr->have_ports = true;
    }
    end = IPV6_HLEN + (size_t)ldbe16(ip + 4);
    if (end > avail) {
        return;
    }
    /* Hop-by-hop, routing, fragment and destination options, at most 8. */
    for (unsigned n = 0; is_ipv6_ext(nh); n++) {
        if (n == 8 || hlen + 8 > end) {
            return;
        }
        if (nh == 44) {
            fr->frag = true;
            nh = ip[hlen];
            hlen += 8;
            continue;
        }
        nh = ip[hlen];
        hlen += ((size_t)ip[hlen + 1] + 1) * 8;
    }
    if (hlen > end) {
        return;
    }
    fr->proto = nh;
    fr->l3_hlen = hlen;
    fr->have_ports = hlen + 4 <= end;
    fr->l3_ok = true;
    fr->l3_end = fr->l3_off + end;
}

void e810_frame_parse(E810Frame *fr, const uint8_t *data, size_t len)
{
    size_t off = 12;
    const uint8_t *ip;

    memset(fr, 0, sizeof(*fr));
    fr->data = data;
    fr->len = len;
    fr->vlan = E810_FRAME_NO_VLAN;
    if (len < ETH_HLEN) {
        return;
    }
    fr->ethertype = ldbe16(data + 12);
    /* Up to two tags; the outermost decides switching and stripping. */
    while (is_tag(fr->ethertype) && fr->ntags < 2 && off + 8 <= len) {
        if (fr->ntags++ == 0) {
            fr->tpid = fr->ethertype;
            fr->tci = ldbe16(data + off + 2);
            fr->vlan = fr->tci & 0xFFF;
        }
        off += 4;
        fr->ethertype = ldbe16(data + off);
    }
    fr->l3_off = off + 2;
    ip = data + fr->l3_off;
    if (fr->ethertype == ETH_P_IP) {
        parse_ipv4(fr, ip, len - fr->l3_off);
    } else if (fr->ethertype == ETH_P_IPV6) {
        parse_ipv6(fr, ip, len - fr->l3_off);
    } else {
        return;
    }
    if (fr->have_ports && (fr->proto == IP_PROTO_TCP ||
                           fr->proto == IP_PROTO_UDP ||
                           fr->proto == IP_PROTO_SCTP)) {
        fr->sport = ldbe16(ip + fr->l3_hlen);
        fr->dport = ldbe16(ip + fr->l3_hlen + 2);
    } else {
        fr->have_ports = false;
    }
    if (!fr->l3_ok || fr->frag) {
        return;
    }
    fr->l4_off = fr->l3_off + fr->l3_hlen;
    fr->l4_len = fr->l3_end - fr->l4_off;
    fr->l4_csum_ok = l4_csum_ok(ip, fr->ipv6, fr->proto,
                                data + fr->l4_off, fr->l4_len);
}
