/*
 * tp_pmda: the state of the PCP glue, shared by pmda.c (metric table,
 * dispatch, main loop), fetch.c (values), session.c (client contexts:
 * credentials, stores, end of context, housekeeping) and reload.c (the
 * reload store).  fetch.c asks session.c for a context's client and logs
 * through it; session.c calls nothing of fetch.c: the main loop's sweep
 * (pmda.c) calls each.  session.c hands reload.c the storing client, and
 * reload.c reads the config through pmda.c's s->reload: no file here
 * calls back into one that calls it.
 *
 * Threading: PMDA (main) thread only; these are the files that call
 * libpcp_pmda.
 */
#ifndef TP_PMDA_H
#define TP_PMDA_H

#include <stddef.h>
#include <stdint.h>

#include <pcp/pmapi.h>
#include <pcp/pmda.h>

#include "tp_agent.h"
#include "tp_instids.h"
#include "tp_names.h"
#include "tp_pcp_pmda_compat.h"

#define STREAM_INDOM 0
#define EVENTS_INDOM 1
#define AGG_INDOM_BASE 16               /* + 2 x an aggregation's id: its keys; + 1: its buckets */
#define MIN_ARRAY_BYTES (256u << 10)    /* an array may always grow this far */
#define TEXT_VALUE_MAX  (64 * 1024)     /* control.status and friends */
#define SCAN_BUDGET     1024            /* ring entries examined per hold of the capture lock */
#define FETCH_TIME_NS   (250 * 1000 * 1000ull)  /* one fetch fills for at most this long */
#define ARRAY_IDLE_NS   (2 * 1000 * 1000 * 1000ull) /* an array unused this long is trimmed */

/* Items of cluster 0. */
enum metric_item {
    M_STREAM_RECORDS = 1, M_COUNT, M_CAPTURED, M_DELIVERED, M_MISSED, M_LOST,
    M_CLIENTS, M_SUBSCRIPTIONS, M_RING_BYTES, M_RING_CAPACITY, M_MEMORY,
    M_RECORDS, M_CTL_REGISTER, M_CTL_FILTER, M_CTL_UNREGISTER, M_CTL_STATUS,
    M_LOCK_WAIT_MAX, M_WAKEUPS, M_PENDING, M_STREAM_PENDING, M_FETCH_BYTES, M_FETCH_LIMIT,
    M_RING_SECONDS, M_CTL_PARAMS, M_CTL_PROBE, M_LATE, M_FEATURES, M_CTL_AGG,
    M_STACK_MISSING, M_STACK_ORPHANS, M_CTL_RELOAD,
};

/* The event array of one (metric, instance), and the fetch that last filled it. */
struct tp_array {
    struct tp_enc enc;
    uint64_t serial;                /* fetch_serial when filled */
    uint64_t filled_ns;             /* when */
    int rc;                         /* what that fill returned to pmdaFetch */
};

/* A context's positions before the fetch in progress moved them. */
struct tp_fetch_undo {
    uint64_t serial;                /* fetch_serial of the snapshot; 0: none */
    int ctx;
    tp_slotmask started;
    struct tp_cursor cursor[TP_RING_MAX_SLOTS];
    uint64_t owed_records;
    uint64_t delivered, missed;
};

struct pmda_state {
    struct tp_agent agent;
    struct tp_names names;
    pmdaInterface *dispatch;
    pmdaMetric *metrics;            /* static part, then loaded events' fields */
    size_t nmetrics, cap_metrics;
    unsigned char *registered;      /* per catalog event: fields in the table */
    int bulk;                       /* defer rehashing while loading many */
    int rehash;
    pmdaIndom indoms[2];
    struct tp_array *arrays;        /* one per stream */
    size_t nstreams;                /* of arrays */
    struct tp_array records_array;  /* tracepoint.records' */
    struct agg_view *aggviews;      /* aggview.c: the aggregations' instances */
    size_t naggviews;
    struct tp_instids *instids;     /* their ids, kept across restarts */
    const char *legacy_dir;         /* where an older version kept them ($PCP_VAR_DIR/config/pmda) */
    const char *config_path;
    int hup_fd[2];                  /* the signal thread says SIGHUP came: reload */
    uint64_t reloads;               /* config reloads done (SIGHUP or a store) */
    /* pmda.c's: read the config again (why: SIGHUP, or a store); tp_agent_reload's result */
    int (*reload)(struct pmda_state *s, const char *why);
    uint64_t fetch_serial;          /* counts fetch requests */
    unsigned fetch_wants;           /* 1 << item of the event metrics this request names */
    struct tp_fetch_undo undo;
    int ctx;                        /* context of the request in progress */
    unsigned long events_gen;       /* demand generation the events indom reflects */
    uint64_t last_sweep_ns;
    uint64_t rate_bytes, rate_ns;   /* the ring's bytes appended, and when, at the last sweep */
    double ring_rate;               /* bytes a second appended to the ring, lately */
    uint64_t seen_bad_pages;        /* producer trouble already logged */
    int seen_read_errno;
    bool tracefs_gone;              /* the instance's directory is out of reach */
    unsigned log_budget;            /* client-error messages left this second */
    unsigned log_suppressed;
    uint64_t log_second;
    char text[4096];                /* help text */
    char value[TEXT_VALUE_MAX];     /* string values of one fetch */
};

/* fetch.c */
int tp_fetch_value(pmdaMetric *mdesc, unsigned int inst, pmAtomValue *atom);
/*
 * pmdaFetch failed: put back the positions this fetch moved (its reply is
 * not sent).  True if there were any.
 */
bool tp_fetch_undo(struct pmda_state *s);
/* The sweep: give back the memory of arrays no fetch used lately; the ring's rate. */
void tp_fetch_sweep(struct pmda_state *s, uint64_t now);

/* aggview.c: tracepoint.agg.* */
/* Instances for the keys and buckets seen since the last call (before fetch and instance). */
void tp_aggview_refresh(struct pmda_state *s);
void tp_aggview_free(struct pmda_state *s);
/* The aggregation a PMID is a metric of, or NULL. */
const struct tp_aggregation *tp_aggview_of(const struct pmda_state *s, pmID pmid);
/* The descriptor of one of an aggregation's metrics: 0 or PM_ERR_PMID. */
int tp_aggview_desc(const struct pmda_state *s, const struct tp_aggregation *ag, unsigned item,
                    pmDesc *desc);
/* pmdaFetch's callback for an aggregation's metric. */
int tp_aggview_value(struct pmda_state *s, pmdaMetric *mdesc, unsigned inst, pmAtomValue *atom);
/* Help text from the directive: 0 or PM_ERR_PMID. */
int tp_aggview_text(const struct pmda_state *s, pmID pmid, int type, char *buf, size_t len);

/*
 * reload.c: tracepoint.control.reload (root only).  A store of one value
 * (any) reads the config again in this PMDA, exactly as SIGHUP does, once
 * the config parses in full; a config that does not, or cannot be read,
 * gets PM_ERR_BADSTORE with the reason in tracepoint.control.status, and
 * the config in use stays.  Its value is how many reloads were done.
 * The store is client c's (session.c found it, and logs a refusal); the
 * reading is pmda.c's, through s->reload.
 */
bool tp_reload_is_store(const tp_result *result);
int tp_reload_store(struct pmda_state *s, struct tp_client *c, const tp_result *result);

/* session.c */
struct tp_client *tp_session_client(struct pmda_state *s, int ctx);
int tp_session_attribute(struct pmda_state *s, int ctx, int attr, const char *value);
void tp_session_end(struct pmda_state *s, int ctx);
int tp_session_store(struct pmda_state *s, tp_result *result, int ctx);
/* The sweep (now: tp_mono_now()): contexts gone silent or dead, the reader's health, tracefs. */
void tp_session_sweep(struct pmda_state *s, uint64_t now);
void tp_session_log(struct pmda_state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* At exit: say how many client error lines the last second left out. */
void tp_session_log_flush(struct pmda_state *s);

#endif
