// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mmio-race: the reproducer of a race in QEMU's multi-threaded TCG
 * (qemu-dev/overlay/tcg-pin.h; tests/system/tcg-race.sh).  One thread
 * reads a register of a PCI function's BAR0 in a loop on one vCPU while
 * another, on the other vCPU, turns the function's memory decoding off
 * and on through its config space: each turn changes QEMU's memory map
 * on that vCPU's thread while the reader runs with a TLB entry made
 * before it.  An unfixed QEMU aborts on "section_index <
 * d->map.sections_nb" (or reads another region); a fixed one goes on.
 *
 *   mmio-race BDF SECONDS
 *
 * BDF e.g. 0000:01:00.0, no driver bound (the test unbinds ice).  Checks
 * every value read: the register's own, or all ones / zero while the
 * function does not decode.  Prints:
 *   mmio-race: toggles N reads N other N
 * and exits 1 if a read returned anything else.
 */

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define REG_GLGEN_RSTAT 0x000B8188u     /* qemu-dev/core/regs.h */

static volatile uint32_t *bar;
static volatile int stop;
static uint32_t expect;
static unsigned long reads, other;

static void pin(int cpu)
{
    cpu_set_t s;

    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    sched_setaffinity(0, sizeof(s), &s);
}

static void *reader(void *arg)
{
    (void)arg;
    pin(0);
    while (!stop) {
        uint32_t v = bar[REG_GLGEN_RSTAT / 4];

        reads++;
        if (v != expect && v != 0xFFFFFFFFu && v != 0) {
            if (!other++) {
                fprintf(stderr, "mmio-race: read 0x%08x, expected 0x%08x\n",
                        v, expect);
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    char path[256];
    unsigned long toggles = 0;
    uint16_t cmd;
    pthread_t t;
    time_t end;
    int cfg, res;

    if (argc != 3) {
        fprintf(stderr, "usage: mmio-race BDF SECONDS\n");
        return 2;
    }
    snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", argv[1]);
    cfg = open(path, O_RDWR);
    snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource0", argv[1]);
    res = open(path, O_RDWR | O_SYNC);
    if (cfg < 0 || res < 0) {
        perror(path);
        return 2;
    }
    bar = mmap(NULL, 0x100000, PROT_READ, MAP_SHARED, res, 0xB8000);
    if (bar == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    bar = (volatile uint32_t *)((volatile uint8_t *)bar - 0xB8000);
    if (pread(cfg, &cmd, 2, 4) != 2) {
        perror("config");
        return 2;
    }
    cmd |= 2;                                   /* memory space on */
    pwrite(cfg, &cmd, 2, 4);
    expect = bar[REG_GLGEN_RSTAT / 4];
    pthread_create(&t, NULL, reader, NULL);
    pin(1);
    end = time(NULL) + atoi(argv[2]);
    while (time(NULL) < end) {
        uint16_t off = cmd & ~2;

        pwrite(cfg, &off, 2, 4);
        pwrite(cfg, &cmd, 2, 4);
        toggles++;
    }
    stop = 1;
    pthread_join(t, NULL);
    printf("mmio-race: toggles %lu reads %lu other %lu\n", toggles, reads,
           other);
    return other ? 1 : 0;
}
