/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RoCEv2 engine (core/roce/) unit tests: the wire format against a frame
 * built independently (Python's zlib CRC-32 for the ICRC), then RC QPs 3
 * and 4 driven as irdma drives them in RoCE mode (iwarp-fixture.c with
 * roce set) -- on one device through the engine's loopback, and on two
 * devices back to back with frames lost on the link -- and the GSI QP 1
 * as a UD QP with an address handle.
 */
#include "check.h"

#include "ifx-names.h"
#include "roce/roce.h"
#include "roce/roce-int.h"

#define sq_post ifx_sq_post
#define rq_post ifx_rq_post
#define cqe_next ifx_cqe_next
#define aeqe_next ifx_aeqe_next
#define fill ifx_fill

#define CQE_SQ          (1ull << 62)
#define IMM             (1ull << 47)

/* SEND_ONLY "hello" to QP 0x11, PSN 0x123456, ack requested, TOS 0x02,
 * IPv4 10.0.0.1 -> 10.0.0.2 (the ICRC from zlib.crc32 over 8 x 0xFF and
 * the masked headers, see docs/roce.md). */
static const uint8_t ref_frame[66] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x08, 0x00, 0x45, 0x02, 0x00, 0x34, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
    0x26, 0xb5, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02, 0xc0, 0x00,
    0x12, 0xb7, 0x00, 0x20, 0x00, 0x00, 0x04, 0x30, 0xff, 0xff, 0x00, 0x00,
    0x00, 0x11, 0x80, 0x12, 0x34, 0x56, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x00,
    0x00, 0x00, 0xb2, 0x22, 0xdc, 0xe0,
};

static void test_wire_format(void)
{
    RocePath p = {
        .ipv4 = true, .tos = 0x02, .ttl = 64, .sport = 0xC000,
        .smac = { 2, 0, 0, 0, 0, 1 }, .dmac = { 2, 0, 0, 0, 0, 2 },
        .sip = { 10, 0, 0, 1 }, .dip = { 10, 0, 0, 2 },
    };
    static uint8_t f[ROCE_FRAME_MAX];
    uint8_t g[sizeof(ref_frame)];
    size_t off, len;
    const char *bad;
    RocePkt k;

    off = roce_frame_start(f, &p);
    CHECK_EQ(off, 14 + 20 + 8);
    roce_bth_put(f + off, ROCE_SEND_ONLY, false, 3, 0xFFFF, 0x11, true,
                 0x123456);
    memcpy(f + off + ROCE_BTH_LEN, "hello\0\0\0", 8);
    len = roce_frame_seal(f, &p, off, off + ROCE_BTH_LEN + 8);
    CHECK_EQ(len, sizeof(ref_frame));
    CHECK(!memcmp(f, ref_frame, sizeof(ref_frame)));

    CHECK(roce_parse(ref_frame, sizeof(ref_frame), &k, &bad));
    CHECK(bad == NULL);
    CHECK_EQ(k.opcode, ROCE_SEND_ONLY);
    CHECK_EQ(k.dqpn, 0x11);
    CHECK_EQ(k.psn, 0x123456);
    CHECK(k.ackreq);
    CHECK_EQ(k.padcnt, 3);
    CHECK_EQ(k.ext_len, 8);
    CHECK(!memcmp(k.ext, "hello", 5));

    /* A changed payload byte: the ICRC catches it. */
    memcpy(g, ref_frame, sizeof(g));
    g[56] ^= 1;
    CHECK(roce_parse(g, sizeof(g), &k, &bad));
    CHECK(bad && !strcmp(bad, "ICRC"));
    /* A router's TTL and ECN change (masked fields) with a new IPv4
     * checksum: still good. */
    memcpy(g, ref_frame, sizeof(g));
    g[22] = 63;
    g[15] = 0x03;
    g[24] = g[25] = 0;
    {
        uint16_t ck = (uint16_t)~e810_csum_fold(e810_csum_add(0, g + 14, 20));

        g[24] = ck >> 8;
        g[25] = (uint8_t)ck;
    }
    CHECK(roce_parse(g, sizeof(g), &k, &bad));
    CHECK(bad == NULL);
    /* Not for port 4791: not RoCE at all (the LAN's). */
    memcpy(g, ref_frame, sizeof(g));
    g[37] = 0xb8;
    CHECK(!roce_parse(g, sizeof(g), &k, &bad));
    /* Truncated: the IP length runs past the frame. */
    CHECK(roce_parse(ref_frame, sizeof(ref_frame) - 2, &k, &bad));
    CHECK(bad != NULL);

    /* IPv6 with a VLAN tag: the builder's own frame parses with a good
     * ICRC and UDP checksum. */
    memset(&p, 0, sizeof(p));
    p.vlan = true;
    p.vlan_tci = 0x2005;
    p.ttl = 5;
    p.tos = 0x68;
    p.flow_label = 0xABCDE;
    p.sport = 0xD123;
    memset(p.sip, 0xFE, 16);
    memset(p.dip, 0x20, 16);
    off = roce_frame_start(f, &p);
    CHECK_EQ(off, 18 + 40 + 8);
    roce_bth_put(f + off, ROCE_READ_REQ, false, 0, 0xFFFF, 7, true, 1);
    memset(f + off + ROCE_BTH_LEN, 0x5A, ROCE_RETH_LEN);
    len = roce_frame_seal(f, &p, off, off + ROCE_BTH_LEN + ROCE_RETH_LEN);
    CHECK(roce_parse(f, len, &k, &bad));
    CHECK(bad == NULL);
    CHECK(k.vlan && k.vlan_tci == 0x2005 && !k.ipv4);
    CHECK_EQ(k.opcode, ROCE_READ_REQ);
    f[off + 2] ^= 0x80;         /* P_Key: covered */
    CHECK(roce_parse(f, len, &k, &bad));
    CHECK(bad != NULL);
}

static void setup_roce(void)
{
    ifx_failures = 0;
    ifx_cur->roce = true;
    ifx_cur->psn[0] = 0xFFFFF0;     /* wraps within the first messages */
    ifx_cur->psn[1] = 0x000100;
    ifx_setup(false);
    CHECK_EQ(ifx_failures, 0);
}

static void teardown_roce(void)
{
    ifx_teardown();
    ifx_cur->roce = false;
}

static void run(void)
{
    ifx_run();
}

/* SEND (5 packets at MTU 1024, with immediate data), WRITE, WRITE with
 * immediate data and READ between QP 3 and QP 4 of one device. */
static void test_rc_loopback(void)
{
    uint64_t q[4], cqe[4], ctx;
    unsigned idx, n, qp, code;
    uint8_t frag[32] = { 0 };
    uint64_t st0[E810_PE_COUNT], *st, tx_pkts;

    setup_roce();
    st = C.rdma.pestat;
    memcpy(st0, st, sizeof(st0));
    fill(BUF_PA(0), 0x8000, 1);
    rq_post(1, BUF_PA(1), 8192);
    /* SEND with immediate: imm in qword 0, SGE at byte 32 plus a null
     * fragment (ADDFRAGCNT 2, two quanta). */
    st64(frag, BUF_PA(0));
    st64(frag + 8, 5000ull << 32 | STAG(0));
    q[0] = 0x11223344;
    q[1] = 0;
    q[2] = 0;
    idx = sq_post(0, q, 0x03ull << 32 | SIG | IMM | 2ull << 38, 2, frag);
    run();
    CHECK(!memcmp(mem(BUF_PA(1)), mem(BUF_PA(0)), 5000));
    n = 0;
    while (cqe_next(cqe)) {
        CHECK(!(cqe[3] & CQE_ERROR));
        if (cqe[3] & CQE_SQ) {
            CHECK_EQ((cqe[3] >> 32) & 0x7FFF, idx);
            CHECK_EQ((cqe[3] >> 56) & 0x3F, 0x03);
            CHECK_EQ(cqe[1], COMPCTX(0));
        } else {
            uint64_t ext[4];

            CHECK_EQ(cqe[0], 5000);
            CHECK_EQ(cqe[1], COMPCTX(1));
            CHECK_EQ((cqe[2] >> 32) & 0xFFFFFF, 4);
            CHECK_EQ((cqe[3] >> 56) & 0x3F, ROCE_SEND_LAST_IMM);
            CHECK(cqe[3] & CQE_EXT);
            /* The extension is the next slot: immediate data, IMMVALID. */
            CHECK(cqe_next(ext));
            CHECK_EQ(ext[0] & 0xFFFFFFFF, 0x11223344);
            CHECK(ext[3] & (1ull << 62));
        }
        n++;
    }
    CHECK_EQ(n, 2);

    /* WRITE 20000 bytes (20 packets), unsignaled, then WRITE with
     * immediate 10 bytes, which takes a receive WQE. */
    fill(BUF_PA(0) + 0x1000, 20000, 7);
    ifx_sq_op(0, 0x00, BUF_PA(0) + 0x1000, 20000, BUF_PA(1) + 0x2000,
              STAG(1));
    rq_post(1, BUF_PA(1) + 0x9000, 64);
    st64(frag, BUF_PA(0) + 0x100);
    st64(frag + 8, 10ull << 32 | STAG(0));
    q[0] = 0xCAFEF00D;
    q[1] = 0;
    q[2] = BUF_PA(1) + 0xF000;
    idx = sq_post(0, q, 0x00ull << 32 | STAG(1) | SIG | IMM | 2ull << 38, 2,
                  frag);
    run();
    CHECK(!memcmp(mem(BUF_PA(1) + 0x2000), mem(BUF_PA(0) + 0x1000), 20000));
    CHECK(!memcmp(mem(BUF_PA(1) + 0xF000), mem(BUF_PA(0) + 0x100), 10));
    n = 0;
    while (cqe_next(cqe)) {
        CHECK(!(cqe[3] & CQE_ERROR));
        if (cqe[3] & CQE_SQ) {
            CHECK_EQ((cqe[3] >> 32) & 0x7FFF, idx);
        } else {
            uint64_t ext[4];

            CHECK_EQ(cqe[0], 10);
            CHECK_EQ((cqe[3] >> 56) & 0x3F, ROCE_WRITE_ONLY_IMM);
            CHECK(cqe_next(ext));
            CHECK_EQ(ext[0] & 0xFFFFFFFF, 0xCAFEF00D);
        }
        n++;
    }
    CHECK_EQ(n, 2);

    /* READ 10000 bytes into two SGEs. */
    idx = ifx_read_2sge(0);
    run();
    CHECK(ifx_read_2sge_done(idx));

    /* Inline SEND with SE and immediate data: 50 bytes, 8 in qword 1,
     * then 31 per quantum (uk.c irdma_copy_inline_data). */
    rq_post(1, BUF_PA(1) + 0x8000, 100);
    ifx_sq_inline50(0, 0x5EED, SIG | IMM);
    run();
    CHECK(ifx_inline50_at(BUF_PA(1) + 0x8000));
    n = 0;
    while (cqe_next(cqe)) {
        if (!(cqe[3] & CQE_SQ)) {
            uint64_t ext[4];

            CHECK_EQ(cqe[0], 50);
            CHECK(cqe[3] & (1ull << 54));               /* solicited */
            CHECK(cqe_next(ext));
            CHECK_EQ(ext[0] & 0xFFFFFFFF, 0x5EED);
        }
        n++;
    }
    CHECK_EQ(n, 2);
    CHECK(!aeqe_next(&ctx, &qp, &code));
    CHECK_EQ(e810_roce_stats(&C)->retransmits, 0);
    CHECK_EQ(e810_roce_stats(&C)->rx_bad, 0);
    CHECK_EQ(H.guest_errors, 0);
    /* The statistics irdma shows (rdma statistic): through the loopback
     * every IPv4 packet sent is received, each one UDP datagram, counted
     * once; the octets hold at least the payload moved (35060 bytes). */
    tx_pkts = st[E810_PE_IP4TXPKTS] - st0[E810_PE_IP4TXPKTS];
    CHECK(tx_pkts >= 30);
    CHECK_EQ(st[E810_PE_UDPTXPKTS] - st0[E810_PE_UDPTXPKTS], tx_pkts);
    CHECK_EQ(st[E810_PE_IP4RXPKTS] - st0[E810_PE_IP4RXPKTS], tx_pkts);
    CHECK_EQ(st[E810_PE_UDPRXPKTS] - st0[E810_PE_UDPRXPKTS], tx_pkts);
    CHECK(st[E810_PE_IP4TXOCTS] - st0[E810_PE_IP4TXOCTS] >= 35060 + 44 * tx_pkts);
    CHECK_EQ(st[E810_PE_IP4RXOCTS] - st0[E810_PE_IP4RXOCTS],
             st[E810_PE_IP4TXOCTS] - st0[E810_PE_IP4TXOCTS]);
    teardown_roce();
}

/* A SEND before the receiver posted a buffer: RNR NAK, then delivered
 * once the WQE is there; a WRITE with a wrong R_Key: NAK remote access
 * error, an error CQE and AE on the requester, an AE on the responder. */
static void test_rc_rnr_and_access_error(void)
{
    uint64_t cqe[4], ctx;
    unsigned qp, code, n, ae_req = 0, ae_resp = 0;

    setup_roce();
    fill(BUF_PA(0), 3000, 9);
    ifx_sq_op(0, 0x03, BUF_PA(0), 3000, 0, SIG);
    for (int k = 0; k < 2; k++) {
        fake_host_advance(&H, 1000000);
    }
    CHECK(e810_roce_stats(&C)->rnr_naks_sent > 0);
    CHECK(!cqe_next(cqe));
    rq_post(1, BUF_PA(1), 4096);
    run();
    CHECK(!memcmp(mem(BUF_PA(1)), mem(BUF_PA(0)), 3000));
    n = 0;
    while (cqe_next(cqe)) {
        CHECK(!(cqe[3] & CQE_ERROR));
        n++;
    }
    CHECK_EQ(n, 2);

    ifx_sq_op(0, 0x00, BUF_PA(0), 100, BUF_PA(1), SIG | (STAG(1) ^ 0x01));
    run();
    CHECK(cqe_next(cqe));
    CHECK(cqe[3] & CQE_SQ);
    CHECK(cqe[3] & CQE_ERROR);
    CHECK_EQ(cqe[3] & 0xFFFF, 0x020d);
    while (aeqe_next(&ctx, &qp, &code)) {
        if (qp == 3) {
            CHECK_EQ(code, 0x020d);     /* IB remote access error */
            ae_req++;
        } else {
            CHECK_EQ(qp, 4);
            CHECK_EQ(code, 0x0103);     /* AMP invalid STag */
            ae_resp++;
        }
    }
    CHECK_EQ(ae_req, 1);
    CHECK_EQ(ae_resp, 1);
    CHECK(e810_roce_stats(&C)->naks_sent > 0);
    teardown_roce();
}

/*
 * How a failing WQE of a user QP completes (docs/errors.md): never with
 * an error CQE of the device's own (libirdma would report
 * IBV_WC_GENERAL_ERR), but through the AE, with the SQ as its source, and
 * the flush the driver then issues with the flush code it derives from
 * that AE (irdma_ae_to_qp_err_code): the flush CQE names the failing WQE
 * and carries that code.  One row per error; @flush the driver's code.
 */
static void error_row(const char *what, unsigned op, uint64_t loc,
                      uint32_t len, uint64_t raddr, uint64_t flags,
                      unsigned rq_len, unsigned want_ae, unsigned flush)
{
    uint64_t cqe[4], ctx, q[8] = { 0 };
    unsigned idx, qp, code, ae = 0, src = 0;

    ifx_failures = 0;
    ifx_cur->roce = true;
    ifx_cur->psn[0] = 0xFFFFF0;
    ifx_cur->psn[1] = 0x000100;
    ifx_setup(true);
    fill(BUF_PA(0), 0x4000, 7);
    if (rq_len) {
        rq_post(1, BUF_PA(1), rq_len);
    }
    idx = ifx_sq_op(0, op, loc, len, raddr, flags | SIG);
    run();
    printf("# %s: ", what);
    while (cqe_next(cqe)) {
        /* The responder may complete its RQ WQE (a READ has none); the
         * requester writes nothing for the failing WQE. */
        CHECK(!(cqe[3] & CQE_SQ));
    }
    while (aeqe_next(&ctx, &qp, &code)) {
        if (qp == 3) {
            ae = code;
            src = ifx_ae_src;
        }
    }
    printf("AE 0x%04x source %u\n", ae, src);
    CHECK_EQ(ae, want_ae);
    CHECK_EQ(src, 5);           /* IRDMA_AE_SOURCE_SQ: sq_flush_code set */
    /* The driver's flush: SQ, user flush code (hw.c:irdma_flush_wqes). */
    q[2] = (uint64_t)flush << 32 | 1ull << 48;
    CHECK_EQ(cqp(0x22, q, 3 | 1ull << 61 | 1ull << 60), 0);
    CHECK(cqe_next(cqe));
    CHECK(cqe[3] & CQE_SQ);
    CHECK(cqe[3] & CQE_ERROR);
    CHECK_EQ((cqe[3] >> 16) & 0xFFFF, 1);       /* IRDMA_FLUSH_MAJOR_ERR */
    CHECK_EQ(cqe[3] & 0xFFFF, flush);
    CHECK_EQ((cqe[3] >> 32) & 0x7FFF, idx);
    CHECK(!cqe_next(cqe));
    teardown_roce();
}

static void test_rc_error_status(void)
{
    /* FLUSH_* of irdma's enum irdma_flush_opcode (user.h). */
    enum { PROT = 2, REM_ACCESS = 3, REM_OP = 5, REM_INV_REQ = 10 };

    error_row("WRITE, wrong R_Key", 0x00, BUF_PA(0), 100, BUF_PA(1),
              STAG(1) ^ 0x01, 0, 0x020d, REM_ACCESS);
    error_row("READ past the peer's MR", 0x01, BUF_PA(0), 0x100,
              BUF_PA(1) + 0x10000 - 0x80, STAG(1), 0, 0x020d, REM_ACCESS);
    error_row("SEND longer than the receive buffer", 0x03, BUF_PA(0), 3000,
              0, 0, 1000, 0x0208, REM_INV_REQ);
    error_row("WRITE from an SGE past the local MR", 0x00,
              BUF_PA(0) + 0x10000 - 0x10, 0x100, BUF_PA(1), STAG(1), 0,
              0x0108, PROT);
    (void)REM_OP;
}

/* FLUSH_WQES with only GENERATE_AE (irdma_gen_ae): the AE is posted and
 * the QP keeps working.  Then a MODIFY_QP to ERROR whose type field is
 * not RoCE's: the control path takes the state, so does the engine (no
 * more frames from QP 3). */
static void test_rc_gen_ae_and_modify(void)
{
    uint64_t q[8] = { 0 }, cqe[4];
    uint64_t tx;

    setup_roce();
    q[1] = 0x0101 | 1ull << 16;
    CHECK_EQ(cqp(0x22, q, 3 | 1ull << 59), 0);
    CHECK(ifx_ae_seen(3, 0x0101));
    fill(BUF_PA(0), 3000, 61);
    ifx_sq_op(0, 0x00, BUF_PA(0), 3000, BUF_PA(1) + 0x100, SIG | STAG(1));
    run();
    CHECK(cqe_next(cqe));
    CHECK(!(cqe[3] & CQE_ERROR));
    CHECK(!memcmp(mem(BUF_PA(1) + 0x100), mem(BUF_PA(0)), 3000));

    memset(q, 0, sizeof(q));
    q[2] = QPCTX_PA(0);
    CHECK_EQ(cqp(0x01, q, 3 | 1ull << 48 | 6ull << 60), 0);
    tx = e810_roce_stats(&C)->tx_pkts;
    fill(BUF_PA(0), 3000, 62);
    ifx_sq_op(0, 0x00, BUF_PA(0), 3000, BUF_PA(1) + 0x2000, SIG | STAG(1));
    run();
    CHECK_EQ(e810_roce_stats(&C)->tx_pkts, tx);
    CHECK(memcmp(mem(BUF_PA(1) + 0x2000), mem(BUF_PA(0)), 3000));
    teardown_roce();
}

/* ---- two devices on a lossy link ---------------------------------------- */

#define LINK_QMAX 512
static struct {
    E810Core *dst;
    size_t len;
    unsigned due;               /* link_now at which it is delivered */
    uint8_t f[ROCE_FRAME_MAX];
} link_q[LINK_QMAX];
static unsigned link_n, link_sent, link_lost, link_drop_every;
/* Random impairments, in per mille (test_rc_impaired), and their tally. */
static unsigned link_loss, link_dup, link_delay, link_now;
static unsigned link_dups, link_delayed;
static uint32_t link_seed;
static IfxState *one_device;    /* the fixture's default device */
static bool link_cut;
static unsigned link_to_a;      /* frames B sent towards A */
static uint32_t link_read_psn;  /* PSN of the last READ request A sent */

static IfxState dev_a = IFX_DEV_A;
static IfxState dev_b = IFX_DEV_B;

static unsigned link_rand(void)
{
    link_seed = link_seed * 1103515245u + 12345u;
    return (link_seed >> 16) % 1000;
}

static void link_put(IfxState *to, const void *frame, size_t len,
                     unsigned due)
{
    if (link_n < LINK_QMAX && len <= ROCE_FRAME_MAX) {
        link_q[link_n].dst = &to->dev.c;
        link_q[link_n].len = len;
        link_q[link_n].due = due;
        memcpy(link_q[link_n].f, frame, len);
        link_n++;
    } else {
        link_lost++;
    }
}

static void link_frame(void *opaque, const void *frame, size_t len)
{
    IfxState *to = opaque;
    unsigned due = link_now;
    const char *bad;
    RocePkt k;

    link_sent++;
    if (to == &dev_a) {
        link_to_a++;
    } else if (roce_parse(frame, len, &k, &bad) && !bad &&
               k.opcode == ROCE_READ_REQ) {
        link_read_psn = k.psn;
    }
    if (link_cut || (link_drop_every && link_sent % link_drop_every == 0) ||
        (link_loss && link_rand() < link_loss)) {
        link_lost++;
        return;
    }
    if (link_delay && link_rand() < link_delay) {
        due += 1 + link_rand() % 4;     /* overtaken by later frames */
        link_delayed++;
    }
    link_put(to, frame, len, due);
    if (link_dup && link_rand() < link_dup) {
        link_put(to, frame, len, due + link_rand() % 6);
        link_dups++;
    }
}

/* Deliver what is due on the link and let 1 ms pass on both devices. */
static void link_step(void)
{
    static uint8_t f[ROCE_FRAME_MAX];
    unsigned i, n = link_n, kept = 0;

    for (i = 0; i < n; i++) {
        size_t len = link_q[kept].len;
        E810Core *dst = link_q[kept].dst;

        if (link_q[kept].due > link_now) {
            kept++;             /* not yet: stays in front of the new ones */
            continue;
        }
        memcpy(f, link_q[kept].f, len);
        memmove(link_q + kept, link_q + kept + 1,
                (link_n - kept - 1) * sizeof(link_q[0]));
        link_n--;
        e810_receive(dst, f, len);
    }
    link_now++;
    fake_host_advance(&dev_a.dev.h, 1000000);
    fake_host_advance(&dev_b.dev.h, 1000000);
}

static void two_devices(void)
{
    link_n = link_sent = link_lost = link_to_a = 0;
    link_cut = false;
    ifx_setup_roce_pair(&dev_a, &dev_b);
    CHECK_EQ(ifx_failures, 0);
    dev_a.dev.h.frame_cb = link_frame;
    dev_a.dev.h.frame_opaque = &dev_b;
    dev_b.dev.h.frame_cb = link_frame;
    dev_b.dev.h.frame_opaque = &dev_a;
}

/* B has nothing left to complete; the link back to normal, both down. */
static void two_devices_end(void)
{
    uint64_t cqe[4];

    ifx_cur = &dev_b;
    CHECK(!cqe_next(cqe));
    link_drop_every = link_loss = link_dup = link_delay = 0;
    link_cut = false;
    for (unsigned k = 0; k < 20; k++) {
        link_step();            /* what is still on the link */
    }
    ifx_teardown_two(&dev_a, &dev_b);
    ifx_cur = one_device;
    dev_a.mss = dev_b.mss = 0;
}

/* A frame of @from's QP 3 to @to's QP @dqpn, as a hostile or confused
 * peer sends it: BTH with @opcode and @psn, then @ext (a multiple of 4
 * bytes). */
static void peer_frame(IfxState *to, IfxState *from, unsigned dqpn,
                       unsigned opcode, uint32_t psn, bool ackreq,
                       const uint8_t *ext, size_t ext_len)
{
    static uint8_t f[ROCE_FRAME_MAX];
    RocePath p = { .ipv4 = true, .ttl = 64, .sport = 0xC000 };
    size_t off;

    memcpy(p.smac, from->mac, 6);
    memcpy(p.dmac, to->mac, 6);
    stbe32(p.sip, from->ip);
    stbe32(p.dip, to->ip);
    off = roce_frame_start(f, &p);
    roce_bth_put(f + off, (uint8_t)opcode, false, 0, 0xFFFF, dqpn, ackreq,
                 psn & ROCE_PSN_MASK);
    memcpy(f + off + ROCE_BTH_LEN, ext, ext_len);
    e810_receive(&to->dev.c, f,
                 roce_frame_seal(f, &p, off, off + ROCE_BTH_LEN + ext_len));
}

/* A READ request from A's QP 3 to B's QP 4 at @psn for @len bytes of
 * B's MR 1. */
static void peer_read(uint32_t psn, uint64_t va, uint32_t len)
{
    uint8_t reth[ROCE_RETH_LEN];

    stbe64(reth, va);
    stbe32(reth + 8, STAG(1));
    stbe32(reth + 12, len);
    peer_frame(&dev_b, &dev_a, 4, ROCE_READ_REQ, psn, true, reth,
               sizeof(reth));
}

/* Steps of the link until A has @n completions (or 20000 steps); the
 * number of error completions among them in *@errors. */
static unsigned a_wait_cqes(unsigned n, unsigned *errors)
{
    uint64_t cqe[4];
    unsigned got = 0, k;

    for (k = 0; k < 20000 && got < n; k++) {
        link_step();
        ifx_cur = &dev_a;
        while (cqe_next(cqe)) {
            *errors += !!(cqe[3] & CQE_ERROR);
            got++;
        }
    }
    return got;
}

/*
 * A 60000-byte READ at path MTU 256 (235 responses): the responder sends
 * them through the transmit gate, a budget per entry point, the rest
 * from its bottom half.  Then B's backend takes nothing while A sends
 * ten WRITEs that ask for ACKs and another READ: one frame waits in the
 * host, the ACKs owed fold into one; once the backend drains, everything
 * completes, data intact.
 */
static void test_rc_read_paced(void)
{
    const uint32_t len = 60000;
    E810TxSchedStats *st = &dev_b.dev.c.txs.stats;
    unsigned errors = 0, i, k;

    dev_a.mss = dev_b.mss = 256;
    two_devices();
    ifx_cur = &dev_b;
    fill(BUF_PA(1), len, 41);
    ifx_cur = &dev_a;
    memset(mem(BUF_PA(0)), 0, len);
    ifx_sq_op(0, 0x01, BUF_PA(0), len, BUF_PA(1), SIG | STAG(1));
    CHECK_EQ(a_wait_cqes(1, &errors), 1);
    CHECK_EQ(errors, 0);
    CHECK(!memcmp(fake_mem(&dev_a.dev.h, BUF_PA(0)),
                  fake_mem(&dev_b.dev.h, BUF_PA(1)), len));
    CHECK_EQ(link_to_a, 235);
    CHECK(st->entry_max <= E810_TX_BUDGET);
    CHECK_EQ(st->capped_entry, 0);
    CHECK_EQ(st->capped_queued, 0);
    CHECK(st->bh_runs > 0);

    /* B's backend full: WRITEs that want ACKs, then a READ. */
    dev_b.dev.h.tx_full = true;
    ifx_cur = &dev_b;
    fill(BUF_PA(1) + 0xF000, 4000, 42);
    ifx_cur = &dev_a;
    fill(BUF_PA(0) + 0xF000, 1000, 43);
    for (i = 0; i < 10; i++) {
        ifx_sq_op_put(0, 0x00, BUF_PA(0) + 0xF000 + 100 * i, 100,
                      BUF_PA(1) + 0x100 * i, SIG | STAG(1));
    }
    ifx_sq_op_put(0, 0x01, BUF_PA(0) + 0xE000, 4000, BUF_PA(1) + 0xF000,
                  SIG | STAG(1));
    ifx_wr(PFPE_WQEALLOC, 3);
    for (k = 0; k < 10; k++) {
        link_step();
    }
    CHECK_EQ(dev_b.dev.h.nheld, 1);
    CHECK_EQ(st->queued_max, 1);
    CHECK(e810_roce_stats(&dev_b.dev.c)->acks_coalesced >= 8);
    dev_b.dev.h.tx_full = false;
    fake_host_tx_release(&dev_b.dev.h, &dev_b.dev.c, FAKE_MAX_HELD);
    CHECK_EQ(a_wait_cqes(11, &errors), 11);
    CHECK_EQ(errors, 0);
    for (i = 0; i < 10; i++) {
        CHECK(!memcmp(fake_mem(&dev_b.dev.h, BUF_PA(1) + 0x100 * i),
                      fake_mem(&dev_a.dev.h, BUF_PA(0) + 0xF000 + 100 * i),
                      100));
    }
    CHECK(!memcmp(fake_mem(&dev_a.dev.h, BUF_PA(0) + 0xE000),
                  fake_mem(&dev_b.dev.h, BUF_PA(1) + 0xF000), 4000));
    CHECK_EQ(st->capped_entry, 0);
    CHECK_EQ(st->capped_queued, 0);
    CHECK(st->entry_max <= E810_TX_BUDGET);
    two_devices_end();
}

/*
 * Duplicate READ requests: one for a READ just answered is answered
 * again from the PSN it names (all 235 responses, or the last 135), one
 * for no READ the responder keeps gets nothing.  None costs more than a
 * budget of frames per entry point.
 */
static void test_rc_read_dup(void)
{
    const uint32_t len = 60000;
    const E810RoceCounters *rs;
    unsigned errors = 0, n0, k;
    uint32_t psn;

    dev_a.mss = dev_b.mss = 256;
    two_devices();
    ifx_cur = &dev_b;
    fill(BUF_PA(1), len, 51);
    ifx_cur = &dev_a;
    ifx_sq_op(0, 0x01, BUF_PA(0), len, BUF_PA(1), SIG | STAG(1));
    CHECK_EQ(a_wait_cqes(1, &errors), 1);
    CHECK_EQ(errors, 0);
    psn = link_read_psn;
    rs = e810_roce_stats(&dev_b.dev.c);

    n0 = link_to_a;
    peer_read(psn, BUF_PA(1), len);
    for (k = 0; k < 50; k++) {
        link_step();
    }
    CHECK_EQ(link_to_a - n0, 235);

    n0 = link_to_a;
    peer_read(psn + 100, BUF_PA(1) + 100 * 256, len - 100 * 256);
    for (k = 0; k < 50; k++) {
        link_step();
    }
    CHECK_EQ(link_to_a - n0, 135);

    n0 = link_to_a;
    peer_read(psn - 1000, BUF_PA(1), len);
    for (k = 0; k < 50; k++) {
        link_step();
    }
    CHECK_EQ(link_to_a - n0, 0);
    CHECK_EQ(rs->rd_dup_stale, 1);
    CHECK(dev_b.dev.c.txs.stats.entry_max <= E810_TX_BUDGET);
    CHECK_EQ(dev_b.dev.c.txs.stats.capped_entry, 0);
    /* A took the repeated responses as unexpected, nothing failed. */
    CHECK(e810_roce_stats(&dev_a.dev.c)->rx_unexpected >= 370);
    ifx_cur = &dev_a;
    CHECK(!ifx_ae_seen(3, AE_LLP_TOO_MANY_RETRIES));
    two_devices_end();
}

/* A requester past the IRD it was given (16 READs not answered yet):
 * the 17th gets a NAK invalid request and the responder's QP fails. */
static void test_rc_read_ird(void)
{
    unsigned k;

    two_devices();
    dev_b.dev.h.tx_full = true;         /* nothing gets answered */
    for (k = 0; k < 16; k++) {
        peer_read(dev_a.psn[0] + 2 * k, BUF_PA(1), 2000);   /* 2 packets */
    }
    ifx_cur = &dev_b;
    CHECK(!ifx_ae_seen(4, AE_IB_INVALID_REQUEST));
    CHECK_EQ(e810_roce_stats(&dev_b.dev.c)->rd_ird_exceeded, 0);
    peer_read(dev_a.psn[0] + 32, BUF_PA(1), 2000);
    CHECK_EQ(e810_roce_stats(&dev_b.dev.c)->rd_ird_exceeded, 1);
    CHECK(ifx_ae_seen(4, AE_IB_INVALID_REQUEST));
    CHECK_EQ(dev_b.dev.h.nheld, 1);
    dev_b.dev.h.tx_full = false;
    fake_host_tx_release(&dev_b.dev.h, &dev_b.dev.c, FAKE_MAX_HELD);
    two_devices_end();
}

/* ---- local ops: fast register, invalidation (issue 31) ---------------- */

#define FR_IDX(i)       (0x40u + (i))
#define FR_PG(i)        M(0x60000 + 0x3000 * (i))
#define FR_VA           0x7F0000000100ull
#define FR_RIGHTS       (E810_ACC_LOCAL_WRITE | E810_ACC_REMOTE_WRITE)

static E810RdmaMr *mr_at(IfxState *d, unsigned idx)
{
    return &d->dev.c.rdma.mr[idx];
}

/* Two devices with STag index @idx allocated on A (ALLOC_STAG). */
static void two_devices_stag(unsigned idx)
{
    two_devices();
    ifx_cur = &dev_a;
    ifx_alloc_stag(idx);
    CHECK_EQ(ifx_failures, 0);
}

/* Steps of the link until ifx_cur (A) has a CQE: whether one came. */
static bool a_next_cqe(uint64_t cqe[4])
{
    for (unsigned k = 0; k < 20000; k++) {
        ifx_cur = &dev_a;
        if (cqe_next(cqe)) {
            return true;
        }
        link_step();
    }
    return false;
}

/* The next CQE of A is SQ WQE @idx of QP 3, opcode @op, status @st. */
static bool a_sq_cqe(unsigned idx, unsigned op, unsigned st)
{
    uint64_t cqe[4];

    if (!a_next_cqe(cqe)) {
        return false;
    }
    ifx_cur = &dev_a;
    return (cqe[3] & CQE_SQ) && ((cqe[3] >> 32) & 0x7FFF) == idx &&
           ((cqe[3] >> 56) & 0x3F) == op &&
           (st ? (cqe[3] & CQE_ERROR) && (cqe[3] & 0xFFFF) == st :
                 !(cqe[3] & CQE_ERROR));
}

/*
 * nvme-rdma's host posts REG_MR with the local fence behind commands
 * still in flight.  A Fast Register held at its fence is executed once,
 * when the SQ takes it: held behind an outstanding READ (B's backend
 * full, its responses wait) and behind a SEND that A's own backend cannot
 * send, the MR stays invalid until the WQEs before it are done, and it is
 * registered once (no AE FASTREG_VALID_STAG when the SQ goes on).  Then
 * the cycle nvme-rdma repeats: B writes into the MR, invalidates it with
 * Send with Invalidate, A registers it again with the next key; and a
 * Fast Register of a valid MR fails as on the card (error CQE, AE).
 */
static void test_rc_fenced_fast_reg(void)
{
    const uint32_t fr0 = FR_IDX(0) << 8 | 0x31;
    unsigned rd, fr, sd;
    uint64_t cqe[4];

    two_devices_stag(FR_IDX(0));

    /* Behind an outstanding READ. */
    ifx_cur = &dev_b;
    fill(BUF_PA(1), 4000, 61);
    dev_b.dev.h.tx_full = true;
    ifx_cur = &dev_a;
    rd = ifx_sq_op_put(0, 0x01, BUF_PA(0), 4000, BUF_PA(1), SIG | STAG(1));
    fr = ifx_fast_reg_post(0, fr0, FR_VA, 4096, FR_PG(0), 0, 0, FR_RIGHTS);
    for (unsigned k = 0; k < 30; k++) {
        link_step();
        ifx_wr(PFPE_WQEALLOC, 3);       /* the driver rings again */
    }
    CHECK(!mr_at(&dev_a, FR_IDX(0))->registered);
    dev_b.dev.h.tx_full = false;
    fake_host_tx_release(&dev_b.dev.h, &dev_b.dev.c, FAKE_MAX_HELD);
    CHECK(a_sq_cqe(rd, 0x01, 0));
    CHECK(a_sq_cqe(fr, 0x09, 0));
    CHECK(!memcmp(fake_mem(&dev_a.dev.h, BUF_PA(0)),
                  fake_mem(&dev_b.dev.h, BUF_PA(1)), 4000));
    CHECK(mr_at(&dev_a, FR_IDX(0))->registered);
    CHECK_EQ(mr_at(&dev_a, FR_IDX(0))->key, 0x31);

    /* B writes into it, then invalidates it with Send with Invalidate. */
    ifx_cur = &dev_b;
    fill(BUF_PA(1) + 0x2000, 3000, 62);
    ifx_sq_op(1, 0x00, BUF_PA(1) + 0x2000, 3000, FR_VA + 0x10, fr0);
    ifx_cur = &dev_a;
    rq_post(0, BUF_PA(0) + 0x8000, 64);
    ifx_cur = &dev_b;
    ifx_sq_op(1, 0x04, BUF_PA(1), 16, 0, fr0);
    CHECK(a_next_cqe(cqe));
    CHECK(!(cqe[3] & CQE_SQ) && !(cqe[3] & CQE_ERROR));
    CHECK(cqe[3] & (1ull << 53));               /* STag invalidated */
    CHECK_EQ((uint32_t)cqe[2], fr0);
    CHECK(!memcmp(fake_mem(&dev_a.dev.h, FR_PG(0) + 0x110),
                  fake_mem(&dev_b.dev.h, BUF_PA(1) + 0x2000), 3000));
    CHECK(!mr_at(&dev_a, FR_IDX(0))->registered);

    /* Behind a SEND that A's backend cannot take: registered again with
     * the next key, once. */
    ifx_cur = &dev_b;
    rq_post(1, BUF_PA(1) + 0x8000, 4096);
    dev_a.dev.h.tx_full = true;
    ifx_cur = &dev_a;
    sd = ifx_sq_op_put(0, 0x03, BUF_PA(0), 3000, 0, SIG);
    fr = ifx_fast_reg_post(0, fr0 + 1, FR_VA, 4096, FR_PG(0), 0, 0,
                           FR_RIGHTS);
    for (unsigned k = 0; k < 30; k++) {
        link_step();
        ifx_wr(PFPE_WQEALLOC, 3);
    }
    CHECK(!mr_at(&dev_a, FR_IDX(0))->registered);
    dev_a.dev.h.tx_full = false;
    fake_host_tx_release(&dev_a.dev.h, &dev_a.dev.c, FAKE_MAX_HELD);
    CHECK(a_sq_cqe(sd, 0x03, 0));
    CHECK(a_sq_cqe(fr, 0x09, 0));
    CHECK_EQ(mr_at(&dev_a, FR_IDX(0))->key, 0x32);
    CHECK_EQ(dev_a.dev.c.rdma.stats.stag_errors, 0);
    ifx_cur = &dev_a;
    CHECK(!ifx_ae_seen(3, AE_AMP_FASTREG_VALID_STAG));

    /* A Fast Register of the valid MR: error CQE, AE, as on the card. */
    fr = ifx_fast_reg_post(0, fr0 + 2, FR_VA, 4096, FR_PG(0), 0, 0,
                           FR_RIGHTS);
    CHECK(a_sq_cqe(fr, 0x09, AE_AMP_FASTREG_VALID_STAG));
    ifx_cur = &dev_a;
    CHECK(ifx_ae_seen(3, AE_AMP_FASTREG_VALID_STAG));
    CHECK_EQ(mr_at(&dev_a, FR_IDX(0))->key, 0x32);
    CHECK_EQ(dev_a.dev.c.rdma.stats.stag_errors, 1);
    ifx_cur = &dev_b;                   /* B received the SEND */
    CHECK(cqe_next(cqe));
    CHECK(!(cqe[3] & CQE_SQ) && !(cqe[3] & CQE_ERROR));
    CHECK_EQ(cqe[0], 3000);
    two_devices_end();
}

/*
 * The local invalidation paths, each followed by a new registration that
 * must find the MR invalid: Local Invalidate (fenced behind a READ in
 * flight) and RDMA READ with Local Invalidate into the MR.  Invalidating
 * an STag that is not valid fails with AMP_INVALID_STAG.
 */
static void test_rc_local_invalidate(void)
{
    const uint32_t fr0 = FR_IDX(1) << 8 | 0x50;
    unsigned rd, li, fr;
    uint64_t q[4];

    two_devices_stag(FR_IDX(1));
    fr = ifx_fast_reg_post(0, fr0, FR_VA, 4096, FR_PG(1), 0, 0, FR_RIGHTS);
    CHECK(a_sq_cqe(fr, 0x09, 0));

    /* READ in flight, Local Invalidate with the local fence, then the
     * next registration. */
    ifx_cur = &dev_b;
    fill(BUF_PA(1), 2000, 71);
    dev_b.dev.h.tx_full = true;
    ifx_cur = &dev_a;
    rd = ifx_sq_op_put(0, 0x01, BUF_PA(0), 2000, BUF_PA(1), SIG | STAG(1));
    li = ifx_local_inv_put(0, fr0);
    set64(QSQ_PA(0) + 32ull * li + 24,
          mem64(QSQ_PA(0) + 32ull * li + 24) | 1ull << 61);
    fr = ifx_fast_reg_post(0, fr0 + 1, FR_VA, 4096, FR_PG(1), 0, 0,
                           FR_RIGHTS);
    for (unsigned k = 0; k < 30; k++) {
        link_step();
        ifx_wr(PFPE_WQEALLOC, 3);
    }
    CHECK(mr_at(&dev_a, FR_IDX(1))->registered);
    CHECK_EQ(mr_at(&dev_a, FR_IDX(1))->key, 0x50);     /* not yet */
    dev_b.dev.h.tx_full = false;
    fake_host_tx_release(&dev_b.dev.h, &dev_b.dev.c, FAKE_MAX_HELD);
    CHECK(a_sq_cqe(rd, 0x01, 0));
    CHECK(a_sq_cqe(li, 0x0a, 0));
    CHECK(a_sq_cqe(fr, 0x09, 0));
    CHECK_EQ(mr_at(&dev_a, FR_IDX(1))->key, 0x51);

    /* READ with Local Invalidate into the MR, then register again. */
    ifx_cur = &dev_b;
    fill(BUF_PA(1) + 0x100, 1500, 72);
    ifx_cur = &dev_a;
    q[0] = FR_VA + 0x20;
    q[1] = 1500ull << 32 | (fr0 + 1);
    q[2] = BUF_PA(1) + 0x100;
    q[3] = 0;
    rd = sq_post(0, q, 0x0bull << 32 | SIG | STAG(1), 1, NULL);
    CHECK(a_sq_cqe(rd, 0x0b, 0));
    CHECK(!memcmp(fake_mem(&dev_a.dev.h, FR_PG(1) + 0x120),
                  fake_mem(&dev_b.dev.h, BUF_PA(1) + 0x100), 1500));
    CHECK(!mr_at(&dev_a, FR_IDX(1))->registered);
    fr = ifx_fast_reg_post(0, fr0 + 2, FR_VA, 4096, FR_PG(1), 0, 0,
                           FR_RIGHTS);
    CHECK(a_sq_cqe(fr, 0x09, 0));
    CHECK_EQ(dev_a.dev.c.rdma.stats.stag_errors, 0);
    ifx_cur = &dev_a;
    CHECK(!ifx_ae_seen(3, AE_AMP_FASTREG_VALID_STAG));

    /* Local Invalidate twice: the second names an STag that is not valid. */
    li = ifx_local_inv_put(0, fr0 + 2);
    ifx_wr(PFPE_WQEALLOC, 3);
    CHECK(a_sq_cqe(li, 0x0a, 0));
    li = ifx_local_inv_put(0, fr0 + 2);
    ifx_wr(PFPE_WQEALLOC, 3);
    CHECK(a_sq_cqe(li, 0x0a, AE_AMP_INVALID_STAG));
    ifx_cur = &dev_a;
    CHECK(ifx_ae_seen(3, AE_AMP_INVALID_STAG));
    two_devices_end();
}

/* NAKs (PSN sequence error) for the same PSN, from a peer that takes
 * nothing: each goes back and costs a retry; past REXMIT_THRESH (7) the
 * QP fails with LLP_TOO_MANY_RETRIES, as for timeouts. */
static void test_rc_nak_retries(void)
{
    uint8_t aeth[4] = { ROCE_AETH_NAK | ROCE_NAK_PSN_SEQ, 0, 0, 0 };
    unsigned k;

    two_devices();
    link_cut = true;
    ifx_cur = &dev_a;
    ifx_sq_op(0, 0x00, BUF_PA(0), 100, BUF_PA(1), SIG | STAG(1));
    for (k = 0; k < 7; k++) {
        peer_frame(&dev_a, &dev_b, 3, ROCE_ACK, dev_a.psn[0], false, aeth, 4);
    }
    ifx_cur = &dev_a;
    CHECK(!ifx_ae_seen(3, AE_LLP_TOO_MANY_RETRIES));
    CHECK_EQ(link_sent, 8);
    peer_frame(&dev_a, &dev_b, 3, ROCE_ACK, dev_a.psn[0], false, aeth, 4);
    CHECK(ifx_ae_seen(3, AE_LLP_TOO_MANY_RETRIES));
    CHECK_EQ(link_sent, 8);
    two_devices_end();
}

/* A's QP 3 moves 40 messages (SEND, WRITE, READ in turn, up to 9000
 * bytes) to B's QP 4 while every 7th frame is lost both ways: every byte
 * arrives, every WQE completes once, in order. */
static void test_rc_lossy(void)
{
    unsigned i, sq_cqes = 0, rq_cqes = 0, errors = 0, k;
    uint64_t cqe[4];

    two_devices();
    link_drop_every = 7;
    for (i = 0; i < 40; i++) {
        unsigned len = 1000 + (i * 797) % 8000, kind = i % 3;
        uint64_t src = BUF_PA(0) + 0x4000 * (i % 3);

        ifx_cur = &dev_a;
        fill(src, len, i);
        if (kind == 0) {
            ifx_cur = &dev_b;
            rq_post(1, BUF_PA(1) + 0x8000, 0x4000);
            ifx_cur = &dev_a;
            ifx_sq_op(0, 0x03, src, len, 0, SIG);
        } else if (kind == 1) {
            ifx_sq_op(0, 0x00, src, len, BUF_PA(1) + 0x100,
                      SIG | STAG(1));
        } else {
            ifx_cur = &dev_b;
            fill(BUF_PA(1) + 0xC000, len, i + 100);
            ifx_cur = &dev_a;
            ifx_sq_op(0, 0x01, BUF_PA(0) + 0xC000, len, BUF_PA(1) + 0xC000,
                      SIG | STAG(1));
        }
        for (k = 0; k < 3000; k++) {
            bool got = false;

            link_step();
            ifx_cur = &dev_a;
            while (cqe_next(cqe)) {
                sq_cqes++;
                errors += !!(cqe[3] & CQE_ERROR);
                CHECK_EQ((cqe[3] >> 56) & 0x3F, kind == 0 ? 3u : kind - 1);
                got = true;
            }
            if (got) {
                break;
            }
        }
        if (kind == 0) {
            ifx_cur = &dev_b;
            CHECK(cqe_next(cqe));
            rq_cqes++;
            CHECK_EQ(cqe[0], len);
            CHECK(!memcmp(fake_mem(&dev_b.dev.h, BUF_PA(1) + 0x8000),
                          fake_mem(&dev_a.dev.h, src), len));
        } else if (kind == 1) {
            CHECK(!memcmp(fake_mem(&dev_b.dev.h, BUF_PA(1) + 0x100),
                          fake_mem(&dev_a.dev.h, src), len));
        } else {
            CHECK(!memcmp(fake_mem(&dev_a.dev.h, BUF_PA(0) + 0xC000),
                          fake_mem(&dev_b.dev.h, BUF_PA(1) + 0xC000), len));
        }
    }
    CHECK_EQ(sq_cqes, 40);
    CHECK_EQ(rq_cqes, 14);
    CHECK_EQ(errors, 0);
    CHECK(link_lost > 0);
    CHECK(e810_roce_stats(&dev_a.dev.c)->retransmits > 0);
    two_devices_end();
}

/*
 * A's QP 3 and B's QP 4 over a link that loses, duplicates and delays
 * (reorders) frames at random, with up to four WRITEs and READs of up to
 * 12 packets outstanding at a time: late and duplicate NAKs and READ
 * responses meet READs asked for again from the middle.  Every byte read
 * and written is where it belongs, every WQE completes once without
 * error, in order.
 */
static void test_rc_impaired(void)
{
    unsigned b, i, k, sq_cqes = 0, errors = 0, bad = 0, nops;
    uint64_t cqe[4];
    unsigned kind[4], len[4];

    two_devices();
    link_seed = 7;
    link_loss = 30;
    link_dup = 30;
    link_delay = 50;
    link_now = link_dups = link_delayed = 0;
    for (b = 0; b < 60; b++) {
        nops = 1 + b % 4;
        for (i = 0; i < nops; i++) {
            /* Op i uses slot i of the MRs on both sides. */
            uint64_t loc = BUF_PA(0) + 0x4000 * i;
            uint64_t rmt = BUF_PA(1) + 0x4000 * i;

            kind[i] = link_rand() % 2;
            len[i] = 1 + (link_rand() * 13 + b) % 12000;
            ifx_cur = &dev_a;
            if (kind[i] == 0) {
                fill(loc, len[i], b * 8 + i);
            } else {
                ifx_cur = &dev_b;
                fill(rmt, len[i], b * 8 + i + 100);
                ifx_cur = &dev_a;
                memset(mem(loc), 0xEE, len[i]);
            }
            ifx_sq_op_put(0, kind[i], loc, len[i], rmt, SIG | STAG(1));
        }
        ifx_cur = &dev_a;
        ifx_wr(PFPE_WQEALLOC, 3);      /* one doorbell for the batch */
        for (k = 0, i = 0; k < 20000 && i < nops; k++) {
            link_step();
            ifx_cur = &dev_a;
            while (cqe_next(cqe)) {
                errors += !!(cqe[3] & CQE_ERROR);
                CHECK_EQ((cqe[3] >> 56) & 0x3F, i < nops ? kind[i] : 9u);
                i++;
                sq_cqes++;
            }
        }
        CHECK_EQ(i, nops);
        for (i = 0; i < nops; i++) {
            bad += !!memcmp(fake_mem(&dev_b.dev.h, BUF_PA(1) + 0x4000 * i),
                            fake_mem(&dev_a.dev.h, BUF_PA(0) + 0x4000 * i),
                            len[i]);
        }
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(errors, 0);
    printf("# link: %u sent, %u lost, %u duplicated, %u delayed\n", link_sent,
           link_lost, link_dups, link_delayed);
    CHECK(link_lost > 0 && link_dups > 0 && link_delayed > 0);
    CHECK(e810_roce_stats(&dev_a.dev.c)->retransmits > 0);
    two_devices_end();
}

/* The peer is gone: REXMIT_THRESH (7) retransmissions, then the QP
 * reports LLP_TOO_MANY_RETRIES. */
static void test_rc_retry_exceeded(void)
{
    uint64_t ctx;
    unsigned k, qp, code, found = 0;

    two_devices();
    link_cut = true;
    ifx_cur = &dev_a;
    ifx_sq_op(0, 0x00, BUF_PA(0), 100, BUF_PA(1), SIG | STAG(1));
    for (k = 0; k < 20000 && !found; k++) {
        link_step();
        while (aeqe_next(&ctx, &qp, &code)) {
            CHECK_EQ(qp, 3);
            CHECK_EQ(code, 0x050a);
            found++;
        }
    }
    CHECK_EQ(found, 1);
    CHECK_EQ(e810_roce_stats(&dev_a.dev.c)->retransmits, 7);
    CHECK_EQ(link_sent, 8);
    two_devices_end();
}

/* ---- QP 1 (GSI) as a UD QP ---------------------------------------------- */

#define GSI_CQ          1
#define GSI_CQ_PA       M(0xC000)
#define GSI_CTX_PA      M(0xC900)
#define GSI_SQ_PA       M(0xD000)
#define GSI_RQ_PA       M(0xD400)
#define GSI_BUF(i)      (BUF_PA(1) + 0x200 * (i))
#define AH_IDX          5

static void test_ud_gsi(void)
{
    uint64_t q[8] = { 0 }, cqe[4];
    unsigned i;
    uint8_t *grh;

    setup_roce();
    /* CQ 1, QP 1 (type 4, RoCE UD) with Q_Key 0x80010000. */
    memset(mem(GSI_CQ_PA), 0, 32 * 64);
    q[0] = 64;
    q[1] = 0x1111;
    q[4] = GSI_CQ_PA;
    q[5] = GSI_CQ_PA + 0x800;
    CHECK_EQ(cqp(0x03, q, GSI_CQ), 0);
    memset(mem(GSI_CTX_PA), 0, 256);
    memset(mem(GSI_SQ_PA), 0, 0x400);
    memset(mem(GSI_RQ_PA), 0, 0x400);
    ifx_ud_ctx(GSI_CTX_PA, GSI_SQ_PA, GSI_RQ_PA, ROCE_GSI_QKEY, GSI_CQ,
               0xFFFF8880AAAA0001ull);
    set64(GSI_CTX_PA + 160, 1ull << 25);
    ifx_ud_create(1, GSI_CTX_PA, 0);
    /* Four receive buffers (GRH + MAD) on its RQ. */
    for (i = 0; i < 4; i++) {
        uint64_t w = GSI_RQ_PA + 32ull * i;

        set64(w, GSI_BUF(i));
        set64(w + 8, 296ull << 32 | STAG(1));
        set64(w + 24, 1ull << 63);
    }
    /* AH 5: to ourselves (ARP 1), IPv4 10.0.0.1 -> 10.0.0.1. */
    memset(q, 0, sizeof(q));
    q[0] = 0;
    for (i = 0; i < 6; i++) {
        q[0] = q[0] << 8 | ifx_mac[i];
    }
    q[0] <<= 16;
    q[1] = (uint64_t)PD << 48;
    q[2] = 1ull << 48 | 64ull << 32;
    q[4] = OUR_IP;
    q[6] = OUR_IP;
    CHECK_EQ(cqp(0x1c, q, AH_IDX | 1ull << 59), 0);
    /* A 256-byte MAD from QP 1 to QP 1 (Q_Key with the high bit: the
     * QP's own). */
    fill(BUF_PA(0), 256, 0x42);
    set64(GSI_SQ_PA + 0, BUF_PA(0));
    set64(GSI_SQ_PA + 8, 256ull << 32 | STAG(0));
    set64(GSI_SQ_PA + 16, 0x80000000ull | 1ull << 32);
    set64(GSI_SQ_PA + 24, AH_IDX | 0x03ull << 32 | SIG | 1ull << 63);
    ifx_wr(PFPE_WQEALLOC, 1);
    run();
    /* CQ 1: the send, then the receive with the GRH slot. */
    for (i = 0; i < 2; i++) {
        for (int k = 0; k < 4; k++) {
            cqe[k] = mem64(GSI_CQ_PA + 32 * i + 8 * k);
        }
        CHECK(cqe[3] >> 63);
        CHECK(!(cqe[3] & CQE_ERROR));
        if (cqe[3] & CQE_SQ) {
            CHECK_EQ((cqe[3] >> 56) & 0x3F, 0x03);
        } else {
            CHECK_EQ(cqe[0], 40 + 256);
            CHECK_EQ(cqe[2] & 0xFFFFFFFF, 1);               /* source QP */
            CHECK_EQ((cqe[2] >> 32) & 0xFFFFFF, 1);
            CHECK(cqe[3] & (1ull << 53));                   /* IPv4 */
            CHECK_EQ((cqe[3] >> 56) & 0x3F, 0x3e);
        }
    }
    grh = mem(GSI_BUF(0));
    for (i = 0; i < 20; i++) {
        CHECK_EQ(grh[i], 0);
    }
    CHECK_EQ(grh[20], 0x45);                                /* IPv4 header */
    CHECK_EQ(grh[29], 17);
    CHECK(!memcmp(grh + 40, mem(BUF_PA(0)), 256));
    /* A datagram with another Q_Key is dropped and counted. */
    set64(GSI_SQ_PA + 32, BUF_PA(0));
    set64(GSI_SQ_PA + 40, 16ull << 32 | STAG(0));
    set64(GSI_SQ_PA + 48, 0x1234ull | 1ull << 32);
    set64(GSI_SQ_PA + 56, AH_IDX | 0x03ull << 32 | 1ull << 63);
    ifx_wr(PFPE_WQEALLOC, 1);
    run();
    CHECK_EQ(e810_roce_stats(&C)->rx_key, 1);
    CHECK(!(mem64(GSI_CQ_PA + 64 + 24) >> 63));
    CHECK_EQ(H.guest_errors, 0);
    teardown_roce();
}

int main(void)
{
    one_device = ifx_cur;
    RUN(test_wire_format);
    RUN(test_rc_loopback);
    RUN(test_rc_rnr_and_access_error);
    RUN(test_rc_error_status);
    RUN(test_rc_lossy);
    RUN(test_rc_impaired);
    RUN(test_rc_retry_exceeded);
    RUN(test_rc_gen_ae_and_modify);
    RUN(test_rc_read_paced);
    RUN(test_rc_read_dup);
    RUN(test_rc_read_ird);
    RUN(test_rc_nak_retries);
    RUN(test_rc_fenced_fast_reg);
    RUN(test_rc_local_invalidate);
    RUN(test_ud_gsi);
    return CHECK_DONE();
}
