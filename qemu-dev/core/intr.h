/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 interrupt block: per-vector dynamic control (GLINT_*), cause routing
 * (QINT_*, PFINT_*_CTL) and the other-cause register PFINT_OICR.
 */
#ifndef E810_INTR_H
#define E810_INTR_H

#include "types.h"

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
#define   PFINT_OICR_GRST           (1u << 20)  /* adapter reset warning */
#define   PFINT_OICR_HMC_ERR        (1u << 26)
#define   PFINT_OICR_PE_CRITERR     (1u << 28)  /* RDMA engine critical error */
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

/* One MSI-X vector's moderation state. */
typedef struct E810Vector {
    E810Core *core;             /* for the timer callback */
    uint8_t pending_itr;        /* causes latched: bit i = ITR index i (3: none) */
    bool fired;                 /* last_fire_ns is valid */
    bool timer_armed;
    int64_t last_fire_ns;       /* virtual clock at the last MSI-X message */
    int64_t timer_at;           /* when timer_armed */
    E810CoreTimer *timer;       /* deferred fire, created on first use */
} E810Vector;

/*
 * Interrupt causes: latch a cause for @vector and fire it if enabled, once
 * the vector's ITR interval for @itr_idx (0-2; 3 = no ITR) and its rate
 * limit since its last interrupt have passed.
 */
void e810_intr_cause_itr(E810Core *c, unsigned vector, unsigned itr_idx);
/* A cause routed by a *_CTL register value (MSIX_INDX 10:0, ITR_INDX 12:11). */
void e810_intr_cause_ctl(E810Core *c, uint32_t ctl);
/* A cause that no ITR holds off (ITR index 3). */
void e810_intr_cause(E810Core *c, unsigned vector);
/* Other causes @bits (PFINT_OICR_*) latched in PFINT_OICR; the vector
 * PFINT_OICR_CTL names fires if PFINT_OICR_ENA enables one of them. */
void e810_intr_oicr(E810Core *c, uint32_t bits);

/* GLINT_DYN_CTL(@v) write: re-arm, software trigger, interval update. */
void e810_intr_dyn_ctl_write(E810Core *c, unsigned v, uint32_t val);
/* GLINT_ITR / GLINT_RATE / GLINT_CTL writes; true if @off is one of them. */
bool e810_intr_write(E810Core *c, uint32_t off, uint32_t val);
void e810_intr_reset(E810Core *c);
void e810_intr_cleanup(E810Core *c);
/* Saved state: the vectors' moderation state (snap.h); load re-arms the
 * deferred fires at their saved deadlines. */
extern const struct E810SnapPart e810_intr_snap;

#endif
