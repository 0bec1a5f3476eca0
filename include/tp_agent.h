/*
 * tp_agent: everything the PMDA owns, assembled in dependency order and torn
 * down in reverse.  The PCP glue (pmda.c) holds one of these.
 *
 * A machine without tracefs still gets an agent: it logs why, serves its
 * counters, and has no catalog, no streams and no events (degraded).
 *
 * Threading: PMDA thread, except tp_agent_emergency_teardown() (signal thread).
 */
#ifndef TP_AGENT_H
#define TP_AGENT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp_aggs.h"
#include "tp_capture.h"
#include "tp_catalog.h"
#include "tp_clients.h"
#include "tp_config.h"
#include "tp_demand.h"
#include "tp_features.h"
#include "tp_identity.h"
#include "tp_oneliners.h"
#include "tp_probeset.h"
#include "tp_records.h"
#include "tp_render.h"
#include "tp_streams.h"
#include "tp_tracefs.h"
#include "tp_util.h"


struct tp_agent {
    struct tp_config cfg;
    struct tp_catalog *cat;         /* NULL when degraded */
    struct tp_instance *inst;       /* NULL when degraded */
    struct tp_capture *cap;         /* NULL when degraded */
    struct tp_render *render;       /* event text; NULL when degraded */
    struct tp_demand *demand;
    struct tp_streams streams;
    struct tp_aggs aggs;
    struct tp_oneliners oneliners;  /* contexts' own aggregations (tp_oneliners.h) */
    struct tp_clients *clients;
    struct tp_identity *ident;      /* persisted ids: PMID clusters, items, instances */
    struct tp_probes *probes;       /* our dynamic probes in the kernel; NULL when degraded */
    struct tp_probeset probeset;    /* the probes defined (tp_probeset.h) */
    int *eid;                       /* per catalog event: its id, or -1 (none to be had) */
    int by_eid[TP_IDENTITY_MAX_EVENTS];     /* catalog event of an id, or -1 */
    struct tp_field_ids *fields;    /* per catalog event: its fields' PMIDs, once loaded */
    struct tp_param_ids param_ids;  /* what records are made of */
    int domain;
    unsigned features;              /* what the kernel's tracing offers (tp_features.h) */
    int stack_id;                   /* ftrace:kernel_stack's id where stacks can be had, or -1 */
    char features_text[128];        /* their names, tracepoint.kernel.features */
    bool ids_unsaved;               /* the last save failed (said once) */
    tp_slotmask slots_used;         /* streams', aggregations' and clients' ring slots */
    int names_slot;                 /* the slot that keeps the name events enabled, or -1 */
    bool names_unfollowed;          /* following them failed (said once) */
    size_t nsubs;                   /* (context, event) subscriptions */
    uint64_t delivered;             /* records handed to clients */
    uint64_t missed;                /* events reported in missed records */
    tp_log_fn log;
    void *log_arg;
    pthread_mutex_t teardown_lock;  /* the exit path and the signal thread */
    bool torn_down;                 /* the instance is gone */
};

/*
 * Load the config (bad lines are logged and skipped), the identity map at
 * ids_path (taking an older version's at old_ids_path, if not NULL, when
 * ids_path is new: see tp_identity_adopt), open tracefs, and enable what
 * the streams need.  Returns 0 (possibly degraded) or -ENOMEM.
 */
int tp_agent_open(struct tp_agent *a, const char *config_path, const char *ids_path,
                  const char *old_ids_path, int domain, tp_log_fn log, void *arg);
/*
 * Make a catalog event ready for records and metrics: its format parsed and
 * its fields' PMIDs known.  0 or a negative errno (its load error).
 */
int tp_agent_load_event(struct tp_agent *a, size_t event);
/* The catalog event whose fields are in a PMID's cluster (an id), or -1. */
int tp_agent_event_of_id(const struct tp_agent *a, unsigned eid);
/* The field of a loaded event with this item, or -1. */
int tp_agent_field_of_item(const struct tp_agent *a, size_t event, unsigned item);
/* Save the ids assigned since the last save (after a request).  Logs trouble once. */
void tp_agent_save_ids(struct tp_agent *a);

/*
 * Read the config again: limits, the kernel buffer, the ring's size (every
 * client keeps its place), streams added, removed or changed (unchanged ones
 * keep every client's position).  A config that cannot be used leaves the
 * one in use.  Returns 0 or a negative errno.
 */
int tp_agent_reload(struct tp_agent *a, const char *config_path);

/*
 * After what records carry or filters ask changed (a context's params or
 * filters, a context gone, a new config): have the producer follow tasks'
 * names while some stream or context wants them or text, or filters on
 * comm where the kernel cannot apply the filter alone, or an aggregation is
 * by comm (the name events enabled in a slot of their own while it does),
 * and read the kernel's symbols the first time text is wanted.  Returns 0;
 * if the name events cannot be enabled it logs why (once), and records
 * carry no names until they can.
 */
int tp_agent_names_wanted(struct tp_agent *a);
/*
 * Before a store enables the events of a slot whose records will carry
 * stacks: the symbols are read and demand knows the slot wants stacks, so
 * its subscription starts once the stacktrace trigger is in force, every
 * event of it with its stack.  tp_agent_names_wanted() settles it after.
 */
void tp_agent_stacks_first(struct tp_agent *a, unsigned slot);
/* Can this kernel give stacks (the stacktrace trigger and its kernel_stack entry)? */
bool tp_agent_has_stacks(const struct tp_agent *a);
/*
 * Before a store whose records carry names, or whose filters name comm:
 * the name events enabled and the producer following names (it waits for
 * the producer, a few ms), so that every event from the store on has its
 * task's name, and a comm filter the producer checks never lacks one.
 * Returns 0, or the error enabling the name events (logged by
 * tp_agent_names_wanted() after).  slot >= 0 also carries them.
 */
int tp_agent_names_first(struct tp_agent *a, int slot);

/*
 * Make the kernel and the producer agree with what every consumer wants;
 * streams and aggregations left without events go.
 */
void tp_agent_settle(struct tp_agent *a);

/* Start the producer thread. */
int tp_agent_start(struct tp_agent *a);
/*
 * PMDA thread, before a fetch: what the kernel recorded until now handed on
 * (unless the producer did so within the last 20 ms), so that a fetch sees
 * it however long the producer would sleep otherwise: tp_capture_catch_up.
 */
int tp_agent_catch_up(struct tp_agent *a);
/* Stop the producer, remove the instance (disabling its events), free. */
void tp_agent_close(struct tp_agent *a);
/*
 * From a signal: stop reading and remove the instance; frees nothing.  It
 * and tp_agent_close() may race: the kernel side is torn down once.
 */
void tp_agent_emergency_teardown(struct tp_agent *a);

#endif
