/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e810-vfio-user: the protocol layer.  Messages to and from the client:
 * sending, replies and error replies, receiving a header with its fds,
 * the requests deferred while the server waits for the reply to one of
 * its own (DMA), the VERSION negotiation, and the dispatch of each
 * request to its handler in the other layers (vfu-int.h).
 *
 * Every message is untrusted: sizes, offsets, counts and indices are
 * checked before use, a bad request gets an error reply (or, posted,
 * a counter and a trace line) and the server goes on.
 */
#include "qemu/osdep.h"
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "vfu-int.h"
#include "trace.h"

/* The wire layouts (vfu-proto.h) are copied to and from host structs. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "e810-vfio-user runs on little-endian hosts only");

void vfu_close_fds(int *fds, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (fds[i] >= 0) {
            close(fds[i]);
            fds[i] = -1;
        }
    }
}

/* ---- sending ----------------------------------------------------------- */

/*
 * Blocking with the socket's send timeout: replies are never dropped.
 * With a keeper, its notes say the whole message went out before it does
 * (a client woken by our send may act, even kill us, before we run
 * again); a send that stops part way is not blocked in but waited for
 * with the notes made exact (poll, the same 5 s), so a device killed
 * meanwhile leaves the keeper the rest to end.
 */
bool vfu_send_all(VfuServer *s, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    VfuKeep *k = s->keep;

    if (s->sock < 0 || s->broken) {
        return false;
    }
    if (k) {
        VfuHdr h;

        /* The keeper answers what is owed, and ends a cut message. */
        if (len >= sizeof(h)) {
            memcpy(&h, buf, sizeof(h));
            if ((h.flags & VFU_FLAG_TYPE_MASK) == VFU_FLAG_REPLY) {
                vfu_keep_paid(k, h.id);
            }
        }
        k->tx_end = k->tx + len;
        k->tx = k->tx_end;
    }
    while (len) {
        ssize_t n = send(s->sock, p, len,
                         MSG_NOSIGNAL | (k ? MSG_DONTWAIT : 0));

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && k && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pfd = { .fd = s->sock, .events = POLLOUT };
            int rc;

            k->tx = k->tx_end - len;
            do {
                rc = poll(&pfd, 1, 5000);
            } while (rc < 0 && errno == EINTR);
            k->tx = k->tx_end;
            if (rc > 0) {
                continue;
            }
            errno = rc ? errno : ETIMEDOUT;
        }
        if (n <= 0) {
            s->stats.send_errors++;
            s->broken = true;
            trace_e810_vfu_link("client send failed", errno);
            if (k) {
                k->tx = k->tx_end - len;
            }
            return false;
        }
        p += n;
        len -= n;
    }
    return true;
}

/* Reply to @req with @len payload bytes already in s->reply after a header. */
void vfu_reply(VfuServer *s, const VfuHdr *req, size_t len)
{
    VfuHdr h = {
        .id = req->id,
        .command = req->command,
        .size = VFU_HDR_SIZE + len,
        .flags = VFU_FLAG_REPLY,
    };

    if (req->flags & VFU_FLAG_NO_REPLY) {
        return;
    }
    memcpy(s->reply, &h, sizeof(h));
    vfu_send_all(s, s->reply, h.size);
}

void vfu_reply_with(VfuServer *s, const VfuHdr *req, const void *body,
                    size_t len)
{
    memcpy(s->reply + VFU_HDR_SIZE, body, len);
    vfu_reply(s, req, len);
}

void vfu_error(VfuServer *s, const VfuHdr *req, int err, const char *why)
{
    VfuHdr h = {
        .id = req->id,
        .command = req->command,
        .size = VFU_HDR_SIZE,
        .flags = VFU_FLAG_REPLY | VFU_FLAG_ERROR,
        .error = err,
    };

    s->stats.bad_msgs++;
    trace_e810_vfu_error(req->id, req->command, err, why);
    if (req->flags & VFU_FLAG_NO_REPLY) {
        s->stats.posted_errors++;
        return;
    }
    vfu_send_all(s, &h, sizeof(h));
}

bool vfu_info_arg(VfuServer *s, const VfuHdr *h, const uint8_t *p,
                  uint32_t plen, void *arg, size_t size, const char *why)
{
    if (plen < size || ld32(p) < size) {
        vfu_error(s, h, EINVAL, why);
        return false;
    }
    memcpy(arg, p, size);
    return true;
}

/* ---- receiving --------------------------------------------------------- */

/* From the client: exactly @len bytes, counted for the keeper. */
static bool vfu_read_full(VfuServer *s, void *buf, size_t len)
{
    uint8_t *p = buf;

    while (len) {
        ssize_t n = recv(s->sock, p, len, 0);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        if (s->keep) {
            s->keep->rx += n;
        }
        p += n;
        len -= n;
    }
    return true;
}

/*
 * The header, with any fds: 1 read, 0 end of stream, -1 error.
 * @ctrunc: more fds were sent than VFU_MAX_FDS (the kernel closed those).
 */
static int vfu_recv_hdr(VfuServer *s, VfuHdr *h, int *fds, unsigned *nfds,
                        bool *ctrunc)
{
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(VFU_MAX_FDS * sizeof(int))];
    } ctl;
    /* With a keeper, the header is read where it can see it. */
    uint8_t *hb = s->keep ? s->keep->hdr : (uint8_t *)h;
    struct iovec iov = { .iov_base = hb, .iov_len = sizeof(*h) };
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1,
        .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
    };
    ssize_t n;

    *nfds = 0;
    if (s->keep) {
        s->keep->msg_start = s->keep->rx;
    }
    do {
        n = recvmsg(s->sock, &mh, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
        return n < 0 ? -1 : 0;
    }
    if (s->keep) {
        s->keep->rx += n;
    }
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            unsigned k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

            for (unsigned i = 0; i < k; i++) {
                int fd;

                memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                if (*nfds < VFU_MAX_FDS) {
                    fds[(*nfds)++] = fd;
                } else {
                    close(fd);
                    *ctrunc = true;
                }
            }
        }
    }
    if (mh.msg_flags & MSG_CTRUNC) {
        *ctrunc = true;
    }
    if ((size_t)n < sizeof(*h) &&
        !vfu_read_full(s, hb + n, sizeof(*h) - n)) {
        vfu_close_fds(fds, *nfds);
        *nfds = 0;
        return -1;
    }
    if (s->keep) {
        memcpy(h, hb, sizeof(*h));
        vfu_keep_owe(s->keep, h);
    }
    return 1;
}

/* ---- our requests' replies (DMA without an fd) ------------------------- */

/* Keep a request that came while we waited; run after the current one. */
static void vfu_defer(VfuServer *s, const VfuHdr *h, const uint8_t *buf,
                      int *fds, unsigned nfds)
{
    VfuDeferred *d;

    if (s->ndeferred == VFU_DEFERRED_MAX) {
        s->stats.deferred_drops++;
        trace_e810_vfu_deferred_drop(h->command, s->stats.deferred_drops);
        vfu_close_fds(fds, nfds);
        vfu_error(s, h, EBUSY, "too many requests during a DMA wait");
        return;
    }
    d = &s->deferred[s->ndeferred++];
    d->buf = malloc(h->size);
    if (!d->buf) {
        s->ndeferred--;
        s->stats.deferred_drops++;
        trace_e810_vfu_deferred_drop(h->command, s->stats.deferred_drops);
        vfu_close_fds(fds, nfds);
        vfu_error(s, h, ENOMEM, "no memory to hold a request");
        return;
    }
    memcpy(d->buf, buf, h->size);
    d->len = h->size;
    memcpy(d->fds, fds, nfds * sizeof(int));
    d->nfds = nfds;
}

/*
 * Wait (bounded in time and in messages) for the reply to our request
 * @id; requests arriving meanwhile are deferred.
 */
int vfu_await_reply(VfuServer *s, uint16_t id, uint8_t *m)
{
    for (unsigned i = 0; i < VFU_DMA_WAIT_MSGS; i++) {
        struct pollfd pfd = { .fd = s->sock, .events = POLLIN };
        int fds[VFU_MAX_FDS];
        unsigned nfds = 0;
        bool ctrunc = false;
        VfuHdr r;
        int rc;

        if (poll(&pfd, 1, s->dma_wait_ms) <= 0) {
            return -ETIMEDOUT;
        }
        rc = vfu_recv_hdr(s, &r, fds, &nfds, &ctrunc);
        if (rc <= 0 || r.size < VFU_HDR_SIZE || r.size > VFU_MAX_MSG) {
            vfu_close_fds(fds, nfds);
            s->broken = true;
            return -EPIPE;
        }
        memcpy(m, &r, sizeof(r));
        if (!vfu_read_full(s, m + VFU_HDR_SIZE, r.size - VFU_HDR_SIZE)) {
            vfu_close_fds(fds, nfds);
            s->broken = true;
            return -EPIPE;
        }
        if ((r.flags & VFU_FLAG_TYPE_MASK) == VFU_FLAG_REQUEST) {
            vfu_defer(s, &r, m, fds, nfds);
            continue;
        }
        vfu_close_fds(fds, nfds);
        if (r.id != id) {
            s->stats.stray_replies++;
            trace_e810_vfu_error(r.id, r.command, EINVAL, "stray reply");
            continue;
        }
        if (r.flags & VFU_FLAG_ERROR) {
            return r.error ? -(int)r.error : -EIO;
        }
        return 0;
    }
    return -ETIMEDOUT;
}

void vfu_deferred_clear(VfuServer *s)
{
    for (unsigned i = 0; i < s->ndeferred; i++) {
        vfu_close_fds(s->deferred[i].fds, s->deferred[i].nfds);
        free(s->deferred[i].buf);
    }
    s->ndeferred = 0;
}

void vfu_run_deferred(VfuServer *s)
{
    /* Handling one may defer more: bounded by the queue's size per pass. */
    for (unsigned pass = 0; pass < 4 * VFU_DEFERRED_MAX && s->ndeferred;
         pass++) {
        VfuDeferred d = s->deferred[0];

        memmove(&s->deferred[0], &s->deferred[1],
                --s->ndeferred * sizeof(s->deferred[0]));
        memcpy(s->msg, d.buf, d.len);
        free(d.buf);
        vfu_handle_msg(s, s->msg, d.len, d.fds, d.nfds);
    }
}

/* ---- VERSION ----------------------------------------------------------- */

/* The "max_data_xfer_size" number in the client's capabilities, if any. */
static uint64_t caps_max_xfer(const char *json)
{
    const char *k = strstr(json, "\"max_data_xfer_size\"");
    uint64_t v = 0;
    int digits = 0;

    if (!k) {
        return VFU_MAX_XFER;
    }
    k += strlen("\"max_data_xfer_size\"");
    while (*k == ' ' || *k == ':') {
        k++;
    }
    while (*k >= '0' && *k <= '9' && digits < 12) {
        v = v * 10 + (*k++ - '0');
        digits++;
    }
    return v >= 4096 ? v : VFU_MAX_XFER;
}

static void vfu_cmd_version(VfuServer *s, const VfuHdr *h, uint8_t *p,
                            uint32_t plen, int *fds, unsigned nfds)
{
    int n;

    if (plen < sizeof(VfuVersion)) {
        vfu_error(s, h, EINVAL, "version: short");
        return;
    }
    if (ld16(p) != 0) {
        vfu_error(s, h, ENOTSUP, "version: major not 0");
        return;
    }
    s->peer_max_xfer = VFU_MAX_XFER;
    if (plen > sizeof(VfuVersion)) {
        if (p[plen - 1] != '\0') {
            vfu_error(s, h, EINVAL, "version: capabilities not terminated");
            return;
        }
        s->peer_max_xfer = caps_max_xfer((const char *)p + 4);
    }
    trace_e810_vfu_version(ld16(p), ld16(p + 2), s->peer_max_xfer);
    /* Short, so it fits the client's buffer (its request's size). */
    st16(s->reply + VFU_HDR_SIZE, 0);
    st16(s->reply + VFU_HDR_SIZE + 2, 0);
    n = snprintf((char *)s->reply + VFU_HDR_SIZE + 4, 256,
                 "{\"capabilities\":{\"max_msg_fds\":%u,"
                 "\"max_data_xfer_size\":%u,\"pgsizes\":%u,"
                 "\"max_dma_maps\":%u,\"write_multiple\":true}}",
                 VFU_MAX_FDS, VFU_MAX_XFER, VFU_PAGE_SIZE, VFU_MAX_DMA);
    s->negotiated = true;
    vfu_reply(s, h, 4 + n + 1);
}

/* ---- requests ---------------------------------------------------------- */

typedef struct VfuCmd {
    VfuCmdFn *fn;
    bool takes_fds;         /* SCM_RIGHTS allowed with it */
} VfuCmd;

/*
 * What the server answers; GET_REGION_IO_FDS, DIRTY_PAGES, DMA_READ and
 * DMA_WRITE (ours to send) and unknown commands are not supported.
 */
static const VfuCmd vfu_cmds[] = {
    [VFU_CMD_VERSION] = { vfu_cmd_version, false },
    [VFU_CMD_DMA_MAP] = { vfu_cmd_dma_map, true },
    [VFU_CMD_DMA_UNMAP] = { vfu_cmd_dma_unmap, false },
    [VFU_CMD_DEVICE_GET_INFO] = { vfu_cmd_get_info, false },
    [VFU_CMD_DEVICE_GET_REGION_INFO] = { vfu_cmd_region_info, false },
    [VFU_CMD_DEVICE_GET_IRQ_INFO] = { vfu_cmd_irq_info, false },
    [VFU_CMD_DEVICE_SET_IRQS] = { vfu_cmd_set_irqs, true },
    [VFU_CMD_REGION_READ] = { vfu_cmd_region_read, false },
    [VFU_CMD_REGION_WRITE] = { vfu_cmd_region_write, false },
    [VFU_CMD_REGION_WRITE_MULTI] = { vfu_cmd_write_multi, false },
    [VFU_CMD_DEVICE_RESET] = { vfu_cmd_device_reset, false },
};

static const VfuCmd *vfu_cmd_find(uint16_t command)
{
    if (command < sizeof(vfu_cmds) / sizeof(vfu_cmds[0]) &&
        vfu_cmds[command].fn) {
        return &vfu_cmds[command];
    }
    return NULL;
}

void vfu_handle_msg(VfuServer *s, uint8_t *buf, size_t len, int *fds,
                    unsigned nfds)
{
    VfuHdr h = { 0 };
    const VfuCmd *cmd;

    memcpy(&h, buf, len < sizeof(h) ? len : sizeof(h));
    trace_e810_vfu_msg(h.id, h.command, h.size, h.flags, nfds);
    cmd = vfu_cmd_find(h.command);
    if (len < VFU_HDR_SIZE || h.size != len) {
        vfu_error(s, &h, EINVAL, "bad message size");
    } else if ((h.flags & VFU_FLAG_TYPE_MASK) == VFU_FLAG_REPLY) {
        /* Nothing of ours is outstanding here: never reply to a reply. */
        s->stats.stray_replies++;
        trace_e810_vfu_error(h.id, h.command, EINVAL, "stray reply");
    } else if ((h.flags & VFU_FLAG_TYPE_MASK) != VFU_FLAG_REQUEST ||
               (h.flags & ~(VFU_FLAG_TYPE_MASK | VFU_FLAG_NO_REPLY))) {
        vfu_error(s, &h, EINVAL, "bad flags");
    } else if (nfds && !(cmd && cmd->takes_fds)) {
        vfu_error(s, &h, EINVAL, "fds with a command that takes none");
    } else if (!s->negotiated && h.command != VFU_CMD_VERSION) {
        vfu_error(s, &h, EINVAL, "no version negotiated");
    } else if (!cmd) {
        vfu_error(s, &h, ENOTSUP, "command not supported");
    } else {
        cmd->fn(s, &h, buf + VFU_HDR_SIZE, h.size - VFU_HDR_SIZE, fds, nfds);
    }
    vfu_close_fds(fds, nfds);
}

int vfu_server_recv(VfuServer *s)
{
    int fds[VFU_MAX_FDS];
    unsigned nfds = 0;
    bool ctrunc = false;
    VfuHdr h;
    int rc = vfu_recv_hdr(s, &h, fds, &nfds, &ctrunc);

    if (rc <= 0) {
        return rc;
    }
    if (h.size < VFU_HDR_SIZE) {
        /* Nothing more belongs to it: answer and read on. */
        vfu_close_fds(fds, nfds);
        vfu_error(s, &h, EINVAL, "size below the header's");
        return s->broken ? -1 : 1;
    }
    if (h.size > VFU_MAX_MSG) {
        /* Skip the body (the stream stays in step), then refuse. */
        uint64_t left = h.size - VFU_HDR_SIZE;

        vfu_close_fds(fds, nfds);
        while (left) {
            size_t n = left < VFU_MAX_MSG ? left : VFU_MAX_MSG;

            if (!vfu_read_full(s, s->msg, n)) {
                return -1;
            }
            left -= n;
        }
        vfu_error(s, &h, E2BIG, "message larger than max_data_xfer_size");
        return s->broken ? -1 : 1;
    }
    memcpy(s->msg, &h, sizeof(h));
    if (!vfu_read_full(s, s->msg + VFU_HDR_SIZE, h.size - VFU_HDR_SIZE)) {
        vfu_close_fds(fds, nfds);
        return -1;
    }
    if (ctrunc) {
        vfu_close_fds(fds, nfds);
        vfu_error(s, &h, EINVAL, "too many fds");
        return s->broken ? -1 : 1;
    }
    vfu_handle_msg(s, s->msg, h.size, fds, nfds);
    vfu_run_deferred(s);
    return s->broken ? -1 : 1;
}
