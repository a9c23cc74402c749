/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Core unit tests: interrupt moderation (GLINT_ITR, GLINT_RATE, the INTERVAL
 * of GLINT_DYN_CTL, GLINT_CTL granularity) and that no cause is ever lost.
 */
#include "core-fixture.h"
#include "check.h"

#define US      1000ll
#define V       5               /* the vector under test */

/* ice_enable_interrupt / ice_irq_dynamic_ena: INTENA | CLEARPBA, ITR_INDX 3. */
static void rearm(unsigned v)
{
    wr(GLINT_DYN_CTL(v), GLINT_DYN_CTL_INTENA | GLINT_DYN_CTL_CLEARPBA |
       (E810_ITR_NONE << GLINT_DYN_CTL_ITR_INDX_S));
}

/* A queue cause as QINT_RQCTL/QINT_TQCTL route it. */
static void cause(unsigned v, unsigned itr)
{
    e810_intr_cause_ctl(&c, E810_CTL_CAUSE_ENA | itr << E810_CTL_ITR_INDX_S | v);
}

static unsigned irqs(void)
{
    return fake_irq_count(&h, V);
}

static bool intena(void)
{
    return rd(GLINT_DYN_CTL(V)) & GLINT_DYN_CTL_INTENA;
}

/* ice_write_itr: GLINT_ITR in 2 us units. */
static void set_itr(unsigned idx, unsigned usecs)
{
    wr(GLINT_ITR(idx, V), usecs / 2);
}

/* Re-armed V and a cause of ITR index @itr on it. */
static void rearm_cause(unsigned itr)
{
    rearm(V);
    cause(V, itr);
}

/* After @ns of virtual time, @n interrupts on V in all. */
#define IRQS_AFTER(ns, n) do { \
    fake_host_advance(&h, ns); \
    CHECK_EQ(irqs(), n); \
} while (0)

/* Fire once at the current time, so that a hold-off starts now. */
static void first_fire(void)
{
    unsigned n = irqs();

    rearm_cause(0);
    CHECK_EQ(irqs(), n + 1);
    CHECK(!intena());
}

/* The set-up, ITR @idx of V at @usecs and its first interrupt at the
 * current time (a hold-off starts). */
static void setup_fired(unsigned idx, unsigned usecs)
{
    setup();
    set_itr(idx, usecs);
    first_fire();
}

static void test_itr_zero_is_immediate(void)
{
    setup();
    /* Reset: every GLINT_ITR is 0, so back-to-back interrupts are allowed. */
    for (unsigned i = 1; i <= 5; i++) {
        rearm_cause(i % 3);
        CHECK_EQ(irqs(), i);
    }
    CHECK_EQ(c.stats.irq_raised, 5);
    teardown();
}

static void test_first_cause_is_immediate(void)
{
    setup();
    set_itr(0, 50);
    h.now = 1000 * US;
    rearm_cause(0);
    CHECK_EQ(irqs(), 1);
    teardown();
}

static void test_cause_during_holdoff(void)
{
    setup_fired(0, 50);                 /* t = 0 */
    fake_host_advance(&h, 10 * US);
    rearm(V);                           /* NAPI done, nothing pending */
    CHECK_EQ(irqs(), 1);
    fake_host_advance(&h, 10 * US);
    cause(V, 0);                        /* t = 20: held off until 50 */
    cause(V, 0);
    CHECK_EQ(irqs(), 1);
    CHECK(intena());
    IRQS_AFTER(30 * US - 1, 1);
    IRQS_AFTER(1, 2);                   /* both causes: one interrupt */
    CHECK(!intena());                   /* auto-masked as usual */
    /* The next hold-off counts from this interrupt (t = 50). */
    rearm(V);
    fake_host_advance(&h, 49 * US);
    cause(V, 0);
    CHECK_EQ(irqs(), 2);
    IRQS_AFTER(1 * US, 3);
    teardown();
}

static void test_rearm_during_holdoff(void)
{
    setup_fired(0, 50);
    fake_host_advance(&h, 5 * US);
    cause(V, 0);                        /* masked: latched, no timer yet */
    IRQS_AFTER(15 * US, 1);
    rearm(V);                           /* t = 20: deferred to 50 */
    CHECK_EQ(irqs(), 1);
    IRQS_AFTER(30 * US, 2);
    /* A re-arm after the hold-off fires a latched cause at once. */
    cause(V, 0);
    IRQS_AFTER(60 * US, 2);
    rearm(V);
    CHECK_EQ(irqs(), 3);
    teardown();
}

static void test_cause_while_masked_never_lost(void)
{
    setup_fired(1, 100);
    cause(V, 1);
    /* Long after the hold-off, still masked: nothing is sent... */
    IRQS_AFTER(10000 * US, 1);
    /* ...and the re-arm delivers it. */
    rearm(V);
    CHECK_EQ(irqs(), 2);
    teardown();
}

static void test_smallest_pending_interval(void)
{
    setup();
    set_itr(0, 100);                    /* Rx */
    set_itr(1, 20);                     /* Tx */
    first_fire();
    rearm(V);
    fake_host_advance(&h, 5 * US);
    cause(V, 0);                        /* due at 100 */
    fake_host_advance(&h, 1 * US);
    cause(V, 1);                        /* due at 20: wins */
    IRQS_AFTER(14 * US - 1, 1);
    IRQS_AFTER(1, 2);
    /* Both were served by that interrupt: none at 100. */
    rearm(V);
    IRQS_AFTER(200 * US, 2);
    teardown();
}

static void test_no_itr_cause_bypasses_itr(void)
{
    setup_fired(0, 50);
    rearm(V);
    fake_host_advance(&h, 1 * US);
    cause(V, 0);                        /* held off */
    CHECK_EQ(irqs(), 1);
    cause(V, E810_ITR_NONE);            /* e.g. CEQ/AEQ with ITR_INDX 3 */
    CHECK_EQ(irqs(), 2);
    /* The held-off cause was served too: its timer is gone. */
    rearm(V);
    IRQS_AFTER(100 * US, 2);
    /* e810_intr_cause is a no-ITR cause. */
    e810_intr_cause(&c, V);
    CHECK_EQ(irqs(), 3);
    teardown();
}

static void test_rate_limit(void)
{
    setup();
    /* ice_write_intrl(4 us) with ITR 0: one interrupt per 4 us at most. */
    wr(GLINT_RATE(V), GLINT_RATE_INTRL_ENA | 1);
    first_fire();
    rearm_cause(0);
    CHECK_EQ(irqs(), 1);
    IRQS_AFTER(4 * US, 2);
    /* The rate limit holds off no-ITR causes as well. */
    rearm_cause(E810_ITR_NONE);
    CHECK_EQ(irqs(), 2);
    IRQS_AFTER(4 * US, 3);
    /* Both limits: the later one decides. */
    wr(GLINT_RATE(V), GLINT_RATE_INTRL_ENA | 10);  /* 40 us */
    set_itr(0, 20);
    rearm_cause(0);
    IRQS_AFTER(39 * US, 3);
    IRQS_AFTER(1 * US, 4);
    /* INTRL without its enable bit is off. */
    wr(GLINT_RATE(V), 10);
    set_itr(0, 0);
    rearm_cause(0);
    CHECK_EQ(irqs(), 5);
    teardown();
}

static void test_dyn_ctl_interval(void)
{
    setup();
    /* ITR_INDX 1 with INTERVAL 25 (50 us) sets GLINT_ITR(1, v). */
    wr(GLINT_DYN_CTL(V), GLINT_DYN_CTL_INTENA | (1u << GLINT_DYN_CTL_ITR_INDX_S) |
       (25u << GLINT_DYN_CTL_INTERVAL_S));
    CHECK_EQ(rd(GLINT_ITR(1, V)), 25);
    /* ITR_INDX 3 updates nothing. */
    wr(GLINT_DYN_CTL(V), GLINT_DYN_CTL_INTENA | (3u << GLINT_DYN_CTL_ITR_INDX_S) |
       (7u << GLINT_DYN_CTL_INTERVAL_S));
    CHECK_EQ(rd(GLINT_ITR(0, V)), 0);
    CHECK_EQ(rd(GLINT_ITR(1, V)), 25);
    CHECK_EQ(rd(GLINT_ITR(2, V)), 0);
    /* ... and the interval holds off causes of index 1. */
    cause(V, 1);
    CHECK_EQ(irqs(), 1);
    rearm_cause(1);
    IRQS_AFTER(50 * US - 1, 1);
    IRQS_AFTER(1, 2);
    /* icrdma_ena_irq: ITR_INDX 0, INTERVAL 0, INTENA | CLEARPBA. */
    set_itr(0, 40);
    wr(GLINT_DYN_CTL(V), GLINT_DYN_CTL_INTENA | GLINT_DYN_CTL_CLEARPBA);
    CHECK_EQ(rd(GLINT_ITR(0, V)), 0);
    cause(V, 0);
    CHECK_EQ(irqs(), 3);
    teardown();
}

static void test_swint(void)
{
    setup();
    set_itr(0, 50);
    set_itr(1, 50);
    first_fire();
    /* ice_trigger_sw_intr (Tx hang check, queue disable): no ITR. */
    wr(GLINT_DYN_CTL(V), (E810_ITR_NONE << GLINT_DYN_CTL_ITR_INDX_S) |
       GLINT_DYN_CTL_SWINT_TRIG | GLINT_DYN_CTL_INTENA);
    CHECK_EQ(irqs(), 2);
    CHECK(!intena());
    /* ...while masked it waits for INTENA, like any cause. */
    fake_host_advance(&h, 10 * US);
    wr(GLINT_DYN_CTL(V), (E810_ITR_NONE << GLINT_DYN_CTL_ITR_INDX_S) |
       GLINT_DYN_CTL_SWINT_TRIG | GLINT_DYN_CTL_INTENA_MSK);
    CHECK_EQ(irqs(), 2);
    rearm(V);
    CHECK_EQ(irqs(), 3);                /* t = 10 */
    /*
     * ice_enable_interrupt leaving busy-poll: ITR2 := 50 us and a software
     * interrupt held off by ITR2.
     */
    fake_host_advance(&h, 10 * US);     /* t = 20 */
    wr(GLINT_DYN_CTL(V), GLINT_DYN_CTL_INTENA | GLINT_DYN_CTL_CLEARPBA |
       (2u << GLINT_DYN_CTL_ITR_INDX_S) | (25u << GLINT_DYN_CTL_INTERVAL_S) |
       GLINT_DYN_CTL_SWINT_TRIG | GLINT_DYN_CTL_SW_ITR_INDX_ENA |
       (2u << GLINT_DYN_CTL_SW_ITR_INDX_S));
    CHECK_EQ(rd(GLINT_ITR(2, V)), 25);
    CHECK_EQ(irqs(), 3);
    IRQS_AFTER(40 * US - 1, 3);
    IRQS_AFTER(1, 4);                   /* t = 60 = 10 + 50 */
    /* SWINT_TRIG is an action: it reads back as 0. */
    CHECK_EQ(rd(GLINT_DYN_CTL(V)) & GLINT_DYN_CTL_SWINT_TRIG, 0);
    teardown();
}

static void test_disable_with_timer_pending(void)
{
    setup_fired(1, 50);
    rearm_cause(1);                     /* deferred to 50 */
    wr(GLINT_DYN_CTL(V), 0);            /* ice_vsi_dis_irq */
    IRQS_AFTER(200 * US, 1);
    /* The cause is still latched: enabling the vector delivers it. */
    rearm(V);
    CHECK_EQ(irqs(), 2);
    /* Disabled and re-enabled within the hold-off: fires at its end. */
    rearm_cause(1);
    wr(GLINT_DYN_CTL(V), 0);
    fake_host_advance(&h, 10 * US);
    rearm(V);
    CHECK_EQ(irqs(), 2);
    IRQS_AFTER(40 * US, 3);
    /* Writing 0 is ITR_INDX 0 with INTERVAL 0: it clears ITR0 only. */
    set_itr(0, 50);
    wr(GLINT_DYN_CTL(V), 0);
    CHECK_EQ(rd(GLINT_ITR(0, V)), 0);
    CHECK_EQ(rd(GLINT_ITR(1, V)), 25);
    teardown();
}

static void test_pf_reset_cancels(void)
{
    setup_fired(0, 50);
    rearm_cause(0);                     /* deferred */
    wr(PFGEN_CTRL, PFGEN_CTRL_PFSWR);
    CHECK_EQ(rd(GLINT_ITR(0, V)), 0);
    CHECK(!intena());
    IRQS_AFTER(200 * US, 1);
    /* The reset forgot the cause and the hold-off. */
    rearm(V);
    CHECK_EQ(irqs(), 1);
    /* Moderation works again after the reset (the timer is reused). */
    set_itr(0, 50);
    cause(V, 0);
    CHECK_EQ(irqs(), 2);
    rearm_cause(0);
    CHECK_EQ(irqs(), 2);
    IRQS_AFTER(50 * US, 3);
    teardown();
}

static void test_itr_write_moves_deadline(void)
{
    setup_fired(0, 100);
    rearm(V);
    fake_host_advance(&h, 10 * US);
    cause(V, 0);                        /* due at 100 */
    set_itr(0, 30);                     /* DIM lowers it: due at 30 */
    IRQS_AFTER(20 * US - 1, 1);
    IRQS_AFTER(1, 2);
    /* Lowered below the time already waited: fires at once. */
    set_itr(0, 100);
    rearm(V);
    fake_host_advance(&h, 40 * US);
    cause(V, 0);
    CHECK_EQ(irqs(), 2);
    set_itr(0, 20);
    CHECK_EQ(irqs(), 3);
    /* Raised: fires later. */
    rearm(V);
    set_itr(0, 10);
    fake_host_advance(&h, 5 * US);
    cause(V, 0);                        /* due at +10 */
    set_itr(0, 60);
    IRQS_AFTER(10 * US, 3);
    IRQS_AFTER(45 * US, 4);
    teardown();
}

static void test_itr_granularity(void)
{
    setup();
    /* ice_cfg_itr_gran: 2 us in every speed class, automask on. */
    wr(GLINT_CTL, 2u << 16 | 2u << 20 | 2u << 24 | 2u << 28);
    wr(GLINT_ITR(0, V), 10);            /* 20 us */
    first_fire();
    rearm_cause(0);
    IRQS_AFTER(20 * US, 2);
    /* A 4 us granularity doubles the interval. */
    wr(GLINT_CTL, 4u << 28);
    rearm_cause(0);
    IRQS_AFTER(20 * US, 2);
    IRQS_AFTER(20 * US, 3);
    teardown();
}

static void test_no_automask(void)
{
    setup();
    wr(GLINT_CTL, GLINT_CTL_DIS_AUTOMASK);
    set_itr(0, 50);
    rearm_cause(0);
    CHECK_EQ(irqs(), 1);
    CHECK(intena());
    /* INTENA stays: the ITR alone paces the vector. */
    for (int i = 0; i < 10; i++) {
        fake_host_advance(&h, 4 * US);
        cause(V, 0);
    }
    CHECK_EQ(irqs(), 1);
    IRQS_AFTER(10 * US, 2);
    teardown();
}

static void test_vectors_independent(void)
{
    setup_fired(0, 50);
    rearm_cause(0);                     /* V held off */
    rearm(V + 1);
    cause(V + 1, 0);                    /* V + 1 never fired: immediate */
    CHECK_EQ(fake_irq_count(&h, V + 1), 1);
    CHECK_EQ(irqs(), 1);
    IRQS_AFTER(50 * US, 2);
    CHECK_EQ(fake_irq_count(&h, V + 1), 1);
    teardown();
}

static void test_cleanup_frees_timers(void)
{
    setup_fired(0, 50);
    rearm_cause(0);
    CHECK(c.vec[V].timer != NULL);
    e810_core_cleanup(&c);
    /* The fake host's timer_free disarms and forgets the callback. */
    for (unsigned i = 0; i < h.ntimers; i++) {
        CHECK(h.timers[i].cb == NULL);
    }
    CHECK(c.vec[V].timer == NULL);
    IRQS_AFTER(100 * US, 1);
    fake_host_cleanup(&h);
}

int main(void)
{
    RUN(test_itr_zero_is_immediate);
    RUN(test_first_cause_is_immediate);
    RUN(test_cause_during_holdoff);
    RUN(test_rearm_during_holdoff);
    RUN(test_cause_while_masked_never_lost);
    RUN(test_smallest_pending_interval);
    RUN(test_no_itr_cause_bypasses_itr);
    RUN(test_rate_limit);
    RUN(test_dyn_ctl_interval);
    RUN(test_swint);
    RUN(test_disable_with_timer_pending);
    RUN(test_pf_reset_cancels);
    RUN(test_itr_write_moves_deadline);
    RUN(test_itr_granularity);
    RUN(test_no_automask);
    RUN(test_vectors_independent);
    RUN(test_cleanup_frees_timers);
    return CHECK_DONE();
}
