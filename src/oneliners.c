/*
 * One-liners: a context's own aggregations.  See tp_oneliners.h.
 */
#include "tp_oneliners.h"
#include "tp_filter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcp/pmapi.h>

#include "tp_access.h"
#include "tp_agent.h"
#include "tp_control.h"
#include "tp_oldoc.h"
#include "tp_util.h"

static const char *const kind_word[] = {
    [TP_CONFIG_COUNT] = "count", [TP_CONFIG_SUM] = "sum",
    [TP_CONFIG_HIST] = "hist", [TP_CONFIG_LATENCY] = "latency",
};

/* What building said: the first reason, without the config's "line N: KIND NAME: ". */
struct heard {
    char first[200];
    const char *prefix;             /* "KIND NAME: " */
    unsigned n;
};

static void hear(void *arg, const char *msg)
{
    struct heard *h = arg;
    if (h->n++)
        return;
    const char *at = strstr(msg, h->prefix);
    snprintf(h->first, sizeof(h->first), "%s", at ? at + strlen(h->prefix) : msg);
    char *left = strstr(h->first, " left out:");       /* the config's words */
    if (left)
        memmove(left, left + strlen(" left out"), strlen(left + strlen(" left out")) + 1);
}

struct said {
    char reason[200];
    unsigned n;
};

static void say(void *arg, int line, const char *reason)
{
    struct said *s = arg;
    (void)line;
    if (!s->n++)
        snprintf(s->reason, sizeof(s->reason), "%s", reason);
}

static void oneliner_free(struct tp_agent *a, struct tp_oneliner *o)
{
    if (!o)
        return;
    if (o->ag.agg) {
        struct tp_aggs_env env = { a->cat, a->demand, a->cap, a->ident, NULL, NULL, false };
        unsigned slot = o->ag.slot;     /* unbuilding clears the aggregation */
        tp_aggs_unbuild(&env, &o->ag);
        a->slots_used &= ~((tp_slotmask)1 << slot);
    }
    tp_config_free(&o->cfg);
    free(o->directive);
    free(o);
}

/* ---- parsing ------------------------------------------------------------- */

static int check_text(const char *text, size_t len, char *err, size_t errlen)
{
    if (len && text[len - 1] == '\0')
        len--;
    if (len > TP_CTL_MAX_TEXT)
        return tp_errf(err, errlen, PM_ERR_TOOBIG, "%zu bytes: at most %d", len,
                       TP_CTL_MAX_TEXT);
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)text[i] < 0x20 && text[i] != '\t')
            return tp_errf(err, errlen, PM_ERR_BADSTORE, "a control character at byte %zu",
                           i);
    return (int)len;
}

/* "KIND NAME REST" from "KIND REST", parsed into o->cfg. */
static int parse_directive(struct tp_oneliner *o, const char *name, char *err, size_t errlen)
{
    const char *d = o->directive + strspn(o->directive, " \t");
    size_t kind = strcspn(d, " \t");
    bool known = false;
    for (size_t k = 0; k < sizeof(kind_word) / sizeof(kind_word[0]); k++)
        known |= strlen(kind_word[k]) == kind && strncmp(d, kind_word[k], kind) == 0;
    if (!known)
        return tp_errf(err, errlen, PM_ERR_BADSTORE, "expected count, sum, hist, latency "
                       "or remove, then the directive (tracepoint.conf's, without NAME)");
    char line[TP_CTL_MAX_TEXT + 80];
    snprintf(line, sizeof(line), "%.*s %s %s", (int)kind, d, name, d + kind);
    struct said s = { "", 0 };
    tp_config_init(&o->cfg);
    int rc = tp_config_parse(&o->cfg, line, strlen(line), say, &s);
    if (rc < 0)
        return tp_errf(err, errlen, -ENOMEM, "out of memory");
    if (rc > 0 || o->cfg.naggs != 1) {
        char quoted[80];
        snprintf(quoted, sizeof(quoted), " '%s'", name);
        char *at = strstr(s.reason, quoted);
        if (at)
            memmove(at, at + strlen(quoted), strlen(at + strlen(quoted)) + 1);
        return tp_errf(err, errlen, PM_ERR_BADSTORE, "%s", s.reason);
    }
    return 0;
}

/* ---- building ------------------------------------------------------------- */

static unsigned free_id(const struct tp_agent *a, int ctx)
{
    unsigned used = 0;
    for (size_t i = 0; i < a->oneliners.n; i++)
        if (a->oneliners.v[i]->owner == ctx)
            used |= 1u << a->oneliners.v[i]->id;
    for (unsigned id = 1; id <= TP_OL_MAX; id++)
        if (!(used >> id & 1))
            return id;
    return 0;
}

static int take_slot(struct tp_agent *a, unsigned *slot, char *err, size_t errlen)
{
    int s = tp_ring_free_slot(a->slots_used);
    if (s < 0)
        return tp_errf(err, errlen, PM_ERR_AGAIN, "all %d ring slots are in use; try again "
                       "later", TP_RING_MAX_SLOTS);
    a->slots_used |= (tp_slotmask)1 << s;
    *slot = (unsigned)s;
    return 0;
}

static int check_access(const struct tp_agent *a, const struct tp_client *c,
                        const struct tp_aggregation *ag, char *err, size_t errlen)
{
    for (size_t i = 0; i < ag->nevents + ag->nends; i++) {
        uint32_t ev = i < ag->nevents ? ag->events[i] : ag->ends[i - ag->nevents];
        if (!tp_access_may_read_event(a, ev, &c->creds))
            return tp_errf(err, errlen, PM_ERR_PERMISSION, "%s: probe events are root's "
                           "unless the probe's config line grants access=",
                           tp_catalog_event(a->cat, ev)->fullname);
    }
    return 0;
}

/* The kernel takes the one-liner's events and filter, or says why not. */
static int enable(struct tp_agent *a, struct tp_oneliner *o, char *err, size_t errlen)
{
    struct tp_demand_refusal r = { o->ag.slot, 0, 0 };
    tp_demand_apply(a->demand, tp_demand_note_refusal, &r);
    if (!r.err)
        return 0;
    const struct tp_event *e = tp_catalog_event(a->cat, r.event);
    char why[160] = "";
    if (r.err == -EINVAL)
        tp_instance_filter_error(a->inst, e, why, sizeof(why));
    return tp_errf(err, errlen, PM_ERR_BADSTORE, "the kernel refused %s: %s%s%s",
                   e->fullname, strerror(-r.err), *why ? ": " : "", why);
}

/*
 * Keyed by comm, or filtered on it (a word in its filter: at worst names for
 * nothing), unless the kernel's counters keep it: they count under the filter
 * at the event, and aggs clears by_comm for them.
 */
static bool needs_names(const struct tp_oneliner *o)
{
    const char *f = o->cfg.aggs[0].filter;
    return o->ag.by_comm || (!o->ag.counter && tp_filter_text_names_comm(f));
}

/*
 * A one-liner by stack: its first event is folded with the symbols and has
 * its stack, since it counts from when the stacktrace trigger is in force.
 */
static void stacks_first(struct tp_agent *a, struct tp_oneliner *o)
{
    a->oneliners.hooks.stacks_first(a, o->ag.slot);
    tp_capture_lock(a->cap);
    tp_agg_symbols(o->ag.agg, tp_render_symbols(a->render));
    tp_capture_unlock(a->cap);
}

/* Build o (parsed) for c: 0, or a PCP error with the reason (o holds nothing then). */
static int build(struct tp_agent *a, struct tp_client *c, struct tp_oneliner *o,
                 const char *name, char *err, size_t errlen)
{
    const struct tp_config_agg *def = &o->cfg.aggs[0];
    char prefix[96];
    snprintf(prefix, sizeof(prefix), "%s %s: ", kind_word[def->kind], name);
    struct heard h = { "", prefix, 0 };
    struct tp_aggs_env env = { a->cat, a->demand, a->cap, a->ident, hear, &h,
                               a->oneliners.hooks.has_stacks(a) };
    unsigned slot = 0;
    int rc = take_slot(a, &slot, err, errlen);
    if (rc < 0)
        return rc;
    rc = tp_aggs_build(&env, def, slot, &o->ag);
    if (rc == 0 || (rc > 0 && h.n)) {
        rc = tp_errf(err, errlen, PM_ERR_BADSTORE, "%s", h.first);
    } else if (rc < 0) {
        rc = tp_errf(err, errlen, -ENOMEM, "out of memory");
    } else {
        rc = check_access(a, c, &o->ag, err, errlen);
        if (rc == 0 && o->ag.by_stack)
            stacks_first(a, o);
        if (rc == 0 && needs_names(o))
            a->oneliners.hooks.names_first(a, -1);  /* before its events: each named at the event */
        if (rc == 0)
            rc = enable(a, o, err, errlen);
    }
    if (rc < 0) {
        tp_aggs_unbuild(&env, &o->ag);
        a->slots_used &= ~((tp_slotmask)1 << slot);
    }
    return rc;
}

/*
 * A user other than root gets smaller bounds: each one-liner holds its keys'
 * memory from the start (a hist's buckets, a by-stack table), and all of
 * them share the 64 ring slots.
 */
static int check_bounds(const struct tp_agent *a, const struct tp_client *c,
                        const struct tp_oneliner *o, char *err, size_t errlen)
{
    const struct tp_config_agg *def = &o->cfg.aggs[0];
    if (c->creds.has_uid && c->creds.uid == 0)
        return 0;
    if (def->max_keys > TP_OL_USER_MAX_KEYS || def->max_pending > TP_OL_USER_MAX_PENDING)
        return tp_errf(err, errlen, PM_ERR_TOOBIG, "a one-liner of a user other than root "
                       "holds at most max_keys=%d and max_pending=%d", TP_OL_USER_MAX_KEYS,
                       TP_OL_USER_MAX_PENDING);
    unsigned held = 0;
    for (size_t i = 0; i < a->oneliners.n; i++)
        held += a->oneliners.v[i]->uid == c->creds.uid;
    if (held >= TP_OL_USER_MAX)
        return tp_errf(err, errlen, PM_ERR_TOOBIG, "a user other than root holds at most %d "
                       "one-liners, in all its contexts", TP_OL_USER_MAX);
    return 0;
}

static int add(struct tp_agent *a, struct tp_client *c, const char *text, size_t len)
{
    char *err = c->last_error;
    size_t errlen = sizeof(c->last_error);
    unsigned id = free_id(a, c->ctx);
    if (!id)
        return tp_errf(err, errlen, PM_ERR_TOOBIG, "at most %d one-liners per context",
                       TP_OL_MAX);
    struct tp_oneliner *o = calloc(1, sizeof(*o));
    struct tp_oneliner **v = realloc(a->oneliners.v, (a->oneliners.n + 1) * sizeof(*v));
    if (v)
        a->oneliners.v = v;
    if (!o || !v || !(o->directive = strndup(text, len))) {
        free(o);
        return tp_errf(err, errlen, -ENOMEM, "out of memory");
    }
    char name[32];
    snprintf(name, sizeof(name), "oneliner%u", id);
    *o = (struct tp_oneliner){ .owner = c->ctx, .uid = c->creds.uid, .id = id,
                               .directive = o->directive };
    int rc = parse_directive(o, name, err, errlen);
    if (rc == 0)
        rc = check_bounds(a, c, o, err, errlen);
    if (rc == 0)
        rc = build(a, c, o, name, err, errlen);
    if (rc < 0) {
        oneliner_free(a, o);
        return rc;
    }
    a->oneliners.v[a->oneliners.n++] = o;
    return 0;
}

/* ---- removing -------------------------------------------------------------- */

/* Remove the context's one-liners with this id (0: all).  How many went. */
static size_t remove_some(struct tp_agent *a, int ctx, unsigned id)
{
    size_t kept = 0, n = a->oneliners.n;
    for (size_t i = 0; i < n; i++) {
        struct tp_oneliner *o = a->oneliners.v[i];
        if (o->owner == ctx && (!id || o->id == id))
            oneliner_free(a, o);
        else
            a->oneliners.v[kept++] = o;
    }
    a->oneliners.n = kept;
    return n - kept;
}

static int remove_request(struct tp_agent *a, struct tp_client *c, const char *what)
{
    what += strspn(what, " \t");
    char *end = NULL;
    unsigned long id = strcmp(what, "*") == 0 ? 0 : strtoul(what, &end, 10);
    if (end && (end == what || *end || !id || id > TP_OL_MAX))
        return tp_errf(c->last_error, sizeof(c->last_error), PM_ERR_BADSTORE,
                       "remove: expected an id (1..%d) or '*'", TP_OL_MAX);
    if (!remove_some(a, c->ctx, (unsigned)id) && id)
        return tp_errf(c->last_error, sizeof(c->last_error), PM_ERR_BADSTORE,
                       "remove: this context has no one-liner %lu", id);
    return 0;
}

int tp_oneliners_store(struct tp_agent *a, struct tp_client *c, const char *text, size_t len)
{
    if (!a->cap)
        return tp_errf(c->last_error, sizeof(c->last_error), PM_ERR_AGAIN,
                       "kernel tracing is not available");
    int n = check_text(text, len, c->last_error, sizeof(c->last_error));
    if (n < 0)
        return n;
    char buf[TP_CTL_MAX_TEXT + 1];
    memcpy(buf, text, (size_t)n);
    buf[n] = '\0';
    const char *d = buf + strspn(buf, " \t");
    int rc = strncmp(d, "remove", 6) == 0 && (d[6] == ' ' || d[6] == '\t')
             ? remove_request(a, c, d + 6) : add(a, c, buf, (size_t)n);
    if (rc == 0)
        c->last_error[0] = '\0';
    return rc;
}

void tp_oneliners_release(struct tp_agent *a, int ctx)
{
    remove_some(a, ctx, 0);
}

size_t tp_oneliners_count(const struct tp_agent *a, int ctx)
{
    size_t n = 0;
    for (size_t i = 0; i < a->oneliners.n; i++)
        n += ctx < 0 || a->oneliners.v[i]->owner == ctx;
    return n;
}

bool tp_oneliners_by_comm(const struct tp_agent *a)
{
    for (size_t i = 0; i < a->oneliners.n; i++)
        if (a->oneliners.v[i]->ag.by_comm)
            return true;
    return false;
}

void tp_oneliners_forget_event(struct tp_agent *a, size_t event)
{
    for (size_t i = 0; i < a->oneliners.n; i++) {
        struct tp_aggregation *ag = &a->oneliners.v[i]->ag;
        for (size_t j = 0; j < ag->nevents; j++)
            if (ag->events[j] == event)
                ag->events[j--] = ag->events[--ag->nevents];
        for (size_t j = 0; j < ag->nends; j++)
            if (ag->ends[j] == event)
                ag->ends[j--] = ag->ends[--ag->nends];
        tp_demand_unwant(a->demand, ag->slot, event);
    }
}

void tp_oneliners_free(struct tp_agent *a)
{
    for (size_t i = 0; i < a->oneliners.n; i++)
        oneliner_free(a, a->oneliners.v[i]);
    free(a->oneliners.v);
    a->oneliners.v = NULL;
    a->oneliners.n = 0;
}

/* ---- the document ---------------------------------------------------------- */

/*
 * A one-liner's values, DOC_KEYS keys per hold of the capture lock, so the
 * producer never waits long for a large one: each key is counted at least
 * up to the document's "until", as the client needs, and differences
 * between two readings stay exact key by key.
 */
#define DOC_KEYS 256

static void put_oneliner(const struct tp_agent *a, FILE *f, struct tp_oneliner *o)
{
    (void)tp_aggs_read_counters(&o->ag, a->cap);    /* after "until": counted that far */
    tp_capture_lock(a->cap);
    size_t n = tp_oldoc_put_head(f, o->id, o->ag.agg, o->directive + strspn(o->directive, " \t"));
    tp_capture_unlock(a->cap);
    for (size_t from = 0; from < n; from += DOC_KEYS) {
        tp_capture_lock(a->cap);
        tp_oldoc_put_keys(f, o->ag.agg, from, from + DOC_KEYS < n ? from + DOC_KEYS : n);
        tp_capture_unlock(a->cap);
    }
}

int tp_oneliners_document(const struct tp_agent *a, int ctx, char **out)
{
    size_t len = 0;
    *out = NULL;
    FILE *f = open_memstream(out, &len);
    if (!f)
        return -ENOMEM;
    fputs(TP_OLDOC_HEAD, f);
    if (a->cap) {
        tp_capture_lock(a->cap);        /* before the one-liners: each counted at least that far */
        tp_oldoc_put_until(f, tp_capture_handed(a->cap));
        tp_capture_unlock(a->cap);
        tp_capture_poke(a->cap);        /* a client waiting for a later time reads again */
    }
    for (unsigned id = 1; a->cap && id <= TP_OL_MAX; id++)
        for (size_t i = 0; i < a->oneliners.n; i++)
            if (a->oneliners.v[i]->owner == ctx && a->oneliners.v[i]->id == id)
                put_oneliner(a, f, a->oneliners.v[i]);
    if (fclose(f) != 0 || !*out) {
        free(*out);
        *out = NULL;
        return -ENOMEM;
    }
    return 0;
}
