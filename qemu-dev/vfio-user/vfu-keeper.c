/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The keeper (vfu-keeper.h): holds the client's connection for the device
 * process and answers for it once it is gone.
 */
#include "qemu/osdep.h"
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vfu-server.h"

/* The server's own limits: what one message and one access may be. */
#define KEEP_MAX_MSG        VFU_MAX_MSG
#define KEEP_RW_MAX         VFU_REGION_RW_MAX
#define KEEP_FDS_MAX        VFU_MAX_FDS

/* ---- the child's notes ------------------------------------------------- */

void vfu_keep_owe(VfuKeep *k, const VfuHdr *h)
{
    if (!k || (h->flags & VFU_FLAG_TYPE_MASK) != VFU_FLAG_REQUEST ||
        (h->flags & VFU_FLAG_NO_REPLY)) {
        return;
    }
    if (k->nowed >= VFU_KEEP_OWED_MAX) {
        k->nowed = VFU_KEEP_OWED_MAX;
        /* The oldest goes: its request then times out in the client. */
        memmove(&k->owed[0], &k->owed[1],
                (VFU_KEEP_OWED_MAX - 1) * sizeof(k->owed[0]));
        k->nowed--;
        k->owed_lost++;
    }
    k->owed[k->nowed].id = h->id;
    k->owed[k->nowed].command = h->command;
    k->nowed++;
}

void vfu_keep_paid(VfuKeep *k, uint16_t id)
{
    if (!k) {
        return;
    }
    if (k->nowed > VFU_KEEP_OWED_MAX) {
        k->nowed = VFU_KEEP_OWED_MAX;
    }
    for (unsigned i = 0; i < k->nowed; i++) {
        if (k->owed[i].id == id) {
            memmove(&k->owed[i], &k->owed[i + 1],
                    (k->nowed - i - 1) * sizeof(k->owed[0]));
            k->nowed--;
            return;
        }
    }
}

/* ---- the socket -------------------------------------------------------- */

static bool send_all(int sock, const void *buf, size_t len)
{
    const uint8_t *p = buf;

    while (len) {
        ssize_t n = send(sock, p, len, MSG_NOSIGNAL);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        p += n;
        len -= n;
    }
    return true;
}

/* Read exactly @len bytes (@buf NULL: discard them); fds are closed. */
static bool recv_all(int sock, void *buf, size_t len, VfuKeeperStats *st)
{
    uint8_t *p = buf, scratch[4096];

    while (len) {
        union {
            struct cmsghdr align;
            char buf[CMSG_SPACE(KEEP_FDS_MAX * sizeof(int))];
        } ctl;
        size_t want = p ? len : (len < sizeof(scratch) ? len : sizeof(scratch));
        struct iovec iov = { .iov_base = p ? p : scratch, .iov_len = want };
        struct msghdr mh = {
            .msg_iov = &iov, .msg_iovlen = 1,
            .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
        };
        ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c;
             c = CMSG_NXTHDR(&mh, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                unsigned nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

                for (unsigned i = 0; i < nfd; i++) {
                    int fd;

                    memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                    close(fd);
                    st->fds_closed++;
                }
            }
        }
        if (p) {
            p += n;
        }
        len -= n;
    }
    return true;
}

/* A reply to @req: header, then @len bytes of @body (NULL: @fill bytes). */
static bool reply(int sock, const VfuHdr *req, uint32_t err,
                  const void *body, size_t len, int fill)
{
    static uint8_t buf[VFU_HDR_SIZE + 16 + KEEP_RW_MAX];
    VfuHdr h = {
        .id = req->id,
        .command = req->command,
        .size = VFU_HDR_SIZE + (err ? 0 : len),
        .flags = VFU_FLAG_REPLY | (err ? VFU_FLAG_ERROR : 0),
        .error = err,
    };

    if (req->flags & VFU_FLAG_NO_REPLY) {
        return true;
    }
    if (err) {
        len = 0;
    }
    memcpy(buf, &h, sizeof(h));
    if (body) {
        memcpy(buf + VFU_HDR_SIZE, body, len);
    } else {
        memset(buf + VFU_HDR_SIZE, fill, len);
    }
    return send_all(sock, buf, VFU_HDR_SIZE + len);
}

/* ---- answering as a failed device -------------------------------------- */

/*
 * The requests a failed device answers with success: with the first
 * @echo bytes of the request (which it must have) or, 0, nothing; each
 * counted in writes or in other.
 */
typedef struct KeepAnswer {
    uint16_t command;
    uint16_t echo;
    bool write;
} KeepAnswer;

static const KeepAnswer keep_answers[] = {
    { VFU_CMD_REGION_WRITE, sizeof(VfuRegionRw), true },
    { VFU_CMD_REGION_WRITE_MULTI, 0, true },
    { VFU_CMD_DMA_UNMAP, sizeof(VfuDmaUnmap), false },
    /* Nothing left to map, signal or reset: done. */
    { VFU_CMD_DMA_MAP, 0, false },
    { VFU_CMD_DEVICE_SET_IRQS, 0, false },
    { VFU_CMD_DEVICE_RESET, 0, false },
};

static bool answer(int sock, const VfuHdr *h, const uint8_t *body,
                   uint32_t plen, VfuKeeperStats *st)
{
    static uint8_t out[16 + KEEP_RW_MAX];
    VfuRegionRw rw;

    if ((h->flags & VFU_FLAG_TYPE_MASK) == VFU_FLAG_REPLY) {
        st->replies_dropped++;      /* to the dead device's DMA requests */
        return true;
    }
    /* A read of a device that is gone: all ones, as on PCI. */
    if (h->command == VFU_CMD_REGION_READ && plen == sizeof(rw)) {
        memcpy(&rw, body, sizeof(rw));
        if (rw.count && rw.count <= KEEP_RW_MAX) {
            st->reads++;
            memcpy(out, &rw, sizeof(rw));
            memset(out + sizeof(rw), 0xFF, rw.count);
            return reply(sock, h, 0, out, sizeof(rw) + rw.count, 0);
        }
    }
    for (unsigned i = 0; i < sizeof(keep_answers) / sizeof(keep_answers[0]);
         i++) {
        const KeepAnswer *a = &keep_answers[i];

        if (a->command == h->command && plen >= a->echo) {
            *(a->write ? &st->writes : &st->other) += 1;
            return reply(sock, h, 0, a->echo ? body : NULL, a->echo, 0);
        }
    }
    st->errors++;
    return reply(sock, h, ENODEV, NULL, 0, 0);
}

/*
 * The device's notes, copied once it has ended and checked field by
 * field: a compromised device process may have written anything there.
 * A field out of its bounds is dropped (counted in notes_bad): the
 * stream may then be out of step, which costs the client errors, never
 * the keeper a wild access.
 */
void vfu_keep_check(const VfuKeep *shared, VfuKeep *k, VfuKeeperStats *st)
{
    VfuHdr h;
    uint64_t got;

    memcpy(k, (const void *)shared, sizeof(*k));
    if (k->tx > k->tx_end || k->tx_end - k->tx > KEEP_MAX_MSG) {
        st->notes_bad++;
        k->tx_end = k->tx;
    }
    got = k->rx - k->msg_start;
    memcpy(&h, k->hdr, sizeof(h));
    if (k->rx < k->msg_start || got > KEEP_MAX_MSG ||
        (got >= VFU_HDR_SIZE && got > h.size)) {
        st->notes_bad++;
        k->msg_start = k->rx;
    }
    if (k->nowed > VFU_KEEP_OWED_MAX) {
        st->notes_bad++;
        k->nowed = VFU_KEEP_OWED_MAX;
    }
}

int vfu_keeper_serve(int sock, const VfuKeep *shared, VfuKeeperStats *st)
{
    static uint8_t body[KEEP_MAX_MSG];
    VfuKeep notes, *k = &notes;
    uint64_t got;
    VfuHdr h;

    vfu_keep_check(shared, k, st);

    /* A reply the device was part way through: its length stands. */
    if (k->tx < k->tx_end) {
        size_t left = k->tx_end - k->tx;

        memset(body, 0, left);
        st->padded += left;
        if (!send_all(sock, body, left)) {
            return -1;
        }
    }

    /* The message it was reading: the rest of it, unanswered. */
    got = k->rx - k->msg_start;
    if (got && got < VFU_HDR_SIZE) {
        if (!recv_all(sock, k->hdr + got, VFU_HDR_SIZE - got, st)) {
            return 0;
        }
        got = VFU_HDR_SIZE;
        memcpy(&h, k->hdr, sizeof(h));
        vfu_keep_owe(k, &h);
    }
    if (got >= VFU_HDR_SIZE) {
        memcpy(&h, k->hdr, sizeof(h));
        if (h.size > got && !recv_all(sock, NULL, h.size - got, st)) {
            return 0;
        }
    }

    /* What it owed: an error each (the client fails that access). */
    for (unsigned i = 0; i < k->nowed; i++) {
        VfuHdr req = { .id = k->owed[i].id, .command = k->owed[i].command };

        st->errors++;
        if (!reply(sock, &req, ENODEV, NULL, 0, 0)) {
            return -1;
        }
    }
    k->nowed = 0;

    /* Then every request as it comes, until the client hangs up. */
    for (;;) {
        struct pollfd idle = { .fd = sock, .events = POLLIN };
        uint32_t plen;

        /*
         * Wait for the next request without a bound: the socket carries
         * the device's 5 s receive timeout (SO_RCVTIMEO, a client stalled
         * mid-message is cut off), and a guest may leave its failed device
         * alone for longer than that (ice's reset recovery) without having
         * gone.
         */
        while (poll(&idle, 1, -1) < 0 && errno == EINTR) {
        }
        if (!recv_all(sock, &h, sizeof(h), st)) {
            return 0;
        }
        if (h.size < VFU_HDR_SIZE) {
            plen = 0;
        } else if (h.size > KEEP_MAX_MSG) {
            if (!recv_all(sock, NULL, h.size - VFU_HDR_SIZE, st)) {
                return 0;
            }
            st->errors++;
            if (!reply(sock, &h, E2BIG, NULL, 0, 0)) {
                return -1;
            }
            continue;
        } else {
            plen = h.size - VFU_HDR_SIZE;
            if (!recv_all(sock, body, plen, st)) {
                return 0;
            }
        }
        if (!answer(sock, &h, body, plen, st)) {
            return -1;
        }
    }
}

/* ---- the process ------------------------------------------------------- */

/* Straight out: exit handlers (LeakSanitizer's scan among them) would
 * need system calls the keeper's allow-list refuses. */
static void keeper_exit(int status) __attribute__((noreturn));
static void keeper_exit(int status)
{
    fflush(NULL);
    for (;;) {
        syscall(SYS_exit_group, status);
    }
}

static volatile sig_atomic_t keeper_child;
static volatile sig_atomic_t keeper_stopping;

static void keeper_forward(int sig)
{
    keeper_stopping = 1;
    if (keeper_child > 0) {
        kill(keeper_child, sig);
    }
}

int vfu_unix_connect(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd, err;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        return -ENAMETOOLONG;
    }
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -errno;
    }
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        err = errno;
        close(fd);
        return -err;
    }
    return fd;
}

bool vfu_keeper_broker(int broker, const char *link_path)
{
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    uint8_t req, st = 0;
    struct iovec iov = { .iov_base = &st, .iov_len = 1 };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
    ssize_t n = recv(broker, &req, 1, MSG_DONTWAIT);
    int fd = -1;

    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        return false;
    }
    if (n < 0) {
        return true;
    }
    if (req != VFU_BROKER_CONNECT || !link_path) {
        st = EINVAL;
    } else {
        fd = vfu_unix_connect(link_path);
        if (fd < 0) {
            st = -fd < 256 ? (uint8_t)-fd : EIO;
        }
    }
    if (!st) {
        memset(&ctl, 0, sizeof(ctl));
        mh.msg_control = ctl.buf;
        mh.msg_controllen = sizeof(ctl.buf);
        CMSG_FIRSTHDR(&mh)->cmsg_level = SOL_SOCKET;
        CMSG_FIRSTHDR(&mh)->cmsg_type = SCM_RIGHTS;
        CMSG_FIRSTHDR(&mh)->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(CMSG_FIRSTHDR(&mh)), &fd, sizeof(int));
    }
    /* The device reads it when it polls: never wait for it here. */
    sendmsg(broker, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (!st) {
        close(fd);
    }
    return true;
}

void vfu_keeper_main(int sock, VfuKeep *k, pid_t child,
                     const VfuKeeperOpts *o)
{
    struct sigaction sa = { .sa_handler = keeper_forward };
    VfuKeeperStats st = { 0 };
    int status, rc, broker = o ? o->broker : -1, pidfd, lo, hi;

    /* Only the client's connection and the broker: the link and files
     * are the device's. */
    lo = sock < broker ? sock : broker;
    hi = sock < broker ? broker : sock;
    if (lo < 0) {
        lo = hi;
        hi = -1;
    }
    if (lo > 3) {
        syscall(SYS_close_range, 3, lo - 1, 0);
    }
    if (hi > lo + 1) {
        syscall(SYS_close_range, lo + 1, hi - 1, 0);
    }
    syscall(SYS_close_range, (hi >= 0 ? hi : lo) + 1, ~0u, 0);

    keeper_child = child;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    /* The device's end as an fd to poll (Linux 5.3); else a timeout. */
    pidfd = (int)syscall(SYS_pidfd_open, child, 0);
    if (o && o->sandbox && !o->sandbox(child, broker >= 0)) {
        kill(child, SIGKILL);
        keeper_exit(1);
    }
    for (;;) {
        struct pollfd p[2];
        unsigned n = 0, ib = ~0u;
        pid_t w;

        if (pidfd >= 0) {
            p[n++] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
        }
        if (broker >= 0) {
            ib = n;
            p[n++] = (struct pollfd){ .fd = broker, .events = POLLIN };
        }
        if (poll(p, n, pidfd >= 0 ? -1 : 200) < 0 && errno != EINTR) {
            keeper_exit(1);
        }
        if (ib != ~0u && p[ib].revents &&
            !vfu_keeper_broker(broker, o->link_path)) {
            close(broker);
            broker = -1;
        }
        w = waitpid(child, &status, WNOHANG);
        if (w == child) {
            break;
        }
        if (w < 0 && errno != EINTR) {
            keeper_exit(1);
        }
    }
    if (keeper_stopping || (WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        /* Stopped on request, or the client went away: nothing to keep. */
        keeper_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
    }
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "e810-vfio-user: the device process (pid %d) died of "
                "signal %d (SIG%s); answering as a failed device\n", (int)child,
                WTERMSIG(status), sigabbrev_np(WTERMSIG(status)) ?
                sigabbrev_np(WTERMSIG(status)) : "?");
    } else {
        fprintf(stderr, "e810-vfio-user: the device process (pid %d) exited "
                "with %d; answering as a failed device\n", (int)child,
                WEXITSTATUS(status));
    }
    keeper_child = 0;
    rc = vfu_keeper_serve(sock, k, &st);
    fprintf(stderr, "e810-vfio-user: keeper: client %s; answered %" PRIu64
            " reads (all ones), %" PRIu64 " writes, %" PRIu64 " other, %"
            PRIu64 " with errors; %" PRIu64 " replies and %" PRIu64
            " fds dropped, %" PRIu64 " bytes padded, %" PRIu64
            " owed replies lost, %" PRIu64 " notes out of bounds\n",
            rc ? "connection broke" : "hung up", st.reads, st.writes,
            st.other, st.errors, st.replies_dropped, st.fds_closed,
            st.padded, k->owed_lost, st.notes_bad);
    /* The device failed: say so in the exit status. */
    keeper_exit(1);
}
