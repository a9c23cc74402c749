/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 BAR0: general, reset, NVM and PCI registers.
 * Offsets and fields carry the names the hardware documentation and the ice
 * driver use (ice_hw_autogen.h).  Blocks with their own logic (admin queue,
 * interrupts, LAN queues, RDMA) have their own headers.
 */
#ifndef E810_REGS_H
#define E810_REGS_H

/* BAR0 layout */
#define E810_BAR0_SIZE              (32u << 20)
/* Plain register storage covers everything below this; above it live the
 * RDMA doorbell page and push pages, which are not storage. */
#define E810_REGFILE_SIZE           0x00600000u

#define PFGEN_CTRL                  0x00091000
#define   PFGEN_CTRL_PFSWR          (1u << 0)
#define PF_FUNC_RID                 0x0009E880
#define PFPM_WUS                    0x0009DB80
#define GLPCI_LBARCTRL              0x0009DE74
#define GLNVM_GENS                  0x000B6100
#define   GLNVM_GENS_SR_SIZE_S      5
#define GLNVM_FLA                   0x000B6108
#define   GLNVM_FLA_LOCKED          (1u << 6)
#define GLNVM_ULD                   0x000B6008
#define   GLNVM_ULD_PCIER_DONE      (1u << 0)
#define   GLNVM_ULD_PCIER_DONE_1    (1u << 1)
#define   GLNVM_ULD_CORER_DONE      (1u << 3)
#define   GLNVM_ULD_GLOBR_DONE      (1u << 4)
#define   GLNVM_ULD_POR_DONE        (1u << 5)
#define   GLNVM_ULD_POR_DONE_1      (1u << 8)
#define   GLNVM_ULD_PCIER_DONE_2    (1u << 9)
#define   GLNVM_ULD_PE_DONE         (1u << 10)
#define GLGEN_STAT                  0x000B612C
#define GL_MNG_FWSM                 0x000B6134
#define GLGEN_RSTCTL                0x000B8180
/* DCBX status of the firmware's LLDP agent (bits 2:0; 2 done, 7 off) */
#define PRTDCB_GENS                 0x00083020
#define   PRTDCB_GENS_DCBX_DONE     2
#define   GLGEN_RSTCTL_GRSTDEL_M    0x3Fu       /* 100 ms units */
#define GLGEN_RSTAT                 0x000B8188
#define   GLGEN_RSTAT_DEVSTATE_M    0x3u        /* non-zero: in reset */
#define   GLGEN_RSTAT_RESET_TYPE_S  2
#define   GLGEN_RSTAT_RESET_CORER   1
#define   GLGEN_RSTAT_RESET_GLOBR   2
#define GLGEN_RTRIG                 0x000B8190
#define   GLGEN_RTRIG_CORER         (1u << 0)
#define   GLGEN_RTRIG_GLOBR         (1u << 1)
#define GL_PWR_MODE_CTL             0x000B820C
#define GLGEN_CLKSTAT_SRC           0x000B826C
#define GLPCI_CNF2                  0x000BE004

/* Flow director filter space: guaranteed (14:0) and best-effort (30:16). */
#define GLQF_FD_SIZE                0x00460010
#define GLQF_FD_CNT                 0x00460018
#define PFQF_FD_SIZE                0x00460100
#define E810_FD_FILTERS             16384
#define E810_FD_GUAR                8192
#define E810_FD_BEST_EFFORT         8192

#endif
