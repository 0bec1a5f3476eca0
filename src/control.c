/*
 * Per-client subscriptions through pmStore.  See tp_control.h.
 */
#include "tp_control.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcp/pmapi.h>

#include "tp_access.h"
#include "tp_filter.h"
#include "tp_probeset.h"
#include "tp_util.h"
#include "tp_records.h"


/* ---- subscription lists --------------------------------------------------- */

struct sublist {
    struct tp_sub *v;
    size_t n, cap;
};

static void sublist_free(struct sublist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].filter);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

static struct tp_sub *sublist_find(const struct sublist *l, uint32_t ev)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].event == ev)
            return &l->v[i];
    return NULL;
}

static int sublist_add(struct sublist *l, uint32_t ev, const char *filter, uint64_t since)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        struct tp_sub *v = realloc(l->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        l->v = v;
        l->cap = cap;
    }
    char *f = filter ? strdup(filter) : NULL;
    if (filter && !f)
        return -ENOMEM;
    l->v[l->n++] = (struct tp_sub){ ev, f, since };
    return 0;
}

static int sublist_copy(struct sublist *dst, const struct tp_client *c)
{
    memset(dst, 0, sizeof(*dst));
    for (size_t i = 0; i < c->nsubs; i++) {
        int rc = sublist_add(dst, c->subs[i].event, c->subs[i].filter, c->subs[i].since);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int cmp_sub(const void *a, const void *b)
{
    const struct tp_sub *x = a, *y = b;
    return (x->event > y->event) - (x->event < y->event);
}

/* ---- the request against the catalog and the client's list ---------------- */

static bool pattern_matches(const char *pat, const struct tp_event *e)
{
    return !e->vacant && (strcmp(pat, "*") == 0 || tp_pattern_match(pat, e->system, e->name));
}

/*
 * Add every tracepoint a pattern names that the client may read
 * (unsubscribed ones get no filter, and start now).
 */
static int add_matching(const struct tp_agent *a, const struct tp_creds *cr, struct sublist *l,
                        const char *pat, uint64_t now, char *err, size_t errlen)
{
    size_t count = tp_catalog_count(a->cat), matched = 0, denied = 0;
    for (size_t i = 0; i < count; i++) {
        const struct tp_event *e = tp_catalog_event(a->cat, i);
        if (!pattern_matches(pat, e))
            continue;
        if (!tp_access_may_read_event(a, i, cr)) {
            denied++;
            continue;
        }
        matched++;
        if (!sublist_find(l, (uint32_t)i) && sublist_add(l, (uint32_t)i, NULL, now) < 0)
            return -ENOMEM;
    }
    if (!matched && denied)
        return tp_errf(err, errlen, PM_ERR_PERMISSION, "'%s': probe events are root's unless "
                       "the probe's config line grants access=", pat);
    if (!matched)
        return tp_errf(err, errlen, PM_ERR_BADSTORE, "no tracepoint matches '%s'", pat);
    return 0;
}

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* A changed filter applies to the events recorded from now on. */
static int set_filter(const struct tp_agent *a, struct sublist *l, const char *pat,
                      const char *filter, uint64_t now, char *err, size_t errlen)
{
    size_t matched = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (!pattern_matches(pat, tp_catalog_event(a->cat, l->v[i].event)))
            continue;
        matched++;
        if (same_text(l->v[i].filter, filter))
            continue;
        char *f = filter ? strdup(filter) : NULL;
        if (filter && !f)
            return -ENOMEM;
        free(l->v[i].filter);
        l->v[i].filter = f;
        l->v[i].since = now;
    }
    if (!matched)
        return tp_errf(err, errlen, PM_ERR_BADSTORE, "'%s' matches no registered event", pat);
    return 0;
}

static int remove_matching(const struct tp_agent *a, struct sublist *l, const char *pat,
                           char *err, size_t errlen)
{
    size_t kept = 0, removed = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (pattern_matches(pat, tp_catalog_event(a->cat, l->v[i].event))) {
            free(l->v[i].filter);
            removed++;
        } else {
            l->v[kept++] = l->v[i];
        }
    }
    l->n = kept;
    if (!removed && strcmp(pat, "*") != 0)
        return tp_errf(err, errlen, PM_ERR_BADSTORE, "'%s' matches no registered event", pat);
    return 0;
}

/* The client's list as the request would leave it. */
static int edit(const struct tp_agent *a, const struct tp_creds *cr,
                const struct tp_ctl_request *req, uint64_t now, struct sublist *l,
                char *err, size_t errlen)
{
    int rc = 0;
    const char *filter = req->filter && *req->filter ? req->filter : NULL;
    for (size_t i = 0; rc == 0 && i < req->npatterns; i++) {
        const char *pat = req->patterns[i];
        switch (req->op) {
        case TP_CTL_REGISTER: rc = add_matching(a, cr, l, pat, now, err, errlen); break;
        case TP_CTL_FILTER: rc = set_filter(a, l, pat, filter, now, err, errlen); break;
        case TP_CTL_UNREGISTER: rc = remove_matching(a, l, pat, err, errlen); break;
        case TP_CTL_PARAMS: case TP_CTL_PROBE: break;
        case TP_CTL_RECORDS:
            rc = add_matching(a, cr, l, pat, now, err, errlen);
            if (rc == 0 && filter)
                rc = set_filter(a, l, pat, filter, now, err, errlen);
            break;
        }
    }
    return rc == -ENOMEM ? tp_errf(err, errlen, -ENOMEM, "out of memory") : rc;
}

static int check_limits(const struct sublist *l, size_t *bytes, char *err, size_t errlen)
{
    *bytes = 0;
    for (size_t i = 0; i < l->n; i++)
        *bytes += l->v[i].filter ? strlen(l->v[i].filter) + 1 : 0;
    if (l->n > TP_CTL_MAX_SUBS)
        return tp_errf(err, errlen, PM_ERR_TOOBIG,
                    "%zu events: at most %d may be subscribed per context", l->n,
                    TP_CTL_MAX_SUBS);
    if (*bytes > TP_CTL_MAX_FILTER_BYTES)
        return tp_errf(err, errlen, PM_ERR_TOOBIG,
                    "%zu bytes of filters: at most %d per context", *bytes,
                    TP_CTL_MAX_FILTER_BYTES);
    return 0;
}

/* ---- slots ----------------------------------------------------------------- */

static int take_slot(struct tp_agent *a, struct tp_client *c, char *err, size_t errlen)
{
    int got = tp_ring_free_slot(a->slots_used);
    if (got < 0)
        return tp_errf(err, errlen, PM_ERR_AGAIN,
                    "all %d subscription slots are in use; try again later", TP_RING_MAX_SLOTS);
    unsigned slot = (unsigned)got;
    tp_slotmask bit = (tp_slotmask)1 << slot;
    a->slots_used |= bit;
    tp_clients_forget_slot(a->clients, slot);
    tp_capture_lock(a->cap);
    struct tp_ring *ring = tp_capture_ring(a->cap);
    tp_ring_slot_reset(ring, slot);
    tp_cursor_init(ring, &c->cursor[slot], slot, UINT64_MAX);   /* from now on */
    tp_capture_unlock(a->cap);
    c->started |= bit;
    c->slot = (int)slot;
    return 0;
}

/* The client's slot is free again (what demand holds for it is the caller's). */
static void forget_slot(struct tp_agent *a, struct tp_client *c)
{
    if (c->slot < 0)
        return;
    tp_slotmask bit = (tp_slotmask)1 << c->slot;
    a->slots_used &= ~bit;
    c->started &= ~bit;
    c->slot = -1;
}

static void give_slot_back(struct tp_agent *a, struct tp_client *c)
{
    if (c->slot >= 0)
        tp_demand_release(a->demand, (unsigned)c->slot);
    forget_slot(a, c);
}

/* ---- committing -------------------------------------------------------------- */

/*
 * Make demand hold list `to` for the client's slot instead of `from`, by
 * difference: what is in both is left as it is (its start time included).
 * err names the event at fault.
 */
static int want_diff(struct tp_agent *a, unsigned slot, const struct tp_sub *from, size_t nfrom,
                     const struct sublist *to, char *err, size_t errlen)
{
    for (size_t i = 0; i < nfrom; i++)
        if (!sublist_find(to, from[i].event))
            tp_demand_unwant(a->demand, slot, from[i].event);
    for (size_t i = 0; i < to->n; i++) {
        char why[200];
        int rc = tp_demand_want(a->demand, slot, to->v[i].event, to->v[i].filter,
                                to->v[i].since, why, sizeof(why));
        if (rc < 0)
            return tp_errf(err, errlen, rc == -E2BIG ? PM_ERR_TOOBIG
                                      : rc == -ENOMEM ? -ENOMEM : PM_ERR_BADSTORE,
                        "%s: %s", tp_catalog_event(a->cat, to->v[i].event)->fullname,
                        *why ? why : strerror(-rc));
    }
    return 0;
}

static int kernel_refused(struct tp_agent *a, const struct tp_demand_refusal *r, char *err,
                          size_t errlen)
{
    const struct tp_event *e = tp_catalog_event(a->cat, r->event);
    char why[160] = "";
    if (r->err == -EINVAL)
        tp_instance_filter_error(a->inst, e, why, sizeof(why));
    return tp_errf(err, errlen, PM_ERR_BADSTORE, "the kernel refused %s: %s%s%s", e->fullname,
                strerror(-r->err), *why ? ": " : "", why);
}

static void drop_all(struct tp_agent *a, struct tp_client *c);

/* Remove the probes defined by the first n requests (a store that failed). */
static void undefine_probes(struct tp_agent *a, const struct tp_ctl_request *reqs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (reqs[i].op == TP_CTL_PROBE)
            tp_probeset_remove(a, reqs[i].probe);
}

/*
 * Apply list l to the kernel; on any refusal go back to the client's old
 * list.  Should even that fail (no memory), the client loses every
 * subscription, and its status says so, rather than keep what it did not ask for.
 */
static int commit(struct tp_agent *a, struct tp_client *c, struct sublist *l,
                  char *err, size_t errlen)
{
    unsigned slot = (unsigned)c->slot;
    int rc = want_diff(a, slot, c->subs, c->nsubs, l, err, errlen);
    struct tp_demand_refusal r = { slot, 0, 0 };
    if (rc == 0) {
        tp_demand_apply(a->demand, tp_demand_note_refusal, &r);
        if (r.err)
            rc = kernel_refused(a, &r, err, errlen);
    }
    if (rc < 0) {
        struct sublist old;
        char ignored[8];
        if (sublist_copy(&old, c) < 0 ||
            want_diff(a, slot, l->v, l->n, &old, ignored, sizeof(ignored)) < 0) {
            tp_demand_release(a->demand, slot);
            drop_all(a, c);
            size_t n = strlen(err);
            snprintf(err + n, errlen - n, "; out of memory restoring the old subscriptions, "
                     "so all were dropped");
        }
        sublist_free(&old);
        tp_demand_apply(a->demand, NULL, NULL);
    }
    return rc;
}

static void adopt(struct tp_agent *a, struct tp_client *c, struct sublist *l, size_t bytes)
{
    a->nsubs = a->nsubs - c->nsubs + l->n;
    tp_client_clear_subs(c);
    if (l->n)                   /* an empty list may have no array (qsort wants one) */
        qsort(l->v, l->n, sizeof(*l->v), cmp_sub);
    c->subs = l->v;
    c->nsubs = l->n;
    c->filter_bytes = bytes;
    memset(l, 0, sizeof(*l));
}

/* Every request, in order, on one copy of the client's list. */
static int edit_all(const struct tp_agent *a, struct tp_client *c,
                    const struct tp_ctl_request *reqs, size_t n, struct sublist *l,
                    size_t *bytes, char *err, size_t errlen)
{
    uint64_t now = tp_mono_now();
    int rc = sublist_copy(l, c) < 0 ? tp_errf(err, errlen, -ENOMEM, "out of memory") : 0;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = edit(a, &c->creds, &reqs[i], now, l, err, errlen);
    return rc == 0 ? check_limits(l, bytes, err, errlen) : rc;
}

/* What the client's records carry after the store: its last params request, if any. */
static unsigned with_after(const struct tp_client *c, const struct tp_ctl_request *reqs,
                           size_t nreqs)
{
    unsigned with = c->with;
    for (size_t i = 0; i < nreqs; i++)
        if (reqs[i].op == TP_CTL_PARAMS)
            with = reqs[i].with;
    return with;
}

/*
 * Does any subscription of the list filter on comm (the word in its filter:
 * at worst names are followed for nothing until tp_agent_names_wanted()
 * after the store), or share its event with a consumer that does?
 */
static bool comm_filtered(const struct tp_agent *a, const struct sublist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        const char *f = l->v[i].filter;
        if (tp_filter_text_names_comm(f) ||
            tp_demand_comm_filtered(a->demand, l->v[i].event))
            return true;
    }
    return false;
}

/*
 * Before the store's events are routed: if its records carry names, or a
 * filter on comm may be the producer's to check, names are followed first
 * (tp_agent_names_first), so no event of the store's ever goes unnamed:
 * there is no moment when the kernel's filter is an OR and the producer
 * does not know the tasks' names.  True if so.
 */
static bool names_first(struct tp_agent *a, const struct tp_client *c,
                        const struct tp_ctl_request *reqs, size_t nreqs, const struct sublist *l)
{
    bool carry = c->slot >= 0 && (with_after(c, reqs, nreqs) & TP_WITH_COMM);
    if (!carry && !comm_filtered(a, l))
        return false;
    tp_agent_names_first(a, carry ? c->slot : -1);
    return true;
}

/* The last params request, if any: what the client's records carry from now on. */
static int set_params(struct tp_agent *a, struct tp_client *c, const struct tp_ctl_request *reqs,
                      size_t nreqs)
{
    for (size_t i = 0; i < nreqs; i++)
        if (reqs[i].op == TP_CTL_PARAMS)
            c->with = reqs[i].with;
    return tp_agent_names_wanted(a);    /* the client's slot may be new, or gone */
}

/* A store's probe definitions, made first; on failure none of them stays. */
static int define_probes(struct tp_agent *a, struct tp_client *c,
                         const struct tp_ctl_request *reqs, size_t nreqs, unsigned *made)
{
    char why[200];
    *made = 0;
    for (size_t i = 0; i < nreqs; i++) {
        if (reqs[i].op != TP_CTL_PROBE)
            continue;
        enum tp_probe_kind kind = reqs[i].spec[0] == '/' ? TP_PROBE_UPROBE : TP_PROBE_KPROBE;
        size_t word = strcspn(reqs[i].spec, " \t");
        if (kind == TP_PROBE_KPROBE && memchr(reqs[i].spec, '/', word)) {
            undefine_probes(a, reqs, i);
            return tp_errf(c->last_error, sizeof(c->last_error), PM_ERR_BADSTORE,
                           "probe %s: a uprobe's PATH must be absolute (/PATH:SYMBOL)",
                           reqs[i].probe);
        }
        int rc = tp_probeset_define(a, c->ctx, reqs[i].probe, kind, reqs[i].spec,
                                    TP_CTL_MAX_PROBES, why, sizeof(why));
        if (rc < 0) {
            undefine_probes(a, reqs, i);
            return tp_errf(c->last_error, sizeof(c->last_error),
                           rc == -ENOMEM ? -ENOMEM : rc == -EDQUOT || rc == -E2BIG
                           ? PM_ERR_TOOBIG : rc == -EOPNOTSUPP ? PM_ERR_NYI
                           : rc == -ENODEV || rc == -ESHUTDOWN || rc == -ENOSPC ? PM_ERR_AGAIN
                           : PM_ERR_BADSTORE,
                           "probe %s: %s", reqs[i].probe, why);
        }
        (*made)++;
    }
    return 0;
}

/* The probes of the context whose events it had and has no longer go too. */
static void drop_unsubscribed_probes(struct tp_agent *a, const struct tp_client *c,
                                     const struct sublist *before)
{
    for (size_t i = 0; i < before->n; i++) {
        const struct tp_probedef *d = tp_probeset_by_event(a, before->v[i].event);
        bool kept = false;
        for (size_t j = 0; j < c->nsubs; j++)
            kept |= c->subs[j].event == before->v[i].event;
        if (d && d->owner == c->ctx && !kept) {
            char name[TP_PROBE_NAME_MAX + 1];
            snprintf(name, sizeof(name), "%s", d->name);
            tp_probeset_remove(a, name);
        }
    }
}

int tp_control_apply(struct tp_agent *a, struct tp_client *c, const struct tp_ctl_request *reqs,
                     size_t nreqs)
{
    char *err = c->last_error;
    size_t errlen = sizeof(c->last_error), bytes = 0;
    struct sublist l = { 0 }, before = { 0 };
    int fresh_slot = 0;
    unsigned made = 0;
    if (!a->cap)
        return tp_errf(err, errlen, PM_ERR_AGAIN, "kernel tracing is not available");
    if ((with_after(c, reqs, nreqs) & TP_WITH_STACK) && !tp_agent_has_stacks(a))
        return tp_errf(err, errlen, PM_ERR_BADSTORE, "this kernel gives no kernel stacks (no "
                       "stacktrace trigger, or no ftrace:kernel_stack)");
    int rc = define_probes(a, c, reqs, nreqs, &made);
    if (rc == 0 && sublist_copy(&before, c) < 0)
        rc = tp_errf(err, errlen, -ENOMEM, "out of memory");
    if (rc == 0)
        rc = edit_all(a, c, reqs, nreqs, &l, &bytes, err, errlen);
    if (rc == 0 && c->slot < 0 && l.n > 0 && (rc = take_slot(a, c, err, errlen)) == 0)
        fresh_slot = 1;
    bool named_first = rc == 0 && names_first(a, c, reqs, nreqs, &l);
    bool stacks_first = rc == 0 && c->slot >= 0 && (with_after(c, reqs, nreqs) & TP_WITH_STACK);
    if (stacks_first)
        tp_agent_stacks_first(a, (unsigned)c->slot);    /* before its events are enabled */
    if (rc == 0 && c->slot >= 0)
        rc = commit(a, c, &l, err, errlen);
    if (rc == 0) {
        adopt(a, c, &l, bytes);
        snprintf(err, errlen, "%s", "");
        rc = set_params(a, c, reqs, nreqs);
    } else if (fresh_slot) {
        give_slot_back(a, c);
    }
    if (c->slot >= 0 && c->nsubs == 0) {
        give_slot_back(a, c);
        tp_demand_apply(a->demand, NULL, NULL);
    }
    if (rc < 0 && (stacks_first || named_first))
        tp_agent_names_wanted(a);   /* the slot wants no stacks, or names, after all */
    if (rc < 0 && made)
        undefine_probes(a, reqs, nreqs);
    else if (rc == 0)
        drop_unsubscribed_probes(a, c, &before);
    sublist_free(&before);
    sublist_free(&l);
    return rc;
}

/* The client has no subscriptions and no slot (demand is the caller's). */
static void drop_all(struct tp_agent *a, struct tp_client *c)
{
    forget_slot(a, c);
    a->nsubs -= c->nsubs;
    tp_client_clear_subs(c);
}

void tp_control_release(struct tp_agent *a, struct tp_client *c)
{
    if (c->slot >= 0 && a->demand) {
        give_slot_back(a, c);
        tp_demand_apply(a->demand, NULL, NULL);
    }
    drop_all(a, c);
    tp_probeset_remove_owner(a, c->ctx);
}

struct forget {
    struct tp_agent *a;
    size_t event;
};

static void forget_in(void *arg, struct tp_client *c)
{
    struct forget *f = arg;
    size_t kept = 0;
    for (size_t i = 0; i < c->nsubs; i++) {
        if (c->subs[i].event != f->event) {
            c->subs[kept++] = c->subs[i];
            continue;
        }
        c->filter_bytes -= c->subs[i].filter ? strlen(c->subs[i].filter) + 1 : 0;
        free(c->subs[i].filter);
        f->a->nsubs--;
        if (c->slot >= 0)
            tp_demand_unwant(f->a->demand, (unsigned)c->slot, f->event);
        snprintf(c->last_error, sizeof(c->last_error), "%s was removed",
                 tp_catalog_event(f->a->cat, f->event)->fullname);
    }
    c->nsubs = kept;
    if (c->slot >= 0 && c->nsubs == 0)
        give_slot_back(f->a, c);
}

/* The event is going: its subscribers let go.  The probe set applies demand after. */
static void forget_event(struct tp_agent *a, size_t event)
{
    struct forget f = { a, event };
    tp_clients_each(a->clients, forget_in, &f);
}

void tp_control_attach(struct tp_agent *a)
{
    a->probeset.hooks.forget_subs = forget_event;
}

size_t tp_control_count(const struct tp_agent *a)
{
    return a->nsubs;
}

/* ---- status -------------------------------------------------------------------- */

void tp_control_status(const struct tp_agent *a, const struct tp_client *c,
                       char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "subscriptions: %zu\n", c ? c->nsubs : 0);
    for (size_t i = 0; c && i < c->nsubs && n < len; i++) {
        const struct tp_sub *s = &c->subs[i];
        n += (size_t)snprintf(buf + n, len - n, "  %s%s%s\n",
                              tp_catalog_event(a->cat, s->event)->fullname,
                              s->filter ? " filter: " : "", s->filter ? s->filter : "");
    }
    if (n < len)
        snprintf(buf + n, len - n, "last error: %s",
                 c && c->last_error[0] ? c->last_error : "none");
}

