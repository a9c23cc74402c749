/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: a hostile peer on the wire.  Starts from two iWARP QPs
 * (3 and 4) connected through the device's loopback and plays the remote
 * end of QP 4's connection: TCP segments with fuzz payload, often framed
 * as MPA FPDUs (good or bad CRC) carrying fuzz DDP/RDMAP headers, in or
 * out of sequence; also raw frames for steering and the ILQ, receive
 * buffers and Read/Write/Send work on QP 4, CQP ops that move the QP
 * through its states, time (retransmission, TIME_WAIT), and the backend
 * holding frames, resets and the unplug (fuzz_common_op).  The first
 * input byte selects kernel or user QPs and re-entrancy mode.
 */
#include "fuzz-common.h"
#include "iwarp/iw-int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PEER_PORT       40000   /* QP 3's end (we impersonate it) */
#define QP4_PORT        5000

static uint32_t peer_seq, peer_ack;

#define put16 stbe16
#define put32 stbe32

static uint16_t seg_sport = PEER_PORT, seg_dport = QP4_PORT;

/* Ethernet + IPv4 + TCP to QP 4 (or seg_sport -> seg_dport), @payload of
 * @n bytes; @mode bits: 1 bad TCP checksum, 2 sequence off by a delta. */
static void send_segment(FuzzIn *in, const uint8_t *payload, size_t n,
                         uint8_t flags, uint8_t mode)
{
    uint8_t f[14 + 20 + 20 + 9000];
    uint8_t *ip = f + 14, *th = ip + 20;
    uint32_t seq = peer_seq, sum;

    if (n > 9000) {
        n = 9000;
    }
    if (mode & 2) {
        seq += (int32_t)(int16_t)in16(in);
    }
    memcpy(f, ifx_mac, 6);
    memcpy(f + 6, ifx_mac, 6);
    put16(f + 12, 0x0800);
    memset(ip, 0, 20);
    ip[0] = 0x45;
    put16(ip + 2, (uint16_t)(40 + n));
    ip[8] = 64;
    ip[9] = 6;
    put32(ip + 12, OUR_IP);
    put32(ip + 16, OUR_IP);
    put16(ip + 10, (uint16_t)~e810_csum_fold(e810_csum_add(0, ip, 20)));
    put16(th, seg_sport);
    put16(th + 2, seg_dport);
    put32(th + 4, seq);
    put32(th + 8, peer_ack);
    th[12] = 5 << 4;
    th[13] = flags;
    put16(th + 14, 0xFFFF);
    put16(th + 16, 0);
    put16(th + 18, 0);
    if (n) {
        memcpy(th + 20, payload, n);
    }
    sum = e810_csum_add(0, ip + 12, 8) + 6 + (uint32_t)(20 + n);
    sum = e810_csum_add(sum, th, 20 + n);
    put16(th + 16, (uint16_t)~e810_csum_fold(sum) ^ ((mode & 1) ? 0x5555 : 0));
    fz_receive(f, 14 + 40 + n);
    if (!(mode & 3)) {
        peer_seq += (uint32_t)n + ((flags & 0x01) ? 1 : 0);
    }
}

/* An FPDU: MPA length, DDP/RDMAP header and payload from the input, pad,
 * CRC (good unless @bad). */
static size_t build_fpdu(FuzzIn *in, uint8_t *out, bool bad)
{
    size_t ulen = in16(in) % 2048, n;

    if (ulen < 14) {
        ulen = 14 + ulen % 40;
    }
    inbuf(in, out + IW_MPA_HDR, ulen);
    /* Framed as the engine frames its own (length, pad, CRC). */
    n = iw_mpa_seal(out, ulen);
    if (bad) {
        out[n - IW_MPA_CRC] ^= 1;
    }
    return n;
}

static void wire_op(FuzzIn *in, uint8_t op)
{
    uint8_t buf[9000];

    switch (op % 11) {
    case 0:
    case 1:
    case 2: {
        /* One or more FPDUs in one segment. */
        uint8_t m = in8(in);
        size_t n = 0;
        unsigned k = 1 + (m >> 5);

        while (k-- && n + 2100 < sizeof(buf)) {
            n += build_fpdu(in, buf + n, m & 4);
        }
        if (m & 8) {
            n = n ? in16(in) % n + 1 : 0;    /* cut in the middle */
        }
        send_segment(in, buf, n, 0x18, m & 3);
        break;
    }
    case 3: {
        /* A segment with raw payload and any flags. */
        uint8_t fl = in8(in);
        size_t n = in16(in) % 1500;

        inbuf(in, buf, n);
        send_segment(in, buf, n, fl, in8(in) & 3);
        break;
    }
    case 4:
        peer_ack += in16(in);
        send_segment(in, NULL, 0, 0x10, 0);
        break;
    case 5:
        fuzz_frame_raw(in);
        break;
    case 6:
        fuzz_rq_wqe(in);
        break;
    case 7:
        fuzz_sq_wqe(in);
        break;
    case 8: {
        /* QP 4 to CLOSING / TERMINATE / ERROR, or (3) destroyed. */
        static const uint64_t next[] = { 3ull << 60, 5ull << 60,
                                         6ull << 60 | 1ull << 58, 0 };
        uint8_t k = in8(in);

        fuzz_qp_cqp(QPCTX_PA(1), 4 | 1ull << 48, k % 4 == 3,
                    next[k % 4] | (uint64_t)(k >> 4 & 3) << 56);
        break;
    }
    case 10: {
        /* To the listener (the ILQ): a SYN or any segment of a
         * connection the CM would own, from a fuzz port. */
        uint8_t fl = in8(in);
        size_t n = in16(in) % 512;

        inbuf(in, buf, n);
        seg_sport = in16(in);
        seg_dport = ILQ_PORT;
        send_segment(in, buf, n, fl, 2);
        seg_sport = PEER_PORT;
        seg_dport = QP4_PORT;
        break;
    }
    default:
        fuzz_advance(in);
        break;
    }
}

static void build(unsigned scen, void *opaque)
{
    (void)opaque;
    fuzz_build_scen(scen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzIn in = { data, size };
    uint8_t s0 = in8(&in);
    static const IfxState tmpl = FUZZ_IFX_TMPL;

    fuzz_start((s0 & 1) ? SCEN_IWARP_USER : SCEN_IWARP_KERNEL, &tmpl, build,
               s0 & 4);
    /* QP 4's context: it expects 0xFFFFFF00 from its peer and has sent
     * nothing past 700000 (iwarp-fixture.c). */
    peer_seq = 0xFFFFFF00u;
    peer_ack = 700000;
    fuzz_run(&in, wire_op);
    return 0;
}
