/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 LAN data path: Tx rings (doorbell, descriptors, checksum offload,
 * TSO), Rx rings (queue context, flex write-back, RSS), and their registers.
 *
 * Tx queue contexts come from the firmware (Add Tx LAN Queues, fw/sched.h);
 * Rx queue contexts are written by the driver into QRX_CONTEXT registers and
 * taken over when it sets QRX_CTRL.QENA_REQ.  Queue numbers are PF-space
 * queue ids throughout (the driver's pf_q / reg_idx).
 */
#ifndef E810_LAN_H
#define E810_LAN_H

#include "../types.h"
#include "../net/net.h"

#define E810_LAN_TXQ                2048
#define E810_LAN_RXQ                2048

/* ---- registers (ice_hw_autogen.h) -------------------------------------- */

#define QTX_COMM_DBELL(q)           (0x002C0000 + 4 * (q))
#define QTX_COMM_HEAD(q)            (0x000E0000 + 4 * (q))
#define   QTX_COMM_HEAD_HEAD_M      0x1FFFu
#define QRX_CTRL(q)                 (0x00120000 + 4 * (q))
#define   QRX_CTRL_QENA_REQ         (1u << 0)
#define   QRX_CTRL_QENA_STAT        (1u << 2)
#define QRX_TAIL(q)                 (0x00290000 + 4 * (q))
#define   QRX_TAIL_M                0x1FFFu
#define QRX_CONTEXT(i, q)           (0x00280000 + 0x2000 * (i) + 4 * (q))
#define QRX_CONTEXT_DWORDS          8
#define QRXFLXP_CNTXT(q)            (0x00480000 + 4 * (q))
#define   QRXFLXP_CNTXT_RXDID_M     0x3Fu

/* ---- Tx descriptors (16 bytes, ice_lan_tx_rx.h) ------------------------ */

#define E810_TXD_SIZE               16
#define E810_TXD_DTYPE_M            0xFull
#define E810_TXD_DTYPE_DATA         0x0
#define E810_TXD_DTYPE_CTX          0x1
#define E810_TXD_DTYPE_FLTR_PROG    0x8
#define E810_TXD_DTYPE_DONE         0xF

/* Data descriptor QW1: cmd 15:4, offsets 33:16, size 47:34, L2TAG1 63:48 */
#define E810_TXD_CMD_S              4
#define E810_TXD_CMD_M              0xFFFu
#define   E810_TXD_CMD_EOP          0x001
#define   E810_TXD_CMD_RS           0x002
#define   E810_TXD_CMD_IL2TAG1      0x008
#define   E810_TXD_CMD_DUMMY        0x010
#define   E810_TXD_CMD_IIPT_M       0x060
#define   E810_TXD_CMD_IIPT_IPV6    0x020
#define   E810_TXD_CMD_IIPT_IPV4    0x040
#define   E810_TXD_CMD_IIPT_IPV4_CSUM 0x060
#define   E810_TXD_CMD_L4T_M        0x300
#define   E810_TXD_CMD_L4T_TCP      0x100
#define   E810_TXD_CMD_L4T_SCTP     0x200
#define   E810_TXD_CMD_L4T_UDP      0x300
#define E810_TXD_OFF_S              16
#define E810_TXD_OFF_M              0x3FFFFu
#define   E810_TXD_MACLEN(o)        (((o) & 0x7F) * 2)
#define   E810_TXD_IPLEN(o)         ((((o) >> 7) & 0x7F) * 4)
#define   E810_TXD_L4LEN(o)         ((((o) >> 14) & 0xF) * 4)
#define E810_TXD_BUF_SZ_S           34
#define E810_TXD_BUF_SZ_M           0x3FFFu
#define E810_TXD_L2TAG1_S           48

/* Context descriptor: QW0 tunneling (31:0), L2TAG2 (47:32); QW1 cmd 10:4,
 * TSO length 47:30, MSS 63:50. */
#define E810_TXCD_CMD_S             4
#define E810_TXCD_CMD_M             0x7Fu
#define   E810_TXCD_CMD_TSO         0x01
#define   E810_TXCD_CMD_TSYN        0x02
#define   E810_TXCD_CMD_IL2TAG2     0x04
#define E810_TXCD_TSO_LEN_S         30
#define E810_TXCD_TSO_LEN_M         0x3FFFFu
#define E810_TXCD_MSS_S             50
#define E810_TXCD_MSS_M             0x3FFFu
#define E810_TXCD_MIN_MSS           64
#define E810_TXCD_EIPT_M            0x3u
#define E810_TXCD_EIPLEN(t)         ((((t) >> 2) & 0x7F) * 4)
#define E810_TXCD_NATLEN(t)         ((((t) >> 12) & 0x7F) * 2)
#define   E810_TXCD_EIPT_IPV4_CSUM  0x3

/* ---- Rx descriptors (32 bytes, flex NIC, RXDID 2) ---------------------- */

#define E810_RXD_SIZE               32
#define E810_RXDID_FLEX_NIC         2

#define E810_RXD_STATUS0_DD         (1u << 0)
#define E810_RXD_STATUS0_EOF        (1u << 1)
#define E810_RXD_STATUS0_L3L4P      (1u << 3)
#define E810_RXD_STATUS0_IPE        (1u << 4)
#define E810_RXD_STATUS0_L4E        (1u << 5)
#define E810_RXD_STATUS0_RXE        (1u << 10)
#define E810_RXD_STATUS0_RSS_VALID  (1u << 12)
#define E810_RXD_STATUS0_L2TAG1P    (1u << 13)
#define E810_RXD_STATUS1_L2TAG2P    (1u << 11)

/* Write-back byte offsets (struct ice_32b_rx_flex_desc_nic) */
#define E810_RXD_WB_RXDID           0
#define E810_RXD_WB_PTYPE           2
#define E810_RXD_WB_PKT_LEN         4
#define E810_RXD_WB_HDR_LEN         6
#define E810_RXD_WB_STATUS0         8
#define E810_RXD_WB_L2TAG1          10
#define E810_RXD_WB_RSS_HASH        12
#define E810_RXD_WB_STATUS1         16
#define E810_RXD_WB_L2TAG2_2ND      22

/* Packet types, libie numbering (libie/rx.c libie_rx_pt_lut) */
#define E810_PTYPE_L2               1
#define E810_PTYPE_IPV4_FRAG        22
#define E810_PTYPE_IPV4             23
#define E810_PTYPE_IPV4_UDP         24
#define E810_PTYPE_IPV4_TCP         26
#define E810_PTYPE_IPV4_SCTP        27
#define E810_PTYPE_IPV4_ICMP        28
#define E810_PTYPE_IPV6_FRAG        88
#define E810_PTYPE_IPV6             89
#define E810_PTYPE_IPV6_UDP         90
#define E810_PTYPE_IPV6_TCP         92
#define E810_PTYPE_IPV6_SCTP        93
#define E810_PTYPE_IPV6_ICMP        94

/* ---- limits ------------------------------------------------------------ */

/* Largest frame either way, without FCS (Set MAC Config maximum). */
#define E810_LAN_MAX_FRAME          9728
/* Largest frame we emit: two inserted VLAN tags, or an appended FCS. */
#define E810_LAN_FRAME_BUF          (E810_LAN_MAX_FRAME + 8)
/* TSO: headers (MACLEN + IPLEN + L4LEN at most 822) plus an 18-bit length. */
#define E810_TSO_HDR_MAX            (254 + 508 + 60)
#define E810_TX_GATHER_MAX          (E810_TSO_HDR_MAX + 0x3FFFF)
/* Descriptors one packet may use before we call it malformed. */
#define E810_TX_MAX_DESC_PER_PKT    128

/* ---- state ------------------------------------------------------------- */

typedef struct E810TxRing {
    uint32_t gen;               /* E810TxQueueCtx.gen the head belongs to */
    uint16_t head;              /* next descriptor the device fetches */
} E810TxRing;

/* An Rx queue context as QENA_REQ took it over (ice_rlan_ctx). */
typedef struct E810RxRing {
    bool enabled;
    bool valid;                 /* context usable; else frames are dropped */
    uint64_t base;              /* bytes */
    uint16_t qlen;
    uint16_t head;
    uint32_t dbuf;              /* data buffer size in bytes */
    uint32_t hbuf;              /* header buffer size in bytes */
    uint8_t dtype;
    bool dsize32;
    bool crcstrip;
    bool l2tsel;
    bool showiv;
    uint16_t rxmax;
} E810RxRing;

/*
 * Statistics the driver reads (ice_update_pf_stats, ice_update_eth_stats):
 * the port's MAC counters and each VSI's.  They survive PF resets (the
 * driver takes its first read as the base) and are read-only.
 */
enum {
    E810_PS_GORC, E810_PS_UPRC, E810_PS_MPRC, E810_PS_BPRC,
    E810_PS_GOTC, E810_PS_UPTC, E810_PS_MPTC, E810_PS_BPTC,
    E810_PS_PRC64, E810_PS_PRC127, E810_PS_PRC255, E810_PS_PRC511,
    E810_PS_PRC1023, E810_PS_PRC1522, E810_PS_PRC9522,
    E810_PS_PTC64, E810_PS_PTC127, E810_PS_PTC255, E810_PS_PTC511,
    E810_PS_PTC1023, E810_PS_PTC1522, E810_PS_PTC9522,
    E810_PS_TDOLD,              /* Tx dropped: link down */
    E810_PS_RUC,                /* Rx undersize */
    E810_PS_ROC,                /* Rx oversize */
    E810_PS_RLEC,               /* Rx 802.3 length field errors */
    E810_PS_RDPC,               /* Rx discards (PRTRPB_RDPC) */
    E810_PS_COUNT
};
enum {
    E810_VS_GORC, E810_VS_UPRC, E810_VS_MPRC, E810_VS_BPRC, E810_VS_RDPC,
    E810_VS_GOTC, E810_VS_UPTC, E810_VS_MPTC, E810_VS_BPTC, E810_VS_TEPC,
    E810_VS_COUNT
};
#define E810_LAN_STAT_VSIS          768

#define E810_LAN_DIRTY_CHUNK        64

typedef struct E810Lan {
    uint64_t port_stats[E810_PS_COUNT];
    uint64_t vsi_stats[E810_LAN_STAT_VSIS][E810_VS_COUNT];
    E810TxRing txq[E810_LAN_TXQ];
    E810RxRing rxq[E810_LAN_RXQ];
    uint8_t gather[E810_TX_GATHER_MAX];
    uint8_t frame[E810_LAN_FRAME_BUF];      /* one Tx frame being built */
    uint8_t rxframe[E810_LAN_FRAME_BUF];    /* one Rx frame being placed */
    /* Chunks of E810_LAN_DIRTY_CHUNK rings written since a reset zeroed
     * them (e810_dirty_mark): a reset zeroes those only. */
    uint64_t txq_dirty[(E810_LAN_TXQ / E810_LAN_DIRTY_CHUNK + 63) / 64];
    uint64_t rxq_dirty[(E810_LAN_RXQ / E810_LAN_DIRTY_CHUNK + 63) / 64];
} E810Lan;

void e810_lan_reset(E810Core *c);
/*
 * Can an Rx ring as QENA_REQ took it carry frames (E810RxRing.valid)?  If
 * not, *bad says why when the context is badly programmed, and is NULL
 * for a queue without packet buffers (idle by design).
 */
bool e810_rxq_check(const E810RxRing *r, const char **bad);
/* Saved state (snap.h): statistics and the rings' device-side state. */
extern const struct E810SnapPart e810_lan_snap;
/* Register writes of the LAN block; true if handled. */
bool e810_lan_write(E810Core *c, uint32_t off, uint32_t val);
/* QTX_COMM_DBELL writes (lan/tx.c); true if @off is a doorbell. */
bool e810_lan_tx_write(E810Core *c, uint32_t off, uint32_t val);
/* Rx from the wire (or MAC loopback); returns nothing: drops are counted. */
void e810_lan_receive(E810Core *c, const E810Frame *fr);

/* ---- statistics (lan/stats.c) ----------------------------------------- */

/* Statistics register read; true (and *val) if @off is one. */
bool e810_lan_stats_read(E810Core *c, uint32_t off, uint32_t *val);
/* Statistics registers are read-only: true if @off is one. */
bool e810_lan_stats_reg(uint32_t off);
/* A frame the MAC received from the wire / put on it (or would have: the
 * link is down). */
void e810_lan_stats_port_rx(E810Core *c, const E810Frame *fr);
void e810_lan_stats_port_tx(E810Core *c, const uint8_t *f, size_t len,
                            bool link_up);
/* A frame delivered to / sent by VSI @vsi; one it dropped or refused. */
void e810_lan_stats_vsi(E810Core *c, unsigned vsi, const uint8_t *f,
                        size_t len, bool tx);
void e810_lan_stats_vsi_count(E810Core *c, unsigned vsi, unsigned which);

/* ---- receive side scaling (lan/rss.c) ------------------------------- */

/* Toeplitz hash of @len bytes of @in with @key (at least len + 4 bytes). */
uint32_t e810_toeplitz(const uint8_t *key, const uint8_t *in, size_t len);

#endif
