/*
 * Config streams to slots and wants.  See tp_streams.h.
 */
#include "tp_streams.h"

#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_records.h"

static void log_unserved(const struct tp_stream *st, tp_log_fn log, void *arg)
{
    tp_logf(log, arg, "config line %d: stream %s has no usable events; not served",
          st->line, st->name);
}

struct build {
    struct tp_catalog *cat;
    struct tp_demand *demand;
    uint64_t since;             /* the streams take events recorded from then on */
    tp_log_fn log;
    void *arg;
};

static int add_event(struct tp_stream *st, uint32_t ev)
{
    for (size_t i = 0; i < st->nevents; i++)
        if (st->events[i] == ev)
            return 0;
    uint32_t *v = realloc(st->events, (st->nevents + 1) * sizeof(*v));
    if (!v)
        return -ENOMEM;
    st->events = v;
    st->events[st->nevents++] = ev;
    return 0;
}

/* Want one event for the stream; log and skip it if that fails. */
static int want_event(const struct build *b, struct tp_stream *st, size_t ev,
                      const char *filter)
{
    const struct tp_event *e = tp_catalog_event(b->cat, ev);
    char err[256] = "";
    int rc = tp_demand_want(b->demand, st->slot, ev, filter, b->since, err, sizeof(err));
    if (rc == -ENOMEM)
        return rc;
    if (rc == 0)
        return add_event(st, (uint32_t)ev);
    tp_logf(b->log, b->arg, "config line %d: stream %s: event %s left out: %s", st->line,
          st->name, e->fullname,
          *err ? err : strerror(-rc));
    return 0;
}

static int resolve_pattern(const struct build *b, struct tp_stream *st, const char *pat,
                           const char *filter)
{
    size_t count = tp_catalog_count(b->cat), matched = 0;
    for (size_t i = 0; i < count; i++) {
        const struct tp_event *e = tp_catalog_event(b->cat, i);
        if (e->vacant || !tp_pattern_match(pat, e->system, e->name))
            continue;
        matched++;
        int rc = want_event(b, st, i, filter);
        if (rc < 0)
            return rc;
    }
    if (!matched)
        tp_logf(b->log, b->arg, "config line %d: stream %s: no tracepoint matches '%s'",
              st->line, st->name, pat);
    return 0;
}

/*
 * Instance ids come from the name (FNV-1a, 31 bits), so a stream keeps its id
 * when tracepoint.conf gains, loses or reorders other streams; a clash (very
 * unlikely) with one of the n streams at v moves to the next free id.
 */
static int inst_of(const struct tp_stream *v, size_t n, const char *name)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 16777619u;
    int id = (int)(h & 0x7fffffff);
    for (size_t i = 0; i < n; i++)
        if (v[i].inst == id) {
            id = (id + 1) & 0x7fffffff;
            i = (size_t)-1;         /* and check again from the first */
        }
    return id;
}

int tp_streams_find_inst(const struct tp_streams *s, int inst)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].inst == inst)
            return (int)i;
    return -1;
}

static void free_stream(struct tp_stream *st)
{
    free(st->name);
    free(st->events);
    memset(st, 0, sizeof(*st));
}

/*
 * Stream cs on slot, as instance inst, into st.  Returns 1, or 0 if none
 * of its events can be served (logged; its wants released), or -ENOMEM.
 */
static int build_stream(const struct build *b, struct tp_stream *st,
                        const struct tp_config_stream *cs, unsigned slot, int inst)
{
    memset(st, 0, sizeof(*st));
    st->inst = inst;
    st->slot = slot;
    st->line = cs->line;
    st->access = cs->access;
    st->with = cs->with;
    if (!(st->name = strdup(cs->name)))
        return -ENOMEM;
    for (size_t i = 0; i < cs->nevents; i++) {
        int rc = resolve_pattern(b, st, cs->events[i], cs->filter);
        if (rc < 0)
            return rc;
    }
    if (st->nevents > 0)
        return 1;
    log_unserved(st, b->log, b->arg);
    tp_demand_release(b->demand, st->slot);
    free_stream(st);
    return 0;
}

int tp_streams_build(struct tp_streams *s, const struct tp_config *cfg,
                     struct tp_catalog *cat, struct tp_demand *demand,
                     tp_log_fn log, void *arg)
{
    struct build b = { cat, demand, 0, log, arg };
    memset(s, 0, sizeof(*s));
    s->v = calloc(cfg->nstreams ? cfg->nstreams : 1, sizeof(*s->v));
    if (!s->v)
        return -ENOMEM;
    for (size_t i = 0; i < cfg->nstreams; i++) {
        const struct tp_config_stream *cs = &cfg->streams[i];
        if (s->n == TP_RING_MAX_SLOTS) {
            tp_logf(log, arg, "config line %d: stream %s: more than %d streams; not served",
                  cs->line, cs->name, TP_RING_MAX_SLOTS);
            continue;
        }
        int rc = build_stream(&b, &s->v[s->n], cs, (unsigned)s->n,
                              inst_of(s->v, s->n, cs->name));
        if (rc < 0)
            return rc;
        s->n += (size_t)rc;
    }
    return (int)s->n;
}

/* ---- a new config -------------------------------------------------------- */

static const struct tp_config_stream *config_stream(const struct tp_config *cfg,
                                                    const char *name)
{
    for (size_t i = 0; i < cfg->nstreams; i++)
        if (strcmp(cfg->streams[i].name, name) == 0)
            return &cfg->streams[i];
    return NULL;
}

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_access(const struct tp_access *a, const struct tp_access *b)
{
    if (a->kind != b->kind || a->ngroups != b->ngroups)
        return false;
    for (size_t i = 0; i < a->ngroups; i++)
        if (strcmp(a->groups[i], b->groups[i]) != 0)
            return false;
    return true;
}

/* Do two config lines define the same stream? */
static bool same_definition(const struct tp_config_stream *a, const struct tp_config_stream *b)
{
    if (!a || !b || a->nevents != b->nevents || !same_text(a->filter, b->filter) ||
        !same_access(&a->access, &b->access))
        return false;
    for (size_t i = 0; i < a->nevents; i++)
        if (strcmp(a->events[i], b->events[i]) != 0)
            return false;
    return true;
}

/* A stream goes, and with it what it wanted of demand and its slot. */
static void drop_stream(const struct build *b, struct tp_stream *st,
                        struct tp_streams_change *ch)
{
    tp_demand_release(b->demand, st->slot);
    ch->freed |= (tp_slotmask)1 << st->slot;
    free_stream(st);
}

/* Streams of the old set that cfg no longer has: their slots go. */
static void drop_removed(struct tp_streams *s, const struct tp_config *cfg,
                         const struct build *b, struct tp_streams_change *ch)
{
    for (size_t i = 0; i < s->n; i++) {
        struct tp_stream *st = &s->v[i];
        if (config_stream(cfg, st->name))
            continue;
        tp_logf(b->log, b->arg, "stream %s: removed", st->name);
        drop_stream(b, st, ch);
    }
}

/* One stream of the new config into v[*n]: kept, rebuilt or new. */
static int update_one(struct tp_streams *s, const struct tp_config *old,
                      const struct tp_config_stream *cs, const struct build *b,
                      struct tp_stream *v, size_t *n, struct tp_streams_change *ch)
{
    struct tp_stream *cur = NULL;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].name && strcmp(s->v[i].name, cs->name) == 0)
            cur = &s->v[i];
    if (cur && same_definition(config_stream(old, cs->name), cs)) {
        v[*n] = *cur;                   /* unchanged: its slot, and every position in it */
        v[*n].with = cs->with;          /* what records carry may change at any record */
        v[(*n)++].access = cs->access;
        memset(cur, 0, sizeof(*cur));
        return 0;
    }
    int slot = cur ? (int)cur->slot : tp_ring_free_slot(*ch->used | ch->freed);
    if (slot < 0) {
        tp_logf(b->log, b->arg, "config line %d: stream %s: no ring slot free; not served",
                cs->line, cs->name);
        return 0;
    }
    int inst = cur ? cur->inst : inst_of(v, *n, cs->name);
    if (cur) {
        tp_demand_release(b->demand, cur->slot);
        free_stream(cur);
    }
    tp_logf(b->log, b->arg, "stream %s: %s", cs->name,
            cur ? "changed; it starts afresh" : "added");
    ch->restart |= (tp_slotmask)1 << slot;
    *ch->used |= (tp_slotmask)1 << slot;
    int rc = build_stream(b, &v[*n], cs, (unsigned)slot, inst);
    if (rc < 0) {
        tp_logf(b->log, b->arg, "config line %d: stream %s: out of memory; not served",
                cs->line, cs->name);
        drop_stream(b, &v[*n], ch);     /* what it had wanted so far */
    } else if (rc == 0) {
        ch->freed |= (tp_slotmask)1 << slot;
    }
    *n += rc > 0 ? (size_t)rc : 0;
    return rc < 0 ? rc : 0;
}

/* Streams of the old set not carried over go, with their wants and slots. */
static void drop_rest(struct tp_streams *s, const struct build *b, struct tp_streams_change *ch)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].name)
            drop_stream(b, &s->v[i], ch);
    *ch->used &= ~ch->freed;
}

int tp_streams_update(struct tp_streams *s, const struct tp_config *old,
                      const struct tp_config *cfg, struct tp_catalog *cat,
                      struct tp_demand *demand, uint64_t since, struct tp_streams_change *ch,
                      tp_log_fn log, void *arg)
{
    struct build b = { cat, demand, since, log, arg };
    struct tp_stream *v = calloc(cfg->nstreams ? cfg->nstreams : 1, sizeof(*v));
    size_t n = 0;
    int rc = v ? 0 : -ENOMEM;
    if (v) {
        drop_removed(s, cfg, &b, ch);
        *ch->used &= ~ch->freed;
    }
    /* after a failure too: an unchanged stream is carried over without allocating */
    for (size_t i = 0; v && i < cfg->nstreams; i++) {
        int r = update_one(s, old, &cfg->streams[i], &b, v, &n, ch);
        rc = rc < 0 ? rc : r;
    }
    drop_rest(s, &b, ch);       /* no stream may keep pointing into the old config */
    free(s->v);
    s->v = v;
    s->n = n;
    return rc;
}

void tp_streams_drop_event(struct tp_streams *s, unsigned slot, uint32_t event)
{
    for (size_t i = 0; i < s->n; i++) {
        struct tp_stream *st = &s->v[i];
        if (st->slot != slot)
            continue;
        for (size_t j = 0; j < st->nevents; j++) {
            if (st->events[j] == event) {
                st->events[j] = st->events[--st->nevents];
                return;
            }
        }
    }
}

tp_slotmask tp_streams_prune(struct tp_streams *s, tp_log_fn log, void *arg)
{
    size_t kept = 0;
    tp_slotmask freed = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (s->v[i].nevents == 0) {
            log_unserved(&s->v[i], log, arg);
            freed |= (tp_slotmask)1 << s->v[i].slot;
            free(s->v[i].name);
            free(s->v[i].events);
            continue;
        }
        s->v[kept++] = s->v[i];
    }
    s->n = kept;
    return freed;
}

void tp_streams_free(struct tp_streams *s)
{
    if (!s || !s->v)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].name);
        free(s->v[i].events);
    }
    free(s->v);
    memset(s, 0, sizeof(*s));
}
