/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Core unit tests: register file, reset values, PF reset, interrupt block. */
#include "core-fixture.h"
#include "check.h"

static void test_reset_values(void)
{
    setup();
    /* ice requires 0x33B; PE_DONE (bit 10) because RDMA is offered. */
    CHECK_EQ(rd(GLNVM_ULD), 0x73B);
    CHECK(rd(GLNVM_FLA) & GLNVM_FLA_LOCKED);
    CHECK_EQ((rd(GLNVM_GENS) >> GLNVM_GENS_SR_SIZE_S) & 7, 1);
    CHECK_EQ(rd(GLGEN_RSTAT) & 3, 0);      /* device active */
    CHECK_EQ(rd(GL_MNG_FWSM), 0);           /* not in recovery, FW loaded */
    CHECK_EQ(rd(PF_FUNC_RID) & 7, 0);
    /* Flow-director pools: guaranteed and best-effort filters. */
    CHECK_EQ(rd(GLQF_FD_SIZE), 8192 | 8192u << 16);
    teardown();
}

static void test_storage_and_readonly(void)
{
    setup();
    wr(0x00080200, 0x800000C0);            /* PF_FW_ATQLEN: plain storage */
    CHECK_EQ(rd(0x00080200), 0x800000C0);
    wr(GLNVM_ULD, 0);                      /* status: read-only */
    CHECK_EQ(rd(GLNVM_ULD), 0x73B);
    /* Narrow accesses merge into the containing register. */
    e810_mmio_write(&c, 0x00080201, 0x12, 1);
    CHECK_EQ(rd(0x00080200), 0x800012C0);
    CHECK_EQ(e810_mmio_read(&c, 0x00080202, 2), 0x8000);
    /* 64-bit reads return two registers (QRX_CONTEXT(0, 0) and (0, 1)). */
    wr(0x00280000, 0x11111111);
    wr(0x00280004, 0x22222222);
    CHECK_EQ(e810_mmio_read(&c, 0x00280000, 8), 0x2222222211111111ull);
    /* Statistics (GLPRT_GORCL/H) are read-only. */
    wr(0x00380000, 0x11111111);
    CHECK_EQ(e810_mmio_read(&c, 0x00380000, 8), 0);
    teardown();
}

static void test_bad_access(void)
{
    setup();
    /* Unaligned and out-of-range accesses are refused, counted, survived. */
    CHECK_EQ(e810_mmio_read(&c, 0x00080001, 4), 0);
    e810_mmio_write(&c, E810_BAR0_SIZE - 2, 0xffffffff, 4);
    CHECK_EQ(c.stats.mmio_bad_access, 2);
    CHECK_EQ(h.guest_errors, 2);
    /* Doorbell space reads as zero and is not storage. */
    wr(E810_REGFILE_SIZE + 0x100, 5);
    CHECK_EQ(rd(E810_REGFILE_SIZE + 0x100), 0);
    teardown();
}

static void test_pf_reset(void)
{
    setup();
    wr(0x00080200, 0x800000C0);
    wr(PFGEN_CTRL, rd(PFGEN_CTRL) | PFGEN_CTRL_PFSWR);
    CHECK_EQ(rd(PFGEN_CTRL) & PFGEN_CTRL_PFSWR, 0);
    CHECK_EQ(rd(0x00080200), 0);           /* AQ registers back to reset */
    CHECK_EQ(rd(GLNVM_ULD), 0x73B);
    CHECK_EQ(c.stats.pf_resets, 1);
    teardown();
}

static void test_oicr_read_to_clear(void)
{
    setup();
    e810_reg_set(&c, PFINT_OICR, 0x40000000);
    CHECK_EQ(rd(PFINT_OICR), 0x40000000);
    CHECK_EQ(rd(PFINT_OICR), 0);
    teardown();
}

/* The attributes of the BAR0 register map (e810.c), one of each kind. */
static void test_register_map(void)
{
    static const uint32_t ro[] = {
        GLNVM_ULD, GLNVM_FLA, GLNVM_GENS, GLGEN_RSTAT, GLGEN_RSTCTL,
        GL_MNG_FWSM, PF_FUNC_RID, PFINT_ALLOC, GLGEN_STAT, GLPCI_LBARCTRL,
    };

    setup();
    for (size_t i = 0; i < sizeof(ro) / sizeof(ro[0]); i++) {
        uint32_t before = rd(ro[i]);

        wr(ro[i], ~before);
        CHECK_EQ(rd(ro[i]), before);
    }
    /* Write-one-to-clear. */
    e810_reg_set(&c, PFPM_WUS, 0x5);
    wr(PFPM_WUS, 0x4);
    CHECK_EQ(rd(PFPM_WUS), 0x1);
    e810_reg_set(&c, PFINT_OICR, 0x40000001);
    wr(PFINT_OICR, 0x1);
    CHECK_EQ(e810_reg(&c, PFINT_OICR), 0x40000000);
    /* A block's window leaves what its handler declines as storage:
     * PF_FW_ATQBAL in the admin queue's, PFHMC_PDINV in the RDMA
     * engine's, a gap between statistics registers in theirs. */
    wr(0x00080000, 0x12345000);
    CHECK_EQ(rd(0x00080000), 0x12345000);
    wr(0x00520300, 0x77);
    CHECK_EQ(rd(0x00520300), 0x77);
    wr(0x00381400 - 4, 0x99);
    CHECK_EQ(rd(0x00381400 - 4), 0x99);
    /* PFGEN_CTRL without PFSWR is storage; with it, a reset. */
    wr(PFGEN_CTRL, 0x10);
    CHECK_EQ(rd(PFGEN_CTRL), 0x10);
    CHECK_EQ(c.stats.pf_resets, 0);
    teardown();
}

static void test_automask(void)
{
    setup();
    /* A cause on a disabled vector is latched, not lost. */
    e810_intr_cause(&c, 3);
    CHECK_EQ(h.nirqs, 0);
    /* Enabling the vector fires the latched cause and auto-masks it. */
    wr(GLINT_DYN_CTL(3), GLINT_DYN_CTL_INTENA | GLINT_DYN_CTL_CLEARPBA |
       (3u << GLINT_DYN_CTL_ITR_INDX_S));
    CHECK_EQ(fake_irq_count(&h, 3), 1);
    CHECK_EQ(rd(GLINT_DYN_CTL(3)) & GLINT_DYN_CTL_INTENA, 0);
    /* While masked, a second cause waits for the re-arm. */
    e810_intr_cause(&c, 3);
    CHECK_EQ(fake_irq_count(&h, 3), 1);
    wr(GLINT_DYN_CTL(3), GLINT_DYN_CTL_INTENA);
    CHECK_EQ(fake_irq_count(&h, 3), 2);
    /* INTENA_MSK writes leave INTENA alone. */
    wr(GLINT_DYN_CTL(3), GLINT_DYN_CTL_INTENA);
    wr(GLINT_DYN_CTL(3), GLINT_DYN_CTL_INTENA_MSK);
    CHECK(rd(GLINT_DYN_CTL(3)) & GLINT_DYN_CTL_INTENA);
    /* A software trigger with INTENA produces an interrupt. */
    wr(GLINT_DYN_CTL(3), GLINT_DYN_CTL_SWINT_TRIG | GLINT_DYN_CTL_INTENA);
    CHECK_EQ(fake_irq_count(&h, 3), 3);
    /* Causes for vectors that do not exist are refused. */
    e810_intr_cause(&c, E810_MSIX_VECTORS);
    CHECK_EQ(h.guest_errors, 1);
    teardown();
}

static void test_rx_drop_counted(void)
{
    uint8_t frame[64] = { 0 };

    setup();
    CHECK_EQ(e810_receive(&c, frame, sizeof(frame)), sizeof(frame));
    CHECK_EQ(c.stats.rx_dropped, 1);
    teardown();
}

int main(void)
{
    RUN(test_reset_values);
    RUN(test_storage_and_readonly);
    RUN(test_bad_access);
    RUN(test_pf_reset);
    RUN(test_oicr_read_to_clear);
    RUN(test_register_map);
    RUN(test_automask);
    RUN(test_rx_drop_counted);
    return CHECK_DONE();
}
