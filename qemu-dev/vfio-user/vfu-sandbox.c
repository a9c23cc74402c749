/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e810-vfio-user's sandbox (vfu-sandbox.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef CONFIG_SECCOMP
#include <seccomp.h>
#endif

#include "vfu-sandbox.h"

static bool parse_id(const char *s, unsigned long *v)
{
    char *end;

    errno = 0;
    *v = strtoul(s, &end, 10);
    return *s && !*end && !errno && *v < 0xFFFFFFFFul;
}

bool vfu_user_parse(const char *spec, uid_t *uid, gid_t *gid)
{
    char user[256], *group;
    unsigned long v;
    struct passwd *pw;

    if (strlen(spec) >= sizeof(user)) {
        fprintf(stderr, "e810-vfio-user: --user %s: too long\n", spec);
        return false;
    }
    strcpy(user, spec);
    group = strchr(user, ':');
    if (group) {
        *group++ = 0;
    }
    pw = getpwnam(user);
    if (pw) {
        *uid = pw->pw_uid;
        *gid = pw->pw_gid;
    } else if (parse_id(user, &v)) {
        pw = getpwuid((uid_t)v);
        *uid = (uid_t)v;
        *gid = pw ? pw->pw_gid : (gid_t)v;
    } else {
        fprintf(stderr, "e810-vfio-user: --user: no user %s\n", user);
        return false;
    }
    if (group) {
        struct group *gr = getgrnam(group);

        if (gr) {
            *gid = gr->gr_gid;
        } else if (parse_id(group, &v)) {
            *gid = (gid_t)v;
        } else {
            fprintf(stderr, "e810-vfio-user: --user: no group %s\n", group);
            return false;
        }
    }
    return true;
}

bool vfu_drop_privileges(bool switch_user, uid_t uid, gid_t gid)
{
    struct __user_cap_header_struct hdr = {
        .version = _LINUX_CAPABILITY_VERSION_3,
    };
    struct __user_cap_data_struct data[2] = { 0 };

    /* The bounding set needs CAP_SETPCAP: before the uid goes. */
    for (int cap = 0; cap <= 63; cap++) {
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno == EINVAL) {
            break;          /* past the kernel's last capability */
        }
    }
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    if (switch_user) {
        if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
            setresuid(uid, uid, uid)) {
            perror("e810-vfio-user: switching user");
            return false;
        }
        if (getuid() != uid || geteuid() != uid || getgid() != gid ||
            getegid() != gid || (uid && setuid(0) == 0)) {
            fprintf(stderr, "e810-vfio-user: still privileged after the "
                    "switch to %u:%u\n", (unsigned)uid, (unsigned)gid);
            return false;
        }
    }
    if (syscall(SYS_capset, &hdr, data) < 0) {
        perror("e810-vfio-user: capset");
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
        perror("e810-vfio-user: no_new_privs");
        return false;
    }
    return true;
}

#ifdef CONFIG_SECCOMP

bool vfu_sandbox_available(void)
{
    return true;
}

/* Everything a process needs to run at all once set up, and to exit. */
#define BASE_LIST \
    SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(recvmsg), SCMP_SYS(sendmsg), \
    SCMP_SYS(recvfrom), SCMP_SYS(sendto), SCMP_SYS(poll), SCMP_SYS(ppoll), \
    SCMP_SYS(close), SCMP_SYS(brk), SCMP_SYS(mmap), SCMP_SYS(munmap), \
    SCMP_SYS(clock_gettime), SCMP_SYS(exit), SCMP_SYS(exit_group), \
    SCMP_SYS(rt_sigreturn), SCMP_SYS(restart_syscall), SCMP_SYS(fstat), \
    SCMP_SYS(newfstatat), SCMP_SYS(lseek), SCMP_SYS(getpid), \
    SCMP_SYS(sigaltstack)

static bool load(scmp_filter_ctx ctx, const char *who)
{
    int rc = ctx ? seccomp_load(ctx) : -ENOMEM;

    if (ctx) {
        seccomp_release(ctx);
    }
    if (rc) {
        fprintf(stderr, "e810-vfio-user: seccomp (%s): %s\n", who,
                strerror(-rc));
        return false;
    }
    return true;
}

static scmp_filter_ctx list(const int *allow, unsigned n)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);

    for (unsigned i = 0; ctx && i < n; i++) {
        if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allow[i], 0)) {
            seccomp_release(ctx);
            return NULL;
        }
    }
    return ctx;
}

/*
 * The device: socket I/O on the fds it holds or is given (QEMU's
 * SCM_RIGHTS, the keeper's link), poll, mmap for DMA_MAP, eventfd
 * writes, the clock, the heap, the trace and pcap files (already open).
 */
bool vfu_sandbox_device(int listen_fd, int control_fd)
{
    static const int allow[] = {
        BASE_LIST,
        SCMP_SYS(readv), SCMP_SYS(writev), SCMP_SYS(mremap),
        SCMP_SYS(madvise), SCMP_SYS(mprotect), SCMP_SYS(gettimeofday),
        SCMP_SYS(futex), SCMP_SYS(fcntl), SCMP_SYS(setsockopt),
        SCMP_SYS(shutdown), SCMP_SYS(gettid), SCMP_SYS(sched_yield),
        SCMP_SYS(rt_sigprocmask), SCMP_SYS(getrandom),
    };
    scmp_filter_ctx ctx = list(allow, sizeof(allow) / sizeof(allow[0]));

    /* A peer on its own link listener, a client on the control socket:
     * the only accepts. */
    for (unsigned i = 0; i < 2; i++) {
        int lfd = i ? control_fd : listen_fd;
        const struct scmp_arg_cmp fd = {
            .arg = 0, .op = SCMP_CMP_EQ, .datum_a = (scmp_datum_t)lfd,
        };

        if (ctx && lfd >= 0 &&
            seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, SCMP_SYS(accept4), 1,
                                   &fd)) {
            seccomp_release(ctx);
            ctx = NULL;
        }
    }
    return load(ctx, "device");
}

bool vfu_sandbox_keeper(pid_t child, bool broker)
{
    static const int allow[] = {
        BASE_LIST,
        SCMP_SYS(wait4),
    };
    scmp_filter_ctx ctx = list(allow, sizeof(allow) / sizeof(allow[0]));
    const struct scmp_arg_cmp to_child = {
        .arg = 0, .op = SCMP_CMP_EQ, .datum_a = (scmp_datum_t)child,
    };
    const struct scmp_arg_cmp af_unix = {
        .arg = 0, .op = SCMP_CMP_EQ, .datum_a = AF_UNIX,
    };

    /* SIGTERM/SIGINT/SIGHUP forwarded to the device, to no one else. */
    if (ctx && seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1,
                                      &to_child)) {
        seccomp_release(ctx);
        ctx = NULL;
    }
    if (ctx && broker &&
        (seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
                                &af_unix) ||
         seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(connect), 0))) {
        seccomp_release(ctx);
        ctx = NULL;
    }
    return load(ctx, "keeper");
}

#else

bool vfu_sandbox_available(void)
{
    return false;
}

bool vfu_sandbox_device(int listen_fd, int control_fd)
{
    return false;
}

bool vfu_sandbox_keeper(pid_t child, bool broker)
{
    return false;
}

#endif
