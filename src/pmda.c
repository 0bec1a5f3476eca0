/*
 * pmdatracepoint: the PCP glue.  Metric table, dispatch callbacks, main().
 *
 * Threading: everything here runs on the PMDA (main) thread, the only thread
 * that calls libpcp or libpcp_pmda, except signal_main(), which waits for a
 * terminating signal, removes the tracefs instance and exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pcp/pmapi.h>
#include <pcp/pmda.h>

#include "domain.h"
#include "tp_access.h"
#include "tp_control.h"
#include "tp_fault.h"
#include "tp_guard.h"
#include "tp_pmda.h"
#include "tp_statedir.h"
#include "tp_util.h"

/* libpcp_pmda's end-of-context and fetch callbacks carry no user data. */
static struct pmda_state *self;

#define UNITS_NONE  PMDA_PMUNITS(0, 0, 0, 0, 0, 0)
#define UNITS_COUNT PMDA_PMUNITS(0, 0, 1, 0, 0, PM_COUNT_ONE)
#define UNITS_BYTES PMDA_PMUNITS(1, 0, 0, PM_SPACE_BYTE, 0, 0)
#define UNITS_NSEC  PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_NSEC, 0)
#define UNITS_SEC   PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_SEC, 0)
#define METRIC(cl, it, type, indom, sem, units) \
    { NULL, { PMDA_PMID(cl, it), type, indom, sem, units } }

static const pmdaMetric static_metrics[] = {
    METRIC(0, M_STREAM_RECORDS, PM_TYPE_EVENT, STREAM_INDOM, PM_SEM_DISCRETE, UNITS_NONE),
    METRIC(0, M_COUNT, PM_TYPE_U64, EVENTS_INDOM, PM_SEM_COUNTER, UNITS_COUNT),
    METRIC(0, M_CAPTURED, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_COUNT),
    METRIC(0, M_DELIVERED, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_COUNT),
    METRIC(0, M_MISSED, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_COUNT),
    METRIC(0, M_LOST, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_COUNT),
    METRIC(0, M_CLIENTS, PM_TYPE_U32, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_NONE),
    METRIC(0, M_SUBSCRIPTIONS, PM_TYPE_U32, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_NONE),
    METRIC(0, M_RING_BYTES, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_BYTES),
    METRIC(0, M_RING_CAPACITY, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_BYTES),
    METRIC(0, M_MEMORY, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_BYTES),
    METRIC(0, M_RECORDS, PM_TYPE_EVENT, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
    METRIC(0, M_CTL_REGISTER, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
    METRIC(0, M_CTL_FILTER, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
    METRIC(0, M_CTL_UNREGISTER, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
    METRIC(0, M_CTL_STATUS, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
    METRIC(0, M_LOCK_WAIT_MAX, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_NSEC),
    METRIC(0, M_WAKEUPS, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_COUNT),
    METRIC(0, M_LATE, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_COUNT),
    METRIC(0, M_STACK_MISSING, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_COUNT),
    METRIC(0, M_STACK_ORPHANS, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_COUNT),
    METRIC(0, M_PENDING, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_COUNT),
    METRIC(0, M_STREAM_PENDING, PM_TYPE_U64, STREAM_INDOM, PM_SEM_INSTANT, UNITS_COUNT),
    METRIC(0, M_FETCH_BYTES, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_BYTES),
    METRIC(0, M_FETCH_LIMIT, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_BYTES),
    METRIC(0, M_RING_SECONDS, PM_TYPE_DOUBLE, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_SEC),
    METRIC(0, M_CTL_PARAMS, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
    METRIC(0, M_CTL_PROBE, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
    METRIC(0, M_FEATURES, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
    METRIC(0, M_CTL_AGG, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
    METRIC(0, M_CTL_RELOAD, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_COUNT),
};
#define NSTATIC (sizeof(static_metrics) / sizeof(static_metrics[0]))

static void log_line(void *arg, const char *msg)
{
    (void)arg;
    pmNotifyErr(LOG_INFO, "%s", msg);
}

/* ---- the metric table ---------------------------------------------------- */

static int add_metric(struct pmda_state *s, pmID pmid, int type, pmUnits units)
{
    if (s->nmetrics == s->cap_metrics) {
        size_t cap = s->cap_metrics * 2;
        pmdaMetric *m = realloc(s->metrics, cap * sizeof(*m));
        if (!m)
            return -ENOMEM;
        s->metrics = m;
        s->cap_metrics = cap;
    }
    pmdaMetric *m = &s->metrics[s->nmetrics++];
    memset(m, 0, sizeof(*m));
    m->m_user = s;
    m->m_desc.pmid = pmid;
    m->m_desc.type = type;
    m->m_desc.indom = PM_INDOM_NULL;
    m->m_desc.sem = PM_SEM_INSTANT;
    m->m_desc.units = units;
    s->rehash = 1;
    return 0;
}

static void sync_metrics(struct pmda_state *s)
{
    if (!s->rehash || s->bulk)
        return;
    pmdaRehash(s->dispatch->version.any.ext, s->metrics, (int)s->nmetrics);
    s->rehash = 0;
}

static bool in_table(const struct pmda_state *s, pmID pmid)
{
    for (size_t i = 0; i < s->nmetrics; i++)
        if (s->metrics[i].m_desc.pmid == pmid)
            return true;
    return false;
}

/*
 * names.load hook: make the event ready and put its fields in the table.
 * However it ends, libpcp_pmda learns of a table that moved.
 */
static int load_event(void *arg, size_t ev)
{
    struct pmda_state *s = arg;
    int rc = tp_agent_load_event(&s->agent, ev);
    const struct tp_event *e = tp_catalog_event(s->agent.cat, ev);
    if (rc < 0 || (s->registered[ev] && !e->probe))
        return rc;
    const struct tp_field_ids *f = &s->agent.fields[ev];
    size_t before = s->nmetrics;
    for (unsigned i = 0; rc == 0 && i < f->nfields; i++)
        if (!e->probe || !in_table(s, f->pmid[i]))     /* a probe slot is bound again and again */
            rc = add_metric(s, f->pmid[i], e->fields[i].pmtype, (pmUnits)UNITS_NONE);
    if (rc < 0)
        s->nmetrics = before;       /* all of the event's fields, or none */
    s->registered[ev] = rc == 0;
    s->rehash = 1;
    sync_metrics(s);
    return rc;
}

/* names hooks: which PMID a field has is the identity map's. */
static pmID field_pmid(void *arg, size_t ev, unsigned field)
{
    const struct tp_field_ids *f = &((struct pmda_state *)arg)->agent.fields[ev];
    return f->pmid && field < f->nfields ? f->pmid[field] : PM_ID_NULL;
}

static int event_of(void *arg, pmID pmid)
{
    struct pmda_state *s = arg;
    unsigned cl = pmID_cluster(pmid);
    if ((int)pmID_domain(pmid) != s->names.domain || cl < TP_CLUSTER_FIELDS)
        return -1;
    return tp_agent_event_of_id(&s->agent, cl - TP_CLUSTER_FIELDS);
}

static int field_of(void *arg, size_t ev, pmID pmid)
{
    return tp_agent_field_of_item(&((struct pmda_state *)arg)->agent, ev, pmID_item(pmid));
}

/* names hook: the aggregations in service. */
static const char *agg_entry(void *arg, size_t i, unsigned *cluster, unsigned *items)
{
    const struct tp_aggs *ag = &((struct pmda_state *)arg)->agent.aggs;
    if (i >= ag->n)
        return NULL;
    *cluster = TP_CLUSTER_FIELDS + ag->v[i].id;
    *items = tp_aggs_items(ag->v[i].def);
    return ag->v[i].def->name;
}

/* Is this table entry an aggregation's metric (of the aggregations of any config)? */
static bool is_agg_metric(const struct pmda_state *s, pmID pmid)
{
    unsigned cl = pmID_cluster(pmid);
    return cl >= TP_CLUSTER_FIELDS &&
           tp_agent_event_of_id(&s->agent, cl - TP_CLUSTER_FIELDS) < 0;
}

/* The aggregations' metrics in the table: those of the ones in service now. */
static int register_aggs(struct pmda_state *s)
{
    size_t kept = 0;
    for (size_t i = 0; i < s->nmetrics; i++)
        if (!is_agg_metric(s, s->metrics[i].m_desc.pmid))
            s->metrics[kept++] = s->metrics[i];
    s->nmetrics = kept;
    s->rehash = 1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < s->agent.aggs.n; i++) {
        const struct tp_aggregation *ag = &s->agent.aggs.v[i];
        unsigned items = tp_aggs_items(ag->def);
        for (unsigned it = 0; rc == 0 && it < TP_AGG_NITEMS; it++) {
            pmDesc d;
            if (!(items >> it & 1) || tp_aggview_desc(s, ag, it, &d) < 0)
                continue;
            if ((rc = add_metric(s, d.pmid, d.type, d.units)) == 0) {
                s->metrics[s->nmetrics - 1].m_desc.indom = d.indom;
                s->metrics[s->nmetrics - 1].m_desc.sem = d.sem;
            }
        }
    }
    return rc;
}

static int init_metrics(struct pmda_state *s)
{
    s->cap_metrics = 256;
    s->metrics = calloc(s->cap_metrics, sizeof(*s->metrics));
    size_t nev = s->agent.cat ? tp_catalog_count(s->agent.cat) : 0;
    s->registered = calloc(nev ? nev : 1, 1);
    if (!s->metrics || !s->registered)
        return -ENOMEM;
    memcpy(s->metrics, static_metrics, sizeof(static_metrics));
    for (size_t i = 0; i < NSTATIC; i++)
        s->metrics[i].m_user = s;
    s->nmetrics = NSTATIC;
    for (unsigned i = 0; i < TP_NCOMMON; i++) {
        pmdaMetric *m = &s->metrics[s->nmetrics++];
        memset(m, 0, sizeof(*m));
        m->m_user = s;
        m->m_desc = (pmDesc){ PMDA_PMID(TP_CLUSTER_COMMON, i), tp_names_common_type(i),
                              PM_INDOM_NULL,
                              PM_SEM_INSTANT, UNITS_NONE };
        if (i == TP_PARAM_TIME_NS)
            m->m_desc.units = (pmUnits)PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_NSEC, 0);
    }
    return 0;
}

/* ---- instance domains ---------------------------------------------------- */

/* The streams' instance domain and event arrays, for the streams there are now. */
static int stream_arrays(struct pmda_state *s)
{
    const struct tp_streams *st = &s->agent.streams;
    pmdaInstid *set = calloc(st->n ? st->n : 1, sizeof(*set));
    struct tp_array *arrays = calloc(st->n ? st->n : 1, sizeof(*arrays));
    if (!set || !arrays) {
        free(set);
        free(arrays);
        return -ENOMEM;
    }
    for (size_t i = 0; s->arrays && i < s->nstreams; i++)
        tp_enc_release(&s->arrays[i].enc);
    free(s->arrays);
    free(s->indoms[0].it_set);
    s->arrays = arrays;
    s->nstreams = st->n;
    for (size_t i = 0; i < st->n; i++) {
        tp_enc_init(&arrays[i].enc);
        set[i].i_inst = st->v[i].inst;
        set[i].i_name = st->v[i].name;
    }
    s->indoms[0].it_numinst = (int)st->n;    /* it_indom is pmdaInit's once it ran */
    s->indoms[0].it_set = set;
    return 0;
}

static int init_indoms(struct pmda_state *s)
{
    tp_enc_init(&s->records_array.enc);
    s->indoms[0] = (pmdaIndom){ STREAM_INDOM, 0, NULL };
    s->indoms[1] = (pmdaIndom){ EVENTS_INDOM, 0, NULL };
    return stream_arrays(s);
}

/* Read the config again, then serve the streams it has (s->reload). */
static int reload_config(struct pmda_state *s, const char *why)
{
    pmNotifyErr(LOG_INFO, "%s: reading %s again", why, s->config_path);
    int loaded = tp_agent_reload(&s->agent, s->config_path);
    int rc = stream_arrays(s);
    if (register_aggs(s) < 0 || rc < 0)
        pmNotifyErr(LOG_ERR, "out of memory after reloading the config");
    sync_metrics(s);
    s->reloads++;
    return loaded;
}

/* SIGHUP (the signal thread's byte in the pipe). */
static void reload(struct pmda_state *s)
{
    char c;
    while (read(s->hup_fd[0], &c, 1) > 0)
        ;
    reload_config(s, "SIGHUP");
}

/*
 * The streams this context may read, as instances of tracepoint.stream.records:
 * a stream a client may not read is not shown to it at all (an unreadable
 * instance must not turn the whole metric into an error).
 */
static void refresh_streams_indom(struct pmda_state *s, int ctx)
{
    static const struct tp_creds nobody;
    const struct tp_client *cl = tp_clients_find(s->agent.clients, ctx);
    const struct tp_creds *cr = cl ? &cl->creds : &nobody;
    const struct tp_streams *st = &s->agent.streams;
    pmdaInstid *set = s->indoms[0].it_set;
    int n = 0;
    for (size_t i = 0; i < st->n; i++) {
        if (!tp_access_may_read_stream(&s->agent, &st->v[i], cr))
            continue;
        set[n].i_inst = st->v[i].inst;
        set[n++].i_name = st->v[i].name;
    }
    s->indoms[0].it_numinst = n;
}

/* The enabled events, as instances of tracepoint.count. */
static void refresh_events_indom(struct pmda_state *s)
{
    pmdaIndom *idp = &s->indoms[1];
    if (!s->agent.demand || (idp->it_set && tp_demand_generation(s->agent.demand) == s->events_gen))
        return;                     /* unchanged since the last rebuild */
    size_t n = tp_demand_count(s->agent.demand);
    uint32_t *ids = calloc(n ? n : 1, sizeof(*ids));
    pmdaInstid *set = calloc(n ? n : 1, sizeof(*set));
    if (!ids || !set) {
        free(ids);
        free(set);
        return;
    }
    if (n)
        tp_demand_list(s->agent.demand, ids, n);
    for (size_t i = 0; i < n; i++) {
        set[i].i_inst = s->agent.eid[ids[i]];
        set[i].i_name = tp_catalog_event(s->agent.cat, ids[i])->fullname;
    }
    free(ids);
    free(idp->it_set);
    idp->it_set = set;
    idp->it_numinst = (int)n;
    s->events_gen = tp_demand_generation(s->agent.demand);
}

/* Which of the context's event metrics (cluster 0) the request names. */
static unsigned event_metrics_named(int n, const pmID *pmids)
{
    unsigned wants = 0;
    for (int i = 0; i < n; i++) {
        unsigned item = pmID_item(pmids[i]);
        if (pmID_cluster(pmids[i]) == TP_CLUSTER_METRICS &&
            (item == M_STREAM_RECORDS || item == M_RECORDS))
            wants |= 1u << item;
    }
    return wants;
}

/* Make sure every field PMID asked for is in the table before pmdaFetch runs. */
static void load_requested(struct pmda_state *s, int n, const pmID *pmids)
{
    for (int i = 0; s->agent.cat && i < n; i++) {
        int ev = event_of(s, pmids[i]);
        if (ev >= 0)
            load_event(s, (size_t)ev);
    }
}

/*
 * A fetch request.  Allocations inside it count for the fault build's
 * "fetch" site; if pmdaFetch fails, no reply carries the records this
 * fetch took, so the context's positions go back to where they were.
 */
static int tp_fetch(int n, pmID *pmids, tp_result **resp, pmdaExt *pmda)
{
    self->ctx = pmda->e_context;
    self->fetch_serial++;
    self->fetch_wants = event_metrics_named(n, pmids);
    /* what the kernel recorded until now, however long the producer would sleep */
    (void)tp_agent_catch_up(&self->agent);
    load_requested(self, n, pmids);
    refresh_streams_indom(self, pmda->e_context);
    refresh_events_indom(self);
    tp_aggview_refresh(self);
    tp_fault_enter(TP_FAULT_FETCH);
    int rc = pmdaFetch(n, pmids, resp, pmda);
    tp_fault_leave();
    if (rc < 0 && tp_fetch_undo(self))
        tp_session_log(self, "context %d: fetch failed (%s); its positions are kept for its "
                       "next fetch", self->ctx, pmErrStr(rc));
    return rc;
}

static int tp_instance(pmInDom indom, int inst, char *name, pmInResult **result, pmdaExt *pmda)
{
    refresh_streams_indom(self, pmda->e_context);
    refresh_events_indom(self);
    tp_aggview_refresh(self);
    return pmdaInstance(indom, inst, name, result, pmda);
}

/* ---- descriptors, text, names -------------------------------------------- */

static int tp_desc(pmID pmid, pmDesc *desc, pmdaExt *pmda)
{
    load_requested(self, 1, &pmid);
    return pmdaDesc(pmid, desc, pmda);
}

static int tp_text(int ident, int type, char **buf, pmdaExt *pmda)
{
    if ((type & PM_TEXT_PMID) && tp_aggview_of(self, (pmID)ident)) {
        int rc = tp_aggview_text(self, (pmID)ident, type, self->text, sizeof(self->text));
        *buf = self->text;
        return rc;
    }
    if ((type & PM_TEXT_PMID) && pmID_cluster((pmID)ident) != TP_CLUSTER_METRICS) {
        if (!self->agent.cat && pmID_cluster((pmID)ident) != TP_CLUSTER_COMMON)
            return PM_ERR_PMID;
        int rc = tp_names_text(&self->names, (pmID)ident, type, self->text, sizeof(self->text));
        sync_metrics(self);
        if (rc < 0)
            return rc;
        *buf = self->text;
        return 0;
    }
    return pmdaText(ident, type, buf, pmda);
}

static int tp_pmid(const char *name, pmID *pmid, pmdaExt *pmda)
{
    (void)pmda;
    if (!self->agent.cat)
        return PM_ERR_NAME;
    return tp_names_pmid(&self->names, name, pmid);
}

static int tp_name(pmID pmid, char ***nameset, pmdaExt *pmda)
{
    (void)pmda;
    if (!self->agent.cat)
        return PM_ERR_PMID;
    return tp_names_name(&self->names, pmid, nameset);
}

static int tp_children(const char *name, int traverse, char ***kids, int **sts, pmdaExt *pmda)
{
    (void)pmda;
    if (!self->agent.cat)
        return PM_ERR_NAME;
    self->bulk = 1;
    int rc = tp_names_children(&self->names, name, traverse, kids, sts);
    self->bulk = 0;
    sync_metrics(self);
    return rc;
}

static int tp_store(tp_result *result, pmdaExt *pmda)
{
    self->ctx = pmda->e_context;
    tp_fault_enter(TP_FAULT_STORE);
    int rc = tp_session_store(self, result, pmda->e_context);
    tp_fault_leave();
    return rc;
}

static int tp_attribute(int ctx, int attr, const char *value, int len, pmdaExt *pmda)
{
    tp_session_attribute(self, ctx, attr, value);
    return pmdaAttribute(ctx, attr, value, len, pmda);
}

static void end_context(int ctx)
{
    tp_session_end(self, ctx);
}

/* ---- signals ------------------------------------------------------------- */

/*
 * SIGHUP asks the PMDA thread to read the config again (through a pipe);
 * SIGTERM and SIGINT end the PMDA.
 */
static void *signal_main(void *arg)
{
    sigset_t *set = arg;
    int sig = 0;
    while (sigwait(set, &sig) == 0 && sig == SIGHUP)
        if (write(self->hup_fd[1], "h", 1) < 0)
            continue;               /* a reload is already due */
    /* Only the instance matters: it is global kernel state.  No PCP calls here. */
    tp_agent_emergency_teardown(&self->agent);
    _exit(0);
}

/* First thing in main: every later thread inherits the mask; none is lost. */
static void block_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, set, NULL);
}

/* Once the agent is set up: a signal that came meanwhile is waiting for it. */
static int start_signal_thread(sigset_t *set)
{
    pthread_t t;
    int rc = pthread_create(&t, NULL, signal_main, set);
    if (rc == 0)
        pthread_detach(t);
    return -rc;
}

/* ---- main ---------------------------------------------------------------- */

/*
 * Once a second: the contexts gone silent or dead, the reader's health
 * (session.c); the arrays no fetch used lately, the ring's rate (fetch.c).
 */
static void sweep(struct pmda_state *s)
{
    uint64_t now = tp_mono_now();
    if (now - s->last_sweep_ns < 1000000000u)
        return;
    s->last_sweep_ns = now;
    tp_session_sweep(s, now);
    tp_fetch_sweep(s, now);
}

/*
 * pmdaMain, plus a sweep of client contexts about once a second even when
 * pmcd has nothing for us.
 */
static void main_loop(struct pmda_state *s, pmdaInterface *d)
{
    int fd = d->version.any.ext->e_infd, hup = s->hup_fd[0];
    for (;;) {
        fd_set rfds;
        struct timeval tv = { 1, 0 };
        FD_ZERO(&rfds);
        FD_SET(fd, &rfds);
        FD_SET(hup, &rfds);
        int n = select((fd > hup ? fd : hup) + 1, &rfds, NULL, NULL, &tv);
        if (n < 0 && errno != EINTR) {
            pmNotifyErr(LOG_ERR, "select: %s; exiting", strerror(errno));
            break;
        }
        if (n > 0 && FD_ISSET(hup, &rfds))
            reload(s);
        if (n > 0 && FD_ISSET(fd, &rfds) && (n = __pmdaMainPDU(d)) < 0) {
            if (n != PM_ERR_EOF)        /* pmcd closing the pipe is the usual end */
                pmNotifyErr(LOG_ERR, "from pmcd: %s; exiting", pmErrStr(n));
            break;
        }
        tp_agent_save_ids(&s->agent);       /* ids that request gave out, if any */
        sweep(s);
    }
}

/*
 * Replies to pmcd, as cheap to send as they can be.  libpcp copies each
 * reply into a PDU buffer it allocates and frees per reply: megabytes for a
 * busy stream, which glibc's default settings map afresh from the kernel
 * each time, a page fault per 4 KiB.  Buffers up to REPLY_HEAP_BYTES come
 * from the heap instead, and up to REPLY_KEEP_BYTES freed at its top stay
 * there for the next reply (the PMDA's own allocator, no system setting);
 * tp_fetch_sweep gives them back with the arrays, once no fetch has used
 * an array for ARRAY_IDLE_NS.  The pipe to pmcd is made as wide as the
 * system lets pipes be (/proc/sys/fs/pipe-max-size, at most
 * PMCD_PIPE_BYTES), so that a reply of a megabyte takes one write and one
 * read by pmcd, not sixteen of each with a context switch between.
 */
#define REPLY_HEAP_BYTES (32 << 20)
#define REPLY_KEEP_BYTES (64 << 20)
#define PMCD_PIPE_BYTES  (1 << 20)

static long pipe_max_size(void)
{
    char *text = NULL;
    long max = tp_read_text("/proc/sys/fs/pipe-max-size", 32, &text, NULL) == 0
             ? strtol(text, NULL, 10) : 0;
    free(text);
    return max;
}

static void tune_replies(const pmdaInterface *d)
{
    (void)mallopt(M_MMAP_THRESHOLD, REPLY_HEAP_BYTES);
    (void)mallopt(M_TRIM_THRESHOLD, REPLY_KEEP_BYTES);
    int fd = d->version.any.ext->e_outfd, now = fcntl(fd, F_GETPIPE_SZ);
    long max = pipe_max_size(), want = max < PMCD_PIPE_BYTES ? max : PMCD_PIPE_BYTES;
    if (now >= 0 && now < want && fcntl(fd, F_SETPIPE_SZ, (int)want) < 0)
        pmNotifyErr(LOG_INFO, "the pipe to pmcd stays at %d bytes: %s", now, strerror(errno));
}

static pmLongOptions longopts[] = {
    PMDA_OPTIONS_HEADER("Options"),
    PMDAOPT_DEBUG,
    PMDAOPT_DOMAIN,
    PMDAOPT_HELPTEXT,
    PMDAOPT_LOGFILE,
    PMDAOPT_USERNAME,
    { "config", 1, 'c', "FILE", "configuration file [default $PCP_PMDAS_DIR/tracepoint/tracepoint.conf]" },
    { "ids", 1, 'I', "FILE", "identity map of PMIDs, in a root-only directory that also keeps the instance ids [default $PCP_VAR_DIR/pmdas/tracepoint/state/tracepoint.ids]" },
    PMDA_OPTIONS_END
};

static pmdaOptions opts = {
    .short_options = "c:D:d:h:I:l:U:?",
    .long_options = longopts,
};

static void set_callbacks(pmdaInterface *d)
{
    d->version.seven.fetch = tp_fetch;
    d->version.seven.desc = tp_desc;
    d->version.seven.instance = tp_instance;
    d->version.seven.text = tp_text;
    d->version.seven.pmid = tp_pmid;
    d->version.seven.name = tp_name;
    d->version.seven.children = tp_children;
    d->version.seven.store = tp_store;
    d->version.seven.attribute = tp_attribute;
    pmdaSetFetchCallBack(d, tp_fetch_value);
    pmdaSetEndContextCallBack(d, end_context);
    pmdaSetCommFlags(d, PMDA_FLAG_AUTHORIZE);      /* pmcd forwards client credentials */
}

/*
 * pmdaOpenLog, but never through a link: pmcd's log directory belongs to the
 * account pcp (tp_statedir_log).
 */
static void open_log(pmdaInterface *d)
{
    pmdaExt *e = d->version.any.ext;
    int c, rc = 0;
    if (d->status < 0)
        return;
    if (e->e_logfile && strcmp(e->e_logfile, "-") != 0)
        rc = tp_statedir_log(e->e_logfile);
    pmOpenLog(e->e_name, "-", stderr, &c);
    if (rc < 0)
        pmNotifyErr(LOG_ERR, "cannot open the log %s: %s", e->e_logfile, strerror(-rc));
}

/* The aggregations' instance ids: instances.DOMAIN beside the identity map. */
static int open_instids(struct pmda_state *s, int domain, const char *ids)
{
    char dir[MAXPATHLEN], name[32];
    const char *slash = strrchr(ids, '/');
    pmsprintf(dir, sizeof(dir), "%.*s", slash ? (slash == ids ? 1 : (int)(slash - ids)) : 1,
              slash ? ids : ".");
    pmsprintf(name, sizeof(name), "instances.%d", domain);
    return tp_instids_open(&s->instids, dir, name, log_line, s);
}

static int setup(struct pmda_state *s, pmdaInterface *d, const char *config, const char *ids,
                 const char *old_ids)
{
    tp_fault_slow_start();
    s->reload = reload_config;
    int rc = tp_agent_open(&s->agent, config, ids, old_ids, d->domain, log_line, s);
    tp_control_attach(&s->agent);
    if (rc == 0)
        rc = open_instids(s, d->domain, ids);
    if (rc == 0)
        rc = init_metrics(s);
    s->names = (struct tp_names){ s->agent.cat, d->domain, load_event, field_pmid, event_of,
                                  field_of, agg_entry, s };
    if (rc == 0)
        rc = init_indoms(s);
    return rc;
}

int main(int argc, char **argv)
{
    static struct pmda_state state;
    pmdaInterface dispatch;
    char defconf[MAXPATHLEN], helpfile[MAXPATHLEN], defids[MAXPATHLEN], oldids[MAXPATHLEN];
    char legacy[MAXPATHLEN];
    sigset_t sigs;
    const char *config = defconf, *ids = defids;
    int c;

    pmSetProgname(argv[0]);
    const char *dir = pmGetConfig("PCP_PMDAS_DIR");
    pmsprintf(defconf, sizeof(defconf), "%s/tracepoint/tracepoint.conf", dir);
    pmsprintf(helpfile, sizeof(helpfile), "%s/tracepoint/help", dir);
    /* State in a root-only directory (tp_statedir.h); config/pmda was the older versions'. */
    pmsprintf(defids, sizeof(defids), "%s/pmdas/tracepoint/state/tracepoint.ids",
              pmGetConfig("PCP_VAR_DIR"));
    pmsprintf(legacy, sizeof(legacy), "%s/config/pmda", pmGetConfig("PCP_VAR_DIR"));
    pmsprintf(oldids, sizeof(oldids), "%s/tracepoint.ids", legacy);
    pmdaDaemon(&dispatch, PMDA_INTERFACE_7, pmGetProgname(), TRACEPOINT,
               "tracepoint.log", helpfile);
    while ((c = pmdaGetOptions(argc, argv, &opts, &dispatch)) != EOF) {
        if (c == 'c')
            config = opts.optarg;
        else if (c == 'I')
            ids = opts.optarg;

    }
    if (opts.errors) {
        pmdaUsageMessage(&opts);
        return 1;
    }
    if (opts.username)
        pmSetProcessIdentity(opts.username);
    umask(027);     /* the log names clients, their pids and filters: not for everyone */
    open_log(&dispatch);

    self = &state;
    state.dispatch = &dispatch;
    state.config_path = config;
    block_signals(&sigs);
    if (tp_guard_start(argc, argv) < 0)       /* before any thread: it forks */
        pmNotifyErr(LOG_WARNING, "no watcher for the clean-up: what a killed PMDA leaves in "
                    "the kernel stays until the next start");
    if (pipe2(state.hup_fd, O_CLOEXEC | O_NONBLOCK) < 0) {
        pmNotifyErr(LOG_ERR, "pipe: %s", strerror(errno));
        return 1;
    }
    state.legacy_dir = legacy;
    set_callbacks(&dispatch);
    /*
     * The handshake first: pmcd waits only a few seconds for it (3 s here),
     * and reading every event's format can take longer on a loaded or
     * emulated machine.  What pmcd asks meanwhile waits in the pipe for the
     * main loop, within pmcd's request timeout (pmcd -t, 5 s by default).
     * Not "binary notready" in pmcd.conf: pmlogger 6.0 exits when it checks
     * its metrics while the PMDA is not ready.
     */
    pmdaConnect(&dispatch);
    tune_replies(&dispatch);
    if (setup(&state, &dispatch, config, ids, ids == defids ? oldids : NULL) < 0) {
        pmNotifyErr(LOG_ERR, "out of memory at start-up");
        tp_agent_close(&state.agent);
        return 1;
    }
    pmdaExtSetFlags(dispatch.version.any.ext, PMDA_EXT_FLAG_HASHED);
    pmdaInit(&dispatch, state.indoms, 2, state.metrics, (int)state.nmetrics);
    /* After pmdaInit, which wants the indoms of its table's metrics in its indom table. */
    if (register_aggs(&state) < 0)
        pmNotifyErr(LOG_ERR, "out of memory: the aggregations have no metrics");
    sync_metrics(&state);
    /* The producer, then the signal thread: each starts after all it reads is set. */
    if (tp_agent_start(&state.agent) < 0 || start_signal_thread(&sigs) < 0)
        pmNotifyErr(LOG_ERR, "cannot start a thread; exiting");
    else
        main_loop(&state, &dispatch);

    tp_session_log_flush(&state);
    tp_aggview_free(&state);
    tp_instids_close(state.instids);
    tp_agent_close(&state.agent);
    return 0;
}
