/*
 * tp_aggs: the aggregations of tracepoint.conf (count, sum, hist, latency),
 * resolved against the machine's tracepoints.  Each owns a ring slot that
 * the producer feeds to its tp_agg instead of the ring (tp_capture_sink),
 * so it sees every matching event from the moment the kernel enables it,
 * whatever clients do.  Its events and filter go to tp_demand like a
 * stream's, and share tracepoints with streams and subscriptions.
 *
 * Each has an id in the identity map (named "@agg:NAME"): its metrics are
 * in PMID cluster TP_CLUSTER_FIELDS + id, and its instance domains' serials
 * come from the id, so both survive restarts and config edits.
 *
 * An event without a field the directive names, with a value field that is
 * not a number, or with a key field that is neither a number nor a string
 * is logged with the config line and the reason, and left out; an
 * aggregation left without events (a latency without start or end events)
 * is not served.
 *
 * Backends: a config aggregation that the kernel's own counters compute
 * exactly (tp_kcount.h: a count with no keys, by event, or by a comm its
 * filter pins) is computed by them, and else one that hist triggers compute
 * exactly (tp_kaggs.h) by those: its events are not wanted from demand, and
 * nothing reaches its slot; tp_aggs_read_kernel() sets its counters from
 * the kernel.  Where the kernel cannot (or refuses the counter or trigger:
 * logged once, with the reason) the producer computes it as above.
 * One-liners use counters or the producer, never hist triggers.  The
 * counters and triggers go when the aggregation is retired or freed.
 *
 * Threading: PMDA thread.  The tp_agg of an aggregation is read under the
 * capture lock (the producer feeds it under that lock).
 */
#ifndef TP_AGGS_H
#define TP_AGGS_H

#include <stddef.h>
#include <stdint.h>

#include "tp_agg.h"
#include "tp_aggitems.h"
#include "tp_capture.h"
#include "tp_catalog.h"
#include "tp_config.h"
#include "tp_demand.h"
#include "tp_identity.h"
#include "tp_util.h"

#define TP_AGG_ID_PREFIX "@agg:"

struct tp_aggregation {
    const struct tp_config_agg *def;    /* borrowed from the config in use */
    unsigned slot;
    unsigned id;                        /* in the identity map */
    uint64_t gen;                       /* different for every tp_agg ever built */
    struct tp_agg *agg;                 /* capture lock */
    uint32_t *events;                   /* catalog events it counts (latency: starts) */
    size_t nevents;
    uint32_t *ends;                     /* latency: the end events */
    size_t nends;
    bool by_comm;                       /* keyed by the pids' names: the producer resolves them */
    bool by_stack;                      /* keyed by kernel stacks: its slot wants them */
    struct tp_kagg *kernel;             /* computed by hist triggers (tp_kaggs.h) */
    struct tp_kcount *counter;          /* or by counters (tp_kcount.h); both NULL: by the
                                           producer, from its slot */
    bool read_failed;                   /* the last read of the kernel's (logged once) */
    uint64_t read_ns;                   /* when it was last read (monotonic ns) */
};

struct tp_aggs {
    struct tp_aggregation *v;           /* in service */
    size_t n;
    struct tp_aggregation *retired;     /* replaced or removed, until tp_aggs_settle() */
    size_t nretired;
    uint64_t generation;                /* of the last one built */
    struct tp_instance *inst;           /* where hist triggers go (NULL: none do) */
    unsigned features;                  /* the kernel's (tp_features.h): set by the agent */
};

/*
 * Which items an aggregation has (bit i: item i): count, dropped and backend always;
 * sum but for count; hist for hist and latency; overflow with by fields;
 * pending for latency.
 */
unsigned tp_aggs_items(const struct tp_config_agg *def);

/* What resolving needs. */
struct tp_aggs_env {
    struct tp_catalog *cat;
    struct tp_demand *demand;
    struct tp_capture *cap;
    struct tp_identity *ident;
    tp_log_fn log;
    void *arg;
    bool stacks;                        /* the kernel gives stacks: `by stack` can be served */
};

/*
 * Bring the aggregations in line with cfg: one whose definition is
 * unchanged keeps its counters; a changed one starts again from zero (same
 * id); a removed one lets its slot go; a new or changed one counts only the
 * events recorded from then on (not those still in the kernel's buffer); a new one takes a slot free in
 * *used (updated) and not in draining (slots whose old routes last until
 * the next apply).  Wants go to demand; the caller then runs
 * tp_demand_apply(), tp_aggs_retire_unservable() (and apply again if it
 * retired any) and tp_aggs_settle().  Returns 0 or -ENOMEM (then every
 * aggregation is out of service, and its slot back in *used).
 */
int tp_aggs_update(struct tp_aggs *s, const struct tp_config *cfg,
                   const struct tp_aggs_env *env, tp_slotmask *used, tp_slotmask draining);
/*
 * After tp_demand_apply(): take out of service (logged) the aggregations the
 * kernel left without events, or a latency without its start or end events;
 * their wants go.  Returns how many: if any, apply again before settling.
 */
size_t tp_aggs_retire_unservable(struct tp_aggs *s, const struct tp_aggs_env *env);
/*
 * After the last tp_demand_apply(): detach and free the aggregations taken
 * out of service (no route leads to them any more).  Returns their slots.
 */
tp_slotmask tp_aggs_settle(struct tp_aggs *s, const struct tp_aggs_env *env);
/*
 * One aggregation outside the config (a context's one-liner, tp_oneliners):
 * def built on slot as the config's are, counting the events recorded from
 * now on: by counters where they can (tp_kcount.h; where they cannot open,
 * silently by the producer), never by hist triggers (a context's trigger
 * could be another's).  Returns 1 (counters or the producer count it), 0
 * (no usable event, or a latency without end events: logged through env,
 * nothing held) or -ENOMEM.
 * The caller applies demand.  tp_aggs_unbuild() lets its wants go, applies
 * demand, detaches and frees it (the slot is the caller's again); it
 * accepts an aggregation never built.
 */
int tp_aggs_build(const struct tp_aggs_env *env, const struct tp_config_agg *def, unsigned slot,
                  struct tp_aggregation *ag);
void tp_aggs_unbuild(const struct tp_aggs_env *env, struct tp_aggregation *ag);
/* The kernel refused one of an aggregation's events (demand's error callback). */
void tp_aggs_drop_event(struct tp_aggs *s, unsigned slot, uint32_t event);

/*
 * Set the counters of the kernel's aggregations from their counters (every
 * time) or hist files (each at most every 20 ms, so a busy stream's fetches
 * pay little for them), before a fetch.
 */
void tp_aggs_read_kernel(struct tp_aggs *s, const struct tp_aggs_env *env);
/*
 * An aggregation's counters into its tp_agg now (the capture lock taken for
 * that): 0 (or none to read), or tp_kcount_read's error, and then it keeps
 * what it had.
 */
int tp_aggs_read_counters(struct tp_aggregation *ag, struct tp_capture *cap);
/* "counter", "kernel" or "producer": what computes an aggregation. */
const char *tp_aggs_backend(const struct tp_aggregation *ag);

/* The aggregation on a slot, or with an id; NULL if none. */
struct tp_aggregation *tp_aggs_by_slot(const struct tp_aggs *s, unsigned slot);
struct tp_aggregation *tp_aggs_by_id(const struct tp_aggs *s, unsigned id);

/* Detach (capture lock taken) and free everything; accepts NULL and an empty set. */
void tp_aggs_free(struct tp_aggs *s, struct tp_capture *cap);

#endif
