/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 firmware model: NVM commands over a synthetic, read-only flash image
 * and its Shadow RAM (state and reset).
 *
 * Flash layout (byte offsets, 4 KiB sectors; unused bytes read as 0xFF):
 *   0x0000  Shadow RAM image (what the SR reads return)
 *   0x1000  NVM bank 1 (active):  CSS header, SR copy at +0x40
 *   0x2000  NVM bank 2 (inactive): same content
 *   0x3000  Option ROM bank 1 (active): "$CIV" block at +0x200
 *   0x4000  Option ROM bank 2
 *   0x5000  Netlist bank 1 (active): link topology module, ID block
 *   0x6000  Netlist bank 2
 * Shadow RAM (word offsets): 0x00 control word, 0x18 NVM version,
 *   0x19 WoL config, 0x2D/0x2E EETRACK, 0x40 PFA pointer, 0x42..0x47 bank
 *   pointers and sizes, 0x200 PFA with one PBA TLV.
 */
#ifndef E810_FW_NVM_H
#define E810_FW_NVM_H

#include "../types.h"

#define E810_FLASH_SIZE             0x10000u
/* Must agree with GLNVM_GENS.SR_SIZE = 1 in e810.c: 2^1 x 512 words. */
#define E810_SR_WORDS               1024u

/* NVM version 4.40 (as ice prints it: "%x.%02x"), and EETRACK. */
#define E810_NVM_VERSION            0x4040
#define E810_NVM_EETRACK            0x8000e810u

typedef struct E810FwNvm {
    uint8_t flash[E810_FLASH_SIZE];
    uint8_t sr[E810_SR_WORDS * 2];   /* little-endian words */
    uint64_t reads;                  /* successful NVM Read commands */
    bool built;                      /* flash and sr hold the image */
} E810FwNvm;

void e810_fw_nvm_reset(E810Core *c, E810ResetType type);

/* Saved state (snap.h): the read counter; the image is the power-on one. */
extern const struct E810SnapPart e810_fw_nvm_snap;

#endif
