// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verbs-lifecycle: create, check and destroy user-space verbs objects on an
 * iWARP device (the emulated E810 under irdma), and check every attribute
 * the device reports back.
 *
 *   verbs-lifecycle [-d DEV] [-n LOOPS] [-m MIB] [-F] [-v]
 *
 *   -d DEV    ib device (default: the first iWARP device)
 *   -n LOOPS  rounds of the object loop (default 2)
 *   -m MIB    size of the largest MR (default 256)
 *   -F        skip the PBLE fill phase (level-2 page lists)
 *   -X        skip the exhaustion phase
 *   -H        only create a mix of objects, print "holding: ..." and wait
 *             to be killed (for the kernel's cleanup of a dead process)
 *   -v        print every object
 *
 * Phases:
 *  1. device and port attributes: iWARP/RNIC, Intel 8086:159b, sane limits,
 *     port ACTIVE / LinkUp, a GID, the CM capability;
 *  2. LOOPS rounds of: PDs; CQs of several sizes (with a completion channel
 *     and an arm), resized; MRs of 4 KiB .. MIB with several access flags,
 *     VA-based and with an IOVA, re-registered; RC QPs created with various
 *     capabilities, moved RESET -> INIT -> ERR -> RESET and queried at each
 *     step; memory windows of type 1 and 2 (where max_mw says so).  The
 *     device limits must stay put throughout;
 *  3. exhaustion: CQs, then RC QPs, then 4 KiB MRs are created until the
 *     driver refuses one; the number reached must be the max_cq / max_qp /
 *     max_mr the device reported (give or take the driver's own), so every
 *     object index the HMC holds is used once; all are released;
 *  4. PBLE fill: MRs of MIB/2 (4 KiB pages) are registered until the
 *     driver runs out of page-list entries (every PBLE segment of the HMC is
 *     then in use), three of them are released and one MR of MIB is
 *     registered into the fragmented space, which irdma can only describe
 *     with a two-level page list.  Everything is released again.
 *
 * Output: one line per failed check ("FAIL: ..."), per-phase lines, and a
 * summary "verbs-lifecycle: PASS|FAIL checks N failures N pd N cq N mr N
 * qp N mw N ..." as the last line.  Exit 0 iff no check failed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define MiB ((size_t)1024 * 1024)

static int checks, failures, verbose;
static struct {
    unsigned pd, cq, resize, mr, rereg, qp, mw, pble_mrs, lvl2_mrs;
} cnt;

static void __attribute__((format(printf, 2, 3))) check_fail(int line, const char *fmt, ...)
{
    va_list ap;

    failures++;
    printf("FAIL: line %d: ", line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

/* CHECK(cond, fmt, ...): counts, reports a failure, yields cond. */
#define CHECK(cond, ...) \
    (checks++, (cond) ? true : (check_fail(__LINE__, __VA_ARGS__), false))

/* @free_fn each object of @objs[0 .. @n) that is there, checking that it
 * goes (the message names @free_fn and the index). */
#define FREE_ALL(objs, n, free_fn) do { \
    for (int i_ = 0; i_ < (n); i_++) { \
        if ((objs)[i_]) { \
            CHECK(free_fn((objs)[i_]) == 0, #free_fn " %d: %s", i_, \
                  strerror(errno)); \
        } \
    } \
} while (0)

/* @objs[@n] = @create (an expression of @n) for @n = 0, 1, ... until it
 * fails or @cap are there; @err the errno of the failure (0: none). */
#define CREATE_UNTIL_FAIL(objs, cap, create, n, err) do { \
    for ((n) = 0, (err) = 0; (n) < (cap); (n)++) { \
        (objs)[n] = (create); \
        if (!(objs)[n]) { \
            (err) = errno; \
            break; \
        } \
    } \
} while (0)

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void vlog(const char *fmt, ...)
{
    va_list ap;

    if (!verbose) {
        return;
    }
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* ---- device and port --------------------------------------------------- */

static struct ibv_device_attr base;     /* limits with none of our objects */

static void check_device(struct ibv_context *ctx, struct ibv_device *dev)
{
    struct ibv_device_attr a;
    struct ibv_device_attr_ex ax;
    struct ibv_port_attr p;
    union ibv_gid gid;
    static const union ibv_gid zero_gid;

    CHECK(dev->node_type == IBV_NODE_RNIC, "node type %d, expected RNIC",
          dev->node_type);
    CHECK(dev->transport_type == IBV_TRANSPORT_IWARP,
          "transport %d, expected iWARP", dev->transport_type);
    if (!CHECK(ibv_query_device(ctx, &a) == 0, "ibv_query_device: %s",
               strerror(errno))) {
        exit(1);
    }
    printf("device %s: fw %s vendor 0x%x part 0x%x max_qp %d max_qp_wr %d "
           "max_sge %d max_cq %d max_cqe %d max_mr %d max_mr_size 0x%" PRIx64
           " max_pd %d max_mw %d page_size_cap 0x%" PRIx64 " cap_flags 0x%x\n",
           ibv_get_device_name(dev), a.fw_ver, a.vendor_id, a.vendor_part_id,
           a.max_qp, a.max_qp_wr, a.max_sge, a.max_cq, a.max_cqe, a.max_mr,
           a.max_mr_size, a.max_pd, a.max_mw, a.page_size_cap,
           a.device_cap_flags);
    CHECK(a.vendor_id == 0x8086, "vendor_id 0x%x", a.vendor_id);
    CHECK(a.vendor_part_id == 0x159b, "vendor_part_id 0x%x", a.vendor_part_id);
    CHECK(a.fw_ver[0] != 0, "empty fw_ver");
    CHECK(a.max_qp >= 64 && a.max_qp <= (1 << 20), "max_qp %d", a.max_qp);
    CHECK(a.max_cq >= 64 && a.max_cq <= (1 << 21), "max_cq %d", a.max_cq);
    CHECK(a.max_cq >= a.max_qp, "max_cq %d < max_qp %d", a.max_cq, a.max_qp);
    CHECK(a.max_mr >= 1024 && a.max_mr < (1 << 24), "max_mr %d", a.max_mr);
    CHECK(a.max_pd >= 1024, "max_pd %d", a.max_pd);
    CHECK(a.max_qp_wr >= 1024 && a.max_qp_wr < (1 << 16), "max_qp_wr %d",
          a.max_qp_wr);
    CHECK(a.max_sge >= 2 && a.max_sge <= 32, "max_sge %d", a.max_sge);
    CHECK(a.max_cqe >= 4096, "max_cqe %d", a.max_cqe);
    CHECK(a.max_mr_size >= 256 * MiB, "max_mr_size 0x%" PRIx64, a.max_mr_size);
    CHECK(a.page_size_cap & 4096, "page_size_cap 0x%" PRIx64 " lacks 4 KiB",
          a.page_size_cap);
    CHECK(a.max_qp_rd_atom >= 1 && a.max_qp_init_rd_atom >= 1,
          "max_qp_rd_atom %d max_qp_init_rd_atom %d", a.max_qp_rd_atom,
          a.max_qp_init_rd_atom);
    CHECK(a.phys_port_cnt == 1, "phys_port_cnt %d", a.phys_port_cnt);
    CHECK(a.device_cap_flags & IBV_DEVICE_MEM_WINDOW,
          "cap_flags 0x%x lack MEM_WINDOW", a.device_cap_flags);
    CHECK(a.atomic_cap == IBV_ATOMIC_NONE, "atomic_cap %d (no atomics on gen2)",
          a.atomic_cap);
    CHECK(a.sys_image_guid != 0, "sys_image_guid 0");
    /* The extended query must agree with the plain one. */
    if (CHECK(ibv_query_device_ex(ctx, NULL, &ax) == 0,
              "ibv_query_device_ex: %s", strerror(errno))) {
        CHECK(memcmp(&ax.orig_attr, &a, sizeof(a)) == 0,
              "query_device_ex differs from query_device");
    }
    base = a;

    if (!CHECK(ibv_query_port(ctx, 1, &p) == 0, "ibv_query_port: %s",
               strerror(errno))) {
        exit(1);
    }
    printf("port 1: state %s phys_state %d active_mtu %d max_mtu %d "
           "gid_tbl_len %d max_msg_sz 0x%x link_layer %d cap_flags 0x%x\n",
           ibv_port_state_str(p.state), p.phys_state, p.active_mtu,
           p.max_mtu, p.gid_tbl_len, p.max_msg_sz, p.link_layer,
           p.port_cap_flags);
    CHECK(p.state == IBV_PORT_ACTIVE, "port state %s",
          ibv_port_state_str(p.state));
    CHECK(p.phys_state == 5, "phys_state %d, expected 5 (LinkUp)",
          p.phys_state);
    CHECK(p.max_mtu == IBV_MTU_4096, "max_mtu %d", p.max_mtu);
    CHECK(p.active_mtu >= IBV_MTU_1024 && p.active_mtu <= IBV_MTU_4096,
          "active_mtu %d", p.active_mtu);
    CHECK(p.gid_tbl_len == 1, "gid_tbl_len %d (iWARP: 1)", p.gid_tbl_len);
    CHECK(p.max_msg_sz >= 1u << 20, "max_msg_sz 0x%x", p.max_msg_sz);
    CHECK(p.port_cap_flags & IBV_PORT_CM_SUP, "port_cap_flags 0x%x lack CM",
          p.port_cap_flags);
    CHECK(p.link_layer == IBV_LINK_LAYER_ETHERNET ||
          p.link_layer == IBV_LINK_LAYER_UNSPECIFIED,
          "link_layer %d", p.link_layer);
    if (CHECK(ibv_query_gid(ctx, 1, 0, &gid) == 0, "ibv_query_gid: %s",
              strerror(errno))) {
        CHECK(memcmp(&gid, &zero_gid, sizeof(gid)) != 0, "GID 0 is zero");
    }
}

/* The limits irdma reports are those of the function (it does not count
 * what consumers hold): they must not move while objects come and go. */
static void check_limits(struct ibv_context *ctx, const char *when)
{
    struct ibv_device_attr a;

    if (!CHECK(ibv_query_device(ctx, &a) == 0, "ibv_query_device: %s",
               strerror(errno))) {
        return;
    }
    CHECK(a.max_pd == base.max_pd && a.max_cq == base.max_cq &&
          a.max_mr == base.max_mr && a.max_qp == base.max_qp &&
          a.max_cqe == base.max_cqe && a.max_qp_wr == base.max_qp_wr &&
          a.max_sge == base.max_sge && a.max_mr_size == base.max_mr_size,
          "%s: limits changed: pd %d/%d cq %d/%d mr %d/%d qp %d/%d", when,
          a.max_pd, base.max_pd, a.max_cq, base.max_cq, a.max_mr,
          base.max_mr, a.max_qp, base.max_qp);
}

/* ---- memory ------------------------------------------------------------- */

/* Anonymous memory, touched; NOHUGE: 4 KiB pages, so the MR's page list
 * has one entry per 4 KiB (unless pages happen to be contiguous). */
static void *map_mem(size_t len, bool huge)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED) {
        return NULL;
    }
    madvise(p, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    memset(p, 0xa5, len);
    return p;
}

/* Aligned on 2 MiB: a THP-backed region the driver may map with 2M pages. */
static void *map_huge(size_t len, void **raw, size_t *rawlen)
{
    size_t l = len + 2 * MiB;
    uint8_t *p = mmap(NULL, l, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint8_t *a;

    if (p == MAP_FAILED) {
        return NULL;
    }
    a = (uint8_t *)(((uintptr_t)p + 2 * MiB - 1) & ~(uintptr_t)(2 * MiB - 1));
    madvise(a, len, MADV_HUGEPAGE);
    memset(a, 0x5a, len);
    *raw = p;
    *rawlen = l;
    return a;
}

static bool check_mr(struct ibv_mr *mr, struct ibv_pd *pd, void *addr,
                     size_t len, const char *what)
{
    bool ok = true;

    ok &= CHECK(mr->pd == pd, "%s: mr pd", what);
    ok &= CHECK(mr->addr == addr, "%s: mr addr %p, expected %p", what,
                mr->addr, addr);
    ok &= CHECK(mr->length == len, "%s: mr length %zu, expected %zu", what,
                mr->length, len);
    ok &= CHECK(mr->lkey != 0 && mr->rkey != 0, "%s: lkey 0x%x rkey 0x%x",
                what, mr->lkey, mr->rkey);
    /* irdma: one STag serves as both keys. */
    ok &= CHECK(mr->lkey == mr->rkey, "%s: lkey 0x%x != rkey 0x%x", what,
                mr->lkey, mr->rkey);
    return ok;
}

/* All live keys differ in their index bits (one check per call). */
static void check_keys_unique(struct ibv_mr **mrs, int n, uint32_t stag_idx_mask)
{
    int i, j, dup = -1;

    for (i = 0; i < n && dup < 0; i++) {
        for (j = i + 1; j < n; j++) {
            if (mrs[i] && mrs[j] &&
                !((mrs[i]->lkey ^ mrs[j]->lkey) >> 8 & stag_idx_mask)) {
                dup = j;
                break;
            }
        }
    }
    CHECK(dup < 0, "MRs %d and %d share an STag index (0x%x, 0x%x)", i - 1,
          dup, dup < 0 ? 0 : mrs[i - 1]->lkey, dup < 0 ? 0 : mrs[dup]->lkey);
}

/* ---- the object loop ---------------------------------------------------- */

static const int cq_sizes[] = { 1, 2, 16, 63, 64, 255, 256, 1000, 4096 };
#define NCQ ((int)(sizeof(cq_sizes) / sizeof(cq_sizes[0])))

static void loop_pd_cq(struct ibv_context *ctx)
{
    struct ibv_pd *pd[16];
    struct ibv_cq *cq[NCQ];
    struct ibv_comp_channel *ch;
    struct ibv_cq *big_cq;
    int i;

    for (i = 0; i < 16; i++) {
        pd[i] = ibv_alloc_pd(ctx);
        if (CHECK(pd[i], "ibv_alloc_pd %d: %s", i, strerror(errno))) {
            cnt.pd++;
            CHECK(pd[i]->context == ctx, "pd %d context", i);
        }
    }
    check_limits(ctx, "16 PDs");
    FREE_ALL(pd, 16, ibv_dealloc_pd);

    ch = ibv_create_comp_channel(ctx);
    CHECK(ch, "ibv_create_comp_channel: %s", strerror(errno));
    for (i = 0; i < NCQ; i++) {
        cq[i] = ibv_create_cq(ctx, cq_sizes[i], &cq[i], i % 2 ? ch : NULL,
                              i % (ctx->num_comp_vectors > 0 ? ctx->num_comp_vectors : 1));
        if (!CHECK(cq[i], "ibv_create_cq(%d): %s", cq_sizes[i],
                   strerror(errno))) {
            continue;
        }
        cnt.cq++;
        vlog("cq %d: asked %d got %d", i, cq_sizes[i], cq[i]->cqe);
        CHECK(cq[i]->cqe >= cq_sizes[i], "cq of %d has cqe %d", cq_sizes[i],
              cq[i]->cqe);
        CHECK(cq[i]->cqe <= 4 * cq_sizes[i] + 64, "cq of %d has cqe %d",
              cq_sizes[i], cq[i]->cqe);
        CHECK(cq[i]->cq_context == &cq[i], "cq %d context", i);
        if (i % 2) {
            CHECK(ibv_req_notify_cq(cq[i], i % 4 == 1) == 0,
                  "ibv_req_notify_cq: %s", strerror(errno));
        }
    }
    check_limits(ctx, "CQs");
    /* Nothing completes: an empty poll, no event pending. */
    for (i = 0; i < NCQ; i++) {
        struct ibv_wc wc;

        if (cq[i]) {
            CHECK(ibv_poll_cq(cq[i], 1, &wc) == 0, "poll of idle cq %d", i);
        }
    }
    /* Resize: grow each, then shrink back to (at least) its old need. */
    for (i = 0; i < NCQ; i++) {
        int want = cq_sizes[i] * 4 + 10, r;

        if (!cq[i]) {
            continue;
        }
        r = ibv_resize_cq(cq[i], want);
        if (r == EOPNOTSUPP || r == ENOSYS) {
            printf("resize_cq: not supported (%d)\n", r);
            break;
        }
        if (CHECK(r == 0, "ibv_resize_cq(%d -> %d): %s", cq_sizes[i], want,
                  strerror(r))) {
            cnt.resize++;
            CHECK(cq[i]->cqe >= want, "resized cq has cqe %d < %d",
                  cq[i]->cqe, want);
        }
        r = ibv_resize_cq(cq[i], cq_sizes[i] + 1);
        if (CHECK(r == 0, "ibv_resize_cq(-> %d): %s", cq_sizes[i] + 1,
                  strerror(r))) {
            cnt.resize++;
            CHECK(cq[i]->cqe >= cq_sizes[i] + 1, "shrunk cq has cqe %d < %d",
                  cq[i]->cqe, cq_sizes[i] + 1);
        }
        if (i % 2) {
            CHECK(ibv_req_notify_cq(cq[i], 0) == 0,
                  "ibv_req_notify_cq after resize: %s", strerror(errno));
        }
    }
    /* The largest CQ the device reports (a level-1 ring of 32 MiB), once. */
    {
        static bool done;
        struct ibv_cq *mc;

        if (!done) {
            done = true;
            mc = ibv_create_cq(ctx, base.max_cqe, NULL, NULL, 0);
            if (CHECK(mc, "CQ of max_cqe %d: %s", base.max_cqe,
                      strerror(errno))) {
                cnt.cq++;
                CHECK(mc->cqe >= base.max_cqe, "CQ of max_cqe has cqe %d",
                      mc->cqe);
                CHECK(ibv_req_notify_cq(mc, 0) == 0, "arm max CQ: %s",
                      strerror(errno));
                CHECK(ibv_destroy_cq(mc) == 0, "destroy max CQ: %s",
                      strerror(errno));
            }
            /* libirdma asks the kernel for 2 * (cqe + 1) entries on a
             * resize (and the kernel checks that against its max_cqe),
             * so half of max_cqe is the largest resize that can work. */
            mc = ibv_create_cq(ctx, 16, NULL, NULL, 0);
            if (CHECK(mc, "CQ of 16: %s", strerror(errno))) {
                int want = (base.max_cqe - 1) / 2;
                int r = ibv_resize_cq(mc, want);

                cnt.cq++;
                if (CHECK(r == 0, "resize to %d: %s", want, strerror(r))) {
                    cnt.resize++;
                    CHECK(mc->cqe >= want, "resized to %d: %d", want, mc->cqe);
                }
                CHECK(ibv_destroy_cq(mc) == 0, "destroy: %s", strerror(errno));
            }
        }
    }
    /* Larger than the device allows. */
    errno = 0;
    big_cq = ibv_create_cq(ctx, base.max_cqe + 1, NULL, NULL, 0);
    if (!CHECK(!big_cq, "CQ of max_cqe + 1 (%d) was created", base.max_cqe + 1)) {
        ibv_destroy_cq(big_cq);
    }
    FREE_ALL(cq, NCQ, ibv_destroy_cq);
    if (ch) {
        CHECK(ibv_destroy_comp_channel(ch) == 0,
              "ibv_destroy_comp_channel: %s", strerror(errno));
    }
    check_limits(ctx, "after CQs");
}

static const int mr_access[] = {
    0,
    IBV_ACCESS_LOCAL_WRITE,
    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ,
    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
    IBV_ACCESS_REMOTE_READ,
    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND,
};
#define NACC ((int)(sizeof(mr_access) / sizeof(mr_access[0])))

static void loop_mr(struct ibv_context *ctx, uint8_t *big, size_t biglen,
                    uint32_t stag_idx_mask)
{
    const size_t sizes[] = { 4096, 64 * 1024, 2 * MiB, 64 * MiB, biglen };
    enum { NS = sizeof(sizes) / sizeof(sizes[0]) };
    struct ibv_mr *mr[NS * NACC + 8];
    int acc[NS * NACC + 8];
    struct ibv_pd *pd = ibv_alloc_pd(ctx), *pd2 = ibv_alloc_pd(ctx);
    int n = 0, i, s, a;
    char what[96];

    if (!CHECK(pd && pd2, "ibv_alloc_pd: %s", strerror(errno))) {
        return;
    }
    cnt.pd += 2;
    memset(mr, 0, sizeof(mr));
    for (s = 0; s < (int)NS; s++) {
        if (sizes[s] > biglen) {
            continue;
        }
        for (a = 0; a < NACC; a++) {
            /* The big ones once per access class suffice. */
            if (sizes[s] >= 64 * MiB && a != 1 && a != 4) {
                continue;
            }
            /* Offsets inside the buffer: page aligned and not. */
            size_t off = (a % 3 == 2 && sizes[s] + 4096 <= biglen) ? 4096 : 0;
            size_t len = sizes[s] - (a == 5 && sizes[s] > 4096 ? 100 : 0);

            snprintf(what, sizeof(what), "MR %zu KiB +%zu access 0x%x",
                     len / 1024, off, mr_access[a]);
            mr[n] = ibv_reg_mr(pd, big + off, len, mr_access[a]);
            if (!CHECK(mr[n], "%s: ibv_reg_mr: %s", what, strerror(errno))) {
                continue;
            }
            cnt.mr++;
            vlog("%s: lkey 0x%x", what, mr[n]->lkey);
            check_mr(mr[n], pd, big + off, len, what);
            acc[n] = mr_access[a];
            n++;
        }
    }
    /* IOVA different from the address (the device sees VA = iova). */
    mr[n] = ibv_reg_mr_iova(pd, big + 8192, 2 * MiB, 0x100000000ull,
                            IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
    if (CHECK(mr[n], "ibv_reg_mr_iova: %s", strerror(errno))) {
        cnt.mr++;
        acc[n] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;
        check_mr(mr[n], pd, big + 8192, 2 * MiB, "iova MR");
        n++;
    }
    /* A THP-backed region (2M pages where the kernel found them). */
    {
        void *raw;
        size_t rawlen;
        uint8_t *h = map_huge(8 * MiB, &raw, &rawlen);

        if (CHECK(h, "mmap huge: %s", strerror(errno))) {
            struct ibv_mr *hm = ibv_reg_mr(pd, h, 8 * MiB,
                                           IBV_ACCESS_LOCAL_WRITE);

            if (CHECK(hm, "ibv_reg_mr(THP 8 MiB): %s", strerror(errno))) {
                cnt.mr++;
                check_mr(hm, pd, h, 8 * MiB, "THP MR");
                check_limits(ctx, "MRs");
                CHECK(ibv_dereg_mr(hm) == 0, "dereg THP MR: %s",
                      strerror(errno));
            }
            munmap(raw, rawlen);
        }
    }
    check_keys_unique(mr, n, stag_idx_mask);
    check_limits(ctx, "MRs");

    /* Re-registration: access, PD, translation (irdma deallocates the
     * STag in the device and registers it again). */
    for (i = 0; i < n; i++) {
        struct ibv_mr *m = mr[i];
        int r;

        if (!m || m->length > 2 * MiB) {
            continue;
        }
        switch (i % 3) {
        case 0:
            /* Write access needs pages pinned writable (the kernel
             * refuses it for a region registered read-only). */
            r = ibv_rereg_mr(m, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
                             acc[i] & (IBV_ACCESS_LOCAL_WRITE |
                                       IBV_ACCESS_REMOTE_WRITE) ?
                             IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE :
                             IBV_ACCESS_REMOTE_READ);
            break;
        case 1:
            r = ibv_rereg_mr(m, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0);
            break;
        default:
            r = ibv_rereg_mr(m, IBV_REREG_MR_CHANGE_TRANSLATION, NULL,
                             big + 3 * 4096, 16 * 4096, 0);
            break;
        }
        if (r == IBV_REREG_MR_ERR_CMD && (errno == EOPNOTSUPP || errno == ENOSYS)) {
            printf("rereg_mr: not supported\n");
            break;
        }
        if (!CHECK(r == 0, "ibv_rereg_mr(MR %d, kind %d): %d %s", i, i % 3, r,
                   strerror(errno))) {
            if (r == IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW ||
                r == IBV_REREG_MR_ERR_DO_FORK_OLD) {
                mr[i] = NULL;       /* the MR is gone */
            }
            continue;
        }
        cnt.rereg++;
        if (i % 3 == 1) {
            CHECK(m->pd == pd2, "rereg PD: pd not updated");
        } else if (i % 3 == 2) {
            CHECK(m->addr == big + 3 * 4096 && m->length == 16 * 4096,
                  "rereg translation: addr %p length %zu", m->addr, m->length);
        }
        CHECK(m->lkey != 0 && m->lkey == m->rkey, "rereg: lkey 0x%x rkey 0x%x",
              m->lkey, m->rkey);
    }
    check_keys_unique(mr, n, stag_idx_mask);
    check_limits(ctx, "MRs after rereg");

    /* Invalid requests fail cleanly. */
    errno = 0;
    {
        struct ibv_mr *bad = ibv_reg_mr(pd, big, 4096, IBV_ACCESS_REMOTE_WRITE);

        if (!CHECK(!bad, "REMOTE_WRITE without LOCAL_WRITE was registered")) {
            ibv_dereg_mr(bad);
        }
    }
    /* Release every other one, then register again into the holes. */
    for (i = 0; i < n; i += 2) {
        if (mr[i]) {
            CHECK(ibv_dereg_mr(mr[i]) == 0, "ibv_dereg_mr %d: %s", i,
                  strerror(errno));
            mr[i] = NULL;
        }
    }
    for (i = 0; i < n; i += 2) {
        size_t len = (size_t)4096 << (i % 10);

        mr[i] = ibv_reg_mr(pd, big, len, IBV_ACCESS_LOCAL_WRITE);
        if (CHECK(mr[i], "re-register %d: %s", i, strerror(errno))) {
            cnt.mr++;
            check_mr(mr[i], pd, big, len, "re-registered MR");
        }
    }
    check_keys_unique(mr, n, stag_idx_mask);
    FREE_ALL(mr, n, ibv_dereg_mr);
    /* A PD with MRs on it cannot go, a free one can. */
    CHECK(ibv_dealloc_pd(pd) == 0, "dealloc pd: %s", strerror(errno));
    CHECK(ibv_dealloc_pd(pd2) == 0, "dealloc pd2: %s", strerror(errno));
    check_limits(ctx, "after MRs");
}

static void loop_mw(struct ibv_context *ctx)
{
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    struct ibv_mw *mw[8];
    int i;
    static bool said[3];

    if (!CHECK(pd, "ibv_alloc_pd: %s", strerror(errno))) {
        return;
    }
    cnt.pd++;
    for (i = 0; i < 8; i++) {
        enum ibv_mw_type t = i % 2 ? IBV_MW_TYPE_2 : IBV_MW_TYPE_1;

        mw[i] = ibv_alloc_mw(pd, t);
        if (!mw[i] && (errno == EOPNOTSUPP || errno == ENOSYS)) {
            /* gen2 irdma 7.x reports max_mw 0: no windows from user space.
             * 6.x reports max_mw = max_mr but no type 2A/2B capability:
             * type 1 windows only. */
            CHECK(base.max_mw == 0 ||
                  (t == IBV_MW_TYPE_2 &&
                   !(base.device_cap_flags & (IBV_DEVICE_MEM_WINDOW_TYPE_2A |
                                              IBV_DEVICE_MEM_WINDOW_TYPE_2B))),
                  "alloc_mw type %d: %s with max_mw %d cap_flags 0x%x", t,
                  strerror(errno), base.max_mw, base.device_cap_flags);
            if (!said[t]) {
                printf("alloc_mw type %d: not supported (max_mw %d)\n", t,
                       base.max_mw);
                said[t] = true;
            }
            continue;
        }
        if (!CHECK(mw[i], "ibv_alloc_mw(type %d): %s", t, strerror(errno))) {
            continue;
        }
        cnt.mw++;
        CHECK(mw[i]->rkey != 0 && mw[i]->type == t && mw[i]->pd == pd,
              "mw %d: rkey 0x%x type %d", i, mw[i]->rkey, mw[i]->type);
    }
    FREE_ALL(mw, 8, ibv_dealloc_mw);
    CHECK(ibv_dealloc_pd(pd) == 0, "dealloc pd: %s", strerror(errno));
}

static const char *qps_str(enum ibv_qp_state s)
{
    static const char *n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE",
                               "ERR", "UNKNOWN" };

    return s <= IBV_QPS_UNKNOWN ? n[s] : "?";
}

static void check_qp_state(struct ibv_qp *qp, enum ibv_qp_state want,
                           int access, const struct ibv_qp_cap *cap,
                           const char *what)
{
    struct ibv_qp_attr a;
    struct ibv_qp_init_attr ia;

    memset(&a, 0, sizeof(a));
    memset(&ia, 0, sizeof(ia));
    if (!CHECK(ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_CAP |
                            IBV_QP_ACCESS_FLAGS, &ia) == 0,
               "%s: ibv_query_qp: %s", what, strerror(errno))) {
        return;
    }
    CHECK(a.qp_state == want, "%s: state %s, expected %s", what,
          qps_str(a.qp_state), qps_str(want));
    CHECK(qp->state == want, "%s: qp->state %s", what, qps_str(qp->state));
    if (access >= 0) {
        /* iWARP QPs keep two switches: write/read-response (LOCAL_WRITE
         * or REMOTE_WRITE) and read (REMOTE_READ); reported as flags.
         * 6.x irdma also reports MW_BIND: it sets bind_en on every iWARP
         * QP (verbs.c:irdma_iw_fill_and_set_qpctx_info) and its query
         * turns that into the flag; 7.x no longer does and has no windows
         * (max_mw 0), so the flag is accepted only with windows. */
        int extra = base.max_mw ? IBV_ACCESS_MW_BIND : 0;
        int need = (access & (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) ?
                    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE : 0) |
                   (access & IBV_ACCESS_REMOTE_READ);

        CHECK(((int)a.qp_access_flags & need) == need &&
              !(a.qp_access_flags & ~(IBV_ACCESS_LOCAL_WRITE |
                                      IBV_ACCESS_REMOTE_WRITE |
                                      IBV_ACCESS_REMOTE_READ | extra)),
              "%s: access 0x%x, expected 0x%x", what, a.qp_access_flags,
              need);
    }
    CHECK(a.cap.max_send_wr >= cap->max_send_wr &&
          a.cap.max_recv_wr >= cap->max_recv_wr &&
          a.cap.max_send_sge >= cap->max_send_sge &&
          a.cap.max_recv_sge >= cap->max_recv_sge &&
          a.cap.max_inline_data >= cap->max_inline_data,
          "%s: query caps %u/%u/%u/%u/%u below created %u/%u/%u/%u/%u", what,
          a.cap.max_send_wr, a.cap.max_recv_wr, a.cap.max_send_sge,
          a.cap.max_recv_sge, a.cap.max_inline_data, cap->max_send_wr,
          cap->max_recv_wr, cap->max_send_sge, cap->max_recv_sge,
          cap->max_inline_data);
    CHECK(ia.send_cq == qp->send_cq && ia.recv_cq == qp->recv_cq,
          "%s: init attrs name other CQs", what);
}

static void loop_qp(struct ibv_context *ctx)
{
    struct {
        uint32_t swr, rwr, ssge, rsge, inl;
    } const caps[] = {
        { 1, 1, 1, 1, 0 },
        { 16, 16, 2, 2, 64 },
        { 64, 128, 4, 1, 0 },
        { 256, 1, 1, 4, 101 },
        { 1024, 1024, 13, 13, 0 },
        { 0, 0, 0, 0, 0 },          /* max_qp_wr: filled below */
        { 8, 0, 1, 0, 0 },          /* no receive queue work requests */
    };
    enum { NQ = sizeof(caps) / sizeof(caps[0]) };
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    struct ibv_cq *scq = ibv_create_cq(ctx, 512, NULL, NULL, 0);
    struct ibv_cq *rcq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
    struct ibv_qp *qp[NQ];
    struct ibv_qp_cap got[NQ];        /* what was asked for */
    int i, nq = 0;
    char what[64];

    if (!CHECK(pd && scq && rcq, "pd/cq for QPs: %s", strerror(errno))) {
        return;
    }
    cnt.pd++;
    cnt.cq += 2;
    for (i = 0; i < NQ; i++) {
        struct ibv_qp_init_attr ia;

        memset(&ia, 0, sizeof(ia));
        ia.qp_type = IBV_QPT_RC;
        ia.send_cq = scq;
        ia.recv_cq = i % 2 ? rcq : scq;
        ia.qp_context = &qp[i];
        ia.sq_sig_all = i % 2;
        ia.cap.max_send_wr = caps[i].swr;
        ia.cap.max_recv_wr = caps[i].rwr;
        ia.cap.max_send_sge = caps[i].ssge;
        ia.cap.max_recv_sge = caps[i].rsge;
        ia.cap.max_inline_data = caps[i].inl;
        if (caps[i].swr == 0 && caps[i].ssge == 0) {
            /* The deepest queues the device reports. */
            ia.cap.max_send_wr = base.max_qp_wr;
            ia.cap.max_recv_wr = base.max_qp_wr;
            ia.cap.max_send_sge = 1;
            ia.cap.max_recv_sge = 1;
        }
        snprintf(what, sizeof(what), "QP %d (%u/%u wr %u/%u sge %u inline)",
                 i, ia.cap.max_send_wr, ia.cap.max_recv_wr,
                 ia.cap.max_send_sge, ia.cap.max_recv_sge,
                 ia.cap.max_inline_data);
        qp[i] = ibv_create_qp(pd, &ia);
        if (!CHECK(qp[i], "%s: ibv_create_qp: %s", what, strerror(errno))) {
            continue;
        }
        nq++;
        cnt.qp++;
        got[i].max_send_wr = caps[i].swr ? caps[i].swr : ia.cap.max_send_wr;
        got[i].max_recv_wr = caps[i].swr ? caps[i].rwr : ia.cap.max_recv_wr;
        got[i].max_send_sge = caps[i].swr ? caps[i].ssge : ia.cap.max_send_sge;
        got[i].max_recv_sge = caps[i].swr ? caps[i].rsge : ia.cap.max_recv_sge;
        got[i].max_inline_data = caps[i].inl;
        vlog("%s: qpn %u caps %u/%u/%u/%u/%u", what, qp[i]->qp_num,
             ia.cap.max_send_wr, ia.cap.max_recv_wr, ia.cap.max_send_sge,
             ia.cap.max_recv_sge, ia.cap.max_inline_data);
        CHECK(qp[i]->qp_num > 0 && qp[i]->qp_num < (uint32_t)base.max_qp + 16,
              "%s: qp_num %u", what, qp[i]->qp_num);
        CHECK(qp[i]->qp_type == IBV_QPT_RC && qp[i]->pd == pd &&
              qp[i]->qp_context == &qp[i], "%s: qp fields", what);
        CHECK(ia.cap.max_send_wr >= caps[i].swr &&
              ia.cap.max_recv_wr >= caps[i].rwr &&
              ia.cap.max_send_sge >= caps[i].ssge &&
              ia.cap.max_recv_sge >= caps[i].rsge &&
              ia.cap.max_inline_data >= caps[i].inl,
              "%s: returned caps %u/%u/%u/%u/%u smaller", what,
              ia.cap.max_send_wr, ia.cap.max_recv_wr, ia.cap.max_send_sge,
              ia.cap.max_recv_sge, ia.cap.max_inline_data);
        CHECK(ia.cap.max_send_sge <= (uint32_t)base.max_sge &&
              ia.cap.max_recv_sge <= (uint32_t)base.max_sge,
              "%s: sge above max_sge", what);
        check_qp_state(qp[i], IBV_QPS_RESET, -1, &got[i], what);
    }
    /* Too large requests are refused. */
    {
        struct ibv_qp_init_attr ia;
        struct ibv_qp *bad;

        memset(&ia, 0, sizeof(ia));
        ia.qp_type = IBV_QPT_RC;
        ia.send_cq = ia.recv_cq = scq;
        ia.cap.max_send_wr = 4;
        ia.cap.max_send_sge = base.max_sge + 1;
        bad = ibv_create_qp(pd, &ia);
        if (!CHECK(!bad, "QP with max_sge + 1 send SGEs was created")) {
            ibv_destroy_qp(bad);
        }
        /* (irdma enforces its WQ quanta limit, not max_qp_wr itself.) */
        ia.cap.max_send_sge = 1;
        ia.cap.max_send_wr = 1u << 20;
        bad = ibv_create_qp(pd, &ia);
        if (!CHECK(!bad, "QP with 2^20 send WRs was created")) {
            ibv_destroy_qp(bad);
        }
    }
    check_limits(ctx, "QPs");
    /* Ordered QP numbers are distinct. */
    for (i = 0; i < NQ; i++) {
        int j;

        for (j = i + 1; j < NQ; j++) {
            if (qp[i] && qp[j]) {
                CHECK(qp[i]->qp_num != qp[j]->qp_num, "QPs %d and %d share "
                      "number %u", i, j, qp[i]->qp_num);
            }
        }
    }
    for (i = 0; i < NQ; i++) {
        struct ibv_qp_attr a;
        int acc = i % 3 == 0 ? IBV_ACCESS_LOCAL_WRITE :
                  i % 3 == 1 ? IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE :
                  IBV_ACCESS_REMOTE_READ;

        if (!qp[i]) {
            continue;
        }
        snprintf(what, sizeof(what), "QP %d", i);
        memset(&a, 0, sizeof(a));
        a.qp_state = IBV_QPS_INIT;
        a.pkey_index = 0;
        a.port_num = 1;
        a.qp_access_flags = acc;
        if (CHECK(ibv_modify_qp(qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
                                IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0,
                  "%s: modify RESET -> INIT: %s", what, strerror(errno))) {
            check_qp_state(qp[i], IBV_QPS_INIT, acc, &got[i], what);
        }
        /* INIT -> INIT with new access flags. */
        memset(&a, 0, sizeof(a));
        a.qp_state = IBV_QPS_INIT;
        a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
        if (CHECK(ibv_modify_qp(qp[i], &a, IBV_QP_STATE |
                                IBV_QP_ACCESS_FLAGS) == 0,
                  "%s: modify INIT -> INIT: %s", what, strerror(errno))) {
            check_qp_state(qp[i], IBV_QPS_INIT, IBV_ACCESS_REMOTE_WRITE,
                           &got[i], what);
        }
        /* Half of them go to ERR (and back to RESET) before destroy. */
        if (i % 2) {
            memset(&a, 0, sizeof(a));
            a.qp_state = IBV_QPS_ERR;
            if (CHECK(ibv_modify_qp(qp[i], &a, IBV_QP_STATE) == 0,
                      "%s: modify INIT -> ERR: %s", what, strerror(errno))) {
                check_qp_state(qp[i], IBV_QPS_ERR, -1, &got[i], what);
            }
            a.qp_state = IBV_QPS_RESET;
            if (CHECK(ibv_modify_qp(qp[i], &a, IBV_QP_STATE) == 0,
                      "%s: modify ERR -> RESET: %s", what, strerror(errno))) {
                check_qp_state(qp[i], IBV_QPS_RESET, -1, &got[i], what);
            }
        }
    }
    /* An idle QP in INIT generates no completions. */
    {
        struct ibv_wc wc[4];

        CHECK(ibv_poll_cq(scq, 4, wc) == 0 && ibv_poll_cq(rcq, 4, wc) == 0,
              "completions on idle QPs' CQs");
    }
    /* A CQ in use by a QP cannot be destroyed. */
    CHECK(ibv_destroy_cq(scq) != 0, "CQ with QPs was destroyed");
    FREE_ALL(qp, NQ, ibv_destroy_qp);
    CHECK(ibv_destroy_cq(scq) == 0, "destroy scq: %s", strerror(errno));
    CHECK(ibv_destroy_cq(rcq) == 0, "destroy rcq: %s", strerror(errno));
    CHECK(ibv_dealloc_pd(pd) == 0, "dealloc pd: %s", strerror(errno));
    check_limits(ctx, "after QPs");
}

/* ---- exhaustion: every CQ, QP and MR the device reports --------------- */

/* The first @n objects were created; the one after must fail.  The count
 * reached must be what query_device promised (the driver may hold a few
 * it created after computing the limit, e.g. its PUDA CQs and QPs). */
static void check_reached(const char *what, int n, int max, int err)
{
    printf("exhaust: %d %ss of max %d, then %s\n", n, what, max,
           strerror(err));
    CHECK(n <= max, "%d %ss created, more than max %d", n, what, max);
    CHECK(n >= max - 8, "only %d %ss of max %d: %s", n, what, max,
          strerror(err));
    CHECK(err == ENOMEM || err == EOVERFLOW || err == ENOSPC ||
          err == EINVAL, "%s %d failed with %s", what, n + 1, strerror(err));
}

static void exhaust(struct ibv_context *ctx, uint8_t *buf)
{
    int cap, n, err;
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    struct ibv_cq **cq, *qcq;
    struct ibv_qp **qp;
    struct ibv_mr **mr;
    struct ibv_qp_init_attr ia;
    double t0 = now(), t;

    if (!CHECK(pd, "ibv_alloc_pd: %s", strerror(errno))) {
        return;
    }
    cnt.pd++;

    cap = base.max_cq + 16;
    cq = calloc(cap, sizeof(*cq));
    CREATE_UNTIL_FAIL(cq, cap, ibv_create_cq(ctx, 1, NULL, NULL, 0), n, err);
    cnt.cq += n;
    check_reached("CQ", n, base.max_cq, err);
    check_limits(ctx, "all CQs");
    FREE_ALL(cq, n, ibv_destroy_cq);
    free(cq);
    printf("exhaust: CQs %.1f s\n", now() - t0);

    t = now();
    qcq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
    CHECK(qcq, "CQ after exhaustion: %s", strerror(errno));
    cap = base.max_qp + 16;
    qp = calloc(cap, sizeof(*qp));
    memset(&ia, 0, sizeof(ia));
    ia.qp_type = IBV_QPT_RC;
    ia.send_cq = ia.recv_cq = qcq;
    ia.cap.max_send_wr = ia.cap.max_recv_wr = 1;
    ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
    n = 0;
    if (qcq) {
        CREATE_UNTIL_FAIL(qp, cap, ibv_create_qp(pd, &ia), n, err);
        cnt.qp += n;
        check_reached("QP", n, base.max_qp, err);
    }
    check_limits(ctx, "all QPs");
    FREE_ALL(qp, n, ibv_destroy_qp);
    free(qp);
    if (qcq) {
        CHECK(ibv_destroy_cq(qcq) == 0, "destroy CQ: %s", strerror(errno));
        cnt.cq++;
    }
    printf("exhaust: QPs %.1f s\n", now() - t);

    t = now();
    cap = base.max_mr + 16;
    mr = calloc(cap, sizeof(*mr));
    CREATE_UNTIL_FAIL(mr, cap,
                      ibv_reg_mr(pd, buf + (n % 16) * 4096, 4096,
                                 IBV_ACCESS_LOCAL_WRITE |
                                 IBV_ACCESS_REMOTE_READ), n, err);
    cnt.mr += n;
    check_reached("MR", n, base.max_mr, err);
    check_limits(ctx, "all MRs");
    check_keys_unique(mr, n < 2048 ? n : 2048, 0xFFFFFF);
    FREE_ALL(mr, n, ibv_dereg_mr);
    free(mr);
    printf("exhaust: MRs %.1f s\n", now() - t);
    CHECK(ibv_dealloc_pd(pd) == 0, "dealloc pd: %s", strerror(errno));
}

/* ---- PBLE fill: level-2 page lists ------------------------------------- */

static void pble_fill(struct ibv_context *ctx, uint8_t *big, size_t biglen)
{
    enum { MAXF = 96 };
    struct ibv_mr *mr[MAXF];
    struct ibv_mr *l2 = NULL, *after = NULL;
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    size_t half = biglen / 2;
    int n = 0, i, err = 0;
    double t0 = now();

    if (!CHECK(pd, "ibv_alloc_pd: %s", strerror(errno))) {
        return;
    }
    cnt.pd++;
    /* Each MR of half the buffer takes half/4K page-list entries (the
     * buffer has 4 KiB pages); register until the driver has none left. */
    for (n = 0; n < MAXF; n++) {
        mr[n] = ibv_reg_mr(pd, big, half, IBV_ACCESS_LOCAL_WRITE);
        if (!mr[n]) {
            err = errno;
            break;
        }
        cnt.pble_mrs++;
    }
    printf("pble: %d MRs of %zu MiB (%zu PBLEs each) before %s (%.1f s)\n",
           n, half / MiB, half / 4096, n < MAXF ? strerror(err) : "the cap",
           now() - t0);
    CHECK(n < MAXF, "PBLEs never ran out after %d MRs of %zu MiB", n,
          half / MiB);
    CHECK(n >= 4, "only %d MRs of %zu MiB fit", n, half / MiB);
    CHECK(n == MAXF || err == ENOMEM, "reg_mr failed with %s, expected ENOMEM",
          strerror(err));
    check_limits(ctx, "PBLE fill");
    /* Three holes, none adjacent to another (MRs are laid out in order);
     * the buffer then fits in none of them but in their sum. */
    if (n >= 6) {
        for (i = 0; i < 3; i++) {
            CHECK(ibv_dereg_mr(mr[2 * i]) == 0, "dereg fill MR %d: %s",
                  2 * i, strerror(errno));
            mr[2 * i] = NULL;
        }
        l2 = ibv_reg_mr(pd, big, biglen, IBV_ACCESS_LOCAL_WRITE |
                        IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
        if (CHECK(l2, "MR of %zu MiB into 3 holes of %zu MiB: %s",
                  biglen / MiB, half / MiB, strerror(errno))) {
            cnt.lvl2_mrs++;
            check_mr(l2, pd, big, biglen, "level-2 MR");
            check_limits(ctx, "level-2 MR");
        }
    }
    for (i = 0; i < n; i++) {
        if (mr[i]) {
            CHECK(ibv_dereg_mr(mr[i]) == 0, "dereg fill MR %d: %s", i,
                  strerror(errno));
        }
    }
    if (l2) {
        CHECK(ibv_dereg_mr(l2) == 0, "dereg level-2 MR: %s", strerror(errno));
    }
    /* All entries are free again: the whole buffer fits in one list. */
    after = ibv_reg_mr(pd, big, biglen, IBV_ACCESS_LOCAL_WRITE);
    if (CHECK(after, "MR of %zu MiB after the fill: %s", biglen / MiB,
              strerror(errno))) {
        cnt.mr++;
        CHECK(ibv_dereg_mr(after) == 0, "dereg: %s", strerror(errno));
    }
    CHECK(ibv_dealloc_pd(pd) == 0, "dealloc pd: %s", strerror(errno));
    check_limits(ctx, "after PBLE fill");
    printf("pble: done (%.1f s)\n", now() - t0);
}

/* ---- hold: objects left to the kernel's cleanup ------------------------ */

/* Create a mix of objects, say so, and wait to be killed: the kernel then
 * destroys them all (uverbs cleanup of a dead process). */
static void hold(struct ibv_context *ctx, uint8_t *big, size_t biglen)
{
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
    struct ibv_cq *cq[64];
    int ncq = 0, nqp = 0, nmr = 0, i;

    if (!pd || !ch) {
        printf("FAIL: hold: pd/channel: %s\n", strerror(errno));
        exit(1);
    }
    for (i = 0; i < 64; i++) {
        cq[i] = ibv_create_cq(ctx, 1 + i * 37, NULL, i % 2 ? ch : NULL, 0);
        if (cq[i]) {
            ncq++;
            if (i % 2) {
                ibv_req_notify_cq(cq[i], 0);
            }
        }
    }
    for (i = 0; i < 256 && ncq == 64; i++) {
        struct ibv_qp_init_attr ia;
        struct ibv_qp_attr a;
        struct ibv_qp *qp;

        memset(&ia, 0, sizeof(ia));
        ia.qp_type = IBV_QPT_RC;
        ia.send_cq = cq[i % 64];
        ia.recv_cq = cq[(i + 1) % 64];
        ia.cap.max_send_wr = ia.cap.max_recv_wr = 1 + i;
        ia.cap.max_send_sge = ia.cap.max_recv_sge = 1 + i % 4;
        qp = ibv_create_qp(pd, &ia);
        if (!qp) {
            continue;
        }
        nqp++;
        memset(&a, 0, sizeof(a));
        a.qp_state = IBV_QPS_INIT;
        a.port_num = 1;
        a.qp_access_flags = IBV_ACCESS_REMOTE_READ;
        if (i % 2) {
            ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
                          IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
        }
    }
    for (i = 0; i < 2048; i++) {
        size_t len = (size_t)4096 << (i % 8);

        if (ibv_reg_mr(pd, big + (i % 64) * 4096, len,
                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)) {
            nmr++;
        }
    }
    if (ibv_reg_mr(pd, big, biglen, IBV_ACCESS_LOCAL_WRITE)) {
        nmr++;
    }
    printf("holding: cq %d qp %d mr %d\n", ncq, nqp, nmr);
    fflush(stdout);
    for (;;) {
        pause();
    }
}

/* ---- main --------------------------------------------------------------- */

int main(int argc, char **argv)
{
    const char *want = NULL;
    int loops = 2, fill = 1, exh = 1, hold_only = 0, opt, i, ndev;
    size_t biglen = 256 * MiB;
    struct ibv_device **list, *dev = NULL;
    struct ibv_context *ctx;
    struct ibv_device_attr a;
    uint32_t stag_idx_mask;
    uint8_t *big;
    double t0 = now(), t;

    setvbuf(stdout, NULL, _IOLBF, 0);
    while ((opt = getopt(argc, argv, "d:n:m:FXHv")) != -1) {
        switch (opt) {
        case 'd': want = optarg; break;
        case 'n': loops = atoi(optarg); break;
        case 'm': biglen = strtoull(optarg, NULL, 0) * MiB; break;
        case 'F': fill = 0; break;
        case 'X': exh = 0; break;
        case 'H': hold_only = 1; break;
        case 'v': verbose = 1; break;
        default:
            fprintf(stderr, "usage: %s [-d DEV] [-n LOOPS] [-m MIB] [-F] [-X] [-H] [-v]\n",
                    argv[0]);
            return 2;
        }
    }
    list = ibv_get_device_list(&ndev);
    if (!list || ndev == 0) {
        printf("FAIL: no RDMA devices (%s)\n", strerror(errno));
        printf("verbs-lifecycle: FAIL no device\n");
        return 1;
    }
    for (i = 0; i < ndev; i++) {
        if (want ? strcmp(ibv_get_device_name(list[i]), want) == 0 :
            list[i]->transport_type == IBV_TRANSPORT_IWARP) {
            dev = list[i];
            break;
        }
    }
    if (!dev) {
        printf("FAIL: no device %s\n", want ? want : "with iWARP transport");
        printf("verbs-lifecycle: FAIL no device\n");
        return 1;
    }
    ctx = ibv_open_device(dev);
    if (!ctx) {
        printf("FAIL: ibv_open_device(%s): %s\n", ibv_get_device_name(dev),
               strerror(errno));
        printf("verbs-lifecycle: FAIL open\n");
        return 1;
    }
    check_device(ctx, dev);
    /* STag index bits: irdma keeps the HMC index in the low bits of the
     * 24-bit index (at least 14 of them). */
    stag_idx_mask = 1;
    while ((int)stag_idx_mask < base.max_mr) {
        stag_idx_mask = stag_idx_mask << 1 | 1;
    }
    big = map_mem(biglen, false);
    if (!CHECK(big, "mmap of %zu MiB: %s", biglen / MiB, strerror(errno))) {
        return 1;
    }
    printf("phase device: %.1f s\n", now() - t0);
    if (hold_only) {
        hold(ctx, big, biglen);
    }

    for (i = 0; i < loops; i++) {
        t = now();
        loop_pd_cq(ctx);
        loop_mr(ctx, big, biglen, stag_idx_mask);
        loop_mw(ctx);
        loop_qp(ctx);
        printf("loop %d: %.1f s, %d failures so far\n", i + 1, now() - t,
               failures);
    }
    if (exh) {
        exhaust(ctx, big);
    }
    if (fill) {
        pble_fill(ctx, big, biglen);
    }
    /* Everything we made is gone again. */
    if (CHECK(ibv_query_device(ctx, &a) == 0, "query_device: %s",
              strerror(errno))) {
        CHECK(a.max_qp == base.max_qp && a.max_cq == base.max_cq &&
              a.max_mr == base.max_mr && a.max_pd == base.max_pd,
              "limits not restored: qp %d/%d cq %d/%d mr %d/%d pd %d/%d",
              a.max_qp, base.max_qp, a.max_cq, base.max_cq, a.max_mr,
              base.max_mr, a.max_pd, base.max_pd);
    }
    munmap(big, biglen);
    CHECK(ibv_close_device(ctx) == 0, "ibv_close_device: %s", strerror(errno));
    ibv_free_device_list(list);
    printf("verbs-lifecycle: %s checks %d failures %d loops %d pd %u cq %u "
           "resize %u mr %u rereg %u qp %u mw %u pble_fill %u level2 %u "
           "(%.1f s)\n", failures ? "FAIL" : "PASS", checks, failures, loops,
           cnt.pd, cnt.cq, cnt.resize, cnt.mr, cnt.rereg, cnt.qp, cnt.mw,
           cnt.pble_mrs, cnt.lvl2_mrs, now() - t0);
    return failures ? 1 : 0;
}
