/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 RoCEv2 engine: what each BTH opcode is (IBA vol. 1 9.2, table 38:
 * the RC and UD opcodes), as one table the requester, responder and UD
 * paths read instead of lists of opcodes.
 */
#include "qemu/osdep.h"
#include "roce-int.h"

#define SEND_   ROCE_F_SEND
#define WRITE_  ROCE_F_WRITE
#define F_      ROCE_F_FIRST
#define L_      ROCE_F_LAST

const uint16_t roce_opcode_flags[256] = {
    [ROCE_SEND_FIRST]       = SEND_ | F_,
    [ROCE_SEND_MIDDLE]      = SEND_,
    [ROCE_SEND_LAST]        = SEND_ | L_,
    [ROCE_SEND_LAST_IMM]    = SEND_ | L_ | ROCE_F_IMM,
    [ROCE_SEND_ONLY]        = SEND_ | F_ | L_,
    [ROCE_SEND_ONLY_IMM]    = SEND_ | F_ | L_ | ROCE_F_IMM,
    [ROCE_SEND_LAST_INV]    = SEND_ | L_ | ROCE_F_IETH,
    [ROCE_SEND_ONLY_INV]    = SEND_ | F_ | L_ | ROCE_F_IETH,
    [ROCE_WRITE_FIRST]      = WRITE_ | F_ | ROCE_F_RETH,
    [ROCE_WRITE_MIDDLE]     = WRITE_,
    [ROCE_WRITE_LAST]       = WRITE_ | L_,
    [ROCE_WRITE_LAST_IMM]   = WRITE_ | L_ | ROCE_F_IMM,
    [ROCE_WRITE_ONLY]       = WRITE_ | F_ | L_ | ROCE_F_RETH,
    [ROCE_WRITE_ONLY_IMM]   = WRITE_ | F_ | L_ | ROCE_F_RETH | ROCE_F_IMM,
    [ROCE_READ_REQ]         = ROCE_F_READ_REQ | F_ | L_ | ROCE_F_RETH,
    [ROCE_READ_RESP_FIRST]  = ROCE_F_READ_RESP | F_ | ROCE_F_AETH,
    [ROCE_READ_RESP_MIDDLE] = ROCE_F_READ_RESP,
    [ROCE_READ_RESP_LAST]   = ROCE_F_READ_RESP | L_ | ROCE_F_AETH,
    [ROCE_READ_RESP_ONLY]   = ROCE_F_READ_RESP | F_ | L_ | ROCE_F_AETH,
    [ROCE_ACK]              = ROCE_F_ACK | ROCE_F_AETH,
    [ROCE_ATOMIC_ACK]       = ROCE_F_ACK | ROCE_F_AETH | ROCE_F_ATOMIC,
    [ROCE_CMP_SWAP]         = ROCE_F_ATOMIC | F_ | L_,
    [ROCE_FETCH_ADD]        = ROCE_F_ATOMIC | F_ | L_,
    [ROCE_UD_SEND_ONLY]     = ROCE_F_UD | SEND_ | F_ | L_ | ROCE_F_DETH,
    [ROCE_UD_SEND_ONLY_IMM] = ROCE_F_UD | SEND_ | F_ | L_ | ROCE_F_DETH |
                              ROCE_F_IMM,
};
