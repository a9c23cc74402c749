/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e810-vfio-user's sandbox (docs/vfio-user.md, "Isolation"): the user it
 * runs as, the privileges it drops, and the seccomp allow-lists of its
 * two processes.  The device process parses guest memory and wire frames,
 * so it is the one a guest or a peer may compromise: its list has no way
 * to open anything new (no socket, connect, open), it accepts only on its
 * own link listener.  The keeper's list is smaller still: it waits for
 * the device, serves QEMU's socket after it, and connects the link for
 * the device (the only path it knows, the only fd it hands over).
 */
#ifndef E810_VFU_SANDBOX_H
#define E810_VFU_SANDBOX_H

#include <stdbool.h>
#include <sys/types.h>

/* Resolve USER[:GROUP] (names or numbers) into @uid/@gid; the group
 * defaults to the user's.  False (with a message) if unknown. */
bool vfu_user_parse(const char *spec, uid_t *uid, gid_t *gid);

/* Started as root: the user taken when --user is not given. */
#define VFU_DEFAULT_USER    "nobody"

/*
 * Drop every privilege: the capability bounding and ambient sets, then
 * (as root, @switch_user) the supplementary groups, gid and uid to
 * @uid/@gid, the remaining capabilities, and no_new_privs.  False if the
 * switch did not take (the caller must not go on).
 */
bool vfu_drop_privileges(bool switch_user, uid_t uid, gid_t gid);

/* Whether the allow-lists are built in (libseccomp at build time). */
bool vfu_sandbox_available(void);

/*
 * Load the device process's allow-list; accept4 only on @listen_fd (the
 * link's) and @control_fd (--control's), each -1 when there is none.
 * False if it could not be loaded.
 */
bool vfu_sandbox_device(int listen_fd, int control_fd);

/*
 * Load the keeper's allow-list: signals only to @child; new sockets
 * (AF_UNIX) and connect only when @broker (it connects the link for the
 * device).  False if it could not be loaded.
 */
bool vfu_sandbox_keeper(pid_t child, bool broker);

#endif
