/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RoCEv2 engine, internal: the QP and WQE as the RoCEv2 transport
 * keeps them, and what its files (qp.c control and shared helpers, req.c
 * requester, resp.c responder, ud.c UD) call of each other.
 */
#ifndef E810_ROCE_QP_INT_H
#define E810_ROCE_QP_INT_H

#include "../types.h"
#include "../rdma/rdma.h"
#include "../rdma/wqe.h"
#include "../rdma/engine.h"
#include "roce.h"
#include "roce-int.h"

/* UD receive completions carry OP_TYPE_REC: the BTH opcode does not fit
 * the 6-bit field and the driver only looks for WRITE with immediate. */

#define ROCE_WQ_MAX             256     /* WQEs the requester tracks */
#define ROCE_WINDOW             64      /* unacknowledged packets */
#define ROCE_ACKREQ_EVERY       16      /* ask for an ACK within a message */
#define ROCE_RTO_NS             (50 * 1000 * 1000LL)
#define ROCE_RTO_MAX_NS         (2000 * 1000 * 1000LL)
#define ROCE_RNR_INFINITE       7
/* RNR NAK timer code the responder sends (5.12 ms): gen2's context has
 * no minimum RNR timer (min_rnr_timer is gen3 only). */
#define ROCE_RNR_CODE           18
/* Inbound READs the responder keeps: at most IRD (256 at most) undone,
 * the rest answered ones kept for duplicates. */
#define ROCE_RD_SLOTS           256

typedef struct RoceWqe {
    E810EngWqe eng;
    bool imm;
    bool psn_valid;             /* a transport op with PSNs assigned */
    uint32_t imm_data;
    uint32_t rkey;              /* WRITE/READ R_Key, SEND_INV STag */
    uint64_t raddr;
    uint32_t ah;                /* UD */
    uint32_t qkey, dqpn;        /* UD */
    uint32_t first_psn, npkts;
    uint32_t got;               /* READ: response packets placed */
} RoceWqe;

/* An inbound READ: the responses owed for it, or sent (kept for a
 * duplicate request). */
typedef struct RoceRead {
    uint32_t psn;               /* of the request = of the first response */
    uint32_t npkts;
    uint32_t next;              /* next response to send; npkts: all sent */
    uint32_t msn;               /* carried in its AETHs */
    uint32_t rkey, len;
    uint64_t va;
} RoceRead;

typedef struct RoceQp {
    E810EngQp eng;
    uint8_t type;
    uint8_t state;              /* as last seen from the control path */
    bool rd_ok, wr_ok;
    RocePath path;
    unsigned arp;
    unsigned mtu;
    uint16_t pkey;
    uint32_t qkey, dqpn;
    unsigned rexmit_thresh, rnr_thresh, ord;
    /* requester */
    unsigned snd;               /* offset from wq_head of the WQE to send */
    uint32_t snd_pkt;           /* its next packet */
    uint32_t psn_next;          /* first PSN not yet assigned */
    uint32_t psn_una;           /* oldest unacknowledged PSN */
    unsigned retries, rnr_retries;
    bool rnr_wait;
    bool gap_asked;             /* READ responses ahead of psn_una seen */
    uint32_t gap_psn;           /* ... and asked for again from here */
    /* responder */
    uint32_t epsn, msn;
    unsigned ird;
    RoceRead *rd;               /* ROCE_RD_SLOTS, oldest at rd_head */
    unsigned rd_head, rd_cnt;
    unsigned rd_send;           /* from rd_head: first that may be undone */
    bool ack_owed;              /* one ACK/NAK waits behind the responses */
    uint8_t ack_syn;
    uint32_t ack_psn;
    bool nak_sent;
    uint64_t rcv_off;           /* of the receive in progress */
    bool wr_active;
    uint32_t wr_rkey, wr_len, wr_off;
    uint64_t wr_va;
} RoceQp;

/* The transport's own state: counters and the frame being built. */
struct E810Roce {
    E810RoceCounters stats;
    uint8_t tx[ROCE_FRAME_MAX];
};

/* qp.c: lookup, AEs and completions, frames out, the queues */
E810Roce *roce_get(E810Core *c);
RoceQp *roce_qp_find(E810Core *c, uint32_t id);
RoceQp *roce_qp(E810EngQp *b);
void roce_tx_note(RoceQp *q);
E810MemOwner roce_owner(RoceQp *q);
void roce_post_ae(RoceQp *q, unsigned code, unsigned src);
void roce_fatal(RoceQp *q, unsigned ae, unsigned src);
void roce_xmit(RoceQp *q, size_t len, unsigned opcode, uint32_t psn,
               unsigned payload);
void roce_ack_out(RoceQp *q, uint8_t syndrome, uint32_t psn);
void roce_send_ack(RoceQp *q, uint8_t syndrome, uint32_t psn);
void roce_send_nak(RoceQp *q, unsigned code, uint32_t psn);
bool roce_op_local(unsigned op);
bool roce_op_read(unsigned op);
bool roce_sq_fetch(RoceQp *q, RoceWqe *w, uint64_t *hdr, uint64_t qw[4]);
void roce_sq_exec_local(RoceQp *q, RoceWqe *w, const uint64_t qw[4]);
bool roce_rq_take(RoceQp *q);

/* req.c: the RC requester */
void roce_retired(E810EngQp *b);
void roce_rc_run(RoceQp *q);
void roce_rx_ack(RoceQp *q, const RocePkt *k);
void roce_rx_read_resp(RoceQp *q, const RocePkt *k);

/* req.c: the retransmission timer */
void roce_rc_timeout(RoceQp *q);

/* resp.c: the RC responder */
void roce_resp_run(RoceQp *q);
void roce_resp_request(RoceQp *q, const RocePkt *k);

/* ud.c: UD and multicast */
void roce_ud_run(RoceQp *q);
void roce_cqp_doorbell(E810Core *c);
void roce_ud_rx(RoceQp *q, const RocePkt *k);
void roce_ud_mcast_rx(E810Core *c, const RocePkt *k, const uint8_t *dmac);

/* Packets of a message of @len bytes at the path MTU (one if empty). */
static inline unsigned roce_npkts(RoceQp *q, uint32_t len)
{
    return len ? (unsigned)((len + (uint64_t)q->mtu - 1) / q->mtu) : 1;
}

#endif
