/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RDMA engine: host memory cache (HMC) layout and segment descriptors.
 *
 * The engine reports per-object limits and sizes (QUERY_FPM_VAL), lays the
 * objects out in its function private memory space when the driver commits
 * the counts (COMMIT_FPM_VAL), and learns which guest pages back each 2 MiB
 * segment (UPDATE_PE_SDS).  Only the PBLE object is ever read back through
 * this mapping: the driver writes page lists there.  Every other object's
 * state is kept in device tables, so their backing pages are recorded but
 * never touched.
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../bytes.h"
#include "../../trace.h"
#include "rdma.h"
#include "../snap.h"

#define FPM_QUERY_BUF_SIZE      200
#define FPM_COMMIT_BUF_SIZE     208

/* What QUERY_FPM_VAL reports, sized for a small VM (all device choices).
 * Objects the driver never reads back are tiny so that everything except
 * the PBLE fits in SD 0. */
static const struct {
    uint32_t max_cnt;
    uint8_t size_log2;
    uint32_t cap;           /* largest count COMMIT_FPM_VAL accepts */
} hmc_limits[E810_HMC_NUM] = {
    [E810_HMC_QP]       = { E810_RDMA_MAX_QPS, 8, E810_RDMA_MAX_QPS },
    [E810_HMC_CQ]       = { E810_RDMA_MAX_CQS, 5, E810_RDMA_MAX_CQS },
    [E810_HMC_SRQ]      = { 0, 0, 0 },
    [E810_HMC_HTE]      = { 1u << 16, 3, 1u << 16 },
    [E810_HMC_ARP]      = { E810_RDMA_MAX_ARP, 3, E810_RDMA_MAX_ARP },
    [E810_HMC_APBVT]    = { 1, 13, 1 },
    [E810_HMC_MR]       = { E810_RDMA_MAX_MRS, 5, E810_RDMA_MAX_MRS },
    [E810_HMC_XF]       = { 1u << 16, 0, 1u << 16 },
    [E810_HMC_XFFL]     = { 1u << 16, 2, 1u << 16 },
    [E810_HMC_Q1]       = { 1u << 18, 0, 1u << 18 },
    [E810_HMC_Q1FL]     = { 1u << 16, 2, 1u << 16 },
    [E810_HMC_TIMER]    = { 0, 0, 1u << 16 },
    /* One 64-byte group context (8 QP entries) per multicast group. */
    [E810_HMC_FSIMC]    = { E810_RDMA_MAX_MCG, 6, E810_RDMA_MAX_MCG },
    [E810_HMC_FSIAV]    = { E810_RDMA_MAX_AH, 5, E810_RDMA_MAX_AH },
    [E810_HMC_PBLE]     = { E810_RDMA_MAX_PBLE, 3, E810_RDMA_MAX_PBLE },
    [E810_HMC_RSVD]     = { 0, 0, 0 },
    [E810_HMC_RRF]      = { 0, 0, 0 },
    [E810_HMC_RRFFL]    = { 0, 2, 0 },
    [E810_HMC_HDR]      = { E810_RDMA_MAX_QPS, 0, E810_RDMA_MAX_QPS },
    [E810_HMC_MD]       = { 0, 0, 0 },
    [E810_HMC_OOISC]    = { 0, 0, 0 },
    [E810_HMC_OOISCFFL] = { 0, 2, 0 },
};

/* Block sizes reported with the free-list objects; never zero (the driver
 * divides by them). */
#define XF_BLOCK_SIZE   1
#define Q1_BLOCK_SIZE   64
#define HT_MULTIPLIER   1
#define TIMER_BUCKET    0

void e810_rdma_hmc_reset(E810Core *c)
{
    E810Rdma *rd = &c->rdma;
    int i;

    for (i = 0; i < E810_HMC_NUM; i++) {
        rd->obj[i].max_cnt = hmc_limits[i].max_cnt;
        rd->obj[i].size_log2 = hmc_limits[i].size_log2;
        rd->obj[i].cnt = 0;
        rd->obj[i].base = 0;
    }
    rd->fpm_committed = false;
    memset(rd->sd, 0, sizeof(rd->sd));
}

uint32_t e810_rdma_obj_limit(E810Core *c, unsigned obj, uint32_t cap)
{
    uint32_t n = c->rdma.fpm_committed ? c->rdma.obj[obj].cnt : 0;

    return n < cap ? n : cap;
}

static bool hmc_dma_write(E810Core *c, uint64_t pa, const void *buf,
                          size_t len, E810CqpResult *r, const char *what)
{
    if (e810_dma_write(c, pa, buf, len)) {
        e810_cqp_fail(c, r, E810_CQP_MIN_DMA, "%s buffer at 0x%" PRIx64,
                      what, pa);
        return false;
    }
    return true;
}

/* Query buffer offset of object @i: slot 0 holds the SD limits and there
 * is no APBVT slot, so QP..ARP sit one slot later than in the commit
 * buffer; from MR on both layouts agree. */
static unsigned query_slot(int i)
{
    return i < E810_HMC_APBVT ? 8 * (i + 1) : 8 * i;
}

void e810_rdma_query_fpm(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    E810Rdma *rd = &c->rdma;
    uint8_t buf[FPM_QUERY_BUF_SIZE];
    int i;

    memset(buf, 0, sizeof(buf));
    /* first SD index 0, MAX_PE_SDS in 44:32 */
    st64(buf, (uint64_t)E810_RDMA_MAX_SDS << 32);
    for (i = E810_HMC_QP; i < E810_HMC_NUM; i++) {
        if (i == E810_HMC_APBVT || i == E810_HMC_RSVD) {
            continue;       /* no query slot: fixed by the driver */
        }
        st64(buf + query_slot(i), (uint64_t)rd->obj[i].size_log2 << 32 |
             rd->obj[i].max_cnt);
    }
    /* Free-list slots carry the block size instead of an object size. */
    st64(buf + 8 * E810_HMC_XFFL,
         (uint64_t)XF_BLOCK_SIZE << 32 | rd->obj[E810_HMC_XFFL].max_cnt);
    st64(buf + 8 * E810_HMC_Q1FL,
         (uint64_t)Q1_BLOCK_SIZE << 32 | rd->obj[E810_HMC_Q1FL].max_cnt);
    st64(buf + 8 * E810_HMC_RRFFL, 0);
    st64(buf + 8 * E810_HMC_OOISCFFL, 0);
    st64(buf + 8 * E810_HMC_RSVD, (uint64_t)TIMER_BUCKET << 32 |
         HT_MULTIPLIER << 16 | E810_RDMA_MAX_CEQS);
    hmc_dma_write(c, wqe[4], buf, sizeof(buf), r, "query FPM");
}

/*
 * The objects' FPM layout for the counts @cnt, into @base: slot order, 4
 * KiB aligned; the PBLE last on its own 2 MiB segment so that on-demand
 * PBLE segments never share one with other objects.  False if it does not
 * fit the SDs; *@end is where it ends.  COMMIT_FPM_VAL lays the objects out
 * with it, and a load lays them out again from the saved counts.
 */
static bool hmc_layout(const uint32_t *cnt, uint64_t *base, uint64_t *end)
{
    uint64_t at = 0;
    int i;

    for (i = 0; i < E810_HMC_NUM; i++) {
        uint64_t bytes = (uint64_t)cnt[i] << hmc_limits[i].size_log2;

        base[i] = 0;
        if (i == E810_HMC_PBLE || i == E810_HMC_RSVD) {
            continue;
        }
        base[i] = at;
        at += (bytes + 0xFFF) & ~0xFFFull;
    }
    at = (at + E810_RDMA_SD_SIZE - 1) & ~(uint64_t)(E810_RDMA_SD_SIZE - 1);
    base[E810_HMC_PBLE] = at;
    *end = at + ((uint64_t)cnt[E810_HMC_PBLE] <<
                 hmc_limits[E810_HMC_PBLE].size_log2);
    return *end <= (uint64_t)E810_RDMA_MAX_SDS * E810_RDMA_SD_SIZE;
}

void e810_rdma_commit_fpm(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    E810Rdma *rd = &c->rdma;
    uint8_t buf[FPM_COMMIT_BUF_SIZE];
    uint32_t cnt[E810_HMC_NUM];
    uint64_t base[E810_HMC_NUM], end;
    int i;

    if (e810_dma_read(c, wqe[4], buf, sizeof(buf))) {
        e810_cqp_fail(c, r, E810_CQP_MIN_DMA, "commit FPM buffer at 0x%"
                      PRIx64, wqe[4]);
        return;
    }
    for (i = 0; i < E810_HMC_NUM; i++) {
        uint64_t v = ld64(buf + 8 * i);

        switch (i) {
        case E810_HMC_QP:
            cnt[i] = COMMIT_FPM_QPCNT(v);
            break;
        case E810_HMC_CQ:
            cnt[i] = COMMIT_FPM_CQCNT(v);
            break;
        case E810_HMC_APBVT:
            cnt[i] = 1;         /* the driver writes 0 and assumes 1 */
            break;
        case E810_HMC_RSVD:
            cnt[i] = 0;
            break;
        default:
            cnt[i] = (uint32_t)v;
            break;
        }
        if (cnt[i] > hmc_limits[i].cap) {
            e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM,
                          "commit FPM: object %d count %u > %u", i, cnt[i],
                          hmc_limits[i].cap);
            return;
        }
    }
    if (cnt[E810_HMC_PBLE] < 512) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM,
                      "commit FPM: %u PBLEs", cnt[E810_HMC_PBLE]);
        return;
    }
    /* A refused commit leaves the committed layout as it was. */
    if (!hmc_layout(cnt, base, &end)) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_PARAM,
                      "commit FPM: %" PRIu64 " bytes exceed %u SDs", end,
                      E810_RDMA_MAX_SDS);
        return;
    }
    for (i = 0; i < E810_HMC_NUM; i++) {
        rd->obj[i].cnt = cnt[i];
        rd->obj[i].base = base[i];
        if (i == E810_HMC_RSVD) {
            continue;
        }
        /* Count as written (APBVT: 0 as written), base in 512-byte units. */
        st64(buf + 8 * i, (ld64(buf + 8 * i) & 0xFFFFFFFFull) |
             (rd->obj[i].base / 512) << COMMIT_FPM_BASE_S);
    }
    rd->fpm_committed = true;
    trace_e810_rdma_fpm_commit(cnt[E810_HMC_QP], cnt[E810_HMC_CQ],
                               cnt[E810_HMC_MR], cnt[E810_HMC_PBLE],
                               rd->obj[E810_HMC_PBLE].base);
    hmc_dma_write(c, wqe[4], buf, sizeof(buf), r, "commit FPM");
}

/* ---- saved state -------------------------------------------------------- */

/*
 * E810RdmaHmcObj: cnt saved (only once committed: until then every count
 * is 0); max_cnt and size_log2 are hmc_limits' (e810_rdma_hmc_reset), base
 * is hmc_layout's of the counts.
 */
static const E810SnapField hmc_sd_fields[] = {
    SF_BOOL(E810RdmaSd, valid),
    SF_BOOL(E810RdmaSd, direct),
    SF_UX(E810RdmaSd, pa),
    SF_END
};

void e810_rdma_hmc_save(E810Core *c, E810SnapW *w)
{
    E810Rdma *rd = &c->rdma;

    e810_snap_put_u8(w, rd->fpm_committed);
    if (rd->fpm_committed) {
        for (int i = 0; i < E810_HMC_NUM; i++) {
            e810_snap_put_u32(w, rd->obj[i].cnt);
        }
    }
    for (int i = 0; i < E810_RDMA_MAX_SDS; i++) {
        e810_snap_put_fields(w, hmc_sd_fields, &rd->sd[i]);
    }
}

bool e810_rdma_hmc_load(E810Core *c, E810SnapR *r, uint16_t ver)
{
    E810Rdma *rd = &c->rdma;
    uint32_t cnt[E810_HMC_NUM];
    uint64_t base[E810_HMC_NUM], end, v;
    char name[48];

    if (!e810_snap_get_bool(r, &rd->fpm_committed, "rdma.fpm_committed")) {
        return false;
    }
    if (rd->fpm_committed) {
        /* What COMMIT_FPM_VAL accepts. */
        for (int i = 0; i < E810_HMC_NUM; i++) {
            snprintf(name, sizeof(name), "rdma.obj[%d].cnt", i);
            if (!e810_snap_get_range(r, &v, 4, 0, hmc_limits[i].cap, name)) {
                return false;
            }
            cnt[i] = v;
        }
        if (cnt[E810_HMC_PBLE] < 512) {
            return e810_snap_fail(r, "rdma.obj[%d].cnt: %u PBLEs (below 512)",
                                  E810_HMC_PBLE, cnt[E810_HMC_PBLE]);
        }
        if (!hmc_layout(cnt, base, &end)) {
            return e810_snap_fail(r, "rdma.obj: the objects take %" PRIu64
                                  " bytes, beyond %u SDs", end,
                                  E810_RDMA_MAX_SDS);
        }
        for (int i = 0; i < E810_HMC_NUM; i++) {
            rd->obj[i].cnt = cnt[i];
            rd->obj[i].base = base[i];
        }
    }
    for (int i = 0; i < E810_RDMA_MAX_SDS; i++) {
        snprintf(name, sizeof(name), "rdma.sd[%d]", i);
        if (!e810_snap_get_fields(r, hmc_sd_fields, &rd->sd[i], ver, name)) {
            return false;
        }
    }
    return true;
}

/* ---- SDs ---------------------------------------------------------------- */

/* One SDCMD/SDDATA pair. */
static bool hmc_sd_entry(E810Core *c, uint32_t cmd, uint64_t data,
                         E810CqpResult *r)
{
    E810Rdma *rd = &c->rdma;
    unsigned idx = PFHMC_SDCMD_PMSDIDX(cmd);
    E810RdmaSd *sd;

    if (!(cmd & PFHMC_SDCMD_PMSDWR)) {
        return true;            /* reads of the SD table are not used */
    }
    if (idx >= E810_RDMA_MAX_SDS) {
        e810_cqp_fail(c, r, E810_CQP_MIN_BAD_ID, "SD index %u (of %u)", idx,
                      E810_RDMA_MAX_SDS);
        return false;
    }
    sd = &rd->sd[idx];
    sd->valid = data & PFHMC_SDDATALOW_PMSDVALID;
    sd->direct = data & PFHMC_SDDATALOW_PMSDTYPE;
    sd->pa = sd->valid ? HMC_PAGE_PA(data) : 0;
    if (sd->valid && sd->direct && (sd->pa & (E810_RDMA_SD_SIZE - 1))) {
        /* A direct segment maps 2 MiB linearly; keep it but say so. */
        e810_guest_error(c, "rdma: direct SD %u at unaligned 0x%" PRIx64,
                         idx, sd->pa);
    }
    trace_e810_rdma_sd(idx, sd->valid, sd->direct, sd->pa);
    return true;
}

void e810_rdma_update_sds(E810Core *c, const uint64_t *wqe, E810CqpResult *r)
{
    unsigned extra = CQPSQ_UPESD_ENTRY_COUNT(wqe[3]);
    uint64_t pa = CQPSQ_UPESD_BUF_PA(wqe[2]);
    unsigned i;

    if (!hmc_sd_entry(c, (uint32_t)wqe[0], wqe[1], r)) {
        return;
    }
    if ((wqe[4] & CQPSQ_UPESD_ENTRY_VALID) &&
        !hmc_sd_entry(c, (uint32_t)wqe[4], wqe[5], r)) {
        return;
    }
    if ((wqe[6] & CQPSQ_UPESD_ENTRY_VALID) &&
        !hmc_sd_entry(c, (uint32_t)wqe[6], wqe[7], r)) {
        return;
    }
    /* Up to 8 more entries in a host buffer (the 4-bit count bounds it). */
    for (i = 0; i < extra; i++) {
        uint8_t e[16];

        if (e810_dma_read(c, pa + 16 * i, e, sizeof(e))) {
            e810_cqp_fail(c, r, E810_CQP_MIN_DMA, "SD entries at 0x%" PRIx64,
                          pa);
            return;
        }
        if (!hmc_sd_entry(c, ld32(e), ld64(e + 8), r)) {
            return;
        }
    }
}

/* Guest address of FPM byte @fpm (8 bytes readable from there). */
static bool hmc_fpm_to_pa(E810Core *c, uint64_t fpm, uint64_t *pa)
{
    E810Rdma *rd = &c->rdma;
    uint64_t sdi = fpm / E810_RDMA_SD_SIZE;
    uint64_t off = fpm % E810_RDMA_SD_SIZE;
    const E810RdmaSd *sd;
    uint8_t pde[8];
    uint64_t v;

    if (sdi >= E810_RDMA_MAX_SDS || !rd->sd[sdi].valid) {
        return false;
    }
    sd = &rd->sd[sdi];
    if (sd->direct) {
        *pa = sd->pa + off;
        return true;
    }
    /* Paged: a 4 KiB page of 512 page descriptors. */
    if (e810_dma_read(c, sd->pa + 8 * (off >> 12), pde,
                              sizeof(pde))) {
        return false;
    }
    v = ld64(pde);
    if (!(v & HMC_PD_VALID)) {
        return false;
    }
    *pa = HMC_PAGE_PA(v) + (off & 0xFFF);
    return true;
}

bool e810_rdma_pble_read(E810Core *c, uint32_t idx, uint64_t *val)
{
    E810Rdma *rd = &c->rdma;
    const E810RdmaHmcObj *o = &rd->obj[E810_HMC_PBLE];
    uint64_t pa;
    uint8_t b[8];

    if (!rd->fpm_committed || idx >= o->cnt ||
        !hmc_fpm_to_pa(c, o->base + 8ull * idx, &pa) ||
        e810_dma_read(c, pa, b, sizeof(b))) {
        e810_guest_error(c, "rdma: PBLE %u not mapped", idx);
        return false;
    }
    *val = ld64(b);
    return true;
}

bool e810_rdma_ring_addr(E810Core *c, const E810RdmaRing *ring,
                         uint64_t off, uint64_t *pa)
{
    uint64_t page;

    if (!ring->virt) {
        *pa = ring->pa + off;
        return true;
    }
    /* Level-1 list of 4 KiB pages starting at PBLE pble_idx. */
    if ((off >> 12) > 0xFFFFFFFFull - ring->pble_idx ||
        !e810_rdma_pble_read(c, ring->pble_idx + (uint32_t)(off >> 12), &page)) {
        return false;
    }
    *pa = HMC_PAGE_PA(page) + (off & 0xFFF);
    return true;
}
