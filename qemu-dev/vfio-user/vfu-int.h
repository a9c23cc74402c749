/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e810-vfio-user: what the server's layers share below vfu-server.h.
 *
 * vfu-proto.c   messages: sending, replies and errors, receiving headers
 *               and fds, requests deferred during a DMA wait, VERSION,
 *               and the dispatch of a request to its handler;
 * vfu-dma.c     the client's DMA regions and the device's DMA into them;
 * vfu-region.c  region info and accesses: config space, BAR0, BAR3;
 * vfu-irq.c     MSI-X state and delivery, interrupt info and SET_IRQS;
 * vfu-server.c  the device: config space, the core's host interface,
 *               the server's lifetime, device info and reset.
 */
#ifndef E810_VFU_INT_H
#define E810_VFU_INT_H

#include "vfu-server.h"
#include "bytes.h"

/* vfio-user is little-endian on the wire: bytes.h's ld/st are too. */

#define VFU_PAGE_SIZE       4096u

/* Config space, as PCI lays it out. */
#define PCI_COMMAND         0x04
#define PCI_COMMAND_MASTER  0x0004
#define PCI_STATUS          0x06
#define PCI_BAR(n)          (0x10 + 4 * (n))
#define MSIX_CTRL           (E810_PCI_CAP_MSIX + 2)
#define MSIX_CTRL_ENABLE    0x8000
#define MSIX_CTRL_MASKALL   0x4000

static inline uint16_t vfu_msix_ctrl(VfuServer *s)
{
    return ld16(s->config + MSIX_CTRL);
}

/*
 * The handler of a request @h (vfu_handle_msg checked its header, that it
 * may carry fds and that VERSION came first), its @plen payload bytes at
 * @p.  It answers with vfu_reply or vfu_error; the @nfds fds are closed
 * after it, but for those it took (set to -1).
 */
typedef void VfuCmdFn(VfuServer *s, const VfuHdr *h, uint8_t *p,
                      uint32_t plen, int *fds, unsigned nfds);

/* ---- vfu-proto.c ------------------------------------------------------- */

void vfu_close_fds(int *fds, unsigned n);
bool vfu_send_all(VfuServer *s, const void *buf, size_t len);
/* Reply to @req with @len payload bytes already in s->reply after a header. */
void vfu_reply(VfuServer *s, const VfuHdr *req, size_t len);
/* Reply to @req with the @len bytes at @body. */
void vfu_reply_with(VfuServer *s, const VfuHdr *req, const void *body,
                    size_t len);
void vfu_error(VfuServer *s, const VfuHdr *req, int err, const char *why);
/*
 * The argument of a GET_*_INFO request @h, its first @size bytes into
 * @arg: false (refused with @why) if the request or its argsz is shorter.
 */
bool vfu_info_arg(VfuServer *s, const VfuHdr *h, const uint8_t *p,
                  uint32_t plen, void *arg, size_t size, const char *why);
/*
 * The reply to our request @id, into @m (header and payload, at most
 * VFU_MAX_MSG bytes): 0, or a negative errno (the client's error, or
 * why no reply came).  Requests arriving meanwhile are deferred.
 */
int vfu_await_reply(VfuServer *s, uint16_t id, uint8_t *m);
/* The requests held during a DMA wait, dropped unanswered. */
void vfu_deferred_clear(VfuServer *s);

/* ---- vfu-dma.c --------------------------------------------------------- */

/* Once, before the seccomp allow-list (the SIGBUS handler). */
void vfu_dma_fault_init(void);
/* Device DMA of @len bytes at @addr: 0, or -1 if any byte failed. */
int vfu_dma(VfuServer *s, bool write, uint64_t addr, void *buf, size_t len);
void vfu_dma_clear(VfuServer *s);
VfuCmdFn vfu_cmd_dma_map;
VfuCmdFn vfu_cmd_dma_unmap;

/* ---- vfu-region.c ------------------------------------------------------ */

VfuCmdFn vfu_cmd_region_info;
VfuCmdFn vfu_cmd_region_read;
VfuCmdFn vfu_cmd_region_write;
VfuCmdFn vfu_cmd_write_multi;

/* ---- vfu-irq.c --------------------------------------------------------- */

void vfu_msix_notify(VfuServer *s, unsigned v);
/* Pending vectors no longer masked, delivered. */
void vfu_msix_deliver_pending(VfuServer *s);
void vfu_msix_reset(VfuServer *s);
/* BAR3: the MSI-X table (bytes as written) and the PBA (read-only). */
void vfu_msix_bar_access(VfuServer *s, bool write, uint64_t off,
                         uint8_t *data, uint32_t count);
void vfu_irqs_close(VfuServer *s);
VfuCmdFn vfu_cmd_irq_info;
VfuCmdFn vfu_cmd_set_irqs;

/* ---- vfu-server.c ------------------------------------------------------ */

void vfu_config_write(VfuServer *s, uint32_t off, const uint8_t *data,
                      uint32_t count);
VfuCmdFn vfu_cmd_get_info;
VfuCmdFn vfu_cmd_device_reset;

#endif
