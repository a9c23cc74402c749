/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RoCEv2 engine: the RC and UD transport of the QP engine
 * (rdma/engine.h) in RoCEv2 mode (CQP protocol 2); the engine reaches it
 * through e810_roce_ops.
 * docs/roce.md is the contract with irdma it implements.
 */
#ifndef E810_ROCE_H
#define E810_ROCE_H

#include "../types.h"
#include "../rdma/rdma.h"
#include "../net/net.h"

typedef struct E810RoceCounters {
    uint64_t tx_pkts;
    uint64_t rx_pkts;           /* accepted by a QP */
    uint64_t rx_bad;            /* malformed, bad checksum or ICRC */
    uint64_t rx_no_qp;          /* no RoCE QP of that number, or wrong state */
    uint64_t rx_key;            /* P_Key / Q_Key mismatch */
    uint64_t rx_dup;            /* duplicate requests (re-acknowledged) */
    uint64_t rx_out_of_seq;     /* ahead of the expected PSN */
    uint64_t rx_unexpected;     /* responses nothing waits for */
    uint64_t ud_dropped;        /* UD: no receive WQE or it is too short */
    uint64_t naks_sent;
    uint64_t rnr_naks_sent;
    uint64_t retransmits;       /* go-back-N restarts (timeout or NAK) */
    uint64_t timeouts;
    uint64_t tx_dropped;        /* frames e810_rdma_xmit refused */
    uint64_t acks_coalesced;    /* ACK/NAKs replaced by a newer one */
    uint64_t rd_dup_stale;      /* duplicate READs for no recent READ */
    uint64_t rd_ird_exceeded;   /* READs past IRD undone ones (NAKed) */
    uint64_t mcast_tx;          /* UD datagrams sent to a group */
    uint64_t mcast_rx;          /* datagrams to a group of this port */
    uint64_t mcast_no_group;    /* to a group address this port has none */
    uint64_t mcast_bad;         /* MAC, QPN and IP disagree on multicast,
                                 * or not a UD SEND */
} E810RoceCounters;

typedef struct E810Roce E810Roce;

/* Counters, for tests and statistics (NULL before the first RoCE QP). */
const E810RoceCounters *e810_roce_stats(E810Core *c);

#endif
