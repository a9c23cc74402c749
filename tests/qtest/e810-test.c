/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtest for the e810 device: PCI identity, BARs, capabilities and a few
 * registers, as the Linux ice driver first sees them.  Linked into a QEMU
 * tree as tests/qtest/e810-test.c by qemu-dev/overlay/apply; run it with
 * scripts/qtest.
 *
 * The device sits behind a PCIe root port (as on real boards), so the tests
 * number the buses and open the port's memory windows themselves, and read
 * extended config space (the DSN capability at 0x100) through q35's ECAM,
 * which they switch on in the MCH: libqos only does CF8/CFC accesses, which
 * end at 0xff.
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "libqtest.h"
#include "libqos/pci.h"
#include "libqos/pci-pc.h"
#include "hw/pci/pci_regs.h"
#include "qobject/qdict.h"

#define E810_MAC            "52:54:00:12:34:56"
#define E810_DSN            0x525400fffe123456ULL   /* EUI-64 of E810_MAC */

#define RP_SLOT             2
#define E810_BUS            1       /* the only bridge gets secondary bus 1 */
/* libqos encodes the bus in bits 15:8 of devfn. */
#define E810_DEVFN          ((E810_BUS << 8) | QPCI_DEVFN(0, 0))

/* q35 MCH: PCIEXBAR config register; ECAM placed where firmware puts it. */
#define MCH_PCIEXBAR        0x60
#define ECAM_BASE           0xb0000000ULL

/* Where libqos's PC allocator hands out MMIO (pci-pc.c). */
#define MMIO_WIN_BASE       0xe0000000U
#define MMIO_WIN_LIMIT      0xefffffffU

#define GLNVM_ULD           0x000b6008
#define GLNVM_ULD_DONE      0x0000073b
#define GLNVM_FLA           0x000b6108
#define GLNVM_FLA_LOCKED    (1u << 6)
#define PF_FW_ATQLEN        0x00080100

typedef struct {
    QTestState *qts;
    QPCIBus *bus;
    QPCIDevice *rp;
    QPCIDevice *dev;
} E810Test;

static void e810_start_with(E810Test *t, const char *extra)
{
    t->qts = qtest_initf(
        "-machine q35 -nodefaults "
        "-device pcie-root-port,id=rp0,chassis=1,addr=0x%x "
        /* hubport: a netdev that is always compiled in */
        "-netdev hubport,id=n0,hubid=0 "
        "-device e810,bus=rp0,netdev=n0,mac=" E810_MAC " %s", RP_SLOT, extra);
    t->bus = qpci_new_pc(t->qts, NULL);
    qpci_secondary_buses_init(t->bus);

    t->rp = qpci_device_find(t->bus, QPCI_DEVFN(RP_SLOT, 0));
    g_assert_nonnull(t->rp);
    g_assert_cmphex(qpci_config_readb(t->rp, PCI_SECONDARY_BUS), ==, E810_BUS);

    t->dev = qpci_device_find(t->bus, E810_DEVFN);
    g_assert_nonnull(t->dev);
}

static void e810_start(E810Test *t)
{
    e810_start_with(t, "");
}

/* Forward the allocator's MMIO range through the root port (both windows:
 * the BARs may be prefetchable or not). */
static void e810_open_bridge(E810Test *t)
{
    qpci_config_writew(t->rp, PCI_MEMORY_BASE, (MMIO_WIN_BASE >> 16) & 0xfff0);
    qpci_config_writew(t->rp, PCI_MEMORY_LIMIT, (MMIO_WIN_LIMIT >> 16) & 0xfff0);
    qpci_config_writew(t->rp, PCI_PREF_MEMORY_BASE,
                       ((MMIO_WIN_BASE >> 16) & 0xfff0) | PCI_PREF_RANGE_TYPE_64);
    qpci_config_writew(t->rp, PCI_PREF_MEMORY_LIMIT,
                       ((MMIO_WIN_LIMIT >> 16) & 0xfff0) | PCI_PREF_RANGE_TYPE_64);
    qpci_config_writel(t->rp, PCI_PREF_BASE_UPPER32, 0);
    qpci_config_writel(t->rp, PCI_PREF_LIMIT_UPPER32, 0);
    qpci_config_writew(t->rp, PCI_COMMAND,
                       PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
}

static void e810_stop(E810Test *t)
{
    g_free(t->dev);
    g_free(t->rp);
    qpci_free_pc(t->bus);
    qtest_quit(t->qts);
}

/* Size a 64-bit memory BAR the way firmware does; leaves it at 0. */
static uint64_t bar64_size(QPCIDevice *d, int bar, uint32_t *flags)
{
    uint8_t reg = PCI_BASE_ADDRESS_0 + bar * 4;
    uint32_t lo, hi;

    qpci_config_writel(d, reg, 0xffffffff);
    qpci_config_writel(d, reg + 4, 0xffffffff);
    lo = qpci_config_readl(d, reg);
    hi = qpci_config_readl(d, reg + 4);
    qpci_config_writel(d, reg, 0);
    qpci_config_writel(d, reg + 4, 0);

    *flags = lo & ~PCI_BASE_ADDRESS_MEM_MASK;
    return ~((((uint64_t)hi) << 32) | (lo & PCI_BASE_ADDRESS_MEM_MASK)) + 1;
}

/* Extended config space through ECAM (enabled here; q35 resets it off). */
static uint32_t ext_config_readl(E810Test *t, uint16_t off)
{
    QPCIDevice *mch = qpci_device_find(t->bus, QPCI_DEVFN(0, 0));

    g_assert_nonnull(mch);
    qpci_config_writel(mch, MCH_PCIEXBAR + 4, 0);
    qpci_config_writel(mch, MCH_PCIEXBAR, ECAM_BASE | 1 /* enable, 256 MiB */);
    g_free(mch);
    return qtest_readl(t->qts, ECAM_BASE + ((uint64_t)E810_BUS << 20) + off);
}

static void test_ids(void)
{
    E810Test t;

    e810_start(&t);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_VENDOR_ID), ==, 0x8086);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_DEVICE_ID), ==, 0x159b);
    g_assert_cmphex(qpci_config_readl(t.dev, PCI_CLASS_REVISION) >> 8, ==,
                    0x020000);
    g_assert_cmphex(qpci_config_readb(t.dev, PCI_HEADER_TYPE) & 0x7f, ==,
                    PCI_HEADER_TYPE_NORMAL);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_SUBSYSTEM_VENDOR_ID), ==,
                    0x8086);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_SUBSYSTEM_ID), ==, 0x0003);
    e810_stop(&t);
}

static void test_bars(void)
{
    E810Test t;
    uint32_t flags;

    e810_start(&t);
    g_assert_cmphex(bar64_size(t.dev, 0, &flags), ==, 32 * MiB);
    g_assert_cmphex(flags & PCI_BASE_ADDRESS_SPACE, ==,
                    PCI_BASE_ADDRESS_SPACE_MEMORY);
    g_assert_cmphex(flags & PCI_BASE_ADDRESS_MEM_TYPE_MASK, ==,
                    PCI_BASE_ADDRESS_MEM_TYPE_64);

    g_assert_cmphex(bar64_size(t.dev, 3, &flags), ==, 64 * KiB);
    g_assert_cmphex(flags & PCI_BASE_ADDRESS_SPACE, ==,
                    PCI_BASE_ADDRESS_SPACE_MEMORY);
    g_assert_cmphex(flags & PCI_BASE_ADDRESS_MEM_TYPE_MASK, ==,
                    PCI_BASE_ADDRESS_MEM_TYPE_64);
    e810_stop(&t);
}

static void test_msix(void)
{
    E810Test t;
    uint8_t cap;
    uint32_t v;

    e810_start(&t);
    cap = qpci_find_capability(t.dev, PCI_CAP_ID_MSIX, 0);
    g_assert_cmphex(cap, !=, 0);
    g_assert_cmpint(qpci_msix_table_size(t.dev), ==, 64);

    v = qpci_config_readl(t.dev, cap + PCI_MSIX_TABLE);
    g_assert_cmpint(v & PCI_MSIX_TABLE_BIR, ==, 3);
    g_assert_cmphex(v & PCI_MSIX_TABLE_OFFSET, ==, 0);
    v = qpci_config_readl(t.dev, cap + PCI_MSIX_PBA);
    g_assert_cmpint(v & PCI_MSIX_PBA_BIR, ==, 3);
    g_assert_cmphex(v & PCI_MSIX_PBA_OFFSET, ==, 0x8000);

    /* Live table: every vector comes out of reset masked, none pending. */
    e810_open_bridge(&t);
    qpci_device_enable(t.dev);
    qpci_msix_enable(t.dev);
    g_assert_true(qpci_msix_masked(t.dev, 0));
    g_assert_true(qpci_msix_masked(t.dev, 63));
    g_assert_false(qpci_msix_pending(t.dev, 0));
    g_assert_false(qpci_msix_pending(t.dev, 63));
    qpci_msix_disable(t.dev);
    e810_stop(&t);
}

static void test_pcie_cap(void)
{
    E810Test t;
    uint8_t cap;
    uint16_t flags;

    e810_start(&t);
    g_assert_true(qpci_config_readw(t.dev, PCI_STATUS) & PCI_STATUS_CAP_LIST);
    cap = qpci_find_capability(t.dev, PCI_CAP_ID_EXP, 0);
    g_assert_cmphex(cap, !=, 0);
    flags = qpci_config_readw(t.dev, cap + PCI_EXP_FLAGS);
    g_assert_cmphex((flags & PCI_EXP_FLAGS_TYPE) >> 4, ==, PCI_EXP_TYPE_ENDPOINT);
    e810_stop(&t);
}

static void test_dsn(void)
{
    E810Test t;
    uint32_t hdr;
    uint64_t dsn;

    e810_start(&t);
    hdr = ext_config_readl(&t, 0x100);
    g_assert_cmphex(PCI_EXT_CAP_ID(hdr), ==, PCI_EXT_CAP_ID_DSN);
    dsn = ext_config_readl(&t, 0x100 + 4) |
          ((uint64_t)ext_config_readl(&t, 0x100 + 8) << 32);
    g_assert_cmphex(dsn, ==, E810_DSN);
    e810_stop(&t);
}

static void test_regs(void)
{
    E810Test t;
    QPCIBar bar0;
    uint64_t size;

    e810_start(&t);
    e810_open_bridge(&t);
    bar0 = qpci_iomap(t.dev, 0, &size);
    g_assert_cmphex(size, ==, 32 * MiB);
    qpci_device_enable(t.dev);

    g_assert_cmphex(qpci_io_readl(t.dev, bar0, GLNVM_ULD), ==, GLNVM_ULD_DONE);
    g_assert_cmphex(qpci_io_readl(t.dev, bar0, GLNVM_FLA) & GLNVM_FLA_LOCKED,
                    ==, GLNVM_FLA_LOCKED);

    /* An ordinary register keeps what was written (length only, no enable). */
    qpci_io_writel(t.dev, bar0, PF_FW_ATQLEN, 0x40);
    g_assert_cmphex(qpci_io_readl(t.dev, bar0, PF_FW_ATQLEN), ==, 0x40);
    e810_stop(&t);
}

/* ---- migration ----------------------------------------------------------- */

#define GLINT_ITR0_1        0x00154004      /* ITR 0 of vector 1 */

/* Waits for @qts's migration to end; returns its final status. */
static char *migration_wait(QTestState *qts, char **desc)
{
    for (int i = 0; i < 3000; i++) {
        QDict *rsp = qtest_qmp(qts, "{ 'execute': 'query-migrate' }");
        QDict *ret = qdict_get_qdict(rsp, "return");
        const char *st = ret ? qdict_get_try_str(ret, "status") : NULL;

        if (st && (!strcmp(st, "completed") || !strcmp(st, "failed"))) {
            char *out = g_strdup(st);

            if (desc) {
                const char *d = qdict_get_try_str(ret, "error-desc");

                *desc = g_strdup(d ? d : "");
            }
            qobject_unref(rsp);
            return out;
        }
        qobject_unref(rsp);
        g_usleep(10 * 1000);
    }
    g_assert_not_reached();
}

/* A source with a few registers programmed, saved to @path. */
static QPCIBar migrate_source(const char *path)
{
    E810Test t;
    QPCIBar bar0;
    uint64_t size;
    g_autofree char *uri = g_strdup_printf("file:%s", path);
    char *st;

    e810_start(&t);
    e810_open_bridge(&t);
    bar0 = qpci_iomap(t.dev, 0, &size);
    qpci_device_enable(t.dev);
    qpci_io_writel(t.dev, bar0, PF_FW_ATQLEN, 0x40);
    qpci_io_writel(t.dev, bar0, GLINT_ITR0_1, 0x22);
    qtest_qmp_assert_success(t.qts, "{ 'execute': 'migrate', 'arguments':"
                             " { 'uri': %s } }", uri);
    st = migration_wait(t.qts, NULL);
    g_assert_cmpstr(st, ==, "completed");
    g_free(st);
    e810_stop(&t);
    return bar0;
}

/* Starts a destination on @path; returns the migration's status. */
static char *migrate_dest(E810Test *t, const char *path, char **desc)
{
    g_autofree char *uri = g_strdup_printf("file:%s", path);

    e810_start_with(t, "-incoming defer");
    qtest_qmp_assert_success(t->qts, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s, "
                             "'exit-on-error': false } }", uri);
    return migration_wait(t->qts, desc);
}

static void test_migrate_regs(void)
{
    g_autofree char *path = g_strdup_printf("%s/e810-mig-%d",
                                            g_get_tmp_dir(), getpid());
    QPCIBar bar0 = migrate_source(path);
    E810Test t;
    char *st = migrate_dest(&t, path, NULL);

    g_assert_cmpstr(st, ==, "completed");
    g_free(st);
    /* The BARs came with config space: same addresses. */
    g_assert_cmphex(qpci_io_readl(t.dev, bar0, PF_FW_ATQLEN), ==, 0x40);
    g_assert_cmphex(qpci_io_readl(t.dev, bar0, GLINT_ITR0_1), ==, 0x22);
    g_assert_cmphex(qpci_io_readl(t.dev, bar0, GLNVM_ULD), ==, GLNVM_ULD_DONE);
    e810_stop(&t);
    unlink(path);
}

/* Finds the device state's header ("E810" then the MAC) in a stream. */
static long find_state(const uint8_t *buf, size_t len)
{
    static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

    for (size_t i = 0; i + 10 <= len; i++) {
        if (!memcmp(buf + i, "E810", 4) && !memcmp(buf + i + 4, mac, 6)) {
            return i;
        }
    }
    return -1;
}

/*
 * A corrupt stream fails the load with the device's message, and a
 * truncated one fails too; the destination QEMU survives both.
 */
static void test_migrate_corrupt(void)
{
    g_autofree char *path = g_strdup_printf("%s/e810-mig-%d",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *bad = g_strdup_printf("%s.bad", path);
    g_autofree gchar *buf = NULL;
    gsize len;
    long at;
    E810Test t;
    char *st, *desc;

    migrate_source(path);
    g_assert_true(g_file_get_contents(path, &buf, &len, NULL));
    at = find_state((uint8_t *)buf, len);
    g_assert_cmpint(at, >, 0);

    /* Another MAC in the saved header. */
    buf[at + 9] ^= 0x01;
    g_assert_true(g_file_set_contents(bad, buf, len, NULL));
    st = migrate_dest(&t, bad, &desc);
    g_assert_cmpstr(st, ==, "failed");
    g_assert_nonnull(strstr(desc, "MAC"));
    g_free(st);
    g_free(desc);
    /* Still answering. */
    qtest_qmp_assert_success(t.qts, "{ 'execute': 'query-status' }");
    e810_stop(&t);
    buf[at + 9] ^= 0x01;

    /* The stream cut inside the device's state. */
    g_assert_true(g_file_set_contents(bad, buf, at + 20, NULL));
    st = migrate_dest(&t, bad, &desc);
    g_assert_cmpstr(st, ==, "failed");
    g_free(st);
    g_free(desc);
    qtest_qmp_assert_success(t.qts, "{ 'execute': 'query-status' }");
    e810_stop(&t);
    unlink(bad);
    unlink(path);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    if (strcmp(qtest_get_arch(), "x86_64")) {
        g_test_skip("needs qemu-system-x86_64");
        return g_test_run();
    }
    /* Registered only when CONFIG_E810 is on: a missing device is a bug. */
    if (!qtest_has_device("e810")) {
        g_printerr("e810-test: the QEMU binary has no e810 device\n");
        return 1;
    }

    qtest_add_func("e810/pci/ids", test_ids);
    qtest_add_func("e810/pci/bars", test_bars);
    qtest_add_func("e810/pci/msix", test_msix);
    qtest_add_func("e810/pcie/cap", test_pcie_cap);
    qtest_add_func("e810/pcie/dsn", test_dsn);
    qtest_add_func("e810/regs", test_regs);
    qtest_add_func("e810/migrate/regs", test_migrate_regs);
    qtest_add_func("e810/migrate/corrupt", test_migrate_corrupt);
    return g_test_run();
}
