/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Core unit tests: PHY/link firmware commands and Link Status Events. */
#include "aq-util.h"
#include "check.h"

#define FW_VEC      3           /* where the AdminQ cause is routed */
#define PHY_FEC_TEST (E810_PHY_FEC_25G_RS_EN | E810_PHY_FEC_25G_RS_528_REQ)

static AqTest t;
static unsigned base_errors;    /* guest errors of the queue setup itself */

static void setup(void)
{
    aq_test_init(&t);
    base_errors = t.h.guest_errors;
    /* As ice_ena_ctrlq_interrupts + ice_ena_misc_vector do, on vector 3. */
    aq_wr(&t, PFINT_FW_CTL, FW_VEC | E810_CTL_CAUSE_ENA);
    aq_wr(&t, GLINT_DYN_CTL(FW_VEC), GLINT_DYN_CTL_INTENA);
}

/* The driver's interrupt handler re-arms the vector (auto-mask cleared it). */
static void rearm(void)
{
    aq_wr(&t, GLINT_DYN_CTL(FW_VEC), GLINT_DYN_CTL_INTENA | GLINT_DYN_CTL_CLEARPBA);
}

/* Get PHY Caps (0x0600) or Get Link Status (0x0607): @arg (report mode,
 * LSE request) in descriptor word 18, a @len-byte buffer for the answer. */
static int phy_get(uint16_t op, uint16_t len, uint16_t arg, AqMsg *m)
{
    aq_msg_init(m, op, len, false);
    st16(m->desc + 18, arg);
    return aq_send(&t, m);
}

static int get_caps(uint16_t mode, AqMsg *m)
{
    return phy_get(0x0600, E810_PHY_CAPS_LEN, mode, m);
}

static int link_status(uint16_t lse, AqMsg *m)
{
    return phy_get(0x0607, E810_LS_DATA_LEN, lse, m);
}

static int set_phy_cfg(uint64_t phy_low, uint8_t caps, uint8_t fec)
{
    AqMsg m;

    aq_msg_init(&m, 0x0601, 24, true);
    st64(m.buf, phy_low);
    m.buf[16] = caps;
    m.buf[22] = fec;
    return aq_send(&t, &m);
}

static int restart_an(bool enable)
{
    AqMsg m;

    aq_msg_init(&m, 0x0605, 0, false);
    m.desc[18] = (1u << 1) | (enable ? E810_RESTART_AN_LINK_ENABLE : 0);
    return aq_send(&t, &m);
}

static int set_event_mask(uint16_t mask)
{
    AqMsg m;

    aq_msg_init(&m, 0x0613, 0, false);
    st16(m.desc + 24, mask);
    return aq_send(&t, &m);
}

static void test_caps_report_modes(void)
{
    AqMsg m;

    setup();
    /* Topology with media: the SFP28 SR module, pause, auto-FEC, no AN. */
    CHECK_EQ(get_caps(E810_PHY_REPORT_MEDIA, &m), E810_AQ_RC_OK);
    CHECK_EQ(aq_datalen(&m), E810_PHY_CAPS_LEN);
    CHECK_EQ(ld64(m.buf + 0), E810_PHY_25GBASE_SR);
    CHECK_EQ(ld64(m.buf + 8), 0);
    CHECK_EQ(m.buf[16], E810_PHY_CAP_TX_PAUSE | E810_PHY_CAP_RX_PAUSE |
             E810_PHY_CAP_AUTO_FEC);
    CHECK(m.buf[34] & E810_PHY_FEC_25G_RS_EN);
    CHECK(m.buf[34] & E810_PHY_FEC_25G_RS_528_REQ);
    CHECK_EQ(m.buf[35], 0);                 /* lenient module enforcement */
    CHECK_EQ(m.buf[36], 0x02);              /* 25GBASE-SR */
    CHECK_EQ(m.buf[37], 0xA0);
    CHECK_EQ(m.buf[38], 0x10);
    CHECK_EQ(m.buf[39], 0xA0);
    CHECK_EQ(m.buf[40], 0);                 /* no qualified-module list */

    /* Without media: every SFP type of the cage, no module data. */
    CHECK_EQ(get_caps(E810_PHY_REPORT_NO_MEDIA, &m), E810_AQ_RC_OK);
    CHECK(ld64(m.buf) & E810_PHY_25GBASE_SR);
    CHECK(ld64(m.buf) & E810_PHY_25GBASE_CR);
    CHECK(ld64(m.buf) & E810_PHY_10GBASE_SR);
    CHECK_EQ(m.buf[37], 0);

    /* Default config: link enabled, auto-FEC requesting RS. */
    CHECK_EQ(get_caps(E810_PHY_REPORT_DFLT, &m), E810_AQ_RC_OK);
    CHECK_EQ(ld64(m.buf), E810_PHY_25GBASE_SR);
    CHECK_EQ(m.buf[16], E810_PHY_CAP_EN_LINK | E810_PHY_CAP_AUTO_FEC);

    /* Active config at power-on equals the default one. */
    CHECK_EQ(get_caps(E810_PHY_REPORT_ACTIVE, &m), E810_AQ_RC_OK);
    CHECK_EQ(ld64(m.buf), E810_PHY_25GBASE_SR);
    CHECK_EQ(m.buf[16], E810_PHY_CAP_EN_LINK | E810_PHY_CAP_AUTO_FEC);

    /* "Report qualified modules" does not change the answer. */
    CHECK_EQ(get_caps(E810_PHY_REPORT_MEDIA | 1, &m), E810_AQ_RC_OK);
    CHECK_EQ(ld64(m.buf), E810_PHY_25GBASE_SR);

    /* Undefined report modes. */
    CHECK_EQ(get_caps(3 << 1, &m), E810_AQ_RC_EINVAL);
    CHECK_EQ(get_caps(7 << 1, &m), E810_AQ_RC_EINVAL);
    aq_test_cleanup(&t);
}

static void test_caps_bad_requests(void)
{
    AqMsg m;

    setup();
    /* Too small a buffer: ENOMEM with the needed size. */
    CHECK_EQ(phy_get(0x0600, 64, E810_PHY_REPORT_MEDIA, &m),
             E810_AQ_RC_ENOMEM);
    CHECK_EQ(aq_datalen(&m), E810_PHY_CAPS_LEN);
    /* No buffer at all. */
    CHECK_EQ(phy_get(0x0600, 0, 0, &m), E810_AQ_RC_EINVAL);
    /* Get PHY Caps means "my port" whatever its lport (ice leaves it 0
     * on every PF); Get Link Status names the port: not this PF's. */
    aq_msg_init(&m, 0x0600, E810_PHY_CAPS_LEN, false);
    m.desc[16] = 1;
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_OK);
    aq_msg_init(&m, 0x0607, E810_LS_DATA_LEN, false);
    m.desc[16] = 1;
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    CHECK_EQ(t.h.guest_errors - base_errors, 3);
    aq_test_cleanup(&t);
}

static void test_set_phy_cfg_active(void)
{
    AqMsg m;

    setup();
    aq_msg_init(&m, 0x0601, 24, true);
    st64(m.buf, E810_PHY_25GBASE_SR);
    m.buf[16] = E810_PHY_CAP_TX_PAUSE | E810_PHY_CAP_RX_PAUSE |
                E810_PHY_CAP_EN_LINK | E810_PHY_CAP_AUTO_LINK_UPDT;
    m.buf[17] = 0x04;
    st16(m.buf + 18, 0x20);
    st16(m.buf + 20, 0x1234);
    m.buf[22] = E810_PHY_FEC_25G_KR_EN | E810_PHY_FEC_25G_KR_REQ;
    m.buf[23] = 1;
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_OK);

    CHECK_EQ(get_caps(E810_PHY_REPORT_ACTIVE, &m), E810_AQ_RC_OK);
    CHECK_EQ(ld64(m.buf), E810_PHY_25GBASE_SR);
    /* AUTO_LINK_UPDT was an action, not config. */
    CHECK_EQ(m.buf[16], E810_PHY_CAP_TX_PAUSE | E810_PHY_CAP_RX_PAUSE |
             E810_PHY_CAP_EN_LINK);
    CHECK_EQ(m.buf[17], 0x04);
    CHECK_EQ(ld16(m.buf + 18), 0x20);
    CHECK_EQ(ld16(m.buf + 20), 0x1234);
    CHECK_EQ(m.buf[34], E810_PHY_FEC_25G_KR_EN | E810_PHY_FEC_25G_KR_REQ);
    CHECK_EQ(m.buf[35], 1);

    /* The link now runs BASE-R FEC with pause both ways. */
    CHECK_EQ(link_status(0, &m), E810_AQ_RC_OK);
    CHECK(m.buf[2] & E810_LINK_INFO_UP);
    CHECK_EQ(m.buf[8] & 7, E810_LINK_CFG_KR_FEC);
    CHECK(m.buf[3] & E810_AN_INFO_PAUSE_TX);
    CHECK(m.buf[3] & E810_AN_INFO_PAUSE_RX);
    CHECK(m.buf[3] & E810_AN_INFO_FEC_EN);

    /* Reserved caps bit 4 and a short buffer are refused. */
    CHECK_EQ(set_phy_cfg(E810_PHY_25GBASE_SR, 1u << 4, 0), E810_AQ_RC_EINVAL);
    aq_msg_init(&m, 0x0601, 16, true);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_test_cleanup(&t);
}

static void test_link_status_lse(void)
{
    AqMsg m;

    setup();
    /* Probe order: LSE disable first (ice_init_hw), then enable. */
    CHECK_EQ(link_status(E810_LSE_DIS, &m), E810_AQ_RC_OK);
    CHECK_EQ(ld16(m.desc + 18) & E810_LSE_IS_ENABLED, 0);
    CHECK_EQ(aq_datalen(&m), E810_LS_DATA_LEN);
    CHECK_EQ(m.buf[0], 0);                  /* no topology conflict */
    CHECK_EQ(m.buf[1], 0);                  /* no config error */
    CHECK_EQ(m.buf[2] & (E810_LINK_INFO_UP | E810_LINK_INFO_MEDIA),
             E810_LINK_INFO_UP | E810_LINK_INFO_MEDIA);
    CHECK_EQ(ld16(m.buf + 6), E810_MAC_FRAME_MAX);
    CHECK_EQ(ld16(m.buf + 10), E810_LINK_SPEED_25G);
    CHECK_EQ(m.buf[8] & 7, E810_LINK_CFG_RS_528_FEC);
    CHECK_EQ(ld64(m.buf + 16), E810_PHY_25GBASE_SR);
    CHECK_EQ(ld64(m.buf + 24), 0);

    CHECK_EQ(link_status(E810_LSE_ENA, &m), E810_AQ_RC_OK);
    CHECK_EQ(ld16(m.desc + 18) & E810_LSE_IS_ENABLED, 1);
    CHECK(t.c.fw.phy.lse_ena);
    /* No-op request reports the current registration. */
    CHECK_EQ(link_status(0, &m), E810_AQ_RC_OK);
    CHECK_EQ(ld16(m.desc + 18) & E810_LSE_IS_ENABLED, 1);
    CHECK_EQ(link_status(E810_LSE_DIS, &m), E810_AQ_RC_OK);
    CHECK_EQ(ld16(m.desc + 18) & E810_LSE_IS_ENABLED, 0);
    /* Queries post no events. */
    CHECK(!aq_event(&t, &m));
    CHECK_EQ(fake_irq_count(&t.h, FW_VEC), 0);
    aq_test_cleanup(&t);
}

static void test_link_status_bad_lengths(void)
{
    AqMsg m;

    setup();
    /* The 56-byte layout is E830's. */
    CHECK_EQ(phy_get(0x0607, 56, E810_LSE_ENA, &m), E810_AQ_RC_EINVAL);
    /* A tiny buffer: ENOMEM and the size needed, no LSE side effect. */
    CHECK_EQ(phy_get(0x0607, 8, E810_LSE_ENA, &m), E810_AQ_RC_ENOMEM);
    CHECK_EQ(aq_datalen(&m), E810_LS_DATA_LEN);
    CHECK(!t.c.fw.phy.lse_ena);
    /* No buffer. */
    CHECK_EQ(phy_get(0x0607, 0, 0, &m), E810_AQ_RC_EINVAL);
    CHECK_EQ(t.h.guest_errors - base_errors, 3);
    aq_test_cleanup(&t);
}

static void test_link_events_from_host(void)
{
    AqMsg m;

    setup();
    CHECK_EQ(set_event_mask((uint16_t)~(E810_LINK_EVENT_UPDOWN | (1u << 2) |
                                        (1u << 8) | (1u << 12))), E810_AQ_RC_OK);
    CHECK_EQ(link_status(E810_LSE_ENA, &m), E810_AQ_RC_OK);

    /* Carrier lost: one event, one interrupt on the routed vector. */
    e810_set_link(&t.c, false);
    CHECK_EQ(fake_irq_count(&t.h, FW_VEC), 1);
    CHECK_EQ(fake_irq_count(&t.h, 0), 0);
    CHECK(aq_event(&t, &m));
    CHECK_EQ(ld16(m.desc + 2), 0x0607);
    CHECK_EQ(aq_datalen(&m), E810_LS_DATA_LEN);
    CHECK(!(aq_flags(&m) & E810_AQ_FLAG_ERR));
    CHECK_EQ(ld16(m.desc + 18) & E810_LSE_IS_ENABLED, 1);
    CHECK_EQ(m.buf[2] & E810_LINK_INFO_UP, 0);
    CHECK(m.buf[2] & E810_LINK_INFO_MEDIA);
    CHECK_EQ(ld16(m.buf + 10), 0);
    CHECK(!aq_event(&t, &m));
    /* The same state again is no change. */
    e810_set_link(&t.c, false);
    CHECK(!aq_event(&t, &m));

    /* Get Link Status agrees while down. */
    CHECK_EQ(link_status(E810_LSE_ENA, &m), E810_AQ_RC_OK);
    CHECK_EQ(m.buf[2] & E810_LINK_INFO_UP, 0);

    /* Carrier back: an up event at 25G. */
    rearm();
    e810_set_link(&t.c, true);
    CHECK_EQ(fake_irq_count(&t.h, FW_VEC), 2);
    CHECK(aq_event(&t, &m));
    CHECK_EQ(ld16(m.desc + 2), 0x0607);
    CHECK(m.buf[2] & E810_LINK_INFO_UP);
    CHECK_EQ(ld16(m.buf + 10), E810_LINK_SPEED_25G);
    CHECK_EQ(ld16(m.buf + 6), E810_MAC_FRAME_MAX);
    CHECK(!aq_event(&t, &m));
    CHECK_EQ(t.c.fw.phy.lse_posted, 2);
    aq_test_cleanup(&t);
}

static void test_no_event_lse_off_or_masked(void)
{
    AqMsg m;

    setup();
    /* LSE never enabled. */
    e810_set_link(&t.c, false);
    CHECK(!aq_event(&t, &m));
    CHECK_EQ(fake_irq_count(&t.h, FW_VEC), 0);
    CHECK_EQ(link_status(E810_LSE_ENA, &m), E810_AQ_RC_OK);
    CHECK_EQ(m.buf[2] & E810_LINK_INFO_UP, 0);

    /* Enabled but UPDOWN suppressed. */
    CHECK_EQ(set_event_mask(E810_LINK_EVENT_UPDOWN), E810_AQ_RC_OK);
    e810_set_link(&t.c, true);
    CHECK(!aq_event(&t, &m));
    CHECK_EQ(fake_irq_count(&t.h, FW_VEC), 0);
    CHECK_EQ(link_status(0, &m), E810_AQ_RC_OK);
    CHECK(m.buf[2] & E810_LINK_INFO_UP);

    /* Disabled again after unmasking. */
    CHECK_EQ(set_event_mask(0), E810_AQ_RC_OK);
    CHECK_EQ(link_status(E810_LSE_DIS, &m), E810_AQ_RC_OK);
    e810_set_link(&t.c, false);
    CHECK(!aq_event(&t, &m));
    CHECK_EQ(t.c.fw.phy.lse_posted, 0);
    CHECK_EQ(t.c.fw.phy.lse_suppressed, 3);
    aq_test_cleanup(&t);
}

static void test_link_enable_by_driver(void)
{
    AqMsg m;

    setup();
    CHECK_EQ(link_status(E810_LSE_ENA, &m), E810_AQ_RC_OK);

    /* Set PHY Config without EN_LINK, applied at once: down event. */
    CHECK_EQ(set_phy_cfg(E810_PHY_25GBASE_SR, E810_PHY_CAP_AUTO_LINK_UPDT,
                         PHY_FEC_TEST), E810_AQ_RC_OK);
    CHECK(aq_event(&t, &m));
    CHECK_EQ(m.buf[2] & E810_LINK_INFO_UP, 0);
    CHECK_EQ(get_caps(E810_PHY_REPORT_ACTIVE, &m), E810_AQ_RC_OK);
    CHECK_EQ(m.buf[16] & E810_PHY_CAP_EN_LINK, 0);

    /* Restart AN with link enable: up event, ACTIVE_CFG shows EN_LINK. */
    rearm();
    CHECK_EQ(restart_an(true), E810_AQ_RC_OK);
    CHECK(aq_event(&t, &m));
    CHECK(m.buf[2] & E810_LINK_INFO_UP);
    CHECK_EQ(get_caps(E810_PHY_REPORT_ACTIVE, &m), E810_AQ_RC_OK);
    CHECK(m.buf[16] & E810_PHY_CAP_EN_LINK);

    /* Without AUTO_LINK_UPDT the config waits for Restart AN. */
    CHECK_EQ(set_phy_cfg(E810_PHY_25GBASE_SR, 0, 0), E810_AQ_RC_OK);
    CHECK(!aq_event(&t, &m));
    rearm();
    CHECK_EQ(restart_an(false), E810_AQ_RC_OK);
    CHECK(aq_event(&t, &m));
    CHECK_EQ(m.buf[2] & E810_LINK_INFO_UP, 0);

    /* A PHY type the module cannot do keeps the link down. */
    rearm();
    CHECK_EQ(set_phy_cfg(E810_PHY_10GBASE_SR, E810_PHY_CAP_EN_LINK |
                         E810_PHY_CAP_AUTO_LINK_UPDT, 0), E810_AQ_RC_OK);
    CHECK(!aq_event(&t, &m));
    CHECK_EQ(set_phy_cfg(E810_PHY_25GBASE_SR, E810_PHY_CAP_EN_LINK |
                         E810_PHY_CAP_AUTO_LINK_UPDT, 0), E810_AQ_RC_OK);
    CHECK(aq_event(&t, &m));
    CHECK(m.buf[2] & E810_LINK_INFO_UP);
    CHECK_EQ(m.buf[8] & 7, 0);              /* no FEC requested or auto */
    CHECK(!(m.buf[3] & E810_AN_INFO_FEC_EN));

    /* Bad port. */
    aq_msg_init(&m, 0x0605, 0, false);
    m.desc[16] = 2;
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_test_cleanup(&t);
}

static void test_set_mac_cfg(void)
{
    AqMsg m;

    setup();
    aq_msg_init(&m, 0x0603, 0, false);
    st16(m.desc + 16, E810_MAC_FRAME_MAX + 1);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_msg_init(&m, 0x0603, 0, false);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);       /* size 0 */
    CHECK_EQ(t.h.guest_errors - base_errors, 2);

    aq_msg_init(&m, 0x0603, 0, false);
    st16(m.desc + 16, 1522);
    m.desc[18] = 0x3 << 3;                              /* pacing */
    st16(m.desc + 20, 0xFFFF);
    st16(m.desc + 22, 0x7FFF);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_OK);
    CHECK_EQ(link_status(0, &m), E810_AQ_RC_OK);
    CHECK_EQ(ld16(m.buf + 6), 1522);
    CHECK_EQ(m.buf[8] & E810_LINK_CFG_PACING_M, 0x3 << 3);
    CHECK_EQ(t.c.fw.phy.tx_tmr_value, 0xFFFF);
    CHECK_EQ(t.c.fw.phy.fc_refresh_threshold, 0x7FFF);

    aq_msg_init(&m, 0x0603, 0, false);
    st16(m.desc + 16, E810_MAC_FRAME_MAX);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_OK);
    aq_test_cleanup(&t);
}

static void test_pf_reset(void)
{
    AqMsg m;

    setup();
    CHECK_EQ(set_phy_cfg(E810_PHY_25GBASE_SR, E810_PHY_CAP_EN_LINK |
                         E810_PHY_CAP_RX_PAUSE | E810_PHY_CAP_AUTO_LINK_UPDT,
                         PHY_FEC_TEST), E810_AQ_RC_OK);
    CHECK_EQ(set_event_mask(0x00F0), E810_AQ_RC_OK);
    CHECK_EQ(link_status(E810_LSE_ENA, &m), E810_AQ_RC_OK);
    aq_msg_init(&m, 0x0620, 0, false);
    m.desc[16] = 1;
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_OK);
    CHECK(t.c.fw.phy.mac_loopback);

    aq_wr(&t, PFGEN_CTRL, PFGEN_CTRL_PFSWR);
    /* The PHY keeps its config and link; the driver's registrations go. */
    CHECK(!t.c.fw.phy.lse_ena);
    CHECK(!t.c.fw.phy.mac_loopback);
    CHECK(t.c.fw.phy.up);
    CHECK_EQ(t.c.fw.phy.event_mask, 0x00F0);
    CHECK_EQ(t.c.fw.phy.active.caps, E810_PHY_CAP_EN_LINK | E810_PHY_CAP_RX_PAUSE);
    /* The AQ is down after the reset: no event may be attempted. */
    e810_set_link(&t.c, false);
    CHECK_EQ(t.c.aq.events_lost, 0);
    CHECK_EQ(t.c.fw.phy.lse_posted, 0);
    aq_test_cleanup(&t);
}

static void test_misc_opcodes(void)
{
    AqMsg m;

    setup();
    aq_msg_init(&m, 0x0620, 0, false);                  /* MAC loopback off */
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_OK);
    aq_msg_init(&m, 0x06E0, 0, false);                  /* netlist: empty */
    m.desc[16] = 6 | (2 << 4);                          /* cage, port ctx */
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_ENOENT);
    aq_msg_init(&m, 0x06E9, 0, false);                  /* identify LED */
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_OK);
    aq_msg_init(&m, 0x06EA, 16 * 2, false);             /* port options */
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_ESRCH);
    aq_msg_init(&m, 0x0A08, 50, true);                  /* LLDP local MIB */
    st16(m.desc + 18, 50);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_OK);
    aq_msg_init(&m, 0x0A08, 50, true);
    st16(m.desc + 18, 60);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    /* None of the accepted ones is "unknown". */
    CHECK_EQ(t.h.guest_errors - base_errors, 1);
    aq_test_cleanup(&t);
}

static int sff_read(uint8_t bus7, uint16_t mem, uint16_t len, AqMsg *m)
{
    aq_msg_init(m, 0x06EE, len, true);
    st16(m->desc + 18, bus7);
    st16(m->desc + 20, mem);
    return aq_send(&t, m);
}

static void test_sff_eeprom(void)
{
    AqMsg m;
    unsigned sum = 0;
    uint8_t page[96];

    setup();
    /* ethtool -m: identifier, then 8-byte blocks. */
    CHECK_EQ(sff_read(0x50, 0, 1, &m), E810_AQ_RC_OK);
    CHECK_EQ(m.buf[0], 0x03);
    for (unsigned off = 0; off < sizeof(page); off += 8) {
        CHECK_EQ(sff_read(0x50, off, 8, &m), E810_AQ_RC_OK);
        memcpy(page + off, m.buf, 8);
    }
    CHECK_EQ(page[36], 0x02);               /* 25GBASE-SR */
    CHECK_EQ(page[92], 0);                  /* no diagnostics: SFF-8079 dump */
    for (unsigned i = 0; i < 63; i++) {
        sum += page[i];
    }
    CHECK_EQ(page[63], sum & 0xFF);
    /* No A2h page, no writes, no reads past the page or over 16 bytes. */
    CHECK_EQ(sff_read(0x51, 0, 8, &m), E810_AQ_RC_EIO);
    aq_msg_init(&m, 0x06EE, 1, true);
    st16(m.desc + 18, 0x50 | (1u << 15));
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EACCES);
    CHECK_EQ(sff_read(0x50, 250, 8, &m), E810_AQ_RC_EINVAL);
    CHECK_EQ(sff_read(0x50, 0, 17, &m), E810_AQ_RC_EINVAL);
    aq_test_cleanup(&t);
}

/* The probe + open sequence of ice (API >= 1.7.3 and older): no link flap,
 * no event, link up and ACTIVE_CFG matching the driver's cached config. */
static void test_ice_probe_open_sequence(void)
{
    AqMsg m, caps;
    uint8_t cfg_caps;

    setup();
    CHECK_EQ(get_caps(E810_PHY_REPORT_MEDIA, &m), E810_AQ_RC_OK);
    CHECK_EQ(link_status(E810_LSE_DIS, &m), E810_AQ_RC_OK);
    CHECK_EQ(set_event_mask((uint16_t)~(E810_LINK_EVENT_UPDOWN | (1u << 2) |
                                        (1u << 8) | (1u << 12))), E810_AQ_RC_OK);
    CHECK_EQ(link_status(E810_LSE_ENA, &m), E810_AQ_RC_OK);
    CHECK_EQ(get_caps(E810_PHY_REPORT_NO_MEDIA, &m), E810_AQ_RC_OK);
    CHECK_EQ(link_status(E810_LSE_ENA, &m), E810_AQ_RC_OK);
    CHECK(m.buf[2] & E810_LINK_INFO_MEDIA);
    CHECK_EQ(get_caps(E810_PHY_REPORT_MEDIA, &m), E810_AQ_RC_OK);
    /* ice_init_phy_user_cfg copies DFLT_CFG; ice_phy_cfg compares it with
     * ACTIVE_CFG under the masks of ice_phy_caps_equals_cfg. */
    CHECK_EQ(get_caps(E810_PHY_REPORT_DFLT, &m), E810_AQ_RC_OK);
    CHECK_EQ(get_caps(E810_PHY_REPORT_ACTIVE, &caps), E810_AQ_RC_OK);
    CHECK(caps.buf[16] & E810_PHY_CAP_EN_LINK);
    CHECK_EQ(ld64(caps.buf), ld64(m.buf));
    CHECK_EQ(caps.buf[16] & 0xCF, m.buf[16] & 0xCF);
    CHECK_EQ(caps.buf[34], m.buf[34]);

    /* Older API: the config comes from TOPO_CAP_MEDIA; ice then sends a
     * Set PHY Config (pause on, EN_LINK, AUTO_LINK_UPDT). */
    CHECK_EQ(get_caps(E810_PHY_REPORT_MEDIA, &m), E810_AQ_RC_OK);
    cfg_caps = m.buf[16] | E810_PHY_CAP_EN_LINK | E810_PHY_CAP_AUTO_LINK_UPDT;
    CHECK_EQ(set_phy_cfg(ld64(m.buf), cfg_caps, m.buf[34]), E810_AQ_RC_OK);
    CHECK_EQ(get_caps(E810_PHY_REPORT_ACTIVE, &caps), E810_AQ_RC_OK);
    CHECK_EQ(caps.buf[16] & 0xCF, cfg_caps & 0xCF);

    /* Link up all along: nothing on the ARQ. */
    CHECK(!aq_event(&t, &m));
    CHECK_EQ(link_status(E810_LSE_ENA, &m), E810_AQ_RC_OK);
    CHECK(m.buf[2] & E810_LINK_INFO_UP);
    CHECK_EQ(ld16(m.buf + 10), E810_LINK_SPEED_25G);
    /* Link-up path: Set Local MIB. */
    aq_msg_init(&m, 0x0A08, 40, true);
    st16(m.desc + 18, 40);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_OK);
    CHECK_EQ(t.h.guest_errors - base_errors, 0);
    aq_test_cleanup(&t);
}

int main(void)
{
    RUN(test_caps_report_modes);
    RUN(test_caps_bad_requests);
    RUN(test_set_phy_cfg_active);
    RUN(test_link_status_lse);
    RUN(test_link_status_bad_lengths);
    RUN(test_link_events_from_host);
    RUN(test_no_event_lse_off_or_masked);
    RUN(test_link_enable_by_driver);
    RUN(test_set_mac_cfg);
    RUN(test_pf_reset);
    RUN(test_misc_opcodes);
    RUN(test_sff_eeprom);
    RUN(test_ice_probe_open_sequence);
    return CHECK_DONE();
}
