/* options.c: the command line (client/options.h). */
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_pcp_compat.h"
#include "util.h"

#define DEFAULT_INTERVAL_NS (NS_PER_SEC / 2)

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
    { "raw", 0, 'R', 0, "print the raw field=value of each event, not its text" },
    { "json", 0, 'j', 0, "print one JSON object per line" },
    { "summary", 0, 'c', 0, "print per-event counts and totals on exit" },
    { "quiet", 0, 'q', 0, "no per-event lines (with -c: only the summary)" },
    { "pid", 1, 'p', "PID[,PID]", "only events of these processes (common_pid)" },
    { "cpu", 1, 'C', "CPU[,CPU]", "only events recorded on these CPUs" },
    { "comm", 1, 0, "NAME", "only events of tasks named NAME" },
    { "probe", 1, 'u', "SPEC", "probe a function: PATH:SYMBOL[%return] [ARG=FETCHARG[:TYPE]...]" },
    { "agg", 1, 'A', "DIRECTIVE", "a one-liner computed by the PMDA: count|sum|hist|latency ..." },
    { "every", 1, 0, "SECONDS", "print the one-liners every SECONDS, each interval from zero" },
    PMAPI_OPTIONS_HEADER("Discovery options"),
    { "list", 0, 'l', 0, "list the tracepoints matching GLOB (default all)" },
    { "fields", 1, 'F', "EVENT", "list the fields of EVENT: type, declaration, size" },
    PMAPI_OPTIONS_TEXT(""),
    PMAPI_OPTIONS_TEXT("EVENT is system:event, globs allowed (sched:sched_process_*);"),
    PMAPI_OPTIONS_TEXT("without EVENTs or -n, -a replays every stream in the archive."),
    PMAPI_OPTIONS_TEXT("pcp-tracepoint -l [GLOB...] lists tracepoints, -F EVENT its fields."),
    PMAPI_OPTIONS_END
};
_Static_assert(sizeof(longopts_template) <= sizeof(((struct settings *)0)->longopts),
               "MAX_LONGOPTS is too small");

static bool is_help_arg(const char *arg)
{
    return strcmp(arg, "-?") == 0 || strcmp(arg, "--help") == 0;
}

/*
 * pmGetOptions would take -n as a namespace file, -p as a GUI port and
 * -A as an alignment: claim them.  Also notice
 * an explicit request for help, which pmGetOptions counts as an error.
 */
static int option_override(int opt, pmOptions *opts)
{
    struct settings *s = (struct settings *)opts;

    if (opt == 'n' || opt == 'p' || opt == 'A')
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
    s->opts.short_options = "a:D:h:O:S:s:T:t:VZ:z?f:n:Rjcqp:C:lF:u:A:";
    s->opts.long_options = s->longopts;
    s->opts.short_usage = "[options] [EVENT...]";
    s->opts.override = option_override;
}

void settings_free(struct settings *s)
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

/* -l and -F: a live pmcd, no tracing options. */
static const char *check_listing(const struct settings *s)
{
    if (s->list && s->fields != NULL)
        return "-l and -F are two different listings: give one";
    if (s->opts.narchives > 0)
        return "-l and -F read a live pmcd's catalog (not an archive)";
    if (s->filter != NULL || s->stream != NULL || s->summary || s->quiet || s->json ||
        s->raw || select_any(&s->sel) || s->nprobes)
        return "-l and -F take no tracing options (-f -n -R -j -c -q -p -C --comm -u)";
    if (s->fields != NULL && s->npatterns > 0)
        return "-F lists the fields of one EVENT";
    return NULL;
}

/* Combinations that make no sense; NULL if the settings are consistent. */
static const char *check_settings(const struct settings *s)
{
    bool archive = s->opts.narchives > 0;

    if (s->list || s->fields != NULL)
        return check_listing(s);
    if (s->filter != NULL && s->npatterns == 0 && s->nprobes == 0)
        return "-f FILTER needs EVENTs to apply to";
    if (s->naggs && s->opts.nhosts > 0)
        return "-A: a one-liner is stored in pmcd, which needs the local credentials of root "
               "or an allow_group member: run it on that host, without -h";
    if (s->naggs && archive)
        return "-A one-liners are computed live (not with -a)";
    if (s->every_ns && !s->naggs)
        return "--every prints one-liners: give them with -A DIRECTIVE";
    if (!archive && s->stream == NULL && s->npatterns == 0 && s->nprobes == 0 && !s->naggs)
        return "name the EVENTs to trace, or a stream with -n NAME";
    if (s->nprobes && (archive || s->stream != NULL))
        return "-u SPEC probes live only (not with -a or -n)";
    if (s->filter != NULL && (archive || s->stream != NULL))
        return "-f FILTER applies to live subscriptions only (not with -a or -n)";
    if (s->stream != NULL && *s->stream == '\0')
        return "-n needs a stream name";
    if (s->raw && s->json)
        return "-R and -j are two different outputs: give one";
    return NULL;
}

/* --every SECONDS: a positive number of seconds, fractions allowed. */
static void take_every(struct settings *s)
{
    char *end = NULL;
    double secs = strtod(s->opts.optarg, &end);
    if (end != s->opts.optarg && *end == '\0' && secs >= 0.001 && secs <= 86400.0)
        s->every_ns = (long long)(secs * NS_PER_SEC);
    else if (s->bad_value[0] == '\0')
        snprintf(s->bad_value, sizeof(s->bad_value), "--every %.40s: a number of seconds "
                 "(0.001 to 86400) is expected", s->opts.optarg);
}

static void take_option(struct settings *s, int opt)
{
    char why[160] = "";
    int rc = 0;

    switch (opt) {
    case 'p': rc = select_parse_pids(&s->sel, s->opts.optarg, why, sizeof(why)); break;
    case 'C': rc = select_parse_cpus(&s->sel, s->opts.optarg, why, sizeof(why)); break;
    case 'l': s->list = true; break;
    case 'F': s->fields = s->opts.optarg; break;
    case 0:
        if (strcmp(s->opts.long_options[s->opts.index].long_opt, "comm") == 0)
            rc = select_parse_comm(&s->sel, s->opts.optarg, why, sizeof(why));
        else if (strcmp(s->opts.long_options[s->opts.index].long_opt, "every") == 0)
            take_every(s);
        else
            s->opts.errors++;
        break;
    case 'f': s->filter = s->opts.optarg; break;
    case 'n': s->stream = s->opts.optarg; break;
    case 'R': s->raw = true; break;
    case 'j': s->json = true; break;
    case 'c': s->summary = true; break;
    case 'q': s->quiet = true; break;
    case 'A':
        if (s->naggs < sizeof(s->aggs) / sizeof(s->aggs[0]))
            s->aggs[s->naggs++] = s->opts.optarg;
        else if (s->bad_value[0] == '\0')
            snprintf(s->bad_value, sizeof(s->bad_value), "-A given more than %zu times",
                     sizeof(s->aggs) / sizeof(s->aggs[0]));
        break;
    case 'u':
        if (s->nprobes < PROBE_MAX_SPECS)
            s->probes[s->nprobes++] = s->opts.optarg;
        else if (s->bad_value[0] == '\0')
            snprintf(s->bad_value, sizeof(s->bad_value), "-u given more than %d times",
                     PROBE_MAX_SPECS);
        break;
    default: s->opts.errors++; break;
    }
    if (rc < 0 && s->bad_value[0] == '\0')
        snprintf(s->bad_value, sizeof(s->bad_value), "-%s %.40s: %s",
                 opt == 0 ? "-comm" : opt == 'p' ? "p" : "C", s->opts.optarg, why);
}

/* Live subscription: the one kernel filter from -p, -C, --comm and -f. */
static const char *compose_filter(struct settings *s, char *why, size_t size)
{
    if (s->opts.narchives > 0 || s->stream != NULL || s->list || s->fields != NULL)
        return NULL;
    if (select_filter(&s->sel, s->filter, s->kernel_filter, sizeof(s->kernel_filter), why,
                      size) < 0)
        return why;
    return NULL;
}

/* Returns -1 to go on, else the exit status. */
int parse_args(struct settings *s, int argc, char **argv)
{
    const char *why;
    char buf[160];
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
    if (s->bad_value[0] != '\0')
        return usage_error(s, s->bad_value);
    if ((why = collect_patterns(s, argc, argv)) != NULL ||
        (why = check_settings(s)) != NULL ||
        (why = compose_filter(s, buf, sizeof(buf))) != NULL)
        return usage_error(s, why);
    s->interval_ns = (long long)tp_time_ns(&s->opts.interval);
    if (s->every_ns)
        s->interval_ns = s->every_ns;
    if (s->interval_ns <= 0)
        s->interval_ns = DEFAULT_INTERVAL_NS;
    return -1;
}

const char *settings_params(const struct settings *s)
{
    if (s->quiet)
        return "none";
    return s->raw || s->json ? "fields,comm" : "comm,text";
}
