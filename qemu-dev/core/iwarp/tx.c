/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iWARP engine: RDMAP (RFC 5040) on the send side.  Posted work (Sends,
 * Writes, Read Requests, streaming-mode bytes) and inbound Read Requests
 * waiting for their responses are cut into DDP segments, one per FPDU
 * and TCP segment, when TCP has window for them.  Completion is reported
 * when the peer's TCP acknowledged the last byte (Send, Write) or the
 * last Read Response segment was placed (Read).
 */
#include "qemu/osdep.h"
#include "iw-int.h"

static IwMsg *mq_at(IwConn *c, unsigned i)
{
    return &c->msgq[(c->mq_head + i) % IW_MSGQ];
}

unsigned iw_queue_room(const IwConn *c)
{
    return IW_MSGQ - c->mq_cnt;
}

static int post(IwConn *c, const IwMsg *m)
{
    IwMsg *slot;

    if (c->mq_cnt >= IW_MSGQ || c->dead || c->fin_queued) {
        return -1;
    }
    slot = mq_at(c, c->mq_cnt++);
    *slot = *m;
    iw_kick(c);
    return 0;
}

int iw_post_send(IwConn *c, uint8_t op, uint32_t inv_stag, uint32_t len,
                 uint64_t cookie)
{
    IwMsg m = { .op = op, .stag = inv_stag, .len = len, .cookie = cookie };

    if (op != IW_OP_SEND && op != IW_OP_SEND_INV && op != IW_OP_SEND_SE &&
        op != IW_OP_SEND_SE_INV) {
        return -1;
    }
    return post(c, &m);
}

int iw_post_write(IwConn *c, uint32_t stag, uint64_t to, uint32_t len,
                  uint64_t cookie)
{
    IwMsg m = { .op = IW_OP_WRITE, .stag = stag, .to = to, .len = len,
                .cookie = cookie };

    return post(c, &m);
}

int iw_post_read(IwConn *c, uint32_t sink_stag, uint64_t sink_to,
                 uint32_t len, uint32_t src_stag, uint64_t src_to,
                 uint64_t cookie)
{
    IwMsg m = { .op = IW_OP_READ_REQ, .stag = sink_stag, .to = sink_to,
                .len = len, .src_stag = src_stag, .src_to = src_to,
                .cookie = cookie };
    unsigned ord = c->p.ord ? c->p.ord : 1;

    if (c->ord_used >= ord) {
        return -1;
    }
    if (post(c, &m)) {
        return -1;
    }
    c->ord_used++;
    return 0;
}

int iw_post_raw(IwConn *c, uint32_t len, uint64_t cookie)
{
    IwMsg m = { .op = IW_OP_RAW, .len = len, .cookie = cookie };

    return post(c, &m);
}

size_t iw_build_terminate(uint8_t *out, uint32_t term, const uint8_t *ulpdu,
                          size_t ulpdu_len)
{
    size_t n = IW_TERM_HDR_LEN, hl;

    out[IW_TERM_LAYER_ETYPE] = (uint8_t)((term >> 12 & 0xF) << IW_TERM_LAYER_S |
                                         (term >> 8 & 0xF));
    out[IW_TERM_ECODE] = (uint8_t)term;
    out[IW_TERM_HDRCT] = 0;
    out[IW_TERM_HDRCT + 1] = 0;
    if (!ulpdu || ulpdu_len < IW_RDMAP_CTRL + 1 ||
        (term >> 12) == IW_LAYER_MPA) {
        return n;
    }
    /* DDP segment length, DDP header and, for Read Requests, the RDMAP
     * header (RFC 5040 4.8, irdma_bld_terminate_hdr()). */
    hl = (ulpdu[IW_DDP_CTRL] & IW_DDP_T) ? IW_DDP_TAGGED_HDR
                                          : IW_DDP_UNTAGGED_HDR;
    if (ulpdu_len < hl) {
        return n;
    }
    stbe16(out + n, (uint16_t)ulpdu_len);
    n += IW_TERM_DDP_SEG_LEN_LEN;
    out[IW_TERM_HDRCT] |= IW_TERM_HDRCT_M;
    memcpy(out + n, ulpdu, hl);
    n += hl;
    out[IW_TERM_HDRCT] |= IW_TERM_HDRCT_D;
    if ((ulpdu[IW_RDMAP_CTRL] & IW_RDMAP_OPCODE_M) == IW_OP_READ_REQ &&
        !(ulpdu[IW_DDP_CTRL] & IW_DDP_T) &&
        ulpdu_len >= hl + IW_READ_REQ_LEN) {
        memcpy(out + n, ulpdu + hl, IW_READ_REQ_LEN);
        n += IW_READ_REQ_LEN;
        out[IW_TERM_HDRCT] |= IW_TERM_HDRCT_R;
    }
    return n;
}

void iw_send_terminate(IwConn *c, const uint8_t *payload, size_t len)
{
    if (c->term_pending || c->term_sent || c->dead) {
        return;
    }
    if (len > sizeof(c->term)) {
        len = sizeof(c->term);
    }
    memcpy(c->term, payload, len);
    c->term_len = len;
    c->term_pending = true;
    iw_kick(c);
}

bool iw_rdmap_queue_read(IwConn *c, const IwReadResp *rr)
{
    if (c->irq_cnt >= IW_IRQ_MAX) {
        return false;
    }
    c->irq[(c->irq_head + c->irq_cnt++) % IW_IRQ_MAX] = *rr;
    return true;
}

/*
 * Something still to frame.  Once framing has stopped for good (after a
 * Terminate, a local failure, or the owner giving its work up) what is
 * left can never go: it does not count, or it would hold back the FIN
 * for ever (iw_tcp_output() sends it when nothing is pending).
 */
bool iw_rdmap_pending(const IwConn *c)
{
    if (c->term_pending) {
        return true;
    }
    if (c->term_sent || c->tx_halted) {
        return false;
    }
    return c->irq_cnt || c->mq_tx < c->mq_cnt;
}

/* Untagged DDP header + RDMAP control at @u. */
static void hdr_untagged(uint8_t *u, bool last, unsigned op, uint32_t rsvd,
                         uint32_t qn, uint32_t msn, uint32_t mo)
{
    u[IW_DDP_CTRL] = iw_ddp_ctrl(false, last);
    u[IW_RDMAP_CTRL] = iw_rdmap_ctrl(op);
    stbe32(u + IW_DDP_RSVDULP, rsvd);
    stbe32(u + IW_DDP_QN, qn);
    stbe32(u + IW_DDP_MSN, msn);
    stbe32(u + IW_DDP_MO, mo);
}

static void hdr_tagged(uint8_t *u, bool last, unsigned op, uint32_t stag,
                       uint64_t to)
{
    u[IW_DDP_CTRL] = iw_ddp_ctrl(true, last);
    u[IW_RDMAP_CTRL] = iw_rdmap_ctrl(op);
    stbe32(u + IW_DDP_STAG, stag);
    stbe64(u + IW_DDP_TO, to);
}

static void msg_framed(IwConn *c, IwMsg *m, size_t n)
{
    m->sent = true;
    m->end_seq = c->snd_max + (uint32_t)n;
    if (m->op == IW_OP_READ_REQ) {
        m->resp_wait = true;
    } else {
        m->acked_wait = true;
    }
    c->mq_tx++;
}

/*
 * Framing failed locally: the payload of @m (or an inbound Read's source,
 * @m NULL) could not be read.  Stop framing; the message ends here, its
 * owner learns it failed once the framer has returned (iw_rdmap_tx_error)
 * or, when its first segments are in flight (they may be resent from its
 * buffers), once they are acknowledged.
 */
static void tx_fail(IwConn *c, IwMsg *m, uint32_t term)
{
    c->tx_halted = true;
    if (m) {
        m->status = -1;
        m->sent = true;
        m->resp_wait = false;
        c->mq_tx++;
        if (m->off && c->snd_max != c->snd_una) {
            m->acked_wait = true;
            m->end_seq = c->snd_max;
            return;
        }
        m->acked_wait = false;
        c->tx_err_msg = true;
        c->tx_err_cookie = m->cookie;
    }
    c->tx_err_pending = true;
    c->tx_err_term = term;
}

/* Keep the @hl header bytes at @u in @d, the payload from @src. */
static void desc(IwSeg *d, const uint8_t *u, size_t hl, uint8_t src,
                 uint32_t plen)
{
    memcpy(d->hdr, u, hl);
    d->hlen = (uint8_t)hl;
    d->src = src;
    d->plen = plen;
    d->raw = false;
}

/* The Terminate waiting to go, as one FPDU. */
static size_t next_terminate(IwConn *c, uint8_t *out, size_t maxu, IwSeg *d)
{
    uint8_t *u = out + IW_MPA_HDR;

    if (maxu < IW_DDP_UNTAGGED_HDR + c->term_len) {
        return 0;
    }
    hdr_untagged(u, true, IW_OP_TERMINATE, 0, IW_QN_TERM,
                 c->tx_msn[IW_QN_TERM]++, 0);
    memcpy(u + IW_DDP_UNTAGGED_HDR, c->term, c->term_len);
    desc(d, u, IW_DDP_UNTAGGED_HDR, IW_SRC_TERM, (uint32_t)c->term_len);
    c->term_pending = false;
    c->term_sent = true;
    c->stats.fpdus_tx++;
    c->ops->event(c->opaque, IW_EV_TERMINATE_SENT, 0, NULL, 0);
    return iw_mpa_seal(out, IW_DDP_UNTAGGED_HDR + c->term_len);
}

/*
 * Payload bytes of the next piece of a message with @left bytes to go
 * behind an @hl-byte header, in a ULPDU of at most @maxu bytes; false if
 * none goes now: no room, or (window-limited, or @tail_only) a piece too
 * short or not the last.
 */
static bool piece_len(size_t maxu, size_t hl, uint32_t left, bool tail_only,
                      size_t *len)
{
    size_t n;

    if (maxu <= hl) {
        return false;
    }
    n = maxu - hl;
    if (n > left) {
        n = left;
    }
    if (n < left && (n < 16 || tail_only)) {
        return false;
    }
    *len = n;
    return true;
}

/* The next Read Response segment for the oldest inbound Read. */
static size_t next_read_resp(IwConn *c, uint8_t *out, size_t maxu,
                             bool tail_only, IwSeg *d)
{
    uint8_t *u = out + IW_MPA_HDR;
    IwReadResp *rr = &c->irq[c->irq_head];
    uint32_t left = rr->len - rr->off;
    size_t n;
    bool last;

    if (!piece_len(maxu, IW_DDP_TAGGED_HDR, left, tail_only, &n)) {
        return 0;
    }
    last = n == left;
    hdr_tagged(u, last, IW_OP_READ_RESP, rr->sink_stag,
               rr->sink_to + rr->off);
    if (n) {
        int t = c->ops->read_fetch(c->opaque, rr->src_stag,
                                   rr->src_to + rr->off,
                                   u + IW_DDP_TAGGED_HDR, n);

        if (t) {
            /* The source went away (invalidated, unreadable): no
             * response with made-up data; the owner is told. */
            tx_fail(c, NULL, (uint32_t)t);
            return 0;
        }
    }
    desc(d, u, IW_DDP_TAGGED_HDR, n ? IW_SRC_FETCH : IW_SRC_NONE,
         (uint32_t)n);
    d->stag = rr->src_stag;
    d->off = rr->src_to + rr->off;
    rr->off += (uint32_t)n;
    if (last) {
        c->irq_head = (c->irq_head + 1) % IW_IRQ_MAX;
        c->irq_cnt--;
    }
    c->stats.fpdus_tx++;
    return iw_mpa_seal(out, IW_DDP_TAGGED_HDR + n);
}

/* Streaming-mode bytes of @m: no framing at all. */
static size_t next_raw(IwConn *c, IwMsg *m, uint8_t *out, size_t room,
                       bool tail_only, IwSeg *d)
{
    size_t left = m->len - m->off;
    size_t n;

    if (tail_only && room < left) {
        return 0;
    }
    n = room < left ? room : left;
    if (n && c->ops->gather(c->opaque, m->cookie, m->off, out, n)) {
        tx_fail(c, m, IW_T_RDMAP_CATASTROPHIC);
        return 0;
    }
    d->raw = true;
    d->src = IW_SRC_GATHER;
    d->hlen = 0;
    d->plen = (uint32_t)n;
    d->cookie = m->cookie;
    d->off = m->off;
    m->off += (uint32_t)n;
    if (m->off == m->len) {
        msg_framed(c, m, n);
    }
    /* Zero-length stream data: nothing to send, done at once. */
    return n;
}

/* The Read Request @m: one FPDU, headers only. */
static size_t next_read_req(IwConn *c, IwMsg *m, uint8_t *out, size_t maxu,
                            IwSeg *d)
{
    uint8_t *u = out + IW_MPA_HDR;
    uint8_t *rreq = u + IW_DDP_UNTAGGED_HDR;
    size_t n;

    if (maxu < IW_DDP_UNTAGGED_HDR + IW_READ_REQ_LEN) {
        return 0;
    }
    m->msn = c->tx_msn[IW_QN_READ]++;
    hdr_untagged(u, true, IW_OP_READ_REQ, 0, IW_QN_READ, m->msn, 0);
    stbe32(rreq + IW_RREQ_SINK_STAG, m->stag);
    stbe64(rreq + IW_RREQ_SINK_TO, m->to);
    stbe32(rreq + IW_RREQ_SIZE, m->len);
    stbe32(rreq + IW_RREQ_SRC_STAG, m->src_stag);
    stbe64(rreq + IW_RREQ_SRC_TO, m->src_to);
    desc(d, u, IW_DDP_UNTAGGED_HDR + IW_READ_REQ_LEN, IW_SRC_NONE, 0);
    n = iw_mpa_seal(out, IW_DDP_UNTAGGED_HDR + IW_READ_REQ_LEN);
    msg_framed(c, m, n);
    c->stats.fpdus_tx++;
    return n;
}

/* The next segment of the Send or RDMA Write @m. */
static size_t next_data(IwConn *c, IwMsg *m, uint8_t *out, size_t maxu,
                        bool tail_only, IwSeg *d)
{
    uint8_t *u = out + IW_MPA_HDR;
    bool tagged = m->op == IW_OP_WRITE;
    size_t hl = tagged ? IW_DDP_TAGGED_HDR : IW_DDP_UNTAGGED_HDR;
    uint32_t left = m->len - m->off;
    size_t len, n;
    bool last;

    if (!piece_len(maxu, hl, left, tail_only, &len)) {
        return 0;
    }
    last = len == left;
    if (m->off == 0 && !tagged) {
        m->msn = c->tx_msn[IW_QN_SEND]++;
    }
    if (tagged) {
        hdr_tagged(u, last, IW_OP_WRITE, m->stag, m->to + m->off);
    } else {
        bool inv = m->op == IW_OP_SEND_INV || m->op == IW_OP_SEND_SE_INV;

        hdr_untagged(u, last, m->op, inv ? m->stag : 0, IW_QN_SEND,
                     m->msn, m->off);
    }
    if (len && c->ops->gather(c->opaque, m->cookie, m->off, u + hl, len)) {
        /* Not one more byte of it: the rest would be made up. */
        tx_fail(c, m, IW_T_RDMAP_CATASTROPHIC);
        return 0;
    }
    desc(d, u, hl, len ? IW_SRC_GATHER : IW_SRC_NONE, (uint32_t)len);
    d->cookie = m->cookie;
    d->off = m->off;
    m->off += (uint32_t)len;
    n = iw_mpa_seal(out, hl + len);
    if (last) {
        msg_framed(c, m, n);
    }
    c->stats.fpdus_tx++;
    return n;
}

size_t iw_rdmap_next(IwConn *c, uint8_t *out, size_t room, bool tail_only,
                     IwSeg *d)
{
    size_t maxu = iw_mpa_max_ulpdu(room);
    IwMsg *m;

    if (c->term_pending) {
        return next_terminate(c, out, maxu, d);
    }
    if (c->term_sent || c->tx_halted) {
        return 0;               /* nothing follows a Terminate or a failure */
    }
    if (c->irq_cnt) {
        return next_read_resp(c, out, maxu, tail_only, d);
    }
    if (c->mq_tx >= c->mq_cnt) {
        return 0;
    }
    m = mq_at(c, c->mq_tx);
    switch (m->op) {
    case IW_OP_RAW:
        return next_raw(c, m, out, room, tail_only, d);
    case IW_OP_READ_REQ:
        return next_read_req(c, m, out, maxu, d);
    default:
        return next_data(c, m, out, maxu, tail_only, d);
    }
}

int iw_rdmap_rebuild(IwConn *c, const IwSeg *d, uint8_t *out)
{
    uint8_t *p = d->raw ? out : out + IW_MPA_HDR + d->hlen;
    int t = 0;

    if (!d->raw) {
        memcpy(out + IW_MPA_HDR, d->hdr, d->hlen);
    }
    switch (d->src) {
    case IW_SRC_GATHER:
        t = c->ops->gather(c->opaque, d->cookie, d->off, p, d->plen);
        break;
    case IW_SRC_FETCH:
        t = c->ops->read_fetch(c->opaque, d->stag, d->off, p, d->plen);
        break;
    case IW_SRC_TERM:
        memcpy(p, c->term, d->plen);
        break;
    }
    if (t) {
        return t;
    }
    /* The framing is what it was: same header, same length, so the same
     * FPDU boundaries; the CRC is computed again over what was read. */
    if (!d->raw && iw_mpa_seal(out, d->hlen + d->plen) != d->len) {
        return IW_T_RDMAP_CATASTROPHIC;
    }
    return 0;
}

/* Retire finished messages from the head of the queue. */
static void mq_retire(IwConn *c)
{
    while (c->mq_cnt && c->mq_tx) {
        IwMsg *m = mq_at(c, 0);

        if (!m->sent || m->acked_wait || m->resp_wait) {
            break;
        }
        c->mq_head = (c->mq_head + 1) % IW_MSGQ;
        c->mq_cnt--;
        c->mq_tx--;
    }
}

void iw_rdmap_acked(IwConn *c)
{
    unsigned i;

    for (i = 0; i < c->mq_tx; i++) {
        IwMsg *m = mq_at(c, i);

        if (m->acked_wait && seq_leq(m->end_seq, c->snd_una)) {
            m->acked_wait = false;
            c->ops->done(c->opaque, m->cookie, m->status);
        }
    }
    mq_retire(c);
}

IwMsg *iw_rdmap_oldest_read(IwConn *c)
{
    unsigned i;

    for (i = 0; i < c->mq_tx; i++) {
        IwMsg *m = mq_at(c, i);

        if (m->resp_wait) {
            return m;
        }
    }
    return NULL;
}

void iw_rdmap_read_done(IwConn *c, IwMsg *m, int status)
{
    m->resp_wait = false;
    if (c->ord_used) {
        c->ord_used--;
    }
    c->ops->done(c->opaque, m->cookie, status);
    mq_retire(c);
}

void iw_rdmap_tx_error(IwConn *c)
{
    if (!c->tx_err_pending) {
        return;
    }
    c->tx_err_pending = false;
    /* Callbacks may post work: it waits (nothing is framed any more). */
    c->depth++;
    if (c->tx_err_msg) {
        c->tx_err_msg = false;
        c->ops->done(c->opaque, c->tx_err_cookie, -1);
        mq_retire(c);
    } else {
        c->ops->event(c->opaque, IW_EV_ERROR, c->tx_err_term, NULL, 0);
    }
    c->depth--;
}
