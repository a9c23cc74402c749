/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Two connected iWARP QPs on one device, as irdma sets them up. */
#ifndef E810_IWARP_FIXTURE_H
#define E810_IWARP_FIXTURE_H

#include "fake-host.h"
#include "aq-util.h"
#include "cqp-util.h"
#include "bytes.h"

/*
 * A device and the guest's view of its rings.  The helpers below work on
 * ifx_cur (by default one device whose QPs 3 and 4 talk to each other
 * through the engine's loopback); point it at another IfxState, with its
 * own MAC/IP and a peer's, for two devices back to back.
 */
typedef struct IfxState {
    AqTest dev;
    uint8_t mac[6], peer_mac[6];
    uint32_t ip, peer_ip;
    uint16_t mss;               /* of the QPs' connections (0: 1460) */
    /* RoCEv2 mode: QPs 3 and 4 are RC QPs (QP 3 + i to QP 3 + (1 - i) of
     * the peer), moved INIT -> RTR -> RTS; no ILQ.  mss is the path MTU
     * (0: 1024), psn[i] the first PSN QP 3 + i sends. */
    bool roce;
    uint32_t psn[2];
    /* Address handles to commit in the FPM (RoCE: 64 when 0). */
    unsigned nah;
    /* Multicast groups (FSIMC) to commit in RoCE mode (64 when 0). */
    unsigned nmcg;
    /* iWARP: QPs 3 and 4 take their TCP contexts at a MODIFY_QP to IDLE
     * (quads bound) instead of the hand-over at RTS, so no offloaded
     * connection exists (a device with one cannot be saved yet). */
    bool no_conn;
    uint16_t vsi;               /* the PF's VSI (ifx_setup) */
    CqpRing cqp;
    unsigned cq3_head, cq3_pol, aeq_head, aeq_pol;
    unsigned qsq_head[2], qsq_pol[2], qrq_head[2], qrq_pol[2];
} IfxState;

/* Two devices facing each other on one link, 10.0.0.1 and 10.0.0.2. */
#define IFX_DEV_A { .mac = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0a }, \
                    .peer_mac = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0b }, \
                    .ip = 0x0A000001u, .peer_ip = 0x0A000002u }
#define IFX_DEV_B { .mac = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0b }, \
                    .peer_mac = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0a }, \
                    .ip = 0x0A000002u, .peer_ip = 0x0A000001u }

extern IfxState *ifx_cur;
extern unsigned ifx_failures;     /* set-up steps that failed */
#define ifx             (ifx_cur->dev)
#define ifx_mac         (ifx_cur->mac)
#define ifx_sq_head     (ifx_cur->cqp.sq_head)
#define ifx_sq_pol      (ifx_cur->cqp.sq_pol)
#define ifx_ccq_head    (ifx_cur->cqp.ccq_head)
#define ifx_ccq_pol     (ifx_cur->cqp.ccq_pol)
#define ifx_cq3_head    (ifx_cur->cq3_head)
#define ifx_cq3_pol     (ifx_cur->cq3_pol)
#define ifx_aeq_head    (ifx_cur->aeq_head)
#define ifx_aeq_pol     (ifx_cur->aeq_pol)
#define ifx_qsq_head    (ifx_cur->qsq_head)
#define ifx_qsq_pol     (ifx_cur->qsq_pol)
#define ifx_qrq_head    (ifx_cur->qrq_head)
#define ifx_qrq_pol     (ifx_cur->qrq_pol)

#define M(off)          (FAKE_MEM_BASE + 0x800000 + (off))
#define OUR_IP          0x0A000001u

#define AEQ_PA          M(0x6000)
#define CQ3_PA          M(0x8000)
#define CQ3_SHADOW      M(0x8800)
#define Q2_PA(i)        M(0x9000 + 0x200 * (i))
#define QPCTX_PA(i)     (Q2_PA(i) + 0x100)
#define QSQ_PA(i)       M(0xA000 + 0x1000 * (i))
#define QRQ_PA(i)       (QSQ_PA(i) + 0x800)
#define QSHADOW_PA(i)   M(0xF000 + 0x40 * (i))  /* SQ doorbell shadow area */
#define BUF_PA(i)       M(0x10000 + 0x10000 * (i))
#define CQP_SQ_SIZE     64
#define CCQ_SIZE        64
#define CQ3_SIZE        256
#define AEQ_SIZE        64
/* The ILQ (QP 1 on CQ 1) and its listener. */
#define ILQ_CQ_PA       M(0xC000)
#define ILQ_CQ_SHADOW   M(0xC800)
#define ILQ_CTX_PA      M(0xC900)
#define ILQ_SQ_PA       M(0xD000)
#define ILQ_RQ_PA       M(0xD200)
#define ILQ_BUFS        M(0x30000)
#define ILQ_NBUF        16
#define ILQ_BUF         1024
#define ILQ_PORT        4420
#define QSQ_QUANTA      64              /* enc 4 */
#define QRQ_WQES        16              /* enc 2 */
#define PD              1
#define STAG(i)         ((uint32_t)(0x10 + (i)) << 8 | 0x5A)
#define COMPCTX(i)      (0xFFFF888000000000ull + (i))


void ifx_wr(uint32_t off, uint32_t val);
uint8_t *ifx_mem(uint64_t pa);
uint64_t ifx_mem64(uint64_t pa);
void ifx_set64(uint64_t pa, uint64_t v);
/* Post a CQP WQE; 0 done, 1 error completion, 2 no completion. */
unsigned ifx_cqp(unsigned op, const uint64_t q[8], uint64_t hdr_extra);
/* QP context for QP 3 + @i at QPCTX_PA(@i). */
void ifx_qp_ctx(unsigned i, bool user);
/* RoCE QP context for QP 3 + @i (ifx_cur->roce). */
void ifx_qp_ctx_roce(unsigned i, bool user);
/*
 * A RoCE UD QP @qpn on CQ @cq in RTS, as irdma creates an rdma_cm UD QP:
 * context at @page, 16-quantum SQ at @page + IFX_UD_SQ, 16-WQE RQ at
 * @page + IFX_UD_RQ (empty), doorbell shadow area at @page + 0xE00;
 * Q_Key @qkey, completion context @comp.
 */
/*
 * What ifx_ud_qp() does, in two parts: the context of a UD QP at @ctx
 * (SQ @sq of 16 quanta, RQ @rq of 16 WQEs, PMTU 1024, PD, Q_Key @qkey,
 * CQ @cq for both queues, completion context @comp) without its source
 * MAC, IP and qword 20; and CQP CREATE_QP and two MODIFY_QP to RTS of QP
 * @qpn with the context at @ctx and its doorbell shadow area at @shadow.
 */
void ifx_ud_ctx(uint64_t ctx, uint64_t sq, uint64_t rq, uint32_t qkey,
                unsigned cq, uint64_t comp);
void ifx_ud_create(unsigned qpn, uint64_t ctx, uint64_t shadow);
#define IFX_UD_SQ       0x400
#define IFX_UD_RQ       0x800
void ifx_ud_qp(unsigned qpn, unsigned cq, uint64_t page, uint32_t qkey,
               uint64_t comp);
/*
 * CQP CREATE_AH (0x1c) for AH @ah to a multicast group, as irdma_setup_ah
 * makes it: ARP entry @arp (the group's MAC), PD, hop limit 64, the
 * IPv6 group @grp6 (16 bytes) from fd00::1 or, @grp6 NULL, the IPv4
 * group @grp4 from OUR_IP; DOLOOPBACK.  What ifx_cqp() returns.
 */
unsigned ifx_mc_ah(unsigned ah, unsigned arp, const uint8_t *grp6,
                   uint32_t grp4);
/* The whole set-up; @user: QPs as user QPs (not privileged). */
void ifx_setup(bool user);
void ifx_teardown(void);
/*
 * @a and @b set up as two RoCEv2 devices whose QP 3 + i talks to the
 * other's QP 4 - i, the first PSNs the same on both (0x10; 0xFFFFFA,
 * which wraps after 6 packets), so each QP expects what its peer sends.
 * ifx_failures counts from 0; ifx_cur is @b after.
 */
void ifx_setup_roce_pair(IfxState *a, IfxState *b);
/* ifx_teardown() of the two devices @a and @b; ifx_cur is @b after. */
void ifx_teardown_two(IfxState *a, IfxState *b);
/* SQ WQE (quantum 0 from @q, header @hdr, @quanta with @extra), without
 * and with the doorbell. */
unsigned ifx_sq_put(unsigned i, const uint64_t q[4], uint64_t hdr,
                    unsigned quanta, const uint8_t *extra);
unsigned ifx_sq_post(unsigned i, const uint64_t q[4], uint64_t hdr,
                     unsigned quanta, const uint8_t *extra);
/* A one-quantum WQE of opcode @op (0 WRITE, 1 READ, 3 SEND, ...): @len
 * bytes at @loc in QP 3 + @i's own MR (STAG(@i)), @raddr remote; @flags
 * the rest of the header (remote STag, SIG, ...).  _put without the
 * doorbell. */
unsigned ifx_sq_op_put(unsigned i, unsigned op, uint64_t loc, uint32_t len,
                       uint64_t raddr, uint64_t flags);
unsigned ifx_sq_op(unsigned i, unsigned op, uint64_t loc, uint32_t len,
                   uint64_t raddr, uint64_t flags);
/* An inline SEND with SE (op 5) of 50 bytes, 0..7 then 0xA0 + k, laid
 * out as uk.c writes them (8 in qword 1, then 31 per quantum: 3
 * quanta); @q0 (immediate data), @flags the rest of the header; and
 * whether @pa holds those 50 bytes. */
unsigned ifx_sq_inline50(unsigned i, uint64_t q0, uint64_t flags);
bool ifx_inline50_at(uint64_t pa);
/* A signaled READ of 10000 bytes from the peer's MR at BUF_PA(1) + 0x6000
 * (filled here) into two SGEs (4000 at BUF_PA(0) + 0x8000, 6000 at
 * BUF_PA(0) + 0xA000; @frag_valid the fragment's valid bit); then, once
 * run, whether the data is there and WQE @idx completed alone without
 * error. */
unsigned ifx_read_2sge(uint64_t frag_valid);
bool ifx_read_2sge_done(unsigned idx);
void ifx_rq_post(unsigned i, uint64_t to, uint32_t len);
/* Let timers run for 200 ms of virtual time. */
void ifx_run(void);
bool ifx_cqe_next(uint64_t cqe[4]);
/* The AE source (AESRC) of the last AEQE ifx_aeqe_next() took. */
extern unsigned ifx_ae_src;
bool ifx_aeqe_next(uint64_t *qw0, unsigned *qp, unsigned *code);
/* Drain the AEQ: whether AE @ae came for QP @qpn among what was there. */
bool ifx_ae_seen(unsigned qpn, unsigned ae);
void ifx_fill(uint64_t pa, size_t len, unsigned seed);
/* ALLOC_STAG (irdma_sc_alloc_stag): STag index @idx with no mapping yet. */
void ifx_alloc_stag(uint32_t idx);
/* A signaled FAST_REGISTER WQE with the local fence on QP 3 + @i, as
 * irdma_sc_mr_fast_register() writes it (VA based; @lpbl 0: contiguous
 * from @first_pa, 1: level-1 PBL from PBLE @pble); with the doorbell. */
unsigned ifx_fast_reg_post(unsigned i, uint32_t stag, uint64_t va,
                           uint64_t len, uint64_t first_pa, unsigned lpbl,
                           uint32_t pble, unsigned rights);
/* A signaled LOCAL_INVALIDATE of @stag on QP 3 + @i, without the
 * doorbell. */
unsigned ifx_local_inv_put(unsigned i, uint32_t stag);
/* Whether the next CQE is QP 3 + @i's SQ WQE @idx of opcode @op with
 * status @status (0: success); says what it found if not. */
bool ifx_sq_cqe_is(unsigned i, unsigned idx, unsigned op, unsigned status);

#endif
