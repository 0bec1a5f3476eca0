/*
 * tp_oneliners: the aggregations client contexts ask for for themselves
 * (`pcp tracepoint -A`), one-liners.  A context stores a tracepoint.conf
 * aggregation directive without its NAME into tracepoint.control.agg:
 *
 *   count   EVENTS [by FIELD,...] [max_keys=N] [filter EXPRESSION]
 *   sum     EVENTS FIELD [by ...] [...]
 *   hist    EVENTS FIELD [by ...] [...]
 *   latency START END on SFIELD=EFIELD [by ...] [max_pending=N] [...]
 *   remove  ID | *                  drops one of the context's one-liners, or all
 *
 * The directive is parsed by the config's own parser (tp_config, under a
 * generated name) and built as the config's aggregations are (tp_aggs_build:
 * a ring slot whose events the producer feeds to a tp_agg, with the same
 * bounds; or the kernel's counters, tp_kcount.h, read into the tp_agg at
 * each document), counting the events recorded from the store on, for that
 * context alone.  A store is all or nothing: an unknown event, a field an
 * event lacks, a filter the kernel refuses, a probe event the context may
 * not read, more than TP_OL_MAX one-liners, or no free ring slot refuses
 * it with a PCP error and the reason in the context's last_error.
 *
 * Each one-liner has an id, 1..TP_OL_MAX, the lowest free in its context.
 * Its slot counts against TP_RING_MAX_SLOTS with streams and subscriptions.
 * It goes when its context removes it, ends, dies or goes idle (the
 * session calls tp_oneliners_release wherever it releases subscriptions).
 *
 * The document (tp_oneliners_document, each one-liner written by tp_oldoc) is a context's one-liners and their
 * values, each one-liner read in one hold of the capture lock, so that its
 * values at successive fetches differ by exactly the events counted in
 * between:
 *
 *   tracepoint-oneliners 1
 *   until NS                        every event recorded before this wall-clock
 *                                   time (ns) is counted below (the producer's
 *                                   watermark, tp_capture_handed)
 *   agg ID KIND SIGNED DROPPED OVERFLOW PENDING NKEYS DIRECTIVE
 *   key COUNT SUM NAME              NKEYS of these, in the order first seen
 *   b BUCKET COUNT                  after its key: its non-zero log2 buckets
 *
 * KIND is count, sum, hist or latency; SIGNED 1 if SUM is a signed value;
 * NAME is tp_agg's key name ("" without by fields, "other" past the bound);
 * BUCKET is tp_agg's bucket index (0: <0, 1: 0, k: [2^(k-2), 2^(k-1))).
 * Every number is decimal; values are cumulative from the store.
 *
 * It reads and changes the agent's state (its one-liners, ring slots,
 * demand) but calls no agent function: what a store needs the agent to do
 * first (a one-liner by stack: stacks and symbols; one that names comm:
 * the producer following names) comes through the hooks the agent hands
 * down when it opens (struct tp_oneliners_hooks), and after a store or a
 * release the caller runs tp_agent_names_wanted() (a one-liner by comm
 * needs names).
 *
 * Threading: PMDA thread; the tp_agg is read under the capture lock.
 */
#ifndef TP_ONELINERS_H
#define TP_ONELINERS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tp_aggs.h"
#include "tp_config.h"

#define TP_OL_MAX 8                 /* one-liners per context */
/* What a user other than root may hold: memory and ring slots are shared. */
#define TP_OL_USER_MAX          16      /* one-liners, all its contexts together */
#define TP_OL_USER_MAX_KEYS     4096    /* max_keys of each */
#define TP_OL_USER_MAX_PENDING  65536   /* max_pending of each */

struct tp_agent;
struct tp_client;

struct tp_oneliner {
    int owner;                      /* context id */
    uid_t uid;                      /* its user's */
    unsigned id;                    /* 1..TP_OL_MAX, within its context */
    char *directive;                /* as stored */
    struct tp_config cfg;           /* holds the parsed definition (ag.def) */
    struct tp_aggregation ag;
};

/* What a store asks of the agent, handed down by it (the agent calls this room). */
struct tp_oneliners_hooks {
    bool (*has_stacks)(const struct tp_agent *a);           /* can the kernel give them */
    void (*stacks_first)(struct tp_agent *a, unsigned slot);    /* before its events */
    int (*names_first)(struct tp_agent *a, int slot);       /* 0 or the error enabling them */
};

struct tp_oneliners {
    struct tp_oneliner **v;
    size_t n;
    struct tp_oneliners_hooks hooks;    /* set before the first store */
};

/*
 * A store of text (len bytes, as received) into tracepoint.control.agg for
 * client c (its permission to store already checked).  0 or a PCP error,
 * the reason in c->last_error.
 */
int tp_oneliners_store(struct tp_agent *a, struct tp_client *c, const char *text, size_t len);
/* The context is gone, or lost its subscriptions: its one-liners go. */
void tp_oneliners_release(struct tp_agent *a, int ctx);
/* How many one-liners a context has (ctx < 0: all contexts). */
size_t tp_oneliners_count(const struct tp_agent *a, int ctx);
/* Does some one-liner key events by comm (the producer must follow names)? */
bool tp_oneliners_by_comm(const struct tp_agent *a);
/* A probe's event is going: every one-liner lets go of it (demand is the caller's). */
void tp_oneliners_forget_event(struct tp_agent *a, size_t event);
/* The context's document (see above), malloc'd, into *out.  0 or -ENOMEM. */
int tp_oneliners_document(const struct tp_agent *a, int ctx, char **out);
/* Free every one-liner (at exit: the capture lock is taken to detach them). */
void tp_oneliners_free(struct tp_agent *a);

#endif
