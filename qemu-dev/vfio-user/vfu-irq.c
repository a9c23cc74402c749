/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e810-vfio-user: interrupts.  MSI-X state (the table and PBA the client
 * may access in BAR3, the per-vector masks SET_IRQS sets) and delivery
 * through the client's eventfds; the interrupt info and SET_IRQS, with
 * the checks on the fds it sends.  INTx exists but is never asserted.
 */
#include "qemu/osdep.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vfu-int.h"
#include "trace.h"

/* ---- MSI-X ------------------------------------------------------------ */

static bool msix_vector_masked(VfuServer *s, unsigned v)
{
    if (s->msix_irq_masked & (1ull << v)) {
        return true;
    }
    /*
     * QEMU's vfio-user client emulates the table itself and never
     * accesses ours; its per-vector masks reach us as SET_IRQS mask
     * actions.  So our table's mask bits count once the client uses it.
     */
    return s->msix_table_used && (s->msix_table[v * 16 + 12] & 1);
}

/* Enabled and not function-masked: 0; else why not (for the trace). */
static int msix_off(VfuServer *s)
{
    uint16_t ctrl = vfu_msix_ctrl(s);

    if (!(ctrl & MSIX_CTRL_ENABLE)) {
        return 3;
    }
    return (ctrl & MSIX_CTRL_MASKALL) ? 1 : 0;
}

static void msix_fire(VfuServer *s, unsigned v)
{
    uint64_t one = 1;

    if (s->msix_fd[v] < 0) {
        s->stats.irq_no_fd++;
        trace_e810_vfu_irq(v, 2);
        return;
    }
    if (write(s->msix_fd[v], &one, sizeof(one)) != sizeof(one)) {
        /* An eventfd only refuses at its 2^64-2 ceiling: still pending. */
        s->stats.irq_no_fd++;
        trace_e810_vfu_irq(v, 2);
        return;
    }
    trace_e810_vfu_irq(v, 0);
}

void vfu_msix_notify(VfuServer *s, unsigned v)
{
    int off;

    if (v >= E810_MSIX_VECTORS) {
        s->stats.irq_bad++;
        trace_e810_vfu_irq(v, 3);
        return;
    }
    off = msix_off(s);
    if (off == 3) {
        /* As the glue: no MSI-X, no message (msix_enabled()). */
        s->stats.irq_disabled++;
        trace_e810_vfu_irq(v, 3);
        return;
    }
    if (off || msix_vector_masked(s, v)) {
        s->msix_pba |= 1ull << v;
        trace_e810_vfu_irq(v, 1);
        return;
    }
    msix_fire(s, v);
}

void vfu_msix_deliver_pending(VfuServer *s)
{
    if (msix_off(s)) {
        return;
    }
    for (unsigned v = 0; v < E810_MSIX_VECTORS; v++) {
        if ((s->msix_pba & (1ull << v)) && !msix_vector_masked(s, v)) {
            s->msix_pba &= ~(1ull << v);
            msix_fire(s, v);
        }
    }
}

void vfu_msix_reset(VfuServer *s)
{
    memset(s->msix_table, 0, sizeof(s->msix_table));
    for (unsigned v = 0; v < E810_MSIX_VECTORS; v++) {
        s->msix_table[v * 16 + 12] = 1;     /* masked at reset */
    }
    s->msix_pba = 0;
    s->msix_irq_masked = 0;
    s->msix_table_used = false;
}

/* BAR3: the MSI-X table (bytes as written) and the PBA (read-only). */
void vfu_msix_bar_access(VfuServer *s, bool write, uint64_t off,
                         uint8_t *data, uint32_t count)
{
    const uint64_t tsize = sizeof(s->msix_table);

    if (off + count <= tsize) {
        s->msix_table_used = true;
        if (write) {
            memcpy(s->msix_table + off, data, count);
            vfu_msix_deliver_pending(s);
        } else {
            memcpy(data, s->msix_table + off, count);
        }
        return;
    }
    if (off >= E810_PCI_MSIX_PBA_OFF &&
        off + count <= E810_PCI_MSIX_PBA_OFF + 8) {
        if (!write) {
            uint8_t pba[8];

            st64(pba, s->msix_pba);
            memcpy(data, pba + (off - E810_PCI_MSIX_PBA_OFF), count);
            return;
        }
    }
    /* Reserved space, or a PBA write: ignored as in PCI, but counted. */
    s->stats.bar3_ignored++;
    trace_e810_vfu_region(write ? "bar3 write ignored" : "bar3 read as 0",
                          VFU_PCI_BAR3_REGION, off, count);
    if (!write) {
        memset(data, 0, count);
    }
}

void vfu_irqs_close(VfuServer *s)
{
    vfu_close_fds(s->msix_fd, E810_MSIX_VECTORS);
    vfu_close_fds(&s->intx_fd, 1);
    vfu_close_fds(&s->intx_unmask_fd, 1);
}

/* ---- GET_IRQ_INFO ------------------------------------------------------ */

void vfu_cmd_irq_info(VfuServer *s, const VfuHdr *h, uint8_t *p,
                      uint32_t plen, int *fds, unsigned nfds)
{
    VfuIrqInfo ii;

    if (!vfu_info_arg(s, h, p, plen, &ii, sizeof(ii), "irq info: short")) {
        return;
    }
    switch (ii.index) {
    case VFU_PCI_INTX_IRQ:
        /* Pin A exists (as in QEMU) but the device only uses MSI-X. */
        ii.count = 1;
        ii.flags = VFU_IRQ_INFO_EVENTFD | VFU_IRQ_INFO_MASKABLE |
                   VFU_IRQ_INFO_AUTOMASKED;
        break;
    case VFU_PCI_MSI_IRQ:
        ii.count = 0;
        ii.flags = VFU_IRQ_INFO_EVENTFD | VFU_IRQ_INFO_NORESIZE;
        break;
    case VFU_PCI_MSIX_IRQ:
        ii.count = E810_MSIX_VECTORS;
        ii.flags = VFU_IRQ_INFO_EVENTFD;
        break;
    default:
        vfu_error(s, h, EINVAL, "irq info: no such index");
        return;
    }
    ii.argsz = sizeof(ii);
    vfu_reply_with(s, h, &ii, sizeof(ii));
}

/* ---- SET_IRQS ---------------------------------------------------------- */

static unsigned irq_count(uint32_t index)
{
    switch (index) {
    case VFU_PCI_INTX_IRQ:
        return 1;
    case VFU_PCI_MSIX_IRQ:
        return E810_MSIX_VECTORS;
    default:
        return 0;
    }
}

static void set_fd(int *slot, int fd)
{
    if (*slot >= 0) {
        close(*slot);
    }
    *slot = fd;
}

/*
 * An interrupt fd must be an eventfd (an anonymous inode: no file type in
 * its mode; a pipe, socket or file would let a client stall or redirect
 * the device's writes), and is written without blocking.
 */
static bool irq_fd_ok(int fd)
{
    struct stat st;
    int fl;

    if (fstat(fd, &st) || (st.st_mode & S_IFMT)) {
        return false;
    }
    fl = fcntl(fd, F_GETFL);
    return fl >= 0 && ((fl & O_NONBLOCK) ||
                       fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0);
}

/*
 * What is wrong with a SET_IRQS of data type @data and action @action
 * that sets vectors (vfu_cmd_set_irqs checked its flags and index), or
 * NULL.
 */
static const char *set_irqs_refused(const VfuIrqSet *is, uint32_t data,
                                    uint32_t action, uint32_t plen,
                                    const int *fds, unsigned nfds)
{
    unsigned max = irq_count(is->index);

    if (is->start >= max || is->count > max - is->start || !is->count) {
        return "set irqs: range";
    }
    if ((data == VFU_IRQ_SET_DATA_EVENTFD && nfds && nfds != is->count) ||
        (data != VFU_IRQ_SET_DATA_EVENTFD && nfds)) {
        return "set irqs: fd count";
    }
    for (unsigned i = 0; i < nfds; i++) {
        if (!irq_fd_ok(fds[i])) {
            return "set irqs: not an eventfd";
        }
    }
    if (data == VFU_IRQ_SET_DATA_BOOL && plen - sizeof(*is) < is->count) {
        return "set irqs: short bool data";
    }
    if (data == VFU_IRQ_SET_DATA_EVENTFD &&
        action == VFU_IRQ_SET_ACTION_MASK) {
        return "set irqs: eventfd for mask";
    }
    return NULL;
}

/* DATA_NONE|TRIGGER with count 0: the index's eventfds go. */
static void set_irqs_teardown(VfuServer *s, uint32_t index)
{
    if (index == VFU_PCI_MSIX_IRQ) {
        vfu_close_fds(s->msix_fd, E810_MSIX_VECTORS);
    } else if (index == VFU_PCI_INTX_IRQ) {
        vfu_close_fds(&s->intx_fd, 1);
        vfu_close_fds(&s->intx_unmask_fd, 1);
    }
}

/* INTx: never asserted; the fds are kept for the client's sake. */
static void set_irqs_intx(VfuServer *s, uint32_t data, uint32_t action,
                          int *fds, unsigned nfds)
{
    if (data == VFU_IRQ_SET_DATA_EVENTFD) {
        set_fd(action == VFU_IRQ_SET_ACTION_TRIGGER ? &s->intx_fd :
               &s->intx_unmask_fd, nfds ? fds[0] : -1);
        if (nfds) {
            fds[0] = -1;
        }
    }
}

/* MSI-X vectors [start, start + count): eventfds, masks or triggers. */
static void set_irqs_msix(VfuServer *s, const VfuIrqSet *is, uint32_t data,
                          uint32_t action, const uint8_t *bools, int *fds,
                          unsigned nfds)
{
    for (uint32_t i = 0; i < is->count; i++) {
        unsigned v = is->start + i;
        bool on = data != VFU_IRQ_SET_DATA_BOOL || bools[i];

        if (data == VFU_IRQ_SET_DATA_EVENTFD) {
            set_fd(&s->msix_fd[v], nfds ? fds[i] : -1);
            if (nfds) {
                fds[i] = -1;
            }
        } else if (!on) {
            continue;
        } else if (action == VFU_IRQ_SET_ACTION_MASK) {
            s->msix_irq_masked |= 1ull << v;
        } else if (action == VFU_IRQ_SET_ACTION_UNMASK) {
            s->msix_irq_masked &= ~(1ull << v);
        } else {
            vfu_msix_notify(s, v);
        }
    }
    vfu_msix_deliver_pending(s);
}

/*
 * VFIO_DEVICE_SET_IRQS semantics: exactly one data type and one action;
 * DATA_NONE|TRIGGER with count 0 tears the index down; eventfds come as
 * SCM_RIGHTS, all of the range or none (QEMU sends a range of "no
 * eventfd" without fds).
 */
void vfu_cmd_set_irqs(VfuServer *s, const VfuHdr *h, uint8_t *p,
                      uint32_t plen, int *fds, unsigned nfds)
{
    VfuIrqSet is;
    uint32_t data, action;
    const char *why;

    if (plen < sizeof(is)) {
        vfu_error(s, h, EINVAL, "set irqs: short");
        return;
    }
    memcpy(&is, p, sizeof(is));
    trace_e810_vfu_set_irqs(is.index, is.start, is.count, is.flags, nfds);
    data = is.flags & VFU_IRQ_SET_DATA_MASK;
    action = is.flags & VFU_IRQ_SET_ACTION_MASKS;
    if (is.argsz < sizeof(is) ||
        (is.flags & ~(VFU_IRQ_SET_DATA_MASK | VFU_IRQ_SET_ACTION_MASKS)) ||
        __builtin_popcount(data) != 1 || __builtin_popcount(action) != 1 ||
        is.index >= VFU_PCI_NUM_IRQS) {
        vfu_error(s, h, EINVAL, "set irqs: flags or index");
        return;
    }
    if (data == VFU_IRQ_SET_DATA_NONE && action == VFU_IRQ_SET_ACTION_TRIGGER &&
        is.count == 0) {
        if (nfds) {
            vfu_error(s, h, EINVAL, "set irqs: fds with no data");
            return;
        }
        set_irqs_teardown(s, is.index);
        vfu_reply(s, h, 0);
        return;
    }
    why = set_irqs_refused(&is, data, action, plen, fds, nfds);
    if (why) {
        vfu_error(s, h, EINVAL, why);
        return;
    }
    if (is.index == VFU_PCI_INTX_IRQ) {
        set_irqs_intx(s, data, action, fds, nfds);
    } else {
        set_irqs_msix(s, &is, data, action, p + sizeof(is), fds, nfds);
    }
    vfu_reply(s, h, 0);
}
