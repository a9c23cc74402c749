/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Core unit tests: the admin queue engine. */
#include "aq-util.h"
#include "check.h"

static AqTest t;

static void test_unknown_opcode(void)
{
    AqMsg m;

    aq_test_init(&t);
    aq_msg_init(&m, 0x7777, 0, false);
    st32(m.desc + 8, 0xC00C1E);             /* cookie must come back */
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_ESRCH);
    CHECK(aq_flags(&m) & E810_AQ_FLAG_DD);
    CHECK(aq_flags(&m) & E810_AQ_FLAG_CMP);
    CHECK(aq_flags(&m) & E810_AQ_FLAG_ERR);
    CHECK_EQ(ld32(m.desc + AQ_DESC_COOKIE_H), 0xC00C1E);
    CHECK_EQ(t.c.aq.commands, 1);
    aq_test_cleanup(&t);
}

static void test_bad_buffer_length(void)
{
    AqMsg m;
    uint8_t *d;

    aq_test_init(&t);
    /* Hand-craft a descriptor claiming a 5000-byte buffer. */
    aq_msg_init(&m, 0x0001, 16, false);
    st16(m.desc + 4, 5000);
    d = fake_mem(&t.h, ATQ_RING);
    memcpy(d, m.desc, 32);
    aq_wr(&t, PF_FW_ATQT, 1);
    CHECK_EQ(aq_rd(&t, PF_FW_ATQH), 1);
    CHECK_EQ(ld16(d + 6), E810_AQ_RC_EINVAL);
    CHECK(ld16(d) & E810_AQ_FLAG_ERR);
    CHECK(t.h.guest_errors >= 1);
    aq_test_cleanup(&t);
}

static void test_buffer_outside_memory(void)
{
    uint8_t *d;

    aq_test_init(&t);
    d = fake_mem(&t.h, ATQ_RING);
    memset(d, 0, 32);
    st16(d, E810_AQ_FLAG_BUF);
    st16(d + 2, 0x000B);
    st16(d + 4, 4096);
    st32(d + 24, 0xdead);                   /* far outside guest memory */
    aq_wr(&t, PF_FW_ATQT, 1);
    CHECK_EQ(aq_rd(&t, PF_FW_ATQH), 1);
    CHECK_EQ(ld16(d + 6), E810_AQ_RC_EIO);
    CHECK(t.h.dma_faults >= 1);
    aq_test_cleanup(&t);
}

static void test_ring_wraps_and_bad_tail(void)
{
    AqMsg m;

    aq_test_init(&t);
    for (unsigned i = 0; i < AQ_LEN + 5; i++) {
        aq_msg_init(&m, 0x7777, 0, false);
        CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_ESRCH);
    }
    CHECK_EQ(aq_rd(&t, PF_FW_ATQH), 5);
    /* A tail beyond the ring is refused without touching memory. */
    aq_wr(&t, PF_FW_ATQT, 500);
    CHECK_EQ(aq_rd(&t, PF_FW_ATQH), 5);
    CHECK(t.h.guest_errors >= 1);
    /* A disabled queue runs nothing. */
    aq_wr(&t, PF_FW_ATQLEN, 0);
    aq_wr(&t, PF_FW_ATQT, 6);
    CHECK_EQ(aq_rd(&t, PF_FW_ATQH), 5);
    aq_test_cleanup(&t);
}

static void test_event_and_interrupt(void)
{
    AqMsg m;
    uint8_t payload[32] = { 1, 2, 3 };
    uint8_t params[16] = { 0 };

    aq_test_init(&t);
    /* Route the AdminQ cause to vector 0 and enable it, as ice does. */
    aq_wr(&t, PFINT_FW_CTL, 0 | E810_CTL_CAUSE_ENA);
    aq_wr(&t, GLINT_DYN_CTL(0), GLINT_DYN_CTL_INTENA);
    CHECK(e810_aq_post_event(&t.c, 0x0607, params, payload, sizeof(payload)));
    CHECK_EQ(fake_irq_count(&t.h, 0), 1);
    CHECK(aq_event(&t, &m));
    CHECK_EQ(ld16(m.desc + AQ_DESC_OPCODE), 0x0607);
    CHECK_EQ(aq_datalen(&m), 32);
    CHECK_EQ(m.buf[2], 3);
    CHECK(!(aq_flags(&m) & E810_AQ_FLAG_ERR));
    CHECK(!aq_event(&t, &m));
    aq_test_cleanup(&t);
}

static void test_event_ring_full(void)
{
    uint8_t params[16] = { 0 };
    unsigned posted = 0;

    aq_test_init(&t);
    /* The driver posted 191 buffers: the 192nd event has nowhere to go. */
    for (unsigned i = 0; i < AQ_LEN; i++) {
        posted += e810_aq_post_event(&t.c, 0x0607, params, NULL, 0);
    }
    CHECK_EQ(posted, AQ_LEN - 1);
    CHECK_EQ(t.c.aq.events_lost, 1);
    CHECK(aq_rd(&t, PF_FW_ARQLEN) & PF_FW_xQLEN_OVFL);
    aq_test_cleanup(&t);
}

int main(void)
{
    RUN(test_unknown_opcode);
    RUN(test_bad_buffer_length);
    RUN(test_buffer_outside_memory);
    RUN(test_ring_wraps_and_bad_tail);
    RUN(test_event_and_interrupt);
    RUN(test_event_ring_full);
    return CHECK_DONE();
}
