/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CRC32c, table driven (one table of 256 entries, built on first use).
 */
#include "crc32c.h"

static uint32_t crc_table[256];
static bool crc_table_ready;

static void crc_table_init(void)
{
    unsigned i, k;

    for (i = 0; i < 256; i++) {
        uint32_t r = i;

        for (k = 0; k < 8; k++) {
            r = (r >> 1) ^ (r & 1 ? 0x82F63B78u : 0);
        }
        crc_table[i] = r;
    }
    crc_table_ready = true;
}

uint32_t iw_crc32c_update(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = buf;

    if (!crc_table_ready) {
        crc_table_init();
    }
    while (len--) {
        crc = crc_table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    }
    return crc;
}
