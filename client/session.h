/*
 * session: one run of the tracer against one source -- the PMCD context
 * (local or remote pmcd, or an archive), the subscription stored into
 * tracepoint.records (and withdrawn at the end), and the list of metrics
 * each fetch asks for.  struct tracer is the whole state of a run; every
 * room that needs part of it is handed it explicitly.
 *
 * Called by main (tracer_init, open_context, setup_live/setup_archive,
 * subscribe, unsubscribe, tracer_free) and by the fetch loop (the tracer's
 * fields).  Single-threaded; the only shared state is the stop flag that
 * main's signal handler sets, reached through tracer.stop.
 */
#ifndef CLIENT_SESSION_H
#define CLIENT_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <pcp/pmapi.h>

#include "oneliner.h"
#include "fold.h"
#include "metric.h"
#include "options.h"
#include "output.h"
#include "params.h"
#include "tally.h"
#include "unpack.h"

#define RECORDS_METRIC      "tracepoint.records"
#define STREAM_METRIC       "tracepoint.stream.records"
#define PARAMS_METRIC       "tracepoint.control.params"
#define PROBE_METRIC        "tracepoint.control.probe"
#define UNREGISTER_METRIC   "tracepoint.control.unregister"
#define PENDING_METRIC      "tracepoint.pending"
#define STREAM_PENDING_METRIC "tracepoint.stream.pending"
#define STACK_PARAM_METRIC  "tracepoint.param.stack"

struct tracer {
    struct settings *set;
    const volatile sig_atomic_t *stop;  /* set by SIGINT/SIGTERM */
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
    char probe_specs[PROBE_MAX_SPECS][1100];        /* -u specs, paths made absolute */
    char probe_names[PROBE_MAX_SPECS][PROBE_NAME_MAX + 1];
    bool window;                /* archive: keep only events in -S .. -T */
    uint64_t start_ns, finish_ns;
    uint64_t last_stamp_ns;     /* timestamp of the last archive result */
    bool output_closed;         /* stdout went away (EPIPE) */
    bool started;               /* set up: the summary has something to say */
    struct params params;
    struct tally tally;
    struct printer printer;
    struct ol_live ol;          /* -A one-liners */
    struct folds *folds;        /* --folded, --flamegraph: counts per stack, else NULL */
    struct unpacker unpack;     /* PM_TYPE_EVENT arrays viewed in place */
    bool unpack_ready;          /* unpack knows event.flags and event.missed */
    int time_at;                /* where the last record had its time_ns (record_key) */
    pmID time_pmid;             /* and its pmID, PM_ID_NULL before any */
};

/*
 * A tracer for the source the settings name (no context yet).  0, or
 * -ENOMEM (the folded counts); tracer_free is due either way.
 */
int tracer_init(struct tracer *t, struct settings *set,
                const volatile sig_atomic_t *stop);
void tracer_free(struct tracer *t);

/* Open the context: EXIT_OK, or the exit status after a message. */
int open_context(struct tracer *t);
/* What to fetch, live or from the archive: 0, or -1 after a message. */
int setup_live(struct tracer *t);
int setup_archive(struct tracer *t);
/* The one store that subscribes with the patterns and the filter. */
int subscribe(struct tracer *t);
/* Withdraw the subscription, if subscribe() made one. */
void unsubscribe(struct tracer *t);

#endif
