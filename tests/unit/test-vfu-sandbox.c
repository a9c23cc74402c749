/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e810-vfio-user's sandbox (qemu-dev/vfio-user/vfu-sandbox.c, issue 32),
 * as a compromised device process would try it: each attempt runs in a
 * child under the real allow-list and must be killed (SIGSYS), while
 * what the server needs still works.  Then the keeper's broker: it
 * connects the link's path for the device, and nothing else.
 */
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vfu-keeper.h"
#include "vfu-sandbox.h"

enum { DEVICE, KEEPER, KEEPER_BROKER };

/* Run @what in a child under list @which; its end: 0..255 an exit
 * status, 256 + N killed by signal N. */
static int sandboxed(int which, int listen_fd, int (*what)(int), int arg)
{
    pid_t pid = fork();
    int st;

    if (pid == 0) {
        bool ok = which == DEVICE ? vfu_sandbox_device(listen_fd, -1) :
                  vfu_sandbox_keeper(getppid(), which == KEEPER_BROKER);

        syscall(SYS_exit_group, ok ? what(arg) : 100);
    }
    if (pid < 0 || waitpid(pid, &st, 0) != pid) {
        return -1;
    }
    return WIFSIGNALED(st) ? 256 + WTERMSIG(st) : WEXITSTATUS(st);
}

static int try_socket(int arg)
{
    return socket(AF_UNIX, SOCK_STREAM, 0) >= 0 ? 0 : 1;
}

static int try_socket_inet(int arg)
{
    return socket(AF_INET, SOCK_STREAM, 0) >= 0 ? 0 : 1;
}

static const char *path;

static int try_connect(int fd)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };

    strcpy(sa.sun_path, path);
    return connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ? 1 : 0;
}

static int try_accept(int fd)
{
    int c = accept4(fd, NULL, NULL, SOCK_NONBLOCK);

    return c >= 0 ? 0 : errno == EAGAIN ? 2 : 1;
}

static int try_open(int arg)
{
    return open("/etc/passwd", O_RDONLY) >= 0 ? 0 : 1;
}

static int try_kill_other(int pid)
{
    return kill(pid, 0) ? 1 : 0;
}

static int try_exec(int arg)
{
    char *argv[] = { "/bin/true", NULL };

    execv(argv[0], argv);
    return 1;
}

static int try_fork(int arg)
{
    return fork() >= 0 ? 0 : 1;
}

static int listener(const char *where)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    strcpy(sa.sun_path, where);
    unlink(where);
    CHECK_EQ(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    CHECK_EQ(listen(fd, 4), 0);
    return fd;
}

static char dir[] = "/tmp/vfu-sandbox-XXXXXX", p_link[64], p_other[64];

/* The device's list: nothing new opened, connected or run; its own
 * listener still accepts. */
static void test_device_list(void)
{
    int lfd = listener(p_link), ofd = listener(p_other);
    int pre = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int sigsys = 256 + SIGSYS;

    CHECK_EQ(sandboxed(DEVICE, lfd, try_socket, 0), sigsys);
    CHECK_EQ(sandboxed(DEVICE, lfd, try_socket_inet, 0), sigsys);
    path = p_other;             /* another VM's monitor or link socket */
    CHECK_EQ(sandboxed(DEVICE, lfd, try_connect, pre), sigsys);
    CHECK_EQ(sandboxed(DEVICE, lfd, try_accept, ofd), sigsys);
    CHECK_EQ(sandboxed(DEVICE, -1, try_accept, lfd), sigsys);
    CHECK_EQ(sandboxed(DEVICE, lfd, try_open, 0), sigsys);
    CHECK_EQ(sandboxed(DEVICE, lfd, try_exec, 0), sigsys);
    CHECK_EQ(sandboxed(DEVICE, lfd, try_fork, 0), sigsys);
    CHECK_EQ(sandboxed(DEVICE, lfd, try_kill_other, getpid()), sigsys);
    /* Allowed: accept on the link listener (nothing waiting: EAGAIN). */
    CHECK_EQ(sandboxed(DEVICE, lfd, try_accept, lfd), 2);
    close(pre);
    close(lfd);
    close(ofd);
}

/* The keeper's list: signals to its child only; new sockets and connect
 * only as the link's broker. */
static void test_keeper_list(void)
{
    int pre = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int lfd = listener(p_link);
    const int sigsys = 256 + SIGSYS;

    CHECK_EQ(sandboxed(KEEPER, -1, try_socket, 0), sigsys);
    path = p_link;
    CHECK_EQ(sandboxed(KEEPER, -1, try_connect, pre), sigsys);
    CHECK_EQ(sandboxed(KEEPER, -1, try_accept, lfd), sigsys);
    CHECK_EQ(sandboxed(KEEPER, -1, try_open, 0), sigsys);
    CHECK_EQ(sandboxed(KEEPER, -1, try_exec, 0), sigsys);
    CHECK_EQ(sandboxed(KEEPER, -1, try_fork, 0), sigsys);
    CHECK_EQ(sandboxed(KEEPER, -1, try_kill_other, 1), sigsys);
    /* Its "child" here is the test: allowed. */
    CHECK_EQ(sandboxed(KEEPER, -1, try_kill_other, getpid()), 0);
    CHECK_EQ(sandboxed(KEEPER_BROKER, -1, try_socket_inet, 0), sigsys);
    CHECK_EQ(sandboxed(KEEPER_BROKER, -1, try_socket, 0), 0);
    close(pre);
    close(lfd);
}

/* The broker: a connect request gets a connected fd to the link's path;
 * with no peer, the errno; a request for anything else, EINVAL. */
static void test_broker(void)
{
    int lfd = listener(p_link), bv[2], fd = -1, c;
    uint8_t st = 0xFF, req = VFU_BROKER_CONNECT;
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    struct iovec iov = { .iov_base = &st, .iov_len = 1 };
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1,
        .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
    };

    CHECK_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, bv), 0);
    CHECK_EQ(send(bv[1], &req, 1, 0), 1);
    CHECK(vfu_keeper_broker(bv[0], p_link));
    CHECK_EQ(recvmsg(bv[1], &mh, 0), 1);
    CHECK_EQ(st, 0);
    CHECK(CMSG_FIRSTHDR(&mh) != NULL);
    if (CMSG_FIRSTHDR(&mh)) {
        memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(int));
    }
    c = accept4(lfd, NULL, NULL, 0);
    CHECK(c >= 0);
    CHECK_EQ(send(fd, "x", 1, 0), 1);
    CHECK_EQ(recv(c, &req, 1, 0), 1);
    CHECK_EQ(req, 'x');
    close(fd);
    close(c);
    /* No listener: the errno, no fd. */
    close(lfd);
    unlink(p_link);
    req = VFU_BROKER_CONNECT;
    CHECK_EQ(send(bv[1], &req, 1, 0), 1);
    CHECK(vfu_keeper_broker(bv[0], p_link));
    mh.msg_controllen = sizeof(ctl.buf);
    CHECK_EQ(recvmsg(bv[1], &mh, 0), 1);
    CHECK_EQ(st, ENOENT);
    CHECK(CMSG_FIRSTHDR(&mh) == NULL);
    /* Anything but a connect request. */
    req = 'X';
    CHECK_EQ(send(bv[1], &req, 1, 0), 1);
    CHECK(vfu_keeper_broker(bv[0], p_link));
    mh.msg_controllen = sizeof(ctl.buf);
    CHECK_EQ(recvmsg(bv[1], &mh, 0), 1);
    CHECK_EQ(st, EINVAL);
    /* The device's end closed: the broker is done. */
    close(bv[1]);
    CHECK(!vfu_keeper_broker(bv[0], p_link));
    close(bv[0]);
}

int main(void)
{
    if (!vfu_sandbox_available()) {
        printf("1..0 # SKIP built without libseccomp\n");
        return 0;
    }
    CHECK(mkdtemp(dir) != NULL);
    snprintf(p_link, sizeof(p_link), "%s/link.sock", dir);
    snprintf(p_other, sizeof(p_other), "%s/other.sock", dir);
    RUN(test_device_list);
    RUN(test_keeper_list);
    RUN(test_broker);
    unlink(p_link);
    unlink(p_other);
    rmdir(dir);
    return CHECK_DONE();
}
