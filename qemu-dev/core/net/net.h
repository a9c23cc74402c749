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
