/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 interrupt block: per-vector dynamic control (GLINT_*), cause routing
 * (QINT_*, PFINT_*_CTL) and the other-cause register PFINT_OICR.
 */
#ifndef E810_INTR_H
#define E810_INTR_H

#define E810_MSIX_VECTORS           64

#define GLINT_DYN_CTL(v)            (0x00160000 + 4 * (v))
#define   GLINT_DYN_CTL_INTENA      (1u << 0)
#define   GLINT_DYN_CTL_CLEARPBA    (1u << 1)
#define   GLINT_DYN_CTL_SWINT_TRIG  (1u << 2)
#define   GLINT_DYN_CTL_ITR_INDX_S  3
#define   GLINT_DYN_CTL_ITR_INDX_M  (3u << 3)
#define   GLINT_DYN_CTL_INTERVAL_S  5
#define   GLINT_DYN_CTL_INTERVAL_M  (0xFFFu << 5)
#define   GLINT_DYN_CTL_SW_ITR_INDX_ENA (1u << 24)
#define   GLINT_DYN_CTL_SW_ITR_INDX_S 25
#define   GLINT_DYN_CTL_SW_ITR_INDX_M (3u << 25)
#define   GLINT_DYN_CTL_WB_ON_ITR   (1u << 30)
#define   GLINT_DYN_CTL_INTENA_MSK  (1u << 31)
/* ITR_INDX values: three interval registers, and 3 = "no ITR". */
#define E810_ITR_INDICES            3
#define E810_ITR_NONE               3
#define GLINT_ITR(i, v)             (0x00154000 + 0x2000 * (i) + 4 * (v))
#define   GLINT_ITR_INTERVAL_M      0xFFFu
#define GLINT_RATE(v)               (0x0015A000 + 4 * (v))
#define   GLINT_RATE_INTRL_M        0x3Fu
#define   GLINT_RATE_INTRL_ENA      (1u << 6)
#define   E810_INTRL_GRAN_US        4
#define GLINT_CTL                   0x0016CC54
#define   GLINT_CTL_DIS_AUTOMASK    (1u << 0)
/* ITR granularity in us per link-speed class; the PHY reports 25G. */
#define   GLINT_CTL_ITR_GRAN_25_S   28
#define   GLINT_CTL_ITR_GRAN_25_M   (0xFu << 28)
#define   E810_ITR_GRAN_DFLT_US     2
#define GLINT_CEQCTL(v)             (0x0015C000 + 4 * (v))

#define PFINT_ALLOC                 0x001D2600
#define PFINT_OICR                  0x0016CA00
#define   PFINT_OICR_SWINT          (1u << 31)
#define PFINT_OICR_ENA              0x0016C900
#define PFINT_OICR_CTL              0x0016CA80
#define PFINT_FW_CTL                0x0016C800
#define PFINT_MBX_CTL               0x0016B280
#define PFINT_SB_CTL                0x0016B600
#define PFINT_AEQCTL                0x0016CB00
/* Common layout of the *_CTL cause-routing registers. */
#define   E810_CTL_MSIX_INDX_M      0x7FFu
#define   E810_CTL_ITR_INDX_S       11
#define   E810_CTL_ITR_INDX_M       (3u << 11)
#define   E810_CTL_CAUSE_ENA        (1u << 30)

#define QINT_TQCTL(q)               (0x00140000 + 4 * (q))
#define QINT_RQCTL(q)               (0x00150000 + 4 * (q))

#endif
