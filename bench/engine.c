/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/engine: the iWARP data path alone, without QEMU or guests.  Two
 * device cores in one process on the fake host, set up as irdma sets them
 * up (tests/unit/iwarp-fixture.c), wired back to back: every frame one
 * sends is handed to the other's e810_receive.  Device A's QP 3 moves
 * TOTAL bytes to device B's QP 4 as RDMA WRITE, then RDMA READ (A reads
 * B's memory), then SEND, in 64 KiB messages with up to 16 outstanding,
 * at MSS 1460 and 8960.  Prints GB/s and, per MiB moved, the frames, pure
 * ACKs, DMA calls and timer calls of both devices, and a host memcpy
 * figure from the same run; the last line is the best single-QP WRITE.
 *
 *   engine [TOTAL_MIB]      (default 1024)
 */
#include "iwarp-fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MSG         65536u
#define DEPTH       16
#define SQ_WQE      QSQ_QUANTA          /* one quantum per WQE here */

/* Frames in flight between the two devices, in order. */
typedef struct Wire {
    uint8_t *buf;
    size_t *len;
    unsigned head, cnt, cap;
    uint64_t frames, acks;
} Wire;

static IfxState dev_a = IFX_DEV_A;
static IfxState dev_b = IFX_DEV_B;
static Wire a_to_b, b_to_a;

#define FRAME_MAX   9216

static void wire_init(Wire *w)
{
    w->cap = 8192;
    w->buf = malloc((size_t)w->cap * FRAME_MAX);
    w->len = calloc(w->cap, sizeof(size_t));
    if (!w->buf || !w->len) {
        abort();
    }
}

static void wire_put(void *opaque, const void *frame, size_t len)
{
    Wire *w = opaque;
    unsigned i;

    if (w->cnt == w->cap || len > FRAME_MAX) {
        fprintf(stderr, "engine: wire full\n");
        abort();
    }
    i = (w->head + w->cnt++) % w->cap;
    memcpy(w->buf + (size_t)i * FRAME_MAX, frame, len);
    w->len[i] = len;
    w->frames++;
    /* Ethernet + IPv4 + TCP (+ timestamps) and no payload: a pure ACK. */
    if (len <= 14 + 20 + 32) {
        w->acks++;
    }
}

/* Deliver until both directions are quiet and no deferred work is due. */
static void pump(void)
{
    for (;;) {
        Wire *w;
        E810Core *dst;
        unsigned i;

        if (!a_to_b.cnt && !b_to_a.cnt) {
            if (!fake_host_run_bh(&dev_a.dev.h) &&
                !fake_host_run_bh(&dev_b.dev.h)) {
                return;
            }
            continue;
        }
        w = a_to_b.cnt ? &a_to_b : &b_to_a;
        dst = w == &a_to_b ? &dev_b.dev.c : &dev_a.dev.c;
        i = w->head;
        w->head = (w->head + 1) % w->cap;
        w->cnt--;
        e810_receive(dst, w->buf + (size_t)i * FRAME_MAX, w->len[i]);
    }
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void setup(uint16_t mss)
{
    IfxState *d[2] = { &dev_a, &dev_b };

    for (int i = 0; i < 2; i++) {
        d[i]->mss = mss;
        ifx_cur = d[i];
        ifx_failures = 0;
        ifx_setup(false);
        if (ifx_failures) {
            fprintf(stderr, "engine: set-up failed\n");
            exit(1);
        }
    }
    dev_a.dev.h.frame_cb = wire_put;
    dev_a.dev.h.frame_opaque = &a_to_b;
    dev_b.dev.h.frame_cb = wire_put;
    dev_b.dev.h.frame_opaque = &b_to_a;
    a_to_b.head = a_to_b.cnt = 0;
    b_to_a.head = b_to_a.cnt = 0;
    pump();
}

static void teardown(void)
{
    ifx_teardown_two(&dev_a, &dev_b);
}

/* Count (and check) the completions device @d has for its QP 3 SQ. */
static unsigned reap(IfxState *d, unsigned *rq_done)
{
    uint64_t cqe[4];
    unsigned n = 0;

    ifx_cur = d;
    while (ifx_cqe_next(cqe)) {
        if (cqe[3] & (1ull << 55)) {
            fprintf(stderr, "engine: error CQE 0x%016llx\n",
                    (unsigned long long)cqe[3]);
            exit(1);
        }
        if (cqe[3] & (1ull << 62)) {
            n++;
        } else if (rq_done) {
            (*rq_done)++;
        }
    }
    return n;
}

typedef struct Result {
    double gbs;
    double frames, acks, dma, timers;     /* per MiB */
} Result;

enum { OP_WRITE, OP_READ, OP_SEND };

static Result run(int op, uint16_t mss, uint64_t total)
{
    uint64_t posted = 0, done = 0, msgs = total / MSG;
    unsigned outstanding = 0, rq_posted = 0, rq_done = 0;
    uint64_t f0, a0, d0, t0n;
    double t0, t1;
    Result r;

    setup(mss);
    f0 = a_to_b.frames + b_to_a.frames;
    a0 = a_to_b.acks + b_to_a.acks;
    d0 = dev_a.dev.h.n_dma + dev_b.dev.h.n_dma;
    t0n = dev_a.dev.h.n_timer_mod + dev_b.dev.h.n_timer_mod;
    t0 = now_s();
    while (done < msgs) {
        while (outstanding < DEPTH && posted < msgs) {
            uint64_t q[4] = { 0 };
            uint64_t hdr;

            if (op == OP_SEND) {
                if (rq_posted - rq_done >= QRQ_WQES) {
                    break;
                }
                ifx_cur = &dev_b;
                ifx_rq_post(1, BUF_PA(1), MSG);
                rq_posted++;
            }
            ifx_cur = &dev_a;
            q[0] = BUF_PA(0);
            q[1] = (uint64_t)MSG << 32 | STAG(0);
            q[2] = BUF_PA(1);
            switch (op) {
            case OP_WRITE:
                hdr = 0x00ull << 32 | STAG(1);
                break;
            case OP_READ:
                hdr = 0x01ull << 32 | STAG(1);
                break;
            default:
                hdr = 0x03ull << 32;
                q[2] = 0;
                break;
            }
            ifx_sq_post(0, q, hdr | 1ull << 62, 1, NULL);
            posted++;
            outstanding++;
            pump();
        }
        pump();
        {
            unsigned n = reap(&dev_a, NULL);

            reap(&dev_b, &rq_done);
            if (!n && outstanding) {
                /* Nothing moved and nothing completed: let timers run. */
                fake_host_advance(&dev_a.dev.h, 1000000);
                fake_host_advance(&dev_b.dev.h, 1000000);
                pump();
                n = reap(&dev_a, NULL);
                reap(&dev_b, &rq_done);
            }
            done += n;
            outstanding -= n;
        }
    }
    t1 = now_s();
    r.gbs = (double)msgs * MSG / (t1 - t0) / 1e9;
    r.frames = (double)(a_to_b.frames + b_to_a.frames - f0) / (total >> 20);
    r.acks = (double)(a_to_b.acks + b_to_a.acks - a0) / (total >> 20);
    r.dma = (double)(dev_a.dev.h.n_dma + dev_b.dev.h.n_dma - d0) / (total >> 20);
    r.timers = (double)(dev_a.dev.h.n_timer_mod + dev_b.dev.h.n_timer_mod -
                        t0n) / (total >> 20);
    teardown();
    return r;
}

static volatile unsigned sink;

static double memcpy_gbs(void)
{
    size_t n = 256u << 20;
    uint8_t *a = malloc(n), *b = malloc(n);
    double t0, t1;

    if (!a || !b) {
        return 0;
    }
    memset(a, 1, n);
    memset(b, 2, n);
    t0 = now_s();
    for (int i = 0; i < 4; i++) {
        memcpy(i & 1 ? a : b, i & 1 ? b : a, n);
        a[i * 4096] ^= (uint8_t)i;      /* keep every copy observable */
    }
    t1 = now_s();
    sink = a[12345] + b[54321];
    free(a);
    free(b);
    return 4.0 * n / (t1 - t0) / 1e9;
}

int main(int argc, char **argv)
{
    uint64_t total = (uint64_t)(argc > 1 ? atoi(argv[1]) : 1024) << 20;
    static const uint16_t mss[] = { 1460, 8960 };
    static const char *const name[] = { "WRITE", "READ", "SEND" };
    double best = 0;

    wire_init(&a_to_b);
    wire_init(&b_to_a);
    printf("engine: %llu MiB per run, %u-byte messages, %d outstanding, one QP\n",
           (unsigned long long)(total >> 20), MSG, DEPTH);
    for (unsigned m = 0; m < 2; m++) {
        for (int op = OP_WRITE; op <= OP_SEND; op++) {
            Result r = run(op, mss[m], total);

            printf("%-5s mss %4u: %6.3f GB/s; per MiB: %6.0f frames, %6.0f acks, "
                   "%6.0f dma, %5.1f timer\n", name[op], mss[m], r.gbs, r.frames,
                   r.acks, r.dma, r.timers);
            if (op == OP_WRITE && r.gbs > best) {
                best = r.gbs;
            }
            fflush(stdout);
        }
    }
    printf("host memcpy (256 MiB buffers): %.2f GB/s\n", memcpy_gbs());
    printf("best single-QP WRITE: %.3f GB/s\n", best);
    return 0;
}
