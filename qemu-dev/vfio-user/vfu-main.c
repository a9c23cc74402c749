/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e810-vfio-user: the command line, the event loop, the link (QEMU's
 * -netdev stream framing over a unix socket), pcap capture and the
 * seccomp allow-list.  The device itself is vfu-server.h's (vfu-int.h
 * lists its layers).
 */
#include "qemu/osdep.h"
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "vfu-server.h"
#include "vfu-sandbox.h"
#include "vfu-control.h"
#include "trace.h"

#define LINK_FRAME_MAX      (64u << 10)     /* larger: the stream is broken */
#define LINK_QUEUE_MAX      1024            /* frames waiting for the socket */
#define LINK_LAN_QUEUE_MAX  512             /* LAN frames beyond: dropped */
#define LINK_HELD_MAX       512             /* the glue's HELD_MAX */
#define LINK_RETRY_NS       100000000ll     /* connect retry: 100 ms */
#define LINK_RETRY_FOR_NS   60000000000ll   /* first connect: 60 s */
#define LOOP_MSGS_MAX       64              /* client messages per iteration */
#define LOOP_BH_PASSES      8
#define LOOP_RX_FRAMES      64

typedef struct LinkFrame {
    uint8_t *buf;           /* 4-byte length, then the frame */
    size_t len;
    bool flow;              /* the core waits for e810_tx_drained */
} LinkFrame;

typedef struct VfuLink {
    const char *path;
    bool listen_mode;
    int listen_fd;
    int fd;
    int64_t retry_at;
    int64_t give_up_at;
    bool ever_up;
    uint8_t rx[4 + LINK_FRAME_MAX];
    size_t rx_len;
    LinkFrame q[LINK_QUEUE_MAX];
    unsigned q_head, q_len;
    size_t q_off;           /* bytes of the head frame already written */
    unsigned held;          /* flow frames queued (QUEUED to the core) */
    unsigned drained;       /* of those, written: e810_tx_drained due */
    int failed;             /* errno of a failed send, handled by the loop */
    uint64_t tx_drops, rx_drops, extra_peers;
    int broker;             /* to the keeper, which connects for us */
    bool broker_wait;       /* a connection asked for, not yet answered */
    bool sandboxed;         /* no connect of our own any more */
    FILE *pcap;
    VfuServer *s;
} VfuLink;

/* ---- pcap -------------------------------------------------------------- */

static void pcap_open(VfuLink *l, const char *file)
{
    uint32_t gh[6] = { 0xa1b2c3d4, 2 | 4u << 16, 0, 0, 65535, 1 };

    l->pcap = fopen(file, "wb");
    if (!l->pcap) {
        perror(file);
        exit(1);
    }
    fwrite(gh, sizeof(gh), 1, l->pcap);
    fflush(l->pcap);
}

static void pcap_frame(VfuLink *l, const uint8_t *f, size_t len)
{
    struct timespec ts;
    uint32_t rh[4];

    if (!l->pcap) {
        return;
    }
    clock_gettime(CLOCK_REALTIME, &ts);
    rh[0] = ts.tv_sec;
    rh[1] = ts.tv_nsec / 1000;
    rh[2] = len > 65535 ? 65535 : len;
    rh[3] = len;
    fwrite(rh, sizeof(rh), 1, l->pcap);
    fwrite(f, rh[2], 1, l->pcap);
    fflush(l->pcap);
}

/* ---- link -------------------------------------------------------------- */

static int unix_socket(const char *path, struct sockaddr_un *sa)
{
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(sa->sun_path)) {
        fprintf(stderr, "e810-vfio-user: socket path too long: %s\n", path);
        exit(1);
    }
    strcpy(sa->sun_path, path);
    return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

static void link_drop_queue(VfuLink *l)
{
    while (l->q_len) {
        LinkFrame *f = &l->q[l->q_head];

        free(f->buf);
        if (f->flow) {
            l->held--;
            e810_tx_drained(&l->s->core, false);
        }
        l->q_head = (l->q_head + 1) % LINK_QUEUE_MAX;
        l->q_len--;
    }
    l->q_off = 0;
}

static void link_down(VfuLink *l, const char *why, int err)
{
    trace_e810_vfu_link(why, err);
    if (l->fd >= 0) {
        close(l->fd);
        l->fd = -1;
    }
    l->rx_len = 0;
    link_drop_queue(l);
    l->retry_at = vfu_clock_ns() + LINK_RETRY_NS;
}

static void link_up(VfuLink *l, int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    l->fd = fd;
    l->ever_up = true;
    trace_e810_vfu_link("up", 0);
}

/* The keeper's answer to a connect request: a status byte, the fd. */
static void link_broker_reply(VfuLink *l)
{
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    uint8_t st = EIO;
    struct iovec iov = { .iov_base = &st, .iov_len = 1 };
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1,
        .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
    };
    ssize_t n = recvmsg(l->broker, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    int fd = -1;

    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        return;
    }
    for (struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL; c;
         c = CMSG_NXTHDR(&mh, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
            c->cmsg_len >= CMSG_LEN(sizeof(int))) {
            memcpy(&fd, CMSG_DATA(c), sizeof(int));
        }
    }
    l->broker_wait = false;
    if (n <= 0) {
        /* The keeper is gone: no more reconnects. */
        trace_e810_vfu_link("keeper gone, no reconnect", 0);
        close(l->broker);
        l->broker = -1;
    }
    if (n > 0 && !st && fd >= 0 && l->fd < 0) {
        link_up(l, fd);
        return;
    }
    if (fd >= 0) {
        close(fd);
    }
    l->retry_at = vfu_clock_ns() + LINK_RETRY_NS;
}

static void link_try_connect(VfuLink *l)
{
    int fd;

    if (l->broker >= 0) {
        /* The keeper connects (the device has no connect of its own). */
        if (!l->broker_wait) {
            uint8_t req = VFU_BROKER_CONNECT;

            l->broker_wait = send(l->broker, &req, 1,
                                  MSG_DONTWAIT | MSG_NOSIGNAL) == 1;
        }
        l->retry_at = vfu_clock_ns() + LINK_RETRY_NS;
        return;
    }
    if (l->sandboxed) {
        l->retry_at = INT64_MAX;
        trace_e810_vfu_link("no reconnect without the keeper", 0);
        return;
    }
    fd = vfu_unix_connect(l->path);
    if (fd < 0) {
        l->retry_at = vfu_clock_ns() + LINK_RETRY_NS;
        return;
    }
    link_up(l, fd);
}

static void link_accept(VfuLink *l)
{
    int fd = accept4(l->listen_fd, NULL, NULL, SOCK_CLOEXEC);

    if (fd < 0) {
        return;
    }
    if (l->fd >= 0) {
        /* One peer at a time, as a cable. */
        l->extra_peers++;
        trace_e810_vfu_link("second peer refused", (int)l->extra_peers);
        close(fd);
        return;
    }
    link_up(l, fd);
}

/* Write queued frames until the socket is full. */
static void link_flush(VfuLink *l)
{
    while (l->q_len && l->fd >= 0) {
        LinkFrame *f = &l->q[l->q_head];
        ssize_t n = send(l->fd, f->buf + l->q_off, f->len - l->q_off,
                         MSG_NOSIGNAL | MSG_DONTWAIT);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return;
        }
        if (n <= 0) {
            /* Not here: this may run inside the core (send_frame). */
            l->failed = n ? errno : EPIPE;
            return;
        }
        l->q_off += n;
        if (l->q_off < f->len) {
            continue;
        }
        free(f->buf);
        l->q_off = 0;
        l->q_head = (l->q_head + 1) % LINK_QUEUE_MAX;
        l->q_len--;
        if (f->flow) {
            l->held--;
            l->drained++;
        }
    }
}

/* Outside the core's entry points: what link_flush found. */
static void link_settle(VfuLink *l)
{
    while (l->drained) {
        l->drained--;
        e810_tx_drained(&l->s->core, true);
    }
    if (l->failed) {
        int err = l->failed;

        l->failed = 0;
        link_down(l, "send failed", err);
    }
}

static E810TxResult link_send_frame(void *opaque, const void *frame,
                                    size_t len, bool flow)
{
    VfuLink *l = opaque;
    LinkFrame *f;
    unsigned before;

    if (l->fd < 0 || l->failed || len > LINK_FRAME_MAX ||
        l->q_len >= (flow ? LINK_QUEUE_MAX : LINK_LAN_QUEUE_MAX) ||
        (flow && l->held >= LINK_HELD_MAX)) {
        l->tx_drops++;
        trace_e810_vfu_link_drop(l->fd < 0 ? "tx (link down)" :
                                 "tx (queue full)", len, l->tx_drops);
        return E810_TX_DROPPED;
    }
    f = &l->q[(l->q_head + l->q_len) % LINK_QUEUE_MAX];
    f->buf = malloc(4 + len);
    if (!f->buf) {
        l->tx_drops++;
        trace_e810_vfu_link_drop("tx (no memory)", len, l->tx_drops);
        return E810_TX_DROPPED;
    }
    f->buf[0] = len >> 24;
    f->buf[1] = len >> 16;
    f->buf[2] = len >> 8;
    f->buf[3] = len;
    memcpy(f->buf + 4, frame, len);
    f->len = 4 + len;
    f->flow = false;
    l->q_len++;
    pcap_frame(l, frame, len);
    before = l->q_len;
    link_flush(l);
    if (l->q_len < before || !flow) {
        /* Written, or a LAN frame the link keeps as QEMU's queue would. */
        trace_e810_tx_frame(len, true);
        return E810_TX_SENT;
    }
    /* Still queued: it is the last one; the core waits for it. */
    l->q[(l->q_head + l->q_len - 1) % LINK_QUEUE_MAX].flow = true;
    l->held++;
    return E810_TX_QUEUED;
}

/* Deliver whole frames while the device takes them; read more if room. */
static void link_rx(VfuLink *l, bool readable)
{
    for (unsigned i = 0; i < LOOP_RX_FRAMES && l->fd >= 0; i++) {
        uint32_t flen;

        if (l->rx_len >= 4) {
            flen = (uint32_t)l->rx[0] << 24 | l->rx[1] << 16 |
                   l->rx[2] << 8 | l->rx[3];
            if (flen > LINK_FRAME_MAX) {
                l->rx_drops++;
                trace_e810_vfu_link_drop("rx (bad length, link reset)",
                                         flen, l->rx_drops);
                link_down(l, "bad frame length", (int)flen);
                return;
            }
            if (l->rx_len >= 4 + flen) {
                if (!e810_can_receive(&l->s->core)) {
                    return;
                }
                pcap_frame(l, l->rx + 4, flen);
                if (flen) {
                    e810_receive(&l->s->core, l->rx + 4, flen);
                } else {
                    l->rx_drops++;
                    trace_e810_vfu_link_drop("rx (empty)", 0, l->rx_drops);
                }
                memmove(l->rx, l->rx + 4 + flen, l->rx_len - 4 - flen);
                l->rx_len -= 4 + flen;
                continue;
            }
        }
        if (!readable) {
            return;
        }
        {
            ssize_t n = recv(l->fd, l->rx + l->rx_len,
                             sizeof(l->rx) - l->rx_len, MSG_DONTWAIT);

            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
                          errno == EINTR)) {
                return;
            }
            if (n <= 0) {
                link_down(l, n ? "receive failed" : "peer closed",
                          n ? errno : 0);
                return;
            }
            l->rx_len += n;
            readable = false;
        }
    }
}

/* ---- tracing ----------------------------------------------------------- */

static void trace_enable(const char *pattern)
{
    bool any = false;

    for (unsigned i = 0; i < E810_TRACE_NEVENTS; i++) {
        if (!fnmatch(pattern, e810_trace_names[i], 0)) {
            e810_trace_state[i] = true;
            any = true;
        }
    }
    if (!any) {
        fprintf(stderr, "e810-vfio-user: no trace event matches %s\n",
                pattern);
    }
}

/* ---- command line and loop --------------------------------------------- */

static void usage(void)
{
    fprintf(stderr,
            "usage: e810-vfio-user --socket PATH [--link-listen PATH | "
            "--link-connect PATH]\n"
            "       [--mac 52:54:00:xx:xx:xx] [--dsn N] [--mem-limit BYTES] "
            "[--pcap FILE]\n"
            "       [--trace PATTERN]... [--trace-file FILE] "
            "[--trace-timestamps]\n"
            "       [--user USER[:GROUP]] [--no-seccomp] [--no-keeper] "
            "[--fault SPEC] [--control PATH] [-v]\n");
    exit(2);
}

static bool parse_mac(const char *str, uint8_t *mac)
{
    unsigned b[6];
    char end;

    if (sscanf(str, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3],
               &b[4], &b[5], &end) != 6) {
        return false;
    }
    for (int i = 0; i < 6; i++) {
        if (b[i] > 0xFF) {
            return false;
        }
        mac[i] = b[i];
    }
    return !(mac[0] & 1);
}

static bool parse_u64(const char *str, uint64_t *v)
{
    char *end;

    errno = 0;
    *v = strtoull(str, &end, 0);
    return !errno && end != str && !*end;
}

/* Options with code of their own; those of the table are OPT_FIELD + i. */
enum {
    OPT_LINK_LISTEN = 256, OPT_LINK_CONNECT, OPT_MAC, OPT_TRACE, OPT_FIELD,
};

static VfuServer server;

/*
 * The device runs on in a child; this process becomes its keeper
 * (vfu-keeper.h), holding the client's connection so that the device's
 * death is a failed device to QEMU, not a vanished server.
 */
static void start_keeper(VfuServer *s, int cfd, VfuLink *l, bool sandbox)
{
    VfuKeeperOpts o = {
        .broker = -1,
        .link_path = l->path,
        .sandbox = sandbox ? vfu_sandbox_keeper : NULL,
    };
    int bv[2] = { -1, -1 };
    VfuKeep *k = mmap(NULL, sizeof(*k), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t keeper = getpid(), pid;

    if (k == MAP_FAILED) {
        perror("e810-vfio-user: keeper: mmap");
        return;             /* no keeper: the device runs here */
    }
    /* Connect mode: the keeper connects the link for the device. */
    if (l->path && !l->listen_mode &&
        socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, bv) < 0) {
        perror("e810-vfio-user: keeper: broker");
        bv[0] = bv[1] = -1;
    }
    fflush(NULL);           /* nothing buffered is written twice */
    pid = fork();
    if (pid < 0) {
        perror("e810-vfio-user: keeper: fork");
        munmap(k, sizeof(*k));
        if (bv[0] >= 0) {
            close(bv[0]);
            close(bv[1]);
        }
        return;
    }
    if (pid > 0) {
        o.broker = bv[0];
        vfu_keeper_main(cfd, k, pid, &o);
    }
    if (bv[0] >= 0) {
        close(bv[0]);
        l->broker = bv[1];
    }
    /* The device goes with its keeper (a kill of the server's pid). */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != keeper) {
        _exit(1);
    }
    s->keep = k;
}
static VfuLink link_state;
static VfuControl control = { .listen_fd = -1, .fd = -1 };

/* What the command line asks for besides the device's configuration. */
typedef struct VfuArgs {
    const char *sock_path, *pcap_file, *trace_file, *user, *fault;
    const char *control;
    bool no_seccomp, no_keeper, verbose;
    bool as_root;
    uid_t uid;                  /* who the server runs as once set up */
    gid_t gid;
} VfuArgs;

/*
 * The options that only fill in a field: a flag set (no argument), the
 * argument kept as it is, or as a number.
 */
typedef struct VfuOptField {
    const char *name;
    bool *flag;
    const char **str;
    uint64_t *num;
} VfuOptField;

/* The option @o's argument into its field: 0, or the exit status. */
static int opt_field(const VfuOptField *o, const char *arg)
{
    if (o->flag) {
        *o->flag = true;
    } else if (o->str) {
        *o->str = arg;
    } else if (!parse_u64(arg, o->num)) {
        fprintf(stderr, "e810-vfio-user: bad --%s %s\n", o->name, arg);
        return 2;
    }
    return 0;
}

/* The options into @a, @cfg and the link; 0, or the exit status. */
static int parse_args(int argc, char **argv, VfuArgs *a, VfuConfig *cfg,
                      VfuLink *l)
{
    const VfuOptField fields[] = {
        { "socket", .str = &a->sock_path },
        { "dsn", .num = &cfg->dsn },
        { "mem-limit", .num = &cfg->mem_limit },
        { "pcap", .str = &a->pcap_file },
        { "trace-file", .str = &a->trace_file },
        { "trace-timestamps", .flag = &e810_trace_timestamps },
        { "no-seccomp", .flag = &a->no_seccomp },
        { "no-keeper", .flag = &a->no_keeper },
        { "user", .str = &a->user },
        { "fault", .str = &a->fault },
        { "control", .str = &a->control },
    };
    enum { NFIELDS = sizeof(fields) / sizeof(fields[0]) };
    static const struct option own[] = {
        { "link-listen", required_argument, NULL, OPT_LINK_LISTEN },
        { "link-connect", required_argument, NULL, OPT_LINK_CONNECT },
        { "mac", required_argument, NULL, OPT_MAC },
        { "trace", required_argument, NULL, OPT_TRACE },
        { "help", no_argument, NULL, 'h' },
    };
    struct option opts[NFIELDS + sizeof(own) / sizeof(own[0]) + 1] = { 0 };
    int opt, err;

    for (unsigned i = 0; i < NFIELDS; i++) {
        opts[i] = (struct option) {
            fields[i].name, fields[i].flag ? no_argument : required_argument,
            NULL, OPT_FIELD + i,
        };
    }
    memcpy(opts + NFIELDS, own, sizeof(own));
    while ((opt = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
        if (opt >= OPT_FIELD && opt < OPT_FIELD + NFIELDS) {
            err = opt_field(&fields[opt - OPT_FIELD], optarg);
            if (err) {
                return err;
            }
            continue;
        }
        switch (opt) {
        case OPT_LINK_LISTEN:
        case OPT_LINK_CONNECT:
            if (l->path) {
                usage();
            }
            l->path = optarg;
            l->listen_mode = opt == OPT_LINK_LISTEN;
            break;
        case OPT_MAC:
            if (!parse_mac(optarg, cfg->mac)) {
                fprintf(stderr, "e810-vfio-user: bad --mac %s\n", optarg);
                return 2;
            }
            break;
        case OPT_TRACE:
            trace_enable(optarg);
            break;
        case 'v':
            a->verbose = true;
            break;
        default:
            usage();
        }
    }
    if (!a->sock_path || optind != argc) {
        usage();
    }
    return 0;
}

/* Started as root, the server runs as --user (default nobody) once it
 * has opened what it needs; otherwise as whoever started it.  0, or the
 * exit status. */
static int resolve_user(VfuArgs *a)
{
    const char *u = a->user ? a->user : VFU_DEFAULT_USER;

    if (!a->as_root && !a->user) {
        return 0;
    }
    if (!vfu_user_parse(u, &a->uid, &a->gid)) {
        if (a->user) {
            return 2;
        }
        a->uid = a->gid = 65534;
    }
    if (!a->as_root && (a->uid != getuid() || a->gid != getgid())) {
        fprintf(stderr, "e810-vfio-user: --user %s: only root can switch "
                "user\n", a->user);
        return 2;
    }
    return 0;
}

/* A listening unix socket at @path (an old one replaced); -1 if not. */
static int listen_at(const char *path)
{
    struct sockaddr_un sa;
    int fd = unix_socket(path, &sa);

    unlink(path);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        listen(fd, 1) < 0) {
        fprintf(stderr, "e810-vfio-user: %s: %s\n", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    return fd;
}

/* The client's socket and, in listen mode, the link's; then the one
 * client.  Its connection, or -1. */
static int open_sockets(const VfuArgs *a, VfuLink *l)
{
    int lfd = listen_at(a->sock_path), cfd;

    if (lfd < 0) {
        return -1;
    }
    fprintf(stderr, "e810-vfio-user: listening on %s\n", a->sock_path);
    if (l->path && l->listen_mode) {
        l->listen_fd = listen_at(l->path);
        if (l->listen_fd < 0) {
            return -1;
        }
        /* Its peer may run as the same unprivileged user. */
        if (a->as_root && chown(l->path, a->uid, a->gid) < 0) {
            perror(l->path);
        }
    }
    /* The control socket: its owner's only, as the server will run. */
    if (a->control && !vfu_control_open(&control, a->control, a->as_root,
                                        a->uid, a->gid)) {
        return -1;
    }
    do {
        cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    } while (cfd < 0 && errno == EINTR);
    if (cfd < 0) {
        perror("e810-vfio-user: accept");
        return -1;
    }
    /* One client per run: the socket file goes with the listener. */
    close(lfd);
    unlink(a->sock_path);
    return cfd;
}

/* The fds one loop iteration waits on, and where each is in pfd[]. */
typedef struct LoopFds {
    struct pollfd pfd[5];
    unsigned n, client, link, accept, broker, control;
} LoopFds;

/* How long the loop may sleep (ms, -1: until an fd), retrying the
 * link's connection when it is due. */
static int loop_timeout(VfuServer *s, VfuLink *l)
{
    int64_t now = vfu_clock_ns(), next = vfu_timers_next(s);
    bool bh_pending = false;

    if (l->path && !l->listen_mode && l->fd < 0 &&
        (l->ever_up || now < l->give_up_at)) {
        if (now >= l->retry_at) {
            link_try_connect(l);
        }
        if (l->fd < 0 && (next < 0 || l->retry_at < next)) {
            next = l->retry_at;
        }
    }
    for (unsigned i = 0; i < s->nbhs; i++) {
        bh_pending |= s->bhs[i]->scheduled;
    }
    if (bh_pending || vfu_control_pending(&control) ||
        (l->fd >= 0 && l->rx_len >= 4 && e810_can_receive(&s->core))) {
        return 0;
    }
    if (next < 0) {
        return -1;
    }
    now = next > now ? (next - now + 999999) / 1000000 : 0;
    return now > 1000 ? 1000 : (int)now;
}

static void loop_fds(VfuServer *s, VfuLink *l, LoopFds *f)
{
    f->n = 0;
    f->link = f->accept = f->broker = f->control = ~0u;
    f->client = f->n;
    f->pfd[f->n++] = (struct pollfd){ .fd = s->sock, .events = POLLIN };
    if (l->fd >= 0) {
        f->link = f->n;
        f->pfd[f->n++] = (struct pollfd){
            .fd = l->fd,
            .events = (e810_can_receive(&s->core) ? POLLIN : 0) |
                      (l->q_len ? POLLOUT : 0),
        };
    }
    if (l->listen_fd >= 0) {
        f->accept = f->n;
        f->pfd[f->n++] = (struct pollfd){
            .fd = l->listen_fd, .events = POLLIN,
        };
    }
    if (l->broker >= 0 && l->broker_wait) {
        f->broker = f->n;
        f->pfd[f->n++] = (struct pollfd){ .fd = l->broker, .events = POLLIN };
    }
    if (vfu_control_fd(&control) >= 0) {
        f->control = f->n;
        f->pfd[f->n++] = (struct pollfd){
            .fd = vfu_control_fd(&control), .events = POLLIN,
        };
    }
}

/* Up to LOOP_MSGS_MAX client messages: 1 go on, 0 the client left, -1
 * its connection failed. */
static int loop_client(VfuServer *s, bool verbose)
{
    int rc = 1;

    for (unsigned i = 0; i < LOOP_MSGS_MAX && rc > 0; i++) {
        struct pollfd more = { .fd = s->sock, .events = POLLIN };

        if (i && poll(&more, 1, 0) <= 0) {
            break;
        }
        rc = vfu_server_recv(s);
    }
    if (rc <= 0 && (verbose || rc < 0)) {
        fprintf(stderr, "e810-vfio-user: client %s\n",
                rc ? "connection failed" : "disconnected");
    }
    return rc > 0 ? 1 : rc;
}

/* The server's loop, until the client goes or the device breaks: the
 * exit status. */
static int serve(VfuServer *s, VfuLink *l, bool verbose)
{
    for (;;) {
        LoopFds f;
        int rc;

        loop_fds(s, l, &f);
        if (poll(f.pfd, f.n, loop_timeout(s, l)) < 0 && errno != EINTR) {
            perror("e810-vfio-user: poll");
            return 0;
        }
        if (f.pfd[f.client].revents && (rc = loop_client(s, verbose)) <= 0) {
            return rc < 0;
        }
        if (f.accept != ~0u && f.pfd[f.accept].revents) {
            link_accept(l);
        }
        if (f.broker != ~0u && f.pfd[f.broker].revents) {
            link_broker_reply(l);
        }
        if ((f.control != ~0u && f.pfd[f.control].revents) ||
            vfu_control_pending(&control)) {
            vfu_control_ready(&control, &s->core);
        }
        if (f.link != ~0u && l->fd >= 0) {
            if (f.pfd[f.link].revents & POLLOUT) {
                link_flush(l);
            }
            if (l->fd >= 0) {
                link_rx(l, f.pfd[f.link].revents &
                           (POLLIN | POLLHUP | POLLERR));
            }
        } else if (l->fd >= 0) {
            link_rx(l, false);
        }
        vfu_timers_run(s, vfu_clock_ns());
        for (unsigned i = 0; i < LOOP_BH_PASSES; i++) {
            if (!vfu_bhs_run(s)) {
                break;
            }
        }
        vfu_run_deferred(s);
        link_settle(l);
        if (s->broken) {
            return 1;
        }
        if (l->path && !l->listen_mode && !l->ever_up &&
            vfu_clock_ns() >= l->give_up_at && l->fd < 0) {
            fprintf(stderr, "e810-vfio-user: link %s: no peer, giving up\n",
                    l->path);
            l->path = NULL;
        }
    }
}

/* Close everything and leave with @status. */
static int finish(VfuServer *s, VfuLink *l, const VfuArgs *a, bool sandboxed,
                  int status)
{
    if (a->verbose) {
        fprintf(stderr, "e810-vfio-user: %" PRIu64 " bad requests, %" PRIu64
                " DMA misses, link drops tx %" PRIu64 " rx %" PRIu64 "\n",
                s->stats.bad_msgs, s->stats.dma_miss, l->tx_drops,
                l->rx_drops);
    }
    link_settle(l);
    link_drop_queue(l);
    if (l->fd >= 0) {
        close(l->fd);
    }
    if (l->listen_fd >= 0) {
        close(l->listen_fd);
    }
    vfu_control_close(&control);
    vfu_server_cleanup(s);
    if (l->pcap) {
        fclose(l->pcap);
    }
    if (e810_trace_file != stderr) {
        fclose(e810_trace_file);
    }
    if (sandboxed) {
        /*
         * Exit handlers may need system calls the allow-list refuses
         * (LeakSanitizer's exit-time scan, which ASan's _exit runs too):
         * everything is closed, leave directly.
         */
        fflush(NULL);
        syscall(SYS_exit_group, status);
    }
    return status;
}

int main(int argc, char **argv)
{
    VfuConfig cfg = {
        .mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 },
        .mem_limit = E810_MEM_LIMIT_DEFAULT,
    };
    VfuArgs a = {
        .as_root = geteuid() == 0, .uid = getuid(), .gid = getgid(),
    };
    VfuLink *l = &link_state;
    VfuServer *s = &server;
    bool sandboxed;
    int cfd, rc;

    e810_trace_file = stderr;
    l->fd = l->listen_fd = l->broker = -1;
    rc = parse_args(argc, argv, &a, &cfg, l);
    if (!rc) {
        rc = resolve_user(&a);
    }
    if (rc) {
        return rc;
    }
    if (a.trace_file) {
        e810_trace_file = fopen(a.trace_file, "w");
        if (!e810_trace_file) {
            perror(a.trace_file);
            return 1;
        }
        setvbuf(e810_trace_file, NULL, _IOLBF, 0);
    }
    signal(SIGPIPE, SIG_IGN);

    vfu_server_init(s, &cfg);
    if (a.fault) {
        char err[200];

        /* docs/faults.md; its times count from here. */
        if (!e810_fault_arm(&s->core, a.fault, err, sizeof(err))) {
            fprintf(stderr, "e810-vfio-user: --fault %s: %s\n", a.fault, err);
            return 2;
        }
    }
    /*
     * The port's link is up whether or not a peer is on the socket, as
     * with the in-QEMU device on a -netdev stream (QEMU tells a NIC of no
     * peer coming or going): a guest that outlives its peer keeps its
     * link, frames sent meanwhile are dropped and counted.
     */
    vfu_set_link(s, true);
    l->s = s;
    if (a.pcap_file) {
        pcap_open(l, a.pcap_file);
    }
    if (l->path) {
        s->send_frame = link_send_frame;
        s->link_opaque = l;
    }
    cfd = open_sockets(&a, l);
    if (cfd < 0) {
        return 1;
    }
    /* The link's first connection while the peer's socket may still be
     * one only the starting user can open; later ones through the
     * keeper. */
    if (l->path && !l->listen_mode) {
        l->give_up_at = vfu_clock_ns() + LINK_RETRY_FOR_NS;
        link_try_connect(l);
    }
    /* Everything that needed them is open: the keeper and the device go
     * on without, as --user. */
    if (!vfu_drop_privileges(a.as_root, a.uid, a.gid)) {
        return 1;
    }
    if (!vfu_sandbox_available() && !a.no_seccomp && a.verbose) {
        fprintf(stderr, "e810-vfio-user: built without seccomp\n");
    }
    sandboxed = !a.no_seccomp && vfu_sandbox_available();
    if (!a.no_keeper) {
        start_keeper(s, cfd, l, sandboxed);
    }
    /* Before anything is read from the client or the keeper. */
    if (sandboxed) {
        if (!vfu_sandbox_device(l->listen_fd, control.listen_fd)) {
            return 1;
        }
        l->sandboxed = true;
    }
    vfu_server_attach(s, cfd);
    if (a.verbose) {
        fprintf(stderr, "e810-vfio-user: client connected\n");
    }
    return finish(s, l, &a, sandboxed, serve(s, l, a.verbose));
}
