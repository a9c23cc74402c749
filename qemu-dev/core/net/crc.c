/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CRCs of the data path.  CRC32c covers every MPA FPDU the engine sends or
 * receives, so it is on the path of every byte: the SSE4.2 CRC32
 * instruction where the host CPU has it (chosen at run time), else
 * slicing-by-8 tables (eight bytes per step, ~4x the byte-at-a-time
 * table).  CRC-32 (Ethernet FCS, RoCEv2 ICRC) uses the same tables scheme.
 */
#include "qemu/osdep.h"
#include "net.h"

/*
 * Sanitizer builds: the table loops (slice8) are arithmetic on masked
 * indexes into static tables, checked by test-net, and are left
 * uninstrumented: instrumented (ASan, UBSan), the RoCEv2 ICRC took a third
 * of fuzz-roce's time.  The caller's buffer is still checked, once and
 * whole (crc_buf_check), so reading past a frame is still found.
 */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CRC_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CRC_ASAN 1
#endif
#ifdef CRC_ASAN
#include <sanitizer/asan_interface.h>

static void crc_buf_check(const void *p, size_t n)
{
    void *bad = __asan_region_is_poisoned((void *)p, n);

    if (bad) {
        __asan_report_error(__builtin_return_address(0),
                            __builtin_frame_address(0),
                            __builtin_frame_address(0), bad, 0, n);
    }
}
#else
#define crc_buf_check(p, n)     ((void)(p), (void)(n))
#endif

#define CRC32C_POLY 0x82F63B78u     /* reflected Castagnoli */
#define CRC32_POLY  0xEDB88320u     /* reflected IEEE 802.3 */

static uint32_t tab[8][256];       /* CRC32c */
static uint32_t tab32[8][256];     /* CRC-32 */
static int impl;                    /* 0 unset, 1 tables, 2 SSE4.2 */

static void tables_init(uint32_t t[8][256], uint32_t poly)
{
    for (unsigned i = 0; i < 256; i++) {
        uint32_t r = i;

        for (unsigned k = 0; k < 8; k++) {
            r = (r >> 1) ^ (r & 1 ? poly : 0);
        }
        t[0][i] = r;
    }
    for (unsigned i = 0; i < 256; i++) {
        for (unsigned k = 1; k < 8; k++) {
            t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
        }
    }
}

__attribute__((no_sanitize("address", "undefined")))
static uint64_t load_le64(const uint8_t *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
           (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
           (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

__attribute__((no_sanitize("address", "undefined")))
static uint32_t slice8_loop(uint32_t t[8][256], uint32_t crc,
                            const uint8_t *p, size_t len)
{
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t w = load_le64(p) ^ crc;

        crc = t[7][w & 0xFF] ^ t[6][(w >> 8) & 0xFF] ^
              t[5][(w >> 16) & 0xFF] ^ t[4][(w >> 24) & 0xFF] ^
              t[3][(w >> 32) & 0xFF] ^ t[2][(w >> 40) & 0xFF] ^
              t[1][(w >> 48) & 0xFF] ^ t[0][w >> 56];
    }
    while (len--) {
        crc = t[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    }
    return crc;
}

static uint32_t slice8(uint32_t t[8][256], uint32_t crc, const uint8_t *p,
                       size_t len)
{
    crc_buf_check(p, len);
    return slice8_loop(t, crc, p, len);
}

uint32_t e810_crc32c_update_sw(uint32_t crc, const void *buf, size_t len)
{
    if (!tab[0][1]) {
        tables_init(tab, CRC32C_POLY);
    }
    return slice8(tab, crc, buf, len);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CRC32_HAVE_CLMUL 1
#include <immintrin.h>

/*
 * CRC-32 of @len bytes (64 or more, a multiple of 16) by carry-less
 * multiplication: four 128-bit lanes folded 64 bytes at a time, folded
 * into one, then to 64 bits and Barrett-reduced (Gopal et al., "Fast CRC
 * Computation for Generic Polynomials Using PCLMULQDQ", Intel, 2009; the
 * bit-reflected constants for 0xEDB88320 as zlib's crc32_simd.c has
 * them).  The raw register in and out, as slice8.  Uninstrumented like
 * slice8 (the caller checks the buffer).
 */
__attribute__((target("pclmul,sse4.1"), no_sanitize("address", "undefined")))
static uint32_t crc32_clmul(uint32_t crc, const uint8_t *buf, size_t len)
{
    const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);
    const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
    const __m128i k5k0 = _mm_set_epi64x(0, 0x0163cd6124);
    const __m128i poly = _mm_set_epi64x(0x01f7011641, 0x01db710641);
    const __m128i mask = _mm_setr_epi32(~0, 0, ~0, 0);
    __m128i x0, x1, x2, x3, x4, x5, x6, x7, x8;

    x1 = _mm_loadu_si128((const __m128i *)(buf + 0x00));
    x2 = _mm_loadu_si128((const __m128i *)(buf + 0x10));
    x3 = _mm_loadu_si128((const __m128i *)(buf + 0x20));
    x4 = _mm_loadu_si128((const __m128i *)(buf + 0x30));
    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)crc));
    x0 = k1k2;
    buf += 64;
    len -= 64;
    while (len >= 64) {
        x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
        x6 = _mm_clmulepi64_si128(x2, x0, 0x00);
        x7 = _mm_clmulepi64_si128(x3, x0, 0x00);
        x8 = _mm_clmulepi64_si128(x4, x0, 0x00);
        x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
        x2 = _mm_clmulepi64_si128(x2, x0, 0x11);
        x3 = _mm_clmulepi64_si128(x3, x0, 0x11);
        x4 = _mm_clmulepi64_si128(x4, x0, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, x5),
                           _mm_loadu_si128((const __m128i *)(buf + 0x00)));
        x2 = _mm_xor_si128(_mm_xor_si128(x2, x6),
                           _mm_loadu_si128((const __m128i *)(buf + 0x10)));
        x3 = _mm_xor_si128(_mm_xor_si128(x3, x7),
                           _mm_loadu_si128((const __m128i *)(buf + 0x20)));
        x4 = _mm_xor_si128(_mm_xor_si128(x4, x8),
                           _mm_loadu_si128((const __m128i *)(buf + 0x30)));
        buf += 64;
        len -= 64;
    }
    /* Four lanes into one. */
    x0 = k3k4;
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x3), x5);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x4), x5);
    while (len >= 16) {
        x2 = _mm_loadu_si128((const __m128i *)buf);
        x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
        x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
        buf += 16;
        len -= 16;
    }
    /* 128 bits to 64. */
    x2 = _mm_clmulepi64_si128(x1, x0, 0x10);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
    x2 = _mm_srli_si128(x1, 4);
    x1 = _mm_and_si128(x1, mask);
    x1 = _mm_clmulepi64_si128(x1, k5k0, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    /* Barrett reduction to 32. */
    x2 = _mm_and_si128(x1, mask);
    x2 = _mm_clmulepi64_si128(x2, poly, 0x10);
    x2 = _mm_and_si128(x2, mask);
    x2 = _mm_clmulepi64_si128(x2, poly, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    return (uint32_t)_mm_extract_epi32(x1, 1);
}

static bool crc32_clmul_ok(void)
{
    static int ok;                  /* 0 unknown, 1 no, 2 yes */

    if (!ok) {
        __builtin_cpu_init();
        ok = __builtin_cpu_supports("pclmul") &&
             __builtin_cpu_supports("sse4.1") ? 2 : 1;
    }
    return ok == 2;
}
#endif

uint32_t e810_crc32_update(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = buf;

    if (!tab32[0][1]) {
        tables_init(tab32, CRC32_POLY);
    }
#ifdef CRC32_HAVE_CLMUL
    if (len >= 64 && crc32_clmul_ok()) {
        size_t n = len & ~(size_t)15;

        crc_buf_check(p, n);
        crc = crc32_clmul(crc, p, n);
        p += n;
        len -= n;
    }
#endif
    return slice8(tab32, crc, p, len);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CRC32C_HAVE_HW 1

/*
 * The CRC32 instruction has a latency of about three cycles but accepts a
 * new one every cycle, so one chain over a buffer runs at a third of what
 * the unit can do.  Long buffers are cut into three equal strands run
 * interleaved from states (crc, 0, 0); the CRC is linear, so the strands
 * join as crc(A|B) = advance(crc(A), |B|) ^ crc(0, B), where advance(x, n)
 * is x run through n zero bytes.  advance() for the two strand lengths
 * below is a table per byte of the state, built once from the
 * instruction itself.
 */
#define STRAND_LONG  1024
#define STRAND_SHORT 128

static uint32_t adv_long[4][256], adv_short[4][256];

__attribute__((target("sse4.2")))
static uint32_t chain_sse42(uint32_t crc, const uint8_t *p, size_t len)
{
    uint64_t c = crc;

    for (; len >= 8; p += 8, len -= 8) {
        uint64_t w;

        memcpy(&w, p, 8);           /* x86: little endian, unaligned ok */
        c = __builtin_ia32_crc32di(c, w);
    }
    crc = (uint32_t)c;
    while (len--) {
        crc = __builtin_ia32_crc32qi(crc, *p++);
    }
    return crc;
}

static void advance_init(uint32_t t[4][256], size_t n)
{
    static const uint8_t zeros[STRAND_LONG];
    uint32_t bit[32];

    for (unsigned b = 0; b < 32; b++) {
        bit[b] = chain_sse42(1u << b, zeros, n);
    }
    for (unsigned k = 0; k < 4; k++) {
        for (unsigned v = 0; v < 256; v++) {
            uint32_t r = 0;

            for (unsigned j = 0; j < 8; j++) {
                if (v & (1u << j)) {
                    r ^= bit[k * 8 + j];
                }
            }
            t[k][v] = r;
        }
    }
}

static uint32_t advance(uint32_t t[4][256], uint32_t x)
{
    return t[0][x & 0xFF] ^ t[1][(x >> 8) & 0xFF] ^
           t[2][(x >> 16) & 0xFF] ^ t[3][x >> 24];
}

__attribute__((target("sse4.2")))
static uint32_t strands_sse42(uint32_t crc, const uint8_t **pp, size_t *lenp,
                              size_t n, uint32_t t[4][256])
{
    const uint8_t *p = *pp;
    size_t len = *lenp;

    while (len >= 3 * n) {
        uint64_t c0 = crc, c1 = 0, c2 = 0;

        for (size_t i = 0; i < n; i += 8) {
            uint64_t w0, w1, w2;

            memcpy(&w0, p + i, 8);
            memcpy(&w1, p + n + i, 8);
            memcpy(&w2, p + 2 * n + i, 8);
            c0 = __builtin_ia32_crc32di(c0, w0);
            c1 = __builtin_ia32_crc32di(c1, w1);
            c2 = __builtin_ia32_crc32di(c2, w2);
        }
        crc = advance(t, advance(t, (uint32_t)c0) ^ (uint32_t)c1) ^
              (uint32_t)c2;
        p += 3 * n;
        len -= 3 * n;
    }
    *pp = p;
    *lenp = len;
    return crc;
}

static uint32_t crc_sse42(uint32_t crc, const uint8_t *p, size_t len)
{
    if (len >= 3 * STRAND_SHORT) {
        if (!adv_short[0][1]) {
            advance_init(adv_long, STRAND_LONG);
            advance_init(adv_short, STRAND_SHORT);
        }
        crc = strands_sse42(crc, &p, &len, STRAND_LONG, adv_long);
        crc = strands_sse42(crc, &p, &len, STRAND_SHORT, adv_short);
    }
    return chain_sse42(crc, p, len);
}
#endif

bool e810_crc32c_hw(void)
{
#ifdef CRC32C_HAVE_HW
    if (!impl) {
        __builtin_cpu_init();
        impl = __builtin_cpu_supports("sse4.2") ? 2 : 1;
    }
    return impl == 2;
#else
    return false;
#endif
}

uint32_t e810_crc32c_update(uint32_t crc, const void *buf, size_t len)
{
#ifdef CRC32C_HAVE_HW
    if (e810_crc32c_hw()) {
        return crc_sse42(crc, buf, len);
    }
#endif
    return e810_crc32c_update_sw(crc, buf, len);
}
