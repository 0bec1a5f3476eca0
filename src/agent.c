/*
 * Assembling and tearing down the agent.  See tp_agent.h.
 */
#include "tp_agent.h"
#include "tp_fault.h"
#include "tp_pace.h"
#include "tp_probes.h"
#include "tp_probeset.h"

#include <errno.h>
#include <stdlib.h>
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
    const struct tp_aggregation *ag = tp_aggs_by_slot(&a->aggs, slot);
    char why[256] = "", who[TP_CONFIG_MAX_NAME + 16] = "stream ?";
    if (ag)
        snprintf(who, sizeof(who), "aggregation %s", ag->def->name);
    for (size_t i = 0; !ag && i < a->streams.n; i++)
        if (a->streams.v[i].slot == slot)
            snprintf(who, sizeof(who), "stream %s", a->streams.v[i].name);
    if (err == -EINVAL)
        tp_instance_filter_error(a->inst, e, why, sizeof(why));
    logf_(a, "%s: kernel refused event %s: %s%s%s", who, e->fullname,
          strerror(-err), *why ? ": " : "", why);
    if (ag)
        tp_aggs_drop_event(&a->aggs, slot, (uint32_t)event);
    else
        tp_streams_drop_event(&a->streams, slot, (uint32_t)event);
    tp_demand_unwant(a->demand, slot, event);
}

static struct tp_aggs_env aggs_env(struct tp_agent *a)
{
    return (struct tp_aggs_env){ a->cat, a->demand, a->cap, a->ident, log_msg, a,
                                 tp_agent_has_stacks(a) };
}

/*
 * Make the kernel and the routes agree with what streams and aggregations
 * want; streams and aggregations the kernel left without events go, and
 * their slots are free again.
 */
static void prepare_symbols(struct tp_agent *a);

/*
 * Before the config's events are enabled: demand knows which of its slots
 * (aggregations by stack, streams with params=...,stack) want stacks, so
 * they count from when their trigger is in force, every event with its
 * stack, and none is dropped for coming before it.
 */
static void config_stacks_first(struct tp_agent *a)
{
    tp_slotmask slots = 0;
    for (size_t i = 0; i < a->aggs.n; i++)
        if (a->aggs.v[i].by_stack)
            slots |= (tp_slotmask)1 << a->aggs.v[i].slot;
    for (size_t i = 0; i < a->streams.n; i++)
        if (a->streams.v[i].with & TP_WITH_STACK)
            slots |= (tp_slotmask)1 << a->streams.v[i].slot;
    if (!slots || !tp_agent_has_stacks(a))
        return;
    prepare_symbols(a);
    const struct tp_ksyms *k = tp_render_symbols(a->render);
    tp_capture_lock(a->cap);
    for (size_t i = 0; i < a->aggs.n; i++)
        if (a->aggs.v[i].by_stack)
            tp_agg_symbols(a->aggs.v[i].agg, k);
    tp_capture_unlock(a->cap);
    tp_demand_stacks(a->demand, tp_demand_stack_slots(a->demand) | slots);
}

static void apply_and_settle(struct tp_agent *a, const struct tp_aggs_env *env)
{
    config_stacks_first(a);
    tp_demand_apply(a->demand, on_apply_error, a);
    a->slots_used &= ~tp_streams_prune(&a->streams, log_msg, a);
    if (tp_aggs_retire_unservable(&a->aggs, env) > 0)
        tp_demand_apply(a->demand, on_apply_error, a);
    a->slots_used &= ~tp_aggs_settle(&a->aggs, env);
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

/*
 * Read the config at path into cfg (initialised).  0, or < 0 if it cannot be
 * used, said with what happens instead (fallback).
 */
static int read_config(struct tp_agent *a, struct tp_config *cfg, const char *path,
                       const char *fallback)
{
    const char *why = config_untrusted(path);
    if (why) {
        logf_(a, "config %s not used: %s; %s", path, why, fallback);
        return -EPERM;
    }
    int rc = tp_config_load(cfg, path, log_config_line, a);
    if (rc < 0)
        logf_(a, "cannot read config %s: %s; %s", path, strerror(-rc), fallback);
    else if (rc > 0)
        logf_(a, "config %s: %d line(s) ignored, the rest is in use", path, rc);
    return rc < 0 ? rc : 0;
}

static void load_config(struct tp_agent *a, const char *path)
{
    tp_config_init(&a->cfg);
    if (read_config(a, &a->cfg, path, "using defaults, no streams") < 0) {
        tp_config_free(&a->cfg);
        tp_config_init(&a->cfg);
    }
}

static int load_event(void *arg, size_t event)
{
    return tp_agent_load_event(arg, event);
}

/* The items of an event's fields, from the identity map. */
static int field_pmids(struct tp_agent *a, const struct tp_event *e, unsigned eid, pmID *ids)
{
    for (unsigned i = 0; i < e->nfields; i++) {
        int item = tp_identity_item(a->ident, eid, e->fields[i].name, e->fields[i].pmtype);
        if (item < 0)
            return item;
        ids[i] = pmID_build((unsigned)a->domain, TP_CLUSTER_FIELDS + eid, (unsigned)item);
    }
    return 0;
}

int tp_agent_load_event(struct tp_agent *a, size_t event)
{
    int rc = tp_catalog_load(a->cat, event);
    struct tp_field_ids *f = &a->fields[event];
    if (rc < 0 || f->pmid)
        return rc;
    if (a->eid[event] < 0)
        return -ENOSPC;             /* no id left for it (logged at start) */
    const struct tp_event *e = tp_catalog_event(a->cat, event);
    pmID *ids = calloc(e->nfields ? e->nfields : 1, sizeof(*ids));
    if (!ids)
        return -ENOMEM;
    if ((rc = field_pmids(a, e, (unsigned)a->eid[event], ids)) < 0) {
        free(ids);
        logf_(a, "%s: no PMID for its fields: %s", e->fullname, strerror(-rc));
        return rc;
    }
    f->pmid = ids;
    f->nfields = e->nfields;
    return 0;
}

int tp_agent_event_of_id(const struct tp_agent *a, unsigned eid)
{
    return eid < TP_IDENTITY_MAX_EVENTS ? a->by_eid[eid] : -1;
}

int tp_agent_field_of_item(const struct tp_agent *a, size_t event, unsigned item)
{
    const struct tp_field_ids *f = &a->fields[event];
    for (unsigned i = 0; i < f->nfields; i++)
        if (pmID_item(f->pmid[i]) == item)
            return (int)i;
    return -1;
}

void tp_agent_save_ids(struct tp_agent *a)
{
    int rc = a->ident ? tp_identity_save(a->ident) : 0;
    if (rc < 0 && !a->ids_unsaved)
        logf_(a, "cannot save the identity map: %s; PMIDs of newly seen fields may "
              "change at the next start", strerror(-rc));
    a->ids_unsaved = rc < 0;
}

/*
 * Every tracepoint of the catalog gets its id now, in one pass under the
 * map's lock, so PMDAs sharing the map agree.
 */
static int assign_ids(struct tp_agent *a)
{
    size_t n = tp_catalog_count(a->cat), full = 0;
    if (!(a->eid = malloc((n ? n : 1) * sizeof(*a->eid))))
        return -ENOMEM;
    int rc = tp_identity_begin(a->ident);
    if (rc < 0)
        logf_(a, "cannot lock the identity map: %s", strerror(-rc));
    for (size_t i = 0; i < n; i++) {
        if (tp_catalog_event(a->cat, i)->vacant) {
            a->eid[i] = -1;             /* a probe slot: its id comes with its probe */
            continue;
        }
        int eid = tp_identity_event(a->ident, tp_catalog_event(a->cat, i)->fullname);
        if (eid == -ENOMEM)
            return eid;
        a->eid[i] = eid;
        if (eid >= 0)
            a->by_eid[eid] = (int)i;
        else
            full++;
    }
    if ((rc = tp_identity_end(a->ident)) < 0)
        logf_(a, "cannot save the identity map: %s; PMIDs of new tracepoints may change "
              "at the next start", strerror(-rc));
    if (full)
        logf_(a, "%zu tracepoint(s) without a PMID cluster: all %d are taken", full,
              TP_IDENTITY_MAX_EVENTS);
    return 0;
}

/* The field PMIDs records use: those of events made ready (all wanted ones are). */
static const struct tp_field_ids *fields_of(void *arg, uint32_t event)
{
    struct tp_agent *a = arg;
    return a->fields[event].pmid ? &a->fields[event] : NULL;
}

static void free_fields(struct tp_agent *a)
{
    for (size_t i = 0; a->fields && a->cat && i < tp_catalog_count(a->cat); i++)
        free((void *)a->fields[i].pmid);
    free(a->fields);
    a->fields = NULL;
}

/* The kernel id of system:event, or -1 if the machine has no such event. */
static int kernel_id_of(struct tp_catalog *cat, const char *system, const char *event)
{
    int i = tp_catalog_find(cat, system, event);
    return i >= 0 && tp_catalog_load(cat, (size_t)i) == 0
        ? tp_catalog_event(cat, (size_t)i)->kernel_id : -1;
}

/* A loaded event's own field, or NULL. */
static const struct tp_field *field_of(const struct tp_event *e, const char *name)
{
    for (unsigned i = 0; e && i < e->nfields; i++)
        if (strcmp(e->fields[i].name, name) == 0)
            return &e->fields[i];
    return NULL;
}

/* One event that names tasks: its kernel id, two of its fields; -1 if the kernel lacks them. */
static int name_event(struct tp_agent *a, const char *system, const char *event,
                      const char *f1, const struct tp_field **o1,
                      const char *f2, const struct tp_field **o2)
{
    int id = kernel_id_of(a->cat, system, event);
    int i = tp_catalog_find(a->cat, system, event);
    const struct tp_event *e = id >= 0 ? tp_catalog_event(a->cat, (size_t)i) : NULL;
    *o1 = field_of(e, f1);
    if (o2)
        *o2 = field_of(e, f2);
    return *o1 && (!o2 || *o2) ? id : -1;
}

static void find_name_events(struct tp_agent *a)
{
    struct tp_name_events names, *ne = &names;
    ne->fork_id = name_event(a, "sched", "sched_process_fork", "child_pid", &ne->fork_pid,
                             "child_comm", &ne->fork_comm);
    ne->rename_id = name_event(a, "task", "task_rename", "pid", &ne->rename_pid,
                               "newcomm", &ne->rename_comm);
    ne->free_id = name_event(a, "sched", "sched_process_free", "pid", &ne->free_pid, NULL, NULL);
    tp_capture_name_events(a->cap, ne);
}

/* The names slot gives its events back and is free again. */
static void release_names_slot(struct tp_agent *a)
{
    tp_capture_names_live(a->cap, false);
    tp_demand_release(a->demand, (unsigned)a->names_slot);
    tp_demand_apply(a->demand, NULL, NULL);
    tp_capture_lock(a->cap);
    tp_capture_discard(a->cap, (unsigned)a->names_slot, false);
    tp_capture_unlock(a->cap);
    a->slots_used &= ~((tp_slotmask)1 << a->names_slot);
    a->names_slot = -1;
}

/*
 * Keep the name events enabled (in a slot of their own) while names are
 * followed.  0, or the error enabling them (then none is, and the slot is
 * free again).
 */
static int follow_names(struct tp_agent *a, bool follow)
{
    static const char *const events[][2] = {
        { "sched", "sched_process_fork" }, { "task", "task_rename" },
        { "sched", "sched_process_free" },
    };
    if (follow == (a->names_slot >= 0))
        return 0;
    if (!follow) {
        release_names_slot(a);
        return 0;
    }
    int slot = tp_ring_free_slot(a->slots_used);
    if (slot < 0)
        return -EBUSY;
    a->slots_used |= (tp_slotmask)1 << slot;
    a->names_slot = slot;
    tp_capture_lock(a->cap);
    tp_capture_discard(a->cap, slot, true);
    tp_capture_unlock(a->cap);
    int rc = 0;
    char err[256];
    for (size_t i = 0; rc == 0 && i < sizeof(events) / sizeof(events[0]); i++) {
        int ev = tp_catalog_find(a->cat, events[i][0], events[i][1]);
        rc = ev < 0 ? -ENOENT : tp_demand_want(a->demand, slot, (size_t)ev, NULL, 0,
                                                err, sizeof(err));
    }
    if (rc == 0)
        rc = tp_demand_apply(a->demand, NULL, NULL);
    if (rc < 0)
        release_names_slot(a);
    else
        tp_capture_names_live(a->cap, true);
    return rc;
}

/* The config's probes that are not defined yet; those the kernel refuses are logged. */
static void define_config_probes(struct tp_agent *a, const struct tp_config *cfg)
{
    for (size_t i = 0; i < cfg->nprobes; i++) {
        const struct tp_config_probe *p = &cfg->probes[i];
        char why[256];
        const struct tp_probedef *d = tp_probeset_find(a, p->name);
        if (d && d->owner != TP_PROBE_OWNER_CONFIG)
            logf_(a, "config line %d: probe %s not made: a client has defined that name",
                  p->line, p->name);
        if (d)
            continue;
        int rc = tp_probeset_define(a, TP_PROBE_OWNER_CONFIG, p->name,
                                    p->kprobe ? TP_PROBE_KPROBE : TP_PROBE_UPROBE, p->spec, 0,
                                    why, sizeof(why));
        if (rc < 0)
            logf_(a, "config line %d: probe %s not made: %s", p->line, p->name, why);
    }
}

/*
 * The config's probes that a new config no longer has go.  One it has
 * changed stays as it was (the streams and aggregations using it keep
 * their events): the new definition is made at the next start.
 */
static void drop_config_probes(struct tp_agent *a, const struct tp_config *nc)
{
    for (size_t i = a->probeset.n; i-- > 0;) {
        const struct tp_probedef *d = &a->probeset.v[i];
        bool keep = d->owner != TP_PROBE_OWNER_CONFIG;
        for (size_t j = 0; !keep && j < nc->nprobes; j++) {
            const struct tp_config_probe *p = &nc->probes[j];
            if (strcmp(p->name, d->name) != 0)
                continue;
            keep = true;
            if (strcmp(p->spec, d->spec) != 0 || p->kprobe != (d->kind == TP_PROBE_KPROBE))
                logf_(a, "config line %d: probe %s changed: the new definition is made at "
                      "the next start (it is in use as it was)", p->line, p->name);
        }
        if (!keep) {
            char name[TP_PROBE_NAME_MAX + 1];
            snprintf(name, sizeof(name), "%s", d->name);
            tp_probeset_remove(a, name);
        }
    }
}

void tp_agent_settle(struct tp_agent *a)
{
    struct tp_aggs_env env = aggs_env(a);
    apply_and_settle(a, &env);
}

/* The kernel's id of ftrace:kernel_stack, the entry a stacktrace trigger writes; -1: none. */
static int kernel_stack_id(const struct tp_agent *a)
{
    char path[1024], *text = NULL;
    snprintf(path, sizeof(path), "%s/events/ftrace/kernel_stack/format",
             tp_instance_tracing_dir(a->inst));
    int id = -1;
    const char *p = tp_read_text(path, 4096, &text, NULL) == 0 ? strstr(text, "\nID: ") : NULL;
    if (!p || sscanf(p + 5, "%d", &id) != 1)
        id = -1;                    /* ftrace's own events have their id in the format only */
    free(text);
    return id;
}

/* tracefs, catalog, capture, demand, probes, streams: all or nothing (degraded). */
static int open_tracing(struct tp_agent *a)
{
    int rc = tp_instance_open(&a->inst, a->cfg.kernel_buffer_kb, log_msg, a);
    if (rc == 0)        /* before the aggregations: hist triggers compute some */
        a->features = tp_features_detect(tp_instance_tracing_dir(a->inst));
    if (rc == 0)
        rc = tp_probes_open(&a->probes, log_msg, a);
    if (rc < 0)
        return rc;
    rc = tp_catalog_create(&a->cat, tp_instance_tracing_dir(a->inst));
    if (rc == 0 && !(a->fields = calloc(tp_catalog_count(a->cat) + 1, sizeof(*a->fields))))
        rc = -ENOMEM;
    if (rc == 0)
        rc = assign_ids(a);
    if (rc == 0)
        rc = tp_render_create(&a->render, a->cat, tp_instance_tracing_dir(a->inst));
    if (rc == 0)
        rc = tp_capture_create(&a->cap, a->inst, a->cfg.ring_size, tp_catalog_count(a->cat));
    if (rc == 0) {
        find_name_events(a);
        bool trigger = (a->features & (1u << TP_FEAT_STACKTRACE)) && !tp_fault_no_stacks();
        a->stack_id = trigger ? kernel_stack_id(a) : -1;
        tp_capture_stack_id(a->cap, a->stack_id);
        tp_capture_set_nice(a->cap, a->cfg.producer_nice);
    }
    if (rc == 0)
        rc = tp_demand_create(&a->demand, a->cat, a->inst, a->cap, load_event, a);
    if (rc == 0)
        tp_demand_log(a->demand, log_msg, a);
    if (rc == 0)
        define_config_probes(a, &a->cfg);
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
        struct tp_aggs_env env = aggs_env(a);
        a->aggs.inst = a->inst;         /* hist triggers go there, where the kernel has them */
        a->aggs.features = a->features;
        rc = tp_aggs_update(&a->aggs, &a->cfg, &env, &a->slots_used, 0);
        apply_and_settle(a, &env);
    }
    if (rc == 0)
        rc = tp_agent_names_wanted(a);
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
        tp_probes_teardown(a->probes);  /* after the instance: enabled probes cannot go */
        a->torn_down = true;
    }
    pthread_mutex_unlock(&a->teardown_lock);
}

static void close_tracing(struct tp_agent *a)
{
    teardown_kernel_side(a);
    tp_oneliners_free(a);
    tp_aggs_free(&a->aggs, a->cap);
    tp_demand_destroy(a->demand);
    tp_capture_destroy(a->cap);
    tp_streams_free(&a->streams);
    free_fields(a);
    free(a->eid);
    a->eid = NULL;
    tp_render_destroy(a->render);
    tp_catalog_destroy(a->cat);
    tp_instance_close(a->inst);         /* removes the instance */
    tp_probes_close(a->probes);         /* then the probes it had enabled */
    tp_probeset_free(a);
    a->probes = NULL;
    a->demand = NULL;
    a->render = NULL;
    a->cap = NULL;
    a->cat = NULL;
    a->inst = NULL;
}

/* A probe's event is going: the streams, aggregations and one-liners let go of it. */
static void release_probe_event(struct tp_agent *a, size_t event)
{
    tp_oneliners_forget_event(a, event);
    for (size_t i = 0; i < a->streams.n; i++) {
        tp_streams_drop_event(&a->streams, a->streams.v[i].slot, (uint32_t)event);
        tp_demand_unwant(a->demand, a->streams.v[i].slot, event);
    }
    for (size_t i = 0; i < a->aggs.n; i++) {
        tp_aggs_drop_event(&a->aggs, a->aggs.v[i].slot, (uint32_t)event);
        tp_demand_unwant(a->demand, a->aggs.v[i].slot, event);
    }
    tp_agent_settle(a);
}

int tp_agent_open(struct tp_agent *a, const char *config_path, const char *ids_path,
                  const char *old_ids_path, int domain, tp_log_fn log, void *arg)
{
    memset(a, 0, sizeof(*a));
    a->names_slot = -1;
    a->stack_id = -1;
    pthread_mutex_init(&a->teardown_lock, NULL);
    a->log = log;
    a->log_arg = arg;
    a->domain = domain;
    a->oneliners.hooks = (struct tp_oneliners_hooks){ tp_agent_has_stacks,
                                                      tp_agent_stacks_first,
                                                      tp_agent_names_first };
    a->probeset.hooks = (struct tp_probeset_hooks){ .load_event = tp_agent_load_event,
                                                    .save_ids = tp_agent_save_ids,
                                                    .release = release_probe_event };
    a->param_ids.fields = fields_of;
    a->param_ids.arg = a;
    for (unsigned i = 0; i < TP_NCOMMON; i++)
        a->param_ids.common[i] = pmID_build((unsigned)domain, TP_CLUSTER_COMMON, i);
    for (int i = 0; i < TP_IDENTITY_MAX_EVENTS; i++)
        a->by_eid[i] = -1;
    load_config(a, config_path);
    int rc = tp_clients_create(&a->clients);
    if (rc == 0)
        rc = tp_identity_open(&a->ident, ids_path, log_msg, a);
    if (rc == 0 && old_ids_path && tp_identity_adopt(a->ident, old_ids_path) == -ENOMEM)
        rc = -ENOMEM;
    if (rc < 0)
        return rc;
    rc = open_tracing(a);
    if (rc < 0) {
        logf_(a, "kernel tracing unavailable (%s): serving counters only, no events",
              rc == -ENODEV ? "tracefs is not mounted and cannot be mounted"
              : rc == -EACCES || rc == -EPERM ? "no permission: the PMDA must run as root (-U root)"
              : strerror(-rc));
        close_tracing(a);
        a->features = 0;                /* none without tracing, as before it was opened */
    } else {
        logf_(a, "instance %s: %zu tracepoints, %zu stream(s), %zu aggregation(s), %zu "
              "event(s) enabled, ring %zu bytes", tp_instance_name(a->inst),
              tp_catalog_count(a->cat), a->streams.n, a->aggs.n, tp_demand_count(a->demand),
              a->cfg.ring_size);
        for (size_t i = 0; i < a->streams.n; i++)
            if ((a->streams.v[i].with & TP_WITH_STACK) && !tp_agent_has_stacks(a))
                logf_(a, "stream %s: this kernel gives no kernel stacks; its records carry none",
                      a->streams.v[i].name);
    }
    tp_features_format(a->features, a->features_text, sizeof(a->features_text));
    logf_(a, "kernel features: %s", a->features_text);
    return 0;
}

/* ---- what records carry ------------------------------------------------------ */

/* What some consumer's records carry, and the slots of those that want names, stacks. */
struct wants {
    unsigned with;
    tp_slotmask named;
    tp_slotmask stacks;
};

static void add_want(struct wants *w, unsigned with, int slot)
{
    w->with |= with;
    if ((with & TP_WITH_COMM) && slot >= 0)
        w->named |= (tp_slotmask)1 << slot;
    if ((with & TP_WITH_STACK) && slot >= 0)
        w->stacks |= (tp_slotmask)1 << slot;
}

/* An aggregation by stack: its slot wants stacks, and its keys the symbols. */
static void want_stacks(struct wants *w, const struct tp_aggregation *ag)
{
    w->stacks |= (tp_slotmask)1 << ag->slot;
    w->with |= TP_WITH_STACK;
}

/*
 * The slots that want stacks get them (demand sets the events' triggers),
 * and the aggregations by stack the symbols to fold them with.
 */
static void apply_stacks(struct tp_agent *a, tp_slotmask stacks)
{
    const struct tp_ksyms *k = tp_render_symbols(a->render);
    tp_capture_lock(a->cap);
    for (size_t i = 0; i < a->aggs.n; i++)
        if (a->aggs.v[i].by_stack)
            tp_agg_symbols(a->aggs.v[i].agg, k);
    for (size_t i = 0; i < a->oneliners.n; i++)
        if (a->oneliners.v[i]->ag.by_stack)
            tp_agg_symbols(a->oneliners.v[i]->ag.agg, k);
    tp_capture_unlock(a->cap);
    tp_demand_stacks(a->demand, stacks);
    tp_demand_apply(a->demand, NULL, NULL);
}

/* The kernel's symbols, read the first time text or stacks are wanted. */
static void prepare_symbols(struct tp_agent *a)
{
    int rc = tp_render_prepare(a->render);
    if (rc < 0)
        logf_(a, "kernel symbols unreadable (%s): event text and stacks show addresses",
              strerror(-rc));
}

bool tp_agent_has_stacks(const struct tp_agent *a)
{
    return a->cap && a->stack_id >= 0;
}

void tp_agent_stacks_first(struct tp_agent *a, unsigned slot)
{
    if (!a->demand)
        return;
    prepare_symbols(a);
    tp_demand_stacks(a->demand, tp_demand_stack_slots(a->demand) | (tp_slotmask)1 << slot);
}

/*
 * The producer names events first, then the name events are enabled: their
 * other consumers may filter on comm, and the names slot's want makes their
 * kernel filter an OR that the producer checks with names from then on.
 */
int tp_agent_names_first(struct tp_agent *a, int slot)
{
    if (!a->cap)
        return 0;
    bool started = tp_capture_names_first(a->cap, slot);
    if (started)
        tp_capture_sync(a->cap);    /* its /proc snapshot taken */
    int rc = follow_names(a, true);
    if (started && rc == 0)
        tp_capture_sync(a->cap);    /* and taken again for the guesses, the events enabled */
    return rc;
}

static void add_client_want(void *arg, struct tp_client *c)
{
    add_want(arg, c->with, c->slot);
}

int tp_agent_names_wanted(struct tp_agent *a)
{
    if (!a->cap)
        return 0;
    struct wants w = { 0, 0, 0 };
    for (size_t i = 0; i < a->streams.n; i++)
        add_want(&w, a->streams.v[i].with, (int)a->streams.v[i].slot);
    tp_clients_each(a->clients, add_client_want, &w);
    tp_slotmask mine = a->names_slot >= 0 ? (tp_slotmask)1 << a->names_slot : 0;
    bool follow = w.named || tp_demand_comm_slots(a->demand, mine) != 0;
    for (size_t i = 0; i < a->aggs.n; i++) {
        follow |= a->aggs.v[i].by_comm;
        if (a->aggs.v[i].by_stack)
            want_stacks(&w, &a->aggs.v[i]);
    }
    follow |= tp_oneliners_by_comm(a);
    for (size_t i = 0; i < a->oneliners.n; i++)
        if (a->oneliners.v[i]->ag.by_stack)
            want_stacks(&w, &a->oneliners.v[i]->ag);
    if (w.with & (TP_WITH_TEXT | TP_WITH_STACK))
        prepare_symbols(a);
    apply_stacks(a, w.stacks);
    int rc = follow && a->names_slot < 0 ? tp_agent_names_first(a, -1) : follow_names(a, follow);
    if (rc < 0 && !a->names_unfollowed)
        logf_(a, "the events that name tasks cannot be enabled (%s): records and keys show "
              "no names, and comm filters are the kernel's alone", strerror(-rc));
    a->names_unfollowed = rc < 0;
    tp_capture_want_comms(a->cap, rc < 0 ? 0 : w.named, follow && rc == 0);
    return 0;
}

int tp_agent_start(struct tp_agent *a)
{
    return a->cap ? tp_capture_start(a->cap) : 0;
}

int tp_agent_catch_up(struct tp_agent *a)
{
    return tp_capture_catch_up(a->cap, TP_PACE_FRESH_NS);
}

void tp_agent_close(struct tp_agent *a)
{
    close_tracing(a);
    tp_clients_destroy(a->clients);
    tp_identity_close(a->ident);
    tp_config_free(&a->cfg);
    a->clients = NULL;
    a->ident = NULL;
}

void tp_agent_emergency_teardown(struct tp_agent *a)
{
    teardown_kernel_side(a);
}

/* ---- a new config ----------------------------------------------------------- */

/*
 * Give the ring a new capacity; every client keeps its place in it.
 * Returns 0 or the error, the ring then as it was.
 */
static int resize_ring(struct tp_agent *a, size_t capacity)
{
    struct tp_ring_rebase *map = NULL;
    tp_capture_lock(a->cap);
    tp_fault_enter(TP_FAULT_RESIZE);
    int rc = tp_ring_resize(tp_capture_ring(a->cap), capacity, &map);
    tp_fault_leave();
    if (rc == 0)
        tp_clients_rebase(a->clients, map);
    tp_capture_unlock(a->cap);
    tp_ring_rebase_free(map);
    if (rc < 0)
        logf_(a, "ring_size %zu: %s; the ring stays at %zu bytes", capacity, strerror(-rc),
              a->cfg.ring_size);
    else
        logf_(a, "ring_size is now %zu bytes", capacity);
    return rc;
}

/*
 * The streams and aggregations of the new config: unchanged streams keep
 * every client's place, unchanged aggregations their counts.
 */
static int update_streams(struct tp_agent *a, const struct tp_config *nc)
{
    struct tp_streams_change ch = { .used = &a->slots_used };
    struct tp_aggs_env env = aggs_env(a);
    define_config_probes(a, nc);
    tp_fault_enter(TP_FAULT_STREAMS);
    int rc = tp_streams_update(&a->streams, &a->cfg, nc, a->cat, a->demand, tp_mono_now(),
                               &ch, log_msg, a);
    tp_fault_leave();
    int rc2 = tp_aggs_update(&a->aggs, nc, &env, &a->slots_used, ch.freed);
    tp_capture_lock(a->cap);
    for (unsigned i = 0; i < TP_RING_MAX_SLOTS; i++)
        if (ch.restart >> i & 1)
            tp_ring_slot_reset(tp_capture_ring(a->cap), i);
    tp_capture_unlock(a->cap);
    for (unsigned i = 0; i < TP_RING_MAX_SLOTS; i++)
        if ((ch.restart | ch.freed) >> i & 1)
            tp_clients_forget_slot(a->clients, i);
    apply_and_settle(a, &env);
    drop_config_probes(a, nc);
    int rc3 = tp_agent_names_wanted(a);
    return rc < 0 ? rc : rc2 < 0 ? rc2 : rc3;
}

int tp_agent_reload(struct tp_agent *a, const char *config_path)
{
    struct tp_config nc;
    tp_config_init(&nc);
    int rc = read_config(a, &nc, config_path, "the config in use stays");
    if (rc < 0) {
        tp_config_free(&nc);
        return rc;
    }
    if (a->cap && nc.kernel_buffer_kb != a->cfg.kernel_buffer_kb &&
        (rc = tp_instance_set_buffer_kb(a->inst, nc.kernel_buffer_kb)) < 0)
        nc.kernel_buffer_kb = a->cfg.kernel_buffer_kb;
    if (a->cap && nc.ring_size != a->cfg.ring_size && resize_ring(a, nc.ring_size) < 0)
        nc.ring_size = a->cfg.ring_size;    /* the size in force; the next reload tries again */
    if (a->cap && nc.producer_nice != a->cfg.producer_nice &&
        (rc = tp_capture_set_nice(a->cap, nc.producer_nice)) < 0)
        logf_(a, "producer_nice %d: %s", nc.producer_nice, strerror(-rc));
    rc = a->cap ? update_streams(a, &nc) : 0;
    struct tp_config old = a->cfg;
    a->cfg = nc;                        /* the streams borrow its access rules now */
    tp_config_free(&old);
    logf_(a, "config %s reloaded: %zu stream(s), %zu aggregation(s), %zu event(s) enabled",
          config_path, a->streams.n, a->aggs.n, a->demand ? tp_demand_count(a->demand) : 0);
    return rc;
}
