/*
 * pcp-tracepoint: Linux kernel tracepoints through Performance Co-Pilot,
 * the way trace-cmd and perf users expect them.
 *
 *   pcp-tracepoint [options] [EVENT...]
 *
 * Live, with EVENTs: subscribe in this program's own PMCD context with one
 * store of "pattern[,pattern] [filter]" into tracepoint.records (registration
 * and filter in one atomic step), fetch tracepoint.records every interval,
 * print one line per event, and unregister on the way out.  With -n NAME:
 * read the configured stream tracepoint.stream.records[NAME] instead.
 * With -a ARCHIVE: replay what pmlogger recorded, forward, to the end.
 *
 * The output format, the options and the exit status are described in
 * pcp-tracepoint(1).  All state lives in the structs below; the only
 * mutable global is the flag the SIGINT/SIGTERM handler sets.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/time.h>
#include <time.h>

#include <pcp/pmapi.h>

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

#define NS_PER_SEC          1000000000LL
#define DEFAULT_INTERVAL_NS (NS_PER_SEC / 2)
#define HASH_BUCKETS        256
#define EVENT_NAME_MAX      256     /* "system:event" is far shorter */
#define MAX_LONGOPTS        24

#define RECORDS_METRIC      "tracepoint.records"
#define STREAM_METRIC       "tracepoint.stream.records"
#define STATUS_METRIC       "tracepoint.control.status"
#define UNREGISTER_METRIC   "tracepoint.control.unregister"
#define PENDING_METRIC      "tracepoint.pending"
#define STREAM_PENDING_METRIC "tracepoint.stream.pending"

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* ---- command line ------------------------------------------------------- */

struct settings {
    pmOptions opts;             /* first member: option_override() casts back */
    pmLongOptions longopts[MAX_LONGOPTS];
    char *const *argv;
    bool help;                  /* -? or --help */
    const char *filter;         /* -f */
    const char *stream;         /* -n */
    bool json;                  /* -j */
    bool summary;               /* -c */
    bool quiet;                 /* -q */
    char **patterns;            /* the EVENT arguments, split at commas */
    size_t npatterns;
    long long interval_ns;
};

static const pmLongOptions longopts_template[] = {
    PMAPI_OPTIONS_HEADER("General options"),
    PMOPT_ARCHIVE,
    PMOPT_DEBUG,
    PMOPT_HOST,
    PMOPT_ORIGIN,
    PMOPT_START,
    PMOPT_SAMPLES,
    PMOPT_FINISH,
    PMOPT_INTERVAL,
    PMOPT_TIMEZONE,
    PMOPT_HOSTZONE,
    PMOPT_VERSION,
    PMOPT_HELP,
    PMAPI_OPTIONS_HEADER("Tracing options"),
    { "filter", 1, 'f', "FILTER", "ftrace filter applied to every EVENT" },
    { "stream", 1, 'n', "NAME", "read the configured stream NAME" },
    { "json", 0, 'j', 0, "print one JSON object per line" },
    { "summary", 0, 'c', 0, "print per-event counts and totals on exit" },
    { "quiet", 0, 'q', 0, "no per-event lines (with -c: only the summary)" },
    PMAPI_OPTIONS_TEXT(""),
    PMAPI_OPTIONS_TEXT("EVENT is system:event, globs allowed (sched:sched_process_*);"),
    PMAPI_OPTIONS_TEXT("without EVENTs or -n, -a replays every stream in the archive."),
    PMAPI_OPTIONS_END
};
_Static_assert(sizeof(longopts_template) <= sizeof(((struct settings *)0)->longopts),
               "MAX_LONGOPTS is too small");

static bool is_help_arg(const char *arg)
{
    return strcmp(arg, "-?") == 0 || strcmp(arg, "--help") == 0;
}

/*
 * pmGetOptions would take -n as a namespace file: claim it.  Also notice
 * an explicit request for help, which pmGetOptions counts as an error.
 */
static int option_override(int opt, pmOptions *opts)
{
    struct settings *s = (struct settings *)opts;

    if (opt == 'n')
        return 1;
    if (opt == '?' && opts->optind > 0 && is_help_arg(s->argv[opts->optind - 1]))
        s->help = true;
    return 0;
}

static void settings_init(struct settings *s, char *const *argv)
{
    memset(s, 0, sizeof(*s));
    memcpy(s->longopts, longopts_template, sizeof(longopts_template));
    s->argv = argv;
    s->opts.flags = PM_OPTFLAG_BOUNDARIES;
    s->opts.short_options = "a:D:h:O:S:s:T:t:VZ:z?f:n:jcq";
    s->opts.long_options = s->longopts;
    s->opts.short_usage = "[options] [EVENT...]";
    s->opts.override = option_override;
}

static void settings_free(struct settings *s)
{
    for (size_t i = 0; i < s->npatterns; i++)
        free(s->patterns[i]);
    free(s->patterns);
    if (s->opts.narchives > 0)
        free(s->opts.archives[0]);      /* pmFreeOptions frees only the array */
    pmFreeOptions(&s->opts);
}

/* A bad option: PCP's full usage message.  A bad combination: one line. */
static int usage_error(struct settings *s, const char *why)
{
    if (why == NULL)
        pmUsageMessage(&s->opts);
    else
        fprintf(stderr, "%s: %s\nUsage: %s %s (--help lists the options)\n",
                pmGetProgname(), why, pmGetProgname(), s->opts.short_usage);
    return EXIT_USAGE;
}

static int add_pattern(struct settings *s, const char *p, size_t len)
{
    char **v = realloc(s->patterns, (s->npatterns + 1) * sizeof(*v));

    if (v == NULL)
        return -1;
    s->patterns = v;
    if ((v[s->npatterns] = strndup(p, len)) == NULL)
        return -1;
    s->npatterns++;
    return 0;
}

/* EVENT arguments: "system:event" globs, several per argument with commas. */
static const char *collect_patterns(struct settings *s, int argc, char **argv)
{
    for (int i = s->opts.optind; i < argc; i++) {
        const char *p = argv[i];
        do {
            size_t len = strcspn(p, ",");
            if (len == 0 || strcspn(p, " \t\n") < len)
                return "an EVENT is a system:event pattern (no blanks, no empty names)";
            if (add_pattern(s, p, len) < 0)
                return "out of memory";
            p += len;
        } while (*p++ == ',');
    }
    return NULL;
}

/* Combinations that make no sense; NULL if the settings are consistent. */
static const char *check_settings(const struct settings *s)
{
    bool archive = s->opts.narchives > 0;

    if (s->filter != NULL && s->npatterns == 0)
        return "-f FILTER needs EVENTs to apply to";
    if (!archive && s->stream == NULL && s->npatterns == 0)
        return "name the EVENTs to trace, or a stream with -n NAME";
    if (s->filter != NULL && (archive || s->stream != NULL))
        return "-f FILTER applies to live subscriptions only (not with -a or -n)";
    if (s->stream != NULL && *s->stream == '\0')
        return "-n needs a stream name";
    return NULL;
}

static void take_option(struct settings *s, int opt)
{
    switch (opt) {
    case 'f': s->filter = s->opts.optarg; break;
    case 'n': s->stream = s->opts.optarg; break;
    case 'j': s->json = true; break;
    case 'c': s->summary = true; break;
    case 'q': s->quiet = true; break;
    default: s->opts.errors++; break;
    }
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(struct settings *s, int argc, char **argv)
{
    const char *why;
    int opt;

    settings_init(s, argv);
    while ((opt = pmGetOptions(argc, argv, &s->opts)) != EOF)
        take_option(s, opt);
    if (s->help) {
        pmUsageMessage(&s->opts);
        return EXIT_OK;
    }
    if (s->opts.flags & PM_OPTFLAG_EXIT) {
        pmflush();
        return EXIT_OK;
    }
    if (s->opts.errors > 0)
        return usage_error(s, NULL);
    if ((why = collect_patterns(s, argc, argv)) != NULL ||
        (why = check_settings(s)) != NULL)
        return usage_error(s, why);
    s->interval_ns = (long long)s->opts.interval.tv_sec * NS_PER_SEC +
                     (long long)s->opts.interval.tv_usec * 1000;
    if (s->interval_ns <= 0)
        s->interval_ns = DEFAULT_INTERVAL_NS;
    return -1;
}

/* ---- what we know of each parameter metric ------------------------------ */

enum role { FIELD, EVENT, CPU, PID, TIME_NS, FLAGS, MISSED };

static const struct { const char *name; enum role role; } common_params[] = {
    { "tracepoint.param.event", EVENT },
    { "tracepoint.param.cpu", CPU },
    { "tracepoint.param.pid", PID },
    { "tracepoint.param.time_ns", TIME_NS },
    { "event.flags", FLAGS },           /* libpcp's anonymous metrics */
    { "event.missed", MISSED },
};

struct param {
    pmID pmid;
    int type;                   /* PM_TYPE_UNKNOWN without a descriptor */
    enum role role;
    char *name;                 /* the metric's name */
    const char *field;          /* its last component */
    struct param *next;
};

struct params {
    struct param *bucket[HASH_BUCKETS];
};

static enum role role_of(const char *name)
{
    for (size_t i = 0; i < sizeof(common_params) / sizeof(common_params[0]); i++)
        if (strcmp(name, common_params[i].name) == 0)
            return common_params[i].role;
    return FIELD;
}

static struct param *param_new(pmID pmid)
{
    struct param *p = calloc(1, sizeof(*p));
    pmDesc desc;

    if (p == NULL)
        return NULL;
    p->pmid = pmid;
    p->type = PM_TYPE_UNKNOWN;
    if (pmNameID(pmid, &p->name) < 0 && (p->name = strdup(pmIDStr(pmid))) == NULL) {
        free(p);
        return NULL;
    }
    const char *dot = strrchr(p->name, '.');
    p->field = dot != NULL ? dot + 1 : p->name;
    p->role = role_of(p->name);
    if (p->role != FLAGS && p->role != MISSED && pmLookupDesc(pmid, &desc) >= 0)
        p->type = desc.type;
    return p;
}

/* The parameter with this PMID, looked up once; NULL only without memory. */
static const struct param *param_get(struct params *ps, pmID pmid)
{
    struct param **head = &ps->bucket[pmid % HASH_BUCKETS];

    for (struct param *p = *head; p != NULL; p = p->next)
        if (p->pmid == pmid)
            return p;
    struct param *p = param_new(pmid);
    if (p != NULL) {
        p->next = *head;
        *head = p;
    }
    return p;
}

static void params_free(struct params *ps)
{
    for (size_t b = 0; b < HASH_BUCKETS; b++) {
        for (struct param *p = ps->bucket[b], *next; p != NULL; p = next) {
            next = p->next;
            free(p->name);
            free(p);
        }
    }
}

/* ---- per-event counts ---------------------------------------------------- */

struct counter {
    char *event;
    uint64_t n;
    struct counter *next;
};

struct tally {
    struct counter *bucket[HASH_BUCKETS];
    size_t kinds;               /* distinct events */
    uint64_t events;
    uint64_t lost;
};

static size_t hash_name(const char *s)
{
    size_t h = 5381;

    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h % HASH_BUCKETS;
}

static int tally_event(struct tally *t, const char *event)
{
    struct counter **head = &t->bucket[hash_name(event)];
    struct counter *c;

    t->events++;
    for (c = *head; c != NULL; c = c->next)
        if (strcmp(c->event, event) == 0)
            break;
    if (c == NULL) {
        if ((c = calloc(1, sizeof(*c))) == NULL || (c->event = strdup(event)) == NULL) {
            free(c);
            return -1;
        }
        c->next = *head;
        *head = c;
        t->kinds++;
    }
    c->n++;
    return 0;
}

static int by_count_then_name(const void *a, const void *b)
{
    const struct counter *x = *(const struct counter *const *)a;
    const struct counter *y = *(const struct counter *const *)b;

    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return strcmp(x->event, y->event);
}

/* The counters, most frequent first; NULL if there are none (or no memory). */
static struct counter **tally_sorted(const struct tally *t)
{
    struct counter **v = t->kinds ? calloc(t->kinds, sizeof(*v)) : NULL;
    size_t n = 0;

    if (v == NULL)
        return NULL;
    for (size_t b = 0; b < HASH_BUCKETS; b++)
        for (struct counter *c = t->bucket[b]; c != NULL; c = c->next)
            v[n++] = c;
    qsort(v, n, sizeof(*v), by_count_then_name);
    return v;
}

static void tally_free(struct tally *t)
{
    for (size_t b = 0; b < HASH_BUCKETS; b++) {
        for (struct counter *c = t->bucket[b], *next; c != NULL; c = next) {
            next = c->next;
            free(c->event);
            free(c);
        }
    }
}

/* ---- printing values ----------------------------------------------------- */

/* Strings in text lines: one event stays one line. */
static void put_text_string(FILE *f, const char *s, size_t len)
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

/* Length of the valid UTF-8 sequence at s (at most len bytes), or 0. */
static size_t utf8_sequence(const unsigned char *s, size_t len)
{
    size_t n;
    unsigned min;

    if (s[0] < 0x80)
        return 1;
    else if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2, min = 0x80;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        n = 3, min = 0x800;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        n = 4, min = 0x10000;
    else
        return 0;
    if (n > len)
        return 0;
    unsigned cp = s[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

/* JSON strings: escapes as RFC 8259; a byte that is not UTF-8 as \u00XX. */
static void put_json_string(FILE *f, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;

    fputc('"', f);
    for (size_t i = 0; i < len;) {
        size_t n = utf8_sequence(u + i, len - i);
        unsigned char c = u[i];
        if (n > 1) {
            fwrite(u + i, 1, n, f);
            i += n;
            continue;
        }
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c == '\r')
            fputs("\\r", f);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
        i++;
    }
    fputc('"', f);
}

static void put_string(FILE *f, const char *s, size_t len, bool json)
{
    if (json)
        put_json_string(f, s, len);
    else
        put_text_string(f, s, len);
}

/* Aggregates: hex bytes, "[0a1b]" in text and "0a1b" in JSON. */
static void put_hex(FILE *f, const char *p, size_t len, bool json)
{
    fputc(json ? '"' : '[', f);
    for (size_t i = 0; i < len; i++)
        fprintf(f, "%02x", (unsigned char)p[i]);
    fputc(json ? '"' : ']', f);
}

static void put_null(FILE *f, bool json)
{
    fputs(json ? "null" : "?", f);
}

/* The type of value v: its descriptor's, else what the value says. */
static int value_type(const struct param *p, int valfmt, const pmValue *v)
{
    if (p != NULL && p->type != PM_TYPE_UNKNOWN)
        return p->type;
    return valfmt == PM_VAL_INSITU ? PM_TYPE_32 : v->value.pval->vtype;
}

static void put_number(FILE *f, int type, int valfmt, const pmValue *v, bool json)
{
    pmAtomValue a;

    if (pmExtractValue(valfmt, v, type, &a, type) < 0) {
        put_null(f, json);
        return;
    }
    switch (type) {
    case PM_TYPE_32:  fprintf(f, "%" PRId32, a.l); break;
    case PM_TYPE_U32: fprintf(f, "%" PRIu32, a.ul); break;
    case PM_TYPE_64:  fprintf(f, "%" PRId64, a.ll); break;
    case PM_TYPE_U64: fprintf(f, "%" PRIu64, a.ull); break;
    case PM_TYPE_FLOAT:
    case PM_TYPE_DOUBLE: {
        double d = type == PM_TYPE_FLOAT ? (double)a.f : a.d;
        if (isfinite(d))
            fprintf(f, "%.17g", d);
        else
            put_null(f, json);
        break;
    }
    default: put_null(f, json); break;
    }
}

static void put_value(FILE *f, const struct param *p, const pmValueSet *vs, bool json)
{
    const pmValue *v = &vs->vlist[0];
    int type = value_type(p, vs->valfmt, v);
    bool block = vs->valfmt != PM_VAL_INSITU;
    const char *buf = block ? v->value.pval->vbuf : NULL;
    size_t len = block ? v->value.pval->vlen - PM_VAL_HDR_SIZE : 0;

    if (type == PM_TYPE_STRING && block)
        put_string(f, buf, strnlen(buf, len), json);
    else if ((type == PM_TYPE_AGGREGATE || type == PM_TYPE_AGGREGATE_STATIC) && block)
        put_hex(f, buf, len, json);
    else
        put_number(f, type, vs->valfmt, v, json);
}

/* ---- times ---------------------------------------------------------------- */

/* pmLocaltime (which honours -Z and -z) once per second, not per event. */
struct clock_cache {
    bool valid;
    time_t sec;
    struct tm tm;
};

static const struct tm *local_tm(struct clock_cache *cc, time_t sec)
{
    if (!cc->valid || cc->sec != sec) {
        pmLocaltime(&sec, &cc->tm);
        cc->sec = sec;
        cc->valid = true;
    }
    return &cc->tm;
}

/* HH:MM:SS.nnnnnnnnn, local time. */
static void put_clock(FILE *f, struct clock_cache *cc, uint64_t ns)
{
    const struct tm *tm = local_tm(cc, (time_t)(ns / NS_PER_SEC));

    fprintf(f, "%02d:%02d:%02d.%09u", tm->tm_hour, tm->tm_min, tm->tm_sec,
            (unsigned)(ns % NS_PER_SEC));
}

/* ISO 8601 with nanoseconds and the UTC offset, local time. */
static void put_iso_time(FILE *f, struct clock_cache *cc, uint64_t ns)
{
    const struct tm *tm = local_tm(cc, (time_t)(ns / NS_PER_SEC));
    long off = tm->tm_gmtoff / 60;

    fprintf(f, "%04d-%02d-%02dT%02d:%02d:%02d.%09u%c%02ld:%02ld",
            tm->tm_year + 1900, tm->tm_mon + 1, tm->tm_mday,
            tm->tm_hour, tm->tm_min, tm->tm_sec, (unsigned)(ns % NS_PER_SEC),
            off < 0 ? '-' : '+', labs(off) / 60, labs(off) % 60);
}

static uint64_t timeval_ns(const struct timeval *tv)
{
    return (uint64_t)tv->tv_sec * NS_PER_SEC + (uint64_t)tv->tv_usec * 1000u;
}

static struct timespec mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts;
}

static long long mono_ns(struct timespec ts)
{
    return (long long)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

static uint64_t wall_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/*
 * Sleep until the monotonic time deadline_ns, with SIGINT and SIGTERM
 * (blocked elsewhere) let through only here, so that a signal can never
 * slip in between the check of the flag and the sleep.  False if asked
 * to stop.
 */
static bool wait_until(long long deadline_ns, const sigset_t *unblocked)
{
    for (;;) {
        if (stop_requested)
            return false;
        long long left = deadline_ns - mono_ns(mono_now());
        if (left <= 0)
            return true;
        struct timespec ts = { .tv_sec = (time_t)(left / NS_PER_SEC),
                               .tv_nsec = (long)(left % NS_PER_SEC) };
        pselect(0, NULL, NULL, NULL, &ts, unblocked);
    }
}

/* ---- the tracer ------------------------------------------------------------ */

struct tracer {
    struct settings *set;
    const char *source;         /* host or archive, as given */
    char where[320];            /* "pmcd on HOST" or "archive NAME", for messages */
    bool archive;
    int ctx;
    pmID pmids[3];              /* what each fetch asks for: event metrics, then pending */
    int types[3];               /* PM_TYPE_EVENT or PM_TYPE_HIGHRES_EVENT */
    const char *names[3];
    int npmids;
    pmID pending;               /* how much the PMDA still holds for us, or PM_ID_NULL */
    bool more;                  /* the last fetch left some: fetch again at once */
    pmID records;               /* tracepoint.records */
    pmInDom streams;            /* instance domain of tracepoint.stream.records */
    bool registered;            /* our store subscribed: unregister at the end */
    bool window;                /* archive: keep only events in -S .. -T */
    uint64_t start_ns, finish_ns;
    uint64_t last_stamp_ns;     /* timestamp of the last archive result */
    bool output_closed;         /* stdout went away (EPIPE) */
    bool started;               /* set up: the summary has something to say */
    struct params params;
    struct tally tally;
    struct clock_cache clock;
};

/* One unpacked event record, PM_TYPE_EVENT or PM_TYPE_HIGHRES_EVENT. */
struct record {
    int numpmid;
    pmValueSet **vset;
    uint64_t stamp_ns;          /* the record's timestamp (to the microsecond) */
    uint64_t key;               /* what it is sorted by */
    int index;                  /* its place in the array */
};

/* The common parameters of a record. */
struct common {
    char event[EVENT_NAME_MAX];
    const pmValueSet *cpu, *pid;
    const struct param *cpu_param, *pid_param;
    uint64_t time_ns;
    int flags;
    int missed;
};

static void errmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void errmsg(const char *fmt, ...)
{
    va_list ap;

    fflush(stdout);
    fprintf(stderr, "%s: ", pmGetProgname());
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int32_t insitu_value(const pmValueSet *vs)
{
    return vs->numval > 0 && vs->valfmt == PM_VAL_INSITU ? vs->vlist[0].value.lval : 0;
}

static void copy_event_name(char *dst, const pmValueSet *vs)
{
    snprintf(dst, EVENT_NAME_MAX, "?");
    if (vs->numval > 0 && vs->valfmt != PM_VAL_INSITU) {
        const pmValueBlock *vb = vs->vlist[0].value.pval;
        size_t len = strnlen(vb->vbuf, vb->vlen - PM_VAL_HDR_SIZE);
        snprintf(dst, EVENT_NAME_MAX, "%.*s", (int)len, vb->vbuf);
    }
}

static uint64_t u64_value(const pmValueSet *vs, uint64_t fallback)
{
    pmAtomValue a;

    if (vs->numval < 1 ||
        pmExtractValue(vs->valfmt, &vs->vlist[0], PM_TYPE_U64, &a, PM_TYPE_U64) < 0)
        return fallback;
    return a.ull;
}

static int scan_common(struct tracer *t, const struct record *r, struct common *c)
{
    memset(c, 0, sizeof(*c));
    snprintf(c->event, sizeof(c->event), "?");
    c->time_ns = r->stamp_ns;
    for (int i = 0; i < r->numpmid; i++) {
        const pmValueSet *vs = r->vset[i];
        const struct param *p = param_get(&t->params, vs->pmid);
        if (p == NULL)
            return -ENOMEM;
        switch (p->role) {
        case EVENT: copy_event_name(c->event, vs); break;
        case CPU: c->cpu = vs; c->cpu_param = p; break;
        case PID: c->pid = vs; c->pid_param = p; break;
        case TIME_NS: c->time_ns = u64_value(vs, r->stamp_ns); break;
        case FLAGS: c->flags = insitu_value(vs); break;
        case MISSED: c->missed = insitu_value(vs); break;
        case FIELD: break;
        }
    }
    return 0;
}

/* Client-side selection: the EVENT patterns (streams, archives) and -S/-T. */
static bool wanted(const struct tracer *t, const char *event, uint64_t ns)
{
    const struct settings *s = t->set;

    if (t->window && (ns < t->start_ns || ns > t->finish_ns))
        return false;
    if (t->registered || s->npatterns == 0)
        return true;        /* a subscription gets exactly what it asked for */
    for (size_t i = 0; i < s->npatterns; i++)
        if (fnmatch(s->patterns[i], event, 0) == 0)
            return true;
    return false;
}

static void put_common_value(FILE *f, const struct param *p, const pmValueSet *vs,
                             bool json)
{
    if (vs == NULL || vs->numval < 1)
        put_null(f, json);
    else
        put_value(f, p, vs, json);
}

static int put_fields(struct tracer *t, FILE *f, const struct record *r, bool json)
{
    bool first = true;

    for (int i = 0; i < r->numpmid; i++) {
        const pmValueSet *vs = r->vset[i];
        const struct param *p = param_get(&t->params, vs->pmid);
        if (p == NULL)
            return -ENOMEM;
        if (p->role != FIELD || vs->numval < 1)
            continue;
        if (json) {
            fputs(first ? "" : ",", f);
            put_json_string(f, p->field, strlen(p->field));
            fputc(':', f);
        } else {
            fprintf(f, " %s=", p->field);
        }
        put_value(f, p, vs, json);
        first = false;
    }
    return 0;
}

/* TIME [CPU] PID system:event: field=value ... */
static int print_text_event(struct tracer *t, const struct record *r, const struct common *c)
{
    put_clock(stdout, &t->clock, c->time_ns);
    fputs(" [", stdout);
    if (c->cpu != NULL && c->cpu->numval > 0)
        printf("%03" PRIu32, (uint32_t)insitu_value(c->cpu));
    else
        fputc('?', stdout);
    fputs("] ", stdout);
    put_common_value(stdout, c->pid_param, c->pid, false);
    printf(" %s:", c->event);
    int rc = put_fields(t, stdout, r, false);
    fputc('\n', stdout);
    return rc;
}

/* {"time_ns":N,"time":"...","cpu":C,"pid":P,"event":"s:e","fields":{...}} */
static int print_json_event(struct tracer *t, const struct record *r, const struct common *c)
{
    printf("{\"time_ns\":%" PRIu64 ",\"time\":\"", c->time_ns);
    put_iso_time(stdout, &t->clock, c->time_ns);
    fputs("\",\"cpu\":", stdout);
    put_common_value(stdout, c->cpu_param, c->cpu, true);
    fputs(",\"pid\":", stdout);
    put_common_value(stdout, c->pid_param, c->pid, true);
    fputs(",\"event\":", stdout);
    put_json_string(stdout, c->event, strlen(c->event));
    fputs(",\"fields\":{", stdout);
    int rc = put_fields(t, stdout, r, true);
    fputs("}}\n", stdout);
    return rc;
}

static void print_lost(struct tracer *t, uint64_t count, uint64_t ns)
{
    if (t->set->json) {
        printf("{\"lost\":%" PRIu64 ",\"time_ns\":%" PRIu64 "}\n", count, ns);
    } else {
        put_clock(stdout, &t->clock, ns);
        printf(" LOST %" PRIu64 " events\n", count);
    }
}

static int handle_record(struct tracer *t, const struct record *r)
{
    const struct settings *s = t->set;
    struct common c;

    if (scan_common(t, r, &c) < 0)
        return -ENOMEM;
    if (c.flags & PM_EVENT_FLAG_MISSED) {
        uint64_t n = c.missed > 0 ? (uint64_t)c.missed : 0;
        if (t->window && (r->stamp_ns < t->start_ns || r->stamp_ns > t->finish_ns))
            return 0;
        t->tally.lost += n;
        if (!(s->quiet && s->summary))
            print_lost(t, n, r->stamp_ns);
        return 0;
    }
    if (!wanted(t, c.event, c.time_ns))
        return 0;
    if (tally_event(&t->tally, c.event) < 0)
        return -ENOMEM;
    if (s->quiet)
        return 0;
    return s->json ? print_json_event(t, r, &c) : print_text_event(t, r, &c);
}

/* The time a record is sorted by: its time_ns, else its timestamp. */
static int record_key(struct tracer *t, struct record *r)
{
    r->key = r->stamp_ns;
    for (int i = 0; i < r->numpmid; i++) {
        const struct param *p = param_get(&t->params, r->vset[i]->pmid);
        if (p == NULL)
            return -ENOMEM;
        if (p->role == TIME_NS)
            r->key = u64_value(r->vset[i], r->stamp_ns);
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

    for (int i = 0; i < n && rc == 0; i++)
        rc = record_key(t, &v[i]);
    if (rc == 0)
        qsort(v, (size_t)n, sizeof(*v), by_time);
    for (int i = 0; i < n && rc == 0; i++)
        rc = handle_record(t, &v[i]);
    return rc;
}

static int handle_highres_array(struct tracer *t, pmValueSet *vs, int j)
{
    pmHighResResult **hr = NULL;
    struct record *v;
    int n = pmUnpackHighResEventRecords(vs, j, &hr), rc = -ENOMEM;

    if (n <= 0)
        return n;
    if ((v = calloc((size_t)n, sizeof(*v))) != NULL) {
        for (int i = 0; i < n; i++)
            v[i] = (struct record){ hr[i]->numpmid, hr[i]->vset,
                                    (uint64_t)hr[i]->timestamp.tv_sec * NS_PER_SEC +
                                    (uint64_t)hr[i]->timestamp.tv_nsec, 0, i };
        rc = handle_records(t, v, n);
        free(v);
    }
    for (int i = n - 1; i >= 0; i--)   /* newest first: see free_records() */
        pmFreeHighResResult(hr[i]);
    free(hr);
    return rc;
}

/*
 * libpcp (6.0) keeps every result it allocates on a list that pmFreeResult
 * searches from the newest: pmFreeEventResult, which frees the oldest first,
 * takes time quadratic in the records of an array (5 s for 60,000).  Newest
 * first, each is found at once.
 */
static void free_records(pmResult **res, int n)
{
    for (int i = n - 1; i >= 0; i--)
        pmFreeResult(res[i]);
    free(res);
}

static int handle_event_array(struct tracer *t, pmValueSet *vs, int j)
{
    pmResult **res = NULL;
    struct record *v;
    int n = pmUnpackEventRecords(vs, j, &res), rc = -ENOMEM;

    if (n <= 0)
        return n;
    if ((v = calloc((size_t)n, sizeof(*v))) != NULL) {
        for (int i = 0; i < n; i++)
            v[i] = (struct record){ res[i]->numpmid, res[i]->vset,
                                    timeval_ns(&res[i]->timestamp), 0, i };
        rc = handle_records(t, v, n);
        free(v);
    }
    free_records(res, n);
    return rc;
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

/* Note stdout errors: EPIPE (the reader went away) ends the run quietly. */
static int flush_output(struct tracer *t)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    t->output_closed = true;
    if (errno == EPIPE)
        return 0;
    errmsg("cannot write the output: %s", strerror(errno));
    return -1;
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

    if (sts == PM_ERR_EOL && t->archive)
        return 1;
    if (sts < 0) {
        errmsg("cannot fetch from %s: %s", t->where, pmErrStr(sts));
        return -1;
    }
    t->last_stamp_ns = timeval_ns(&rp->timestamp);
    t->more = false;
    for (int i = 0; i < rp->numpmid && rc == 0; i++) {
        pmValueSet *vs = rp->vset[i];
        if (vs->pmid == t->pending) {   /* fetched after the records: what is left */
            pmAtomValue a;
            for (int j = 0; j < vs->numval; j++)
                if (pmExtractValue(vs->valfmt, &vs->vlist[j], PM_TYPE_U64, &a,
                                   PM_TYPE_U64) >= 0 && a.ull > 0)
                    t->more = true;
            continue;
        }
        if (vs->numval < 0) {
            report_value_error(t, i, vs);
            rc = -1;
        }
        for (int j = 0; j < vs->numval && rc == 0; j++) {
            if ((sts = handle_array(t, t->types[i], vs, j)) < 0) {
                errmsg("cannot decode the event records: %s", pmErrStr(sts));
                rc = -1;
            }
        }
    }
    pmFreeResult(rp);
    if (flush_output(t) < 0)
        rc = -1;
    return rc;
}

/* ---- summary ------------------------------------------------------------- */

static int digits(uint64_t n)
{
    int d = 1;

    while (n >= 10) {
        n /= 10;
        d++;
    }
    return d;
}

static void print_text_summary(const struct tally *t, struct counter **v)
{
    int w = digits(t->events > t->lost ? t->events : t->lost);

    for (size_t i = 0; i < t->kinds; i++)
        printf("%*" PRIu64 " %s\n", w, v[i]->n, v[i]->event);
    printf("%*" PRIu64 " events\n", w, t->events);
    printf("%*" PRIu64 " lost\n", w, t->lost);
}

static void print_json_summary(const struct tally *t, struct counter **v)
{
    fputs("{\"summary\":{\"events\":{", stdout);
    for (size_t i = 0; i < t->kinds; i++) {
        fputs(i ? "," : "", stdout);
        put_json_string(stdout, v[i]->event, strlen(v[i]->event));
        printf(":%" PRIu64, v[i]->n);
    }
    printf("},\"total\":%" PRIu64 ",\"lost\":%" PRIu64 "}}\n", t->events, t->lost);
}

static int print_summary(struct tracer *t)
{
    struct counter **v = tally_sorted(&t->tally);

    if (v == NULL && t->tally.kinds > 0) {
        errmsg("out of memory");
        return -1;
    }
    if (t->set->json)
        print_json_summary(&t->tally, v);
    else
        print_text_summary(&t->tally, v);
    free(v);
    return flush_output(t);
}

/* ---- talking to the PMDA ---------------------------------------------------- */

static int lookup_metric(const char *name, pmID *pmid, pmDesc *desc)
{
    int sts = pmLookupName(1, &name, pmid);

    if (sts >= 0)
        sts = pmLookupDesc(*pmid, desc);
    return sts;
}

static int is_event_type(int type)
{
    return type == PM_TYPE_EVENT || type == PM_TYPE_HIGHRES_EVENT;
}

static int store_string(pmID pmid, const char *text)
{
    size_t len = strlen(text) + 1;
    size_t size = PM_VAL_HDR_SIZE + len;
    pmValueBlock *vb;

    if (size >= (1u << 24))                 /* vlen is 24 bits */
        return PM_ERR_TOOBIG;
    if ((vb = calloc(1, size < sizeof(*vb) ? sizeof(*vb) : size)) == NULL)
        return -ENOMEM;
    vb->vtype = PM_TYPE_STRING;
    vb->vlen = (unsigned int)size;
    memcpy(vb->vbuf, text, len);

    pmValueSet vs = { .pmid = pmid, .numval = 1, .valfmt = PM_VAL_DPTR };
    vs.vlist[0].inst = PM_IN_NULL;
    vs.vlist[0].value.pval = vb;
    pmResult result;
    memset(&result, 0, sizeof(result));
    result.numpmid = 1;
    result.vset[0] = &vs;
    int sts = pmStore(&result);
    free(vb);
    return sts;
}

/* The string value of a metric (caller frees), or NULL. */
static char *fetch_string(const char *name)
{
    pmID pmid;
    pmDesc desc;
    pmResult *rp;
    char *s = NULL;

    if (lookup_metric(name, &pmid, &desc) < 0 || desc.type != PM_TYPE_STRING ||
        pmFetch(1, &pmid, &rp) < 0)
        return NULL;
    if (rp->vset[0]->numval > 0 && rp->vset[0]->valfmt != PM_VAL_INSITU) {
        const pmValueBlock *vb = rp->vset[0]->vlist[0].value.pval;
        s = strndup(vb->vbuf, vb->vlen - PM_VAL_HDR_SIZE);
    }
    pmFreeResult(rp);
    return s;
}

/* The reason for the last refused store, from tracepoint.control.status. */
static char *refusal_reason(void)
{
    static const char tag[] = "last error: ";
    char *status = fetch_string(STATUS_METRIC), *why = NULL;
    char *p = status != NULL ? strstr(status, tag) : NULL;

    if (p != NULL && strncmp(p + strlen(tag), "none", 4) != 0)
        why = strndup(p + strlen(tag), strcspn(p + strlen(tag), "\n"));
    free(status);
    return why;
}

/* "NAME NAME ..." of the streams the PMDA offers (caller frees), or NULL. */
static char *stream_names(const struct tracer *t)
{
    int *insts = NULL;
    char **names = NULL, *list = NULL;
    size_t size = 0;
    int n = t->streams == PM_INDOM_NULL ? 0
          : t->archive ? pmGetInDomArchive(t->streams, &insts, &names)
          : pmGetInDom(t->streams, &insts, &names);
    FILE *f = n > 0 ? open_memstream(&list, &size) : NULL;

    for (int i = 0; f != NULL && i < n; i++)
        fprintf(f, "%s%s", i ? " " : "", names[i]);
    if (f != NULL)
        fclose(f);
    if (n > 0) {
        free(insts);
        free(names);
    }
    return list;
}

static void explain_permission(const struct tracer *t)
{
    char *streams = stream_names(t);

    fprintf(stderr,
            "%s: only a local client (no -h) that is root, or in a group named by\n"
            "  allow_group in tracepoint.conf, may subscribe; remote clients are not\n"
            "  authenticated.  Configured streams open to all can still be read:\n"
            "    %s -h %s -n STREAM     (streams: %s)\n",
            pmGetProgname(), pmGetProgname(), t->source,
            streams != NULL ? streams : "none");
    free(streams);
}

static void explain_refusal(const struct tracer *t, int sts, const char *request)
{
    char *why = refusal_reason();

    errmsg("%s refused the subscription \"%s\": %s%s%s", t->where, request,
           pmErrStr(sts), why != NULL ? ": " : "", why != NULL ? why : "");
    free(why);
    if (sts == PM_ERR_PERMISSION)
        explain_permission(t);
}

/* "pattern,pattern[ filter]", the one store that subscribes and filters. */
static char *subscription_text(const struct settings *s)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);

    if (f == NULL)
        return NULL;
    for (size_t i = 0; i < s->npatterns; i++)
        fprintf(f, "%s%s", i ? "," : "", s->patterns[i]);
    if (s->filter != NULL && *s->filter != '\0')
        fprintf(f, " %s", s->filter);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

static int subscribe(struct tracer *t)
{
    char *text = subscription_text(t->set);
    int sts;

    if (text == NULL) {
        errmsg("out of memory");
        return -1;
    }
    if ((sts = store_string(t->records, text)) < 0)
        explain_refusal(t, sts, text);
    else
        t->registered = true;
    free(text);
    return sts < 0 ? -1 : 0;
}

static void unsubscribe(struct tracer *t)
{
    pmID pmid;
    pmDesc desc;
    int sts;

    if (!t->registered)
        return;
    if ((sts = lookup_metric(UNREGISTER_METRIC, &pmid, &desc)) >= 0)
        sts = store_string(pmid, "*");
    if (sts < 0)
        errmsg("cannot unsubscribe on %s: %s", t->where, pmErrStr(sts));
    t->registered = false;
}

/* ---- setting up what to fetch ----------------------------------------------- */

static int add_fetch(struct tracer *t, const char *name, pmID pmid, const pmDesc *desc)
{
    if (!is_event_type(desc->type)) {
        errmsg("%s on %s is not an event metric", name, t->where);
        return -1;
    }
    t->pmids[t->npmids] = pmid;
    t->types[t->npmids] = desc->type;
    t->names[t->npmids] = name;
    t->npmids++;
    return 0;
}

/* Restrict fetches of the stream metric to stream NAME. */
static int select_stream(struct tracer *t, const char *name)
{
    int inst = t->archive ? pmLookupInDomArchive(t->streams, name)
                          : pmLookupInDom(t->streams, name);

    if (inst < 0) {
        char *streams = stream_names(t);
        errmsg("%s has no stream '%s' (streams: %s)", t->where, name,
               streams != NULL ? streams : "none");
        free(streams);
        return -1;
    }
    pmDelProfile(t->streams, 0, NULL);
    pmAddProfile(t->streams, 1, &inst);
    return 0;
}

static int setup_stream(struct tracer *t, bool required)
{
    pmID pmid;
    pmDesc desc;
    int sts = lookup_metric(STREAM_METRIC, &pmid, &desc);

    if (sts < 0) {
        if (required)
            errmsg("%s has no %s: %s", t->where, STREAM_METRIC, pmErrStr(sts));
        return required ? -1 : 0;
    }
    t->streams = desc.indom;
    if (add_fetch(t, STREAM_METRIC, pmid, &desc) < 0)
        return -1;
    if (t->set->stream != NULL)
        return select_stream(t, t->set->stream);
    if (desc.indom != PM_INDOM_NULL)
        pmAddProfile(desc.indom, 0, NULL);
    return 0;
}

static int setup_records(struct tracer *t, bool required)
{
    pmDesc desc;
    int sts = lookup_metric(RECORDS_METRIC, &t->records, &desc);

    if (sts < 0) {
        t->records = PM_ID_NULL;
        if (required)
            errmsg("%s has no %s: %s (is the tracepoint PMDA installed?)", t->where,
                   RECORDS_METRIC, pmErrStr(sts));
        return required ? -1 : 0;
    }
    return add_fetch(t, RECORDS_METRIC, t->records, &desc);
}

/*
 * Ask for how much the PMDA still holds for us, last in every fetch, so a
 * fetch that could not take everything is followed by another at once.  A
 * PMDA too old to say leaves the pace to the interval.
 */
static void setup_pending(struct tracer *t, const char *name)
{
    pmDesc desc;
    if (lookup_metric(name, &t->pending, &desc) < 0) {
        t->pending = PM_ID_NULL;
        return;
    }
    t->pmids[t->npmids] = t->pending;
    t->types[t->npmids] = desc.type;
    t->names[t->npmids++] = name;
}

static int setup_live(struct tracer *t)
{
    if (t->set->stream != NULL) {
        if (setup_stream(t, true) < 0)
            return -1;
        setup_pending(t, STREAM_PENDING_METRIC);    /* the stream's instance, as selected */
        return 0;
    }
    if (setup_records(t, true) < 0)
        return -1;
    setup_pending(t, PENDING_METRIC);
    pmID pmid;
    pmDesc desc;
    if (lookup_metric(STREAM_METRIC, &pmid, &desc) >= 0)
        t->streams = desc.indom;        /* for messages only */
    return 0;
}

static int setup_archive(struct tracer *t)
{
    const pmOptions *o = &t->set->opts;
    int sts;

    if (setup_stream(t, t->set->stream != NULL) < 0)
        return -1;
    if (t->set->stream == NULL && setup_records(t, false) < 0)
        return -1;
    if (t->npmids == 0) {
        errmsg("%s holds no %s or %s", t->where, STREAM_METRIC, RECORDS_METRIC);
        return -1;
    }
    t->window = o->start_optarg != NULL || o->finish_optarg != NULL;
    t->start_ns = o->start_optarg != NULL ? timeval_ns(&o->start) : 0;
    t->finish_ns = o->finish_optarg != NULL ? timeval_ns(&o->finish) : UINT64_MAX;
    if ((sts = pmSetMode(PM_MODE_FORW, &o->origin, 0)) < 0) {
        errmsg("%s: cannot replay from the start: %s", t->where, pmErrStr(sts));
        return -1;
    }
    return 0;
}

static int open_context(struct tracer *t)
{
    pmOptions *o = &t->set->opts;
    int type = t->archive ? PM_CONTEXT_ARCHIVE : PM_CONTEXT_HOST;

    if ((t->ctx = pmNewContext(type, t->source)) < 0) {
        errmsg("cannot %s %s: %s", t->archive ? "open" : "connect to", t->where,
               pmErrStr(t->ctx));
        return EXIT_RUNTIME;
    }
    if (pmGetContextOptions(t->ctx, o) < 0) {       /* a bad -Z or time window */
        pmflush();
        pmDestroyContext(t->ctx);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* ---- the main loops ------------------------------------------------------------ */

static bool finished(const struct tracer *t, long fetches)
{
    const pmOptions *o = &t->set->opts;
    uint64_t finish = timeval_ns(&o->finish);

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
static int run_live(struct tracer *t, const sigset_t *unblocked)
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
        if (!wait_until(next, unblocked)) {
            rc = drain(t);              /* what arrived since the last fetch */
            break;
        }
        rc = drain(t);
        fetches++;
    }
    return rc < 0 ? -1 : 0;
}

static int run_archive(struct tracer *t)
{
    long fetches = 0;
    int rc = 0;

    t->started = true;
    while (rc == 0 && !stop_requested && !finished(t, fetches)) {
        rc = fetch_round(t);
        fetches++;
    }
    return rc < 0 ? -1 : 0;
}

static void install_signal_handlers(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESTART | SA_RESETHAND;   /* a second signal kills */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sa.sa_flags = 0;
    sigaction(SIGPIPE, &sa, NULL);          /* a closed stdout is EPIPE */
}

/* Live: block SIGINT/SIGTERM except while waiting (see wait_until). */
static int trace_live(struct tracer *t)
{
    sigset_t stops, unblocked;
    int rc;

    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    sigprocmask(SIG_BLOCK, &stops, &unblocked);
    rc = setup_live(t);
    if (rc == 0 && t->set->stream == NULL)
        rc = subscribe(t);
    if (rc == 0)
        rc = run_live(t, &unblocked);
    sigprocmask(SIG_SETMASK, &unblocked, NULL);
    unsubscribe(t);
    return rc;
}

static int trace(struct tracer *t)
{
    int rc = open_context(t);

    if (rc != EXIT_OK)
        return rc;
    install_signal_handlers();
    if (t->archive)
        rc = setup_archive(t) < 0 ? -1 : run_archive(t);
    else
        rc = trace_live(t);
    if (t->set->summary && t->started && !t->output_closed && print_summary(t) < 0)
        rc = -1;
    pmDestroyContext(t->ctx);
    return rc < 0 ? EXIT_RUNTIME : EXIT_OK;
}

static void describe_source(struct tracer *t)
{
    if (t->archive)
        snprintf(t->where, sizeof(t->where), "archive %.300s", t->source);
    else if (strcmp(t->source, "local:") == 0)
        snprintf(t->where, sizeof(t->where), "the local pmcd");
    else
        snprintf(t->where, sizeof(t->where), "pmcd on %.300s", t->source);
}

int main(int argc, char **argv)
{
    struct settings set;
    struct tracer t;
    int rc = parse_args(&set, argc, argv);

    if (rc < 0) {
        memset(&t, 0, sizeof(t));
        t.set = &set;
        t.archive = set.opts.narchives > 0;
        t.source = t.archive ? set.opts.archives[0]
                 : set.opts.nhosts > 0 ? set.opts.hosts[0] : "local:";
        describe_source(&t);
        t.records = PM_ID_NULL;
        t.pending = PM_ID_NULL;
        t.streams = PM_INDOM_NULL;
        rc = trace(&t);
        params_free(&t.params);
        tally_free(&t.tally);
    }
    settings_free(&set);
    return rc;
}
