/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e810-vfio-user's control interface (vfu-control.h).
 */
#include "qemu/osdep.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "vfu-control.h"
#include "trace.h"

void vfu_control_line(E810Core *c, const char *line, char *reply, size_t n)
{
    char err[200];

    if (!strncmp(line, "fault ", 6)) {
        if (e810_fault_arm(c, line + 6, err, sizeof(err))) {
            snprintf(reply, n, "ok");
        } else {
            snprintf(reply, n, "error: %s", err);
        }
    } else if (!strcmp(line, "fault-clear")) {
        e810_fault_clear(c);
        snprintf(reply, n, "ok");
    } else if (!strcmp(line, "faults")) {
        /* The injections, one line (";"-separated) as every answer is. */
        char log[E810_FAULT_LOG_MAX * 48];

        e810_fault_log(c, log, sizeof(log));
        for (char *p = log; *p; p++) {
            if (*p == '\n') {
                *p = p[1] ? ';' : 0;
            }
        }
        snprintf(reply, n, "%s", log);
    } else if (!strcmp(line, "stats")) {
        snprintf(reply, n, "faults_injected=%" PRIu64 " adapter_resets=%" PRIu64
                 " pf_resets=%" PRIu64 " guest_errors=%" PRIu64
                 " rx_dropped=%" PRIu64 " tx_dropped=%" PRIu64,
                 c->stats.faults_injected, c->stats.adapter_resets,
                 c->stats.pf_resets, c->stats.guest_errors,
                 c->stats.rx_dropped, c->stats.tx_dropped);
    } else {
        snprintf(reply, n, "error: unknown command (fault SPEC, fault-clear, "
                 "faults, stats)");
    }
}

bool vfu_control_open(VfuControl *ctl, const char *path, bool chown_to,
                      uid_t uid, gid_t gid)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    ctl->listen_fd = ctl->fd = -1;
    if (strlen(path) >= sizeof(sa.sun_path)) {
        fprintf(stderr, "e810-vfio-user: --control %s: path too long\n", path);
        return false;
    }
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    unlink(path);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        chmod(path, 0600) < 0 || (chown_to && chown(path, uid, gid) < 0) ||
        listen(fd, 1) < 0) {
        fprintf(stderr, "e810-vfio-user: --control %s: %s\n", path,
                strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return false;
    }
    ctl->listen_fd = fd;
    return true;
}

int vfu_control_fd(const VfuControl *ctl)
{
    return ctl->fd >= 0 ? ctl->fd : ctl->listen_fd;
}

bool vfu_control_pending(const VfuControl *ctl)
{
    return ctl->fd >= 0 && memchr(ctl->buf, '\n', ctl->len);
}

static void control_drop(VfuControl *ctl, const char *why)
{
    trace_e810_vfu_control("client dropped", why);
    close(ctl->fd);
    ctl->fd = -1;
    ctl->len = 0;
    ctl->dropped++;
}

/* The answer, all of it at once: a client that does not read is dropped. */
static bool control_answer(VfuControl *ctl, const char *reply)
{
    char out[VFU_CONTROL_ANSWER_MAX];
    int len = snprintf(out, sizeof(out), "%s\n", reply);
    ssize_t w;

    do {
        w = send(ctl->fd, out, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (w < 0 && errno == EINTR);
    if (w != len) {
        control_drop(ctl, "answer not taken");
        return false;
    }
    return true;
}

void vfu_control_ready(VfuControl *ctl, E810Core *c)
{
    ssize_t r;
    unsigned lines = 0;
    char *nl;

    if (ctl->fd < 0) {
        ctl->fd = accept4(ctl->listen_fd, NULL, NULL,
                          SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (ctl->fd >= 0) {
            ctl->len = 0;
            trace_e810_vfu_control("client", "connected");
        }
        return;
    }
    do {
        r = recv(ctl->fd, ctl->buf + ctl->len, sizeof(ctl->buf) - ctl->len,
                 MSG_DONTWAIT);
    } while (r < 0 && errno == EINTR);
    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
        trace_e810_vfu_control("client", "gone");
        close(ctl->fd);
        ctl->fd = -1;
        ctl->len = 0;
        return;
    }
    if (r > 0) {
        ctl->len += r;
    }
    while (ctl->fd >= 0 && lines < VFU_CONTROL_LINES_MAX &&
           (nl = memchr(ctl->buf, '\n', ctl->len))) {
        char reply[VFU_CONTROL_ANSWER_MAX - 1];
        size_t used = nl - ctl->buf + 1;

        *nl = 0;
        if (nl > ctl->buf && nl[-1] == '\r') {
            nl[-1] = 0;
        }
        vfu_control_line(c, ctl->buf, reply, sizeof(reply));
        ctl->commands++;
        ctl->refused += !strncmp(reply, "error", 5);
        trace_e810_vfu_control(ctl->buf, reply);
        memmove(ctl->buf, ctl->buf + used, ctl->len - used);
        ctl->len -= used;
        lines++;
        if (!control_answer(ctl, reply)) {
            return;
        }
    }
    if (ctl->fd >= 0 && ctl->len == sizeof(ctl->buf)) {
        control_answer(ctl, "error: line too long");
        if (ctl->fd >= 0) {
            control_drop(ctl, "line too long");
        }
    }
}

void vfu_control_close(VfuControl *ctl)
{
    if (ctl->fd >= 0) {
        close(ctl->fd);
    }
    if (ctl->listen_fd >= 0) {
        close(ctl->listen_fd);
    }
    ctl->fd = ctl->listen_fd = -1;
}
