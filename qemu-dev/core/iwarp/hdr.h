/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iWARP wire headers, every field named once: MPA (RFC 5044, with the
 * enhanced connection setup of RFC 6581), DDP (RFC 5041) and RDMAP
 * (RFC 5040).  Offsets are in bytes from the start of the header they
 * belong to; multi-byte fields are big-endian (the MPA CRC excepted).
 */
#ifndef IW_HDR_H
#define IW_HDR_H

#include "../host.h"

/* ---- MPA FPDU (RFC 5044 4) --------------------------------------------- */

#define IW_MPA_ULPDU_LEN        0       /* 16 bits: ULPDU length */
#define IW_MPA_HDR              2       /* the ULPDU follows */
#define IW_MPA_CRC              4       /* CRC32c after the pad */
#define IW_MPA_FRAMING          (IW_MPA_HDR + IW_MPA_CRC)
#define IW_MPA_MAX_ULPDU        0xFFFF
/* Markers (4.3): never asked for here (the M flag stays clear), so
 * only their layout: 16 reserved bits, the 16-bit FPDU pointer. */
#define IW_MPA_MARKER_RSVD      0
#define IW_MPA_MARKER_FPDUPTR   2
#define IW_MPA_MARKER_LEN       4
#define IW_MPA_MARKER_SPACING   512

/* ---- MPA request/reply frames (RFC 5044 7.1, RFC 6581 5) ---------------- */

#define IW_MPA_RR_KEY           0       /* "MPA ID Req Frame" / "... Rep ..." */
#define IW_MPA_KEY_LEN          16
#define IW_MPA_RR_FLAGS         16      /* M, C, R, enhanced, reserved */
#define IW_MPA_FLAG_MARKERS     0x80
#define IW_MPA_FLAG_CRC         0x40
#define IW_MPA_FLAG_REJECT      0x20
#define IW_MPA_FLAG_V2          0x10    /* enhanced (RFC 6581) */
#define IW_MPA_RR_REV           17
#define IW_MPA_REV1             1
#define IW_MPA_REV2             2       /* enhanced setup possible */
#define IW_MPA_RR_PD_LEN        18      /* 16 bits: private data length */
#define IW_MPA_REQ_HDR_LEN      20      /* private data follows */
#define IW_MPA_MAX_PDATA        512     /* RFC 5044 limit on private data */
/* Enhanced: the private data starts with IRD and ORD (the RTR message). */
#define IW_MPA_RTR_IRD          0       /* 16 bits */
#define IW_MPA_RTR_ORD          2       /* 16 bits */
#define IW_MPA_RTR_LEN          4
#define IW_MPA_IRD_P2P          0x8000  /* IRD field: peer-to-peer */
#define IW_MPA_IRD_SEND0        0x4000  /* IRD field: zero-length Send RTR */
#define IW_MPA_ORD_WRITE0       0x8000  /* ORD field: zero-length Write RTR */
#define IW_MPA_ORD_READ0        0x4000  /* ORD field: zero-length Read RTR */
#define IW_MPA_IRD_ORD_M        0x3FFF

/* ---- DDP (RFC 5041 4) and the RDMAP control byte (RFC 5040 4.1) -------- */

#define IW_DDP_CTRL             0       /* T, L, reserved, DV */
#define IW_DDP_T                0x80    /* tagged buffer model */
#define IW_DDP_L                0x40    /* last segment of the message */
#define IW_DDP_RSVD_M           0x3C
#define IW_DDP_DV_M             0x03
#define IW_DDP_VERSION          1
/* DDP's RsvdULP byte: RDMAP's control */
#define IW_RDMAP_CTRL           1       /* RV, reserved, opcode */
#define IW_RDMAP_RV_S           6
#define IW_RDMAP_RV_M           0xC0
#define IW_RDMAP_RSVD_M         0x30
#define IW_RDMAP_OPCODE_M       0x0F
#define IW_RDMAP_VERSION        1

/* Tagged buffer model (RFC 5041 4.2) */
#define IW_DDP_STAG             2       /* 32 bits: data sink STag */
#define IW_DDP_TO               6       /* 64 bits: tagged offset */
#define IW_DDP_TAGGED_HDR       14

/* Untagged buffer model (RFC 5041 4.3) */
#define IW_DDP_RSVDULP          2       /* 32 bits; RDMAP: Invalidate STag */
#define IW_DDP_QN               6       /* 32 bits: queue number */
#define IW_DDP_MSN              10      /* 32 bits: message sequence number */
#define IW_DDP_MO               14      /* 32 bits: message offset */
#define IW_DDP_UNTAGGED_HDR     18

/* ---- RDMAP (RFC 5040 4) ----------------------------------------------- */

/* RDMA Read Request header, after the untagged DDP header (4.4). */
#define IW_RREQ_SINK_STAG       0       /* 32 bits */
#define IW_RREQ_SINK_TO         4       /* 64 bits */
#define IW_RREQ_SIZE            12      /* 32 bits: RDMA Read message size */
#define IW_RREQ_SRC_STAG        16      /* 32 bits */
#define IW_RREQ_SRC_TO          20      /* 64 bits */
#define IW_READ_REQ_LEN         28

/* Terminate header, after the untagged DDP header (4.8). */
#define IW_TERM_LAYER_ETYPE     0       /* layer << 4 | error type */
#define IW_TERM_LAYER_S         4
#define IW_TERM_ECODE           1       /* error code */
#define IW_TERM_HDRCT           2       /* what the Terminate carries */
#define IW_TERM_HDRCT_M         0x80    /* DDP segment length valid */
#define IW_TERM_HDRCT_D         0x40    /* DDP header included */
#define IW_TERM_HDRCT_R         0x20    /* RDMAP header included */
#define IW_TERM_HDR_LEN         4
/* Then the terminated DDP segment's length (if M), its DDP header (if
 * D) and, for a Read Request, its RDMAP header (if R). */
#define IW_TERM_DDP_SEG_LEN_LEN 2

/* The two control bytes of a DDP segment. */
static inline uint8_t iw_ddp_ctrl(bool tagged, bool last)
{
    return (tagged ? IW_DDP_T : 0) | (last ? IW_DDP_L : 0) | IW_DDP_VERSION;
}

static inline uint8_t iw_rdmap_ctrl(unsigned op)
{
    return IW_RDMAP_VERSION << IW_RDMAP_RV_S | (op & IW_RDMAP_OPCODE_M);
}

#endif
