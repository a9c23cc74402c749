/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Forced into every core source of the fuzz builds (tests/fuzz/
 * meson.build): the core's heap goes to the snapshot arena (fuzz-snap.c),
 * so a set-up can be kept and restored instead of rebuilt per input.
 * The system headers come first, so their declarations stay untouched.
 */
#ifndef E810_FUZZ_ALLOC_H
#define E810_FUZZ_ALLOC_H

#include <stdlib.h>
#include <string.h>

void *fuzz_malloc(size_t n);
void *fuzz_calloc(size_t n, size_t size);
void *fuzz_realloc(void *p, size_t n);
void fuzz_free(void *p);

#define malloc(n)           fuzz_malloc(n)
#define calloc(n, size)     fuzz_calloc(n, size)
#define realloc(p, n)       fuzz_realloc(p, n)
#define free(p)             fuzz_free(p)

#endif
