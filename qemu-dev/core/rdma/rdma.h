/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine ("PE"): registers, control QP, HMC, event queues and
 * the object tables the control path maintains.
 *
 * The programming model is the one the Linux irdma driver (gen2, icrdma)
 * uses: all RDMA registers live in the PF's BAR0, the driver talks to the
 * engine through a control QP (CQP) whose work requests run on the
 * doorbell write here; CQPTAIL moves with them and their completions reach
 * the control CQ (CCQ, CQ id 0), once it exists, a while later.
 */
#ifndef E810_RDMA_H
#define E810_RDMA_H

#include "../types.h"
#include "defs.h"
#include "../bytes.h"
#include "../net/net.h"

/* ---- device limits (what QUERY_FPM_VAL reports; also table caps) -------- */

#define E810_RDMA_MAX_QPS           1024
#define E810_RDMA_MAX_CQS           2048
#define E810_RDMA_MAX_MRS           16384     /* power of two: slot = idx % */
#define E810_RDMA_MAX_ARP           512
#define E810_RDMA_MAX_AH            1024
/*
 * Multicast groups (FSIMC objects, one 64-byte group context each).  The
 * gen2 driver numbers its groups 1 .. max_qp - 1 whatever FSIMC count it
 * committed (hw.c: max_mcg = max_qp) and hands the numbers out round
 * robin, so the device offers as many as it has QPs; the committed count
 * is then never below the QP count (ctrl.c:irdma_cfg_fpm_val only halves
 * FSIMC down to 256, and only when it has cut the QPs to 128).
 */
#define E810_RDMA_MAX_MCG           E810_RDMA_MAX_QPS
#define E810_RDMA_MAX_CEQS          16
#define E810_RDMA_MAX_SDS           16
#define E810_RDMA_MAX_PBLE          (2u << 20)  /* 16 MiB of 8-byte entries */
#define E810_RDMA_MAX_QHASH         256
#define E810_RDMA_MAX_WS_NODES      1024
#define E810_RDMA_STATS_INST        128
#define E810_RDMA_SD_SIZE           (2u << 20)
#define E810_RDMA_CQP_WQE_SIZE      64
/*
 * How long after its WQE ran a CQP completion reaches the CCQ.  The card
 * takes time over a CQP op; irdma's waiters rely on that: the first CCQ
 * poll of irdma_wait_event() finds nothing and the completion worker,
 * woken by the CCQE's CEQE, takes it.  A CCQE already there at that poll
 * leaves the worker to run later with nothing to do, and such a worker
 * running beside the CCQ poll of DESTROY_CEQ 0 takes one CCQE twice
 * (docs/kernels.md, "irdma takes one CCQE twice").  CQPTAIL moves at
 * once: irdma's register polls (before the CCQ exists) allow only 10 ms.
 * Ops complete in order: a pending CCQE is written before the next WQE
 * runs, so at most one, the last WQE's, waits.
 */
#define E810_RDMA_CCQE_DELAY_NS     1000000
#define E810_RDMA_CCQE_SIZE         32
#define E810_RDMA_CEQE_SIZE         8
#define E810_RDMA_AEQE_SIZE         16
#define E810_RDMA_QP_CTX_SIZE       256
/* Largest rings accepted (entries); the rings are guest memory. */
#define E810_RDMA_MAX_CQ_SIZE       (1u << 21)
#define E810_RDMA_MAX_CEQ_SIZE      (1u << 22)
#define E810_RDMA_MAX_AEQ_SIZE      (1u << 19)

/* HMC object types in query/commit buffer order. */
enum {
    E810_HMC_QP, E810_HMC_CQ, E810_HMC_SRQ, E810_HMC_HTE, E810_HMC_ARP,
    E810_HMC_APBVT, E810_HMC_MR, E810_HMC_XF, E810_HMC_XFFL, E810_HMC_Q1,
    E810_HMC_Q1FL, E810_HMC_TIMER, E810_HMC_FSIMC, E810_HMC_FSIAV,
    E810_HMC_PBLE, E810_HMC_RSVD, E810_HMC_RRF, E810_HMC_RRFFL,
    E810_HMC_HDR, E810_HMC_MD, E810_HMC_OOISC, E810_HMC_OOISCFFL,
    E810_HMC_NUM
};

/* ---- state -------------------------------------------------------------- */

typedef struct E810RdmaSd {
    bool valid;
    bool direct;            /* one 2 MiB page; else a page of 512 PDEs */
    uint64_t pa;
} E810RdmaSd;

typedef struct E810RdmaHmcObj {
    uint32_t max_cnt;       /* reported by QUERY_FPM_VAL */
    uint8_t size_log2;
    uint32_t cnt;           /* committed */
    uint64_t base;          /* FPM address */
} E810RdmaHmcObj;

/* A ring in guest memory: contiguous, or a level-1 list of 4 KiB pages
 * held in the PBLE object. */
typedef struct E810RdmaRing {
    uint64_t pa;
    bool virt;
    uint32_t pble_idx;
    uint32_t size;          /* entries */
    uint32_t head;          /* producer index */
    uint8_t polarity;       /* valid bit of the current pass */
} E810RdmaRing;

typedef struct E810RdmaCq {
    bool valid;
    bool ceq_valid;
    bool ceqe_mask;         /* 1: CEQE only when armed */
    bool armed;
    bool armed_se;          /* solicited-only arm */
    bool check_overflow;
    uint16_t ceq;
    uint64_t ctx;           /* echoed in CEQEs */
    uint64_t shadow_pa;
    E810RdmaRing ring;
} E810RdmaCq;

typedef struct E810RdmaEq {
    bool valid;
    E810RdmaRing ring;
    uint32_t credits;       /* AEQ only: free entries */
} E810RdmaEq;

typedef struct E810RdmaQp {
    bool valid;
    uint8_t type;           /* 1 iWARP, 2 UDA, 3 RoCE */
    uint8_t state;          /* IRDMA_QP_STATE_* */
    bool suspended;
    uint64_t ctx_pa;
    uint64_t shadow_pa;
    uint64_t comp_ctx;      /* QP ctx qword 21, echoed in CQEs/AEQEs */
    bool sq_tail_shown;     /* sq_tail_pub is in the shadow area */
    uint32_t sq_tail_pub;   /* last SQ tail written there */
} E810RdmaQp;

typedef struct E810RdmaMr {
    bool valid;             /* allocated (ALLOC_STAG or REG_MR) */
    bool registered;        /* has a mapping */
    uint32_t stag_idx;      /* full 24-bit index as written */
    uint8_t key;
    uint8_t rights;
    uint8_t lpbl;           /* 0 contiguous, 1 level 1, 3 level 2 */
    uint8_t page_size;      /* 0 4K, 1 2M, 2 1G */
    bool va_based;
    bool remote;
    uint32_t pd;
    uint64_t va;            /* VA (va_based) or first byte offset */
    uint64_t len;
    uint64_t pa;            /* first page (lpbl 0) */
    uint32_t pble_idx;
} E810RdmaMr;

/* An ARP cache entry (MANAGE_ARP). */
typedef struct E810RdmaArp {
    bool valid;
    uint8_t mac[6];
} E810RdmaArp;

/* An address handle: its CREATE/MODIFY_AH WQE as written. */
typedef struct E810RdmaAh {
    bool valid;
    uint64_t wqe[8];
} E810RdmaAh;

typedef struct E810RdmaQhash {
    bool valid;
    uint8_t type;           /* 1 established quad, 2 SYN listener */
    bool ipv4;
    uint16_t vlan;
    uint16_t lport, rport;
    uint32_t qpn;
    uint32_t qs_handle;
    uint8_t lmac[6];
    uint64_t rip[2], lip[2];    /* IPv4 in the low word of [0] */
} E810RdmaQhash;

/* A multicast group (CREATE/MODIFY_MCAST_GRP): its address and the UD
 * QPs its datagrams go to. */
typedef struct E810RdmaMcg {
    bool valid;
    bool ipv4;
    bool vlan_valid;
    uint16_t vlan_id;
    uint16_t qs_handle;
    uint8_t mac[6];
    uint8_t ip[16];             /* network order; IPv4 in the first 4 */
    uint8_t nqp;
    uint32_t qp[MGCTX_ENTRIES];
} E810RdmaMcg;

typedef struct E810RdmaCounters {
    uint64_t cqp_ops;
    uint64_t cqp_errors;
    uint64_t ccqes;
    uint64_t ceqes;
    uint64_t aeqes;
    uint64_t aeq_overflows;
    uint64_t doorbells;
    uint64_t stag_errors;       /* refused fast-register / invalidate */
} E810RdmaCounters;

/*
 * Protocol engine statistics (pestat.c), what GATHER_STATS reports and
 * irdma shows in `rdma statistic show`: the IP/TCP/UDP traffic the engine
 * itself sends and receives (its CM's segments through the ILQ and its
 * offloaded connections) and the RDMA operations of its QPs.
 */
enum {
    E810_PE_IP4RXOCTS, E810_PE_IP4RXPKTS, E810_PE_IP4RXDISCARD,
    E810_PE_IP4RXTRUNC, E810_PE_IP4RXMCOCTS, E810_PE_IP4RXMCPKTS,
    E810_PE_IP6RXOCTS, E810_PE_IP6RXPKTS, E810_PE_IP6RXDISCARD,
    E810_PE_IP6RXTRUNC, E810_PE_IP6RXMCOCTS, E810_PE_IP6RXMCPKTS,
    E810_PE_IP4TXOCTS, E810_PE_IP4TXPKTS, E810_PE_IP4TXMCOCTS,
    E810_PE_IP4TXMCPKTS, E810_PE_IP6TXOCTS, E810_PE_IP6TXPKTS,
    E810_PE_IP6TXMCOCTS, E810_PE_IP6TXMCPKTS,
    E810_PE_IP4TXNOROUTE, E810_PE_IP6TXNOROUTE,
    E810_PE_TCPRXSEGS, E810_PE_TCPRXPROTOERR, E810_PE_TCPTXSEG,
    E810_PE_TCPRTXSEG,          /* of connections already gone */
    E810_PE_UDPRXPKTS, E810_PE_UDPTXPKTS,
    E810_PE_RDMARXWRS, E810_PE_RDMARXRDS, E810_PE_RDMARXSNDS,
    E810_PE_RDMATXWRS, E810_PE_RDMATXRDS, E810_PE_RDMATXSNDS,
    E810_PE_RDMAVINV,
    E810_PE_COUNT
};
/* Kinds of received segments the engine discards. */
enum { E810_PE_ERR_DISCARD, E810_PE_ERR_TRUNC, E810_PE_ERR_TCP };

#define E810_RDMA_DIRTY_CHUNK       64
#define E810_RDMA_DIRTY_WORDS(n) \
    (((n) + E810_RDMA_DIRTY_CHUNK * 64 - 1) / (E810_RDMA_DIRTY_CHUNK * 64))

/* Entry @idx of a table with dirty map @map is about to be written. */
static inline void e810_rdma_dirty(uint64_t *map, uint32_t idx)
{
    uint32_t ch = idx / E810_RDMA_DIRTY_CHUNK;

    map[ch / 64] |= 1ull << (ch % 64);
}

/* What a CQP op reports in its CCQE. */
typedef struct E810CqpResult {
    uint16_t maj, min;
    uint32_t retval;
} E810CqpResult;

typedef struct E810Rdma {
    /* CQP */
    bool cqp_active;
    uint64_t cqp_ctx_pa;
    uint64_t cqp_sq_pa;
    uint64_t cqp_cookie;        /* host ctx qword 3, echoed in CCQEs */
    uint32_t cqp_size;
    uint32_t cqp_tail;
    uint8_t cqp_polarity;       /* valid bit of the current pass */
    uint8_t protocol;           /* 1 iWARP, 2 RoCEv2 */
    bool in_cqp;                /* re-entrancy guard */
    /* The completion of the WQE before cqp_tail, not yet in the CCQ. */
    bool ccqe_pending;
    E810CqpResult ccqe_res;

    /* HMC */
    bool fpm_committed;
    E810RdmaHmcObj obj[E810_HMC_NUM];
    E810RdmaSd sd[E810_RDMA_MAX_SDS];

    /* Tables, bounded by the limits above. */
    E810RdmaCq cq[E810_RDMA_MAX_CQS];
    E810RdmaEq ceq[E810_RDMA_MAX_CEQS];
    E810RdmaEq aeq;
    E810RdmaQp qp[E810_RDMA_MAX_QPS];
    E810RdmaMr *mr;             /* E810_RDMA_MAX_MRS entries */
    E810RdmaArp arp[E810_RDMA_MAX_ARP];
    E810RdmaAh *ah;             /* E810_RDMA_MAX_AH entries */
    E810RdmaMcg *mcg;           /* E810_RDMA_MAX_MCG entries */
    uint32_t mcg_count;         /* of them valid */
    /* Chunks (E810_RDMA_DIRTY_CHUNK entries) of mr, cq, ah, mcg written
     * since they were last cleared: a CQP teardown clears those only,
     * so a reset costs what was used, not the tables' size. */
    uint64_t mr_dirty[E810_RDMA_DIRTY_WORDS(E810_RDMA_MAX_MRS)];
    uint64_t cq_dirty[E810_RDMA_DIRTY_WORDS(E810_RDMA_MAX_CQS)];
    uint64_t ah_dirty[E810_RDMA_DIRTY_WORDS(E810_RDMA_MAX_AH)];
    uint64_t mcg_dirty[E810_RDMA_DIRTY_WORDS(E810_RDMA_MAX_MCG)];
    E810RdmaQhash qhash[E810_RDMA_MAX_QHASH];
    uint8_t apbvt[65536 / 8];   /* accelerated local TCP ports */
    uint8_t ws_node[E810_RDMA_MAX_WS_NODES / 8];
    uint8_t stats_inst[E810_RDMA_STATS_INST / 8];

    E810RdmaCounters stats;
    uint64_t pestat[E810_PE_COUNT];
    struct E810Eng *eng;        /* the QP engine (engine.c), lazily */
    struct E810Roce *roce;      /* RoCEv2 data path (core/roce/), lazily */
    E810CoreTimer *ccqe_timer;  /* writes the pending CCQEs */
} E810Rdma;

/* ---- entry points for e810.c -------------------------------------------- */

void e810_rdma_init(E810Core *c);
void e810_rdma_cleanup(E810Core *c);
void e810_rdma_reset(E810Core *c, E810ResetType type);
/* Register/doorbell writes the engine owns; false if not ours. */
bool e810_rdma_write(E810Core *c, uint32_t off, uint32_t val);
/* Saved state (snap.h), record E810_SNAP_RDMA: the control path.  The QP
 * engine's state (eng, roce) is record E810_SNAP_ENG's (engine.c). */
struct E810SnapW;
struct E810SnapR;
extern const struct E810SnapPart e810_rdma_snap;

/* ---- internal, shared by the files in rdma/ ---------------------------- */

static inline bool e810_bit(const uint8_t *map, unsigned i)
{
    return map[i / 8] & (1u << (i % 8));
}

static inline void e810_bit_set(uint8_t *map, unsigned i, bool on)
{
    if (on) {
        map[i / 8] |= 1u << (i % 8);
    } else {
        map[i / 8] &= ~(1u << (i % 8));
    }
}

/*
 * IP address words as the driver stores them in contexts and WQEs
 * (host-order u32s, word 0 most significant: qword @hi = w0:w1, @lo =
 * w2:w3; IPv4 in @lo 31:0) to network order at @out (4 or 16 bytes).
 */
static inline void e810_rdma_ip_from_words(uint8_t *out, bool v4, uint64_t hi,
                                           uint64_t lo)
{
    if (v4) {
        stbe32(out, (uint32_t)lo);
        return;
    }
    stbe32(out, (uint32_t)(hi >> 32));
    stbe32(out + 4, (uint32_t)hi);
    stbe32(out + 8, (uint32_t)(lo >> 32));
    stbe32(out + 12, (uint32_t)lo);
}

/* A MAC as the driver packs it in a word (ether_addr_to_u64: byte 0 in
 * 47:40) to its 6 bytes at @out. */
static inline void e810_rdma_mac_from_u64(uint8_t *out, uint64_t v)
{
    int i;

    for (i = 0; i < 6; i++) {
        out[i] = (uint8_t)(v >> (40 - 8 * i));
    }
}

/* "CREATE_QP", ... for traces and logs; "?" for an opcode the engine lacks. */
const char *e810_cqp_opcode_name(unsigned op);

/* result.c.  Fail the current CQP op: records the codes and reports a
 * guest error. */
void e810_cqp_fail(E810Core *c, E810CqpResult *r, uint16_t minor,
                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* A CREATE op's slot for @what @id: false (the op failed) if there is
 * no such slot (@slot NULL) or it is taken. */
bool e810_cqp_new_slot(E810Core *c, E810CqpResult *r, const void *slot,
                       bool taken, const char *what, uint32_t id);

/* A DESTROY op's object @what @id: false (the op failed) if it is not
 * there (@live false). */
bool e810_cqp_old_slot(E810Core *c, E810CqpResult *r, bool live,
                       const char *what, uint32_t id);

/* hmc.c */
void e810_rdma_hmc_reset(E810Core *c);
void e810_rdma_query_fpm(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
void e810_rdma_commit_fpm(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
void e810_rdma_update_sds(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
/* Saved state: the committed counts (the layout is computed from them
 * again) and the SDs. */
void e810_rdma_hmc_save(E810Core *c, struct E810SnapW *w);
bool e810_rdma_hmc_load(E810Core *c, struct E810SnapR *r, uint16_t ver);
/* Read PBLE @idx (8 bytes) through the SD table; false if unmapped. */
bool e810_rdma_pble_read(E810Core *c, uint32_t idx, uint64_t *val);
/* Guest address of byte @off of @ring with @esize-byte entries. */
bool e810_rdma_ring_addr(E810Core *c, const E810RdmaRing *ring,
                         uint64_t off, uint64_t *pa);

/* eq.c */
void e810_rdma_cq_create(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
void e810_rdma_cq_modify(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
void e810_rdma_cq_destroy(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
/* The CCQ (CQ 0) goes, or the CQP with it: check the driver's consumer
 * index against the CCQEs written (@when names the occasion). */
void e810_rdma_ccq_check(E810Core *c, const char *when);
void e810_rdma_ceq_create(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
void e810_rdma_ceq_destroy(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
void e810_rdma_aeq_create(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
void e810_rdma_aeq_destroy(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
/* Write a 32-byte CQE (qword 3 valid bit supplied by the ring) to @cq_id;
 * raises the CEQE/interrupt per the arm state.  False if it was lost. */
bool e810_rdma_cq_post(E810Core *c, unsigned cq_id, const uint64_t cqe[4]);
/* The same with a 32-byte extension (EXTCQE set in @cqe[3] by the caller):
 * immediate data, UD source MAC/VLAN. */
bool e810_rdma_cq_post_ext(E810Core *c, unsigned cq_id, const uint64_t cqe[4],
                           const uint64_t ext[4]);
void e810_rdma_cq_arm(E810Core *c, uint32_t cq_id);
/* Post an AEQE: @qw0 completion context, @qw1 fields without VALID. */
bool e810_rdma_aeq_post(E810Core *c, uint64_t qw0, uint64_t qw1);
void e810_rdma_aeq_alloc(E810Core *c, uint32_t n);
/* Saved state: the CEQs, the AEQ and the CQs. */
void e810_rdma_eq_save(E810Core *c, struct E810SnapW *w);
bool e810_rdma_eq_load(E810Core *c, struct E810SnapR *r, uint16_t ver);

/* qp.c: QPs, STags, ARP, AH, quad hash, APBVT, WS, stats, flush, AEs */
void e810_rdma_qp_create(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
void e810_rdma_qp_modify(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
void e810_rdma_qp_destroy(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
void e810_rdma_qp_flush(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
void e810_rdma_qp_suspend(E810Core *c, const uint64_t *wqe, bool resume,
                          E810CqpResult *r);
void e810_rdma_upload_ctx(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
void e810_rdma_stag(E810Core *c, unsigned op, const uint64_t *wqe,
                    E810CqpResult *r);
void e810_rdma_arp(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
void e810_rdma_ah(E810Core *c, unsigned op, const uint64_t *wqe,
                  E810CqpResult *r);
void e810_rdma_qhash(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
/* Saved state: the STags, ARP cache, AHs, quad hash and the bitmaps
 * (APBVT, WS nodes, statistics instances); the control QPs apart, last,
 * since the PUDA and engine records refer to them. */
void e810_rdma_tables_save(E810Core *c, struct E810SnapW *w);
bool e810_rdma_tables_load(E810Core *c, struct E810SnapR *r, uint16_t ver);
void e810_rdma_qps_save(E810Core *c, struct E810SnapW *w);
bool e810_rdma_qps_load(E810Core *c, struct E810SnapR *r, uint16_t ver);

/* mcg.c: multicast groups */
void e810_rdma_mcg(E810Core *c, unsigned op, const uint64_t *wqe,
                   E810CqpResult *r);
/* The member QPs, each once, of every group (at most E810_MCG_PER_ADDR)
 * for destination @ip (network order, 4 or 16 bytes) that takes a
 * datagram with VLAN id @vid (E810_VLAN_NONE untagged): up to @max into
 * @qps; how many. */
unsigned e810_rdma_mcg_members(E810Core *c, bool ipv4, const uint8_t *ip,
                               uint16_t vid, uint32_t *qps, unsigned max);
/* Saved state: the valid groups (mcg_count is recounted on load). */
void e810_rdma_mcg_save(E810Core *c, struct E810SnapW *w);
bool e810_rdma_mcg_load(E810Core *c, struct E810SnapR *r, uint16_t ver);
void e810_rdma_apbvt(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
void e810_rdma_ws_node(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
void e810_rdma_stats(E810Core *c, unsigned op, const uint64_t *wqe,
                     E810CqpResult *r);
void e810_rdma_wqe_alloc(E810Core *c, uint32_t qp_id);

/* Statistics (pestat.c): a frame the engine sent (@tx) or accepted from
 * the wire; a received segment it discarded; GATHER_STATS. */
void e810_pestat_tx(E810Core *c, const uint8_t *f, size_t len);
void e810_pestat_rx(E810Core *c, const E810Frame *fr);
void e810_pestat_rx_err(E810Core *c, bool ipv4, unsigned kind);
void e810_pestat_gather(E810Core *c, const uint64_t *wqe, E810CqpResult *r);
/* wqe.c: the SQ tail in the QP's doorbell shadow area (see there). */
bool e810_rdma_qp_show_sq_tail(E810Core *c, uint32_t qp_id, uint32_t tail);
/* xlate.c: STag translation.  Access rights as in the STag WQEs. */
#define E810_ACC_LOCAL_READ     0x01
#define E810_ACC_LOCAL_WRITE    0x02
#define E810_ACC_REMOTE_READ    0x04
#define E810_ACC_REMOTE_WRITE   0x08
enum {
    E810_XLATE_OK = 0,
    E810_XLATE_INVALID = -1,    /* no such registered STag */
    E810_XLATE_KEY = -2,        /* consumer key differs */
    E810_XLATE_PD = -3,         /* protection domain differs */
    E810_XLATE_RIGHTS = -4,     /* access not granted */
    E810_XLATE_BOUNDS = -5,     /* outside the region */
    E810_XLATE_PBL = -6,        /* page list entry not mapped */
    E810_XLATE_STAG_ZERO = -7,  /* STag 0 from a non-privileged QP */
    E810_XLATE_DMA = -8,        /* the consumer refused a piece */
};
/* Bytes of MR page size code @code (0 4 KiB, 1 2 MiB, 2 1 GiB); 0 if
 * the code is not one. */
static inline uint64_t e810_rdma_page_size(unsigned code)
{
    return code <= 2 ? 1ull << (code == 0 ? 12 : code == 1 ? 21 : 30) : 0;
}

/*
 * What REG_MR, ALLOC_STAG and FAST_REGISTER accept of a region, and so
 * what a loaded STag must show: a PBL level of 0, 1 or 3 (2 is none) and
 * a page size code e810_rdma_page_size knows; and a zero-based region's
 * first byte offset @va inside its first page (ctrl.c: va & (page_size
 * - 1)), or tagged offsets would run past the region.
 */
static inline bool e810_rdma_mr_shape_ok(unsigned lpbl, unsigned page_size)
{
    return lpbl <= 3 && lpbl != 2 && page_size <= 2;
}

static inline bool e810_rdma_mr_fbo_ok(unsigned page_size, bool va_based,
                                       uint64_t va)
{
    return va_based || va < e810_rdma_page_size(page_size);
}

/*
 * Called for each physically contiguous piece, in order; false stops.
 * E810_XLATE_OK means every one of the @len bytes was handed to @fn.
 * Without @fn only the STag, key, PD, rights and bounds are checked (no
 * walk of the pages: bounded work for any length).
 */
typedef bool E810RdmaSegFn(void *opaque, uint64_t pa, uint64_t len);
int e810_rdma_xlate(E810Core *c, uint32_t stag, uint64_t to, uint64_t len,
                    unsigned access, uint32_t pd, bool privileged,
                    E810RdmaSegFn *fn, void *opaque);

/* Valid committed object count, capped by the table size. */
uint32_t e810_rdma_obj_limit(E810Core *c, unsigned obj, uint32_t cap);

#endif
