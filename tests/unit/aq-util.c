/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "aq-util.h"

#include <assert.h>

const uint8_t aq_test_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
const uint8_t aq_peer_mac[6] = { 0x52, 0x54, 0x00, 0xab, 0xcd, 0xef };

static void arq_post(AqTest *t, unsigned i)
{
    uint8_t *d = fake_mem(&t->h, ARQ_RING + i * 32);
    uint64_t buf = ARQ_BUFS + (uint64_t)i * 4096;

    memset(d, 0, 32);
    st16(d, E810_AQ_FLAG_BUF | E810_AQ_FLAG_LB);
    st16(d + 4, 4096);
    st32(d + 24, buf >> 32);
    st32(d + 28, (uint32_t)buf);
}

void aq_test_init(AqTest *t)
{
    memset(t, 0, sizeof(*t));
    fake_host_init(&t->h);
    e810_core_init(&t->c, &t->h.host, aq_test_mac);
    aq_test_rings(t);
}

void aq_test_rings(AqTest *t)
{
    t->atq_ntu = 0;
    t->arq_ntc = 0;
    /* Same order as ice_init_sq / ice_init_rq. */
    aq_wr(t, PF_FW_ATQH, 0);
    aq_wr(t, PF_FW_ATQT, 0);
    aq_wr(t, PF_FW_ATQLEN, AQ_LEN | PF_FW_xQLEN_ENABLE);
    aq_wr(t, PF_FW_ATQBAL, (uint32_t)ATQ_RING);
    aq_wr(t, PF_FW_ATQBAH, ATQ_RING >> 32);
    for (unsigned i = 0; i < AQ_LEN; i++) {
        arq_post(t, i);
    }
    aq_wr(t, PF_FW_ARQH, 0);
    aq_wr(t, PF_FW_ARQT, 0);
    aq_wr(t, PF_FW_ARQLEN, AQ_LEN | PF_FW_xQLEN_ENABLE);
    aq_wr(t, PF_FW_ARQBAL, (uint32_t)ARQ_RING);
    aq_wr(t, PF_FW_ARQBAH, ARQ_RING >> 32);
    aq_wr(t, PF_FW_ARQT, AQ_LEN - 1);
}

void aq_test_cleanup(AqTest *t)
{
    e810_core_cleanup(&t->c);
    fake_host_cleanup(&t->h);
}

void aq_msg_init(AqMsg *m, uint16_t opcode, uint16_t buf_len, bool rd)
{
    memset(m, 0, sizeof(*m));
    st16(m->desc + 2, opcode);
    if (buf_len) {
        st16(m->desc, E810_AQ_FLAG_BUF | (buf_len > 512 ? E810_AQ_FLAG_LB : 0) |
             (rd ? E810_AQ_FLAG_RD : 0));
        st16(m->desc + 4, buf_len);
    }
}

int aq_send(AqTest *t, AqMsg *m)
{
    unsigned i = t->atq_ntu;
    uint8_t *d = fake_mem(&t->h, ATQ_RING + i * 32);
    uint64_t buf = ATQ_BUFS + (uint64_t)i * 4096;
    uint16_t len = aq_datalen(m);
    bool has_buf = aq_flags(m) & E810_AQ_FLAG_BUF;

    if (has_buf) {
        st32(m->desc + 24, buf >> 32);
        st32(m->desc + 28, (uint32_t)buf);
        memcpy(fake_mem(&t->h, buf), m->buf, len <= 4096 ? len : 4096);
    }
    memcpy(d, m->desc, 32);
    t->atq_ntu = (i + 1) % AQ_LEN;
    aq_wr(t, PF_FW_ATQT, t->atq_ntu);
    /* The driver polls ATQH; our commands finish inside the write. */
    assert(aq_rd(t, PF_FW_ATQH) == t->atq_ntu);
    memcpy(m->desc, d, 32);
    if (has_buf) {
        uint16_t back = aq_datalen(m);
        memcpy(m->buf, fake_mem(&t->h, buf), back <= 4096 ? back : 4096);
    }
    return ld16(m->desc + AQ_DESC_RETVAL);
}

uint16_t aq_datalen(const AqMsg *m)
{
    return ld16(m->desc + AQ_DESC_DATALEN);
}

uint16_t aq_flags(const AqMsg *m)
{
    return ld16(m->desc);
}

bool aq_event(AqTest *t, AqMsg *m)
{
    unsigned i = t->arq_ntc;
    uint8_t *d;
    uint64_t buf;

    if (aq_rd(t, PF_FW_ARQH) == i) {
        return false;
    }
    d = fake_mem(&t->h, ARQ_RING + i * 32);
    buf = (uint64_t)ld32(d + 24) << 32 | ld32(d + 28);
    memcpy(m->desc, d, 32);
    memcpy(m->buf, fake_mem(&t->h, buf), 4096);
    arq_post(t, i);
    aq_wr(t, PF_FW_ARQT, i);
    t->arq_ntc = (i + 1) % AQ_LEN;
    return true;
}

int aq_add_pf_vsi(AqTest *t, uint16_t first, uint16_t nq, bool pe,
                  uint16_t *num)
{
    static AqMsg m;
    int rc;

    aq_msg_init(&m, 0x0210, 128, true);
    st16(m.desc + 22, 2);                   /* PF VSI */
    st16(m.buf, (1 << 0) | (1 << 1) | (1 << 2) | (1 << 6) | (1 << 7));
    m.buf[4] = 1 << 4;                      /* LAN enable */
    m.buf[12] = 3 | (3 << 3);               /* Tx all, leave tags in packet */
    st16(m.buf + 30, first);
    st16(m.buf + 32, nq);
    st16(m.buf + 62, 2 << 11);
    m.buf[78] = 2;                          /* PF LUT */
    m.buf[80] = pe ? 1 : 0;                 /* PE filter enable */
    rc = aq_send(t, &m);
    *num = ld16(m.desc + 16) & 0x3FF;
    return rc;
}

int aq_dflt_topo(AqTest *t, uint32_t teid[3])
{
    static AqMsg m;
    int rc;

    aq_msg_init(&m, 0x0400, 4096, false);
    rc = aq_send(t, &m);
    for (unsigned i = 0; i < 3; i++) {
        teid[i] = ld32(m.buf + 8 + 24 * i + 4);
    }
    return rc;
}

int aq_add_node(AqTest *t, uint32_t parent, uint32_t *teid)
{
    static AqMsg m;
    uint8_t *e = m.buf + 8;
    int rc;

    aq_msg_init(&m, 0x0401, 32, true);
    st16(m.desc + 16, 1);
    st32(m.buf, parent);
    st16(m.buf + 4, 1);
    st32(e, parent);
    e[8] = E810_SCHED_ELEM_GENERIC;
    e[9] = 7;                           /* generic, CIR, EIR valid */
    st16(e + 8 + 6, 4);
    st16(e + 8 + 10, 4);
    rc = aq_send(t, &m);
    *teid = ld32(e + 4);
    return rc;
}

void aq_txq_msg(AqMsg *m, uint32_t parent, uint16_t q, uint64_t ring,
                uint16_t qlen, uint16_t vsi)
{
    uint8_t *e = m->buf + 8;
    uint8_t *ctx = e + 8;

    aq_msg_init(m, 0x0C30, 56, true);
    m->desc[16] = 1;
    st32(m->buf, parent);
    m->buf[4] = 1;
    st16(e, q);
    put_bits(ctx, 0, 57, ring >> 7);
    put_bits(ctx, 78, 2, 2);            /* vmvf_type PF */
    put_bits(ctx, 80, 10, vsi);
    put_bits(ctx, 135, 13, qlen);
    put_bits(ctx, 152, 1, 1);           /* tso_ena */
    put_bits(ctx, 153, 11, q);          /* tso_qnum */
    e[32 + 1] = 7;                      /* generic, CIR, EIR valid */
}

int aq_add_txq(AqTest *t, uint32_t parent, uint16_t q, uint64_t ring,
               uint16_t qlen, uint16_t vsi, uint32_t *teid)
{
    static AqMsg m;
    int rc;

    aq_txq_msg(&m, parent, q, ring, qlen, vsi);
    rc = aq_send(t, &m);
    *teid = ld32(m.buf + 12);
    return rc;
}

void aq_dis_txq_msg(AqMsg *m, uint32_t parent, uint16_t q)
{
    aq_msg_init(m, 0x0C31, 8, true);
    m->desc[16] = 1 << 3;               /* flush pipe */
    m->desc[17] = 1;
    st32(m->buf, parent);
    m->buf[4] = 1;
    st16(m->buf + 6, q);
}

void aq_add_qset_msg(AqMsg *m, uint32_t parent, uint16_t handle)
{
    aq_msg_init(m, 0x0C33, 32, true);
    m->desc[16] = 1;
    st32(m->buf, parent);
    st16(m->buf + 4, 1);
    st16(m->buf + 8, handle);
    m->buf[8 + 8 + 1] = 7;              /* generic, CIR, EIR valid */
}

int aq_add_mac_rule(AqTest *t, uint16_t vsi, const uint8_t *da)
{
    static AqMsg m;
    uint8_t *r = m.buf;

    aq_msg_init(&m, 0x02A0, 32, true);
    st16(m.desc + 16, 1);
    st16(r, 1);                             /* lookup Tx (MAC filters) */
    st16(r + 4, 1);                         /* MAC recipe */
    st16(r + 6, vsi);
    st32(r + 8, (uint32_t)vsi << 4 | 1u << 17 | 1u << 2 | 1u << 3);
    st16(r + 14, 16);
    memcpy(r + 16, da, 6);
    r[16 + 12] = 0x81;
    return aq_send(t, &m);
}
