/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iWARP protocol engine: one offloaded connection (TCP + MPA + DDP +
 * RDMAP) as a plain C object with no knowledge of the device around it.
 *
 * The owner feeds it received Ethernet frames (iw_input), timer expiries
 * (iw_timer) and work (iw_post_*, iw_close, iw_abort, iw_send_terminate);
 * the engine calls back through IwOps to put frames on the wire, arm its
 * timer, fetch outbound payload, place inbound data, and report completed
 * work and connection events.  Everything from the wire is untrusted:
 * malformed segments are dropped (TCP/IP level) or end in a protocol
 * error event (MPA/DDP/RDMAP level); nothing asserts.
 */
#ifndef IW_IWARP_H
#define IW_IWARP_H

#include "../host.h"

/* RDMAP opcodes (RFC 5040 4.3) */
enum {
    IW_OP_WRITE = 0, IW_OP_READ_REQ = 1, IW_OP_READ_RESP = 2, IW_OP_SEND = 3,
    IW_OP_SEND_INV = 4, IW_OP_SEND_SE = 5, IW_OP_SEND_SE_INV = 6,
    IW_OP_TERMINATE = 7,
    IW_OP_RAW = 0x10,           /* engine-internal: streaming-mode bytes */
};

/* DDP queue numbers */
enum { IW_QN_SEND = 0, IW_QN_READ = 1, IW_QN_TERM = 2 };

/*
 * Terminate codes (RFC 5040 4.8): layer << 12 | etype << 8 | code.
 * The owner's callbacks return these (0 = fine) to reject an access.
 */
#define IW_TERM(layer, etype, code) ((layer) << 12 | (etype) << 8 | (code))
#define IW_LAYER_RDMAP              0
#define IW_LAYER_DDP                1
#define IW_LAYER_MPA                2
enum {
    /* RDMAP remote protection (etype 1) and remote operation (etype 2) */
    IW_T_RDMAP_INV_STAG     = IW_TERM(0, 1, 0x00),
    IW_T_RDMAP_BOUNDS       = IW_TERM(0, 1, 0x01),
    IW_T_RDMAP_ACCESS       = IW_TERM(0, 1, 0x02),
    IW_T_RDMAP_UNASSOC_STAG = IW_TERM(0, 1, 0x03),
    IW_T_RDMAP_TO_WRAP      = IW_TERM(0, 1, 0x04),
    IW_T_RDMAP_CANT_INV     = IW_TERM(0, 1, 0x09),
    IW_T_RDMAP_BAD_VERSION  = IW_TERM(0, 2, 0x05),
    IW_T_RDMAP_UNEXP_OP     = IW_TERM(0, 2, 0x06),
    IW_T_RDMAP_CATASTROPHIC = IW_TERM(0, 2, 0x07),
    /* DDP tagged (etype 1) and untagged (etype 2) buffer errors */
    IW_T_DDP_T_INV_STAG     = IW_TERM(1, 1, 0x00),
    IW_T_DDP_T_BOUNDS       = IW_TERM(1, 1, 0x01),
    IW_T_DDP_T_UNASSOC      = IW_TERM(1, 1, 0x02),
    IW_T_DDP_T_TO_WRAP      = IW_TERM(1, 1, 0x03),
    IW_T_DDP_T_VERSION      = IW_TERM(1, 1, 0x04),
    IW_T_DDP_U_INV_QN       = IW_TERM(1, 2, 0x01),
    IW_T_DDP_U_NO_BUF       = IW_TERM(1, 2, 0x02),
    IW_T_DDP_U_MSN_RANGE    = IW_TERM(1, 2, 0x03),
    IW_T_DDP_U_INV_MO       = IW_TERM(1, 2, 0x04),
    IW_T_DDP_U_TOO_LONG     = IW_TERM(1, 2, 0x05),
    IW_T_DDP_U_VERSION      = IW_TERM(1, 2, 0x06),
    /* MPA (LLP) */
    IW_T_MPA_CLOSED         = IW_TERM(2, 0, 0x01),
    IW_T_MPA_CRC            = IW_TERM(2, 0, 0x02),
    IW_T_MPA_MARKER         = IW_TERM(2, 0, 0x03),
    IW_T_MPA_REQ_RSP        = IW_TERM(2, 0, 0x04),
};

/* TCP states, numbered as irdma's AEQE TCPSTATE field. */
typedef enum IwTcpState {
    IW_TCP_CLOSED = 1, IW_TCP_ESTABLISHED = 5, IW_TCP_CLOSE_WAIT = 6,
    IW_TCP_FIN_WAIT_1 = 7, IW_TCP_CLOSING = 8, IW_TCP_LAST_ACK = 9,
    IW_TCP_FIN_WAIT_2 = 10, IW_TCP_TIME_WAIT = 11,
} IwTcpState;

typedef enum IwEvent {
    IW_EV_FIRST_FPDU,       /* the first valid FPDU arrived */
    IW_EV_FIN_RCVD,         /* in-order FIN from the peer */
    IW_EV_CLOSE_COMPLETE,   /* both directions closed (TIME_WAIT/CLOSED) */
    IW_EV_RESET_RCVD,       /* RST in window */
    IW_EV_TOO_MANY_RETRIES, /* retransmission limit: connection dropped */
    IW_EV_TERMINATE_RCVD,   /* data/len: the whole frame carrying it */
    IW_EV_ERROR,            /* inbound protocol error: @term, data/len the
                             * offending FPDU's ULPDU (from the DDP header);
                             * receive processing stops */
    IW_EV_TERMINATE_SENT,   /* a Terminate went out */
    IW_EV_REXMIT_FAILED,    /* @term: the payload of a segment to resend
                             * could not be read again (memory gone or
                             * unreadable); the connection was reset */
} IwEvent;

/* Where an inbound segment of a Send lands (RDMAP QN 0). */
typedef struct IwRecvSeg {
    uint8_t op;             /* IW_OP_SEND* */
    bool first;             /* first segment seen of this message */
    bool last;              /* L bit: message complete */
    uint32_t inv_stag;      /* Send with Invalidate */
    uint32_t msn;
    uint32_t mo;
    const uint8_t *data;
    uint32_t len;
} IwRecvSeg;

typedef struct IwOps {
    /* An Ethernet frame (no FCS) for the wire. */
    void (*frame_out)(void *opaque, const uint8_t *frame, size_t len);
    /* May a frame go now?  False holds back data, FIN and ACKs until the
     * next iw_kick() (NULL: always). */
    bool (*tx_ready)(void *opaque);
    /* Is our transmit path backed up (an RTO now is no retry)?  NULL: no. */
    bool (*tx_backed_up)(void *opaque);
    int64_t (*now)(void *opaque);
    /* (Re)arm the connection's one timer at @deadline ns, -1 cancels. */
    void (*timer)(void *opaque, int64_t deadline);
    /* Payload bytes @off..+@len of posted work @cookie; 0 or IW_T_*.
     * Asked again for a retransmission, as long as @cookie is not done. */
    int (*gather)(void *opaque, uint64_t cookie, uint64_t off, uint8_t *buf,
                  size_t len);
    /* Inbound tagged data: RDMA Write (@read_resp false) or Read Response
     * for the outstanding read @cookie whose sink was @sink_to.
     * Returns 0 or an IW_T_* code. */
    int (*place)(void *opaque, uint32_t stag, uint64_t to, const uint8_t *data,
                 size_t len, bool read_resp, uint64_t cookie, uint64_t sink_to);
    /* Inbound Send segment; 0 or an IW_T_* code. */
    int (*recv)(void *opaque, const IwRecvSeg *seg);
    /* Inbound Read Request: may the peer read @len at @stag/@to? */
    int (*read_check)(void *opaque, uint32_t stag, uint64_t to, uint32_t len);
    /* Source bytes of a Read Response. 0 or IW_T_*.  Asked again for a
     * retransmission: the responder's MR is read again, as hardware does. */
    int (*read_fetch)(void *opaque, uint32_t stag, uint64_t to, uint8_t *buf,
                      size_t len);
    /* Posted work finished: Send/Write acknowledged by the peer's TCP,
     * Read's last response placed; @status 0 or IW_T_* / -1 (aborted). */
    void (*done)(void *opaque, uint64_t cookie, int status);
    void (*event)(void *opaque, IwEvent ev, uint32_t term,
                  const uint8_t *data, size_t len);
} IwOps;

typedef struct IwConnParams {
    bool ipv4;
    uint8_t lmac[6], rmac[6];
    uint8_t lip[16], rip[16];   /* IPv4: first 4 bytes, network order */
    uint16_t lport, rport;
    bool vlan;
    uint16_t vlan_tci;
    uint8_t ttl, tos;
    uint32_t snd_nxt;           /* next sequence number we send */
    uint32_t snd_una;           /* oldest unacknowledged (= snd_nxt) */
    uint32_t rcv_nxt;
    uint32_t snd_wnd;           /* peer window in bytes */
    uint32_t rcv_wnd;           /* our window in bytes */
    uint8_t snd_scale, rcv_scale;
    uint16_t mss;
    uint16_t ird, ord;          /* inbound/outbound read limits */
    bool rd_ok, wr_ok;          /* accept inbound Read Req / Write+RResp */
    unsigned rexmit_thresh;     /* retries before giving up (0: 8) */
    int64_t rto_min_ns;         /* RTO floor (0: IW_RTO_MIN_DEFAULT_NS) */
    uint32_t cwnd;              /* initial congestion window (0: 2 MSS) */
    uint32_t ssthresh;          /* initial slow-start threshold (0: max) */
    unsigned dupack_thresh;     /* duplicate ACKs for fast retransmit (0: 3) */
    bool auto_terminate;        /* send a Terminate ourselves on errors */
} IwConnParams;

#define IW_MSGQ         256     /* posted, unfinished work */
#define IW_IRQ_MAX      256     /* inbound reads queued */
/* Bytes in flight: the peer's window, at most this much. */
#define IW_SND_MAX      (4u << 20)
#define IW_SEGQ         2048    /* segments in flight */
#define IW_RBUF         (IW_MPA_MAX_FPDU + 16)
#define IW_MPA_MAX_FPDU 65544
/* Out-of-order segments kept for reassembly: whole frames, bounded. */
#define IW_OOO_SEGS     256
#define IW_OOO_BYTES    (384u << 10)

typedef struct IwMsg {
    uint8_t op;
    bool sent;              /* all bytes handed to TCP */
    bool acked_wait;        /* Send/Write: waiting for snd_una >= end */
    bool resp_wait;         /* Read: waiting for the response */
    uint32_t stag;          /* remote/sink STag, or inval STag */
    uint64_t to;
    uint32_t len;
    uint32_t off;           /* bytes framed so far */
    uint32_t msn;
    uint32_t end_seq;
    uint32_t src_stag;      /* Read Request */
    uint64_t src_to;
    uint64_t cookie;
    int status;
} IwMsg;

typedef struct IwReadResp {
    uint32_t sink_stag;
    uint64_t sink_to;
    uint32_t len, off;
    uint32_t src_stag;
    uint64_t src_to;
} IwReadResp;

/* Where a segment's payload comes from, to send it again. */
enum {
    IW_SRC_NONE,            /* headers only (Read Request, FIN) */
    IW_SRC_GATHER,          /* ops->gather(@cookie, @off) */
    IW_SRC_FETCH,           /* ops->read_fetch(@stag, @off): Read Response */
    IW_SRC_TERM,            /* the connection's Terminate payload */
};

/*
 * A segment in flight, described rather than copied: one FPDU (MPA
 * header, the DDP/RDMAP header kept in @hdr, @plen payload bytes from
 * @src, pad, CRC) or, for streaming-mode data (@raw), @plen bytes from
 * @src alone.  A retransmission rebuilds it byte for byte: the same
 * FPDU boundaries and headers, the payload read again from guest memory
 * (it stays valid until the work completes, after this segment's ACK).
 */
typedef struct IwSeg {
    uint32_t seq;
    uint32_t len;           /* sequence bytes without the FIN */
    bool fin;
    bool raw;
    uint8_t src;            /* IW_SRC_* */
    uint8_t hlen;           /* bytes in @hdr */
    uint32_t plen;
    uint32_t stag;          /* IW_SRC_FETCH: source STag */
    uint64_t cookie;        /* IW_SRC_GATHER: posted work */
    uint64_t off;           /* message offset, or source TO */
    uint8_t hdr[46];        /* DDP + RDMAP headers (Read Request: 18+28) */
} IwSeg;

/* A received segment beyond rcv_nxt, waiting for the hole before it. */
typedef struct IwOooSeg {
    uint32_t seq;
    uint32_t len;           /* payload bytes */
    bool fin;
    uint16_t doff;          /* payload offset in frame */
    uint32_t flen;
    uint8_t *frame;         /* copy of the frame up to the TCP payload end */
} IwOooSeg;

typedef struct IwStats {
    uint64_t tx_segs, tx_bytes, rx_segs, rx_bytes;
    uint64_t rexmits;       /* segments sent again (any cause) */
    uint64_t rexmit_fails;  /* a resend's payload could not be read */
    uint64_t rto;           /* retransmission timeouts */
    uint64_t spurious_rto;  /* of them, found spurious by F-RTO */
    uint64_t fast_rexmits;  /* fast retransmits (third duplicate ACK) */
    uint64_t early_rexmits; /* of them, on fewer duplicates (RFC 5827) */
    uint64_t partial_acks;  /* NewReno partial ACKs (one more resent) */
    uint64_t dup_acks;
    uint64_t ooo_queued;    /* out-of-order segments kept */
    uint64_t ooo_drops;     /* out-of-order segments not kept (bound) */
    uint64_t delayed_acks;  /* pure ACKs sent by the delayed-ACK timer */
    uint64_t pure_acks;     /* pure ACKs sent */
    uint64_t probes;        /* zero-window probes */
    uint64_t bad_csum, bad_frame;
    uint64_t fpdus_rx, fpdus_tx, crc_errors;
} IwStats;

typedef struct IwConn {
    IwConnParams p;
    const IwOps *ops;
    void *opaque;

    /* TCP */
    IwTcpState state;
    uint32_t snd_una, snd_nxt, snd_max, snd_wnd, snd_wl1, snd_wl2;
    uint32_t rcv_nxt;
    uint32_t fin_seq;
    bool fin_queued, fin_sent, fin_rcvd;
    bool ack_now;
    bool probe;             /* zero-window probe due */
    unsigned depth;         /* nesting of entry points */
    unsigned dupacks;
    unsigned retries;
    /* Congestion control (RFC 5681, NewReno RFC 6582) */
    uint32_t cwnd, ssthresh;
    uint32_t bytes_acked;   /* congestion avoidance: since the last SMSS */
    uint32_t recover;       /* snd_max when recovery began */
    bool in_recovery;
    unsigned dupack_thresh;
    /* F-RTO (RFC 5682): after an RTO, was it spurious?  0 no test, 1 the
     * first ACK after the resend is due, 2 the second (after up to two
     * new segments).  pipe_prev as RFC 4015 names it. */
    uint8_t frto;
    bool rto_recovery;      /* an RTO's go-back is under way (to recover) */
    uint32_t frto_end;      /* end of what the RTO resent */
    uint32_t pipe_prev;
    /* RTT and RTO (RFC 6298); one segment timed at a time (Karn) */
    int64_t srtt_ns, rttvar_ns;
    bool rtt_valid;
    bool rtt_timing;
    uint32_t rtt_seq;       /* timed: acked once snd_una passes this */
    int64_t rtt_t0;
    int64_t rto_min_ns;
    int64_t rto_ns;         /* current RTO including backoff */
    int64_t rto_deadline;   /* -1 if not armed */
    int64_t tw_deadline;
    int64_t delack_deadline;
    unsigned ack_pending;   /* full segments received, not yet acked */
    int64_t armed;          /* deadline given to ops->timer, -1 none;
                             * may be earlier than needed (never later) */
    /* Receive reassembly: sorted by seq */
    IwOooSeg ooo[IW_OOO_SEGS];
    unsigned ooo_cnt;
    size_t ooo_bytes;
    IwSeg segq[IW_SEGQ];    /* snd_una .. snd_max, described */
    unsigned seg_head, seg_cnt;
    uint16_t ip_id;

    /* MPA receive reassembly */
    uint8_t *rbuf;
    size_t rlen;
    bool got_fpdu;
    bool rx_halted;         /* after an error, Terminate, iw_orphan() */
    bool dead;              /* reset / retries exhausted: ignore all */

    /* DDP / RDMAP */
    uint32_t tx_msn[3];
    uint32_t rx_msn[3];
    bool rx_in_msg;         /* QN 0 message partially received */
    IwMsg msgq[IW_MSGQ];
    unsigned mq_head, mq_cnt, mq_tx;    /* mq_tx: next to frame (offset) */
    unsigned ord_used;
    IwReadResp irq[IW_IRQ_MAX];
    unsigned irq_head, irq_cnt;
    uint8_t term[64];       /* pending Terminate payload */
    size_t term_len;
    bool term_pending, term_sent;
    /* A local failure while framing (payload unreadable): nothing more
     * is framed; the failure is reported once framing has returned.
     * Also set by iw_orphan() (nothing to report then). */
    bool tx_halted;
    bool tx_err_pending;
    bool tx_err_msg;        /* a posted message failed (tx_err_cookie) */
    uint64_t tx_err_cookie;
    uint32_t tx_err_term;   /* an inbound Read's response failed: IW_T_* */

    IwStats stats;
} IwConn;

/* Lifetime.  @p is copied; the connection starts ESTABLISHED. */
bool iw_conn_init(IwConn *c, const IwConnParams *p, const IwOps *ops,
                  void *opaque);
void iw_conn_destroy(IwConn *c);

/* Inputs */
void iw_input(IwConn *c, const uint8_t *frame, size_t len);
/*
 * A segment of this connection the owner has already parsed and checked
 * (the device's one frame parse and steering: addresses and ports of the
 * quad, IPv4/TCP checksums, TCP data offset): the TCP header at @l4_off of
 * @frame, @tlen bytes of TCP header and payload.
 */
void iw_input_segment(IwConn *c, const uint8_t *frame, size_t l4_off,
                      size_t tlen);
void iw_timer(IwConn *c);

/* Work.  Return 0, or -1 when the queue (or ORD) is full: try later. */
int iw_post_send(IwConn *c, uint8_t op, uint32_t inv_stag, uint32_t len,
                 uint64_t cookie);
int iw_post_write(IwConn *c, uint32_t stag, uint64_t to, uint32_t len,
                  uint64_t cookie);
int iw_post_read(IwConn *c, uint32_t sink_stag, uint64_t sink_to,
                 uint32_t len, uint32_t src_stag, uint64_t src_to,
                 uint64_t cookie);
int iw_post_raw(IwConn *c, uint32_t len, uint64_t cookie);
/* Terminate with @payload (the 4-byte header + copied headers). */
void iw_send_terminate(IwConn *c, const uint8_t *payload, size_t len);
/* Build a Terminate payload for @term about the ULPDU @ulpdu (may be
 * NULL); returns its length (<= 64). */
size_t iw_build_terminate(uint8_t *out, uint32_t term, const uint8_t *ulpdu,
                          size_t ulpdu_len);
void iw_close(IwConn *c);       /* FIN after queued data */
void iw_abort(IwConn *c);       /* RST now */
/*
 * The owner gives its work up (its QP went to ERROR) but not the
 * connection: nothing more is framed (posted work not yet framed, inbound
 * Reads not yet answered, a Terminate not yet sent: dropped) and nothing
 * more received is placed; TCP goes on -- ACKs, retransmission of what is
 * in flight, a FIN asked for by iw_close() -- until the connection closes
 * or the owner aborts it.
 */
void iw_orphan(IwConn *c);
/* Whether the connection still takes segments (not reset, not CLOSED;
 * TIME_WAIT still answers a FIN sent again). */
bool iw_conn_open(const IwConn *c);
/* Send whatever the window allows (after posting work). */
void iw_kick(IwConn *c);
bool iw_tx_idle(const IwConn *c);   /* nothing queued or unacked */
unsigned iw_queue_room(const IwConn *c);

#endif
