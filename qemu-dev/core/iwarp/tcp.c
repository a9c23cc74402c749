/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iWARP engine: the TCP layer of one offloaded connection (RFC 793/9293
 * with window scaling from RFC 7323), IPv4/IPv6 and Ethernet framing.
 *
 * The connection is handed over ESTABLISHED.  Sending: one FPDU per
 * segment, within the peer's window, every segment described (not
 * copied) until acknowledged and rebuilt from its source when resent;
 * retransmission is go-back-N on the RTO (exponential backoff) or on
 * three duplicate ACKs.  Receiving: in order only;
 * out-of-order segments are dropped and answered with a duplicate ACK.
 * No options are sent or honoured on data segments.
 */
#include "qemu/osdep.h"
#include "iw-int.h"

/* ---- checksums ---------------------------------------------------------- */

/* The checksum field: the complement of the folded sum. */
static uint16_t csum_fold(uint32_t sum)
{
    return (uint16_t)~e810_csum_fold(sum);
}

/* ---- timers ------------------------------------------------------------- */

/*
 * The owner's timer is armed at the earliest deadline; a deadline that
 * moves later (the RTO restarted by every ACK) leaves it where it is and
 * the early expiry re-arms it, so ACKs cost no timer calls.
 */
static void timer_update(IwConn *c)
{
    int64_t d = -1;

    if (c->rto_deadline >= 0) {
        d = c->rto_deadline;
    }
    if (c->tw_deadline >= 0 && (d < 0 || c->tw_deadline < d)) {
        d = c->tw_deadline;
    }
    if (c->delack_deadline >= 0 && (d < 0 || c->delack_deadline < d)) {
        d = c->delack_deadline;
    }
    if (d >= 0 && (c->armed < 0 || d < c->armed)) {
        c->armed = d;
        c->ops->timer(c->opaque, d);
    }
}

static void rto_arm(IwConn *c)
{
    c->rto_deadline = c->ops->now(c->opaque) + c->rto_ns;
}

/* RTO from the estimate, no backoff (RFC 6298 2.2-2.5). */
static void rto_compute(IwConn *c)
{
    int64_t rto;

    if (!c->rtt_valid) {
        return;
    }
    rto = c->srtt_ns + (4 * c->rttvar_ns > IW_RTO_G_NS ? 4 * c->rttvar_ns
                                                       : IW_RTO_G_NS);
    if (rto < c->rto_min_ns) {
        rto = c->rto_min_ns;
    }
    c->rto_ns = rto > IW_RTO_MAX_NS ? IW_RTO_MAX_NS : rto;
}

/* One measurement @r (RFC 6298 2.2, 2.3). */
static void rtt_sample(IwConn *c, int64_t r)
{
    if (r < 0) {
        return;
    }
    if (!c->rtt_valid) {
        c->srtt_ns = r;
        c->rttvar_ns = r / 2;
        c->rtt_valid = true;
    } else {
        int64_t e = c->srtt_ns - r;

        c->rttvar_ns = (3 * c->rttvar_ns + (e < 0 ? -e : e)) / 4;
        c->srtt_ns = (7 * c->srtt_ns + r) / 8;
    }
    rto_compute(c);
}

/* ---- output ------------------------------------------------------------- */

#define IW_FRAME_MAX    (ETH_HLEN + VLAN_TAG_LEN + IPV6_HLEN + TCP_HLEN + \
                         IW_MAX_MSS)

/* Where this connection's frames go (the IPv4 ID taken for one). */
static void conn_path(IwConn *c, E810NetPath *np)
{
    memcpy(np->dmac, c->p.rmac, 6);
    memcpy(np->smac, c->p.lmac, 6);
    np->vlan = c->p.vlan;
    np->vlan_tci = c->p.vlan_tci;
    np->ipv4 = c->p.ipv4;
    memcpy(np->sip, c->p.lip, 16);
    memcpy(np->dip, c->p.rip, 16);
    np->tos = c->p.tos;
    np->ttl = c->p.ttl ? c->p.ttl : 64;
    np->flow_label = 0;
    np->ip_id = c->p.ipv4 ? c->ip_id++ : 0;
    np->proto = IP_PROTO_TCP;
    np->sport = c->p.lport;
    np->dport = c->p.rport;
}

/* Where the payload goes in this connection's frames. */
static size_t hdr_len(const IwConn *c)
{
    return ETH_HLEN + (c->p.vlan ? VLAN_TAG_LEN : 0) +
           (c->p.ipv4 ? IPV4_HLEN : IPV6_HLEN) + TCP_HLEN;
}

/* Put the headers in front of the @plen payload bytes already at
 * @f + hdr_len(c), checksum, send. */
static void emit_frame(IwConn *c, uint8_t *f, uint32_t seq, uint8_t flags,
                       size_t plen)
{
    E810NetPath np;
    size_t l4;
    uint32_t win;

    if (plen > IW_MAX_MSS) {
        return;
    }
    conn_path(c, &np);
    l4 = e810_frame_start(f, &np);
    win = c->p.rcv_wnd >> c->p.rcv_scale;
    e810_tcp_put(f + l4, seq, (flags & TCP_ACK) ? c->rcv_nxt : 0, flags,
                 (uint16_t)(win > 0xFFFF ? 0xFFFF : win));
    e810_frame_seal(f, &np, l4 + TCP_HLEN + plen);
    c->stats.tx_segs++;
    c->stats.tx_bytes += plen;
    if (flags & TCP_ACK) {
        /* Every segment carries the ACK: nothing is owed any more. */
        c->ack_now = false;
        c->ack_pending = 0;
        c->delack_deadline = -1;
    }
    c->ops->frame_out(c->opaque, f, l4 + TCP_HLEN + plen);
}

/* A segment without payload (ACK, FIN, RST). */
static void emit(IwConn *c, uint32_t seq, uint8_t flags)
{
    uint8_t f[ETH_HLEN + VLAN_TAG_LEN + IPV6_HLEN + TCP_HLEN];

    emit_frame(c, f, seq, flags, 0);
}

/* The segment in flight holding sequence number @seq, NULL if none.
 * The queue is in sequence order: a binary search (a window of a few
 * MiB holds thousands of segments, and go-back-N asks for each). */
static IwSeg *seg_at(IwConn *c, uint32_t seq)
{
    unsigned lo = 0, hi = c->seg_cnt;
    IwSeg *s;

    while (hi - lo > 1) {
        unsigned mid = lo + (hi - lo) / 2;

        if (seq_leq(c->segq[(c->seg_head + mid) % IW_SEGQ].seq, seq)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    if (!c->seg_cnt) {
        return NULL;
    }
    s = &c->segq[(c->seg_head + lo) % IW_SEGQ];
    if (seq_leq(s->seq, seq) &&
        seq_lt(seq, s->seq + s->len + (s->fin ? 1 : 0))) {
        return s;
    }
    return NULL;
}

static void set_closed(IwConn *c);
static void ooo_clear(IwConn *c);

/*
 * A segment to resend cannot be built again (the guest took the memory
 * away, or it is unreadable): the stream cannot go on with other bytes
 * at these sequence numbers, so the connection is reset and the owner
 * told (its AE).
 */
static void rexmit_failed(IwConn *c, int term)
{
    c->stats.rexmit_fails++;
    emit(c, c->snd_max, TCP_RST | TCP_ACK);
    set_closed(c);
    c->dead = true;
    ooo_clear(c);
    c->depth++;
    c->ops->event(c->opaque, IW_EV_REXMIT_FAILED, (uint32_t)term, NULL, 0);
    c->depth--;
}

/*
 * Send again the part of the segment holding @seq from @seq on; returns
 * the sequence space it covered (0 if nothing is there or it could not
 * be built: then the connection is dead).  The segment is rebuilt from
 * its description, the payload read again where it was read first.  The
 * timed segment is no longer a valid sample (Karn).
 */
static uint32_t resend(IwConn *c, uint32_t seq)
{
    uint8_t f[IW_FRAME_MAX];
    uint8_t *p = f + hdr_len(c);
    IwSeg *s = c->dead ? NULL : seg_at(c, seq);
    uint32_t skip, len;
    int t;

    if (!s) {
        return 0;
    }
    skip = seq - s->seq;
    len = skip < s->len ? s->len - skip : 0;
    if (len) {
        t = iw_rdmap_rebuild(c, s, p);
        if (t) {
            rexmit_failed(c, t);
            return 0;
        }
        if (skip) {
            memmove(p, p + skip, len);
        }
    }
    emit_frame(c, f, seq,
               TCP_ACK | (s->fin ? TCP_FIN : 0) | (len ? TCP_PSH : 0), len);
    c->stats.rexmits++;
    c->rtt_timing = false;
    return len + (s->fin ? 1 : 0);
}

static uint32_t flight(const IwConn *c)
{
    return c->snd_max - c->snd_una;
}

/* Usable window: the peer's, the congestion window, our cap.  The
 * first duplicate ACKs each let one more new segment go (limited
 * transmit, RFC 3042) so that a loss in a small window still gets its
 * three duplicates instead of waiting for the RTO. */
static uint32_t send_window(const IwConn *c)
{
    uint32_t cw = c->cwnd, w;

    if (!c->in_recovery && c->dupacks && c->dupacks < c->dupack_thresh) {
        cw += c->dupacks * c->p.mss;
    }
    w = c->snd_wnd < cw ? c->snd_wnd : cw;

    return w < IW_SND_MAX ? w : IW_SND_MAX;
}

/* Retransmissions of one segment before the connection is dropped. */
static unsigned rexmit_limit(const IwConn *c)
{
    return c->p.rexmit_thresh ? c->p.rexmit_thresh : 8;
}

static bool tx_ready(IwConn *c)
{
    return !c->ops->tx_ready || c->ops->tx_ready(c->opaque);
}

/* After an RTO: go back from snd_una in slow start; what the peer kept
 * out of order is skipped as its ACKs move snd_nxt on.  True if a
 * segment went. */
static bool output_go_back(IwConn *c)
{
    bool sent = false;

    while (seq_lt(c->snd_nxt, c->snd_max)) {
        uint32_t out = c->snd_nxt - c->snd_una, n;

        if ((out && out + c->p.mss > send_window(c)) || !tx_ready(c)) {
            break;
        }
        n = resend(c, c->snd_nxt);
        if (!n) {
            c->snd_nxt = c->snd_max;
            break;
        }
        c->snd_nxt += n;
        sent = true;
    }
    return sent;
}

/* Whether new data or a FIN may be sent in this state. */
static bool may_send_new(const IwConn *c)
{
    return c->snd_nxt == c->snd_max && c->seg_cnt < IW_SEGQ &&
           (c->state == IW_TCP_ESTABLISHED || c->state == IW_TCP_CLOSE_WAIT);
}

/* Queue and send the segment @s just framed at @f: @n sequence bytes. */
static void output_seg(IwConn *c, uint8_t *f, IwSeg *s, size_t n)
{
    c->seg_cnt++;
    s->seq = c->snd_max;
    s->len = (uint32_t)n;
    s->fin = false;
    emit_frame(c, f, c->snd_max, TCP_ACK | TCP_PSH, n);
    if (!c->rtt_timing) {
        c->rtt_timing = true;
        c->rtt_seq = c->snd_max;
        c->rtt_t0 = c->ops->now(c->opaque);
    }
    c->snd_max += (uint32_t)n;
    c->snd_nxt = c->snd_max;
    if (c->rto_deadline < 0) {
        rto_arm(c);
    }
}

/* New FPDUs, as the window allows.  True if a segment went. */
static bool output_new(IwConn *c)
{
    uint8_t f[IW_FRAME_MAX];
    uint8_t *buf = f + hdr_len(c);  /* FPDUs are framed in place */
    bool sent = false;

    while (may_send_new(c) && !c->fin_sent) {
        uint32_t inflight = flight(c), wnd = send_window(c);
        uint32_t room;
        size_t n;
        IwSeg *s;

        if (!iw_rdmap_pending(c) || !tx_ready(c)) {
            break;
        }
        room = wnd > inflight ? wnd - inflight : 0;
        if (room > c->p.mss) {
            room = c->p.mss;
        }
        if (room < 64 && inflight == 0 && iw_rdmap_pending(c)) {
            /* Zero (or silly) window: probe on the timer. */
            if (c->rto_deadline < 0) {
                rto_arm(c);
            }
            if (!c->probe) {
                break;
            }
            c->probe = false;
            c->stats.probes++;
            room = c->p.mss;
        }
        /* Silly-window avoidance (RFC 1122 4.2.3.4): with data in
         * flight, a segment goes full or with the end of a message,
         * never a piece cut short by the window; its ACK opens more. */
        s = &c->segq[(c->seg_head + c->seg_cnt) % IW_SEGQ];
        n = iw_rdmap_next(c, buf, room, inflight && room < c->p.mss, s);
        if (!n) {
            break;
        }
        output_seg(c, f, s, n);
        sent = true;
    }
    return sent;
}

/* The FIN asked for by iw_close(), once all before it is framed. */
static bool output_fin(IwConn *c)
{
    IwSeg *s;

    if (!c->fin_queued || c->fin_sent || iw_rdmap_pending(c) ||
        !may_send_new(c) || !tx_ready(c)) {
        return false;
    }
    s = &c->segq[(c->seg_head + c->seg_cnt++) % IW_SEGQ];
    memset(s, 0, sizeof(*s));
    s->seq = c->snd_max;
    s->fin = true;
    c->fin_seq = c->snd_max;
    emit(c, c->snd_max, TCP_ACK | TCP_FIN);
    c->snd_max++;
    c->snd_nxt = c->snd_max;
    c->fin_sent = true;
    c->state = c->state == IW_TCP_ESTABLISHED ? IW_TCP_FIN_WAIT_1
                                              : IW_TCP_LAST_ACK;
    if (c->rto_deadline < 0) {
        rto_arm(c);
    }
    return true;
}

void iw_tcp_output(IwConn *c)
{
    bool sent;

    if (c->dead || c->state == IW_TCP_CLOSED) {
        return;
    }
    sent = output_go_back(c);
    sent |= output_new(c);
    sent |= output_fin(c);
    /* A segment sent carried the ACK; one held back goes with the next
     * kick (ack_now stays set). */
    if (c->ack_now && !sent && !c->dead && tx_ready(c)) {
        c->stats.pure_acks++;
        emit(c, c->snd_max, TCP_ACK);
    }
    timer_update(c);
    iw_rdmap_tx_error(c);
}

/* ---- input -------------------------------------------------------------- */

static void set_closed(IwConn *c)
{
    c->state = IW_TCP_CLOSED;
    c->rto_deadline = -1;
    c->tw_deadline = -1;
    c->delack_deadline = -1;
}

static void enter_time_wait(IwConn *c)
{
    c->state = IW_TCP_TIME_WAIT;
    c->rto_deadline = -1;
    c->tw_deadline = c->ops->now(c->opaque) + IW_TIME_WAIT_NS;
    c->ops->event(c->opaque, IW_EV_CLOSE_COMPLETE, 0, NULL, 0);
}

/* ssthresh after a loss (RFC 5681 (4)). */
static void loss_ssthresh(IwConn *c)
{
    uint32_t half = flight(c) / 2, min = 2u * c->p.mss;

    c->ssthresh = half > min ? half : min;
    c->bytes_acked = 0;
}

static void new_ack(IwConn *c, uint32_t ack)
{
    uint32_t acked = ack - c->snd_una, mss = c->p.mss;

    if (c->rtt_timing && seq_lt(c->rtt_seq, ack)) {
        c->rtt_timing = false;
        rtt_sample(c, c->ops->now(c->opaque) - c->rtt_t0);
    } else if (c->retries) {
        /* The path works again: drop the backoff, keep the estimate
         * (without one, Karn's rule keeps the backed-off RTO). */
        rto_compute(c);
    }
    c->snd_una = ack;
    if (seq_lt(c->snd_nxt, ack)) {
        c->snd_nxt = ack;
    }
    while (c->seg_cnt) {
        IwSeg *s = &c->segq[c->seg_head];

        if (!seq_leq(s->seq + s->len + (s->fin ? 1 : 0), ack)) {
            break;
        }
        c->seg_head = (c->seg_head + 1) % IW_SEGQ;
        c->seg_cnt--;
    }
    c->retries = 0;
    if (c->rto_recovery && seq_leq(c->recover, ack)) {
        c->rto_recovery = false;
    }
    if (c->in_recovery) {
        if (seq_leq(c->recover, ack)) {
            /* Full ACK: leave recovery (RFC 6582 3.2 (3), option 2). */
            uint32_t f = flight(c) + mss;

            c->cwnd = c->ssthresh < f ? c->ssthresh : f;
            c->in_recovery = false;
            c->dupacks = 0;
        } else {
            /* Partial ACK: the next hole is resent at once; deflate by
             * what was acked, add back one segment (3.2 (4)). */
            c->stats.partial_acks++;
            resend(c, c->snd_una);
            c->cwnd = c->cwnd > acked ? c->cwnd - acked : mss;
            if (acked >= mss) {
                c->cwnd += mss;
            }
            if (c->cwnd < mss) {
                c->cwnd = mss;
            }
        }
    } else {
        c->dupacks = 0;
        if (c->cwnd < c->ssthresh) {
            /* Slow start; an ACK may cover two segments (delayed ACKs,
             * RFC 3465 L = 2 SMSS). */
            c->cwnd += acked < 2 * mss ? acked : 2 * mss;
            c->bytes_acked = 0;
        } else {
            /* Congestion avoidance by byte counting (RFC 5681 3.1): one
             * SMSS per cwnd acknowledged. */
            c->bytes_acked += acked;
            if (c->bytes_acked >= c->cwnd) {
                c->bytes_acked -= c->cwnd;
                c->cwnd += mss;
            }
        }
    }
    if (c->cwnd > (1u << 30)) {
        c->cwnd = 1u << 30;
    }
    c->rto_deadline = -1;
    if (c->snd_una != c->snd_max) {
        rto_arm(c);
    }
}

/*
 * Duplicates that start a fast retransmit.  Early retransmit (RFC 5827,
 * the byte-based form): with fewer than four segments out and nothing
 * new allowed to go, no more duplicates than segments out minus one can
 * ever come, so that many are enough (the tail of a message, a short
 * request).
 */
static unsigned dupack_threshold(IwConn *c)
{
    unsigned segs = c->seg_cnt;
    uint32_t wnd = send_window(c);

    if (segs >= 2 && segs < 4 && segs - 1 < c->dupack_thresh &&
        (!iw_rdmap_pending(c) || wnd < flight(c) + c->p.mss)) {
        return segs - 1;
    }
    return c->dupack_thresh;
}

static void dup_ack(IwConn *c)
{
    unsigned thresh;

    c->stats.dup_acks++;
    c->dupacks++;
    if (c->in_recovery) {
        c->cwnd += c->p.mss;        /* a segment has left the network */
        return;
    }
    thresh = dupack_threshold(c);
    if (c->dupacks < thresh) {
        return;
    }
    /* RFC 6582 3.2 (2): not for duplicates of data sent before the last
     * RTO or recovery began. */
    if (seq_lt(c->snd_una, c->recover)) {
        return;
    }
    loss_ssthresh(c);
    c->recover = c->snd_max;
    c->in_recovery = true;
    c->stats.fast_rexmits++;
    if (thresh < c->dupack_thresh) {
        c->stats.early_rexmits++;
    }
    resend(c, c->snd_una);
    c->cwnd = c->ssthresh + thresh * c->p.mss;
}

/* The timeout was real: on with the go-back from snd_una in slow start
 * (RFC 5682 2a, 3a). */
static void frto_conventional(IwConn *c)
{
    if (c->frto == 2) {
        /* The two new segments were sent past a window of one. */
        c->cwnd = c->cwnd < 3u * c->p.mss ? c->cwnd : 3u * c->p.mss;
        c->snd_nxt = c->snd_una;
        c->dupacks = 0;
    }
    c->frto = 0;
}

/*
 * An ACK that moves snd_una after an RTO (RFC 5682 section 2).  First:
 * it covers the resent segment; if more is acknowledged than was resent
 * the original may have arrived after all, so up to two new segments go
 * instead of more old ones.  Second: an ACK for data never resent says
 * the originals got through; the timeout was spurious and the
 * congestion state before it comes back (RFC 4015).
 */
static void frto_new_ack(IwConn *c, uint32_t acked)
{
    uint32_t mss = c->p.mss;

    if (c->frto == 1) {
        if (seq_lt(c->snd_una, c->frto_end) || c->snd_una == c->recover ||
            !iw_rdmap_pending(c) || c->snd_wnd < flight(c) + mss) {
            frto_conventional(c);
            return;
        }
        c->frto = 2;
        c->snd_nxt = c->snd_max;
        c->cwnd = flight(c) + 2 * mss;
        return;
    }
    c->frto = 0;
    c->stats.spurious_rto++;
    c->rto_recovery = false;
    c->cwnd = flight(c) + (acked < 2 * mss ? acked : 2 * mss);
    c->ssthresh = c->pipe_prev;
    c->bytes_acked = 0;
    c->recover = c->snd_una;
}

static void process_ack(IwConn *c, uint32_t seq, uint32_t ack, uint32_t win,
                        size_t plen, uint8_t flags)
{
    if (seq_lt(c->snd_max, ack)) {
        c->ack_now = true;          /* acks what we never sent */
        return;
    }
    if (seq_lt(c->snd_una, ack)) {
        uint32_t acked = ack - c->snd_una;

        new_ack(c, ack);
        if (c->frto) {
            frto_new_ack(c, acked);
        }
        if (c->fin_sent && seq_lt(c->fin_seq, ack)) {
            switch (c->state) {
            case IW_TCP_FIN_WAIT_1:
                c->state = IW_TCP_FIN_WAIT_2;
                break;
            case IW_TCP_CLOSING:
                enter_time_wait(c);
                break;
            case IW_TCP_LAST_ACK:
                set_closed(c);
                c->ops->event(c->opaque, IW_EV_CLOSE_COMPLETE, 0, NULL, 0);
                break;
            default:
                break;
            }
        }
        iw_rdmap_acked(c);
    } else if (ack == c->snd_una && !plen && !(flags & (TCP_FIN | TCP_SYN)) &&
               c->snd_una != c->snd_max &&
               (win << c->p.snd_scale) == c->snd_wnd) {
        dup_ack(c);
        if (c->frto) {
            frto_conventional(c);
        }
    }
    if (seq_lt(c->snd_wl1, seq) ||
        (c->snd_wl1 == seq && seq_leq(c->snd_wl2, ack))) {
        c->snd_wnd = win << c->p.snd_scale;
        c->snd_wl1 = seq;
        c->snd_wl2 = ack;
    }
}

/* In-order payload (and FIN) at rcv_nxt. */
static void rcv_in_order(IwConn *c, const uint8_t *data, size_t plen, bool fin,
                         const uint8_t *frame, size_t flen)
{
    if (plen) {
        c->rcv_nxt += (uint32_t)plen;
        c->stats.rx_bytes += plen;
        if (!c->rx_halted) {
            iw_ddp_input(c, data, plen, frame, flen);
        }
        if (c->dead || c->state == IW_TCP_CLOSED) {
            return;
        }
    }
    if (fin) {
        c->rcv_nxt++;
        c->fin_rcvd = true;
        c->ack_now = true;
        switch (c->state) {
        case IW_TCP_ESTABLISHED:
            c->state = IW_TCP_CLOSE_WAIT;
            c->ops->event(c->opaque, IW_EV_FIN_RCVD, 0, NULL, 0);
            break;
        case IW_TCP_FIN_WAIT_1:
            c->state = IW_TCP_CLOSING;
            break;
        case IW_TCP_FIN_WAIT_2:
            enter_time_wait(c);
            break;
        default:
            break;
        }
    }
}

static void ooo_free(IwConn *c, unsigned i)
{
    c->ooo_bytes -= c->ooo[i].flen;
    free(c->ooo[i].frame);
    memmove(&c->ooo[i], &c->ooo[i + 1],
            (c->ooo_cnt - i - 1) * sizeof(c->ooo[0]));
    c->ooo_cnt--;
}

/* Keep a segment that starts beyond rcv_nxt (within the window). */
static void ooo_insert(IwConn *c, uint32_t seq, size_t doff, size_t plen,
                       bool fin, const uint8_t *frame, size_t flen)
{
    unsigned i;
    IwOooSeg *o;
    uint8_t *copy;

    for (i = 0; i < c->ooo_cnt; i++) {
        o = &c->ooo[i];
        if (seq_leq(o->seq, seq) &&
            seq_leq(seq + (uint32_t)plen, o->seq + o->len) &&
            (o->fin || !fin)) {
            return;                 /* already kept (a duplicate) */
        }
        if (seq_lt(seq, o->seq)) {
            break;
        }
    }
    if (c->ooo_cnt >= IW_OOO_SEGS || flen > IW_OOO_BYTES - c->ooo_bytes ||
        !(copy = malloc(flen))) {
        c->stats.ooo_drops++;
        return;
    }
    memcpy(copy, frame, flen);
    memmove(&c->ooo[i + 1], &c->ooo[i], (c->ooo_cnt - i) * sizeof(c->ooo[0]));
    o = &c->ooo[i];
    o->seq = seq;
    o->len = (uint32_t)plen;
    o->fin = fin;
    o->doff = (uint16_t)doff;
    o->flen = (uint32_t)flen;
    o->frame = copy;
    c->ooo_cnt++;
    c->ooo_bytes += flen;
    c->stats.ooo_queued++;
}

/* Deliver what the queue holds from rcv_nxt on. */
static void ooo_drain(IwConn *c)
{
    while (c->ooo_cnt && !c->dead && c->state != IW_TCP_CLOSED &&
           !c->fin_rcvd) {
        IwOooSeg *o = &c->ooo[0];
        uint32_t skip, end = o->seq + o->len;
        uint8_t *frame;
        size_t flen;
        const uint8_t *data;
        uint32_t len;
        bool fin;

        if (seq_lt(c->rcv_nxt, o->seq)) {
            return;                 /* still a hole */
        }
        if (seq_lt(end, c->rcv_nxt) || (end == c->rcv_nxt && !o->fin)) {
            ooo_free(c, 0);         /* all of it came already */
            continue;
        }
        skip = c->rcv_nxt - o->seq;
        /* Take it off the queue first: delivery may re-enter. */
        frame = o->frame;
        flen = o->flen;
        data = frame + o->doff + skip;
        len = o->len - skip;
        fin = o->fin;
        o->frame = NULL;
        c->ooo_bytes -= flen;
        memmove(&c->ooo[0], &c->ooo[1], (c->ooo_cnt - 1) * sizeof(c->ooo[0]));
        c->ooo_cnt--;
        rcv_in_order(c, data, len, fin, frame, flen);
        free(frame);
    }
}

static void ooo_clear(IwConn *c)
{
    while (c->ooo_cnt) {
        ooo_free(c, c->ooo_cnt - 1);
    }
}

static void tcp_segment(IwConn *c, const uint8_t *th, size_t tlen,
                        const uint8_t *frame, size_t flen)
{
    size_t doff = (size_t)(th[TCP_OFF_DOFF] >> 4) * 4;
    uint8_t flags = th[TCP_OFF_FLAGS];
    uint32_t seq = ldbe32(th + TCP_OFF_SEQ), ack = ldbe32(th + TCP_OFF_ACK);
    uint32_t win = ldbe16(th + TCP_OFF_WIN);
    const uint8_t *data = th + doff;
    size_t plen = tlen - doff;
    bool fin = flags & TCP_FIN;
    uint32_t wnd = c->p.rcv_wnd ? c->p.rcv_wnd : 1;

    c->stats.rx_segs++;
    if (flags & TCP_RST) {
        /* In window only (RFC 5961 lite): exact match or within rcv wnd. */
        if (seq_leq(c->rcv_nxt, seq) &&
            seq_lt(seq, c->rcv_nxt + wnd)) {
            set_closed(c);
            c->dead = true;
            ooo_clear(c);
            c->ops->event(c->opaque, IW_EV_RESET_RCVD, 0, NULL, 0);
        }
        return;
    }
    if (flags & TCP_SYN) {
        c->ack_now = true;          /* challenge ACK, otherwise ignored */
        return;
    }
    if (!(flags & TCP_ACK)) {
        return;
    }
    process_ack(c, seq, ack, win, plen, flags);
    if (c->state == IW_TCP_CLOSED) {
        return;
    }
    if (!plen && !fin) {
        return;
    }
    if (c->fin_rcvd) {
        c->ack_now = true;          /* data after FIN: ignore */
        return;
    }
    if (seq_lt(c->rcv_nxt, seq)) {
        /* Beyond a hole: keep what fits the window, ACK the hole at once
         * (the duplicate ACK drives the peer's fast retransmit). */
        uint32_t off = seq - c->rcv_nxt;

        c->ack_now = true;
        if (off >= wnd) {
            return;
        }
        if (plen > wnd - off) {
            plen = wnd - off;
            fin = false;
        }
        ooo_insert(c, seq, (size_t)(data - frame), plen, fin, frame,
                   (size_t)(data - frame) + plen);
        return;
    }
    if (seq_lt(seq, c->rcv_nxt)) {
        uint32_t skip = c->rcv_nxt - seq;

        if (skip > plen || (skip == plen && !fin)) {
            c->ack_now = true;      /* old duplicate */
            return;
        }
        data += skip;
        plen -= skip;
    }
    if (plen > wnd) {
        plen = wnd;
        fin = false;
    }
    /* Filling a hole is acknowledged at once, in-order data every
     * second segment or by the delayed-ACK timer. */
    if (c->ooo_cnt || ++c->ack_pending >= 2) {
        c->ack_now = true;
    }
    if (!c->ack_now && c->delack_deadline < 0) {
        c->delack_deadline = c->ops->now(c->opaque) + IW_DELACK_NS;
    }
    rcv_in_order(c, data, plen, fin, frame, flen);
    ooo_drain(c);
}

static void input(IwConn *c, const uint8_t *frame, size_t len)
{
    size_t off = ETH_OFF_TYPE, l3len, tlen, doff;
    uint16_t type;
    const uint8_t *ip, *th;
    uint32_t sum;

    if (c->dead || c->state == IW_TCP_CLOSED || len < ETH_HLEN) {
        return;
    }
    type = ldbe16(frame + off);
    off += 2;
    if (type == ETH_P_8021Q) {
        if (len < off + VLAN_TAG_LEN) {
            goto bad;
        }
        type = ldbe16(frame + off + VLAN_TAG_LEN - 2);
        off += VLAN_TAG_LEN;
    }
    ip = frame + off;
    if (c->p.ipv4) {
        size_t ihl;

        if (type != ETH_P_IP || len < off + IPV4_HLEN ||
            (ip[IPV4_OFF_VER_IHL] >> 4) != 4) {
            goto bad;
        }
        ihl = (size_t)(ip[IPV4_OFF_VER_IHL] & 0xF) * 4;
        l3len = ldbe16(ip + IPV4_OFF_TOT_LEN);
        if (ihl < IPV4_HLEN || l3len < ihl + TCP_HLEN || l3len > len - off ||
            ip[IPV4_OFF_PROTO] != IP_PROTO_TCP ||
            (ldbe16(ip + IPV4_OFF_FRAG) & IPV4_FRAG_M) ||
            csum_fold(e810_csum_add(0, ip, ihl)) != 0 ||
            memcmp(ip + IPV4_OFF_SRC, c->p.rip, 4) ||
            memcmp(ip + IPV4_OFF_DST, c->p.lip, 4)) {
            goto bad;
        }
        th = ip + ihl;
        tlen = l3len - ihl;
        sum = e810_csum_pseudo(ip, false, IP_PROTO_TCP, tlen);
    } else {
        if (type != ETH_P_IPV6 || len < off + IPV6_HLEN ||
            (ip[IPV6_OFF_VER_TC_FL] >> 4) != 6 ||
            ip[IPV6_OFF_NH] != IP_PROTO_TCP) {
            goto bad;
        }
        tlen = ldbe16(ip + IPV6_OFF_PLEN);
        if (tlen < TCP_HLEN || tlen > len - off - IPV6_HLEN ||
            memcmp(ip + IPV6_OFF_SRC, c->p.rip, 16) ||
            memcmp(ip + IPV6_OFF_DST, c->p.lip, 16)) {
            goto bad;
        }
        th = ip + IPV6_HLEN;
        sum = e810_csum_pseudo(ip, true, IP_PROTO_TCP, tlen);
    }
    doff = (size_t)(th[TCP_OFF_DOFF] >> 4) * 4;
    if (doff < TCP_HLEN || doff > tlen ||
        ldbe16(th + TCP_OFF_SPORT) != c->p.rport ||
        ldbe16(th + TCP_OFF_DPORT) != c->p.lport) {
        goto bad;
    }
    if (csum_fold(e810_csum_add(sum, th, tlen)) != 0) {
        c->stats.bad_csum++;
        return;
    }
    iw_enter(c);
    tcp_segment(c, th, tlen, frame, (size_t)(th - frame) + tlen);
    iw_leave(c);
    return;
bad:
    c->stats.bad_frame++;
}

void iw_input(IwConn *c, const uint8_t *frame, size_t len)
{
    input(c, frame, len);
}

void iw_input_segment(IwConn *c, const uint8_t *frame, size_t l4_off,
                      size_t tlen)
{
    if (c->dead || c->state == IW_TCP_CLOSED) {
        return;
    }
    iw_enter(c);
    tcp_segment(c, frame + l4_off, tlen, frame, l4_off + tlen);
    iw_leave(c);
}

void iw_timer(IwConn *c)
{
    int64_t now = c->ops->now(c->opaque);

    c->armed = -1;
    iw_enter(c);
    if (c->tw_deadline >= 0 && now >= c->tw_deadline) {
        set_closed(c);
    }
    if (c->delack_deadline >= 0 && now >= c->delack_deadline) {
        c->delack_deadline = -1;
        if (c->ack_pending && !c->dead && c->state != IW_TCP_CLOSED) {
            c->ack_now = true;
            c->stats.delayed_acks++;
        }
    }
    if (c->rto_deadline >= 0 && now >= c->rto_deadline && !c->dead) {
        c->rto_deadline = -1;
        if (c->ops->tx_backed_up && c->ops->tx_backed_up(c->opaque)) {
            /* What is unacknowledged may not have reached the peer yet:
             * this is no retry; look again later. */
            rto_arm(c);
        } else if (c->snd_una == c->snd_max) {
            c->probe = true;        /* zero-window probe */
            rto_arm(c);
        } else if (c->retries >= rexmit_limit(c)) {
            emit(c, c->snd_max, TCP_RST | TCP_ACK);
            set_closed(c);
            c->dead = true;
            ooo_clear(c);
            c->ops->event(c->opaque, IW_EV_TOO_MANY_RETRIES, 0, NULL, 0);
        } else {
            /* RFC 5681 (4) and after it slow start from snd_una; RFC 6298
             * 5.4-5.6; RFC 6582 4: no fast retransmit for what was in
             * flight now. */
            uint32_t n;
            bool frto = !(c->rto_recovery && seq_leq(c->snd_una, c->recover));

            c->retries++;
            c->stats.rto++;
            c->pipe_prev = flight(c) > c->ssthresh ? flight(c) : c->ssthresh;
            loss_ssthresh(c);
            c->cwnd = c->p.mss;
            c->in_recovery = false;
            c->rto_recovery = true;
            c->recover = c->snd_max;
            c->dupacks = 0;
            c->rto_ns = c->rto_ns * 2 > IW_RTO_MAX_NS ? IW_RTO_MAX_NS
                                                      : c->rto_ns * 2;
            c->snd_nxt = c->snd_una;
            n = resend(c, c->snd_una);
            c->snd_nxt += n;
            /* RFC 5682 2.1: test this timeout unless it struck the
             * go-back of an earlier one. */
            c->frto = frto && n ? 1 : 0;
            c->frto_end = c->snd_nxt;
            if (!c->dead) {
                rto_arm(c);
            }
        }
    }
    iw_leave(c);
}

/* ---- control ------------------------------------------------------------ */

void iw_enter(IwConn *c)
{
    c->depth++;
}

void iw_leave(IwConn *c)
{
    if (--c->depth == 0) {
        iw_tcp_output(c);
    }
}

void iw_kick(IwConn *c)
{
    iw_enter(c);
    iw_leave(c);
}

void iw_close(IwConn *c)
{
    iw_enter(c);
    c->fin_queued = true;
    iw_leave(c);
}

void iw_abort(IwConn *c)
{
    if (c->dead || c->state == IW_TCP_CLOSED) {
        return;
    }
    emit(c, c->snd_max, TCP_RST | TCP_ACK);
    set_closed(c);
    c->dead = true;
    ooo_clear(c);
    timer_update(c);
}

void iw_orphan(IwConn *c)
{
    iw_enter(c);
    /* iw_rdmap_next() frames nothing after tx_halted and
     * iw_rdmap_pending() no longer counts what is left, so a FIN queued
     * behind it goes with this very pass. */
    c->tx_halted = true;
    c->term_pending = false;
    c->rx_halted = true;
    iw_leave(c);
}

bool iw_conn_open(const IwConn *c)
{
    return !c->dead && c->state != IW_TCP_CLOSED;
}

bool iw_tx_idle(const IwConn *c)
{
    return c->snd_una == c->snd_max && !iw_rdmap_pending(c);
}

bool iw_conn_init(IwConn *c, const IwConnParams *p, const IwOps *ops,
                  void *opaque)
{
    memset(c, 0, sizeof(*c));
    c->p = *p;
    if (c->p.mss < 128) {
        c->p.mss = 536;
    }
    if (c->p.mss > IW_MAX_MSS) {
        c->p.mss = IW_MAX_MSS;
    }
    if (c->p.snd_scale > 14) {
        c->p.snd_scale = 14;
    }
    if (c->p.rcv_scale > 14) {
        c->p.rcv_scale = 14;
    }
    c->ops = ops;
    c->opaque = opaque;
    c->state = IW_TCP_ESTABLISHED;
    c->snd_una = p->snd_una;
    c->snd_nxt = c->snd_max = p->snd_nxt;
    if (seq_lt(c->snd_max, c->snd_una)) {
        c->snd_una = c->snd_max;
    }
    /* Nothing software sent is ours to retransmit. */
    c->snd_una = c->snd_max;
    c->snd_wnd = p->snd_wnd;
    c->snd_wl1 = p->rcv_nxt - 1;
    c->snd_wl2 = c->snd_una;
    c->rcv_nxt = p->rcv_nxt;
    c->rto_min_ns = p->rto_min_ns > 0 ? p->rto_min_ns : IW_RTO_MIN_DEFAULT_NS;
    if (c->rto_min_ns > IW_RTO_MAX_NS) {
        c->rto_min_ns = IW_RTO_MAX_NS;
    }
    c->rto_ns = IW_RTO_INIT_NS > c->rto_min_ns ? IW_RTO_INIT_NS
                                                : c->rto_min_ns;
    c->cwnd = p->cwnd >= c->p.mss ? p->cwnd : 2u * c->p.mss;
    if (c->cwnd > (1u << 30)) {
        c->cwnd = 1u << 30;
    }
    c->ssthresh = p->ssthresh >= 2u * c->p.mss ? p->ssthresh : 0x3FFFFFFF;
    c->dupack_thresh = p->dupack_thresh ? p->dupack_thresh : 3;
    c->recover = c->snd_una;
    c->rto_deadline = -1;
    c->tw_deadline = -1;
    c->delack_deadline = -1;
    c->armed = -1;
    c->rbuf = calloc(1, IW_RBUF);
    c->tx_msn[0] = c->tx_msn[1] = c->tx_msn[2] = 1;
    c->rx_msn[0] = c->rx_msn[1] = c->rx_msn[2] = 1;
    if (!c->rbuf) {
        c->dead = true;
        c->state = IW_TCP_CLOSED;
        return false;
    }
    return true;
}

void iw_conn_destroy(IwConn *c)
{
    if (c->armed >= 0 && c->ops) {
        c->ops->timer(c->opaque, -1);
    }
    ooo_clear(c);
    free(c->rbuf);
    c->rbuf = NULL;
    c->dead = true;
    c->state = IW_TCP_CLOSED;
}
