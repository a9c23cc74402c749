/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Internet checksum's one's-complement sum (RFC 1071), eight bytes at
 * a time: shared by the LAN path and the iWARP engine (plain C, no
 * device state).
 */
#ifndef E810_CSUM_H
#define E810_CSUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * @sum plus the big-endian 16-bit words of @p (an odd last byte is the
 * high half of a word).  The result is below 2^17, ready to be added to
 * or folded.  The sum does not depend on byte order (RFC 1071 2(B)): on a
 * little-endian host the words are added as read and swapped once.
 */
static inline uint32_t e810_csum_words(uint32_t sum, const uint8_t *p,
                                       size_t len)
{
    uint64_t acc = 0;
    uint32_t s;

    while (len >= 8) {
        uint64_t w;
        uint32_t lo, hi;

        memcpy(&w, p, 8);
        lo = (uint32_t)w;
        hi = (uint32_t)(w >> 32);
        acc += (uint64_t)lo + hi;   /* at most 2^33 per step: no overflow
                                     * below 2^30 steps (8 GiB) */
        p += 8;
        len -= 8;
    }
    while (len >= 2) {
        uint16_t w;

        memcpy(&w, p, 2);
        acc += w;
        p += 2;
        len -= 2;
    }
    acc = (acc & 0xFFFFFFFFu) + (acc >> 32);
    acc = (acc & 0xFFFFFFFFu) + (acc >> 32);
    s = (uint32_t)((acc & 0xFFFF) + ((acc >> 16) & 0xFFFF) + (acc >> 32));
    s = (s & 0xFFFF) + (s >> 16);
    s = (s & 0xFFFF) + (s >> 16);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    /* words were read in network order already */
#else
    s = (uint32_t)(((s & 0xFF) << 8) | (s >> 8));
#endif
    if (len) {
        s += (uint32_t)p[0] << 8;
    }
    sum = (sum & 0xFFFF) + (sum >> 16) + s;
    return (sum & 0xFFFF) + (sum >> 16);
}

#endif
