/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 interrupt block: per-vector dynamic control and moderation
 * (GLINT_DYN_CTL, GLINT_ITR, GLINT_RATE, GLINT_CTL) and cause delivery as
 * MSI-X messages.  Cause routing registers (*_CTL) are read by the blocks
 * that raise the causes; they call e810_intr_cause_ctl().
 */
#include "qemu/osdep.h"
#include "dev.h"
#include "snap.h"
#include "../trace.h"


/*
 * Interrupt moderation, as the hardware does it.  Every cause latches in its
 * vector's pending_itr with the ITR index it is routed with (ITR_INDX of its
 * *_CTL register; 3 = no ITR).  A vector fires when a cause is pending,
 * INTENA is set, and since its last interrupt both
 *   - the ITR interval GLINT_ITR(i, v) has passed, for the smallest interval
 *     among the pending causes' indices i (a no-ITR cause: none), in units
 *     of the GLINT_CTL granularity (2 us), and
 *   - the rate limit GLINT_RATE(v).INTRL (4 us units) has, when INTRL_ENA.
 * If INTENA is set but a hold-off has not passed, the vector's timer runs
 * e810_intr_try_fire at the deadline.  A masked vector keeps its latch and is
 * evaluated again by every GLINT_DYN_CTL write (the re-arm), so no cause is
 * ever lost; ITR 0 (the reset value) means no hold-off.
 */

static int64_t e810_intr_holdoff(E810Core *c, unsigned v)
{
    E810Vector *vec = &c->vec[v];
    uint32_t gran = (e810_reg(c, GLINT_CTL) & GLINT_CTL_ITR_GRAN_25_M) >>
                    GLINT_CTL_ITR_GRAN_25_S;
    uint32_t rate = e810_reg(c, GLINT_RATE(v));
    int64_t itr = 0, intrl = 0;

    if (!(vec->pending_itr & (1u << E810_ITR_NONE))) {
        uint32_t min = GLINT_ITR_INTERVAL_M;

        for (unsigned i = 0; i < E810_ITR_INDICES; i++) {
            uint32_t iv = e810_reg(c, GLINT_ITR(i, v)) & GLINT_ITR_INTERVAL_M;

            if ((vec->pending_itr & (1u << i)) && iv < min) {
                min = iv;
            }
        }
        itr = (int64_t)min * (gran ? gran : E810_ITR_GRAN_DFLT_US) * 1000;
    }
    if (rate & GLINT_RATE_INTRL_ENA) {
        intrl = (int64_t)(rate & GLINT_RATE_INTRL_M) * E810_INTRL_GRAN_US * 1000;
    }
    return itr > intrl ? itr : intrl;
}

static void e810_intr_timer_cancel(E810Core *c, E810Vector *vec)
{
    if (vec->timer_armed) {
        vec->timer_armed = false;
        e810_timer_del(vec->timer);
    }
}

static void e810_intr_timer_cb(void *opaque);

/* Defer the vector's fire to @when; false if the host has no timers. */
static bool e810_intr_timer_arm(E810Core *c, E810Vector *vec, int64_t when)
{
    if (!vec->timer) {
        vec->timer = e810_timer_new(c, e810_intr_timer_cb, vec);
        if (!vec->timer) {
            return false;
        }
    }
    if (!vec->timer_armed || vec->timer_at != when) {
        vec->timer_armed = true;
        vec->timer_at = when;
        e810_timer_mod(vec->timer, when);
    }
    return true;
}

static void e810_intr_try_fire(E810Core *c, unsigned v)
{
    E810Vector *vec = &c->vec[v];
    uint32_t dyn = e810_reg(c, GLINT_DYN_CTL(v));
    int64_t now;

    if (!vec->pending_itr || !(dyn & GLINT_DYN_CTL_INTENA)) {
        /* Nothing to send, or masked: the re-arm write evaluates again. */
        e810_intr_timer_cancel(c, vec);
        return;
    }
    now = e810_now(c);
    if (vec->fired) {
        int64_t hold = e810_intr_holdoff(c, v);

        if (hold > 0 && now - vec->last_fire_ns < hold) {
            trace_e810_irq_holdoff(v, vec->pending_itr,
                                   vec->last_fire_ns + hold - now);
            if (e810_intr_timer_arm(c, vec, vec->last_fire_ns + hold)) {
                return;
            }
        }
    }
    e810_intr_timer_cancel(c, vec);
    vec->pending_itr = 0;
    vec->fired = true;
    vec->last_fire_ns = now;
    /* Auto-mask: the driver's handlers re-arm with INTENA; they never mask. */
    if (!(e810_reg(c, GLINT_CTL) & GLINT_CTL_DIS_AUTOMASK)) {
        e810_reg_set(c, GLINT_DYN_CTL(v), dyn & ~GLINT_DYN_CTL_INTENA);
    }
    c->stats.irq_raised++;
    trace_e810_irq_raise(v);
    if (e810_fault_msix(c, v)) {
        return;                 /* lost, as asked (fault.h) */
    }
    c->host.ops->msix_notify(c->host.opaque, v);
}

static void e810_intr_timer_cb(void *opaque)
{
    E810Vector *vec = opaque;
    E810Core *c = vec->core;

    vec->timer_armed = false;
    e810_intr_try_fire(c, vec - c->vec);
}

void e810_intr_cause_itr(E810Core *c, unsigned vector, unsigned itr_idx)
{
    if (vector >= E810_MSIX_VECTORS) {
        e810_guest_error(c, "interrupt cause routed to vector %u (of %u)",
                         vector, E810_MSIX_VECTORS);
        return;
    }
    trace_e810_irq_cause(vector);
    c->vec[vector].pending_itr |= 1u << (itr_idx & 3);
    e810_intr_try_fire(c, vector);
}

void e810_intr_cause_ctl(E810Core *c, uint32_t ctl)
{
    e810_intr_cause_itr(c, ctl & E810_CTL_MSIX_INDX_M,
                        (ctl & E810_CTL_ITR_INDX_M) >> E810_CTL_ITR_INDX_S);
}

void e810_intr_cause(E810Core *c, unsigned vector)
{
    e810_intr_cause_itr(c, vector, E810_ITR_NONE);
}

void e810_intr_oicr(E810Core *c, uint32_t bits)
{
    uint32_t ctl = e810_reg(c, PFINT_OICR_CTL);

    e810_reg_set(c, PFINT_OICR, e810_reg(c, PFINT_OICR) | bits);
    trace_e810_irq_oicr(bits, e810_reg(c, PFINT_OICR_ENA), ctl);
    if ((e810_reg(c, PFINT_OICR_ENA) & bits) && (ctl & E810_CTL_CAUSE_ENA)) {
        e810_intr_cause_ctl(c, ctl);
    }
}

void e810_intr_dyn_ctl_write(E810Core *c, unsigned v, uint32_t val)
{
    uint32_t old = e810_reg(c, GLINT_DYN_CTL(v));
    uint32_t keep = GLINT_DYN_CTL_INTENA;
    unsigned idx = (val & GLINT_DYN_CTL_ITR_INDX_M) >> GLINT_DYN_CTL_ITR_INDX_S;
    uint32_t next;

    /* INTENA_MSK: this write leaves INTENA as it is. */
    if (val & GLINT_DYN_CTL_INTENA_MSK) {
        next = (old & keep) | (val & ~keep);
    } else {
        next = val;
    }
    /* SWINT_TRIG, CLEARPBA and INTENA_MSK are actions, not state. */
    next &= ~(GLINT_DYN_CTL_SWINT_TRIG | GLINT_DYN_CTL_CLEARPBA |
              GLINT_DYN_CTL_INTENA_MSK);
    e810_reg_set(c, GLINT_DYN_CTL(v), next);
    /* INTERVAL sets the interval of ITR_INDX, unless that is "no ITR". */
    if (idx != E810_ITR_NONE) {
        e810_reg_set(c, GLINT_ITR(idx, v),
                     (val & GLINT_DYN_CTL_INTERVAL_M) >> GLINT_DYN_CTL_INTERVAL_S);
    }
    /*
     * A software interrupt is held off by the ITR SW_ITR_INDX names when
     * SW_ITR_INDX_ENA is set (ice_enable_interrupt leaving busy-poll), and
     * by none otherwise (ice_trigger_sw_intr: ITR_INDX 3, no SW_ITR_INDX).
     */
    if (val & GLINT_DYN_CTL_SWINT_TRIG) {
        unsigned sw = E810_ITR_NONE;

        if (val & GLINT_DYN_CTL_SW_ITR_INDX_ENA) {
            sw = (val & GLINT_DYN_CTL_SW_ITR_INDX_M) >>
                 GLINT_DYN_CTL_SW_ITR_INDX_S;
        }
        c->vec[v].pending_itr |= 1u << sw;
    }
    e810_intr_try_fire(c, v);
}

/* GLINT_ITR, GLINT_RATE and GLINT_CTL: a new interval moves a deferred fire. */
bool e810_intr_write(E810Core *c, uint32_t off, uint32_t val)
{
    unsigned first, last;

    if (off >= GLINT_ITR(0, 0) && off < GLINT_ITR(E810_ITR_INDICES, 0)) {
        first = last = (off - GLINT_ITR(0, 0)) % 0x2000 / 4;
    } else if (off >= GLINT_RATE(0) && off < GLINT_RATE(E810_MSIX_VECTORS)) {
        first = last = (off - GLINT_RATE(0)) / 4;
    } else if (off == GLINT_CTL) {
        first = 0;
        last = E810_MSIX_VECTORS - 1;
    } else {
        return false;
    }
    e810_reg_set(c, off, val);
    for (unsigned v = first; v <= last && v < E810_MSIX_VECTORS; v++) {
        if (c->vec[v].timer_armed) {
            e810_intr_try_fire(c, v);
        }
    }
    return true;
}

/* Reset: cancel deferred fires, forget latches; timers are kept for reuse. */
void e810_intr_reset(E810Core *c)
{
    for (unsigned v = 0; v < E810_MSIX_VECTORS; v++) {
        E810Vector *vec = &c->vec[v];
        E810CoreTimer *t = vec->timer;

        e810_intr_timer_cancel(c, vec);
        memset(vec, 0, sizeof(*vec));
        vec->core = c;
        vec->timer = t;
    }
}

void e810_intr_cleanup(E810Core *c)
{
    for (unsigned v = 0; v < E810_MSIX_VECTORS; v++) {
        E810Vector *vec = &c->vec[v];

        if (vec->timer) {
            e810_intr_timer_cancel(c, vec);
            e810_timer_free(vec->timer);
            vec->timer = NULL;
        }
    }
}


/* ---- saved state -------------------------------------------------------- */

/*
 * Largest clock value a saved vector may hold: the virtual clock is >= 0
 * and 2^62 ns is 146 years of uptime, far above anything reachable, while
 * now - last_fire_ns and last_fire_ns + holdoff stay clear of overflow.
 */
#define INTR_SNAP_NS_MAX    (INT64_MAX / 2)

/*
 * E810Vector: pending_itr, fired, timer_armed, last_fire_ns and timer_at
 * are saved.  Not saved: core (this core), timer (a host resource, made
 * on load when a fire is deferred).  The routing and moderation
 * registers (GLINT_*, *_CTL) are in the register file.
 */
static const E810SnapField intr_vec_fields[] = {
    /* one bit per ITR index 0-2 and "no ITR" (3) */
    SF_U(E810Vector, pending_itr, 0, 0xF),
    SF_BOOL(E810Vector, fired),
    SF_BOOL(E810Vector, timer_armed),
    SF_S(E810Vector, last_fire_ns, 0, INTR_SNAP_NS_MAX),
    SF_S(E810Vector, timer_at, 0, INTR_SNAP_NS_MAX),
    SF_END
};

static const E810SnapField intr_fields[] = {
    SF_SUBA(E810Core, vec, intr_vec_fields),
    SF_END
};


/* The deferred fires run at their saved deadlines (virtual clock). */
static bool intr_check(E810Core *c, E810SnapR *r)
{
    for (unsigned v = 0; v < E810_MSIX_VECTORS; v++) {
        E810Vector *vec = &c->vec[v];

        if (vec->timer_armed) {
            vec->timer_armed = false;
            /* A host without timers fires at the next re-arm instead. */
            e810_intr_timer_arm(c, vec, vec->timer_at);
        }
    }
    return true;
}

/* intr_fields describes the E810Core itself (offset 0). */
const E810SnapPart e810_intr_snap = {
    .name = "intr", .off = 0, .fields = intr_fields, .check = intr_check,
};
