/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: the privileged UDA queues (PUDA) and receive steering.
 *
 * ILQ (QP 1) carries the software connection manager's TCP segments:
 * transmit takes a TCP segment from an SQ WQE and adds Ethernet and IP
 * headers from an address handle; receive places IP + TCP headers and
 * payload in an RQ buffer (gen2 layout: IPv4 header at 20, TCP at 40).
 * IEQ (QP 2) is created by the driver but never fed: the offloaded engine
 * takes segments in order only, so nothing needs software reassembly.
 *
 * The engine's port (port.c) sends the frames the engines build, loops
 * back those for this port, and decides per received frame: LAN, ILQ, an
 * offloaded QP (port.h), RoCEv2, or drop (accelerated port,
 * malformed).
 */
#ifndef E810_PUDA_H
#define E810_PUDA_H

#include "../types.h"
#include "../net/net.h"

#define E810_PUDA_ILQ_QP        1
#define E810_PUDA_IEQ_QP        2
/* Largest TCP segment (header + payload) a PUDA WQE may carry. */
#define E810_PUDA_MAX_SEG       9216
/* Frames waiting for the loopback timer. */
#define E810_LPB_MAX            256

typedef struct E810PudaQ {
    bool active;            /* created, context read */
    uint64_t sq_pa, rq_pa;
    uint32_t sq_size;       /* 32-byte WQEs */
    uint32_t rq_size;       /* 32-byte WQEs */
    uint32_t sq_tail;       /* device consumer indices ... */
    uint32_t rq_tail;
    uint8_t sq_pol;         /* ... and the valid bit expected there */
    uint8_t rq_pol;
    uint32_t cq;            /* TX and RX CQ (context @136) */
    uint64_t comp_ctx;
    bool tx_pending;        /* SQ work left for the bottom half */
} E810PudaQ;

/* An offloaded connection: the 4-tuple a QP took over at RTS. */
typedef struct E810Quad {
    bool ipv4;
    uint8_t lip[16], rip[16];   /* network order; IPv4 in bytes 0-3 */
    uint16_t lport, rport;
} E810Quad;

typedef struct E810LpbFrame {
    uint8_t *data;
    size_t len;
} E810LpbFrame;

typedef struct E810PudaCounters {
    uint64_t tx_frames;         /* ILQ/IEQ segments sent or looped back */
    uint64_t tx_loopback;
    uint64_t tx_dropped;        /* no AH/ARP entry, link down, backend */
    uint64_t tx_bad_wqe;        /* malformed WQE: error CQE */
    uint64_t rx_ilq;            /* segments placed in the ILQ */
    uint64_t rx_iwarp;          /* segments handed to an offloaded QP */
    uint64_t rx_no_buf;         /* ILQ RQ empty / CQ missing */
    uint64_t rx_too_big;        /* larger than the RQ buffer */
    uint64_t rx_malformed;      /* RDMA segment with bad IP/TCP headers */
    uint64_t rx_bad_csum;
    uint64_t rx_apbvt_drop;     /* accelerated port, no connection */
    uint64_t lpb_dropped;       /* loopback queue full */
} E810PudaCounters;

typedef struct E810Puda {
    E810PudaQ q[2];             /* [0] ILQ, [1] IEQ */
    uint16_t ip_id;
    uint8_t txbuf[18 + 40 + E810_PUDA_MAX_SEG];
    /* Offloaded quads, indexed by QP id. */
    E810Quad *quad;             /* E810_RDMA_MAX_QPS entries */
    uint8_t *bound;             /* bitmap of QP ids with a quad */
    /* Loopback FIFO, drained by a zero-delay timer. */
    E810CoreTimer *lpb_timer;
    E810LpbFrame lpb[E810_LPB_MAX];
    unsigned lpb_head, lpb_count;
    E810PudaCounters stats;
} E810Puda;

enum { E810_QP_CREATED, E810_QP_MODIFIED, E810_QP_DESTROYED };

void e810_puda_reset(E810Core *c);
/* qp.c: after CREATE/MODIFY/DESTROY_QP of @id succeeded; false if @id is
 * not a PUDA QP (the port's steering takes the event then). */
bool e810_puda_qp_event(E810Core *c, uint32_t id, int event);
/* port.c: binds/unbinds the quad of an iWARP QP (the same events; @wqe
 * the CQP WQE). */
void e810_steer_qp_event(E810Core *c, uint32_t id, const uint64_t *wqe,
                         int event);
/* qp.c: PFPE_WQEALLOC / user doorbell for QP 1 or 2; false if that QP
 * is not a PUDA (RoCEv2 GSI QP, not created). */
bool e810_puda_doorbell(E810Core *c, uint32_t id);
/* The bottom half (e810.c): SQ work the doorbells left, within the
 * entry's budget and only while the backend takes frames. */
void e810_puda_tx_run(E810Core *c);
/* port.c -> puda.c: place a validated TCP segment in the ILQ RQ.
 * @l3 points at the IP header, @l3_len its length (20 or 40), @seg at the
 * TCP header with @seg_len bytes of header and payload. */
bool e810_puda_ilq_rx(E810Core *c, bool ipv4, const uint8_t *l3,
                      size_t l3_len, const uint8_t *seg, size_t seg_len);
/* port.c, from e810_receive_frame(): true if the frame was taken by the
 * RDMA engine (or dropped on its behalf), false if it goes to the LAN. */
bool e810_rdma_steer(E810Core *c, const E810Frame *fr);
/* port.c: the receive path without the entry guard (e810_receive() and
 * the loopback queue's timer): the RDMA engine's steering, else the LAN;
 * from the bytes, or from the frame parsed already. */
void e810_receive_frame(E810Core *c, const uint8_t *frame, size_t len);
void e810_receive_parsed(E810Core *c, const E810Frame *fr);
/* port.c: its lifetime (quads, the loopback queue), from e810.c. */
void e810_rdma_port_init(E810Core *c);
void e810_rdma_port_cleanup(E810Core *c);
void e810_rdma_port_reset(E810Core *c);
/* Saved state (snap.h), record E810_SNAP_PUDA, after E810_SNAP_RDMA (the
 * queues and quads belong to control QPs): the ILQ/IEQ (puda.c), the
 * port's quads and loopback queue (port.c), the PUDA's counters. */
extern const struct E810SnapPart e810_puda_snap;
extern const struct E810SnapPart e810_rdma_port_snap;
extern const struct E810SnapPart e810_puda_stats_snap;

#endif
