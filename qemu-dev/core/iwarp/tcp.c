/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iWARP engine: the TCP layer of one offloaded connection (RFC 793/9293
 * with window scaling from RFC 7323), IPv4/IPv6 and Ethernet framing.
 *
 * The connection is handed over ESTABLISHED.  Sending: one FPDU per
 * segment, within the peer's window, every segment kept until
 * acknowledged; retransmission is go-back-N on the RTO (exponential
 * backoff) or on three duplicate ACKs.  Receiving: in order only;
 * out-of-order segments are dropped and answered with a duplicate ACK.
 * No options are sent or honoured on data segments.
 */
#ifndef E810_IN_QEMU
#include <stdlib.h>
#endif
#include "iw-int.h"

/* ---- checksums ---------------------------------------------------------- */

/* The checksum field: the complement of the folded sum. */
static uint16_t csum_fold(uint32_t sum)
{
    return (uint16_t)~e810_csum_fold(sum);
}

/* ---- timers ------------------------------------------------------------- */

static void timer_update(IwConn *c)
{
    int64_t d = -1;

    if (c->rto_deadline >= 0) {
        d = c->rto_deadline;
    }
    if (c->tw_deadline >= 0 && (d < 0 || c->tw_deadline < d)) {
        d = c->tw_deadline;
    }
    if (d != c->armed) {
        c->armed = d;
        c->ops->timer(c->opaque, d);
    }
}

static void rto_arm(IwConn *c)
{
    c->rto_deadline = c->ops->now(c->opaque) + c->rto_ns;
}

/* ---- output ------------------------------------------------------------- */

static void emit(IwConn *c, uint32_t seq, uint8_t flags, const uint8_t *payload,
                 size_t plen)
{
    uint8_t f[ETH_HLEN + 4 + 40 + 20 + IW_MAX_MSS];
    uint8_t *ip, *th;
    size_t l3, off = 0;
    uint32_t win, sum;
    uint16_t cs;

    if (plen > IW_MAX_MSS) {
        return;
    }
    memcpy(f, c->p.rmac, 6);
    memcpy(f + 6, c->p.lmac, 6);
    off = 12;
    if (c->p.vlan) {
        stbe16(f + off, ETH_P_8021Q);
        stbe16(f + off + 2, c->p.vlan_tci);
        off += 4;
    }
    stbe16(f + off, c->p.ipv4 ? ETH_P_IP : ETH_P_IPV6);
    off += 2;
    ip = f + off;
    if (c->p.ipv4) {
        l3 = 20;
        ip[0] = 0x45;
        ip[1] = c->p.tos;
        stbe16(ip + 2, (uint16_t)(20 + 20 + plen));
        stbe16(ip + 4, c->ip_id++);
        stbe16(ip + 6, 0x4000);           /* DF */
        ip[8] = c->p.ttl ? c->p.ttl : 64;
        ip[9] = 6;
        stbe16(ip + 10, 0);
        memcpy(ip + 12, c->p.lip, 4);
        memcpy(ip + 16, c->p.rip, 4);
        stbe16(ip + 10, csum_fold(e810_csum_add(0, ip, 20)));
    } else {
        l3 = 40;
        stbe32(ip, 6u << 28 | (uint32_t)c->p.tos << 20);
        stbe16(ip + 4, (uint16_t)(20 + plen));
        ip[6] = 6;
        ip[7] = c->p.ttl ? c->p.ttl : 64;
        memcpy(ip + 8, c->p.lip, 16);
        memcpy(ip + 24, c->p.rip, 16);
    }
    th = ip + l3;
    stbe16(th, c->p.lport);
    stbe16(th + 2, c->p.rport);
    stbe32(th + 4, seq);
    stbe32(th + 8, (flags & TCP_ACK) ? c->rcv_nxt : 0);
    th[12] = 5 << 4;
    th[13] = flags;
    win = c->p.rcv_wnd >> c->p.rcv_scale;
    stbe16(th + 14, (uint16_t)(win > 0xFFFF ? 0xFFFF : win));
    stbe16(th + 16, 0);
    stbe16(th + 18, 0);
    if (plen) {
        memcpy(th + 20, payload, plen);
    }
    sum = e810_csum_pseudo_addr(c->p.ipv4, c->p.lip, c->p.rip, IP_PROTO_TCP,
                                20 + plen);
    cs = csum_fold(e810_csum_add(sum, th, 20 + plen));
    stbe16(th + 16, cs);
    c->stats.tx_segs++;
    c->stats.tx_bytes += plen;
    c->ops->frame_out(c->opaque, f, (size_t)(th - f) + 20 + plen);
}

static void sbuf_put(IwConn *c, uint32_t seq, const uint8_t *p, size_t len)
{
    size_t i = seq % IW_SBUF, n = IW_SBUF - i;

    if (n > len) {
        n = len;
    }
    memcpy(c->sbuf + i, p, n);
    memcpy(c->sbuf + 0, p + n, len - n);
}

static void sbuf_get(const IwConn *c, uint32_t seq, uint8_t *p, size_t len)
{
    size_t i = seq % IW_SBUF, n = IW_SBUF - i;

    if (n > len) {
        n = len;
    }
    memcpy(p, c->sbuf + i, n);
    memcpy(p + n, c->sbuf, len - n);
}

/* Resend everything in flight (go-back-N): the receiver drops what came
 * after a hole anyway. */
static void retransmit(IwConn *c, bool all)
{
    uint8_t buf[IW_MAX_MSS];
    unsigned i;

    for (i = 0; i < c->seg_cnt; i++) {
        IwSeg *s = &c->segq[(c->seg_head + i) % IW_SEGQ];
        uint32_t seq = s->seq, len = s->len;

        if (seq_lt(seq, c->snd_una)) {     /* partly acknowledged */
            uint32_t skip = c->snd_una - seq;

            if (skip >= len) {
                if (!s->fin) {
                    continue;
                }
                skip = len;
            }
            seq += skip;
            len -= skip;
        }
        sbuf_get(c, seq, buf, len);
        emit(c, seq, TCP_ACK | (s->fin ? TCP_FIN : 0) | (len ? TCP_PSH : 0),
             buf, len);
        c->stats.rexmits++;
        if (!all) {
            break;
        }
    }
}

void iw_tcp_output(IwConn *c)
{
    uint8_t buf[IW_MAX_MSS];
    bool sent = false;

    if (c->dead || c->state == IW_TCP_CLOSED) {
        return;
    }
    while ((c->state == IW_TCP_ESTABLISHED || c->state == IW_TCP_CLOSE_WAIT) &&
           !c->fin_sent && c->seg_cnt < IW_SEGQ) {
        uint32_t inflight = c->snd_max - c->snd_una;
        uint32_t wnd = c->snd_wnd < IW_SBUF ? c->snd_wnd : IW_SBUF;
        uint32_t room;
        size_t n;
        IwSeg *s;

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
            room = c->p.mss;
        }
        if (room < 64 && inflight) {
            break;
        }
        n = iw_rdmap_next(c, buf, room);
        if (!n) {
            break;
        }
        sbuf_put(c, c->snd_max, buf, n);
        s = &c->segq[(c->seg_head + c->seg_cnt++) % IW_SEGQ];
        s->seq = c->snd_max;
        s->len = (uint32_t)n;
        s->fin = false;
        emit(c, c->snd_max, TCP_ACK | TCP_PSH, buf, n);
        c->snd_max += (uint32_t)n;
        c->snd_nxt = c->snd_max;
        if (c->rto_deadline < 0) {
            rto_arm(c);
        }
        sent = true;
    }
    if (c->fin_queued && !c->fin_sent && !iw_rdmap_pending(c) &&
        c->seg_cnt < IW_SEGQ &&
        (c->state == IW_TCP_ESTABLISHED || c->state == IW_TCP_CLOSE_WAIT)) {
        IwSeg *s = &c->segq[(c->seg_head + c->seg_cnt++) % IW_SEGQ];

        s->seq = c->snd_max;
        s->len = 0;
        s->fin = true;
        c->fin_seq = c->snd_max;
        emit(c, c->snd_max, TCP_ACK | TCP_FIN, NULL, 0);
        c->snd_max++;
        c->snd_nxt = c->snd_max;
        c->fin_sent = true;
        c->state = c->state == IW_TCP_ESTABLISHED ? IW_TCP_FIN_WAIT_1
                                                  : IW_TCP_LAST_ACK;
        if (c->rto_deadline < 0) {
            rto_arm(c);
        }
        sent = true;
    }
    if (c->ack_now && !sent) {
        emit(c, c->snd_max, TCP_ACK, NULL, 0);
    }
    c->ack_now = false;
    timer_update(c);
    iw_rdmap_tx_error(c);
}

/* ---- input -------------------------------------------------------------- */

static void set_closed(IwConn *c)
{
    c->state = IW_TCP_CLOSED;
    c->rto_deadline = -1;
    c->tw_deadline = -1;
}

static void enter_time_wait(IwConn *c)
{
    c->state = IW_TCP_TIME_WAIT;
    c->rto_deadline = -1;
    c->tw_deadline = c->ops->now(c->opaque) + IW_TIME_WAIT_NS;
    c->ops->event(c->opaque, IW_EV_CLOSE_COMPLETE, 0, NULL, 0);
}

static void process_ack(IwConn *c, uint32_t seq, uint32_t ack, uint32_t win,
                        size_t plen, uint8_t flags)
{
    if (seq_lt(c->snd_max, ack)) {
        c->ack_now = true;          /* acks what we never sent */
        return;
    }
    if (seq_lt(c->snd_una, ack)) {
        c->snd_una = ack;
        while (c->seg_cnt) {
            IwSeg *s = &c->segq[c->seg_head];

            if (!seq_leq(s->seq + s->len + (s->fin ? 1 : 0), ack)) {
                break;
            }
            c->seg_head = (c->seg_head + 1) % IW_SEGQ;
            c->seg_cnt--;
        }
        c->retries = 0;
        c->dupacks = 0;
        c->rto_ns = IW_RTO_MIN_NS;
        c->rto_deadline = -1;
        if (c->snd_una != c->snd_max) {
            rto_arm(c);
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
        c->stats.dup_acks++;
        if (++c->dupacks == 3) {
            retransmit(c, true);
        }
    }
    if (seq_lt(c->snd_wl1, seq) ||
        (c->snd_wl1 == seq && seq_leq(c->snd_wl2, ack))) {
        c->snd_wnd = win << c->p.snd_scale;
        c->snd_wl1 = seq;
        c->snd_wl2 = ack;
    }
}

static void tcp_segment(IwConn *c, const uint8_t *th, size_t tlen,
                        const uint8_t *frame, size_t flen)
{
    size_t doff = (size_t)(th[12] >> 4) * 4;
    uint8_t flags = th[13];
    uint32_t seq = ldbe32(th + 4), ack = ldbe32(th + 8);
    uint32_t win = ldbe16(th + 14);
    const uint8_t *data = th + doff;
    size_t plen = tlen - doff;
    bool fin = flags & TCP_FIN;

    c->stats.rx_segs++;
    if (flags & TCP_RST) {
        /* In window only (RFC 5961 lite): exact match or within rcv wnd. */
        if (seq_leq(c->rcv_nxt, seq) &&
            seq_lt(seq, c->rcv_nxt + (c->p.rcv_wnd ? c->p.rcv_wnd : 1))) {
            set_closed(c);
            c->dead = true;
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
    if (seq_lt(c->rcv_nxt, seq)) {
        c->stats.ooo_drops++;
        c->ack_now = true;
        return;
    }
    if (seq_lt(seq, c->rcv_nxt)) {
        uint32_t skip = c->rcv_nxt - seq;

        if (skip > plen || (skip == plen && !fin)) {
            c->ack_now = true;      /* old duplicate */
            return;
        }
        if (skip == plen && fin && c->fin_rcvd) {
            c->ack_now = true;
            return;
        }
        data += skip;
        plen -= skip;
    }
    if (c->fin_rcvd) {
        c->ack_now = true;          /* data after FIN: ignore */
        return;
    }
    if (plen > c->p.rcv_wnd) {
        plen = c->p.rcv_wnd;
        fin = false;
    }
    c->ack_now = true;
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

void iw_input(IwConn *c, const uint8_t *frame, size_t len)
{
    size_t off = 12, l3len, tlen;
    uint16_t type;
    const uint8_t *ip, *th;
    uint32_t sum;

    if (c->dead || c->state == IW_TCP_CLOSED || len < ETH_HLEN) {
        return;
    }
    type = ldbe16(frame + off);
    off += 2;
    if (type == ETH_P_8021Q) {
        if (len < off + 4) {
            goto bad;
        }
        type = ldbe16(frame + off + 2);
        off += 4;
    }
    ip = frame + off;
    if (c->p.ipv4) {
        size_t ihl;

        if (type != ETH_P_IP || len < off + 20 || (ip[0] >> 4) != 4) {
            goto bad;
        }
        ihl = (size_t)(ip[0] & 0xF) * 4;
        l3len = ldbe16(ip + 2);
        if (ihl < 20 || l3len < ihl + 20 || l3len > len - off || ip[9] != 6 ||
            (ldbe16(ip + 6) & 0x3FFF) ||          /* fragments */
            csum_fold(e810_csum_add(0, ip, ihl)) != 0 ||
            memcmp(ip + 12, c->p.rip, 4) || memcmp(ip + 16, c->p.lip, 4)) {
            goto bad;
        }
        th = ip + ihl;
        tlen = l3len - ihl;
        sum = e810_csum_pseudo_addr(true, ip + 12, ip + 16, IP_PROTO_TCP, tlen);
    } else {
        if (type != ETH_P_IPV6 || len < off + 40 || (ip[0] >> 4) != 6 ||
            ip[6] != 6) {
            goto bad;
        }
        tlen = ldbe16(ip + 4);
        if (tlen < 20 || tlen > len - off - 40 ||
            memcmp(ip + 8, c->p.rip, 16) || memcmp(ip + 24, c->p.lip, 16)) {
            goto bad;
        }
        th = ip + 40;
        sum = e810_csum_pseudo_addr(false, ip + 8, ip + 24, IP_PROTO_TCP, tlen);
    }
    if ((size_t)(th[12] >> 4) * 4 < 20 || (size_t)(th[12] >> 4) * 4 > tlen ||
        ldbe16(th) != c->p.rport || ldbe16(th + 2) != c->p.lport) {
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

void iw_timer(IwConn *c)
{
    int64_t now = c->ops->now(c->opaque);

    c->armed = -1;
    iw_enter(c);
    if (c->tw_deadline >= 0 && now >= c->tw_deadline) {
        set_closed(c);
    }
    if (c->rto_deadline >= 0 && now >= c->rto_deadline && !c->dead) {
        c->rto_deadline = -1;
        if (c->snd_una == c->snd_max) {
            c->probe = true;        /* zero-window probe */
            rto_arm(c);
        } else if (c->retries >= (c->p.rexmit_thresh ? c->p.rexmit_thresh : 8)) {
            emit(c, c->snd_max, TCP_RST | TCP_ACK, NULL, 0);
            set_closed(c);
            c->dead = true;
            c->ops->event(c->opaque, IW_EV_TOO_MANY_RETRIES, 0, NULL, 0);
        } else {
            c->retries++;
            c->stats.rto++;
            c->rto_ns = c->rto_ns * 2 > IW_RTO_MAX_NS ? IW_RTO_MAX_NS
                                                      : c->rto_ns * 2;
            c->dupacks = 0;
            retransmit(c, true);
            rto_arm(c);
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
    emit(c, c->snd_max, TCP_RST | TCP_ACK, NULL, 0);
    set_closed(c);
    c->dead = true;
    timer_update(c);
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
    c->rto_ns = IW_RTO_MIN_NS;
    c->rto_deadline = -1;
    c->tw_deadline = -1;
    c->armed = -1;
    c->sbuf = calloc(1, IW_SBUF);
    c->rbuf = calloc(1, IW_RBUF);
    c->tx_msn[0] = c->tx_msn[1] = c->tx_msn[2] = 1;
    c->rx_msn[0] = c->rx_msn[1] = c->rx_msn[2] = 1;
    if (!c->sbuf || !c->rbuf) {
        free(c->sbuf);
        free(c->rbuf);
        c->sbuf = c->rbuf = NULL;
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
    free(c->sbuf);
    free(c->rbuf);
    c->sbuf = c->rbuf = NULL;
    c->dead = true;
    c->state = IW_TCP_CLOSED;
}
