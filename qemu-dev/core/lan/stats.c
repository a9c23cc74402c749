/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 LAN statistics: the port's MAC counters (GLPRT_*, PRTRPB_RDPC) and
 * the per-VSI counters (GLV_*) that ice reads for `ethtool -S` and the
 * netdev statistics (ice_update_pf_stats, ice_update_eth_stats).
 *
 * Counters live outside the register file, so PF resets keep them (the
 * driver takes its first read after a reset as the base) and guest writes
 * cannot change them.  40-bit counters are read as an L/H pair (H holds
 * bits 39:32) or in one 64-bit read, and wrap at 2^40; 32-bit ones wrap
 * at 2^32, as the driver's wrap handling expects.
 *
 * The MAC counts frames as they are on the wire: padded to 60 bytes and
 * with the 4-byte FCS the backend does not carry.  A VSI counts the bytes
 * placed into or fetched from the host.  CRC, illegal-byte, fault,
 * fragment, jabber and flow-control counters stay 0: frames from the
 * backend have no FCS to check and the link has no PHY or pause frames.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "lan.h"

#define NPORTS      8
#define FCS_LEN     4
#define MIN_FRAME   60
#define NONE        0xFF        /* a counter the device never counts */

typedef struct StatReg {
    uint32_t base;
    uint8_t stride;             /* bytes between instances */
    uint8_t bits;               /* 40 or 32 */
    uint8_t idx;                /* E810_PS_* / E810_VS_*, or NONE */
} StatReg;

/* Offsets: ice_hw_autogen.h.  40-bit counters (L/H pairs) and 32-bit
 * ones, one instance per port (stride 8). */
#define C40(base, idx)  { base, 8, 40, idx }
#define C32(base, idx)  { base, 8, 32, idx }
static const StatReg port_regs[] = {
    /* GLPRT_GORCL, UPRCL, MPRCL, BPRCL: good octets and packets in */
    C40(0x00380000, E810_PS_GORC), C40(0x00381300, E810_PS_UPRC),
    C40(0x00381340, E810_PS_MPRC), C40(0x00381380, E810_PS_BPRC),
    /* GLPRT_GOTCL, UPTCL, MPTCL, BPTCL: out */
    C40(0x00380B40, E810_PS_GOTC), C40(0x003811C0, E810_PS_UPTC),
    C40(0x00381200, E810_PS_MPTC), C40(0x00381240, E810_PS_BPTC),
    /* GLPRT_PRC64L .. PRC9522L, PTC64L .. PTC9522L: by size */
    C40(0x00380900, E810_PS_PRC64), C40(0x00380940, E810_PS_PRC127),
    C40(0x00380980, E810_PS_PRC255), C40(0x003809C0, E810_PS_PRC511),
    C40(0x00380A00, E810_PS_PRC1023), C40(0x00380A40, E810_PS_PRC1522),
    C40(0x00380A80, E810_PS_PRC9522),
    C40(0x00380B80, E810_PS_PTC64), C40(0x00380BC0, E810_PS_PTC127),
    C40(0x00380C00, E810_PS_PTC255), C40(0x00380C40, E810_PS_PTC511),
    C40(0x00380C80, E810_PS_PTC1023), C40(0x00380CC0, E810_PS_PTC1522),
    C40(0x00380D00, E810_PS_PTC9522),
    /* GLPRT_TDOLD, RUC, ROC, RLEC */
    C32(0x00381280, E810_PS_TDOLD), C32(0x00380200, E810_PS_RUC),
    C32(0x00380240, E810_PS_ROC), C32(0x00380140, E810_PS_RLEC),
    /* Never counted: GLPRT_CRCERRS, ILLERRC, MLFC, MRFC, RFC, RJC, and
     * the link flow control ones LXONRXC, LXOFFRXC, LXONTXC, LXOFFTXC */
    C32(0x00380100, NONE), C32(0x003801C0, NONE), C32(0x00380040, NONE),
    C32(0x00380080, NONE), C32(0x00380AC0, NONE), C32(0x00380B00, NONE),
    C32(0x00380280, NONE), C32(0x003802C0, NONE), C32(0x00381140, NONE),
    C32(0x00381180, NONE),
};
#define PRTRPB_RDPC 0x000AC260

/* One instance per VSI (hardware VSI number): GLV_GORCL, UPRCL, MPRCL,
 * BPRCL in, GOTCL, UPTCL, MPTCL, BPTCL out; GLV_RDPC and GLV_TEPC 32-bit
 * with a stride of 4. */
static const StatReg vsi_regs[] = {
    C40(0x003B0000, E810_VS_GORC), C40(0x003B2000, E810_VS_UPRC),
    C40(0x003B4000, E810_VS_MPRC), C40(0x003B6000, E810_VS_BPRC),
    C40(0x00300000, E810_VS_GOTC), C40(0x0030A000, E810_VS_UPTC),
    C40(0x0030C000, E810_VS_MPTC), C40(0x0030E000, E810_VS_BPTC),
    { 0x00294C04, 4, 32, E810_VS_RDPC }, { 0x00312000, 4, 32, E810_VS_TEPC },
};

/* The register @off names in @t (instance *@inst, high word *@hi). */
static const StatReg *stat_find(const StatReg *t, size_t n, unsigned count,
                                uint32_t off, unsigned *inst, bool *hi)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t rel = off - t[i].base;

        if (off >= t[i].base && rel < (uint32_t)t[i].stride * count) {
            *inst = rel / t[i].stride;
            *hi = rel % t[i].stride >= 4;
            return &t[i];
        }
    }
    return NULL;
}

static uint32_t stat_word(uint64_t v, unsigned bits, bool hi)
{
    if (bits == 32) {
        return hi ? 0 : (uint32_t)v;
    }
    v &= (1ull << 40) - 1;
    return hi ? (uint32_t)(v >> 32) : (uint32_t)v;
}

bool e810_lan_stats_read(E810Core *c, uint32_t off, uint32_t *val)
{
    const StatReg *r;
    unsigned inst;
    bool hi;

    if (off == PRTRPB_RDPC) {
        *val = (uint32_t)c->lan.port_stats[E810_PS_RDPC];
        return true;
    }
    r = stat_find(port_regs, sizeof(port_regs) / sizeof(port_regs[0]),
                  NPORTS, off, &inst, &hi);
    if (r) {
        *val = r->idx == NONE || inst != c->pf_id ? 0 :
               stat_word(c->lan.port_stats[r->idx], r->bits, hi);
        return true;
    }
    r = stat_find(vsi_regs, sizeof(vsi_regs) / sizeof(vsi_regs[0]),
                  E810_LAN_STAT_VSIS, off, &inst, &hi);
    if (r) {
        *val = stat_word(c->lan.vsi_stats[inst][r->idx], r->bits, hi);
        return true;
    }
    return false;
}

bool e810_lan_stats_reg(uint32_t off)
{
    unsigned inst;
    bool hi;

    return off == PRTRPB_RDPC ||
           stat_find(port_regs, sizeof(port_regs) / sizeof(port_regs[0]),
                     NPORTS, off, &inst, &hi) ||
           stat_find(vsi_regs, sizeof(vsi_regs) / sizeof(vsi_regs[0]),
                     E810_LAN_STAT_VSIS, off, &inst, &hi);
}

/* Unicast, multicast or broadcast by destination MAC: 0, 1, 2. */
static unsigned cast_of(const uint8_t *f, size_t len)
{
    static const uint8_t bcast[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };

    if (len < 6 || !(f[0] & 1)) {
        return 0;
    }
    return memcmp(f, bcast, 6) ? 1 : 2;
}

/* Size bucket (0: 64, ..., 6: 1523-9522) of a frame of @wire bytes. */
static unsigned size_bucket(size_t wire)
{
    static const size_t top[] = { 64, 127, 255, 511, 1023, 1522 };

    for (unsigned i = 0; i < 6; i++) {
        if (wire <= top[i]) {
            return i;
        }
    }
    return 6;
}

static size_t wire_len(size_t len)
{
    return (len < MIN_FRAME ? MIN_FRAME : len) + FCS_LEN;
}

void e810_lan_stats_port_rx(E810Core *c, const E810Frame *fr)
{
    uint64_t *s = c->lan.port_stats;
    size_t wire = wire_len(fr->len);

    if (fr->len < ETH_HLEN) {
        s[E810_PS_RUC]++;
        return;
    }
    if (fr->len > E810_LAN_MAX_FRAME) {
        s[E810_PS_ROC]++;
        return;
    }
    /* An 802.3 length field longer than the frame's payload (after the
     * tags, as the parse found them). */
    if (fr->ethertype <= 1500 && fr->ethertype > fr->len - fr->l3_off) {
        s[E810_PS_RLEC]++;
    }
    s[E810_PS_GORC] += wire;
    s[E810_PS_UPRC + cast_of(fr->data, fr->len)]++;
    s[E810_PS_PRC64 + size_bucket(wire)]++;
}

void e810_lan_stats_port_tx(E810Core *c, const uint8_t *f, size_t len,
                            bool link_up)
{
    uint64_t *s = c->lan.port_stats;
    size_t wire = wire_len(len);

    if (!link_up) {
        s[E810_PS_TDOLD]++;
        return;
    }
    s[E810_PS_GOTC] += wire;
    s[E810_PS_UPTC + cast_of(f, len)]++;
    s[E810_PS_PTC64 + size_bucket(wire)]++;
}

void e810_lan_stats_vsi(E810Core *c, unsigned vsi, const uint8_t *f,
                        size_t len, bool tx)
{
    if (vsi < E810_LAN_STAT_VSIS) {
        uint64_t *s = c->lan.vsi_stats[vsi];

        s[tx ? E810_VS_GOTC : E810_VS_GORC] += len;
        s[(tx ? E810_VS_UPTC : E810_VS_UPRC) + cast_of(f, len)]++;
    }
}

void e810_lan_stats_vsi_count(E810Core *c, unsigned vsi, unsigned which)
{
    if (vsi < E810_LAN_STAT_VSIS && which < E810_VS_COUNT) {
        c->lan.vsi_stats[vsi][which]++;
    }
}
