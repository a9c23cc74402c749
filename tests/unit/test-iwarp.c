/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iWARP engine unit tests: CRC32c vectors, MPA framing and setup frames,
 * and two engines wired back to back through a fake link that drops,
 * duplicates and reorders (fixed seed): Sends, Writes and Reads arrive
 * intact and in order, errors end in Terminate, close and reset work,
 * and garbage from the wire does not crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "net/net.h"

#include <time.h>
#include "iwarp/mpa.h"
#include "iwarp/iwarp.h"
#include "check.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

/* ---- CRC32c and MPA ---------------------------------------------------- */

static void test_crc32c(void)
{
    uint8_t b[32];
    int i;

    CHECK_EQ(e810_crc32c("123456789", 9), 0xE3069283);
    /* RFC 3720 appendix B.4 */
    memset(b, 0, sizeof(b));
    CHECK_EQ(e810_crc32c(b, 32), 0x8A9136AA);
    memset(b, 0xFF, sizeof(b));
    CHECK_EQ(e810_crc32c(b, 32), 0x62A8AB43);
    for (i = 0; i < 32; i++) {
        b[i] = i;
    }
    CHECK_EQ(e810_crc32c(b, 32), 0x46DD794E);
    for (i = 0; i < 32; i++) {
        b[i] = 31 - i;
    }
    CHECK_EQ(e810_crc32c(b, 32), 0x113FDB5C);
    /* Incremental == one shot */
    CHECK_EQ(~e810_crc32c_update(e810_crc32c_update(~0u, b, 10), b + 10, 22),
             0x113FDB5C);
}

/* The CPU instruction and the tables agree on every length and alignment;
 * prints both speeds for the record. */
static void test_crc32c_impls(void)
{
    static uint8_t b[1 << 16];
    uint32_t seed = 1;
    struct timespec t0, t1;
    double sw_s, hw_s;
    uint32_t x = 0;

    for (size_t i = 0; i < sizeof(b); i++) {
        seed = seed * 1103515245 + 12345;
        b[i] = (uint8_t)(seed >> 16);
    }
    for (size_t off = 0; off < 9; off++) {
        for (size_t len = 0; len < 300; len += 7) {
            CHECK_EQ(e810_crc32c_update(~0u, b + off, len),
                     e810_crc32c_update_sw(~0u, b + off, len));
        }
    }
    CHECK_EQ(e810_crc32c_update_sw(~0u, b, sizeof(b)),
             e810_crc32c_update(~0u, b, sizeof(b)));
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int k = 0; k < 64; k++) {
        x ^= e810_crc32c_update_sw(~0u, b, sizeof(b));
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    sw_s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int k = 0; k < 64; k++) {
        x ^= e810_crc32c_update(~0u, b, sizeof(b));
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    hw_s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("# crc32c: tables %.2f GB/s, %s %.2f GB/s (x %08x; unoptimised "
           "ASan build)\n", 64.0 * sizeof(b) / sw_s / 1e9,
           e810_crc32c_hw() ? "sse4.2" : "tables", 64.0 * sizeof(b) / hw_s / 1e9,
           x);
}

static void test_mpa_fpdu(void)
{
    uint8_t f[64];
    size_t fl, ul, n, u;

    for (u = 0; u < 20; u++) {
        memset(f, 0xEE, sizeof(f));
        memset(f + 2, 0x5A, u);
        n = iw_mpa_seal(f, u);
        CHECK_EQ(n, iw_mpa_fpdu_len(u));
        CHECK_EQ(n % 4, 0);
        CHECK_EQ(f[0] << 8 | f[1], u);
        CHECK_EQ(iw_mpa_check(f, n, 0, &fl, &ul), IW_MPA_OK);
        CHECK_EQ(fl, n);
        CHECK_EQ(ul, u);
        CHECK_EQ(iw_mpa_check(f, n - 1, 0, &fl, &ul), IW_MPA_MORE);
        /* CRC covers the pad */
        if ((u + 2) % 4) {
            f[2 + u] ^= 1;
            CHECK_EQ(iw_mpa_check(f, n, 0, &fl, &ul), IW_MPA_BAD_CRC);
            f[2 + u] ^= 1;
        }
        f[n - 1] ^= 0x80;
        CHECK_EQ(iw_mpa_check(f, n, 0, &fl, &ul), IW_MPA_BAD_CRC);
    }
    /* CRC byte order: LE image of the register (as siw/irdma). */
    f[0] = 0;
    f[1] = 2;
    f[2] = 0x41;
    f[3] = 0x40;
    n = iw_mpa_seal(f, 2);
    CHECK_EQ(n, 8);
    CHECK_EQ((uint32_t)(f[4] | f[5] << 8 | f[6] << 16 | (uint32_t)f[7] << 24),
             e810_crc32c(f, 4));
    CHECK_EQ(iw_mpa_max_ulpdu(1460), 1454);
    CHECK_EQ(iw_mpa_max_ulpdu(1461), 1454);
    CHECK_EQ(iw_mpa_max_ulpdu(5), 0);
    /* A window of 6 or 7 bytes holds no FPDU (it once wrapped to 64 KiB,
     * fuzz regress/mmio/iwarp-tx-stack-overflow); nothing ever exceeds
     * the room it was given. */
    CHECK_EQ(iw_mpa_max_ulpdu(6), 0);
    CHECK_EQ(iw_mpa_max_ulpdu(7), 0);
    CHECK_EQ(iw_mpa_max_ulpdu(8), 2);
    for (size_t b = 0; b < 9200; b++) {
        size_t u = iw_mpa_max_ulpdu(b);

        if (u && iw_mpa_fpdu_len(u) > b) {
            CHECK_EQ(b, 0);         /* names the first room that fails */
            break;
        }
    }
    CHECK(iw_mpa_fpdu_len(iw_mpa_max_ulpdu(1460)) <= 1460);
}

static void test_mpa_frames(void)
{
    /* An irdma-style v2 request: CRC|V2, rev 2, RTR IRD|P2P, ORD|W0|R0. */
    static const uint8_t req[] = {
        'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'q', ' ', 'F', 'r', 'a',
        'm', 'e', 0x50, 2, 0, 7, 0x80, 0x40, 0xC0, 0x20, 'a', 'b', 'c',
    };
    IwMpaFrame f, g;
    uint8_t out[600];
    size_t n;

    CHECK_EQ(iw_mpa_parse(req, sizeof(req), &f), sizeof(req));
    CHECK(!f.reply && f.crc && !f.markers && !f.reject && f.v2);
    CHECK_EQ(f.rev, 2);
    CHECK_EQ(f.ird, 0x40);
    CHECK_EQ(f.ord, 0x20);
    CHECK(f.p2p && !f.send0 && f.write0 && f.read0);
    CHECK_EQ(f.pdata_len, 3);
    CHECK(!memcmp(f.pdata, "abc", 3));
    CHECK_EQ(iw_mpa_parse(req, sizeof(req) - 1, &f), 0);
    CHECK_EQ(iw_mpa_parse(req, 10, &f), 0);
    /* Reply with only READ0 chosen */
    memset(&g, 0, sizeof(g));
    g.reply = true;
    g.crc = true;
    g.v2 = true;
    g.ird = 16;
    g.ord = 16;
    g.p2p = true;
    g.read0 = true;
    g.pdata = (const uint8_t *)"xy";
    g.pdata_len = 2;
    n = iw_mpa_build(out, &g);
    CHECK_EQ(n, 26);
    CHECK(!memcmp(out, "MPA ID Rep Frame", 16));
    CHECK_EQ(out[16], 0x50);
    CHECK_EQ(out[17], 2);
    CHECK_EQ(out[19], 6);
    CHECK_EQ(out[20], 0x80);
    CHECK_EQ(out[22], 0x40);
    CHECK_EQ(iw_mpa_parse(out, n, &f), (int)n);
    CHECK(f.reply && f.read0 && !f.write0 && f.ird == 16 && f.pdata_len == 2);
    /* v1 */
    memset(&g, 0, sizeof(g));
    g.crc = true;
    g.rev = 1;
    n = iw_mpa_build(out, &g);
    CHECK_EQ(n, 20);
    CHECK_EQ(iw_mpa_parse(out, n, &f), 20);
    CHECK(!f.v2 && f.rev == 1 && f.crc);
    /* Bad key, bad revision, oversize private data */
    out[0] = 'X';
    CHECK_EQ(iw_mpa_parse(out, n, &f), -1);
    out[0] = 'M';
    out[17] = 3;
    CHECK_EQ(iw_mpa_parse(out, n, &f), -1);
    out[17] = 1;
    out[18] = 0x10;
    CHECK_EQ(iw_mpa_parse(out, n, &f), -1);
}

/* ---- two engines and a fake link -------------------------------------- */

#define MEM_SIZE    (4u << 20)
#define STAG_MEM    0x00010203u     /* the one valid STag: all of mem */
#define STAG_RO     0x00020304u     /* read only */
#define MAX_DONE    4096
#define MAX_FRAMES  200000

typedef struct Node {
    IwConn c;
    int id;
    int64_t deadline;
    uint8_t *mem;
    /* Receive: messages land back to back from recv_base. */
    uint64_t recv_base, recv_off, msg_start;
    uint32_t msgs, msg_len[MAX_DONE];
    uint64_t done_cookie[MAX_DONE];
    int done_status[MAX_DONE];
    unsigned ndone;
    unsigned events[16];
    uint32_t last_term;
    uint32_t fail_term;         /* IW_EV_REXMIT_FAILED's code */
    bool verbose;
    /* The guest took the memory away: gather / read_fetch fail. */
    bool gather_gone, fetch_gone;
    uint64_t gather_bad_from;   /* gather fails from this offset (0: no) */
    bool done_unacked[MAX_DONE];    /* bytes in flight at a completion */
} Node;

typedef struct Frame {
    int64_t t;
    uint64_t n;             /* order sent: frames due together keep it */
    int dst;
    size_t len;
    uint8_t *data;
} Frame;

static Node nodes[2];
static int64_t now_ns;
static Frame *frames;
static unsigned nframes;
static unsigned rng = 1;
static unsigned p_drop, p_dup, p_reorder;   /* per mille */
static bool link_down;
static uint64_t link_frames;
/* Deterministic loss: the data segments (payload > 0) A sends are
 * numbered from 1; those listed are dropped once each. */
static unsigned a_data_segs;
static unsigned drop_nth[8];
static unsigned link_drops;
static int64_t pair_rto_min;        /* IwConnParams.rto_min_ns for both */
static uint32_t pair_wnd;           /* both windows, scale 7 (0: 256 KiB) */
/* B's data segments, numbered from 1 the same way; one may be dropped. */
static unsigned b_data_segs, b_drop_nth;
/* Capture of every data segment sent (both ways) for comparison. */
typedef struct Cap {
    int src;
    uint32_t seq;
    uint32_t len;
    uint8_t *data;
} Cap;
static Cap *caps;
static unsigned ncaps;
static bool capture;
static uint32_t a_max_flight;       /* A's snd_max - snd_una seen */
static int64_t a_stall_until;       /* A's frames held until then */

static unsigned rnd(void)
{
    rng = rng * 1103515245u + 12345u;
    return (rng >> 16) & 0x7FFF;
}

static void link_push(int dst, const uint8_t *f, size_t len, int64_t delay)
{
    Frame *fr;

    if (nframes >= MAX_FRAMES) {
        return;
    }
    fr = &frames[nframes++];
    fr->t = now_ns + delay;
    fr->n = link_frames;
    fr->dst = dst;
    fr->len = len;
    fr->data = malloc(len);
    memcpy(fr->data, f, len);
}

static void n_frame_out(void *o, const uint8_t *f, size_t len)
{
    Node *n = o;
    int64_t delay = 10000;

    link_frames++;
    if (n->id == 0 && n->c.snd_max - n->c.snd_una > a_max_flight) {
        a_max_flight = n->c.snd_max - n->c.snd_una;
    }
    if (capture && len >= 14 + 40 && (f[14 + 2] << 8 | f[14 + 3]) > 40 &&
        ncaps < MAX_FRAMES) {
        Cap *k = &caps[ncaps++];

        k->src = n->id;
        k->seq = (uint32_t)f[38] << 24 | f[39] << 16 | f[40] << 8 | f[41];
        k->len = (uint32_t)(len - 14 - 40);
        k->data = malloc(k->len);
        memcpy(k->data, f + 14 + 40, k->len);
    }
    if (n->id == 1 && len >= 14 + 40 && (f[14 + 2] << 8 | f[14 + 3]) > 40 &&
        ++b_data_segs == b_drop_nth) {
        link_drops++;
        return;
    }
    if (n->id == 0 && len >= 14 + 40 && (f[14 + 2] << 8 | f[14 + 3]) > 40) {
        unsigned k = ++a_data_segs, i;

        for (i = 0; i < 8; i++) {
            if (drop_nth[i] && drop_nth[i] == k) {
                link_drops++;
                return;
            }
        }
    }
    if (link_down || rnd() % 1000 < p_drop) {
        link_drops++;
        return;
    }
    if (rnd() % 1000 < p_reorder) {
        delay += 50000 + rnd() % 100000;
    }
    if (n->id == 0 && now_ns < a_stall_until) {
        delay += a_stall_until - now_ns;
    }
    link_push(1 - n->id, f, len, delay);
    if (rnd() % 1000 < p_dup) {
        link_push(1 - n->id, f, len, delay + 20000);
    }
}

static int64_t n_now(void *o)
{
    return now_ns;
}

static void n_timer(void *o, int64_t d)
{
    ((Node *)o)->deadline = d;
}

static int n_gather(void *o, uint64_t cookie, uint64_t off, uint8_t *buf,
                    size_t len)
{
    Node *n = o;
    uint64_t a = (cookie & 0xFFFFFFFF) + off;

    if (n->gather_gone || (n->gather_bad_from && off >= n->gather_bad_from)) {
        return IW_T_RDMAP_INV_STAG;
    }
    if (a + len > MEM_SIZE) {
        return IW_T_RDMAP_BOUNDS;
    }
    memcpy(buf, n->mem + a, len);
    return 0;
}

static int check_stag(uint32_t stag, uint64_t to, size_t len, bool write)
{
    if (stag != STAG_MEM && stag != STAG_RO) {
        return write ? IW_T_DDP_T_INV_STAG : IW_T_RDMAP_INV_STAG;
    }
    if (write && stag == STAG_RO) {
        return IW_T_RDMAP_ACCESS;
    }
    if (to > MEM_SIZE || len > MEM_SIZE - to) {
        return write ? IW_T_DDP_T_BOUNDS : IW_T_RDMAP_BOUNDS;
    }
    return 0;
}

static int n_place(void *o, uint32_t stag, uint64_t to, const uint8_t *d,
                   size_t len, bool rr, uint64_t cookie, uint64_t sink_to)
{
    Node *n = o;
    int e = check_stag(stag, to, len, true);

    if (e) {
        return e;
    }
    memcpy(n->mem + to, d, len);
    return 0;
}

static int n_recv(void *o, const IwRecvSeg *s)
{
    Node *n = o;

    if (s->first) {
        n->msg_start = n->recv_off;
    }
    if (n->msg_start + s->mo + s->len > MEM_SIZE) {
        return IW_T_DDP_U_TOO_LONG;
    }
    memcpy(n->mem + n->msg_start + s->mo, s->data, s->len);
    if (s->last) {
        n->recv_off = n->msg_start + s->mo + s->len;
        if (n->msgs < MAX_DONE) {
            n->msg_len[n->msgs] = (uint32_t)(n->recv_off - n->msg_start);
        }
        n->msgs++;
    }
    return 0;
}

static int n_read_check(void *o, uint32_t stag, uint64_t to, uint32_t len)
{
    return check_stag(stag, to, len, false);
}

static int n_read_fetch(void *o, uint32_t stag, uint64_t to, uint8_t *buf,
                        size_t len)
{
    Node *n = o;

    if (n->fetch_gone) {
        return IW_T_RDMAP_INV_STAG;
    }
    if (to > MEM_SIZE || len > MEM_SIZE - to) {
        return IW_T_RDMAP_BOUNDS;
    }
    memcpy(buf, n->mem + to, len);
    return 0;
}

static void n_done(void *o, uint64_t cookie, int status)
{
    Node *n = o;

    if (n->ndone < MAX_DONE) {
        n->done_cookie[n->ndone] = cookie;
        n->done_status[n->ndone] = status;
        n->done_unacked[n->ndone] = n->c.snd_una != n->c.snd_max;
    }
    n->ndone++;
}

static void n_event(void *o, IwEvent ev, uint32_t term, const uint8_t *d,
                    size_t len)
{
    Node *n = o;

    n->events[ev]++;
    if (ev == IW_EV_ERROR) {
        n->last_term = term;
    }
    if (ev == IW_EV_REXMIT_FAILED) {
        n->fail_term = term;
    }
}

static const IwOps node_ops = {
    .frame_out = n_frame_out, .now = n_now, .timer = n_timer,
    .gather = n_gather, .place = n_place, .recv = n_recv,
    .read_check = n_read_check, .read_fetch = n_read_fetch,
    .done = n_done, .event = n_event,
};

static void setup_pair(unsigned drop, unsigned dup, unsigned reorder,
                       uint16_t mss)
{
    static const uint8_t mac[2][6] = { { 2, 0, 0, 0, 0, 1 },
                                       { 2, 0, 0, 0, 0, 2 } };
    static const uint8_t ip[2][4] = { { 10, 0, 0, 1 }, { 10, 0, 0, 2 } };
    int i;

    rng = 12345;
    now_ns = 0;
    link_down = false;
    a_data_segs = 0;
    link_drops = 0;
    memset(drop_nth, 0, sizeof(drop_nth));
    b_data_segs = b_drop_nth = 0;
    a_max_flight = 0;
    a_stall_until = 0;
    p_drop = drop;
    p_dup = dup;
    p_reorder = reorder;
    if (!frames) {
        frames = calloc(MAX_FRAMES, sizeof(*frames));
    }
    for (i = 0; i < 2; i++) {
        Node *n = &nodes[i];
        IwConnParams p = { 0 };
        uint8_t *mem = n->mem ? n->mem : malloc(MEM_SIZE);

        memset(n, 0, sizeof(*n));
        n->mem = mem;
        memset(n->mem, 0, MEM_SIZE);
        n->id = i;
        n->deadline = -1;
        n->recv_base = n->recv_off = 2u << 20;
        p.ipv4 = true;
        memcpy(p.lmac, mac[i], 6);
        memcpy(p.rmac, mac[1 - i], 6);
        memcpy(p.lip, ip[i], 4);
        memcpy(p.rip, ip[1 - i], 4);
        p.lport = i ? 4791 : 33000;
        p.rport = i ? 33000 : 4791;
        p.ttl = 64;
        p.snd_nxt = p.snd_una = i ? 0xFFFFF000u : 1000;   /* wraps */
        p.rcv_nxt = i ? 1000 : 0xFFFFF000u;
        p.snd_wnd = pair_wnd ? pair_wnd : 0x3FFFC;
        p.rcv_wnd = pair_wnd ? pair_wnd : 0x3FFFC;
        p.snd_scale = p.rcv_scale = pair_wnd ? 7 : 2;
        p.mss = mss;
        p.ird = p.ord = 16;
        p.rd_ok = p.wr_ok = true;
        p.auto_terminate = true;
        p.rto_min_ns = pair_rto_min;
        iw_conn_init(&n->c, &p, &node_ops, n);
    }
}

static void teardown_pair(void)
{
    unsigned i;

    for (i = 0; i < nframes; i++) {
        free(frames[i].data);
    }
    nframes = 0;
    for (i = 0; i < ncaps; i++) {
        free(caps[i].data);
    }
    ncaps = 0;
    capture = false;
    iw_conn_destroy(&nodes[0].c);
    iw_conn_destroy(&nodes[1].c);
}

/* Run the link until nothing is in flight and no timer is due within
 * @horizon ns. */
static void run(int64_t horizon)
{
    int64_t end = now_ns + horizon;

    for (;;) {
        int64_t t = -1;
        unsigned i, best = 0;
        int which = -1;

        for (i = 0; i < nframes; i++) {
            if (t < 0 || frames[i].t < t ||
                (frames[i].t == t && frames[i].n < frames[best].n)) {
                t = frames[i].t;
                best = i;
            }
        }
        for (i = 0; i < 2; i++) {
            if (nodes[i].deadline >= 0 && (t < 0 || nodes[i].deadline < t)) {
                t = nodes[i].deadline;
                which = (int)i;
            }
        }
        if (t < 0 || t > end) {
            now_ns = end;
            return;
        }
        if (t > now_ns) {
            now_ns = t;
        }
        if (which >= 0) {
            nodes[which].deadline = -1;
            iw_timer(&nodes[which].c);
        } else {
            Frame f = frames[best];

            frames[best] = frames[--nframes];
            iw_input(&nodes[f.dst].c, f.data, f.len);
            free(f.data);
        }
    }
}

static void fill(Node *n, uint64_t off, size_t len, unsigned seed)
{
    size_t i;

    for (i = 0; i < len; i++) {
        n->mem[off + i] = (uint8_t)(seed + i * 7 + (i >> 8));
    }
}

static void check_link(unsigned drop, unsigned dup, unsigned reorder,
                       uint16_t mss)
{
    Node *a = &nodes[0], *b = &nodes[1];
    uint64_t src = 0, wsrc = 1u << 20, total = 0;
    unsigned i, nsend = 60;
    uint32_t sizes[60];

    setup_pair(drop, dup, reorder, mss);
    fill(a, 0, 1u << 20, 3);
    fill(a, wsrc, 1u << 20, 99);
    for (i = 0; i < nsend; i++) {
        sizes[i] = i == 0 ? 0 : i == 1 ? 1 : (rnd() * 7 + i) % 20000;
        CHECK_EQ(iw_post_send(&a->c, i % 3 == 2 ? IW_OP_SEND_SE : IW_OP_SEND,
                              0, sizes[i], src + total), 0);
        total += sizes[i];
    }
    /* A Write of 512 KiB to B at 3 MiB */
    CHECK_EQ(iw_post_write(&a->c, STAG_MEM, 3u << 20, 512u << 10,
                           wsrc), 0);
    run(60ll * 1000 * 1000 * 1000);
    CHECK_EQ(b->msgs, nsend);
    for (i = 0; i < nsend && i < b->msgs; i++) {
        CHECK_EQ(b->msg_len[i], sizes[i]);
    }
    CHECK(!memcmp(b->mem + b->recv_base, a->mem, total));
    CHECK(!memcmp(b->mem + (3u << 20), a->mem + wsrc, 512u << 10));
    CHECK_EQ(a->ndone, nsend + 1);
    for (i = 0; i < a->ndone && i < MAX_DONE; i++) {
        CHECK_EQ(a->done_status[i], 0);
    }
    CHECK_EQ(a->events[IW_EV_ERROR] + b->events[IW_EV_ERROR], 0);
    CHECK(iw_tx_idle(&a->c));
    if (drop) {
        CHECK(a->c.stats.rexmits > 0);
        CHECK(b->c.stats.ooo_queued > 0);
    }
    teardown_pair();
}

static void test_clean_link(void)
{
    check_link(0, 0, 0, 1460);
}

static void test_lossy_link(void)
{
    check_link(50, 20, 50, 1460);
    check_link(100, 50, 100, 8960);
    check_link(30, 0, 0, 536);
}

static void test_read(void)
{
    Node *a = &nodes[0], *b = &nodes[1];
    unsigned i;

    setup_pair(40, 10, 40, 1460);
    fill(b, 0, 1u << 20, 17);
    /* RTR: zero-length read with bogus STags. */
    CHECK_EQ(iw_post_read(&a->c, 0xabcd, 0, 0, 0x1234, 0, 77), 0);
    for (i = 0; i < 8; i++) {
        CHECK_EQ(iw_post_read(&a->c, STAG_MEM, (1u << 20) + i * 100000,
                              100000, i & 1 ? STAG_RO : STAG_MEM, i * 100000,
                              100 + i), 0);
    }
    /* A Send after the reads */
    fill(a, 0x300000, 1000, 5);
    CHECK_EQ(iw_post_send(&a->c, IW_OP_SEND, 0, 1000, 0x300000), 0);
    run(60ll * 1000 * 1000 * 1000);
    CHECK_EQ(a->ndone, 10);
    CHECK_EQ(a->done_cookie[0], 77);
    for (i = 0; i < a->ndone && i < 10; i++) {
        CHECK_EQ(a->done_status[i], 0);
    }
    CHECK(!memcmp(a->mem + (1u << 20), b->mem, 800000));
    CHECK_EQ(b->msgs, 1);
    CHECK_EQ(a->c.ord_used, 0);
    CHECK_EQ(b->events[IW_EV_FIRST_FPDU], 1);
    /* ORD limit: 16 outstanding, the 17th is refused. */
    link_down = true;
    for (i = 0; i < 16; i++) {
        CHECK_EQ(iw_post_read(&a->c, STAG_MEM, 0, 10, STAG_MEM, 0, i), 0);
    }
    CHECK_EQ(iw_post_read(&a->c, STAG_MEM, 0, 10, STAG_MEM, 0, 16), -1);
    teardown_pair();
}

static void test_errors(void)
{
    Node *a = &nodes[0], *b = &nodes[1];

    /* Write to an invalid STag: B reports, sends Terminate; A gets it. */
    setup_pair(0, 0, 0, 1460);
    CHECK_EQ(iw_post_write(&a->c, 0x999999, 0, 100, 0), 0);
    run(1000ll * 1000 * 1000);
    CHECK_EQ(b->events[IW_EV_ERROR], 1);
    CHECK_EQ(b->last_term, IW_T_DDP_T_INV_STAG);
    CHECK_EQ(b->events[IW_EV_TERMINATE_SENT], 1);
    CHECK_EQ(a->events[IW_EV_TERMINATE_RCVD], 1);
    teardown_pair();

    /* Write to a read-only region, and a read from a bad STag. */
    setup_pair(0, 0, 0, 1460);
    CHECK_EQ(iw_post_write(&a->c, STAG_RO, 0, 100, 0), 0);
    run(1000ll * 1000 * 1000);
    CHECK_EQ(b->last_term, IW_T_RDMAP_ACCESS);
    teardown_pair();
    setup_pair(0, 0, 0, 1460);
    CHECK_EQ(iw_post_read(&a->c, STAG_MEM, 0, 100, 0x4242, 0, 5), 0);
    run(1000ll * 1000 * 1000);
    CHECK_EQ(b->last_term, IW_T_RDMAP_INV_STAG);
    CHECK_EQ(a->events[IW_EV_TERMINATE_RCVD], 1);
    teardown_pair();

    /* Writes refused by the QP (WRRDRSPOK clear). */
    setup_pair(0, 0, 0, 1460);
    b->c.p.wr_ok = false;
    CHECK_EQ(iw_post_write(&a->c, STAG_MEM, 0, 100, 0), 0);
    run(1000ll * 1000 * 1000);
    CHECK_EQ(b->last_term, IW_T_RDMAP_ACCESS);
    teardown_pair();

    /* Send overflowing the receiver's buffer: too long. */
    setup_pair(0, 0, 0, 1460);
    b->recv_off = MEM_SIZE - 10;
    CHECK_EQ(iw_post_send(&a->c, IW_OP_SEND, 0, 100, 0), 0);
    run(1000ll * 1000 * 1000);
    CHECK_EQ(b->last_term, IW_T_DDP_U_TOO_LONG);
    teardown_pair();
}

/* Build a segment from A to B carrying @payload at A's snd_max. */
static void inject(const uint8_t *payload, size_t len)
{
    uint8_t f[2000];
    uint8_t *ip = f + 14, *th = ip + 20;
    uint32_t sum = 0;
    size_t i;

    memcpy(f, nodes[1].c.p.lmac, 6);
    memcpy(f + 6, nodes[0].c.p.lmac, 6);
    f[12] = 8;
    f[13] = 0;
    memset(ip, 0, 20);
    ip[0] = 0x45;
    ip[2] = (uint8_t)((40 + len) >> 8);
    ip[3] = (uint8_t)(40 + len);
    ip[8] = 64;
    ip[9] = 6;
    memcpy(ip + 12, nodes[0].c.p.lip, 4);
    memcpy(ip + 16, nodes[1].c.p.lip, 4);
    for (i = 0; i < 20; i += 2) {
        sum += ip[i] << 8 | ip[i + 1];
    }
    while (sum >> 16) {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    ip[10] = (uint8_t)(~sum >> 8);
    ip[11] = (uint8_t)~sum;
    memset(th, 0, 20);
    th[0] = 33000 >> 8;
    th[1] = 33000 & 0xFF;
    th[2] = 4791 >> 8;
    th[3] = 4791 & 0xFF;
    th[4] = nodes[0].c.snd_max >> 24;
    th[5] = nodes[0].c.snd_max >> 16;
    th[6] = nodes[0].c.snd_max >> 8;
    th[7] = (uint8_t)nodes[0].c.snd_max;
    th[8] = nodes[0].c.rcv_nxt >> 24;
    th[9] = nodes[0].c.rcv_nxt >> 16;
    th[10] = nodes[0].c.rcv_nxt >> 8;
    th[11] = (uint8_t)nodes[0].c.rcv_nxt;
    th[12] = 0x50;
    th[13] = 0x18;
    th[14] = 0xFF;
    th[15] = 0xFF;
    memcpy(th + 20, payload, len);
    sum = 0;
    for (i = 0; i < 8; i++) {
        sum += (ip + 12)[i & ~1u] << ((i & 1) ? 0 : 8) & 0xFFFF;
    }
    sum = 0;
    for (i = 12; i < 20; i += 2) {
        sum += ip[i] << 8 | ip[i + 1];
    }
    sum += 6 + 20 + len;
    for (i = 0; i < 20 + len; i += 2) {
        sum += th[i] << 8 | (i + 1 < 20 + len ? th[i + 1] : 0);
    }
    while (sum >> 16) {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    th[16] = (uint8_t)(~sum >> 8);
    th[17] = (uint8_t)~sum;
    iw_input(&nodes[1].c, f, 14 + 40 + len);
}

static void test_malformed(void)
{
    Node *b = &nodes[1];
    uint8_t p[1500];
    unsigned round, i;

    /* Bad CRC */
    setup_pair(0, 0, 0, 1460);
    memset(p, 0, sizeof(p));
    p[2] = 0x41;
    p[3] = 0x43;
    iw_mpa_seal(p, 18);
    p[22] ^= 1;
    inject(p, 24);
    CHECK_EQ(b->events[IW_EV_ERROR], 1);
    CHECK_EQ(b->last_term, IW_T_MPA_CRC);
    CHECK_EQ(b->c.stats.crc_errors, 1);
    teardown_pair();

    /* Bad DDP version, bad RDMAP version, bad QN, MSN gap, unknown op. */
    {
        static const struct { uint8_t c0, c1; uint32_t qn, msn, term; } t[] = {
            { 0x42, 0x43, 0, 1, IW_T_DDP_U_VERSION },
            { 0x41, 0x83, 0, 1, IW_T_RDMAP_BAD_VERSION },
            { 0x41, 0x43, 1, 1, IW_T_DDP_U_INV_QN },
            { 0x41, 0x43, 0, 5, IW_T_DDP_U_MSN_RANGE },
            { 0x41, 0x4C, 0, 1, IW_T_RDMAP_UNEXP_OP },
            { 0xC1, 0x42, 0, 1, IW_T_RDMAP_UNEXP_OP },  /* stray RResp */
        };
        for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
            setup_pair(0, 0, 0, 1460);
            memset(p, 0, 64);
            p[2] = t[i].c0;
            p[3] = t[i].c1;
            p[8 + 3] = (uint8_t)t[i].qn;
            p[12 + 3] = (uint8_t)t[i].msn;
            inject(p, iw_mpa_seal(p, 20));
            CHECK_EQ(b->events[IW_EV_ERROR], 1);
            CHECK_EQ(b->last_term, t[i].term);
            teardown_pair();
        }
    }

    /* Random garbage: sealed FPDUs with random DDP/RDMAP headers, raw
     * random TCP payload, random frames: no crash, no hang. */
    for (round = 0; round < 300; round++) {
        size_t len;

        setup_pair(0, 0, 0, 1460);
        rng = round * 7919 + 1;
        len = 2 + rnd() % 200;
        for (i = 0; i < len + 2; i++) {
            p[i] = (uint8_t)rnd();
        }
        if (round % 3 == 0) {
            p[2] = (p[2] & 0xC0) | 1;
            p[3] = (p[3] & 0x0F) | 0x40;
        }
        if (round % 2) {
            len = iw_mpa_seal(p, len);
        }
        inject(p, len);
        for (i = 0; i < len; i++) {
            p[i] = (uint8_t)rnd();
        }
        iw_input(&b->c, p, len);
        run(100ll * 1000 * 1000);
        teardown_pair();
    }
}

static void test_close(void)
{
    Node *a = &nodes[0], *b = &nodes[1];

    setup_pair(50, 0, 0, 1460);
    fill(a, 0, 50000, 1);
    CHECK_EQ(iw_post_send(&a->c, IW_OP_SEND, 0, 50000, 0), 0);
    iw_close(&a->c);
    run(10ll * 1000 * 1000 * 1000);
    CHECK_EQ(b->msgs, 1);
    CHECK_EQ(b->events[IW_EV_FIN_RCVD], 1);
    CHECK_EQ(b->c.state, IW_TCP_CLOSE_WAIT);
    CHECK_EQ(a->c.state, IW_TCP_FIN_WAIT_2);
    iw_close(&b->c);
    run(100ll * 1000 * 1000);
    CHECK_EQ(a->events[IW_EV_CLOSE_COMPLETE], 1);
    CHECK_EQ(b->events[IW_EV_CLOSE_COMPLETE], 1);
    CHECK_EQ(a->events[IW_EV_FIN_RCVD], 0);
    CHECK_EQ(b->c.state, IW_TCP_CLOSED);
    run(5ll * 1000 * 1000 * 1000);
    CHECK_EQ(a->c.state, IW_TCP_CLOSED);
    teardown_pair();

    /* Simultaneous close */
    setup_pair(0, 0, 0, 1460);
    iw_close(&a->c);
    iw_close(&b->c);
    run(5ll * 1000 * 1000 * 1000);
    CHECK_EQ(a->events[IW_EV_CLOSE_COMPLETE], 1);
    CHECK_EQ(b->events[IW_EV_CLOSE_COMPLETE], 1);
    teardown_pair();

    /* Abort: RST */
    setup_pair(0, 0, 0, 1460);
    iw_abort(&a->c);
    run(100ll * 1000 * 1000);
    CHECK_EQ(b->events[IW_EV_RESET_RCVD], 1);
    CHECK_EQ(b->c.state, IW_TCP_CLOSED);
    teardown_pair();

    /* Link dies: retransmission gives up */
    setup_pair(0, 0, 0, 1460);
    link_down = true;
    CHECK_EQ(iw_post_send(&a->c, IW_OP_SEND, 0, 100, 0), 0);
    /* RTO 1 s (no sample yet), doubled up to 60 s: the ninth expiry
     * comes at 1 + 2 + ... + 32 + 3 * 60 = 243 s */
    run(240ll * 1000 * 1000 * 1000);
    CHECK_EQ(a->events[IW_EV_TOO_MANY_RETRIES], 0);
    CHECK_EQ(a->c.stats.rto, 8);
    run(10ll * 1000 * 1000 * 1000);
    CHECK_EQ(a->events[IW_EV_TOO_MANY_RETRIES], 1);
    CHECK_EQ(a->c.stats.rto, 8);
    CHECK_EQ(a->c.state, IW_TCP_CLOSED);
    teardown_pair();
}

static void test_zero_window(void)
{
    Node *a = &nodes[0], *b = &nodes[1];

    setup_pair(0, 0, 0, 1460);
    a->c.snd_wnd = 0;
    fill(a, 0, 3000, 1);
    CHECK_EQ(iw_post_send(&a->c, IW_OP_SEND, 0, 3000, 0), 0);
    CHECK_EQ(a->c.stats.tx_segs, 0);
    run(2ll * 1000 * 1000 * 1000);
    CHECK_EQ(b->msgs, 1);
    CHECK(!memcmp(b->mem + b->recv_base, a->mem, 3000));
    teardown_pair();
}

/* ---- loss recovery ----------------------------------------------------- */

#define MS  (1000 * 1000ll)

/* A Write of @len from A's 0 to B's 1 MiB; returns the simulated time
 * until A's completion, -1 if it never came. */
static int64_t write_and_wait(uint32_t len, int64_t horizon)
{
    Node *a = &nodes[0], *b = &nodes[1];
    int64_t t0 = now_ns, step = 100 * 1000;
    unsigned done0 = a->ndone;

    fill(a, 0, len, 11);
    CHECK_EQ(iw_post_write(&a->c, STAG_MEM, 1u << 20, len, 0), 0);
    while (a->ndone == done0 && now_ns - t0 < horizon) {
        run(step);
    }
    CHECK(!memcmp(b->mem + (1u << 20), a->mem, len));
    return a->ndone == done0 ? -1 : now_ns - t0;
}

/*
 * A 1 MiB Write at MSS 1460 with the link losing the data segments
 * numbered @drops (A to B): it completes, each loss recovered without an
 * RTO and nothing the receiver kept out of order thrown away.
 */
static void write_with_drops(const unsigned *drops, unsigned n)
{
    Node *a = &nodes[0], *b = &nodes[1];

    setup_pair(0, 0, 0, 1460);
    for (unsigned i = 0; i < n; i++) {
        drop_nth[i] = drops[i];
    }
    CHECK(write_and_wait(1u << 20, 10 * 1000 * MS) >= 0);
    CHECK_EQ(link_drops, n);
    CHECK_EQ(a->c.stats.rto, 0);
    CHECK_EQ(b->c.stats.ooo_drops, 0);
}

/* One lost segment in a long Write: three duplicate ACKs resend that
 * segment alone; what followed it was kept by the receiver. */
static void test_fast_retransmit(void)
{
    static const unsigned drops[] = { 40 };
    Node *a = &nodes[0], *b = &nodes[1];

    write_with_drops(drops, 1);
    CHECK_EQ(a->c.stats.fast_rexmits, 1);
    CHECK_EQ(a->c.stats.rexmits, 1);
    CHECK(b->c.stats.ooo_queued >= 3);
    CHECK_EQ(b->c.ooo_cnt, 0);
    CHECK(!a->c.in_recovery);
    /* Halved at the loss (RFC 5681 (4)) and grown again since. */
    CHECK(a->c.ssthresh < 0x3FFFFFFF);
    CHECK(a->c.cwnd >= a->c.ssthresh);
    teardown_pair();
}

/* Two holes in one window: a NewReno partial ACK resends the second
 * without waiting for three more duplicates or the RTO. */
static void test_newreno_partial_ack(void)
{
    static const unsigned drops[] = { 60, 64 };
    Node *a = &nodes[0];

    write_with_drops(drops, 2);
    CHECK_EQ(a->c.stats.fast_rexmits, 1);
    CHECK_EQ(a->c.stats.partial_acks, 1);
    CHECK_EQ(a->c.stats.rexmits, 2);
    teardown_pair();
}

/* A pair on a 5 ms RTO floor with an RTT sample from a 64 KiB Write. */
static void sampled_pair(void)
{
    pair_rto_min = 5 * MS;
    setup_pair(0, 0, 0, 1460);
    CHECK(write_and_wait(64u << 10, 1000 * MS) >= 0);
}

/*
 * RTT estimation: 10 us each way on the fake link, so the RTO sits on
 * the QP's floor; a lost last segment (no duplicates follow it) is
 * resent after that floor, not after the initial second.
 */
static void test_rto_estimate(void)
{
    Node *a = &nodes[0];
    int64_t t;

    sampled_pair();
    CHECK(a->c.rtt_valid);
    CHECK(a->c.srtt_ns >= 20000 && a->c.srtt_ns < 2 * MS);
    CHECK_EQ(a->c.rto_ns, 5 * MS);
    /* 4000 bytes: three segments, the last one lost */
    drop_nth[0] = a_data_segs + 3;
    t = write_and_wait(4000, 1000 * MS);
    CHECK(t >= 5 * MS && t < 20 * MS);
    CHECK_EQ(a->c.stats.rto, 1);
    CHECK_EQ(a->c.stats.rexmits, 1);
    CHECK_EQ(a->c.stats.spurious_rto, 0);   /* a real loss */
    /* The backoff is gone once new data is acknowledged. */
    CHECK_EQ(a->c.rto_ns, 5 * MS);
    CHECK_EQ(a->c.retries, 0);
    teardown_pair();
    pair_rto_min = 0;
}

/*
 * Early retransmit (RFC 5827): the first of a message's three segments
 * is lost and nothing follows them; the two duplicates its successors
 * bring are enough, and the loss is repaired before the 5 ms RTO.
 */
static void test_early_retransmit(void)
{
    Node *a = &nodes[0];
    int64_t t;

    sampled_pair();
    drop_nth[0] = a_data_segs + 1;
    t = write_and_wait(4000, 1000 * MS);
    CHECK(t > 0 && t < 5 * MS);
    CHECK_EQ(link_drops, 1);
    CHECK_EQ(a->c.stats.rto, 0);
    CHECK_EQ(a->c.stats.fast_rexmits, 1);
    CHECK_EQ(a->c.stats.early_rexmits, 1);
    CHECK_EQ(a->c.stats.rexmits, 1);
    teardown_pair();
    pair_rto_min = 0;
}

/*
 * A spurious timeout (F-RTO, RFC 5682): A's segments are held on the link
 * for 30 ms, far past the 5 ms RTO (a delay spike: the peer's process
 * not scheduled), while nothing is lost.  The RTO resends one segment;
 * the ACKs of the originals then show they arrived, so the timeout is
 * declared spurious, nothing more is resent and the congestion window
 * is not left at one segment.
 */
static void test_spurious_rto(void)
{
    Node *a = &nodes[0], *b = &nodes[1];
    uint32_t len = 1u << 20;

    pair_rto_min = 5 * MS;
    setup_pair(0, 0, 0, 1460);
    CHECK(write_and_wait(256u << 10, 1000 * MS) >= 0);
    fill(a, 0, len, 23);
    CHECK_EQ(iw_post_write(&a->c, STAG_MEM, 1u << 20, len, 0), 0);
    run(30 * 1000);
    CHECK(a->c.snd_max != a->c.snd_una);
    a_stall_until = now_ns + 12 * MS;       /* one RTO, not its backoff */
    run(1000 * MS);
    CHECK(a->ndone == 2 && a->done_status[1] == 0);
    CHECK(!memcmp(b->mem + (1u << 20), a->mem, len));
    CHECK_EQ(link_drops, 0);
    CHECK_EQ(a->c.stats.rto, 1);
    CHECK_EQ(a->c.stats.spurious_rto, 1);
    CHECK_EQ(a->c.stats.rexmits, 1);        /* the RTO's one segment */
    /* RFC 4015: ssthresh back to the flight before the timeout, not
     * half of it; the window was never cut to one segment for long. */
    CHECK(a->c.ssthresh > 64u * 1460);
    CHECK(a->c.cwnd > 64u * 1460);
    teardown_pair();
    pair_rto_min = 0;
}

/*
 * Random loss: every loss is repaired by resending about what was lost
 * (no go-back-N), mostly without waiting for the RTO.  Prints the
 * simulated goodput against the loss-free run for the record.
 */
static void test_random_loss(void)
{
    Node *a = &nodes[0], *b = &nodes[1];
    int64_t t_clean, t_loss;

    pair_rto_min = 5 * MS;
    setup_pair(0, 0, 0, 1460);
    t_clean = write_and_wait(2u << 20, 10000 * MS);
    teardown_pair();
    setup_pair(10, 0, 0, 1460);
    t_loss = write_and_wait(2u << 20, 10000 * MS);
    CHECK(t_clean > 0 && t_loss > 0);
    CHECK(link_drops > 10);
    CHECK(a->c.stats.rexmits <= 2 * link_drops);
    CHECK(a->c.stats.fast_rexmits + a->c.stats.partial_acks >
          2 * a->c.stats.rto);
    CHECK_EQ(b->c.stats.ooo_drops, 0);
    printf("# 1%% loss: %u drops, %llu resent (%llu fast, %llu partial, "
           "%llu rto), simulated time %.1f ms vs %.1f ms loss-free\n",
           link_drops, (unsigned long long)a->c.stats.rexmits,
           (unsigned long long)a->c.stats.fast_rexmits,
           (unsigned long long)a->c.stats.partial_acks,
           (unsigned long long)a->c.stats.rto, t_loss / 1e6, t_clean / 1e6);
    teardown_pair();
    pair_rto_min = 0;
}

/* Small segments and one early hole: more out-of-order segments than
 * the queue keeps; the rest is dropped and counted, the data arrives. */
static void test_ooo_bound(void)
{
    Node *b = &nodes[1];

    setup_pair(0, 0, 0, 536);
    /* Let slow start open the window past IW_OOO_SEGS segments. */
    CHECK(write_and_wait(1u << 20, 10000 * MS) >= 0);
    drop_nth[0] = a_data_segs + 100;
    CHECK(write_and_wait(1u << 20, 100000 * MS) >= 0);
    CHECK_EQ(link_drops, 1);
    CHECK(b->c.stats.ooo_drops > 0);
    CHECK(b->c.stats.ooo_queued >= IW_OOO_SEGS);
    CHECK_EQ(b->c.ooo_cnt, 0);
    CHECK_EQ(b->c.ooo_bytes, 0);
    teardown_pair();
}

/* The first segment lost while the congestion window is still two
 * segments: the duplicate ACKs release new segments (limited transmit)
 * until the third one, so no RTO is waited for. */
static void test_limited_transmit(void)
{
    Node *a = &nodes[0];
    int64_t t;

    setup_pair(0, 0, 0, 1460);
    CHECK_EQ(a->c.cwnd, 2 * 1460);
    drop_nth[0] = 1;
    t = write_and_wait(7000, 5000 * MS);
    CHECK(t >= 0 && t < 100 * MS);
    CHECK_EQ(a->c.stats.rto, 0);
    CHECK_EQ(a->c.stats.fast_rexmits, 1);
    CHECK_EQ(a->c.stats.rexmits, 1);
    teardown_pair();
}

/* Pure ACKs: delayed to every second segment. */
static void test_delayed_ack(void)
{
    Node *a = &nodes[0], *b = &nodes[1];

    setup_pair(0, 0, 0, 1460);
    CHECK(write_and_wait(1u << 20, 1000 * MS) >= 0);
    CHECK(b->c.stats.pure_acks * 2 <= a->c.stats.tx_segs + 2);
    CHECK(b->c.stats.pure_acks > 0);
    /* One small segment: acknowledged by the timer. */
    CHECK(write_and_wait(100, 1000 * MS) >= 0);
    CHECK(b->c.stats.delayed_acks >= 1);
    teardown_pair();
}

/* Ping-pong of small Writes (ib_write_lat): each side answers the
 * other's Write with its own as soon as it lands; the round trip is the
 * link's, not a delayed ACK's or an RTO's, and the completions (the
 * peer's TCP ACK) come piggybacked on the answers. */
static void test_ping_pong(void)
{
    Node *a = &nodes[0], *b = &nodes[1];
    int64_t t0;
    unsigned i, n = 50;

    setup_pair(0, 0, 0, 1460);
    fill(a, 0, 64, 1);
    fill(b, 0, 64, 2);
    t0 = now_ns;
    for (i = 0; i < n; i++) {
        unsigned da = a->ndone, db = b->ndone;

        a->mem[0] = (uint8_t)(i + 1);
        CHECK_EQ(iw_post_write(&a->c, STAG_MEM, 1u << 20, 64, 0), 0);
        while (b->mem[1u << 20] != (uint8_t)(i + 1) &&
               now_ns - t0 < 1000 * MS) {
            run(1000);
        }
        b->mem[0] = (uint8_t)(i + 1);
        CHECK_EQ(iw_post_write(&b->c, STAG_MEM, 1u << 20, 64, 0), 0);
        while ((a->mem[1u << 20] != (uint8_t)(i + 1) || a->ndone == da) &&
               now_ns - t0 < 1000 * MS) {
            run(1000);
        }
        CHECK(a->ndone > da);
        CHECK(b->ndone >= db);
    }
    /* 20 us of link per round trip, polled in 1 us steps */
    CHECK((now_ns - t0) / n < 30000);
    CHECK_EQ(a->c.stats.rto + b->c.stats.rto, 0);
    CHECK_EQ(a->c.stats.pure_acks + b->c.stats.pure_acks, 0);
    teardown_pair();
}

/* Silly-window avoidance holds back pieces cut short by the window, not
 * small messages: with a one-segment congestion window (as after an RTO)
 * ten 64-byte Writes still go at once; a long Write waits for full
 * segments. */
static void test_sws_small_messages(void)
{
    Node *a = &nodes[0];
    unsigned i;

    setup_pair(0, 0, 0, 1460);
    CHECK(write_and_wait(4000, 1000 * MS) >= 0);    /* an RTT sample */
    a->c.cwnd = 1460;
    a->c.ssthresh = 1460 * 4;
    a->c.stats.tx_segs = 0;
    for (i = 0; i < 10; i++) {
        CHECK_EQ(iw_post_write(&a->c, STAG_MEM, (1u << 20) + i * 64, 64, 0),
                 0);
    }
    CHECK_EQ(a->c.stats.tx_segs, 10);
    /* 10 * 84 bytes in flight: the rest of the window is no full
     * segment, so of a long Write nothing goes before an ACK. */
    CHECK_EQ(iw_post_write(&a->c, STAG_MEM, 2u << 20, 20000, 0), 0);
    CHECK_EQ(a->c.stats.tx_segs, 10);
    run(100 * MS);
    CHECK_EQ(a->ndone, 1 + 11);
    teardown_pair();
}


/* ---- retransmission from the source ------------------------------------ */

/*
 * Every data segment sent again carries what the first one carried at
 * those sequence numbers: the same FPDU boundaries, headers, payload and
 * CRC, rebuilt from the source.  Returns how many resent segments were
 * compared.
 */
static unsigned check_resent_bytes(void)
{
    unsigned i, j, same = 0;

    for (i = 0; i < ncaps; i++) {
        for (j = 0; j < i; j++) {
            const Cap *o = &caps[j], *r = &caps[i];
            uint32_t skip = r->seq - o->seq;

            if (o->src != r->src || (int32_t)(r->seq - o->seq) < 0 ||
                skip >= o->len) {
                continue;
            }
            /* @r starts inside the original @o: it repeats @o's bytes */
            CHECK(r->len <= o->len - skip);
            CHECK(!memcmp(r->data, o->data + skip,
                          r->len < o->len - skip ? r->len : o->len - skip));
            same++;
            break;
        }
    }
    return same;
}

/*
 * Losses of every kind of segment: a Send, a Write, a Read Request (A's)
 * and a Read Response and a Terminate (B's).  The resends are the
 * original frames' bytes, the data arrives, the completions come after
 * the ACKs.
 */
static void test_rexmit_same_bytes(void)
{
    Node *a = &nodes[0], *b = &nodes[1];
    unsigned sends = 4, i, resent;

    if (!caps) {
        caps = calloc(MAX_FRAMES, sizeof(*caps));
    }
    setup_pair(0, 0, 0, 1460);
    capture = true;
    drop_nth[0] = 1;            /* the Read Request */
    drop_nth[1] = 3;            /* Send segments */
    drop_nth[2] = 4;
    drop_nth[3] = 25;           /* the Write */
    b_drop_nth = 3;             /* a Read Response segment */
    fill(a, 0, 1u << 20, 9);
    fill(b, 0, 1u << 20, 21);
    CHECK_EQ(iw_post_read(&a->c, STAG_MEM, 1u << 20, 30000, STAG_MEM, 4096,
                          7), 0);
    for (i = 0; i < sends; i++) {
        CHECK_EQ(iw_post_send(&a->c, IW_OP_SEND, 0, 5000, i * 5000), 0);
    }
    CHECK_EQ(iw_post_write(&a->c, STAG_MEM, 3u << 20, 50000, 100000), 0);
    run(10000 * MS);
    CHECK_EQ(b->msgs, sends);
    CHECK(!memcmp(b->mem + b->recv_base, a->mem, sends * 5000));
    CHECK(!memcmp(b->mem + (3u << 20), a->mem + 100000, 50000));
    CHECK(!memcmp(a->mem + (1u << 20), b->mem + 4096, 30000));
    CHECK_EQ(a->ndone, sends + 2);
    for (i = 0; i < a->ndone && i < MAX_DONE; i++) {
        CHECK_EQ(a->done_status[i], 0);
    }
    CHECK_EQ(link_drops, 5);
    CHECK(a->c.stats.rexmits >= 4);
    CHECK(b->c.stats.rexmits >= 1);
    resent = check_resent_bytes();
    CHECK(resent >= a->c.stats.rexmits + b->c.stats.rexmits);
    CHECK_EQ(a->c.stats.rexmit_fails + b->c.stats.rexmit_fails, 0);
    CHECK(iw_tx_idle(&a->c));

    /* A lost Terminate is sent again from the kept payload. */
    b_data_segs = 0;
    b_drop_nth = 1;
    link_drops = 0;
    CHECK_EQ(iw_post_write(&a->c, 0x999999, 0, 100, 0), 0);
    run(10000 * MS);
    CHECK_EQ(link_drops, 1);
    CHECK_EQ(b->events[IW_EV_TERMINATE_SENT], 1);
    CHECK_EQ(a->events[IW_EV_TERMINATE_RCVD], 1);
    CHECK(check_resent_bytes() > resent);
    teardown_pair();
}

/* With a peer window of 8 MiB more than 256 KiB goes in flight (the
 * old send buffer's bound), at most IW_SND_MAX; nothing is copied. */
static void test_window_beyond_256k(void)
{
    Node *a = &nodes[0], *b = &nodes[1];
    unsigned i;

    pair_wnd = 0xFFFFu << 7;
    setup_pair(0, 0, 0, 8960);
    CHECK_EQ(a->c.snd_wnd, 0xFFFFu << 7);
    fill(a, 0, 3u << 20, 4);
    for (i = 0; i < 4; i++) {
        /* (the cookie is the source address) */
        CHECK_EQ(iw_post_write(&a->c, STAG_MEM, 1u << 20, 3u << 20, 0), 0);
    }
    run(10000 * MS);
    CHECK_EQ(a->ndone, 4);
    CHECK(!memcmp(b->mem + (1u << 20), a->mem, 3u << 20));
    CHECK(a_max_flight > (1u << 20));
    CHECK(a_max_flight <= IW_SND_MAX);
    printf("# peer window %u: at most %u bytes in flight\n", 0xFFFFu << 7,
           a_max_flight);
    teardown_pair();

    /* Losses with more than 256 KiB in flight are repaired from the
     * source. */
    setup_pair(0, 0, 0, 1460);
    drop_nth[0] = 1000;
    drop_nth[1] = 1010;
    drop_nth[2] = 1500;
    CHECK(write_and_wait(3u << 20, 100000 * MS) >= 0);
    CHECK(a_max_flight > (256u << 10));
    CHECK_EQ(link_drops, 3);
    CHECK(a->c.stats.rexmits >= 3);
    CHECK_EQ(a->c.stats.rexmit_fails, 0);
    teardown_pair();
    pair_wnd = 0;
}

/*
 * The source of a segment in flight goes away before its resend (the
 * guest deregistered the MR): no made-up bytes, the connection is reset
 * and the owner told with the callback's code; nothing completes.
 */
static void test_rexmit_source_gone(void)
{
    Node *a = &nodes[0], *b = &nodes[1];
    unsigned ndone, i;

    setup_pair(0, 0, 0, 1460);
    fill(a, 0, 64u << 10, 3);
    link_down = true;
    CHECK_EQ(iw_post_write(&a->c, STAG_MEM, 1u << 20, 64u << 10, 0), 0);
    CHECK(a->c.stats.tx_segs >= 1);
    a->gather_gone = true;
    link_down = false;
    run(5000 * MS);
    CHECK_EQ(a->events[IW_EV_REXMIT_FAILED], 1);
    CHECK_EQ(a->fail_term, IW_T_RDMAP_INV_STAG);
    CHECK_EQ(a->c.stats.rexmit_fails, 1);
    CHECK_EQ(a->c.stats.rexmits, 0);
    CHECK_EQ(a->c.state, IW_TCP_CLOSED);
    CHECK_EQ(a->ndone, 0);
    CHECK_EQ(b->events[IW_EV_RESET_RCVD], 1);
    for (i = 0; i < 64u << 10; i++) {
        if (b->mem[(1u << 20) + i]) {
            CHECK(!"bytes placed");
            break;
        }
    }
    teardown_pair();

    /* A Read Response whose source MR went away on the responder. */
    setup_pair(0, 0, 0, 1460);
    fill(b, 0, 64u << 10, 5);
    b_drop_nth = 2;
    CHECK_EQ(iw_post_read(&a->c, STAG_MEM, 1u << 20, 20000, STAG_MEM, 0, 9),
             0);
    /* Until B has framed its responses and lost the second one. */
    while (b_data_segs < 3 && now_ns < 100 * MS) {
        run(1000);
    }
    CHECK(b_data_segs >= 3);
    b->fetch_gone = true;
    ndone = a->ndone;
    run(5000 * MS);
    CHECK_EQ(b->events[IW_EV_REXMIT_FAILED], 1);
    CHECK_EQ(b->fail_term, IW_T_RDMAP_INV_STAG);
    CHECK_EQ(b->c.state, IW_TCP_CLOSED);
    CHECK_EQ(a->events[IW_EV_RESET_RCVD], 1);
    CHECK_EQ(a->ndone, ndone);
    teardown_pair();

    /* A Write whose payload becomes unreadable after its first segments
     * went out (the second one lost): it fails, but completes only once
     * those are acknowledged -- they are resent from its buffer. */
    setup_pair(0, 0, 0, 1460);
    fill(a, 0, 20000, 6);
    a->gather_bad_from = 2000;
    drop_nth[0] = 2;
    CHECK_EQ(iw_post_write(&a->c, STAG_MEM, 1u << 20, 20000, 0), 0);
    run(100 * MS);
    CHECK_EQ(a->ndone, 0);          /* the lost segment is not resent yet */
    run(5000 * MS);
    CHECK_EQ(a->ndone, 1);
    CHECK_EQ(a->done_status[0], -1);
    CHECK(!a->done_unacked[0]);
    CHECK_EQ(a->c.stats.rexmits, 1);
    CHECK_EQ(a->c.stats.rexmit_fails, 0);
    /* two segments of 1440 bytes (MSS 1460: 1454 ULPDU, 14 header) */
    CHECK(!memcmp(b->mem + (1u << 20), a->mem, 2 * 1440));
    CHECK_EQ(b->mem[(1u << 20) + 2 * 1440], 0);
    CHECK_EQ(a->events[IW_EV_ERROR], 0);
    teardown_pair();
}

/*
 * A Terminate and then the FIN (MODIFY_QP to TERMINATE with TERMACT 0)
 * while a long Send is only partly sent (slow start): nothing of it
 * follows the Terminate, and what can never be framed does not hold
 * back the FIN.
 */
static void test_close_after_terminate(void)
{
    Node *a = &nodes[0], *b = &nodes[1];
    uint8_t t[64];
    size_t n = iw_build_terminate(t, IW_T_RDMAP_CATASTROPHIC, NULL, 0);

    setup_pair(0, 0, 0, 1460);
    fill(a, 0, 200000, 1);
    CHECK_EQ(iw_post_send(&a->c, IW_OP_SEND, 0, 200000, 0), 0);
    CHECK(a->c.mq_tx < a->c.mq_cnt);
    iw_send_terminate(&a->c, t, n);
    iw_close(&a->c);
    run(1000 * MS);
    CHECK_EQ(a->events[IW_EV_TERMINATE_SENT], 1);
    CHECK_EQ(b->events[IW_EV_TERMINATE_RCVD], 1);
    CHECK_EQ(b->events[IW_EV_FIN_RCVD], 1);
    CHECK_EQ(b->msgs, 0);
    CHECK_EQ(a->c.state, IW_TCP_FIN_WAIT_2);
    iw_close(&b->c);
    run(100 * MS);
    CHECK_EQ(a->events[IW_EV_CLOSE_COMPLETE], 1);
    CHECK_EQ(b->events[IW_EV_CLOSE_COMPLETE], 1);
    teardown_pair();
}

/*
 * A Write whose payload turns unreadable in the middle (a local
 * failure: framing stops), a Send queued behind it, then the close: the
 * FIN follows what was sent instead of waiting for work that can never
 * go.
 */
static void test_close_after_tx_failure(void)
{
    Node *a = &nodes[0], *b = &nodes[1];

    setup_pair(0, 0, 0, 1460);
    fill(a, 0, 20000, 2);
    a->gather_bad_from = 5000;
    CHECK_EQ(iw_post_write(&a->c, STAG_MEM, 1u << 20, 20000, 0), 0);
    CHECK_EQ(iw_post_send(&a->c, IW_OP_SEND, 0, 100, 1), 0);
    iw_close(&a->c);
    run(1000 * MS);
    CHECK_EQ(a->ndone, 1);
    CHECK_EQ(a->done_status[0], -1);
    CHECK_EQ(b->events[IW_EV_FIN_RCVD], 1);
    CHECK_EQ(b->msgs, 0);
    CHECK_EQ(a->c.state, IW_TCP_FIN_WAIT_2);
    teardown_pair();
}

/*
 * The owner gives its work up (the QP went to ERROR after a close was
 * asked for): what is not framed yet is dropped, the FIN goes right after
 * what was sent, inbound data is acknowledged but not placed, and the
 * close completes on both sides.
 */
static void test_close_orphaned(void)
{
    Node *a = &nodes[0], *b = &nodes[1];
    uint32_t sent;

    setup_pair(0, 0, 0, 1460);
    fill(a, 0, 200000, 3);
    CHECK_EQ(iw_post_send(&a->c, IW_OP_SEND, 0, 200000, 0), 0);
    iw_close(&a->c);
    CHECK(!a->c.fin_sent);
    sent = a->c.snd_max;
    iw_orphan(&a->c);
    CHECK(a->c.fin_sent);
    CHECK_EQ(a->c.fin_seq, sent);
    fill(b, 0, 3000, 4);
    CHECK_EQ(iw_post_send(&b->c, IW_OP_SEND, 0, 3000, 9), 0);
    run(1000 * MS);
    CHECK_EQ(b->events[IW_EV_FIN_RCVD], 1);
    CHECK_EQ(b->msgs, 0);
    CHECK_EQ(a->msgs, 0);           /* not placed ... */
    CHECK_EQ(b->ndone, 1);          /* ... but acknowledged */
    CHECK_EQ(a->ndone, 0);
    iw_close(&b->c);
    run(100 * MS);
    CHECK_EQ(a->events[IW_EV_CLOSE_COMPLETE], 1);
    CHECK_EQ(b->events[IW_EV_CLOSE_COMPLETE], 1);
    CHECK_EQ(a->events[IW_EV_ERROR] + b->events[IW_EV_ERROR], 0);
    teardown_pair();
}

int main(void)
{
    RUN(test_crc32c);
    RUN(test_crc32c_impls);
    RUN(test_mpa_fpdu);
    RUN(test_mpa_frames);
    RUN(test_clean_link);
    RUN(test_lossy_link);
    RUN(test_read);
    RUN(test_errors);
    RUN(test_malformed);
    RUN(test_close);
    RUN(test_zero_window);
    RUN(test_fast_retransmit);
    RUN(test_newreno_partial_ack);
    RUN(test_rto_estimate);
    RUN(test_early_retransmit);
    RUN(test_spurious_rto);
    RUN(test_random_loss);
    RUN(test_ooo_bound);
    RUN(test_delayed_ack);
    RUN(test_limited_transmit);
    RUN(test_ping_pong);
    RUN(test_sws_small_messages);
    RUN(test_rexmit_same_bytes);
    RUN(test_window_beyond_256k);
    RUN(test_rexmit_source_gone);
    RUN(test_close_after_terminate);
    RUN(test_close_after_tx_failure);
    RUN(test_close_orphaned);
    return CHECK_DONE();
}
