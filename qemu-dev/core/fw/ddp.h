/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 firmware model: DDP package commands (state and reset).
 *
 * The driver downloads its ice.pkg in 4 KiB buffers inside the global config
 * lock; the last buffer carries a flag.  We keep no parser tables, only the
 * package identity (version, name, track id from its metadata section), which
 * Get Package Info List reports back so ice sees its own package active.
 */
#ifndef E810_FW_DDP_H
#define E810_FW_DDP_H

#include "../types.h"

#define E810_PKG_NAME_LEN           28
#define E810_PKG_INFO_MAX           4       /* entries ice has room for */

typedef struct E810PkgId {
    uint8_t ver[4];                         /* major, minor, update, draft */
    char name[E810_PKG_NAME_LEN + 1];       /* always NUL-terminated */
    uint32_t track_id;
} E810PkgId;

typedef struct E810FwDdp {
    /* Download in progress: buffers since the global config lock. */
    bool dl_active;
    unsigned dl_bufs;
    bool dl_have_id;
    E810PkgId dl_id;
    /* The active package: survives a PF reset, not a power-on reset. */
    bool loaded;
    E810PkgId active;
    unsigned active_bufs;                   /* buffers it was sent in */
    uint64_t updates;                       /* Update Package buffers */
} E810FwDdp;

void e810_fw_ddp_reset(E810Core *c, E810ResetType type);
/* A package was downloaded and is active. */
bool e810_fw_ddp_loaded(E810Core *c);
/* The global config lock was released (ends an unfinished download). */
void e810_fw_ddp_lock_released(E810Core *c);

/* Saved state (snap.h). */
extern const struct E810SnapPart e810_fw_ddp_snap;

#endif
