/*
 * Kernel enablement follows demand.  See tp_demand.h for the contract.
 *
 * Exactness across changes: the producer evaluates every slot's filter in
 * user space (unless only the kernel can: a char * string), except on the
 * events recorded after the kernel's filter became exactly that slot's.
 * Events already in the kernel's buffer were filtered with whatever kernel
 * filter was in force when they were recorded, so after a change only a
 * per-slot check keeps each slot to exactly its own matches: a check skips
 * the filter (exact_from) only from the moment the write of a kernel filter
 * of the same text returned, and a route that may outlive that filter (the
 * one set before a rewrite) has no check that skips.
 */
#include "tp_demand.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_fault.h"
#include "tp_util.h"

#define KERNEL_FILTER_MAX 4000      /* the kernel takes less than a page */
#define TRIGGER_TRIES 3             /* a new trigger right after the old one's removal */
#define EVERY_EVENT "common_pid >= 0"  /* a condition true of every event (a trigger
                                          without one runs before the event is written) */

/*
 * A want's compiled filter.  Routes point at f until the next apply, so a
 * filter that is replaced or dropped goes to the grave first: the link is
 * allocated with the filter, so burying never fails.
 */
struct compiled {
    struct tp_filter *f;
    struct compiled *next;          /* in the grave */
};

struct want {
    unsigned slot;
    char *filter;                   /* NULL: every event */
    struct compiled *compiled;      /* NULL when filter is */
    uint64_t since;                 /* events recorded before it are not the slot's */
    uint64_t floor;                 /* nor those before the kernel filtered for it (0: none) */
    bool fresh;                     /* new or changed since the last apply */
    enum { NO_WAIT, WAIT_STACK, WAIT_START } wait;  /* for a stacktrace trigger: events
                                       come without stacks meanwhile, or not at all */
    bool stacked;                   /* the trigger was in force for it from stack_since */
    uint64_t stack_since;
};

struct event_state {
    struct want *w;
    size_t n, cap;
    bool dirty;
    bool enabled;                   /* in the kernel */
    char *kfilter;                  /* the kernel's filter now */
    uint64_t kfilter_from;          /* events recorded from then on passed kfilter */
    char *ktrigger;                 /* the stacktrace trigger's condition now */
    char **kterms;                  /* the filters it ORs; none: true of every event */
    size_t nkterms;
    char *refused;                  /* a condition the kernel refused as a trigger's */
};

struct tp_demand {
    struct tp_catalog *cat;
    tp_demand_load_fn load;
    void *load_arg;
    struct tp_instance *inst;
    struct tp_capture *cap;
    struct event_state *ev;
    size_t nevents;
    struct compiled *grave;         /* filters routes may still use, freed at apply */
    unsigned long generation;       /* changes whenever the enabled set does */
    tp_slotmask stack_slots;        /* the slots that want stacks */
    bool stacks_synced;             /* this apply: the producer stages stacks */
    tp_log_fn log;                  /* NULL: say nothing */
    void *log_arg;
};

int tp_demand_create(struct tp_demand **out, struct tp_catalog *cat,
                     struct tp_instance *inst, struct tp_capture *cap,
                     tp_demand_load_fn load, void *load_arg)
{
    struct tp_demand *d = calloc(1, sizeof(*d));
    if (!d)
        return -ENOMEM;
    d->cat = cat;
    d->load = load;
    d->load_arg = load_arg;
    d->inst = inst;
    d->cap = cap;
    d->nevents = tp_catalog_count(cat);
    d->ev = calloc(d->nevents ? d->nevents : 1, sizeof(*d->ev));
    if (!d->ev) {
        free(d);
        return -ENOMEM;
    }
    *out = d;
    return 0;
}

void tp_demand_log(struct tp_demand *d, tp_log_fn log, void *arg)
{
    d->log = log;
    d->log_arg = arg;
}

static bool same_filter(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void free_compiled(struct compiled *c)
{
    if (!c)
        return;
    tp_filter_free(c->f);
    free(c);
}

/* Keep a compiled filter until the routes no longer point to it. */
static void bury(struct tp_demand *d, struct compiled *c)
{
    if (!c)
        return;
    c->next = d->grave;
    d->grave = c;
}

static void empty_grave(struct tp_demand *d)
{
    while (d->grave) {
        struct compiled *c = d->grave;
        d->grave = c->next;
        free_compiled(c);
    }
}

static struct want *find_want(struct event_state *s, unsigned slot)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->w[i].slot == slot)
            return &s->w[i];
    return NULL;
}

static bool kernel_only(const struct compiled *c)
{
    return c && tp_filter_kernel_only(c->f);
}

/*
 * Would the wants, with `w` of slot replaced by (filter, compiled), need a
 * kernel-only filter (a char * string) checked in user space?  (comm is not
 * one: the producer knows each task's name at the event.)
 */
static bool kernel_only_conflict(const struct event_state *s, unsigned slot,
                                 const char *filter, const struct compiled *compiled)
{
    bool distinct = false, only = kernel_only(compiled);
    for (size_t i = 0; i < s->n; i++) {
        if (s->w[i].slot == slot)
            continue;
        distinct |= !same_filter(s->w[i].filter, filter);
        only |= kernel_only(s->w[i].compiled);
    }
    return distinct && only;
}

static int compile(struct tp_demand *d, size_t event, const char *filter,
                   struct compiled **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!filter)
        return 0;
    struct compiled *c = calloc(1, sizeof(*c));
    if (!c)
        return tp_errf(err, errlen, -ENOMEM, "out of memory");
    int rc = tp_filter_compile(filter, tp_catalog_event(d->cat, event), &c->f, err, errlen);
    if (rc < 0)
        free(c);
    else
        *out = c;
    return rc;
}

static int add_want(struct event_state *s, const struct want *nw)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4;
        struct want *w = realloc(s->w, cap * sizeof(*w));
        if (!w)
            return -ENOMEM;
        s->w = w;
        s->cap = cap;
    }
    s->w[s->n++] = *nw;
    return 0;
}

int tp_demand_want(struct tp_demand *d, unsigned slot, size_t event, const char *filter,
                   uint64_t since, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s", "");
    if (event >= d->nevents || slot >= TP_RING_MAX_SLOTS)
        return -ENOENT;
    int rc = d->load(d->load_arg, event);
    if (rc < 0) {
        snprintf(err, errlen, "cannot read the format of %s: %s%s",
                 tp_catalog_event(d->cat, event)->fullname, strerror(-rc),
                 rc == -ENOENT ? " (is tracefs mounted?)" : "");
        return rc;
    }
    struct event_state *s = &d->ev[event];
    if (filter && !*filter)
        filter = NULL;
    struct want *w = find_want(s, slot);
    if (w && same_filter(w->filter, filter) && w->since == since)
        return 0;                   /* as it is: nothing to change */
    struct want nw = { slot, NULL, NULL, since, 0, true, NO_WAIT, false, 0 };
    if ((rc = compile(d, event, filter, &nw.compiled, err, errlen)) < 0)
        return rc;
    if (kernel_only_conflict(s, slot, filter, nw.compiled)) {
        snprintf(err, errlen, "%s: a filter on a string behind a char * field cannot be "
                 "combined with a different filter on the same event (only the kernel can "
                 "follow the pointer)",
                 tp_catalog_event(d->cat, event)->fullname);
        free_compiled(nw.compiled);
        return -EBUSY;
    }
    nw.filter = filter ? strdup(filter) : NULL;
    if ((filter && !nw.filter) || (!w && add_want(s, &nw) < 0)) {
        free(nw.filter);
        free_compiled(nw.compiled);
        return tp_errf(err, errlen, -ENOMEM, "out of memory");
    }
    if (w) {
        free(w->filter);
        bury(d, w->compiled);
        *w = nw;
    }
    s->dirty = true;
    return 0;
}

void tp_demand_unwant(struct tp_demand *d, unsigned slot, size_t event)
{
    if (event >= d->nevents)
        return;
    struct event_state *s = &d->ev[event];
    struct want *w = find_want(s, slot);
    if (!w)
        return;
    free(w->filter);
    bury(d, w->compiled);
    *w = s->w[--s->n];
    s->dirty = true;
}

void tp_demand_stacks(struct tp_demand *d, tp_slotmask slots)
{
    tp_slotmask changed = d->stack_slots ^ slots;
    d->stack_slots = slots;
    for (size_t i = 0; changed && i < d->nevents; i++)
        for (size_t k = 0; k < d->ev[i].n; k++)
            if (changed >> d->ev[i].w[k].slot & 1)
                d->ev[i].dirty = true;
}

tp_slotmask tp_demand_stack_slots(const struct tp_demand *d)
{
    return d->stack_slots;
}

void tp_demand_release(struct tp_demand *d, unsigned slot)
{
    for (size_t i = 0; i < d->nevents; i++)
        if (d->ev[i].n)
            tp_demand_unwant(d, slot, i);
}

/* ---- applying ------------------------------------------------------------ */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * "(f1) || (f2) ...": the distinct filters of the wants of the slots in
 * only (all of them filtered), sorted, so the text is stable.
 */
static char *or_filters(const struct event_state *s, size_t len, tp_slotmask only)
{
    const char **v = calloc(s->n, sizeof(*v));
    char *f = calloc(1, len + 1);
    size_t n = 0;
    if (!v || !f) {
        free(v);
        free(f);
        return NULL;
    }
    for (size_t i = 0; i < s->n; i++)
        if (only >> s->w[i].slot & 1)
            v[n++] = s->w[i].filter;
    qsort(v, n, sizeof(*v), cmp_str);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(v[i], v[i - 1]) != 0)
            sprintf(f + strlen(f), "%s(%s)", *f ? " || " : "", v[i]);
    free(v);
    return f;
}

/* The kernel's filter for the wants: shared, OR-ed, or none.  *out NULL: none. */
static int kernel_filter(const struct event_state *s, char **out)
{
    *out = NULL;
    bool same = true, unfiltered = false;
    size_t len = 0;
    for (size_t i = 0; i < s->n; i++) {
        same &= same_filter(s->w[i].filter, s->w[0].filter);
        unfiltered |= !s->w[i].filter;
        len += s->w[i].filter ? strlen(s->w[i].filter) + 8 : 0;
    }
    if (unfiltered || s->n == 0)
        return 0;
    if (same)
        return (*out = strdup(s->w[0].filter)) ? 0 : -ENOMEM;
    if (len > KERNEL_FILTER_MAX)
        return 0;                   /* too long for the kernel: user space alone */
    return (*out = or_filters(s, len, ~(tp_slotmask)0)) ? 0 : -ENOMEM;
}

/*
 * The stacktrace condition for the wants of the stack slots; *out NULL: no
 * stacks wanted.  It implies the kernel filter kf (NULL: none): a trigger
 * with a condition runs on every record that meets it, before the event's
 * filter decides (the kernel's __event_trigger_test_discard), and writes
 * its stack even after an event the filter discarded, where it would
 * follow the event before.  The OR of some wants' filters implies kf, the
 * OR of all (or the one they share); where a stack want has none, kf is
 * none too.  One too long to OR is kf itself when kf is set.
 */
static int stack_condition(const struct event_state *s, tp_slotmask stacks, const char *kf,
                           char **out)
{
    *out = NULL;
    bool any = false, unfiltered = false;
    size_t len = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!(stacks >> s->w[i].slot & 1))
            continue;
        any = true;
        unfiltered |= !s->w[i].filter;
        len += s->w[i].filter ? strlen(s->w[i].filter) + 8 : 0;
    }
    if (!any)
        return 0;
    if (unfiltered || len > KERNEL_FILTER_MAX)
        return (*out = strdup(kf && !unfiltered ? kf : EVERY_EVENT)) ? 0 : -ENOMEM;
    return (*out = or_filters(s, len, stacks)) ? 0 : -ENOMEM;
}

static void free_terms(struct event_state *s)
{
    for (size_t k = 0; k < s->nkterms; k++)
        free(s->kterms[k]);
    free(s->kterms);
    s->kterms = NULL;
    s->nkterms = 0;
}

/*
 * The filters the trigger's condition cond ORs, kept to tell which kernel
 * filters it implies: those of the stack wants, or none (cond true of every
 * event).  -ENOMEM leaves none: the trigger then goes before any new kernel
 * filter, as one true of every event would.
 */
static void keep_terms(struct tp_demand *d, struct event_state *s, const char *cond)
{
    free_terms(s);
    if (strcmp(cond, EVERY_EVENT) == 0 || !(s->kterms = calloc(s->n, sizeof(*s->kterms))))
        return;
    for (size_t k = 0; k < s->n; k++) {
        const char *f = s->w[k].filter;
        if (!(d->stack_slots >> s->w[k].slot & 1) || !f)
            continue;
        bool seen = false;
        for (size_t j = 0; j < s->nkterms && !seen; j++)
            seen = strcmp(s->kterms[j], f) == 0;
        if (!seen && !(s->kterms[s->nkterms++] = strdup(f))) {
            free_terms(s);
            return;
        }
    }
}

/* Does the trigger in force imply the kernel filter kf, made of the wants' filters? */
static bool trigger_within(const struct event_state *s, const char *kf)
{
    if (!s->ktrigger || !kf)
        return true;
    if (s->nkterms == 0)
        return false;
    for (size_t j = 0; j < s->nkterms; j++) {
        bool found = false;
        for (size_t k = 0; k < s->n && !found; k++)
            found = same_filter(s->w[k].filter, s->kterms[j]);
        if (!found)
            return false;
    }
    return true;
}

/*
 * Can the kernel filter go, for a trigger true of every event?  Only if the
 * producer checks every want's filter itself: none is kernel-only, none
 * names comm (the producer follows names only where filters differ).
 */
static bool can_unfilter(const struct event_state *s)
{
    for (size_t k = 0; k < s->n; k++)
        if (s->w[k].compiled && (kernel_only(s->w[k].compiled) ||
                                 tp_filter_uses_comm(s->w[k].compiled->f)))
            return false;
    return true;
}

static int put_trigger(struct tp_demand *d, const struct tp_event *e, const char *cond)
{
    int rc = -EAGAIN;
    for (int tries = 0; rc < 0 && rc != -EINVAL && tries < TRIGGER_TRIES; tries++)
        rc = tp_fault_refused_stack_cond(e->fullname, cond, EVERY_EVENT)
             ? -EINVAL : tp_instance_set_stacktrace(d->inst, e, cond);
    return rc;
}

static int set_kernel_filter(struct tp_demand *d, size_t i, char *kf);
static int set_route(struct tp_demand *d, size_t i, bool hold);

/*
 * The kernel refused cond as the trigger's condition (one it takes as a
 * filter, but longer than a trigger's line, or ...): said once for it;
 * then, where the kernel filter can go, the trigger true of every event
 * (the producer keeps the stacks of the events each slot wants), else
 * none.  Returns the condition now in force (NULL: none).
 */
static char *after_refusal(struct tp_demand *d, size_t i, char *cond)
{
    struct event_state *s = &d->ev[i];
    const struct tp_event *e = tp_catalog_event(d->cat, i);
    bool fallback = strcmp(cond, EVERY_EVENT) != 0 && can_unfilter(s);
    if (!same_filter(s->refused, cond)) {
        tp_logf(d->log, d->log_arg, "%s: the kernel refused the stacktrace condition "
                "(%zu characters): %s", e->fullname, strlen(cond),
                fallback ? "stacks taken for every event, the kernel filter dropped"
                         : "its events go without stacks (tracepoint.stack.missing)");
        free(s->refused);
        s->refused = cond;
    } else
        free(cond);
    /* the route in force may skip a check the kernel's filter did for it (exact_from) */
    if (!fallback || set_route(d, i, true) < 0 || set_kernel_filter(d, i, NULL) < 0 ||
        !(cond = strdup(EVERY_EVENT)))
        return NULL;
    if (put_trigger(d, e, cond) == 0)
        return cond;
    free(cond);
    return NULL;
}

/*
 * The event's stacktrace trigger as its stack slots want it.  The kernel
 * takes one at a time: the old goes first.  A condition the kernel refuses
 * falls back (after_refusal).  Returns 0, or -EIO when the old trigger is
 * still there (the event is applied again next time).
 */
static int set_stacktrace(struct tp_demand *d, size_t i, char *cond)
{
    struct event_state *s = &d->ev[i];
    const struct tp_event *e = tp_catalog_event(d->cat, i);
    if (same_filter(s->ktrigger, cond)) {
        free(cond);
        return 0;
    }
    if (s->ktrigger && tp_instance_set_stacktrace(d->inst, e, NULL) < 0) {
        free(cond);
        s->dirty = true;            /* still there: try again next apply */
        return -EIO;
    }
    free(s->ktrigger);
    s->ktrigger = NULL;
    free_terms(s);
    int rc = cond ? put_trigger(d, e, cond) : 0;
    if (cond && rc == -EINVAL)
        cond = after_refusal(d, i, cond);
    else if (cond && rc < 0) {
        free(cond);
        cond = NULL;
    }
    if (cond)
        keep_terms(d, s, cond);
    s->ktrigger = cond;
    return 0;
}

/*
 * kf widened by the terms of the trigger in force, for the kernel filter
 * while the trigger changes; NULL (none) where too long, or for a trigger
 * true of every event.  Only where the producer checks every want itself.
 */
static char *widened(const struct event_state *s, const char *kf)
{
    size_t len = kf ? strlen(kf) + 8 : 0;
    for (size_t j = 0; j < s->nkterms; j++)
        len += strlen(s->kterms[j]) + 8;
    if (!kf || s->nkterms == 0 || len > KERNEL_FILTER_MAX)
        return NULL;
    char *f = malloc(len + 1);
    if (!f)
        return NULL;                /* none: as wide as can be */
    int n = sprintf(f, "(%s)", kf);
    for (size_t j = 0; j < s->nkterms; j++)
        n += sprintf(f + n, " || (%s)", s->kterms[j]);
    return f;
}

/*
 * Where the trigger does not imply kf (changing to it), the trigger goes
 * before the kernel filter changes: the wants it served take their events
 * without stacks until the new one is in force (not missed).  Used where
 * the filter cannot be widened instead (a kernel-only or comm want).
 */

static int trigger_before_filter(struct tp_demand *d, size_t i, const char *kf)
{
    struct event_state *s = &d->ev[i];
    if (trigger_within(s, kf))
        return 0;
    for (size_t k = 0; k < s->n; k++)
        if (s->w[k].stacked)
            s->w[k].stacked = false, s->w[k].wait = WAIT_STACK;
    int rc = set_route(d, i, true);
    return rc == 0 ? set_stacktrace(d, i, NULL) : rc;
}

/*
 * The trigger's condition with the kernel filter kf: one the kernel
 * refused before gives way to one true of every event, where the kernel
 * filter can go (the caller drops it).
 */
static int trigger_condition(const struct event_state *s, tp_slotmask stacks, const char *kf,
                             char **out)
{
    int rc = stack_condition(s, stacks, kf, out);
    if (rc == 0 && *out && same_filter(*out, s->refused) && can_unfilter(s)) {
        free(*out);
        rc = (*out = strdup(EVERY_EVENT)) ? 0 : -ENOMEM;
    }
    return rc;
}

/* The time a want's events start from; hold: a fresh want takes none yet. */
static uint64_t start_of(const struct want *w, bool hold)
{
    if ((hold && w->fresh) || w->wait == WAIT_START)
        return UINT64_MAX;
    return w->since > w->floor ? w->since : w->floor;
}

/*
 * Which wants of stack slots must wait for a new stacktrace trigger (when
 * retrigger: its condition changes): a new want takes no event until the
 * trigger is in force, one that turns stacks on takes its events without
 * stacks until then.  The others have the trigger in force already.
 */
static void stack_waits(struct tp_demand *d, struct event_state *s, bool retrigger)
{
    for (size_t k = 0; k < s->n; k++) {
        struct want *w = &s->w[k];
        w->wait = NO_WAIT;
        if (!(d->stack_slots >> w->slot & 1))
            w->stacked = false;
        else if (!w->stacked && retrigger)
            w->wait = w->fresh ? WAIT_START : WAIT_STACK;
        else if (!w->stacked)
            w->stacked = true, w->stack_since = 0;
    }
}

static bool waiting(const struct event_state *s)
{
    for (size_t k = 0; k < s->n; k++)
        if (s->w[k].wait != NO_WAIT)
            return true;
    return false;
}

/* The trigger is in force (or refused, its events then counted missing) from now. */
static bool stack_waits_end(struct event_state *s)
{
    uint64_t now = tp_mono_now();
    bool any = false;
    for (size_t k = 0; k < s->n; k++) {
        struct want *w = &s->w[k];
        if (w->wait == WAIT_START && w->floor < now)
            w->floor = now;
        if (w->wait != NO_WAIT) {
            w->stacked = true;
            w->stack_since = now;
            w->wait = NO_WAIT;
            any = true;
        }
    }
    return any;
}

/*
 * From when the kernel's filter of the event is exactly w's (0: it is not):
 * never while holding, since that route stays in force while the kernel's
 * filter is rewritten.
 */
static uint64_t exact_from(const struct event_state *s, const struct want *w, bool hold)
{
    if (hold || !w->filter || !s->kfilter || !same_filter(s->kfilter, w->filter))
        return 0;
    return s->kfilter_from;
}

static int set_route(struct tp_demand *d, size_t i, bool hold)
{
    const struct event_state *s = &d->ev[i];
    struct tp_check checks[TP_RING_MAX_SLOTS];
    size_t n = 0;
    for (size_t k = 0; k < s->n && n < TP_RING_MAX_SLOTS; k++) {
        const struct want *w = &s->w[k];
        /* a kernel-only filter: the kernel's filter is exactly theirs */
        const struct tp_filter *f = w->compiled && !kernel_only(w->compiled) ? w->compiled->f
                                                                              : NULL;
        bool stack = (d->stack_slots >> w->slot & 1) != 0;    /* the producer stages stacks */
        uint64_t stack_since = w->wait == NO_WAIT ? w->stack_since : UINT64_MAX;
        checks[n++] = (struct tp_check){ (tp_slotmask)1 << w->slot, f, start_of(w, hold),
                                         stack, stack_since, f ? exact_from(s, w, hold) : 0 };
    }
    const struct tp_event *e = tp_catalog_event(d->cat, i);
    tp_capture_lock(d->cap);
    int rc = tp_capture_route(d->cap, e->kernel_id, (uint32_t)i, checks, n);
    tp_capture_unlock(d->cap);
    return rc;
}

static void clear_route(struct tp_demand *d, size_t i)
{
    const struct tp_event *e = tp_catalog_event(d->cat, i);
    tp_capture_lock(d->cap);
    tp_capture_route(d->cap, e->kernel_id, (uint32_t)i, NULL, 0);
    tp_capture_unlock(d->cap);
}

static void turn_off(struct tp_demand *d, size_t i)
{
    struct event_state *s = &d->ev[i];
    const struct tp_event *e = tp_catalog_event(d->cat, i);
    (void)set_stacktrace(d, i, NULL);   /* first: a trigger fires on a disabled event too */
    if (s->enabled) {
        if (tp_instance_enable(d->inst, e, 0) < 0) {
            clear_route(d, i);
            s->dirty = true;        /* still on in the kernel: try again next apply */
            return;
        }
        d->generation++;
    }
    if (s->kfilter)
        tp_instance_set_filter(d->inst, e, NULL);
    free(s->kfilter);
    s->kfilter = NULL;
    s->enabled = false;
    clear_route(d, i);
}

static int set_kernel_filter(struct tp_demand *d, size_t i, char *kf)
{
    struct event_state *s = &d->ev[i];
    if (same_filter(s->kfilter, kf)) {
        free(kf);
        return 0;
    }
    int rc = tp_instance_set_filter(d->inst, tp_catalog_event(d->cat, i), kf);
    free(s->kfilter);
    s->kfilter = rc == 0 ? kf : NULL;
    s->kfilter_from = tp_mono_now();   /* the write has returned: the kernel uses kf */
    if (rc < 0)
        free(kf);
    return rc;
}

/*
 * A new kernel filter.  The events in the kernel's buffer, and those
 * recorded until the write is done, passed the old one, which a kernel-only
 * (comm) want has no check of its own against: the wants new since the last
 * apply take nothing while the filter changes, then the events recorded
 * from the moment it has changed.
 */
static int rewrite_filter(struct tp_demand *d, size_t i, char *kf)
{
    struct event_state *s = &d->ev[i];
    bool combined = kf && s->n > 1;
    int rc = set_route(d, i, true);
    if (rc < 0) {
        free(kf);
        return rc;
    }
    rc = set_kernel_filter(d, i, kf);
    if (rc == -EINVAL && combined)     /* the kernel refused the OR: do without */
        rc = set_kernel_filter(d, i, NULL);
    uint64_t now = tp_mono_now();
    for (size_t k = 0; k < s->n; k++)
        if (s->w[k].fresh)
            s->w[k].floor = now;
    return rc;
}

/*
 * Route first (so the checks are in place), then the kernel filter, then
 * enable, then the stacktrace trigger (after enabling: so every stack has
 * its event); the wants that waited for the trigger are routed again once
 * it is in force.
 */
static int turn_on(struct tp_demand *d, size_t i)
{
    struct event_state *s = &d->ev[i];
    char *kf, *cond = NULL;
    int rc = kernel_filter(s, &kf);
    if (rc == 0 && kf && (rc = trigger_condition(s, d->stack_slots, kf, &cond)) == 0 &&
        cond && strcmp(cond, EVERY_EVENT) == 0) {
        free(kf);                   /* its condition was refused: stacks for every event */
        kf = NULL;
    }
    free(cond);
    cond = NULL;
    char *narrow = NULL;            /* the kernel filter once the new trigger is in force */
    if (rc == 0 && !same_filter(s->kfilter, kf) && !trigger_within(s, kf) && can_unfilter(s)) {
        narrow = kf;                /* meanwhile the old trigger's terms pass too */
        kf = widened(s, narrow);
    }
    if (rc == 0 && !same_filter(s->kfilter, kf) &&
        (narrow || (rc = trigger_before_filter(d, i, kf)) == 0))
        rc = rewrite_filter(d, i, kf);
    else
        free(kf);
    const char *target = narrow ? narrow : s->kfilter;
    if (rc == 0 && (rc = trigger_condition(s, d->stack_slots, target, &cond)) == 0)
        stack_waits(d, s, !same_filter(s->ktrigger, cond));
    if (rc == 0)
        rc = set_route(d, i, false);
    for (size_t k = 0; rc == 0 && k < s->n; k++)
        s->w[k].fresh = false;
    if (rc == 0 && !s->enabled) {
        rc = tp_instance_enable(d->inst, tp_catalog_event(d->cat, i), 1);
        s->enabled = rc == 0;
        d->generation += s->enabled;
    }
    if (rc < 0) {
        free(cond);
        free(narrow);
        return rc;
    }
    if (waiting(s) && !d->stacks_synced) {  /* the producer stages stacks before the first */
        tp_capture_sync(d->cap);            /* once an apply, even if it timed out: */
        d->stacks_synced = true;            /* a producer that slow is not waited for per event */
    }
    (void)set_stacktrace(d, i, cond);   /* the old one still there: applied again */
    rc = stack_waits_end(s) ? set_route(d, i, false) : 0;
    if (narrow && rc == 0 && trigger_within(s, narrow))
        return rewrite_filter(d, i, narrow);
    if (narrow)
        s->dirty = true;            /* the old trigger still there: narrowed next apply */
    free(narrow);
    return rc;
}

int tp_demand_apply(struct tp_demand *d, tp_demand_error_fn on_error, void *arg)
{
    int first = 0;
    bool changed = false;
    d->stacks_synced = false;
    for (size_t i = 0; i < d->nevents; i++) {
        struct event_state *s = &d->ev[i];
        if (!s->dirty)
            continue;
        s->dirty = false;
        changed = true;
        if (s->n == 0) {
            turn_off(d, i);
            continue;
        }
        int rc = turn_on(d, i);
        if (rc == 0)
            continue;
        turn_off(d, i);
        s->dirty = true;            /* still wanted, not served: try again next apply */
        unsigned slots[TP_RING_MAX_SLOTS];
        size_t n = 0;
        for (size_t k = 0; k < s->n && n < TP_RING_MAX_SLOTS; k++)
            slots[n++] = s->w[k].slot;
        for (size_t k = 0; k < n && on_error; k++)    /* it may unwant */
            on_error(arg, i, slots[k], rc);
        if (!first)
            first = rc;
    }
    empty_grave(d);
    if (changed)
        tp_fault_apply_delay();
    return first;
}

void tp_demand_forget(struct tp_demand *d, size_t event)
{
    if (!d || event >= d->nevents)
        return;
    struct event_state *s = &d->ev[event];
    clear_route(d, event);
    d->generation += s->enabled;
    s->enabled = false;
    s->dirty = s->n > 0;
    free(s->kfilter);
    s->kfilter = NULL;
    free(s->ktrigger);
    s->ktrigger = NULL;
    free_terms(s);
}

int tp_demand_resync(struct tp_demand *d)
{
    for (size_t i = 0; i < d->nevents; i++) {
        struct event_state *s = &d->ev[i];
        if (s->enabled || s->n)
            s->dirty = true;
    }
    return tp_demand_apply(d, NULL, NULL);
}

unsigned long tp_demand_generation(const struct tp_demand *d)
{
    return d->generation;
}

int tp_demand_enabled(const struct tp_demand *d, size_t event)
{
    return event < d->nevents && d->ev[event].enabled;
}

const char *tp_demand_stack_condition(const struct tp_demand *d, size_t event)
{
    return event < d->nevents ? d->ev[event].ktrigger : NULL;
}

const char *tp_demand_kernel_filter(const struct tp_demand *d, size_t event)
{
    return event < d->nevents ? d->ev[event].kfilter : NULL;
}

size_t tp_demand_list(const struct tp_demand *d, uint32_t *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < d->nevents; i++) {
        if (!d->ev[i].enabled)
            continue;
        if (n < max)
            out[n] = (uint32_t)i;
        n++;
    }
    return n;
}

size_t tp_demand_count(const struct tp_demand *d)
{
    return tp_demand_list(d, NULL, 0);
}

void tp_demand_destroy(struct tp_demand *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->nevents; i++) {
        struct event_state *s = &d->ev[i];
        for (size_t k = 0; k < s->n; k++) {
            free(s->w[k].filter);
            free_compiled(s->w[k].compiled);
        }
        free(s->w);
        free(s->kfilter);
        free(s->ktrigger);
        free(s->refused);
        free_terms(s);
    }
    empty_grave(d);
    free(d->ev);
    free(d);
}

/* Do the wants of the event, but those of the slots in ignore, differ in their filters? */
static bool filters_differ(const struct event_state *s, tp_slotmask ignore)
{
    const char *first = NULL;
    bool seen = false;
    for (size_t i = 0; i < s->n; i++) {
        if (ignore >> s->w[i].slot & 1)
            continue;
        if (seen && !same_filter(s->w[i].filter, first))
            return true;
        first = s->w[i].filter;
        seen = true;
    }
    return false;
}

tp_slotmask tp_demand_comm_slots(const struct tp_demand *d, tp_slotmask ignore)
{
    tp_slotmask m = 0;
    for (size_t e = 0; e < d->nevents; e++) {
        const struct event_state *s = &d->ev[e];
        if (!filters_differ(s, ignore))
            continue;               /* the kernel applies the one filter, comm and all */
        for (size_t i = 0; i < s->n; i++)
            if (s->w[i].compiled && tp_filter_uses_comm(s->w[i].compiled->f))
                m |= (tp_slotmask)1 << s->w[i].slot;
    }
    return m;
}

bool tp_demand_comm_filtered(const struct tp_demand *d, size_t event)
{
    const struct event_state *s = event < d->nevents ? &d->ev[event] : NULL;
    for (size_t i = 0; s && i < s->n; i++)
        if (s->w[i].compiled && tp_filter_uses_comm(s->w[i].compiled->f))
            return true;
    return false;
}

void tp_demand_note_refusal(void *arg, size_t event, unsigned slot, int err)
{
    struct tp_demand_refusal *r = arg;
    if (slot == r->slot && !r->err) {
        r->err = err;
        r->event = event;
    }
}
