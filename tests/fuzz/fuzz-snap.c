/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scenario snapshots and the core's arena for the fuzz targets
 * (fuzz-snap.h).
 */
#define _GNU_SOURCE
#include "fuzz-snap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#endif

#ifdef FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#define NO_ASAN __attribute__((no_sanitize_address))
#else
#define ASAN_POISON_MEMORY_REGION(a, n)     ((void)(a), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(a, n)   ((void)(a), (void)(n))
#define NO_ASAN
#endif

#define SNAP_MAX        16
/* Enough for the set-ups (about 7 MiB, most of it the register file) and
 * an input's allocations, which are never reused within the input. */
#define ARENA_SIZE      (240u << 20)
#define HDR             16u
#define CHUNK_MAGIC     0xF0221E57u
#define FREED_LOG       4096

typedef struct ChunkHdr {
    uint64_t size;
    uint32_t magic;
    uint32_t live;
} ChunkHdr;

/* In the mapping, right after guest RAM: restored with everything else. */
typedef struct SnapMeta {
    IfxState state;
    size_t bump;                /* next chunk's offset in the arena */
    size_t live_bytes;
    unsigned live_chunks;
} SnapMeta;

/* IfxState (a few MiB: the core's tables) and the arena's state. */
#define META_SIZE       ((sizeof(SnapMeta) + 0xFFFF) & ~(size_t)0xFFFF)
#define SNAP_SIZE       ((size_t)FAKE_MEM_SIZE + META_SIZE + ARENA_SIZE)

/* A chunk of the set-up's, as the snapshot holds it (its header is in
 * the arena; this copy outside it keeps an input from touching, so
 * copying on write, the header's page when it frees the chunk). */
typedef struct SnapChunk {
    size_t off;                 /* of the user bytes in the arena */
    size_t size;
    bool live;                  /* in the snapshot */
    uint32_t freed;             /* the input (epoch) that freed it */
} SnapChunk;

typedef struct Snap {
    uint8_t *base;              /* RAM, then SnapMeta, then the arena */
    int fd;
    size_t snap_bump;           /* the arena's end in the snapshot */
    SnapChunk *chunks;          /* ascending offsets */
    unsigned nchunks;
    uint32_t epoch;             /* inputs started from this snapshot */
    /* Chunks of the snapshot freed by the current input: live again
     * after the restore (ASan); all of them when the log overflowed. */
    unsigned freed[FREED_LOG];  /* indexes into chunks */
    unsigned nfreed;
    bool freed_overflow;
} Snap;

static Snap snaps[SNAP_MAX];
static Snap *cur;
static uint64_t alloc_total;
/* Allocations outside any arena (none expected): libc, freed at the next
 * restore, since nothing in the restored state can point at them. */
static void **fallback;
static size_t nfallback, fallback_cap;

static SnapMeta *meta(Snap *s)
{
    return (SnapMeta *)(s->base + FAKE_MEM_SIZE);
}

static uint8_t *arena(Snap *s)
{
    return s->base + FAKE_MEM_SIZE + META_SIZE;
}

static NO_ASAN ChunkHdr hdr_get(const uint8_t *user)
{
    return *(const ChunkHdr *)(user - HDR);
}

static NO_ASAN void hdr_set(uint8_t *user, uint64_t size, bool live)
{
    ChunkHdr *h = (ChunkHdr *)(user - HDR);

    h->size = size;
    h->magic = CHUNK_MAGIC;
    h->live = live;
}

static size_t round16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

void *fuzz_malloc(size_t n)
{
    SnapMeta *m;
    uint8_t *user;
    size_t need = HDR + round16(n ? n : 1);

    alloc_total += n;
    if (!cur || n > ARENA_SIZE / 2 ||
        need + HDR > ARENA_SIZE - meta(cur)->bump) {
        void *p = malloc(n ? n : 1);

        if (nfallback == fallback_cap) {
            fallback_cap = fallback_cap ? 2 * fallback_cap : 64;
            fallback = realloc(fallback, fallback_cap * sizeof(*fallback));
            if (!fallback) {
                abort();
            }
        }
        fallback[nfallback++] = p;
        return p;
    }
    m = meta(cur);
    user = arena(cur) + m->bump + HDR;
    hdr_set(user, n, true);
    /* Header before, the next header (and the rounding) after. */
    ASAN_POISON_MEMORY_REGION(user - HDR, HDR);
    ASAN_UNPOISON_MEMORY_REGION(user, n);
    ASAN_POISON_MEMORY_REGION(user + n, round16(n ? n : 1) - n + HDR);
    m->bump += need;
    m->live_bytes += n;
    m->live_chunks++;
    return user;
}

void *fuzz_calloc(size_t n, size_t size)
{
    void *p;

    if (size && n > SIZE_MAX / size) {
        return NULL;
    }
    p = fuzz_malloc(n * size);
    if (p) {
        memset(p, 0, n * size);
    }
    return p;
}

/* The set-up's chunk whose user bytes start at @p, or NULL. */
static SnapChunk *snap_chunk(Snap *s, const void *p)
{
    size_t off = (const uint8_t *)p - arena(s);
    unsigned lo = 0, hi = s->nchunks;

    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;

        if (s->chunks[mid].off < off) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < s->nchunks && s->chunks[lo].off == off ? &s->chunks[lo]
                                                       : NULL;
}

static bool in_arena(Snap *s, const void *p)
{
    return s && (const uint8_t *)p >= arena(s) &&
           (const uint8_t *)p < arena(s) + ARENA_SIZE;
}

void fuzz_free(void *p)
{
    SnapMeta *m;
    ChunkHdr h;

    if (!p) {
        return;
    }
    if (!in_arena(cur, p)) {
        for (size_t i = 0; i < nfallback; i++) {
            if (fallback[i] == p) {
                fallback[i] = fallback[--nfallback];
                free(p);
                return;
            }
        }
        fprintf(stderr, "fuzz: core freed %p, not from the arena\n", p);
        abort();
    }
    if ((size_t)((uint8_t *)p - arena(cur)) < cur->snap_bump) {
        SnapChunk *k = snap_chunk(cur, p);

        if (!k || !k->live || k->freed == cur->epoch) {
            fprintf(stderr, "fuzz: core freed %p twice or not a chunk\n", p);
            abort();
        }
        k->freed = cur->epoch;
        ASAN_POISON_MEMORY_REGION(p, k->size);
        m = meta(cur);
        m->live_bytes -= k->size;
        m->live_chunks--;
        if (cur->nfreed < FREED_LOG) {
            cur->freed[cur->nfreed++] = k - cur->chunks;
        } else {
            cur->freed_overflow = true;
        }
        return;
    }
    h = hdr_get(p);
    if (h.magic != CHUNK_MAGIC || !h.live) {
        fprintf(stderr, "fuzz: core freed %p twice or not a chunk\n", p);
        abort();
    }
    hdr_set(p, h.size, false);
    ASAN_POISON_MEMORY_REGION(p, h.size);
    m = meta(cur);
    m->live_bytes -= h.size;
    m->live_chunks--;
}

void *fuzz_realloc(void *p, size_t n)
{
    void *q;
    size_t old;

    if (!p) {
        return fuzz_malloc(n);
    }
    if (!in_arena(cur, p)) {
        /* A fallback chunk: keep it one. */
        for (size_t i = 0; i < nfallback; i++) {
            if (fallback[i] == p) {
                q = realloc(p, n ? n : 1);
                if (q) {
                    fallback[i] = q;
                }
                return q;
            }
        }
        abort();
    }
    if ((size_t)((uint8_t *)p - arena(cur)) < cur->snap_bump) {
        SnapChunk *k = snap_chunk(cur, p);

        old = k ? k->size : 0;      /* fuzz_free aborts on a non-chunk */
    } else {
        old = hdr_get(p).size;
    }
    q = fuzz_malloc(n);
    if (q) {
        memcpy(q, p, old < n ? old : n);
        fuzz_free(p);
    }
    return q;
}

uint64_t fuzz_alloc_total(void)
{
    return alloc_total;
}

unsigned fuzz_arena_live(size_t *bytes)
{
    if (!cur) {
        *bytes = 0;
        return (unsigned)nfallback;
    }
    *bytes = meta(cur)->live_bytes;
    return meta(cur)->live_chunks + (unsigned)nfallback;
}

bool fuzz_snap_disabled(void)
{
    static int off = -1;

    if (off < 0) {
        off = getenv("E810_FUZZ_NO_SNAPSHOT") != NULL;
    }
    return off;
}

static void fallback_free_all(void)
{
    for (size_t i = 0; i < nfallback; i++) {
        free(fallback[i]);
    }
    nfallback = 0;
}

/* ASan's view of the arena back to the snapshot's (its contents come
 * back with the pages). */
static NO_ASAN void repoison(Snap *s, size_t end)
{
    uint8_t *a = arena(s);

    if (end > s->snap_bump) {
        ASAN_POISON_MEMORY_REGION(a + s->snap_bump, end - s->snap_bump + HDR);
    }
    if (s->freed_overflow) {
        for (unsigned i = 0; i < s->nchunks; i++) {
            if (s->chunks[i].live) {
                ASAN_UNPOISON_MEMORY_REGION(a + s->chunks[i].off,
                                            s->chunks[i].size);
            }
        }
    } else {
        for (unsigned i = 0; i < s->nfreed; i++) {
            const SnapChunk *k = &s->chunks[s->freed[i]];

            ASAN_UNPOISON_MEMORY_REGION(a + k->off, k->size);
        }
    }
    s->nfreed = 0;
    s->freed_overflow = false;
}

static void snap_drop(Snap *s)
{
    if (s->base) {
        ASAN_UNPOISON_MEMORY_REGION(arena(s), ARENA_SIZE);
        munmap(s->base, SNAP_SIZE);
        close(s->fd);
    }
    free(s->chunks);
    memset(s, 0, sizeof(*s));
}

/* The set-up's chunks, from their headers (fuzz_free, repoison). */
static NO_ASAN void snap_chunks(Snap *s)
{
    uint8_t *a = arena(s);
    unsigned n = 0;

    for (size_t off = 0; off < s->snap_bump; n++) {
        off += HDR + round16(hdr_get(a + off + HDR).size ?
                             hdr_get(a + off + HDR).size : 1);
    }
    s->chunks = calloc(n ? n : 1, sizeof(*s->chunks));
    if (!s->chunks) {
        abort();
    }
    s->nchunks = n;
    n = 0;
    for (size_t off = 0; off < s->snap_bump; n++) {
        ChunkHdr h = hdr_get(a + off + HDR);

        s->chunks[n].off = off + HDR;
        s->chunks[n].size = h.size;
        s->chunks[n].live = h.live;
        off += HDR + round16(h.size ? h.size : 1);
    }
}

static void snap_build(Snap *s, const IfxState *tmpl, FuzzBuildFn *build,
                       void *opaque)
{
    s->fd = memfd_create("e810-fuzz-snap", 0);
    if (s->fd < 0 || ftruncate(s->fd, SNAP_SIZE)) {
        perror("fuzz: memfd");
        abort();
    }
    s->base = mmap(NULL, SNAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
                   s->fd, 0);
    if (s->base == MAP_FAILED) {
        perror("fuzz: mmap");
        abort();
    }
    cur = s;
    meta(s)->state = *tmpl;
    ifx_cur = &meta(s)->state;
    fake_host_set_ram(s->base);
    build((unsigned)(s - snaps), opaque);
    fake_host_set_ram(NULL);
    s->snap_bump = meta(s)->bump;
    s->nfreed = 0;
    s->freed_overflow = false;
    snap_chunks(s);
    s->epoch = 1;
    /* The file holds the set-up; from now on writes are the input's. */
    if (mmap(s->base, SNAP_SIZE, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_FIXED, s->fd, 0) == MAP_FAILED) {
        perror("fuzz: mmap private");
        abort();
    }
}

void fuzz_snap_begin(unsigned id, const IfxState *tmpl, FuzzBuildFn *build,
                     void *opaque)
{
    Snap *s = &snaps[id % SNAP_MAX];

    fallback_free_all();
    if (s->base && fuzz_snap_disabled()) {
        snap_drop(s);
    }
    if (!s->base) {
        snap_build(s, tmpl, build, opaque);
        return;
    }
    cur = s;
    {
        size_t end = meta(s)->bump < ARENA_SIZE ? meta(s)->bump : ARENA_SIZE;
        /* The snapshot's pages, up to the page with its arena's end. */
        size_t keep = (FAKE_MEM_SIZE + META_SIZE + s->snap_bump + 4095) &
                      ~(size_t)4095;
        size_t used = FAKE_MEM_SIZE + META_SIZE + end;

        if (madvise(s->base, keep, MADV_DONTNEED)) {
            perror("fuzz: madvise");
            abort();
        }
        /*
         * Past them the input's own allocations, on pages that were
         * zero (a hole of the file): zeroed again rather than dropped,
         * so they stay mapped for the next input (an input looping
         * frames back allocates megabytes; dropped, every page of them
         * cost a fault and a zeroing by the kernel in each input).
         */
        if (used > keep) {
            ASAN_UNPOISON_MEMORY_REGION(s->base + keep, used - keep);
            memset(s->base + keep, 0, used - keep);
        }
        repoison(s, end);
        s->epoch++;             /* the chunks it freed are live again */
    }
    ifx_cur = &meta(s)->state;
}
