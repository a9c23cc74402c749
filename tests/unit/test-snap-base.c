/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Saved state, BASE part (interrupts, admin queue, firmware, LAN, transmit
 * scheduler).  A device with VSIs, switch rules, RSS, a scheduler tree
 * with Tx queues, Tx and Rx rings part-way, statistics and a deferred
 * interrupt is saved and loaded into a second device on a second host
 * with the guest memory copied: the second saves the same bytes and then
 * behaves as the first does.  Every loader check is hit by a stream with
 * one value out of range; every cut at a record boundary fails; a failed
 * load leaves a device as a power-on reset does.
 */
#include "aq-util.h"
#include "net-util.h"
#include "check.h"
#include "snap.h"

static AqTest ta, tb;           /* the source, the destination */
static AqMsg m;

/* Guest memory (above the admin queue's rings and buffers). */
#define TX_RING         (FAKE_MEM_BASE + 0x800000)
#define TX_RING2        (FAKE_MEM_BASE + 0x801000)
#define TX_BUFS         (FAKE_MEM_BASE + 0x900000)
#define RX_RING         (FAKE_MEM_BASE + 0xA00000)  /* + 0x1000 per queue */
#define RX_BUFS         (FAKE_MEM_BASE + 0xB00000)  /* + 0x20000 per queue */
#define TXQ             5           /* running, head part-way */
#define TXQ2            6           /* re-created shorter than its old head */
#define TXQ3            7           /* created, then disabled */
#define TX_QLEN         64
#define TX_VEC          3
#define RXQ_FIRST       4           /* the VSI's queues: 4 and 5 */
#define RXQ_BAD         9           /* enabled with a ring of 4 */
#define RXQ_IDLE        10          /* enabled without packet buffers */
#define RX_QLEN         64
#define RX_BUF          2048
#define RX_VEC          7
#define ITR_VEC         11          /* holds a deferred fire */
#define ITR_INTERVAL    50          /* x 2 us */
#define QSET_HANDLE     0x21

static uint16_t vsi_num;
static uint32_t teid_root, teid_tc, teid_ep, teid_l[9], teid_txq;
static int64_t itr_deadline;

/* ---- device access ----------------------------------------------------- */

static void dwr(AqTest *t, uint32_t off, uint32_t v)
{
    e810_mmio_write(&t->c, off, v, 4);
    fake_host_run_bh(&t->h);
}

static uint8_t *mem(AqTest *t, uint64_t a)
{
    return fake_mem(&t->h, a);
}

static void save(AqTest *t, E810SnapW *w)
{
    char err[256];

    e810_snap_w_init(w);
    CHECK(e810_core_save(&t->c, w, err, sizeof(err)));
}

static bool same(const E810SnapW *a, const E810SnapW *b)
{
    return a->len == b->len && !memcmp(a->buf, b->buf, a->len);
}

/* ---- admin queue commands (ice_adminq_cmd.h layouts) ------------------- */

static void get_dflt_topo(AqTest *t, uint32_t teid[3])
{
    CHECK_EQ(aq_dflt_topo(t, teid), 0);
}

static uint32_t add_node(AqTest *t, uint32_t parent)
{
    uint32_t teid;

    CHECK_EQ(aq_add_node(t, parent, &teid), 0);
    return teid;
}

static int del_node(AqTest *t, uint32_t parent, uint32_t teid)
{
    aq_msg_init(&m, 0x040F, 12, true);
    st16(m.desc + 16, 1);
    st32(m.buf, parent);
    st16(m.buf + 4, 1);
    st32(m.buf + 8, teid);
    return aq_send(t, &m);
}

static uint32_t add_txq(AqTest *t, uint32_t parent, uint16_t q,
                        uint64_t ring, uint16_t qlen)
{
    uint32_t teid;

    CHECK_EQ(aq_add_txq(t, parent, q, ring, qlen, vsi_num, &teid), 0);
    return teid;
}

static void dis_txq(AqTest *t, uint32_t parent, uint16_t q)
{
    aq_dis_txq_msg(&m, parent, q);
    CHECK_EQ(aq_send(t, &m), 0);
}

static void add_qset(AqTest *t, uint32_t parent, uint16_t handle)
{
    aq_add_qset_msg(&m, parent, handle);
    CHECK_EQ(aq_send(t, &m), 0);
}

static void add_rl(AqTest *t, uint8_t level, uint8_t type)
{
    aq_msg_init(&m, 0x0410, 12, true);
    st16(m.desc + 16, 1);
    m.buf[AQC_RL_ELEM_LEVEL] = level;
    m.buf[AQC_RL_ELEM_FLAGS] = type;
    m.buf[6] = 0x42;                    /* some rate */
    CHECK_EQ(aq_send(t, &m), 0);
}

static void free_vsi(AqTest *t, uint16_t num, bool keep)
{
    aq_msg_init(&m, 0x0213, 0, false);
    st16(m.desc + 16, num | 0x8000);
    st16(m.desc + 18, keep);
    CHECK_EQ(aq_send(t, &m), 0);
}

static void rss(AqTest *t, uint16_t vsi)
{
    aq_msg_init(&m, 0x0B02, 52, true);
    st16(m.desc + 16, vsi | 0x8000);
    for (unsigned i = 0; i < 52; i++) {
        m.buf[i] = i * 37 + 11;
    }
    CHECK_EQ(aq_send(t, &m), 0);
    aq_msg_init(&m, 0x0B03, 2048, true);
    st16(m.desc + 16, vsi | 0x8000);
    st16(m.desc + 18, 1 | (1 << 3));    /* PF LUT, 2K entries */
    for (unsigned i = 0; i < 2048; i++) {
        m.buf[i] = i % 2;
    }
    CHECK_EQ(aq_send(t, &m), 0);
}

static void fw_misc(AqTest *t)
{
    /* Driver version, the global config lock, MAC config, an NVM read. */
    aq_msg_init(&m, 0x0002, 3, true);
    m.desc[16] = 7;
    m.desc[17] = 3;
    memcpy(m.buf, "ice", 3);
    CHECK_EQ(aq_send(t, &m), 0);
    aq_msg_init(&m, 0x0008, 0, false);
    st16(m.desc + 16, E810_RES_GLOBAL_CFG_LOCK);
    st16(m.desc + 18, E810_RES_ACCESS_WRITE);
    st32(m.desc + 20, 3000);
    CHECK_EQ(aq_send(t, &m), 0);
    aq_msg_init(&m, 0x0603, 0, false);
    st16(m.desc + 16 + AQC_SET_MAC_CFG_MAX_FRAME_SIZE, 9000);
    m.desc[16 + AQC_SET_MAC_CFG_PARAMS] = 0x18;
    CHECK_EQ(aq_send(t, &m), 0);
    aq_msg_init(&m, 0x0613, 0, false);
    st16(m.desc + 24, 0x3FE);
    CHECK_EQ(aq_send(t, &m), 0);
    aq_msg_init(&m, 0x0701, 16, false);
    st16(m.desc + 22, 16);
    CHECK_EQ(aq_send(t, &m), 0);
}

/* ---- the data path ------------------------------------------------------ */

static size_t tx_frame(uint8_t *f, unsigned seed)
{
    memcpy(f, aq_peer_mac, 6);
    memcpy(f + 6, aq_test_mac, 6);
    stbe16(f + 12, 0x88B5);
    for (unsigned i = 14; i < 100; i++) {
        f[i] = i * 3 + seed;
    }
    return 100;
}

/* Packets [from, to) of ring @base: one frame each, RS on every other. */
static void tx_post(AqTest *t, uint64_t base, unsigned qlen, unsigned from,
                    unsigned to, unsigned seed)
{
    for (unsigned i = from; i != to; i = (i + 1) % qlen) {
        uint64_t buf = TX_BUFS + 0x100 * (seed + i);
        unsigned cmd = E810_TXD_CMD_EOP | (i % 2 ? E810_TXD_CMD_RS : 0);
        uint8_t *d = mem(t, base + 16 * i);
        size_t n = tx_frame(mem(t, buf), seed + i);

        st64(d, buf);
        st64(d + 8, E810_TXD_DTYPE_DATA | (uint64_t)cmd << E810_TXD_CMD_S |
             (uint64_t)n << E810_TXD_BUF_SZ_S);
    }
}

/* An Ethernet/IPv4/UDP frame to us; @sport spreads it over the queues. */
static size_t rx_frame(uint8_t *f, uint16_t sport, size_t plen)
{
    uint8_t *udp = ref_eth_ip4(f, aq_test_mac, aq_peer_mac, 0x0A000001,
                               0x0A000002, 17, 8 + plen, 0);

    stbe16(udp, sport);
    stbe16(udp + 2, 4791);
    stbe16(udp + 4, 8 + plen);
    stbe16(udp + 6, 0);                 /* no checksum */
    for (size_t i = 0; i < plen; i++) {
        udp[8 + i] = i + sport;
    }
    return 42 + plen;
}

/* The context as ice_setup_rx_ctx fills it, written as ice_write_rxq_ctx. */
static void rxq_ctx(AqTest *t, unsigned q, uint64_t ring, unsigned qlen,
                    unsigned buf, unsigned rxmax)
{
    uint8_t b[32] = { 0 };

    put_bits(b, 32, 57, ring >> 7);
    put_bits(b, 89, 13, qlen);
    put_bits(b, 102, 7, buf / 128);
    put_bits(b, 116, 1, 1);             /* 32-byte descriptors */
    put_bits(b, 117, 1, 1);             /* CRC strip */
    put_bits(b, 119, 1, 1);             /* l2tsel */
    put_bits(b, 174, 14, rxmax);
    for (unsigned i = 0; i < 8; i++) {
        dwr(t, QRX_CONTEXT(i, q), ld32(b + 4 * i));
    }
    dwr(t, QRXFLXP_CNTXT(q), E810_RXDID_FLEX_NIC | 3 << 8 | 1 << 11);
}

static void rxq_up(AqTest *t, unsigned k)
{
    unsigned q = RXQ_FIRST + k;
    uint64_t ring = RX_RING + 0x1000 * k;

    rxq_ctx(t, q, ring, RX_QLEN, RX_BUF, 4 * RX_BUF);
    for (unsigned i = 0; i < RX_QLEN; i++) {
        uint8_t *d = mem(t, ring + 32 * i);

        memset(d, 0, 32);
        st64(d, RX_BUFS + 0x20000 * k + RX_BUF * i);
    }
    dwr(t, QRX_TAIL(q), RX_QLEN - 8);
    dwr(t, QINT_RQCTL(q), E810_CTL_CAUSE_ENA | RX_VEC);
    dwr(t, QRX_CTRL(q), QRX_CTRL_QENA_REQ);
}

static void rx_traffic(AqTest *t, unsigned n, unsigned seed)
{
    uint8_t f[1600];

    for (unsigned i = 0; i < n; i++) {
        size_t len = rx_frame(f, 1000 + seed + 7 * i, 60 + 97 * i);

        CHECK_EQ(e810_receive(&t->c, f, len), len);
    }
    dwr(t, GLINT_DYN_CTL(RX_VEC), GLINT_DYN_CTL_INTENA);
}

/* A software interrupt held off by ITR 0 (ice_enable_interrupt style). */
static void sw_intr(AqTest *t, unsigned v)
{
    dwr(t, GLINT_DYN_CTL(v), GLINT_DYN_CTL_INTENA | GLINT_DYN_CTL_SWINT_TRIG |
        E810_ITR_NONE << GLINT_DYN_CTL_ITR_INDX_S |
        GLINT_DYN_CTL_SW_ITR_INDX_ENA);
}

/* The source: everything the BASE part holds, in a state part-way. */
static void build(AqTest *t)
{
    uint32_t dflt[3], spare;
    uint16_t vsi2, vsi3;

    aq_test_init(t);
    fake_host_advance(&t->h, 1000000);

    /* Switch: our VSI with two queues, RSS, MAC rules; a VSI kept
     * reserved and one freed leave holes. */
    CHECK_EQ(aq_add_pf_vsi(t, 20, 1, false, &vsi2), 0);
    CHECK_EQ(aq_add_pf_vsi(t, 21, 1, false, &vsi3), 0);
    CHECK_EQ(aq_add_pf_vsi(t, RXQ_FIRST, 2, false, &vsi_num), 0);
    CHECK_EQ(aq_add_mac_rule(t, vsi2, aq_peer_mac), 0);
    CHECK_EQ(aq_add_mac_rule(t, vsi_num, aq_test_mac), 0);
    CHECK_EQ(aq_add_mac_rule(t, vsi_num, bcast_mac), 0);
    free_vsi(t, vsi2, true);
    free_vsi(t, vsi3, false);
    rss(t, vsi_num);
    fw_misc(t);

    /* Scheduler: ep -> layers 3..7, Tx queues and a qset on layer 8; a
     * deleted queue group leaves a hole. */
    get_dflt_topo(t, dflt);
    teid_root = dflt[0];
    teid_tc = dflt[1];
    teid_ep = dflt[2];
    teid_l[2] = teid_ep;
    for (unsigned l = 3; l <= 7; l++) {
        teid_l[l] = add_node(t, teid_l[l - 1]);
    }
    spare = add_node(t, teid_l[6]);
    teid_txq = add_txq(t, teid_l[7], TXQ, TX_RING, TX_QLEN);
    add_txq(t, teid_l[7], TXQ2, TX_RING2, 16);
    add_txq(t, teid_l[7], TXQ3, TX_RING2, 32);
    dis_txq(t, teid_l[7], TXQ3);
    add_qset(t, teid_l[7], QSET_HANDLE);
    CHECK_EQ(del_node(t, teid_l[6], spare), 0);
    add_rl(t, 3, 1);
    add_rl(t, 5, 2);

    /* DDP: an active package and a download under way, as 0x0C40 and
     * 0x0C42 leave them (test-fw-core drives the commands). */
    t->c.fw.ddp.loaded = true;
    strcpy(t->c.fw.ddp.active.name, "ICE OS Default Package");
    memcpy(t->c.fw.ddp.active.ver, "\x01\x03\x24\x00", 4);
    t->c.fw.ddp.active.track_id = 0xC0000001;
    t->c.fw.ddp.active_bufs = 41;
    t->c.fw.ddp.dl_active = true;
    t->c.fw.ddp.dl_bufs = 2;

    /* Tx: 3 packets sent on TXQ; TXQ2 runs to 10, is disabled and added
     * again with 8 descriptors (its old head belongs to the old queue). */
    dwr(t, QINT_TQCTL(TXQ), E810_CTL_CAUSE_ENA | TX_VEC);
    dwr(t, GLINT_DYN_CTL(TX_VEC), GLINT_DYN_CTL_INTENA);
    tx_post(t, TX_RING, TX_QLEN, 0, 3, 0);
    dwr(t, QTX_COMM_DBELL(TXQ), 3);
    tx_post(t, TX_RING2, 16, 0, 10, 100);
    dwr(t, QTX_COMM_DBELL(TXQ2), 10);
    dis_txq(t, teid_l[7], TXQ2);
    add_txq(t, teid_l[7], TXQ2, TX_RING2, 8);

    /* Rx: both queues part-way; a badly programmed and an idle queue. */
    dwr(t, GLINT_DYN_CTL(RX_VEC), GLINT_DYN_CTL_INTENA);
    rxq_up(t, 0);
    rxq_up(t, 1);
    rxq_ctx(t, RXQ_BAD, RX_RING + 0x4000, 4, RX_BUF, 4 * RX_BUF);
    dwr(t, QRX_CTRL(RXQ_BAD), QRX_CTRL_QENA_REQ);
    rxq_ctx(t, RXQ_IDLE, RX_RING + 0x5000, 32, 0, 0);
    dwr(t, QRX_CTRL(RXQ_IDLE), QRX_CTRL_QENA_REQ);
    rx_traffic(t, 7, 0);

    /* A vector fired, then a cause held off: its timer is armed. */
    dwr(t, GLINT_ITR(0, ITR_VEC), ITR_INTERVAL);
    sw_intr(t, ITR_VEC);
    fake_host_advance(&t->h, 10000);
    sw_intr(t, ITR_VEC);
    itr_deadline = t->c.vec[ITR_VEC].last_fire_ns + ITR_INTERVAL * 2000;
    CHECK(t->c.vec[ITR_VEC].timer_armed);
    CHECK_EQ(t->c.vec[ITR_VEC].timer_at, itr_deadline);

    /* The scheduler's statistics, and a backend that held 3 frames. */
    e810_core_resume(&t->c);
    fake_host_run_bh(&t->h);
    t->c.txs.blocked = true;
    t->c.txs.queued = 3;
    t->c.txs.blocked_at = t->h.now;

    CHECK(t->c.lan.txq[TXQ].head == 3);
    CHECK(t->c.lan.txq[TXQ2].head == 10);
    CHECK(t->c.lan.rxq[RXQ_FIRST].head + t->c.lan.rxq[RXQ_FIRST + 1].head
          == 7);
    CHECK(t->c.lan.rxq[RXQ_FIRST].head && t->c.lan.rxq[RXQ_FIRST + 1].head);
    CHECK(!t->c.lan.rxq[RXQ_BAD].valid && !t->c.lan.rxq[RXQ_IDLE].valid);
    CHECK(t->c.stats.tx_frames && t->c.stats.rx_frames && t->c.aq.commands);
    CHECK(t->c.fw.nvm.reads && t->c.txs.stats.bh_runs);
}

/* The destination: a new device on a new host with the guest's memory
 * and clock (what migration carries besides this device), then @w. */
static bool clone(AqTest *src, AqTest *dst, const E810SnapW *w, char *err,
                  size_t n)
{
    bool ok;

    aq_test_init(dst);
    memcpy(dst->h.mem, src->h.mem, FAKE_MEM_SIZE);
    dst->h.now = src->h.now;
    dst->atq_ntu = src->atq_ntu;
    dst->arq_ntc = src->arq_ntc;
    ok = e810_core_load(&dst->c, w->buf, w->len, err, n);
    if (ok) {
        e810_core_resume(&dst->c);
    }
    return ok;
}

/* ---- round trip --------------------------------------------------------- */

static void test_round_trip(void)
{
    E810SnapW w1, w2;
    char err[256] = "";

    build(&ta);
    save(&ta, &w1);
    CHECK(clone(&ta, &tb, &w1, err, sizeof(err)));
    if (err[0]) {
        fprintf(stderr, "load: %s\n", err);
    }
    save(&tb, &w2);
    CHECK_EQ(w2.len, w1.len);
    CHECK(same(&w1, &w2));

    /* What the stream does not carry is derived as the source has it. */
    CHECK_EQ(tb.c.fw.sw.nvsi, ta.c.fw.sw.nvsi);
    CHECK_EQ(tb.c.fw.sw.nvsi, 2);
    CHECK_EQ(tb.c.fw.sw.nrules, ta.c.fw.sw.nrules);
    CHECK_EQ(tb.c.fw.sched.nnodes, ta.c.fw.sched.nnodes);
    for (unsigned i = 0; i < E810_SCHED_MAX_NODES; i++) {
        CHECK_EQ(tb.c.fw.sched.node[i].nchildren,
                 ta.c.fw.sched.node[i].nchildren);
    }
    CHECK_EQ(tb.c.fw.sched.node[teid_l[7] - 1].nchildren, 3);
    for (unsigned q = TXQ; q <= TXQ3; q++) {
        const E810TxQueueCtx *a = e810_fw_txq(&ta.c, q);
        const E810TxQueueCtx *b = e810_fw_txq(&tb.c, q);

        CHECK_EQ(b->enabled, a->enabled);
        CHECK_EQ(b->gen, a->gen);
        CHECK_EQ(b->teid, a->teid);
        CHECK_EQ(b->base, a->base);
        CHECK_EQ(b->qlen, a->qlen);
        CHECK_EQ(b->src_vsi, a->src_vsi);
        CHECK_EQ(b->vmvf_type, a->vmvf_type);
        CHECK_EQ(b->tso_ena, a->tso_ena);
        CHECK_EQ(b->tso_qnum, a->tso_qnum);
    }
    for (unsigned q = 0; q < E810_LAN_RXQ; q++) {
        CHECK_EQ(tb.c.lan.rxq[q].enabled, ta.c.lan.rxq[q].enabled);
        CHECK_EQ(tb.c.lan.rxq[q].valid, ta.c.lan.rxq[q].valid);
    }
    CHECK(!tb.c.fw.sw.lk.valid);
    /* The source's backend is gone: nothing is held, nothing waits. */
    CHECK(!tb.c.txs.blocked);
    CHECK_EQ(tb.c.txs.queued, 0);
    CHECK_EQ(tb.c.txs.stats.blocked, ta.c.txs.stats.blocked);

    e810_snap_w_free(&w1);
    e810_snap_w_free(&w2);
    aq_test_cleanup(&tb);
    aq_test_cleanup(&ta);
}

/* ---- the same behaviour after the load ---------------------------------- */

/* Frames sent since @from on both hosts are the same. */
static void same_frames(unsigned from_a, unsigned from_b)
{
    CHECK_EQ(ta.h.nframes - from_a, tb.h.nframes - from_b);
    for (unsigned i = 0; from_a + i < ta.h.nframes &&
         from_b + i < tb.h.nframes; i++) {
        CHECK_EQ(ta.h.frame_len[from_a + i], tb.h.frame_len[from_b + i]);
        CHECK(!memcmp(ta.h.frames[from_a + i], tb.h.frames[from_b + i],
                      ta.h.frame_len[from_a + i]));
    }
}

static void same_irqs(unsigned from_a, unsigned from_b)
{
    CHECK_EQ(ta.h.nirqs - from_a, tb.h.nirqs - from_b);
    for (unsigned i = 0; from_a + i < ta.h.nirqs &&
         from_b + i < tb.h.nirqs; i++) {
        CHECK_EQ(ta.h.irqs[from_a + i], tb.h.irqs[from_b + i]);
    }
}

static void both_dwr(uint32_t off, uint32_t v)
{
    dwr(&ta, off, v);
    dwr(&tb, off, v);
}

static void test_same_behaviour(void)
{
    E810SnapW w1, w2;
    char err[256];
    unsigned fa, fb, ia, ib, n0, na;
    uint32_t topo_a[3], topo_b[3];
    int64_t t0;

    build(&ta);
    save(&ta, &w1);
    CHECK(clone(&ta, &tb, &w1, err, sizeof(err)));
    /* The source goes on too, as after a failed migration ("cont"). */
    e810_core_resume(&ta.c);
    fa = ta.h.nframes;
    fb = tb.h.nframes;
    ia = ta.h.nirqs;
    ib = tb.h.nirqs;

    /* The deferred fire: armed at T on the new host, fires at T. */
    CHECK(tb.c.vec[ITR_VEC].timer_armed);
    CHECK_EQ(tb.c.vec[ITR_VEC].timer_at, itr_deadline);
    n0 = fake_irq_count(&tb.h, ITR_VEC);
    na = fake_irq_count(&ta.h, ITR_VEC);
    t0 = tb.h.now;
    CHECK(itr_deadline > t0);
    fake_host_advance(&ta.h, itr_deadline - 1 - t0);
    fake_host_advance(&tb.h, itr_deadline - 1 - t0);
    CHECK_EQ(fake_irq_count(&tb.h, ITR_VEC), n0);
    fake_host_advance(&ta.h, 1);
    fake_host_advance(&tb.h, 1);
    CHECK_EQ(fake_irq_count(&tb.h, ITR_VEC), n0 + 1);
    CHECK_EQ(fake_irq_count(&ta.h, ITR_VEC), na + 1);
    CHECK_EQ(tb.c.vec[ITR_VEC].last_fire_ns, itr_deadline);
    CHECK(!tb.c.vec[ITR_VEC].timer_armed);

    /* Tx: TXQ goes on from its head; TXQ2 starts again at 0 and wraps. */
    tx_post(&ta, TX_RING, TX_QLEN, 3, 8, 200);
    tx_post(&tb, TX_RING, TX_QLEN, 3, 8, 200);
    both_dwr(GLINT_DYN_CTL(TX_VEC), GLINT_DYN_CTL_INTENA);
    both_dwr(QTX_COMM_DBELL(TXQ), 8);
    CHECK_EQ(tb.c.lan.txq[TXQ].head, 8);
    tx_post(&ta, TX_RING2, 8, 0, 6, 300);
    tx_post(&tb, TX_RING2, 8, 0, 6, 300);
    both_dwr(QTX_COMM_DBELL(TXQ2), 6);
    tx_post(&ta, TX_RING2, 8, 6, 2, 400);
    tx_post(&tb, TX_RING2, 8, 6, 2, 400);
    both_dwr(QTX_COMM_DBELL(TXQ2), 2);
    CHECK_EQ(tb.c.lan.txq[TXQ2].head, 2);
    CHECK(tb.h.nframes > fb);

    /* Rx: into the rings where the source left off. */
    rx_traffic(&ta, 9, 50);
    rx_traffic(&tb, 9, 50);
    CHECK_EQ(tb.c.lan.rxq[RXQ_FIRST].head, ta.c.lan.rxq[RXQ_FIRST].head);

    /* The firmware: same topology answer, same TEID for a new queue. */
    get_dflt_topo(&ta, topo_a);
    get_dflt_topo(&tb, topo_b);
    CHECK(!memcmp(topo_a, topo_b, sizeof(topo_a)));
    CHECK_EQ(add_txq(&ta, teid_l[7], 12, TX_RING2, 16),
             add_txq(&tb, teid_l[7], 12, TX_RING2, 16));
    add_node(&ta, teid_l[3]);
    add_node(&tb, teid_l[3]);

    same_frames(fa, fb);
    same_irqs(ia, ib);
    /* Descriptors, buffers, the admin queue's rings: all memory. */
    CHECK(!memcmp(ta.h.mem, tb.h.mem, FAKE_MEM_SIZE));
    e810_snap_w_free(&w1);
    save(&ta, &w1);
    save(&tb, &w2);
    CHECK(same(&w1, &w2));

    e810_snap_w_free(&w1);
    e810_snap_w_free(&w2);
    aq_test_cleanup(&tb);
    aq_test_cleanup(&ta);
}

/* ---- failed loads -------------------------------------------------------- */

static E810SnapW fresh;         /* a device just made, its counters zero */

/* The counters a power-on reset keeps (the driver takes its first read
 * as the base): after a failed load they hold what the stream had. */
static void zero_kept_counters(E810Core *c)
{
    memset(&c->stats, 0, sizeof(c->stats));
    memset(&c->txs.stats, 0, sizeof(c->txs.stats));
    memset(c->lan.port_stats, 0, sizeof(c->lan.port_stats));
    memset(c->lan.vsi_stats, 0, sizeof(c->lan.vsi_stats));
}

static void make_fresh(void)
{
    static FakeHost h;
    static E810Core c;
    char err[256];

    fake_host_init(&h);
    e810_core_init(&c, &h.host, aq_test_mac);
    e810_snap_w_init(&fresh);
    CHECK(e810_core_save(&c, &fresh, err, sizeof(err)));
    e810_core_cleanup(&c);
    fake_host_cleanup(&h);
}

/* ta built and saved into @w, tb loaded from it; fresh as a device just
 * made saves. */
static void build_and_clone(E810SnapW *w)
{
    char err[256];

    build(&ta);
    make_fresh();
    save(&ta, w);
    CHECK(clone(&ta, &tb, w, err, sizeof(err)));
}

/* tb after a failed load: as a device just made, no timer armed. */
static void check_reset(void)
{
    E810SnapW w;

    zero_kept_counters(&tb.c);
    save(&tb, &w);
    CHECK(same(&w, &fresh));
    CHECK_EQ(tb.c.mem_used, 0);
    for (unsigned i = 0; i < tb.h.ntimers; i++) {
        CHECK_EQ(tb.h.timers[i].expire, -1);
    }
    e810_snap_w_free(&w);
}

static unsigned negatives;

/* Loading @buf into tb fails, the message names @what, tb is reset. */
static void expect_fail(const uint8_t *buf, size_t len, const char *what)
{
    char err[256] = "";

    negatives++;
    CHECK(!e810_core_load(&tb.c, buf, len, err, sizeof(err)));
    if (getenv("E810_VERBOSE")) {
        fprintf(stderr, "# refused: %s\n", err);
    }
    if (!err[0] || !strstr(err, what)) {
        fprintf(stderr, "expected \"%s\" in \"%s\"\n", what, err);
        check_failed++;
    }
    check_reset();
}

static void expect_load(const E810SnapW *w)
{
    char err[256] = "";
    E810SnapW w2;

    CHECK(e810_core_load(&tb.c, w->buf, w->len, err, sizeof(err)));
    if (err[0]) {
        fprintf(stderr, "load: %s\n", err);
    }
    save(&tb, &w2);
    CHECK(same(w, &w2));
    e810_snap_w_free(&w2);
}

/* The source saved with one value changed in its state (which the save
 * writes as it is): the load refuses it. */
#define BAD(lval, val, what) do {                                   \
    __typeof__(lval) old_ = (lval);                                 \
    E810SnapW w_;                                                   \
                                                                    \
    (lval) = (val);                                                 \
    save(&ta, &w_);                                                 \
    (lval) = old_;                                                  \
    expect_fail(w_.buf, w_.len, what);                              \
    e810_snap_w_free(&w_);                                          \
} while (0)

static E810SnapW base;          /* the source's stream, unchanged */

/* Where a field is in the stream: the first byte that changes when the
 * source saves with @lval set to @alt (its low byte must change). */
#define FIELD_AT(lval, alt) ({                                      \
    __typeof__(lval) old_ = (lval);                                 \
    E810SnapW w_;                                                   \
    size_t at_ = 0;                                                 \
                                                                    \
    (lval) = (alt);                                                 \
    save(&ta, &w_);                                                 \
    (lval) = old_;                                                  \
    CHECK_EQ(w_.len, base.len);                                     \
    while (at_ < base.len && at_ < w_.len &&                        \
           base.buf[at_] == w_.buf[at_]) {                          \
        at_++;                                                      \
    }                                                               \
    CHECK(at_ < base.len);                                          \
    e810_snap_w_free(&w_);                                          \
    at_;                                                            \
})

/* The source's stream with @width bytes at @at set to @v (little-endian),
 * for values the state cannot hold (a bool of 2, a free entry). */
static void patched(size_t at, unsigned width, uint64_t v, const char *what)
{
    uint8_t *p = malloc(base.len);

    memcpy(p, base.buf, base.len);
    for (unsigned i = 0; i < width && at + i < base.len; i++) {
        p[at + i] = v >> (8 * i);
    }
    expect_fail(p, base.len, what);
    free(p);
}

#define PATCH(lval, alt, width, v, what) \
    patched(FIELD_AT(lval, alt), width, v, what)

static void test_bad_values(void)
{
    E810Core *c = &ta.c;
    E810FwSched *s = &c->fw.sched;
    E810SchedNode *leaf = &s->node[teid_txq - 1];
    unsigned vsi2 = E810_FW_MAX_VSI;
    unsigned rl0 = 0;
    uint32_t qset = 0;

    build_and_clone(&base);
    for (unsigned i = 0; i < E810_FW_MAX_VSI; i++) {
        if (c->fw.sw.vsi[i].state == E810_VSI_RESERVED) {
            vsi2 = i;
        }
    }
    CHECK(vsi2 < E810_FW_MAX_VSI);
    CHECK(e810_fw_rdma_qset_teid(c, QSET_HANDLE, &qset));
    CHECK(s->rl[rl0].in_use);

    /* intr */
    BAD(c->vec[ITR_VEC].pending_itr, 0x10, "intr.vec[11].pending_itr");
    BAD(c->vec[ITR_VEC].last_fire_ns, -1, "intr.vec[11].last_fire_ns");
    BAD(c->vec[ITR_VEC].last_fire_ns, INT64_MAX / 2 + 1,
        "intr.vec[11].last_fire_ns");
    BAD(c->vec[ITR_VEC].timer_at, -1, "intr.vec[11].timer_at");
    BAD(c->vec[ITR_VEC].timer_at, INT64_MAX / 2 + 1, "intr.vec[11].timer_at");
    PATCH(c->vec[3].fired, !c->vec[3].fired, 1, 2, "intr.vec[3].fired");
    PATCH(c->vec[ITR_VEC].timer_armed, false, 1, 2,
          "intr.vec[11].timer_armed");

    /* fw.core, fw.ddp, fw.phy */
    BAD(c->fw.core.res[E810_RES_NVM].access, 3, "fw.core.res[1].access");
    PATCH(c->fw.core.res[E810_RES_GLOBAL_CFG_LOCK].held, false, 1, 2,
          "fw.core.res[4].held");
    PATCH(c->fw.core.driver_unloading, true, 1, 2, "fw.core.driver_unloading");
    BAD(c->fw.ddp.active.name[E810_PKG_NAME_LEN], 'x',
        "fw.ddp.active.name");
    BAD(c->fw.ddp.dl_id.name[E810_PKG_NAME_LEN], 'x', "fw.ddp.dl_id.name");
    PATCH(c->fw.ddp.loaded, false, 1, 2, "fw.ddp.loaded");
    PATCH(c->fw.ddp.dl_active, false, 1, 2, "fw.ddp.dl_active");
    PATCH(c->fw.ddp.dl_have_id, true, 1, 2, "fw.ddp.dl_have_id");
    BAD(c->fw.phy.max_frame_size, 0, "fw.phy.max_frame_size");
    BAD(c->fw.phy.max_frame_size, E810_MAC_FRAME_MAX + 1,
        "fw.phy.max_frame_size");
    PATCH(c->fw.phy.link_en, false, 1, 2, "fw.phy.link_en");
    PATCH(c->fw.phy.mac_loopback, true, 1, 2, "fw.phy.mac_loopback");
    PATCH(c->fw.phy.up, false, 1, 2, "fw.phy.up");
    PATCH(c->fw.phy.lse_ena, true, 1, 2, "fw.phy.lse_ena");

    /* fw.sw */
    BAD(c->fw.sw.vsi[vsi2].state, 3, "fw.sw.vsi[");
    PATCH(c->fw.sw.vsi[vsi2].state, E810_VSI_IN_USE, 1, E810_VSI_FREE,
          ".state");
    BAD(c->fw.sw.vsi[vsi_num].type, 4, ".type");
    BAD(c->fw.sw.pf_lut_size, 0, "fw.sw.pf_lut_size");
    BAD(c->fw.sw.pf_lut_size, 100, "fw.sw.pf_lut_size");
    BAD(c->fw.sw.pf_lut_size, 4096, "fw.sw.pf_lut_size");

    /* fw.sched: the fields */
    BAD(s->next, E810_SCHED_MAX_NODES, "fw.sched.next");
    BAD(s->root_teid, 0, "fw.sched.root_teid");
    BAD(s->root_teid, E810_SCHED_MAX_NODES + 1, "fw.sched.root_teid");
    BAD(s->tc_teid, 0, "fw.sched.tc_teid");
    BAD(s->tc_teid, E810_SCHED_MAX_NODES + 1, "fw.sched.tc_teid");
    BAD(s->ep_teid, 0, "fw.sched.ep_teid");
    BAD(s->ep_teid, E810_SCHED_MAX_NODES + 1, "fw.sched.ep_teid");
    PATCH(leaf->kind, E810_SCHED_QSET, 1, E810_SCHED_FREE,
          "fw.sched.node[");
    BAD(leaf->kind, E810_SCHED_QSET + 1, ".kind");
    BAD(leaf->layer, E810_SCHED_LAYERS, ".layer");
    PATCH(s->rl[rl0].level, 1, 1, 0, "fw.sched.rl[0].level");
    BAD(s->rl[rl0].level, E810_SCHED_LAYERS + 1, "fw.sched.rl[0].level");
    BAD(s->rl[rl0].type, AQC_RL_PROFILE_TYPE_SRL + 1, "fw.sched.rl[0].type");
    /* ... and the tree */
    BAD(s->root_teid, teid_tc, "fw.sched.root_teid");
    BAD(s->root_teid, teid_txq, "fw.sched.root_teid");
    BAD(s->tc_teid, teid_ep, "fw.sched.tc_teid");
    BAD(s->tc_teid, 4000, "fw.sched.tc_teid");
    BAD(s->node[teid_l[5] - 1].layer, 4, "fw.sched.node[");
    BAD(leaf->layer, 7, ".layer");                      /* a leaf on 7 */
    BAD(s->node[teid_l[7] - 1].kind, E810_SCHED_TXQ, ".layer");
    BAD(s->node[teid_l[7] - 1].layer, 8, ".layer");     /* a node on 8 */
    BAD(s->node[teid_l[5] - 1].parent, 4000, ".parent");
    BAD(s->node[teid_l[5] - 1].parent, E810_SCHED_INVAL_TEID, ".parent");
    BAD(s->node[teid_l[5] - 1].parent, teid_l[3], ".parent");  /* 2 up */
    BAD(s->node[teid_l[5] - 1].parent, teid_l[5], ".parent");  /* itself */
    BAD(s->node[teid_l[3] - 1].layer, 0, "a second root");
    /* ... and the Tx queue contexts */
    PATCH(s->txq[TXQ3].gen, s->txq[TXQ3].gen + 2, 4, 0, "fw.sched.txq[");
    PATCH(s->txq[TXQ3].enabled, true, 1, 2, "fw.sched.txq[7].enabled");
    CHECK_EQ(s->txq[TXQ3].qlen, 32);                     /* bit 140 */
    BAD(s->txq[TXQ3].raw[17], 0, "fw.sched.txq[7].raw");   /* qlen 0 */
    BAD(s->txq[TXQ].teid, 0, "fw.sched.txq[5].teid");
    BAD(s->txq[TXQ].teid, teid_l[7], "fw.sched.txq[5].teid");
    BAD(s->txq[TXQ].teid, qset, "fw.sched.txq[5].teid");
    BAD(s->txq[TXQ].teid, s->txq[TXQ2].teid, "fw.sched.txq[5].teid");
    BAD(s->txq[TXQ].teid, 5000, "fw.sched.txq[5].teid");

    /* lan */
    PATCH(c->lan.txq[TXQ].gen, c->lan.txq[TXQ].gen + 2, 4, 0, "lan.txq[");
    BAD(c->lan.txq[TXQ].head, TX_QLEN, "lan.txq[5].head");
    BAD(c->lan.txq[TXQ2].gen, s->txq[TXQ2].gen, "lan.txq[6].head");
    BAD(c->lan.rxq[RXQ_FIRST].qlen, 0x2000, "lan.rxq[4].qlen");
    BAD(c->lan.rxq[RXQ_FIRST].head, 0x2000, "lan.rxq[4].head");
    BAD(c->lan.rxq[RXQ_FIRST].dbuf, 0x80 << 7, "lan.rxq[4].dbuf");
    BAD(c->lan.rxq[RXQ_FIRST].hbuf, 0x20 << 6, "lan.rxq[4].hbuf");
    BAD(c->lan.rxq[RXQ_FIRST].dtype, 4, "lan.rxq[4].dtype");
    BAD(c->lan.rxq[RXQ_FIRST].rxmax, 0x4000, "lan.rxq[4].rxmax");
    BAD(c->lan.rxq[RXQ_FIRST].base, RX_RING + 0x40, "lan.rxq[4]");
    BAD(c->lan.rxq[RXQ_FIRST].dbuf, 1000, "lan.rxq[4]");
    BAD(c->lan.rxq[RXQ_FIRST].hbuf, 100, "lan.rxq[4]");
    PATCH(c->lan.rxq[RXQ_FIRST].dsize32, false, 1, 2, "lan.rxq[4].dsize32");
    PATCH(c->lan.rxq[RXQ_FIRST].showiv, true, 1, 2, "lan.rxq[4].showiv");
    PATCH(c->lan.rxq[RXQ_FIRST].crcstrip, false, 1, 2,
          "lan.rxq[4].crcstrip");
    PATCH(c->lan.rxq[RXQ_FIRST].l2tsel, false, 1, 2, "lan.rxq[4].l2tsel");

    /* The values at their bounds load. */
    c->vec[ITR_VEC].pending_itr = 0xF;
    c->fw.phy.max_frame_size = 1;
    c->fw.sw.pf_lut_size = 512;
    c->lan.rxq[RXQ_IDLE].dtype = 3;
    c->lan.rxq[RXQ_IDLE].rxmax = 0x3FFF;
    c->lan.rxq[RXQ_IDLE].hbuf = 0x1F << 6;
    e810_snap_w_free(&base);
    save(&ta, &base);
    expect_load(&base);

    fprintf(stderr, "# %u streams with one bad value refused\n", negatives);
    e810_snap_w_free(&base);
    e810_snap_w_free(&fresh);
    aq_test_cleanup(&tb);
    aq_test_cleanup(&ta);
}

/* States the guest can reach load, however odd (the loader is never
 * stricter than the device). */
static void test_reachable(void)
{
    E810SnapW w;
    char err[256];
    uint32_t dflt[3], n;

    /* The driver deleted the default entry point: ep_teid names nothing,
     * then a node that is no entry point. */
    aq_test_init(&ta);
    get_dflt_topo(&ta, dflt);
    CHECK_EQ(del_node(&ta, dflt[1], dflt[2]), 0);
    save(&ta, &w);
    CHECK(clone(&ta, &tb, &w, err, sizeof(err)));
    expect_load(&w);
    e810_snap_w_free(&w);
    /* (next comes back to a slot after 4096 allocations) */
    ta.c.fw.sched.next = dflt[2] - 1;
    n = add_node(&ta, dflt[1]);
    CHECK_EQ(n, dflt[2]);
    save(&ta, &w);
    expect_load(&w);
    e810_snap_w_free(&w);

    /* An Rx queue enabled with its head beyond its ring: not valid, and
     * the next QENA_REQ loads the context anew. */
    rxq_ctx(&ta, 3, RX_RING, 16, RX_BUF, RX_BUF);
    dwr(&ta, QRX_CONTEXT(0, 3), 20);
    dwr(&ta, QRX_CTRL(3), QRX_CTRL_QENA_REQ);
    CHECK(ta.c.lan.rxq[3].enabled && !ta.c.lan.rxq[3].valid);
    save(&ta, &w);
    expect_load(&w);
    CHECK(tb.c.lan.rxq[3].enabled && !tb.c.lan.rxq[3].valid);
    e810_snap_w_free(&w);

    aq_test_cleanup(&tb);
    aq_test_cleanup(&ta);
}

/* A stream cut at each record boundary (and inside each record's header)
 * fails with a message and leaves the device reset. */
static void test_truncation(void)
{
    E810SnapW w;
    size_t at = 0;
    unsigned records = 0;

    build_and_clone(&w);
    while (at < w.len) {
        uint32_t len = ld32(w.buf + at + 4);

        expect_fail(w.buf, at, "");
        expect_fail(w.buf, at + 4, "");
        if (at + 8 < w.len) {
            expect_fail(w.buf, at + 8, "");
        }
        if (len > 1) {
            expect_fail(w.buf, at + 8 + len - 1, "");
        }
        records++;
        at += 8 + len;
    }
    CHECK_EQ(at, w.len);
    /* header, one record per row of e810_snap_blocks[], end */
    CHECK(records >= 13);
    expect_load(&w);
    e810_snap_w_free(&w);
    e810_snap_w_free(&fresh);
    aq_test_cleanup(&tb);
    aq_test_cleanup(&ta);
}

int main(void)
{
    RUN(test_round_trip);
    RUN(test_same_behaviour);
    RUN(test_bad_values);
    RUN(test_reachable);
    RUN(test_truncation);
    return CHECK_DONE();
}
