/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the libFuzzer targets over the device core (fuzz-mmio.c,
 * fuzz-wire.c): an input reader, the device set-ups the inputs start
 * from, and the operations both targets use.  Guest RAM is the fake host's
 * 16 MiB window; any DMA outside it fails like a failed DMA in QEMU.  In
 * re-entrancy mode the 32 MiB right above RAM is the device's own BAR0:
 * a DMA there is an MMIO access to the device, as in QEMU.
 */
#ifndef E810_FUZZ_COMMON_H
#define E810_FUZZ_COMMON_H

#include "iwarp-fixture.h"
#include "e810.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_BAR0_BASE  (FAKE_MEM_BASE + FAKE_MEM_SIZE)
#define FUZZ_MAX_OPS    256

typedef struct FuzzIn {
    const uint8_t *p;
    size_t left;
} FuzzIn;

static inline uint8_t in8(FuzzIn *in)
{
    if (!in->left) {
        return 0;
    }
    in->left--;
    return *in->p++;
}

/* Little endian; one read per statement (operand order is unspecified). */
static inline uint16_t in16(FuzzIn *in)
{
    uint16_t lo = in8(in);

    return (uint16_t)(lo | in8(in) << 8);
}

static inline uint32_t in32(FuzzIn *in)
{
    uint32_t lo = in16(in);

    return lo | (uint32_t)in16(in) << 16;
}

static inline uint64_t in64(FuzzIn *in)
{
    uint64_t lo = in32(in);

    return lo | (uint64_t)in32(in) << 32;
}

/* Up to @n bytes into @buf (zero-filled past the end of the input). */
static inline void inbuf(FuzzIn *in, void *buf, size_t n)
{
    size_t k = n < in->left ? n : in->left;

    memcpy(buf, in->p, k);
    memset((uint8_t *)buf + k, 0, n - k);
    in->p += k;
    in->left -= k;
}

/* Scenarios an input starts from (low 2 bits of its first byte). */
enum { SCEN_BARE, SCEN_IWARP_KERNEL, SCEN_IWARP_USER, SCEN_LAN };

/* LAN scenario: one VSI (PF queue 4) with our MAC, Rx queue 4 with 64
 * descriptors of 2 KiB posted, Tx queue 5 of 256 descriptors. */
#define LAN_TX_RING     (FAKE_MEM_BASE + 0xC00000)
#define LAN_TX_BUFS     (FAKE_MEM_BASE + 0xC10000)
#define LAN_RX_RING     (FAKE_MEM_BASE + 0xD00000)
#define LAN_RX_BUFS     (FAKE_MEM_BASE + 0xD10000)
#define LAN_TXQ         5
#define LAN_TX_QLEN     256
#define LAN_RXQ         4
#define LAN_RX_QLEN     64

static unsigned lan_tx_tail, lan_rx_tail;

static inline uint64_t fuzz_addr(FuzzIn *in);

static inline void lan_setup(void)
{
    E810TxQueueCtx *q = &ifx.c.fw.sched.txq[LAN_TXQ];
    uint8_t b[32] = { 0 };
    uint16_t vsi;

    if (aq_add_pf_vsi(&ifx, LAN_RXQ, 1, false, &vsi) ||
        aq_add_mac_rule(&ifx, vsi, ifx_mac)) {
        ifx_failures++;
    }
    /* Rx queue context as ice_setup_rx_ctx writes it. */
    put_bits(b, 32, 57, LAN_RX_RING >> 7);
    put_bits(b, 89, 13, LAN_RX_QLEN);
    put_bits(b, 102, 7, 16);
    put_bits(b, 116, 1, 1);
    put_bits(b, 117, 1, 1);
    put_bits(b, 119, 1, 1);
    put_bits(b, 174, 14, 9728);
    put_bits(b, 198, 3, 1);
    put_bits(b, 201, 1, 1);
    for (unsigned i = 0; i < 8; i++) {
        ifx_wr(QRX_CONTEXT(i, LAN_RXQ), ld32(b + 4 * i));
    }
    ifx_wr(QRXFLXP_CNTXT(LAN_RXQ), 2 | 3 << 8 | 1 << 11);
    for (unsigned i = 0; i < LAN_RX_QLEN; i++) {
        st64(fake_mem(&ifx.h, LAN_RX_RING + i * 32), LAN_RX_BUFS + i * 2048);
    }
    lan_rx_tail = LAN_RX_QLEN - 8;
    ifx_wr(QRX_TAIL(LAN_RXQ), lan_rx_tail);
    ifx_wr(QINT_RQCTL(LAN_RXQ), E810_CTL_CAUSE_ENA | 7);
    ifx_wr(GLINT_DYN_CTL(7), GLINT_DYN_CTL_INTENA);
    ifx_wr(QRX_CTRL(LAN_RXQ), QRX_CTRL_QENA_REQ);
    /* Tx queue as Add Tx LAN Queues leaves it (fw_sched has its tests). */
    q->enabled = true;
    q->gen++;
    q->base = LAN_TX_RING;
    q->qlen = LAN_TX_QLEN;
    q->src_vsi = vsi;
    ifx_wr(QINT_TQCTL(LAN_TXQ), E810_CTL_CAUSE_ENA | 3);
    ifx_wr(GLINT_DYN_CTL(3), GLINT_DYN_CTL_INTENA);
    lan_tx_tail = 0;
}

/* 1..8 Tx descriptors from the input at the tail, then the doorbell. */
static inline void fuzz_lan_tx(FuzzIn *in)
{
    uint8_t b = in8(in);
    unsigned n = 1 + (b & 7);

    for (unsigned k = 0; k < n; k++) {
        uint8_t *d = fake_mem(&ifx.h, LAN_TX_RING + lan_tx_tail * 16);
        uint64_t q0 = in64(in), q1 = in64(in);

        if (b & 0x80) {
            /* A data buffer in RAM (filled by earlier memory ops). */
            q0 = LAN_TX_BUFS + (q0 & 0xFFFF);
        }
        st64(d, q0);
        st64(d + 8, q1);
        lan_tx_tail = (lan_tx_tail + 1) % LAN_TX_QLEN;
    }
    ifx_wr(QTX_COMM_DBELL(LAN_TXQ), (b & 0x40) ? in16(in) : lan_tx_tail);
}

/* Give Rx descriptors back (tail), sometimes with input-chosen buffers. */
static inline void fuzz_lan_rx(FuzzIn *in)
{
    uint8_t b = in8(in);
    unsigned n = 1 + (b & 15);

    for (unsigned k = 0; k < n; k++) {
        uint8_t *d = fake_mem(&ifx.h, LAN_RX_RING + lan_rx_tail * 32);

        memset(d, 0, 32);
        st64(d, (b & 0x80) ? fuzz_addr(in)
                           : LAN_RX_BUFS + lan_rx_tail * 2048);
        lan_rx_tail = (lan_rx_tail + 1) % LAN_RX_QLEN;
    }
    ifx_wr(QRX_TAIL(LAN_RXQ), (b & 0x40) ? in16(in) : lan_rx_tail);
}

/* Set up: returns false if the set-up itself failed (a harness bug). */
static inline bool fuzz_setup(unsigned scen, bool reenter)
{
    ifx_failures = 0;
    switch (scen) {
    case SCEN_IWARP_KERNEL:
    case SCEN_IWARP_USER:
        ifx_setup(scen == SCEN_IWARP_USER);
        break;
    case SCEN_LAN:
        aq_test_init(&ifx);
        lan_setup();
        break;
    default:
        aq_test_init(&ifx);
        break;
    }
    ifx.h.quiet = true;
    if (reenter) {
        ifx.h.bar0_core = &ifx.c;
        ifx.h.bar0_base = FUZZ_BAR0_BASE;
    }
    if (ifx_failures) {
        fprintf(stderr, "fuzz: set-up of scenario %u failed\n", scen);
        abort();
    }
    return true;
}

static inline void fuzz_teardown(void)
{
    ifx.h.bar0_core = NULL;
    ifx_teardown();
}

/* A guest address an input names: mostly RAM, sometimes BAR0. */
static inline uint64_t fuzz_addr(FuzzIn *in)
{
    uint8_t k = in8(in);
    uint32_t off = in32(in);

    switch (k & 3) {
    case 0:
    case 1:
        return FAKE_MEM_BASE + off % FAKE_MEM_SIZE;
    case 2:
        return FUZZ_BAR0_BASE + (off % E810_BAR0_SIZE & ~3u);
    default:
        return (uint64_t)off << 12 | k;     /* anywhere (fails) */
    }
}

/* Write fuzz bytes into guest RAM at an input-chosen place. */
static inline void fuzz_mem_write(FuzzIn *in)
{
    uint32_t off = in32(in) % FAKE_MEM_SIZE;
    size_t n = in8(in);
    uint8_t buf[256];

    if (n > FAKE_MEM_SIZE - off) {
        n = FAKE_MEM_SIZE - off;
    }
    inbuf(in, buf, n);
    memcpy(ifx.h.mem + off, buf, n);
}

/* Store a guest address (RAM or BAR0) into guest RAM: rings, contexts and
 * buffers the guest points the device at. */
static inline void fuzz_mem_pointer(FuzzIn *in)
{
    uint32_t off = (in32(in) % (FAKE_MEM_SIZE - 8)) & ~7u;
    uint64_t a = fuzz_addr(in);

    st64(ifx.h.mem + off, a);
}

/* A CQP WQE from the input at the next CQP SQ slot, then the doorbell. */
static inline void fuzz_cqp_wqe(FuzzIn *in)
{
    uint64_t q[8];

    for (int i = 0; i < 8; i++) {
        q[i] = in64(in);
    }
    /* Sometimes point the op's buffer/context address somewhere chosen. */
    if (q[7] & 1) {
        q[2] = fuzz_addr(in);
    }
    if (q[7] & 2) {
        q[4] = fuzz_addr(in);
    }
    cqp_ring_post(&ifx_cur->cqp, q, q[3] & ~(1ull << 63));
}

/* SQ WQE of QP 3 + (b & 1), 1..4 quanta from the input, doorbell. */
static inline void fuzz_sq_wqe(FuzzIn *in)
{
    uint8_t b = in8(in);
    unsigned i = b & 1, quanta = 1 + ((b >> 1) & 3), k;
    uint64_t q[4];
    uint8_t extra[96];

    for (k = 0; k < 4; k++) {
        q[k] = in64(in);
    }
    inbuf(in, extra, 32 * (quanta - 1));
    if (b & 0x10) {
        /* Use the QP's own MRs, as a well-formed WQE would. */
        q[1] = (q[1] & ~0xFFFFFFFFull) | STAG(i);
        q[0] = BUF_PA(i) + (q[0] & 0xFFFF);
        q[1] &= ~(0x7FFF0000ull << 32);
    }
    ifx_sq_post(i, q, q[3] & ~(1ull << 63), quanta, extra);
}

/* RQ WQE for QP 3 + (b & 1). */
static inline void fuzz_rq_wqe(FuzzIn *in)
{
    uint8_t b = in8(in);
    uint32_t len = in16(in);
    uint64_t to = BUF_PA(b & 1) + in16(in);

    if (b & 2) {
        to = fuzz_addr(in);
    }
    ifx_rq_post(b & 1, to, len);
}

static inline void fuzz_advance(FuzzIn *in)
{
    fake_host_advance(&ifx.h, (int64_t)in8(in) * 1000000 + 1);
}

/* An admin-queue command: descriptor (and a buffer) from the input. */
static inline void fuzz_aq_cmd(FuzzIn *in)
{
    unsigned i = ifx.atq_ntu;
    uint8_t *d = fake_mem(&ifx.h, ATQ_RING + i * 32);
    uint64_t buf = ATQ_BUFS + (uint64_t)i * 4096;

    inbuf(in, d, 32);
    if (d[0] & 0x10) {                  /* E810_AQ_FLAG_BUF, low byte */
        st32(d + 24, buf >> 32);
        st32(d + 28, (uint32_t)buf);
        inbuf(in, fake_mem(&ifx.h, buf), 128);
    }
    ifx.atq_ntu = (i + 1) % AQ_LEN;
    ifx_wr(PF_FW_ATQT, ifx.atq_ntu);
}

/* One frame from the input onto the wire side of the device. */
static inline void fuzz_frame_raw(FuzzIn *in)
{
    uint8_t f[9216];
    size_t n = in16(in) % sizeof(f);

    inbuf(in, f, n);
    if (n >= 12 && (f[0] & 1) == 0 && (f[0] & 2)) {
        memcpy(f, ifx_mac, 6);          /* often: to us */
    }
    e810_receive(&ifx.c, f, n);
}

#endif
