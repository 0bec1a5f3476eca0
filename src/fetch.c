/*
 * Values of the PMDA's metrics, one (metric, instance) at a time, for the
 * context whose fetch is in progress (pmda_state.ctx).
 *
 * Event arrays are returned by reference: each (metric, instance) has its own
 * encoder, refilled at most once per fetch, so its array stays valid until
 * pmcd has the reply; a fetch that names the same (metric, instance) twice
 * gets the same array twice.  Nothing pending: no value, not an empty array.
 *
 * A context's positions move only with what goes into its arrays: a record
 * that does not fit (the array is full, or memory ran out) stays in the ring
 * for the next fetch, and if pmdaFetch itself fails, tp_fetch_undo() puts
 * the context's positions back, so nothing taken is lost with the reply.
 *
 * Threading: PMDA thread; takes the capture lock around ring reads.
 */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tp_access.h"
#include "tp_control.h"
#include "tp_pmda.h"
#include "tp_probeset.h"

/* Remember the context's positions before this fetch first moves them. */
static void note_undo(struct pmda_state *s, const struct tp_client *cl)
{
    struct tp_fetch_undo *u = &s->undo;
    if (u->serial == s->fetch_serial)
        return;
    u->serial = s->fetch_serial;
    u->ctx = cl->ctx;
    u->started = cl->started;
    memcpy(u->cursor, cl->cursor, sizeof(u->cursor));
    u->owed_records = cl->owed_records;
    u->delivered = s->agent.delivered;
    u->missed = s->agent.missed;
}

bool tp_fetch_undo(struct pmda_state *s)
{
    struct tp_fetch_undo *u = &s->undo;
    if (u->serial != s->fetch_serial)
        return false;
    u->serial = 0;
    struct tp_client *cl = tp_clients_find(s->agent.clients, u->ctx);
    if (!cl)
        return false;
    cl->started = u->started;
    memcpy(cl->cursor, u->cursor, sizeof(u->cursor));
    cl->owed_records = u->owed_records;
    s->agent.delivered = u->delivered;
    s->agent.missed = u->missed;
    for (size_t i = 0; i < s->agent.streams.n; i++)
        s->arrays[i].serial = 0;    /* refill them next time */
    s->records_array.serial = 0;
    return true;
}

/* Bytes the event arrays hold now. */
static size_t arrays_held(const struct pmda_state *s)
{
    size_t n = s->records_array.enc.cap;
    for (size_t i = 0; i < s->nstreams; i++)
        n += s->arrays[i].enc.cap;
    return n;
}

/* What this array may grow to: fetch_limit less what the others hold. */
static size_t array_budget(const struct pmda_state *s, const struct tp_array *arr)
{
    size_t others = arrays_held(s) - arr->enc.cap, limit = s->agent.cfg.fetch_limit;
    size_t budget = limit > others ? limit - others : 0;
    return budget > MIN_ARRAY_BYTES ? budget : MIN_ARRAY_BYTES;
}

/*
 * Fill the array from the cursor on slot: all the context has pending, up
 * to the array's budget and FETCH_TIME_NS, releasing the capture lock every
 * SCAN_BUDGET ring entries examined so the producer is never held up long.
 * What the context is owed (owed, may be NULL) comes first.
 */
static int fill(struct pmda_state *s, struct tp_client *cl, int slot, uint64_t since,
                unsigned with, uint64_t *owed, struct tp_array *arr, struct tp_fill_result *res)
{
    struct tp_agent *a = &s->agent;
    struct tp_fill_src src = { .ids = &a->param_ids, .cat = a->cat, .render = a->render,
                               .with = with };
    tp_slotmask bit = slot >= 0 ? (tp_slotmask)1 << slot : 0;
    uint64_t deadline = tp_mono_now() + FETCH_TIME_NS;
    tp_enc_set_limit(&arr->enc, array_budget(s, arr));
    int rc = tp_enc_reset(&arr->enc);
    if (rc < 0)
        return rc;
    do {
        unsigned budget = with & TP_WITH_TEXT ? SCAN_BUDGET / 8 : SCAN_BUDGET;
        tp_capture_lock(a->cap);
        struct tp_ring *ring = src.ring = tp_capture_ring(a->cap);
        const struct tp_clock *clock = src.clock = tp_capture_clock(a->cap);
        if (slot >= 0 && !(cl->started & bit)) {
            /* a backlog never hands a client again what it had in another context */
            if (since == UINT64_MAX ||
                !tp_clients_resume(a->clients, cl, (unsigned)slot, &cl->cursor[slot]))
                tp_cursor_init(ring, &cl->cursor[slot], (unsigned)slot, since);
            cl->started |= bit;
        }
        if (owed && *owed) {
            uint64_t now = tp_clock_wall(clock, tp_clock_current(clock), tp_mono_now());
            if ((rc = tp_records_missed(&arr->enc, *owed, now)) == 0) {
                res->missed += *owed;
                *owed = 0;
            }
        }
        if (rc >= 0 && slot >= 0)
            rc = tp_records_fill(&src, &arr->enc, &cl->cursor[slot], arr->enc.limit,
                                 a->cfg.fetch_records ? a->cfg.fetch_records : UINT_MAX,
                                 &budget, res);
        tp_capture_unlock(a->cap);
        if (rc == TP_FILL_MORE && tp_mono_now() > deadline)
            rc = TP_FILL_FULL;      /* the rest at the next fetch: others are waiting */
    } while (rc == TP_FILL_MORE);
    return rc;
}

/*
 * The value of one event (metric, instance) for this fetch: filled the
 * first time the fetch asks for it, the same array after that.
 */
static int array_value(struct pmda_state *s, struct tp_client *cl, int slot, uint64_t since,
                       unsigned with, uint64_t *owed, struct tp_array *arr, pmAtomValue *atom)
{
    if (arr->serial != s->fetch_serial) {
        struct tp_fill_result res = { 0 };
        note_undo(s, cl);
        int rc = fill(s, cl, slot, since, with, owed, arr, &res);
        if (rc == -ENOMEM)
            tp_session_log(s, "context %d: no memory for more event records; %llu sent, "
                           "the rest wait in the ring", cl->ctx,
                           (unsigned long long)res.records);
        s->agent.delivered += res.records;
        s->agent.missed += res.missed;
        arr->serial = s->fetch_serial;
        arr->filled_ns = tp_mono_now();
        arr->rc = rc < 0 && tp_enc_nrecords(&arr->enc) == 0 ? rc
                : tp_enc_nrecords(&arr->enc) == 0 ? PMDA_FETCH_NOVALUES
                : PMDA_FETCH_STATIC;
    }
    if (arr->rc == PMDA_FETCH_STATIC)
        atom->vbp = tp_enc_finish(&arr->enc);
    return arr->rc;
}

/* A stream: a new context's first fetch reaches back `backlog` seconds. */
static int fetch_stream(struct pmda_state *s, struct tp_client *cl, unsigned inst,
                        pmAtomValue *atom)
{
    struct tp_agent *a = &s->agent;
    int i = tp_streams_find_inst(&a->streams, (int)inst);
    if (!a->cap || i < 0)
        return PM_ERR_INST;
    const struct tp_stream *st = &a->streams.v[i];
    if (!tp_access_may_read_stream(a, st, &cl->creds))
        return PM_ERR_PERMISSION;
    uint64_t back = (uint64_t)a->cfg.backlog * 1000000000u, now = tp_mono_now();
    uint64_t since = !back ? UINT64_MAX : back < now ? now - back : 0;  /* 0: all it holds */
    return array_value(s, cl, (int)st->slot, since, st->with, NULL, &s->arrays[i], atom);
}

/* The context's own subscriptions, and what it is owed of ones it lost. */
static int fetch_records(struct pmda_state *s, struct tp_client *cl, pmAtomValue *atom)
{
    if (!s->agent.cap || (cl->slot < 0 && !cl->owed_records))
        return PMDA_FETCH_NOVALUES;
    return array_value(s, cl, cl->slot, UINT64_MAX, cl->with, &cl->owed_records,
                       &s->records_array, atom);
}

/* register: the subscribed events; filter: "event filter" lines; unregister: "". */
static int fetch_control(struct pmda_state *s, struct tp_client *cl, unsigned item,
                         pmAtomValue *atom)
{
    char *buf = s->value;
    size_t n = 0, len = sizeof(s->value);
    buf[0] = '\0';
    if (item == M_CTL_STATUS) {
        tp_control_status(&s->agent, cl, buf, len);
    } else if (item == M_CTL_PARAMS) {
        tp_with_format(cl ? cl->with : TP_WITH_DEFAULT, buf, len);
    } else if (item == M_CTL_PROBE) {
        for (size_t i = 0; i < s->agent.probeset.n && n < len; i++) {
            const struct tp_probedef *d = &s->agent.probeset.v[i];
            if (d->owner == TP_PROBE_OWNER_CONFIG || d->owner == cl->ctx)
                n += (size_t)snprintf(buf + n, len - n, "%s%s %s", n ? "\n" : "",
                                      d->name, d->spec);
        }
    } else if (item != M_CTL_UNREGISTER) {
        for (size_t i = 0; i < cl->nsubs && n < len; i++) {
            const struct tp_sub *sub = &cl->subs[i];
            const char *name = tp_catalog_event(s->agent.cat, sub->event)->fullname;
            if (item == M_CTL_REGISTER)
                n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "," : "", name);
            else if (sub->filter)
                n += (size_t)snprintf(buf + n, len - n, "%s%s %s", n ? "\n" : "", name,
                                      sub->filter);
        }
    }
    atom->cp = buf;
    return PMDA_FETCH_STATIC;
}

static uint64_t resident_bytes(void)
{
    unsigned long size = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "re");
    if (f) {
        if (fscanf(f, "%lu %lu", &size, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    return (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* The counters that live in the capture (under its lock). */
static int fetch_capture_counter(struct pmda_state *s, unsigned item, unsigned inst,
                                 pmAtomValue *atom)
{
    struct tp_capture *cap = s->agent.cap;
    struct tp_capture_stats st = { 0 };
    struct tp_ring_stats rs = { .capacity = s->agent.cfg.ring_size };
    uint64_t count = 0;
    int ev = item == M_COUNT && cap ? tp_agent_event_of_id(&s->agent, inst) : -1;
    if (cap) {
        tp_capture_lock(cap);
        tp_capture_get_stats(cap, &st);
        tp_ring_get_stats(tp_capture_ring(cap), &rs);
        count = ev >= 0 ? tp_capture_event_count(cap, (size_t)ev) : 0;
        tp_capture_unlock(cap);
    }
    switch (item) {
    case M_COUNT:
        if (ev < 0 || !tp_demand_enabled(s->agent.demand, (size_t)ev))
            return PM_ERR_INST;
        atom->ull = count;
        break;
    case M_CAPTURED: atom->ull = st.captured; break;
    case M_LOST: atom->ull = st.lost; break;
    case M_RING_BYTES: atom->ull = rs.used; break;
    case M_LOCK_WAIT_MAX: atom->ull = st.lock_wait_max; break;
    case M_WAKEUPS: atom->ull = st.wakeups; break;
    case M_LATE: atom->ull = st.late; break;
    case M_STACK_MISSING: atom->ull = st.stack_missing; break;
    case M_STACK_ORPHANS: atom->ull = st.stack_orphans; break;
    default: atom->ull = rs.capacity; break;
    }
    return PMDA_FETCH_STATIC;
}

/*
 * Events held for the context in slot and not yet fetched: exact once its
 * cursor started (missed ones included), an upper bound before.
 */
static uint64_t pending_in(struct pmda_state *s, const struct tp_client *cl, unsigned slot)
{
    struct tp_ring *ring = tp_capture_ring(s->agent.cap);
    uint64_t matched = tp_ring_slot_matched(ring, slot);
    if (cl->started >> slot & 1)
        return matched - cl->cursor[slot].ord;
    return matched - tp_ring_slot_evicted(ring, slot);
}

/*
 * A fetch that names the records as well gets what is left after them,
 * whatever the order of its PMIDs: their array is filled first, and the
 * records' value is that same array.  So a pmlogger logging both in one
 * group has, in its last sample, exactly what it never archived.
 */
static void fill_records_first(struct pmda_state *s, struct tp_client *cl, unsigned item,
                               unsigned inst)
{
    pmAtomValue unused;
    if (item == M_STREAM_PENDING && (s->fetch_wants & 1u << M_STREAM_RECORDS))
        (void)fetch_stream(s, cl, inst, &unused);
    else if (item == M_PENDING && (s->fetch_wants & 1u << M_RECORDS))
        (void)fetch_records(s, cl, &unused);
}

/* tracepoint.pending (its subscriptions) and tracepoint.stream.pending. */
static int fetch_pending(struct pmda_state *s, struct tp_client *cl, unsigned item,
                         unsigned inst, pmAtomValue *atom)
{
    struct tp_agent *a = &s->agent;
    int i = item == M_STREAM_PENDING ? tp_streams_find_inst(&a->streams, (int)inst) : -1;
    if (item == M_STREAM_PENDING && (!a->cap || i < 0))
        return PM_ERR_INST;
    if (item == M_STREAM_PENDING &&
        !tp_access_may_read_stream(a, &a->streams.v[i], &cl->creds))
        return PM_ERR_PERMISSION;
    fill_records_first(s, cl, item, inst);
    atom->ull = item == M_PENDING ? cl->owed_records : 0;
    if (a->cap && (i >= 0 || cl->slot >= 0)) {
        tp_capture_lock(a->cap);
        atom->ull += pending_in(s, cl, i >= 0 ? a->streams.v[i].slot : (unsigned)cl->slot);
        tp_capture_unlock(a->cap);
    }
    return PMDA_FETCH_STATIC;
}

static int fetch_client_metric(struct pmda_state *s, unsigned item, unsigned inst,
                               pmAtomValue *atom)
{
    struct tp_client *cl = tp_session_client(s, s->ctx);
    if (!cl)
        return -ENOMEM;
    switch (item) {
    case M_STREAM_RECORDS: return fetch_stream(s, cl, inst, atom);
    case M_RECORDS: return fetch_records(s, cl, atom);
    case M_PENDING:
    case M_STREAM_PENDING: return fetch_pending(s, cl, item, inst, atom);
    case M_CTL_AGG:
        return tp_oneliners_document(&s->agent, cl->ctx, &atom->cp) < 0 ? -ENOMEM
                                                                        : PMDA_FETCH_DYNAMIC;
    default: return fetch_control(s, cl, item, atom);
    }
}

int tp_fetch_value(pmdaMetric *mdesc, unsigned int inst, pmAtomValue *atom)
{
    struct pmda_state *s = mdesc->m_user;
    unsigned cl = pmID_cluster(mdesc->m_desc.pmid), item = pmID_item(mdesc->m_desc.pmid);
    if (cl != TP_CLUSTER_METRICS && tp_aggview_of(s, mdesc->m_desc.pmid))
        return tp_aggview_value(s, mdesc, inst, atom);
    if (cl != TP_CLUSTER_METRICS)
        return PMDA_FETCH_NOVALUES;     /* parameters have values only inside records */
    switch (item) {
    case M_STREAM_RECORDS:
    case M_RECORDS:
    case M_CTL_REGISTER:
    case M_CTL_FILTER:
    case M_CTL_UNREGISTER:
    case M_CTL_STATUS:
    case M_CTL_PARAMS:
    case M_CTL_PROBE:
    case M_CTL_AGG:
    case M_PENDING:
    case M_STREAM_PENDING:
        return fetch_client_metric(s, item, inst, atom);
    case M_FETCH_BYTES: atom->ull = arrays_held(s); break;
    case M_FETCH_LIMIT: atom->ull = s->agent.cfg.fetch_limit; break;
    case M_FEATURES: atom->cp = s->agent.features_text; break;
    case M_CTL_RELOAD: atom->ull = s->reloads; break;
    case M_RING_SECONDS:
        if (s->ring_rate < 1)
            return PMDA_FETCH_NOVALUES;     /* nothing flows: it would hold forever */
        atom->d = (double)s->agent.cfg.ring_size / s->ring_rate;
        break;
    case M_DELIVERED: atom->ull = s->agent.delivered; break;
    case M_MISSED: atom->ull = s->agent.missed; break;
    case M_CLIENTS: atom->ul = (uint32_t)tp_clients_active(s->agent.clients); break;
    case M_SUBSCRIPTIONS: atom->ul = (uint32_t)tp_control_count(&s->agent); break;
    case M_MEMORY: atom->ull = resident_bytes(); break;
    default: return fetch_capture_counter(s, item, inst, atom);
    }
    return PMDA_FETCH_STATIC;
}

void tp_fetch_sweep(struct pmda_state *s, uint64_t now)
{
    bool freed = false;
    for (size_t i = 0; i <= s->nstreams; i++) {
        struct tp_array *arr = i < s->nstreams ? &s->arrays[i] : &s->records_array;
        if (now - arr->filled_ns > ARRAY_IDLE_NS && arr->enc.cap) {
            tp_enc_release(&arr->enc);      /* its last reply went long ago */
            freed = true;
        }
    }
    if (freed)          /* and the heap kept for replies (pmda.c, tune_replies) */
        (void)malloc_trim(0);
    if (!s->agent.cap)
        return;
    struct tp_ring_stats rs;
    tp_capture_lock(s->agent.cap);
    tp_ring_get_stats(tp_capture_ring(s->agent.cap), &rs);
    tp_capture_unlock(s->agent.cap);
    if (s->rate_ns && now > s->rate_ns) {
        double rate = (double)(rs.bytes_appended - s->rate_bytes) * 1e9 / (double)(now - s->rate_ns);
        s->ring_rate += (rate - s->ring_rate) * 0.2;    /* over the last 5 s or so */
    }
    s->rate_bytes = rs.bytes_appended;
    s->rate_ns = now;
}
