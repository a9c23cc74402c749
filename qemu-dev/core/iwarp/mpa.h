/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * MPA (RFC 5044) framing with markers off and CRC on, and the MPA
 * request/reply frames of connection setup, v1 and the enhanced v2 of
 * RFC 6581 (IRD/ORD and the ready-to-receive message).
 */
#ifndef IW_MPA_H
#define IW_MPA_H

#include "../host.h"
#include "hdr.h"

/* Bytes on the wire for a ULPDU of @ulpdu_len bytes. */
static inline size_t iw_mpa_fpdu_len(size_t ulpdu_len)
{
    return ((IW_MPA_HDR + ulpdu_len + 3) & ~(size_t)3) + IW_MPA_CRC;
}

/* Largest ULPDU that fits in @bytes of wire space (0 if none). */
static inline size_t iw_mpa_max_ulpdu(size_t bytes)
{
    size_t w, n;

    if (bytes < IW_MPA_FRAMING) {
        return 0;
    }
    /* Header, ULPDU and pad fill whole words in front of the CRC: less
     * than one word there holds no ULPDU at all (6 or 7 bytes of window
     * once wrapped this to ~64 KiB, past the frame buffer). */
    w = (bytes - IW_MPA_CRC) & ~(size_t)3;
    if (w <= IW_MPA_HDR) {
        return 0;
    }
    n = w - IW_MPA_HDR;
    return n > IW_MPA_MAX_ULPDU ? IW_MPA_MAX_ULPDU : n;
}

/*
 * Frame a ULPDU already written at @fpdu + 2: writes the length, zero pad
 * and CRC; returns the FPDU length.  @fpdu must have room for
 * iw_mpa_fpdu_len(@ulpdu_len) bytes.
 */
size_t iw_mpa_seal(uint8_t *fpdu, size_t ulpdu_len);

enum {
    IW_MPA_OK = 0,
    IW_MPA_MORE = 1,        /* not a whole FPDU yet */
    IW_MPA_BAD_CRC = -1,
    IW_MPA_BAD_LEN = -2,    /* ULPDU too short to hold a DDP header */
};

/*
 * Look at the start of a received byte stream: when a whole FPDU is
 * there, check its CRC and return IW_MPA_OK with its wire length in
 * *@fpdu_len and its ULPDU length in *@ulpdu_len.
 */
int iw_mpa_check(const uint8_t *buf, size_t avail, size_t min_ulpdu,
                 size_t *fpdu_len, size_t *ulpdu_len);

/* ---- connection setup frames ------------------------------------------ */

typedef struct IwMpaFrame {
    bool reply;             /* "MPA ID Rep Frame" */
    bool markers, crc, reject;
    uint8_t rev;            /* 1 or 2 */
    bool v2;                /* enhanced: RTR message present */
    uint16_t ird, ord;      /* v2 only */
    bool p2p, send0, write0, read0;
    uint16_t pdata_len;     /* ULP private data (after the RTR message) */
    const uint8_t *pdata;
} IwMpaFrame;

/* Parse a request or reply at @buf.  Returns the frame length, 0 if more
 * bytes are needed, -1 if it is not a valid MPA frame. */
int iw_mpa_parse(const uint8_t *buf, size_t len, IwMpaFrame *f);
/* Build a frame into @out (room for 20 + 4 + pdata_len); returns length. */
size_t iw_mpa_build(uint8_t *out, const IwMpaFrame *f);

#endif
