/*
 * tpclient: one PCP client context for the QA tests.
 *
 *   tpclient [-h host] [-t] [-l] [-i SECS] CMD [CMD...]
 *
 * Runs the commands in order, all in ONE context (host, or "local:"), so
 * that stores and fetches are seen by the PMDA as coming from the same
 * client.  stdout is flushed after every command.
 *
 *   store METRIC VALUE        pmStore VALUE as a PM_TYPE_STRING (numval 1)
 *   storen METRIC VALUE N     the same with numval N (each inst PM_IN_NULL)
 *   storeu32 METRIC N         pmStore N as a PM_TYPE_U32 value
 *   fetch METRIC[:INST]       pmFetch, restricted to instance INST if given
 *   twice METRIC              one pmFetch naming METRIC twice; prints, for
 *                             each of the two value sets,
 *                             "twice METRIC #K: R records, M missed"
 *   store2 M1 V1 M2 V2        one pmStore of two strings, V1 into M1, V2 into M2
 *   count METRIC[:INST] SECS TEXT
 *                             fetch every 0.2 s for SECS seconds; count
 *                             records whose line contains TEXT
 *   countto METRIC[:INST] N SECS TEXT
 *                             the same, ending early (after one more
 *                             fetch) once N records matching have come
 *   countuntil METRIC[:INST] FILE TEXT
 *                             the same until a fetch begun after FILE
 *                             exists has nothing (at most 120 s): the test
 *                             makes FILE once the PMDA has read the
 *                             workload's events
 *   sleep SECS                (fractions allowed)
 *   until FILE                wait until FILE exists (a hold the test ends)
 *   reconnect                 end the context and go on in a new one (the
 *                             same process: as a client that reconnects)
 *   echo TEXT                 print TEXT
 *   exit                      exit at once, without pmDestroyContext
 *
 * Output:
 *   store METRIC: ok | store METRIC: <pmErrStr>
 *   record EVENT pid=P cpu=C [time_ns=N (-t)] NAME=VALUE ...
 *   missed N
 *   fetched METRIC: R records, M missed      (M = sum of the missed counts)
 *   fetched METRIC: no values | fetched METRIC: <pmErrStr>
 *   value METRIC: V           (value METRIC[INST]: V per instance when the
 *                              metric has an instance domain and no INST
 *                              was named)
 *   slowest fetch: N ms        (-l: after each count, its slowest pmFetch)
 *   count: R records matching, M missed, T records total
 *                             (T counts records, not missed ones; during a
 *                              count only errors are printed per fetch)
 *   fetched|count METRIC: <pmErrStr>   if METRIC or INST is unknown
 *
 * Parameter NAMEs are the last component of the parameter's metric name.
 * Values: integers in decimal, strings in double quotes (with \" \\ \n \t
 * and \xNN escapes, so one record stays one line), aggregates as [hex bytes].
 * A string metric's value is printed as-is (it may span lines).
 *
 * Exit status: 0; 1 if the context cannot be created; 2 (with a usage
 * message) if the command line is malformed, checked before anything runs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pcp/pmapi.h>

#include "tp_pcp_compat.h"

static double count_interval = 0.2;    /* seconds between fetches of "count" (-i) */
#define MAX_NUMVAL 1000000  /* bound for "storen" */
#define MAX_SECS 1e6        /* bound for "sleep" and "count" */
#define MAX_HOLD_SECS 120   /* bound for "until" and "countuntil" */

static int show_time;       /* -t: print time_ns in record lines */
static int show_latency;    /* -l: print the slowest fetch of each count */

/*
 * Descriptor cache, keyed by PMID: the metrics named on the command line
 * and every event parameter seen.  role picks out the parameters that
 * every record has, and libpcp's anonymous event.flags/event.missed.
 */
enum role { FIELD, EVENT, CPU, PID, TIME_NS, FLAGS, MISSED };

struct metric {
    pmID pmid;
    pmDesc desc;            /* desc.type is PM_TYPE_UNKNOWN if not known */
    char *name;
    const char *leaf;       /* last component of name */
    enum role role;
    struct metric *next;    /* hash chain */
};

#define NBUCKETS 256
static struct metric *buckets[NBUCKETS];

static const struct { const char *name; enum role role; } roles[] = {
    { "tracepoint.param.event", EVENT },
    { "tracepoint.param.cpu", CPU },
    { "tracepoint.param.pid", PID },
    { "tracepoint.param.time_ns", TIME_NS },
    { "event.flags", FLAGS },
    { "event.missed", MISSED },
};

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (p == NULL) {
        perror("tpclient");
        exit(1);
    }
    return p;
}

static enum role role_of(const char *name)
{
    for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
        if (strcmp(name, roles[i].name) == 0)
            return roles[i].role;
    return FIELD;
}

/* Add pmid to the cache; name is looked up (pmNameID) if NULL. */
static struct metric *cache_add(pmID pmid, const char *name)
{
    struct metric *m = xcalloc(1, sizeof(*m));
    char *found = NULL;

    m->pmid = pmid;
    if (name != NULL)
        m->name = strdup(name);
    else if (pmNameID(pmid, &found) >= 0)
        m->name = found;
    else
        m->name = strdup(pmIDStr(pmid));
    if (m->name == NULL) {
        perror("tpclient");
        exit(1);
    }
    const char *dot = strrchr(m->name, '.');
    m->leaf = dot ? dot + 1 : m->name;
    m->role = role_of(m->name);

    m->desc.pmid = pmid;
    m->desc.type = PM_TYPE_UNKNOWN;
    m->desc.indom = PM_INDOM_NULL;
    if (m->role != FLAGS && m->role != MISSED)   /* libpcp's own, U32 */
        pmLookupDesc(pmid, &m->desc);

    m->next = buckets[pmid % NBUCKETS];
    buckets[pmid % NBUCKETS] = m;
    return m;
}

static struct metric *metric_by_pmid(pmID pmid)
{
    for (struct metric *m = buckets[pmid % NBUCKETS]; m; m = m->next)
        if (m->pmid == pmid)
            return m;
    return cache_add(pmid, NULL);
}

/* The metric called name, or NULL with *sts set to the PCP error. */
static struct metric *metric_by_name(const char *name, int *sts)
{
    pmID pmid;
    pmDesc desc;

    for (int b = 0; b < NBUCKETS; b++)
        for (struct metric *m = buckets[b]; m; m = m->next)
            if (strcmp(m->name, name) == 0)
                return m;
    if ((*sts = pmLookupName(1, &name, &pmid)) < 0)
        return NULL;
    if ((*sts = pmLookupDesc(pmid, &desc)) < 0)    /* for its error */
        return NULL;
    return cache_add(pmid, name);
}

/*
 * Printing values.
 */
static void print_quoted(FILE *f, const char *s, size_t len)
{
    fputc('"', f);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\x%02x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void print_hex(FILE *f, const char *p, size_t len)
{
    fputc('[', f);
    for (size_t i = 0; i < len; i++)
        fprintf(f, "%02x", (unsigned char)p[i]);
    fputc(']', f);
}

/* One value of the given type; strings quoted if quote, else as-is. */
static void print_value(FILE *f, int type, int valfmt, const pmValue *v,
                        int quote)
{
    pmAtomValue a;

    if (valfmt != PM_VAL_INSITU && type == PM_TYPE_UNKNOWN)
        type = v->value.pval->vtype;
    if (valfmt == PM_VAL_INSITU && type == PM_TYPE_UNKNOWN)
        type = PM_TYPE_32;

    const char *buf = valfmt == PM_VAL_INSITU ? NULL : v->value.pval->vbuf;
    size_t len = buf ? v->value.pval->vlen - PM_VAL_HDR_SIZE : 0;

    if (buf == NULL && (type == PM_TYPE_STRING || type == PM_TYPE_AGGREGATE ||
                        type == PM_TYPE_AGGREGATE_STATIC)) {
        fputc('?', f);
        return;
    }
    switch (type) {
    case PM_TYPE_STRING:
        len = strnlen(buf, len);
        if (quote)
            print_quoted(f, buf, len);
        else
            fwrite(buf, 1, len, f);
        return;
    case PM_TYPE_AGGREGATE:
    case PM_TYPE_AGGREGATE_STATIC:
        print_hex(f, buf, len);
        return;
    }
    if (pmExtractValue(valfmt, v, type, &a, type) < 0) {
        fprintf(f, "?");
        return;
    }
    switch (type) {
    case PM_TYPE_32:     fprintf(f, "%" PRId32, a.l); break;
    case PM_TYPE_U32:    fprintf(f, "%" PRIu32, a.ul); break;
    case PM_TYPE_64:     fprintf(f, "%" PRId64, a.ll); break;
    case PM_TYPE_U64:    fprintf(f, "%" PRIu64, a.ull); break;
    case PM_TYPE_FLOAT:  fprintf(f, "%.9g", (double)a.f); break;
    case PM_TYPE_DOUBLE: fprintf(f, "%.17g", a.d); break;
    default:             fprintf(f, "?type%d", type); break;
    }
}

/*
 * Event records.  One unpacked record is numpmid value sets, each with
 * one value (the same for pmResult and pmHighResResult).
 */
struct tally {
    long records;           /* records that are not "missed" */
    long missed;            /* sum of the missed counts */
    long matching;          /* records whose line contains match */
    const char *match;      /* NULL: print every record instead */
};

static pmValueSet *find_role(int numpmid, pmValueSet **vset, enum role role)
{
    for (int i = 0; i < numpmid; i++)
        if (metric_by_pmid(vset[i]->pmid)->role == role)
            return vset[i];
    return NULL;
}

/* Print the value of parameter role as NAME=VALUE (or VALUE if !name). */
static void print_common(FILE *f, int numpmid, pmValueSet **vset,
                         enum role role, const char *name)
{
    pmValueSet *vs = find_role(numpmid, vset, role);

    fputc(' ', f);
    if (name != NULL)
        fprintf(f, "%s=", name);
    if (vs == NULL || vs->numval < 1)
        fputc('?', f);
    else
        print_value(f, metric_by_pmid(vs->pmid)->desc.type, vs->valfmt,
                    &vs->vlist[0], name != NULL);
}

/* "record EVENT pid=P cpu=C [time_ns=N] NAME=VALUE ..." into a string. */
static char *record_line(int numpmid, pmValueSet **vset)
{
    char *line = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&line, &size);

    if (f == NULL) {
        perror("tpclient: open_memstream");
        exit(1);
    }
    fputs("record", f);
    print_common(f, numpmid, vset, EVENT, NULL);
    print_common(f, numpmid, vset, PID, "pid");
    print_common(f, numpmid, vset, CPU, "cpu");
    if (show_time)
        print_common(f, numpmid, vset, TIME_NS, "time_ns");
    for (int i = 0; i < numpmid; i++) {
        struct metric *m = metric_by_pmid(vset[i]->pmid);
        if (m->role != FIELD || vset[i]->numval < 1)
            continue;
        fprintf(f, " %s=", m->leaf);
        print_value(f, m->desc.type, vset[i]->valfmt, &vset[i]->vlist[0], 1);
    }
    fclose(f);
    return line;
}

static void tally_record(int numpmid, pmValueSet **vset, struct tally *t)
{
    pmValueSet *flags = find_role(numpmid, vset, FLAGS);

    if (flags && ((unsigned)flags->vlist[0].value.lval & PM_EVENT_FLAG_MISSED)) {
        pmValueSet *count = find_role(numpmid, vset, MISSED);
        int n = count ? count->vlist[0].value.lval : 0;
        t->missed += n;
        if (t->match == NULL)
            printf("missed %d\n", n);
        return;
    }
    char *line = record_line(numpmid, vset);
    t->records++;
    if (t->match == NULL)
        puts(line);
    else if (strstr(line, t->match) != NULL)
        t->matching++;
    free(line);
}

/* Unpack and tally the records of value j of vs; a PCP error or 0. */
static int tally_records(int type, pmValueSet *vs, int j, struct tally *t)
{
    int n;

    if (type == PM_TYPE_HIGHRES_EVENT) {
        tp_hres_result **hres;
        if ((n = tp_unpack_hres_events(vs, j, &hres)) < 0)
            return n;
        for (int r = 0; r < n; r++)
            tally_record(hres[r]->numpmid, hres[r]->vset, t);
        tp_free_unpacked_hres(hres, n);
    } else {
        tp_event_result **res;
        if ((n = tp_unpack_events(vs, j, &res)) < 0)
            return n;
        for (int r = 0; r < n; r++)
            tally_record(res[r]->numpmid, res[r]->vset, t);
        tp_free_unpacked(res, n);
    }
    return 0;
}

/*
 * Fetching.  A target is METRIC[:INST] resolved once.
 */
struct target {
    char *name;             /* METRIC */
    struct metric *m;
    int one_inst;           /* restricted to instance inst? */
    int inst;
};

/* Resolve arg; on failure print "WHAT METRIC: <error>" and return -1. */
static int resolve(const char *what, const char *arg, struct target *t)
{
    char *colon;
    int sts = 0;

    t->name = strdup(arg);
    t->one_inst = 0;
    if (t->name == NULL) {
        perror("tpclient");
        exit(1);
    }
    if ((colon = strchr(t->name, ':')) != NULL)
        *colon = '\0';
    if ((t->m = metric_by_name(t->name, &sts)) != NULL && colon != NULL) {
        sts = t->inst = pmLookupInDom(t->m->desc.indom, colon + 1);
        t->one_inst = 1;
    }
    if (sts < 0) {
        printf("%s %s: %s\n", what, t->name, pmErrStr(sts));
        free(t->name);
        return -1;
    }
    return 0;
}

static void set_profile(const struct target *t)
{
    pmInDom indom = t->m->desc.indom;
    int inst = t->inst;

    if (indom == PM_INDOM_NULL)
        return;
    if (!t->one_inst) {
        pmAddProfile(indom, 0, NULL);
    } else {
        pmDelProfile(indom, 0, NULL);
        pmAddProfile(indom, 1, &inst);
    }
}

/* "value METRIC: V", or "value METRIC[INST]: V" for an unnamed instance. */
static void print_metric_value(const struct target *t, int valfmt,
                               const pmValue *v)
{
    char *iname = NULL;

    printf("value %s", t->name);
    if (t->m->desc.indom != PM_INDOM_NULL && !t->one_inst) {
        if (pmNameInDom(t->m->desc.indom, v->inst, &iname) >= 0)
            printf("[%s]", iname);
        else
            printf("[%d]", v->inst);
        free(iname);
    }
    printf(": ");
    print_value(stdout, t->m->desc.type, valfmt, v, 0);
    putchar('\n');
}

static int is_event(const struct metric *m)
{
    return m->desc.type == PM_TYPE_EVENT ||
           m->desc.type == PM_TYPE_HIGHRES_EVENT;
}

/*
 * One pmFetch of t.  Event records go to tally (printed unless counting);
 * anything else is printed.  Errors are always printed.  The number of
 * values (0: nothing was pending), or a PCP error code.
 */
static int fetch_once(const struct target *t, struct tally *tally)
{
    pmID pmid = t->m->pmid;
    pmResult *rp;
    int sts;

    set_profile(t);
    if ((sts = pmFetch(1, &pmid, &rp)) < 0) {
        printf("fetched %s: %s\n", t->name, pmErrStr(sts));
        return sts;
    }
    pmValueSet *vs = rp->vset[0];
    sts = vs->numval;
    for (int j = 0; j < vs->numval && sts >= 0; j++) {
        if (is_event(t->m))
            sts = tally_records(t->m->desc.type, vs, j, tally);
        else
            print_metric_value(t, vs->valfmt, &vs->vlist[j]);
    }
    if (sts < 0)
        printf("fetched %s: %s\n", t->name, pmErrStr(sts));
    else if (vs->numval == 0 && tally->match == NULL)
        printf("fetched %s: no values\n", t->name);
    else if (is_event(t->m) && tally->match == NULL)
        printf("fetched %s: %ld records, %ld missed\n",
               t->name, tally->records, tally->missed);
    int n = sts < 0 ? sts : vs->numval;
    pmFreeResult(rp);
    return n;
}

/*
 * Time.
 */
static struct timespec after(struct timespec ts, double secs)
{
    time_t whole = (time_t)secs;    /* secs >= 0 */

    ts.tv_sec += whole;
    ts.tv_nsec += (long)((secs - (double)whole) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

static void sleep_until(struct timespec when)
{
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &when, NULL) == EINTR)
        ;
}

static struct timespec now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts;
}

/*
 * Storing.  Builds a pmResult of one value set with numval copies of one
 * value, each for PM_IN_NULL.
 */
static void store(const char *name, int numval, int valfmt, pmValue value)
{
    struct metric *m;
    int sts;

    if ((m = metric_by_name(name, &sts)) != NULL) {
        pmValueSet *vs = xcalloc(1, sizeof(pmValueSet) +
                                    (size_t)numval * sizeof(pmValue));
        pmResult *rp = xcalloc(1, sizeof(pmResult));
        vs->pmid = m->pmid;
        vs->numval = numval;
        vs->valfmt = valfmt;
        for (int i = 0; i < numval; i++)
            vs->vlist[i] = value;
        rp->numpmid = 1;
        rp->vset[0] = vs;
        sts = pmStore(rp);
        free(vs);
        free(rp);
    }
    printf("store %s: %s\n", name, sts < 0 ? pmErrStr(sts) : "ok");
}

static void store_string(const char *name, const char *str, int numval)
{
    size_t len = strlen(str) + 1;
    size_t size = PM_VAL_HDR_SIZE + len;
    pmValueBlock *vb = xcalloc(1, size > sizeof(*vb) ? size : sizeof(*vb));
    pmValue value = { .inst = PM_IN_NULL, .value.pval = vb };

    vb->vtype = PM_TYPE_STRING;
    vb->vlen = (unsigned int)size;   /* argv strings are far below 16 MiB */
    memcpy(vb->vbuf, str, len);
    store(name, numval, PM_VAL_DPTR, value);
    free(vb);
}

/*
 * The commands.  Arguments were checked (see commands[]) before any ran.
 */
/* One pmStore carrying two string values. */
static void cmd_store2(char **arg)
{
    pmValueSet *vs[2] = { NULL, NULL };
    pmResult *r = xcalloc(1, sizeof(pmResult) + sizeof(pmValueSet *));
    int sts = 0;

    r->numpmid = 2;
    for (int k = 0; k < 2 && sts >= 0; k++) {
        struct metric *m = metric_by_name(arg[2 * k], &sts);
        size_t len = strlen(arg[2 * k + 1]) + 1;
        vs[k] = xcalloc(1, sizeof(pmValueSet));
        if (m == NULL)
            break;
        pmValueBlock *vb = xcalloc(1, PM_VAL_HDR_SIZE + len);
        vb->vtype = PM_TYPE_STRING;
        vb->vlen = PM_VAL_HDR_SIZE + len;
        memcpy(vb->vbuf, arg[2 * k + 1], len);
        vs[k]->pmid = m->pmid;
        vs[k]->numval = 1;
        vs[k]->valfmt = PM_VAL_DPTR;
        vs[k]->vlist[0].inst = PM_IN_NULL;
        vs[k]->vlist[0].value.pval = vb;
    }
    memcpy(r->vset, vs, sizeof(vs));
    if (sts >= 0)
        sts = pmStore(r);
    printf("store %s %s: %s\n", arg[0], arg[2], sts < 0 ? pmErrStr(sts) : "ok");
    for (int k = 0; k < 2; k++) {
        if (vs[k] != NULL && vs[k]->numval == 1)
            free(vs[k]->vlist[0].value.pval);
        free(vs[k]);
    }
    free(r);
}

static void cmd_store(char **arg)
{
    store_string(arg[0], arg[1], 1);
}

static void cmd_storen(char **arg)
{
    store_string(arg[0], arg[1], atoi(arg[2]));
}

static void cmd_storeu32(char **arg)
{
    pmValue value = { .inst = PM_IN_NULL };

    value.value.lval = (int)(uint32_t)strtoul(arg[1], NULL, 10);
    store(arg[0], 1, PM_VAL_INSITU, value);
}

static void cmd_fetch(char **arg)
{
    struct target t;
    struct tally tally = { 0, 0, 0, NULL };

    if (resolve("fetched", arg[0], &t) < 0)
        return;
    fetch_once(&t, &tally);
    free(t.name);
}

/* One pmFetch naming the metric twice: each value set counted apart. */
static void cmd_twice(char **arg)
{
    struct target t;
    pmResult *rp;

    if (resolve("twice", arg[0], &t) < 0)
        return;
    pmID pmids[2] = { t.m->pmid, t.m->pmid };
    set_profile(&t);
    int sts = pmFetch(2, pmids, &rp);
    if (sts < 0) {
        printf("twice %s: %s\n", t.name, pmErrStr(sts));
        free(t.name);
        return;
    }
    for (int k = 0; k < rp->numpmid; k++) {
        struct tally tally = { 0, 0, 0, "" };   /* "" matches all, quietly */
        pmValueSet *vs = rp->vset[k];
        sts = vs->numval;
        for (int j = 0; j < vs->numval && sts >= 0; j++)
            sts = tally_records(t.m->desc.type, vs, j, &tally);
        if (sts < 0)
            printf("twice %s #%d: %s\n", t.name, k + 1, pmErrStr(sts));
        else
            printf("twice %s #%d: %ld records, %ld missed\n", t.name, k + 1,
                   tally.records, tally.missed);
    }
    pmFreeResult(rp);
    free(t.name);
}

/*
 * When count_loop ends: want >= 0, once want records matched, after one
 * more fetch (anything beyond want shows); file != NULL, at the first fetch
 * begun after file exists that has nothing (all pending was taken).
 */
struct count_end {
    long want;
    const char *file;
};

/* Fetch every count_interval for secs, or until end says so. */
static void count_loop(const char *metric, double secs, const char *text, struct count_end end)
{
    struct target t;
    struct tally tally = { 0, 0, 0, text };
    long n = (long)(secs / count_interval + 0.5), last = -1;
    int drained = 0;

    if (resolve("count", metric, &t) < 0)
        return;
    struct timespec start = now();
    double slowest = 0;
    for (long i = 0; i <= n && i != last && !drained; i++) {
        if (end.want >= 0 && last < 0 && tally.matching >= end.want)
            last = i + 1;
        sleep_until(after(start, (double)i * count_interval));
        int seen = end.file != NULL && access(end.file, F_OK) == 0;
        struct timespec t0 = now(), t1;
        drained = fetch_once(&t, &tally) == 0 && seen;
        t1 = now();
        double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        slowest = ms > slowest ? ms : slowest;
    }
    if (end.file != NULL && !drained)
        printf("countuntil %s: gave up after %d s\n", end.file, MAX_HOLD_SECS);
    if (show_latency)
        printf("slowest fetch: %.0f ms\n", slowest);
    printf("count: %ld records matching, %ld missed, %ld records total\n",
           tally.matching, tally.missed, tally.records);
    free(t.name);
}

static void cmd_count(char **arg)
{
    count_loop(arg[0], strtod(arg[1], NULL), arg[2], (struct count_end){ -1, NULL });
}

static void cmd_countto(char **arg)
{
    count_loop(arg[0], strtod(arg[2], NULL), arg[3],
               (struct count_end){ strtol(arg[1], NULL, 10), NULL });
}

static void cmd_countuntil(char **arg)
{
    count_loop(arg[0], MAX_HOLD_SECS, arg[2], (struct count_end){ -1, arg[1] });
}

static void cmd_sleep(char **arg)
{
    sleep_until(after(now(), strtod(arg[0], NULL)));
}

static void cmd_until(char **arg)
{
    fflush(stdout);
    struct timespec end = after(now(), MAX_HOLD_SECS);
    while (access(arg[0], F_OK) != 0) {
        struct timespec t = now();
        if (t.tv_sec > end.tv_sec || (t.tv_sec == end.tv_sec && t.tv_nsec >= end.tv_nsec)) {
            printf("until %s: gave up after %d s\n", arg[0], MAX_HOLD_SECS);
            return;
        }
        sleep_until(after(t, 0.01));
    }
}

static const char *host_name = "local:";

static void cmd_reconnect(char **arg)
{
    (void)arg;
    pmDestroyContext(pmWhichContext());
    int ctx = pmNewContext(PM_CONTEXT_HOST, host_name);
    if (ctx < 0) {
        printf("reconnect: %s\n", pmErrStr(ctx));
        fflush(stdout);
        _exit(1);
    }
    puts("reconnected");
}

static void cmd_echo(char **arg)
{
    puts(arg[0]);
}

static void cmd_exit(char **arg)
{
    (void)arg;
    fflush(stdout);
    _exit(0);       /* no pmDestroyContext: a client that just dies */
}

/* Argument kinds: s string, n numval, u 32-bit unsigned, d seconds. */
static const struct command {
    const char *name;
    const char *args;
    void (*run)(char **arg);
} commands[] = {
    { "store",    "ss",  cmd_store },
    { "storen",   "ssn", cmd_storen },
    { "storeu32", "su",  cmd_storeu32 },
    { "store2",   "ssss", cmd_store2 },
    { "fetch",    "s",   cmd_fetch },
    { "twice",    "s",   cmd_twice },
    { "count",    "sds", cmd_count },
    { "countto",  "snds", cmd_countto },
    { "countuntil", "sss", cmd_countuntil },
    { "sleep",    "d",   cmd_sleep },
    { "until",    "s",   cmd_until },
    { "reconnect", "",   cmd_reconnect },
    { "echo",     "s",   cmd_echo },
    { "exit",     "",    cmd_exit },
};

static int valid_arg(char kind, const char *s)
{
    char *end;
    errno = 0;

    switch (kind) {
    case 'n': {
        long v = strtol(s, &end, 10);
        return *s && !*end && !errno && v >= 0 && v <= MAX_NUMVAL;
    }
    case 'u': {
        unsigned long long v = strtoull(s, &end, 10);
        return *s && *s != '-' && !*end && !errno && v <= UINT32_MAX;
    }
    case 'd': {
        double v = strtod(s, &end);
        return *s && !*end && !errno && v >= 0 && v <= MAX_SECS;
    }
    default:
        return 1;
    }
}

static const struct command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(name, commands[i].name) == 0)
            return &commands[i];
    return NULL;
}

static int nargs(const struct command *c)
{
    return (int)strlen(c->args);
}

/* The command at argv[0] if it and its arguments are well formed. */
static const struct command *parse(int argc, char **argv)
{
    const struct command *c = find_command(argv[0]);

    if (c == NULL || nargs(c) >= argc)
        return NULL;
    for (int i = 0; i < nargs(c); i++)
        if (!valid_arg(c->args[i], argv[i + 1]))
            return NULL;
    return c;
}

static int usage(const char *why, const char *word)
{
    fprintf(stderr,
        "tpclient: %s%s\n"
        "usage: tpclient [-h host] [-t] [-l] [-i SECS] CMD [CMD...]\n"
        "  store METRIC VALUE        store a string (numval 1)\n"
        "  storen METRIC VALUE N     store a string, numval N\n"
        "  storeu32 METRIC N         store a U32 value\n"
        "  store2 M1 V1 M2 V2        one store of two strings\n"
        "  fetch METRIC[:INST]       fetch and print values or records\n"
        "  twice METRIC              one fetch naming METRIC twice\n"
        "  count METRIC[:INST] SECS TEXT\n"
        "                            fetch every 0.2 s for SECS, count records\n"
        "                            containing TEXT\n"
        "  countto METRIC[:INST] N SECS TEXT | countuntil METRIC[:INST] FILE TEXT\n"
        "  until FILE | reconnect\n"
        "  sleep SECS | echo TEXT | exit\n"
        "  -t prints time_ns in records; -l each count's slowest fetch;\n"
        "  -i SECS between the fetches of count (default 0.2)\n", why, word);
    return 2;
}

int main(int argc, char **argv)
{
    const char *host = "local:";
    int opt, ctx;

    while ((opt = getopt(argc, argv, "+h:tli:")) != -1) {
        if (opt == 'h')
            host = optarg;
        else if (opt == 't')
            show_time = 1;
        else if (opt == 'l')
            show_latency = 1;
        else if (opt == 'i' && strtod(optarg, NULL) > 0)
            count_interval = strtod(optarg, NULL);
        else
            return usage("bad option", "");
    }
    if (optind >= argc)
        return usage("no command", "");
    for (int i = optind; i < argc; i += 1 + nargs(find_command(argv[i])))
        if (parse(argc - i, argv + i) == NULL)
            return usage(find_command(argv[i]) ? "bad arguments to "
                                               : "unknown command ", argv[i]);

    host_name = host;
    if ((ctx = pmNewContext(PM_CONTEXT_HOST, host)) < 0) {
        fprintf(stderr, "tpclient: cannot connect to %s: %s\n", host, pmErrStr(ctx));
        return 1;
    }
    for (int i = optind; i < argc; i += 1 + nargs(find_command(argv[i]))) {
        find_command(argv[i])->run(argv + i + 1);
        fflush(stdout);
    }
    (void)ctx;
    pmDestroyContext(pmWhichContext());
    return 0;
}
