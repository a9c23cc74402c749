/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Saved state of the RDMA control path (record E810_SNAP_RDMA) and the
 * PUDA (E810_SNAP_PUDA): a device set up as irdma sets it up (iWARP with
 * the ILQ, and RoCEv2 with a multicast group) is saved, loaded into a
 * second device on a second fake host with the guest memory copied, and
 * saved again: the bytes are the same, and the second device goes on
 * (CQP ops, CQ arm and its CEQE, AEQ credits, the loopback queue, STag
 * translation through the PBLEs).  Every check of the loaders refuses a
 * state with that one value out of range, names it, and leaves the device
 * as a power-on reset does; states the runtime reaches (a destroyed CQ
 * still named, objects beyond a lowered committed count, no CQP) load.
 *
 * The engine's QPs (record E810_SNAP_ENG) and the BASE blocks are other
 * records: the second device has the control path, not the data path.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include "check.h"
#include "iwarp-fixture.h"
#include "rdma/port.h"
#include "snap.h"

#define H (ifx.h)
#define C (ifx.c)

#define CEQ_PA          M(0x60000)
#define CEQ_SIZE        16
#define CEQ_VEC         3
#define CQ5_PA          M(0x61000)
#define CQ5_SHADOW      M(0x62000)
#define CQ6_PA          M(0x63000)
#define CQ6_SHADOW      M(0x63800)
#define PG(i)           M(0x64000 + 0x1000 * (i))   /* PBL MR pages */
#define MGCTX_PA        M(0x70000)
#define UD_PAGE         M(0x71000)
/* SD 1 (direct) maps the PBLE object: 2 MiB of guest memory, aligned. */
#define SD1_PA          (FAKE_MEM_BASE + 0xC00000)
#define PBL_IDX         10
#define PBL_STAG_IDX    0x20
#define PBL_STAG        (PBL_STAG_IDX << 8 | 0x77)
#define PBL_VA          0x7F0000001000ull
#define FREE_STAG_IDX   0x30
#define GRP4            0xEF010203u

static FakeHost h2;
static E810Core c2;
/* What a device fresh from a power-on reset saves. */
static E810SnapW fresh;

static void save(E810Core *dev, E810SnapW *w)
{
    char err[256];

    e810_snap_w_init(w);
    CHECK(e810_core_save(dev, w, err, sizeof(err)));
}

/* The second device: the first one's MAC, guest memory and clock. */
static void twin_up(void)
{
    fake_host_init(&h2);
    memcpy(h2.mem, H.mem, FAKE_MEM_SIZE);
    h2.now = H.now;
    e810_core_init(&c2, &h2.host, C.mac);
    save(&c2, &fresh);
}

static void twin_down(void)
{
    e810_core_cleanup(&c2);
    fake_host_cleanup(&h2);
    e810_snap_w_free(&fresh);
}

/* The header's mem_used: what the engine's QPs charge (E810_SNAP_ENG,
 * not loaded here), after the record header, "E810", the MAC, link_up. */
#define HDR_MEM_USED    (8 + 4 + 6 + 1)

/* The same bytes but for the header's mem_used. */
static bool same(const E810SnapW *a, const E810SnapW *b)
{
    const size_t m = HDR_MEM_USED, n = HDR_MEM_USED + 8;

    return a->len == b->len && a->len > n && !memcmp(a->buf, b->buf, m) &&
           !memcmp(a->buf + n, b->buf + n, a->len - n);
}

/* Save the first device, load the second: true if it loaded and saves
 * the same bytes again. */
static bool round_trip(void)
{
    E810SnapW w, w2;
    char err[256] = "";
    bool ok;

    save(&C, &w);
    memcpy(h2.mem, H.mem, FAKE_MEM_SIZE);
    h2.now = H.now;
    ok = e810_core_load(&c2, w.buf, w.len, err, sizeof(err));
    if (!ok) {
        fprintf(stderr, "load: %s\n", err);
        e810_snap_w_free(&w);
        return false;
    }
    save(&c2, &w2);
    ok = same(&w, &w2);
    if (!ok) {
        size_t i = 0;

        while (i < w.len && i < w2.len &&
               (w.buf[i] == w2.buf[i] ||
                (i >= HDR_MEM_USED && i < HDR_MEM_USED + 8))) {
            i++;
        }
        fprintf(stderr, "saved again: %zu bytes, not %zu; first "
                "difference at %zu\n", w2.len, w.len, i);
    }
    e810_snap_w_free(&w);
    e810_snap_w_free(&w2);
    return ok;
}

/* The first device as it is now must be refused with a message naming
 * @what, and the second left as a power-on reset leaves it. */
static void expect_refused(const char *what, int line)
{
    E810SnapW w, w2;
    char err[256] = "";

    save(&C, &w);
    if (e810_core_load(&c2, w.buf, w.len, err, sizeof(err))) {
        fprintf(stderr, "%s:%d: a state with a bad %s loaded\n", __FILE__,
                line, what);
        check_failed++;
    } else if (!strstr(err, what)) {
        fprintf(stderr, "%s:%d: '%s' not in \"%s\"\n", __FILE__, line, what,
                err);
        check_failed++;
    }
    CHECK_EQ(c2.mem_used, 0);
    CHECK(!c2.rdma.cqp_active);
    CHECK_EQ(c2.puda.lpb_count, 0);
    save(&c2, &w2);
    CHECK(same(&w2, &fresh));
    e810_snap_w_free(&w);
    e810_snap_w_free(&w2);
}

/* @lv set to @val in the first device while it is saved. */
#define BAD(lv, val, what) do { \
    __typeof__(lv) keep_ = (lv); \
    (lv) = (val); \
    expect_refused(what, __LINE__); \
    (lv) = keep_; \
} while (0)

/* COMMIT_FPM_VAL again with @n[obj] objects of each type. */
static void commit(const uint64_t n[E810_HMC_NUM])
{
    uint64_t q[8] = { 0 };

    memset(ifx_mem(COMMIT_PA), 0, 208);
    for (unsigned i = 0; i < E810_HMC_NUM; i++) {
        ifx_set64(COMMIT_PA + 8 * i, n[i]);
    }
    q[4] = COMMIT_PA;
    CHECK_EQ(ifx_cqp(0x21, q, 208), 0);
}

/* 8 KiB of the PBL MR, from 2 KiB in: pieces through the PBLEs. */
static int xlate(E810Core *dev, XlatePieces *p)
{
    return xlate_pieces(dev, PBL_STAG, PBL_VA + 0x800, 0x2000,
                        E810_ACC_LOCAL_READ, PD, false, p);
}

/* A frame for the loopback queue: to our MAC, @n bytes. */
static void lpb_frame(E810Core *dev, size_t n, uint8_t fill)
{
    uint8_t f[128];

    memset(f, fill, sizeof(f));
    memcpy(f, dev->mac, 6);
    e810_rx_loopback(dev, f, n);
}

/*
 * The iWARP fixture (CQP, FPM, CCQ, AEQ, CQs 1 and 3, ARP, two MRs, QPs
 * 3 and 4 with their quads but no offloaded connection, which the engine
 * does not save yet, the ILQ and its listener) and more:
 * CEQ 0 with the CCQ re-created on it, CQ 5 on CEQ 0 armed, SD 1 with
 * the PBLEs, a PBL-backed MR and a free STag, an AH, a WS node, a
 * statistics instance, an AE taken (credits), frames in the loopback
 * queue.
 */
static void setup_iwarp(void)
{
    uint64_t q[8] = { 0 };
    uint64_t pble;

    ifx_failures = 0;
    ifx_cur->nah = 16;
    ifx_cur->no_conn = true;
    ifx_setup(false);
    CHECK_EQ(ifx_failures, 0);
    /* CEQ 0 on vector CEQ_VEC, then the CCQ again, on it. */
    memset(ifx_mem(CEQ_PA), 0, 8 * CEQ_SIZE);
    q[2] = CEQ_SIZE;
    q[4] = CEQ_PA;
    CHECK_EQ(ifx_cqp(0x16, q, 0), 0);
    ifx_wr(GLINT_CEQCTL(0), E810_CTL_CAUSE_ENA | CEQ_VEC);
    ifx_wr(GLINT_DYN_CTL(CEQ_VEC), GLINT_DYN_CTL_INTENA);
    memset(q, 0, sizeof(q));
    q[0] = CCQ_SIZE;
    q[5] = CCQ_SHADOW;
    cqp_ring_post(&ifx_cur->cqp, q, 0x05ull << 32);
    CHECK(!C.rdma.cq[0].valid);
    cqp_ring_create_ccq(&ifx_cur->cqp, CCQ_SHADOW, CQPSQ_CQ_CEQIDVALID);
    CHECK(C.rdma.cq[0].valid && C.rdma.cq[0].ceq_valid);
    /* CQ 5 on CEQ 0, armed. */
    memset(q, 0, sizeof(q));
    memset(ifx_mem(CQ5_PA), 0, 32 * 16);
    memset(ifx_mem(CQ5_SHADOW), 0, 64);
    q[0] = 16;
    q[1] = 0x5555;
    q[4] = CQ5_PA;
    q[5] = CQ5_SHADOW;
    CHECK_EQ(ifx_cqp(0x03, q, 5 | CQPSQ_CQ_CEQIDVALID), 0);
    ifx_set64(CQ5_SHADOW + 32, CQ_ARM_NEXT);
    ifx_wr(PFPE_CQARM, 5);
    CHECK(C.rdma.cq[5].armed);
    /* SD 1, direct, for the PBLEs; PBLEs PBL_IDX.. name three pages. */
    memset(q, 0, sizeof(q));
    q[0] = 1 | PFHMC_SDCMD_PMSDWR;
    q[1] = SD1_PA | PFHMC_SDDATALOW_PMSDTYPE | PFHMC_SDDATALOW_PMSDVALID;
    CHECK_EQ(ifx_cqp(0x1f, q, 0), 0);
    pble = C.rdma.obj[E810_HMC_PBLE].base;
    CHECK_EQ(pble, 2u << 20);
    for (unsigned i = 0; i < 3; i++) {
        ifx_set64(SD1_PA + pble - (2u << 20) + 8 * (PBL_IDX + i), PG(2 - i));
    }
    /* A PBL-backed MR (level 1, VA based) and a free STag. */
    memset(q, 0, sizeof(q));
    q[0] = PBL_VA;
    q[1] = 0x3000 | (uint64_t)PD << 46;
    q[2] = PBL_STAG;
    q[6] = PBL_IDX;
    CHECK_EQ(ifx_cqp(0x0a, q, 1ull << 44 | 0x3ull << 48 | 1ull << 59), 0);
    memset(q, 0, sizeof(q));
    q[1] = (uint64_t)PD << 46;
    q[2] = FREE_STAG_IDX << 8;
    CHECK_EQ(ifx_cqp(0x09, q, 0xFull << 48), 0);
    CHECK(C.rdma.mr[FREE_STAG_IDX].valid);
    CHECK(!C.rdma.mr[FREE_STAG_IDX].registered);
    /* AH 2, WS leaf 7, a statistics instance. */
    CHECK_EQ(ifx_mc_ah(2, 1, NULL, GRP4), 0);
    CHECK_EQ(ifx_cqp(0x2c, NULL, 7 | 1ull << 61), 0);
    CHECK_EQ(ifx_cqp(0x2d, NULL, 1ull << 62), 0);
    /* An AE for QP 3: one credit taken. */
    memset(q, 0, sizeof(q));
    q[1] = 0x0201 | 5u << 16;
    CHECK_EQ(ifx_cqp(0x22, q, 3 | 1ull << 59), 0);
    CHECK_EQ(C.rdma.aeq.credits, AEQ_SIZE - 1);
    /* Frames waiting for the loopback timer. */
    lpb_frame(&C, 60, 0xA1);
    lpb_frame(&C, 100, 0xA2);
    CHECK(C.puda.lpb_count >= 2);
    CHECK(C.puda.q[0].active && e810_bit(C.puda.bound, 3));
}

static void teardown_iwarp(void)
{
    ifx_teardown();
    ifx_cur->nah = 0;
    ifx_cur->no_conn = false;
}

/* Everything the control path holds came across; derived state too. */
static void check_same_state(void)
{
    E810Rdma *a = &C.rdma, *b = &c2.rdma;

    CHECK(b->cqp_active);
    CHECK_EQ(b->cqp_tail, a->cqp_tail);
    CHECK_EQ(b->cqp_polarity, a->cqp_polarity);
    CHECK_EQ(b->ccqe_pending, a->ccqe_pending);
    CHECK(!memcmp(&b->ccqe_res, &a->ccqe_res, sizeof(a->ccqe_res)));
    CHECK_EQ(b->protocol, a->protocol);
    CHECK(b->fpm_committed);
    CHECK(!memcmp(b->obj, a->obj, sizeof(a->obj)));
    CHECK(!memcmp(b->sd, a->sd, sizeof(a->sd)));
    for (unsigned i = 0; i < E810_RDMA_MAX_CQS; i++) {
        CHECK_EQ(b->cq[i].valid, a->cq[i].valid);
        if (a->cq[i].valid) {
            CHECK(!memcmp(&b->cq[i].ring, &a->cq[i].ring,
                          sizeof(a->cq[i].ring)));
            CHECK_EQ(b->cq[i].armed, a->cq[i].armed);
            CHECK_EQ(b->cq[i].ceq, a->cq[i].ceq);
        }
    }
    CHECK_EQ(b->aeq.credits, a->aeq.credits);
    CHECK_EQ(b->aeq.ring.head, a->aeq.ring.head);
    CHECK(b->ceq[0].valid);
    for (unsigned i = 0; i < E810_RDMA_MAX_QPS; i++) {
        CHECK_EQ(b->qp[i].valid, a->qp[i].valid);
        CHECK_EQ(b->qp[i].state, a->qp[i].state);
        CHECK_EQ(b->qp[i].comp_ctx, a->qp[i].comp_ctx);
    }
    for (unsigned i = 0; i < E810_RDMA_MAX_MRS; i++) {
        CHECK_EQ(b->mr[i].valid, a->mr[i].valid);
        CHECK_EQ(b->mr[i].stag_idx, a->mr[i].stag_idx);
        CHECK_EQ(b->mr[i].pble_idx, a->mr[i].pble_idx);
    }
    CHECK_EQ(b->mcg_count, a->mcg_count);
    CHECK(!memcmp(b->apbvt, a->apbvt, sizeof(a->apbvt)));
    CHECK(!memcmp(b->pestat, a->pestat, sizeof(a->pestat)));
    CHECK_EQ(b->stats.cqp_ops, a->stats.cqp_ops);
    CHECK_EQ(c2.puda.ip_id, C.puda.ip_id);
    CHECK(!memcmp(c2.puda.q, C.puda.q, sizeof(C.puda.q)));
    CHECK(!memcmp(c2.puda.bound, C.puda.bound, E810_RDMA_MAX_QPS / 8));
    CHECK_EQ(c2.puda.lpb_count, C.puda.lpb_count);
    for (unsigned k = 0; k < C.puda.lpb_count; k++) {
        const E810LpbFrame *x = &C.puda.lpb[(C.puda.lpb_head + k) % 256];
        const E810LpbFrame *y = &c2.puda.lpb[(c2.puda.lpb_head + k) % 256];

        CHECK(x->len == y->len && !memcmp(x->data, y->data, x->len));
    }
}

static void test_iwarp_round_trip(void)
{
    CqpRing r2;
    XlatePieces pa, pb;
    uint64_t q[8] = { 0 }, cqe[4];
    unsigned idx, nop, head, pol, irqs, credits;

    setup_iwarp();
    twin_up();
    /* A NOP whose CCQE is still to come when the state is saved. */
    nop = ifx_cur->cqp.sq_head;
    cqp_ring_post(&ifx_cur->cqp, NULL, (uint64_t)CQP_OP_NOP << 32);
    CHECK(C.rdma.ccqe_pending);
    CHECK(round_trip());
    check_same_state();
    CHECK(c2.rdma.ccqe_pending);
    /* The loopback queue drains at the next timer run. */
    CHECK(c2.puda.lpb_count >= 2);
    fake_host_advance(&h2, 0);
    CHECK_EQ(c2.puda.lpb_count, 0);
    /* STag translation through SD 1 and the PBLEs gives the same pages. */
    CHECK_EQ(xlate(&C, &pa), E810_XLATE_OK);
    CHECK_EQ(xlate(&c2, &pb), E810_XLATE_OK);
    CHECK_EQ(pb.n, 3);
    CHECK(pa.n == pb.n && !memcmp(pa.pa, pb.pa, sizeof(pa.pa)));
    CHECK_EQ(pb.pa[0], PG(2) + 0x800);

    /* The CQP goes on where it was: a NOP completes in the CCQ. */
    r2 = ifx_cur->cqp;
    r2.h = &h2;
    r2.c = &c2;
    /* The saved NOP's CCQE comes on its own, with its timer started
     * again at load. */
    CHECK(cqp_ring_wait_ccqe(&r2, cqe));
    CHECK_EQ((cqe[3] >> 32) & 0x7FFF, nop);
    CHECK(!c2.rdma.ccqe_pending);
    idx = r2.sq_head;
    cqp_ring_post(&r2, NULL, (uint64_t)CQP_OP_NOP << 32);
    CHECK(cqp_ring_wait_ccqe(&r2, cqe));
    CHECK_EQ(cqe[1], C.rdma.cqp_cookie);
    CHECK_EQ((cqe[3] >> 32) & 0x7FFF, idx);
    CHECK_EQ((cqe[3] >> 55) & 1, 0);
    /* A new CQ. */
    memset(fake_mem(&h2, CQ6_PA), 0, 32 * 8);
    q[0] = 8;
    q[4] = CQ6_PA;
    q[5] = CQ6_SHADOW;
    CHECK_EQ(cqp_ring_op(&r2, 0x03, q, 6), 0);
    CHECK(c2.rdma.cq[6].valid);
    /* Arming the CCQ raises a CEQE on CEQ 0 and its vector. */
    head = c2.rdma.ceq[0].ring.head;
    pol = c2.rdma.ceq[0].ring.polarity;
    irqs = fake_irq_count(&h2, CEQ_VEC);
    st64(fake_mem(&h2, CCQ_SHADOW + 32), CQ_ARM_NEXT);
    e810_mmio_write(&c2, PFPE_CQARM, 0, 4);
    CHECK_EQ(cqp_ring_op(&r2, CQP_OP_NOP, NULL, 0), 0);
    /* The CCQ's context (0) with the valid bit of the pass. */
    CHECK_EQ(ld64(fake_mem(&h2, CEQ_PA + 8 * head)), (uint64_t)pol << 63);
    CHECK_EQ(c2.rdma.ceq[0].ring.head, head + 1);
    CHECK_EQ(fake_irq_count(&h2, CEQ_VEC), irqs + 1);
    /* An AE takes a credit, AEQALLOC gives it back. */
    head = c2.rdma.aeq.ring.head;
    credits = c2.rdma.aeq.credits;
    memset(q, 0, sizeof(q));
    q[1] = 0x0202 | 5u << 16;
    CHECK_EQ(cqp_ring_op(&r2, 0x22, q, 3 | 1ull << 59), 0);
    CHECK_EQ(ld64(fake_mem(&h2, AEQ_PA + 16 * head)), COMPCTX(0));
    CHECK_EQ((ld64(fake_mem(&h2, AEQ_PA + 16 * head + 8)) >> 34) & 0xFFF,
             0x202);
    CHECK_EQ(c2.rdma.aeq.credits, credits - 1);
    e810_mmio_write(&c2, PFPE_AEQALLOC, 2, 4);
    CHECK_EQ(c2.rdma.aeq.credits, AEQ_SIZE);
    twin_down();
    teardown_iwarp();
}

/* The first @n bytes of @w fail to load, and leave a reset device. */
static void cut_fails(const E810SnapW *w, size_t n)
{
    char err[256] = "";

    CHECK(!e810_core_load(&c2, w->buf, n, err, sizeof(err)));
    CHECK(err[0] != 0);
    CHECK(!c2.rdma.cqp_active);
    CHECK_EQ(c2.puda.lpb_count, 0);
}

/* A cut anywhere in the two records fails, and leaves a reset device. */
static void test_truncated(void)
{
    E810SnapW w, w2;
    size_t at = 0, end;

    setup_iwarp();
    twin_up();
    save(&C, &w);
    /* The records before RDMA (header, registers) are test-snap's. */
    while (at + 8 <= w.len && ld16(w.buf + at) != E810_SNAP_RDMA) {
        at += 8 + ld32(w.buf + at + 4);
    }
    CHECK(at + 8 <= w.len);
    end = at + 8 + ld32(w.buf + at + 4);
    CHECK(ld16(w.buf + end) == E810_SNAP_PUDA);
    end += 8 + ld32(w.buf + end + 4);
    /* Every byte of the first 256, then every 37th, and the last. */
    for (size_t n = at; n < end; n += n - at < 256 ? 1 : 37) {
        cut_fails(&w, n);
    }
    cut_fails(&w, end - 1);
    save(&c2, &w2);
    CHECK(same(&w2, &fresh));
    e810_snap_w_free(&w2);
    e810_snap_w_free(&w);
    twin_down();
    teardown_iwarp();
}

/* Each check of the loaders, one value at a time. */
static void test_refused(void)
{
    E810RdmaMr *mr;
    E810PudaQ *ilq = &C.puda.q[0];
    E810LpbFrame *fr;
    uint8_t *big;

    setup_iwarp();
    mr = &C.rdma.mr[PBL_STAG_IDX];
    twin_up();
    CHECK(round_trip());
    /* CQP */
    BAD(C.rdma.cqp_size, 2, "rdma.cqp_size");
    BAD(C.rdma.cqp_size, 4096, "rdma.cqp_size");
    BAD(C.rdma.cqp_size, 48, "rdma.cqp_size");
    BAD(C.rdma.cqp_tail, C.rdma.cqp_size, "rdma.cqp_tail");
    BAD(C.rdma.cqp_polarity, 2, "rdma.cqp_polarity");
    BAD(C.rdma.protocol, 0, "rdma.protocol");
    BAD(C.rdma.protocol, 3, "rdma.protocol");
    /* HMC: what COMMIT_FPM_VAL accepts */
    BAD(C.rdma.obj[E810_HMC_QP].cnt, E810_RDMA_MAX_QPS + 1, "rdma.obj[0].cnt");
    BAD(C.rdma.obj[E810_HMC_APBVT].cnt, 2, "rdma.obj[5].cnt");
    BAD(C.rdma.obj[E810_HMC_RSVD].cnt, 1, "rdma.obj[15].cnt");
    BAD(C.rdma.obj[E810_HMC_PBLE].cnt, 511, "rdma.obj[14].cnt");
    BAD(C.rdma.obj[E810_HMC_PBLE].cnt, E810_RDMA_MAX_PBLE + 1,
        "rdma.obj[14].cnt");
    /* Rings: a CQ, a CEQ, the AEQ */
    BAD(C.rdma.cq[3].ring.size, 0, "rdma.cq[3].ring.size");
    BAD(C.rdma.cq[3].ring.size, E810_RDMA_MAX_CQ_SIZE + 1,
        "rdma.cq[3].ring.size");
    BAD(C.rdma.cq[3].ring.head, C.rdma.cq[3].ring.size,
        "rdma.cq[3].ring.head");
    BAD(C.rdma.cq[3].ring.polarity, 2, "rdma.cq[3].ring.polarity");
    BAD(C.rdma.cq[3].ring.pa, 0, "rdma.cq[3].ring.pa");
    BAD(C.rdma.cq[3].ring.pble_idx, 1u << 28, "rdma.cq[3].ring.pble_idx");
    C.rdma.cq[3].ring.virt = true;
    BAD(C.rdma.cq[3].ring.pble_idx, E810_RDMA_MAX_PBLE,
        "rdma.cq[3].ring.pble_idx");
    C.rdma.cq[3].ring.virt = false;
    BAD(C.rdma.cq[5].ceq, E810_RDMA_MAX_CEQS, "rdma.cq[5].ceq");
    BAD(C.rdma.ceq[0].ring.head, CEQ_SIZE, "rdma.ceq[0].ring.head");
    BAD(C.rdma.ceq[0].ring.size, E810_RDMA_MAX_CEQ_SIZE + 1,
        "rdma.ceq[0].ring.size");
    BAD(C.rdma.ceq[0].credits, 1, "rdma.ceq[0].credits");
    BAD(C.rdma.aeq.credits, AEQ_SIZE + 1, "rdma.aeq.credits");
    BAD(C.rdma.aeq.ring.size, E810_RDMA_MAX_AEQ_SIZE + 1,
        "rdma.aeq.ring.size");
    BAD(C.rdma.aeq.ring.head, AEQ_SIZE, "rdma.aeq.ring.head");
    /* STags: what REG_MR, ALLOC_STAG and FAST_REGISTER accept */
    BAD(mr->stag_idx, PBL_STAG_IDX + 1, "rdma.mr[32].stag_idx");
    BAD(mr->stag_idx, 1u << 24 | PBL_STAG_IDX, "rdma.mr[32].stag_idx");
    BAD(mr->lpbl, 2, "rdma.mr[32].lpbl");
    BAD(mr->lpbl, 4, "rdma.mr[32].lpbl");
    BAD(mr->page_size, 3, "rdma.mr[32].page_size");
    BAD(mr->rights, 0x20, "rdma.mr[32].rights");
    BAD(mr->pd, 1u << 24, "rdma.mr[32].pd");
    BAD(mr->len, 1ull << 46, "rdma.mr[32].len");
    BAD(mr->pble_idx, 1u << 28, "rdma.mr[32].pble_idx");
    mr->va_based = false;
    BAD(mr->va, 0x1000, "rdma.mr[32].va");
    mr->registered = false;     /* a free STag's VA is any */
    CHECK(round_trip());
    mr->registered = true;
    mr->va_based = true;
    /* Quad hash, control QPs */
    BAD(C.rdma.qhash[0].type, 0, "rdma.qhash[0].type");
    BAD(C.rdma.qhash[0].type, 3, "rdma.qhash[0].type");
    BAD(C.rdma.qhash[0].qpn, 1u << 18, "rdma.qhash[0].qpn");
    BAD(C.rdma.qhash[0].qs_handle, 0x400, "rdma.qhash[0].qs_handle");
    BAD(C.rdma.qp[3].type, 0, "rdma.qp[3].type");
    BAD(C.rdma.qp[3].type, 5, "rdma.qp[3].type");
    BAD(C.rdma.qp[3].state, 0, "rdma.qp[3].state");
    BAD(C.rdma.qp[3].state, 7, "rdma.qp[3].state");
    BAD(C.rdma.qp[3].sq_tail_pub, 0x8000, "rdma.qp[3].sq_tail_pub");
    /* PUDA queues */
    BAD(C.rdma.qp[1].type, QP_TYPE_IWARP, "puda.q[0]: QP 1");
    BAD(ilq->sq_size, 6, "puda.q[0].sq_size");
    BAD(ilq->sq_size, 4u << 14, "puda.q[0].sq_size");
    BAD(ilq->rq_size, 2, "puda.q[0].rq_size");
    BAD(ilq->sq_pa, 0, "puda.q[0].sq_pa");
    BAD(ilq->rq_pa, 0, "puda.q[0].rq_pa");
    BAD(ilq->sq_tail, ilq->sq_size, "puda.q[0].sq_tail");
    BAD(ilq->rq_tail, ilq->rq_size, "puda.q[0].rq_tail");
    BAD(ilq->sq_pol, 2, "puda.q[0].sq_pol");
    BAD(ilq->rq_pol, 2, "puda.q[0].rq_pol");
    BAD(ilq->cq, 1u << 25, "puda.q[0].cq");
    /* Quads: only an iWARP QP's */
    BAD(C.rdma.qp[3].type, QP_TYPE_UDA, "puda.quad[3]");
    /* The loopback queue */
    BAD(C.puda.lpb_count, E810_LPB_MAX + 1, "puda.lpb_count");
    BAD(C.puda.lpb_head, E810_LPB_MAX, "puda.lpb_head");
    fr = &C.puda.lpb[C.puda.lpb_head];
    BAD(fr->len, 13, "puda.lpb[0].len");
    big = calloc(1, E810_LAN_FRAME_BUF + 1);
    {
        uint8_t *keep = fr->data;

        fr->data = big;
        BAD(fr->len, E810_LAN_FRAME_BUF + 1, "puda.lpb[0].len");
        fr->data = keep;
    }
    free(big);
    /* All back as it was: it loads. */
    CHECK(round_trip());
    twin_down();
    teardown_iwarp();
}

/*
 * States the runtime lets the guest reach load ("never stricter than the
 * runtime"): a CQ destroyed under the QPs and the ILQ that name it;
 * objects beyond the counts of a later, smaller COMMIT_FPM_VAL; a QP
 * destroyed under its quad; a PUDA left behind by a destroyed CQP, and
 * no CQP at all with frames and counters that outlive it.
 */
static void test_runtime_states(void)
{
    uint64_t q[8] = { 0 };
    unsigned doorbells;

    setup_iwarp();
    twin_up();
    /* CQ 1 (the ILQ's) and CQ 3 (QPs 3 and 4's) destroyed. */
    CHECK_EQ(ifx_cqp(0x05, NULL, 1), 0);
    CHECK_EQ(ifx_cqp(0x05, NULL, 3), 0);
    CHECK(!C.rdma.cq[1].valid && C.puda.q[0].active && C.puda.q[0].cq == 1);
    CHECK(round_trip());
    CHECK(c2.puda.q[0].active);
    /* QP 4 destroyed: its quad goes (the bit is cleared). */
    CHECK(e810_bit(c2.puda.bound, 4));
    memset(q, 0, sizeof(q));
    q[2] = QPCTX_PA(1);
    CHECK_EQ(ifx_cqp(0x02, q, 4), 0);
    CHECK(round_trip());
    CHECK(!e810_bit(c2.puda.bound, 4));
    /* Counts committed again, below the objects in use. */
    commit((const uint64_t[E810_HMC_NUM]) {
        [E810_HMC_QP] = 2, [E810_HMC_CQ] = 2, [E810_HMC_MR] = 1,
        [E810_HMC_PBLE] = 512 });
    CHECK(C.rdma.qp[3].valid && C.rdma.cq[5].valid &&
          C.rdma.mr[PBL_STAG_IDX].valid);
    CHECK(round_trip());
    CHECK(!memcmp(c2.rdma.obj, C.rdma.obj, sizeof(C.rdma.obj)));
    CHECK(c2.rdma.qp[3].valid && e810_bit(c2.puda.bound, 3));
    /* The CQP destroyed: the PUDA and the quad bits stay behind, the
     * frames and the doorbell counter outlive it. */
    ifx_wr(PFPE_CCQPHIGH, 0);
    ifx_wr(PFPE_CCQPLOW, 0);
    CHECK(!C.rdma.cqp_active && C.puda.q[0].active &&
          e810_bit(C.puda.bound, 3));
    lpb_frame(&C, 64, 0xB0);
    ifx_wr(PFPE_CQARM, 0);
    doorbells = C.rdma.stats.doorbells;
    CHECK(doorbells != 0);
    CHECK(round_trip());
    CHECK(!c2.rdma.cqp_active);
    CHECK(!c2.puda.q[0].active);
    CHECK_EQ(c2.rdma.stats.doorbells, doorbells);
    CHECK_EQ(c2.puda.lpb_count, C.puda.lpb_count);
    twin_down();
    teardown_iwarp();
}

/* RoCEv2: AHs, UD QP 5, a multicast group; mcg_count is recounted. */
static void test_roce_mcg(void)
{
    uint64_t q[8] = { 0 };
    CqpRing r2;

    ifx_failures = 0;
    ifx_cur->roce = true;
    ifx_setup(false);
    CHECK_EQ(ifx_failures, 0);
    ifx_ud_qp(5, 3, UD_PAGE, 0x1234, COMPCTX(5));
    CHECK_EQ(ifx_mc_ah(7, 3, NULL, GRP4), 0);
    memset(ifx_mem(MGCTX_PA), 0, 8 * MGCTX_ENTRIES);
    ifx_set64(MGCTX_PA, MGCTX_VALIDENT | 5);
    ifx_set64(MGCTX_PA + 8, MGCTX_VALIDENT | 4);
    q[0] = 0x01005e010203ull;
    q[2] = 7;
    q[4] = MGCTX_PA;
    q[6] = GRP4;
    CHECK_EQ(ifx_cqp(0x26, q, 1 | CQPSQ_MG_IPV4VALID), 0);
    CHECK_EQ(ifx_cqp(0x26, q, 9 | CQPSQ_MG_IPV4VALID), 0);
    CHECK_EQ(C.rdma.mcg_count, 2);
    twin_up();
    CHECK(round_trip());
    CHECK_EQ(c2.rdma.mcg_count, 2);
    CHECK(!memcmp(&c2.rdma.mcg[1], &C.rdma.mcg[1], sizeof(C.rdma.mcg[1])));
    {
        uint32_t qps[8];

        CHECK_EQ(e810_rdma_mcg_members(&c2, true, (const uint8_t[]){
                 0xEF, 1, 2, 3 }, E810_VLAN_NONE, qps, 8), 2);
    }
    /* Groups change on the second device: one more, one less. */
    r2 = ifx_cur->cqp;
    r2.h = &h2;
    r2.c = &c2;
    CHECK_EQ(cqp_ring_op(&r2, 0x26, q, 2 | CQPSQ_MG_IPV4VALID), 0);
    CHECK_EQ(cqp_ring_op(&r2, 0x28, q, 9 | CQPSQ_MG_IPV4VALID), 0);
    CHECK_EQ(c2.rdma.mcg_count, 2);
    CHECK(c2.rdma.mcg[2].valid && !c2.rdma.mcg[9].valid);
    /* The groups' checks */
    BAD(C.rdma.mcg[1].nqp, MGCTX_ENTRIES + 1, "rdma.mcg[1].nqp");
    BAD(C.rdma.mcg[1].qp[0], E810_RDMA_MAX_QPS, "rdma.mcg[1].qp[0]");
    BAD(C.rdma.mcg[1].vlan_id, 0x1000, "rdma.mcg[1].vlan_id");
    BAD(C.rdma.mcg[1].qs_handle, 0x400, "rdma.mcg[1].qs_handle");
    BAD(C.rdma.protocol, PROTOCOL_IWARP, "rdma.mcg[1]");
    /* A member beyond a lowered QP count loads. */
    commit((const uint64_t[E810_HMC_NUM]) {
        [E810_HMC_QP] = 4, [E810_HMC_CQ] = 4, [E810_HMC_FSIMC] = 16,
        [E810_HMC_PBLE] = 512 });
    CHECK(round_trip());
    CHECK_EQ(c2.rdma.mcg_count, 2);
    twin_down();
    ifx_teardown();
    ifx_cur->roce = false;
}

/* A device that never had a CQP. */
/* Read a stream kept as text (tests/unit/data): "len N", then runs of
 * bytes as "OFFSET HEX"; the rest is zero.  NULL if it cannot be read. */
static uint8_t *read_stream(const char *name, size_t *len)
{
    const char *dir = getenv("E810_TEST_DATA");
    char path[512], line[256];
    uint8_t *buf = NULL;
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/unit/data",
             name);
    f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return NULL;
    }
    *len = 0;
    while (fgets(line, sizeof(line), f)) {
        char *p;
        unsigned long off;

        if (line[0] == '#') {
            continue;
        }
        if (!strncmp(line, "len ", 4)) {
            *len = strtoul(line + 4, NULL, 10);
            free(buf);
            buf = calloc(1, *len);
            continue;
        }
        off = strtoul(line, &p, 10);
        while (buf && *p == ' ') {
            p++;
        }
        for (; buf && isxdigit((unsigned char)p[0]) &&
               isxdigit((unsigned char)p[1]) && off < *len; p += 2, off++) {
            char hex[3] = { p[0], p[1], 0 };

            buf[off] = (uint8_t)strtoul(hex, NULL, 16);
        }
    }
    fclose(f);
    return buf;
}

/*
 * A state that main saved before the txsched and rdma records went to
 * version 2 (the CCQE pending, E810Counters.ccqes_dropped) loads, into
 * the state this build's fixture makes, with the new fields at their
 * defaults; saved again it is this build's stream and loads too.
 */
static void test_stream_of_main(void)
{
    size_t len = 0;
    uint8_t *buf = read_stream("snap-9ef8bd6.txt", &len);
    char err[256] = "";

    CHECK(buf != NULL);
    if (!buf) {
        return;
    }
    setup_iwarp();
    twin_up();
    if (!e810_core_load(&c2, buf, len, err, sizeof(err))) {
        fprintf(stderr, "load: %s\n", err);
        check_failed++;
    } else {
        check_same_state();
        CHECK(!c2.rdma.ccqe_pending);
        CHECK_EQ(c2.stats.ccqes_dropped, 0);
        CHECK(round_trip());
    }
    twin_down();
    teardown_iwarp();
    free(buf);
}

static void test_idle(void)
{
    ifx_failures = 0;
    aq_test_init(&ifx);
    twin_up();
    CHECK(round_trip());
    CHECK(!c2.rdma.cqp_active);
    twin_down();
    aq_test_cleanup(&ifx);
}

int main(void)
{
    RUN(test_iwarp_round_trip);
    RUN(test_truncated);
    RUN(test_refused);
    RUN(test_runtime_states);
    RUN(test_roce_mcg);
    RUN(test_stream_of_main);
    RUN(test_idle);
    return CHECK_DONE();
}
