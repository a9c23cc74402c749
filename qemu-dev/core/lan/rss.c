/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 LAN receive side scaling: the Toeplitz hash (checksums and CRCs are
 * in net/).
 */
#include "qemu/osdep.h"
#include "lan.h"

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
