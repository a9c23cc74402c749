/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e810-vfio-user: the regions the client accesses by message: their
 * info, and reads and writes (one at a time or batched) of config space
 * (vfu-server.c), BAR0 (the core's registers) and BAR3 (MSI-X,
 * vfu-irq.c).  No region is offered for mmap.
 */
#include "qemu/osdep.h"
#include <errno.h>

#include "vfu-int.h"
#include "trace.h"

static uint64_t region_size(uint32_t index)
{
    switch (index) {
    case VFU_PCI_BAR0_REGION:
        return E810_BAR0_SIZE;
    case VFU_PCI_BAR3_REGION:
        return E810_PCI_MSIX_BAR_SIZE;
    case VFU_PCI_CONFIG_REGION:
        return VFU_CONFIG_SIZE;
    default:
        return 0;
    }
}

void vfu_cmd_region_info(VfuServer *s, const VfuHdr *h, uint8_t *p,
                         uint32_t plen, int *fds, unsigned nfds)
{
    VfuRegionInfo ri;

    if (!vfu_info_arg(s, h, p, plen, &ri, sizeof(ri),
                      "region info: short")) {
        return;
    }
    if (ri.index >= VFU_PCI_NUM_REGIONS) {
        vfu_error(s, h, EINVAL, "region info: no such region");
        return;
    }
    ri.argsz = sizeof(ri);
    ri.size = region_size(ri.index);
    ri.flags = ri.size ? VFU_REGION_FLAG_READ | VFU_REGION_FLAG_WRITE : 0;
    ri.cap_offset = 0;
    /* Offsets as the kernel's vfio-pci spaces them (no mmap offered). */
    ri.offset = (uint64_t)ri.index << 40;
    vfu_reply_with(s, h, &ri, sizeof(ri));
}

/* One access to @region; the range was checked against its size. */
static int region_access(VfuServer *s, bool write, uint32_t region,
                         uint64_t off, uint8_t *data, uint32_t count)
{
    switch (region) {
    case VFU_PCI_CONFIG_REGION:
        if (write) {
            vfu_config_write(s, off, data, count);
        } else {
            memcpy(data, s->config + off, count);
        }
        return 0;
    case VFU_PCI_BAR0_REGION:
        /* As a CPU access: 1, 2, 4 or 8 bytes (the core checks alignment). */
        if (count != 1 && count != 2 && count != 4 && count != 8) {
            return -EINVAL;
        }
        if (write) {
            uint64_t v = 0;

            memcpy(&v, data, count);
            e810_mmio_write(&s->core, off, v, count);
        } else {
            uint64_t v = e810_mmio_read(&s->core, off, count);

            memcpy(data, &v, count);
        }
        return 0;
    case VFU_PCI_BAR3_REGION:
        vfu_msix_bar_access(s, write, off, data, count);
        return 0;
    default:
        return -EINVAL;
    }
}

static int region_check(uint32_t region, uint64_t off, uint32_t count)
{
    uint64_t size;

    if (region >= VFU_PCI_NUM_REGIONS) {
        return -EINVAL;
    }
    size = region_size(region);
    if (!count || count > VFU_REGION_RW_MAX || off >= size ||
        count > size - off) {
        return -EINVAL;
    }
    return 0;
}

static void vfu_cmd_region_rw(VfuServer *s, const VfuHdr *h, uint8_t *p,
                              uint32_t plen, bool write)
{
    VfuRegionRw rw;
    int err;

    if (plen < sizeof(rw)) {
        vfu_error(s, h, EINVAL, "region rw: short");
        return;
    }
    memcpy(&rw, p, sizeof(rw));
    trace_e810_vfu_region(write ? "write" : "read", rw.region, rw.offset,
                          rw.count);
    err = region_check(rw.region, rw.offset, rw.count);
    if (err) {
        vfu_error(s, h, -err, "region rw: region or range");
        return;
    }
    if (write) {
        if (plen - sizeof(rw) != rw.count) {
            vfu_error(s, h, EINVAL, "region write: data size");
            return;
        }
        err = region_access(s, true, rw.region, rw.offset, p + sizeof(rw),
                            rw.count);
        if (err) {
            vfu_error(s, h, -err, "region write: access");
            return;
        }
        vfu_reply_with(s, h, &rw, sizeof(rw));
        return;
    }
    if (plen != sizeof(rw)) {
        vfu_error(s, h, EINVAL, "region read: size");
        return;
    }
    err = region_access(s, false, rw.region, rw.offset,
                        s->reply + VFU_HDR_SIZE + sizeof(rw), rw.count);
    if (err) {
        vfu_error(s, h, -err, "region read: access");
        return;
    }
    memcpy(s->reply + VFU_HDR_SIZE, &rw, sizeof(rw));
    vfu_reply(s, h, sizeof(rw) + rw.count);
}

void vfu_cmd_region_read(VfuServer *s, const VfuHdr *h, uint8_t *p,
                         uint32_t plen, int *fds, unsigned nfds)
{
    vfu_cmd_region_rw(s, h, p, plen, false);
}

void vfu_cmd_region_write(VfuServer *s, const VfuHdr *h, uint8_t *p,
                          uint32_t plen, int *fds, unsigned nfds)
{
    vfu_cmd_region_rw(s, h, p, plen, true);
}

/*
 * REGION_WRITE_MULTI: posted writes batched by the client.  Checked
 * whole before any is done, so a bad batch has no partial effect.
 */
void vfu_cmd_write_multi(VfuServer *s, const VfuHdr *h, uint8_t *p,
                         uint32_t plen, int *fds, unsigned nfds)
{
    uint64_t n;

    if (plen < 8) {
        vfu_error(s, h, EINVAL, "write multi: short");
        return;
    }
    n = ld64(p);
    if (!n || n > VFU_MULTI_MAX || plen - 8 < n * sizeof(VfuWriteOne)) {
        vfu_error(s, h, EINVAL, "write multi: count");
        return;
    }
    for (uint64_t i = 0; i < n; i++) {
        VfuWriteOne w;

        memcpy(&w, p + 8 + i * sizeof(w), sizeof(w));
        if (w.count > VFU_MULTI_DATA ||
            region_check(w.region, w.offset, w.count) ||
            (w.region == VFU_PCI_BAR0_REGION && w.count != 1 &&
             w.count != 2 && w.count != 4 && w.count != 8)) {
            vfu_error(s, h, EINVAL, "write multi: entry");
            return;
        }
    }
    for (uint64_t i = 0; i < n; i++) {
        VfuWriteOne w;

        memcpy(&w, p + 8 + i * sizeof(w), sizeof(w));
        trace_e810_vfu_region("write (multi)", w.region, w.offset, w.count);
        region_access(s, true, w.region, w.offset, w.data, w.count);
    }
    vfu_reply(s, h, 0);
}
