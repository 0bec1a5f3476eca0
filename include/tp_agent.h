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

#include "tp_capture.h"
#include "tp_catalog.h"
#include "tp_clients.h"
#include "tp_config.h"
#include "tp_demand.h"
#include "tp_records.h"
#include "tp_streams.h"
#include "tp_tracefs.h"
#include "tp_util.h"


struct tp_agent {
    struct tp_config cfg;
    struct tp_catalog *cat;         /* NULL when degraded */
    struct tp_instance *inst;       /* NULL when degraded */
    struct tp_capture *cap;         /* NULL when degraded */
    struct tp_demand *demand;
    struct tp_streams streams;
    struct tp_clients *clients;
    struct tp_records *records;
    tp_slotmask slots_used;         /* streams' and clients' ring slots */
    size_t nsubs;                   /* (context, event) subscriptions */
    uint64_t delivered;             /* records handed to clients */
    uint64_t missed;                /* events reported in missed records */
    tp_log_fn log;
    void *log_arg;
    pthread_mutex_t teardown_lock;  /* the exit path and the signal thread */
    bool torn_down;                 /* the instance is gone */
};

/*
 * Load the config (bad lines are logged and skipped), open tracefs, and
 * enable what the streams need.  Returns 0 (possibly degraded) or -ENOMEM.
 */
int tp_agent_open(struct tp_agent *a, const char *config_path, int domain,
                  tp_log_fn log, void *arg);
/* Start the producer thread. */
int tp_agent_start(struct tp_agent *a);
/* Stop the producer, remove the instance (disabling its events), free. */
void tp_agent_close(struct tp_agent *a);
/*
 * From a signal: stop reading and remove the instance; frees nothing.  It
 * and tp_agent_close() may race: the kernel side is torn down once.
 */
void tp_agent_emergency_teardown(struct tp_agent *a);

/* CLOCK_REALTIME - CLOCK_MONOTONIC now, in ns. */
int64_t tp_agent_real_offset(void);

#endif
