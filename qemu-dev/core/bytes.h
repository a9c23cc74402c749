/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loads and stores independent of the host's byte order and alignment:
 * little-endian (ld/st: descriptors and buffers in guest memory) and
 * big-endian (ldbe/stbe: network headers on the wire).
 */
#ifndef E810_BYTES_H
#define E810_BYTES_H

#include "host.h"

static inline uint16_t ld16(const void *p)
{
    const uint8_t *b = p;
    return (uint16_t)(b[0] | b[1] << 8);
}

static inline uint32_t ld32(const void *p)
{
    const uint8_t *b = p;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
           (uint32_t)b[3] << 24;
}

static inline uint64_t ld64(const void *p)
{
    return ld32(p) | (uint64_t)ld32((const uint8_t *)p + 4) << 32;
}

static inline void st16(void *p, uint16_t v)
{
    uint8_t *b = p;
    b[0] = v;
    b[1] = v >> 8;
}

static inline void st32(void *p, uint32_t v)
{
    uint8_t *b = p;
    b[0] = v;
    b[1] = v >> 8;
    b[2] = v >> 16;
    b[3] = v >> 24;
}

static inline void st64(void *p, uint64_t v)
{
    st32(p, (uint32_t)v);
    st32((uint8_t *)p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t ldbe16(const void *p)
{
    const uint8_t *b = p;
    return (uint16_t)(b[0] << 8 | b[1]);
}

static inline uint32_t ldbe32(const void *p)
{
    const uint8_t *b = p;
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
           (uint32_t)b[2] << 8 | b[3];
}

static inline uint64_t ldbe64(const void *p)
{
    return (uint64_t)ldbe32(p) << 32 | ldbe32((const uint8_t *)p + 4);
}

static inline void stbe16(void *p, uint16_t v)
{
    uint8_t *b = p;
    b[0] = v >> 8;
    b[1] = (uint8_t)v;
}

static inline void stbe32(void *p, uint32_t v)
{
    uint8_t *b = p;
    b[0] = v >> 24;
    b[1] = v >> 16;
    b[2] = v >> 8;
    b[3] = (uint8_t)v;
}

static inline void stbe64(void *p, uint64_t v)
{
    stbe32(p, (uint32_t)(v >> 32));
    stbe32((uint8_t *)p + 4, (uint32_t)v);
}

/*
 * Bits [@lsb, @lsb + @width) of a little-endian bit-packed context (ice's
 * ice_ctx_ele tables: queue contexts), @width <= 64.
 */
static inline uint64_t ld_bits(const uint8_t *b, unsigned lsb, unsigned width)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < width; i++) {
        unsigned bit = lsb + i;

        v |= (uint64_t)((b[bit / 8] >> (bit % 8)) & 1) << i;
    }
    return v;
}

/*
 * A bit-packed context's layout as data: each field's bits [@lsb, @lsb +
 * @width), shifted left by @shl (a unit: 128-byte addresses), into the
 * struct member at @off of @size bytes.  e810_bits_unpack fills a struct
 * from a context by such a table.
 */
typedef struct E810BitField {
    uint16_t lsb;
    uint8_t width, shl;
    uint16_t off;
    uint8_t size;
} E810BitField;
#define E810_BF(T, f, lsb_, width_, shl_) \
    { .lsb = (lsb_), .width = (width_), .shl = (shl_), \
      .off = offsetof(T, f), .size = sizeof(((T *)0)->f) }

static inline void e810_bits_unpack(void *dst, const uint8_t *ctx,
                                    const E810BitField *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t v = ld_bits(ctx, t[i].lsb, t[i].width) << t[i].shl;
        uint8_t *p = (uint8_t *)dst + t[i].off;

        switch (t[i].size) {
        case 1:
            *p = (uint8_t)v;
            break;
        case 2:
            memcpy(p, &(uint16_t){ (uint16_t)v }, 2);
            break;
        case 4:
            memcpy(p, &(uint32_t){ (uint32_t)v }, 4);
            break;
        default:
            memcpy(p, &v, 8);
            break;
        }
    }
}

#endif
