/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Byte-order helpers the tests build and check frames and WQEs with,
 * written apart from the device's own.
 */
#ifndef E810_NET_UTIL_H
#define E810_NET_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* A MAC address as the driver packs it into a qword (byte 0 highest). */
static inline uint64_t mac_u64(const uint8_t *a)
{
    uint64_t v = 0;

    for (int i = 0; i < 6; i++) {
        v = v << 8 | a[i];
    }
    return v;
}

/* Big-endian (network order) loads and stores. */
static inline uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static inline void put_be16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = (uint8_t)v;
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
    put_be16(p, v >> 16);
    put_be16(p + 2, (uint16_t)v);
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

#endif
