/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iWARP engine: the receive side of MPA and DDP (RFC 5044, RFC 5041).
 * In-order TCP payload is reassembled into FPDUs, each FPDU's CRC is
 * checked, and its DDP segment is validated (versions, queue number, MSN,
 * lengths) before RDMAP semantics are applied through the owner's
 * callbacks.  The first error stops receive processing and is reported.
 */
#include "qemu/osdep.h"
#include "iw-int.h"

void iw_rx_error(IwConn *c, uint32_t term, const uint8_t *ulpdu, size_t len)
{
    if (c->rx_halted) {
        return;
    }
    c->rx_halted = true;
    c->ops->event(c->opaque, IW_EV_ERROR, term, ulpdu, len);
    if (c->p.auto_terminate && !c->term_sent && !c->term_pending) {
        uint8_t t[64];
        size_t n = iw_build_terminate(t, term, ulpdu, len);

        iw_send_terminate(c, t, n);
    }
}

static void rx_tagged(IwConn *c, const uint8_t *u, size_t ulen, bool last,
                      unsigned op)
{
    uint32_t stag = ldbe32(u + IW_DDP_STAG);
    uint64_t to = ldbe64(u + IW_DDP_TO);
    const uint8_t *data = u + IW_DDP_TAGGED_HDR;
    size_t len = ulen - IW_DDP_TAGGED_HDR;
    IwMsg *m = NULL;
    int err;

    if (op == IW_OP_WRITE) {
        if (!c->p.wr_ok) {
            iw_rx_error(c, IW_T_RDMAP_ACCESS, u, ulen);
            return;
        }
        err = len ? c->ops->place(c->opaque, stag, to, data, len, false, 0, 0)
                  : 0;
    } else if (op == IW_OP_READ_RESP) {
        m = iw_rdmap_oldest_read(c);
        if (!m) {
            iw_rx_error(c, IW_T_RDMAP_UNEXP_OP, u, ulen);
            return;
        }
        if (len && (to < m->to || to - m->to > m->len ||
                    len > m->len - (to - m->to) || stag != m->stag)) {
            /* The response must stay inside the sink we asked for. */
            err = IW_T_DDP_T_BOUNDS;
        } else {
            err = len ? c->ops->place(c->opaque, stag, to, data, len, true,
                                      m->cookie, m->to) : 0;
        }
    } else {
        iw_rx_error(c, IW_T_RDMAP_UNEXP_OP, u, ulen);
        return;
    }
    if (err) {
        if (m) {
            iw_rdmap_read_done(c, m, err);
        }
        iw_rx_error(c, (uint32_t)err, u, ulen);
        return;
    }
    if (m && last) {
        iw_rdmap_read_done(c, m, 0);
    }
}

/* An inbound RDMA Read Request (@mo its DDP message offset): queued for
 * its responses once the source is found readable. */
static void rx_read_req(IwConn *c, const uint8_t *u, size_t ulen, bool last,
                        uint32_t mo)
{
    const uint8_t *data = u + IW_DDP_UNTAGGED_HDR;
    size_t len = ulen - IW_DDP_UNTAGGED_HDR;
    IwReadResp rr;
    int err;

    if (mo != 0) {
        iw_rx_error(c, IW_T_DDP_U_INV_MO, u, ulen);
        return;
    }
    if (!last || len != IW_READ_REQ_LEN) {
        iw_rx_error(c, IW_T_RDMAP_CATASTROPHIC, u, ulen);
        return;
    }
    if (!c->p.rd_ok) {
        iw_rx_error(c, IW_T_RDMAP_ACCESS, u, ulen);
        return;
    }
    rr.sink_stag = ldbe32(data + IW_RREQ_SINK_STAG);
    rr.sink_to = ldbe64(data + IW_RREQ_SINK_TO);
    rr.len = ldbe32(data + IW_RREQ_SIZE);
    rr.src_stag = ldbe32(data + IW_RREQ_SRC_STAG);
    rr.src_to = ldbe64(data + IW_RREQ_SRC_TO);
    rr.off = 0;
    if (c->irq_cnt >= c->p.ird || c->irq_cnt >= IW_IRQ_MAX) {
        iw_rx_error(c, IW_T_DDP_U_MSN_RANGE, u, ulen);
        return;
    }
    err = rr.len ? c->ops->read_check(c->opaque, rr.src_stag, rr.src_to,
                                      rr.len) : 0;
    if (err) {
        iw_rx_error(c, (uint32_t)err, u, ulen);
        return;
    }
    iw_rdmap_queue_read(c, &rr);
    c->rx_msn[IW_QN_READ]++;
}

static void rx_untagged(IwConn *c, const uint8_t *u, size_t ulen, bool last,
                        unsigned op, const uint8_t *frame, size_t flen)
{
    uint32_t rsvd = ldbe32(u + IW_DDP_RSVDULP), qn = ldbe32(u + IW_DDP_QN);
    uint32_t msn = ldbe32(u + IW_DDP_MSN), mo = ldbe32(u + IW_DDP_MO);
    const uint8_t *data = u + IW_DDP_UNTAGGED_HDR;
    size_t len = ulen - IW_DDP_UNTAGGED_HDR;
    unsigned want_qn;
    int err;

    switch (op) {
    case IW_OP_SEND:
    case IW_OP_SEND_INV:
    case IW_OP_SEND_SE:
    case IW_OP_SEND_SE_INV:
        want_qn = IW_QN_SEND;
        break;
    case IW_OP_READ_REQ:
        want_qn = IW_QN_READ;
        break;
    case IW_OP_TERMINATE:
        want_qn = IW_QN_TERM;
        break;
    default:
        iw_rx_error(c, IW_T_RDMAP_UNEXP_OP, u, ulen);
        return;
    }
    if (qn != want_qn) {
        iw_rx_error(c, IW_T_DDP_U_INV_QN, u, ulen);
        return;
    }
    if (op == IW_OP_TERMINATE) {
        c->rx_halted = true;
        c->ops->event(c->opaque, IW_EV_TERMINATE_RCVD, 0, frame, flen);
        return;
    }
    if (msn != c->rx_msn[qn]) {
        iw_rx_error(c, IW_T_DDP_U_MSN_RANGE, u, ulen);
        return;
    }
    if (op == IW_OP_READ_REQ) {
        rx_read_req(c, u, ulen, last, mo);
        return;
    }
    /* Send */
    {
        IwRecvSeg seg = {
            .op = (uint8_t)op, .first = !c->rx_in_msg, .last = last,
            .inv_stag = rsvd, .msn = msn, .mo = mo, .data = data,
            .len = (uint32_t)len,
        };

        if ((uint64_t)mo + len > 0xFFFFFFFFull) {
            iw_rx_error(c, IW_T_DDP_U_INV_MO, u, ulen);
            return;
        }
        err = c->ops->recv(c->opaque, &seg);
        if (err) {
            iw_rx_error(c, (uint32_t)err, u, ulen);
            return;
        }
        c->rx_in_msg = !last;
        if (last) {
            c->rx_msn[qn]++;
        }
    }
}

/* One ULPDU (DDP segment). */
static void rx_ulpdu(IwConn *c, const uint8_t *u, size_t ulen,
                     const uint8_t *frame, size_t flen)
{
    bool tagged, last;
    unsigned op;

    if (ulen < IW_RDMAP_CTRL + 1) {
        iw_rx_error(c, IW_T_DDP_CATASTROPHIC, u, ulen);
        return;
    }
    tagged = u[IW_DDP_CTRL] & IW_DDP_T;
    last = u[IW_DDP_CTRL] & IW_DDP_L;
    op = u[IW_RDMAP_CTRL] & IW_RDMAP_OPCODE_M;
    if ((u[IW_DDP_CTRL] & IW_DDP_DV_M) != IW_DDP_VERSION) {
        iw_rx_error(c, tagged ? IW_T_DDP_T_VERSION : IW_T_DDP_U_VERSION,
                    u, ulen);
        return;
    }
    if ((u[IW_RDMAP_CTRL] >> IW_RDMAP_RV_S) != IW_RDMAP_VERSION) {
        iw_rx_error(c, IW_T_RDMAP_BAD_VERSION, u, ulen);
        return;
    }
    if (ulen < (tagged ? IW_DDP_TAGGED_HDR : IW_DDP_UNTAGGED_HDR)) {
        iw_rx_error(c, IW_T_DDP_CATASTROPHIC, u, ulen);
        return;
    }
    if (!c->got_fpdu) {
        c->got_fpdu = true;
        c->ops->event(c->opaque, IW_EV_FIRST_FPDU, 0, NULL, 0);
    }
    if (tagged) {
        rx_tagged(c, u, ulen, last, op);
    } else {
        rx_untagged(c, u, ulen, last, op, frame, flen);
    }
}

void iw_ddp_input(IwConn *c, const uint8_t *data, size_t len,
                  const uint8_t *frame, size_t flen)
{
    /* Nothing half-received: whole FPDUs are taken from the frame where
     * they are; only a partial one is copied to the reassembly buffer. */
    while (len && !c->rx_halted && c->rbuf && !c->rlen) {
        size_t fl, ul;
        int r = iw_mpa_check(data, len, 0, &fl, &ul);

        if (r == IW_MPA_MORE) {
            break;
        }
        if (r != IW_MPA_OK) {
            c->stats.crc_errors++;
            iw_rx_error(c, IW_T_MPA_CRC, data + IW_MPA_HDR,
                        len - IW_MPA_HDR < 64 ? len - IW_MPA_HDR : 64);
            c->rlen = 0;
            return;
        }
        c->stats.fpdus_rx++;
        rx_ulpdu(c, data + IW_MPA_HDR, ul, frame, flen);
        data += fl;
        len -= fl;
    }
    while (len && !c->rx_halted && c->rbuf) {
        size_t n = IW_RBUF - c->rlen, pos = 0;

        if (n > len) {
            n = len;
        }
        memcpy(c->rbuf + c->rlen, data, n);
        c->rlen += n;
        data += n;
        len -= n;
        while (!c->rx_halted) {
            size_t fl, ul;
            int r = iw_mpa_check(c->rbuf + pos, c->rlen - pos, 0, &fl, &ul);

            if (r == IW_MPA_MORE) {
                break;
            }
            if (r != IW_MPA_OK) {
                c->stats.crc_errors++;
                iw_rx_error(c, IW_T_MPA_CRC, c->rbuf + pos + IW_MPA_HDR,
                            c->rlen - pos - IW_MPA_HDR < 64 ?
                            c->rlen - pos - IW_MPA_HDR : 64);
                break;
            }
            c->stats.fpdus_rx++;
            rx_ulpdu(c, c->rbuf + pos + IW_MPA_HDR, ul, frame, flen);
            pos += fl;
        }
        if (c->rx_halted || !c->rbuf) {
            c->rlen = 0;
            return;
        }
        memmove(c->rbuf, c->rbuf + pos, c->rlen - pos);
        c->rlen -= pos;
    }
}
