/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 LAN Tx: doorbell, descriptor fetch, gather, checksum offload, TSO,
 * VLAN insertion, descriptor-done write-back and the queue's interrupt.
 *
 * A doorbell write runs the ring synchronously from the device's head to the
 * new tail.  Packets are taken whole (context descriptors, data descriptors
 * up to EOP); a packet the guest has not finished writing (no EOP before
 * tail) waits for the next doorbell.  Malformed packets are dropped, but
 * their descriptors are still completed so the driver never waits forever.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "lan.h"
#include "../bytes.h"
#include "../../trace.h"

/* What the descriptors of one packet ask for. */
typedef struct TxPkt {
    unsigned q;
    uint16_t first;             /* ring index of its first descriptor */
    bool tso;
    uint32_t tso_len;
    uint32_t mss;
    bool il2tag2;
    uint16_t l2tag2;
    uint32_t tunnel;            /* context QW0 tunneling parameters */
    bool have_data;
    uint16_t cmd;               /* of the first data descriptor */
    uint32_t offs;
    uint16_t l2tag1;
    size_t len;                 /* bytes gathered */
} TxPkt;

/* The VSI a queue sends for (its statistics), or -1. */
static int tx_vsi(E810Core *c, unsigned q)
{
    const E810TxQueueCtx *tq = e810_fw_txq(c, q);

    return tq ? tq->src_vsi : -1;
}

static void tx_drop(E810Core *c, const TxPkt *p, uint64_t *counter,
                    const char *why)
{
    (*counter)++;
    e810_lan_stats_vsi_count(c, tx_vsi(c, p->q), E810_VS_TEPC);
    trace_e810_tx_drop(p->q, p->first, why);
    e810_guest_error(c, "txq %u desc %u: packet dropped: %s", p->q, p->first,
                     why);
}

/* TPID of an inserted outer (L2TAG2) tag, per the sending VSI's context. */
static uint16_t tx_outer_tpid(E810Core *c, unsigned q)
{
    const E810TxQueueCtx *tq = e810_fw_txq(c, q);
    const uint8_t *vctx = tq ? e810_fw_vsi_ctx(c, tq->src_vsi) : NULL;

    if (vctx) {
        switch ((vctx[26] >> 2) & 3) {
        case 1:
            return 0x88A8;
        case 3:
            return 0x9100;
        default:
            break;
        }
    }
    return 0x8100;
}

/*
 * Put one finished frame (at @f, which has 8 bytes of headroom in front for
 * tags) on the wire or, in MAC loopback, back into our own Rx.
 */
static void tx_emit(E810Core *c, const TxPkt *p, uint8_t *f, size_t len)
{
    bool tag1 = p->cmd & E810_TXD_CMD_IL2TAG1;
    bool loop = c->fw.phy.mac_loopback;
    bool sent;

    /* Tags go after the MAC addresses: outer L2TAG2, then L2TAG1. */
    if (tag1) {
        memmove(f - 4, f, 12);
        f -= 4;
        len += 4;
        stbe16(f + 12, 0x8100);
        stbe16(f + 14, p->l2tag1);
    }
    if (p->il2tag2) {
        memmove(f - 4, f, 12);
        f -= 4;
        len += 4;
        stbe16(f + 12, tx_outer_tpid(c, p->q));
        stbe16(f + 14, p->l2tag2);
    }
    /* The MAC pads short frames (the driver only pads to 17 bytes). */
    if (len < 60) {
        memset(f + len, 0, 60 - len);
        len = 60;
    }
    c->stats.tx_frames++;
    c->stats.tx_bytes += len;
    e810_lan_stats_vsi(c, tx_vsi(c, p->q), f, len, true);
    e810_lan_stats_port_tx(c, f, len, loop || c->fw.phy.up);
    if (loop) {
        E810Frame fr;

        trace_e810_tx_frame_out(p->q, len, true);
        e810_frame_parse(&fr, f, len);
        e810_lan_receive(c, &fr);
        return;
    }
    if (!c->fw.phy.up) {
        c->stats.tx_dropped++;
        trace_e810_tx_drop(p->q, p->first, "link down");
        return;
    }
    sent = e810_wire_send(c, f, len, false);
    trace_e810_tx_frame_out(p->q, len, sent);
    if (!sent) {
        c->stats.tx_dropped++;
        trace_e810_tx_drop(p->q, p->first, "backend refused the frame");
    }
}

/* IPv4 header checksum over @hlen bytes at @ip. */
static void ipv4_csum(uint8_t *ip, unsigned hlen)
{
    stbe16(ip + 10, 0);
    stbe16(ip + 10, ~e810_csum_fold(e810_csum_add(0, ip, hlen)));
}

/*
 * Where an L4 header of type @l4t keeps its checksum (SCTP: the CRC32c), and
 * the header length that holds it.
 */
typedef struct L4Layout {
    unsigned csum_off;
    unsigned min_len;
} L4Layout;

static L4Layout l4_layout(uint16_t l4t)
{
    switch (l4t) {
    case E810_TXD_CMD_L4T_TCP:
        return (L4Layout) { 16, 20 };
    case E810_TXD_CMD_L4T_UDP:
        return (L4Layout) { 6, 8 };
    case E810_TXD_CMD_L4T_SCTP:
        return (L4Layout) { 8, 12 };
    default:
        return (L4Layout) { 0, 0 };
    }
}

/*
 * Finish the L4 checksum of the segment @l4[0..l4len): the field holds the
 * driver's pseudo-header seed; @extra adds what the seed left out (the L4
 * length under TSO).
 */
static void l4_csum(uint8_t *l4, size_t l4len, uint16_t l4t, uint32_t extra)
{
    unsigned off = l4_layout(l4t).csum_off;
    uint16_t sum;

    if (l4t == E810_TXD_CMD_L4T_SCTP) {
        st32(l4 + off, 0);
        st32(l4 + off, e810_crc32c(l4, l4len));
        return;
    }
    sum = ~e810_csum_fold(e810_csum_add(extra, l4, l4len));
    if (l4t == E810_TXD_CMD_L4T_UDP && sum == 0) {
        sum = 0xFFFF;
    }
    stbe16(l4 + off, sum);
}

/* Offset of the (inner) IP header: past the tunnel headers if any. */
static size_t tx_ip_off(const TxPkt *p)
{
    size_t off = E810_TXD_MACLEN(p->offs);

    if (p->tunnel & E810_TXCD_EIPT_M) {
        off += E810_TXCD_EIPLEN(p->tunnel) + E810_TXCD_NATLEN(p->tunnel);
    }
    return off;
}

/* Outer IPv4 header checksum of a tunnelled packet, if asked for. */
static const char *tx_outer_csum(const TxPkt *p, uint8_t *f, size_t len)
{
    size_t off = E810_TXD_MACLEN(p->offs);
    unsigned hlen = E810_TXCD_EIPLEN(p->tunnel);

    if ((p->tunnel & E810_TXCD_EIPT_M) != E810_TXCD_EIPT_IPV4_CSUM) {
        return NULL;
    }
    if (hlen < 20 || off + hlen > len) {
        return "outer IP header outside the frame";
    }
    ipv4_csum(f + off, hlen);
    return NULL;
}

/* Checksum offloads of a frame that is sent as it is (no TSO). */
static const char *tx_csum(const TxPkt *p, uint8_t *f, size_t len)
{
    uint16_t iipt = p->cmd & E810_TXD_CMD_IIPT_M;
    uint16_t l4t = p->cmd & E810_TXD_CMD_L4T_M;
    size_t ipoff = tx_ip_off(p);
    size_t iplen = E810_TXD_IPLEN(p->offs);
    size_t l4off = ipoff + iplen, end = len;
    const char *err = tx_outer_csum(p, f, len);

    if (err) {
        return err;
    }
    if (iipt == E810_TXD_CMD_IIPT_IPV4_CSUM) {
        if (iplen < 20 || l4off > len) {
            return "IP header outside the frame";
        }
        ipv4_csum(f + ipoff, iplen);
    }
    if (!l4t) {
        return NULL;
    }
    if (ipoff + 1 > len) {
        return "IP header outside the frame";
    }
    /* The L4 segment ends where the IP packet does, not at any padding. */
    if ((f[ipoff] >> 4) == 4 && ipoff + 4 <= len) {
        size_t tot = ldbe16(f + ipoff + 2);

        if (tot >= iplen && ipoff + tot <= len) {
            end = ipoff + tot;
        }
    } else if ((f[ipoff] >> 4) == 6 && ipoff + 6 <= len) {
        size_t pl = ldbe16(f + ipoff + 4);

        if (ipoff + 40 + pl <= len && ipoff + 40 + pl >= l4off) {
            end = ipoff + 40 + pl;
        }
    }
    if (l4off + l4_layout(l4t).min_len > end) {
        return "L4 header outside the frame";
    }
    l4_csum(f + l4off, end - l4off, l4t, 0);
    return NULL;
}

static void tx_single(E810Core *c, const TxPkt *p)
{
    uint8_t *f = c->lan.frame + 8;
    const char *err;

    if (p->len < 14) {
        tx_drop(c, p, &c->stats.tx_bad_desc, "frame shorter than an "
                "Ethernet header");
        return;
    }
    memcpy(f, c->lan.gather, p->len);
    err = tx_csum(p, f, p->len);
    if (err) {
        tx_drop(c, p, &c->stats.tx_bad_desc, err);
        return;
    }
    tx_emit(c, p, f, p->len);
}

/*
 * TCP/UDP segmentation: replicate the headers in front of each MSS-sized
 * piece of payload, fix lengths, IPv4 ID, TCP sequence and flags, and the
 * checksums (the driver seeds the L4 checksum without the length).
 */
static void tx_tso(E810Core *c, const TxPkt *p)
{
    const uint8_t *g = c->lan.gather;
    uint8_t *f = c->lan.frame + 8;
    uint16_t iipt = p->cmd & E810_TXD_CMD_IIPT_M;
    uint16_t l4t = p->cmd & E810_TXD_CMD_L4T_M;
    size_t ipoff = tx_ip_off(p);
    size_t iplen = E810_TXD_IPLEN(p->offs);
    size_t l4off = ipoff + iplen;
    size_t l4hlen = l4t == E810_TXD_CMD_L4T_UDP ? 8 : E810_TXD_L4LEN(p->offs);
    size_t hlen = l4off + l4hlen;
    bool v6 = iipt == E810_TXD_CMD_IIPT_IPV6;
    const char *err = NULL;
    uint32_t segs, seq0 = 0;
    uint16_t id0 = 0;
    uint8_t flags0 = 0;

    if (p->tunnel & E810_TXCD_EIPT_M) {
        /* Outer header fix-ups per segment are not modelled. */
        e810_unimp(c, "txq %u: TSO of tunnelled packets", p->q);
        err = "TSO of a tunnelled packet";
    } else if (E810_TXD_MACLEN(p->offs) < 14) {
        err = "TSO with MACLEN below an Ethernet header";
    } else if (!iipt || (v6 ? iplen < 40 : iplen < 20)) {
        err = "TSO without a valid IP type/length";
    } else if (l4t != E810_TXD_CMD_L4T_TCP && l4t != E810_TXD_CMD_L4T_UDP) {
        err = "TSO without TCP or UDP";
    } else if (l4hlen < l4_layout(l4t).min_len) {
        err = "TSO with L4LEN below a TCP header";
    } else if (hlen > p->len || hlen + p->tso_len != p->len ||
               p->tso_len == 0) {
        err = "TSO length does not match the gathered data";
    } else if (p->mss < E810_TXCD_MIN_MSS) {
        err = "TSO with MSS below 64";
    } else if (hlen + p->mss > E810_LAN_MAX_FRAME) {
        err = "TSO segment larger than the maximum frame";
    }
    if (err) {
        tx_drop(c, p, &c->stats.tx_bad_desc, err);
        return;
    }
    if ((g[ipoff] >> 4) != (v6 ? 6 : 4)) {
        tx_drop(c, p, &c->stats.tx_bad_desc, "TSO IP version does not match "
                "IIPT");
        return;
    }
    segs = (p->tso_len + p->mss - 1) / p->mss;
    if (!v6) {
        id0 = ldbe16(g + ipoff + 4);
    }
    if (l4t == E810_TXD_CMD_L4T_TCP) {
        seq0 = ldbe32(g + l4off + 4);
        flags0 = g[l4off + 13];
    }
    c->stats.tx_tso++;
    trace_e810_tx_tso(p->q, hlen, p->tso_len, p->mss, segs);

    for (uint32_t s = 0; s < segs; s++) {
        uint32_t plen = p->tso_len - s * p->mss;
        size_t l4len;

        if (plen > p->mss) {
            plen = p->mss;
        }
        l4len = l4hlen + plen;
        memcpy(f, g, hlen);
        memcpy(f + hlen, g + hlen + (size_t)s * p->mss, plen);
        if (v6) {
            stbe16(f + ipoff + 4, iplen - 40 + l4len);
        } else {
            stbe16(f + ipoff + 2, iplen + l4len);
            stbe16(f + ipoff + 4, id0 + s);
            if (iipt == E810_TXD_CMD_IIPT_IPV4_CSUM) {
                ipv4_csum(f + ipoff, iplen);
            }
        }
        if (l4t == E810_TXD_CMD_L4T_TCP) {
            uint8_t fl = flags0;

            stbe32(f + l4off + 4, seq0 + s * p->mss);
            /* FIN and PSH only on the last segment, CWR only on the first. */
            if (s + 1 < segs) {
                fl &= ~0x09;
            }
            if (s > 0) {
                fl &= ~0x80;
            }
            f[l4off + 13] = fl;
        } else {
            stbe16(f + l4off + 4, l4len);
        }
        l4_csum(f + l4off, l4len, l4t, l4len);
        tx_emit(c, p, f, hlen + plen);
    }
}

/*
 * Take one packet's descriptors @d[0..n) apart, gather its data and send it.
 * @n covers context descriptors and data descriptors up to EOP.
 */
static void tx_packet(E810Core *c, TxPkt *p, uint8_t (*d)[E810_TXD_SIZE],
                      unsigned n)
{
    const char *err = NULL;
    uint64_t *counter = &c->stats.tx_bad_desc;

    for (unsigned i = 0; i < n && !err; i++) {
        uint64_t qw0 = ld64(d[i]), qw1 = ld64(d[i] + 8);
        size_t size, limit;

        switch (qw1 & E810_TXD_DTYPE_M) {
        case E810_TXD_DTYPE_CTX: {
            uint32_t cmd = (qw1 >> E810_TXCD_CMD_S) & E810_TXCD_CMD_M;

            if (p->have_data) {
                err = "context descriptor between data descriptors";
                break;
            }
            if (cmd & E810_TXCD_CMD_TSO) {
                p->tso = true;
                p->tso_len = (qw1 >> E810_TXCD_TSO_LEN_S) & E810_TXCD_TSO_LEN_M;
                p->mss = (qw1 >> E810_TXCD_MSS_S) & E810_TXCD_MSS_M;
            }
            if (cmd & E810_TXCD_CMD_IL2TAG2) {
                p->il2tag2 = true;
                p->l2tag2 = (uint16_t)(qw0 >> 32);
            }
            p->tunnel = (uint32_t)qw0;
            break;
        }
        case E810_TXD_DTYPE_FLTR_PROG:
            /* Flow director programming: no filter engine, nothing to do. */
            break;
        case E810_TXD_DTYPE_DATA:
            if (!p->have_data) {
                p->have_data = true;
                p->cmd = (qw1 >> E810_TXD_CMD_S) & E810_TXD_CMD_M;
                p->offs = (qw1 >> E810_TXD_OFF_S) & E810_TXD_OFF_M;
                p->l2tag1 = (uint16_t)(qw1 >> E810_TXD_L2TAG1_S);
            }
            size = (qw1 >> E810_TXD_BUF_SZ_S) & E810_TXD_BUF_SZ_M;
            if (size == 0) {
                /* Adds nothing; the frame is judged when complete. */
                c->stats.tx_zero_desc++;
                trace_e810_tx_drop(p->q, p->first + i, "zero-length buffer");
                break;
            }
            limit = p->tso ? E810_TX_GATHER_MAX : E810_LAN_MAX_FRAME;
            if (size > limit - p->len) {
                counter = &c->stats.tx_oversize;
                err = p->tso ? "TSO packet larger than 256 KiB" :
                      "frame larger than the maximum frame size";
                break;
            }
            if (e810_dma_read(c, qw0,
                                      c->lan.gather + p->len, size)) {
                err = "buffer DMA read failed";
                break;
            }
            p->len += size;
            break;
        default:
            err = "unknown descriptor type";
            break;
        }
    }
    if (err) {
        tx_drop(c, p, counter, err);
        return;
    }
    if (p->cmd & E810_TXD_CMD_DUMMY) {
        /* Dummy packet of a flow director programming sequence. */
        trace_e810_tx_drop(p->q, p->first, "dummy packet (not sent)");
        return;
    }
    if (p->tso) {
        tx_tso(c, p);
    } else {
        tx_single(c, p);
    }
}

/* Descriptor done: DTYPE 0xF in QW1 (ice_clean_tx_irq tests exactly that). */
static bool tx_writeback(E810Core *c, uint64_t base, unsigned idx,
                         const uint8_t *desc)
{
    uint8_t qw1[8];

    st64(qw1, ld64(desc + 8) | E810_TXD_DTYPE_DONE);
    if (e810_dma_write(c, base + (uint64_t)idx * E810_TXD_SIZE + 8,
                               qw1, sizeof(qw1))) {
        e810_guest_error(c, "Tx descriptor write-back at index %u failed", idx);
        return false;
    }
    return true;
}

static void tx_doorbell(E810Core *c, unsigned q, uint32_t val)
{
    const E810TxQueueCtx *tq = e810_fw_txq(c, q);
    E810TxRing *r = &c->lan.txq[q];
    uint8_t d[E810_TX_MAX_DESC_PER_PKT][E810_TXD_SIZE];
    uint32_t tail = val;
    bool done = false;

    if (!tq || !tq->enabled) {
        c->stats.tx_bad_doorbell++;
        trace_e810_tx_drop(q, tail, "doorbell of a disabled queue");
        e810_guest_error(c, "txq %u: doorbell (tail %u) while disabled", q,
                         tail);
        return;
    }
    e810_dirty_mark(c->lan.txq_dirty, E810_LAN_DIRTY_CHUNK, q);
    if (r->gen != tq->gen) {
        /* Queue (re)created by Add Tx LAN Queues: it starts at 0. */
        r->gen = tq->gen;
        r->head = 0;
    }
    if (tail >= tq->qlen) {
        c->stats.tx_bad_doorbell++;
        trace_e810_tx_drop(q, tail, "tail beyond the ring");
        e810_guest_error(c, "txq %u: tail %u beyond ring of %u", q, tail,
                         tq->qlen);
        return;
    }
    trace_e810_tx_doorbell(q, r->head, tail);

    while (r->head != tail) {
        TxPkt p = { .q = q, .first = r->head };
        unsigned idx = r->head, n = 0;
        bool eop = false;

        /* Fetch up to the end of the packet. */
        while (idx != tail && n < E810_TX_MAX_DESC_PER_PKT) {
            uint64_t qw1;

            if (e810_dma_read(c, tq->base + (uint64_t)idx * E810_TXD_SIZE,
                                      d[n], E810_TXD_SIZE)) {
                c->stats.tx_bad_desc++;
                trace_e810_tx_drop(q, idx, "descriptor DMA read failed");
                e810_guest_error(c, "txq %u: descriptor %u at 0x%" PRIx64
                                 " unreadable", q, idx,
                                 tq->base + (uint64_t)idx * E810_TXD_SIZE);
                goto out;
            }
            qw1 = ld64(d[n] + 8);
            n++;
            idx = idx + 1 == tq->qlen ? 0 : idx + 1;
            if ((qw1 & E810_TXD_DTYPE_M) == E810_TXD_DTYPE_DATA &&
                (((qw1 >> E810_TXD_CMD_S) & E810_TXD_CMD_EOP))) {
                eop = true;
                break;
            }
        }
        if (eop) {
            tx_packet(c, &p, d, n);
        } else if (n == E810_TX_MAX_DESC_PER_PKT) {
            tx_drop(c, &p, &c->stats.tx_bad_desc, "no EOP within 128 "
                    "descriptors");
        } else {
            /* The rest of the packet is not posted yet. */
            break;
        }
        /* Complete in ring order, whether the packet went out or not. */
        for (unsigned i = 0; i < n; i++) {
            uint64_t qw1 = ld64(d[i] + 8);
            unsigned at = (p.first + i) % tq->qlen;

            if ((qw1 & E810_TXD_DTYPE_M) == E810_TXD_DTYPE_DATA &&
                ((qw1 >> E810_TXD_CMD_S) & E810_TXD_CMD_RS)) {
                done |= tx_writeback(c, tq->base, at, d[i]);
            }
        }
        r->head = idx;
    }
out:
    e810_reg_set(c, QTX_COMM_HEAD(q), r->head);
    if (done) {
        uint32_t ctl = e810_reg(c, QINT_TQCTL(q));

        trace_e810_tx_done(q, r->head, ctl & E810_CTL_MSIX_INDX_M,
                           !!(ctl & E810_CTL_CAUSE_ENA));
        if (ctl & E810_CTL_CAUSE_ENA) {
            e810_intr_cause_ctl(c, ctl);
        }
    }
}

bool e810_lan_tx_write(E810Core *c, uint32_t off, uint32_t val)
{
    unsigned q;

    if (off < QTX_COMM_DBELL(0) || off >= QTX_COMM_DBELL(16384)) {
        return false;
    }
    q = (off - QTX_COMM_DBELL(0)) / 4;
    e810_reg_set(c, off, val);
    if (q >= E810_LAN_TXQ) {
        c->stats.tx_bad_doorbell++;
        e810_guest_error(c, "doorbell of Tx queue %u (device has %u)", q,
                         E810_LAN_TXQ);
        return true;
    }
    tx_doorbell(c, q, val);
    return true;
}
