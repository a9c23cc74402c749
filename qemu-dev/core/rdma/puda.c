/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: the privileged UDA queues, ILQ (QP 1) and IEQ (QP 2).
 *
 * The driver creates them as UDA QPs whose SQ and RQ are one contiguous
 * buffer named in the QP context (puda.c:irdma_puda_qp_setctx()): SQ at
 * @8, RQ at @16, encoded sizes @24, CQ @136, completion context @168.
 *
 * Transmit (PFPE_WQEALLOC with the QP id): each valid SQ WQE carries one
 * TCP segment (header + options + payload, checksum 0) at a physical
 * address, the TCP header length in L4LEN and an address handle index.
 * The engine adds Ethernet and IPv4/IPv6 headers from the AH and the ARP
 * cache, computes the checksums, sends or loops the frame back, and writes
 * an SQ completion to the QP's CQ.
 *
 * Receive (steer.c decides): the next RQ WQE's buffer gets the IP header
 * (IPv4 after 20 bytes of padding) and the TCP segment at offset 40; the RQ
 * completion carries the length from the buffer start and the IPv4 flag
 * (utils.c:irdma_puda_get_tcpip_info()).  The driver re-posts a buffer by
 * flipping its valid bit in place, so the RQ is an ordinary ring.
 *
 * The IEQ is accepted (creation, RQ, destruction, even a transmit) but the
 * classifier never delivers to it: the offloaded engine only accepts
 * in-order segments, so nothing ever needs the driver's reassembly.
 */
#include "../e810.h"
#include "../bytes.h"
#include "../../trace.h"
#include "rdma.h"
#include "puda.h"
#include "qpctx.h"
#include "iwarp-hooks.h"

#ifndef E810_IN_QEMU
#include <stdlib.h>
#endif

/* SQ WQE (gen2 UDA) */
#define WQE_VALID(q)            ((unsigned)((q) >> 63))
/* CQE qword 2/3 */
#define PUDA_MAJ_ERR            0x0001u     /* device choice, not a flush */
/* gen2 ILQ buffer layout */
#define ILQ_IPV4_PAD            20
#define ILQ_TCP_OFFSET          40

static E810PudaQ *puda_q(E810Core *c, uint32_t id)
{
    E810PudaQ *q;

    if (id != E810_PUDA_ILQ_QP && id != E810_PUDA_IEQ_QP) {
        return NULL;
    }
    q = &c->puda.q[id - 1];
    /* The CQP (and every QP with it) may have gone since the create. */
    if (!q->active || !c->rdma.qp[id].valid) {
        return NULL;
    }
    return q;
}

/* Encoded queue size: 4 << n entries of 32 bytes (irdma_get_encoded_wqe_size). */
static uint32_t puda_size(unsigned enc)
{
    return enc <= 13 ? 4u << enc : 0;
}

static void puda_created(E810Core *c, uint32_t id)
{
    E810PudaQ *q = &c->puda.q[id - 1];
    uint8_t ctx[E810_RDMA_QP_CTX_SIZE];
    E810QpCtx x;

    memset(q, 0, sizeof(*q));
    /* In RoCEv2 mode QP 1 is the GSI QP, not a PUDA. */
    if (c->rdma.qp[id].type != QP_TYPE_UDA) {
        return;
    }
    if (e810_dma_read(c, c->rdma.qp[id].ctx_pa, ctx,
                              sizeof(ctx))) {
        e810_guest_error(c, "puda: QP %u context unreadable", id);
        return;
    }
    e810_qpctx_decode_bytes(ctx, &x);
    q->sq_pa = x.sq_addr;
    q->rq_pa = x.rq_addr;
    q->sq_size = puda_size(x.sq_size_enc);
    q->rq_size = puda_size(x.rq_size_enc);
    q->cq = x.txcq;
    q->comp_ctx = x.comp_ctx;
    q->sq_pol = 1;
    q->rq_pol = 1;
    if (!q->sq_size || !q->rq_size || !q->sq_pa || !q->rq_pa) {
        e810_guest_error(c, "puda: QP %u rings sq %u@0x%" PRIx64
                         " rq %u@0x%" PRIx64, id, q->sq_size, q->sq_pa,
                         q->rq_size, q->rq_pa);
        return;
    }
    q->active = true;
    trace_e810_puda_create(id, q->sq_size, q->rq_size, q->cq);
}

/* ---- transmit ----------------------------------------------------------- */

static void puda_tx_drop(E810Core *c, uint32_t id, unsigned idx,
                         const char *why)
{
    c->puda.stats.tx_dropped++;
    trace_e810_puda_tx_drop(id, idx, why);
}

bool e810_rdma_xmit(E810Core *c, const uint8_t *frame, size_t len,
                    bool loopback)
{
    uint8_t pad[60];

    if (len < 60) {
        memset(pad, 0, sizeof(pad));
        memcpy(pad, frame, len);
        frame = pad;
        len = sizeof(pad);
    }
    if (loopback || !memcmp(frame, c->mac, 6)) {
        e810_tx_spend(c);
        c->puda.stats.tx_loopback++;
        e810_pestat_tx(c, frame, len);
        e810_rx_loopback(c, frame, len);
        return true;
    }
    e810_lan_stats_port_tx(c, frame, len, c->fw.phy.up);
    if (!c->fw.phy.up) {
        return false;
    }
    e810_pestat_tx(c, frame, len);
    return e810_wire_send(c, frame, len, true);
}

bool e810_rdma_xmit_group(E810Core *c, const uint8_t *frame, size_t len,
                          bool loopback)
{
    bool sent = e810_rdma_xmit(c, frame, len, false);

    if (loopback) {
        /* The copy for our own members costs the entry's budget like
         * any looped-back frame; it is the same datagram for the
         * statistics. */
        e810_tx_spend(c);
        c->puda.stats.tx_loopback++;
        e810_rx_loopback(c, frame, len);
    }
    return sent;
}

/*
 * Build and send the frame of one SQ WQE.  Returns false for a malformed
 * WQE (error completion); a frame that cannot be delivered (no AH, no
 * ARP entry, link down) still completes normally, as a loss on the wire.
 */
static bool puda_tx_one(E810Core *c, uint32_t id, unsigned idx,
                        const uint64_t *w)
{
    uint8_t *f = c->puda.txbuf;
    uint32_t seg_len = QPSQ_FRAG_LEN(w[1]);
    unsigned tcp_hlen = QPSQ_L4LEN(w[3]) * 4;
    uint32_t ahid = QPSQ_AHID(w[3]);
    const uint64_t *ah;
    uint8_t *ip, *tcp;
    unsigned arp, l2 = 14, l3;
    bool v4, lpb;
    uint32_t sum;

    if (QPSQ_OPCODE(w[3]) != OP_RDMA_SEND || seg_len < 20 ||
        seg_len > E810_PUDA_MAX_SEG || tcp_hlen < 20 || tcp_hlen > seg_len) {
        c->puda.stats.tx_bad_wqe++;
        e810_guest_error(c, "puda: QP %u WQE %u op 0x%x len %u l4len %u", id,
                         idx, QPSQ_OPCODE(w[3]), seg_len, tcp_hlen);
        return false;
    }
    if (!c->rdma.ah ||
        ahid >= e810_rdma_obj_limit(c, E810_HMC_FSIAV, E810_RDMA_MAX_AH) ||
        !c->rdma.ah[ahid].valid) {
        puda_tx_drop(c, id, idx, "no such AH");
        return true;
    }
    ah = c->rdma.ah[ahid].wqe;
    v4 = ah[3] & CQPSQ_AH_IPV4VALID;
    arp = CQPSQ_AH_ARPINDEX(ah[2]);
    if (arp >= E810_RDMA_MAX_ARP || !c->rdma.arp[arp].valid) {
        c->rdma.pestat[v4 ? E810_PE_IP4TXNOROUTE : E810_PE_IP6TXNOROUTE]++;
        puda_tx_drop(c, id, idx, "ARP entry not valid");
        return true;
    }
    /* Ethernet: destination from the ARP cache, source from the AH. */
    memcpy(f, c->rdma.arp[arp].mac, 6);
    e810_rdma_mac_from_u64(f + 6, CQPSQ_AH_MACADDR(ah[0]));
    if (ah[3] & CQPSQ_AH_INSERTVLANTAG) {
        stbe16(f + 12, 0x8100);
        stbe16(f + 14, CQPSQ_AH_VLANTAG(ah[1]));
        l2 = 18;
    }
    stbe16(f + l2 - 2, v4 ? 0x0800 : 0x86DD);
    ip = f + l2;
    l3 = v4 ? 20 : 40;
    tcp = ip + l3;
    if (e810_dma_read(c, w[0], tcp, seg_len)) {
        c->puda.stats.tx_bad_wqe++;
        e810_guest_error(c, "puda: QP %u WQE %u buffer 0x%" PRIx64
                         " unreadable", id, idx, w[0]);
        return false;
    }
    memset(ip, 0, l3);
    if (v4) {
        unsigned ttl = CQPSQ_AH_HOPLIMIT(ah[2]);

        ip[0] = 0x45;
        ip[1] = CQPSQ_AH_TC(ah[1]);
        stbe16(ip + 2, (uint16_t)(20 + seg_len));
        stbe16(ip + 4, c->puda.ip_id++);
        stbe16(ip + 6, 0x4000);           /* DF */
        ip[8] = ttl ? ttl : 64;
        ip[9] = 6;
        e810_rdma_ip_from_words(ip + 16, true, 0, ah[4]);
        e810_rdma_ip_from_words(ip + 12, true, 0, ah[6]);
        stbe16(ip + 10, ~e810_csum_fold(e810_csum_add(0, ip, 20)));
    } else {
        uint32_t tc = CQPSQ_AH_TC(ah[1]);
        unsigned hop = CQPSQ_AH_HOPLIMIT(ah[2]);

        stbe32(ip, 6u << 28 | tc << 20 | CQPSQ_AH_FLOWLABEL(ah[2]));
        stbe16(ip + 4, (uint16_t)seg_len);
        ip[6] = 6;
        ip[7] = hop ? hop : 64;
        e810_rdma_ip_from_words(ip + 8, false, ah[7], ah[6]);
        e810_rdma_ip_from_words(ip + 24, false, ah[5], ah[4]);
    }
    /* TCP checksum over the pseudo header and the whole segment. */
    stbe16(tcp + 16, 0);
    sum = e810_csum_pseudo(ip, !v4, 6, seg_len);
    sum = e810_csum_add(sum, tcp, seg_len);
    stbe16(tcp + 16, ~e810_csum_fold(sum));

    lpb = ah[3] & CQPSQ_AH_DOLOOPBACKCHECK;
    trace_e810_puda_tx(id, idx, seg_len, ahid, tcp[13], lpb);
    if (!e810_rdma_xmit(c, f, l2 + l3 + seg_len, lpb)) {
        puda_tx_drop(c, id, idx, "link down or backend refused");
        return true;
    }
    c->puda.stats.tx_frames++;
    return true;
}

/*
 * Everything valid at the consumer index, at most one ring's worth, each
 * frame only when the transmit gate allows it (txsched.h): the rest is
 * left for the bottom half, so a doorbell storm while the backend is
 * full queues nothing.
 */
static void puda_sq_run(E810Core *c, uint32_t id, E810PudaQ *q)
{
    uint32_t n;

    q->tx_pending = false;
    for (n = 0; n < q->sq_size; n++) {
        uint64_t pa = q->sq_pa + 32ull * q->sq_tail;
        uint8_t raw[32];
        uint64_t w[4], cqe[4] = { 0 };
        unsigned idx = q->sq_tail;
        bool ok;

        if (e810_dma_read(c, pa, raw, sizeof(raw))) {
            e810_guest_error(c, "puda: QP %u SQ WQE %u unreadable", id, idx);
            return;
        }
        for (int i = 0; i < 4; i++) {
            w[i] = ld64(raw + 8 * i);
        }
        if (WQE_VALID(w[3]) != q->sq_pol) {
            /* Run dry: show the tail, then look once more. */
            if (e810_rdma_qp_show_sq_tail(c, id, q->sq_tail)) {
                continue;
            }
            break;
        }
        if (!e810_tx_may_send(c)) {
            q->tx_pending = true;       /* e810_puda_tx_run goes on */
            break;
        }
        ok = puda_tx_one(c, id, idx, w);
        q->sq_tail++;
        if (q->sq_tail == q->sq_size) {
            q->sq_tail = 0;
            q->sq_pol ^= 1;
        }
        if (ok && !(w[3] & QPSQ_SIGCOMPL)) {
            continue;
        }
        cqe[1] = q->comp_ctx;
        cqe[2] = (uint64_t)id << CQ_QPID_S;
        cqe[3] = (uint64_t)idx << CQ_WQEIDX_S | (uint64_t)OP_RDMA_SEND << CQ_OP_S |
                 CQ_SQ;
        if (!ok) {
            cqe[3] |= CQ_ERROR | (uint64_t)PUDA_MAJ_ERR << CQ_MAJERR_S;
        }
        if (!e810_rdma_cq_post(c, q->cq, cqe)) {
            e810_guest_error(c, "puda: QP %u SQ completion lost (CQ %u)", id,
                             q->cq);
        }
    }
    e810_rdma_qp_show_sq_tail(c, id, q->sq_tail);
}

bool e810_puda_doorbell(E810Core *c, uint32_t id)
{
    E810PudaQ *q = puda_q(c, id);

    if (!q) {
        return false;
    }
    puda_sq_run(c, id, q);
    return true;
}

void e810_puda_tx_run(E810Core *c)
{
    for (uint32_t id = E810_PUDA_ILQ_QP; id <= E810_PUDA_IEQ_QP; id++) {
        E810PudaQ *q = puda_q(c, id);

        if (q && q->tx_pending && e810_tx_may_send(c)) {
            puda_sq_run(c, id, q);
        }
    }
}

/* ---- receive ------------------------------------------------------------ */

bool e810_puda_ilq_rx(E810Core *c, bool ipv4, const uint8_t *l3,
                      size_t l3_len, const uint8_t *seg, size_t seg_len)
{
    E810PudaQ *q = puda_q(c, E810_PUDA_ILQ_QP);
    uint8_t hdr[ILQ_TCP_OFFSET], raw[32];
    uint64_t pa, buf, cqe[4] = { 0 };
    uint32_t buf_len, total = ILQ_TCP_OFFSET + seg_len;
    unsigned idx;

    if (!q || q->cq >= E810_RDMA_MAX_CQS || !c->rdma.cq[q->cq].valid) {
        c->puda.stats.rx_no_buf++;
        trace_e810_puda_rx_drop(total, "ILQ not set up");
        return false;
    }
    idx = q->rq_tail;
    pa = q->rq_pa + 32ull * idx;
    if (e810_dma_read(c, pa, raw, sizeof(raw))) {
        c->puda.stats.rx_no_buf++;
        e810_guest_error(c, "puda: ILQ RQ WQE %u unreadable", idx);
        return false;
    }
    if (WQE_VALID(ld64(raw + 24)) != q->rq_pol) {
        c->puda.stats.rx_no_buf++;
        trace_e810_puda_rx_drop(total, "no RQ buffer");
        return false;
    }
    buf = ld64(raw);
    buf_len = QPSQ_FRAG_LEN(ld64(raw + 8));
    if (total > buf_len) {
        c->puda.stats.rx_too_big++;
        trace_e810_puda_rx_drop(total, "larger than the RQ buffer");
        return false;
    }
    memset(hdr, 0, sizeof(hdr));
    memcpy(hdr + (ipv4 ? ILQ_IPV4_PAD : 0), l3, l3_len);
    if (e810_dma_write(c, buf, hdr, sizeof(hdr)) ||
        e810_dma_write(c, buf + ILQ_TCP_OFFSET, seg,
                               seg_len)) {
        c->puda.stats.rx_no_buf++;
        e810_guest_error(c, "puda: ILQ buffer 0x%" PRIx64 " unwritable", buf);
        return false;
    }
    q->rq_tail++;
    if (q->rq_tail == q->rq_size) {
        q->rq_tail = 0;
        q->rq_pol ^= 1;
    }
    cqe[0] = total;
    cqe[1] = q->comp_ctx;
    cqe[2] = (uint64_t)E810_PUDA_ILQ_QP << CQ_QPID_S;
    cqe[3] = (uint64_t)idx << CQ_WQEIDX_S | (uint64_t)OP_TYPE_REC << CQ_OP_S |
             (ipv4 ? CQ_IPV4 : 0);
    if (!e810_rdma_cq_post(c, q->cq, cqe)) {
        c->puda.stats.rx_no_buf++;
        e810_guest_error(c, "puda: ILQ RQ completion lost (CQ %u)", q->cq);
        return false;
    }
    c->puda.stats.rx_ilq++;
    trace_e810_puda_rx(idx, total, ipv4, seg[13]);
    return true;
}

/* ---- lifetime ----------------------------------------------------------- */

void e810_puda_qp_event(E810Core *c, uint32_t id, const uint64_t *wqe,
                        int event)
{
    if (id == E810_PUDA_ILQ_QP || id == E810_PUDA_IEQ_QP) {
        if (event == E810_QP_CREATED) {
            puda_created(c, id);
        } else if (event == E810_QP_DESTROYED) {
            c->puda.q[id - 1].active = false;
        }
        return;
    }
    e810_steer_qp_event(c, id, wqe, event);
}
