/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 LAN data path: Internet checksum, CRC32c (SCTP), Ethernet FCS and
 * the Toeplitz RSS hash.
 */
#include "lan.h"
#include "csum.h"

uint32_t e810_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
    return e810_csum_words(sum, p, len);
}

uint16_t e810_csum_fold(uint32_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    return (uint16_t)sum;
}

uint32_t e810_csum_pseudo(const uint8_t *ip, bool v6, uint8_t proto,
                          uint32_t l4len)
{
    uint32_t sum;

    if (v6) {
        sum = e810_csum_add(0, ip + 8, 32);
    } else {
        sum = e810_csum_add(0, ip + 12, 8);
    }
    return sum + proto + (l4len >> 16) + (l4len & 0xFFFF);
}

/* Reflected CRC-32 register update, nibble at a time (16-entry table). */
static uint32_t crc32_update(uint32_t poly, uint32_t crc, const uint8_t *p,
                             size_t len)
{
    uint32_t tab[16];

    for (unsigned n = 0; n < 16; n++) {
        uint32_t v = n;

        for (unsigned b = 0; b < 4; b++) {
            v = (v >> 1) ^ ((v & 1) ? poly : 0);
        }
        tab[n] = v;
    }
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        crc = (crc >> 4) ^ tab[crc & 0xF];
        crc = (crc >> 4) ^ tab[crc & 0xF];
    }
    return crc;
}

uint32_t e810_crc32c_update(uint32_t state, const uint8_t *p, size_t len)
{
    return crc32_update(0x82F63B78u, state, p, len);
}

uint32_t e810_crc32c(const uint8_t *p, size_t len)
{
    return ~e810_crc32c_update(0xFFFFFFFFu, p, len);
}

uint32_t e810_crc32_eth(const uint8_t *p, size_t len)
{
    return ~crc32_update(0xEDB88320u, 0xFFFFFFFFu, p, len);
}

uint32_t e810_toeplitz(const uint8_t *key, const uint8_t *in, size_t len)
{
    uint32_t hash = 0;
    /* The 32-bit window of the key at the current input bit. */
    uint32_t win = (uint32_t)key[0] << 24 | key[1] << 16 | key[2] << 8 | key[3];

    for (size_t i = 0; i < len; i++) {
        uint8_t next = key[i + 4];

        for (int b = 7; b >= 0; b--) {
            if (in[i] & (1u << b)) {
                hash ^= win;
            }
            win = win << 1 | ((next >> b) & 1);
        }
    }
    return hash;
}
