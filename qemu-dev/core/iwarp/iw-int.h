/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iWARP engine internals shared by tcp.c, rx.c (receive) and tx.c (send).
 */
#ifndef IW_INT_H
#define IW_INT_H

#include "mpa.h"
#include "../bytes.h"
#include "../net/net.h"
#include "iwarp.h"

#define IW_MAX_MSS          9100
#define IW_T_DDP_CATASTROPHIC IW_TERM(1, 0, 0x00)

_Static_assert(sizeof(((IwSeg *)0)->hdr) >=
               IW_DDP_UNTAGGED_HDR + IW_READ_REQ_LEN, "IwSeg.hdr too small");

/* RTO before the first RTT sample (RFC 6298 2.1), its default floor
 * and its ceiling (2.4, 2.5); clock granularity G (2.3). */
#define IW_RTO_INIT_NS          (1000 * 1000 * 1000ll)
#define IW_RTO_MIN_DEFAULT_NS   (200 * 1000 * 1000ll)
#define IW_RTO_MAX_NS           (60 * 1000 * 1000 * 1000ll)
#define IW_RTO_G_NS             (100 * 1000ll)
/* Delayed ACK (RFC 1122 4.2.3.2: well under 500 ms; every second full
 * segment is acknowledged at once, RFC 5681 4.2). */
#define IW_DELACK_NS            (500 * 1000ll)
#define IW_TIME_WAIT_NS     (1000 * 1000 * 1000ll)

static inline bool seq_lt(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) < 0;
}

static inline bool seq_leq(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) <= 0;
}

/* Re-entrancy: callbacks may post work; output runs when the outermost
 * entry point leaves. */
void iw_enter(IwConn *c);
void iw_leave(IwConn *c);

/* tcp.c */
void iw_tcp_output(IwConn *c);

/* rx.c: in-order TCP payload from @frame */
void iw_ddp_input(IwConn *c, const uint8_t *data, size_t len,
                  const uint8_t *frame, size_t flen);
void iw_rx_error(IwConn *c, uint32_t term, const uint8_t *ulpdu, size_t len);

/* tx.c */
/* The next FPDU, at most @room bytes; with @tail_only only one that ends
 * its message (or Read Response) -- no piece cut short by @room.  @d
 * gets how to build it again (all but seq, len and fin). */
size_t iw_rdmap_next(IwConn *c, uint8_t *out, size_t room, bool tail_only,
                     IwSeg *d);
/* Build the segment @d again into @out (its @d->len bytes): 0 or the
 * IW_T_* code of the callback that could not read its payload. */
int iw_rdmap_rebuild(IwConn *c, const IwSeg *d, uint8_t *out);
bool iw_rdmap_pending(const IwConn *c);
void iw_rdmap_acked(IwConn *c);
/* Inbound Read Response for the oldest outstanding read: its message. */
IwMsg *iw_rdmap_oldest_read(IwConn *c);
void iw_rdmap_read_done(IwConn *c, IwMsg *m, int status);
bool iw_rdmap_queue_read(IwConn *c, const IwReadResp *rr);
/* Report a framing failure (tx_err_pending); called by tcp.c after
 * framing, outside iw_rdmap_next. */
void iw_rdmap_tx_error(IwConn *c);

#endif
