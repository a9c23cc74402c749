/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine (irdma "gen2"): every register, work-request, context,
 * completion and event layout the engine decodes, named once, in the words
 * of the driver's defs.h / user.h (without their IRDMA_ prefix).  Field
 * macros take the 64-bit little-endian word that holds them (e810_fld);
 * *_S are shifts for building words.
 */
#ifndef E810_RDMA_DEFS_H
#define E810_RDMA_DEFS_H

#include "../types.h"

/* Bits hi:lo of a 64-bit word. */
static inline uint64_t e810_fld(uint64_t v, unsigned hi, unsigned lo)
{
    return (v >> lo) & (hi - lo == 63 ? ~0ull : ((1ull << (hi - lo + 1)) - 1));
}

/* ---- registers (BAR0 offsets) ------------------------------------------- */

#define PFPE_CQPDB                  0x00500800
#define PFPE_CQPTAIL                0x00500880
#define   PFPE_CQPTAIL_WQTAIL_M     0x7FFu
#define   PFPE_CQPTAIL_OP_ERR       (1u << 31)
#define PFPE_CQARM                  0x00502C00
#define PFPE_CQACK                  0x00502C80
#define PFPE_AEQALLOC               0x00502D00
#define PFPE_WQEALLOC               0x00504400
#define PFPE_CCQPSTATUS             0x0050A000
#define   PFPE_CCQPSTATUS_DONE      (1u << 0)
#define   PFPE_CCQPSTATUS_ERR       (1u << 31)
#define PFPE_CCQPLOW                0x0050A080
#define PFPE_CCQPHIGH               0x0050A100
#define PFPE_CQPERRCODES            0x0050A200
#define GLPE_CPUSTATUS0             0x0050BA5C
#define GLPE_CPUSTATUS1             0x0050BA60
#define GLPE_CPUSTATUS2             0x0050BA64
#define   GLPE_CPUSTATUS_READY      0x80u
#define PFHMC_PDINV                 0x00520300
#define PFHMC_ERRORINFO             0x00520400
#define PFHMC_ERRORDATA             0x00520500
#define GLPE_CRITERR                0x00534000
/* GLPCI_LBARCTRL.PE_DB_SIZE (5:4): 2 = 8 MiB doorbell space. */
#define   GLPCI_LBARCTRL_PE_DB_SIZE_S 4
#define   E810_PE_DB_SIZE_8M        2u

/* User-space doorbell page (mapped by irdma_mmap): +0 SQ, +0x40 CQ arm. */
#define E810_RDMA_DB_PAGE           0x007F0000u
#define E810_RDMA_DB_PAGE_SIZE      0x1000u
#define E810_RDMA_DB_WQEALLOC       0x00
#define E810_RDMA_DB_CQARM          0x40

/* ---- CQP completion codes ----------------------------------------------- */

/* Major 0xFFFF with a minor code is how the engine reports a failed op;
 * irdma treats a few minors as non-critical (utils.c noncrit list). */
#define E810_CQP_MAJ_ERR            0xFFFFu
#define E810_CQP_MIN_BAD_OPCODE     0x8001u   /* device choice */
#define E810_CQP_MIN_INVALID_STATE  0x8002u   /* irdma: "Invalid State" */
#define E810_CQP_MIN_BAD_ID         0x8003u   /* device choice */
#define E810_CQP_MIN_BAD_PARAM      0x8004u   /* device choice */
#define E810_CQP_MIN_DMA            0x8005u   /* device choice */
#define E810_CQP_MIN_UNSUPPORTED    0x8008u   /* device choice */
#define E810_CQP_MIN_NO_MEMORY      0x8009u   /* device choice: mem_limit */
/* FLUSH_WQES minor codes the driver interprets (hw.c). */
#define E810_CQP_COMPL_RQ_FLUSHED   2
#define E810_CQP_COMPL_SQ_FLUSHED   3


/* ---- CQP work requests (64 bytes; qword 3 is the header) -------------- */

#define CQPSQ_OPCODE(h)             ((unsigned)e810_fld(h, 37, 32))
#define CQPSQ_WQEVALID              (1ull << 63)

enum {
    CQP_OP_CREATE_QP = 0x00, CQP_OP_MODIFY_QP = 0x01,
    CQP_OP_DESTROY_QP = 0x02, CQP_OP_CREATE_CQ = 0x03,
    CQP_OP_MODIFY_CQ = 0x04, CQP_OP_DESTROY_CQ = 0x05,
    CQP_OP_ALLOC_STAG = 0x09, CQP_OP_REG_MR = 0x0a,
    CQP_OP_DEALLOC_STAG = 0x0d, CQP_OP_MANAGE_ARP = 0x0f,
    CQP_OP_MANAGE_PUSH_PAGES = 0x11, CQP_OP_QUERY_RDMA_FEATURES = 0x12,
    CQP_OP_UPLOAD_CONTEXT = 0x13, CQP_OP_CREATE_CEQ = 0x16,
    CQP_OP_DESTROY_CEQ = 0x18, CQP_OP_CREATE_AEQ = 0x19,
    CQP_OP_DESTROY_AEQ = 0x1b, CQP_OP_CREATE_AH = 0x1c,
    CQP_OP_MODIFY_AH = 0x1d, CQP_OP_DESTROY_AH = 0x1e,
    CQP_OP_UPDATE_PE_SDS = 0x1f, CQP_OP_QUERY_FPM_VAL = 0x20,
    CQP_OP_COMMIT_FPM_VAL = 0x21, CQP_OP_FLUSH_WQES = 0x22,
    CQP_OP_GEN_AE = 0x22,       /* same opcode, told apart by GENERATE_AE */
    CQP_OP_MANAGE_APBVT = 0x23, CQP_OP_NOP = 0x24,
    CQP_OP_MANAGE_QHASH = 0x25, CQP_OP_CREATE_MCAST_GRP = 0x26,
    CQP_OP_MODIFY_MCAST_GRP = 0x27, CQP_OP_DESTROY_MCAST_GRP = 0x28,
    CQP_OP_SUSPEND_QP = 0x29,
    CQP_OP_RESUME_QP = 0x2a, CQP_OP_SHMC_PAGES_ALLOCATED = 0x2b,
    CQP_OP_WORK_SCHED_NODE = 0x2c, CQP_OP_MANAGE_STATS = 0x2d,
    CQP_OP_GATHER_STATS = 0x2e,
    CQP_OP_COUNT = 0x40,        /* the opcode field is 6 bits */
};

/* CREATE_QP / MODIFY_QP / DESTROY_QP header */
#define CQPSQ_QP_ID(h)              ((uint32_t)e810_fld(h, 23, 0))
#define CQPSQ_QP_TOECTXVALID        (1ull << 43)
#define CQPSQ_QP_VQ                 (1ull << 45)
#define CQPSQ_QP_QPTYPE(h)          ((unsigned)e810_fld(h, 50, 48))
#define CQPSQ_QP_TERMACT(h)         ((unsigned)e810_fld(h, 57, 56))
#define CQPSQ_QP_RESETCON           (1ull << 58)
#define CQPSQ_QP_NEXTIWSTATE(h)     ((unsigned)e810_fld(h, 62, 60))

/* QP types and (iWARP) states */
#define QP_TYPE_IWARP               1
#define QP_TYPE_UDA                 2
#define QP_TYPE_ROCE_RC             3
#define QP_TYPE_ROCE_UD             4
#define QP_STATE_IDLE               1
#define QP_STATE_RTS                2
#define QP_STATE_CLOSING            3
#define QP_STATE_TERMINATE          5
#define QP_STATE_ERROR              6
#define QP_STATE_SQD                3       /* RoCE: the number of CLOSING */
#define QP_STATE_RTR                4       /* RoCE */

/* CQP host context: protocol used by the whole engine */
#define CQPHC_SQSIZE(q)             ((unsigned)e810_fld(q, 11, 8))
#define CQPHC_PROTOCOL(q)           ((unsigned)e810_fld(q, 4, 3))
#define CQPHC_HW_MAJVER(q)          ((unsigned)e810_fld(q, 31, 16))
#define PROTOCOL_IWARP              1
#define PROTOCOL_ROCE               2

/*
 * QP host context (256 bytes, ctrl.c:irdma_sc_qp_setctx for iWARP,
 * irdma_sc_qp_setctx_roce_gen_2 for RoCE, puda.c:irdma_puda_qp_setctx
 * for the ILQ/IEQ; irdma's IRDMAQPC_*, uda_d.h's UDAQPC_* are the same
 * bits).  A field marked iWARP or RoCE is read by that engine only;
 * some bits mean one thing to each (qwords 6, 7, 10 and 11).
 * rdma/qpctx.h decodes them all.
 */
/* qword 0; qwords 1 and 2 the SQ's and RQ's PA (PBLE index with VQ) */
#define QPC_IPV4                    (1ull << 3)
#define QPC_INSERTVLANTAG           (1ull << 5)
#define QPC_RQWQESIZE(q)            ((unsigned)e810_fld(q, 9, 8))
#define QPC_DUPACK_THRESH(q)        ((unsigned)e810_fld(q, 18, 16)) /* iWARP */
#define QPC_PDIDXHI(q)              ((uint32_t)e810_fld(q, 21, 20))
/* qword 3: sizes are 4 << n entries (irdma_get_encoded_wqe_size) */
#define QPC_TTL(q)                  ((uint8_t)e810_fld(q, 7, 0))
#define QPC_RQSIZE(q)               ((unsigned)e810_fld(q, 11, 8))
#define QPC_SQSIZE(q)               ((unsigned)e810_fld(q, 15, 12))
#define QPC_TOS(q)                  ((uint8_t)e810_fld(q, 31, 24))
#define QPC_SRCPORTNUM(q)           ((uint16_t)e810_fld(q, 47, 32))
#define QPC_DESTPORTNUM(q)          ((uint16_t)e810_fld(q, 63, 48))
/* qword 4: DESTIPADDR2 63:32, DESTIPADDR3 31:0 (IPv4 here); qword 5:
 * DESTIPADDR0 63:32, DESTIPADDR1 31:0 (e810_rdma_ip_from_words) */
/* qword 6: SNDMSS is the MSS for iWARP, the path MTU for RoCE */
#define QPC_SNDMSS(q)               ((uint16_t)e810_fld(q, 29, 16))
#define QPC_VLANTAG(q)              ((uint16_t)e810_fld(q, 47, 32))
#define QPC_ARPIDX(q)               ((unsigned)e810_fld(q, 63, 48))
/* qword 7: RCVSCALE/SNDSCALE (iWARP) share bits with PKEY (RoCE) */
#define QPC_FLOWLABEL(q)            ((uint32_t)e810_fld(q, 19, 0))  /* RoCE */
#define QPC_RCVSCALE(q)             ((uint8_t)e810_fld(q, 35, 32))  /* iWARP */
#define QPC_SNDSCALE(q)             ((uint8_t)e810_fld(q, 43, 40))  /* iWARP */
#define QPC_PKEY(q)                 ((uint16_t)e810_fld(q, 47, 32)) /* RoCE */
#define QPC_PDIDX(q)                ((uint32_t)e810_fld(q, 63, 48))
/* qword 8 (RoCE) */
#define QPC_DESTQP(q)               ((uint32_t)e810_fld(q, 23, 0))
#define QPC_QKEY(q)                 ((uint32_t)e810_fld(q, 63, 32))
/* qwords 10-12: TCP sequence space (iWARP) or PSNs (RoCE) */
#define QPC_SNDNXT(q)               ((uint32_t)e810_fld(q, 31, 0))  /* iWARP */
#define QPC_PSNNXT(q)               ((uint32_t)e810_fld(q, 23, 0))  /* RoCE */
#define QPC_SNDWND(q)               ((uint32_t)e810_fld(q, 63, 32)) /* iWARP */
#define QPC_RCVNXT(q)               ((uint32_t)e810_fld(q, 31, 0))  /* iWARP */
#define QPC_EPSN(q)                 ((uint32_t)e810_fld(q, 23, 0))  /* RoCE */
#define QPC_RCVWND(q)               ((uint32_t)e810_fld(q, 63, 32)) /* iWARP */
#define QPC_SNDUNA(q)               ((uint32_t)e810_fld(q, 63, 32)) /* iWARP */
/* qword 14 (iWARP) */
#define QPC_SSTHRESH(q)             ((uint32_t)e810_fld(q, 31, 0))
#define QPC_CWND(q)                 ((uint32_t)e810_fld(q, 63, 32))
/* qword 16 */
#define QPC_REXMIT_THRESH(q)        ((unsigned)e810_fld(q, 53, 48))
#define QPC_RNRNAK_THRESH(q)        ((unsigned)e810_fld(q, 56, 54)) /* RoCE */
#define QPC_RTOMIN(q)               ((unsigned)e810_fld(q, 63, 57)) /* ms */
/* qword 17: 24:0 and 56:32 in irdma 7.3 (older irdma: 18:0, 50:32);
 * the CQ ids the device offers (E810_RDMA_MAX_CQS) fit either. */
#define QPC_TXCQNUM(q)              ((uint32_t)e810_fld(q, 24, 0))
#define QPC_RXCQNUM(q)              ((uint32_t)e810_fld(q, 56, 32))
/* qword 18: Q2ADDR 63:8 holds the 256-byte aligned address itself */
#define QPC_Q2ADDR(q)               ((q) & ~0xFFull)                /* iWARP */
/* qword 19: MACADDRESS 63:16, the source MAC, byte 0 in 63:56 */
#define QPC_MACADDRESS(q)           (e810_fld(q, 63, 16))
/* qword 20 */
#define QPC_ORDSIZE(q)              ((unsigned)e810_fld(q, 7, 0))
#define QPC_IRDSIZE(q)              ((unsigned)e810_fld(q, 18, 16))
#define QPC_WRRDRSPOK               (1ull << 20)
#define QPC_RDOK                    (1ull << 21)
#define QPC_PRIVEN                  (1ull << 25)
/* qword 21: QPCOMPCTX, echoed in CQEs and AEs */
#define QPC_COMPCTX                 168     /* byte offset */
/* qword 23: LOCAL_IPADDR2 63:32, LOCAL_IPADDR3 31:0 (IPv4 here); qword 24:
 * LOCAL_IPADDR0 63:32, LOCAL_IPADDR1 31:0 */

/* FLUSH_WQES / GEN_AE: qword 1 the AE, qword 2 the user's flush codes */
#define CQPSQ_FWQE_AECODE(q1)       ((unsigned)e810_fld(q1, 15, 0))
#define CQPSQ_FWQE_AESOURCE(q1)     ((unsigned)e810_fld(q1, 19, 16))
#define CQPSQ_FWQE_RQMNERR(q2)      ((unsigned)e810_fld(q2, 15, 0))
#define CQPSQ_FWQE_SQMNERR(q2)      ((unsigned)e810_fld(q2, 47, 32))
#define CQPSQ_FWQE_GENERATE_AE      (1ull << 59)
#define CQPSQ_FWQE_USERFLCODE       (1ull << 60)
#define CQPSQ_FWQE_FLUSHSQ          (1ull << 61)
#define CQPSQ_FWQE_FLUSHRQ          (1ull << 62)
#define FLUSH_MAJOR_ERR             1

/* ALLOC_STAG / REG_MR / DEALLOC_STAG */
#define CQPSQ_STAG_LPBLSIZE(h)      ((unsigned)e810_fld(h, 45, 44))
#define CQPSQ_STAG_HPAGESIZE(h)     ((unsigned)e810_fld(h, 47, 46))
#define CQPSQ_STAG_ARIGHTS(h)       ((unsigned)e810_fld(h, 52, 48))
#define CQPSQ_STAG_REMACCENABLED    (1ull << 53)
#define CQPSQ_STAG_VABASEDTO        (1ull << 59)
#define CQPSQ_STAG_IDX(q2)          ((uint32_t)e810_fld(q2, 31, 8))
#define CQPSQ_STAG_KEY(q2)          ((uint8_t)e810_fld(q2, 7, 0))
#define CQPSQ_STAG_PDID(q1, q2)     \
    ((uint32_t)(e810_fld(q1, 63, 46) | e810_fld(q2, 59, 54) << 18))
#define CQPSQ_STAG_STAGLEN(q1)      (e810_fld(q1, 45, 0))
#define CQPSQ_STAG_FIRSTPMPBLIDX(q6) ((uint32_t)e810_fld(q6, 27, 0))

/* CREATE_CQ / MODIFY_CQ / DESTROY_CQ header */
#define CQPSQ_CQ_CQID(h)            \
    ((uint32_t)(e810_fld(h, 18, 0) | e810_fld(h, 52, 50) << 22))
#define CQPSQ_CQ_CEQID(h)           \
    ((uint32_t)(e810_fld(h, 31, 22) | e810_fld(h, 59, 54) << 10))
#define CQPSQ_CQ_CQRESIZE           (1ull << 43)
#define CQPSQ_CQ_LPBLSIZE(h)        ((unsigned)e810_fld(h, 45, 44))
#define CQPSQ_CQ_CHKOVERFLOW        (1ull << 46)
#define CQPSQ_CQ_VIRTMAP            (1ull << 47)
#define CQPSQ_CQ_ENCEQEMASK         (1ull << 48)
#define CQPSQ_CQ_CEQIDVALID         (1ull << 49)
#define CQPSQ_CQ_CQSIZE(q0)         ((uint32_t)e810_fld(q0, 20, 0))
#define CQPSQ_CQ_CQCTX(q1)          (e810_fld(q1, 62, 0))
#define CQPSQ_CQ_FIRSTPMPBLIDX(q6)  ((uint32_t)e810_fld(q6, 27, 0))
/* CREATE_CEQ / DESTROY_CEQ (qword 4 the ring's PA) */
#define CQPSQ_CEQ_CEQID(h)          \
    ((uint32_t)(e810_fld(h, 9, 0) | e810_fld(h, 15, 10) << 10))
#define CQPSQ_CEQ_LPBLSIZE(h)       ((unsigned)e810_fld(h, 45, 44))
#define CQPSQ_CEQ_VMAP              (1ull << 47)
#define CQPSQ_CEQ_CEQSIZE(q2)       ((uint32_t)e810_fld(q2, 21, 0))
#define CQPSQ_CEQ_FIRSTPMPBLIDX(q6) ((uint32_t)e810_fld(q6, 27, 0))
/* CREATE_AEQ / DESTROY_AEQ (qword 4 the ring's PA) */
#define CQPSQ_AEQ_LPBLSIZE(h)       ((unsigned)e810_fld(h, 45, 44))
#define CQPSQ_AEQ_VMAP              (1ull << 47)
#define CQPSQ_AEQ_AEQECNT(q2)       ((uint32_t)e810_fld(q2, 18, 0))
#define CQPSQ_AEQ_FIRSTPMPBLIDX(q6) ((uint32_t)e810_fld(q6, 27, 0))
/* CQ shadow area qword 4: the arm word */
#define CQ_SHADOW_HEAD_OFF          0   /* software's CQ head, at each poll */
#define CQ_SHADOW_ARM_OFF           32
#define CQ_ARM_NEXT                 (1ull << 14)
#define CQ_ARM_NEXT_SE              (1ull << 15)

/*
 * CREATE/MODIFY/DESTROY_AH (uda.c:irdma_sc_access_ah; irdma's
 * UDA_CQPSQ_MAV_*), kept as written for the UD and ILQ send paths:
 * qword 0 the source MAC (MACADDR, byte 0 in 63:56), qwords 4/5 the
 * destination IP and 6/7 the source IP as the QP context's (IPv4 in
 * qwords 4 and 6, 31:0).
 */
#define CQPSQ_AH_AVIDX(h)           ((uint32_t)e810_fld(h, 23, 0))
#define CQPSQ_AH_MACADDR(q0)        (e810_fld(q0, 63, 16))
#define CQPSQ_AH_IPV4VALID          (1ull << 59)
#define CQPSQ_AH_INSERTVLANTAG      (1ull << 60)
#define CQPSQ_AH_DOLOOPBACKCHECK    (1ull << 62)
#define CQPSQ_AH_VLANTAG(q1)        ((uint16_t)e810_fld(q1, 15, 0))
#define CQPSQ_AH_TC(q1)             ((uint8_t)e810_fld(q1, 39, 32))
#define CQPSQ_AH_PDINDEXLO(q1)      ((uint32_t)e810_fld(q1, 63, 48))
#define CQPSQ_AH_FLOWLABEL(q2)      ((uint32_t)e810_fld(q2, 19, 0))
#define CQPSQ_AH_PDINDEXHI(q2)      ((uint32_t)e810_fld(q2, 27, 20))
#define CQPSQ_AH_HOPLIMIT(q2)       ((uint8_t)e810_fld(q2, 39, 32))
#define CQPSQ_AH_ARPINDEX(q2)       ((unsigned)e810_fld(q2, 63, 48))

/* MANAGE_ARP: qword 2 the MAC (byte 0 in 47:40) */
#define CQPSQ_MAT_ARPENTRYIDX(h)    ((uint32_t)e810_fld(h, 11, 0))
#define CQPSQ_MAT_ENTRYVALID        (1ull << 42)
#define CQPSQ_MAT_MACADDR(q2)       (e810_fld(q2, 47, 0))

/*
 * MANAGE_QHASH (ctrl.c:irdma_sc_add_cqp_qhash): "dest" is this end, the
 * arriving segment's destination.  Qword 0 the local MAC (byte 0 in
 * 47:40), qwords 4/5 the remote IP, 6/7 the local IP (IPv4 in 4 and 6).
 */
#define CQPSQ_QHASH_ENTRYTYPE(h)    ((unsigned)e810_fld(h, 44, 42))
#define CQPSQ_QHASH_VLANVALID       (1ull << 59)
#define CQPSQ_QHASH_IPV4VALID       (1ull << 60)
#define CQPSQ_QHASH_MANAGE(h)       ((unsigned)e810_fld(h, 62, 61))
#define CQPSQ_QHASH_DEST_PORT(q1)   ((uint16_t)e810_fld(q1, 15, 0))
#define CQPSQ_QHASH_SRC_PORT(q1)    ((uint16_t)e810_fld(q1, 31, 16))
#define CQPSQ_QHASH_QPN(q1)         ((uint32_t)e810_fld(q1, 49, 32))
#define CQPSQ_QHASH_QS_HANDLE(q2)   ((uint32_t)e810_fld(q2, 9, 0))
#define CQPSQ_QHASH_VLANID(q2)      ((uint16_t)e810_fld(q2, 43, 32))

/* MANAGE_APBVT */
#define CQPSQ_MAPT_PORT(q2)         ((unsigned)e810_fld(q2, 15, 0))
#define CQPSQ_MAPT_ADDPORT          (1ull << 62)

/* WORK_SCHED_NODE header: NODEOP 0 add, 1 modify, 2 delete */
#define CQPSQ_WS_NODEID(h)          ((unsigned)e810_fld(h, 13, 0))
#define CQPSQ_WS_NODEOP(h)          ((unsigned)e810_fld(h, 55, 52))
#define CQPSQ_WS_NODETYPE           (1ull << 61)    /* leaf */

/* MANAGE_PUSH_PAGES header */
#define CQPSQ_MPP_FREE_PAGE         (1ull << 62)

/* QUERY_RDMA_FEATURES header (qword 4 the buffer's PA) */
#define CQPSQ_QUERY_RDMA_FEATURES_BUF_LEN(h) ((uint32_t)e810_fld(h, 31, 0))

/*
 * UPDATE_PE_SDS (ctrl.c:cqp_sds_wqe_fill): SD entries (command, data) in
 * qwords 0/1, 4/5 and 6/7, the 2nd and 3rd marked valid in the command
 * word; more in a host buffer whose address qword 2 holds, over HMCFNID
 * 5:0.  Command and data are the PFHMC_SDCMD / SDDATA registers' (irdma.h).
 */
#define CQPSQ_UPESD_ENTRY_COUNT(h)  ((unsigned)e810_fld(h, 3, 0))
#define CQPSQ_UPESD_ENTRY_VALID     (1ull << 63)
#define CQPSQ_UPESD_BUF_PA(q2)      ((q2) & ~0x3Full)
#define PFHMC_SDCMD_PMSDIDX(cmd)    ((unsigned)e810_fld(cmd, 11, 0))
#define PFHMC_SDCMD_PMSDWR          (1u << 31)
#define PFHMC_SDDATALOW_PMSDVALID   (1ull << 0)
#define PFHMC_SDDATALOW_PMSDTYPE    (1ull << 1)     /* 1: direct */
/* A paged SD's page descriptors: the page's address, valid in bit 0. */
#define HMC_PD_VALID                (1ull << 0)
/* The 4 KiB page address in an SD's data (PMSDDATALOW 31:12 and up), a
 * page descriptor or a PBLE: what the low 12 bits (flags) leave. */
#define HMC_PAGE_PA(v)              ((v) & ~0xFFFull)

/* COMMIT_FPM_VAL buffer, one qword per object: count (CQs: gen2's
 * icrdma mask), base in 512-byte units from bit 32 */
#define COMMIT_FPM_QPCNT(v)         ((uint32_t)e810_fld(v, 20, 0))
#define COMMIT_FPM_CQCNT(v)         ((uint32_t)e810_fld(v, 19, 0))
#define COMMIT_FPM_BASE_S           32

/*
 * CREATE/MODIFY/DESTROY_MCAST_GRP (uda.c:irdma_access_mcast_grp, uda_d.h):
 * qword 0 the group's destination MAC (byte 0 in 47:40), qword 1 the HMC
 * function, qword 2 VLAN id and QS handle, qword 4 the address of the
 * group context, qwords 6/7 the destination IP as the AH's (IPv4 in
 * qword 6 31:0); header MGIDX 12:0, VLANVALID 59, IPV4VALID 60.
 */
#define CQPSQ_MG_MGIDX(h)           ((uint32_t)e810_fld(h, 12, 0))
#define CQPSQ_MG_VLANVALID          (1ull << 59)
#define CQPSQ_MG_IPV4VALID          (1ull << 60)
#define CQPSQ_MG_HMC_FCN_ID(q1)     ((unsigned)e810_fld(q1, 5, 0))
#define CQPSQ_MG_VLANID(q2)         ((uint16_t)e810_fld(q2, 43, 32))
#define CQPSQ_MG_QS_HANDLE(q2)      ((uint16_t)e810_fld(q2, 9, 0))
/* The group context: IRDMA_MAX_MGS_PER_CTX 8-byte entries, one per QP,
 * the valid ones first (irdma_create_mg_ctx compacts them). */
#define MGCTX_ENTRIES               8
/* Groups for one address the device takes (two racing joins make two). */
#define E810_MCG_PER_ADDR           4
#define MGCTX_QPID(e)               ((uint32_t)e810_fld(e, 17, 0))
#define MGCTX_PFID(e)               ((unsigned)e810_fld(e, 21, 18))
#define MGCTX_VFID(e)               ((unsigned)e810_fld(e, 28, 22))
#define MGCTX_VFFLAG                (1ull << 29)
#define MGCTX_FLAGIGNOREDPORT       (1ull << 30)
#define MGCTX_VALIDENT              (1ull << 31)
#define MGCTX_DESTPORT(e)           ((uint16_t)e810_fld(e, 47, 32))

/* MANAGE_STATS / GATHER_STATS header */
#define CQPSQ_STATS_INST_INDEX(h)   ((unsigned)e810_fld(h, 6, 0))
#define CQPSQ_STATS_USE_INST        (1ull << 61)
#define CQPSQ_STATS_ALLOC_INST      (1ull << 62)

/* MANAGE_QHASH entry types */
#define QHASH_TYPE_ESTABLISHED      1
#define QHASH_TYPE_SYN              2

/* ---- SQ work requests (uk.c) -------------------------------------------- */

#define QPSQ_OPCODE(h)              ((unsigned)e810_fld(h, 37, 32))
#define QPSQ_ADDFRAGCNT(h)          ((unsigned)e810_fld(h, 41, 38))
#define QPSQ_L4LEN(h)               ((unsigned)e810_fld(h, 45, 42))    /* UDA */
#define QPSQ_IMMDATAFLAG            (1ull << 47)
#define QPSQ_INLINEDATALEN(h)       ((unsigned)e810_fld(h, 55, 48))
#define QPSQ_INLINEDATAFLAG         (1ull << 57)
#define QPSQ_STREAMMODE             (1ull << 58)
#define QPSQ_WAITFORRCVPDU          (1ull << 59)
#define QPSQ_READFENCE              (1ull << 60)
#define QPSQ_LOCALFENCE             (1ull << 61)
#define QPSQ_SIGCOMPL               (1ull << 62)
#define QPSQ_VALID                  (1ull << 63)
#define QPSQ_AHID(h)                ((uint32_t)e810_fld(h, 24, 0))     /* UDA */
/* A fragment (SGE) qword; receive WQEs use the same (IRDMAQPRQ_*) */
#define QPSQ_FRAG_LEN(q)            ((uint32_t)e810_fld(q, 62, 32))
#define QPSQ_FRAG_STAG(q)           ((uint32_t)e810_fld(q, 31, 0))
/* UD send qword 2 */
#define QPSQ_DESTQKEY(q2)           ((uint32_t)e810_fld(q2, 31, 0))
#define QPSQ_DESTQPN(q2)            ((uint32_t)e810_fld(q2, 55, 32))
/*
 * Fast register (ctrl.c:irdma_sc_mr_fast_register): qword 0 the VA or
 * first byte offset, qword 1 the PBL or page address (irdma places it
 * under PBLADDR >> 12, so bits 51:12 of the page-aligned address) and
 * the first PBLE index's high bits, qword 2 the length and its low bits.
 */
#define QPSQ_STAGKEY(h)             ((uint8_t)e810_fld(h, 7, 0))
#define QPSQ_STAGINDEX(h)           ((uint32_t)e810_fld(h, 31, 8))
#define QPSQ_LPBLSIZE(h)            ((unsigned)e810_fld(h, 45, 44))
#define QPSQ_HPAGESIZE(h)           ((unsigned)e810_fld(h, 47, 46))
#define QPSQ_STAGRIGHTS(h)          ((unsigned)e810_fld(h, 52, 48))
#define QPSQ_VABASEDTO              (1ull << 53)
#define QPSQ_PBLADDR(q1)            ((q1) & 0x000FFFFFFFFFF000ull)
#define QPSQ_FIRSTPMPBLIDXHI(q1)    ((uint32_t)e810_fld(q1, 11, 0))
#define QPSQ_STAGLEN(q2)            (e810_fld(q2, 40, 0))
#define QPSQ_FIRSTPMPBLIDXLO(q2)    ((uint32_t)e810_fld(q2, 63, 48))
#define QPSQ_FIRSTPMPBLIDX(q1, q2)  \
    (QPSQ_FIRSTPMPBLIDXHI(q1) << 16 | QPSQ_FIRSTPMPBLIDXLO(q2))

enum {
    OP_RDMA_WRITE = 0x00, OP_RDMA_READ = 0x01, OP_RDMA_SEND = 0x03,
    OP_RDMA_SEND_INV = 0x04, OP_RDMA_SEND_SOL_EVENT = 0x05,
    OP_RDMA_SEND_SOL_EVENT_INV = 0x06, OP_FAST_REGISTER = 0x09,
    OP_LOCAL_INVALIDATE = 0x0a, OP_RDMA_READ_LOC_INV = 0x0b,
    OP_NOP = 0x0c, OP_RDMA_WRITE_SOL = 0x0d, OP_GEN_RTS_AE = 0x30,
    OP_TYPE_REC = 0x3e,         /* a receive completion's opcode */
};

/* ---- completions (32 bytes; CCQ entries share the layout) -------------- */

/* qword 2 */
#define CQ_QPID_S                   32
/* qword 3 */
#define CQ_MINERR_S                 0
#define CQ_MAJERR_S                 16
#define CQ_WQEIDX_S                 32
#define CQ_STAG                     (1ull << 53)    /* receive with invalidate */
#define CQ_IPV4                     (1ull << 53)    /* UDA receive */
#define CQ_SOEVENT                  (1ull << 54)
#define CQ_ERROR                    (1ull << 55)
#define CQ_OP_S                     56
#define CQ_SQ                       (1ull << 62)
#define CQ_VALID                    (1ull << 63)
#define CQ_EXTCQE                   (1ull << 50)    /* extension follows */
/* Extended CQE (the next 32 bytes) qword 3 */
#define CQ_EXT_IMMVALID             (1ull << 62)

/* ---- asynchronous events (16 bytes) ------------------------------------ */

/* qword 1 */
#define AEQE_QPCQID_LO(id)          ((uint64_t)(id) & 0x3FFFF)
#define AEQE_QPCQID_HI(id)          ((uint64_t)(((id) >> 18) & 1) << 46)
#define AEQE_AECODE_S               34
#define AEQE_AESRC_S                50
#define AEQE_IWSTATE_S              54
#define AEQE_TCPSTATE_S             57
#define AEQE_Q2DATA                 (1ull << 61)    /* 62:61, as 1 */

/* AEQE qword 1 of QP/CQ @id: AE @code from @src, the QP's iWARP state. */
static inline uint64_t e810_aeqe_qw1(uint32_t id, unsigned code, unsigned src,
                                     unsigned iwstate)
{
    return AEQE_QPCQID_LO(id) | AEQE_QPCQID_HI(id) |
           (uint64_t)(code & 0xFFF) << AEQE_AECODE_S |
           (uint64_t)(src & 0xF) << AEQE_AESRC_S |
           (uint64_t)(iwstate & 7) << AEQE_IWSTATE_S;
}

/* AE codes (user.h) */
#define AE_AMP_INVALID_STAG         0x0103
#define AE_AMP_BAD_PD               0x0105
#define AE_AMP_BOUNDS_VIOLATION     0x0108
#define AE_AMP_RIGHTS_VIOLATION     0x0109
#define AE_AMP_TO_WRAP              0x010a
#define AE_AMP_FASTREG_VALID_STAG   0x010c
#define AE_AMP_INV_NO_REMOTE        0x0112
#define AE_STAG_ZERO_INVALID        0x0206
#define AE_WQE_UNEXPECTED_OPCODE    0x020a
#define AE_WQE_INVALID_PARAMETER    0x020b
#define AE_DDP_MSN_GAP              0x0301
#define AE_DDP_TOO_LONG             0x0303
#define AE_DDP_BAD_VERSION          0x0304
#define AE_DDP_INVALID_MO           0x0305
#define AE_DDP_NO_BUFFER            0x0306
#define AE_DDP_INVALID_QN           0x0307
#define AE_RDMAP_BAD_VERSION        0x0311
#define AE_RDMAP_UNEXPECTED_OPCODE  0x0312
#define AE_BAD_READ_REQ             0x0313
#define AE_LLP_CLOSE_COMPLETE       0x0501
#define AE_LLP_CONNECTION_RESET     0x0502
#define AE_LLP_FIN_RECEIVED         0x0503
#define AE_LLP_RECEIVED_MPA_CRC_ERROR 0x0505
#define AE_LLP_TERMINATE_RECEIVED   0x0509
#define AE_LLP_TOO_MANY_RETRIES     0x050a
#define AE_LLP_CONNECTION_ESTABLISHED 0x050e
#define AE_LCE_QP_CATASTROPHIC      0x0700
#define AE_QP_SUSPEND_COMPLETE      0x0900
/* RoCE */
#define AE_IB_INVALID_REQUEST       0x0208
#define AE_IB_REMOTE_ACCESS_ERROR   0x020d
#define AE_IB_REMOTE_OP_ERROR       0x020e
#define AE_ROCE_RSP_LENGTH_ERROR    0x0316
#define AE_LLP_TOO_MANY_RNRS        0x050f
/* AE sources */
#define AE_SOURCE_RQ                1
#define AE_SOURCE_SQ                5
#define AE_SOURCE_IN_RR_WR          9
#define AE_SOURCE_OUT_RR            0xd

/* Q2 (the QP's buffer for the frame behind an error) */
#define Q2_BUF_SIZE                 256
#define Q2_BAD_FRAME_OFFSET         72

#endif
