/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 transmit scheduling: frames go to the host without ever blocking,
 * and the RDMA data path runs deferred.
 *
 * An RDMA SQ doorbell only notes that its QP has work and schedules the
 * device's bottom half, which runs the engines' transmit paths.  Every
 * device entry point (MMIO, a received frame, a timer, the bottom half)
 * may send E810_TX_BUDGET frames of RDMA data; past that the engines note
 * their work as pending and the bottom half continues it later, so a
 * large transfer never holds a vCPU or the main loop for long.
 *
 * When the host answers E810_TX_QUEUED (its backend cannot take more) the
 * device is "tx blocked": the frame is delivered later by the host, and
 * the RDMA engines build no new ones until the host has handed on every
 * queued frame (e810_tx_drained); then the bottom half resumes them.
 * LAN frames go to the host without back-pressure (as before: QEMU queues
 * or drops them), so an ice Tx ring never hangs on the peer.
 */
#ifndef E810_TXSCHED_H
#define E810_TXSCHED_H

#include "types.h"

/* RDMA data frames per device entry point. */
#define E810_TX_BUDGET              64

/*
 * The gate's hard limits, whatever an engine does (docs/architecture.md,
 * "Bounded work"): at most E810_TX_ENTRY_MAX flow-controlled frames leave
 * in one entry point (the data budget plus acknowledgements and control
 * frames), and at most E810_TX_QUEUED_MAX of them wait in the host's
 * queue.  A frame past either limit is dropped and counted, as a lossy
 * wire would lose it; the engines' own checks (e810_tx_may_send) keep
 * them well below, so a drop here means an engine path forgot to ask.
 */
#define E810_TX_ENTRY_MAX           (2 * E810_TX_BUDGET)
#define E810_TX_QUEUED_MAX          (2 * E810_TX_BUDGET)

typedef struct E810TxSchedStats {
    uint64_t queued;            /* frames the host queued (backend full) */
    uint64_t blocked;           /* times sending stopped on a full backend */
    uint64_t resumed;           /* ... and started again when it drained */
    uint64_t lost_queued;       /* queued frames the host discarded */
    uint64_t bh_runs;           /* bottom-half runs */
    uint64_t yields;            /* entries that ran out of budget */
    uint64_t capped_entry;      /* dropped: E810_TX_ENTRY_MAX in one entry */
    uint64_t capped_queued;     /* dropped: E810_TX_QUEUED_MAX held */
    unsigned entry_max;         /* most flow frames handed in one entry */
    unsigned queued_max;        /* most flow frames the host held at once */
} E810TxSchedStats;

typedef struct E810TxSched {
    E810Bh *bh;
    bool scheduled;             /* the bottom half is due */
    bool blocked;               /* backend full: no new frames */
    unsigned queued;            /* frames the host still holds for us */
    uint64_t entry;             /* the entry budget and entry_sent count in */
    unsigned budget;            /* RDMA data frames left in this entry */
    unsigned entry_sent;        /* flow frames handed in this entry */
    int64_t blocked_at;         /* clock when it blocked */
    struct E810CoreTimer *grace; /* wakes the engines when the grace ends */
    E810TxSchedStats stats;
} E810TxSched;

/* Hand one frame to the host; false if it was lost (the caller counts
 * it).  A queued frame is not lost: it counts as sent.  @flow: the frame
 * takes part in the back-pressure (RDMA frames; LAN frames do not). */
bool e810_wire_send(E810Core *c, const void *frame, size_t len, bool flow);

/*
 * Backed up for less than E810_TX_GRACE_NS: the engines wait, and a
 * retransmission timer that expires now is no retry (what is
 * unacknowledged may still sit in the host's queue).  Past the grace a
 * peer that takes nothing is a dead link: frames go on without
 * back-pressure (the host's queue limit drops them), connections time
 * out, loopback traffic is not held up for good.
 */
#define E810_TX_GRACE_NS            (10 * 1000000000ll)
bool e810_tx_backed_up(E810Core *c);

/*
 * May an engine send an RDMA data frame now?  When false, the caller
 * notes its work as pending; the bottom half runs it once the budget is
 * renewed or the backend has drained.
 */
bool e810_tx_may_send(E810Core *c);

/* A frame the engine loops back to itself (no host involved): it costs
 * the entry's budget like one on the wire, so building it is bounded
 * the same way. */
void e810_tx_spend(E810Core *c);

/* Run the deferred transmit work soon (from the host's main loop). */
void e810_tx_schedule(E810Core *c);

/* The host handed on (@delivered) or discarded one frame it had queued
 * (send_frame returned E810_TX_QUEUED).  Safe to call at any time: an
 * entry point of the host's, outside the entry guard. */
void e810_tx_drained(E810Core *c, bool delivered);

/* e810.c: lifetime, and the start of the bottom half, which then runs
 * the engines' deferred work (true) unless the backend is backed up. */
void e810_txsched_init(E810Core *c, E810TimerCb *bh_cb);
void e810_txsched_cleanup(E810Core *c);
bool e810_txsched_bh_start(E810Core *c);

/*
 * Saved state (snap.h): the statistics, then the device's E810Counters
 * (a services-level struct with no record of its own).  Load leaves the
 * device unblocked: the frames the source's backend held are gone with
 * it, as on a lossy wire.
 */
extern const struct E810SnapPart e810_txsched_snap;

#endif
