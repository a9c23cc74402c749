/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internet checksum.  The one's-complement sum does not depend on the byte
 * order of its words (RFC 1071, section 2(B)): words are summed in host
 * order, 32 bits at a time into a 64-bit accumulator, and the folded
 * result is swapped to network order once at the end.  On x86-64 the bulk
 * goes through SSE2 (always there): 32-bit words widened into 64-bit
 * lanes, two accumulators so the adds do not wait on each other.
 */
#include "qemu/osdep.h"
#include "net.h"
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

static uint16_t fold64(uint64_t acc)
{
    while (acc >> 16) {
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    return (uint16_t)acc;
}

uint32_t e810_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
    uint64_t acc = 0;
    uint16_t r;

#if defined(__x86_64__)
    if (len >= 64) {
        const __m128i z = _mm_setzero_si128();
        __m128i a0 = z, a1 = z;
        uint64_t lane[4];

        /* Each lane gains < 2^33 per step: no overflow below 2^31 steps,
         * far beyond any frame. */
        for (; len >= 32; p += 32, len -= 32) {
            __m128i v0 = _mm_loadu_si128((const __m128i *)p);
            __m128i v1 = _mm_loadu_si128((const __m128i *)(p + 16));

            a0 = _mm_add_epi64(a0, _mm_unpacklo_epi32(v0, z));
            a1 = _mm_add_epi64(a1, _mm_unpackhi_epi32(v0, z));
            a0 = _mm_add_epi64(a0, _mm_unpacklo_epi32(v1, z));
            a1 = _mm_add_epi64(a1, _mm_unpackhi_epi32(v1, z));
        }
        _mm_storeu_si128((__m128i *)lane, a0);
        _mm_storeu_si128((__m128i *)(lane + 2), a1);
        /* Fold each lane to 32 bits first: four of them cannot overflow. */
        for (unsigned i = 0; i < 4; i++) {
            acc += (lane[i] & 0xFFFFFFFFu) + (lane[i] >> 32);
        }
    }
#endif
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t w;

        memcpy(&w, p, 8);
        acc += (uint32_t)w;
        acc += w >> 32;
    }
    for (; len >= 2; p += 2, len -= 2) {
        uint16_t w;

        memcpy(&w, p, 2);
        acc += w;
    }
    if (len) {
        uint8_t last[2] = { p[0], 0 };
        uint16_t w;

        memcpy(&w, last, 2);
        acc += w;
    }
    r = fold64(acc);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    r = (uint16_t)(r << 8 | r >> 8);
#endif
    return fold64((uint64_t)sum + r);
}

uint16_t e810_csum_fold(uint32_t sum)
{
    return fold64(sum);
}

uint32_t e810_csum_pseudo_addr(bool v4, const uint8_t *src, const uint8_t *dst,
                               uint8_t proto, uint32_t l4len)
{
    uint32_t sum = e810_csum_add(0, src, v4 ? 4 : 16);

    sum = e810_csum_add(sum, dst, v4 ? 4 : 16);
    return sum + proto + (l4len >> 16) + (l4len & 0xFFFF);
}

uint32_t e810_csum_pseudo(const uint8_t *ip, bool v6, uint8_t proto,
                          uint32_t l4len)
{
    return v6 ? e810_csum_pseudo_addr(false, ip + 8, ip + 24, proto, l4len)
              : e810_csum_pseudo_addr(true, ip + 12, ip + 16, proto, l4len);
}
