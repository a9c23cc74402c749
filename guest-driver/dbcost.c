// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dbcost: what one doorbell costs the guest's CPU.  Rings the SQ doorbell
 * of an RDMA QP of its own (PFPE_WQEALLOC in the doorbell page libirdma
 * maps, value the QP id: the device looks at an empty SQ and finds no
 * work) N times from user space through the PCI function's BAR0, and times
 * the loop against the same loop of stores to RAM and against BAR0 reads
 * (GLGEN_RSTAT: a read waits for the device's answer, a write need not).
 *
 *   dbcost [-d DEV] [-n N] [-r ROUNDS]
 *
 * BAR0 is mapped through sysfs (resourceN), which the kernel allows for a
 * function a driver has claimed only with iomem=relaxed on its command
 * line.  Prints per-access figures of the best round:
 *   dbcost: N N ram_ns X doorbell_ns Y read_ns Z
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

/* BAR0 offsets (qemu-dev/core: rdma/defs.h, regs.h). */
#define DB_PAGE         0x007F0000u     /* libirdma's doorbell page */
#define DB_WQEALLOC     0x0
#define REG_GLGEN_RSTAT 0x000B8188u

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The PCI function under an ib device: up from its sysfs device link. */
static int open_bar0(const char *ibdev)
{
    char path[PATH_MAX + 16], real[PATH_MAX];

    snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device", ibdev);
    if (!realpath(path, real)) {
        perror(path);
        return -1;
    }
    for (;;) {
        char *slash;
        int fd;

        snprintf(path, sizeof(path), "%s/resource0", real);
        fd = open(path, O_RDWR | O_SYNC);
        if (fd >= 0) {
            return fd;
        }
        if (errno != ENOENT) {
            perror(path);
            return -1;
        }
        slash = strrchr(real, '/');
        if (!slash || slash == real) {
            fprintf(stderr, "dbcost: no resource0 above %s\n", ibdev);
            return -1;
        }
        *slash = 0;
    }
}

int main(int argc, char **argv)
{
    const char *want = NULL;
    long n = 20000, rounds = 5;
    struct ibv_device **list;
    struct ibv_context *ctx = NULL;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_qp_init_attr qa = { 0 };
    volatile uint32_t *db, *rstat, *ram;
    double best_ram = 1e18, best_db = 1e18, best_rd = 1e18;
    uint32_t sink = 0;
    uint8_t *bar;
    int opt, fd, nd;

    while ((opt = getopt(argc, argv, "d:n:r:")) != -1) {
        switch (opt) {
        case 'd':
            want = optarg;
            break;
        case 'n':
            n = atol(optarg);
            break;
        case 'r':
            rounds = atol(optarg);
            break;
        default:
            fprintf(stderr, "usage: dbcost [-d DEV] [-n N] [-r ROUNDS]\n");
            return 2;
        }
    }
    if (n <= 0 || rounds <= 0) {
        return 2;
    }
    list = ibv_get_device_list(&nd);
    for (int i = 0; list && i < nd && !ctx; i++) {
        if (!want || !strcmp(ibv_get_device_name(list[i]), want)) {
            ctx = ibv_open_device(list[i]);
            want = ibv_get_device_name(list[i]);
        }
    }
    if (!ctx) {
        fprintf(stderr, "dbcost: no device %s\n", want ? want : "");
        return 1;
    }
    pd = ibv_alloc_pd(ctx);
    cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
    qa.send_cq = qa.recv_cq = cq;
    qa.qp_type = IBV_QPT_RC;
    qa.cap.max_send_wr = qa.cap.max_recv_wr = 16;
    qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
    qp = cq ? ibv_create_qp(pd, &qa) : NULL;
    if (!qp) {
        fprintf(stderr, "dbcost: verbs set-up failed\n");
        return 1;
    }
    fd = open_bar0(want);
    if (fd < 0) {
        return 1;
    }
    bar = mmap(NULL, DB_PAGE + 0x1000, PROT_READ | PROT_WRITE, MAP_SHARED,
               fd, 0);
    if (bar == MAP_FAILED) {
        perror("dbcost: mmap resource0 (iomem=relaxed?)");
        return 1;
    }
    db = (volatile uint32_t *)(bar + DB_PAGE + DB_WQEALLOC);
    rstat = (volatile uint32_t *)(bar + REG_GLGEN_RSTAT);
    ram = calloc(1, 64);

    for (long r = 0; r < rounds; r++) {
        double t0, t1, t2, t3;

        t0 = now_ns();
        for (long i = 0; i < n; i++) {
            *ram = qp->qp_num;
        }
        t1 = now_ns();
        for (long i = 0; i < n; i++) {
            *db = qp->qp_num;
        }
        t2 = now_ns();
        for (long i = 0; i < n; i++) {
            sink = *rstat;
        }
        t3 = now_ns();
        best_ram = (t1 - t0) < best_ram ? t1 - t0 : best_ram;
        best_db = (t2 - t1) < best_db ? t2 - t1 : best_db;
        best_rd = (t3 - t2) < best_rd ? t3 - t2 : best_rd;
    }
    printf("dbcost: qp %u n %ld rounds %ld ram_ns %.1f doorbell_ns %.1f "
           "read_ns %.1f (rstat %08x)\n", qp->qp_num, n, rounds,
           best_ram / n, best_db / n, best_rd / n, sink);
    munmap(bar, DB_PAGE + 0x1000);
    ibv_destroy_qp(qp);
    ibv_destroy_cq(cq);
    ibv_dealloc_pd(pd);
    ibv_close_device(ctx);
    ibv_free_device_list(list);
    return 0;
}
