/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 device core: faults on demand (docs/faults.md).  A test arms a
 * fault with a spec string (the device's "fault" property, at start or
 * through the monitor's qom-set; e810-vfio-user --fault); the device then
 * fails the way the card can: the port's link drops (once or flapping),
 * a QP gets an asynchronous error, CQP ops complete with an error, MSI-X
 * messages are lost.
 *
 *   SPEC   = FAULT { ";" FAULT }
 *   FAULT  = KIND { ":" KEY "=" VALUE }
 *
 *   link-down   at=S                 the link drops (and stays down)
 *   link-up     at=S                 the link comes back
 *   link-flap   at=S period=S count=N   down for period/2, up, N times
 *                                    (period at least 10 ms)
 *   qp-ae       qp=N|next ae=CODE src=N at=S
 *                                    an AE on QP N (or the next QP whose
 *                                    SQ doorbell rings) that stops it
 *   cqp-error   op=N after=N count=N major=N minor=N
 *                                    CQP ops (of opcode N, default any),
 *                                    after the first @after of them, fail
 *   msix-drop   vector=N after=N count=N
 *                                    MSI-X messages of vector N are lost
 *   core-reset  at=S                 the card resets its core (CORER):
 *   global-reset at=S                or globally (GLOBR): every function
 *                                    is warned (GRST), then reset
 *   pf-reset    at=S                 an RDMA-engine critical error: irdma
 *                                    asks ice for a PF reset
 *   aq-error    op=N after=N count=N rc=N
 *                                    AQ commands (of opcode N, default
 *                                    any) complete with return code N
 *                                    (default 5, EIO), not carried out
 *   aq-timeout  op=N after=N count=N hold=S
 *                                    such a command is held S seconds
 *                                    (default 2, at most 60) before it
 *                                    runs: the driver's wait times out
 *   removed     at=S                 the function is gone from the bus (a
 *                                    surprise removal): reads return all
 *                                    ones, nothing it does reaches the
 *                                    host; its host then unplugs it
 *   random      seed=N period=S count=N kinds=K,K... at=S
 *                                    @count faults (default 10) of the
 *                                    kinds listed (default link-flap,
 *                                    qp-ae, core-reset, pf-reset), one
 *                                    every 0.5-1.5 periods (default 60),
 *                                    chosen from @seed: the same seed
 *                                    gives the same faults at the same
 *                                    times
 *
 * at= is seconds of virtual time after arming (default 0); numbers are
 * decimal or 0x hex.  Every fault armed and injected is traced
 * (e810_fault_armed, e810_fault_injected) and counted
 * (E810Counters.faults_injected).  Faults are the test's, not the
 * device's state: they are not saved (a migration's destination arms its
 * own).
 *
 * Services level: the hooks below are asked by the blocks where a fault
 * takes effect; the faults that fire at a time are carried out by the
 * top (e810.c, E810Faults.fire).
 */
#ifndef E810_FAULT_H
#define E810_FAULT_H

#include "types.h"

#define E810_FAULTS_MAX         16

enum {
    E810_FAULT_LINK_DOWN = 1,
    E810_FAULT_LINK_UP,
    E810_FAULT_LINK_FLAP,
    E810_FAULT_QP_AE,
    E810_FAULT_CQP_ERROR,
    E810_FAULT_MSIX_DROP,
    E810_FAULT_CORE_RESET,
    E810_FAULT_GLOBAL_RESET,
    E810_FAULT_PF_RESET,
    E810_FAULT_AQ_ERROR,
    E810_FAULT_AQ_TIMEOUT,
    E810_FAULT_RANDOM,
    E810_FAULT_REMOVED,
};

#define E810_FAULT_ANY          0xFFFFFFFFu     /* op=, vector= not given */
#define E810_FAULT_QP_NEXT      0xFFFFFFFFu     /* qp=next */

typedef struct E810Fault {
    uint8_t kind;               /* 0: free */
    bool timed;                 /* waits for @at_ns (link, qp-ae with a QP) */
    int64_t at_ns;
    int64_t period_ns;
    uint32_t count;             /* injections left */
    uint32_t after;             /* matching events to let pass first */
    uint32_t qp;
    uint32_t op;                /* CQP opcode, or E810_FAULT_ANY */
    uint32_t vector;            /* MSI-X vector, or E810_FAULT_ANY */
    uint16_t ae, src;
    uint16_t major, minor;
    uint16_t rc;                /* aq-error: the AQ return code */
    int64_t hold_ns;            /* aq-timeout */
    uint64_t seed;              /* random: the generator's state */
    uint32_t kinds;             /* random: bit k = kind k may be drawn */
    bool down;                  /* link-flap: the link is down now */
} E810Fault;

/* The last injections, for the test's report (e810_fault_log). */
#define E810_FAULT_LOG_MAX      64

typedef struct E810FaultRecord {
    int64_t ns;                 /* virtual clock */
    uint8_t kind;
    uint32_t a, b;              /* as traced by e810_fault_injected */
} E810FaultRecord;

typedef struct E810Faults {
    E810Fault f[E810_FAULTS_MAX];
    E810FaultRecord log[E810_FAULT_LOG_MAX];
    uint64_t logged;            /* injections ever: log[logged % MAX] next */
    int64_t t0;                 /* the log's times count from here (init) */
    E810CoreTimer *timer;
    /* The top's hand: carry out fault @f now (e810.c). */
    void (*fire)(E810Core *c, E810Fault *f);
} E810Faults;

void e810_faults_init(E810Core *c, void (*fire)(E810Core *c, E810Fault *f));
void e810_faults_cleanup(E810Core *c);
/* Arm the faults of @spec; false (nothing armed, @err says why) if it
 * does not parse or there is no room. */
bool e810_fault_arm(E810Core *c, const char *spec, char *err, size_t n);
/* Whether @spec parses (nothing armed). */
bool e810_fault_check(const char *spec, char *err, size_t n);
/* All armed faults dropped. */
void e810_fault_clear(E810Core *c);
/* The injections so far (the last E810_FAULT_LOG_MAX), one a line:
 * "SECONDS KIND A B" (virtual time since the device was made); an
 * earlier one left out is said on
 * a first line "# N earlier".  Written into @buf (@n bytes, always
 * terminated; what does not fit is cut at a line). */
void e810_fault_log(E810Core *c, char *buf, size_t n);

/* Hooks: true if a fault takes this event. */
bool e810_fault_cqp(E810Core *c, unsigned op, uint16_t *major,
                    uint16_t *minor);
bool e810_fault_msix(E810Core *c, unsigned vector);
/* An AQ command of @opcode about to run: true if a fault takes it, with
 * either *rc (its return code; *hold_ns 0) or *hold_ns (how long it is
 * held before it runs). */
bool e810_fault_aq(E810Core *c, unsigned opcode, uint16_t *rc,
                   int64_t *hold_ns);
/* An SQ doorbell for @qp: a qp-ae for the next QP fires on it. */
bool e810_fault_doorbell(E810Core *c, uint32_t qp, uint16_t *ae,
                         uint16_t *src);

#endif
