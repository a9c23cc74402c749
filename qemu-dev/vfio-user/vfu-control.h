/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e810-vfio-user's control interface (--control PATH, docs/vfio-user.md):
 * what the QEMU monitor's qom-set of the device's fault property is to
 * the in-QEMU device.  A unix stream socket, made before the sandbox and
 * only its owner's (0600), one client at a time, one command a line, one
 * answer a line:
 *
 *   fault SPEC     arm faults (docs/faults.md)    ok | error: REASON
 *   fault-clear    drop every armed fault         ok
 *   faults         the injections so far: "SECONDS KIND A B;..." (the
 *                  last 64, virtual time; empty if none)
 *   stats          the device's fault and reset counters, KEY=N ...
 *
 * A client is hostile like any other input: lines are bounded
 * (VFU_CONTROL_LINE_MAX), so is the work per wake-up, and a client that
 * sends too long a line or does not read its answers is dropped.
 */
#ifndef VFU_CONTROL_H
#define VFU_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "e810.h"

#define VFU_CONTROL_LINE_MAX    1100    /* "fault " and a spec of 1023 */
#define VFU_CONTROL_LINES_MAX   16      /* commands per wake-up */
#define VFU_CONTROL_ANSWER_MAX  4096    /* an answer line, newline included */

typedef struct VfuControl {
    int listen_fd;              /* -1: no --control */
    int fd;                     /* the client, or -1 */
    char buf[VFU_CONTROL_LINE_MAX];
    size_t len;
    uint64_t commands, refused, dropped;
} VfuControl;

/* One command line (no newline) for @c: the answer in @reply. */
void vfu_control_line(E810Core *c, const char *line, char *reply, size_t n);

/* The listening socket at @path (an old file replaced), 0600 and, when
 * @chown_to, owned by @uid/@gid; false (said on stderr) if it fails. */
bool vfu_control_open(VfuControl *ctl, const char *path, bool chown_to,
                      uid_t uid, gid_t gid);
/* The fd to poll for input (the client's, else the listener's), or -1. */
int vfu_control_fd(const VfuControl *ctl);
/* A whole line is waiting (more than one wake-up's worth came at once):
 * call vfu_control_ready again without waiting. */
bool vfu_control_pending(const VfuControl *ctl);
/* That fd is ready: accept the client, or read and answer its lines. */
void vfu_control_ready(VfuControl *ctl, E810Core *c);
void vfu_control_close(VfuControl *ctl);

#endif
