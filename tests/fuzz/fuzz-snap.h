/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Snapshots for the fuzz targets: a scenario is set up once and every
 * input starts from a copy of it, instead of rebuilding it (clearing
 * 16 MiB of guest RAM, a 6 MiB register file, dozens of CQP operations
 * and handshakes per input).
 *
 * A scenario lives in one mapping of a memfd: guest RAM, the IfxState
 * (fake host and device core) and an arena that every core allocation
 * comes from (fuzz-alloc.h).  The set-up writes the file through a
 * shared mapping; then the same range is mapped private, so an input's
 * writes are copy-on-write pages and restoring is MADV_DONTNEED: the
 * kernel tracks the dirty pages, only those cost anything.
 *
 * The arena never reuses memory within an input, so under ASan a freed
 * chunk stays poisoned (use after free is found, whatever the delay)
 * and every chunk has poisoned redzones (a chunk header) on both sides.
 * Leaks: the targets free the device at the end of every input
 * (e810_core_cleanup) and fuzz_arena_live() must then be 0; LeakSanitizer
 * still sees everything else (the harness, the fake host).
 */
#ifndef E810_FUZZ_SNAP_H
#define E810_FUZZ_SNAP_H

#include "iwarp-fixture.h"

typedef void FuzzBuildFn(unsigned id, void *opaque);

/* Point ifx_cur at scenario @id in the state its set-up left: on first
 * use @build sets it up (ifx_cur already points at a zeroed IfxState in
 * the scenario's mapping, with the MAC/IP of @tmpl). */
void fuzz_snap_begin(unsigned id, const IfxState *tmpl, FuzzBuildFn *build,
                     void *opaque);
/* Without snapshots (E810_FUZZ_NO_SNAPSHOT set): fresh set-up per input. */
bool fuzz_snap_disabled(void);

/* Core heap accounting: bytes allocated since the process started, and
 * chunks (and bytes) allocated and not freed. */
uint64_t fuzz_alloc_total(void);
unsigned fuzz_arena_live(size_t *bytes);

#endif
