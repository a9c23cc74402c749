/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 device core: the saved-state format (snapshots and migration).
 *
 * The core owns its format.  Each block writes its state into an
 * E810SnapW and reads it back from an E810SnapR; the QEMU glue ships the
 * bytes as one VMState buffer, and the unit tests and the loader's fuzz
 * target call the same functions without QEMU.
 *
 * The stream is little-endian and made of records:
 *
 *     [u16 id][u16 version][u32 length] payload
 *
 * Records come in a fixed order (e810_core_save); each must be read to
 * its last byte.  A stream is untrusted: every getter checks its bound and
 * the first failure sticks, with a message naming what was wrong
 * ("rdma.cq[17].head: 4096 not in [0, 4095]").  Flat structs are written
 * field by field through descriptor tables (E810SnapField), never as a
 * memory image: padding and layout are not a format.
 *
 * Services level: includes nothing but types.h, so any block may use it.
 */
#ifndef E810_SNAP_H
#define E810_SNAP_H

#include "types.h"

/* Format version of the whole stream (the header record). */
#define E810_SNAP_VERSION   1
/* Bound of a whole stream the loader accepts (the glue checks it before
 * allocating); the sized parts are also bounded by the core's mem_limit. */
#define E810_SNAP_MAX       (1ull << 30)

/* Record ids, in stream order. */
enum {
    E810_SNAP_HDR = 1,
    E810_SNAP_REGS,
    E810_SNAP_INTR,
    E810_SNAP_AQ,
    E810_SNAP_FW_CORE,
    E810_SNAP_FW_NVM,
    E810_SNAP_FW_DDP,
    E810_SNAP_FW_PHY,
    E810_SNAP_FW_SWITCH,
    E810_SNAP_FW_SCHED,
    E810_SNAP_LAN,
    E810_SNAP_TXSCHED,
    E810_SNAP_RDMA,
    E810_SNAP_PUDA,
    E810_SNAP_ENG,
    E810_SNAP_END,
};

typedef struct E810SnapW {
    uint8_t *buf;
    size_t len, cap;
} E810SnapW;

/* Shared by a reader and the readers of its records. */
typedef struct E810SnapErr {
    bool failed;
    char msg[256];
} E810SnapErr;

typedef struct E810SnapR {
    const uint8_t *p;
    size_t left;
    E810SnapErr *err;
} E810SnapR;

/* Writer: a growing buffer (g_realloc-like: aborts only on host OOM). */
void e810_snap_w_init(E810SnapW *w);
void e810_snap_w_free(E810SnapW *w);
void e810_snap_put_u8(E810SnapW *w, uint8_t v);
void e810_snap_put_u16(E810SnapW *w, uint16_t v);
void e810_snap_put_u32(E810SnapW *w, uint32_t v);
void e810_snap_put_u64(E810SnapW *w, uint64_t v);
void e810_snap_put_bytes(E810SnapW *w, const void *p, size_t n);
/* A record: begin returns a mark for end, which fills in the length. */
size_t e810_snap_begin(E810SnapW *w, uint16_t id, uint16_t ver);
void e810_snap_end(E810SnapW *w, size_t mark);

/* Reader over @len bytes; errors go to @err (cleared here). */
void e810_snap_r_init(E810SnapR *r, const void *buf, size_t len,
                      E810SnapErr *err);
/* Records the first failure (printf-style); always returns false. */
bool e810_snap_fail(E810SnapR *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline bool e810_snap_ok(const E810SnapR *r)
{
    return !r->err->failed;
}
/* Getters: false (and the error recorded) on a short read or a value
 * outside [lo, hi]; @what names the value in the message. */
bool e810_snap_get_u8(E810SnapR *r, uint8_t *v, const char *what);
bool e810_snap_get_u16(E810SnapR *r, uint16_t *v, const char *what);
bool e810_snap_get_u32(E810SnapR *r, uint32_t *v, const char *what);
bool e810_snap_get_u64(E810SnapR *r, uint64_t *v, const char *what);
bool e810_snap_get_range(E810SnapR *r, uint64_t *v, unsigned width,
                         uint64_t lo, uint64_t hi, const char *what);
bool e810_snap_get_bool(E810SnapR *r, bool *v, const char *what);
bool e810_snap_get_bytes(E810SnapR *r, void *p, size_t n, const char *what);
/* Opens the next record, which must be @id at version 1..@ver; @sub then
 * reads its payload and *got its version (may be NULL). */
bool e810_snap_open(E810SnapR *r, uint16_t id, uint16_t ver, E810SnapR *sub,
                    uint16_t *got);
/* Closes a record: its payload must have been read to the end. */
bool e810_snap_close(E810SnapR *sub, const char *what);

/*
 * Descriptor tables for flat structs.  A table lists fields of one struct
 * type; each is written with its own width (1, 2, 4 or 8 bytes), arrays
 * element by element, nested structs through their own table.  @since is
 * the record version a field appeared in: reading an older record leaves
 * such a field as it is (the caller's default).
 */
typedef enum E810SnapKind {
    E810_SF_END,
    E810_SF_U,          /* unsigned, [lo, hi] */
    E810_SF_S,          /* signed, [(int64_t)lo, (int64_t)hi] */
    E810_SF_BOOL,       /* 0 or 1 */
    E810_SF_BYTES,      /* raw bytes, unchecked */
    E810_SF_SUB,        /* a nested struct (sub table) */
} E810SnapKind;

typedef struct E810SnapField {
    const char *name;
    uint32_t off;           /* of the first element */
    uint32_t size;          /* of one element */
    uint32_t count;         /* elements (1 for a scalar) */
    uint8_t kind;
    uint16_t since;
    uint64_t lo, hi;
    const struct E810SnapField *sub;
} E810SnapField;

#define E810_SF_FSIZE(T, f)     sizeof(((T *)0)->f)
#define E810_SF_ESIZE(T, f)     sizeof(((T *)0)->f[0])
/* All ones in a field's width (no shift by 64: it would be undefined). */
#define E810_SF_ONES(size)      (~0ull >> (64 - 8 * (size)))
#define E810_SF_MAXU(T, f)      E810_SF_ONES(E810_SF_FSIZE(T, f))

/* Scalars */
#define SF_U(T, f, lo_, hi_) \
    { .name = #f, .off = offsetof(T, f), .size = E810_SF_FSIZE(T, f), \
      .count = 1, .kind = E810_SF_U, .since = 1, .lo = (lo_), .hi = (hi_) }
#define SF_UX(T, f)             SF_U(T, f, 0, E810_SF_MAXU(T, f))
/* An unsigned scalar added in record version @v (older records leave it). */
#define SF_UX_SINCE(T, f, v) \
    { .name = #f, .off = offsetof(T, f), .size = E810_SF_FSIZE(T, f), \
      .count = 1, .kind = E810_SF_U, .since = (v), \
      .lo = 0, .hi = E810_SF_MAXU(T, f) }
/* Bounded scalars and arrays added in record version @v. */
#define SF_U_SINCE(T, f, lo_, hi_, v) \
    { .name = #f, .off = offsetof(T, f), .size = E810_SF_FSIZE(T, f), \
      .count = 1, .kind = E810_SF_U, .since = (v), .lo = (lo_), .hi = (hi_) }
#define SF_UA_SINCE(T, f, lo_, hi_, v) \
    { .name = #f, .off = offsetof(T, f), .size = E810_SF_ESIZE(T, f), \
      .count = E810_SF_FSIZE(T, f) / E810_SF_ESIZE(T, f), \
      .kind = E810_SF_U, .since = (v), .lo = (lo_), .hi = (hi_) }
#define SF_S(T, f, lo_, hi_) \
    { .name = #f, .off = offsetof(T, f), .size = E810_SF_FSIZE(T, f), \
      .count = 1, .kind = E810_SF_S, .since = 1, \
      .lo = (uint64_t)(int64_t)(lo_), .hi = (uint64_t)(int64_t)(hi_) }
#define SF_BOOL(T, f) \
    { .name = #f, .off = offsetof(T, f), .size = E810_SF_FSIZE(T, f), \
      .count = 1, .kind = E810_SF_BOOL, .since = 1 }
#define SF_SUB(T, f, tab) \
    { .name = #f, .off = offsetof(T, f), .size = E810_SF_FSIZE(T, f), \
      .count = 1, .kind = E810_SF_SUB, .since = 1, .sub = (tab) }
/* Arrays */
#define SF_BYTES(T, f) \
    { .name = #f, .off = offsetof(T, f), .size = 1, \
      .count = E810_SF_FSIZE(T, f), .kind = E810_SF_BYTES, .since = 1 }
#define SF_UA(T, f, lo_, hi_) \
    { .name = #f, .off = offsetof(T, f), .size = E810_SF_ESIZE(T, f), \
      .count = E810_SF_FSIZE(T, f) / E810_SF_ESIZE(T, f), \
      .kind = E810_SF_U, .since = 1, .lo = (lo_), .hi = (hi_) }
#define SF_UAX(T, f)            SF_UA(T, f, 0, E810_SF_ONES(E810_SF_ESIZE(T, f)))
#define SF_BOOLA(T, f) \
    { .name = #f, .off = offsetof(T, f), .size = E810_SF_ESIZE(T, f), \
      .count = E810_SF_FSIZE(T, f) / E810_SF_ESIZE(T, f), \
      .kind = E810_SF_BOOL, .since = 1 }
#define SF_SUBA(T, f, tab) \
    { .name = #f, .off = offsetof(T, f), .size = E810_SF_ESIZE(T, f), \
      .count = E810_SF_FSIZE(T, f) / E810_SF_ESIZE(T, f), \
      .kind = E810_SF_SUB, .since = 1, .sub = (tab) }
#define SF_END  { .kind = E810_SF_END }

/* Writes @s's fields in table order. */
void e810_snap_put_fields(E810SnapW *w, const E810SnapField *t, const void *s);
/* Reads them into @s (fields newer than @ver are left alone); @path
 * prefixes the names in messages ("rdma.cq[3]"). */
bool e810_snap_get_fields(E810SnapR *r, const E810SnapField *t, void *s,
                          uint16_t ver, const char *path);

/*
 * Sparse tables: the live entries of an array, as [u32 count] then
 * (u32 index, fields) in ascending index.  On load the entries not in
 * the stream are left as they are (the caller reset them); indexes must
 * ascend and be below the table's size.  @each (may be NULL) checks or
 * completes one loaded entry.
 */
typedef bool E810SnapEach(E810SnapR *r, void *entry, uint32_t idx,
                          void *opaque);

/*
 * A sparse table of the E810Core, declared once in its block's .c file:
 *
 *     static const E810SnapTable lan_txq_table = {
 *         E810_SNAP_ARRAY("lan.txq", lan.txq, E810TxRing, lan_txq_fields,
 *                         gen),
 *         E810_SNAP_MAP(lan.txq_dirty, E810_LAN_DIRTY_CHUNK),
 *         .each = lan_txq_each,
 *     };
 *
 * An entry is live when its member at @live_off is not zero.  A load
 * marks an entry's chunk in the dirty map before it reads the entry (a
 * load that fails half-way leaves nothing the reset would miss), sets the
 * live member to 1 if the fields do not hold it (an entry in the stream
 * is a live one), then calls @each with the E810Core as its opaque.
 * snap.c sees the E810Core as bytes only: the table is offsets into it.
 */
typedef struct E810SnapTable {
    const char *name;               /* "fw.sw.vsi": prefix in messages */
    const E810SnapField *fields;    /* an entry's fields */
    uint32_t off;                   /* the array, or (indirect) its pointer */
    bool indirect;                  /* NULL pointer: the table has no entries */
    uint32_t stride, n;
    uint32_t live_off;
    uint8_t live_size;              /* 1, 2, 4 or 8 */
    uint32_t map_off;               /* its dirty map (chunk 0: none) */
    uint16_t chunk;
    E810SnapEach *each;
} E810SnapTable;

/* sizeof(T), refused at build time unless @x is a T. */
#define E810_SNAP_SIZEOF_AS(T, x) \
    sizeof(char[__builtin_types_compatible_p(T, __typeof__(x)) ? \
                (int)sizeof(T) : -1])
#define E810_SNAP_LIVE(T, live) \
    .live_off = offsetof(T, live), .live_size = E810_SF_FSIZE(T, live)
/* The array member @arr of the E810Core (may be nested, "fw.sw.vsi") of
 * T entries, described by @tab, live when their member @live is not 0. */
#define E810_SNAP_ARRAY(name_, arr, T, tab, live) \
    .name = (name_), .fields = (tab), .off = offsetof(E810Core, arr), \
    .stride = E810_SNAP_SIZEOF_AS(T, ((E810Core *)0)->arr[0]), \
    .n = sizeof(((E810Core *)0)->arr) / sizeof(T), E810_SNAP_LIVE(T, live)
/* The same for @n_ entries allocated elsewhere, at the pointer member
 * @ptr (NULL: no entries, as when the allocation failed). */
#define E810_SNAP_PTR(name_, ptr, n_, T, tab, live) \
    .name = (name_), .fields = (tab), .off = offsetof(E810Core, ptr), \
    .indirect = true, \
    .stride = E810_SNAP_SIZEOF_AS(T, ((E810Core *)0)->ptr[0]), .n = (n_), \
    E810_SNAP_LIVE(T, live)
/* Its dirty map (services.h, e810_dirty_mark): a save visits the marked
 * chunks only (the others are all zero, so none of them is live). */
#define E810_SNAP_MAP(map, chunk_) \
    .map_off = offsetof(E810Core, map), .chunk = (chunk_)

void e810_snap_put_table(E810Core *c, E810SnapW *w, const E810SnapTable *t);
bool e810_snap_get_table(E810Core *c, E810SnapR *r, uint16_t ver,
                         const E810SnapTable *t);
/* A table whose liveness is not a member of its entries (the PUDA's
 * queues and quads: of a valid QP): its save writes the format above
 * itself, this reads it into the @n entries at @base. */
bool e810_snap_get_sparse(E810SnapR *r, const E810SnapField *t, void *base,
                          size_t stride, uint32_t n, uint16_t ver,
                          const char *path, E810SnapEach *each, void *opaque);

/*
 * One item of a part (E810SnapPart.items): the fields of the struct at
 * @off in the E810Core, a sparse table, or @on_load, which a load calls
 * where it stands (a save passes it by) to prepare what follows, or to
 * check what precedes and rebuild what derives from it.
 */
typedef struct E810SnapItem {
    const E810SnapField *fields;
    uint32_t off;
    const E810SnapTable *table;
    bool (*on_load)(E810Core *c, E810SnapR *r);
} E810SnapItem;

/* The fields of the E810Core member @member ("fw.sw") in table @tab. */
#define E810_SNAP_FIELDS(member, tab) \
    { .fields = (tab), .off = offsetof(E810Core, member) }
#define E810_SNAP_ITEMS_END     { .fields = NULL }

/*
 * A part of a record: what one block saves.  Flat blocks give the struct
 * at @off in the E810Core, described by @fields, which
 * e810_snap_put_part / e810_snap_get_part write and read (then @check,
 * may be NULL, refuses values that are wrong together and rebuilds what
 * derives from them: timers to re-arm, derived fields).  Blocks of fields
 * and sparse tables give @items, in stream order (their messages name
 * the fields with @name).  The others (rings, state written only with
 * other state) give their own @save and @load.  A block declares its
 * part once, in its .c file, and its header names it (extern const
 * struct E810SnapPart).
 */
typedef struct E810SnapPart {
    const char *name;           /* prefix of the names in messages */
    size_t off;
    const E810SnapField *fields;
    bool (*check)(E810Core *c, E810SnapR *r);
    const E810SnapItem *items;  /* ends with E810_SNAP_ITEMS_END */
    void (*save)(E810Core *c, E810SnapW *w);
    bool (*load)(E810Core *c, E810SnapR *r, uint16_t ver);
} E810SnapPart;

/* A flat part: the E810Core member @member (may be nested, "fw.phy")
 * described by @table; @chk as @check. */
#define E810_SNAP_FLAT(name_, member, table, chk) \
    { .name = (name_), .off = offsetof(E810Core, member), \
      .fields = (table), .check = (chk) }

void e810_snap_put_part(E810Core *c, E810SnapW *w, const E810SnapPart *p);
/* false (and the error recorded, naming the part) if refused. */
bool e810_snap_get_part(E810Core *c, E810SnapR *r, uint16_t ver,
                        const E810SnapPart *p);

#endif
