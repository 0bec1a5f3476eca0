/*
 * Config streams to slots and wants.  See tp_streams.h.
 */
#include "tp_streams.h"

#include <errno.h>
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
    int rc = ev < TP_MAX_EVENTS
        ? tp_demand_want(b->demand, st->slot, ev, filter, err, sizeof(err)) : -E2BIG;
    if (rc == -ENOMEM)
        return rc;
    if (rc == 0)
        return add_event(st, (uint32_t)ev);
    tp_logf(b->log, b->arg, "config line %d: stream %s: event %s left out: %s", st->line,
          st->name, e->fullname,
          *err ? err : rc == -E2BIG ? "beyond the PMID space" : strerror(-rc));
    return 0;
}

static int resolve_pattern(const struct build *b, struct tp_stream *st, const char *pat,
                           const char *filter)
{
    size_t count = tp_catalog_count(b->cat), matched = 0;
    for (size_t i = 0; i < count; i++) {
        const struct tp_event *e = tp_catalog_event(b->cat, i);
        if (!tp_pattern_match(pat, e->system, e->name))
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
 * unlikely) moves to the next free id.
 */
static int inst_of(const struct tp_streams *s, const char *name)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 16777619u;
    int id = (int)(h & 0x7fffffff);
    while (tp_streams_find_inst(s, id) >= 0)
        id = (id + 1) & 0x7fffffff;
    return id;
}

int tp_streams_find_inst(const struct tp_streams *s, int inst)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].inst == inst)
            return (int)i;
    return -1;
}

static int build_one(const struct build *b, struct tp_streams *s,
                     const struct tp_config_stream *cs)
{
    struct tp_stream *st = &s->v[s->n];
    memset(st, 0, sizeof(*st));
    st->inst = inst_of(s, cs->name);
    st->slot = (unsigned)s->n;
    st->line = cs->line;
    st->access = cs->access;
    if (!(st->name = strdup(cs->name)))
        return -ENOMEM;
    for (size_t i = 0; i < cs->nevents; i++) {
        int rc = resolve_pattern(b, st, cs->events[i], cs->filter);
        if (rc < 0)
            return rc;
    }
    if (st->nevents == 0) {
        log_unserved(st, b->log, b->arg);
        tp_demand_release(b->demand, st->slot);
        free(st->name);
        return 0;
    }
    s->n++;
    return 0;
}

int tp_streams_build(struct tp_streams *s, const struct tp_config *cfg,
                     struct tp_catalog *cat, struct tp_demand *demand,
                     tp_log_fn log, void *arg)
{
    struct build b = { cat, demand, log, arg };
    memset(s, 0, sizeof(*s));
    s->v = calloc(cfg->nstreams ? cfg->nstreams : 1, sizeof(*s->v));
    if (!s->v)
        return -ENOMEM;
    for (size_t i = 0; i < cfg->nstreams; i++) {
        if (s->n == TP_RING_MAX_SLOTS) {
            tp_logf(log, arg, "config line %d: stream %s: more than %d streams; not served",
                  cfg->streams[i].line, cfg->streams[i].name, TP_RING_MAX_SLOTS);
            continue;
        }
        int rc = build_one(&b, s, &cfg->streams[i]);
        if (rc < 0)
            return rc;
    }
    return (int)s->n;
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

void tp_streams_prune(struct tp_streams *s, tp_log_fn log, void *arg)
{
    size_t kept = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (s->v[i].nevents == 0) {
            log_unserved(&s->v[i], log, arg);
            free(s->v[i].name);
            free(s->v[i].events);
            continue;
        }
        s->v[kept++] = s->v[i];
    }
    s->n = kept;
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
