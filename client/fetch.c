/* fetch.c: the fetch loop (client/fetch.h). */
#include "fetch.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>

#include "output.h"
#include "record.h"
#include "tp_pcp_compat.h"
#include "util.h"

/*
 * Sleep until the monotonic time deadline_ns, with SIGINT and SIGTERM
 * (blocked elsewhere) let through only here, so that a signal can never
 * slip in between the check of the flag and the sleep.  False if asked
 * to stop.
 */
static bool wait_until(const struct tracer *t, long long deadline_ns,
                       const sigset_t *unblocked)
{
    for (;;) {
        if (*t->stop)
            return false;
        long long left = deadline_ns - mono_ns(mono_now());
        if (left <= 0)
            return true;
        struct timespec ts = { .tv_sec = (time_t)(left / NS_PER_SEC),
                               .tv_nsec = (long)(left % NS_PER_SEC) };
        pselect(0, NULL, NULL, NULL, &ts, unblocked);
    }
}

/*
 * Client-side selection (streams, archives): the EVENT patterns, -p, -C and
 * --comm; and -S/-T.  A subscription gets exactly what it asked for.
 */
static bool wanted(const struct tracer *t, const struct common *c)
{
    const struct settings *s = t->set;
    int64_t pid = 0, cpu = 0;
    bool has_pid, has_cpu, match = s->npatterns == 0;

    if (t->window && (c->time_ns < t->start_ns || c->time_ns > t->finish_ns))
        return false;
    if (t->registered)
        return true;
    if (!match) {
        char event[EVENT_NAME_MAX];     /* event_len is less */
        memcpy(event, c->event, c->event_len);
        event[c->event_len] = '\0';
        for (size_t i = 0; i < s->npatterns && !match; i++)
            match = fnmatch(s->patterns[i], event, 0) == 0;
    }
    if (!match || !select_any(&s->sel))
        return match;
    has_pid = int_value(c->pid, c->pid_param, &pid);
    has_cpu = int_value(c->cpu, c->cpu_param, &cpu);
    return select_match(&s->sel, has_pid, pid, has_cpu, cpu, c->has_comm ? c->comm : NULL);
}

static int handle_record(struct tracer *t, const struct record *r)
{
    const struct settings *s = t->set;
    struct common c;

    if (scan_common(&t->params, r, &c) < 0)
        return -ENOMEM;
    if (c.flags & PM_EVENT_FLAG_MISSED) {
        uint64_t n = c.missed > 0 ? (uint64_t)c.missed : 0;
        if (t->window && (r->stamp_ns < t->start_ns || r->stamp_ns > t->finish_ns))
            return 0;
        t->tally.lost += n;
        if (!(s->quiet && s->summary) && !s->folded)
            output_lost(&t->printer, n, r->stamp_ns);
        return 0;
    }
    if (!wanted(t, &c))
        return 0;
    if (tally_event(&t->tally, c.event, c.event_len) < 0)
        return -ENOMEM;
    if (t->folds != NULL) {
        int rc = fold_stack(t->folds, c.has_comm ? c.comm : NULL, c.stack, c.stack_len);
        if (rc < 0)
            return rc;
    }
    if (s->quiet || s->folded)
        return 0;
    return output_event(&t->printer, &c, r);
}

/*
 * The time a record is sorted by: its time_ns, else its timestamp.  The
 * records of an array are alike: time_ns where the last record had it is
 * looked for first.
 */
static int record_key(struct tracer *t, struct record *r)
{
    int at = t->time_at;

    if (t->time_pmid != PM_ID_NULL && at < r->numpmid && r->vset[at]->pmid == t->time_pmid) {
        r->key = u64_value(r->vset[at], r->stamp_ns);
        return 0;
    }
    r->key = r->stamp_ns;
    for (int i = 0; i < r->numpmid; i++) {
        const struct param *p = param_at(&t->params, i, r->vset[i]->pmid);
        if (p == NULL)
            return -ENOMEM;
        if (p->role == TIME_NS) {
            r->key = u64_value(r->vset[i], r->stamp_ns);
            t->time_at = i;
            t->time_pmid = r->vset[i]->pmid;
        }
    }
    return 0;
}

static int by_time(const void *a, const void *b)
{
    const struct record *x = a, *y = b;

    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/*
 * The PMDA hands out records per CPU and per kernel page: put each array
 * in time order, as trace-cmd report does, then handle the records.
 */
static int handle_records(struct tracer *t, struct record *v, int n)
{
    int rc = 0;

    bool sorted = true;

    for (int i = 0; i < n && rc == 0; i++) {
        rc = record_key(t, &v[i]);
        sorted = sorted && (i == 0 || v[i - 1].key <= v[i].key);
    }
    if (rc == 0 && !sorted)     /* one CPU's records, say: in order already */
        qsort(v, (size_t)n, sizeof(*v), by_time);
    for (int i = 0; i < n && rc == 0; i++)
        rc = handle_record(t, &v[i]);
    return rc;
}

static int handle_highres_array(struct tracer *t, pmValueSet *vs, int j)
{
    tp_hres_result **hr = NULL;
    struct record *v;
    int n = tp_unpack_hres_events(vs, j, &hr), rc = -ENOMEM;

    if (n <= 0)
        return n;
    if ((v = calloc((size_t)n, sizeof(*v))) != NULL) {
        for (int i = 0; i < n; i++)
            v[i] = (struct record){ hr[i]->numpmid, hr[i]->vset, tp_hres_ns(hr[i]), 0, i };
        rc = handle_records(t, v, n);
        free(v);
    }
    tp_free_unpacked_hres(hr, n);
    return rc;
}

/* libpcp's anonymous event.flags and event.missed, as its unpacking names them. */
static void ready_unpacker(struct tracer *t)
{
    const char *names[2] = { "event.flags", "event.missed" };
    pmID ids[2];

    for (int i = 0; i < 2; i++) {
        ids[i] = PM_ID_NULL;
        if (pmLookupName(1, &names[i], &ids[i]) < 0)       /* libpcp's own fallback */
            ids[i] = pmID_build(pmID_domain(ids[i]), 0, 1);
    }
    unpack_init(&t->unpack, ids[0], ids[1]);
    t->unpack_ready = true;
}

/* The records in place (no copy of any value), valid while vs is. */
static int handle_event_array(struct tracer *t, pmValueSet *vs, int j)
{
    struct record *v = NULL;
    int n;

    if (!t->unpack_ready)
        ready_unpacker(t);
    if ((n = unpack_events(&t->unpack, vs, j, &v)) <= 0)
        return n;
    return handle_records(t, v, n);
}

/* Unpack value j of vs (an event array) and handle each record. */
static int handle_array(struct tracer *t, int type, pmValueSet *vs, int j)
{
    if (type == PM_TYPE_HIGHRES_EVENT)
        return handle_highres_array(t, vs, j);
    return handle_event_array(t, vs, j);
}

static void report_value_error(const struct tracer *t, int i, const pmValueSet *vs)
{
    if (vs->numval == PM_ERR_PERMISSION && t->set->stream != NULL)
        errmsg("%s does not let this client read the stream '%s' (see its access= "
               "in tracepoint.conf): %s", t->where, t->set->stream, pmErrStr(vs->numval));
    else
        errmsg("%s from %s: %s", t->names[i], t->where, pmErrStr(vs->numval));
}

/*
 * Fetched with the records, pending is what is left after them: live, more
 * to fetch at once; in an archive, what the logger had not received yet
 * (its last value, what it never archived).
 */
static void note_pending(struct tracer *t, const pmValueSet *vs)
{
    pmAtomValue a;

    for (int j = 0; j < vs->numval; j++) {
        if (pmExtractValue(vs->valfmt, &vs->vlist[j], PM_TYPE_U64, &a, PM_TYPE_U64) < 0)
            continue;
        if (t->archive)
            tally_pending(&t->tally, vs->vlist[j].inst, a.ull);
        else if (a.ull > 0)
            t->more = true;
    }
}

/*
 * One fetch: print what arrived.  0, 1 at the end of an archive, or -1
 * after printing an error.
 */
static int fetch_round(struct tracer *t)
{
    pmResult *rp;
    int sts = pmFetch(t->npmids, t->pmids, &rp);
    int rc = 0;

    if (sts == PM_ERR_EOL && t->archive) {
        t->tally.reached_end = true;
        return 1;
    }
    if (sts < 0) {
        errmsg("cannot fetch from %s: %s", t->where, pmErrStr(sts));
        return -1;
    }
    t->last_stamp_ns = tp_time_ns(&rp->timestamp);
    t->more = false;
    for (int i = 0; i < rp->numpmid && rc == 0; i++) {
        pmValueSet *vs = rp->vset[i];
        if (vs->pmid == t->pending) {
            note_pending(t, vs);
            continue;
        }
        if (vs->numval < 0) {
            printer_flush(&t->printer, &t->output_closed);  /* the lines before, first */
            report_value_error(t, i, vs);
            rc = -1;
        }
        for (int j = 0; j < vs->numval && rc == 0; j++) {
            if ((sts = handle_array(t, t->types[i], vs, j)) < 0) {
                printer_flush(&t->printer, &t->output_closed);
                errmsg("cannot decode the event records: %s", pmErrStr(sts));
                rc = -1;
            }
        }
    }
    pmFreeResult(rp);
    if (printer_flush(&t->printer, &t->output_closed) < 0)
        rc = -1;
    return rc;
}

static bool finished(const struct tracer *t, long fetches)
{
    const pmOptions *o = &t->set->opts;
    uint64_t finish = tp_time_ns(&o->finish);

    if (t->output_closed || (o->samples > 0 && fetches >= o->samples))
        return true;
    if (t->archive)
        return t->last_stamp_ns > finish;
    return o->finish_optarg != NULL && wall_now_ns() >= finish;
}

/* SIGINT or SIGTERM came while blocked: the wait that follows takes it. */
static bool stop_pending(void)
{
    sigset_t p;
    return sigpending(&p) == 0 && (sigismember(&p, SIGINT) || sigismember(&p, SIGTERM));
}

/* Fetch, and again at once while the PMDA says it holds more for us. */
static int drain(struct tracer *t)
{
    int rc;
    do {
        rc = fetch_round(t);
    } while (rc == 0 && t->more && !t->output_closed && !stop_pending());
    return rc;
}

/*
 * Fetch every interval until stopped, and at once again while the PMDA
 * holds more for us: the interval is the longest wait, taken only when
 * caught up.  A signal gets one last round.  A stream is fetched once at
 * the start as well: that starts this context's position in it (so that
 * loss from then on is counted) and shows the stream's backlog at once.
 */
int run_live(struct tracer *t, const sigset_t *unblocked)
{
    long long next = mono_ns(mono_now());
    long fetches = 0;
    int rc = 0;

    t->started = true;
    if (t->set->stream != NULL)
        rc = drain(t);
    while (rc == 0 && !finished(t, fetches)) {
        long long now = mono_ns(mono_now());
        next += t->set->interval_ns;
        if (next < now)
            next = now;         /* a slow fetch: do not try to catch up */
        if (!wait_until(t, next, unblocked)) {
            rc = drain(t);              /* what arrived since the last fetch */
            break;
        }
        rc = drain(t);
        fetches++;
        if (rc == 0 && t->set->every_ns)
            rc = oneliners_print(t);
    }
    return rc < 0 ? -1 : 0;
}

int run_archive(struct tracer *t)
{
    long fetches = 0;
    int rc = 0;

    t->started = true;
    while (rc == 0 && !*t->stop && !finished(t, fetches)) {
        rc = fetch_round(t);
        fetches++;
    }
    return rc < 0 ? -1 : 0;
}
