/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 firmware model: DDP package commands.
 *
 * ice's sequence (ice_init_pkg): Get Package Info List to check that the
 * NVM's package is format-compatible with the file, global config lock
 * (SUCCESS = go ahead, DONE = a package is already active), the signature
 * and configuration buffers (Download Package, LAST on the final one), VLAN
 * mode probing, lock release, then Get Package Info List again: the active
 * entry must carry the file's version and name for "successfully loaded".
 * The device's own packet handling is fixed-function, so buffer contents are
 * only scanned for the package identity (metadata section).
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../snap.h"
#include "../bytes.h"
#include "../../trace.h"

/* Package buffer (ice_ddp.h struct ice_buf_hdr), then section entries */
#define BUF_SECTION_COUNT           0       /* le16 */
#define BUF_DATA_END                2       /* le16 */
#define BUF_HDR_SIZE                4
/* struct ice_section_entry */
#define SECT_TYPE                   0       /* le32 */
#define SECT_OFFSET                 4       /* le16, from the buffer start */
#define SECT_SIZE                   6       /* le16 */
#define SECT_ENTRY_SIZE             8
#define SECT_COUNT_MAX              511
#define DATA_END_MIN                12
#define SID_METADATA                1
/* struct ice_meta_sect: version[4], name[28], track id. */
#define META_VER                    0
#define META_NAME                   4
#define META_TRACK_ID               (META_NAME + E810_PKG_NAME_LEN)
#define META_SECT_SIZE              36

/* What the NVM holds: the package firmware boots with. */
static const E810PkgId nvm_pkg = {
    .ver = { 1, 3, 30, 0 },
    .name = "ICE OS Default Package",
    .track_id = 0xC0000001,
};

void e810_fw_ddp_reset(E810Core *c, E810ResetType type)
{
    E810FwDdp *d = &c->fw.ddp;

    if (type != E810_RESET_PF) {
        memset(d, 0, sizeof(*d));
        return;
    }
    /* A PF reset keeps the active package (ice does not download again). */
    d->dl_active = false;
    d->dl_bufs = 0;
    d->dl_have_id = false;
}

/*
 * The package is the card's, not a function's: once one PF has downloaded
 * it, every function of the adapter has it active, and another PF asking
 * for the global config lock hears DONE ("already present").
 */
static void ddp_share(E810Core *c)
{
    const E810FwDdp *d = &c->fw.ddp;

    for (unsigned i = 0; i < E810_ADAPTER_MAX_PFS; i++) {
        E810Core *o = c->adapter->pf[i];

        if (o && o != c) {
            o->fw.ddp.loaded = true;
            o->fw.ddp.active = d->active;
            o->fw.ddp.active_bufs = d->active_bufs;
        }
    }
}

bool e810_fw_ddp_loaded(E810Core *c)
{
    return c->fw.ddp.loaded;
}

void e810_fw_ddp_lock_released(E810Core *c)
{
    E810FwDdp *d = &c->fw.ddp;

    if (d->dl_active) {
        /* No buffer with the LAST flag: firmware discards the partial one. */
        trace_e810_fw_ddp_abandon(d->dl_bufs);
        d->dl_active = false;
        d->dl_bufs = 0;
        d->dl_have_id = false;
    }
}

/*
 * Check a package buffer's header and section table against @len bytes.
 * Returns the section count, or 0 if the buffer is malformed.
 */
static unsigned pkg_buf_check(const uint8_t *buf, unsigned len)
{
    unsigned count, data_end;

    if (len < DATA_END_MIN) {
        return 0;
    }
    count = ld16(buf + BUF_SECTION_COUNT);
    data_end = ld16(buf + BUF_DATA_END);
    if (count == 0 || count > SECT_COUNT_MAX || data_end > len ||
        data_end < BUF_HDR_SIZE + count * SECT_ENTRY_SIZE) {
        return 0;
    }
    for (unsigned i = 0; i < count; i++) {
        const uint8_t *e = buf + BUF_HDR_SIZE + i * SECT_ENTRY_SIZE;
        unsigned off = ld16(e + SECT_OFFSET), size = ld16(e + SECT_SIZE);

        if (off < BUF_HDR_SIZE + count * SECT_ENTRY_SIZE ||
            off + size > data_end) {
            return 0;
        }
    }
    return count;
}

/* Take the package identity from a metadata section, if @buf has one. */
static bool pkg_buf_find_id(const uint8_t *buf, unsigned count, E810PkgId *id)
{
    for (unsigned i = 0; i < count; i++) {
        const uint8_t *e = buf + BUF_HDR_SIZE + i * SECT_ENTRY_SIZE;
        const uint8_t *m = buf + ld16(e + SECT_OFFSET);

        if (ld32(e + SECT_TYPE) != SID_METADATA ||
            ld16(e + SECT_SIZE) < META_SECT_SIZE) {
            continue;
        }
        memset(id, 0, sizeof(*id));
        memcpy(id->ver, m + META_VER, 4);
        memcpy(id->name, m + META_NAME, E810_PKG_NAME_LEN);
        id->track_id = ld32(m + META_TRACK_ID);
        return true;
    }
    return false;
}

/* ---- 0x0C40 Download Package ------------------------------------------ */

int e810_fw_download_pkg(E810Core *c, E810AqCmd *cmd)
{
    E810FwDdp *d = &c->fw.ddp;
    bool last =
        *aq_param(cmd, AQC_DOWNLOAD_PKG_FLAGS) & AQC_DOWNLOAD_PKG_LAST_BUF;
    unsigned count;
    bool has_id;

    if (!cmd->has_buf) {
        e810_guest_error(c, "Download Package without a buffer");
        return E810_AQ_RC_EINVAL;
    }
    if (!e810_fw_res_held(c, E810_RES_GLOBAL_CFG_LOCK)) {
        e810_guest_error(c, "Download Package outside the global config lock");
        return E810_AQ_RC_EACCES;
    }
    count = pkg_buf_check(cmd->buf, cmd->buf_len);
    if (!count) {
        e810_guest_error(c, "Download Package: malformed buffer %u (%u bytes)",
                         d->dl_bufs, cmd->buf_len);
        return E810_AQ_RC_EBADBUF;
    }
    d->dl_active = true;
    d->dl_bufs++;
    has_id = !d->dl_have_id && pkg_buf_find_id(cmd->buf, count, &d->dl_id);
    d->dl_have_id |= has_id;
    trace_e810_fw_ddp_download(d->dl_bufs, count, last, has_id);

    if (last) {
        d->loaded = true;
        if (d->dl_have_id) {
            d->active = d->dl_id;
        } else {
            /* No metadata: ice will not recognise it, like real firmware. */
            memset(&d->active, 0, sizeof(d->active));
        }
        d->active_bufs = d->dl_bufs;
        d->dl_active = false;
        d->dl_bufs = 0;
        d->dl_have_id = false;
        trace_e810_fw_ddp_active(d->active.ver[0], d->active.ver[1],
                                 d->active.ver[2], d->active.ver[3],
                                 d->active.name, d->active.track_id,
                                 d->active_bufs);
        ddp_share(c);
    }
    /* Success returns nothing: the buffer is the driver's package copy. */
    return E810_AQ_RC_OK;
}

/* ---- 0x0C42 Update Package -------------------------------------------- */

int e810_fw_update_pkg(E810Core *c, E810AqCmd *cmd)
{
    /* ice sends data_end bytes of each buffer, not 4 KiB. */
    if (!cmd->has_buf || !pkg_buf_check(cmd->buf, cmd->buf_len)) {
        e810_guest_error(c, "Update Package: malformed buffer (%u bytes)",
                         cmd->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    /* Profile/TCAM updates: classification here is fixed-function. */
    c->fw.ddp.updates++;
    return E810_AQ_RC_OK;
}

/* ---- 0x0C43 Get Package Info List ------------------------------------- */

static void pkg_info_entry(uint8_t *e, const E810PkgId *id, bool in_nvm,
                           bool active, bool active_at_boot)
{
    memset(e, 0, AQC_PKG_INFO_SIZE);
    memcpy(e + AQC_PKG_INFO_VER, id->ver, 4);
    /* NUL-padded to 28 bytes: ice compares 32, zeros beyond on its side. */
    memcpy(e + AQC_PKG_INFO_NAME, id->name, E810_PKG_NAME_LEN);
    st32(e + AQC_PKG_INFO_TRACK_ID, id->track_id);
    e[AQC_PKG_INFO_IS_IN_NVM] = in_nvm;
    e[AQC_PKG_INFO_IS_ACTIVE] = active;
    e[AQC_PKG_INFO_IS_ACTIVE_AT_BOOT] = active_at_boot;
    e[AQC_PKG_INFO_IS_MODIFIED] = 0;
}

int e810_fw_get_pkg_info(E810Core *c, E810AqCmd *cmd)
{
    E810FwDdp *d = &c->fw.ddp;
    unsigned n = d->loaded ? 2 : 1;
    unsigned need = AQC_PKG_INFO_RESP_HDR_SIZE + n * AQC_PKG_INFO_SIZE;

    if (!cmd->has_buf) {
        e810_guest_error(c, "Get Package Info List without a buffer");
        return E810_AQ_RC_EINVAL;
    }
    cmd->resp_len = need;
    trace_e810_fw_ddp_info(n, d->loaded, cmd->buf_len);
    if (cmd->buf_len < need) {
        e810_guest_error(c, "Get Package Info List: %u bytes, %u needed",
                         cmd->buf_len, need);
        return E810_AQ_RC_ENOMEM;
    }
    st32(cmd->buf + AQC_PKG_INFO_RESP_COUNT, n);
    /* The NVM's package is active until one is downloaded. */
    pkg_info_entry(cmd->buf + AQC_PKG_INFO_RESP_HDR_SIZE, &nvm_pkg, true,
                   !d->loaded, true);
    if (d->loaded) {
        pkg_info_entry(cmd->buf + AQC_PKG_INFO_RESP_HDR_SIZE +
                       AQC_PKG_INFO_SIZE, &d->active, false, true, false);
    }
    return E810_AQ_RC_OK;
}

/* ---- saved state -------------------------------------------------------- */

/* Everything in E810FwDdp is saved: a download in progress (dl_*, under
 * the global config lock) too. */
static const E810SnapField fw_pkg_id_fields[] = {
    SF_BYTES(E810PkgId, ver),
    SF_BYTES(E810PkgId, name),
    SF_UX(E810PkgId, track_id),
    SF_END
};

static const E810SnapField fw_ddp_fields[] = {
    SF_BOOL(E810FwDdp, dl_active),
    SF_UX(E810FwDdp, dl_bufs),
    SF_BOOL(E810FwDdp, dl_have_id),
    SF_SUB(E810FwDdp, dl_id, fw_pkg_id_fields),
    SF_BOOL(E810FwDdp, loaded),
    SF_SUB(E810FwDdp, active, fw_pkg_id_fields),
    SF_UX(E810FwDdp, active_bufs),
    SF_UX(E810FwDdp, updates),
    SF_END
};


static bool fw_ddp_check(E810Core *c, E810SnapR *r)
{
    E810FwDdp *d = &c->fw.ddp;

    /* Names are printed as C strings (trace, Get Package Info List). */
    if (d->dl_id.name[E810_PKG_NAME_LEN] || d->active.name[E810_PKG_NAME_LEN]) {
        return e810_snap_fail(r, "fw.ddp.%s.name: not NUL-terminated",
                              d->dl_id.name[E810_PKG_NAME_LEN] ? "dl_id" :
                              "active");
    }
    return true;
}

const E810SnapPart e810_fw_ddp_snap =
    E810_SNAP_FLAT("fw.ddp", fw.ddp, fw_ddp_fields, fw_ddp_check);
