/* oneliner.c: -A one-liners, stored, read and printed (client/oneliner.h). */
#include "oneliner.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metric.h"
#include "olprint.h"
#include "output.h"
#include "session.h"
#include "util.h"

#define UNTIL_WAIT_NS (2 * 1000 * 1000 * 1000ull)  /* for the PMDA to count up to a stop */
#define UNTIL_NAP_NS  (5 * 1000 * 1000L)

static void explain(const struct tracer *t, int sts, const char *directive)
{
    char *why = refusal_reason();
    errmsg("%s refused the one-liner \"%s\": %s%s%s", t->where, directive, pmErrStr(sts),
           why ? ": " : "", why ? why : "");
    free(why);
    if (sts == PM_ERR_PERMISSION)
        fprintf(stderr, "%s: one-liners need root, or a group named by allow_group in "
                "tracepoint.conf\n", pmGetProgname());
}

static void remove_all(struct tracer *t)
{
    if (t->ol.stored)
        store_string(t->ol.metric, "remove *");
    t->ol.stored = 0;
}

/* This context's document, decoded: 0, or -1 after a message. */
static int read_doc(struct tracer *t, struct ol_doc *doc)
{
    char *text = fetch_string(AGG_METRIC);
    int rc = text ? ol_doc_parse(text, doc) : -1;
    free(text);
    if (rc < 0)
        errmsg("cannot read the one-liners' values from %s", t->where);
    return rc;
}

static bool has_agg(const struct ol_doc *d, unsigned id)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->v[i].id == id)
            return true;
    return false;
}

/* The ids of what was just stored: the first reading's.  0, or -1 after a message. */
static int learn_ids(struct tracer *t)
{
    struct ol_doc d;
    if (read_doc(t, &d) < 0)
        return -1;
    for (size_t i = 0; i < d.n && t->ol.nids < OL_MAX_ARGS; i++)
        t->ol.ids[t->ol.nids++] = d.v[i].id;
    t->ol.until = d.until;
    ol_doc_free(&d);
    return 0;
}

/*
 * Is d still this client's reading: every id stored in it, its until not
 * before the last one's?  0, or -1 after a message (and ol.gone set).
 */
static int check_doc(struct tracer *t, const struct ol_doc *d)
{
    for (size_t i = 0; i < t->ol.nids; i++) {
        if (!has_agg(d, t->ol.ids[i])) {
            errmsg("one-liner %u is gone: the PMDA restarted or dropped this context",
                   t->ol.ids[i]);
            t->ol.gone = true;
            return -1;
        }
    }
    if (d->until && d->until < t->ol.until) {
        errmsg("the one-liners' values went back in time: the PMDA restarted or "
               "dropped this context");
        t->ol.gone = true;
        return -1;
    }
    if (d->until)
        t->ol.until = d->until;
    return 0;
}

int oneliners_start(struct tracer *t)
{
    const struct settings *s = t->set;
    pmDesc desc;
    int sts;
    if (!s->naggs)
        return 0;
    if ((sts = lookup_metric(AGG_METRIC, &t->ol.metric, &desc)) < 0) {
        errmsg("%s has no %s: its PMDA has no one-liners (%s)", t->where, AGG_METRIC,
               pmErrStr(sts));
        return -1;
    }
    for (size_t i = 0; i < s->naggs; i++) {
        if ((sts = store_string(t->ol.metric, s->aggs[i])) < 0) {
            explain(t, sts, s->aggs[i]);
            remove_all(t);
            return -1;
        }
        t->ol.stored++;
    }
    if (learn_ids(t) < 0 || t->ol.nids < s->naggs) {
        if (t->ol.nids < s->naggs)
            errmsg("%s does not show the one-liners stored", t->where);
        remove_all(t);
        return -1;
    }
    /* as bpftrace says it is attached: from here on every event counts */
    fprintf(stderr, "Counting %zu one-liner%s; Ctrl-C prints %s.\n", s->naggs,
            s->naggs == 1 ? "" : "s", s->naggs == 1 ? "it" : "them");
    return 0;
}

static uint64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The document once it counts every event made before end (wall-clock ns):
 * read again while the PMDA's producer has not yet handed on that far, for
 * at most UNTIL_WAIT_NS, then say up to when the values are.  A PMDA that
 * does not say (until 0) is taken as it is.
 */
static int read_doc_until(struct tracer *t, struct ol_doc *doc, uint64_t end)
{
    if (read_doc(t, doc) < 0)
        return -1;
    uint64_t give_up = wall_ns() + UNTIL_WAIT_NS;
    while (doc->until && doc->until < end && wall_ns() < give_up) {
        struct timespec nap = { 0, UNTIL_NAP_NS };
        nanosleep(&nap, NULL);
        ol_doc_free(doc);
        if (read_doc(t, doc) < 0)
            return -1;
    }
    if (doc->until && doc->until < end) {
        time_t sec = (time_t)(doc->until / 1000000000u);
        struct tm tm;
        char when[32] = "?";
        if (localtime_r(&sec, &tm))
            strftime(when, sizeof(when), "%H:%M:%S", &tm);
        fprintf(stderr, "%s: warning: %s has counted the events up to %s.%09" PRIu64
                " only, %.3f s before these values were asked for\n", pmGetProgname(),
                t->where, when, doc->until % 1000000000u, (double)(end - doc->until) / 1e9);
    }
    return 0;
}

static int print_doc(struct tracer *t, const struct ol_doc *d)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < d->n; i++)
        rc = t->set->json ? ol_print_json(stdout, &d->v[i]) : ol_print_text(stdout, &d->v[i]);
    if (rc < 0)
        errmsg("out of memory");
    return rc < 0 ? -1 : flush_output(&t->output_closed);
}

int oneliners_print(struct tracer *t)
{
    struct ol_doc now, interval;
    if (!t->ol.stored)
        return 0;
    if (t->ol.gone)
        return -1;                  /* said already */
    if (read_doc_until(t, &now, wall_ns()) < 0)    /* the interval ends now */
        return -1;
    if (check_doc(t, &now) < 0) {
        ol_doc_free(&now);
        return -1;
    }
    if (ol_doc_diff(&now, &t->ol.last, &interval) < 0) {
        ol_doc_free(&now);
        errmsg("out of memory");
        return -1;
    }
    ol_doc_free(&t->ol.last);
    t->ol.last = now;
    int rc = t->output_closed ? 0 : print_doc(t, &interval);
    ol_doc_free(&interval);
    return rc;
}

int oneliners_finish(struct tracer *t)
{
    int rc = oneliners_print(t);
    remove_all(t);
    return rc;
}

void oneliners_free(struct ol_live *ol)
{
    ol_doc_free(&ol->last);
}
