/* options.c: the command line (client/options.h). */
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
int parse_args(struct settings *s, int argc, char **argv)
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
