/* session.c: the context, the subscription, what to fetch (client/session.h). */
#include "session.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tp_pcp_compat.h"
#include "tp_valname.h"
#include "util.h"

static int is_event_type(int type)
{
    return type == PM_TYPE_EVENT || type == PM_TYPE_HIGHRES_EVENT;
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
static char *subscription_text(const struct tracer *t)
{
    const struct settings *s = t->set;
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);

    if (f == NULL)
        return NULL;
    for (size_t i = 0; i < s->npatterns; i++)
        fprintf(f, "%s%s", i ? "," : "", s->patterns[i]);
    for (size_t i = 0; i < s->nprobes; i++)
        fprintf(f, "%sprobe:%s", i || s->npatterns ? "," : "", t->probe_names[i]);
    if (s->kernel_filter[0] != '\0')
        fprintf(f, " %s", s->kernel_filter);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The -u specs as the PMDA takes them: "NAME SPEC", paths absolute if it is local. */
static int probe_texts(struct tracer *t, unsigned attempt, char texts[][1200])
{
    const struct settings *s = t->set;
    bool local = !t->source || strcmp(t->source, "local:") == 0 ||
                 strcmp(t->source, "localhost") == 0 || strncmp(t->source, "unix:", 5) == 0;
    char why[300];

    for (size_t i = 0; i < s->nprobes; i++) {
        if (attempt == 0 && local &&
            probe_spec_local(s->probes[i], t->probe_specs[i], sizeof(t->probe_specs[i]),
                             why, sizeof(why)) < 0) {
            errmsg("-u %s: %s", s->probes[i], why);
            return -1;
        } else if (attempt == 0 && !local) {
            snprintf(t->probe_specs[i], sizeof(t->probe_specs[i]), "%s", s->probes[i]);
        }
        for (unsigned k = attempt; ; k += 1) {   /* unique among this client's own */
            probe_name(t->probe_specs[i], k, t->probe_names[i]);
            size_t j = 0;
            while (j < i && strcmp(t->probe_names[j], t->probe_names[i]) != 0)
                j++;
            if (j == i)
                break;
        }
        snprintf(texts[i], sizeof(texts[i]), "%s %s", t->probe_names[i], t->probe_specs[i]);
    }
    return 0;
}

/* Was the store refused only because a probe name is taken (by another client)? */
static bool name_taken(void)
{
    char *why = refusal_reason();
    bool taken = why != NULL && strstr(why, "is defined already") != NULL;
    free(why);
    return taken;
}

/*
 * -u with -A and no EVENT: the probes are for the one-liners, which count
 * their events in the PMDA; this client does not subscribe to them too (a
 * probe on a busy function, such as malloc, would send every hit to it, and
 * pmcd's and the PMDA's own calls would feed themselves).
 */
static bool probes_for_oneliners(const struct settings *s)
{
    return s->naggs && s->nprobes && !s->npatterns;
}

#define LOCAL_FAILURE INT_MIN   /* said here already: not the PMDA's refusal */

/* One try: probes, what our records carry and the subscription, in one store. */
static int store_subscription(struct tracer *t, unsigned attempt, char **text)
{
    const struct settings *s = t->set;
    static char probes[PROBE_MAX_SPECS][1200];
    const char *texts[PROBE_MAX_SPECS + 2];
    pmID pmids[PROBE_MAX_SPECS + 2], probe = PM_ID_NULL;
    pmDesc desc;
    int n = 0;

    if (s->nprobes && lookup_metric(PROBE_METRIC, &probe, &desc) < 0) {
        errmsg("%s has no %s: its PMDA cannot probe", t->where, PROBE_METRIC);
        return LOCAL_FAILURE;
    }
    if (probe_texts(t, attempt, probes) < 0)
        return LOCAL_FAILURE;
    for (size_t i = 0; i < s->nprobes; i++, n++) {
        pmids[n] = probe;
        texts[n] = probes[i];
    }
    free(*text);
    if ((*text = subscription_text(t)) == NULL) {
        errmsg("out of memory");
        return LOCAL_FAILURE;
    }
    if (probes_for_oneliners(s))
        return store_strings(n, pmids, texts);
    pmids[n] = t->records;
    texts[n++] = *text;
    if (lookup_metric(PARAMS_METRIC, &pmids[n], &desc) >= 0)
        texts[n++] = settings_params(s);
    return store_strings(n, pmids, texts);
}

/*
 * What our records carry, probes and the subscription, in one store; a
 * probe name another client has is tried again with a suffix.  A PMDA
 * without tracepoint.control.params gets the subscription alone (its
 * records carry fields, which the text line falls back to).
 */
int subscribe(struct tracer *t)
{
    char *text = NULL;
    int sts = -1;

    for (unsigned attempt = 0; attempt < 9; attempt++) {
        sts = store_subscription(t, attempt, &text);
        if (sts >= 0 || sts == LOCAL_FAILURE || !t->set->nprobes || !name_taken())
            break;
    }
    if (sts < 0 && sts != LOCAL_FAILURE)
        explain_refusal(t, sts, text);
    else if (sts >= 0)
        t->registered = true;
    free(text);
    return sts < 0 ? -1 : 0;
}

void unsubscribe(struct tracer *t)
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
    t->time_pmid = PM_ID_NULL;
        return;
    }
    t->pmids[t->npmids] = t->pending;
    t->types[t->npmids] = desc.type;
    t->names[t->npmids++] = name;
}

/* Is the pmcd this host's own, so that its devices are named from here? */
static bool source_is_local(const char *source)
{
    char host[256];
    if (strcmp(source, "local:") == 0 || strcmp(source, "localhost") == 0 ||
        strcmp(source, "127.0.0.1") == 0 || strcmp(source, "::1") == 0 ||
        strncmp(source, "unix:", 5) == 0)
        return true;
    return gethostname(host, sizeof(host)) == 0 && strcmp(source, host) == 0;
}

/*
 * Which numbers -R shows as names (tp_valname.h): syscall numbers if the
 * source's kernel.uname.machine (an archive: if it was logged) is this
 * client's architecture, or, without that metric, if the source is this
 * host's own pmcd and this kernel is; device names only for this host's
 * own pmcd.
 */
static void setup_names(struct tracer *t)
{
    bool here = !t->archive && source_is_local(t->source);
    char *machine = fetch_string("kernel.uname.machine");
    t->params.syscalls_ok = machine ? tp_valname_arch_ok(machine)
                                    : here && tp_valname_local_arch_ok();
    t->params.devdir = here ? TP_VALNAME_DEVDIR : NULL;
    free(machine);
}

/* -g on a subscription: the PMDA must be one that gives kernel stacks. */
static int check_stacks(struct tracer *t)
{
    pmID pmid;
    pmDesc desc;

    if (!t->set->stack || lookup_metric(STACK_PARAM_METRIC, &pmid, &desc) >= 0)
        return 0;
    errmsg("%s gives no kernel stacks (it has no %s): -g needs a tracepoint PMDA "
           "that does", t->where, STACK_PARAM_METRIC);
    return -1;
}

int setup_live(struct tracer *t)
{
    setup_names(t);
    if (t->set->stream != NULL) {
        if (setup_stream(t, true) < 0)
            return -1;
        setup_pending(t, STREAM_PENDING_METRIC);    /* the stream's instance, as selected */
        return 0;
    }
    if (setup_records(t, true) < 0 || check_stacks(t) < 0)
        return -1;
    setup_pending(t, PENDING_METRIC);
    pmID pmid;
    pmDesc desc;
    if (lookup_metric(STREAM_METRIC, &pmid, &desc) >= 0)
        t->streams = desc.indom;        /* for messages only */
    return 0;
}

int setup_archive(struct tracer *t)
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
    setup_names(t);
    t->tally.archive = true;
    if (t->streams != PM_INDOM_NULL) {     /* what the logger never received, if it says */
        setup_pending(t, STREAM_PENDING_METRIC);
        t->tally.pending_logged = t->pending != PM_ID_NULL;
    }
    t->window = o->start_optarg != NULL || o->finish_optarg != NULL;
    t->start_ns = o->start_optarg != NULL ? tp_time_ns(&o->start) : 0;
    t->finish_ns = o->finish_optarg != NULL ? tp_time_ns(&o->finish) : UINT64_MAX;
    if ((sts = tp_set_mode_forward(&o->origin)) < 0) {
        errmsg("%s: cannot replay from the start: %s", t->where, pmErrStr(sts));
        return -1;
    }
    return 0;
}

int open_context(struct tracer *t)
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

static void describe_source(struct tracer *t)
{
    if (t->archive)
        snprintf(t->where, sizeof(t->where), "archive %.300s", t->source);
    else if (strcmp(t->source, "local:") == 0)
        snprintf(t->where, sizeof(t->where), "the local pmcd");
    else
        snprintf(t->where, sizeof(t->where), "pmcd on %.300s", t->source);
}

int tracer_init(struct tracer *t, struct settings *set, const volatile sig_atomic_t *stop)
{
    memset(t, 0, sizeof(*t));
    t->set = set;
    t->stop = stop;
    t->archive = set->opts.narchives > 0;
    t->source = t->archive ? set->opts.archives[0]
              : set->opts.nhosts > 0 ? set->opts.hosts[0] : "local:";
    describe_source(t);
    t->records = PM_ID_NULL;
    t->pending = PM_ID_NULL;
    t->streams = PM_INDOM_NULL;
    t->printer.json = set->json;
    t->printer.raw = set->raw;
    t->printer.params = &t->params;
    t->printer.stack = set->stack;
    if ((set->folded || set->flamegraph != NULL) &&
        (t->folds = calloc(1, sizeof(*t->folds))) == NULL)
        return -ENOMEM;
    return 0;
}

void tracer_free(struct tracer *t)
{
    params_free(&t->params);
    tally_free(&t->tally);
    oneliners_free(&t->ol);
    folds_free(t->folds);
    free(t->folds);
    unpack_free(&t->unpack);
    printer_free(&t->printer);
}
