/*
 * Assembling and tearing down the agent.  See tp_agent.h.
 */
#include "tp_agent.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define logf_(a, ...) tp_logf((a)->log, (a)->log_arg, __VA_ARGS__)

static void log_config_line(void *arg, int line, const char *reason)
{
    struct tp_agent *a = arg;
    logf_(a, "config line %d ignored: %s", line, reason);
}

static void log_msg(void *arg, const char *msg)
{
    struct tp_agent *a = arg;
    a->log(a->log_arg, msg);
}

static void on_apply_error(void *arg, size_t event, unsigned slot, int err)
{
    struct tp_agent *a = arg;
    const struct tp_event *e = tp_catalog_event(a->cat, event);
    const char *stream = slot < a->streams.n ? a->streams.v[slot].name : "?";
    char why[256] = "";
    if (err == -EINVAL)
        tp_instance_filter_error(a->inst, e, why, sizeof(why));
    logf_(a, "stream %s: kernel refused event %s: %s%s%s", stream, e->fullname,
          strerror(-err), *why ? ": " : "", why);
    tp_streams_drop_event(&a->streams, slot, (uint32_t)event);
    tp_demand_unwant(a->demand, slot, event);
}

/*
 * The config says who may store and who may read each stream, so a PMDA
 * running as root uses it only if nobody but root can change it.  Returns
 * why not, or NULL.
 */
static const char *config_untrusted(const char *path)
{
    struct stat st;
    if (geteuid() != 0 || stat(path, &st) < 0)
        return NULL;                /* not root, or unreadable (said below) */
    if (st.st_uid != 0)
        return "it is not owned by root";
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return "group or others may write it";
    return NULL;
}

static void load_config(struct tp_agent *a, const char *path)
{
    tp_config_init(&a->cfg);
    const char *why = config_untrusted(path);
    if (why) {
        logf_(a, "config %s not used: %s; using defaults, no streams", path, why);
        return;
    }
    int rc = tp_config_load(&a->cfg, path, log_config_line, a);
    if (rc < 0)
        logf_(a, "cannot read config %s: %s; using defaults, no streams", path,
              strerror(-rc));
    else if (rc > 0)
        logf_(a, "config %s: %d line(s) ignored, the rest is in use", path, rc);
}

/* tracefs, catalog, capture, demand, streams: all or nothing (degraded). */
static int open_tracing(struct tp_agent *a)
{
    int rc = tp_instance_open(&a->inst, a->cfg.kernel_buffer_kb, log_msg, a);
    if (rc < 0)
        return rc;
    rc = tp_catalog_create(&a->cat, tp_instance_tracing_dir(a->inst));
    if (rc == 0)
        rc = tp_capture_create(&a->cap, a->inst, a->cfg.ring_size, tp_catalog_count(a->cat));
    if (rc == 0)
        rc = tp_demand_create(&a->demand, a->cat, a->inst, a->cap);
    if (rc == 0 && (rc = tp_streams_build(&a->streams, &a->cfg, a->cat, a->demand,
                                          log_msg, a)) > 0)
        rc = 0;
    if (rc == 0) {
        tp_capture_lock(a->cap);
        for (size_t i = 0; i < a->streams.n; i++) {
            tp_ring_slot_reset(tp_capture_ring(a->cap), a->streams.v[i].slot);
            a->slots_used |= (tp_slotmask)1 << a->streams.v[i].slot;
        }
        tp_capture_unlock(a->cap);
        tp_demand_apply(a->demand, on_apply_error, a);
        tp_streams_prune(&a->streams, log_msg, a);
    }
    return rc;
}

/*
 * The kernel side first and fast (pmcd gives an exiting agent little time):
 * stop reading, close the instance's files, remove the instance (which
 * disables its events).  Exactly once, whichever thread gets here first.
 */
static void teardown_kernel_side(struct tp_agent *a)
{
    pthread_mutex_lock(&a->teardown_lock);
    if (!a->torn_down) {
        if (a->cap)
            tp_capture_release_files(a->cap);
        tp_instance_teardown(a->inst);
        a->torn_down = true;
    }
    pthread_mutex_unlock(&a->teardown_lock);
}

static void close_tracing(struct tp_agent *a)
{
    teardown_kernel_side(a);
    tp_demand_destroy(a->demand);
    tp_capture_destroy(a->cap);
    tp_streams_free(&a->streams);
    tp_catalog_destroy(a->cat);
    tp_instance_close(a->inst);         /* removes the instance */
    a->demand = NULL;
    a->cap = NULL;
    a->cat = NULL;
    a->inst = NULL;
}

int tp_agent_open(struct tp_agent *a, const char *config_path, int domain,
                  tp_log_fn log, void *arg)
{
    memset(a, 0, sizeof(*a));
    pthread_mutex_init(&a->teardown_lock, NULL);
    a->log = log;
    a->log_arg = arg;
    load_config(a, config_path);
    int rc = tp_clients_create(&a->clients);
    if (rc == 0)
        rc = tp_records_create(&a->records, domain);
    if (rc < 0)
        return rc;
    rc = open_tracing(a);
    if (rc < 0) {
        logf_(a, "kernel tracing unavailable (%s): serving counters only, no events",
              rc == -ENODEV ? "tracefs is not mounted and cannot be mounted"
              : rc == -EACCES || rc == -EPERM ? "no permission: the PMDA must run as root (-U root)"
              : strerror(-rc));
        close_tracing(a);
    } else {
        logf_(a, "instance %s: %zu tracepoints, %zu stream(s), %zu event(s) enabled, "
              "ring %zu bytes", tp_instance_name(a->inst), tp_catalog_count(a->cat),
              a->streams.n, tp_demand_count(a->demand), a->cfg.ring_size);
    }
    return 0;
}

int tp_agent_start(struct tp_agent *a)
{
    return a->cap ? tp_capture_start(a->cap) : 0;
}

void tp_agent_close(struct tp_agent *a)
{
    close_tracing(a);
    tp_records_destroy(a->records);
    tp_clients_destroy(a->clients);
    tp_config_free(&a->cfg);
    a->records = NULL;
    a->clients = NULL;
}

void tp_agent_emergency_teardown(struct tp_agent *a)
{
    teardown_kernel_side(a);
}

int64_t tp_agent_real_offset(void)
{
    struct timespec r;
    uint64_t m1 = tp_mono_now();
    clock_gettime(CLOCK_REALTIME, &r);
    uint64_t m2 = tp_mono_now();
    uint64_t real = (uint64_t)r.tv_sec * 1000000000u + (uint64_t)r.tv_nsec;
    return (int64_t)(real - (m1 + (m2 - m1) / 2));
}
