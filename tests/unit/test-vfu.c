/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e810-vfio-user's message handler, driven in-process over a socketpair:
 * the test is the client.  Negotiation, region and IRQ info, config
 * space, BAR0 through the core, DMA through a mapped memfd and through
 * DMA_READ messages, MSI-X eventfds and masking, posted writes, reset,
 * and malformed requests, each refused with the server still working.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "regs.h"
#include "vfu-server.h"
#include "bytes.h"
#include "trace.h"

static VfuServer srv;
static int cli = -1;            /* the test's end */
static uint16_t next_id = 1;

typedef struct Reply {
    VfuHdr h;
    uint8_t data[8192];
    bool none;                  /* nothing came back */
} Reply;

static Reply rep;

static void send_raw(const void *buf, size_t len, const int *fds, unsigned n)
{
    char ctl[CMSG_SPACE(32 * sizeof(int))];
    struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

    if (n) {
        struct cmsghdr *c;

        memset(ctl, 0, sizeof(ctl));
        mh.msg_control = ctl;
        mh.msg_controllen = CMSG_SPACE(n * sizeof(int));
        c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(n * sizeof(int));
        memcpy(CMSG_DATA(c), fds, n * sizeof(int));
    }
    if (sendmsg(cli, &mh, 0) != (ssize_t)len) {
        fprintf(stderr, "sendmsg failed\n");
        exit(1);
    }
}

/* Read a reply if one is there (the server has run already). */
static void get_reply(void)
{
    ssize_t n = recv(cli, &rep.h, sizeof(rep.h), MSG_DONTWAIT);

    rep.none = n <= 0;
    if (rep.none) {
        return;
    }
    CHECK_EQ(n, sizeof(rep.h));
    CHECK(rep.h.size >= sizeof(rep.h) &&
          rep.h.size - sizeof(rep.h) <= sizeof(rep.data));
    if (rep.h.size > sizeof(rep.h)) {
        CHECK_EQ(recv(cli, rep.data, rep.h.size - sizeof(rep.h), MSG_WAITALL),
                 rep.h.size - sizeof(rep.h));
    }
}

/* One request: header + payload, optional fds; the server handles it. */
static void req_fds(uint16_t cmd, uint32_t flags, const void *p, size_t len,
                    const int *fds, unsigned n)
{
    uint8_t buf[8192 + 64];
    VfuHdr h = {
        .id = next_id++, .command = cmd, .size = sizeof(h) + len,
        .flags = flags,
    };

    memcpy(buf, &h, sizeof(h));
    if (len) {
        memcpy(buf + sizeof(h), p, len);
    }
    send_raw(buf, sizeof(h) + len, fds, n);
    CHECK_EQ(vfu_server_recv(&srv), 1);
    get_reply();
    if (!rep.none && !(flags & VFU_FLAG_NO_REPLY)) {
        CHECK_EQ(rep.h.id, h.id);
        CHECK_EQ(rep.h.command, cmd);
    }
}

static void req(uint16_t cmd, const void *p, size_t len)
{
    req_fds(cmd, 0, p, len, NULL, 0);
}

static bool ok_reply(void)
{
    return !rep.none && rep.h.flags == VFU_FLAG_REPLY;
}

static bool err_reply(uint32_t err)
{
    return !rep.none && rep.h.flags == (VFU_FLAG_REPLY | VFU_FLAG_ERROR) &&
           rep.h.error == err;
}

/* Whether the server answers request @cmd (@len bytes at @p) with error
 * @err. */
static bool refused(uint16_t cmd, const void *p, size_t len, uint32_t err)
{
    req(cmd, p, len);
    return err_reply(err);
}

static uint64_t region_read(uint32_t region, uint64_t off, uint32_t count)
{
    VfuRegionRw rw = { .offset = off, .region = region, .count = count };
    uint64_t v = 0;

    req(VFU_CMD_REGION_READ, &rw, sizeof(rw));
    CHECK(ok_reply());
    if (ok_reply() && count <= 8) {
        memcpy(&v, rep.data + sizeof(rw), count);
    }
    return v;
}

/* Whether a read of @count bytes at @off of region @region is refused
 * (EINVAL). */
static bool read_refused(uint32_t region, uint64_t off, uint32_t count)
{
    VfuRegionRw rw = { .offset = off, .region = region, .count = count };

    return refused(VFU_CMD_REGION_READ, &rw, sizeof(rw), EINVAL);
}

static void region_write_flags(uint32_t region, uint64_t off, uint64_t val,
                               uint32_t count, uint32_t flags)
{
    uint8_t buf[sizeof(VfuRegionRw) + 8];
    VfuRegionRw rw = { .offset = off, .region = region, .count = count };

    memcpy(buf, &rw, sizeof(rw));
    memcpy(buf + sizeof(rw), &val, count);
    req_fds(VFU_CMD_REGION_WRITE, flags, buf, sizeof(rw) + count, NULL, 0);
}

static void region_write(uint32_t region, uint64_t off, uint64_t val,
                         uint32_t count)
{
    region_write_flags(region, off, val, count, 0);
    CHECK(ok_reply());
}

static void negotiate(void)
{
    static const char caps[] =
        "{\"capabilities\":{\"max_msg_fds\":16,\"max_data_xfer_size\":65536}}";
    uint8_t buf[4 + sizeof(caps)];

    memset(buf, 0, 4);
    memcpy(buf + 4, caps, sizeof(caps));
    req(VFU_CMD_VERSION, buf, sizeof(buf));
}

static void setup(void)
{
    VfuConfig cfg = {
        .mac = { 0x52, 0x54, 0x00, 0xAB, 0xCD, 0xEF },
        .mem_limit = E810_MEM_LIMIT_DEFAULT,
    };
    int sv[2];

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
        exit(1);
    }
    vfu_server_init(&srv, &cfg);
    vfu_server_attach(&srv, sv[0]);
    cli = sv[1];
}

static void teardown(void)
{
    vfu_server_cleanup(&srv);
    close(cli);
    cli = -1;
}

/* ---- tests ------------------------------------------------------------- */

static void test_version(void)
{
    uint8_t bad[8] = { 1, 0, 0, 0, 'x', 'y', 'z', 'w' };
    VfuDeviceInfo di = { .argsz = sizeof(di) };

    setup();
    /* Nothing before VERSION; major 1; caps not terminated; short */
    CHECK(refused(VFU_CMD_DEVICE_GET_INFO, &di, sizeof(di), EINVAL));
    CHECK(refused(VFU_CMD_VERSION, bad, sizeof(bad), ENOTSUP));
    bad[0] = 0;
    CHECK(refused(VFU_CMD_VERSION, bad, sizeof(bad), EINVAL));
    CHECK(refused(VFU_CMD_VERSION, bad, 2, EINVAL));
    negotiate();
    CHECK(ok_reply());
    CHECK_EQ(ld16(rep.data), 0);
    CHECK_EQ(ld16(rep.data + 2), 0);
    CHECK_EQ(rep.data[rep.h.size - sizeof(VfuHdr) - 1], 0);
    CHECK(strstr((char *)rep.data + 4, "\"max_msg_fds\":8") != NULL);
    CHECK(strstr((char *)rep.data + 4, "\"pgsizes\":4096") != NULL);
    CHECK(strstr((char *)rep.data + 4, "migration") == NULL);
    CHECK_EQ(srv.peer_max_xfer, 65536);
    teardown();
}

static void test_info(void)
{
    VfuDeviceInfo di = { .argsz = sizeof(di) };
    VfuRegionInfo ri = { .argsz = sizeof(ri) };
    VfuIrqInfo ii = { .argsz = sizeof(ii) };

    setup();
    negotiate();
    req(VFU_CMD_DEVICE_GET_INFO, &di, sizeof(di));
    CHECK(ok_reply());
    memcpy(&di, rep.data, sizeof(di));
    CHECK_EQ(di.flags, VFU_DEVICE_FLAGS_PCI | VFU_DEVICE_FLAGS_RESET);
    CHECK_EQ(di.num_regions, 9);
    CHECK_EQ(di.num_irqs, 3);

    for (uint32_t i = 0; i < 9; i++) {
        static const uint64_t sizes[9] = {
            [0] = 32 << 20, [3] = 64 << 10, [7] = 4096,
        };

        ri.index = i;
        req(VFU_CMD_DEVICE_GET_REGION_INFO, &ri, sizeof(ri));
        CHECK(ok_reply());
        CHECK_EQ(rep.h.size, sizeof(VfuHdr) + sizeof(ri));
        CHECK_EQ(ld64(rep.data + 16), sizes[i]);
        CHECK_EQ(ld32(rep.data + 4), sizes[i] ? 3 : 0);
    }
    ri.index = 9;
    CHECK(refused(VFU_CMD_DEVICE_GET_REGION_INFO, &ri, sizeof(ri), EINVAL));
    ri.argsz = 8;
    ri.index = 0;
    CHECK(refused(VFU_CMD_DEVICE_GET_REGION_INFO, &ri, sizeof(ri), EINVAL));

    ii.index = VFU_PCI_MSIX_IRQ;
    req(VFU_CMD_DEVICE_GET_IRQ_INFO, &ii, sizeof(ii));
    CHECK(ok_reply());
    CHECK_EQ(ld32(rep.data + 12), 64);
    ii.index = VFU_PCI_INTX_IRQ;
    req(VFU_CMD_DEVICE_GET_IRQ_INFO, &ii, sizeof(ii));
    CHECK_EQ(ld32(rep.data + 12), 1);
    ii.index = 3;                           /* ERR: none */
    CHECK(refused(VFU_CMD_DEVICE_GET_IRQ_INFO, &ii, sizeof(ii), EINVAL));
    teardown();
}

static void test_config(void)
{
    unsigned cap;

    setup();
    negotiate();
    CHECK_EQ(region_read(7, 0, 4), 0x159B8086);
    CHECK_EQ(region_read(7, 0x2C, 4), 0x00038086);
    CHECK_EQ(region_read(7, 0x08, 4), 0x02000002);
    CHECK_EQ(region_read(7, 0x3D, 1), 1);
    CHECK_EQ(region_read(7, 0x06, 2) & 0x10, 0x10);
    /* The capability chain of the in-QEMU device. */
    cap = region_read(7, 0x34, 1);
    CHECK_EQ(cap, 0x40);
    CHECK_EQ(region_read(7, cap, 1), 0x01);         /* PM */
    cap = region_read(7, cap + 1, 1);
    CHECK_EQ(cap, 0x70);
    CHECK_EQ(region_read(7, cap, 1), 0x11);         /* MSI-X */
    CHECK_EQ(region_read(7, cap + 2, 2), 63);
    CHECK_EQ(region_read(7, cap + 4, 4), 3);        /* table: BAR3 + 0 */
    CHECK_EQ(region_read(7, cap + 8, 4), 0x8003);   /* PBA: BAR3 + 0x8000 */
    cap = region_read(7, cap + 1, 1);
    CHECK_EQ(cap, 0xA0);
    CHECK_EQ(region_read(7, cap, 1), 0x10);         /* PCIe */
    CHECK_EQ(region_read(7, cap + 1, 1), 0);
    CHECK_EQ(region_read(7, 0x100, 4) & 0xFFFF, 3); /* DSN */
    CHECK_EQ(region_read(7, 0x104, 4), 0xFEABCDEF);
    CHECK_EQ(region_read(7, 0x108, 4), 0x525400FF);
    /* BAR sizing */
    CHECK_EQ(region_read(7, 0x10, 4), 0x0C);
    region_write(7, 0x10, 0xFFFFFFFF, 4);
    CHECK_EQ(region_read(7, 0x10, 4), 0xFE00000C);
    region_write(7, 0x14, 0xFFFFFFFF, 4);
    CHECK_EQ(region_read(7, 0x14, 4), 0xFFFFFFFF);
    region_write(7, 0x1C, 0xFFFFFFFF, 4);
    CHECK_EQ(region_read(7, 0x1C, 4), 0xFFFF000C);
    region_write(7, 0x18, 0xFFFFFFFF, 4);           /* BAR2: none */
    CHECK_EQ(region_read(7, 0x18, 4), 0);
    /* Read-only identity, writable command bits only */
    region_write(7, 0, 0x12345678, 4);
    CHECK_EQ(region_read(7, 0, 4), 0x159B8086);
    region_write(7, 4, 0xFFFF, 2);
    CHECK_EQ(region_read(7, 4, 2), 0x0547);
    teardown();
}

static void test_bar0(void)
{
    setup();
    negotiate();
    CHECK_EQ(region_read(0, GLNVM_ULD, 4), 0x73B);
    region_write(0, 0x00080200, 0x800000C0, 4);     /* PF_FW_ATQLEN */
    CHECK_EQ(region_read(0, 0x00080200, 4), 0x800000C0);
    /* Posted: done, and no reply */
    region_write_flags(0, 0x00080200, 0x80000040, 4, VFU_FLAG_NO_REPLY);
    CHECK(rep.none);
    CHECK_EQ(region_read(0, 0x00080200, 4), 0x80000040);
    /* A posted write that is refused: no reply either, but counted */
    region_write_flags(0, 0x00080200, 0, 3, VFU_FLAG_NO_REPLY);
    CHECK(rep.none);
    CHECK_EQ(srv.stats.posted_errors, 1);
    /* Reset: the register file and config space as at power-on */
    region_write(7, 0x10, 0xFFFFFFFF, 4);
    req(VFU_CMD_DEVICE_RESET, NULL, 0);
    CHECK(ok_reply());
    CHECK_EQ(region_read(0, 0x00080200, 4), 0);
    CHECK_EQ(region_read(7, 0x10, 4), 0x0C);
    teardown();
}

static int memfd(size_t size)
{
    int fd = memfd_create("vfu-test", MFD_CLOEXEC);

    if (fd < 0 || ftruncate(fd, size)) {
        exit(1);
    }
    return fd;
}

static void dma_map(uint64_t iova, uint64_t size, uint64_t off, int fd)
{
    VfuDmaMap m = {
        .argsz = sizeof(m), .flags = VFU_DMA_READ | VFU_DMA_WRITE,
        .offset = off, .iova = iova, .size = size,
    };

    req_fds(VFU_CMD_DMA_MAP, 0, &m, sizeof(m), &fd, fd >= 0);
}

static int host_dma_write(uint64_t addr, const void *buf, size_t len)
{
    return srv.core.host.ops->dma_write(srv.core.host.opaque, addr, buf, len);
}

static int host_dma_read(uint64_t addr, void *buf, size_t len)
{
    return srv.core.host.ops->dma_read(srv.core.host.opaque, addr, buf, len);
}

static void host_msix_notify(unsigned vec)
{
    srv.core.host.ops->msix_notify(srv.core.host.opaque, vec);
}

static void test_dma(void)
{
    int a = memfd(0x10000), b = memfd(0x10000);
    uint8_t *ma = mmap(NULL, 0x10000, PROT_READ | PROT_WRITE, MAP_SHARED, a, 0);
    uint8_t *mb = mmap(NULL, 0x10000, PROT_READ | PROT_WRITE, MAP_SHARED, b, 0);
    uint8_t buf[64], back[64];
    VfuDmaUnmap u = { .argsz = sizeof(u) };

    setup();
    negotiate();
    /* Two adjacent regions; the second from an offset into its file. */
    dma_map(0x100000, 0x10000, 0, a);
    CHECK(ok_reply());
    dma_map(0x110000, 0x8000, 0x8000, b);
    CHECK(ok_reply());
    for (unsigned i = 0; i < sizeof(buf); i++) {
        buf[i] = i + 1;
    }
    /* Bus mastering off: refused */
    CHECK(host_dma_write(0x100000, buf, 4) != 0);
    CHECK_EQ(srv.stats.dma_blocked, 1);
    region_write(7, 4, 0x0006, 2);
    CHECK_EQ(host_dma_write(0x100010, buf, 16), 0);
    CHECK(!memcmp(ma + 0x10, buf, 16));
    /* Across the two regions */
    CHECK_EQ(host_dma_write(0x110000 - 32, buf, 64), 0);
    CHECK(!memcmp(ma + 0x10000 - 32, buf, 32));
    CHECK(!memcmp(mb + 0x8000, buf + 32, 32));
    CHECK_EQ(host_dma_read(0x110000 - 32, back, 64), 0);
    CHECK(!memcmp(back, buf, 64));
    /* Past the end of the mappings: a DMA error, nothing written */
    CHECK(host_dma_write(0x118000 - 8, buf, 16) != 0);
    CHECK_EQ(srv.stats.dma_miss, 1);
    CHECK(host_dma_read(0x0, back, 4) != 0);

    /* Malformed maps */
    dma_map(0x108000, 0x10000, 0, a);               /* overlaps */
    CHECK(err_reply(EEXIST));
    dma_map(0x200001, 0x1000, 0, a);                /* unaligned */
    CHECK(err_reply(EINVAL));
    dma_map(0xFFFFFFFFFFFFF000ull, 0x2000, 0, a);   /* wraps */
    CHECK(err_reply(EINVAL));
    dma_map(0x200000, 0, 0, a);                     /* empty */
    CHECK(err_reply(EINVAL));
    dma_map(0x200000, 0x20000, 0, a);               /* past the file */
    CHECK(err_reply(EINVAL));
    /* The client shrinks a mapped file: a DMA error, not a SIGBUS */
    CHECK_EQ(ftruncate(b, 0x1000), 0);
    CHECK(host_dma_write(0x112000, buf, 16) != 0);
    CHECK(host_dma_read(0x112000, back, 16) != 0);
    CHECK_EQ(srv.stats.dma_miss, 4);
    CHECK_EQ(ftruncate(b, 0x10000), 0);
    CHECK_EQ(host_dma_write(0x112000, buf, 16), 0);
    {
        VfuDmaMap m = { .argsz = sizeof(m), .flags = 3, .iova = 0x300000,
                        .size = 0x1000 };
        int two[2] = { a, b };

        req_fds(VFU_CMD_DMA_MAP, 0, &m, sizeof(m), two, 2);
        CHECK(err_reply(EINVAL));                   /* two fds */
    }
    /* Bounded number of mappings (fd-less ones: no mmap needed) */
    for (unsigned i = srv.ndma; i < VFU_MAX_DMA; i++) {
        dma_map(0x10000000ull + i * 0x1000ull, 0x1000, 0, -1);
        CHECK(ok_reply());
    }
    dma_map(0x20000000ull, 0x1000, 0, -1);
    CHECK(err_reply(ENOSPC));

    /* Unmap: whole mappings only, then all */
    u.iova = 0x100000;
    u.size = 0x8000;
    CHECK(refused(VFU_CMD_DMA_UNMAP, &u, sizeof(u), EINVAL));
    u.size = 0x10000;
    req(VFU_CMD_DMA_UNMAP, &u, sizeof(u));
    CHECK(ok_reply());
    CHECK_EQ(ld64(rep.data + 16), 0x10000);
    CHECK(host_dma_write(0x100010, buf, 4) != 0);
    u.iova = u.size = 0;
    u.flags = VFU_DMA_UNMAP_ALL;
    req(VFU_CMD_DMA_UNMAP, &u, sizeof(u));
    CHECK(ok_reply());
    CHECK_EQ(srv.ndma, 0);
    teardown();
    munmap(ma, 0x10000);
    munmap(mb, 0x10000);
    close(a);
    close(b);
}

/* The client side of a DMA_READ the server sends for an fd-less region. */
static void *dma_responder(void *arg)
{
    uint8_t m[256];
    VfuHdr h;

    if (recv(cli, m, sizeof(h) + 16, MSG_WAITALL) != sizeof(h) + 16) {
        return NULL;
    }
    memcpy(&h, m, sizeof(h));
    if (h.command == VFU_CMD_DMA_READ) {
        uint32_t count = ld32(m + sizeof(h) + 8);

        if (arg) {
            /* A posted doorbell overtakes the reply: held, run after. */
            uint8_t w[sizeof(VfuHdr) + sizeof(VfuRegionRw) + 4];
            VfuHdr wh = { .id = 500, .command = VFU_CMD_REGION_WRITE,
                          .size = sizeof(w), .flags = VFU_FLAG_NO_REPLY };
            VfuRegionRw rw = { .offset = 0x00080200, .region = 0,
                               .count = 4 };

            memcpy(w, &wh, sizeof(wh));
            memcpy(w + sizeof(wh), &rw, sizeof(rw));
            st32(w + sizeof(wh) + sizeof(rw), 0x80000011);
            send(cli, w, sizeof(w), 0);
        }

        h.flags = VFU_FLAG_REPLY;
        h.size = sizeof(h) + 16 + count;
        memcpy(m, &h, sizeof(h));
        memset(m + sizeof(h) + 12, 0x5A, count);
        send(cli, m, h.size, 0);
    }
    return NULL;
}

static void test_dma_msg(void)
{
    static int with_doorbell = 1;
    pthread_t t;
    uint8_t back[16];

    setup();
    negotiate();
    region_write(7, 4, 0x0006, 2);
    dma_map(0x400000, 0x1000, 0, -1);
    CHECK(ok_reply());
    srv.dma_wait_ms = 2000;
    pthread_create(&t, NULL, dma_responder, NULL);
    CHECK_EQ(host_dma_read(0x400100, back, 16), 0);
    pthread_join(t, NULL);
    CHECK_EQ(back[0], 0x5A);
    CHECK_EQ(back[15], 0x5A);
    /* With a request arriving during the wait */
    pthread_create(&t, NULL, dma_responder, &with_doorbell);
    CHECK_EQ(host_dma_read(0x400100, back, 16), 0);
    pthread_join(t, NULL);
    CHECK_EQ(srv.ndeferred, 1);
    vfu_run_deferred(&srv);
    CHECK_EQ(srv.ndeferred, 0);
    CHECK_EQ(region_read(0, 0x00080200, 4), 0x80000011);
    /* No answer: a DMA error after the wait, not a hang */
    srv.dma_wait_ms = 10;
    CHECK(host_dma_read(0x400100, back, 16) != 0);
    CHECK_EQ(srv.stats.dma_msg_errors, 1);
    {
        uint8_t junk[64];

        recv(cli, junk, sizeof(junk), MSG_DONTWAIT);  /* the lost request */
    }
    teardown();
}

static uint64_t efd_count(int fd)
{
    uint64_t v = 0;

    if (read(fd, &v, sizeof(v)) != sizeof(v)) {
        return 0;
    }
    return v;
}

static void set_irqs(uint32_t flags, uint32_t index, uint32_t start,
                     uint32_t count, const int *fds, unsigned n)
{
    VfuIrqSet is = { .argsz = sizeof(is), .flags = flags, .index = index,
                     .start = start, .count = count };

    req_fds(VFU_CMD_DEVICE_SET_IRQS, 0, &is, sizeof(is), fds, n);
}

static void test_irqs(void)
{
    int e0 = eventfd(0, EFD_NONBLOCK), e1 = eventfd(0, EFD_NONBLOCK);
    int fds[2] = { e0, e1 };
    int many[VFU_MAX_FDS + 1];

    setup();
    negotiate();
    set_irqs(VFU_IRQ_SET_DATA_EVENTFD | VFU_IRQ_SET_ACTION_TRIGGER,
             VFU_PCI_MSIX_IRQ, 0, 2, fds, 2);
    CHECK(ok_reply());
    /* MSI-X off: nothing */
    host_msix_notify(1);
    CHECK_EQ(efd_count(e1), 0);
    CHECK_EQ(srv.stats.irq_disabled, 1);
    region_write(7, 0x72, 0x8000 | 63, 2);          /* MSI-X enable */
    host_msix_notify(1);
    CHECK_EQ(efd_count(e1), 1);
    /* Vector masked: pending in the PBA, sent on unmask */
    set_irqs(VFU_IRQ_SET_DATA_NONE | VFU_IRQ_SET_ACTION_MASK,
             VFU_PCI_MSIX_IRQ, 0, 1, NULL, 0);
    CHECK(ok_reply());
    host_msix_notify(0);
    CHECK_EQ(efd_count(e0), 0);
    CHECK_EQ(region_read(3, 0x8000, 8), 1);
    set_irqs(VFU_IRQ_SET_DATA_NONE | VFU_IRQ_SET_ACTION_UNMASK,
             VFU_PCI_MSIX_IRQ, 0, 1, NULL, 0);
    CHECK(ok_reply());
    CHECK_EQ(efd_count(e0), 1);
    CHECK_EQ(region_read(3, 0x8000, 8), 0);
    /* Function mask in the capability */
    region_write(7, 0x72, 0xC000 | 63, 2);
    host_msix_notify(0);
    CHECK_EQ(efd_count(e0), 0);
    region_write(7, 0x72, 0x8000 | 63, 2);
    CHECK_EQ(efd_count(e0), 1);
    /* The table's mask bit once the client uses our table */
    region_write(3, 0 * 16 + 12, 1, 4);
    host_msix_notify(0);
    CHECK_EQ(efd_count(e0), 0);
    region_write(3, 0 * 16 + 12, 0, 4);
    CHECK_EQ(efd_count(e0), 1);
    region_write(3, 1 * 16 + 12, 0, 4);
    CHECK_EQ(efd_count(e1), 0);                     /* nothing pending */
    /* A trigger from the client through DATA_NONE */
    set_irqs(VFU_IRQ_SET_DATA_NONE | VFU_IRQ_SET_ACTION_TRIGGER,
             VFU_PCI_MSIX_IRQ, 1, 1, NULL, 0);
    CHECK_EQ(efd_count(e1), 1);
    /* A range without fds takes the eventfds away */
    set_irqs(VFU_IRQ_SET_DATA_EVENTFD | VFU_IRQ_SET_ACTION_TRIGGER,
             VFU_PCI_MSIX_IRQ, 1, 1, NULL, 0);
    CHECK(ok_reply());
    host_msix_notify(1);
    CHECK_EQ(efd_count(e1), 0);
    CHECK_EQ(srv.stats.irq_no_fd, 1);

    /* Malformed */
    set_irqs(VFU_IRQ_SET_DATA_EVENTFD | VFU_IRQ_SET_ACTION_TRIGGER,
             VFU_PCI_MSIX_IRQ, 0xFFFFFFFF, 2, NULL, 0);
    CHECK(err_reply(EINVAL));                       /* start + count wraps */
    set_irqs(VFU_IRQ_SET_DATA_EVENTFD | VFU_IRQ_SET_ACTION_TRIGGER,
             VFU_PCI_MSIX_IRQ, 60, 5, NULL, 0);
    CHECK(err_reply(EINVAL));                       /* past the vectors */
    set_irqs(VFU_IRQ_SET_DATA_EVENTFD | VFU_IRQ_SET_ACTION_TRIGGER,
             VFU_PCI_MSIX_IRQ, 0, 3, fds, 2);
    CHECK(err_reply(EINVAL));                       /* 2 fds for 3 */
    set_irqs(VFU_IRQ_SET_DATA_NONE | VFU_IRQ_SET_DATA_BOOL |
             VFU_IRQ_SET_ACTION_TRIGGER, VFU_PCI_MSIX_IRQ, 0, 1, NULL, 0);
    CHECK(err_reply(EINVAL));                       /* two data types */
    set_irqs(VFU_IRQ_SET_DATA_BOOL | VFU_IRQ_SET_ACTION_TRIGGER,
             VFU_PCI_MSIX_IRQ, 0, 4, NULL, 0);
    CHECK(err_reply(EINVAL));                       /* bools missing */
    set_irqs(VFU_IRQ_SET_DATA_NONE | VFU_IRQ_SET_ACTION_TRIGGER,
             VFU_PCI_MSI_IRQ, 0, 1, NULL, 0);
    CHECK(err_reply(EINVAL));                       /* no MSI */
    set_irqs(VFU_IRQ_SET_DATA_NONE | VFU_IRQ_SET_ACTION_TRIGGER, 7, 0, 1,
             NULL, 0);
    CHECK(err_reply(EINVAL));                       /* no such index */
    for (unsigned i = 0; i < VFU_MAX_FDS + 1; i++) {
        many[i] = eventfd(0, 0);
    }
    set_irqs(VFU_IRQ_SET_DATA_EVENTFD | VFU_IRQ_SET_ACTION_TRIGGER,
             VFU_PCI_MSIX_IRQ, 0, VFU_MAX_FDS + 1, many, VFU_MAX_FDS + 1);
    CHECK(err_reply(EINVAL));                       /* too many fds */
    for (unsigned i = 0; i < VFU_MAX_FDS + 1; i++) {
        close(many[i]);
    }
    /* Not an eventfd (a pipe a client could leave full, a socket, a
     * file): refused, vector 0 keeps its eventfd (issue 32). */
    {
        int pp[2], sp[2], bad[2];

        CHECK_EQ(pipe(pp), 0);
        CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
        bad[0] = pp[1];
        bad[1] = sp[0];
        set_irqs(VFU_IRQ_SET_DATA_EVENTFD | VFU_IRQ_SET_ACTION_TRIGGER,
                 VFU_PCI_MSIX_IRQ, 0, 1, bad, 1);
        CHECK(err_reply(EINVAL));
        set_irqs(VFU_IRQ_SET_DATA_EVENTFD | VFU_IRQ_SET_ACTION_TRIGGER,
                 VFU_PCI_MSIX_IRQ, 0, 1, bad + 1, 1);
        CHECK(err_reply(EINVAL));
        close(pp[0]);
        close(pp[1]);
        close(sp[0]);
        close(sp[1]);
    }
    /* A blocking eventfd is written without blocking: at its ceiling the
     * interrupt is counted, the server goes on. */
    {
        int eb = eventfd(0, 0);
        uint64_t ceil = 0xFFFFFFFFFFFFFFFEull, no0 = srv.stats.irq_no_fd;

        set_irqs(VFU_IRQ_SET_DATA_EVENTFD | VFU_IRQ_SET_ACTION_TRIGGER,
                 VFU_PCI_MSIX_IRQ, 1, 1, &eb, 1);
        CHECK(ok_reply());
        CHECK(fcntl(eb, F_GETFL) & O_NONBLOCK);
        CHECK_EQ(write(eb, &ceil, sizeof(ceil)), (ssize_t)sizeof(ceil));
        host_msix_notify(1);
        CHECK_EQ(srv.stats.irq_no_fd, no0 + 1);
        close(eb);
    }
    /* Still working: vector 0 fires */
    host_msix_notify(0);
    CHECK_EQ(efd_count(e0), 1);
    /* Tear-down of the index */
    set_irqs(VFU_IRQ_SET_DATA_NONE | VFU_IRQ_SET_ACTION_TRIGGER,
             VFU_PCI_MSIX_IRQ, 0, 0, NULL, 0);
    CHECK(ok_reply());
    CHECK_EQ(srv.msix_fd[0], -1);
    teardown();
    close(e0);
    close(e1);
}

static void test_malformed(void)
{
    VfuRegionRw rw = { .region = 7, .count = 4 };
    VfuHdr h = { .id = 77, .command = 4, .size = 8 };
    uint8_t big[64];

    setup();
    negotiate();
    /* A size below the header's */
    send_raw(&h, sizeof(h), NULL, 0);
    CHECK_EQ(vfu_server_recv(&srv), 1);
    get_reply();
    CHECK(err_reply(EINVAL));
    CHECK_EQ(rep.h.id, 77);
    /* Handler fed a short buffer directly */
    vfu_handle_msg(&srv, (uint8_t *)&h, 6, NULL, 0);
    get_reply();
    CHECK(err_reply(EINVAL));
    /* Sizes: a read with data, a write with too little */
    {
        uint8_t b[sizeof(rw) + 4] = { 0 };

        memcpy(b, &rw, sizeof(rw));
        CHECK(refused(VFU_CMD_REGION_READ, b, sizeof(b), EINVAL));
        CHECK(refused(VFU_CMD_REGION_WRITE, b, sizeof(rw) + 2, EINVAL));
        CHECK(refused(VFU_CMD_REGION_READ, b, 8, EINVAL));
    }
    /* Offset and count overflows, past the end, zero, bad region */
    CHECK(read_refused(7, 0xFFFFFFFFFFFFFFF0ull, 0x20));
    CHECK(read_refused(7, 4090, 8));
    CHECK(read_refused(7, 0, 0));
    CHECK(read_refused(7, 0, 0xFFFFFFFF));
    CHECK(read_refused(9, 0, 4));
    CHECK(read_refused(1, 0, 4));                   /* no BAR1 */
    CHECK(read_refused(0, E810_BAR0_SIZE - 4, 8));
    CHECK(read_refused(0, 0, 3));                   /* not a CPU access */
    /* Unknown and unsupported commands */
    CHECK(refused(99, NULL, 0, ENOTSUP));
    CHECK(refused(VFU_CMD_DIRTY_PAGES, NULL, 0, ENOTSUP));
    CHECK(refused(VFU_CMD_DMA_READ, big, 16, ENOTSUP));
    /* Bad flags; fds where none belong (closed by the server) */
    req_fds(VFU_CMD_DEVICE_GET_INFO, 0x40, NULL, 0, NULL, 0);
    CHECK(err_reply(EINVAL));
    {
        int e = eventfd(0, 0);
        VfuRegionRw r = { .region = 7, .count = 4 };

        req_fds(VFU_CMD_REGION_READ, 0, &r, sizeof(r), &e, 1);
        CHECK(err_reply(EINVAL));
        close(e);
    }
    /* A stray reply gets nothing back */
    req_fds(VFU_CMD_DEVICE_GET_INFO, VFU_FLAG_REPLY, NULL, 0, NULL, 0);
    CHECK(rep.none);
    CHECK_EQ(srv.stats.stray_replies, 1);
    /* WRITE_MULTI: too many, truncated, a bad entry; a good one */
    {
        uint8_t b[8 + 2 * sizeof(VfuWriteOne)] = { 0 };
        VfuWriteOne w = { .offset = 0x00080200, .region = 0, .count = 4 };

        st64(b, 201);
        req_fds(VFU_CMD_REGION_WRITE_MULTI, VFU_FLAG_NO_REPLY, b, 8, NULL, 0);
        CHECK(rep.none);
        st64(b, 2);
        memcpy(b + 8, &w, sizeof(w));
        CHECK(refused(VFU_CMD_REGION_WRITE_MULTI, b, 8 + sizeof(w), EINVAL));
        w.count = 9;
        memcpy(b + 8 + sizeof(w), &w, sizeof(w));
        CHECK(refused(VFU_CMD_REGION_WRITE_MULTI, b, sizeof(b), EINVAL));
        w.count = 4;
        st32(w.data, 0x800000AA);
        memcpy(b + 8 + sizeof(w), &w, sizeof(w));
        req(VFU_CMD_REGION_WRITE_MULTI, b, sizeof(b));
        CHECK(ok_reply());
        CHECK_EQ(region_read(0, 0x00080200, 4), 0x800000AA);
    }
    /* A message beyond the limit: skipped whole, refused, in step after */
    {
        VfuHdr hb = { .id = 88, .command = 10, .size = VFU_MAX_MSG + 4096 };
        size_t left = hb.size - sizeof(hb);
        pid_t pid;
        int st;

        send_raw(&hb, sizeof(hb), NULL, 0);
        memset(big, 0, sizeof(big));
        /* More than the socket holds: a child sends the rest. */
        pid = fork();
        if (pid == 0) {
            while (left) {
                size_t n = left < sizeof(big) ? left : sizeof(big);

                if (send(cli, big, n, 0) <= 0) {
                    _exit(1);
                }
                left -= n;
            }
            _exit(0);
        }
        CHECK_EQ(vfu_server_recv(&srv), 1);
        waitpid(pid, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        get_reply();
        CHECK(err_reply(E2BIG));
        CHECK_EQ(rep.h.id, 88);
    }
    /* Still working */
    CHECK_EQ(region_read(7, 0, 4), 0x159B8086);
    CHECK(srv.stats.bad_msgs >= 20);
    teardown();
}

static void test_eof(void)
{
    VfuHdr h = { .id = 1, .command = 1, .size = 64 };

    setup();
    /* A header, then the client goes away mid-message */
    send_raw(&h, 8, NULL, 0);
    shutdown(cli, SHUT_WR);
    CHECK(vfu_server_recv(&srv) < 0);
    teardown();
    setup();
    shutdown(cli, SHUT_WR);
    CHECK_EQ(vfu_server_recv(&srv), 0);
    teardown();
}

/* ---- the keeper -------------------------------------------------------- */

/* The server's notes for the keeper: what it read, sent and owes. */
static void test_keeper_notes(void)
{
    static VfuKeep k;
    uint64_t sent;

    setup();
    negotiate();
    srv.keep = &k;
    memset(&k, 0, sizeof(k));
    CHECK_EQ(region_read(7, 0, 4), 0x159B8086);
    /* 16 + 16 read; 16 + 16 + 4 sent; nothing owed after the reply */
    CHECK_EQ(k.rx, 32);
    CHECK_EQ(k.msg_start, 0);
    CHECK_EQ(k.tx, 36);
    CHECK_EQ(k.tx_end, 36);
    CHECK_EQ(k.nowed, 0);
    region_write_flags(7, 0x40, 0, 2, VFU_FLAG_NO_REPLY);
    CHECK(rep.none);
    CHECK_EQ(k.nowed, 0);
    CHECK_EQ(k.msg_start, 32);
    CHECK_EQ(k.rx, 32 + 16 + 16 + 2);
    sent = k.tx;
    /* A request refused is paid too */
    CHECK(refused(VFU_CMD_DIRTY_PAGES, NULL, 0, ENOTSUP));
    CHECK_EQ(k.nowed, 0);
    CHECK_EQ(k.tx, sent + 16);
    /* Owed until answered, oldest dropped past the list */
    for (unsigned i = 0; i < VFU_KEEP_OWED_MAX + 2; i++) {
        VfuHdr h = { .id = 1000 + i, .command = VFU_CMD_REGION_READ };

        vfu_keep_owe(&k, &h);
    }
    CHECK_EQ(k.nowed, VFU_KEEP_OWED_MAX);
    CHECK_EQ(k.owed_lost, 2);
    CHECK_EQ(k.owed[0].id, 1002);
    vfu_keep_paid(&k, 1005);
    CHECK_EQ(k.nowed, VFU_KEEP_OWED_MAX - 1);
    CHECK_EQ(k.owed[3].id, 1006);
    srv.keep = NULL;
    teardown();
}

typedef struct KeeperRun {
    int sock;
    VfuKeep *k;
    VfuKeeperStats st;
    int rc;
} KeeperRun;

static void *keeper_thread(void *arg)
{
    KeeperRun *r = arg;

    r->rc = vfu_keeper_serve(r->sock, r->k, &r->st);
    return NULL;
}

static void recv_exact(void *buf, size_t len)
{
    CHECK_EQ(recv(cli, buf, len, MSG_WAITALL), (ssize_t)len);
}

/* A reply as the client sees it, waiting for it. */
static void keeper_reply(void)
{
    recv_exact(&rep.h, sizeof(rep.h));
    rep.none = false;
    CHECK(rep.h.size >= sizeof(rep.h) &&
          rep.h.size - sizeof(rep.h) <= sizeof(rep.data));
    if (rep.h.size > sizeof(rep.h) && rep.h.size - sizeof(rep.h) <= sizeof(rep.data)) {
        recv_exact(rep.data, rep.h.size - sizeof(rep.h));
    }
}

/* The next reply is @id's, with @flags, @size bytes (0: any) and @err. */
static void keeper_expect(uint16_t id, uint32_t flags, uint32_t size,
                          uint32_t err)
{
    keeper_reply();
    CHECK_EQ(rep.h.id, id);
    CHECK_EQ(rep.h.flags, flags);
    if (size) {
        CHECK_EQ(rep.h.size, size);
    }
    CHECK_EQ(rep.h.error, err);
}

/* An ENODEV error for @id: what the keeper owes or cannot serve. */
static void keeper_expect_enodev(uint16_t id)
{
    keeper_expect(id, VFU_FLAG_REPLY | VFU_FLAG_ERROR, VFU_HDR_SIZE, ENODEV);
}

static void keeper_send(uint16_t id, uint16_t cmd, uint32_t flags,
                        const void *p, size_t len, const int *fds, unsigned n)
{
    uint8_t buf[256];
    VfuHdr h = { .id = id, .command = cmd, .size = sizeof(h) + len,
                 .flags = flags };

    memcpy(buf, &h, sizeof(h));
    if (len) {
        memcpy(buf + sizeof(h), p, len);
    }
    send_raw(buf, sizeof(h) + len, fds, n);
}

/*
 * The keeper takes over a stream the device left part way: a reply cut
 * short, a request half read, one owed; then answers as a failed device.
 */
static void test_keeper_serve(void)
{
    static VfuKeep k;
    KeeperRun run = { .k = &k };
    VfuRegionRw rw = { .offset = 0x100, .region = VFU_PCI_BAR0_REGION,
                       .count = 4 };
    VfuHdr cut = { .id = 77, .command = VFU_CMD_REGION_READ,
                   .size = VFU_HDR_SIZE + sizeof(rw) };
    uint8_t buf[64], zero[10] = { 0 }, wbuf[sizeof(rw) + 4];
    VfuDmaUnmap um = { .argsz = sizeof(um), .iova = 0x1000, .size = 0x1000 };
    int sv[2], fd;
    pthread_t t;

    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    cli = sv[1];
    run.sock = sv[0];
    memset(&k, 0, sizeof(k));
    k.tx = 100;
    k.tx_end = 110;
    k.msg_start = 40;
    k.rx = 45;
    memcpy(k.hdr, &cut, 5);
    k.owed[0].id = 55;
    k.owed[0].command = VFU_CMD_REGION_WRITE;
    k.nowed = 1;
    CHECK_EQ(pthread_create(&t, NULL, keeper_thread, &run), 0);

    /* The cut reply's last 10 bytes, as zeros */
    recv_exact(buf, 10);
    CHECK(!memcmp(buf, zero, 10));
    /* The rest of the half-read request, then errors for both */
    memcpy(buf, (uint8_t *)&cut + 5, sizeof(cut) - 5);
    memcpy(buf + sizeof(cut) - 5, &rw, sizeof(rw));
    send_raw(buf, sizeof(cut) - 5 + sizeof(rw), NULL, 0);
    keeper_expect_enodev(55);
    keeper_expect_enodev(77);

    /* A read: all ones, as a device gone from the bus */
    keeper_send(78, VFU_CMD_REGION_READ, 0, &rw, sizeof(rw), NULL, 0);
    keeper_expect(78, VFU_FLAG_REPLY, VFU_HDR_SIZE + sizeof(rw) + 4, 0);
    CHECK_EQ(ld32(rep.data + sizeof(rw)), 0xFFFFFFFF);
    /* A posted write: nothing; a write: its rw back */
    memcpy(wbuf, &rw, sizeof(rw));
    memset(wbuf + sizeof(rw), 0x5A, 4);
    keeper_send(79, VFU_CMD_REGION_WRITE, VFU_FLAG_NO_REPLY, wbuf,
                sizeof(wbuf), NULL, 0);
    keeper_send(80, VFU_CMD_REGION_WRITE, 0, wbuf, sizeof(wbuf), NULL, 0);
    keeper_expect(80, VFU_FLAG_REPLY, VFU_HDR_SIZE + sizeof(rw), 0);
    /* A reply to the dead device's DMA request: dropped */
    keeper_send(81, VFU_CMD_DMA_READ, VFU_FLAG_REPLY, wbuf, sizeof(wbuf),
                NULL, 0);
    /* A map with its fd: done, the fd closed */
    fd = memfd(4096);
    keeper_send(82, VFU_CMD_DMA_MAP, 0, &um, sizeof(um), &fd, 1);
    close(fd);
    keeper_expect(82, VFU_FLAG_REPLY, 0, 0);
    keeper_send(83, VFU_CMD_DMA_UNMAP, 0, &um, sizeof(um), NULL, 0);
    keeper_expect(83, VFU_FLAG_REPLY, VFU_HDR_SIZE + sizeof(um), 0);
    /* Anything else, a read out of bounds, a short one: errors */
    keeper_send(84, VFU_CMD_VERSION, 0, NULL, 0, NULL, 0);
    keeper_expect_enodev(84);
    rw.count = 1u << 20;
    keeper_send(85, VFU_CMD_REGION_READ, 0, &rw, sizeof(rw), NULL, 0);
    keeper_expect_enodev(85);
    keeper_send(86, VFU_CMD_REGION_READ, 0, &rw, 4, NULL, 0);
    keeper_expect_enodev(86);
    /* A write without its offset, region and count: an error */
    keeper_send(87, VFU_CMD_REGION_WRITE, 0, NULL, 0, NULL, 0);
    keeper_expect_enodev(87);

    close(cli);
    cli = -1;
    pthread_join(t, NULL);
    CHECK_EQ(run.rc, 0);
    CHECK_EQ(run.st.reads, 1);
    CHECK_EQ(run.st.writes, 2);
    CHECK_EQ(run.st.other, 2);
    CHECK_EQ(run.st.errors, 6);
    CHECK_EQ(run.st.replies_dropped, 1);
    CHECK_EQ(run.st.fds_closed, 1);
    CHECK_EQ(run.st.padded, 10);
    close(sv[0]);
}

/*
 * Issue 32: the device process writes the notes, so the keeper reads
 * them as hostile.  Each field at and past its bound, one page at a
 * time: the keeper answers the owed list it can trust (at most
 * VFU_KEEP_OWED_MAX entries), pads no reply longer than a message,
 * reads no header out of step, writes nowhere but its own copy (the
 * shared page is unchanged), and then serves as a failed device.
 */
static void hostile_page(VfuKeep *k, unsigned want_owed, uint64_t want_pad,
                         uint64_t want_bad, bool half_hdr)
{
    static VfuKeep before;
    KeeperRun run = { .k = k };
    VfuRegionRw rw = { .offset = 0, .region = VFU_PCI_BAR0_REGION,
                       .count = 4 };
    uint8_t buf[VFU_HDR_SIZE];
    int sv[2];
    pthread_t t;

    memcpy(&before, k, sizeof(before));
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    cli = sv[1];
    run.sock = sv[0];
    CHECK_EQ(pthread_create(&t, NULL, keeper_thread, &run), 0);
    if (want_pad) {
        static uint8_t pad[VFU_MAX_MSG];

        recv_exact(pad, want_pad);
    }
    if (half_hdr) {
        /* The header's rest: the keeper owes it an error too. */
        VfuHdr h = { .id = 900, .command = VFU_CMD_REGION_READ,
                     .size = VFU_HDR_SIZE };

        memcpy(buf, &h, sizeof(h));
        send_raw(buf + 4, sizeof(h) - 4, NULL, 0);
    }
    for (unsigned i = 0; i < want_owed; i++) {
        keeper_reply();
        CHECK_EQ(rep.h.error, ENODEV);
    }
    keeper_send(901, VFU_CMD_REGION_READ, 0, &rw, sizeof(rw), NULL, 0);
    keeper_expect(901, VFU_FLAG_REPLY, VFU_HDR_SIZE + sizeof(rw) + 4, 0);
    close(cli);
    cli = -1;
    pthread_join(t, NULL);
    CHECK_EQ(run.rc, 0);
    CHECK_EQ(run.st.padded, want_pad);
    CHECK_EQ(run.st.notes_bad, want_bad);
    CHECK(!memcmp(&before, k, sizeof(before)));
    close(sv[0]);
}

static void test_keeper_hostile_notes(void)
{
    static VfuKeep k;
    const unsigned max = VFU_KEEP_OWED_MAX;
    const unsigned nowed[] = { max - 1, max, max + 1, 0x40000000u,
                               0xFFFFFFFFu };
    VfuHdr h = { .id = 900, .command = VFU_CMD_REGION_READ,
                 .size = VFU_HDR_SIZE };

    /* nowed at and past the list, with a header half read (the path
     * that adds one more owed entry: issue 32's out-of-bounds write). */
    for (unsigned i = 0; i < sizeof(nowed) / sizeof(nowed[0]); i++) {
        unsigned n = nowed[i] > max ? max : nowed[i];

        memset(&k, 0, sizeof(k));
        memset(k.owed, 0xA5, sizeof(k.owed));
        k.nowed = nowed[i];
        k.msg_start = 1000;
        k.rx = 1004;
        memcpy(k.hdr, &h, 4);
        /* The full list loses its oldest for the half-read request. */
        hostile_page(&k, n == max ? max : n + 1, 0, nowed[i] > max, true);
    }
    /* A cut reply at the bound, past it, and running backwards. */
    memset(&k, 0, sizeof(k));
    k.tx = 5000;
    k.tx_end = 5000 + VFU_MAX_MSG;
    hostile_page(&k, 0, VFU_MAX_MSG, 0, false);
    k.tx_end = 5000 + VFU_MAX_MSG + 1;
    hostile_page(&k, 0, 0, 1, false);
    k.tx_end = ~0ull;
    hostile_page(&k, 0, 0, 1, false);
    k.tx_end = 4999;
    hostile_page(&k, 0, 0, 1, false);
    /* A message being read: started after what was read, longer than a
     * message, or past its own header's size. */
    memset(&k, 0, sizeof(k));
    k.msg_start = 100;
    k.rx = 99;
    hostile_page(&k, 0, 0, 1, false);
    k.msg_start = 0;
    k.rx = VFU_MAX_MSG + 1ull;
    hostile_page(&k, 0, 0, 1, false);
    k.rx = ~0ull;
    hostile_page(&k, 0, 0, 1, false);
    k.rx = 64;
    h.size = 32;
    memcpy(k.hdr, &h, sizeof(h));
    hostile_page(&k, 0, 0, 1, false);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    e810_trace_file = stderr;
    RUN(test_version);
    RUN(test_info);
    RUN(test_config);
    RUN(test_bar0);
    RUN(test_dma);
    RUN(test_dma_msg);
    RUN(test_irqs);
    RUN(test_malformed);
    RUN(test_eof);
    RUN(test_keeper_notes);
    RUN(test_keeper_serve);
    RUN(test_keeper_hostile_notes);
    return CHECK_DONE();
}
