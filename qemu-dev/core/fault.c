/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 device core: faults on demand (fault.h, docs/faults.md): the spec
 * parser, the faults armed, the hooks the blocks ask, and the timer of
 * the faults that fire at a time.
 */
#include "qemu/osdep.h"
#include <errno.h>
#include "dev.h"
#include "fault.h"
#include "../trace.h"

#define SPEC_MAX        1024
#define AT_MAX_S        (7 * 24 * 3600)     /* a week of virtual time */
#define PERIOD_MIN_NS   10000000ll          /* 10 ms */
#define HOLD_MAX_NS     60000000000ll       /* aq-timeout: a minute */

/* In the order of the E810_FAULT_* kinds (fault.h), from 1. */
static const char *const kind_names[] = {
    NULL, "link-down", "link-up", "link-flap", "qp-ae", "cqp-error",
    "msix-drop", "core-reset", "global-reset", "pf-reset", "aq-error",
    "aq-timeout", "random", "removed",
};
#define NKINDS  (sizeof(kind_names) / sizeof(kind_names[0]))
_Static_assert(NKINDS == E810_FAULT_REMOVED + 1, "a name per fault kind");

static const char *kind_name(unsigned k)
{
    return k < NKINDS && kind_names[k] ? kind_names[k] : "?";
}

static bool parse_u32(const char *s, uint32_t *v)
{
    char *end;
    unsigned long long x;

    errno = 0;
    x = strtoull(s, &end, 0);
    if (errno || end == s || *end || x > UINT32_MAX || *s == '-') {
        return false;
    }
    *v = (uint32_t)x;
    return true;
}

/* Seconds (a decimal fraction allowed) as nanoseconds. */
static bool parse_secs(const char *s, int64_t *ns)
{
    char *end;
    double x;

    errno = 0;
    x = strtod(s, &end);
    if (errno || end == s || *end || !(x >= 0 && x <= AT_MAX_S)) {
        return false;
    }
    *ns = (int64_t)(x * 1e9);
    return true;
}

/* The kinds a random fault may draw: those that need no number of the
 * test's (a QP, an opcode) or take "the next one". */
#define RANDOM_KINDS    ((1u << E810_FAULT_LINK_FLAP) | (1u << E810_FAULT_QP_AE) | \
                         (1u << E810_FAULT_CQP_ERROR) | (1u << E810_FAULT_MSIX_DROP) | \
                         (1u << E810_FAULT_CORE_RESET) | (1u << E810_FAULT_GLOBAL_RESET) | \
                         (1u << E810_FAULT_PF_RESET) | (1u << E810_FAULT_AQ_ERROR) | \
                         (1u << E810_FAULT_AQ_TIMEOUT))
#define RANDOM_DEFAULT  ((1u << E810_FAULT_LINK_FLAP) | (1u << E810_FAULT_QP_AE) | \
                         (1u << E810_FAULT_CORE_RESET) | (1u << E810_FAULT_PF_RESET))

/* kinds=K,K,...: the kinds into @mask (all of RANDOM_KINDS). */
static bool parse_kinds(const char *val, uint32_t *mask)
{
    char buf[256], *save = NULL, *k;

    if (strlen(val) >= sizeof(buf)) {
        return false;
    }
    strcpy(buf, val);
    *mask = 0;
    for (k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
        unsigned i;

        for (i = 1; i < NKINDS && strcmp(k, kind_names[i]); i++) {
        }
        if (i >= NKINDS || !(RANDOM_KINDS & (1u << i))) {
            return false;
        }
        *mask |= 1u << i;
    }
    return *mask != 0;
}

/* KEY=VALUE of fault @f; false if the key is unknown or the value bad. */
static bool parse_key(E810Fault *f, const char *key, const char *val)
{
    uint32_t v = 0;

    if (!strcmp(key, "kinds")) {
        return parse_kinds(val, &f->kinds);
    }
    if (!strcmp(key, "seed")) {
        char *end;

        errno = 0;
        f->seed = strtoull(val, &end, 0);
        return !errno && end != val && !*end && *val != '-';
    }

    if (!strcmp(key, "at")) {
        return parse_secs(val, &f->at_ns);
    }
    if (!strcmp(key, "period")) {
        /* Bounded below: a flap is two link events to the driver. */
        return parse_secs(val, &f->period_ns) &&
               f->period_ns >= PERIOD_MIN_NS;
    }
    if (!strcmp(key, "hold")) {
        return parse_secs(val, &f->hold_ns) && f->hold_ns <= HOLD_MAX_NS;
    }
    if (!strcmp(key, "qp") && !strcmp(val, "next")) {
        f->qp = E810_FAULT_QP_NEXT;
        return true;
    }
    if (!parse_u32(val, &v)) {
        return false;
    }
    if (!strcmp(key, "count")) {
        f->count = v;
        return v > 0;
    } else if (!strcmp(key, "after")) {
        f->after = v;
    } else if (!strcmp(key, "qp")) {
        f->qp = v;
    } else if (!strcmp(key, "op")) {
        f->op = v;
    } else if (!strcmp(key, "vector")) {
        f->vector = v;
    } else if (!strcmp(key, "ae") || !strcmp(key, "src") ||
               !strcmp(key, "major") || !strcmp(key, "minor") ||
               !strcmp(key, "rc")) {
        uint16_t *p = key[0] == 'a' ? &f->ae : key[0] == 's' ? &f->src :
                      key[0] == 'r' ? &f->rc :
                      key[1] == 'a' ? &f->major : &f->minor;

        if (v > 0xFFFF) {
            return false;
        }
        *p = (uint16_t)v;
    } else {
        return false;
    }
    return true;
}

/* One FAULT of the spec (modified in place) into @f. */
static bool parse_fault(char *s, E810Fault *f, char *err, size_t n)
{
    char *save = NULL, *tok = strtok_r(s, ":", &save);
    unsigned k;

    *f = (E810Fault){
        .count = 1, .op = E810_FAULT_ANY, .vector = E810_FAULT_ANY,
        .qp = E810_FAULT_QP_NEXT, .ae = AE_LLP_CONNECTION_RESET, .src = 0,
        .major = E810_CQP_MAJ_ERR, .minor = E810_CQP_MIN_BAD_PARAM,
        .period_ns = 2000000000ll, .rc = 5 /* EIO */,
        .hold_ns = 2000000000ll, .kinds = RANDOM_DEFAULT, .seed = 1,
    };
    for (k = 1; k < NKINDS; k++) {
        if (tok && !strcmp(tok, kind_names[k])) {
            break;
        }
    }
    if (k >= NKINDS) {
        snprintf(err, n, "unknown fault '%s'", tok ? tok : "");
        return false;
    }
    f->kind = k;
    if (k == E810_FAULT_RANDOM) {
        f->period_ns = 60000000000ll;
        f->count = 10;
    }
    while ((tok = strtok_r(NULL, ":", &save))) {
        char *eq = strchr(tok, '=');

        if (!eq) {
            snprintf(err, n, "%s: '%s' is not KEY=VALUE", kind_name(k), tok);
            return false;
        }
        *eq = 0;
        if (!parse_key(f, tok, eq + 1)) {
            snprintf(err, n, "%s: bad %s=%s", kind_name(k), tok, eq + 1);
            return false;
        }
    }
    f->timed = k == E810_FAULT_LINK_DOWN || k == E810_FAULT_LINK_UP ||
               k == E810_FAULT_LINK_FLAP || k == E810_FAULT_CORE_RESET ||
               k == E810_FAULT_GLOBAL_RESET || k == E810_FAULT_PF_RESET ||
               k == E810_FAULT_RANDOM || k == E810_FAULT_REMOVED ||
               (k == E810_FAULT_QP_AE && f->qp != E810_FAULT_QP_NEXT);
    return true;
}

static void faults_schedule(E810Core *c)
{
    E810Faults *fs = &c->faults;
    int64_t next = -1;

    for (unsigned i = 0; i < E810_FAULTS_MAX; i++) {
        const E810Fault *f = &fs->f[i];

        if (f->kind && f->timed && (next < 0 || f->at_ns < next)) {
            next = f->at_ns;
        }
    }
    if (next < 0) {
        e810_timer_del(fs->timer);
    } else {
        e810_timer_mod(fs->timer, next);
    }
}

static void injected(E810Core *c, unsigned kind, unsigned a, unsigned b)
{
    E810Faults *fs = &c->faults;
    E810FaultRecord *r = &fs->log[fs->logged++ % E810_FAULT_LOG_MAX];

    *r = (E810FaultRecord){ .ns = e810_now(c), .kind = kind, .a = a, .b = b };
    c->stats.faults_injected++;
    trace_e810_fault_injected(kind_name(kind), a, b);
}

void e810_fault_log(E810Core *c, char *buf, size_t n)
{
    const E810Faults *fs = &c->faults;
    uint64_t first = fs->logged > E810_FAULT_LOG_MAX ?
                     fs->logged - E810_FAULT_LOG_MAX : 0;
    size_t len = 0;

    if (!n) {
        return;
    }
    buf[0] = 0;
    if (first) {
        len = snprintf(buf, n, "# %" PRIu64 " earlier\n", first);
    }
    for (uint64_t i = first; i < fs->logged && len < n; i++) {
        const E810FaultRecord *r = &fs->log[i % E810_FAULT_LOG_MAX];
        int w = snprintf(buf + len, n - len, "%.3f %s %u %u\n",
                         (r->ns - fs->t0) / 1e9,
                         kind_name(r->kind), r->a, r->b);

        if (w < 0 || (size_t)w >= n - len) {
            buf[len] = 0;           /* cut at the last whole line */
            break;
        }
        len += w;
    }
}

/* xorshift64*: the random fault's draws, the same for the same seed. */
static uint64_t draw(E810Fault *f)
{
    uint64_t x = f->seed ? f->seed : 0x9E3779B97F4A7C15ull;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    f->seed = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* A random fault's turn: one fault of a kind drawn from its list, armed
 * with that kind's defaults and firing now; the next turn 0.5 to 1.5
 * periods on.  Without a free slot the turn is counted and skipped. */
static void random_turn(E810Core *c, E810Fault *r, int64_t now)
{
    unsigned pick, n = 0, k;
    char spec[32];
    char err[64];

    for (k = 1; k < NKINDS; k++) {
        n += !!(r->kinds & (1u << k));
    }
    pick = draw(r) % n;
    for (k = 1; k < NKINDS; k++) {
        if ((r->kinds & (1u << k)) && !pick--) {
            break;
        }
    }
    /* A flap that ends before the next turn. */
    snprintf(spec, sizeof(spec), k == E810_FAULT_LINK_FLAP ? "%s:period=1" : "%s",
             kind_name(k));
    trace_e810_fault_random(kind_name(k), r->count);
    if (!e810_fault_arm(c, spec, err, sizeof(err))) {
        c->stats.faults_skipped++;
    }
    r->at_ns = now + r->period_ns / 2 + (int64_t)(draw(r) % (uint64_t)(r->period_ns + 1));
    if (!--r->count) {
        r->kind = 0;
    }
}

static void faults_timer_cb(void *opaque)
{
    E810Core *c = opaque;
    E810Faults *fs = &c->faults;
    int64_t now = e810_now(c);

    for (unsigned i = 0; i < E810_FAULTS_MAX; i++) {
        E810Fault *f = &fs->f[i];

        if (!f->kind || !f->timed || f->at_ns > now) {
            continue;
        }
        if (f->kind == E810_FAULT_RANDOM) {
            random_turn(c, f, now);
            continue;
        }
        if (f->kind == E810_FAULT_LINK_FLAP) {
            f->down = !f->down;
            injected(c, f->kind, f->down, f->count);
            fs->fire(c, f);
            f->at_ns = now + f->period_ns / 2;
            if (!f->down && !--f->count) {
                f->kind = 0;
            }
            continue;
        }
        if (f->kind == E810_FAULT_QP_AE) {
            injected(c, f->kind, f->qp, f->ae);
        } else {
            injected(c, f->kind, 0, 0);     /* the link, the resets */
        }
        fs->fire(c, f);
        f->kind = 0;
    }
    faults_schedule(c);
}

void e810_faults_init(E810Core *c, void (*fire)(E810Core *c, E810Fault *f))
{
    c->faults.fire = fire;
    c->faults.timer = e810_timer_new(c, faults_timer_cb, c);
    c->faults.t0 = e810_now(c);
}

void e810_faults_cleanup(E810Core *c)
{
    e810_timer_free(c->faults.timer);
    c->faults.timer = NULL;
}

void e810_fault_clear(E810Core *c)
{
    memset(c->faults.f, 0, sizeof(c->faults.f));
    e810_timer_del(c->faults.timer);
}

/* The faults of @spec into @out (at most E810_FAULTS_MAX); their count,
 * or -1 (@err says why). */
static int faults_parse(const char *spec, E810Fault *out, char *err, size_t n)
{
    char buf[SPEC_MAX], *save = NULL, *one;
    int np = 0;

    if (strlen(spec) >= sizeof(buf)) {
        snprintf(err, n, "fault spec longer than %u bytes", SPEC_MAX - 1);
        return -1;
    }
    strcpy(buf, spec);
    for (one = strtok_r(buf, ";", &save); one; one = strtok_r(NULL, ";", &save)) {
        char *s = one;

        while (*s == ' ') {
            s++;
        }
        if (!*s) {
            continue;
        }
        if (np == E810_FAULTS_MAX) {
            snprintf(err, n, "more than %u faults", E810_FAULTS_MAX);
            return -1;
        }
        /* Each fault is cut at ':' with a strtok_r state of its own. */
        if (!parse_fault(s, &out[np], err, n)) {
            return -1;
        }
        np++;
    }
    return np;
}

bool e810_fault_check(const char *spec, char *err, size_t n)
{
    E810Fault parsed[E810_FAULTS_MAX];

    return faults_parse(spec, parsed, err, n) >= 0;
}

bool e810_fault_arm(E810Core *c, const char *spec, char *err, size_t n)
{
    E810Fault parsed[E810_FAULTS_MAX];
    int np = faults_parse(spec, parsed, err, n);
    unsigned room = 0;
    int64_t now = e810_now(c);

    if (np < 0) {
        return false;
    }
    for (unsigned i = 0; i < E810_FAULTS_MAX; i++) {
        room += !c->faults.f[i].kind;
    }
    if ((unsigned)np > room) {
        snprintf(err, n, "%u faults armed already, room for %u",
                 E810_FAULTS_MAX - room, room);
        return false;
    }
    for (int k = 0, i = 0; k < np; k++) {
        while (c->faults.f[i].kind) {
            i++;
        }
        parsed[k].at_ns += now;
        c->faults.f[i] = parsed[k];
        trace_e810_fault_armed(kind_name(parsed[k].kind), parsed[k].at_ns,
                               parsed[k].count);
    }
    faults_schedule(c);
    return true;
}

/* Fault @f matches an event: true if it fires now (after its @after). */
static bool take(E810Fault *f)
{
    if (f->after) {
        f->after--;
        return false;
    }
    if (!--f->count) {
        f->kind = 0;
    }
    return true;
}

/* A copy of the first armed fault of kind @k1 or @k2 aimed at @target
 * (its op or vector: that one or any) that fires now (take); false if
 * none does.  A copy: firing the last count disarms the slot. */
static bool fire(E810Core *c, unsigned k1, unsigned k2, uint32_t target,
                 E810Fault *out)
{
    for (unsigned i = 0; i < E810_FAULTS_MAX; i++) {
        E810Fault *f = &c->faults.f[i];
        uint32_t t = f->kind == E810_FAULT_MSIX_DROP ? f->vector : f->op;

        /* (the MSI-X path asks at every message: no copy unless aimed) */
        if ((f->kind == k1 || f->kind == k2) &&
            (t == E810_FAULT_ANY || t == target)) {
            *out = *f;
            if (take(f)) {
                return true;
            }
        }
    }
    return false;
}

bool e810_fault_cqp(E810Core *c, unsigned op, uint16_t *major,
                    uint16_t *minor)
{
    E810Fault f;

    if (!fire(c, E810_FAULT_CQP_ERROR, E810_FAULT_CQP_ERROR, op, &f)) {
        return false;
    }
    *major = f.major;
    *minor = f.minor;
    injected(c, E810_FAULT_CQP_ERROR, op, f.minor);
    return true;
}

bool e810_fault_msix(E810Core *c, unsigned vector)
{
    E810Fault f;

    if (!fire(c, E810_FAULT_MSIX_DROP, E810_FAULT_MSIX_DROP, vector, &f)) {
        return false;
    }
    injected(c, E810_FAULT_MSIX_DROP, vector, 0);
    return true;
}

bool e810_fault_aq(E810Core *c, unsigned opcode, uint16_t *rc,
                   int64_t *hold_ns)
{
    E810Fault f;
    bool err;

    if (!fire(c, E810_FAULT_AQ_ERROR, E810_FAULT_AQ_TIMEOUT, opcode, &f)) {
        return false;
    }
    err = f.kind == E810_FAULT_AQ_ERROR;
    *rc = err ? f.rc : 0;
    *hold_ns = err ? 0 : f.hold_ns;
    injected(c, f.kind, opcode, err ? f.rc : f.hold_ns / 1000000);
    return true;
}

bool e810_fault_doorbell(E810Core *c, uint32_t qp, uint16_t *ae,
                         uint16_t *src)
{
    for (unsigned i = 0; i < E810_FAULTS_MAX; i++) {
        E810Fault *f = &c->faults.f[i];

        if (f->kind == E810_FAULT_QP_AE && f->qp == E810_FAULT_QP_NEXT &&
            e810_now(c) >= f->at_ns) {
            *ae = f->ae;
            *src = f->src;
            injected(c, f->kind, qp, f->ae);
            f->kind = 0;
            return true;
        }
    }
    return false;
}
