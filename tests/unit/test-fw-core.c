/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Core unit tests: firmware core, NVM and DDP commands, driven through the
 * admin queue in the order and shape the ice driver uses.
 */
#include "aq-util.h"
#include "check.h"
#include <stddef.h>

#include <stdio.h>

static AqTest t;
static unsigned base_errors;    /* guest errors the AQ bring-up itself logs */

static const uint8_t test_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

/* ---- helpers ------------------------------------------------------------ */

static void setup(void)
{
    aq_test_init(&t);
    base_errors = t.h.guest_errors;
}

static unsigned new_errors(void)
{
    return t.h.guest_errors - base_errors;
}

/* Request Resource (0x0008) on function @x: the retval; the timeout and
 * the global lock's status that came back. */
static int req_res_on(AqTest *x, unsigned id, unsigned access,
                      uint32_t timeout, uint32_t *granted, uint16_t *status)
{
    AqMsg m;
    int rc;

    aq_msg_init(&m, 0x0008, 0, false);
    st16(m.desc + 16, id);
    st16(m.desc + 18, access);
    st32(m.desc + 20, timeout);
    rc = aq_send(x, &m);
    if (granted) {
        *granted = ld32(m.desc + 20);
    }
    if (status) {
        *status = ld16(m.desc + 28);
    }
    return rc;
}

static int req_res(unsigned id, unsigned access, uint32_t timeout,
                   uint32_t *granted, uint16_t *status)
{
    return req_res_on(&t, id, access, timeout, granted, status);
}

static int rel_res_on(AqTest *x, unsigned id)
{
    AqMsg m;

    aq_msg_init(&m, 0x0009, 0, false);
    st16(m.desc + 16, id);
    return aq_send(x, &m);
}

static int rel_res(unsigned id)
{
    return rel_res_on(&t, id);
}

/* One raw NVM Read (0x0701). */
static int nvm_read(uint32_t off, uint16_t len, bool flash, uint8_t *out)
{
    AqMsg m;
    int rc;

    aq_msg_init(&m, 0x0701, len, false);
    st16(m.desc + 16, off & 0xFFFF);
    m.desc[18] = off >> 16;
    m.desc[19] = (flash ? 0x80 : 0) | 0x01;
    st16(m.desc + 22, len);
    rc = aq_send(&t, &m);
    if (rc == 0 && out) {
        CHECK_EQ(aq_datalen(&m), len);
        memcpy(out, m.buf, len);
    }
    return rc;
}

/* Like ice_read_flat_nvm: NVM lock around each read of at most 4 KiB. */
static int flat_read(uint32_t off, uint32_t len, bool flash, uint8_t *out)
{
    while (len) {
        uint32_t chunk = 4096 - off % 4096;
        int rc;

        chunk = chunk < len ? chunk : len;
        CHECK_EQ(req_res(1, 1, 180000, NULL, NULL), 0);
        rc = nvm_read(off, chunk, flash, out);
        CHECK_EQ(rel_res(1), 0);
        if (rc) {
            return rc;
        }
        off += chunk;
        out += chunk;
        len -= chunk;
    }
    return 0;
}

static uint16_t sr_word(unsigned w)
{
    uint8_t b[2] = { 0xAA, 0xAA };

    CHECK_EQ(flat_read(w * 2, 2, false, b), 0);
    return ld16(b);
}

static uint16_t flash_word(uint32_t byte_off)
{
    uint8_t b[2] = { 0xAA, 0xAA };

    CHECK_EQ(flat_read(byte_off, 2, true, b), 0);
    return ld16(b);
}

/* SR pointer word -> byte offset (bit 15: 4 KiB units, else words). */
static uint32_t sr_ptr(unsigned w)
{
    uint16_t v = sr_word(w);

    return v & 0x8000 ? (uint32_t)(v & 0x7FFF) * 4096 : v * 2u;
}

/* Restart the admin queue after a reset cleared its registers. */
static void aq_restart(void)
{
    aq_wr(&t, PF_FW_ATQH, 0);
    aq_wr(&t, PF_FW_ATQT, 0);
    aq_wr(&t, PF_FW_ATQLEN, AQ_LEN | PF_FW_xQLEN_ENABLE);
    aq_wr(&t, PF_FW_ATQBAL, (uint32_t)ATQ_RING);
    aq_wr(&t, PF_FW_ATQBAH, ATQ_RING >> 32);
    t.atq_ntu = 0;
}

/* ---- core --------------------------------------------------------------- */

static void test_get_version(void)
{
    AqMsg m;

    setup();
    aq_msg_init(&m, 0x0001, 0, false);
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(m.desc[25], 4);        /* fw 4.40.0 */
    CHECK_EQ(m.desc[26], 40);
    CHECK_EQ(m.desc[27], 0);
    CHECK_EQ(m.desc[29], 1);        /* API 1.5.0: EXP_FW_API_VER_*_E810 */
    CHECK_EQ(m.desc[30], 5);
    CHECK_EQ(m.desc[31], 0);
    CHECK(!(aq_flags(&m) & E810_AQ_FLAG_ERR));
    aq_test_cleanup(&t);
}

static void test_driver_version_shutdown_pxe(void)
{
    AqMsg m;
    static const char name[] = "ice";

    setup();
    aq_msg_init(&m, 0x0002, sizeof(name) - 1, true);
    m.desc[16] = 7;
    m.desc[17] = 3;
    memcpy(m.buf, name, sizeof(name) - 1);
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(t.c.fw.core.driver_ver[0], 7);
    CHECK_EQ(t.c.fw.core.driver_ver[1], 3);

    aq_msg_init(&m, 0x0110, 0, false);
    m.desc[16] = 2;
    CHECK_EQ(aq_send(&t, &m), 0);

    aq_msg_init(&m, 0x0003, 0, false);
    m.desc[16] = 1;
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK(t.c.fw.core.driver_unloading);
    CHECK_EQ(new_errors(), 0);
    aq_test_cleanup(&t);
}

typedef struct Caps {
    unsigned count;
    uint32_t valid_funcs, vsi, rxq, rxq_first, txq, msix, msix_first;
    uint32_t rss_size, rss_width, mtu, rdma, fd, tx_topo, dcb, dcb_maxtc;
    unsigned unknown;
} Caps;

/* Parse a capability list the way ice_parse_common_caps reads it. */
static void parse_caps(const AqMsg *m, Caps *caps)
{
    memset(caps, 0, sizeof(*caps));
    caps->count = ld32(m->desc + 20);
    for (unsigned i = 0; i < caps->count && i < 128; i++) {
        const uint8_t *e = m->buf + 32 * i;
        uint32_t number = ld32(e + 4), logical = ld32(e + 8), phys = ld32(e + 12);

        /* Capability id -> where its number (and its logical id or
         * physical id, for the few that have one) goes. */
        static const struct {
            uint16_t id;
            size_t number, second;      /* offsetof in Caps; 0: none */
            bool phys;
        } map[] = {
            { 0x0005, offsetof(Caps, valid_funcs), 0, false },
            { 0x0017, offsetof(Caps, vsi), 0, false },
            { 0x0040, offsetof(Caps, rss_size), offsetof(Caps, rss_width), false },
            { 0x0041, offsetof(Caps, rxq), offsetof(Caps, rxq_first), true },
            { 0x0042, offsetof(Caps, txq), 0, false },
            { 0x0043, offsetof(Caps, msix), offsetof(Caps, msix_first), true },
            { 0x0045, offsetof(Caps, fd), 0, false },
            { 0x0047, offsetof(Caps, mtu), 0, false },
            { 0x0051, offsetof(Caps, rdma), 0, false },
            { 0x0085, offsetof(Caps, tx_topo), 0, false },
            { 0x0018, offsetof(Caps, dcb), offsetof(Caps, dcb_maxtc), true },
        };
        unsigned k;

        for (k = 0; k < sizeof(map) / sizeof(map[0]); k++) {
            if (map[k].id == ld16(e)) {
                break;
            }
        }
        if (k == sizeof(map) / sizeof(map[0])) {
            caps->unknown++;
            continue;
        }
        *(uint32_t *)((char *)caps + map[k].number) = number;
        if (map[k].second) {
            *(uint32_t *)((char *)caps + map[k].second) =
                map[k].phys ? phys : logical;
        }
    }
}

static void test_capabilities(void)
{
    static const uint16_t ops[] = { 0x000B, 0x000A };    /* dev, then func */
    AqMsg m;
    Caps caps;

    setup();
    for (unsigned i = 0; i < 2; i++) {
        aq_msg_init(&m, ops[i], 4096, false);
        st32(m.desc + 20, 4096 / 32);
        CHECK_EQ(aq_send(&t, &m), 0);
        parse_caps(&m, &caps);
        CHECK_EQ(aq_datalen(&m), caps.count * 32);
        CHECK_EQ(caps.count, 11);
        CHECK_EQ(caps.unknown, 0);
        CHECK_EQ(caps.valid_funcs, 0x1);
        CHECK_EQ(caps.vsi, 768);
        CHECK_EQ(caps.rxq, 64);
        CHECK_EQ(caps.rxq_first, 0);
        CHECK_EQ(caps.txq, 64);
        CHECK_EQ(caps.msix, 64);
        CHECK_EQ(caps.msix_first, 0);
        CHECK_EQ(caps.rss_size, 2048);
        CHECK_EQ(caps.rss_width, 6);
        CHECK_EQ(caps.mtu, 9728);
        CHECK_EQ(caps.rdma, 1);
        CHECK_EQ(caps.fd, 16384);
        /* ice_cfg_tx_topo() asks 0x0418 only with this (== 1). */
        CHECK_EQ(caps.tx_topo, 1);
        /* DCB: ice_init_dcb() runs only with number 1; 8 TCs at most. */
        CHECK_EQ(caps.dcb, 1);
        CHECK_EQ(caps.dcb_maxtc, 8);
    }
    aq_test_cleanup(&t);
}

static void test_capabilities_small_buffer(void)
{
    AqMsg m;

    setup();
    /* Room for two elements: firmware reports how many and how much. */
    aq_msg_init(&m, 0x000B, 64, false);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_ENOMEM);
    CHECK(aq_flags(&m) & E810_AQ_FLAG_ERR);
    CHECK_EQ(ld32(m.desc + 20), 11);
    CHECK_EQ(aq_datalen(&m), 11 * 32);
    /* Without any buffer it is a malformed command. */
    aq_msg_init(&m, 0x000A, 0, false);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_test_cleanup(&t);
}

static void test_resource_locks(void)
{
    uint32_t granted;
    uint16_t status;

    setup();
    /* ice_acquire_nvm asks 180 s; firmware caps a read hold at 3 s. */
    CHECK_EQ(req_res(1, 1, 180000, &granted, &status), 0);
    CHECK_EQ(granted, 3000);
    CHECK_EQ(status, 0);
    CHECK(e810_fw_res_held(&t.c, 1));
    CHECK_EQ(req_res(1, 1, 180000, &granted, NULL), 0);    /* own lock again */
    CHECK_EQ(rel_res(1), 0);
    CHECK(!e810_fw_res_held(&t.c, 1));
    CHECK_EQ(rel_res(1), 0);                /* release never fails */
    CHECK_EQ(req_res(1, 2, 0, &granted, NULL), 0);
    CHECK_EQ(granted, 180000);              /* write hold, default */
    CHECK_EQ(rel_res(1), 0);
    /* Change lock, as ice_update_pkg takes it. */
    CHECK_EQ(req_res(3, 2, 1000, &granted, NULL), 0);
    CHECK_EQ(granted, 1000);
    CHECK_EQ(rel_res(3), 0);
    CHECK_EQ(new_errors(), 0);
    /* Unknown resources and access types are refused. */
    CHECK_EQ(req_res(9, 1, 0, NULL, NULL), E810_AQ_RC_EINVAL);
    CHECK_EQ(req_res(1, 3, 0, NULL, NULL), E810_AQ_RC_EINVAL);
    CHECK_EQ(rel_res(0), E810_AQ_RC_EINVAL);
    CHECK_EQ(new_errors(), 3);
    /* A PF reset drops ownership. */
    CHECK_EQ(req_res(1, 1, 0, NULL, NULL), 0);
    aq_wr(&t, PFGEN_CTRL, PFGEN_CTRL_PFSWR);
    CHECK(!e810_fw_res_held(&t.c, 1));
    aq_test_cleanup(&t);
}

static void test_manage_mac(void)
{
    AqMsg m;

    setup();
    /* ice passes room for two entries (LAN and WoL). */
    aq_msg_init(&m, 0x0107, 16, false);
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK(ld16(m.desc + 16) & 0x0010);      /* LAN_ADDR_VALID */
    CHECK_EQ(m.desc[20], 1);
    CHECK_EQ(aq_datalen(&m), 8);
    CHECK_EQ(m.buf[1], 0);                  /* LAN address */
    CHECK(!memcmp(m.buf + 2, test_mac, 6));
    /* Too small for one entry. */
    aq_msg_init(&m, 0x0107, 4, false);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_ENOMEM);
    /* Write (WoL LAA at shutdown) is accepted. */
    aq_msg_init(&m, 0x0108, 0, false);
    m.desc[17] = 0x40;
    memcpy(m.desc + 18, test_mac, 6);
    CHECK_EQ(aq_send(&t, &m), 0);
    aq_test_cleanup(&t);
}

/* FW logging as libie drives it (libie/fwlog.c): the query at probe, the
 * settings and registration from debugfs, both undone at remove. */
static void fw_log_query(AqMsg *m)
{
    aq_msg_init(m, 0xFF32, 4096, false);
    m->desc[16] = 0x04;                     /* AQ_QUERY */
    CHECK_EQ(aq_send(&t, m), 0);
    CHECK_EQ(ld16(m->desc + 22), 32);       /* mdl_cnt */
    CHECK_EQ(aq_datalen(m), 128);
}

static void test_fw_log(void)
{
    AqMsg m;

    setup();
    fw_log_query(&m);
    CHECK_EQ(m.desc[16], 0);                /* nothing on, not registered */
    CHECK_EQ(ld16(m.desc + 20), 10);        /* resolution */
    for (unsigned i = 0; i < 32; i++) {
        CHECK_EQ(ld16(m.buf + 4 * i), i);
        CHECK_EQ(m.buf[4 * i + 2], 0);
    }
    /* Module 5 verbose, module 31 warnings, to the AQ, resolution 20. */
    aq_msg_init(&m, 0xFF30, 8, true);
    m.desc[16] = 0x08 | 0x02;
    st16(m.desc + 20, 20);
    st16(m.desc + 22, 2);
    st16(m.buf, 5);
    m.buf[2] = 4;
    st16(m.buf + 4, 31);
    m.buf[6] = 1;
    CHECK_EQ(aq_send(&t, &m), 0);
    aq_msg_init(&m, 0xFF31, 0, false);
    m.desc[16] = 0x01;                      /* register */
    CHECK_EQ(aq_send(&t, &m), 0);
    fw_log_query(&m);
    CHECK_EQ(m.desc[16], 0x02 | 0x04);
    CHECK_EQ(ld16(m.desc + 20), 20);
    CHECK_EQ(m.buf[4 * 5 + 2], 4);
    CHECK_EQ(m.buf[4 * 31 + 2], 1);
    /* Refused whole: a module past 31, a level past 4, a resolution of 0
     * or 129, more entries than the buffer holds. */
    for (unsigned k = 0; k < 5; k++) {
        aq_msg_init(&m, 0xFF30, 8, true);
        m.desc[16] = 0x08;
        st16(m.desc + 20, k == 2 ? 0 : k == 3 ? 129 : 1);
        st16(m.desc + 22, k == 4 ? 3 : 2);
        st16(m.buf, 7);
        m.buf[2] = 2;
        st16(m.buf + 4, k == 0 ? 32 : 8);
        m.buf[6] = k == 1 ? 5 : 0;
        CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    }
    fw_log_query(&m);
    CHECK_EQ(m.buf[4 * 7 + 2], 0);          /* module 7 untouched */
    /* The firmware's settings outlive a PF reset, not a power-on one. */
    aq_wr(&t, PFGEN_CTRL, PFGEN_CTRL_PFSWR);
    aq_restart();
    fw_log_query(&m);
    CHECK_EQ(m.desc[16], 0x02 | 0x04);
    CHECK_EQ(m.buf[4 * 5 + 2], 4);
    /* Remove: AQ logging off, unregistered; again is fine. */
    aq_msg_init(&m, 0xFF30, 0, true);
    m.desc[16] = 0x00;
    CHECK_EQ(aq_send(&t, &m), 0);
    for (unsigned k = 0; k < 2; k++) {
        aq_msg_init(&m, 0xFF31, 0, false);
        CHECK_EQ(aq_send(&t, &m), 0);
    }
    fw_log_query(&m);
    CHECK_EQ(m.desc[16], 0);
    /* A query without room for the 32 modules; 0xFF33 is no command. */
    aq_msg_init(&m, 0xFF32, 64, false);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_ENOMEM);
    aq_msg_init(&m, 0xFF33, 0, false);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_ESRCH);
    e810_core_reset(&t.c, E810_RESET_POWER_ON);
    aq_restart();
    fw_log_query(&m);
    CHECK_EQ(m.buf[4 * 5 + 2], 0);
    aq_test_cleanup(&t);
}

/*
 * DCB as ice_init_dcb() reads it with the firmware's agent on: DCBX done,
 * no CEE config (ENOENT: IEEE), the local MIB (one TC: ETS 100 % on TC 0,
 * PFC off, willing), no remote MIB; then Query Port ETS for the TC nodes.
 */
static const uint8_t *lldp_tlv(const uint8_t *b, size_t len, unsigned sub)
{
    size_t off = 14;                        /* past the Ethernet header */

    while (off + 2 <= len) {
        unsigned hdr = b[off] << 8 | b[off + 1];
        unsigned type = hdr >> 9, tlen = hdr & 0x1FF;

        if (type == 0) {
            return NULL;
        }
        if (type == 127 && tlen >= 4 && b[off + 2] == 0x00 &&
            b[off + 3] == 0x80 && b[off + 4] == 0xC2 && b[off + 5] == sub) {
            return b + off + 6;
        }
        off += 2 + tlen;
    }
    return NULL;
}

static void test_dcb(void)
{
    const uint8_t *ets, *pfc;
    AqMsg m;

    setup();
    CHECK_EQ(aq_rd(&t, 0x00083020) & 7, 2);         /* PRTDCB_GENS: done */
    aq_msg_init(&m, 0x0A07, 32, false);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_ENOENT);
    aq_msg_init(&m, 0x0A00, 1500, false);
    m.desc[16] = 0;                                 /* local, nearest */
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(ld16(m.desc + 20), 100);               /* local_len */
    CHECK_EQ(aq_datalen(&m), 100);
    CHECK_EQ(m.buf[12] << 8 | m.buf[13], 0x88CC);
    CHECK(!memcmp(m.buf + 6, test_mac, 6));
    ets = lldp_tlv(m.buf, 100, 9);
    CHECK(ets != NULL);
    if (ets) {
        CHECK_EQ(ets[0], 0x80);                     /* willing */
        CHECK_EQ(ld32(ets + 1), 0);                 /* every UP on TC 0 */
        CHECK_EQ(ets[5], 100);
        CHECK_EQ(ets[13], 2);                       /* TC 0: ETS */
    }
    CHECK(lldp_tlv(m.buf, 100, 10) != NULL);        /* ETS recommendation */
    pfc = lldp_tlv(m.buf, 100, 11);
    CHECK(pfc != NULL);
    if (pfc) {
        CHECK_EQ(pfc[0], 0x88);                     /* willing, 8 TCs */
        CHECK_EQ(pfc[1], 0);                        /* none enabled */
    }
    /* No peer, no other bridge; a buffer too small. */
    for (unsigned k = 0; k < 3; k++) {
        aq_msg_init(&m, 0x0A00, k == 2 ? 64 : 1500, false);
        m.desc[16] = k == 0 ? 1 : k == 1 ? 1 << 2 : 0;
        CHECK_EQ(aq_send(&t, &m), k == 2 ? E810_AQ_RC_ENOMEM :
                                           E810_AQ_RC_ENOENT);
    }
    aq_msg_init(&m, 0x0A01, 0, false);
    m.desc[16] = 0x02;
    CHECK_EQ(aq_send(&t, &m), 0);
    /* Query Port ETS on the root: TC 0's node, no other TC. */
    aq_msg_init(&m, 0x040E, 64, false);
    st32(m.desc + 16, t.c.fw.sched.root_teid);
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(m.buf[0], 0x01);
    CHECK_EQ(m.buf[8], 100);
    CHECK_EQ(ld32(m.buf + 32), t.c.fw.sched.tc_teid);
    for (unsigned tc = 1; tc < 8; tc++) {
        CHECK_EQ(ld32(m.buf + 32 + 4 * tc), 0xFFFFFFFFu);
    }
    aq_msg_init(&m, 0x040E, 64, false);
    st32(m.desc + 16, t.c.fw.sched.tc_teid);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_msg_init(&m, 0x040E, 32, false);
    st32(m.desc + 16, t.c.fw.sched.root_teid);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_test_cleanup(&t);
}

/* ---- NVM ---------------------------------------------------------------- */

static void test_nvm_flash_size_discovery(void)
{
    uint32_t lo = 0, hi = 0xFFFFFF + 1;
    uint8_t b[4];

    setup();
    /* The bisection of ice_discover_flash_size: EINVAL means "past the end". */
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        int rc = flat_read(mid, 1, true, b);

        if (rc == E810_AQ_RC_EINVAL) {
            hi = mid;
        } else {
            CHECK_EQ(rc, 0);
            lo = mid;
        }
    }
    CHECK_EQ(hi, E810_FLASH_SIZE);
    /* Straddling the end fails as a whole. */
    CHECK_EQ(nvm_read(E810_FLASH_SIZE - 2, 4, true, b), E810_AQ_RC_EINVAL);
    CHECK_EQ(nvm_read(E810_FLASH_SIZE - 2, 2, true, b), 0);
    /* None of that is a guest error: ice does it on every probe. */
    CHECK_EQ(new_errors(), 0);
    aq_test_cleanup(&t);
}

static void test_nvm_shadow_ram(void)
{
    uint8_t b[8];
    AqMsg m;

    setup();
    CHECK_EQ(sr_word(0x00) & 0xC0, 0x40);   /* control word valid */
    CHECK_EQ(sr_word(0x00) & 0x38, 0);      /* first banks active */
    CHECK_EQ(sr_word(0x42), 0x8001);        /* NVM bank at 4 KiB */
    CHECK_EQ(sr_word(0x43), 1);
    CHECK_EQ(sr_word(0x44), 0x8003);        /* OROM bank */
    CHECK_EQ(sr_word(0x45), 1);
    CHECK_EQ(sr_word(0x46), 0x8005);        /* netlist bank */
    CHECK_EQ(sr_word(0x47), 1);
    CHECK(sr_word(0x19) & 1);               /* no WoL on PF 0 */
    /* SR is 1024 words (GLNVM_GENS.SR_SIZE = 1): beyond is EINVAL. */
    CHECK_EQ(nvm_read(2046, 2, false, b), 0);
    CHECK_EQ(nvm_read(2048, 2, false, b), E810_AQ_RC_EINVAL);
    CHECK_EQ(nvm_read(2046, 4, false, b), E810_AQ_RC_EINVAL);
    /* Flat flash offset 0 holds the SR image; SR reads are separate. */
    CHECK_EQ(flash_word(0), sr_word(0));
    /* Length beyond the buffer, zero length and module reads. */
    aq_msg_init(&m, 0x0701, 2, false);
    st16(m.desc + 22, 8);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_msg_init(&m, 0x0701, 2, false);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_msg_init(&m, 0x0701, 2, false);
    st16(m.desc + 20, 0x13D);
    st16(m.desc + 22, 2);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_ENOENT);
    /* devlink tx_scheduling_layers: module 0x14B, data bit 4 clear = 9. */
    aq_msg_init(&m, 0x0701, 4, false);
    st16(m.desc + 20, 0x14B);
    st16(m.desc + 22, 4);
    m.buf[2] = 0xFF;
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(aq_datalen(&m), 4);
    CHECK_EQ(m.buf[2] & 0x10, 0);
    st16(m.desc + 16, 2);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_msg_init(&m, 0x0701, 0, false);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    aq_test_cleanup(&t);
}

/* What ice_init_nvm and the later PFA/PBA readers take from the image. */
static void test_nvm_versions_like_ice_init_nvm(void)
{
    static uint8_t orom[4096];
    uint32_t nvm, orom_ptr, nl, css_words, sr_copy, combo = 0;
    uint16_t ver, id_blk[0x30], pfa, pfa_len, w;
    bool found = false;
    char pba[32];
    unsigned i;

    setup();
    nvm = sr_ptr(0x42);
    CHECK_EQ(nvm, 0x1000);
    /* CSS header length of both banks, then the SR copy behind it. */
    for (i = 0; i < 2; i++) {
        uint32_t bank = nvm + i * sr_word(0x43) * 4096u;

        css_words = (flash_word(bank + 4) | (uint32_t)flash_word(bank + 6) << 16) * 2 + 8;
        sr_copy = (css_words + 31) / 32 * 32;
        ver = flash_word(bank + (sr_copy + 0x18) * 2);
        CHECK_EQ(ver >> 12, 4);             /* NVM 4.40 */
        CHECK_EQ(ver & 0xFF, 0x40);
        CHECK_EQ(flash_word(bank + (sr_copy + 0x2D) * 2) |
                 (uint32_t)flash_word(bank + (sr_copy + 0x2E) * 2) << 16,
                 E810_NVM_EETRACK);
    }

    /* Option ROM: whole bank in one read, "$CIV" at a 512-byte boundary. */
    orom_ptr = sr_ptr(0x44);
    CHECK_EQ(flat_read(orom_ptr, sr_word(0x45) * 4096u, true, orom), 0);
    for (i = 0; i + 512 <= sizeof(orom); i += 512) {
        uint8_t sum = 0;

        if (memcmp(orom + i, "$CIV", 4)) {
            continue;
        }
        for (unsigned k = 0; k < 74; k++) {
            sum += orom[i + k];
        }
        CHECK_EQ(sum, 0);
        combo = ld32(orom + i + 5);
        found = true;
        break;
    }
    CHECK(found);
    CHECK_EQ(combo >> 24, 1);
    CHECK_EQ((combo >> 8) & 0xFFFF, 3224);

    /* Netlist: module id, length >= ID block, node count, ID block. */
    nl = sr_ptr(0x46);
    CHECK_EQ(flash_word(nl), 0x011B);
    CHECK(flash_word(nl + 4) >= 0x30);
    CHECK_EQ(flash_word(nl + 6) & 0x3FF, 0);
    CHECK_EQ(flat_read(nl + 6 * 2, sizeof(id_blk), true, (uint8_t *)id_blk), 0);
    CHECK_EQ(ld16(&id_blk[2]) | (uint32_t)ld16(&id_blk[3]) << 16, 3);
    CHECK_EQ(ld16(&id_blk[4]) | (uint32_t)ld16(&id_blk[5]) << 16, 30);
    CHECK_EQ((uint32_t)ld16(&id_blk[0x0A + 15]) << 16 | ld16(&id_blk[0x0A + 14]),
             0xE8100001);

    /* PFA walk (ice_get_pfa_module_tlv) to the PBA string. */
    pfa = sr_word(0x40);
    pfa_len = sr_word(pfa);
    CHECK(pfa_len >= 1);
    found = false;
    for (w = pfa + 1; w < pfa + pfa_len - 1; w += 2 + sr_word(w + 1)) {
        if (sr_word(w) == 0x16) {
            uint16_t size = sr_word(w + 2) - 1;

            CHECK(size * 2u + 1 <= sizeof(pba));
            for (i = 0; i < size && i * 2 + 1 < sizeof(pba); i++) {
                uint16_t c = sr_word(w + 3 + i);

                pba[2 * i] = c >> 8;
                pba[2 * i + 1] = c & 0xFF;
            }
            pba[2 * i] = 0;
            found = true;
            break;
        }
    }
    CHECK(found);
    CHECK(!strcmp(pba, "E810-QEMU0"));
    /* The link default override TLV is absent. */
    for (w = pfa + 1; w < pfa + pfa_len - 1; w += 2 + sr_word(w + 1)) {
        CHECK(sr_word(w) != 0x134);
    }
    aq_test_cleanup(&t);
}

static void test_nvm_checksum(void)
{
    AqMsg m;

    setup();
    aq_msg_init(&m, 0x0706, 0, false);
    m.desc[16] = 0x01;
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(ld16(m.desc + 18), 0xBABA);
    aq_msg_init(&m, 0x0706, 0, false);
    m.desc[16] = 0x02;
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EPERM);
    aq_test_cleanup(&t);
}

/* ---- DDP ---------------------------------------------------------------- */

/* A package buffer with @nsect sections of type @type (first gets @meta). */
static void make_pkg_buf(uint8_t *b, uint32_t type, bool meta, bool last_big)
{
    unsigned nsect = meta ? 2 : 1;
    unsigned data = 4 + 8 * nsect;

    memset(b, 0, 4096);
    st16(b, nsect);
    st32(b + 4, type);
    st16(b + 8, data);
    st16(b + 10, 100);
    data += 100;
    if (meta) {
        uint8_t *s = b + data;

        st32(b + 12, 1);                    /* ICE_SID_METADATA */
        st16(b + 16, data);
        st16(b + 18, 36);
        s[0] = 1;
        s[1] = 3;
        s[2] = 43;
        s[3] = 0;
        memcpy(s + 4, "ICE OS Default Package", 22);
        st32(s + 32, 0xC0000001);
        data += 36;
    }
    st16(b + 2, last_big ? 4096 : data);
}

static int download(const uint8_t *b, bool last)
{
    AqMsg m;

    aq_msg_init(&m, 0x0C40, 4096, true);
    m.desc[16] = last ? 1 : 0;
    memcpy(m.buf, b, 4096);
    return aq_send(&t, &m);
}

typedef struct PkgInfo {
    unsigned count;
    int active;                 /* index of the active entry, -1 if none */
    int in_nvm;
    uint8_t ver[4][4];
    char name[4][33];
} PkgInfo;

static int get_pkg_info(PkgInfo *pi)
{
    AqMsg m;
    int rc;

    memset(pi, 0, sizeof(*pi));
    pi->active = pi->in_nvm = -1;
    aq_msg_init(&m, 0x0C43, 4 + 4 * 40, false);      /* ICE_PKG_CNT = 4 */
    rc = aq_send(&t, &m);
    if (rc) {
        return rc;
    }
    pi->count = ld32(m.buf);
    CHECK(pi->count <= 4);
    CHECK_EQ(aq_datalen(&m), 4 + pi->count * 40);
    for (unsigned i = 0; i < pi->count && i < 4; i++) {
        const uint8_t *e = m.buf + 4 + 40 * i;

        memcpy(pi->ver[i], e, 4);
        memcpy(pi->name[i], e + 4, 28);
        if (e[37]) {
            pi->active = i;
        }
        if (e[36] && pi->in_nvm < 0) {
            pi->in_nvm = i;
        }
    }
    return 0;
}

static void test_ddp_download_sequence(void)
{
    static uint8_t b[4096];
    uint16_t status;
    uint32_t granted;
    PkgInfo pi;
    AqMsg m;

    setup();
    /* ice_chk_pkg_compat: the NVM's package is there and active. */
    CHECK_EQ(get_pkg_info(&pi), 0);
    CHECK_EQ(pi.count, 1);
    CHECK_EQ(pi.in_nvm, 0);
    CHECK_EQ(pi.active, 0);
    CHECK_EQ(pi.ver[0][0], 1);              /* format 1.0 fits major 1 */

    /* Global config lock: SUCCESS, go ahead and download. */
    CHECK_EQ(req_res(4, 2, 5000, &granted, &status), 0);
    CHECK_EQ(status, 0);
    CHECK(granted > 0);
    /* Signature buffers, then configuration buffers; last one flagged. */
    make_pkg_buf(b, 0x2, false, false);
    CHECK_EQ(download(b, false), 0);
    make_pkg_buf(b, 0x3, false, true);
    CHECK_EQ(download(b, false), 0);
    make_pkg_buf(b, 0xB, true, false);
    CHECK_EQ(download(b, false), 0);
    make_pkg_buf(b, 0xC, false, true);
    CHECK_EQ(download(b, false), 0);
    CHECK(!e810_fw_ddp_loaded(&t.c));
    CHECK_EQ(download(b, true), 0);
    CHECK(e810_fw_ddp_loaded(&t.c));
    CHECK_EQ(t.c.fw.ddp.active_bufs, 5);
    /* VLAN mode probing: no double VLAN. */
    aq_msg_init(&m, 0x0C41, 4096, true);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_ESRCH);
    CHECK_EQ(rel_res(4), 0);
    aq_msg_init(&m, 0x020D, 100, false);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_ESRCH);

    /* ice_get_pkg_info: the active entry is the file's package. */
    CHECK_EQ(get_pkg_info(&pi), 0);
    CHECK_EQ(pi.count, 2);
    CHECK(pi.active >= 0);
    CHECK(pi.active != pi.in_nvm);
    CHECK(!memcmp(pi.ver[pi.active], "\x01\x03\x2b\x00", 4));
    CHECK(!strcmp(pi.name[pi.active], "ICE OS Default Package"));
    CHECK_EQ(new_errors(), 0);

    /* Next probe: the lock says DONE, nothing to download. */
    CHECK_EQ(req_res(4, 2, 5000, &granted, &status), 0);
    CHECK_EQ(status, 2);
    CHECK(!e810_fw_res_held(&t.c, 4));

    /* Update Package (RSS/FD profiles) under the change lock. */
    CHECK_EQ(req_res(3, 2, 1000, NULL, NULL), 0);
    make_pkg_buf(b, 0x2B, false, false);
    aq_msg_init(&m, 0x0C42, ld16(b + 2), true);
    m.desc[16] = 1;
    memcpy(m.buf, b, ld16(b + 2));
    CHECK_EQ(aq_send(&t, &m), 0);
    CHECK_EQ(rel_res(3), 0);

    /* PF reset (PFGEN_CTRL.PFSWR) keeps the package. */
    aq_wr(&t, PFGEN_CTRL, PFGEN_CTRL_PFSWR);
    aq_restart();
    CHECK_EQ(get_pkg_info(&pi), 0);
    CHECK_EQ(pi.count, 2);
    CHECK(!strcmp(pi.name[pi.active], "ICE OS Default Package"));
    CHECK_EQ(req_res(4, 2, 5000, NULL, &status), 0);
    CHECK_EQ(status, 2);

    /* Power-on reset forgets it: the NVM package is active again. */
    e810_core_reset(&t.c, E810_RESET_POWER_ON);
    aq_restart();
    CHECK_EQ(get_pkg_info(&pi), 0);
    CHECK_EQ(pi.count, 1);
    CHECK_EQ(pi.active, 0);
    CHECK_EQ(req_res(4, 2, 5000, NULL, &status), 0);
    CHECK_EQ(status, 0);
    CHECK_EQ(rel_res(4), 0);
    aq_test_cleanup(&t);
}

static void test_ddp_errors(void)
{
    static uint8_t b[4096];
    PkgInfo pi;
    AqMsg m;

    setup();
    make_pkg_buf(b, 0x2, false, false);
    /* Outside the global config lock. */
    CHECK_EQ(download(b, true), E810_AQ_RC_EACCES);
    CHECK(!e810_fw_ddp_loaded(&t.c));

    CHECK_EQ(req_res(4, 2, 5000, NULL, NULL), 0);
    /* Malformed headers: no sections, data end beyond the buffer, and a
     * section reaching past data end. */
    memset(b, 0, sizeof(b));
    CHECK_EQ(download(b, false), E810_AQ_RC_EBADBUF);
    make_pkg_buf(b, 0x2, false, false);
    st16(b + 2, 5000);
    CHECK_EQ(download(b, false), E810_AQ_RC_EBADBUF);
    make_pkg_buf(b, 0x2, false, false);
    st16(b + 10, 4000);
    CHECK_EQ(download(b, false), E810_AQ_RC_EBADBUF);
    /* Download without a buffer. */
    aq_msg_init(&m, 0x0C40, 0, false);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    /* A partial download ends with the lock: nothing becomes active. */
    make_pkg_buf(b, 0xB, true, false);
    CHECK_EQ(download(b, false), 0);
    CHECK_EQ(rel_res(4), 0);
    CHECK(!e810_fw_ddp_loaded(&t.c));
    CHECK_EQ(get_pkg_info(&pi), 0);
    CHECK_EQ(pi.count, 1);

    /* Package info into a buffer too small for the list. */
    aq_msg_init(&m, 0x0C43, 20, false);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_ENOMEM);
    CHECK_EQ(aq_datalen(&m), 44);
    aq_msg_init(&m, 0x0C43, 0, false);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    /* Update Package with a malformed buffer. */
    aq_msg_init(&m, 0x0C42, 8, true);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EINVAL);
    CHECK(new_errors() >= 8);
    aq_test_cleanup(&t);
}

/*
 * With the real ice.pkg at hand (E810_ICE_PKG or the firmware path), send it
 * the way ice_download_pkg_with_sig_seg does: the RSA-2K signing segment for
 * segment id 0x10, its buffers, then the configuration buffers it covers,
 * stopping at the first metadata buffer.  Skipped when the file is absent.
 */
static uint8_t *load_file(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *d = NULL;

    if (!f) {
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) > 0 &&
        fseek(f, 0, SEEK_SET) == 0) {
        d = malloc(*len);
        if (d && fread(d, 1, *len, f) != (size_t)*len) {
            free(d);
            d = NULL;
        }
    }
    fclose(f);
    return d;
}

/*
 * The package's next buffer @bh (@inside: within the file): the one
 * before it goes down (not last), @bh waits, as ice sends them; false at
 * the end of the buffers (outside the file, or a metadata buffer).
 */
static bool queue_buf(const uint8_t **pending, unsigned *sent,
                      const uint8_t *bh, bool inside)
{
    if (!inside || ld32(bh + 4) & 0x80000000u) {
        return false;
    }
    if (*pending) {
        CHECK_EQ(download(*pending, false), 0);
        (*sent)++;
    }
    *pending = bh;
    return true;
}

static void test_ddp_real_package(void)
{
    const char *path = getenv("E810_ICE_PKG");
    const uint8_t *pending = NULL;
    uint8_t *d;
    long len = 0;
    uint32_t nseg;
    unsigned sent = 0;
    PkgInfo pi;

    if (!path) {
        path = "/usr/lib/firmware/intel/ice/ddp/ice.pkg";
    }
    d = load_file(path, &len);
    if (!d) {
        printf("# %s not found, real package download skipped\n", path);
        return;
    }
    setup();
    CHECK_EQ(req_res(4, 2, 5000, NULL, NULL), 0);
    nseg = ld32(d + 4);
    for (uint32_t i = 0; i < nseg && 8 + 4 * i + 4 <= (uint32_t)len; i++) {
        uint32_t so = ld32(d + 8 + 4 * i), co, bt, nb, start, cnt;
        const uint8_t *s = d + so;

        if (so + 120 > (uint32_t)len || ld32(s) != 0x1001 ||
            ld32(s + 44) != 0x10 || ld32(s + 48) != 1) {
            continue;
        }
        /* Signature buffers. */
        nb = ld32(s + 108);
        for (uint32_t k = 0; k < nb; k++) {
            const uint8_t *bh = s + 112 + 4096 * k;

            if (!queue_buf(&pending, &sent, bh,
                           so + 112 + 4096 * (k + 1) <= (uint32_t)len)) {
                break;
            }
        }
        /* Configuration segment buffers start..start+count. */
        if (ld32(s + 52) >= nseg) {
            continue;
        }
        co = ld32(d + 8 + 4 * ld32(s + 52));
        start = ld32(s + 56);
        cnt = ld32(s + 60);
        if (co + 48 > (uint32_t)len) {
            continue;
        }
        bt = co + 48 + ld32(d + co + 44) * 8;       /* device table */
        if (bt + 4 > (uint32_t)len) {
            continue;
        }
        bt += 4 + ld32(d + bt) * 4;                 /* NVM table */
        for (uint32_t k = start; k < start + cnt; k++) {
            const uint8_t *bh = d + bt + 4 + 4096u * k;

            if (!queue_buf(&pending, &sent, bh,
                           bt + 4 + 4096u * (k + 1) <= (uint32_t)len)) {
                break;
            }
        }
        if (pending) {
            CHECK_EQ(download(pending, true), 0);
            sent++;
            pending = NULL;
        }
    }
    CHECK_EQ(rel_res(4), 0);
    printf("# %s: %u buffers sent\n", path, sent);
    CHECK(sent > 4);
    CHECK(e810_fw_ddp_loaded(&t.c));
    CHECK_EQ(get_pkg_info(&pi), 0);
    CHECK(pi.active >= 0 && pi.ver[pi.active][0] == 1 && pi.ver[pi.active][1] == 3);
    printf("# active package %u.%u.%u.%u '%s'\n", pi.ver[pi.active][0],
           pi.ver[pi.active][1], pi.ver[pi.active][2], pi.ver[pi.active][3],
           pi.name[pi.active]);
    CHECK_EQ(new_errors(), 0);
    free(d);
    aq_test_cleanup(&t);
}

static uint32_t valid_funcs(AqTest *f, uint16_t op)
{
    AqMsg m;
    Caps caps;

    aq_msg_init(&m, op, 4096, false);
    st32(m.desc + 20, 4096 / 32);
    CHECK_EQ(aq_send(f, &m), 0);
    parse_caps(&m, &caps);
    return caps.valid_funcs;
}

/* Get Switch Config's one element: port, swid, PF (ice_init_port_info). */
static void sw_config(AqTest *f, unsigned *port, unsigned *swid, unsigned *pf)
{
    AqMsg m;

    aq_msg_init(&m, 0x0200, 2048, false);
    CHECK_EQ(aq_send(f, &m), 0);
    CHECK_EQ(ld16(m.desc + 20), 1);                     /* one element */
    *port = ld16(m.buf) & 0x3FF;
    *swid = ld16(m.buf + 2);
    *pf = ld16(m.buf + 4);
}

static int port_link_status(AqTest *f, uint8_t lport)
{
    AqMsg m;

    aq_msg_init(&m, 0x0607, E810_LS_DATA_LEN, false);
    m.desc[16] = lport;
    return aq_send(f, &m);
}

/*
 * Two functions of one card (an E810-XXV's two ports): each reads its own
 * PF number, both list the two functions, each drives the port of its
 * number on a switch of its own; a function's PF reset keeps its number;
 * the card's function 0 going makes function 1 a card of its own.
 */
static void test_two_functions(void)
{
    static AqTest t1;
    unsigned port, swid, pf;
    AqMsg m;

    setup();
    aq_test_init(&t1);
    CHECK(e810_core_join(&t1.c, t.c.adapter, 1));
    CHECK(!e810_core_join(&t1.c, t.c.adapter, 1));      /* joined already */
    CHECK_EQ(aq_rd(&t, PF_FUNC_RID) & 7, 0);
    CHECK_EQ(aq_rd(&t1, PF_FUNC_RID) & 7, 1);
    for (unsigned op = 0x000A; op <= 0x000B; op++) {
        CHECK_EQ(valid_funcs(&t, op), 0x3);
        CHECK_EQ(valid_funcs(&t1, op), 0x3);
    }
    sw_config(&t, &port, &swid, &pf);
    CHECK(port == 0 && swid == 0 && pf == 0);
    sw_config(&t1, &port, &swid, &pf);
    CHECK(port == 1 && swid == 1 && pf == 1);
    CHECK_EQ(port_link_status(&t1, 1), 0);
    /* The package is the card's: PF 0 downloads it, PF 1 hears DONE. */
    {
        static uint8_t b[4096];
        uint16_t status;

        CHECK_EQ(req_res(4, 2, 5000, NULL, &status), 0);
        CHECK_EQ(status, 0);
        make_pkg_buf(b, 0xB, true, false);
        CHECK_EQ(download(b, true), 0);
        CHECK_EQ(rel_res(4), 0);
        CHECK(!strcmp(t1.c.fw.ddp.active.name, "ICE OS Default Package"));
        aq_msg_init(&m, 0x0008, 0, false);          /* PF 1: global lock */
        st16(m.desc + 16, 4);
        st16(m.desc + 18, 2);
        CHECK_EQ(aq_send(&t1, &m), 0);
        CHECK_EQ(ld16(m.desc + 28), 2);             /* DONE */
    }
    CHECK_EQ(port_link_status(&t1, 0), E810_AQ_RC_EINVAL);
    CHECK_EQ(port_link_status(&t, 1), E810_AQ_RC_EINVAL);
    aq_wr(&t1, PFGEN_CTRL, PFGEN_CTRL_PFSWR);
    CHECK_EQ(aq_rd(&t1, PF_FUNC_RID) & 7, 1);
    aq_test_cleanup(&t);
    CHECK_EQ(t1.c.adapter->funcs, 0x2);
    CHECK(t1.c.adapter->pf[1] == &t1.c);
    aq_test_cleanup(&t1);
}

/* Both functions' clocks move together, as in one machine. */
static void advance_both(AqTest *a, AqTest *b, int64_t ns)
{
    fake_host_advance(&a->h, ns);
    fake_host_advance(&b->h, ns);
}

/*
 * The resource locks are the card's: what one PF holds is busy for the
 * other (EBUSY, or IN_PROG for the global config lock, with the owner's
 * time left) until released, timed out, or the owner reset.
 */
static void test_adapter_locks(void)
{
    static AqTest t1;
    uint32_t left;
    uint16_t status;

    setup();
    aq_test_init(&t1);
    CHECK(e810_core_join(&t1.c, t.c.adapter, 1));
    /* NVM: PF 0 holds it for 3 s; PF 1 waits, told how long. */
    CHECK_EQ(req_res(1, 1, 3000, NULL, NULL), 0);
    advance_both(&t, &t1, 1000000000);
    CHECK_EQ(req_res_on(&t1, 1, 1, 3000, &left, NULL), E810_AQ_RC_EBUSY);
    CHECK_EQ(left, 2000);
    CHECK(!e810_fw_res_held(&t1.c, 1));
    CHECK_EQ(t1.c.fw.core.res_busy, 1);
    /* A release by the function that does not hold it changes nothing. */
    CHECK_EQ(rel_res_on(&t1, 1), 0);
    CHECK(e810_fw_res_held(&t.c, 1));
    CHECK_EQ(rel_res(1), 0);
    CHECK_EQ(req_res_on(&t1, 1, 1, 3000, &left, NULL), 0);
    CHECK_EQ(left, 3000);
    /* A hold ends at its timeout: PF 0 then gets the lock. */
    advance_both(&t, &t1, 3000000000ll);
    CHECK_EQ(req_res(1, 2, 0, &left, NULL), 0);
    CHECK(!e810_fw_res_held(&t1.c, 1));
    CHECK_EQ(t1.c.fw.core.res_expired, 1);
    /* ...and at its owner's PF reset. */
    aq_wr(&t, PFGEN_CTRL, PFGEN_CTRL_PFSWR);
    aq_test_rings(&t);
    CHECK_EQ(req_res_on(&t1, 1, 1, 0, NULL, NULL), 0);
    CHECK_EQ(rel_res_on(&t1, 1), 0);
    /* Change lock: as for the NVM. */
    CHECK_EQ(req_res_on(&t1, 3, 2, 1000, NULL, NULL), 0);
    CHECK_EQ(req_res(3, 2, 1000, &left, NULL), E810_AQ_RC_EBUSY);
    CHECK_EQ(left, 1000);
    CHECK_EQ(rel_res_on(&t1, 3), 0);
    /* Global config lock: PF 1 downloads, PF 0 hears IN_PROG, then DONE. */
    {
        static uint8_t b[4096];

        CHECK_EQ(req_res_on(&t1, 4, 2, 5000, NULL, &status), 0);
        CHECK_EQ(status, 0);
        CHECK_EQ(req_res(4, 2, 5000, &left, &status), 0);
        CHECK_EQ(status, 1);                        /* IN_PROG */
        CHECK_EQ(left, 3000);                       /* capped hold */
        CHECK(!e810_fw_res_held(&t.c, 4));
        make_pkg_buf(b, 0xB, true, false);
        CHECK_EQ(rel_res_on(&t1, 4), 0);
        /* Released without a package: PF 0 may now download. */
        CHECK_EQ(req_res(4, 2, 5000, NULL, &status), 0);
        CHECK_EQ(status, 0);
        CHECK_EQ(download(b, true), 0);
        CHECK_EQ(rel_res(4), 0);
        CHECK_EQ(req_res_on(&t1, 4, 2, 5000, &left, &status), 0);
        CHECK_EQ(status, 2);                        /* DONE */
        CHECK_EQ(left, 0);
    }
    CHECK_EQ(new_errors(), 0);
    aq_test_cleanup(&t1);
    aq_test_cleanup(&t);
}

/* ice_ena_misc_vector: GRST and PE_CRITERR enabled, OICR on vector 0. */
static void oicr_enable(AqTest *x)
{
    aq_wr(x, PFINT_OICR_ENA, PFINT_OICR_GRST | PFINT_OICR_PE_CRITERR);
    aq_wr(x, PFINT_OICR_CTL, E810_CTL_CAUSE_ENA);
    aq_wr(x, GLINT_DYN_CTL(0), GLINT_DYN_CTL_INTENA);
}

/* What ice_shutdown_all_ctrlq leaves: both rings off. */
static void aq_shut(AqTest *x)
{
    aq_wr(x, PF_FW_ATQLEN, 0);
    aq_wr(x, PF_FW_ARQLEN, 0);
}

/*
 * Core and global resets are the card's: GLGEN_RTRIG (or a fault) warns
 * every function (GRST on its OICR vector, GLGEN_RSTAT busy with the
 * type, the done bits dropped), then resets them all once each driver
 * has shut its admin queue, or 10 s after the warning (GRSTDEL is 0.8 s:
 * too short for an emulated guest's teardown).
 */
static void test_adapter_reset(void)
{
    static AqTest t1;
    static uint8_t b[4096];
    char err[128];
    const uint32_t done = GLNVM_ULD_CORER_DONE | GLNVM_ULD_GLOBR_DONE |
                          GLNVM_ULD_PE_DONE;

    setup();
    aq_test_init(&t1);
    CHECK(e810_core_join(&t1.c, t.c.adapter, 1));
    oicr_enable(&t);
    oicr_enable(&t1);
    /* PF 0 loads the package and holds the NVM. */
    CHECK_EQ(req_res(4, 2, 5000, NULL, NULL), 0);
    make_pkg_buf(b, 0xB, true, false);
    CHECK_EQ(download(b, true), 0);
    CHECK_EQ(rel_res(4), 0);
    CHECK(e810_fw_ddp_loaded(&t1.c));
    CHECK_EQ(req_res(1, 1, 0, NULL, NULL), 0);

    /* ice_reset(CORER) on PF 0, its queues already shut. */
    aq_shut(&t);
    t.h.nirqs = t1.h.nirqs = 0;
    aq_wr(&t, GLGEN_RTRIG, GLGEN_RTRIG_CORER);
    CHECK_EQ(t.h.nirqs, 1);
    CHECK_EQ(t1.h.nirqs, 1);
    CHECK_EQ(aq_rd(&t1, PFINT_OICR), PFINT_OICR_GRST);
    CHECK_EQ(aq_rd(&t1, PFINT_OICR), 0);                /* read clears */
    for (AqTest *x = &t; x; x = x == &t ? &t1 : NULL) {
        CHECK_EQ(aq_rd(x, GLGEN_RSTAT) & 3, 1);          /* busy */
        CHECK_EQ(aq_rd(x, GLGEN_RSTAT) >> 2 & 3, 1);     /* CORER */
        CHECK_EQ(aq_rd(x, GLNVM_ULD) & done, 0);
    }
    /* PF 1's driver is still at work: nothing happens. */
    advance_both(&t, &t1, 50000000);
    CHECK_EQ(aq_rd(&t, GLGEN_RSTAT) & 3, 1);
    CHECK(e810_fw_res_held(&t.c, 1));
    CHECK(e810_core_unmigratable(&t.c) != NULL);
    /* A second trigger joins the reset under way. */
    aq_wr(&t1, GLGEN_RTRIG, GLGEN_RTRIG_GLOBR);
    CHECK_EQ(aq_rd(&t1, GLGEN_RSTAT) >> 2 & 3, 1);
    /* PF 1 shuts its queues: both reset at the next look. */
    aq_shut(&t1);
    advance_both(&t, &t1, 10000000);
    for (AqTest *x = &t; x; x = x == &t ? &t1 : NULL) {
        CHECK_EQ(aq_rd(x, GLGEN_RSTAT), 1u << 2);        /* out of reset */
        CHECK_EQ(aq_rd(x, GLNVM_ULD) & done, done);
        CHECK_EQ(x->c.stats.adapter_resets, 1);
        CHECK(!e810_fw_ddp_loaded(&x->c));               /* package gone */
        CHECK_EQ(aq_rd(x, PFINT_OICR_ENA), 0);
    }
    CHECK(!e810_fw_res_held(&t.c, 1));
    CHECK(!e810_core_unmigratable(&t.c));
    CHECK_EQ(aq_rd(&t1, PF_FUNC_RID) & 7, 1);
    /* Rebuild: both race for the global lock, one downloads. */
    aq_test_rings(&t);
    aq_test_rings(&t1);
    {
        uint16_t st;

        CHECK_EQ(req_res_on(&t1, 4, 2, 5000, NULL, &st), 0);
        CHECK_EQ(st, 0);
        CHECK_EQ(req_res(4, 2, 5000, NULL, &st), 0);
        CHECK_EQ(st, 1);
    }

    /* A global reset by fault; PF 1's driver never answers: the card
     * resets after the grace (10 s, more than GRSTDEL's 0.8 s: an
     * emulated guest's teardown is slower) all the same. */
    oicr_enable(&t);
    oicr_enable(&t1);
    t.h.nirqs = t1.h.nirqs = 0;
    CHECK(e810_fault_arm(&t1.c, "global-reset:at=0.5", err, sizeof(err)));
    advance_both(&t, &t1, 500000000);
    CHECK_EQ(t.h.nirqs, 1);
    CHECK_EQ(aq_rd(&t, GLGEN_RSTAT), (2u << 2) | 1);
    aq_shut(&t);
    advance_both(&t, &t1, 900000000);       /* past GRSTDEL: still waiting */
    CHECK_EQ(aq_rd(&t, GLGEN_RSTAT) & 3, 1);
    advance_both(&t, &t1, 9000000000ll);
    CHECK_EQ(aq_rd(&t, GLGEN_RSTAT) & 3, 1);
    advance_both(&t, &t1, 110000000);
    CHECK_EQ(aq_rd(&t, GLGEN_RSTAT), 2u << 2);
    CHECK_EQ(aq_rd(&t1, GLGEN_RSTAT), 2u << 2);
    CHECK_EQ(t1.c.stats.adapter_resets, 2);
    CHECK(!e810_fw_res_held(&t1.c, 4));
    CHECK_EQ(t1.c.stats.faults_injected, 1);

    /* pf-reset: an RDMA-engine critical error on that function only. */
    aq_test_rings(&t1);
    oicr_enable(&t1);
    t.h.nirqs = t1.h.nirqs = 0;
    CHECK(e810_fault_arm(&t1.c, "pf-reset", err, sizeof(err)));
    advance_both(&t, &t1, 1000);
    CHECK_EQ(t1.h.nirqs, 1);
    CHECK_EQ(t.h.nirqs, 0);
    CHECK_EQ(aq_rd(&t1, PFINT_OICR), PFINT_OICR_PE_CRITERR);
    CHECK(aq_rd(&t1, GLPE_CRITERR) != 0 && aq_rd(&t1, GLPE_CRITERR) != 0x1024d);
    CHECK_EQ(aq_rd(&t1, GLGEN_RSTAT) & 3, 0);
    /* An OICR cause not enabled is latched, but no message goes. */
    aq_wr(&t1, PFINT_OICR_ENA, 0);
    CHECK(e810_fault_arm(&t1.c, "core-reset", err, sizeof(err)));
    advance_both(&t, &t1, 1000);
    CHECK_EQ(t1.h.nirqs, 1);
    CHECK_EQ(aq_rd(&t1, PFINT_OICR), PFINT_OICR_GRST);
    advance_both(&t, &t1, 10100000000ll);   /* the grace: PF 1 never shut */
    CHECK_EQ(t1.c.stats.adapter_resets, 3);
    /* A function that goes mid-reset finishes it for the others. */
    aq_test_rings(&t);
    CHECK(e810_fault_arm(&t.c, "core-reset", err, sizeof(err)));
    advance_both(&t, &t1, 1000);
    CHECK_EQ(aq_rd(&t1, GLGEN_RSTAT) & 3, 1);
    aq_test_cleanup(&t);
    CHECK_EQ(aq_rd(&t1, GLGEN_RSTAT) & 3, 0);
    CHECK_EQ(t1.c.stats.adapter_resets, 4);
    CHECK(!t1.c.adapter->resetting);
    aq_test_cleanup(&t1);
}

/*
 * A surprise removal (fault "removed"): PF 1 goes from the bus while
 * PF 0's core reset waits for PF 1's queues.  PF 1 reads as all ones,
 * takes no writes, drops frames (counted) and leaves the card; the reset
 * goes on without it; it refuses to be saved.
 */
static void test_removed(void)
{
    static AqTest t1;
    static const uint8_t frame[64] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
    char err[128];
    uint64_t dropped;

    setup();
    aq_test_init(&t1);
    CHECK(e810_core_join(&t1.c, t.c.adapter, 1));
    oicr_enable(&t);
    oicr_enable(&t1);
    aq_shut(&t);
    aq_wr(&t, GLGEN_RTRIG, GLGEN_RTRIG_CORER);
    advance_both(&t, &t1, 50000000);
    CHECK_EQ(aq_rd(&t, GLGEN_RSTAT) & 3, 1);          /* PF 1 at work */
    CHECK(e810_fault_check("removed:at=0.01", err, sizeof(err)));
    CHECK(e810_fault_arm(&t1.c, "removed:at=0.01", err, sizeof(err)));
    CHECK(!t1.c.removed);
    advance_both(&t, &t1, 20000000);
    CHECK(t1.c.removed);
    CHECK_EQ(t1.c.stats.faults_injected, 1);
    CHECK_EQ(t.c.adapter->funcs, 0x1);
    CHECK(t1.c.adapter != t.c.adapter);
    /* PF 0's reset went on without it. */
    advance_both(&t, &t1, 10000000);
    CHECK_EQ(aq_rd(&t, GLGEN_RSTAT), 1u << 2);
    CHECK_EQ(t.c.stats.adapter_resets, 1);
    /* All ones whatever the width; a write changes nothing. */
    CHECK_EQ(e810_mmio_read(&t1.c, GLGEN_RSTAT, 4), 0xFFFFFFFFu);
    CHECK_EQ(e810_mmio_read(&t1.c, PF_FUNC_RID, 2), 0xFFFFu);
    CHECK_EQ(e810_mmio_read(&t1.c, PF_FUNC_RID, 1), 0xFFu);
    CHECK_EQ(e810_mmio_read(&t1.c, GLGEN_RSTAT, 8), ~0ull);
    t.h.nirqs = t1.h.nirqs = 0;
    e810_mmio_write(&t1.c, GLGEN_RTRIG, GLGEN_RTRIG_CORER, 4);
    advance_both(&t, &t1, 100000000);
    CHECK_EQ(aq_rd(&t, GLGEN_RSTAT), 1u << 2);
    CHECK_EQ(t.h.nirqs + t1.h.nirqs, 0);
    dropped = t1.c.stats.rx_dropped;
    e810_receive(&t1.c, frame, sizeof(frame));
    CHECK_EQ(t1.c.stats.rx_dropped, dropped + 1);
    CHECK(e810_core_unmigratable(&t1.c) != NULL);
    /* Its host unplugs it; PF 0 goes on. */
    aq_test_cleanup(&t1);
    aq_test_rings(&t);
    CHECK_EQ(req_res(1, 1, 0, NULL, NULL), 0);
    aq_test_cleanup(&t);
}

/*
 * AQ faults: a command that fails with the asked return code and is not
 * carried out; a command held past the driver's wait, the queue behind it
 * standing still, then both run in order.
 */
static void test_aq_faults(void)
{
    char err[128];
    AqMsg m;
    uint8_t *d0, *d1;
    unsigned h;

    setup();
    CHECK(e810_fault_arm(&t.c, "aq-error:op=0x0001:rc=12;aq-error:op=0x0009:after=1",
                         err, sizeof(err)));
    aq_msg_init(&m, 0x0001, 0, false);
    CHECK_EQ(aq_send(&t, &m), E810_AQ_RC_EBUSY);
    CHECK_EQ(m.desc[AQ_DESC_PARAMS + AQC_GET_VER_FW_MAJOR], 0);        /* no FW major */
    aq_msg_init(&m, 0x0001, 0, false);
    CHECK_EQ(aq_send(&t, &m), 0);                       /* count 1: done */
    CHECK_EQ(rel_res(1), 0);                            /* after=1 */
    CHECK_EQ(rel_res(1), E810_AQ_RC_EIO);
    CHECK_EQ(rel_res(1), 0);
    CHECK_EQ(t.c.stats.faults_injected, 2);
    CHECK(!e810_fault_check("aq-error:rc=0x10000", err, sizeof(err)));
    CHECK(!e810_fault_check("aq-timeout:hold=61", err, sizeof(err)));

    /* Held 2 s: the command and one queued behind it wait. */
    CHECK(e810_fault_arm(&t.c, "aq-timeout:op=0x0001", err, sizeof(err)));
    h = aq_rd(&t, PF_FW_ATQH);
    d0 = fake_mem(&t.h, ATQ_RING + h * 32);
    d1 = fake_mem(&t.h, ATQ_RING + ((h + 1) % AQ_LEN) * 32);
    memset(d0, 0, 64);
    st16(d0 + 2, 0x0001);
    st16(d1 + 2, 0x0001);
    aq_wr(&t, PF_FW_ATQT, (h + 1) % AQ_LEN);
    CHECK_EQ(aq_rd(&t, PF_FW_ATQH), h);
    aq_wr(&t, PF_FW_ATQT, (h + 2) % AQ_LEN);
    CHECK_EQ(aq_rd(&t, PF_FW_ATQH), h);
    CHECK(e810_core_unmigratable(&t.c) != NULL);
    fake_host_advance(&t.h, 1999000000);
    CHECK_EQ(aq_rd(&t, PF_FW_ATQH), h);
    CHECK_EQ(ld16(d0), 0);                              /* no DD yet */
    fake_host_advance(&t.h, 1000000);
    CHECK_EQ(aq_rd(&t, PF_FW_ATQH), (h + 2) % AQ_LEN);
    CHECK(ld16(d0) & E810_AQ_FLAG_DD);
    CHECK_EQ(ld16(d0 + AQ_DESC_RETVAL), 0);
    CHECK_EQ(d0[AQ_DESC_PARAMS + AQC_GET_VER_FW_MAJOR], E810_FW_MAJOR);
    CHECK(ld16(d1) & E810_AQ_FLAG_DD);
    CHECK(!e810_core_unmigratable(&t.c));
    t.atq_ntu = (h + 2) % AQ_LEN;
    /* A reset drops a held command. */
    CHECK(e810_fault_arm(&t.c, "aq-timeout:hold=10", err, sizeof(err)));
    h = aq_rd(&t, PF_FW_ATQH);
    aq_wr(&t, PF_FW_ATQT, (h + 1) % AQ_LEN);
    CHECK(t.c.aq.held);
    aq_wr(&t, PFGEN_CTRL, PFGEN_CTRL_PFSWR);
    CHECK(!t.c.aq.held);
    fake_host_advance(&t.h, 20000000000ll);
    CHECK_EQ(new_errors(), 0);
    aq_test_cleanup(&t);
}

int main(void)
{
    RUN(test_get_version);
    RUN(test_driver_version_shutdown_pxe);
    RUN(test_capabilities);
    RUN(test_two_functions);
    RUN(test_capabilities_small_buffer);
    RUN(test_resource_locks);
    RUN(test_adapter_locks);
    RUN(test_adapter_reset);
    RUN(test_aq_faults);
    RUN(test_removed);
    RUN(test_manage_mac);
    RUN(test_fw_log);
    RUN(test_dcb);
    RUN(test_nvm_flash_size_discovery);
    RUN(test_nvm_shadow_ram);
    RUN(test_nvm_versions_like_ice_init_nvm);
    RUN(test_nvm_checksum);
    RUN(test_ddp_download_sequence);
    RUN(test_ddp_errors);
    RUN(test_ddp_real_package);
    return CHECK_DONE();
}
