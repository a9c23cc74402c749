/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The keeper: e810-vfio-user's parent process, which holds the client's
 * connection while the device runs in a child.  When the device process
 * dies (a crash, a kill, the seccomp filter), the keeper takes the
 * connection over and answers every request as a device that has failed
 * does on a PCI bus: reads return all ones, writes are accepted and
 * dropped.  QEMU's vfio-user client never sees its server vanish: it has
 * no reconnect, and a socket closed under it stalls each later access
 * for its reply timeout or aborts QEMU (docs/vfio-user.md).
 *
 * The keeper must find the message boundaries in a stream the child was
 * part way through, so the child notes in shared memory (VfuKeep) what it
 * has read and sent and which requests it still owes a reply.
 */
#ifndef E810_VFU_KEEPER_H
#define E810_VFU_KEEPER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "vfu-proto.h"

/* Requests read but not yet answered: the one being handled, those
 * deferred during a DMA wait (VFU_DEFERRED_MAX), one more in reading. */
#define VFU_KEEP_OWED_MAX   24

typedef struct VfuKeep {
    uint64_t rx;                /* bytes read from the client */
    uint64_t msg_start;         /* rx where the message being read began */
    uint8_t hdr[VFU_HDR_SIZE];  /* its header, as far as read */
    uint64_t tx;                /* bytes sent to the client */
    uint64_t tx_end;            /* tx at the end of the message being sent */
    unsigned nowed;
    struct {
        uint16_t id, command;
    } owed[VFU_KEEP_OWED_MAX];
    uint64_t owed_lost;         /* owed entries dropped: the list was full */
} VfuKeep;

/* The child's notes (no-ops with @k NULL). */
void vfu_keep_owe(VfuKeep *k, const VfuHdr *h);
void vfu_keep_paid(VfuKeep *k, uint16_t id);

/* What the keeper did, for its exit line and the tests. */
typedef struct VfuKeeperStats {
    uint64_t reads, writes, other, errors, replies_dropped, fds_closed;
    uint64_t padded;            /* bytes of a reply cut short, sent as 0 */
    uint64_t notes_bad;         /* fields of the notes out of bounds */
} VfuKeeperStats;

/* Copy the device's notes @shared into @k once, each field checked
 * against its bounds (a bad one is dropped and counted). */
void vfu_keep_check(const VfuKeep *shared, VfuKeep *k, VfuKeeperStats *st);

/*
 * Take @sock over from a device process that ended (its notes @shared
 * are copied and checked first, vfu_keep_check): finish what it left
 * part-way (a reply, a request), answer what it owed with errors, then
 * answer as a failed device until the client hangs up.  Returns 0 when
 * the client hung up, -1 if the stream broke.
 */
int vfu_keeper_serve(int sock, const VfuKeep *shared, VfuKeeperStats *st);

/*
 * What the keeper does besides waiting: @broker (-1: none) is its end of
 * a SOCK_SEQPACKET pair with the device process, which asks there for a
 * link connection (VFU_BROKER_CONNECT); the keeper connects to
 * @link_path (nothing else) and hands the fd over (a status byte, 0 with
 * the fd as SCM_RIGHTS, else an errno).  @sandbox, if set, loads its
 * allow-list once nothing but the socket, the broker and a pidfd of the
 * child are open; false stops the server.
 */
#define VFU_BROKER_CONNECT  'C'

typedef struct VfuKeeperOpts {
    int broker;
    const char *link_path;
    bool (*sandbox)(pid_t child, bool broker);
} VfuKeeperOpts;

/* A connected AF_UNIX stream socket to @path, or -errno: the link's
 * connections, made by the device before its allow-list and by the
 * keeper after. */
int vfu_unix_connect(const char *path);

/* Serve one request on @broker (vfu_keeper_main's loop; the tests):
 * false once the device's end is closed. */
bool vfu_keeper_broker(int broker, const char *link_path);

/*
 * The keeper's process: wait for the device process @child, forwarding
 * SIGTERM/SIGINT/SIGHUP to it and serving its broker requests; if it
 * died with the client still there, serve the client (vfu_keeper_serve).
 * Closes every fd but @sock, the broker and 0-2 first.  Never returns.
 */
void vfu_keeper_main(int sock, VfuKeep *k, pid_t child,
                     const VfuKeeperOpts *o) __attribute__((noreturn));

#endif
