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
 * pcp-tracepoint(1).  The rooms of the client:
 *   options   the command line                 (options.c)
 *   session   the context and the subscription (session.c)
 *   fetch     the fetch loop                   (fetch.c)
 *   list      -l and -F, from the catalog      (list.c)
 *   select    -p, -C and --comm                (select.c)
 *   decl      field declarations, array types  (decl.c)
 *   record    a record's common values         (record.c)
 *   params    what each parameter metric is    (params.c)
 *   output    event lines, text and JSON       (output.c)
 *   json      JSON strings and arrays          (json.c)
 *   tally     counts for -c                    (tally.c)
 *   oneliner  -A one-liners, stored and read   (oneliner.c)
 *   olres     their values, decoded and diffed (olres.c)
 *   olprint   their values, printed            (olprint.c)
 *   fold      counts per folded stack          (fold.c)
 *   flame     the flame graph, SVG             (flame.c)
 *   util      errors and clocks                (util.c)
 * This file: signals, and the order of a run.  All state lives in the
 * structs of those rooms, passed explicitly; the only mutable global is the
 * flag the SIGINT/SIGTERM handler sets.
 */
#include <signal.h>
#include <unistd.h>
#include <string.h>

#include <pcp/pmapi.h>

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "fetch.h"
#include "flame.h"
#include "list.h"
#include "options.h"
#include "outfile.h"
#include "session.h"
#include "util.h"

#define STDOUT_BUFFER       (256 * 1024)
#define REPLY_HEAP_MAX      (32 * 1024 * 1024)  /* glibc's largest mmap threshold */

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
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
    if (rc == 0 && t->set->stream == NULL && (t->set->npatterns || t->set->nprobes))
        rc = subscribe(t);
    if (rc == 0)
        rc = oneliners_start(t);
    if (rc == 0)
        rc = run_live(t, &unblocked);
    if (oneliners_finish(t) < 0)
        rc = -1;
    sigprocmask(SIG_SETMASK, &unblocked, NULL);
    unsubscribe(t);
    return rc;
}

/* The folded counts; what they cannot show (lost events) is said on stderr. */
static int print_folded(struct tracer *t)
{
    if (folds_print(t->folds, stdout) < 0) {
        errmsg("out of memory");
        return -1;
    }
    if (t->tally.lost > 0)
        errmsg("%" PRIu64 " events were lost: they are not in the folded counts",
               t->tally.lost);
    return 0;
}

static int print_summary(struct tracer *t)
{
    if (t->set->folded ? print_folded(t) < 0 : tally_print(&t->tally, t->set->json) < 0)
        return -1;
    return flush_output(&t->output_closed);
}

/* --flamegraph FILE: the flame graph of the folded counts, titled title. */
static int write_flamegraph(const struct settings *s, const struct folds *f,
                            const char *title)
{
    struct outfile o;
    int rc = outfile_open(&o, s->flamegraph);

    if (rc == -ELOOP) {
        errmsg("%s is a symbolic link: not written (give the file itself)",
               s->flamegraph);
        return -1;
    }
    if (rc == 0 && (rc = flame_svg(o.f, f, title)) < 0)
        outfile_abort(&o);
    else if (rc == 0)
        rc = outfile_commit(&o);
    if (rc < 0)
        errmsg("cannot write %s: %s", s->flamegraph, strerror(-rc));
    return rc < 0 ? -1 : 0;
}

/* The flame graph's title: what was traced. */
static void flame_title(const struct tracer *t, char *buf, size_t size)
{
    const struct settings *s = t->set;
    size_t n = (size_t)snprintf(buf, size, "Kernel stacks: ");

    if (s->stream != NULL)
        n += (size_t)snprintf(buf + n, size - n, "stream %s%s", s->stream,
                              s->npatterns ? " " : "");
    for (size_t i = 0; i < s->npatterns && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? "," : "", s->patterns[i]);
    if (s->stream == NULL && s->npatterns == 0 && n < size)
        snprintf(buf + n, size - n, "%s", t->where);
}

/* --from-folded FILE: folded counts in, --folded and --flamegraph out. */
static int convert(struct settings *s)
{
    const char *name = s->from_folded;
    FILE *in = strcmp(name, "-") == 0 ? stdin : fopen(name, "r");
    struct folds *f = calloc(1, sizeof(*f));
    size_t line = 0;
    int rc = -ENOMEM;

    if (in == NULL)
        errmsg("cannot read %s: %s", name, strerror(errno));
    else if (f != NULL && (rc = folds_read(f, in, &line)) < 0)
        errmsg("%s, line %zu: %s", name, line,
               rc == -EINVAL ? "not a folded stack and its count (KEY N)" : strerror(-rc));
    if (in != NULL && in != stdin)
        fclose(in);
    if (rc == 0 && s->folded && (rc = folds_print(f, stdout)) == 0 && fflush(stdout) != 0)
        rc = -errno;
    if (rc == 0 && s->flamegraph != NULL)
        rc = write_flamegraph(s, f, "Flame Graph");
    folds_free(f);
    free(f);
    return rc < 0 ? EXIT_RUNTIME : EXIT_OK;
}

/*
 * Lines into a file or pipe in large writes, not 4 kB ones: the fetch
 * loop flushes after every fetch and errmsg before every message, so
 * what is written when stays as it was.  Before anything is printed.
 */
static void buffer_stdout(void)
{
    if (!isatty(STDOUT_FILENO))
        setvbuf(stdout, NULL, _IOFBF, STDOUT_BUFFER);
}

/*
 * A fetch's reply is one allocation in libpcp, freed once its records are
 * printed: from the heap, reused fetch after fetch, rather than a new
 * mapping for each (above glibc's 128 kB threshold) whose every page
 * faults and is zeroed again.  Unless the environment tunes malloc itself.
 */
static void keep_replies_in_heap(void)
{
    if (getenv("MALLOC_MMAP_THRESHOLD_") == NULL)
        mallopt(M_MMAP_THRESHOLD, REPLY_HEAP_MAX);
    if (getenv("MALLOC_TRIM_THRESHOLD_") == NULL)
        mallopt(M_TRIM_THRESHOLD, 2 * REPLY_HEAP_MAX);
}

static int trace(struct tracer *t)
{
    keep_replies_in_heap();
    buffer_stdout();
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
    if (t->set->flamegraph != NULL && t->started) {
        char title[512];
        flame_title(t, title, sizeof(title));
        if (write_flamegraph(t->set, t->folds, title) < 0)
            rc = -1;
    }
    pmDestroyContext(t->ctx);
    if (t->ol.gone)
        return EXIT_GONE;
    return rc < 0 ? EXIT_RUNTIME : EXIT_OK;
}

/* -l or -F: list from the catalog instead of tracing. */
static int discover(struct tracer *t)
{
    int rc = open_context(t);

    if (rc != EXIT_OK)
        return rc;
    rc = t->set->list ? list_tracepoints(t) : list_fields(t, t->set->fields);
    pmDestroyContext(t->ctx);
    return rc;
}

int main(int argc, char **argv)
{
    struct settings set;
    struct tracer t;
    int rc = parse_args(&set, argc, argv);

    if (rc < 0 && set.from_folded != NULL) {
        rc = convert(&set);
    } else if (rc < 0) {
        if (tracer_init(&t, &set, &stop_requested) < 0) {
            errmsg("out of memory");
            rc = EXIT_RUNTIME;
        } else {
            rc = set.list || set.fields != NULL ? discover(&t) : trace(&t);
        }
        tracer_free(&t);
    }
    settings_free(&set);
    return rc;
}
