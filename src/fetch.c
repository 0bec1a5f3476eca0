/*
 * Values of the PMDA's metrics, one (metric, instance) at a time, for the
 * context whose fetch is in progress (pmda_state.ctx).
 *
 * Event arrays are returned by reference: each (metric, instance) has its own
 * array, reset at the start of its next fill, so it stays valid until pmcd
 * has the reply.  Nothing pending: no value, not an empty array.
 *
 * Threading: PMDA thread; takes the capture lock around ring reads.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tp_control.h"
#include "tp_pmda.h"

/* One missed record for the *owed events, which then count in res. */
static int pay_owed(struct pmda_state *s, int h, uint64_t *owed, struct tp_fill_result *res)
{
    long rc = tp_records_missed(h, *owed, tp_mono_now(), s->real_offset);
    if (rc < 0) {
        pmdaEventResetArray(h);
        return (int)rc;
    }
    res->missed += *owed;
    *owed = 0;
    return 0;
}

/*
 * An array that could not be completed (no memory) is not sent.  Every event
 * this fetch took from the ring is reported as missed instead: in the array,
 * if one missed record fits, else at the context's next fetch.
 */
static int salvage(struct pmda_state *s, int h, uint64_t *owed, struct tp_fill_result *res,
                   int err)
{
    *owed += res->records + res->missed;
    res->records = res->missed = 0;
    pmdaEventResetArray(h);
    tp_session_log(s, "no memory for an event array (%s); %llu event(s) reported as missed",
                   pmErrStr(err), (unsigned long long)*owed);
    return pay_owed(s, h, owed, res) < 0 ? err : 0;
}

/*
 * Drain what the client's cursor on slot has pending into array h, taking the
 * capture lock for at most BATCH_ENTRIES ring entries at a time so the
 * producer is never held up for long.  What an earlier fetch owes comes first.
 */
static int fill(struct pmda_state *s, struct tp_client *cl, unsigned slot, uint64_t since,
                int h, pmAtomValue *atom)
{
    struct tp_agent *a = &s->agent;
    tp_slotmask bit = (tp_slotmask)1 << slot;
    struct tp_fill_result res = { 0 };
    int rc = 0;
    pmdaEventResetArray(h);
    if (cl->owed[slot] && (rc = pay_owed(s, h, &cl->owed[slot], &res)) < 0)
        return rc;
    do {
        tp_capture_lock(a->cap);
        struct tp_ring *ring = tp_capture_ring(a->cap);
        if (!(cl->started & bit)) {
            tp_cursor_init(ring, &cl->cursor[slot], slot, since);
            cl->started |= bit;
        }
        rc = tp_records_fill(a->records, h, ring, &cl->cursor[slot], a->cat, s->real_offset,
                             MAX_ARRAY_BYTES, BATCH_ENTRIES, &res);
        tp_capture_unlock(a->cap);
    } while (rc == 1);
    if (rc < 0)
        rc = salvage(s, h, &cl->owed[slot], &res, rc);
    a->delivered += res.records;
    a->missed += res.missed;
    if (rc < 0)
        return rc;
    if (res.records == 0 && res.missed == 0)
        return PMDA_FETCH_NOVALUES;
    tp_records_zero_padding(h);
    atom->vbp = (pmValueBlock *)pmdaEventGetAddr(h);
    return PMDA_FETCH_STATIC;
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
    if (!tp_control_may_read(&st->access, &cl->creds))
        return PM_ERR_PERMISSION;
    uint64_t back = (uint64_t)a->cfg.backlog * 1000000000u, now = tp_mono_now();
    return fill(s, cl, st->slot, back && back < now ? now - back : UINT64_MAX,
                s->handles[i], atom);
}

/* The context's own subscriptions. */
static int fetch_records(struct pmda_state *s, struct tp_client *cl, pmAtomValue *atom)
{
    if (!s->agent.cap || cl->slot < 0)
        return PMDA_FETCH_NOVALUES;
    return fill(s, cl, (unsigned)cl->slot, UINT64_MAX, s->records_handle, atom);
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
    if (cap) {
        tp_capture_lock(cap);
        tp_capture_get_stats(cap, &st);
        tp_ring_get_stats(tp_capture_ring(cap), &rs);
        count = tp_capture_event_count(cap, inst);
        tp_capture_unlock(cap);
    }
    switch (item) {
    case M_COUNT:
        if (!s->agent.demand || !tp_demand_enabled(s->agent.demand, inst))
            return PM_ERR_INST;
        atom->ull = count;
        break;
    case M_CAPTURED: atom->ull = st.captured; break;
    case M_LOST: atom->ull = st.lost; break;
    case M_RING_BYTES: atom->ull = rs.used; break;
    default: atom->ull = rs.capacity; break;
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
    default: return fetch_control(s, cl, item, atom);
    }
}

int tp_fetch_value(pmdaMetric *mdesc, unsigned int inst, pmAtomValue *atom)
{
    struct pmda_state *s = mdesc->m_user;
    unsigned cl = pmID_cluster(mdesc->m_desc.pmid), item = pmID_item(mdesc->m_desc.pmid);
    if (cl != TP_CLUSTER_METRICS)
        return PMDA_FETCH_NOVALUES;     /* parameters have values only inside records */
    switch (item) {
    case M_STREAM_RECORDS:
    case M_RECORDS:
    case M_CTL_REGISTER:
    case M_CTL_FILTER:
    case M_CTL_UNREGISTER:
    case M_CTL_STATUS:
        return fetch_client_metric(s, item, inst, atom);
    case M_DELIVERED: atom->ull = s->agent.delivered; break;
    case M_MISSED: atom->ull = s->agent.missed; break;
    case M_CLIENTS: atom->ul = (uint32_t)tp_clients_active(s->agent.clients); break;
    case M_SUBSCRIPTIONS: atom->ul = (uint32_t)tp_control_count(&s->agent); break;
    case M_MEMORY: atom->ull = resident_bytes(); break;
    default: return fetch_capture_counter(s, item, inst, atom);
    }
    return PMDA_FETCH_STATIC;
}
