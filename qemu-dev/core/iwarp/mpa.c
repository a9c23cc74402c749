/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * MPA framing and connection setup frames.
 */
#include "qemu/osdep.h"
#include "mpa.h"
#include "../net/net.h"
#include "../bytes.h"

static const char key_req[IW_MPA_KEY_LEN + 1] = "MPA ID Req Frame";
static const char key_rep[IW_MPA_KEY_LEN + 1] = "MPA ID Rep Frame";

size_t iw_mpa_seal(uint8_t *fpdu, size_t ulpdu_len)
{
    size_t body = (IW_MPA_HDR + ulpdu_len + 3) & ~(size_t)3;
    uint32_t crc;

    stbe16(fpdu + IW_MPA_ULPDU_LEN, (uint16_t)ulpdu_len);
    memset(fpdu + IW_MPA_HDR + ulpdu_len, 0, body - IW_MPA_HDR - ulpdu_len);
    crc = e810_crc32c(fpdu, body);
    /* The CRC register goes out least significant byte first, which is
     * RFC 3385's bit order (siw_crc_final(), irdma_ieq_check_mpacrc()). */
    st32(fpdu + body, crc);
    return body + IW_MPA_CRC;
}

int iw_mpa_check(const uint8_t *buf, size_t avail, size_t min_ulpdu,
                 size_t *fpdu_len, size_t *ulpdu_len)
{
    size_t ulen, flen, body;
    uint32_t crc, got;

    if (avail < IW_MPA_HDR) {
        return IW_MPA_MORE;
    }
    ulen = ldbe16(buf + IW_MPA_ULPDU_LEN);
    if (ulen < min_ulpdu) {
        return IW_MPA_BAD_LEN;
    }
    flen = iw_mpa_fpdu_len(ulen);
    if (avail < flen) {
        return IW_MPA_MORE;
    }
    body = flen - IW_MPA_CRC;
    crc = e810_crc32c(buf, body);
    got = ld32(buf + body);
    *fpdu_len = flen;
    *ulpdu_len = ulen;
    return crc == got ? IW_MPA_OK : IW_MPA_BAD_CRC;
}

int iw_mpa_parse(const uint8_t *buf, size_t len, IwMpaFrame *f)
{
    size_t plen;

    memset(f, 0, sizeof(*f));
    if (len < IW_MPA_REQ_HDR_LEN) {
        return 0;
    }
    if (!memcmp(buf + IW_MPA_RR_KEY, key_req, IW_MPA_KEY_LEN)) {
        f->reply = false;
    } else if (!memcmp(buf + IW_MPA_RR_KEY, key_rep, IW_MPA_KEY_LEN)) {
        f->reply = true;
    } else {
        return -1;
    }
    f->markers = buf[IW_MPA_RR_FLAGS] & IW_MPA_FLAG_MARKERS;
    f->crc = buf[IW_MPA_RR_FLAGS] & IW_MPA_FLAG_CRC;
    f->reject = buf[IW_MPA_RR_FLAGS] & IW_MPA_FLAG_REJECT;
    f->rev = buf[IW_MPA_RR_REV];
    plen = ldbe16(buf + IW_MPA_RR_PD_LEN);
    if (f->rev < IW_MPA_REV1 || f->rev > IW_MPA_REV2 ||
        plen > IW_MPA_MAX_PDATA + IW_MPA_RTR_LEN) {
        return -1;
    }
    if (len < IW_MPA_REQ_HDR_LEN + plen) {
        return 0;
    }
    f->v2 = f->rev == IW_MPA_REV2 && (buf[IW_MPA_RR_FLAGS] & IW_MPA_FLAG_V2);
    buf += IW_MPA_REQ_HDR_LEN;
    if (f->v2) {
        uint16_t ird, ord;

        if (plen < IW_MPA_RTR_LEN) {
            return -1;
        }
        ird = ldbe16(buf + IW_MPA_RTR_IRD);
        ord = ldbe16(buf + IW_MPA_RTR_ORD);
        f->ird = ird & IW_MPA_IRD_ORD_M;
        f->ord = ord & IW_MPA_IRD_ORD_M;
        f->p2p = ird & IW_MPA_IRD_P2P;
        f->send0 = ird & IW_MPA_IRD_SEND0;
        f->write0 = ord & IW_MPA_ORD_WRITE0;
        f->read0 = ord & IW_MPA_ORD_READ0;
        buf += IW_MPA_RTR_LEN;
        plen -= IW_MPA_RTR_LEN;
    } else if (plen > IW_MPA_MAX_PDATA) {
        return -1;
    }
    f->pdata_len = (uint16_t)plen;
    f->pdata = plen ? buf : NULL;
    return (int)(IW_MPA_REQ_HDR_LEN + (f->v2 ? IW_MPA_RTR_LEN : 0) + plen);
}

size_t iw_mpa_build(uint8_t *out, const IwMpaFrame *f)
{
    size_t n = IW_MPA_REQ_HDR_LEN;
    uint16_t plen = f->pdata_len;

    memcpy(out + IW_MPA_RR_KEY, f->reply ? key_rep : key_req,
           IW_MPA_KEY_LEN);
    out[IW_MPA_RR_FLAGS] = (f->markers ? IW_MPA_FLAG_MARKERS : 0) |
              (f->crc ? IW_MPA_FLAG_CRC : 0) |
              (f->reject ? IW_MPA_FLAG_REJECT : 0) |
              (f->v2 ? IW_MPA_FLAG_V2 : 0);
    out[IW_MPA_RR_REV] = f->v2 ? IW_MPA_REV2 : (f->rev ? f->rev : IW_MPA_REV1);
    stbe16(out + IW_MPA_RR_PD_LEN,
           (uint16_t)(plen + (f->v2 ? IW_MPA_RTR_LEN : 0)));
    if (f->v2) {
        stbe16(out + n + IW_MPA_RTR_IRD, (f->ird & IW_MPA_IRD_ORD_M) |
                 (f->p2p ? IW_MPA_IRD_P2P : 0) |
                 (f->send0 ? IW_MPA_IRD_SEND0 : 0));
        stbe16(out + n + IW_MPA_RTR_ORD, (f->ord & IW_MPA_IRD_ORD_M) |
                 (f->write0 ? IW_MPA_ORD_WRITE0 : 0) |
                 (f->read0 ? IW_MPA_ORD_READ0 : 0));
        n += IW_MPA_RTR_LEN;
    }
    if (plen) {
        memcpy(out + n, f->pdata, plen);
        n += plen;
    }
    return n;
}
