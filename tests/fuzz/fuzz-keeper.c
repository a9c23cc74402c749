/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: e810-vfio-user's keeper taking over from a device
 * process that wrote anything into their shared page (issue 32: the
 * device process is the one a guest or a peer may have compromised).
 * An input is the page (sizeof(VfuKeep) bytes; a shorter input is padded
 * with zeros), then what the client sends after the device died.
 *
 * Oracles: the sanitizers (no access outside the keeper's own copy), the
 * shared page left as it was, and the keeper ending when the client
 * hangs up (a bounded amount of work for a bounded stream).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "vfu-keeper.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static VfuKeep page, before;

/* The client's side: reads every reply until the keeper closes. */
static void *drain(void *arg)
{
    static uint8_t buf[1 << 16];
    int fd = *(int *)arg;

    while (recv(fd, buf, sizeof(buf), 0) > 0) {
    }
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n = size < sizeof(page) ? size : sizeof(page);
    VfuKeeperStats st = { 0 };
    const uint8_t *p;
    pthread_t t;
    int sv[2], rc;

    memset(&page, 0, sizeof(page));
    memcpy(&page, data, n);
    memcpy(&before, &page, sizeof(page));
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
        abort();
    }
    if (pthread_create(&t, NULL, drain, &sv[1])) {
        abort();
    }
    /* The stream, then the client's end of writing: the keeper sees EOF
     * once it has read it all. */
    for (p = data + n; p < data + size;) {
        ssize_t w = send(sv[1], p, (size_t)(data + size - p), MSG_NOSIGNAL);

        if (w <= 0) {
            break;
        }
        p += w;
    }
    shutdown(sv[1], SHUT_WR);
    rc = vfu_keeper_serve(sv[0], &page, &st);
    close(sv[0]);
    pthread_join(t, NULL);
    close(sv[1]);
    if ((rc != 0 && rc != -1) || memcmp(&page, &before, sizeof(page))) {
        abort();
    }
    return 0;
}
