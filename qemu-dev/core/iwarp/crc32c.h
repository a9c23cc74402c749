/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CRC32c (Castagnoli, reflected polynomial 0x82F63B78) as MPA uses it
 * (RFC 5044 section 4.3, RFC 3385).
 */
#ifndef IW_CRC32C_H
#define IW_CRC32C_H

#include "../host.h"

/* Raw register update: no pre- or post-inversion.  Uses the CPU's CRC32
 * instruction when it has one. */
uint32_t iw_crc32c_update(uint32_t crc, const void *buf, size_t len);
/* The portable implementation (slicing-by-8), for tests and hosts
 * without the instruction. */
uint32_t iw_crc32c_update_sw(uint32_t crc, const void *buf, size_t len);
/* True if iw_crc32c_update uses the CPU instruction. */
bool iw_crc32c_hw(void);

/* The CRC of a buffer as carried by MPA: ~update(~0, buf). */
static inline uint32_t iw_crc32c(const void *buf, size_t len)
{
    return ~iw_crc32c_update(~0u, buf, len);
}

#endif
