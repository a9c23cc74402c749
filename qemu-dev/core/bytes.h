/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Little-endian loads and stores for descriptors and buffers in guest
 * memory, independent of the host's byte order and alignment.
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

#endif
