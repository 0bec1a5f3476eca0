/*
 * Config aggregations to slots, bindings and wants.  See tp_aggs.h.
 */
#include "tp_aggs.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_features.h"
#include "tp_kaggs.h"
#include "tp_kcount.h"
#include "tp_util.h"
#include "tp_valname.h"

_Static_assert(TP_CONFIG_MAX_BY == TP_AGG_MAX_BY, "the config and tp_agg agree on by fields");

/*
 * The kernel's hist files are read at most this often (every fetch and
 * instance request asks); its counters every time.
 */
#define KERNEL_READ_NS (20 * 1000 * 1000ull)

static const char *const kind_name[] = {
    [TP_CONFIG_COUNT] = "count", [TP_CONFIG_SUM] = "sum",
    [TP_CONFIG_HIST] = "hist", [TP_CONFIG_LATENCY] = "latency",
};

static const enum tp_agg_kind agg_kind[] = {
    [TP_CONFIG_COUNT] = TP_AGG_COUNT, [TP_CONFIG_SUM] = TP_AGG_SUM,
    [TP_CONFIG_HIST] = TP_AGG_HIST, [TP_CONFIG_LATENCY] = TP_AGG_LATENCY,
};

/* What computes an aggregation. */
enum backend { BY_PRODUCER, BY_HIST, BY_COUNTER };

/* One aggregation being built: where it goes, and what it is built from. */
struct build {
    const struct tp_aggs_env *env;
    const struct tp_config_agg *def;
    struct tp_aggregation *ag;
    uint64_t since;             /* it counts the events recorded from then on */
    bool kernel;                /* by the kernel: its events are not wanted from demand */
    bool quiet;                 /* built again for the producer: what was logged stays unsaid */
};

__attribute__((format(printf, 3, 4)))
static void left_out(const struct build *b, size_t ev, const char *fmt, ...)
{
    char why[256];
    if (b->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    tp_logf(b->env->log, b->env->arg, "config line %d: %s %s: event %s left out: %s",
            b->def->line, kind_name[b->def->kind], b->def->name,
            tp_catalog_event(b->env->cat, ev)->fullname, why);
}

static bool is_string_kind(enum tp_field_kind k)
{
    return k == TP_FIELD_STRING || k == TP_FIELD_DLOC_STRING || k == TP_FIELD_RLOC_STRING;
}

static const char *type_word(const struct tp_field *f)
{
    return is_string_kind(f->kind) ? "a string" : "an array";
}

/* The value field (or the latency's on field) of ev, checked; NULL with *ok false if unusable. */
static const struct tp_field *value_field(const struct build *b, size_t ev, const char *name,
                                          bool *ok)
{
    const struct tp_event *e = tp_catalog_event(b->env->cat, ev);
    const struct tp_field *f = name ? tp_event_field(e, name) : NULL;
    *ok = !name || f;
    if (name && !f)
        left_out(b, ev, "no field '%s'", name);
    else if (f && f->kind != TP_FIELD_INT && f->kind != TP_FIELD_UINT) {
        left_out(b, ev, "field '%s' is %s, not a number", name, type_word(f));
        *ok = false;
    }
    return f;
}

/* The key fields of ev into bd; false (logged) if one is missing or unusable. */
static bool key_fields(const struct build *b, size_t ev, struct tp_agg_binding *bd)
{
    const struct tp_event *e = tp_catalog_event(b->env->cat, ev);
    for (size_t i = 0; i < b->def->nby; i++) {
        const char *name = b->def->by[i];
        const struct tp_field *f = tp_event_field(e, name);
        if (!f && strcmp(name, "event") == 0) {
            bd->by[i] = NULL;           /* the event's own name */
            continue;
        }
        if (!f && strcmp(name, "stack") == 0 && !b->env->stacks) {
            left_out(b, ev, "this kernel gives no kernel stacks (no stacktrace trigger, "
                     "or no ftrace:kernel_stack)");
            return false;
        }
        if (!f && strcmp(name, "stack") == 0) {
            bd->by[i] = &tp_agg_stack;  /* the event's kernel stack (the agent asks for */
            b->ag->by_stack = true;     /* stacks on the slot: tp_agent_names_wanted) */
            continue;
        }
        if (!f && strcmp(name, "comm") == 0) {
            bd->by[i] = &tp_agg_comm;   /* the name of the event's pid at the event (the */
                                        /* agent turns names on: tp_agent_names_wanted) */
            b->ag->by_comm = true;
            continue;
        }
        if (!f) {
            left_out(b, ev, "no field '%s'", name);
            return false;
        }
        if (f->kind != TP_FIELD_INT && f->kind != TP_FIELD_UINT && !is_string_kind(f->kind)) {
            left_out(b, ev, "key field '%s' is an array (keys are numbers and strings)", name);
            return false;
        }
        bd->by[i] = f;
        bd->show[i] = (unsigned char)tp_valname_shown(e->system, f->name, f->decl,
                                                      tp_valname_local_arch_ok());
    }
    bd->nby = (unsigned)b->def->nby;
    bd->devdir = TP_VALNAME_DEVDIR;     /* the devices are this machine's */
    return true;
}

static bool has_event(const uint32_t *v, size_t n, size_t ev)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == ev)
            return true;
    return false;
}

static int push_event(uint32_t **v, size_t *n, size_t ev)
{
    uint32_t *grown = realloc(*v, (*n + 1) * sizeof(*grown));
    if (!grown)
        return -ENOMEM;
    *v = grown;
    grown[(*n)++] = (uint32_t)ev;
    return 0;
}

/* The binding of ev in its role, checked; false (logged) if it cannot be bound. */
static bool make_binding(const struct build *b, size_t ev, enum tp_agg_role role,
                         struct tp_agg_binding *bd)
{
    const struct tp_event *e = tp_catalog_event(b->env->cat, ev);
    bool ok;
    *bd = (struct tp_agg_binding){ .event = (uint32_t)ev, .event_name = e->fullname,
                                   .role = role };
    bool ok2 = true, end = role == TP_AGG_END;
    bd->value = value_field(b, ev, end ? b->def->end_field : b->def->field, &ok);
    if (ok)
        bd->value2 = value_field(b, ev, end ? b->def->end_field2 : b->def->field2, &ok2);
    return ok && ok2 && (end || key_fields(b, ev, bd));
}

/* Bind one event and want it; 0 (done or left out, logged) or -ENOMEM. */
static int add_event(const struct build *b, size_t ev, enum tp_agg_role role)
{
    struct tp_aggregation *ag = b->ag;
    bool as_end = role == TP_AGG_END;
    if (has_event(ag->events, ag->nevents, ev) || has_event(ag->ends, ag->nends, ev)) {
        if (as_end && has_event(ag->events, ag->nevents, ev))
            left_out(b, ev, "it is a start event already; an event cannot end its own "
                     "latency");
        return 0;
    }
    int rc = tp_catalog_load(b->env->cat, ev);
    if (rc < 0) {
        left_out(b, ev, "its format cannot be read: %s", strerror(-rc));
        return rc == -ENOMEM ? rc : 0;
    }
    struct tp_agg_binding bd;
    if (!make_binding(b, ev, role, &bd))
        return 0;
    char err[256] = "";
    rc = b->kernel ? 0 : tp_demand_want(b->env->demand, ag->slot, ev, b->def->filter, b->since,
                                        err, sizeof(err));
    if (rc < 0 && rc != -ENOMEM) {
        struct build loud = *b;     /* only the producer's wants meet this: never said yet */
        loud.quiet = false;
        left_out(&loud, ev, "%s", *err ? err : strerror(-rc));
        return 0;
    }
    if (rc == 0 && (rc = tp_agg_bind(ag->agg, &bd)) == 0)
        rc = as_end ? push_event(&ag->ends, &ag->nends, ev)
                    : push_event(&ag->events, &ag->nevents, ev);
    if (rc < 0 && !b->kernel)
        tp_demand_unwant(b->env->demand, ag->slot, ev);
    return rc;
}

static int resolve(const struct build *b, char *const *patterns, size_t n, enum tp_agg_role role)
{
    size_t count = tp_catalog_count(b->env->cat);
    for (size_t p = 0; p < n; p++) {
        size_t matched = 0;
        for (size_t i = 0; i < count; i++) {
            const struct tp_event *e = tp_catalog_event(b->env->cat, i);
            if (e->vacant || !tp_pattern_match(patterns[p], e->system, e->name))
                continue;
            matched++;
            int rc = add_event(b, i, role);
            if (rc < 0)
                return rc;
        }
        if (!matched && !b->quiet)
            tp_logf(b->env->log, b->env->arg, "config line %d: %s %s: no tracepoint matches "
                    "'%s'", b->def->line, kind_name[b->def->kind], b->def->name, patterns[p]);
    }
    return 0;
}

static void free_aggregation(struct tp_aggregation *ag)
{
    tp_kagg_destroy(ag->kernel);        /* its triggers go */
    tp_kcount_destroy(ag->counter);     /* its counters go */
    tp_agg_destroy(ag->agg);
    free(ag->events);
    free(ag->ends);
    memset(ag, 0, sizeof(*ag));
}

static bool servable(const struct tp_aggregation *ag)
{
    return ag->nevents && (ag->def->kind != TP_CONFIG_LATENCY || ag->nends);
}

/*
 * Its events' counters, or hist triggers in inst: true if the kernel
 * computes it from now on (else logged why not, and what will: then).
 */
static bool start_kernel(const struct tp_aggs_env *env, struct tp_instance *inst,
                         struct tp_aggregation *ag, enum backend how, enum backend then,
                         bool silent)
{
    char why[512] = "";
    int rc = how == BY_COUNTER
                 ? tp_kcount_create(&ag->counter, env->cat, ag->def, ag->events, ag->nevents,
                                    why, sizeof(why))
                 : tp_kagg_create(&ag->kernel, inst, env->cat, ag->def, ag->events,
                                  ag->nevents, why, sizeof(why));
    if (rc < 0 && !silent)
        tp_logf(env->log, env->arg, "config line %d: %s %s: computed by %s: %s",
                ag->def->line, kind_name[ag->def->kind], ag->def->name,
                then == BY_HIST ? "hist triggers, not counters" : "the producer", why);
    if (rc == 0 && how == BY_COUNTER)
        ag->by_comm = false;            /* the kernel has the name at the event: none to follow */
    return rc == 0;
}

/* What to try first, and then (the producer last). */
struct plan {
    struct tp_instance *inst;           /* where hist triggers go */
    enum backend how, then;
    bool silent;                        /* a first way that fails is not logged */
};

/*
 * The aggregation def on slot as id, into ag: as p says, the kernel's way
 * first if it can, else the next (quiet: what a first attempt logged is not
 * logged again).  Returns 1, or 0 if none of its events can be used
 * (logged; nothing wanted), or -ENOMEM.
 */
static int build_one(const struct tp_aggs_env *env, const struct tp_config_agg *def,
                     unsigned slot, unsigned id, uint64_t gen, struct tp_aggregation *ag,
                     struct plan p, bool quiet)
{
    enum backend how = p.how;
    bool kernel = how != BY_PRODUCER;
    /* nothing from before it was */
    struct build b = { env, def, ag, tp_mono_now(), kernel, quiet };
    *ag = (struct tp_aggregation){ .def = def, .slot = slot, .id = id, .gen = gen };
    int rc = tp_agg_create(&ag->agg, agg_kind[def->kind], def->max_keys, def->max_pending);
    if (rc == 0)
        rc = resolve(&b, def->events, def->nevents,
                     def->kind == TP_CONFIG_LATENCY ? TP_AGG_START : TP_AGG_VALUE);
    if (rc == 0 && def->kind == TP_CONFIG_LATENCY)
        rc = resolve(&b, def->ends, def->nends, TP_AGG_END);
    if (rc == 0 && servable(ag) && kernel) {
        if (start_kernel(env, p.inst, ag, how, p.then, p.silent))
            return 1;
        free_aggregation(ag);
        struct plan next = { p.inst, p.then, BY_PRODUCER, false };
        return build_one(env, def, slot, id, gen, ag, next, true);
    }
    if (rc == 0 && servable(ag)) {
        tp_capture_lock(env->cap);
        tp_capture_sink(env->cap, slot, ag->agg);
        tp_capture_unlock(env->cap);
        return 1;
    }
    if (rc == 0)
        tp_logf(env->log, env->arg, "config line %d: %s %s has no usable %s; not served",
                def->line, kind_name[def->kind], def->name,
                ag->nevents ? "end events" : "events");
    if (!kernel)
        tp_demand_release(env->demand, slot);
    free_aggregation(ag);
    return rc;
}

/*
 * What is to compute def: counters where they can (the kernel's cheapest
 * exact count), hist triggers where they can, then the producer (where the
 * kernel has hist triggers and they cannot, logged why).  Only the producer
 * without tracing.
 */
static struct plan plan_for(const struct tp_aggs *s, const struct tp_aggs_env *env,
                            const struct tp_config_agg *def)
{
    char why[256], not_counter[256];
    struct plan p = { s->inst, BY_PRODUCER, BY_PRODUCER, false };
    if (!s->inst)
        return p;
    bool counter = tp_kcount_suits(def, not_counter, sizeof(not_counter));
    bool hist = tp_kaggs_suits(def, s->features, why, sizeof(why));
    if (!counter && !hist && (s->features >> TP_FEAT_HIST & 1))
        tp_logf(env->log, env->arg, "config line %d: %s %s: computed by the producer: %s",
                def->line, kind_name[def->kind], def->name, why);
    p.how = counter ? BY_COUNTER : hist ? BY_HIST : BY_PRODUCER;
    p.then = counter && hist ? BY_HIST : BY_PRODUCER;
    return p;
}

int tp_aggs_build(const struct tp_aggs_env *env, const struct tp_config_agg *def, unsigned slot,
                  struct tp_aggregation *ag)
{
    char why[256];
    /* counters where they can (a failure is no reason to refuse it), else the producer */
    struct plan p = { NULL, tp_kcount_suits(def, why, sizeof(why)) ? BY_COUNTER : BY_PRODUCER,
                      BY_PRODUCER, true };
    return build_one(env, def, slot, 0, 0, ag, p, false);
}

void tp_aggs_unbuild(const struct tp_aggs_env *env, struct tp_aggregation *ag)
{
    if (!ag || !ag->agg)
        return;
    tp_demand_release(env->demand, ag->slot);
    tp_demand_apply(env->demand, NULL, NULL);   /* no route leads to the slot any more */
    tp_capture_lock(env->cap);
    tp_capture_sink(env->cap, ag->slot, NULL);
    tp_capture_unlock(env->cap);
    free_aggregation(ag);
}

/* ---- metrics ------------------------------------------------------------- */

unsigned tp_aggs_items(const struct tp_config_agg *def)
{
    unsigned items = 1u << TP_AGG_ITEM_COUNT | 1u << TP_AGG_ITEM_DROPPED |
                     1u << TP_AGG_ITEM_BACKEND;
    if (def->kind != TP_CONFIG_COUNT)
        items |= 1u << TP_AGG_ITEM_SUM;
    if (def->kind == TP_CONFIG_HIST || def->kind == TP_CONFIG_LATENCY)
        items |= 1u << TP_AGG_ITEM_HIST;
    if (def->nby)
        items |= 1u << TP_AGG_ITEM_OVERFLOW;
    if (def->kind == TP_CONFIG_LATENCY)
        items |= 1u << TP_AGG_ITEM_PENDING;
    return items;
}

/* ---- updates ------------------------------------------------------------- */

static const struct tp_config_agg *config_agg(const struct tp_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->naggs; i++)
        if (strcmp(cfg->aggs[i].name, name) == 0)
            return &cfg->aggs[i];
    return NULL;
}

/* Room to retire every aggregation in service, so that retiring cannot fail. */
static int reserve_retired(struct tp_aggs *s)
{
    struct tp_aggregation *r = realloc(s->retired, (s->nretired + s->n + 1) * sizeof(*r));
    if (!r)
        return -ENOMEM;
    s->retired = r;
    return 0;
}

/* Out of service (room reserved): its wants go; it is freed at the next settle. */
static void retire(struct tp_aggs *s, size_t i, const struct tp_aggs_env *env)
{
    tp_kagg_destroy(s->v[i].kernel);    /* its triggers go now: a new one may want the same */
    s->v[i].kernel = NULL;
    tp_kcount_destroy(s->v[i].counter);
    s->v[i].counter = NULL;
    s->retired[s->nretired++] = s->v[i];
    tp_demand_release(env->demand, s->v[i].slot);
    s->v[i] = s->v[--s->n];
}

/* Keep what is unchanged (pointing it at cfg), retire the rest (room reserved). */
static void keep_unchanged(struct tp_aggs *s, const struct tp_config *cfg,
                           const struct tp_aggs_env *env)
{
    for (size_t i = 0; i < s->n;) {
        const struct tp_config_agg *nd = config_agg(cfg, s->v[i].def->name);
        if (nd && tp_config_agg_same(s->v[i].def, nd))
            s->v[i++].def = nd;
        else
            retire(s, i, env);
    }
}

/*
 * No memory to retire them one by one: take every aggregation out of
 * service now (nothing may point into a config about to be freed).  Until
 * demand is applied, their events go to the ring for slots nobody reads.
 */
static void abandon_all(struct tp_aggs *s, const struct tp_aggs_env *env, tp_slotmask *used)
{
    tp_capture_lock(env->cap);
    for (size_t i = 0; i < s->n; i++)
        tp_capture_sink(env->cap, s->v[i].slot, NULL);
    tp_capture_unlock(env->cap);
    for (size_t i = 0; i < s->n; i++) {
        tp_demand_release(env->demand, s->v[i].slot);
        *used &= ~((tp_slotmask)1 << s->v[i].slot);
        free_aggregation(&s->v[i]);
    }
    s->n = 0;
    tp_logf(env->log, env->arg, "out of memory: every aggregation is out of service");
}

static bool in_service(const struct tp_aggs *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].def->name, name) == 0)
            return true;
    return false;
}

/* The lowest slot neither in use nor just let go (its events may still be routed). */
static int add_new(struct tp_aggs *s, const struct tp_config *cfg, const struct tp_aggs_env *env,
                   tp_slotmask *used, tp_slotmask draining)
{
    struct tp_aggregation *v = realloc(s->v, (cfg->naggs ? cfg->naggs : 1) * sizeof(*v));
    if (!v)
        return -ENOMEM;
    s->v = v;
    for (size_t i = 0; i < cfg->naggs; i++) {
        const struct tp_config_agg *def = &cfg->aggs[i];
        char idname[TP_CONFIG_MAX_NAME + sizeof(TP_AGG_ID_PREFIX)];
        if (in_service(s, def->name))
            continue;
        int slot = tp_ring_free_slot(*used | draining);
        snprintf(idname, sizeof(idname), TP_AGG_ID_PREFIX "%s", def->name);
        int id = slot < 0 ? -EBUSY : tp_identity_event(env->ident, idname);
        if (id == -ENOMEM)
            return id;
        if (id < 0) {
            tp_logf(env->log, env->arg, "config line %d: %s %s: not served: %s", def->line,
                    kind_name[def->kind], def->name, slot < 0 ? "every ring slot is taken"
                    : "no PMID cluster is left");
            continue;
        }
        int rc = build_one(env, def, (unsigned)slot, (unsigned)id, ++s->generation,
                           &s->v[s->n], plan_for(s, env, def), false);
        if (rc < 0)
            return rc;
        if (rc > 0) {
            *used |= (tp_slotmask)1 << slot;
            s->n++;
        }
    }
    return 0;
}

int tp_aggs_update(struct tp_aggs *s, const struct tp_config *cfg,
                   const struct tp_aggs_env *env, tp_slotmask *used, tp_slotmask draining)
{
    if (reserve_retired(s) < 0) {
        abandon_all(s, env, used);
        return -ENOMEM;
    }
    keep_unchanged(s, cfg, env);
    for (size_t i = 0; i < s->nretired; i++)
        draining |= (tp_slotmask)1 << s->retired[i].slot;
    int rc;
    int lk = tp_identity_begin(env->ident);
    rc = add_new(s, cfg, env, used, draining);
    if (lk == 0 && tp_identity_end(env->ident) < 0)
        tp_logf(env->log, env->arg, "cannot save the identity map: aggregation PMIDs may "
                "change at the next start");
    return rc;
}

size_t tp_aggs_retire_unservable(struct tp_aggs *s, const struct tp_aggs_env *env)
{
    size_t retired = 0;
    if (reserve_retired(s) < 0)
        return 0;                   /* they stay, unserved, until the next update */
    for (size_t i = 0; i < s->n;) {
        if (servable(&s->v[i])) {
            i++;
            continue;
        }
        tp_logf(env->log, env->arg, "config line %d: %s %s has no usable events left; not "
                "served", s->v[i].def->line, kind_name[s->v[i].def->kind], s->v[i].def->name);
        retire(s, i, env);
        retired++;
    }
    return retired;
}

tp_slotmask tp_aggs_settle(struct tp_aggs *s, const struct tp_aggs_env *env)
{
    tp_slotmask freed = 0;
    tp_capture_lock(env->cap);
    for (size_t i = 0; i < s->nretired; i++)
        tp_capture_sink(env->cap, s->retired[i].slot, NULL);
    tp_capture_unlock(env->cap);
    for (size_t i = 0; i < s->nretired; i++) {
        freed |= (tp_slotmask)1 << s->retired[i].slot;
        free_aggregation(&s->retired[i]);
    }
    s->nretired = 0;
    return freed;
}

static void drop(uint32_t *v, size_t *n, uint32_t ev)
{
    for (size_t i = 0; i < *n; i++)
        if (v[i] == ev) {
            v[i] = v[--*n];
            return;
        }
}

void tp_aggs_drop_event(struct tp_aggs *s, unsigned slot, uint32_t event)
{
    struct tp_aggregation *ag = tp_aggs_by_slot(s, slot);
    if (!ag)
        return;
    drop(ag->events, &ag->nevents, event);
    drop(ag->ends, &ag->nends, event);
}

int tp_aggs_read_counters(struct tp_aggregation *ag, struct tp_capture *cap)
{
    if (!ag->counter)
        return 0;
    int rc = tp_kcount_read(ag->counter);
    if (rc < 0)
        return rc;
    tp_capture_lock(cap);
    tp_kcount_put(ag->counter, ag->agg);
    tp_capture_unlock(cap);
    return 0;
}

void tp_aggs_read_kernel(struct tp_aggs *s, const struct tp_aggs_env *env)
{
    uint64_t now = tp_mono_now();
    for (size_t i = 0; i < s->n; i++) {
        struct tp_aggregation *ag = &s->v[i];
        bool cached = ag->kernel && ag->read_ns && now - ag->read_ns < KERNEL_READ_NS;
        if ((!ag->kernel && !ag->counter) || cached)
            continue;                   /* counters are read every time: a few read()s */
        ag->read_ns = now;
        int rc = ag->counter ? tp_aggs_read_counters(ag, env->cap)
                             : tp_kagg_read(ag->kernel, ag->agg, env->cap);
        if (rc < 0 && !ag->read_failed)
            tp_logf(env->log, env->arg, "%s %s: cannot read its %s: %s (its counters stay as "
                    "they were)", kind_name[ag->def->kind], ag->def->name,
                    ag->counter ? "kernel counters" : "hist triggers",
                    rc == -EIO && ag->counter ? "the CPUs online changed, and the counters "
                                                "opened before count no more"
                                              : strerror(-rc));
        ag->read_failed = rc < 0;
    }
}

const char *tp_aggs_backend(const struct tp_aggregation *ag)
{
    return ag->counter ? "counter" : ag->kernel ? "kernel" : "producer";
}

struct tp_aggregation *tp_aggs_by_slot(const struct tp_aggs *s, unsigned slot)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].slot == slot)
            return &s->v[i];
    return NULL;
}

struct tp_aggregation *tp_aggs_by_id(const struct tp_aggs *s, unsigned id)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].id == id)
            return &s->v[i];
    return NULL;
}

void tp_aggs_free(struct tp_aggs *s, struct tp_capture *cap)
{
    if (!s)
        return;
    if (cap) {
        tp_capture_lock(cap);
        for (size_t i = 0; i < s->n; i++)
            tp_capture_sink(cap, s->v[i].slot, NULL);
        for (size_t i = 0; i < s->nretired; i++)
            tp_capture_sink(cap, s->retired[i].slot, NULL);
        tp_capture_unlock(cap);
    }
    for (size_t i = 0; i < s->n; i++)
        free_aggregation(&s->v[i]);
    for (size_t i = 0; i < s->nretired; i++)
        free_aggregation(&s->retired[i]);
    free(s->v);
    free(s->retired);
    memset(s, 0, sizeof(*s));
}
