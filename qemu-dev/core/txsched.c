/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 transmit scheduling: non-blocking frame output with back-pressure,
 * the budget per entry point, and scheduling the bottom half that runs
 * the deferred RDMA data path (see txsched.h; the bottom half is e810.c's).
 */
#include "qemu/osdep.h"
#include "dev.h"
#include "snap.h"
#include "trace.h"

/*
 * The budget and the gate's count are per entry point.  The entry guard
 * (services.c, below this file) only numbers the entries; the count is
 * renewed here on its first use in a new one.
 */
static E810TxSched *tx_entry(E810Core *c)
{
    E810TxSched *t = &c->txs;

    if (t->entry != c->entry) {
        t->entry = c->entry;
        t->budget = c->tx_budget && c->tx_budget < E810_TX_BUDGET ?
                    c->tx_budget : E810_TX_BUDGET;
        t->entry_sent = 0;
    }
    return t;
}

void e810_tx_schedule(E810Core *c)
{
    E810TxSched *t = &c->txs;

    if (t->scheduled || !t->bh) {
        return;
    }
    t->scheduled = true;
    c->host.ops->bh_schedule(c->host.opaque, t->bh);
}

bool e810_wire_send(E810Core *c, const void *frame, size_t len, bool flow)
{
    E810TxSched *t = tx_entry(c);

    e810_tx_spend(c);
    if (flow) {
        if (t->entry_sent >= E810_TX_ENTRY_MAX) {
            t->stats.capped_entry++;
            trace_e810_tx_capped("entry", t->entry_sent, t->queued);
            return false;
        }
        if (t->queued >= E810_TX_QUEUED_MAX) {
            t->stats.capped_queued++;
            trace_e810_tx_capped("queued", t->entry_sent, t->queued);
            return false;
        }
        t->entry_sent++;
        if (t->entry_sent > t->stats.entry_max) {
            t->stats.entry_max = t->entry_sent;
        }
    }
    if (t->blocked && !e810_tx_backed_up(c)) {
        flow = false;       /* past the grace: a lossy wire, QEMU's limit */
    }
    switch (c->host.ops->send_frame(c->host.opaque, frame, len, flow)) {
    case E810_TX_SENT:
        return true;
    case E810_TX_QUEUED:
        t->queued++;
        t->stats.queued++;
        if (t->queued > t->stats.queued_max) {
            t->stats.queued_max = t->queued;
        }
        if (!t->blocked) {
            t->blocked = true;
            t->blocked_at = e810_now(c);
            t->stats.blocked++;
            trace_e810_tx_blocked(t->queued, t->stats.blocked);
            /* A backend that never drains (a hub port with no peer, a
             * stopped peer) must not hold the engines past the grace
             * until some other event comes: the timer resumes them. */
            if (t->grace) {
                e810_timer_mod(t->grace, t->blocked_at + E810_TX_GRACE_NS);
            }
        }
        return true;
    default:
        return false;
    }
}

void e810_tx_spend(E810Core *c)
{
    E810TxSched *t = tx_entry(c);

    if (t->budget) {
        t->budget--;
    }
}

bool e810_tx_may_send(E810Core *c)
{
    E810TxSched *t = tx_entry(c);

    if (e810_tx_backed_up(c)) {
        return false;       /* e810_tx_drained() schedules the resume */
    }
    if (!t->budget) {
        if (!t->scheduled) {
            t->stats.yields++;
        }
        e810_tx_schedule(c);
        return false;
    }
    return true;
}

bool e810_tx_backed_up(E810Core *c)
{
    return c->txs.blocked && e810_now(c) - c->txs.blocked_at < E810_TX_GRACE_NS;
}

/*
 * The host delivered (or discarded) one frame it had queued.  Called from
 * the host's queue flush, possibly inside a send of our own: only state
 * changes here, the work resumes from the bottom half.
 */
void e810_tx_drained(E810Core *c, bool delivered)
{
    E810TxSched *t = &c->txs;

    if (!delivered) {
        t->stats.lost_queued++;
        c->stats.tx_dropped++;
        trace_e810_tx_queued_lost(t->stats.lost_queued);
    }
    if (t->queued) {
        t->queued--;
    }
    if (!t->queued && t->blocked) {
        t->blocked = false;
        t->stats.resumed++;
        trace_e810_tx_resumed(e810_now(c) - t->blocked_at, t->stats.resumed);
        e810_tx_schedule(c);
    }
}

/* The bottom half, inside the entry guard; false while backed up. */
bool e810_txsched_bh_start(E810Core *c)
{
    E810TxSched *t = &c->txs;

    t->scheduled = false;
    t->stats.bh_runs++;
    return !e810_tx_backed_up(c);
}

/* The grace of a full backend is over: what waited for it goes on. */
static void tx_grace_end(void *opaque)
{
    E810Core *c = opaque;

    if (c->txs.blocked) {
        e810_tx_schedule(c);
    }
}

void e810_txsched_init(E810Core *c, E810TimerCb *bh_cb)
{
    if (c->host.ops->bh_new) {
        c->txs.bh = c->host.ops->bh_new(c->host.opaque, bh_cb, c);
    }
    c->txs.grace = e810_timer_new(c, tx_grace_end, c);
}

void e810_txsched_cleanup(E810Core *c)
{
    if (c->txs.grace) {
        e810_timer_free(c->txs.grace);
        c->txs.grace = NULL;
    }
    if (c->txs.bh) {
        c->host.ops->bh_free(c->host.opaque, c->txs.bh);
        c->txs.bh = NULL;
    }
}

/* ---- saved state -------------------------------------------------------- */

/*
 * E810TxSched: stats is saved.  Derived on load: blocked, queued and
 * blocked_at (0: the source's backend and what it held are gone), entry,
 * budget and entry_sent (renewed by tx_entry in the next entry point),
 * scheduled (mirrors the host's bottom half; e810_core_resume schedules
 * it).  Host resources: bh, grace (the timer is stopped).
 */
static const E810SnapField txsched_stats_fields[] = {
    SF_UX(E810TxSchedStats, queued),
    SF_UX(E810TxSchedStats, blocked),
    SF_UX(E810TxSchedStats, resumed),
    SF_UX(E810TxSchedStats, lost_queued),
    SF_UX(E810TxSchedStats, bh_runs),
    SF_UX(E810TxSchedStats, yields),
    SF_UX(E810TxSchedStats, capped_entry),
    SF_UX(E810TxSchedStats, capped_queued),
    SF_UX(E810TxSchedStats, entry_max),
    SF_UX(E810TxSchedStats, queued_max),
    SF_END
};


/* Load leaves the device unblocked (the backend's frames are gone). */
static bool txsched_check(E810Core *c, E810SnapR *r)
{
    E810TxSched *t = &c->txs;

    t->blocked = false;
    t->queued = 0;
    t->blocked_at = 0;
    e810_timer_del(t->grace);
    return true;
}

const E810SnapPart e810_txsched_snap =
    E810_SNAP_FLAT("txsched.stats", txs.stats, txsched_stats_fields,
                   txsched_check);
