/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: e810-vfio-user's message handler as a hostile client
 * drives it.  An input is a sequence of records:
 *
 *   u8 ctl, u16 len, then len bytes: one message
 *
 * ctl bit 0: pass a 64 KiB memfd along (DMA_MAP), bits 1-2: pass that
 * many eventfds (SET_IRQS), bit 3:
 * set the header's size field to len (so the rest of the message is what
 * the fuzzer shapes).  Each input starts from a fresh server that has
 * done VERSION; replies and the server's own requests are drained and
 * dropped.  Oracles: the sanitizers, and the server answering a
 * GET_INFO correctly at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "vfu-server.h"
#include "bytes.h"
#include "trace.h"

/* libFuzzer's entry point (replay.c's main calls it too). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int cli = -1, srv_end = -1;
static int mem_fd = -1;
static VfuServer srv;
static uint8_t drain_buf[1 << 17];

static void drain(void)
{
    for (;;) {
        if (recv(cli, drain_buf, sizeof(drain_buf), MSG_DONTWAIT) <= 0) {
            return;
        }
    }
}

/* The socket pair and guest memory, the first time: true then. */
static bool once(void)
{
    int sv[2], big = 1 << 20;

    if (cli >= 0) {
        return false;
    }
    e810_trace_file = stderr;
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
        abort();
    }
    cli = sv[1];
    srv_end = sv[0];
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
    mem_fd = memfd_create("fuzz-vfu", MFD_CLOEXEC);
    if (mem_fd < 0 || ftruncate(mem_fd, 0x10000)) {
        abort();
    }
    return true;
}

static void msg(uint8_t *buf, size_t len, unsigned ctl)
{
    int fds[VFU_MAX_FDS + 1];
    unsigned n = 0, ne = (ctl >> 1) & 3;

    if (ctl & 8 && len >= 8) {
        st32(buf + 4, len);
    }
    if (ctl & 1) {
        fds[n++] = dup(mem_fd);
    }
    for (unsigned i = 0; i < ne && n < VFU_MAX_FDS; i++) {
        fds[n++] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    }
    /* vfu_server_recv refuses more than VFU_MAX_FDS before the handler. */
    vfu_handle_msg(&srv, buf, len, fds, n);
    vfu_run_deferred(&srv);
    for (unsigned i = 0; i < 4; i++) {
        if (!vfu_bhs_run(&srv)) {
            break;
        }
    }
    drain();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char caps[] = "{\"capabilities\":{}}";
    VfuConfig cfg = {
        .mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 },
        .mem_limit = 1 << 20,
    };
    uint8_t ver[16 + 4 + sizeof(caps)] = { 0 };
    uint8_t info[32] = { 0 };
    uint8_t *buf;
    size_t pos = 0;

    if (once()) {
        vfu_server_init(&srv, &cfg);
        vfu_server_attach(&srv, dup(srv_end));
        srv.dma_wait_ms = 0;    /* no client answers DMA_READ here */
    } else {
        vfu_server_restart(&srv);
    }
    st16(ver + 2, VFU_CMD_VERSION);
    st32(ver + 4, sizeof(ver));
    memcpy(ver + 20, caps, sizeof(caps));
    msg(ver, sizeof(ver), 0);

    buf = malloc(65536 + 16);
    while (pos + 3 <= size) {
        unsigned ctl = data[pos];
        size_t len = ld16(data + pos + 1);

        pos += 3;
        if (len > size - pos) {
            len = size - pos;
        }
        memcpy(buf, data + pos, len);
        pos += len;
        msg(buf, len, ctl);
    }
    vfu_timers_run(&srv, vfu_clock_ns() + 10000000000ll);
    drain();

    /* Still answering. */
    st16(info + 2, VFU_CMD_DEVICE_GET_INFO);
    st32(info + 4, sizeof(info));
    st32(info + 16, 16);
    memcpy(buf, info, sizeof(info));
    vfu_handle_msg(&srv, buf, sizeof(info), NULL, 0);
    if (recv(cli, buf, 32, MSG_DONTWAIT) != 32 || ld32(buf + 8) != 1 ||
        ld32(buf + 24) != VFU_PCI_NUM_REGIONS) {
        fprintf(stderr, "fuzz-vfu: GET_INFO not answered after the input\n");
        abort();
    }
    drain();
    free(buf);
    return 0;
}
