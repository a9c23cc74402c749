/* SPDX-License-Identifier: GPL-2.0-or-later */
/* E810 device core: the saved-state format (see snap.h). */
#include "qemu/osdep.h"
#include "snap.h"

void e810_snap_w_init(E810SnapW *w)
{
    memset(w, 0, sizeof(*w));
}

void e810_snap_w_free(E810SnapW *w)
{
    free(w->buf);
    memset(w, 0, sizeof(*w));
}

static uint8_t *w_room(E810SnapW *w, size_t n)
{
    if (w->len + n > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;

        while (cap < w->len + n) {
            cap *= 2;
        }
        w->buf = realloc(w->buf, cap);
        if (!w->buf) {
            abort();            /* host out of memory, as g_realloc */
        }
        w->cap = cap;
    }
    w->len += n;
    return w->buf + w->len - n;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SNAP_HOST_LE 1
#else
#define SNAP_HOST_LE 0
#endif

/*
 * Little-endian host: @n (1, 2, 4 or 8) bytes stored or loaded with a
 * fixed-size copy each, a plain move (a copy of variable size is a call,
 * and under ASan an interceptor per saved or loaded integer).
 */
static inline void host_store(uint8_t *p, uint64_t v, unsigned n)
{
    switch (n) {
    case 1: { uint8_t x = v; memcpy(p, &x, 1); break; }
    case 2: { uint16_t x = v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = v; memcpy(p, &x, 4); break; }
    case 8: memcpy(p, &v, 8); break;
    default: memcpy(p, &v, n); break;
    }
}

static inline uint64_t host_load(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

    switch (n) {
    case 1: { uint8_t x; memcpy(&x, p, 1); return x; }
    case 2: { uint16_t x; memcpy(&x, p, 2); return x; }
    case 4: { uint32_t x; memcpy(&x, p, 4); return x; }
    case 8: memcpy(&v, p, 8); return v;
    default: memcpy(&v, p, n); return v;
    }
}

static void put_le(E810SnapW *w, uint64_t v, unsigned n)
{
    uint8_t *p = w_room(w, n);

    if (SNAP_HOST_LE) {
        host_store(p, v, n);
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        p[i] = v >> (8 * i);
    }
}

void e810_snap_put_u8(E810SnapW *w, uint8_t v)   { put_le(w, v, 1); }
void e810_snap_put_u16(E810SnapW *w, uint16_t v) { put_le(w, v, 2); }
void e810_snap_put_u32(E810SnapW *w, uint32_t v) { put_le(w, v, 4); }
void e810_snap_put_u64(E810SnapW *w, uint64_t v) { put_le(w, v, 8); }

void e810_snap_put_bytes(E810SnapW *w, const void *p, size_t n)
{
    if (n) {
        memcpy(w_room(w, n), p, n);
    }
}

size_t e810_snap_begin(E810SnapW *w, uint16_t id, uint16_t ver)
{
    e810_snap_put_u16(w, id);
    e810_snap_put_u16(w, ver);
    e810_snap_put_u32(w, 0);
    return w->len;
}

void e810_snap_end(E810SnapW *w, size_t mark)
{
    uint32_t n = w->len - mark;

    for (unsigned i = 0; i < 4; i++) {
        w->buf[mark - 4 + i] = n >> (8 * i);
    }
}

void e810_snap_r_init(E810SnapR *r, const void *buf, size_t len,
                      E810SnapErr *err)
{
    r->p = buf;
    r->left = len;
    r->err = err;
    err->failed = false;
    err->msg[0] = 0;
}

bool e810_snap_fail(E810SnapR *r, const char *fmt, ...)
{
    va_list ap;

    if (!r->err->failed) {
        r->err->failed = true;
        va_start(ap, fmt);
        vsnprintf(r->err->msg, sizeof(r->err->msg), fmt, ap);
        va_end(ap);
    }
    r->left = 0;
    return false;
}

static bool get_le(E810SnapR *r, uint64_t *v, unsigned n, const char *what)
{
    uint64_t x = 0;

    *v = 0;                     /* defined on failure too */
    if (r->err->failed) {
        return false;
    }
    if (r->left < n) {
        return e810_snap_fail(r, "%s: truncated", what);
    }
    if (SNAP_HOST_LE) {
        x = host_load(r->p, n);
    } else {
        for (unsigned i = 0; i < n; i++) {
            x |= (uint64_t)r->p[i] << (8 * i);
        }
    }
    r->p += n;
    r->left -= n;
    *v = x;
    return true;
}

/* The getters below 64 bits: read into a u64, then narrowed (*v is left
 * as it was on failure). */
#define SNAP_GET_NARROW(bits)                                               \
    bool e810_snap_get_u##bits(E810SnapR *r, uint##bits##_t *v,           \
                               const char *what)                          \
    {                                                                       \
        uint64_t x;                                                         \
                                                                            \
        if (!get_le(r, &x, (bits) / 8, what)) {                             \
            return false;                                                   \
        }                                                                   \
        *v = x;                                                             \
        return true;                                                        \
    }

SNAP_GET_NARROW(8)
SNAP_GET_NARROW(16)
SNAP_GET_NARROW(32)

bool e810_snap_get_u64(E810SnapR *r, uint64_t *v, const char *what)
{
    return get_le(r, v, 8, what);
}

bool e810_snap_get_range(E810SnapR *r, uint64_t *v, unsigned width,
                         uint64_t lo, uint64_t hi, const char *what)
{
    if (!get_le(r, v, width, what)) {
        return false;
    }
    if (*v < lo || *v > hi) {
        return e810_snap_fail(r, "%s: %" PRIu64 " not in [%" PRIu64 ", %"
                              PRIu64 "]", what, *v, lo, hi);
    }
    return true;
}

bool e810_snap_get_bool(E810SnapR *r, bool *v, const char *what)
{
    uint64_t x;

    if (!e810_snap_get_range(r, &x, 1, 0, 1, what)) {
        return false;
    }
    *v = x;
    return true;
}

bool e810_snap_get_bytes(E810SnapR *r, void *p, size_t n, const char *what)
{
    if (r->err->failed) {
        return false;
    }
    if (r->left < n) {
        return e810_snap_fail(r, "%s: truncated", what);
    }
    if (n) {
        memcpy(p, r->p, n);
    }
    r->p += n;
    r->left -= n;
    return true;
}

bool e810_snap_open(E810SnapR *r, uint16_t id, uint16_t ver, E810SnapR *sub,
                    uint16_t *got)
{
    uint64_t rid, rver, len;

    sub->p = NULL;
    sub->left = 0;
    sub->err = r->err;
    if (!get_le(r, &rid, 2, "record id") ||
        !get_le(r, &rver, 2, "record version") ||
        !get_le(r, &len, 4, "record length")) {
        return false;
    }
    if (rid != id) {
        return e810_snap_fail(r, "record %u where record %u belongs",
                              (unsigned)rid, id);
    }
    if (rver < 1 || rver > ver) {
        return e810_snap_fail(r, "record %u: version %u (this device "
                              "reads 1 to %u)", id, (unsigned)rver, ver);
    }
    if (len > r->left) {
        return e810_snap_fail(r, "record %u: length %" PRIu64 " beyond the "
                              "%zu bytes left", id, len, r->left);
    }
    sub->p = r->p;
    sub->left = len;
    r->p += len;
    r->left -= len;
    if (got) {
        *got = rver;
    }
    return true;
}

bool e810_snap_close(E810SnapR *sub, const char *what)
{
    if (sub->err->failed) {
        return false;
    }
    if (sub->left) {
        return e810_snap_fail(sub, "%s: %zu bytes left over", what,
                              sub->left);
    }
    return true;
}

/* ------------------------------------------------------------ tables */

static uint64_t mem_get(const uint8_t *p, unsigned size, bool sign)
{
    switch (size) {
    case 1: {
        uint8_t v;
        memcpy(&v, p, 1);
        return sign ? (uint64_t)(int64_t)(int8_t)v : v;
    }
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return sign ? (uint64_t)(int64_t)(int16_t)v : v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return sign ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

static void mem_put(uint8_t *p, unsigned size, uint64_t v)
{
    switch (size) {
    case 1: {
        uint8_t x = v;
        memcpy(p, &x, 1);
        break;
    }
    case 2: {
        uint16_t x = v;
        memcpy(p, &x, 2);
        break;
    }
    case 4: {
        uint32_t x = v;
        memcpy(p, &x, 4);
        break;
    }
    default:
        memcpy(p, &v, 8);
        break;
    }
}

void e810_snap_put_fields(E810SnapW *w, const E810SnapField *t, const void *s)
{
    const uint8_t *b = s;

    for (; t->kind != E810_SF_END; t++) {
        if (SNAP_HOST_LE && (t->kind == E810_SF_U || t->kind == E810_SF_S)) {
            /* integers are stored little-endian: the array as it is */
            e810_snap_put_bytes(w, b + t->off, (size_t)t->count * t->size);
            continue;
        }
        if (t->kind == E810_SF_BYTES) {
            /* the elements' bytes one after the other: at once */
            e810_snap_put_bytes(w, b + t->off, (size_t)t->count * t->size);
            continue;
        }
        for (uint32_t i = 0; i < t->count; i++) {
            const uint8_t *p = b + t->off + (size_t)i * t->size;

            switch (t->kind) {
            case E810_SF_BYTES:
                e810_snap_put_bytes(w, p, t->size);
                break;
            case E810_SF_SUB:
                e810_snap_put_fields(w, t->sub, p);
                break;
            case E810_SF_BOOL:
                e810_snap_put_u8(w, *(const bool *)p);
                break;
            default:
                put_le(w, mem_get(p, t->size, false), t->size);
                break;
            }
        }
    }
}

/* The name of element @i of field @t under @path, for a message. */
static void field_name(char *buf, size_t n, const char *path,
                       const E810SnapField *t, uint32_t i)
{
    if (t->count > 1) {
        snprintf(buf, n, "%s.%s[%u]", path, t->name, i);
    } else {
        snprintf(buf, n, "%s.%s", path, t->name);
    }
}

/*
 * One element.  Names are formatted only for a message or a nested
 * table: a load reads hundreds of thousands of fields and must not print
 * each one's name.
 */
static bool get_one(E810SnapR *r, const E810SnapField *t, uint8_t *p,
                    uint16_t ver, const char *path, uint32_t i)
{
    char name[160];
    uint64_t v;

    if (r->err->failed) {
        return false;
    }
    switch (t->kind) {
    case E810_SF_BYTES:
        if (r->left < t->size) {
            break;
        }
        memcpy(p, r->p, t->size);
        r->p += t->size;
        r->left -= t->size;
        return true;
    case E810_SF_SUB:
        field_name(name, sizeof(name), path, t, i);
        return e810_snap_get_fields(r, t->sub, p, ver, name);
    default:
        if (r->left < t->size) {
            break;
        }
        v = 0;
        if (SNAP_HOST_LE) {
            v = host_load(r->p, t->size);
        } else {
            for (unsigned k = 0; k < t->size; k++) {
                v |= (uint64_t)r->p[k] << (8 * k);
            }
        }
        r->p += t->size;
        r->left -= t->size;
        if (t->kind == E810_SF_BOOL) {
            if (v > 1) {
                field_name(name, sizeof(name), path, t, i);
                return e810_snap_fail(r, "%s: %" PRIu64 " not in [0, 1]",
                                      name, v);
            }
            *(bool *)p = v;
            return true;
        }
        if (t->kind == E810_SF_S) {
            v = mem_get((const uint8_t *)&v, t->size, true);
            if ((int64_t)v < (int64_t)t->lo || (int64_t)v > (int64_t)t->hi) {
                field_name(name, sizeof(name), path, t, i);
                return e810_snap_fail(r, "%s: %" PRId64 " not in [%" PRId64
                                      ", %" PRId64 "]", name, (int64_t)v,
                                      (int64_t)t->lo, (int64_t)t->hi);
            }
        } else if (v < t->lo || v > t->hi) {
            field_name(name, sizeof(name), path, t, i);
            return e810_snap_fail(r, "%s: %" PRIu64 " not in [%" PRIu64
                                  ", %" PRIu64 "]", name, v, t->lo, t->hi);
        }
        mem_put(p, t->size, v);
        return true;
    }
    field_name(name, sizeof(name), path, t, i);
    return e810_snap_fail(r, "%s: truncated", name);
}

bool e810_snap_get_fields(E810SnapR *r, const E810SnapField *t, void *s,
                          uint16_t ver, const char *path)
{
    uint8_t *b = s;

    for (; t->kind != E810_SF_END; t++) {
        if (t->since > ver) {
            continue;
        }
        if (SNAP_HOST_LE && t->kind == E810_SF_U && t->count > 1 &&
            t->lo == 0 && t->hi == E810_SF_ONES(t->size)) {
            /* an unbounded array: nothing to check, copied as it is */
            size_t n = (size_t)t->count * t->size;

            if (r->err->failed) {
                return false;
            }
            if (r->left < n) {
                char name[160];

                field_name(name, sizeof(name), path, t, 0);
                return e810_snap_fail(r, "%s: truncated", name);
            }
            memcpy(b + t->off, r->p, n);
            r->p += n;
            r->left -= n;
            continue;
        }
        if (t->kind == E810_SF_BYTES && !r->err->failed &&
            r->left >= (size_t)t->count * t->size) {
            /* bytes, unchecked: at once (element by element below only
             * to name the element a truncated stream ends in) */
            size_t n = (size_t)t->count * t->size;

            memcpy(b + t->off, r->p, n);
            r->p += n;
            r->left -= n;
            continue;
        }
        for (uint32_t i = 0; i < t->count; i++) {
            if (!get_one(r, t, b + t->off + (size_t)i * t->size, ver, path,
                         i)) {
                return false;
            }
        }
    }
    return e810_snap_ok(r);
}

/* ---- sparse tables ---------------------------------------------------- */

/* The table's entries (NULL: none), its map (NULL: none), in the core. */
static uint8_t *table_base(E810Core *c, const E810SnapTable *t)
{
    uint8_t *p = (uint8_t *)c + t->off;
    void *arr;

    if (t->indirect) {
        /* the member is a pointer to the array */
        memcpy(&arr, p, sizeof(arr));
        return arr;
    }
    return p;
}

static uint64_t *table_map(E810Core *c, const E810SnapTable *t)
{
    return t->chunk ? (uint64_t *)((uint8_t *)c + t->map_off) : NULL;
}

/* The live entries among [first, end), each as its index and fields;
 * *cnt counts them. */
static void put_live(E810SnapW *w, const E810SnapTable *t, const uint8_t *b,
                     uint32_t first, uint32_t end, uint32_t *cnt)
{
    for (uint32_t i = first; i < end; i++) {
        const uint8_t *e = b + (size_t)i * t->stride;

        if (mem_get(e + t->live_off, t->live_size, false)) {
            e810_snap_put_u32(w, i);
            e810_snap_put_fields(w, t->fields, e);
            (*cnt)++;
        }
    }
}

void e810_snap_put_table(E810Core *c, E810SnapW *w, const E810SnapTable *t)
{
    const uint8_t *b = table_base(c, t);
    const uint64_t *map = table_map(c, t);
    uint32_t n = b ? t->n : 0, cnt = 0;
    size_t at = w->len;

    e810_snap_put_u32(w, 0);            /* the count, filled in below */
    if (!map) {
        put_live(w, t, b, 0, n, &cnt);
    } else {
        for (uint32_t w0 = 0; (uint64_t)w0 * 64 * t->chunk < n; w0++) {
            for (uint64_t m = map[w0]; m; m &= m - 1) {
                uint32_t first = (w0 * 64 + (uint32_t)__builtin_ctzll(m)) *
                                 t->chunk;
                uint32_t end = first + t->chunk < n ? first + t->chunk : n;

                put_live(w, t, b, first, end, &cnt);
            }
        }
    }
    for (unsigned k = 0; k < 4; k++) {
        w->buf[at + k] = cnt >> (8 * k);
    }
}

/*
 * The entries of table @t in the stream, into the @n at @b: each one's
 * chunk marked in @map first (may be NULL), its live member set after
 * its fields if @set_live, then @t->each called with @opaque.
 */
static bool get_entries(E810SnapR *r, const E810SnapTable *t, uint8_t *b,
                        uint32_t n, uint64_t *map, bool set_live,
                        uint16_t ver, void *opaque)
{
    uint64_t cnt, idx;
    int64_t prev = -1;
    char name[96], entry[96];

    snprintf(name, sizeof(name), "%s.count", t->name);
    if (!e810_snap_get_range(r, &cnt, 4, 0, n, name)) {
        return false;
    }
    snprintf(name, sizeof(name), "%s.index", t->name);
    for (uint64_t k = 0; k < cnt; k++) {
        uint8_t *e;

        if (!e810_snap_get_range(r, &idx, 4, prev + 1, n - 1, name)) {
            return false;
        }
        prev = idx;
        e = b + idx * t->stride;
        if (map) {
            /* as e810_dirty_mark (services.h) */
            uint32_t ch = idx / t->chunk;

            map[ch / 64] |= 1ull << (ch % 64);
        }
        snprintf(entry, sizeof(entry), "%s[%u]", t->name, (unsigned)idx);
        if (!e810_snap_get_fields(r, t->fields, e, ver, entry)) {
            return false;
        }
        if (set_live) {
            mem_put(e + t->live_off, t->live_size, 1);
        }
        if (t->each && !t->each(r, e, idx, opaque)) {
            return e810_snap_fail(r, "%s", entry);  /* keeps a first error */
        }
    }
    return e810_snap_ok(r);
}

bool e810_snap_get_sparse(E810SnapR *r, const E810SnapField *t, void *base,
                          size_t stride, uint32_t n, uint16_t ver,
                          const char *path, E810SnapEach *each, void *opaque)
{
    const E810SnapTable tab = {
        .name = path, .fields = t, .stride = stride, .n = n, .each = each,
    };

    return get_entries(r, &tab, base, n, NULL, false, ver, opaque);
}

/* Whether the fields of @ver hold the bytes at @off. */
static bool fields_hold(const E810SnapField *f, uint32_t off, uint16_t ver)
{
    for (; f->kind != E810_SF_END; f++) {
        if (f->since <= ver && off >= f->off &&
            off < f->off + (uint64_t)f->size * f->count) {
            return true;
        }
    }
    return false;
}

bool e810_snap_get_table(E810Core *c, E810SnapR *r, uint16_t ver,
                         const E810SnapTable *t)
{
    uint8_t *b = table_base(c, t);

    return get_entries(r, t, b, b ? t->n : 0, table_map(c, t),
                       !fields_hold(t->fields, t->live_off, ver), ver, c);
}

/* ---- parts -------------------------------------------------------------- */

void e810_snap_put_part(E810Core *c, E810SnapW *w, const E810SnapPart *p)
{
    if (p->fields) {
        e810_snap_put_fields(w, p->fields, (uint8_t *)c + p->off);
        return;
    }
    if (!p->items) {
        p->save(c, w);
        return;
    }
    for (const E810SnapItem *it = p->items;
         it->fields || it->table || it->on_load; it++) {
        if (it->fields) {
            e810_snap_put_fields(w, it->fields, (uint8_t *)c + it->off);
        } else if (it->table) {
            e810_snap_put_table(c, w, it->table);
        }
    }
}

static bool get_items(E810Core *c, E810SnapR *r, uint16_t ver,
                      const E810SnapPart *p)
{
    for (const E810SnapItem *it = p->items;
         it->fields || it->table || it->on_load; it++) {
        bool ok;

        if (it->fields) {
            ok = e810_snap_get_fields(r, it->fields, (uint8_t *)c + it->off,
                                      ver, p->name);
        } else if (it->table) {
            ok = e810_snap_get_table(c, r, ver, it->table);
        } else {
            ok = it->on_load(c, r);
        }
        if (!ok) {
            return false;
        }
    }
    return true;
}

bool e810_snap_get_part(E810Core *c, E810SnapR *r, uint16_t ver,
                        const E810SnapPart *p)
{
    bool ok;

    if (p->fields) {
        ok = e810_snap_get_fields(r, p->fields, (uint8_t *)c + p->off, ver,
                                  p->name) &&
             (!p->check || p->check(c, r));
    } else if (p->items) {
        ok = get_items(c, r, ver, p);
    } else {
        ok = p->load(c, r, ver);
    }
    if (!ok && !r->err->failed) {
        /* a part that refused without a message still names itself */
        return e810_snap_fail(r, "%s: refused", p->name);
    }
    return ok;
}
