/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Minimal TAP-producing test helpers for the core unit tests. */
#ifndef E810_CHECK_H
#define E810_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static int check_failed;
static int check_count;

#define CHECK(cond) do { \
    if (!(cond)) { \
        fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        check_failed++; \
    } \
} while (0)

#define CHECK_EQ(a, b) do { \
    uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b); \
    if (a_ != b_) { \
        fprintf(stderr, "%s:%d: %s == 0x%" PRIx64 ", expected %s == 0x%" PRIx64 "\n", \
                __FILE__, __LINE__, #a, a_, #b, b_); \
        check_failed++; \
    } \
} while (0)

/* Run one test function and print its TAP line. */
#define RUN(fn) do { \
    int before_ = check_failed; \
    fn(); \
    check_count++; \
    printf("%s %d - %s\n", check_failed == before_ ? "ok" : "not ok", \
           check_count, #fn); \
} while (0)

#define CHECK_DONE() (printf("1..%d\n", check_count), check_failed ? 1 : 0)

#endif
