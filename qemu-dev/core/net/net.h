/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The network library every block of the core shares: the wire headers it
 * parses (Ethernet, 802.1Q/802.1ad, IPv4, IPv6, TCP, UDP), one parse of a
 * received frame (E810Frame, made once at the device's entry and handed to
 * RDMA steering, the LAN and the iWARP engine), the Internet checksum and
 * the CRCs (CRC32c for MPA and SCTP, CRC-32 for the Ethernet FCS and the
 * RoCEv2 ICRC).
 */
#ifndef E810_NET_H
#define E810_NET_H

#include "../host.h"

/* ---- wire headers -------------------------------------------------------- */

#define ETH_HLEN                14
#define ETH_P_IP                0x0800
#define ETH_P_IPV6              0x86DD
#define ETH_P_8021Q             0x8100
#define ETH_P_8021AD            0x88A8
#define ETH_P_QINQ1             0x9100

#define IPV4_HLEN               20          /* without options */
#define IPV6_HLEN               40
#define IP_PROTO_ICMP           1
#define IP_PROTO_TCP            6
#define IP_PROTO_UDP            17
#define IP_PROTO_ICMPV6         58
#define IP_PROTO_SCTP           132

#define TCP_HLEN                20          /* without options */
#define TCP_FIN                 0x01
#define TCP_SYN                 0x02
#define TCP_RST                 0x04
#define TCP_PSH                 0x08
#define TCP_ACK                 0x10
#define UDP_HLEN                8

/* Header fields: byte offsets from the start of their header. */
#define ETH_OFF_DST             0
#define ETH_OFF_SRC             6
#define ETH_OFF_TYPE            12          /* or the first tag's TPID */
#define VLAN_TAG_LEN            4           /* TPID, TCI */
#define VLAN_OFF_TCI            2           /* from the TPID */
#define IPV4_OFF_VER_IHL        0
#define IPV4_OFF_TOS            1
#define IPV4_OFF_TOT_LEN        2
#define IPV4_OFF_ID             4
#define IPV4_OFF_FRAG           6           /* flags, fragment offset */
#define IPV4_OFF_TTL            8
#define IPV4_OFF_PROTO          9
#define IPV4_OFF_CSUM           10
#define IPV4_OFF_SRC            12
#define IPV4_OFF_DST            16
#define IPV4_VER_IHL_5          0x45        /* version 4, no options */
#define IPV4_DF                 0x4000
#define IPV4_FRAG_M             0x3FFF      /* MF and the offset */
#define IPV6_OFF_VER_TC_FL      0           /* version, class, flow label */
#define IPV6_OFF_PLEN           4
#define IPV6_OFF_NH             6
#define IPV6_OFF_HLIM           7
#define IPV6_OFF_SRC            8
#define IPV6_OFF_DST            24
#define IPV6_FLOW_M             0xFFFFF
#define TCP_OFF_SPORT           0
#define TCP_OFF_DPORT           2
#define TCP_OFF_SEQ             4
#define TCP_OFF_ACK             8
#define TCP_OFF_DOFF            12          /* data offset << 4 */
#define TCP_OFF_FLAGS           13
#define TCP_OFF_WIN             14
#define TCP_OFF_CSUM            16
#define TCP_OFF_URG             18
#define UDP_OFF_SPORT           0
#define UDP_OFF_DPORT           2
#define UDP_OFF_LEN             4
#define UDP_OFF_CSUM            6

/* ---- a received frame, parsed once ---------------------------------------- */

#define E810_FRAME_NO_VLAN      0xFFFFu

typedef struct E810Frame {
    const uint8_t *data;
    size_t len;
    /* L2: up to two tags; the outermost one is recorded. */
    unsigned ntags;
    uint16_t tpid, tci, vlan;   /* vlan: E810_FRAME_NO_VLAN if untagged */
    uint16_t ethertype;         /* after the tags */
    /* L3: ipv4/ipv6 when the version matches and the base header fits. */
    bool ipv4, ipv6;
    size_t l3_off;              /* IP header offset in the frame */
    bool l3_ok;                 /* lengths consistent: l3_hlen, l3_end valid */
    size_t l3_hlen;             /* IPv4: IHL * 4; IPv6: 40 + extension headers */
    size_t l3_end;              /* end of the IP packet (padding excluded) */
    bool ip_options;            /* IPv4 options present */
    bool ip_ext;                /* IPv6: the first next header is an extension */
    bool frag;                  /* a fragment (first or later) */
    bool l3_csum_ok;            /* IPv4 header checksum (IPv6: true) */
    uint8_t proto;              /* L4 protocol (IPv6: after the extensions) */
    /* L4 (l3_ok, not a fragment): [l4_off, l3_end) per the IP header. */
    size_t l4_off, l4_len;
    bool l4_csum_ok;            /* TCP/UDP/SCTP/ICMP checksum (others: true) */
    /* Ports of TCP/UDP/SCTP, also when the IP lengths are not consistent
     * (the RDMA steering drops such a segment of an offloaded quad). */
    bool have_ports;
    uint16_t sport, dport;
} E810Frame;

/*
 * Parse @len bytes of @data into @fr.  Never fails: what is not understood
 * is left unset (an unknown ethertype leaves ipv4/ipv6 false, a malformed
 * IP header too).  Checksums are verified here, once.
 */
void e810_frame_parse(E810Frame *fr, const uint8_t *data, size_t len);

static inline const uint8_t *e810_frame_l3(const E810Frame *fr)
{
    return fr->data + fr->l3_off;
}

static inline const uint8_t *e810_frame_l4(const E810Frame *fr)
{
    return fr->data + fr->l4_off;
}

/* ---- a frame to send, built once ----------------------------------------- */

/*
 * Where a frame goes: what its Ethernet, IP and TCP/UDP headers say.
 * Each sender (the iWARP engine, RoCEv2, the PUDA) describes its path
 * and leaves the headers to e810_frame_start/e810_frame_seal.
 */
typedef struct E810NetPath {
    uint8_t dmac[6], smac[6];
    bool vlan;                  /* an 802.1Q tag with @vlan_tci */
    uint16_t vlan_tci;
    bool ipv4;                  /* IPv4 (no options, DF), else IPv6 */
    uint8_t sip[16], dip[16];   /* IPv4: the first 4 bytes */
    uint8_t tos;                /* IPv4 TOS, IPv6 traffic class */
    uint8_t ttl;                /* TTL or hop limit, as it goes */
    uint32_t flow_label;        /* IPv6 */
    uint16_t ip_id;             /* IPv4 identification */
    uint8_t proto;              /* IP_PROTO_TCP or IP_PROTO_UDP */
    uint16_t sport, dport;
} E810NetPath;

/* Offsets of the IP and the TCP/UDP header in frames on @p. */
size_t e810_frame_l3_start(const E810NetPath *p);
size_t e810_frame_l4_start(const E810NetPath *p);
/*
 * Start a frame on @p in @buf: Ethernet, the tag, the IP header (its
 * lengths and checksum left to the seal) and the TCP/UDP ports.  Returns
 * the L4 header's offset; the rest of the L4 header and the payload are
 * the caller's (e810_tcp_put for a TCP header without options).
 */
size_t e810_frame_start(uint8_t *buf, const E810NetPath *p);
/* The TCP header after the ports at @th: no options. */
void e810_tcp_put(uint8_t *th, uint32_t seq, uint32_t ack, uint8_t flags,
                  uint16_t win);
/* The lengths of a frame on @p that ends at @end: IPv4 total length and
 * header checksum, or IPv6 payload length; the UDP length. */
void e810_frame_set_lengths(uint8_t *buf, const E810NetPath *p, size_t end);
/* The TCP or UDP checksum, after the lengths.  UDP over IPv4 carries none
 * (0); over IPv6 it must (RFC 8200 8.1), 0 going as 0xFFFF. */
void e810_frame_l4_csum(uint8_t *buf, const E810NetPath *p, size_t end);
/* Lengths and checksums of a frame ending at @end; returns @end. */
size_t e810_frame_seal(uint8_t *buf, const E810NetPath *p, size_t end);

/* ---- Internet checksum (RFC 1071) ----------------------------------------- */

/*
 * One's-complement sum of @len bytes as big-endian 16-bit words (an odd
 * last byte is padded with zero), added to @sum; eight bytes per step.
 */
uint32_t e810_csum_add(uint32_t sum, const uint8_t *p, size_t len);
/* Folded to 16 bits (not complemented). */
uint16_t e810_csum_fold(uint32_t sum);
/* Pseudo-header sum (addresses, protocol, @l4len) for IPv4 or IPv6 @ip. */
uint32_t e810_csum_pseudo(const uint8_t *ip, bool v6, uint8_t proto,
                          uint32_t l4len);
/* The same from bare addresses (4 or 16 bytes each). */
uint32_t e810_csum_pseudo_addr(bool v4, const uint8_t *src, const uint8_t *dst,
                               uint8_t proto, uint32_t l4len);

/* ---- CRCs --------------------------------------------------------------- */

/*
 * CRC32c (Castagnoli, reflected 0x82F63B78; MPA per RFC 5044, SCTP): raw
 * register update, no pre- or post-inversion; the CPU's CRC32 instruction
 * when it has one (chosen at run time), else slicing-by-8 tables.
 */
uint32_t e810_crc32c_update(uint32_t crc, const void *buf, size_t len);
/* The portable implementation, for tests and hosts without the instruction. */
uint32_t e810_crc32c_update_sw(uint32_t crc, const void *buf, size_t len);
/* True if e810_crc32c_update uses the CPU instruction. */
bool e810_crc32c_hw(void);

/* The CRC of a buffer as MPA and SCTP carry it: ~update(~0, buf). */
static inline uint32_t e810_crc32c(const void *buf, size_t len)
{
    return ~e810_crc32c_update(~0u, buf, len);
}

/* CRC-32 (IEEE 802.3, reflected 0xEDB88320), raw update, slicing-by-8. */
uint32_t e810_crc32_update(uint32_t crc, const void *buf, size_t len);

/* Ethernet FCS value (stored little-endian on the wire). */
static inline uint32_t e810_crc32_eth(const void *buf, size_t len)
{
    return ~e810_crc32_update(~0u, buf, len);
}

#endif
