/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The core's network library: checksum, CRCs and the one frame parse. */
#include "net/net.h"
#include "bytes.h"
#include "check.h"
#include <string.h>

/* RFC 1071 done the plain way: big-endian words, one at a time. */
static uint16_t ref_csum(const uint8_t *p, size_t len)
{
    uint64_t s = 0;

    for (size_t i = 0; i + 1 < len; i += 2) {
        s += (uint32_t)p[i] << 8 | p[i + 1];
    }
    if (len & 1) {
        s += (uint32_t)p[len - 1] << 8;
    }
    while (s >> 16) {
        s = (s & 0xFFFF) + (s >> 16);
    }
    return (uint16_t)s;
}

static void test_csum(void)
{
    static uint8_t b[9000 + 8];
    uint32_t x = 7;

    for (size_t i = 0; i < sizeof(b); i++) {
        x = x * 1103515245u + 12345u;
        b[i] = (uint8_t)(x >> 16);
    }
    /* Every alignment, odd and even lengths, and all-ones input. */
    for (size_t off = 0; off < 8; off++) {
        for (size_t len = 0; len < 300; len++) {
            CHECK_EQ(e810_csum_fold(e810_csum_add(0, b + off, len)),
                     ref_csum(b + off, len));
        }
        CHECK_EQ(e810_csum_fold(e810_csum_add(0, b + off, 9000)),
                 ref_csum(b + off, 9000));
    }
    memset(b, 0xFF, 64);
    CHECK_EQ(e810_csum_fold(e810_csum_add(0, b, 64)), 0xFFFF);
    /* Chained pieces of even length add up as the whole. */
    CHECK_EQ(e810_csum_fold(e810_csum_add(e810_csum_add(0, b + 100, 40),
                                          b + 140, 1000)),
             ref_csum(b + 100, 1040));
    /* A known IPv4 header (checksum 0xB861 in its field). */
    {
        static const uint8_t ip[20] = {
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
            0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };
        CHECK_EQ((uint16_t)~e810_csum_fold(e810_csum_add(0, ip, 20)), 0xB861);
    }
}

static void test_crc(void)
{
    CHECK_EQ(e810_crc32c("123456789", 9), 0xE3069283);
    CHECK_EQ(e810_crc32_eth("123456789", 9), 0xCBF43926);
    CHECK_EQ(~e810_crc32_update(e810_crc32_update(~0u, "1234", 4), "56789", 5),
             0xCBF43926);
    /* The instruction's strands (when the host has it) against the
     * tables, across the strand sizes' edges and every alignment. */
    {
        static uint8_t b[10000 + 8];
        static const size_t lens[] = {
            0, 1, 7, 8, 9, 383, 384, 385, 767, 768, 1000, 3071, 3072, 3073,
            3455, 3456, 3457, 6144, 6528, 8960, 8972, 9000, 10000 };
        uint32_t x = 11;

        for (size_t i = 0; i < sizeof(b); i++) {
            x = x * 1103515245u + 12345u;
            b[i] = (uint8_t)(x >> 16);
        }
        for (size_t off = 0; off < 8; off++) {
            for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
                CHECK_EQ(e810_crc32c_update(0x12345678u, b + off, lens[i]),
                         e810_crc32c_update_sw(0x12345678u, b + off, lens[i]));
            }
        }
    }
}

/* Ethernet + IPv4 + TCP, checksums right. */
static size_t build_tcp4(uint8_t *f, size_t plen, bool vlan)
{
    size_t o = 12, l4;
    uint32_t sum;

    memset(f, 0, 128);
    memcpy(f, "\x02\0\0\0\0\x01\x02\0\0\0\0\x02", 12);
    if (vlan) {
        stbe16(f + 12, ETH_P_8021Q);
        stbe16(f + 14, 0x2005);         /* PCP 1, VID 5 */
        o += 4;
    }
    stbe16(f + o, ETH_P_IP);
    o += 2;
    f[o] = 0x45;
    stbe16(f + o + 2, (uint16_t)(20 + 20 + plen));
    f[o + 8] = 64;
    f[o + 9] = IP_PROTO_TCP;
    memcpy(f + o + 12, "\x0a\0\0\x01\x0a\0\0\x02", 8);
    stbe16(f + o + 10, (uint16_t)~e810_csum_fold(e810_csum_add(0, f + o, 20)));
    l4 = o + 20;
    stbe16(f + l4, 4420);
    stbe16(f + l4 + 2, 33000);
    f[l4 + 12] = 5 << 4;
    f[l4 + 13] = TCP_ACK;
    for (size_t i = 0; i < plen; i++) {
        f[l4 + 20 + i] = (uint8_t)i;
    }
    sum = e810_csum_pseudo(f + o, false, IP_PROTO_TCP, (uint32_t)(20 + plen));
    stbe16(f + l4 + 16,
           (uint16_t)~e810_csum_fold(e810_csum_add(sum, f + l4, 20 + plen)));
    return l4 + 20 + plen;
}

static void test_parse(void)
{
    uint8_t f[256];
    E810Frame fr;
    size_t n;

    n = build_tcp4(f, 10, false);
    e810_frame_parse(&fr, f, n + 6);            /* with padding */
    CHECK(fr.ipv4 && fr.l3_ok && fr.l3_csum_ok && fr.l4_csum_ok);
    CHECK_EQ(fr.ntags, 0);
    CHECK_EQ(fr.vlan, E810_FRAME_NO_VLAN);
    CHECK_EQ(fr.proto, IP_PROTO_TCP);
    CHECK_EQ(fr.l3_off, 14);
    CHECK_EQ(fr.l4_off, 34);
    CHECK_EQ(fr.l4_len, 30);
    CHECK_EQ(fr.l3_end, n);
    CHECK(fr.have_ports && fr.sport == 4420 && fr.dport == 33000);

    n = build_tcp4(f, 0, true);
    e810_frame_parse(&fr, f, n);
    CHECK(fr.ipv4 && fr.l3_ok && fr.l4_csum_ok);
    CHECK_EQ(fr.ntags, 1);
    CHECK_EQ(fr.vlan, 5);
    CHECK_EQ(fr.tpid, ETH_P_8021Q);
    CHECK_EQ(fr.l3_off, 18);

    /* A flipped payload bit: the L4 checksum fails, the IP one holds. */
    n = build_tcp4(f, 10, false);
    f[n - 1] ^= 1;
    e810_frame_parse(&fr, f, n);
    CHECK(fr.l3_ok && fr.l3_csum_ok && !fr.l4_csum_ok);

    /* Total length beyond the frame: IPv4, no lengths claimed, ports kept. */
    n = build_tcp4(f, 10, false);
    stbe16(f + 16, 200);
    e810_frame_parse(&fr, f, n);
    CHECK(fr.ipv4 && !fr.l3_ok && fr.have_ports);
    CHECK_EQ(fr.l4_len, 0);

    /* Truncated everywhere: never reads past the end (ASan watches). */
    n = build_tcp4(f, 10, true);
    for (size_t len = 0; len <= n; len++) {
        uint8_t *copy = malloc(len ? len : 1);

        memcpy(copy, f, len);
        e810_frame_parse(&fr, copy, len);
        CHECK(fr.l3_end <= len && fr.l4_off + fr.l4_len <= len);
        free(copy);
    }

    /* A fragment: no L4. */
    n = build_tcp4(f, 10, false);
    stbe16(f + 20, 0x2000);                     /* MF */
    e810_frame_parse(&fr, f, n);
    CHECK(fr.frag && fr.l4_len == 0);

    /* IPv6 with a hop-by-hop header before TCP. */
    memset(f, 0, sizeof(f));
    stbe16(f + 12, ETH_P_IPV6);
    f[14] = 0x60;
    stbe16(f + 18, 8 + 20);
    f[20] = 0;                                  /* next: hop-by-hop */
    f[54] = IP_PROTO_TCP;                       /* its next header */
    f[55] = 0;                                  /* 8 bytes */
    stbe16(f + 62, 1234);
    stbe16(f + 64, 80);
    f[74] = 5 << 4;
    e810_frame_parse(&fr, f, 14 + 40 + 8 + 20);
    CHECK(fr.ipv6 && fr.ip_ext && fr.l3_ok);
    CHECK_EQ(fr.proto, IP_PROTO_TCP);
    CHECK_EQ(fr.l3_hlen, 48);
    CHECK(fr.have_ports && fr.sport == 1234 && fr.dport == 80);
    CHECK(!fr.l4_csum_ok);                      /* checksum left zero */
}

/* A path for the builder: TCP or UDP, IPv4 or IPv6, tagged or not. */
static void build_path(E810NetPath *p, uint8_t proto, bool v4, bool vlan)
{
    memset(p, 0, sizeof(*p));
    memcpy(p->dmac, "\x02\0\0\0\0\x01", 6);
    memcpy(p->smac, "\x02\0\0\0\0\x02", 6);
    p->vlan = vlan;
    p->vlan_tci = 0x2005;
    p->ipv4 = v4;
    for (int i = 0; i < 16; i++) {
        p->sip[i] = (uint8_t)(0x10 + i);
        p->dip[i] = (uint8_t)(0x40 + i);
    }
    p->tos = 0x2E;
    p->ttl = 33;
    p->flow_label = 0x12345;
    p->ip_id = 0x0BAD;
    p->proto = proto;
    p->sport = 4420;
    p->dport = proto == IP_PROTO_UDP ? 4791 : 33000;
}

/* Build @plen bytes of payload on @p, seal, parse back. */
static size_t build_one(uint8_t *f, const E810NetPath *p, size_t plen,
                        E810Frame *fr)
{
    size_t l4 = e810_frame_start(f, p);
    size_t hl = p->proto == IP_PROTO_TCP ? TCP_HLEN : UDP_HLEN;

    if (p->proto == IP_PROTO_TCP) {
        e810_tcp_put(f + l4, 1000, 2000, TCP_ACK | TCP_PSH, 512);
    }
    for (size_t i = 0; i < plen; i++) {
        f[l4 + hl + i] = (uint8_t)(i * 7);
    }
    CHECK_EQ(e810_frame_seal(f, p, l4 + hl + plen), l4 + hl + plen);
    e810_frame_parse(fr, f, l4 + hl + plen);
    return l4 + hl + plen;
}

static void test_build(void)
{
    static const uint8_t protos[2] = { IP_PROTO_TCP, IP_PROTO_UDP };
    uint8_t f[256];
    E810NetPath p;
    E810Frame fr;

    for (int k = 0; k < 8; k++) {
        bool v4 = k & 1, vlan = k & 2;
        uint8_t proto = protos[k >> 2];
        size_t n, l3 = vlan ? 18 : 14, l4 = l3 + (v4 ? 20 : 40);
        const uint8_t *ip = f + l3, *th = f + l4;

        build_path(&p, proto, v4, vlan);
        CHECK_EQ(e810_frame_l3_start(&p), l3);
        CHECK_EQ(e810_frame_l4_start(&p), l4);
        n = build_one(f, &p, 37, &fr);
        CHECK(!memcmp(f, p.dmac, 6) && !memcmp(f + 6, p.smac, 6));
        CHECK(fr.ipv4 == v4 && fr.ipv6 == !v4);
        CHECK(fr.l3_ok && fr.l3_csum_ok && fr.l4_csum_ok && !fr.frag);
        CHECK(!fr.ip_options && !fr.ip_ext);
        CHECK_EQ(fr.ntags, vlan ? 1 : 0);
        CHECK_EQ(fr.vlan, vlan ? 5 : E810_FRAME_NO_VLAN);
        CHECK_EQ(fr.proto, proto);
        CHECK_EQ(fr.l3_off, l3);
        CHECK_EQ(fr.l4_off, l4);
        CHECK_EQ(fr.l3_end, n);
        CHECK_EQ(fr.l4_len, n - l4);
        CHECK(fr.have_ports && fr.sport == p.sport && fr.dport == p.dport);
        if (v4) {
            CHECK_EQ(ip[0], 0x45);
            CHECK_EQ(ip[1], p.tos);
            CHECK_EQ(ldbe16(ip + 2), n - l3);
            CHECK_EQ(ldbe16(ip + 4), p.ip_id);
            CHECK_EQ(ldbe16(ip + 6), 0x4000);           /* DF */
            CHECK_EQ(ip[8], p.ttl);
            CHECK(!memcmp(ip + 12, p.sip, 4) && !memcmp(ip + 16, p.dip, 4));
            CHECK_EQ(ref_csum(ip, 20), 0xFFFF);
        } else {
            CHECK_EQ(ldbe32(ip), 6u << 28 | 0x2Eu << 20 | 0x12345);
            CHECK_EQ(ldbe16(ip + 4), n - l4);
            CHECK_EQ(ip[7], p.ttl);
            CHECK(!memcmp(ip + 8, p.sip, 16) && !memcmp(ip + 24, p.dip, 16));
        }
        if (proto == IP_PROTO_TCP) {
            CHECK_EQ(ldbe32(th + 4), 1000);
            CHECK_EQ(ldbe32(th + 8), 2000);
            CHECK_EQ(th[12], 5 << 4);
            CHECK_EQ(th[13], TCP_ACK | TCP_PSH);
            CHECK_EQ(ldbe16(th + 14), 512);
            CHECK_EQ(ldbe16(th + 18), 0);
        } else {
            CHECK_EQ(ldbe16(th + 4), n - l4);
            /* IPv4: no UDP checksum; IPv6: one, and it holds. */
            CHECK(v4 ? ldbe16(th + 6) == 0 : ldbe16(th + 6) != 0);
        }
    }

    /* UDP over IPv6 whose checksum comes out 0: sent as 0xFFFF. */
    build_path(&p, IP_PROTO_UDP, false, false);
    {
        size_t n = build_one(f, &p, 38, &fr);
        uint16_t ck;

        stbe16(f + n - 2, 0);
        e810_frame_seal(f, &p, n);
        ck = ldbe16(f + 54 + 6);
        stbe16(f + n - 2, ck);                  /* the sum now folds to 0 */
        e810_frame_seal(f, &p, n);
        CHECK_EQ(ldbe16(f + 54 + 6), 0xFFFF);
        e810_frame_parse(&fr, f, n);
        CHECK(fr.l4_csum_ok);
    }
}

int main(void)
{
    RUN(test_csum);
    RUN(test_crc);
    RUN(test_parse);
    RUN(test_build);
    return CHECK_DONE();
}
