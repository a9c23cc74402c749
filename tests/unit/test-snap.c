/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Saved-state format (snap.h) and the whole-device save/load frame. */
#include "core-fixture.h"
#include "check.h"
#include "snap.h"
#include "regs.h"

typedef struct Rec {
    uint8_t a;
    uint16_t b;
    uint32_t c;
    uint64_t d;
    int64_t e;
    bool f;
    uint8_t raw[5];
    uint16_t arr[3];
    struct { uint32_t x; bool y; } sub[2];
} Rec;

typedef struct RecSub {
    uint32_t x;
    bool y;
} RecSub;

static const E810SnapField rec_sub_fields[] = {
    { .name = "x", .off = 0, .size = 4, .count = 1, .kind = E810_SF_U,
      .since = 1, .lo = 0, .hi = 100 },
    { .name = "y", .off = 4, .size = 1, .count = 1, .kind = E810_SF_BOOL,
      .since = 1 },
    SF_END
};

static const E810SnapField rec_fields[] = {
    SF_UX(Rec, a),
    SF_U(Rec, b, 0, 1000),
    SF_UX(Rec, c),
    SF_UX(Rec, d),
    SF_S(Rec, e, -1, INT64_MAX),
    SF_BOOL(Rec, f),
    SF_BYTES(Rec, raw),
    SF_UA(Rec, arr, 0, 9),
    SF_SUBA(Rec, sub, rec_sub_fields),
    SF_END
};

static const Rec sample = {
    .a = 0xAB, .b = 999, .c = 0xDEADBEEF, .d = 0x0123456789ABCDEFull,
    .e = -1, .f = true, .raw = { 1, 2, 3, 4, 5 }, .arr = { 9, 0, 7 },
    .sub = { { 100, true }, { 3, false } },
};

static void write_sample(E810SnapW *w)
{
    size_t m;

    e810_snap_w_init(w);
    m = e810_snap_begin(w, 7, 2);
    e810_snap_put_fields(w, rec_fields, &sample);
    e810_snap_end(w, m);
}

static bool read_sample(const uint8_t *buf, size_t len, Rec *out,
                        E810SnapErr *e)
{
    E810SnapR r, sub;
    uint16_t ver;

    memset(out, 0, sizeof(*out));
    e810_snap_r_init(&r, buf, len, e);
    return e810_snap_open(&r, 7, 2, &sub, &ver) &&
           e810_snap_get_fields(&sub, rec_fields, out, ver, "rec") &&
           e810_snap_close(&sub, "rec") && r.left == 0;
}

static void test_round_trip(void)
{
    E810SnapW w;
    E810SnapErr e;
    Rec out;

    write_sample(&w);
    CHECK(read_sample(w.buf, w.len, &out, &e));
    CHECK_EQ(out.a, sample.a);
    CHECK_EQ(out.b, sample.b);
    CHECK_EQ(out.c, sample.c);
    CHECK_EQ(out.d, sample.d);
    CHECK_EQ(out.e, (uint64_t)-1);
    CHECK_EQ(out.f, 1);
    CHECK(!memcmp(out.raw, sample.raw, 5));
    CHECK_EQ(out.arr[0], 9);
    CHECK_EQ(out.arr[2], 7);
    CHECK_EQ(out.sub[0].x, 100);
    CHECK_EQ(out.sub[0].y, 1);
    CHECK_EQ(out.sub[1].x, 3);
    /* 8 header + 1+2+4+8+8+1+5+6 + 2*(4+1) payload */
    CHECK_EQ(w.len, 8 + 35 + 10);
    e810_snap_w_free(&w);
}

/* Every cut of the stream fails, with a message, and never reads past. */
static void test_truncation(void)
{
    E810SnapW w;
    E810SnapErr e;
    Rec out;

    write_sample(&w);
    for (size_t n = 0; n < w.len; n++) {
        uint8_t *copy = malloc(n ? n : 1);

        memcpy(copy, w.buf, n);
        CHECK(!read_sample(copy, n, &out, &e));
        CHECK(e.failed && e.msg[0]);
        free(copy);
    }
    e810_snap_w_free(&w);
}

/* A value out of its range fails and the message names the field. */
static void test_bounds(void)
{
    E810SnapW w;
    E810SnapErr e;
    Rec out;
    size_t off_b = 8 + 1, off_f = 8 + 1 + 2 + 4 + 8 + 8;
    size_t off_sub0x = 8 + 35;            /* after arr: sub[0].x */

    write_sample(&w);
    w.buf[off_b] = 0xE9;                  /* b = 1001 > 1000 */
    w.buf[off_b + 1] = 0x03;
    CHECK(!read_sample(w.buf, w.len, &out, &e));
    CHECK(strstr(e.msg, "rec.b") != NULL);
    e810_snap_w_free(&w);

    write_sample(&w);
    w.buf[off_f] = 2;                     /* a bool of 2 */
    CHECK(!read_sample(w.buf, w.len, &out, &e));
    CHECK(strstr(e.msg, "rec.f") != NULL);
    e810_snap_w_free(&w);

    write_sample(&w);
    w.buf[off_sub0x - 2] = 10;            /* arr[2] = 10 > 9 */
    CHECK(!read_sample(w.buf, w.len, &out, &e));
    CHECK(strstr(e.msg, "rec.arr[2]") != NULL);
    e810_snap_w_free(&w);

    write_sample(&w);
    w.buf[off_sub0x] = 101;               /* sub[0].x > 100 */
    CHECK(!read_sample(w.buf, w.len, &out, &e));
    CHECK(strstr(e.msg, "rec.sub[0].x") != NULL);
    e810_snap_w_free(&w);

    write_sample(&w);
    w.buf[8 + 1 + 2 + 4 + 8] = 0xFE;      /* e = -2 < -1 */
    CHECK(!read_sample(w.buf, w.len, &out, &e));
    CHECK(strstr(e.msg, "rec.e") != NULL);
    e810_snap_w_free(&w);
}

/* Wrong id, newer version, a length beyond the buffer, bytes left over. */
static void test_records(void)
{
    E810SnapW w;
    E810SnapErr e;
    E810SnapR r, sub;
    Rec out;

    write_sample(&w);
    e810_snap_r_init(&r, w.buf, w.len, &e);
    CHECK(!e810_snap_open(&r, 8, 2, &sub, NULL));
    CHECK(strstr(e.msg, "record 7") != NULL);
    e810_snap_r_init(&r, w.buf, w.len, &e);
    CHECK(!e810_snap_open(&r, 7, 1, &sub, NULL));
    CHECK(strstr(e.msg, "version 2") != NULL);
    w.buf[4] += 1;                        /* length one more than there is */
    CHECK(!read_sample(w.buf, w.len, &out, &e));
    CHECK(strstr(e.msg, "length") != NULL);
    w.buf[4] -= 2;                        /* one less: the last field cut */
    CHECK(!read_sample(w.buf, w.len, &out, &e));
    e810_snap_w_free(&w);

    /* A record with a byte the reader does not take. */
    e810_snap_w_init(&w);
    size_t m = e810_snap_begin(&w, 7, 1);
    e810_snap_put_fields(&w, rec_fields, &sample);
    e810_snap_put_u8(&w, 0);
    e810_snap_end(&w, m);
    CHECK(!read_sample(w.buf, w.len, &out, &e));
    CHECK(strstr(e.msg, "left over") != NULL);
    e810_snap_w_free(&w);
}

typedef struct Slot {
    bool valid;
    uint32_t v;
} Slot;

/* A stand-in for the E810Core: snap.c sees a table as offsets into it. */
typedef struct SlotCore {
    Slot slot[8];
    uint64_t map[1];
    Slot *ptr;
} SlotCore;

static const E810SnapField slot_fields[] = {
    SF_BOOL(Slot, valid),
    SF_U(Slot, v, 0, 50),
    SF_END
};

/* Without the live member: a load sets it. */
static const E810SnapField slot_v_fields[] = {
    SF_U(Slot, v, 0, 50),
    SF_END
};

static unsigned each_seen;
static void *each_opaque;

static bool slot_each(E810SnapR *r, void *p, uint32_t idx, void *opaque)
{
    (void)r;
    each_seen++;
    each_opaque = opaque;
    return ((Slot *)p)->valid && idx != 5;
}

#define SLOT_TABLE(f, at) \
    .name = "t", .fields = (f), .off = offsetof(SlotCore, at), \
    .stride = sizeof(Slot), .n = 8, .live_off = offsetof(Slot, valid), \
    .live_size = 1, .each = slot_each

static const E810SnapTable slot_table = { SLOT_TABLE(slot_fields, slot) };
/* Chunks of 2 entries in map. */
static const E810SnapTable slot_map_table = {
    SLOT_TABLE(slot_v_fields, slot),
    .map_off = offsetof(SlotCore, map), .chunk = 2,
};
/* The entries at ptr (NULL: none). */
static const E810SnapTable slot_ptr_table = {
    SLOT_TABLE(slot_fields, ptr), .indirect = true,
};

static bool get_table(const E810SnapW *w, SlotCore *sc,
                      const E810SnapTable *t, E810SnapErr *e)
{
    E810SnapR r;

    e810_snap_r_init(&r, w->buf, w->len, e);
    return e810_snap_get_table((E810Core *)sc, &r, 1, t);
}

static void test_sparse(void)
{
    static SlotCore a = { .slot = { [1] = { true, 10 }, [6] = { true, 50 } },
                          .map = { 1 } };
    SlotCore b;
    Slot s2[8];
    E810SnapW w;
    E810SnapErr e;
    E810SnapR r;

    /* [u32 count] then (u32 index, fields) of the live entries. */
    e810_snap_w_init(&w);
    e810_snap_put_table((E810Core *)&a, &w, &slot_table);
    CHECK_EQ(w.len, 4 + 2 * (4 + 1 + 4));
    memset(&b, 0, sizeof(b));
    each_seen = 0;
    CHECK(get_table(&w, &b, &slot_table, &e));
    CHECK(!memcmp(a.slot, b.slot, sizeof(a.slot)));
    CHECK_EQ(each_seen, 2);
    CHECK(each_opaque == &b);           /* the core */
    /* The same read by e810_snap_get_sparse. */
    memset(s2, 0, sizeof(s2));
    e810_snap_r_init(&r, w.buf, w.len, &e);
    CHECK(e810_snap_get_sparse(&r, slot_fields, s2, sizeof(Slot), 8, 1, "t",
                               NULL, NULL));
    CHECK(!memcmp(a.slot, s2, sizeof(s2)));
    /* A smaller table: index 6 is out of it. */
    e810_snap_r_init(&r, w.buf, w.len, &e);
    CHECK(!e810_snap_get_sparse(&r, slot_fields, s2, sizeof(Slot), 4, 1, "t",
                                NULL, NULL));
    CHECK(strstr(e.msg, "t.index") != NULL);
    /* Indexes must ascend: write 6 then 1. */
    w.buf[4] = 6;
    w.buf[4 + 9] = 1;
    CHECK(!get_table(&w, &b, &slot_table, &e));
    /* The entry check refuses index 5. */
    w.buf[4] = 1;
    w.buf[4 + 9] = 5;
    CHECK(!get_table(&w, &b, &slot_table, &e));
    CHECK(strstr(e.msg, "t[5]") != NULL);
    e810_snap_w_free(&w);

    /* With a map, only its chunks are visited: chunk 0 holds entry 1,
     * entry 6 (chunk 3) is left out. */
    e810_snap_w_init(&w);
    e810_snap_put_table((E810Core *)&a, &w, &slot_map_table);
    CHECK_EQ(w.len, 4 + (4 + 4));
    /* A load marks the chunks it reads and sets the live member. */
    memset(&b, 0, sizeof(b));
    CHECK(get_table(&w, &b, &slot_map_table, &e));
    CHECK(b.slot[1].valid && b.slot[1].v == 10);
    CHECK_EQ(b.map[0], 1);
    /* An entry refused half-way (v 51 beyond 50) has its chunk marked. */
    w.buf[4] = 6;
    w.buf[8] = 51;
    memset(&b, 0, sizeof(b));
    CHECK(!get_table(&w, &b, &slot_map_table, &e));
    CHECK(strstr(e.msg, "t[6].v") != NULL);
    CHECK_EQ(b.map[0], 1 << 3);
    e810_snap_w_free(&w);

    /* Through a pointer: NULL is an empty table. */
    e810_snap_w_init(&w);
    e810_snap_put_table((E810Core *)&a, &w, &slot_ptr_table);
    CHECK_EQ(w.len, 4);
    a.ptr = a.slot;
    e810_snap_put_table((E810Core *)&a, &w, &slot_ptr_table);
    a.ptr = NULL;
    CHECK_EQ(w.len, 4 + 4 + 2 * (4 + 1 + 4));
    memset(&b, 0, sizeof(b));
    memset(s2, 0, sizeof(s2));
    e810_snap_r_init(&r, w.buf, w.len, &e);
    CHECK(e810_snap_get_table((E810Core *)&b, &r, 1, &slot_ptr_table));
    b.ptr = s2;
    CHECK(e810_snap_get_table((E810Core *)&b, &r, 1, &slot_ptr_table));
    CHECK(!memcmp(a.slot, s2, sizeof(s2)));
    /* Entries for a table that is not there. */
    b.ptr = NULL;
    e810_snap_r_init(&r, w.buf + 4, w.len - 4, &e);
    CHECK(!e810_snap_get_table((E810Core *)&b, &r, 1, &slot_ptr_table));
    CHECK(strstr(e.msg, "t.count") != NULL);
    e810_snap_w_free(&w);
}

/* The whole device: a state saved from one core loads into another. */
static void test_core_regs(void)
{
    static FakeHost h2;
    static E810Core c2;
    E810SnapW w;
    char err[256];

    setup();
    wr(0x00080200, 0x800000C0);            /* PF_FW_ATQLEN: storage */
    wr(0x00280000, 0x11111111);            /* QRX_CONTEXT(0, 0) */
    e810_snap_w_init(&w);
    CHECK(e810_core_save(&c, &w, err, sizeof(err)));

    fake_host_init(&h2);
    e810_core_init(&c2, &h2.host, mac);
    CHECK(e810_core_load(&c2, w.buf, w.len, err, sizeof(err)));
    CHECK_EQ(e810_mmio_read(&c2, 0x00080200, 4), 0x800000C0);
    CHECK_EQ(e810_mmio_read(&c2, 0x00280000, 4), 0x11111111);
    CHECK_EQ(e810_mmio_read(&c2, GLNVM_ULD, 4), 0x73B);

    /* Saving the loaded device gives the same bytes. */
    E810SnapW w2;
    e810_snap_w_init(&w2);
    CHECK(e810_core_save(&c2, &w2, err, sizeof(err)));
    CHECK_EQ(w2.len, w.len);
    CHECK(w2.len == w.len && !memcmp(w.buf, w2.buf, w.len));
    e810_snap_w_free(&w2);

    /* Every truncation fails with a message and leaves a reset device. */
    for (size_t n = 0; n < w.len; n += (n < 64 ? 1 : 997)) {
        err[0] = 0;
        CHECK(!e810_core_load(&c2, w.buf, n, err, sizeof(err)));
        CHECK(err[0] != 0);
        CHECK_EQ(e810_mmio_read(&c2, 0x00080200, 4), 0);
    }
    /* Another device's state (another MAC) is refused. */
    static const uint8_t mac2[6] = { 0x52, 0x54, 0x00, 0, 0, 1 };
    e810_core_cleanup(&c2);
    e810_core_init(&c2, &h2.host, mac2);
    CHECK(!e810_core_load(&c2, w.buf, w.len, err, sizeof(err)));
    CHECK(strstr(err, "MAC") != NULL);

    e810_core_cleanup(&c2);
    fake_host_cleanup(&h2);
    e810_snap_w_free(&w);
    teardown();
}

int main(void)
{
    RUN(test_round_trip);
    RUN(test_truncation);
    RUN(test_bounds);
    RUN(test_records);
    RUN(test_sparse);
    RUN(test_core_regs);
    return CHECK_DONE();
}
