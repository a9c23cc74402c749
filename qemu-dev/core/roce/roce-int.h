/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RoCEv2 engine, internal: the wire (IBA vol. 1 ch. 9 and annex
 * A17) and the frame builder/parser in wire.c.
 */
#ifndef E810_ROCE_INT_H
#define E810_ROCE_INT_H

#include "../types.h"
#include "../bytes.h"
#include "../net/net.h"

#define ROCE_UDP_PORT           4791
#define ROCE_BTH_LEN            12
#define ROCE_RETH_LEN           16
#define ROCE_AETH_LEN           4
#define ROCE_DETH_LEN           8
#define ROCE_IMM_LEN            4
#define ROCE_IETH_LEN           4
#define ROCE_ICRC_LEN           4
#define ROCE_GRH_LEN            40      /* receive buffer slot of a UD QP */
#define ROCE_PSN_MASK           0xFFFFFFu
#define ROCE_QPN_MASK           0xFFFFFFu
#define ROCE_MCAST_QPN          0xFFFFFFu     /* DestQP of a multicast */
#define ROCE_GSI_QKEY           0x80010000u
#define ROCE_DEFAULT_PKEY       0xFFFFu
/* Ethernet + VLAN + IPv6 + UDP + BTH + the longest extension (RETH +
 * ImmDt, or DETH + ImmDt) + ICRC around a payload of at most 4096. */
#define ROCE_HDR_MAX            (18 + 40 + 8 + ROCE_BTH_LEN + 20)
#define ROCE_FRAME_MAX          (ROCE_HDR_MAX + 4096 + 3 + ROCE_ICRC_LEN)

/* BTH opcodes: RC (0x00-0x17) and UD (0x64/0x65). */
enum {
    ROCE_SEND_FIRST = 0x00, ROCE_SEND_MIDDLE = 0x01, ROCE_SEND_LAST = 0x02,
    ROCE_SEND_LAST_IMM = 0x03, ROCE_SEND_ONLY = 0x04,
    ROCE_SEND_ONLY_IMM = 0x05, ROCE_WRITE_FIRST = 0x06,
    ROCE_WRITE_MIDDLE = 0x07, ROCE_WRITE_LAST = 0x08,
    ROCE_WRITE_LAST_IMM = 0x09, ROCE_WRITE_ONLY = 0x0a,
    ROCE_WRITE_ONLY_IMM = 0x0b, ROCE_READ_REQ = 0x0c,
    ROCE_READ_RESP_FIRST = 0x0d, ROCE_READ_RESP_MIDDLE = 0x0e,
    ROCE_READ_RESP_LAST = 0x0f, ROCE_READ_RESP_ONLY = 0x10,
    ROCE_ACK = 0x11, ROCE_ATOMIC_ACK = 0x12, ROCE_CMP_SWAP = 0x13,
    ROCE_FETCH_ADD = 0x14, ROCE_SEND_LAST_INV = 0x16,
    ROCE_SEND_ONLY_INV = 0x17,
    ROCE_UD_SEND_ONLY = 0x64, ROCE_UD_SEND_ONLY_IMM = 0x65,
};

/* What an opcode is and which extension headers follow its BTH, in
 * wire order RETH/IETH/DETH, ImmDt (roce_opcode_flags, opcode.c); 0 for
 * an opcode RoCEv2 RC/UD does not have. */
enum {
    ROCE_F_SEND = 1 << 0,       /* SEND, RC or UD */
    ROCE_F_WRITE = 1 << 1,
    ROCE_F_READ_REQ = 1 << 2,
    ROCE_F_READ_RESP = 1 << 3,
    ROCE_F_ACK = 1 << 4,
    ROCE_F_ATOMIC = 1 << 5,
    ROCE_F_UD = 1 << 6,
    ROCE_F_FIRST = 1 << 7,      /* starts a message (ONLY: FIRST | LAST) */
    ROCE_F_LAST = 1 << 8,       /* ends it */
    ROCE_F_RETH = 1 << 9,
    ROCE_F_AETH = 1 << 10,
    ROCE_F_DETH = 1 << 11,
    ROCE_F_IETH = 1 << 12,      /* with invalidate */
    ROCE_F_IMM = 1 << 13,       /* with immediate data */
};
extern const uint16_t roce_opcode_flags[256];

static inline unsigned roce_op(unsigned opcode)
{
    return roce_opcode_flags[opcode & 0xFF];
}

/* AETH syndrome: bits 6:5 kind, 4:0 credits / timer / NAK code. */
#define ROCE_AETH_ACK           0x00
#define ROCE_AETH_RNR           0x20
#define ROCE_AETH_NAK           0x60
#define ROCE_AETH_CREDITS_NONE  0x1F
enum {
    ROCE_NAK_PSN_SEQ = 0, ROCE_NAK_INVALID_REQ = 1,
    ROCE_NAK_REMOTE_ACCESS = 2, ROCE_NAK_REMOTE_OP = 3,
};

/* Fields of the transport headers (IBA vol. 1 9.2-9.3, rxe_hdr.h's
 * layouts): byte offsets from the header's start. */
#define ROCE_BTH_OPCODE         0
#define ROCE_BTH_FLAGS          1
#define   ROCE_BTH_SE           0x80
#define   ROCE_BTH_MIG          0x40
#define   ROCE_BTH_PAD_S        4
#define   ROCE_BTH_PAD_M        0x30
#define   ROCE_BTH_TVER_M       0x0F
#define ROCE_BTH_PKEY           2
#define ROCE_BTH_DESTQP         5       /* 24 bits, a reserved byte before */
#define ROCE_BTH_ACK            8
#define   ROCE_BTH_ACKREQ       0x80
#define ROCE_BTH_PSN            9       /* 24 bits */
#define ROCE_RETH_VA            0
#define ROCE_RETH_RKEY          8
#define ROCE_RETH_DMALEN        12
#define ROCE_AETH_SYNDROME      0
#define ROCE_AETH_MSN           1       /* 24 bits */
#define ROCE_DETH_QKEY          0
#define ROCE_DETH_SRCQP         5       /* 24 bits, a reserved byte before */

/* 24-bit big-endian fields (BTH QPN and PSN, AETH MSN, DETH source QP);
 * the 16/32/64-bit ones are bytes.h's ldbe and stbe. */
static inline uint32_t roce_be24(const uint8_t *p)
{
    return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline void roce_put24(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 16);
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)v;
}

/* A RETH: the remote address, R_Key and length of a WRITE or READ. */
static inline void roce_reth_put(uint8_t *p, uint64_t va, uint32_t rkey,
                                 uint32_t len)
{
    stbe64(p + ROCE_RETH_VA, va);
    stbe32(p + ROCE_RETH_RKEY, rkey);
    stbe32(p + ROCE_RETH_DMALEN, len);
}

static inline void roce_reth_get(const uint8_t *p, uint64_t *va,
                                 uint32_t *rkey, uint32_t *len)
{
    *va = ldbe64(p + ROCE_RETH_VA);
    *rkey = ldbe32(p + ROCE_RETH_RKEY);
    *len = ldbe32(p + ROCE_RETH_DMALEN);
}

/* PSN @a minus PSN @b as a signed distance in the 24-bit space. */
static inline int32_t roce_psn_diff(uint32_t a, uint32_t b)
{
    return (int32_t)((a - b) << 8) >> 8;
}

/* Where a frame goes: from the QP context or an address handle. */
typedef struct RocePath {
    bool ipv4;
    uint8_t smac[6], dmac[6];
    bool vlan;
    uint16_t vlan_tci;
    uint8_t sip[16], dip[16];   /* IPv4 in the first 4 bytes */
    uint8_t tos;                /* DSCP << 2 | ECN */
    uint8_t ttl;
    uint32_t flow_label;
    uint16_t sport;
} RocePath;

/* A received frame, headers validated (wire.c). */
typedef struct RocePkt {
    bool ipv4;
    const uint8_t *l3;          /* IP header */
    size_t l3_len;              /* 20 or 40 */
    uint8_t smac[6];
    bool vlan;
    uint16_t vlan_tci;
    uint8_t sip[16], dip[16];
    uint16_t sport;
    /* BTH */
    uint8_t opcode;
    bool se, mig, ackreq;
    uint8_t padcnt;
    uint16_t pkey;
    uint32_t dqpn, psn;
    /* What follows the BTH up to the pad and ICRC. */
    const uint8_t *ext;
    size_t ext_len;             /* BTH extensions + payload + pad */
} RocePkt;

/*
 * Build Ethernet/[VLAN]/IP/UDP in front of a BTH.  Returns the BTH offset
 * in @buf (at least ROCE_FRAME_MAX bytes); the caller writes the BTH,
 * extensions and payload from there and calls roce_frame_seal.
 */
size_t roce_frame_start(uint8_t *buf, const RocePath *p);
/* Write the BTH at @bth. */
void roce_bth_put(uint8_t *bth, uint8_t opcode, bool se, unsigned padcnt,
                  uint16_t pkey, uint32_t dqpn, bool ackreq, uint32_t psn);
/* Lengths, IPv4 header checksum, UDP checksum (IPv6), ICRC for a frame
 * whose BTH starts at @bth_off and whose transport part (BTH, extensions,
 * payload, pad) ends at @end.  Returns the frame length. */
size_t roce_frame_seal(uint8_t *buf, const RocePath *p, size_t bth_off,
                       size_t end);
/* The ICRC over IP header @l3 (@l3_len bytes) to the end of the transport
 * part at @l3 + @len (the ICRC itself not included). */
uint32_t roce_icrc(const uint8_t *l3, size_t l3_len, size_t len);
/* A received frame (parsed once at the device's entry): false if it is
 * not RoCEv2 (not IP/UDP to port 4791, or a fragment); *bad says why a
 * RoCEv2 frame is unusable (malformed, bad checksum or ICRC) or is NULL. */
bool roce_parse_frame(const E810Frame *fr, RocePkt *pkt, const char **bad);
/* The same from bytes (tests). */
bool roce_parse(const uint8_t *f, size_t len, RocePkt *pkt,
                const char **bad);

#endif
