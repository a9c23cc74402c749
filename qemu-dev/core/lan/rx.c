/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 LAN Rx: queue context and enable (QRX_CONTEXT, QRX_CTRL), steering
 * (switch rules → VSI → RSS → queue), placing a frame into one or more
 * buffers, the 32-byte flex NIC write-back (RXDID 2) and the queue's
 * interrupt.  Frames that cannot be placed are dropped and counted; nothing
 * is queued inside the device.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "lan.h"
#include "../bytes.h"
#include "../snap.h"
#include "../../trace.h"

/* A frame as the parser sees it. */
typedef struct RxInfo {
    uint16_t ptype;
    uint16_t status0;           /* L3L4P and checksum error bits */
    uint16_t vlan;              /* outermost VLAN ID or E810_VLAN_NONE */
    uint16_t tpid;              /* outermost tag's TPID (0 if untagged) */
    uint16_t tci;
    size_t tuple_len;           /* RSS input; 0 = not hashable */
    uint8_t tuple[36];
} RxInfo;

/* Buffers of one frame at most: rxmax (14 bits) over the smallest dbuf. */
#define RX_MAX_BUFS                 128

static void rx_drop(E810Core *c, uint64_t *counter, size_t len,
                    const char *why)
{
    (*counter)++;
    c->stats.rx_dropped++;
    trace_e810_rx_drop(len, why);
}

/* A frame for @vsi's queue @q that was not delivered. */
static void rxq_drop(E810Core *c, unsigned vsi, unsigned q, uint64_t *counter,
                     size_t len, const char *why)
{
    (*counter)++;
    e810_lan_stats_vsi_count(c, vsi, E810_VS_RDPC);
    if (counter == &c->stats.rx_no_desc) {
        c->lan.port_stats[E810_PS_RDPC]++;
    }
    c->stats.rx_dropped++;
    trace_e810_rxq_drop(q, len, why);
}

/* ---- queue context ------------------------------------------------------ */

bool e810_rxq_check(const E810RxRing *r, const char **bad)
{
    *bad = NULL;
    if (r->qlen < 8) {
        *bad = "ring shorter than 8 descriptors";
    } else if (r->head >= r->qlen) {
        *bad = "head beyond the ring";
    } else if (!r->dsize32) {
        *bad = "16-byte descriptors";
    } else if (r->dbuf == 0 || r->rxmax < 64) {
        /* The flow director's control queue has no packet buffers: an
         * idle queue, not a guest error. */
        return false;
    }
    return !*bad;
}

/* struct ice_rlan_ctx: field positions from ice_common.c
 * ice_rlan_ctx_fields. */
#define RXQ_F(f, lsb, width)    E810_BF(E810RxRing, f, lsb, width, 0)
static const E810BitField rxq_ctx_layout[] = {
    RXQ_F(head, 0, 13),
    E810_BF(E810RxRing, base, 32, 57, 7),           /* 128-byte units */
    RXQ_F(qlen, 89, 13),
    E810_BF(E810RxRing, dbuf, 102, 7, 7),           /* 128-byte units */
    E810_BF(E810RxRing, hbuf, 109, 5, 6),           /* 64-byte units */
    RXQ_F(dtype, 114, 2), RXQ_F(dsize32, 116, 1), RXQ_F(crcstrip, 117, 1),
    RXQ_F(l2tsel, 119, 1), RXQ_F(showiv, 127, 1), RXQ_F(rxmax, 174, 14),
};

/* Take over the context of queue @q. */
static void rxq_load(E810Core *c, unsigned q)
{
    E810RxRing *r = &c->lan.rxq[q];
    uint8_t w[QRX_CONTEXT_DWORDS * 4];
    const char *bad;

    for (unsigned i = 0; i < QRX_CONTEXT_DWORDS; i++) {
        st32(w + 4 * i, e810_reg(c, QRX_CONTEXT(i, q)));
    }
    e810_dirty_mark(c->lan.rxq_dirty, E810_LAN_DIRTY_CHUNK, q);
    memset(r, 0, sizeof(*r));
    e810_bits_unpack(r, w, rxq_ctx_layout,
                     sizeof(rxq_ctx_layout) / sizeof(rxq_ctx_layout[0]));
    r->enabled = true;
    r->valid = e810_rxq_check(r, &bad);
    trace_e810_rxq_enable(q, true, r->base, r->qlen, r->dbuf, r->rxmax);
    if (bad) {
        e810_guest_error(c, "rxq %u enabled with a bad context: %s", q, bad);
    }
}

static void rxq_ctrl_write(E810Core *c, unsigned q, uint32_t val)
{
    E810RxRing *r = &c->lan.rxq[q];
    bool ena = val & QRX_CTRL_QENA_REQ;

    /* Enabling and disabling complete at once: STAT follows REQ. */
    val &= ~QRX_CTRL_QENA_STAT;
    if (ena) {
        val |= QRX_CTRL_QENA_STAT;
    }
    e810_reg_set(c, QRX_CTRL(q), val);
    if (ena && !r->enabled) {
        rxq_load(c, q);
    } else if (!ena && r->enabled) {
        r->enabled = false;
        trace_e810_rxq_enable(q, false, r->base, r->qlen, r->dbuf, r->rxmax);
    }
}

bool e810_lan_write(E810Core *c, uint32_t off, uint32_t val)
{
    if (off >= QRX_CTRL(0) && off < QRX_CTRL(E810_LAN_RXQ)) {
        rxq_ctrl_write(c, (off - QRX_CTRL(0)) / 4, val);
        return true;
    }
    return e810_lan_tx_write(c, off, val);
}

void e810_lan_reset(E810Core *c)
{
    E810Lan *l = &c->lan;

    E810_DIRTY_ZERO(l->txq, l->txq_dirty, E810_LAN_DIRTY_CHUNK);
    E810_DIRTY_ZERO(l->rxq, l->rxq_dirty, E810_LAN_DIRTY_CHUNK);
}

/* ---- saved state -------------------------------------------------------- */

/*
 * E810Lan: port_stats and vsi_stats (dense: the driver reads them all),
 * the Tx rings that ever ran (gen != 0) and the enabled Rx rings are
 * saved.  Derived on load: rxq[].enabled (true for what the stream
 * holds) and rxq[].valid (e810_rxq_check, as rxq_load decides it; a
 * disabled ring's fields are never read, QENA_REQ loads them anew).  Not
 * saved: gather, frame and rxframe, per-packet scratch.
 */
static const E810SnapField lan_stats_fields[] = {
    SF_UAX(E810Lan, port_stats),
    /* [E810_LAN_STAT_VSIS][E810_VS_COUNT], as one array */
    { .name = "vsi_stats", .off = offsetof(E810Lan, vsi_stats),
      .size = sizeof(uint64_t),
      .count = E810_LAN_STAT_VSIS * E810_VS_COUNT, .kind = E810_SF_U,
      .since = 1, .lo = 0, .hi = UINT64_MAX },
    SF_END
};

static const E810SnapField lan_txq_fields[] = {
    SF_U(E810TxRing, gen, 1, UINT32_MAX),
    SF_UX(E810TxRing, head),            /* checked against the context */
    SF_END
};

/* The ranges of the context fields rxq_load decodes them from. */
static const E810SnapField lan_rxq_fields[] = {
    SF_UX(E810RxRing, base),
    SF_U(E810RxRing, qlen, 0, 0x1FFF),
    SF_U(E810RxRing, head, 0, 0x1FFF),
    SF_U(E810RxRing, dbuf, 0, 0x7F << 7),
    SF_U(E810RxRing, hbuf, 0, 0x1F << 6),
    SF_U(E810RxRing, dtype, 0, 3),
    SF_BOOL(E810RxRing, dsize32),
    SF_BOOL(E810RxRing, crcstrip),
    SF_BOOL(E810RxRing, l2tsel),
    SF_BOOL(E810RxRing, showiv),
    SF_U(E810RxRing, rxmax, 0, 0x3FFF),
    SF_END
};

/* The head of the ring the firmware's context describes is inside it;
 * a head of an older incarnation is reset by the next doorbell. */
static bool lan_txq_each(E810SnapR *r, void *e, uint32_t q, void *opaque)
{
    E810TxRing *t = e;
    const E810TxQueueCtx *tq = e810_fw_txq(opaque, q);

    if (tq && tq->gen == t->gen && t->head >= tq->qlen) {
        return e810_snap_fail(r, "lan.txq[%u].head: %u beyond the ring of "
                              "%u", q, t->head, tq->qlen);
    }
    return true;
}

static bool lan_rxq_each(E810SnapR *r, void *e, uint32_t q, void *opaque)
{
    E810RxRing *x = e;
    const char *bad;

    /* rxq_load makes base and dbuf from 128-byte units, hbuf from 64. */
    if ((x->base | x->dbuf) & 0x7F || x->hbuf & 0x3F) {
        return e810_snap_fail(r, "lan.rxq[%u]: base 0x%" PRIx64 ", dbuf %u "
                              "or hbuf %u not in the context's units", q,
                              x->base, x->dbuf, x->hbuf);
    }
    x->valid = e810_rxq_check(x, &bad);
    return true;
}

static const E810SnapTable lan_txq_table = {
    E810_SNAP_ARRAY("lan.txq", lan.txq, E810TxRing, lan_txq_fields, gen),
    E810_SNAP_MAP(lan.txq_dirty, E810_LAN_DIRTY_CHUNK),
    .each = lan_txq_each,
};

static const E810SnapTable lan_rxq_table = {
    E810_SNAP_ARRAY("lan.rxq", lan.rxq, E810RxRing, lan_rxq_fields, enabled),
    E810_SNAP_MAP(lan.rxq_dirty, E810_LAN_DIRTY_CHUNK),
    .each = lan_rxq_each,
};

static const E810SnapItem lan_items[] = {
    E810_SNAP_FIELDS(lan, lan_stats_fields),
    { .table = &lan_txq_table },
    { .table = &lan_rxq_table },
    E810_SNAP_ITEMS_END
};

const E810SnapPart e810_lan_snap = { .name = "lan", .items = lan_items };

/* ---- parsing: packet type, checksums, RSS input ---------------------- */

static uint16_t ptype_of(bool v6, bool frag, uint8_t proto)
{
    if (frag) {
        return v6 ? E810_PTYPE_IPV6_FRAG : E810_PTYPE_IPV4_FRAG;
    }
    switch (proto) {
    case 6:
        return v6 ? E810_PTYPE_IPV6_TCP : E810_PTYPE_IPV4_TCP;
    case 17:
        return v6 ? E810_PTYPE_IPV6_UDP : E810_PTYPE_IPV4_UDP;
    case 132:
        return v6 ? E810_PTYPE_IPV6_SCTP : E810_PTYPE_IPV4_SCTP;
    case 1:
        return v6 ? E810_PTYPE_IPV6 : E810_PTYPE_IPV4_ICMP;
    case 58:
        return v6 ? E810_PTYPE_IPV6_ICMP : E810_PTYPE_IPV4;
    default:
        return v6 ? E810_PTYPE_IPV6 : E810_PTYPE_IPV4;
    }
}

/* What the descriptor and RSS need, from the frame's one parse. */
static void rx_info(RxInfo *in, const E810Frame *fr)
{
    const uint8_t *ip = e810_frame_l3(fr);

    memset(in, 0, sizeof(*in));
    in->ptype = E810_PTYPE_L2;
    in->vlan = fr->vlan == E810_FRAME_NO_VLAN ? E810_VLAN_NONE : fr->vlan;
    in->tpid = fr->tpid;
    in->tci = fr->tci;
    if (!fr->ipv4 && !fr->ipv6) {
        return;
    }
    in->ptype = fr->ipv6 ? E810_PTYPE_IPV6 : E810_PTYPE_IPV4;
    if (!fr->l3_ok) {
        return;                             /* malformed: no claims */
    }
    if (fr->ipv4) {
        memcpy(in->tuple, ip + 12, 8);
        in->tuple_len = 8;
    } else {
        memcpy(in->tuple, ip + 8, 32);
        in->tuple_len = 32;
    }
    in->ptype = ptype_of(fr->ipv6, fr->frag, fr->proto);
    in->status0 |= E810_RXD_STATUS0_L3L4P;
    if (!fr->l3_csum_ok) {
        in->status0 |= E810_RXD_STATUS0_IPE;
    }
    if (fr->frag) {
        return;
    }
    if (!fr->l4_csum_ok) {
        in->status0 |= E810_RXD_STATUS0_L4E;
    }
    if ((fr->proto == IP_PROTO_TCP || fr->proto == IP_PROTO_UDP ||
         fr->proto == IP_PROTO_SCTP) && fr->l4_len >= 4) {
        memcpy(in->tuple + in->tuple_len, e810_frame_l4(fr), 4);
        in->tuple_len += 4;
    }
}

/* ---- placing a frame into a queue --------------------------------------- */

/*
 * Does the VSI take the outermost tag into the descriptor?  Single VLAN mode
 * (l2tsel 1): inner VLAN EMODE other than "nothing".  Double VLAN mode:
 * outer EMODE other than "nothing" and the configured outer TPID.
 */
static bool rx_strip(E810Core *c, unsigned vsi, const E810RxRing *r,
                     const RxInfo *in)
{
    const uint8_t *v = e810_fw_vsi_ctx(c, vsi);
    static const uint16_t outer_tpid[4] = { 0, 0x88A8, 0x8100, 0x9100 };

    if (!v || !in->tpid) {
        return false;
    }
    if (r->l2tsel) {
        return in->tpid == 0x8100 && ((v[12] >> 3) & 3) != 3;
    }
    return (v[26] & 3) != 3 && in->tpid == outer_tpid[(v[26] >> 2) & 3];
}

/* Can queue @q take a frame?  Drops it if not; the ring's tail in @tail. */
static bool rxq_ready(E810Core *c, unsigned vsi, unsigned q, size_t len,
                      uint32_t *tail)
{
    E810RxRing *r = &c->lan.rxq[q];
    uint32_t rxdid = e810_reg(c, QRXFLXP_CNTXT(q)) & QRXFLXP_CNTXT_RXDID_M;

    *tail = e810_reg(c, QRX_TAIL(q)) & QRX_TAIL_M;
    if (!r->enabled) {
        rxq_drop(c, vsi, q, &c->stats.rx_queue_off, len, "queue disabled");
        return false;
    }
    if (!r->valid) {
        rxq_drop(c, vsi, q, &c->stats.rx_queue_off, len, "bad queue context");
        return false;
    }
    if (rxdid != E810_RXDID_FLEX_NIC) {
        rxq_drop(c, vsi, q, &c->stats.rx_queue_off, len, "unsupported RXDID");
        e810_unimp(c, "rxq %u: descriptor format RXDID %u", q, rxdid);
        return false;
    }
    if (*tail >= r->qlen) {
        rxq_drop(c, vsi, q, &c->stats.rx_queue_off, len,
                 "tail beyond the ring");
        e810_guest_error(c, "rxq %u: tail %u beyond ring of %u", q, *tail,
                         r->qlen);
        return false;
    }
    return true;
}

/*
 * What lands in memory: the tag stripped if @strip, the FCS kept unless the
 * ring strips it.  Updates @f and returns the new length.
 */
static size_t rx_image(E810Core *c, const E810RxRing *r, bool strip,
                       const uint8_t **f, size_t len)
{
    uint8_t *b = c->lan.rxframe;
    size_t n;

    if (!strip && r->crcstrip) {
        return len;
    }
    if (strip) {
        memcpy(b, *f, 12);
        memcpy(b + 12, *f + 16, len - 16);
        n = len - 4;
    } else {
        memcpy(b, *f, len);
        n = len;
    }
    if (!r->crcstrip) {
        st32(b + n, e810_crc32_eth(*f, len));
        n += 4;
    }
    *f = b;
    return n;
}

/*
 * Buffer addresses of the @nbuf descriptors from head.  False, with the
 * frame of @len bytes dropped, if one is unreadable.
 */
static bool rxq_fetch_bufs(E810Core *c, unsigned vsi, unsigned q,
                           const E810RxRing *r, unsigned nbuf, size_t len,
                           uint64_t *addr)
{
    for (unsigned i = 0; i < nbuf; i++) {
        unsigned at = (r->head + i) % r->qlen;
        uint8_t qw0[8];

        if (e810_dma_read(c, r->base + (uint64_t)at * E810_RXD_SIZE,
                                  qw0, sizeof(qw0))) {
            rxq_drop(c, vsi, q, &c->stats.rx_queue_off, len,
                     "descriptor DMA read failed");
            e810_guest_error(c, "rxq %u: descriptor %u unreadable", q, at);
            return false;
        }
        addr[i] = ld64(qw0);
    }
    return true;
}

/* The last descriptor of a frame: EOF, checksum status, hash, VLAN tag. */
static uint16_t rx_wb_last(uint8_t *wb, const E810RxRing *r, const RxInfo *in,
                           bool strip, uint32_t hash, bool hashed)
{
    uint16_t st0 = E810_RXD_STATUS0_EOF | in->status0;

    if (hashed) {
        st0 |= E810_RXD_STATUS0_RSS_VALID;
        st32(wb + E810_RXD_WB_RSS_HASH, hash);
    }
    if (strip && r->l2tsel) {
        st0 |= E810_RXD_STATUS0_L2TAG1P;
        st16(wb + E810_RXD_WB_L2TAG1, in->tci);
    } else if (strip) {
        st16(wb + E810_RXD_WB_STATUS1, E810_RXD_STATUS1_L2TAG2P);
        st16(wb + E810_RXD_WB_L2TAG2_2ND, in->tci);
    }
    return st0;
}

/* Count the delivered frame and raise the queue's interrupt. */
static void rxq_done(E810Core *c, unsigned vsi, unsigned q, const uint8_t *f,
                     size_t len, const RxInfo *in, unsigned nbuf, uint32_t hash)
{
    E810RxRing *r = &c->lan.rxq[q];
    uint32_t ctl = e810_reg(c, QINT_RQCTL(q));
    bool irq = ctl & E810_CTL_CAUSE_ENA;

    c->stats.rx_frames++;
    c->stats.rx_bytes += len;
    e810_lan_stats_vsi(c, vsi, f, len, false);
    trace_e810_rx_frame(q, len, in->ptype, nbuf, hash, r->head,
                        ctl & E810_CTL_MSIX_INDX_M, irq);
    if (irq) {
        e810_intr_cause_ctl(c, ctl);
    }
}

static void rx_to_queue(E810Core *c, unsigned vsi, unsigned q,
                        const uint8_t *f, size_t len, const RxInfo *in,
                        uint32_t hash, bool hashed)
{
    E810RxRing *r = &c->lan.rxq[q];
    uint64_t addr[RX_MAX_BUFS];
    uint32_t tail;
    bool strip;
    unsigned nbuf, avail;

    if (!rxq_ready(c, vsi, q, len, &tail)) {
        return;
    }
    strip = rx_strip(c, vsi, r, in);
    len = rx_image(c, r, strip, &f, len);
    if (len > r->rxmax) {
        rxq_drop(c, vsi, q, &c->stats.rx_oversize, len,
                 "frame larger than rxmax");
        return;
    }
    nbuf = (len + r->dbuf - 1) / r->dbuf;
    avail = (tail + r->qlen - r->head) % r->qlen;
    if (nbuf > RX_MAX_BUFS) {
        rxq_drop(c, vsi, q, &c->stats.rx_oversize, len, "too many buffers");
        return;
    }
    if (avail < nbuf) {
        rxq_drop(c, vsi, q, &c->stats.rx_no_desc, len, "no free descriptors");
        return;
    }
    /* Read every buffer address first: a bad ring drops the whole frame. */
    if (!rxq_fetch_bufs(c, vsi, q, r, nbuf, len, addr)) {
        return;
    }
    for (unsigned i = 0; i < nbuf; i++) {
        unsigned at = (r->head + i) % r->qlen;
        uint64_t da = r->base + (uint64_t)at * E810_RXD_SIZE;
        size_t chunk = len - (size_t)i * r->dbuf;
        uint8_t wb[E810_RXD_SIZE] = { 0 };
        uint16_t st0 = E810_RXD_STATUS0_DD;

        if (chunk > r->dbuf) {
            chunk = r->dbuf;
        }
        if (e810_dma_write(c, addr[i],
                                   f + (size_t)i * r->dbuf, chunk)) {
            /* The driver takes an RXE buffer as empty. */
            st0 |= E810_RXD_STATUS0_RXE;
            e810_guest_error(c, "rxq %u: buffer 0x%" PRIx64 " unwritable", q,
                             addr[i]);
        }
        wb[E810_RXD_WB_RXDID] = E810_RXDID_FLEX_NIC;
        st16(wb + E810_RXD_WB_PTYPE, in->ptype);
        st16(wb + E810_RXD_WB_PKT_LEN, chunk);
        if (i + 1 == nbuf) {
            st0 |= rx_wb_last(wb, r, in, strip, hash, hashed);
        }
        /* Everything but the status first, so DD never precedes the rest. */
        if (!e810_dma_write(c, da, wb, sizeof(wb))) {
            st16(wb + E810_RXD_WB_STATUS0, st0);
            e810_dma_write(c, da + E810_RXD_WB_STATUS0,
                           wb + E810_RXD_WB_STATUS0, 2);
        }
    }
    r->head = (r->head + nbuf) % r->qlen;
    rxq_done(c, vsi, q, f, len, in, nbuf, hash);
}

/* Queue of @vsi for this frame: RSS LUT entry, else the VSI's first. */
static void rx_to_vsi(E810Core *c, unsigned vsi, const uint8_t *f, size_t len,
                      const RxInfo *in)
{
    unsigned nq = e810_fw_vsi_num_rxq(c, vsi);
    const uint8_t *key = e810_fw_rss_key(c, vsi);
    unsigned idx = 0, lut_size = 0;
    uint32_t hash = 0;
    bool hashed = false;
    int q;

    if (nq == 0) {
        trace_e810_rx_steer(vsi, 0, 0, -1, 0, false);
        e810_lan_stats_vsi_count(c, vsi, E810_VS_RDPC);
        rx_drop(c, &c->stats.rx_queue_off, len, "VSI has no Rx queues");
        return;
    }
    if (in->tuple_len && key) {
        const uint8_t *lut = e810_fw_rss_lut(c, vsi, &lut_size);

        hash = e810_toeplitz(key, in->tuple, in->tuple_len);
        hashed = true;
        if (lut && lut_size) {
            idx = lut[hash % lut_size] % nq;
        }
    }
    q = e810_fw_vsi_rxq(c, vsi, idx);
    trace_e810_rx_steer(vsi, nq, idx, q, hash, hashed);
    if (q < 0 || q >= E810_LAN_RXQ) {
        e810_lan_stats_vsi_count(c, vsi, E810_VS_RDPC);
        rx_drop(c, &c->stats.rx_queue_off, len, "VSI queue out of range");
        return;
    }
    rx_to_queue(c, vsi, q, f, len, in, hash, hashed);
}

void e810_lan_receive(E810Core *c, const E810Frame *fr)
{
    const uint8_t *frame = fr->data;
    size_t len = fr->len;
    uint16_t vsis[8];
    RxInfo in;
    int n;

    if (!c->fw.phy.up) {
        rx_drop(c, &c->stats.rx_link_down, len, "link down");
        return;
    }
    if (len < 14) {
        rx_drop(c, &c->stats.rx_runt, len, "shorter than an Ethernet header");
        return;
    }
    if (len > E810_LAN_MAX_FRAME) {
        rx_drop(c, &c->stats.rx_oversize, len, "larger than the maximum frame");
        return;
    }
    rx_info(&in, fr);
    n = e810_fw_switch_lookup(c, frame, in.vlan, vsis, 8);
    if (n <= 0) {
        rx_drop(c, &c->stats.rx_no_vsi, len, "no switch rule matched");
        return;
    }
    for (int i = 0; i < n; i++) {
        rx_to_vsi(c, vsis[i], frame, len, &in);
    }
}
