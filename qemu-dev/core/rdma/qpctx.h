/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The QP host context (256 bytes the driver writes and names in the
 * MODIFY_QP/CREATE_QP work request), decoded once for every engine that
 * reads it: iWARP (iwarp/qp.c), RoCE (roce/qp.c, roce/ud.c), the PUDA queues and
 * the iWARP steering.  The bits are named in rdma/defs.h (QPC_*).
 *
 * A field is filled whatever the QP's type; where a bit range means one
 * thing to iWARP and another to RoCE, both readings are here under their
 * own names (and the engine picks its own):
 *   qword 6  SNDMSS:  iWARP's TCP MSS, RoCE's path MTU (mss)
 *   qword 7  RCVSCALE/SNDSCALE (iWARP) overlap PKEY (RoCE)
 *   qword 10 SNDNXT 31:0 (iWARP) holds PSNNXT 23:0 (RoCE)
 *   qword 11 RCVNXT 31:0 (iWARP) holds EPSN 23:0 (RoCE)
 */
#ifndef E810_RDMA_QPCTX_H
#define E810_RDMA_QPCTX_H

#include "../types.h"
#include "rdma.h"

typedef struct E810QpCtx {
    /* Both transports */
    uint32_t pd;                /* PDIDX | PDIDXHI << 16 */
    uint32_t txcq, rxcq;        /* TXCQNUM, RXCQNUM */
    uint64_t comp_ctx;          /* QPCOMPCTX: echoed in CQEs and AEs */
    uint64_t sq_addr, rq_addr;  /* ring PAs, or first PBLE indexes (VQ) */
    unsigned sq_size_enc;       /* SQSIZE: 4 << n WQEs */
    unsigned rq_size_enc;       /* RQSIZE: 4 << n WQEs */
    unsigned rq_wqe_size;       /* RQWQESIZE: 32 << n bytes per RQ WQE */
    bool priv;                  /* PRIVEN: kernel QP (fast register ...) */
    bool rd_ok;                 /* RDOK: remote reads allowed */
    bool wr_ok;                 /* WRRDRSPOK: remote writes allowed */
    unsigned ord;               /* ORDSIZE: outbound reads in flight */
    unsigned ird;               /* IRDSIZE decoded to reads in flight */
    unsigned rexmit_thresh;     /* REXMIT_THRESH */
    unsigned rtomin_ms;         /* RTOMIN, milliseconds */

    /* The path (both transports) */
    bool ipv4;                  /* IPV4 */
    bool insert_vlan;           /* INSERTVLANTAG */
    uint16_t vlan_tag;          /* VLANTAG: the TCI */
    uint8_t ttl, tos;           /* TTL (hop limit), TOS (traffic class) */
    uint16_t src_port;          /* SRCPORTNUM: iWARP's local TCP port,
                                   RoCE's UDP source port */
    uint16_t dst_port;          /* DESTPORTNUM: iWARP's remote TCP port */
    unsigned arp_idx;           /* ARPIDX: the next hop's MAC */
    uint8_t src_mac[6];         /* MACADDRESS */
    uint8_t dest_ip[16];        /* DESTIPADDR0-3 in network order (IPv4:
                                   bytes 0-3, the rest 0) */
    uint8_t local_ip[16];       /* LOCAL_IPADDR0-3, the same way */
    uint16_t mss;               /* SNDMSS: iWARP MSS, RoCE path MTU */

    /* iWARP (TCP) */
    unsigned dupack_thresh;     /* DUPACK_THRESH (0: 3) */
    uint8_t rcv_wscale;         /* RCVSCALE */
    uint8_t snd_wscale;         /* SNDSCALE */
    uint32_t snd_nxt, snd_wnd;  /* SNDNXT, SNDWND */
    uint32_t rcv_nxt, rcv_wnd;  /* RCVNXT, RCVWND */
    uint32_t snd_una;           /* SNDUNA */
    uint32_t ssthresh, cwnd;    /* SSTHRESH, CWND */
    uint64_t q2_addr;           /* Q2ADDR: 256-byte aligned */

    /* RoCE */
    uint32_t flow_label;        /* FLOWLABEL */
    uint16_t pkey;              /* PKEY */
    uint32_t qkey;              /* QKEY */
    uint32_t dest_qp;           /* DESTQP */
    uint32_t psn_nxt;           /* PSNNXT: first PSN to send */
    uint32_t epsn;              /* EPSN: first PSN expected */
    unsigned rnr_thresh;        /* RNRNAK_THRESH */
} E810QpCtx;

/* Decode the context's words @x (E810_RDMA_QP_CTX_SIZE / 8) into @out. */
void e810_qpctx_decode(const uint64_t *x, E810QpCtx *out);

/* The same from the context's bytes as read from guest memory. */
void e810_qpctx_decode_bytes(const uint8_t *raw, E810QpCtx *out);

/* The work queues of a decoded context; @vq from the QP's CREATE_QP. */
void e810_qpctx_rings(const E810QpCtx *q, bool vq, E810RdmaRing *sq,
                      E810RdmaRing *rq);

#endif
