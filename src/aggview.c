/*
 * tracepoint.agg.*: the aggregations as PCP metrics.  Descriptors, help
 * text, instance domains and values.  See tp_pmda.h.
 *
 * Each aggregation has two instance domains, both pmdaCache ones whose ids
 * are kept by tp_instids (not pmdaCache's own files, which libpcp_pmda
 * writes into pcp's directory) so that a key keeps its instance id across
 * restarts: its keys ("FIELD=VALUE[,...]", "other"), serial
 * AGG_INDOM_BASE + 2 id, and its histogram buckets ("KEY,bucket=LOW-HIGH",
 * or "bucket=LOW-HIGH" without keys), serial AGG_INDOM_BASE + 2 id + 1.  A
 * key gets its instance when it is first seen, a bucket when it first
 * counts something.  An instance's private word says which key (+1) and
 * bucket it is.
 *
 * Threading: PMDA thread; the counters are read under the capture lock.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_pmda.h"
#include "tp_instids.h"

#define NO_BUCKET 0xff
#define BATCH     64        /* instances named under one hold of the capture lock */
#define SCAN_KEYS 4096      /* keys' buckets looked at under one hold */

struct agg_view {
    unsigned id;
    uint64_t gen;                   /* of the tp_agg the instances are for; 0: none */
    const struct tp_agg *agg;
    pmInDom keys, buckets;
    size_t nkeys;                   /* keys with an instance */
    uint64_t nbuckets;              /* tp_agg_nbuckets() when every bucket had one */
    uint64_t (*bits)[2];            /* per key with an instance: its buckets with one */
};

/* An instance to add, named under the lock, stored after it. */
struct new_inst {
    size_t key;
    unsigned bucket;
    char name[TP_AGG_MAX_NAME + 64];
};

static pmInDom keys_indom(const struct pmda_state *s, unsigned id)
{
    return pmInDom_build((unsigned)s->names.domain, AGG_INDOM_BASE + 2 * id);
}

static void *private_of(size_t key, unsigned bucket)
{
    return (void *)(uintptr_t)(((key + 1) << 8) | bucket);
}

/* ---- instance ids kept across restarts -------------------------------------- */

/* Names no key or bucket has (those all hold '=' or are "other"). */
static void gap_name(char *buf, size_t len, int inst)
{
    pmsprintf(buf, len, "~gap~%d", inst);
}

/* The ids kept for indom back into its pmdaCache (once, as PMDA_CACHE_LOAD was). */
static void restore(struct pmda_state *s, pmInDom indom)
{
    const struct tp_instid *v;
    char old[MAXPATHLEN], gap[32];
    unsigned serial = pmInDom_serial(indom);
    if (!tp_instids_get(s->instids, serial, &v) && s->legacy_dir) {
        pmsprintf(old, sizeof(old), "%s/%s", s->legacy_dir, pmInDomStr(indom));
        tp_instids_adopt(s->instids, serial, old);      /* an older version's pmdaCache file */
    }
    size_t n = tp_instids_get(s->instids, serial, &v);
    int next = 0, gaps = 0;
    for (size_t i = 0; i < n; i++) {
        for (; next < v[i].inst; next++, gaps++) {      /* ids not kept: held, let go below */
            gap_name(gap, sizeof(gap), next);
            pmdaCacheStore(indom, PMDA_CACHE_ADD, gap, NULL);
        }
        int got = pmdaCacheStore(indom, PMDA_CACHE_ADD, v[i].name, NULL);
        if (got != v[i].inst)
            pmNotifyErr(LOG_WARNING, "instance %d \"%s\" of %s not kept: %s", v[i].inst,
                        v[i].name, pmInDomStr(indom), got < 0 ? pmErrStr(got) : "a duplicate");
        if (got >= next)
            next = got + 1;
    }
    for (int i = 0; gaps && i < next; i++) {
        gap_name(gap, sizeof(gap), i);
        pmdaCacheStore(indom, PMDA_CACHE_CULL, gap, NULL);
    }
}

static int cache_size(pmInDom indom)
{
    return pmdaCacheOp(indom, PMDA_CACHE_SIZE_ACTIVE) + pmdaCacheOp(indom, PMDA_CACHE_SIZE_INACTIVE);
}

/* indom's instances, active or not, to tp_instids (as PMDA_CACHE_SAVE was). */
static void export_ids(struct pmda_state *s, pmInDom indom)
{
    int total = cache_size(indom);
    struct tp_instid *v = calloc(total > 0 ? (size_t)total : 1, sizeof(*v));
    size_t n = 0;
    for (int inst = 0; v && (int)n < total && inst < TP_INSTIDS_MAX_INST; inst++) {
        char *name;
        if (pmdaCacheLookup(indom, inst, &name, NULL) >= 0 && name)
            v[n++] = (struct tp_instid){ inst, name };
    }
    if (v)
        tp_instids_set(s->instids, pmInDom_serial(indom), v, n);
    free(v);
}

/* ---- views --------------------------------------------------------------- */

static void view_release(struct agg_view *v)
{
    free(v->bits);
    v->bits = NULL;
    v->nkeys = 0;
    v->nbuckets = 0;
}

/* Every instance of the view's domains inactive: its counters start again. */
static void view_reset(struct agg_view *v, const struct tp_aggregation *ag)
{
    pmdaCacheOp(v->keys, PMDA_CACHE_INACTIVE);
    pmdaCacheOp(v->buckets, PMDA_CACHE_INACTIVE);
    view_release(v);
    v->gen = ag ? ag->gen : 0;
    v->agg = ag ? ag->agg : NULL;
}

static struct agg_view *view_of(struct pmda_state *s, unsigned id)
{
    for (size_t i = 0; i < s->naggviews; i++)
        if (s->aggviews[i].id == id)
            return &s->aggviews[i];
    return NULL;
}

/*
 * A view for every aggregation in service (its domains loaded from their
 * files), made afresh for one rebuilt since; none for one gone.
 */
static int sync_views(struct pmda_state *s)
{
    const struct tp_aggs *ag = &s->agent.aggs;
    for (size_t i = 0; i < ag->n; i++) {
        struct agg_view *v = view_of(s, ag->v[i].id);
        if (v) {
            if (v->gen != ag->v[i].gen)
                view_reset(v, &ag->v[i]);
            continue;
        }
        struct agg_view *grown = realloc(s->aggviews, (s->naggviews + 1) * sizeof(*grown));
        if (!grown)
            return -ENOMEM;
        s->aggviews = grown;
        v = &grown[s->naggviews++];
        *v = (struct agg_view){ .id = ag->v[i].id, .keys = keys_indom(s, ag->v[i].id),
                                .buckets = keys_indom(s, ag->v[i].id) + 1 };
        restore(s, v->keys);
        restore(s, v->buckets);
        view_reset(v, &ag->v[i]);
    }
    for (size_t i = 0; i < s->naggviews; i++)      /* aggregations gone: no instances */
        if (s->aggviews[i].gen && !tp_aggs_by_id(ag, s->aggviews[i].id))
            view_reset(&s->aggviews[i], NULL);
    return 0;
}

/* lock held: up to BATCH keys after the view's, with their names. */
static size_t new_keys(const struct agg_view *v, struct new_inst *batch)
{
    size_t n = 0, nk = tp_agg_nkeys(v->agg);
    for (size_t k = v->nkeys; k < nk && n < BATCH; k++) {
        batch[n] = (struct new_inst){ .key = k, .bucket = NO_BUCKET };
        tp_agg_key_name(v->agg, k, batch[n].name, sizeof(batch[n].name));
        n++;
    }
    return n;
}

/* Instances for the keys seen since the last time, in key order. */
static void add_keys(struct pmda_state *s, struct agg_view *v, struct new_inst *batch)
{
    size_t n;
    do {
        tp_capture_lock(s->agent.cap);
        n = new_keys(v, batch);
        tp_capture_unlock(s->agent.cap);
        if (n && v->bits) {
            uint64_t (*bits)[2] = realloc(v->bits, (v->nkeys + n) * sizeof(*bits));
            if (!bits)
                return;             /* tried again at the next fetch */
            memset(bits + v->nkeys, 0, n * sizeof(*bits));
            v->bits = bits;
        }
        for (size_t i = 0; i < n; i++) {
            if (batch[i].name[0] &&
                pmdaCacheStore(v->keys, PMDA_CACHE_ADD, batch[i].name,
                               private_of(batch[i].key, NO_BUCKET)) < 0)
                return;             /* this key again at the next fetch */
            v->nkeys++;
        }
    } while (n == BATCH);
}

/* lock held: up to BATCH buckets without an instance, of keys from *k on. */
static size_t new_buckets(const struct agg_view *v, size_t *k, struct new_inst *batch)
{
    size_t n = 0, stop = *k + SCAN_KEYS < v->nkeys ? *k + SCAN_KEYS : v->nkeys;
    char range[48], kname[TP_AGG_MAX_NAME];
    for (; *k < stop && n < BATCH; ++*k) {
        const struct tp_agg_key *key = tp_agg_key(v->agg, *k);
        if (!((key->buckets[0] & ~v->bits[*k][0]) | (key->buckets[1] & ~v->bits[*k][1])))
            continue;
        tp_agg_key_name(v->agg, *k, kname, sizeof(kname));
        for (unsigned w = 0; w < 2; w++) {
            uint64_t fresh = key->buckets[w] & ~v->bits[*k][w];
            for (; fresh && n < BATCH; fresh &= fresh - 1) {
                unsigned b = w * 64 + (unsigned)__builtin_ctzll(fresh);
                tp_agg_bucket_name(b, range, sizeof(range));
                batch[n] = (struct new_inst){ .key = *k, .bucket = b };
                snprintf(batch[n++].name, sizeof(batch[0].name), "%s%sbucket=%s", kname,
                         kname[0] ? "," : "", range);
            }
        }
        if (n == BATCH)
            return n;               /* this key may have more: look at it again */
    }
    return n;
}

/* Instances for the buckets that counted their first since the last time. */
static void add_buckets(struct pmda_state *s, struct agg_view *v, struct new_inst *batch)
{
    uint64_t target;
    size_t k = 0, n, nk;
    tp_capture_lock(s->agent.cap);
    target = tp_agg_nbuckets(v->agg);
    nk = tp_agg_nkeys(v->agg);
    tp_capture_unlock(s->agent.cap);
    if (target == v->nbuckets)
        return;
    if (!v->bits && !(v->bits = calloc(v->nkeys ? v->nkeys : 1, sizeof(*v->bits))))
        return;
    do {
        tp_capture_lock(s->agent.cap);
        n = new_buckets(v, &k, batch);
        tp_capture_unlock(s->agent.cap);
        for (size_t i = 0; i < n; i++) {
            if (pmdaCacheStore(v->buckets, PMDA_CACHE_ADD, batch[i].name,
                               private_of(batch[i].key, batch[i].bucket)) < 0)
                return;             /* again at the next fetch */
            v->bits[batch[i].key][batch[i].bucket / 64] |= 1ull << (batch[i].bucket % 64);
        }
    } while (k < v->nkeys);
    if (v->nkeys >= nk)
        v->nbuckets = target;       /* else keys without an instance yet: look again */
}

/* A line for the PMDA log, from the aggregations. */
static void note(void *arg, const char *msg)
{
    (void)arg;
    pmNotifyErr(LOG_WARNING, "%s", msg);
}

void tp_aggview_refresh(struct pmda_state *s)
{
    struct new_inst *batch;
    if (s->agent.cap) {
        struct tp_aggs_env env = { s->agent.cat, s->agent.demand, s->agent.cap, s->agent.ident,
                                   note, NULL, tp_agent_has_stacks(&s->agent) };
        tp_aggs_read_kernel(&s->agent.aggs, &env);  /* the kernel's counters, as of now */
    }
    if (!s->agent.cap || sync_views(s) < 0 || !(batch = malloc(BATCH * sizeof(*batch))))
        return;
    bool fresh = false;
    for (size_t i = 0; i < s->naggviews; i++) {
        struct agg_view *v = &s->aggviews[i];
        if (!v->gen)
            continue;
        int nk = cache_size(v->keys), nb = cache_size(v->buckets);
        add_keys(s, v, batch);
        if (tp_agg_kind(v->agg) == TP_AGG_HIST || tp_agg_kind(v->agg) == TP_AGG_LATENCY)
            add_buckets(s, v, batch);
        if (cache_size(v->keys) != nk) {
            export_ids(s, v->keys);
            fresh = true;
        }
        if (cache_size(v->buckets) != nb) {
            export_ids(s, v->buckets);
            fresh = true;
        }
    }
    if (fresh)
        tp_instids_save(s->instids);
    free(batch);
}

void tp_aggview_free(struct pmda_state *s)
{
    for (size_t i = 0; i < s->naggviews; i++)
        view_release(&s->aggviews[i]);
    free(s->aggviews);
    s->aggviews = NULL;
    s->naggviews = 0;
}

/* ---- descriptors ----------------------------------------------------------- */

const struct tp_aggregation *tp_aggview_of(const struct pmda_state *s, pmID pmid)
{
    unsigned cl = pmID_cluster(pmid);
    if ((int)pmID_domain(pmid) != s->names.domain || cl < TP_CLUSTER_FIELDS)
        return NULL;
    const struct tp_aggregation *ag = tp_aggs_by_id(&s->agent.aggs, cl - TP_CLUSTER_FIELDS);
    unsigned item = pmID_item(pmid);
    return ag && item < TP_AGG_NITEMS && (tp_aggs_items(ag->def) >> item & 1) ? ag : NULL;
}

int tp_aggview_desc(const struct pmda_state *s, const struct tp_aggregation *ag, unsigned item,
                    pmDesc *d)
{
    static const pmUnits count = PMDA_PMUNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
    static const pmUnits nsec = PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_NSEC, 0);
    bool keyed = ag->def->nby > 0, latency = ag->def->kind == TP_CONFIG_LATENCY;
    *d = (pmDesc){ pmID_build((unsigned)s->names.domain, TP_CLUSTER_FIELDS + ag->id, item),
                   PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, count };
    switch (item) {
    case TP_AGG_ITEM_COUNT:
        d->indom = keyed ? keys_indom(s, ag->id) : PM_INDOM_NULL;
        break;
    case TP_AGG_ITEM_SUM:
        d->indom = keyed ? keys_indom(s, ag->id) : PM_INDOM_NULL;
        d->units = latency ? nsec : count;     /* the field's own unit is not known */
        if (tp_agg_signed(ag->agg)) {           /* it may go down: a level, not a counter */
            d->type = PM_TYPE_64;
            d->sem = PM_SEM_INSTANT;
        }
        break;
    case TP_AGG_ITEM_HIST:
        d->indom = keys_indom(s, ag->id) + 1;
        break;
    case TP_AGG_ITEM_PENDING:
        d->type = PM_TYPE_U32;
        d->sem = PM_SEM_INSTANT;
        break;
    case TP_AGG_ITEM_BACKEND:
        d->type = PM_TYPE_STRING;
        d->sem = PM_SEM_DISCRETE;
        d->units = (pmUnits)PMDA_PMUNITS(0, 0, 0, 0, 0, 0);
        break;
    case TP_AGG_ITEM_DROPPED:
    case TP_AGG_ITEM_OVERFLOW:
        break;
    default:
        return PM_ERR_PMID;
    }
    return 0;
}

/* ---- values ---------------------------------------------------------------- */

/* The key and bucket of an instance (PM_IN_NULL: the one key of an unkeyed aggregation). */
static bool which_key(pmInDom indom, unsigned inst, size_t *key, unsigned *bucket)
{
    void *priv = NULL;
    if (indom == PM_INDOM_NULL) {
        *key = 0;
        *bucket = NO_BUCKET;
        return true;
    }
    if (pmdaCacheLookup(indom, (int)inst, NULL, &priv) != PMDA_CACHE_ACTIVE || !priv)
        return false;
    uintptr_t p = (uintptr_t)priv;
    *key = (p >> 8) - 1;
    *bucket = (unsigned)(p & 0xff);
    return true;
}

/* lock held */
static void key_value(const struct tp_agg *agg, unsigned item, size_t k, unsigned bucket,
                      pmAtomValue *atom)
{
    const struct tp_agg_key *key = k < tp_agg_nkeys(agg) ? tp_agg_key(agg, k) : NULL;
    atom->ull = 0;
    if (!key)
        return;                     /* not seen yet: nothing counted */
    if (item == TP_AGG_ITEM_COUNT)
        atom->ull = key->count;
    else if (item == TP_AGG_ITEM_SUM)
        atom->ll = key->sum;
    else if (bucket < TP_AGG_BUCKETS && key->hist)
        atom->ull = key->hist[bucket];
}

int tp_aggview_value(struct pmda_state *s, pmdaMetric *mdesc, unsigned inst, pmAtomValue *atom)
{
    const struct tp_aggregation *ag = tp_aggview_of(s, mdesc->m_desc.pmid);
    const struct agg_view *v = ag ? view_of(s, ag->id) : NULL;
    unsigned item = pmID_item(mdesc->m_desc.pmid), bucket = NO_BUCKET;
    size_t key = 0;
    if (!v || v->gen != ag->gen)
        return PM_ERR_PMID;
    if (item <= TP_AGG_ITEM_HIST && !which_key(mdesc->m_desc.indom, inst, &key, &bucket))
        return PM_ERR_INST;
    tp_capture_lock(s->agent.cap);
    switch (item) {
    case TP_AGG_ITEM_DROPPED: atom->ull = tp_agg_dropped(ag->agg); break;
    case TP_AGG_ITEM_OVERFLOW: atom->ull = tp_agg_overflow(ag->agg); break;
    case TP_AGG_ITEM_PENDING: atom->ul = (uint32_t)tp_agg_pending(ag->agg); break;
    case TP_AGG_ITEM_BACKEND: atom->cp = (char *)tp_aggs_backend(ag); break;
    default: key_value(ag->agg, item, key, bucket, atom); break;
    }
    tp_capture_unlock(s->agent.cap);
    return PMDA_FETCH_STATIC;
}

/* ---- help ------------------------------------------------------------------ */

static const char *what_of(const struct tp_config_agg *def)
{
    switch (def->kind) {
    case TP_CONFIG_COUNT: return "events counted";
    case TP_CONFIG_SUM: return "events added up";
    case TP_CONFIG_HIST: return "events in a histogram";
    default: return "start-to-end latencies";
    }
}

static void oneline(const struct tp_config_agg *def, unsigned item, char *buf, size_t len)
{
    switch (item) {
    case TP_AGG_ITEM_COUNT:
        snprintf(buf, len, "%s: %s%s", def->name, what_of(def), def->nby ? ", per key" : "");
        break;
    case TP_AGG_ITEM_SUM:
        if (def->kind == TP_CONFIG_LATENCY)
            snprintf(buf, len, "%s: nanoseconds from start to end, added up", def->name);
        else
            snprintf(buf, len, "%s: sum of field %s", def->name, def->field);
        break;
    case TP_AGG_ITEM_HIST:
        snprintf(buf, len, "%s: log2 histogram of %s", def->name,
                 def->kind == TP_CONFIG_LATENCY ? "latency in nanoseconds" : def->field);
        break;
    case TP_AGG_ITEM_DROPPED:
        snprintf(buf, len, "%s: events not counted", def->name);
        break;
    case TP_AGG_ITEM_OVERFLOW:
        snprintf(buf, len, "%s: events counted under \"other\" (max_keys reached)", def->name);
        break;
    case TP_AGG_ITEM_BACKEND:
        snprintf(buf, len, "%s: computed by the kernel or by the producer", def->name);
        break;
    default:
        snprintf(buf, len, "%s: starts waiting for their end", def->name);
        break;
    }
}

static const char *item_help(const struct tp_config_agg *def, unsigned item)
{
    switch (item) {
    case TP_AGG_ITEM_COUNT:
        return def->kind == TP_CONFIG_LATENCY
               ? "Start events paired with their end event, each pair counted once."
               : "Events counted, from every matching event since the aggregation started.";
    case TP_AGG_ITEM_SUM:
        return def->kind == TP_CONFIG_LATENCY
               ? "Nanoseconds from each start event to its end event, added up (divide\n"
                 "by .count for the mean latency)."
               : "The field's values added up.  For a signed field the sum is signed, and\n"
                 "an instant value rather than a counter, since it may go down.";
    case TP_AGG_ITEM_HIST:
        return "One instance per key and log2 bucket, named \"KEY,bucket=LOW-HIGH\" (or\n"
               "\"bucket=LOW-HIGH\" without by): values from LOW to HIGH inclusive, e.g.\n"
               "bucket=4-7; \"bucket=<0\" holds negative values.  A bucket appears once it\n"
               "has counted something.";
    case TP_AGG_ITEM_DROPPED:
        return "Events this aggregation could not count: events the kernel lost while it\n"
               "was active (an upper bound: the kernel does not say which events it lost),\n"
               "records too short for the fields, and for latency, starts that found\n"
               "max_pending starts waiting (the older half of them go) or that were\n"
               "followed by another start of the same pairing values before any end.";
    case TP_AGG_ITEM_OVERFLOW:
        return "Events of keys beyond max_keys, counted under the instance \"other\".";
    case TP_AGG_ITEM_BACKEND:
        return "What computes the aggregation: \"counter\" (the kernel's perf tracepoint\n"
               "counters, one per event and CPU, the filter evaluated by the kernel: exact,\n"
               "nothing dropped), \"kernel\" (hist triggers in the PMDA's instance: its\n"
               "events never reach the ring, and entries the kernel's map could not hold\n"
               "are counted in dropped) or \"producer\" (the PMDA's reader, from the\n"
               "ring).  The metrics, instance names and ids are the same every way; the\n"
               "PMDA log says why an aggregation is not the kernel's.";
    default:
        return "Start events waiting for their end event now (at most max_pending).";
    }
}

int tp_aggview_text(const struct pmda_state *s, pmID pmid, int type, char *buf, size_t len)
{
    const struct tp_aggregation *ag = tp_aggview_of(s, pmid);
    if (!ag)
        return PM_ERR_PMID;
    const struct tp_config_agg *def = ag->def;
    if (type & PM_TEXT_ONELINE) {
        oneline(def, pmID_item(pmid), buf, len);
        return 0;
    }
    bool keyed = def->nby && pmID_item(pmid) <= TP_AGG_ITEM_SUM;
    snprintf(buf, len,
             "Aggregation %s, defined on line %d of tracepoint.conf as\n    %s\n%s%s",
             def->name, def->line, def->text, item_help(def, pmID_item(pmid)),
             keyed ? "\nOne instance per key, named FIELD=VALUE[,FIELD=VALUE...]; instance ids\n"
                     "stay the same across restarts." : "");
    return 0;
}
