/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 admin queue: the driver-to-firmware command ring (ATQ) and the
 * firmware-to-driver event ring (ARQ), 32-byte descriptors, indirect buffers
 * of up to 4 KiB, and the firmware's return codes.
 */
#ifndef E810_AQ_H
#define E810_AQ_H

#include "../types.h"
#include "aqc.h"

/* Registers */
#define PF_FW_ATQBAL                0x00080000
#define PF_FW_ARQBAL                0x00080080
#define PF_FW_ATQBAH                0x00080100
#define PF_FW_ARQBAH                0x00080180
#define PF_FW_ATQLEN                0x00080200
#define PF_FW_ARQLEN                0x00080280
#define PF_FW_ATQH                  0x00080300
#define PF_FW_ARQH                  0x00080380
#define PF_FW_ATQT                  0x00080400
#define PF_FW_ARQT                  0x00080480
#define   PF_FW_xQLEN_LEN_M         0x3FFu
#define   PF_FW_xQLEN_VFE           (1u << 28)
#define   PF_FW_xQLEN_OVFL          (1u << 29)
#define   PF_FW_xQLEN_CRIT          (1u << 30)
#define   PF_FW_xQLEN_ENABLE        (1u << 31)
#define   PF_FW_xQH_M               0x3FFu

/* Descriptor (struct libie_aq_desc): byte offsets of its fields */
#define E810_AQ_DESC_SIZE           32
#define AQ_DESC_FLAGS               0
#define AQ_DESC_OPCODE              2
#define AQ_DESC_DATALEN             4
#define AQ_DESC_RETVAL              6
#define AQ_DESC_COOKIE_H            8
#define AQ_DESC_COOKIE_L            12
#define AQ_DESC_PARAMS              16      /* command-specific, 16 bytes */
#define AQ_DESC_ADDR_H              24      /* indirect buffer address */
#define AQ_DESC_ADDR_L              28
#define E810_AQ_BUF_MAX             4096
#define E810_AQ_FLAG_DD             (1u << 0)
#define E810_AQ_FLAG_CMP            (1u << 1)
#define E810_AQ_FLAG_ERR            (1u << 2)
#define E810_AQ_FLAG_LB             (1u << 9)
#define E810_AQ_FLAG_RD             (1u << 10)
#define E810_AQ_FLAG_BUF            (1u << 12)
#define E810_AQ_FLAG_SI             (1u << 13)

/* Firmware return codes (the driver's libie_aq_err) */
enum {
    E810_AQ_RC_OK = 0,
    E810_AQ_RC_EPERM = 1,
    E810_AQ_RC_ENOENT = 2,
    E810_AQ_RC_ESRCH = 3,           /* unknown opcode */
    E810_AQ_RC_EIO = 5,
    E810_AQ_RC_EAGAIN = 8,
    E810_AQ_RC_ENOMEM = 9,
    E810_AQ_RC_EACCES = 10,
    E810_AQ_RC_EBUSY = 12,
    E810_AQ_RC_EEXIST = 13,
    E810_AQ_RC_EINVAL = 14,
    E810_AQ_RC_ENOSPC = 16,
    E810_AQ_RC_ENOSYS = 17,
    E810_AQ_RC_EMODE = 21,
    E810_AQ_RC_EBADBUF = 28,
};

/*
 * One command as a handler sees it.  @desc is the descriptor (handlers read
 * and update params in place, bytes 16..31).  @buf holds the indirect buffer
 * (@buf_len bytes as the driver sent it, zero-padded to E810_AQ_BUF_MAX).
 * A handler that returns data in the buffer sets @resp_len (≤ @buf_len); it
 * stays -1 for commands whose buffer is input only.
 */
typedef struct E810AqCmd {
    uint8_t desc[E810_AQ_DESC_SIZE];
    uint16_t opcode;
    uint16_t flags;
    bool has_buf;
    uint16_t buf_len;
    int resp_len;
    uint8_t buf[E810_AQ_BUF_MAX];
} E810AqCmd;

/* Handlers return an E810_AQ_RC_* code. */
typedef int E810AqHandler(E810Core *c, E810AqCmd *cmd);

typedef struct E810AqOp {
    uint16_t opcode;
    const char *name;
    E810AqHandler *fn;
} E810AqOp;

/* Command parameter at @off of the 16-byte parameter area (AQC_* in aqc.h). */
static inline uint8_t *aq_param(E810AqCmd *cmd, unsigned off)
{
    return &cmd->desc[AQ_DESC_PARAMS + off];
}

typedef struct E810Aq {
    uint64_t commands;          /* executed */
    uint64_t errors;            /* answered with a non-zero return code */
    uint64_t events;            /* posted to the ARQ */
    uint64_t events_lost;       /* ARQ full or disabled */
    E810AqCmd cmd;              /* scratch for the command being run */
    /* A command held by an aq-timeout fault: the ATQ stands still until
     * @timer runs it (@resume: without asking the faults again). */
    bool held;
    bool resume;
    E810CoreTimer *timer;
} E810Aq;

void e810_aq_init(E810Core *c);
void e810_aq_cleanup(E810Core *c);
void e810_aq_reset(E810Core *c);
/* Register writes that belong to the admin queue; true if handled. */
bool e810_aq_write(E810Core *c, uint32_t off, uint32_t val);
/* Post an event to the ARQ and raise the AdminQ interrupt cause. */
bool e810_aq_post_event(E810Core *c, uint16_t opcode, const uint8_t params[16],
                        const void *payload, uint16_t len);
const char *e810_aq_opcode_name(uint16_t opcode);

/* Saved state (snap.h): the counters only.  A command runs to completion
 * inside one register write, so none is ever in progress at a save; the
 * rings' base, length, head and tail are registers. */
extern const struct E810SnapPart e810_aq_snap;


#endif
