/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RDMA engine unit tests: CQP handshake, init ops, CCQ completions and
 * valid-bit wrap, CEQ/AEQ delivery, PBLE-mapped rings, and malformed work
 * requests (error completions, no crash).
 */
#include "fake-host.h"
#include "cqp-util.h"
#include <string.h>
#include "check.h"

static FakeHost h;
static E810Core c;
static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

/* Guest memory layout */
#define M(off)          (FAKE_MEM_BASE + (off))
#define CEQ_PA          M(0x6000)
#define AEQ_PA          M(0x7000)
#define QPCTX_PA        M(0x8000)
#define BUF_PA          M(0x9000)
#define SD0_PA          M(0x200000)
#define SD1_PA          M(0x400000)
#define SD2_PD_PA       M(0xA000)      /* page of PDEs for a paged SD */
#define VPAGE_PA        M(0xB000)      /* a page reached through the PBLE */

#define SQ_ENC          3               /* 2^(3+1) = 16 WQEs */
#define SQ_SIZE         16
#define CCQ_SIZE        4
#define CQP_COOKIE      0xFFFF888812345678ull

static CqpRing ring;

static uint32_t rd(uint32_t off)
{
    return e810_mmio_read(&c, off, 4);
}

static void wr(uint32_t off, uint32_t val)
{
    e810_mmio_write(&c, off, val, 4);
}

static uint64_t mem64(uint64_t pa)
{
    return ld64(fake_mem(&h, pa));
}

static void set64(uint64_t pa, uint64_t v)
{
    st64(fake_mem(&h, pa), v);
}

static void setup(void)
{
    fake_host_init(&h);
    e810_core_init(&c, &h.host, mac);
    cqp_ring_init(&ring, &h, &c, SQ_PA, SQ_SIZE, CCQ_PA, CCQ_SIZE);
}

static void teardown(void)
{
    e810_core_cleanup(&c);
    fake_host_cleanup(&h);
}

/* Build the CQP host context and create the CQP; returns CCQPSTATUS. */
static uint32_t cqp_create_proto(unsigned protocol)
{
    memset(fake_mem(&h, CTX_PA), 0, 64);
    set64(CTX_PA + 0, (uint64_t)SQ_ENC << 8 | protocol << 3);
    set64(CTX_PA + 8, SQ_PA);
    set64(CTX_PA + 16, 1);
    set64(CTX_PA + 24, CQP_COOKIE);
    set64(CTX_PA + 32, 1u << 16);
    wr(PFPE_CQPTAIL, 0);
    wr(PFPE_CQPDB, 0);
    wr(PFPE_CCQPSTATUS, 0);
    wr(PFPE_CCQPHIGH, (uint32_t)(CTX_PA >> 32));
    wr(PFPE_CCQPLOW, (uint32_t)CTX_PA);
    return rd(PFPE_CCQPSTATUS);
}

/* Post one CQP WQE (qwords 0-2, 4-7 from @q, header @hdr) and ring. */
static unsigned post(const uint64_t q[8], uint64_t hdr)
{
    return cqp_ring_post(&ring, q, hdr);
}

static unsigned post_op(unsigned op, const uint64_t q[8], uint64_t hdr_extra)
{
    return post(q, (uint64_t)op << 32 | hdr_extra);
}

/* Next CCQE: returns false if none is valid yet. */
static bool ccq_next(uint64_t cqe[4])
{
    return cqp_ring_wait_ccqe(&ring, cqe);
}

static void init_hmc(void)
{
    uint64_t q[8] = { 0 };
    unsigned t = rd(PFPE_CQPTAIL) & PFPE_CQPTAIL_WQTAIL_M;

    /* Counts the driver would commit for a small function. */
    q[4] = QUERY_PA;
    post_op(0x20, q, 0);
    memset(fake_mem(&h, COMMIT_PA), 0, 208);
    set64(COMMIT_PA + 0, 64);           /* QP */
    set64(COMMIT_PA + 8, 128);          /* CQ */
    set64(COMMIT_PA + 32, 16);          /* ARP */
    set64(COMMIT_PA + 48, 256);         /* MR */
    set64(COMMIT_PA + 104, 16);         /* FSIAV */
    set64(COMMIT_PA + 112, 4096);       /* PBLE */
    q[4] = COMMIT_PA;
    post_op(0x21, q, 208);
    CHECK_EQ(rd(PFPE_CQPTAIL), (t + 2) % SQ_SIZE);
    /* SD 0 (direct) for the objects, SD 1 (direct) for the PBLEs. */
    memset(q, 0, sizeof(q));
    q[0] = 0 | 1u << 15 | 1u << 31;
    q[1] = SD0_PA | 512 << 2 | 2 | 1;
    q[4] = 1 | 1u << 15 | 1u << 31 | 1ull << 63;
    q[5] = SD1_PA | 512 << 2 | 2 | 1;
    post_op(0x1f, q, 0);
    CHECK_EQ(rd(PFPE_CQPTAIL), (t + 3) % SQ_SIZE);
}

/* CCQ = CQ 0 of CCQ_SIZE entries on CEQ 0, contiguous. */
static void create_ccq(void)
{
    uint64_t q[8] = { 0 };
    uint64_t cqe[4];

    q[0] = CCQ_SIZE;
    q[1] = 0;
    q[4] = CCQ_PA;
    q[5] = CCQ_SHADOW;
    memset(fake_mem(&h, CCQ_PA), 0, 32 * CCQ_SIZE);
    post_op(0x03, q, 1ull << 49 | 1ull << 46);
    CHECK(ccq_next(cqe));                       /* its own completion */
    CHECK_EQ(cqe[1], CQP_COOKIE);
    CHECK_EQ((cqe[3] >> 55) & 1, 0);
}

/* The engine up to a CCQ: device, CQP (iWARP), HMC, CCQ. */
static void setup_ccq(void)
{
    setup();
    cqp_create_proto(1);
    init_hmc();
    create_ccq();
}

/* CREATE_CEQ (0x16) / CREATE_AEQ (0x19) of @n entries at @pa, completed. */
static void eq_create(unsigned op, uint64_t pa, unsigned n)
{
    uint64_t q[8] = { 0 };
    uint64_t cqe[4];

    memset(fake_mem(&h, pa), 0, 64);
    q[2] = n;
    q[4] = pa;
    post_op(op, q, 0);
    CHECK(ccq_next(cqe));
}

/* Post one CQP op and take its CCQE: its error bit, or 2 if none came. */
static int op_err(unsigned op, const uint64_t *q, uint64_t hdr)
{
    uint64_t cqe[4];

    post_op(op, q, hdr);
    if (!ccq_next(cqe)) {
        return 2;
    }
    return (int)((cqe[3] >> 55) & 1);
}

static void test_cqp_handshake(void)
{
    setup();
    /* PE ready, doorbell space of 8 MiB (irdma_sc_dev_init). */
    CHECK_EQ(rd(GLPE_CPUSTATUS0), 0x80);
    CHECK_EQ(rd(GLPE_CPUSTATUS1), 0x80);
    CHECK_EQ(rd(GLPE_CPUSTATUS2), 0x80);
    CHECK_EQ((rd(GLPCI_LBARCTRL) >> 4) & 3, 2);
    /* An unsupported protocol fails the create with ERR|DONE + codes. */
    CHECK_EQ(cqp_create_proto(0), PFPE_CCQPSTATUS_DONE | PFPE_CCQPSTATUS_ERR);
    CHECK_EQ(rd(PFPE_CQPERRCODES) >> 16, 0xFFFF);
    CHECK_EQ(cqp_create_proto(1), PFPE_CCQPSTATUS_DONE);
    CHECK(c.rdma.cqp_active);
    CHECK_EQ(c.rdma.cqp_size, SQ_SIZE);
    /* RoCEv2 is accepted too: the engine is the same. */
    wr(PFPE_CCQPHIGH, 0);
    wr(PFPE_CCQPLOW, 0);
    CHECK_EQ(rd(PFPE_CCQPSTATUS), 0);
    CHECK(!c.rdma.cqp_active);
    CHECK_EQ(cqp_create_proto(2), PFPE_CCQPSTATUS_DONE);
    /* A PF reset takes the CQP down. */
    wr(PFGEN_CTRL, PFGEN_CTRL_PFSWR);
    CHECK(!c.rdma.cqp_active);
    CHECK_EQ(rd(PFPE_CCQPSTATUS), 0);
    CHECK_EQ(rd(GLPE_CPUSTATUS0), 0x80);
    teardown();
}

static void test_init_ops(void)
{
    uint64_t q[8] = { 0 };
    uint64_t v;

    setup();
    CHECK_EQ(cqp_create_proto(1), PFPE_CCQPSTATUS_DONE);
    /* QUERY_RDMA_FEATURES: count >= 2, FW info then function flags. */
    q[4] = BUF_PA;
    post_op(0x12, q, 272);
    CHECK_EQ(rd(PFPE_CQPTAIL), 1);
    v = mem64(BUF_PA);
    CHECK_EQ(v >> 48, 0);
    CHECK_EQ((v >> 32) & 0xFFFF, 2);
    CHECK_EQ(mem64(BUF_PA + 8) >> 48, 32);
    /* QUERY_FPM_VAL: layout the driver parses (ctrl.c). */
    memset(q, 0, sizeof(q));
    q[4] = QUERY_PA;
    post_op(0x20, q, 0);
    CHECK_EQ(rd(PFPE_CQPTAIL), 2);
    CHECK_EQ((mem64(QUERY_PA) >> 32) & 0x1FFF, E810_RDMA_MAX_SDS);
    CHECK_EQ((uint32_t)mem64(QUERY_PA + 8), E810_RDMA_MAX_QPS);
    CHECK_EQ((uint32_t)mem64(QUERY_PA + 16), E810_RDMA_MAX_CQS);
    CHECK_EQ((uint32_t)mem64(QUERY_PA + 48), E810_RDMA_MAX_MRS);
    CHECK((mem64(QUERY_PA + 64) >> 32) != 0);   /* XF block size */
    CHECK((mem64(QUERY_PA + 80) >> 32) != 0);   /* Q1 block size */
    CHECK((uint32_t)mem64(QUERY_PA + 104) >= 2); /* AHs */
    CHECK((uint32_t)mem64(QUERY_PA + 112) >= 512);
    CHECK((mem64(QUERY_PA + 120) & 0x3FF) >= 1);
    /* COMMIT_FPM_VAL: counts echoed, 512-byte bases, PBLE on 2 MiB. */
    memset(fake_mem(&h, COMMIT_PA), 0, 208);
    set64(COMMIT_PA + 0, 1024);
    set64(COMMIT_PA + 8, 2048);
    set64(COMMIT_PA + 48, 16384);
    set64(COMMIT_PA + 112, 1u << 20);
    q[4] = COMMIT_PA;
    post_op(0x21, q, 208);
    CHECK_EQ(rd(PFPE_CQPTAIL), 3);
    CHECK_EQ((uint32_t)mem64(COMMIT_PA + 0), 1024);
    CHECK_EQ(mem64(COMMIT_PA + 0) >> 32, 0);
    CHECK((mem64(COMMIT_PA + 8) >> 32) * 512 >= 1024 * 256);
    CHECK_EQ(((mem64(COMMIT_PA + 112) >> 32) * 512) % (2u << 20), 0);
    CHECK(mem64(COMMIT_PA + 40) >> 32);           /* APBVT got a base */
    CHECK_EQ(rd(PFPE_CQPTAIL) & PFPE_CQPTAIL_OP_ERR, 0);
    /* SHMC_PAGES_ALLOCATED is a no-op that completes. */
    post_op(0x2b, NULL, 0);
    CHECK_EQ(rd(PFPE_CQPTAIL), 4);
    teardown();
}

static void test_ccq_wrap(void)
{
    uint64_t cqe[4];
    unsigned i, idx;

    setup_ccq();
    /* More ops than either ring holds: both valid bits must flip. */
    for (i = 0; i < 3 * SQ_SIZE; i++) {
        idx = post_op(0x24, NULL, 0);
        CHECK(ccq_next(cqe));
        CHECK_EQ((cqe[3] >> 32) & 0x7FFF, idx);
        CHECK_EQ(cqe[1], CQP_COOKIE);
        CHECK_EQ((cqe[3] >> 55) & 1, 0);
        CHECK_EQ(rd(PFPE_CQPTAIL) & PFPE_CQPTAIL_WQTAIL_M, ring.sq_head);
    }
    CHECK(!ccq_next(cqe));
    CHECK_EQ(h.guest_errors, 0);
    /* Several WQEs on one doorbell complete in order. */
    {
        uint64_t pa;
        unsigned first = ring.sq_head;

        for (i = 0; i < 3; i++) {
            pa = SQ_PA + 64ull * ring.sq_head;
            if (ring.sq_head == 0) {
                ring.sq_pol ^= 1;
            }
            memset(fake_mem(&h, pa), 0, 64);
            set64(pa + 24, 0x24ull << 32 | (uint64_t)ring.sq_pol << 63);
            ring.sq_head = (ring.sq_head + 1) % SQ_SIZE;
        }
        wr(PFPE_CQPDB, ring.sq_head);
        for (i = 0; i < 3; i++) {
            CHECK(ccq_next(cqe));
            CHECK_EQ((cqe[3] >> 32) & 0x7FFF, (first + i) % SQ_SIZE);
        }
    }
    /* CCQ destroy (REG-polled): no CCQE, CQPTAIL still moves. */
    {
        uint64_t q[8] = { 0 };
        unsigned t = rd(PFPE_CQPTAIL);

        q[0] = CCQ_SIZE;
        q[5] = CCQ_SHADOW;
        post_op(0x05, q, 0);
        CHECK_EQ(rd(PFPE_CQPTAIL), (t + 1) % SQ_SIZE);
        CHECK(!ccq_next(cqe));
        CHECK(!c.rdma.cq[0].valid);
    }
    teardown();
}

static void test_ceq_interrupt(void)
{
    uint64_t q[8] = { 0 };
    uint64_t cqe[4];

    setup_ccq();
    /* CEQ 0: 8 entries, routed to vector 3. */
    eq_create(0x16, CEQ_PA, 8);
    /* Not armed yet: no CEQE for the CEQ create's own completion. */
    CHECK_EQ(mem64(CEQ_PA), 0);
    wr(GLINT_CEQCTL(0), E810_CTL_CAUSE_ENA | 3);
    wr(GLINT_DYN_CTL(3), GLINT_DYN_CTL_INTENA);
    /* Arm the CCQ (shadow qword 4) and ring CQARM; software's head (shadow
     * qword 0) is where it polled last, as irdma keeps it. */
    set64(CCQ_SHADOW, ring.ccq_head);
    set64(CCQ_SHADOW + 32, 1u << 14 | 1u << 16);
    wr(PFPE_CQARM, 0);
    CHECK_EQ(mem64(CEQ_PA), 0);                 /* nothing outstanding */
    post_op(0x24, NULL, 0);
    CHECK(ccq_next(cqe));
    CHECK_EQ(mem64(CEQ_PA), 1ull << 63 | 0);     /* CQ context 0 */
    CHECK_EQ(fake_irq_count(&h, 3), 1);
    /* The arm is used up: the next completion raises nothing. */
    post_op(0x24, NULL, 0);
    CHECK(ccq_next(cqe));
    CHECK_EQ(mem64(CEQ_PA + 8), 0);
    CHECK_EQ(fake_irq_count(&h, 3), 1);
    /* Re-arm: second CEQE; the vector is auto-masked until INTENA. */
    set64(CCQ_SHADOW, ring.ccq_head);
    wr(PFPE_CQARM, 0);
    CHECK_EQ(mem64(CEQ_PA + 8), 0);
    post_op(0x24, NULL, 0);
    CHECK(ccq_next(cqe));
    CHECK_EQ(mem64(CEQ_PA + 8) >> 63, 1);
    CHECK_EQ(fake_irq_count(&h, 3), 1);
    wr(GLINT_DYN_CTL(3), GLINT_DYN_CTL_INTENA | GLINT_DYN_CTL_CLEARPBA);
    CHECK_EQ(fake_irq_count(&h, 3), 2);
    /*
     * The race irdma_cqp_ce_handler leaves to the device: it polls (head
     * in the shadow area), a completion lands, then it arms without
     * polling again.  The arm finds the entry outstanding: third CEQE.
     */
    set64(CCQ_SHADOW, ring.ccq_head);
    post_op(0x24, NULL, 0);
    fake_host_advance(&h, E810_RDMA_CCQE_DELAY_NS);
    CHECK_EQ(mem64(CEQ_PA + 16), 0);
    wr(PFPE_CQARM, 0);
    CHECK_EQ(mem64(CEQ_PA + 16) >> 63, 1);
    CHECK(ccq_next(cqe));
    /* Polled, then armed: nothing outstanding, no event. */
    set64(CCQ_SHADOW, ring.ccq_head);
    wr(PFPE_CQARM, 0);
    CHECK_EQ(mem64(CEQ_PA + 24), 0);
    /* Destroy CEQ 0. */
    memset(q, 0, sizeof(q));
    CHECK_EQ(op_err(0x18, q, 0), 0);
    CHECK(!c.rdma.ceq[0].valid);
    teardown();
}

static uint64_t qp_create(unsigned id, unsigned type, unsigned state)
{
    uint64_t q[8] = { 0 };

    memset(fake_mem(&h, QPCTX_PA), 0, 256);
    set64(QPCTX_PA + 168, 0xABCD0000ull + id);
    q[2] = QPCTX_PA;
    return post_op(0x00, q, id | (uint64_t)type << 48 | (uint64_t)state << 60);
}

static void test_aeq_and_qp(void)
{
    uint64_t q[8] = { 0 };
    uint64_t cqe[4];

    setup_ccq();
    eq_create(0x19, AEQ_PA, 2);
    wr(PFINT_AEQCTL, E810_CTL_CAUSE_ENA | 5);
    wr(GLINT_DYN_CTL(5), GLINT_DYN_CTL_INTENA);
    /* QP 3: create idle, modify to RTS, GEN_AE. */
    qp_create(3, 1, 1);
    CHECK(ccq_next(cqe));
    CHECK_EQ((cqe[3] >> 55) & 1, 0);
    CHECK(c.rdma.qp[3].valid);
    memset(q, 0, sizeof(q));
    q[2] = QPCTX_PA;
    post_op(0x01, q, 3 | 1ull << 48 | 2ull << 60);
    CHECK(ccq_next(cqe));
    CHECK_EQ(c.rdma.qp[3].state, 2);
    memset(q, 0, sizeof(q));
    q[1] = 0x0201 | 5u << 16;
    post_op(0x22, q, 3 | 1ull << 59);
    CHECK(ccq_next(cqe));
    CHECK_EQ(mem64(AEQ_PA), 0xABCD0003ull);
    CHECK_EQ(mem64(AEQ_PA + 8) & 0x3FFFF, 3);
    CHECK_EQ((mem64(AEQ_PA + 8) >> 34) & 0xFFF, 0x201);
    CHECK_EQ(mem64(AEQ_PA + 8) >> 63, 1);
    CHECK_EQ(fake_irq_count(&h, 5), 1);
    /* Flush SQ+RQ: minor code 3 (SQ flushed). */
    memset(q, 0, sizeof(q));
    post_op(0x22, q, 3 | 1ull << 61 | 1ull << 62);
    CHECK(ccq_next(cqe));
    CHECK_EQ(cqe[3] & 0xFFFF, 3);
    CHECK_EQ((cqe[3] >> 55) & 1, 0);
    /* Two credits: the second AE fits, the third is dropped. */
    memset(q, 0, sizeof(q));
    q[1] = 0x0201;
    post_op(0x22, q, 3 | 1ull << 59);
    CHECK(ccq_next(cqe));
    CHECK_EQ(mem64(AEQ_PA + 24) >> 63, 1);
    post_op(0x22, q, 3 | 1ull << 59);
    CHECK(ccq_next(cqe));
    CHECK_EQ(c.rdma.stats.aeq_overflows, 1);
    /* Credits back: the next AE wraps to entry 0 with valid = 0. */
    wr(PFPE_AEQALLOC, 2);
    post_op(0x22, q, 3 | 1ull << 59);
    CHECK(ccq_next(cqe));
    CHECK_EQ(mem64(AEQ_PA + 8) >> 63, 0);
    CHECK_EQ((mem64(AEQ_PA + 8) >> 34) & 0xFFF, 0x201);
    /* Destroy QP 3; destroying it again fails. */
    memset(q, 0, sizeof(q));
    q[2] = QPCTX_PA;
    CHECK_EQ(op_err(0x02, q, 3), 0);
    CHECK_EQ(op_err(0x02, q, 3), 1);
    teardown();
}

static void test_tables(void)
{
    uint64_t q[8] = { 0 };
    uint64_t cqe[4];

    setup_ccq();
    /* WS leaf add returns a qs_handle in OPRETVAL. */
    post_op(0x2c, NULL, 7 | 1ull << 61 | 1ull << 62);
    CHECK(ccq_next(cqe));
    CHECK_EQ((uint32_t)cqe[2], 7);
    /* MANAGE_STATS allocate returns an index. */
    post_op(0x2d, NULL, 1ull << 62);
    CHECK(ccq_next(cqe));
    CHECK_EQ((uint32_t)cqe[2], 0);
    /* ARP add, REG_MR/DEALLOC, APBVT, quad hash. */
    q[2] = 0x525400123456ull;
    post_op(0x0f, q, 5 | 1ull << 42);
    CHECK(ccq_next(cqe));
    CHECK(c.rdma.arp[5].valid);
    CHECK_EQ(c.rdma.arp[5].mac[5], 0x56);
    memset(q, 0, sizeof(q));
    q[1] = 0x1000 | 4ull << 46;
    q[2] = (0x10ull << 8) | 0x42;
    q[4] = BUF_PA;
    CHECK_EQ(op_err(0x0a, q, 1ull << 43 | 0x3ull << 48 | 1ull << 59), 0);
    CHECK(c.rdma.mr[0x10].registered);
    CHECK_EQ(c.rdma.mr[0x10].pd, 4);
    post_op(0x0a, q, 1ull << 43);               /* same STag again */
    CHECK(ccq_next(cqe));
    CHECK_EQ((cqe[3] >> 55) & 1, 1);
    CHECK_EQ(op_err(0x0d, q, 1ull << 43), 0);
    CHECK(!c.rdma.mr[0x10].valid);
    memset(q, 0, sizeof(q));
    q[2] = 4791;
    post_op(0x23, q, 1ull << 62);
    CHECK(ccq_next(cqe));
    CHECK(e810_bit(c.rdma.apbvt, 4791));
    memset(q, 0, sizeof(q));
    q[1] = 1ull << 32 | 4791;
    q[6] = 0x0A000001;
    post_op(0x25, q, 2ull << 42 | 1ull << 60 | 1ull << 61);
    CHECK(ccq_next(cqe));
    CHECK(c.rdma.qhash[0].valid);
    post_op(0x25, q, 2ull << 42 | 1ull << 60);  /* delete */
    CHECK(ccq_next(cqe));
    CHECK(!c.rdma.qhash[0].valid);
    /* GATHER_STATS writes a zeroed 1 KiB block. */
    memset(fake_mem(&h, BUF_PA), 0xAA, 1024);
    memset(q, 0, sizeof(q));
    q[4] = BUF_PA;
    post_op(0x2e, q, 0);
    CHECK(ccq_next(cqe));
    CHECK_EQ(mem64(BUF_PA + 1016), 0);
    CHECK_EQ(h.guest_errors, 0);
    teardown();
}

/* The CCQ through a PBLE: SD 1 direct covers the PBLE object; one paged
 * SD path is checked too. */
static void test_pble_ring(void)
{
    uint64_t q[8] = { 0 };
    uint64_t pble_base, pble_pa, cqe[4], pa;
    E810RdmaRing ring = { 0 };

    setup();
    cqp_create_proto(1);
    init_hmc();
    pble_base = c.rdma.obj[E810_HMC_PBLE].base;
    CHECK_EQ(pble_base, 2u << 20);              /* SD 1 */
    pble_pa = SD1_PA + (pble_base - (2u << 20));
    set64(pble_pa + 8 * 10, VPAGE_PA);
    memset(fake_mem(&h, VPAGE_PA), 0, 4096);
    q[0] = CCQ_SIZE;
    q[5] = CCQ_SHADOW;
    q[6] = 10;
    post_op(0x03, q, 1ull << 47 | 1ull << 44 | 1ull << 49);
    fake_host_advance(&h, E810_RDMA_CCQE_DELAY_NS);
    /* Its completion landed in the page the PBLE names. */
    cqe[3] = mem64(VPAGE_PA + 24);
    CHECK_EQ(cqe[3] >> 63, 1);
    CHECK_EQ(mem64(VPAGE_PA + 8), CQP_COOKIE);
    /* Paged SD 1: a PD page whose first entry maps the PBLE page. */
    memset(fake_mem(&h, SD2_PD_PA), 0, 4096);
    set64(SD2_PD_PA, VPAGE_PA | 1);
    memset(q, 0, sizeof(q));
    q[0] = 1 | 1u << 15 | 1u << 31;
    q[1] = SD2_PD_PA | 512 << 2 | 1;
    post_op(0x1f, q, 0);
    set64(VPAGE_PA + 8 * 2, 0x10000000ull + 0x123000);
    ring.virt = true;
    ring.pble_idx = 2;
    ring.size = 16;
    CHECK(e810_rdma_ring_addr(&c, &ring, 0x10, &pa));
    CHECK_EQ(pa, 0x10123010ull);
    /* An unmapped PBLE index fails cleanly. */
    ring.pble_idx = 4000;
    CHECK(!e810_rdma_ring_addr(&c, &ring, 0, &pa));
    teardown();
}

static void test_malformed(void)
{
    uint64_t q[8] = { 0 };
    uint64_t cqe[4];
    unsigned errors;

    setup();
    /* Doorbell without a CQP. */
    wr(PFPE_CQPDB, 3);
    CHECK_EQ(h.guest_errors, 1);
    /* CQP context outside guest memory. */
    wr(PFPE_CCQPHIGH, 0x7);
    wr(PFPE_CCQPLOW, 0x1000);
    CHECK(rd(PFPE_CCQPSTATUS) & PFPE_CCQPSTATUS_ERR);
    /* Oversized SQ code. */
    memset(fake_mem(&h, CTX_PA), 0, 64);
    set64(CTX_PA, 15ull << 8 | 1 << 3);
    set64(CTX_PA + 32, 1u << 16);
    wr(PFPE_CCQPHIGH, 0);
    wr(PFPE_CCQPLOW, (uint32_t)CTX_PA);
    CHECK(rd(PFPE_CCQPSTATUS) & PFPE_CCQPSTATUS_ERR);

    cqp_create_proto(1);
    /* Register path: bad opcode sets CQP_OP_ERR and the codes. */
    post_op(0x3f, NULL, 0);
    CHECK_EQ(rd(PFPE_CQPTAIL), 1 | PFPE_CQPTAIL_OP_ERR);
    CHECK_EQ(rd(PFPE_CQPERRCODES), 0xFFFFu << 16 | E810_CQP_MIN_BAD_OPCODE);
    /* Objects before COMMIT_FPM_VAL: no ids are valid. */
    post_op(0x03, NULL, 0);
    CHECK(rd(PFPE_CQPTAIL) & PFPE_CQPTAIL_OP_ERR);
    /* Commit with counts beyond the device's limits. */
    memset(fake_mem(&h, COMMIT_PA), 0, 208);
    set64(COMMIT_PA + 0, 0x100000);
    q[4] = COMMIT_PA;
    post_op(0x21, q, 208);
    CHECK(rd(PFPE_CQPTAIL) & PFPE_CQPTAIL_OP_ERR);
    set64(COMMIT_PA + 0, 64);
    set64(COMMIT_PA + 112, 10);               /* fewer than 512 PBLEs */
    post_op(0x21, q, 208);
    CHECK(rd(PFPE_CQPTAIL) & PFPE_CQPTAIL_OP_ERR);
    /* Query/commit buffers outside guest memory. */
    q[4] = 0x1000;
    post_op(0x20, q, 0);
    CHECK_EQ(rd(PFPE_CQPERRCODES) & 0xFFFF, E810_CQP_MIN_DMA);
    init_hmc();
    /* UPDATE_PE_SDS with an SD index beyond the table. */
    memset(q, 0, sizeof(q));
    q[0] = 100 | 1u << 31;
    q[1] = SD0_PA | 3;
    post_op(0x1f, q, 0);
    CHECK_EQ(rd(PFPE_CQPERRCODES) & 0xFFFF, E810_CQP_MIN_BAD_ID);
    /* ... and extra entries in unreadable memory. */
    memset(q, 0, sizeof(q));
    q[2] = 0xFFFFF000;
    post_op(0x1f, q, 8);
    CHECK_EQ(rd(PFPE_CQPERRCODES) & 0xFFFF, E810_CQP_MIN_DMA);

    create_ccq();
    errors = h.guest_errors;
    /* CCQ path: each bad op completes with ERROR and codes. */
    post_op(0x3e, NULL, 0);
    CHECK(ccq_next(cqe));
    CHECK_EQ((cqe[3] >> 55) & 1, 1);
    CHECK_EQ((cqe[3] >> 16) & 0xFFFF, 0xFFFF);
    CHECK_EQ(cqe[3] & 0xFFFF, E810_CQP_MIN_BAD_OPCODE);
    /* CQ id beyond the committed count; CQ of zero or huge size. */
    memset(q, 0, sizeof(q));
    q[0] = 64;
    q[4] = BUF_PA;
    post_op(0x03, q, 500);
    CHECK(ccq_next(cqe));
    CHECK_EQ(cqe[3] & 0xFFFF, E810_CQP_MIN_BAD_ID);
    q[0] = 0;
    post_op(0x03, q, 5);
    CHECK(ccq_next(cqe));
    CHECK_EQ(cqe[3] & 0xFFFF, E810_CQP_MIN_BAD_PARAM);
    q[0] = 64;
    post_op(0x03, q, 5 | 1ull << 49 | 900ull << 22);   /* CEQ 900 */
    CHECK(ccq_next(cqe));
    CHECK_EQ(cqe[3] & 0xFFFF, E810_CQP_MIN_BAD_ID);
    /* Virtual CQ with a PBLE index beyond the object. */
    q[6] = 0xFFFFFFF;
    post_op(0x03, q, 5 | 1ull << 47 | 1ull << 44);
    CHECK(ccq_next(cqe));
    CHECK_EQ(cqe[3] & 0xFFFF, E810_CQP_MIN_BAD_PARAM);
    /* QP with an unreadable context, an id out of range, a bad type. */
    memset(q, 0, sizeof(q));
    q[2] = 0x1000;
    post_op(0x00, q, 4 | 1ull << 48 | 1ull << 60);
    CHECK(ccq_next(cqe));
    CHECK_EQ(cqe[3] & 0xFFFF, E810_CQP_MIN_DMA);
    CHECK(!c.rdma.qp[4].valid);
    qp_create(0xFFFFFF, 1, 1);
    CHECK(ccq_next(cqe));
    CHECK_EQ(cqe[3] & 0xFFFF, E810_CQP_MIN_BAD_ID);
    qp_create(4, 7, 1);
    CHECK(ccq_next(cqe));
    CHECK_EQ(cqe[3] & 0xFFFF, E810_CQP_MIN_BAD_PARAM);
    /* Modify/flush of a QP that does not exist. */
    CHECK_EQ(op_err(0x01, q, 9), 1);
    CHECK_EQ(op_err(0x22, q, 9 | 1ull << 61), 1);
    /* STag/ARP/AH/WS/CEQ ids out of range. */
    memset(q, 0, sizeof(q));
    q[2] = 0xFFFFFFull << 8;
    CHECK_EQ(op_err(0x09, q, 1ull << 43), 1);
    CHECK_EQ(op_err(0x0f, NULL, 0xFFF | 1ull << 42), 1);
    CHECK_EQ(op_err(0x1c, NULL, 0xFFFFFF), 1);
    CHECK_EQ(op_err(0x2c, NULL, 0x3FFF), 1);
    CHECK_EQ(op_err(0x16, NULL, 0x3FF), 1);
    post_op(0x18, NULL, 3);                     /* CEQ 3 never created */
    CHECK(ccq_next(cqe));
    CHECK_EQ((cqe[3] >> 55) & 1, 1);
    post_op(0x1b, NULL, 0);                     /* no AEQ */
    CHECK(ccq_next(cqe));
    CHECK_EQ((cqe[3] >> 55) & 1, 1);
    post_op(0x11, NULL, 0);                     /* push page: none */
    CHECK(ccq_next(cqe));
    CHECK_EQ((cqe[3] >> 55) & 1, 0);
    CHECK_EQ((uint32_t)cqe[2], 0xFFFFFFFFu);
    CHECK(h.guest_errors > errors);
    /* Doorbell beyond the ring, doorbell ahead of a stale WQE. */
    errors = h.guest_errors;
    wr(PFPE_CQPDB, 100);
    CHECK_EQ(h.guest_errors, errors + 1);
    {
        unsigned t = rd(PFPE_CQPTAIL) & PFPE_CQPTAIL_WQTAIL_M;

        set64(SQ_PA + 64ull * t + 24, (uint64_t)!ring.sq_pol << 63 | 0x24ull << 32);
        wr(PFPE_CQPDB, (t + 1) % SQ_SIZE);
        CHECK_EQ(rd(PFPE_CQPTAIL) & PFPE_CQPTAIL_WQTAIL_M, t);
        CHECK(!ccq_next(cqe));
    }
    /* Doorbells for objects that do not exist. */
    wr(PFPE_CQARM, 77);
    wr(PFPE_WQEALLOC, 77);
    wr(E810_RDMA_DB_PAGE + 0x40, 0xFFFFFFFF);
    wr(E810_RDMA_DB_PAGE + 0x80, 1);
    wr(PFPE_AEQALLOC, 5);
    /* Nothing crashed; the engine still works after all that. */
    teardown();
}

/* ---- STag translation ---------------------------------------------------- */

/* xlate_pieces() on this test's device. */
static int xl(uint32_t stag, uint64_t to, uint64_t len, unsigned acc,
              uint32_t pd, bool priv, XlatePieces *p)
{
    return xlate_pieces(&c, stag, to, len, acc, pd, priv, p);
}

/* REG_MR of index @idx key @key for PD @pd. */
static void reg_mr(uint32_t idx, uint8_t key, uint32_t pd, uint64_t va,
                   uint64_t len, uint64_t pa, unsigned lpbl, uint32_t pble,
                   unsigned rights, bool remote, bool va_based)
{
    uint64_t q[8] = { 0 };

    q[0] = va;
    q[1] = len | (uint64_t)pd << 46;
    q[2] = (uint64_t)idx << 8 | key;
    q[4] = pa;
    q[6] = pble;
    CHECK_EQ(op_err(0x0a, q, 1ull << 43 | (uint64_t)lpbl << 44 |
            (uint64_t)rights << 48 | (remote ? 1ull << 53 : 0) |
            (va_based ? 1ull << 59 : 0)), 0);
}

#define LR E810_ACC_LOCAL_READ

static void test_xlate(void)
{
    XlatePieces p;
    uint64_t pble_pa, q[8] = { 0 };
    const uint64_t va = 0x70001234;
    const uint64_t P0 = M(0x30000), P1 = M(0x50000), P2 = M(0x40000);

    setup_ccq();
    pble_pa = SD1_PA + (c.rdma.obj[E810_HMC_PBLE].base - (2u << 20));

    /* Contiguous, VA based: split at 4 KiB boundaries. */
    reg_mr(0x21, 0x33, 4, va, 0x3000, M(0x20234), 0, 0, 0x3, false, true);
    CHECK_EQ(xl(0x2133, va + 0x100, 0x2000, E810_ACC_LOCAL_WRITE, 4, false, &p), 0);
    CHECK_EQ(p.n, 3);
    CHECK_EQ(p.pa[0], M(0x20334));
    CHECK_EQ(p.len[0], 0xCCC);
    CHECK_EQ(p.pa[1], M(0x21000));
    CHECK_EQ(p.len[0] + p.len[1] + p.len[2], 0x2000);
    /* Key, PD, rights, bounds. */
    CHECK_EQ(xl(0x2134, va, 8, LR, 4, false, &p),
             E810_XLATE_KEY);
    CHECK_EQ(xl(0x2133, va, 8, E810_ACC_LOCAL_READ, 5, false, &p), E810_XLATE_PD);
    CHECK_EQ(xl(0x2133, va, 8, E810_ACC_REMOTE_WRITE, 4, false, &p), E810_XLATE_RIGHTS);
    CHECK_EQ(xl(0x2133, va - 1, 8, LR, 4, false, &p),
             E810_XLATE_BOUNDS);
    CHECK_EQ(xl(0x2133, va + 0x2FF9, 8, LR, 4, false, &p),
             E810_XLATE_BOUNDS);
    CHECK_EQ(xl(0x2133, va + 0x2FF8, 8, LR, 4, false, &p), 0);
    CHECK_EQ(xl(0x2133, ~0ull - 4, 8, LR, 4, false, &p),
             E810_XLATE_BOUNDS);
    CHECK_EQ(xl(0x2233, va, 8, LR, 4, false, &p),
             E810_XLATE_INVALID);
    /* Zero length never validates; STag 0 only for privileged QPs. */
    CHECK_EQ(xl(0xABCD, 0, 0, E810_ACC_REMOTE_READ, 1, false, &p), 0);
    CHECK_EQ(p.n, 0);
    CHECK_EQ(xl(0, M(0x100), 64, E810_ACC_LOCAL_WRITE, 1, false, &p),
             E810_XLATE_STAG_ZERO);
    CHECK_EQ(xl(0, M(0x100), 64, E810_ACC_LOCAL_WRITE, 1, true, &p), 0);
    CHECK_EQ(p.pa[0], M(0x100));

    /* Level 1, remote write allowed: pages P0 P1 P2 at PBLE 100. */
    set64(pble_pa + 8 * 100, P0);
    set64(pble_pa + 8 * 101, P1);
    set64(pble_pa + 8 * 102, P2);
    reg_mr(0x22, 1, 4, 0x1010, 0x2FF0, 0, 1, 100, 0xF, true, true);
    CHECK_EQ(xl(0x2201, 0x1010, 0x1000, E810_ACC_REMOTE_WRITE, 4, false, &p), 0);
    CHECK_EQ(p.n, 2);
    CHECK_EQ(p.pa[0], P0 + 0x10);
    CHECK_EQ(p.len[0], 0xFF0);
    CHECK_EQ(p.pa[1], P1);
    CHECK_EQ(p.len[1], 0x10);
    CHECK_EQ(xl(0x2201, 0x3000, 0x10, E810_ACC_REMOTE_READ, 4, false, &p), 0);
    CHECK_EQ(p.pa[0], P2);
    /* The driver rewrites the list: no stale translation. */
    set64(pble_pa + 8 * 102, P0);
    CHECK_EQ(xl(0x2201, 0x3000, 0x10, E810_ACC_REMOTE_READ, 4, false, &p), 0);
    CHECK_EQ(p.pa[0], P0);

    /* Level 2: root PBLE 200 names leaf 300. */
    set64(pble_pa + 8 * 200, 300);
    set64(pble_pa + 8 * 300, P2);
    set64(pble_pa + 8 * 301, P1);
    reg_mr(0x23, 2, 4, 0, 0x2000, 0, 3, 200, 0x3, false, true);
    CHECK_EQ(xl(0x2302, 0x1008, 8, LR, 4, false, &p), 0);
    CHECK_EQ(p.pa[0], P1 + 8);
    /* Root naming a leaf beyond the PBLE object: a PBL error. */
    set64(pble_pa + 8 * 200, 0xFFFFFFFF);
    CHECK_EQ(xl(0x2302, 0x1008, 8, LR, 4, false, &p),
             E810_XLATE_PBL);

    /* Zero based: VA field is the first byte offset. */
    reg_mr(0x24, 3, 4, 0x80, 0x100, P0, 0, 0, 0x3, false, false);
    CHECK_EQ(xl(0x2403, 0x10, 0x10, LR, 4, false, &p), 0);
    CHECK_EQ(p.pa[0], P0 + 0x90);
    CHECK_EQ(xl(0x2403, 0xF8, 0x10, LR, 4, false, &p),
             E810_XLATE_BOUNDS);

    /* Level 1 pointing past the PBLE object. */
    reg_mr(0x25, 4, 4, 0, 0x1000, 0, 1, 5000, 0x3, false, true);
    CHECK_EQ(xl(0x2504, 0, 8, LR, 4, false, &p),
             E810_XLATE_PBL);

    /* The kernel DMA MR: all of memory, privileged users only. */
    reg_mr(0x26, 5, 1, 0, 0, 0, 0, 0, 0x3, false, true);
    CHECK_EQ(xl(0x2605, M(0x40), 0x2000, E810_ACC_LOCAL_WRITE, 1, true, &p), 0);
    CHECK_EQ(p.pa[0], M(0x40));
    CHECK_EQ(xl(0x2605, M(0x40), 8, E810_ACC_LOCAL_WRITE, 1, false, &p),
             E810_XLATE_BOUNDS);

    /* ALLOC_STAG gives an STag that is not usable until registered. */
    q[1] = 0x1000 | 4ull << 46;
    q[2] = 0x27ull << 8;
    CHECK_EQ(op_err(0x09, q, 1ull << 43 | 1ull << 44 | 0x3ull << 48), 0);
    CHECK_EQ(xl(0x2700, 0, 8, LR, 4, false, &p),
             E810_XLATE_INVALID);
    /* The whole region: four pieces (partial pages at both ends). */
    CHECK_EQ(xl(0x2133, va, 0x3000, LR, 4, false, &p), 0);
    CHECK_EQ(p.n, 4);
    teardown();
}

/* The layout irdma builds when user MRs use up the page lists: the PBLE
 * object spans 8 SDs (2M entries), each added on demand as a paged SD;
 * a level-2 MR's root sits in the newest SD and its leaves in two others,
 * so one region crosses SDs at a leaf boundary (verbs-lifecycle's PBLE
 * fill does this in a guest). */
static void test_xlate_pble_sds(void)
{
    uint64_t q[8] = { 0 }, cqe[4];
    uint64_t base;
    XlatePieces p;
    unsigned sd;
    const uint32_t n_pble = 2u << 20;
    /* Guest pages: a PD page per SD, one PBLE page per SD used. */
    const uint64_t pd_pa = M(0x600000), pble_pg = M(0x700000);
    const uint64_t data = M(0x800000);
    uint32_t root, leaf_a, leaf_b;

    setup();
    cqp_create_proto(1);
    q[4] = QUERY_PA;
    post_op(0x20, q, 0);
    memset(fake_mem(&h, COMMIT_PA), 0, 208);
    set64(COMMIT_PA + 0, 64);
    set64(COMMIT_PA + 8, 128);
    set64(COMMIT_PA + 48, 256);
    set64(COMMIT_PA + 112, n_pble);
    q[4] = COMMIT_PA;
    post_op(0x21, q, 208);
    CHECK_EQ(c.rdma.obj[E810_HMC_PBLE].cnt, n_pble);
    base = c.rdma.obj[E810_HMC_PBLE].base;
    CHECK_EQ(base % (2u << 20), 0);
    create_ccq();
    /* One paged SD per 256K PBLEs (UPDATE_PE_SDS, one entry each). */
    for (sd = 0; sd < 8; sd++) {
        unsigned idx = (unsigned)(base >> 21) + sd;

        memset(fake_mem(&h, pd_pa + 4096 * sd), 0, 4096);
        memset(q, 0, sizeof(q));
        q[0] = idx | 1u << 31;
        q[1] = (pd_pa + 4096 * sd) | 1;
        post_op(0x1f, q, 0);
        CHECK(ccq_next(cqe));
        CHECK_EQ((cqe[3] >> 55) & 1, 0);
    }
    /* PBLE i lives in SD i / 256K, PD page (i % 256K) / 512. */
#define PBLE_AT(i) (pble_pg + 4096 * ((i) >> 18) + 8 * ((i) & 511))
#define MAP_PBLE_PAGE(i) set64(pd_pa + 4096 * ((i) >> 18) + \
                               8 * (((i) >> 9) & 511), \
                               (pble_pg + 4096 * ((i) >> 18)) | 1)
    /* Root in the last SD, leaf A at the end of SD 1's range, leaf B in
     * SD 5: leaf-aligned (512) as the driver allocates them. */
    root = n_pble - 512;
    leaf_a = (2u << 18) - 512;
    leaf_b = (5u << 18) + 1024;
    MAP_PBLE_PAGE(root);
    MAP_PBLE_PAGE(leaf_a);
    MAP_PBLE_PAGE(leaf_b);
    set64(PBLE_AT(root), leaf_a);
    set64(PBLE_AT(root + 1), leaf_b);
    set64(PBLE_AT(leaf_a + 511), data);
    set64(PBLE_AT(leaf_b), data + 0x5000);
    set64(PBLE_AT(leaf_b + 1), data + 0x3000);
    /* 514 pages, VA-based at 0x7f0000000100. */
    reg_mr(0x31, 7, 9, 0x7f0000000100, 514 * 4096 - 0x100, 0, 3, root,
           0x3, false, true);
    /* Page 511 (leaf A's last) into page 512 (leaf B's first). */
    CHECK_EQ(xl(0x3107, 0x7f0000000000 + 511 * 4096 + 0xF00, 0x200, LR, 9,
                false, &p), 0);
    CHECK_EQ(p.n, 2);
    CHECK_EQ(p.pa[0], data + 0xF00);
    CHECK_EQ(p.len[0], 0x100);
    CHECK_EQ(p.pa[1], data + 0x5000);
    CHECK_EQ(p.len[1], 0x100);
    /* The last byte of the region. */
    CHECK_EQ(xl(0x3107, 0x7f0000000000 + 514 * 4096 - 1, 1, LR, 9, false,
                &p), 0);
    CHECK_EQ(p.pa[0], data + 0x3FFF);
    /* A leaf page whose PDE is not valid: a PBL error, no crash. */
    set64(PBLE_AT(root + 1), leaf_b + 4096);
    CHECK_EQ(xl(0x3107, 0x7f0000000000 + 512 * 4096, 8, LR, 9, false, &p),
             E810_XLATE_PBL);
    /* Level 1 at the very last PBLE; one past it is outside the object. */
    set64(PBLE_AT(n_pble - 1), data + 0x7000);
    reg_mr(0x32, 1, 9, 0, 4096, 0, 1, n_pble - 1, 0x3, false, true);
    CHECK_EQ(xl(0x3201, 0x10, 8, LR, 9, false, &p), 0);
    CHECK_EQ(p.pa[0], data + 0x7010);
    reg_mr(0x33, 1, 9, 0, 8192, 0, 1, n_pble - 1, 0x3, false, true);
    CHECK_EQ(xl(0x3301, 4096, 8, LR, 9, false, &p), E810_XLATE_PBL);
#undef PBLE_AT
#undef MAP_PBLE_PAGE
    teardown();
}

/* Random work requests and doorbells: every WQE completes, nothing
 * crashes (run under ASan/UBSan), the CCQ stays consistent. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A random guest address: mostly inside the fake memory window. */
static uint64_t rnd_pa(void)
{
    switch (rnd() % 4) {
    case 0:
        return rnd();
    case 1:
        return 0;
    default:
        return M(0x100000 + (rnd() % 0x200000));
    }
}

/*
 * The CCQ goes (DESTROY_CQ of CQ 0, as irdma_sc_ccq_destroy() posts it)
 * with the driver's consumer index at @ahead slots past the CCQEs it took
 * (qword 0 of the shadow area, written as irdma_sc_ccq_get_cqe_info()
 * does); returns what the engine counted as taken beyond those written.
 */
static uint64_t ccq_destroy_consumer_at(int ahead)
{
    uint64_t q[8] = { 0 };
    uint64_t ccqes;
    unsigned t = rd(PFPE_CQPTAIL);

    fake_host_advance(&h, E810_RDMA_CCQE_DELAY_NS);    /* all written */
    ccqes = c.rdma.stats.ccqes;

    set64(CCQ_SHADOW, (ring.ccq_head + CCQ_SIZE + ahead) % CCQ_SIZE);
    q[0] = CCQ_SIZE;
    q[1] = CCQ_PA >> 1;
    q[5] = CCQ_SHADOW;
    post_op(0x05, q, 0);
    /* The destroy itself goes as ever: the tail moves, no error, no CCQE. */
    CHECK_EQ(rd(PFPE_CQPTAIL), (t + 1) % SQ_SIZE);
    CHECK(!c.rdma.cq[0].valid);
    CHECK_EQ(c.rdma.stats.ccqes, ccqes);
    CHECK_EQ(h.guest_errors, 0);
    return c.stats.ccq_overconsumed;
}

static void test_ccq_overconsumed(void)
{
    uint64_t cqe[4];

    /* Every CCQE taken once: nothing to report. */
    setup_ccq();
    post_op(0x24, NULL, 0);
    post_op(0x24, NULL, 0);
    CHECK(ccq_next(cqe));
    CHECK(ccq_next(cqe));
    CHECK_EQ(ccq_destroy_consumer_at(0), 0);
    teardown();
    /* irdma's unload race: the worker and the DESTROY_CEQ 0 poll both took
     * the last CCQE, so the consumer index is one past what was written. */
    setup_ccq();
    post_op(0x24, NULL, 0);
    CHECK(ccq_next(cqe));
    CHECK_EQ(ccq_destroy_consumer_at(1), 1);
    teardown();
    /* The same across the ring's wrap (consumer at slot 0, producer 3). */
    setup_ccq();
    post_op(0x24, NULL, 0);
    post_op(0x24, NULL, 0);
    CHECK(ccq_next(cqe));
    CHECK(ccq_next(cqe));
    CHECK_EQ(ring.ccq_head, 3);
    CHECK_EQ(ccq_destroy_consumer_at(1), 1);
    teardown();
    /* CCQEs left untaken (a destroy after a reset request): the consumer
     * is behind, which is no over-consumption. */
    setup_ccq();
    post_op(0x24, NULL, 0);
    CHECK_EQ(ccq_destroy_consumer_at(0), 0);
    teardown();
    /* What irdma really does after the race: its SQ tail one past its head
     * makes the CQP ring look full, so the CCQ's DESTROY_CQ is never
     * posted and the CQP goes with the CCQ in place (CCQPLOW = 0). */
    setup_ccq();
    post_op(0x24, NULL, 0);
    CHECK(ccq_next(cqe));
    set64(CCQ_SHADOW, (ring.ccq_head + 1) % CCQ_SIZE);
    wr(PFPE_CCQPHIGH, 0);
    wr(PFPE_CCQPLOW, 0);
    CHECK(!c.rdma.cqp_active);
    CHECK_EQ(c.stats.ccq_overconsumed, 1);
    CHECK_EQ(h.guest_errors, 0);
    teardown();
    /* The same CQP destroy with every CCQE taken once: nothing. */
    setup_ccq();
    post_op(0x24, NULL, 0);
    CHECK(ccq_next(cqe));
    set64(CCQ_SHADOW, ring.ccq_head);
    wr(PFPE_CCQPHIGH, 0);
    wr(PFPE_CCQPLOW, 0);
    CHECK_EQ(c.stats.ccq_overconsumed, 0);
    teardown();
}

/* The CCQE of the CCQ's own creation, written when its time came. */
static bool ccq_valid_at(unsigned slot)
{
    return mem64(CCQ_PA + 32 * slot + 24) >> 63 == ring.ccq_pol;
}

/* The CCQEs of WQEs @first and @second: the first's is there, the
 * second's comes after the delay. */
static void ccqes_now_and_later(unsigned first, unsigned second)
{
    uint64_t cqe[4];

    CHECK(cqp_ring_ccqe(&ring, cqe));
    CHECK_EQ((cqe[3] >> 32) & 0x7FFF, first);
    CHECK(!cqp_ring_ccqe(&ring, cqe));
    CHECK(ccq_next(cqe));
    CHECK_EQ((cqe[3] >> 32) & 0x7FFF, second);
}

/*
 * CQP completions as the card gives them: CQPTAIL at once, the CCQE (and
 * with it the CEQE) E810_RDMA_CCQE_DELAY_NS later, in order, the last
 * op's first when the next WQE runs; one whose CQP goes is dropped and
 * counted.
 */
static void test_ccqe_timing(void)
{
    uint64_t q[8] = { 0 }, cqe[4];
    unsigned a, b, slot, t;

    setup_ccq();
    /* One op: the tail moves now, its CCQE a while later. */
    slot = ring.ccq_head;
    a = post_op(0x24, NULL, 0);
    CHECK_EQ(rd(PFPE_CQPTAIL), (a + 1) % SQ_SIZE);
    CHECK(c.rdma.ccqe_pending);
    CHECK(!ccq_valid_at(slot));
    fake_host_advance(&h, E810_RDMA_CCQE_DELAY_NS - 1);
    CHECK(!ccq_valid_at(slot));
    fake_host_advance(&h, 1);
    CHECK(ccq_valid_at(slot));
    CHECK(cqp_ring_ccqe(&ring, cqe));
    CHECK_EQ((cqe[3] >> 32) & 0x7FFF, a);
    CHECK(!c.rdma.ccqe_pending);
    /* Two WQEs on one doorbell: the first completes before the second
     * runs, the second after the delay. */
    t = ring.sq_head;
    st64(fake_mem(&h, SQ_PA + 64 * t + 24),
         0x24ull << 32 | (uint64_t)ring.sq_pol << 63);
    ring.sq_head = (ring.sq_head + 1) % SQ_SIZE;
    b = post_op(0x24, NULL, 0);
    ccqes_now_and_later(t, b);
    /* The next doorbell writes a pending CCQE before its WQE runs. */
    a = post_op(0x24, NULL, 0);
    b = post_op(0x24, NULL, 0);
    ccqes_now_and_later(a, b);
    /* An error shows in CQPTAIL at once and in its CCQE later. */
    post_op(0x3f, NULL, 0);
    CHECK(rd(PFPE_CQPTAIL) & PFPE_CQPTAIL_OP_ERR);
    CHECK(ccq_next(cqe));
    CHECK_EQ((cqe[3] >> 55) & 1, 1);
    /* The CCQ's DESTROY_CQ right behind an op: that op's CCQE is written
     * first, none is dropped. */
    post_op(0x24, NULL, 0);
    q[0] = CCQ_SIZE;
    q[1] = CCQ_PA >> 1;
    q[5] = CCQ_SHADOW;
    post_op(0x05, q, 0);
    CHECK(!c.rdma.cq[0].valid);
    CHECK(!c.rdma.ccqe_pending);
    CHECK(cqp_ring_ccqe(&ring, cqe));
    CHECK_EQ(c.stats.ccqes_dropped, 0);
    fake_host_advance(&h, E810_RDMA_CCQE_DELAY_NS);
    CHECK(!cqp_ring_ccqe(&ring, cqe));
    CHECK_EQ(h.guest_errors, 1);        /* the bad opcode 0x3f */
    teardown();
    /* A PF reset with a CCQE pending: dropped and counted, never written. */
    setup_ccq();
    slot = ring.ccq_head;
    post_op(0x24, NULL, 0);
    wr(PFGEN_CTRL, PFGEN_CTRL_PFSWR);
    CHECK(!c.rdma.ccqe_pending);
    CHECK_EQ(c.stats.ccqes_dropped, 1);
    fake_host_advance(&h, 2 * E810_RDMA_CCQE_DELAY_NS);
    CHECK(!ccq_valid_at(slot));
    teardown();
    /* The same when the CQP goes (CCQPLOW = 0) with the CCQ in place. */
    setup_ccq();
    post_op(0x24, NULL, 0);
    wr(PFPE_CCQPHIGH, 0);
    wr(PFPE_CCQPLOW, 0);
    CHECK_EQ(c.stats.ccqes_dropped, 1);
    fake_host_advance(&h, 2 * E810_RDMA_CCQE_DELAY_NS);
    CHECK(!c.rdma.cqp_active);
    teardown();
}

/* Arm @spec; the error message if refused (NULL if armed). */
static const char *arm(const char *spec)
{
    static char err[160];

    return e810_fault_arm(&c, spec, err, sizeof(err)) ? NULL : err;
}

/*
 * Faults on demand (fault.h): a spec that does not parse arms nothing;
 * CQP ops fail as asked (opcode, the ones let pass first, count, codes),
 * an MSI-X message is lost, the link drops, comes back and flaps at its
 * times; each injection is counted.
 */
/* Random faults: the same seed draws the same kinds at the same times;
 * the kinds listed only; refused kinds and keys. */
static void random_run(uint64_t seed, char *kinds, size_t n)
{
    char spec[96], err[128];
    size_t len = 0;

    e810_fault_clear(&c);
    snprintf(spec, sizeof(spec), "random:seed=%llu:period=1:count=6:"
             "kinds=msix-drop,aq-error,cqp-error", (unsigned long long)seed);
    CHECK(e810_fault_arm(&c, spec, err, sizeof(err)));
    for (unsigned s = 0; s < 10; s++) {
        fake_host_advance(&h, 1000000000ll);
        for (unsigned i = 0; i < E810_FAULTS_MAX; i++) {
            unsigned k = c.faults.f[i].kind;

            if (k && k != E810_FAULT_RANDOM && len + 2 < n) {
                kinds[len++] = '0' + k;
                c.faults.f[i].kind = 0;     /* taken: the next turn's */
            }
        }
    }
    kinds[len] = 0;
    CHECK(!e810_fault_check("random:kinds=qp-ae,link-down", err, sizeof(err)));
    CHECK(!e810_fault_check("random:kinds=", err, sizeof(err)));
    CHECK(!e810_fault_check("random:seed=-3", err, sizeof(err)));
    e810_fault_clear(&c);
}

static void test_fault_random(void)
{
    char a[32], b[32], d[32];

    setup_ccq();
    random_run(42, a, sizeof(a));
    random_run(42, b, sizeof(b));
    random_run(7, d, sizeof(d));
    CHECK_EQ(strlen(a), 6);
    CHECK(!strcmp(a, b));
    CHECK(strcmp(a, d) != 0);
    for (const char *p = a; *p; p++) {
        unsigned k = *p - '0';

        CHECK(k == E810_FAULT_MSIX_DROP || k == E810_FAULT_AQ_ERROR ||
              k == E810_FAULT_CQP_ERROR);
    }
    printf("# seed 42: kinds %s; seed 7: %s\n", a, d);
    /* The injection log: the last 64, the rest counted; cut at a line. */
    {
        static char log[8192];
        char small[40], err[64];
        uint16_t ma, mi;
        unsigned lines = 0;

        fake_host_advance(&h, 1500000000ll);
        CHECK(e810_fault_arm(&c, "cqp-error:op=0x24:count=70", err, sizeof(err)));
        for (unsigned i = 0; i < 70; i++) {
            CHECK(e810_fault_cqp(&c, 0x24, &ma, &mi));
        }
        e810_fault_log(&c, log, sizeof(log));
        for (const char *p = log; *p; p++) {
            lines += *p == '\n';
        }
        CHECK(!strncmp(log, "# ", 2));
        CHECK_EQ(lines, 1 + E810_FAULT_LOG_MAX);
        CHECK(strstr(log, " cqp-error 36 32772\n") != NULL);
        e810_fault_log(&c, small, sizeof(small));
        CHECK(strlen(small) < sizeof(small) && small[strlen(small) - 1] == '\n');
    }
    teardown();
}

static void test_faults(void)
{
    uint64_t cqe[4];
    const char *e;

    setup_ccq();
    /* Refused specs. */
    CHECK(arm("link-wobble") && strstr(arm("link-wobble"), "unknown fault"));
    CHECK(arm("cqp-error:op") != NULL);
    CHECK(arm("cqp-error:count=0") != NULL);
    CHECK(arm("cqp-error:op=-1") != NULL);
    CHECK(arm("link-down:at=1e12") != NULL);
    CHECK(arm("cqp-error:minor=0x10000") != NULL);
    CHECK(arm("link-flap:period=0.001") != NULL);  /* under 10 ms */
    e = arm("msix-drop;msix-drop;msix-drop;msix-drop;msix-drop;msix-drop;"
            "msix-drop;msix-drop;msix-drop;msix-drop;msix-drop;msix-drop;"
            "msix-drop;msix-drop;msix-drop;msix-drop;msix-drop");
    CHECK(e && strstr(e, "more than"));
    CHECK(arm("cqp-error:op=0x24;bogus") != NULL);    /* all or nothing */
    for (unsigned i = 0; i < E810_FAULTS_MAX; i++) {
        CHECK_EQ(c.faults.f[i].kind, 0);
    }
    /* CQP errors: NOPs, the first let pass, then two refused. */
    CHECK(arm("cqp-error:op=0x24:after=1:count=2:minor=0x8002") == NULL);
    CHECK_EQ(op_err(0x24, NULL, 0), 0);
    post_op(0x24, NULL, 0);
    CHECK(rd(PFPE_CQPTAIL) & PFPE_CQPTAIL_OP_ERR);
    CHECK(ccq_next(cqe));
    CHECK_EQ((cqe[3] >> 55) & 1, 1);
    CHECK_EQ(cqe[3] & 0xFFFF, 0x8002);
    CHECK_EQ((cqe[3] >> 16) & 0xFFFF, E810_CQP_MAJ_ERR);
    CHECK_EQ(op_err(0x24, NULL, 0), 1);
    CHECK_EQ(op_err(0x24, NULL, 0), 0);          /* used up */
    CHECK_EQ(c.stats.faults_injected, 2);
    /* Other opcodes are not taken. */
    CHECK(arm("cqp-error:op=0x16") == NULL);
    CHECK_EQ(op_err(0x24, NULL, 0), 0);
    e810_fault_clear(&c);
    /* A lost MSI-X message: the CEQE is written, no interrupt. */
    eq_create(0x16, CEQ_PA, 8);
    wr(GLINT_CEQCTL(0), E810_CTL_CAUSE_ENA | 3);
    wr(GLINT_DYN_CTL(3), GLINT_DYN_CTL_INTENA);
    CHECK(arm("msix-drop:vector=3") == NULL);
    set64(CCQ_SHADOW, ring.ccq_head);
    set64(CCQ_SHADOW + 32, 1u << 14 | 1u << 16);
    wr(PFPE_CQARM, 0);
    post_op(0x24, NULL, 0);
    CHECK(ccq_next(cqe));
    CHECK_EQ(mem64(CEQ_PA) >> 63, 1);
    CHECK_EQ(fake_irq_count(&h, 3), 0);
    CHECK_EQ(c.stats.faults_injected, 3);
    /* The link: down at 1 s, up at 2 s; then a flap of two periods of
     * 2 s from 5 s: down, up, down, up. */
    CHECK(c.link_up);
    CHECK(arm("link-down:at=1;link-up:at=2") == NULL);
    fake_host_advance(&h, 999999999);
    CHECK(c.link_up);
    fake_host_advance(&h, 1);
    CHECK(!c.link_up);
    fake_host_advance(&h, 1000000000);
    CHECK(c.link_up);
    CHECK(arm("link-flap:at=1:period=2:count=2") == NULL);
    for (unsigned s = 0; s < 4; s++) {          /* down, up, down, up */
        fake_host_advance(&h, 1000000000);
        CHECK_EQ(c.link_up, s & 1);
    }
    fake_host_advance(&h, 10000000000ll);
    CHECK(c.link_up);                           /* two flaps, no more */
    CHECK_EQ(c.stats.faults_injected, 3 + 2 + 4);
    for (unsigned i = 0; i < E810_FAULTS_MAX; i++) {
        CHECK_EQ(c.faults.f[i].kind, 0);
    }
    teardown();
}

static void test_random_wqes(void)
{
    static const unsigned ops[] = {
        0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x09, 0x0a, 0x0d, 0x0f, 0x11,
        0x12, 0x13, 0x16, 0x18, 0x19, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20,
        0x22, 0x23, 0x24, 0x25, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x3f,
    };
    uint64_t q[8], cqe[4];
    unsigned i, j, op;

    setup_ccq();
    for (i = 0; i < 20000; i++) {
        op = ops[rnd() % (sizeof(ops) / sizeof(ops[0]))];
        for (j = 0; j < 8; j++) {
            q[j] = (rnd() % 3) ? rnd_pa() : rnd() % 4096;
        }
        /* Never destroy the CCQ here: the test reads completions. */
        if (op == 0x05 || op == 0x04 || op == 0x03) {
            q[3] = (rnd() | 1) & ~(0x7ull << 50);
        } else {
            q[3] = rnd() & ~(0x3Full << 32 | 1ull << 63);
        }
        post_op(op, q, q[3] & 0xFFFFFFFF);
        if (!c.rdma.cq[0].valid) {
            break;
        }
        CHECK(ccq_next(cqe));
        CHECK_EQ((cqe[3] >> 32) & 0x7FFF, (ring.sq_head + SQ_SIZE - 1) % SQ_SIZE);
        if (rnd() % 8 == 0) {
            static const uint32_t regs[] = {
                PFPE_CQARM, PFPE_CQACK, PFPE_AEQALLOC, PFPE_WQEALLOC,
                E810_RDMA_DB_PAGE, E810_RDMA_DB_PAGE + 0x40, PFHMC_PDINV,
                GLINT_CEQCTL(0), PFINT_AEQCTL,
            };
            wr(regs[rnd() % (sizeof(regs) / sizeof(regs[0]))], (uint32_t)rnd());
        }
    }
    CHECK(c.rdma.cqp_active);
    CHECK_EQ(c.rdma.stats.cqp_ops, c.rdma.stats.ccqes + 3);  /* 3 before the CCQ */
    teardown();
}

int main(void)
{
    RUN(test_cqp_handshake);
    RUN(test_init_ops);
    RUN(test_ccq_wrap);
    RUN(test_ccq_overconsumed);
    RUN(test_ccqe_timing);
    RUN(test_faults);
    RUN(test_fault_random);
    RUN(test_ceq_interrupt);
    RUN(test_aeq_and_qp);
    RUN(test_tables);
    RUN(test_pble_ring);
    RUN(test_malformed);
    RUN(test_xlate);
    RUN(test_xlate_pble_sds);
    RUN(test_random_wqes);
    return CHECK_DONE();
}
