/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: a hostile RoCEv2 peer.  Starts from two RC QPs (3 and
 * 4) in RoCE mode, connected through the device's loopback
 * (iwarp-fixture.c with roce set), and plays QP 3's end towards QP 4 and
 * QP 4's towards QP 3: BTH packets with fuzz opcode, flags, PSN (near the
 * expected one or anywhere) and extension headers/payload, with a good
 * ICRC or a bad one, to QP 3, 4, 1 or any QP number; raw frames; receive
 * and send WQEs on both QPs (retransmission, ACK/NAK handling, READ
 * responses); QP state changes and time.  The first input byte selects
 * kernel or user QPs and re-entrancy mode.
 */
#include "fuzz-common.h"
#include "roce/roce-int.h"

static void send_roce(FuzzIn *in)
{
    static uint8_t f[ROCE_FRAME_MAX];
    RocePath p = { .ipv4 = true, .ttl = 64, .sport = 0xC000 };
    uint8_t m = in8(in), op = in8(in);
    uint32_t psn = in32(in), qpn;
    size_t off, n = in16(in) % (4096 + 20);  /* payload + extension headers */
    size_t len;

    memcpy(p.smac, ifx_mac, 6);
    memcpy(p.dmac, ifx_mac, 6);
    st32(p.sip, 0);
    p.sip[0] = OUR_IP >> 24;
    p.sip[1] = (uint8_t)(OUR_IP >> 16);
    p.sip[2] = (uint8_t)(OUR_IP >> 8);
    p.sip[3] = (uint8_t)OUR_IP;
    memcpy(p.dip, p.sip, 4);
    switch (m & 3) {
    case 0: qpn = 3; break;
    case 1: qpn = 4; break;
    case 2: qpn = 1; break;
    default: qpn = in32(in); break;
    }
    /* Mostly opcodes the engine knows, near the PSNs it expects. */
    if (!(m & 4)) {
        op %= 0x18;
    }
    if (!(m & 8)) {
        psn = (qpn == 4 ? 0xFFFFF0u : 0x100u) + (int8_t)psn;
    }
    off = roce_frame_start(f, &p);
    roce_bth_put(f + off, op, m & 0x10, (m >> 5) & 3, 0xFFFF, qpn, m & 0x80,
                 psn);
    inbuf(in, f + off + ROCE_BTH_LEN, n);
    len = roce_frame_seal(f, &p, off, off + ROCE_BTH_LEN + n);
    if (in8(in) == 0xA5) {
        f[len - 1] ^= 1;                /* bad ICRC */
    }
    e810_receive(&ifx.c, f, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzIn in = { data, size };
    uint8_t s0 = in8(&in);
    unsigned ops;

    ifx_cur->roce = true;
    ifx_cur->psn[0] = 0xFFFFF0;
    ifx_cur->psn[1] = 0x000100;
    fuzz_setup((s0 & 1) ? SCEN_IWARP_USER : SCEN_IWARP_KERNEL, s0 & 4);
    for (ops = 0; in.left && ops < FUZZ_MAX_OPS; ops++) {
        uint8_t op = in8(&in);

        switch (op % 8) {
        case 0:
        case 1:
        case 2:
            send_roce(&in);
            break;
        case 3:
            fuzz_frame_raw(&in);
            break;
        case 4:
            fuzz_rq_wqe(&in);
            break;
        case 5:
            fuzz_sq_wqe(&in);
            break;
        case 6: {
            /* QP 3 + (k & 1) to SQD / ERROR / RTR again, or destroyed. */
            static const uint64_t next[] = { 3ull << 60, 6ull << 60,
                                             4ull << 60 };
            uint64_t q[8] = { 0 };
            uint8_t k = in8(&in);
            unsigned i = k & 1;

            q[2] = QPCTX_PA(i);
            if ((k >> 1) % 4 == 3) {
                ifx_cqp(0x02, q, (3 + i) | 3ull << 48);
            } else {
                ifx_cqp(0x01, q, (3 + i) | 3ull << 48 | next[(k >> 1) % 4]);
            }
            break;
        }
        default:
            fuzz_advance(&in);
            break;
        }
    }
    fake_host_advance(&ifx.h, 2000000000ll);
    fuzz_teardown();
    ifx_cur->roce = false;
    return 0;
}
