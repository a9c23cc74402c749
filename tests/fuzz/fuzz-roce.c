/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: a hostile RoCEv2 peer.  Starts from two RC QPs (3 and
 * 4) in RoCE mode, connected through the device's loopback
 * (iwarp-fixture.c with roce set), and plays QP 3's end towards QP 4 and
 * QP 4's towards QP 3: BTH packets with fuzz opcode, flags, PSN (near the
 * expected one or anywhere) and extension headers/payload, with a good
 * ICRC or a bad one, to QP 3, 4, 1 or any QP number; raw frames; receive
 * and send WQEs on both QPs (retransmission, ACK/NAK handling, READ
 * responses); QP state changes and time; the backend holding frames,
 * resets and the unplug (fuzz_common_op).
 *
 * The first input byte selects kernel or user QPs, re-entrancy mode, and
 * the remote scenario: the QPs' peer (ARP 1) is a remote MAC, so what the
 * device answers (READ responses, ACKs, NAKs) goes to the host's wire,
 * where the oracles see it, and the input plays that remote peer.  Every
 * scenario has a large region (BIG_STAG: 2 GiB from the start of guest
 * RAM, remote read and write) for READ requests of any length.
 */
#include "fuzz-common.h"
#include "roce/roce-int.h"

#define BIG_STAG        ((0x20u << 8) | 0x5A)
#define BIG_VA          FAKE_MEM_BASE
#define BIG_LEN         0x80000000ull
#define ROCE_MTU        1024

static bool remote;
/* The PSN QP 3 + i expects next, as far as the harness can tell. */
static uint32_t epsn[2];

/* Ethernet/IP/UDP of a packet from the peer (ourselves, or the remote
 * peer of the remote scenario) to us. */
static void peer_path(RocePath *p)
{
    memset(p, 0, sizeof(*p));
    p->ipv4 = true;
    p->ttl = 64;
    p->sport = 0xC000;
    memcpy(p->smac, remote ? fuzz_peer_mac : ifx_mac, 6);
    memcpy(p->dmac, ifx_mac, 6);
    stbe32(p->sip, remote ? FUZZ_PEER_IP : OUR_IP);
    stbe32(p->dip, OUR_IP);
}

static void send_roce(FuzzIn *in)
{
    static uint8_t f[ROCE_FRAME_MAX];
    RocePath p;
    uint8_t m = in8(in), op = in8(in);
    uint32_t psn = in32(in), qpn;
    size_t off, n = in16(in) % (4096 + 20);  /* payload + extension headers */
    size_t len;

    peer_path(&p);
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
    fz_receive(f, len);
}

/*
 * A READ request (or an ATOMIC) to QP 3 + (m & 1) at the PSN it expects,
 * or a duplicate below it: RETH for the large region or input-chosen,
 * with lengths up to 0x7FFFFFFF and beyond.
 */
static void send_read(FuzzIn *in)
{
    static uint8_t f[256];
    static const uint32_t lens[] = { 0x7FFFFFFF, 0, 1, ROCE_MTU,
                                     ROCE_MTU * 200 + 1, 0x80000000u,
                                     16u << 20, 0xFFFFFFFFu };
    RocePath p;
    uint8_t m = in8(in), k = in8(in);
    unsigned i = m & 1;
    uint32_t psn = epsn[i], len, rkey = BIG_STAG, npkt;
    uint64_t va = BIG_VA;
    size_t off, n = ROCE_RETH_LEN;
    uint8_t *e;

    if (m & 2) {
        psn -= 1 + k;                   /* a duplicate */
    }
    switch (m >> 5) {
    case 0:
    case 1:
        len = lens[k % 8];
        break;
    case 2:
        len = in16(in);
        break;
    case 3:
        len = (uint32_t)k * ROCE_MTU;
        break;
    default:
        len = in32(in);
        if (!(m & 0x80)) {
            len &= 0x7FFFFFFF;
        }
        break;
    }
    if (m & 8) {
        rkey = in32(in);
    }
    if (m & 0x10) {
        va = BIG_VA + in32(in);
    }
    peer_path(&p);
    off = roce_frame_start(f, &p);
    roce_bth_put(f + off, (m & 3) == 3 && (k & 0x10) ? 0x13 + (k & 1) :
                 ROCE_READ_REQ, false, 0, 0xFFFF, 3 + i, m & 4,
                 psn & ROCE_PSN_MASK);
    e = f + off + ROCE_BTH_LEN;
    stbe64(e, va);
    stbe32(e + 8, rkey);
    stbe32(e + 12, len);
    if ((m & 3) == 3 && (k & 0x10)) {
        /* AtomicETH: VA, R_Key, swap/add, compare */
        stbe64(e + 12, in64(in));
        stbe64(e + 20, in64(in));
        n = 28;
    }
    fz_receive(f, roce_frame_seal(f, &p, off, off + ROCE_BTH_LEN + n));
    if (!(m & 2)) {
        npkt = len ? (len + ROCE_MTU - 1) / ROCE_MTU : 1;
        epsn[i] = (epsn[i] + npkt) & ROCE_PSN_MASK;
    }
}

/* The scenario: RoCE QPs 3 and 4 (to ourselves or the remote peer),
 * and the large region. */
static void build(unsigned id, void *opaque)
{
    uint64_t q[8] = { 0 };

    (void)opaque;
    ifx_cur->roce = true;
    ifx_cur->psn[0] = 0xFFFFF0;
    ifx_cur->psn[1] = 0x000100;
    fuzz_build_scen((id & 1) ? SCEN_IWARP_USER : SCEN_IWARP_KERNEL);
    q[0] = BIG_VA;
    q[1] = BIG_LEN | (uint64_t)PD << 46;
    q[2] = BIG_STAG;
    q[4] = BIG_VA;
    if (ifx_cqp(0x0a, q, 0xFull << 48 | 1ull << 53 | 1ull << 59)) {
        ifx_failures++;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzIn in = { data, size };
    uint8_t s0 = in8(&in);
    unsigned ops;
    bool live = true;
    static const IfxState local = FUZZ_IFX_TMPL;
    static const IfxState far = {
        .mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 },
        .peer_mac = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0b },
        .ip = OUR_IP, .peer_ip = FUZZ_PEER_IP,
    };

    remote = s0 & 2;
    fuzz_start(s0 & 3, remote ? &far : &local, build, s0 & 4);
    epsn[0] = 0x000100;
    epsn[1] = 0xFFFFF0;
    for (ops = 0; live && in.left && ops < FUZZ_MAX_OPS; ops++) {
        uint8_t op = in8(&in);

        if (op >= 0xF8) {
            live = fuzz_common_op(&in, op);
            continue;
        }
        if (op >= 0xF0) {
            send_read(&in);
            continue;
        }
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
                FZ_GUEST("CQP", ifx_cqp(0x02, q, (3 + i) | 3ull << 48));
            } else {
                FZ_GUEST("CQP", ifx_cqp(0x01, q, (3 + i) | 3ull << 48 |
                                        next[(k >> 1) % 4]));
            }
            break;
        }
        default:
            fuzz_advance(&in);
            break;
        }
    }
    fuzz_finish(!live);
    return 0;
}
