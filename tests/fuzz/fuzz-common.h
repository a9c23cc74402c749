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
enum { SCEN_BARE, SCEN_IWARP_KERNEL, SCEN_IWARP_USER, SCEN_AQ };

/* Set up: returns false if the set-up itself failed (a harness bug). */
static inline bool fuzz_setup(unsigned scen, bool reenter)
{
    ifx_failures = 0;
    switch (scen) {
    case SCEN_IWARP_KERNEL:
    case SCEN_IWARP_USER:
        ifx_setup(scen == SCEN_IWARP_USER);
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
    uint64_t pa = SQ_PA + 64ull * ifx_sq_head;

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
    if (ifx_sq_head == 0) {
        ifx_sq_pol ^= 1;
    }
    q[3] = (q[3] & ~(1ull << 63)) | (uint64_t)ifx_sq_pol << 63;
    for (int i = 0; i < 8; i++) {
        ifx_set64(pa + 8 * i, q[i]);
    }
    ifx_sq_head = (ifx_sq_head + 1) % CQP_SQ_SIZE;
    ifx_wr(PFPE_CQPDB, ifx_sq_head);
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
