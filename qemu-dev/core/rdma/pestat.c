/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine statistics: what the engine counts of its own traffic,
 * and the GATHER_STATS CQP op that writes it to the driver's buffer
 * (irdma reads it for `rdma statistic show`; gen2 has no statistics
 * registers, every counter comes through this buffer).
 *
 * IP and transport counters are taken from the frames themselves as they
 * leave the engine (e810_rdma_xmit) and as the receive steering accepts
 * them, so the CM's segments through the ILQ and the offloaded
 * connections' segments count alike; octets are IP octets.  RDMA
 * operations are counted by the QP data path: outbound Sends, Writes and
 * Read Requests (not zero-length ones, MPA's RTR) as they are handed to
 * the connection, inbound Sends when
 * their last segment is placed, inbound Read Requests as they arrive and
 * inbound Writes per tagged segment placed (the placement callback does
 * not see message boundaries).  Retransmitted segments come from the
 * connections' own counts.  There is one set of counters for the
 * function: every statistics instance reads it.  The counters go with
 * the CQP (irdma's buffer starts from zero after a reload, too).
 */
#include "../e810.h"
#include "../bytes.h"
#include "../../trace.h"
#include "rdma.h"
#include "qpdp.h"

#define GATHER_BUF_SIZE         1024
#define WQE_USE_INST            (1ull << 61)
#define WQE_INST_INDEX(h)       ((unsigned)e810_fld(h, 6, 0))

/* Where each counter sits in the buffer: byte offset of its 64-bit word,
 * bit offset and width (icrdma_hw_stat_map). */
typedef struct PeSlot {
    uint16_t byte;
    uint8_t bit;
    uint8_t width;
} PeSlot;

static const PeSlot pe_slot[E810_PE_COUNT] = {
    [E810_PE_IP4RXOCTS]     = {   8,  0, 48 },
    [E810_PE_IP4RXPKTS]     = {  16,  0, 48 },
    [E810_PE_IP4RXDISCARD]  = {  24, 32, 32 },
    [E810_PE_IP4RXTRUNC]    = {  24,  0, 32 },
    [E810_PE_IP4RXMCOCTS]   = {  40,  0, 48 },
    [E810_PE_IP4RXMCPKTS]   = {  48,  0, 48 },
    [E810_PE_IP6RXOCTS]     = {  56,  0, 48 },
    [E810_PE_IP6RXPKTS]     = {  64,  0, 48 },
    [E810_PE_IP6RXDISCARD]  = {  72, 32, 32 },
    [E810_PE_IP6RXTRUNC]    = {  72,  0, 32 },
    [E810_PE_IP6RXMCOCTS]   = {  88,  0, 48 },
    [E810_PE_IP6RXMCPKTS]   = {  96,  0, 48 },
    [E810_PE_IP4TXOCTS]     = { 104,  0, 48 },
    [E810_PE_IP4TXPKTS]     = { 112,  0, 48 },
    [E810_PE_IP4TXMCOCTS]   = { 128,  0, 48 },
    [E810_PE_IP4TXMCPKTS]   = { 136,  0, 48 },
    [E810_PE_IP6TXOCTS]     = { 144,  0, 48 },
    [E810_PE_IP6TXPKTS]     = { 152,  0, 48 },
    [E810_PE_IP6TXMCOCTS]   = { 168,  0, 48 },
    [E810_PE_IP6TXMCPKTS]   = { 176,  0, 48 },
    [E810_PE_IP4TXNOROUTE]  = { 184, 32, 24 },
    [E810_PE_IP6TXNOROUTE]  = { 184,  0, 24 },
    /* Bit 32 of its word: only 32 bits of it reach the buffer. */
    [E810_PE_TCPRXSEGS]     = { 192, 32, 32 },
    [E810_PE_TCPRXPROTOERR] = { 200,  0, 24 },
    [E810_PE_TCPTXSEG]      = { 208,  0, 48 },
    [E810_PE_TCPRTXSEG]     = { 216, 32, 32 },
    [E810_PE_UDPRXPKTS]     = { 224,  0, 48 },
    [E810_PE_UDPTXPKTS]     = { 232,  0, 48 },
    [E810_PE_RDMARXWRS]     = { 240,  0, 48 },
    [E810_PE_RDMARXRDS]     = { 248,  0, 48 },
    [E810_PE_RDMARXSNDS]    = { 256,  0, 48 },
    [E810_PE_RDMATXWRS]     = { 264,  0, 48 },
    [E810_PE_RDMATXRDS]     = { 272,  0, 48 },
    [E810_PE_RDMATXSNDS]    = { 280,  0, 48 },
    [E810_PE_RDMAVINV]      = { 296,  0, 48 },
};

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

void e810_pestat_frame(E810Core *c, const uint8_t *f, size_t len, bool tx)
{
    uint64_t *s = c->rdma.pestat;
    size_t off = 14, iplen;
    uint8_t proto;
    bool v4, mc;
    unsigned base;

    if (len >= 18 && be16(f + 12) == 0x8100) {
        off = 18;
    }
    if (len < off + 20) {
        return;
    }
    switch (be16(f + off - 2)) {
    case 0x0800:
        v4 = true;
        iplen = be16(f + off + 2);
        proto = f[off + 9];
        mc = (f[off + 16] & 0xF0) == 0xE0;
        break;
    case 0x86DD:
        if (len < off + 40) {
            return;
        }
        v4 = false;
        iplen = 40 + (size_t)be16(f + off + 4);
        proto = f[off + 6];
        mc = f[off + 24] == 0xFF;
        break;
    default:
        return;
    }
    if (iplen > len - off) {
        iplen = len - off;      /* counted as what is really there */
    }
    if (tx) {
        base = v4 ? E810_PE_IP4TXOCTS : E810_PE_IP6TXOCTS;
    } else {
        base = v4 ? E810_PE_IP4RXOCTS : E810_PE_IP6RXOCTS;
    }
    /* The enum keeps OCTS, PKTS, ..., MCOCTS, MCPKTS of one family at the
     * same distances for Rx and Tx, v4 and v6. */
    s[base] += iplen;
    s[base + 1]++;
    if (mc) {
        unsigned mco = tx ? E810_PE_IP4TXMCOCTS - E810_PE_IP4TXOCTS
                          : E810_PE_IP4RXMCOCTS - E810_PE_IP4RXOCTS;

        s[base + mco] += iplen;
        s[base + mco + 1]++;
    }
    if (proto == 6) {
        s[tx ? E810_PE_TCPTXSEG : E810_PE_TCPRXSEGS]++;
    } else if (proto == 17) {
        s[tx ? E810_PE_UDPTXPKTS : E810_PE_UDPRXPKTS]++;
    }
}

void e810_pestat_rx_err(E810Core *c, bool ipv4, unsigned kind)
{
    uint64_t *s = c->rdma.pestat;

    switch (kind) {
    case E810_PE_ERR_TRUNC:
        s[ipv4 ? E810_PE_IP4RXTRUNC : E810_PE_IP6RXTRUNC]++;
        break;
    case E810_PE_ERR_TCP:
        s[E810_PE_TCPRXPROTOERR]++;
        break;
    default:
        s[ipv4 ? E810_PE_IP4RXDISCARD : E810_PE_IP6RXDISCARD]++;
        break;
    }
}

void e810_pestat_gather(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    uint64_t w[GATHER_BUF_SIZE / 8] = { 0 };
    uint8_t buf[GATHER_BUF_SIZE];

    for (unsigned i = 0; i < E810_PE_COUNT; i++) {
        const PeSlot *sl = &pe_slot[i];
        uint64_t v = c->rdma.pestat[i];

        if (!sl->width) {
            continue;
        }
        if (i == E810_PE_TCPRTXSEG) {
            v += e810_qpdp_rexmits(c);
        }
        v &= (1ull << sl->width) - 1;
        w[sl->byte / 8] |= v << sl->bit;
    }
    for (unsigned i = 0; i < GATHER_BUF_SIZE / 8; i++) {
        st64(buf + 8 * i, w[i]);
    }
    trace_e810_rdma_gather_stats(wqe[4], !!(wqe[3] & WQE_USE_INST),
                                 WQE_INST_INDEX(wqe[3]));
    if (e810_dma_write(c, wqe[4], buf, sizeof(buf))) {
        e810_cqp_fail(c, r, E810_CQP_MIN_DMA,
                      "stats buffer at 0x%" PRIx64, wqe[4]);
    }
}
