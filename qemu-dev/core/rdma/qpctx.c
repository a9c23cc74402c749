/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The QP host context decoded once (rdma/qpctx.h); the bit names are
 * rdma/defs.h's QPC_*, the word numbers those irdma writes.
 */
#include "qemu/osdep.h"
#include "../bytes.h"
#include "rdma.h"
#include "qpctx.h"

/* IRDSIZE as irdma encodes it (irdma_sc_get_encoded_ird_size): 4, 16,
 * 64, 128, 256; the codes past 4 are not written, taken as 256. */
static unsigned qpctx_ird(unsigned enc)
{
    static const uint16_t ird[8] = { 4, 16, 64, 128, 256, 256, 256, 256 };

    return ird[enc & 7];
}

void e810_qpctx_decode(const uint64_t *x, E810QpCtx *out)
{
    E810QpCtx *q = out;

    memset(q, 0, sizeof(*q));
    /* qword 0 */
    q->ipv4 = x[0] & QPC_IPV4;
    q->insert_vlan = x[0] & QPC_INSERTVLANTAG;
    q->rq_wqe_size = QPC_RQWQESIZE(x[0]);
    q->dupack_thresh = QPC_DUPACK_THRESH(x[0]);
    /* qwords 1-3 */
    q->sq_addr = x[1];
    q->rq_addr = x[2];
    q->ttl = QPC_TTL(x[3]);
    q->rq_size_enc = QPC_RQSIZE(x[3]);
    q->sq_size_enc = QPC_SQSIZE(x[3]);
    q->tos = QPC_TOS(x[3]);
    q->src_port = QPC_SRCPORTNUM(x[3]);
    q->dst_port = QPC_DESTPORTNUM(x[3]);
    /* qwords 4-5 */
    e810_rdma_ip_from_words(q->dest_ip, q->ipv4, x[5], x[4]);
    /* qword 6 */
    q->mss = QPC_SNDMSS(x[6]);
    q->vlan_tag = QPC_VLANTAG(x[6]);
    q->arp_idx = QPC_ARPIDX(x[6]);
    /* qword 7 */
    q->flow_label = QPC_FLOWLABEL(x[7]);
    q->rcv_wscale = QPC_RCVSCALE(x[7]);
    q->snd_wscale = QPC_SNDSCALE(x[7]);
    q->pkey = QPC_PKEY(x[7]);
    q->pd = QPC_PDIDX(x[7]) | QPC_PDIDXHI(x[0]) << 16;
    /* qword 8 */
    q->dest_qp = QPC_DESTQP(x[8]);
    q->qkey = QPC_QKEY(x[8]);
    /* qwords 10-12 */
    q->snd_nxt = QPC_SNDNXT(x[10]);
    q->psn_nxt = QPC_PSNNXT(x[10]);
    q->snd_wnd = QPC_SNDWND(x[10]);
    q->rcv_nxt = QPC_RCVNXT(x[11]);
    q->epsn = QPC_EPSN(x[11]);
    q->rcv_wnd = QPC_RCVWND(x[11]);
    q->snd_una = QPC_SNDUNA(x[12]);
    /* qword 14 */
    q->ssthresh = QPC_SSTHRESH(x[14]);
    q->cwnd = QPC_CWND(x[14]);
    /* qword 16 */
    q->rexmit_thresh = QPC_REXMIT_THRESH(x[16]);
    q->rnr_thresh = QPC_RNRNAK_THRESH(x[16]);
    q->rtomin_ms = QPC_RTOMIN(x[16]);
    /* qwords 17-21 */
    q->txcq = QPC_TXCQNUM(x[17]);
    q->rxcq = QPC_RXCQNUM(x[17]);
    q->q2_addr = QPC_Q2ADDR(x[18]);
    e810_rdma_mac_from_u64(q->src_mac, QPC_MACADDRESS(x[19]));
    q->ord = QPC_ORDSIZE(x[20]);
    q->ird = qpctx_ird(QPC_IRDSIZE(x[20]));
    q->wr_ok = x[20] & QPC_WRRDRSPOK;
    q->rd_ok = x[20] & QPC_RDOK;
    q->priv = x[20] & QPC_PRIVEN;
    q->comp_ctx = x[21];
    /* qwords 23-24 */
    e810_rdma_ip_from_words(q->local_ip, q->ipv4, x[24], x[23]);
}

void e810_qpctx_decode_bytes(const uint8_t *raw, E810QpCtx *out)
{
    uint64_t x[E810_RDMA_QP_CTX_SIZE / 8];
    unsigned i;

    for (i = 0; i < E810_RDMA_QP_CTX_SIZE / 8; i++) {
        x[i] = ld64(raw + 8 * i);
    }
    e810_qpctx_decode(x, out);
}

void e810_qpctx_rings(const E810QpCtx *q, bool vq, E810RdmaRing *sq,
                      E810RdmaRing *rq)
{
    memset(sq, 0, sizeof(*sq));
    memset(rq, 0, sizeof(*rq));
    sq->size = 4u << q->sq_size_enc;
    rq->size = 4u << q->rq_size_enc;
    sq->virt = rq->virt = vq;
    if (vq) {
        sq->pble_idx = (uint32_t)q->sq_addr;
        rq->pble_idx = (uint32_t)q->rq_addr;
    } else {
        sq->pa = q->sq_addr;
        rq->pa = q->rq_addr;
    }
}


