/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers the tests build and check frames and WQEs with, written apart
 * from the device's own.
 */
#ifndef E810_NET_UTIL_H
#define E810_NET_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "bytes.h"

/* Destination addresses of the LAN tests: broadcast, and a unicast one
 * no switch rule has. */
static const uint8_t bcast_mac[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t nobody_mac[6] = { 0x52, 0x54, 0x00, 0x99, 0x99, 0x99 };

/* A MAC address as the driver packs it into a qword (byte 0 highest). */
static inline uint64_t mac_u64(const uint8_t *a)
{
    uint64_t v = 0;

    for (int i = 0; i < 6; i++) {
        v = v << 8 | a[i];
    }
    return v;
}

/* Reference one's-complement sum (RFC 1071: accumulate wide, then fold)
 * of @a then @b (may be NULL with length 0) as big-endian words. */
static inline uint16_t ref_sum(const uint8_t *a, size_t alen,
                               const uint8_t *b, size_t blen)
{
    uint64_t s = 0;
    const uint8_t *parts[2] = { a, b };
    size_t lens[2] = { alen, blen };

    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < lens[k]; i++) {
            s += (i & 1) ? parts[k][i] : (uint64_t)parts[k][i] << 8;
        }
    }
    while (s >> 16) {
        s = (s & 0xFFFF) + (s >> 16);
    }
    return (uint16_t)s;
}

/*
 * An Ethernet header (@dst, @src, IPv4) and an IPv4 header without options
 * (@sip to @dip, TTL 64, protocol @proto, @l4len bytes after it, flags and
 * fragment offset @frag) with its checksum at @f.  Returns the L4 header.
 */
static inline uint8_t *ref_eth_ip4(uint8_t *f, const uint8_t *dst,
                                   const uint8_t *src, uint32_t sip,
                                   uint32_t dip, uint8_t proto,
                                   size_t l4len, uint16_t frag)
{
    uint8_t *ip = f + 14;

    memcpy(f, dst, 6);
    memcpy(f + 6, src, 6);
    stbe16(f + 12, 0x0800);
    memset(ip, 0, 20);
    ip[0] = 0x45;
    stbe16(ip + 2, 20 + l4len);
    stbe16(ip + 6, frag);
    ip[8] = 64;
    ip[9] = proto;
    stbe32(ip + 12, sip);
    stbe32(ip + 16, dip);
    stbe16(ip + 10, ~ref_sum(ip, 20, NULL, 0));
    return ip + 20;
}

/* The pseudo-header of the IPv4 or IPv6 header @ip for @proto and an L4
 * length of @len (RFC 793 / RFC 8200 8.1) into @ph; returns its length. */
static inline size_t ref_pseudo(uint8_t ph[40], const uint8_t *ip, bool v6,
                                uint8_t proto, uint32_t len)
{
    memset(ph, 0, 40);
    if (v6) {
        memcpy(ph, ip + 8, 32);
        stbe32(ph + 32, len);
        ph[39] = proto;
        return 40;
    }
    memcpy(ph, ip + 12, 8);
    ph[9] = proto;
    stbe16(ph + 10, (uint16_t)len);
    return 12;
}

#endif
