/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 firmware model: NVM commands.
 *
 * ice reads the NVM at probe to find the flash size (bisection with 1-byte
 * reads that must fail with EINVAL past the end), the active banks, the NVM,
 * Option ROM and netlist versions, and later the PFA.  The image is built
 * once per power-on from constants, so every boot sees the same bytes.
 * Layout: nvm.h.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../snap.h"
#include "../bytes.h"
#include "../../trace.h"

/* Flash map (bytes). */
#define SECTOR                      0x1000u
#define FL_SR_IMAGE                 0x0000u
#define FL_NVM_BANK                 0x1000u     /* banks 1 and 2 follow */
#define FL_OROM_BANK                0x3000u
#define FL_NETLIST_BANK             0x5000u

/* Shadow RAM words. */
#define SR_CTRL_WORD                0x00
#define   SR_CTRL_VALID             0x0040      /* bits 7:6 = 01, first banks */
#define SR_NVM_VERSION              0x18
#define SR_WOL_CFG                  0x19
#define SR_EETRACK_LO               0x2D
#define SR_EETRACK_HI               0x2E
#define SR_PFA_PTR                  0x40
#define SR_NVM_BANK_PTR             0x42
#define SR_NVM_BANK_SIZE            0x43
#define SR_OROM_BANK_PTR            0x44
#define SR_OROM_BANK_SIZE           0x45
#define SR_NETLIST_BANK_PTR         0x46
#define SR_NETLIST_BANK_SIZE        0x47
#define   SR_PTR_4K_UNITS           0x8000
#define SR_PFA                      0x200
#define PFA_TLV_PBA                 0x16

/* NVM bank: CSS header length in dwords (+8 words of auth header = 32). */
#define CSS_HDR_LEN_WORD            2
#define CSS_HDR_DWORDS              12
#define NVM_SR_COPY                 0x40        /* roundup(32 words, 32) */

/* Option ROM: CIVD block, 512-byte aligned, 74 bytes summing to zero. */
#define OROM_CIVD                   0x200
#define CIVD_SIZE                   74
#define OROM_MAJOR                  1
#define OROM_BUILD                  3224
#define OROM_PATCH                  0

/* Netlist: link topology module with no nodes, ID block at word 6. */
#define NL_MODULE_ID                0x011B
#define NL_ID_BLK                   6
#define NL_ID_BLK_WORDS             0x30

static void sr_set(E810FwNvm *n, unsigned word, uint16_t v)
{
    st16(n->sr + word * 2, v);
}

static void nvm_build_sr(E810FwNvm *n)
{
    static const char pba[] = "E810-QEMU0";     /* 10 characters */
    unsigned pba_words = (sizeof(pba) - 1) / 2;
    unsigned w = SR_PFA;

    memset(n->sr, 0, sizeof(n->sr));
    sr_set(n, SR_CTRL_WORD, SR_CTRL_VALID);
    sr_set(n, SR_NVM_VERSION, E810_NVM_VERSION);
    /* Bit n set: no Wake-on-LAN on PF n. */
    sr_set(n, SR_WOL_CFG, 0x00FF);
    sr_set(n, SR_EETRACK_LO, E810_NVM_EETRACK & 0xFFFF);
    sr_set(n, SR_EETRACK_HI, E810_NVM_EETRACK >> 16);
    sr_set(n, SR_NVM_BANK_PTR, SR_PTR_4K_UNITS | FL_NVM_BANK / SECTOR);
    sr_set(n, SR_NVM_BANK_SIZE, 1);
    sr_set(n, SR_OROM_BANK_PTR, SR_PTR_4K_UNITS | FL_OROM_BANK / SECTOR);
    sr_set(n, SR_OROM_BANK_SIZE, 1);
    sr_set(n, SR_NETLIST_BANK_PTR, SR_PTR_4K_UNITS | FL_NETLIST_BANK / SECTOR);
    sr_set(n, SR_NETLIST_BANK_SIZE, 1);

    /*
     * PFA: length word, one PBA TLV {type, length, size, characters high
     * byte first}, and the closing word the length also counts.  No link
     * default override TLV, so ice falls back to the PHY's answers.
     */
    sr_set(n, SR_PFA_PTR, SR_PFA);
    sr_set(n, w++, 1 + 2 + 1 + pba_words + 1);
    sr_set(n, w++, PFA_TLV_PBA);
    sr_set(n, w++, 1 + pba_words);
    sr_set(n, w++, 1 + pba_words);
    for (unsigned i = 0; i < pba_words; i++) {
        sr_set(n, w++, (uint8_t)pba[2 * i] << 8 | (uint8_t)pba[2 * i + 1]);
    }
    sr_set(n, w, 0xFFFF);
}

static void nvm_build_nvm_bank(E810FwNvm *n, uint32_t base)
{
    uint8_t *b = n->flash + base;

    memset(b, 0, SECTOR);
    st32(b + CSS_HDR_LEN_WORD * 2, CSS_HDR_DWORDS);
    /* The bank carries the Shadow RAM copy the driver takes versions from. */
    memcpy(b + NVM_SR_COPY, n->sr, sizeof(n->sr));
}

static void nvm_build_orom_bank(E810FwNvm *n, uint32_t base)
{
    static const char name[] = "1.3224.0";
    uint8_t *civd = n->flash + base + OROM_CIVD;
    unsigned name_len = sizeof(name) - 1;
    uint8_t sum = 0;

    memset(n->flash + base, 0, SECTOR);
    memcpy(civd, "$CIV", 4);
    st32(civd + 5, (uint32_t)OROM_MAJOR << 24 | OROM_BUILD << 8 | OROM_PATCH);
    civd[9] = name_len;
    for (unsigned i = 0; i < name_len; i++) {
        st16(civd + 10 + 2 * i, (uint8_t)name[i]);
    }
    for (unsigned i = 0; i < CIVD_SIZE; i++) {
        sum += civd[i];
    }
    civd[4] = (uint8_t)-sum;
}

static void nvm_build_netlist_bank(E810FwNvm *n, uint32_t base)
{
    uint8_t *b = n->flash + base;
    uint8_t *id = b + NL_ID_BLK * 2;

    memset(b, 0, SECTOR);
    st16(b + 0, NL_MODULE_ID);
    st16(b + 2, NL_ID_BLK + NL_ID_BLK_WORDS);       /* netlist length */
    st16(b + 4, NL_ID_BLK + NL_ID_BLK_WORDS - 2);   /* topology module len */
    st16(b + 6, 0);                                 /* node count */
    /* ID block: version 3.30, type 2000, rev 1, customer version, hash. */
    st32(id + 0x02 * 2, 3);
    st32(id + 0x04 * 2, 30);
    st32(id + 0x06 * 2, 2000);
    st32(id + 0x08 * 2, 1);
    st16(id + (0x0A + 14) * 2, 0x0001);
    st16(id + (0x0A + 15) * 2, 0xE810);
    st16(id + 0x2F * 2, 0x000D);
}

static void nvm_build_image(E810FwNvm *n)
{
    memset(n->flash, 0xFF, sizeof(n->flash));
    nvm_build_sr(n);
    memcpy(n->flash + FL_SR_IMAGE, n->sr, sizeof(n->sr));
    for (unsigned bank = 0; bank < 2; bank++) {
        nvm_build_nvm_bank(n, FL_NVM_BANK + bank * SECTOR);
        nvm_build_orom_bank(n, FL_OROM_BANK + bank * SECTOR);
        nvm_build_netlist_bank(n, FL_NETLIST_BANK + bank * SECTOR);
    }
}

void e810_fw_nvm_reset(E810Core *c, E810ResetType type)
{
    E810FwNvm *n = &c->fw.nvm;

    if (type == E810_RESET_POWER_ON) {
        /* The image depends on nothing and nothing writes it: built at
         * the first power-on reset, the same at every later one. */
        if (!n->built) {
            nvm_build_image(n);
            n->built = true;
        }
        n->reads = 0;
    }
}

/* ---- 0x0701 NVM Read -------------------------------------------------- */

int e810_fw_nvm_read(E810Core *c, E810AqCmd *cmd)
{
    E810FwNvm *n = &c->fw.nvm;
    uint32_t off = ld16(aq_param(cmd, AQC_NVM_OFFSET_LOW)) |
                   (uint32_t)*aq_param(cmd, AQC_NVM_OFFSET_HIGH) << 16;
    bool flash = *aq_param(cmd, AQC_NVM_CMD_FLAGS) & AQC_NVM_FLASH_ONLY;
    uint16_t module = ld16(aq_param(cmd, AQC_NVM_MODULE_TYPEID));
    uint16_t len = ld16(aq_param(cmd, AQC_NVM_LENGTH));
    const uint8_t *src = flash ? n->flash : n->sr;
    uint32_t size = flash ? sizeof(n->flash) : sizeof(n->sr);

    if (!cmd->has_buf || len == 0 || len > cmd->buf_len) {
        e810_guest_error(c, "NVM Read: length %u, buffer %u", len, cmd->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    if (module == AQC_NVM_TX_TOPO_MOD_ID) {
        /*
         * devlink's tx_scheduling_layers reads the user's choice here (cap
         * 0x0085): a 4-byte TLV {length, data, reserved}, data bit 4 clear =
         * 9 layers.  The flash is read-only, so it never changes.
         */
        static const uint8_t tlv[4] = { 1, 0, 0, 0 };

        if (off >= sizeof(tlv) || len > sizeof(tlv) - off) {
            return E810_AQ_RC_EINVAL;
        }
        memcpy(cmd->buf, tlv + off, len);
        cmd->resp_len = len;
        return E810_AQ_RC_OK;
    }
    if (module != 0) {
        /* Other module-relative reads are not modelled. */
        e810_unimp(c, "NVM Read of module 0x%04x", module);
        trace_e810_fw_nvm_read(flash, off, len, E810_AQ_RC_ENOENT);
        return E810_AQ_RC_ENOENT;
    }
    if (off >= size || len > size - off) {
        /* Expected during flash-size discovery: not a guest error. */
        trace_e810_fw_nvm_read(flash, off, len, E810_AQ_RC_EINVAL);
        return E810_AQ_RC_EINVAL;
    }
    memcpy(cmd->buf, src + off, len);
    cmd->resp_len = len;
    n->reads++;
    trace_e810_fw_nvm_read(flash, off, len, E810_AQ_RC_OK);
    return E810_AQ_RC_OK;
}

/* ---- 0x0706 NVM Checksum ---------------------------------------------- */

int e810_fw_nvm_checksum(E810Core *c, E810AqCmd *cmd)
{
    uint8_t flags = *aq_param(cmd, AQC_NVM_CHECKSUM_FLAGS);

    if (!(flags & AQC_NVM_CHECKSUM_VERIFY)) {
        /* Recalculation would write the flash, which is read-only here. */
        e810_unimp(c, "NVM Checksum flags 0x%02x", flags);
        return E810_AQ_RC_EPERM;
    }
    /* The synthetic image is consistent by construction. */
    st16(aq_param(cmd, AQC_NVM_CHECKSUM_CHECKSUM), AQC_NVM_CHECKSUM_CORRECT);
    return E810_AQ_RC_OK;
}

/*
 * Erase/write/activate (0x0702..0x070B) belong to flash updates only and stay
 * unknown (ESRCH): devlink flash then fails cleanly.
 */

/* ---- saved state -------------------------------------------------------- */

/*
 * E810FwNvm: reads is saved.  flash and sr are the synthetic read-only
 * image, rebuilt by the power-on reset that precedes a load.
 */
static const E810SnapField fw_nvm_fields[] = {
    SF_UX(E810FwNvm, reads),
    SF_END
};


const E810SnapPart e810_fw_nvm_snap =
    E810_SNAP_FLAT("fw.nvm", fw.nvm, fw_nvm_fields, NULL);
