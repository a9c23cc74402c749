/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine statistics: what the engine counts of its own traffic,
 * the statistics instances (MANAGE_STATS), and the GATHER_STATS CQP op
 * that writes the counts to the driver's buffer
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
#include "qemu/osdep.h"
#include "../dev.h"
#include "../bytes.h"
#include "../../trace.h"
#include "rdma.h"
#include "engine.h"

#define GATHER_BUF_SIZE         1024

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

/* One IP packet of @octets bytes, to a multicast address or not, of L4
 * protocol @proto, sent (@tx) or received. */
static void pestat_count(E810Core *c, bool tx, bool v4, bool mc,
                         size_t octets, uint8_t proto)
{
    uint64_t *s = c->rdma.pestat;
    unsigned base, mco;

    if (tx) {
        base = v4 ? E810_PE_IP4TXOCTS : E810_PE_IP6TXOCTS;
        mco = E810_PE_IP4TXMCOCTS - E810_PE_IP4TXOCTS;
    } else {
        base = v4 ? E810_PE_IP4RXOCTS : E810_PE_IP6RXOCTS;
        mco = E810_PE_IP4RXMCOCTS - E810_PE_IP4RXOCTS;
    }
    /* The enum keeps OCTS, PKTS, ..., MCOCTS, MCPKTS of one family at the
     * same distances for v4 and v6. */
    s[base] += octets;
    s[base + 1]++;
    if (mc) {
        s[base + mco] += octets;
        s[base + mco + 1]++;
    }
    if (proto == IP_PROTO_TCP) {
        s[tx ? E810_PE_TCPTXSEG : E810_PE_TCPRXSEGS]++;
    } else if (proto == IP_PROTO_UDP) {
        s[tx ? E810_PE_UDPTXPKTS : E810_PE_UDPRXPKTS]++;
    }
}

static bool ip_multicast(bool v4, const uint8_t *dst)
{
    return v4 ? (dst[0] & 0xF0) == 0xE0 : dst[0] == 0xFF;
}

void e810_pestat_tx(E810Core *c, const uint8_t *f, size_t len)
{
    /* The engine built these headers itself: only where its fields are
     * is looked up (no checksums, no options to walk). */
    size_t off = ETH_HLEN, iplen;
    uint16_t et;
    const uint8_t *ip;

    if (len >= ETH_HLEN + 4 && ldbe16(f + 12) == ETH_P_8021Q) {
        off += 4;
    }
    if (len < off + IPV4_HLEN) {
        return;
    }
    et = ldbe16(f + off - 2);
    ip = f + off;
    if (et == ETH_P_IP) {
        iplen = ldbe16(ip + 2);
        pestat_count(c, true, true, ip_multicast(true, ip + 16),
                     iplen < len - off ? iplen : len - off, ip[9]);
    } else if (et == ETH_P_IPV6 && len >= off + IPV6_HLEN) {
        iplen = IPV6_HLEN + (size_t)ldbe16(ip + 4);
        pestat_count(c, true, false, ip_multicast(false, ip + 24),
                     iplen < len - off ? iplen : len - off, ip[6]);
    }
}

void e810_pestat_rx(E810Core *c, const E810Frame *fr)
{
    const uint8_t *ip = e810_frame_l3(fr);

    if ((fr->ipv4 || fr->ipv6) && fr->l3_ok) {
        pestat_count(c, false, fr->ipv4,
                     ip_multicast(fr->ipv4, ip + (fr->ipv4 ? 16 : 24)),
                     fr->l3_end - fr->l3_off, fr->proto);
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
            v += e810_eng_rexmits(c);
        }
        v &= (1ull << sl->width) - 1;
        w[sl->byte / 8] |= v << sl->bit;
    }
    for (unsigned i = 0; i < GATHER_BUF_SIZE / 8; i++) {
        st64(buf + 8 * i, w[i]);
    }
    trace_e810_rdma_gather_stats(wqe[4], !!(wqe[3] & CQPSQ_STATS_USE_INST),
                                 CQPSQ_STATS_INST_INDEX(wqe[3]));
    if (e810_dma_write(c, wqe[4], buf, sizeof(buf))) {
        e810_cqp_fail(c, r, E810_CQP_MIN_DMA,
                      "stats buffer at 0x%" PRIx64, wqe[4]);
    }
}

/* MANAGE_STATS: allocate a free statistics instance, or free one. */
void e810_rdma_stats(E810Core *c, unsigned op, const uint64_t *wqe,
                     E810CqpResult *r)
{
    uint64_t h = wqe[3];

    (void)op;
    if (!(h & CQPSQ_STATS_ALLOC_INST)) {
        e810_bit_set(c->rdma.stats_inst, CQPSQ_STATS_INST_INDEX(h), false);
        return;
    }
    for (unsigned i = 0; i < E810_RDMA_STATS_INST; i++) {
        if (!e810_bit(c->rdma.stats_inst, i)) {
            e810_bit_set(c->rdma.stats_inst, i, true);
            r->retval = i;
            return;
        }
    }
    e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM, "no free stats instance");
}
