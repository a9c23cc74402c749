/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 firmware model: core commands.
 *
 * Version and capability answers decide how far ice gets in probe; the
 * resource commands bracket every NVM read and the DDP download, so they must
 * grant at once (the driver otherwise polls for seconds).
 */
#include "qemu/osdep.h"
#include "../dev.h"
#include "../snap.h"
#include "../bytes.h"
#include "../../trace.h"

/* Longest hold firmware grants, per resource (milliseconds). */
#define RES_NVM_READ_TIMEOUT_MS     3000
#define RES_NVM_WRITE_TIMEOUT_MS    180000
#define RES_CHANGE_LOCK_TIMEOUT_MS  1000
#define RES_GLOBAL_LOCK_TIMEOUT_MS  3000

void e810_fw_core_reset(E810Core *c, E810ResetType type)
{
    E810FwCore keep = c->fw.core;

    /* Any reset drops the function's resource ownership. */
    memset(&c->fw.core, 0, sizeof(c->fw.core));
    if (type == E810_RESET_POWER_ON) {
        c->fw.core.log_resolution = 10;
        return;
    }
    /* The firmware's logging settings outlive the function's resets. */
    c->fw.core.log_flags = keep.log_flags;
    c->fw.core.log_resolution = keep.log_resolution;
    memcpy(c->fw.core.log_level, keep.log_level, sizeof(keep.log_level));
}

bool e810_fw_res_held(E810Core *c, unsigned res_id)
{
    return res_id > 0 && res_id < E810_RES_COUNT && c->fw.core.res[res_id].held;
}

/* ---- 0x0001 .. 0x0003 ------------------------------------------------- */

int e810_fw_get_version(E810Core *c, E810AqCmd *cmd)
{
    st32(aq_param(cmd, AQC_GET_VER_ROM_VER), 0);
    st32(aq_param(cmd, AQC_GET_VER_FW_BUILD), E810_FW_BUILD);
    *aq_param(cmd, AQC_GET_VER_FW_BRANCH) = 0;
    *aq_param(cmd, AQC_GET_VER_FW_MAJOR) = E810_FW_MAJOR;
    *aq_param(cmd, AQC_GET_VER_FW_MINOR) = E810_FW_MINOR;
    *aq_param(cmd, AQC_GET_VER_FW_PATCH) = E810_FW_PATCH;
    *aq_param(cmd, AQC_GET_VER_API_BRANCH) = 0;
    *aq_param(cmd, AQC_GET_VER_API_MAJOR) = E810_FW_API_MAJOR;
    *aq_param(cmd, AQC_GET_VER_API_MINOR) = E810_FW_API_MINOR;
    *aq_param(cmd, AQC_GET_VER_API_PATCH) = E810_FW_API_PATCH;
    trace_e810_fw_version(E810_FW_MAJOR, E810_FW_MINOR, E810_FW_API_MAJOR,
                          E810_FW_API_MINOR, E810_FW_API_PATCH);
    return E810_AQ_RC_OK;
}

int e810_fw_driver_version(E810Core *c, E810AqCmd *cmd)
{
    /* The buffer carries the driver name; firmware only keeps the numbers. */
    memcpy(c->fw.core.driver_ver, aq_param(cmd, AQC_DRIVER_VER_MAJOR_VER), 4);
    trace_e810_fw_driver_version(c->fw.core.driver_ver[0],
                                 c->fw.core.driver_ver[1],
                                 c->fw.core.driver_ver[2],
                                 c->fw.core.driver_ver[3], cmd->buf_len);
    return E810_AQ_RC_OK;
}

int e810_fw_queue_shutdown(E810Core *c, E810AqCmd *cmd)
{
    /* The driver disables the rings itself right after this command. */
    c->fw.core.driver_unloading =
        *aq_param(cmd, AQC_Q_SHUTDOWN_DRIVER_UNLOADING) & AQC_DRIVER_UNLOADING;
    return E810_AQ_RC_OK;
}

/* ---- 0x0008 / 0x0009 resource ownership ------------------------------- */

static uint32_t res_max_timeout(unsigned res_id, unsigned access)
{
    switch (res_id) {
    case E810_RES_NVM:
        return access == E810_RES_ACCESS_WRITE ? RES_NVM_WRITE_TIMEOUT_MS
                                               : RES_NVM_READ_TIMEOUT_MS;
    case E810_RES_CHANGE_LOCK:
        return RES_CHANGE_LOCK_TIMEOUT_MS;
    case E810_RES_GLOBAL_CFG_LOCK:
        return RES_GLOBAL_LOCK_TIMEOUT_MS;
    default:
        return RES_NVM_READ_TIMEOUT_MS;
    }
}

/*
 * The locks are the card's: a resource one function holds is busy for
 * every other function of the adapter until its owner releases it, its
 * hold times out, or the owner is reset (that drops its E810FwCore).
 * @owner is the function holding @res_id, or NULL; an expired hold is
 * dropped on the way.
 */
static E810Core *res_owner(E810Core *c, unsigned res_id, uint64_t now)
{
    for (unsigned i = 0; i < E810_ADAPTER_MAX_PFS; i++) {
        E810Core *o = c->adapter->pf[i];
        E810FwRes *r;

        if (!o || o == c || !o->fw.core.res[res_id].held) {
            continue;
        }
        r = &o->fw.core.res[res_id];
        if (now >= r->expires_ns) {
            trace_e810_fw_resource("expired", res_id, r->access, 0);
            r->held = false;
            r->access = 0;
            o->fw.core.res_expired++;
            continue;
        }
        return o;
    }
    return NULL;
}

int e810_fw_request_resource(E810Core *c, E810AqCmd *cmd)
{
    unsigned res_id = ld16(aq_param(cmd, AQC_REQ_RES_RES_ID));
    unsigned access = ld16(aq_param(cmd, AQC_REQ_RES_ACCESS_TYPE));
    uint32_t timeout = ld32(aq_param(cmd, AQC_REQ_RES_TIMEOUT));
    uint32_t max = res_max_timeout(res_id, access);
    uint16_t status = E810_RES_GLBL_SUCCESS;
    int64_t clock = e810_now(c);
    uint64_t now = clock > 0 ? clock : 0;
    bool global;
    int rc = E810_AQ_RC_OK;
    E810Core *owner;

    if (res_id == 0 || res_id >= E810_RES_COUNT ||
        (access != E810_RES_ACCESS_READ && access != E810_RES_ACCESS_WRITE)) {
        e810_guest_error(c, "Request Resource: resource %u access %u",
                         res_id, access);
        return E810_AQ_RC_EINVAL;
    }
    global = res_id == E810_RES_GLOBAL_CFG_LOCK;
    if (timeout == 0 || timeout > max) {
        timeout = max;
    }
    owner = res_owner(c, res_id, now);
    /*
     * The global config lock guards the DDP download: once a package is
     * active, firmware answers DONE (nothing to do) and grants nothing;
     * while another function downloads, IN_PROG.  Any other lock held
     * elsewhere answers EBUSY.  Both carry the owner's time left, which
     * ice polls for.  A function asking again for a lock it holds gets it
     * again, with a new timeout.
     */
    if (global && e810_fw_ddp_loaded(c)) {
        status = E810_RES_GLBL_DONE;
        timeout = 0;
    } else if (owner) {
        uint64_t left = (owner->fw.core.res[res_id].expires_ns - now) / 1000000;

        timeout = left == 0 ? 1 : left < max ? left : max;
        status = E810_RES_GLBL_IN_PROG;
        rc = global ? E810_AQ_RC_OK : E810_AQ_RC_EBUSY;
        c->fw.core.res_busy++;
    } else {
        c->fw.core.res[res_id].held = true;
        c->fw.core.res[res_id].access = access;
        c->fw.core.res[res_id].expires_ns = now + (uint64_t)timeout * 1000000;
        c->fw.core.res_grants++;
    }
    st32(aq_param(cmd, AQC_REQ_RES_TIMEOUT), timeout);
    /* The status word is defined for the global config lock only. */
    st16(aq_param(cmd, AQC_REQ_RES_STATUS), global ? status : 0);
    trace_e810_fw_resource(owner && status != E810_RES_GLBL_DONE ? "busy" : "request",
                           res_id, access, status);
    return rc;
}

int e810_fw_release_resource(E810Core *c, E810AqCmd *cmd)
{
    unsigned res_id = ld16(aq_param(cmd, AQC_REQ_RES_RES_ID));

    if (res_id == 0 || res_id >= E810_RES_COUNT) {
        e810_guest_error(c, "Release Resource: resource %u", res_id);
        return E810_AQ_RC_EINVAL;
    }
    /* Releasing what is not held is harmless (another function's hold
     * stays); ice retries failures for 10 s. */
    c->fw.core.res[res_id].held = false;
    c->fw.core.res[res_id].access = 0;
    if (res_id == E810_RES_GLOBAL_CFG_LOCK) {
        e810_fw_ddp_lock_released(c);
    }
    trace_e810_fw_resource("release", res_id, 0, 0);
    return E810_AQ_RC_OK;
}

/* ---- 0x000A / 0x000B capabilities -------------------------------------- */

typedef struct CapElem {
    uint16_t id;
    uint32_t number;
    uint32_t logical_id;
    uint32_t phys_id;
} CapElem;

/*
 * One PF owning the whole device, so device and function lists agree.
 * Everything not listed (SR-IOV, 1588...) is absent on purpose: ice
 * then skips those features without touching the device.
 * Flow director must be listed: ice sets up its control VSI regardless and
 * only initialises its bookkeeping (ctrl_vsi_idx) when the capability is
 * there, so without it ice WARNs at probe.  The function's pool sizes come
 * from GLQF_FD_SIZE, not from this list.
 * Tx topology compatibility mode is listed so that ice asks (Get Tx Topology,
 * 0x0418), learns the default 9-layer tree is active and stays silent;
 * without it ice_cfg_tx_topo() returns -EOPNOTSUPP and ice logs "Failed to
 * apply Tx scheduling configuration".  Switching to 5 layers is not offered.
 */
static const CapElem e810_caps[] = {
    { E810_CAP_VALID_FUNCTIONS, 0x1, 0, 0 },   /* the adapter's, at run time */
    { E810_CAP_VSI, E810_FW_NUM_VSI, 0, 0 },
    { E810_CAP_RSS, E810_FW_RSS_LUT_SIZE, E810_FW_RSS_ENTRY_WIDTH, 0 },
    { E810_CAP_RXQS, E810_FW_NUM_QUEUES, 0, 0 },
    { E810_CAP_TXQS, E810_FW_NUM_QUEUES, 0, 0 },
    { E810_CAP_MSIX, E810_MSIX_VECTORS, 0, 0 },
    { E810_CAP_FD, E810_FD_FILTERS, 0, 0 },
    { E810_CAP_MAX_MTU, E810_FW_MAX_MTU, 0, 0 },
    { E810_CAP_RDMA, 1, 0, 0 },
    { E810_CAP_TX_SCHED_TOPO, 1, 0, 0 },
    /* DCB with the firmware's LLDP agent, one TC as shipped (dcb.c) */
    { E810_CAP_DCB, 1, 0x1, 8 },
};

int e810_fw_list_caps(E810Core *c, E810AqCmd *cmd)
{
    unsigned n = sizeof(e810_caps) / sizeof(e810_caps[0]);
    unsigned need = n * AQC_CAPS_ELEM_SIZE;

    if (!cmd->has_buf) {
        e810_guest_error(c, "List Caps 0x%04x without a buffer", cmd->opcode);
        return E810_AQ_RC_EINVAL;
    }
    /* Like firmware: the count and the size needed come back with ENOMEM. */
    st32(aq_param(cmd, AQC_LIST_CAPS_COUNT), n);
    cmd->resp_len = need;
    trace_e810_fw_caps(cmd->opcode, n, cmd->buf_len);
    if (cmd->buf_len < need) {
        return E810_AQ_RC_ENOMEM;
    }
    for (unsigned i = 0; i < n; i++) {
        uint8_t *e = cmd->buf + i * AQC_CAPS_ELEM_SIZE;

        memset(e, 0, AQC_CAPS_ELEM_SIZE);
        st16(e + AQC_CAPS_ELEM_CAP, e810_caps[i].id);
        /* The card's functions: ice counts them and takes its logical PF
         * number from the bits below its own. */
        st32(e + AQC_CAPS_ELEM_NUMBER, e810_caps[i].id == E810_CAP_VALID_FUNCTIONS ?
             c->adapter->funcs : e810_caps[i].number);
        st32(e + AQC_CAPS_ELEM_LOGICAL_ID, e810_caps[i].logical_id);
        st32(e + AQC_CAPS_ELEM_PHYS_ID, e810_caps[i].phys_id);
    }
    return E810_AQ_RC_OK;
}

/* ---- 0x0107 / 0x0108 manage MAC, 0x0110 clear PXE ---------------------- */

int e810_fw_manage_mac_read(E810Core *c, E810AqCmd *cmd)
{
    if (!cmd->has_buf) {
        e810_guest_error(c, "Manage MAC Read without a buffer");
        return E810_AQ_RC_EINVAL;
    }
    cmd->resp_len = AQC_MAC_READ_RESP_SIZE;
    if (cmd->buf_len < AQC_MAC_READ_RESP_SIZE) {
        return E810_AQ_RC_ENOMEM;
    }
    /* One LAN address for logical port 0. */
    cmd->buf[AQC_MAC_READ_RESP_LPORT_NUM] = c->pf_id;
    cmd->buf[AQC_MAC_READ_RESP_ADDR_TYPE] = AQC_MAN_MAC_ADDR_TYPE_LAN;
    memcpy(cmd->buf + AQC_MAC_READ_RESP_MAC_ADDR, c->mac, 6);
    st16(aq_param(cmd, AQC_MANAGE_MAC_READ_FLAGS), AQC_MAN_MAC_LAN_ADDR_VALID);
    *aq_param(cmd, AQC_MANAGE_MAC_READ_NUM_ADDR) = 1;
    return E810_AQ_RC_OK;
}

int e810_fw_manage_mac_write(E810Core *c, E810AqCmd *cmd)
{
    const uint8_t *a = aq_param(cmd, AQC_MANAGE_MAC_WRITE_MAC_ADDR);

    /* Only matters for Wake-on-LAN, which the NVM reports unsupported. */
    trace_e810_fw_mac_write(*aq_param(cmd, AQC_MANAGE_MAC_WRITE_FLAGS),
                            a[0], a[1], a[2], a[3], a[4], a[5]);
    return E810_AQ_RC_OK;
}

/* ---- 0xFF30 .. 0xFF33 FW logging --------------------------------------- */

/*
 * The firmware keeps a log level per module, a resolution and whether the
 * log goes to the UART and to the AQ; a driver registers for the AQ's log
 * events.  The settings are kept and answered as the card's are; the
 * device has nothing to log, so no 0xFF33 event is ever sent.
 */
int e810_fw_log_config(E810Core *c, E810AqCmd *cmd)
{
    E810FwCore *fc = &c->fw.core;
    uint8_t flags = *aq_param(cmd, AQC_FW_LOG_FLAGS);
    unsigned res = ld16(aq_param(cmd, AQC_FW_LOG_RESOLUTION));
    unsigned n = ld16(aq_param(cmd, AQC_FW_LOG_MDL_CNT));

    if (flags & AQC_FW_LOG_SET_VALID) {
        if (!cmd->has_buf || n * AQC_FW_LOG_MDL_SIZE > cmd->buf_len ||
            res < 1 || res > AQC_FW_LOG_RES_MAX) {
            e810_guest_error(c, "fw log config: %u modules in %u bytes, "
                             "resolution %u", n, cmd->buf_len, res);
            return E810_AQ_RC_EINVAL;
        }
        /* All checked before any is taken. */
        for (unsigned i = 0; i < n; i++) {
            const uint8_t *e = cmd->buf + i * AQC_FW_LOG_MDL_SIZE;

            if (ld16(e + AQC_FW_LOG_MDL_ID) >= AQC_FW_LOG_MODULES ||
                e[AQC_FW_LOG_MDL_LEVEL] > AQC_FW_LOG_LEVEL_MAX) {
                e810_guest_error(c, "fw log config: module %u level %u",
                                 ld16(e + AQC_FW_LOG_MDL_ID),
                                 e[AQC_FW_LOG_MDL_LEVEL]);
                return E810_AQ_RC_EINVAL;
            }
        }
        for (unsigned i = 0; i < n; i++) {
            const uint8_t *e = cmd->buf + i * AQC_FW_LOG_MDL_SIZE;

            fc->log_level[ld16(e + AQC_FW_LOG_MDL_ID)] =
                e[AQC_FW_LOG_MDL_LEVEL];
        }
        fc->log_resolution = res;
    }
    fc->log_flags = (fc->log_flags & AQC_FW_LOG_REGISTERED) |
                    (flags & (AQC_FW_LOG_UART_EN | AQC_FW_LOG_AQ_EN));
    return E810_AQ_RC_OK;
}

int e810_fw_log_register(E810Core *c, E810AqCmd *cmd)
{
    /* Unregistering when not registered is fine, as on the card. */
    if (*aq_param(cmd, AQC_FW_LOG_FLAGS) & AQC_FW_LOG_AQ_REGISTER) {
        c->fw.core.log_flags |= AQC_FW_LOG_REGISTERED;
    } else {
        c->fw.core.log_flags &= ~AQC_FW_LOG_REGISTERED;
    }
    return E810_AQ_RC_OK;
}

int e810_fw_log_query(E810Core *c, E810AqCmd *cmd)
{
    E810FwCore *fc = &c->fw.core;

    if (!cmd->has_buf ||
        cmd->buf_len < AQC_FW_LOG_MODULES * AQC_FW_LOG_MDL_SIZE) {
        e810_guest_error(c, "fw log query: a buffer of %u bytes",
                         cmd->buf_len);
        return E810_AQ_RC_ENOMEM;
    }
    *aq_param(cmd, AQC_FW_LOG_FLAGS) = fc->log_flags;
    st16(aq_param(cmd, AQC_FW_LOG_RESOLUTION), fc->log_resolution);
    st16(aq_param(cmd, AQC_FW_LOG_MDL_CNT), AQC_FW_LOG_MODULES);
    for (unsigned i = 0; i < AQC_FW_LOG_MODULES; i++) {
        uint8_t *e = cmd->buf + i * AQC_FW_LOG_MDL_SIZE;

        st16(e + AQC_FW_LOG_MDL_ID, i);
        e[AQC_FW_LOG_MDL_LEVEL] = fc->log_level[i];
        e[AQC_FW_LOG_MDL_LEVEL + 1] = 0;
    }
    cmd->resp_len = AQC_FW_LOG_MODULES * AQC_FW_LOG_MDL_SIZE;
    return E810_AQ_RC_OK;
}

/* ---- saved state -------------------------------------------------------- */

/* Everything in E810FwCore is saved. */
static const E810SnapField fw_res_fields[] = {
    SF_BOOL(E810FwRes, held),
    /* 0 when free, else what Request Resource granted (read or write) */
    SF_U(E810FwRes, access, 0, E810_RES_ACCESS_WRITE),
    /* v2; an older record's holds end at once (expires_ns 0) */
    SF_UX_SINCE(E810FwRes, expires_ns, 2),
    SF_END
};

static const E810SnapField fw_core_fields[] = {
    SF_SUBA(E810FwCore, res, fw_res_fields),
    SF_BYTES(E810FwCore, driver_ver),
    SF_BOOL(E810FwCore, driver_unloading),
    SF_UX(E810FwCore, res_grants),
    SF_UX_SINCE(E810FwCore, res_busy, 2),
    SF_UX_SINCE(E810FwCore, res_expired, 2),
    /* v3: FW logging */
    SF_U_SINCE(E810FwCore, log_flags, 0, AQC_FW_LOG_UART_EN |
               AQC_FW_LOG_AQ_EN | AQC_FW_LOG_REGISTERED, 3),
    SF_U_SINCE(E810FwCore, log_resolution, 1, AQC_FW_LOG_RES_MAX, 3),
    SF_UA_SINCE(E810FwCore, log_level, 0, AQC_FW_LOG_LEVEL_MAX, 3),
    SF_END
};


const E810SnapPart e810_fw_core_snap =
    E810_SNAP_FLAT("fw.core", fw.core, fw_core_fields, NULL);
