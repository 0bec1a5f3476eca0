/*
 * pmdatracepoint: the PCP glue.  Metric table, dispatch callbacks, main().
 *
 * Threading: everything here runs on the PMDA (main) thread, the only thread
 * that calls libpcp or libpcp_pmda, except signal_main(), which waits for a
 * terminating signal, removes the tracefs instance and exits.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pcp/pmapi.h>
#include <pcp/pmda.h>

#include "domain.h"
#include "tp_agent.h"
#include "tp_names.h"
#include "tp_pcp_compat.h"

#define STREAM_INDOM 0
#define EVENTS_INDOM 1
#define MAX_ARRAY_BYTES (4u << 20)      /* one event array, well under 16 MiB */

enum metric_item {
    M_STREAM_RECORDS = 1, M_COUNT, M_CAPTURED, M_DELIVERED, M_MISSED, M_LOST,
    M_CLIENTS, M_SUBSCRIPTIONS, M_RING_BYTES, M_RING_CAPACITY, M_MEMORY,
};

struct pmda_state {
    struct tp_agent agent;
    struct tp_names names;
    pmdaInterface *dispatch;
    pmdaMetric *metrics;            /* static part, then loaded events' fields */
    size_t nmetrics, cap_metrics;
    unsigned char *registered;      /* per catalog event: fields in the table */
    int bulk;                       /* defer rehashing while loading many */
    int rehash;
    pmdaIndom indoms[2];
    int *handles;                   /* event array per stream */
    int ctx;                        /* context of the fetch in progress */
    int64_t real_offset;
    char text[4096];
};

/* libpcp_pmda's end-of-context and fetch callbacks carry no user data. */
static struct pmda_state *self;

#define UNITS_NONE  PMDA_PMUNITS(0, 0, 0, 0, 0, 0)
#define UNITS_COUNT PMDA_PMUNITS(0, 0, 1, 0, 0, PM_COUNT_ONE)
#define UNITS_BYTES PMDA_PMUNITS(1, 0, 0, PM_SPACE_BYTE, 0, 0)
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

/* names.load hook: parse the event's format and put its fields in the table. */
static int load_event(void *arg, size_t ev)
{
    struct pmda_state *s = arg;
    int rc = tp_catalog_load(s->agent.cat, ev);
    if (rc < 0 || s->registered[ev])
        return rc;
    const struct tp_event *e = tp_catalog_event(s->agent.cat, ev);
    for (unsigned i = 0; i < e->nfields && i < TP_MAX_FIELDS; i++) {
        pmID id = tp_field_pmid(s->names.domain, ev, i);
        if ((rc = add_metric(s, id, e->fields[i].pmtype, (pmUnits)UNITS_NONE)) < 0)
            return rc;
    }
    s->registered[ev] = 1;
    sync_metrics(s);
    return 0;
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
    static const int common_types[TP_NCOMMON] = {
        [TP_PARAM_EVENT] = PM_TYPE_STRING, [TP_PARAM_CPU] = PM_TYPE_U32,
        [TP_PARAM_PID] = PM_TYPE_32, [TP_PARAM_TIME_NS] = PM_TYPE_U64,
    };
    for (unsigned i = 0; i < TP_NCOMMON; i++) {
        pmdaMetric *m = &s->metrics[s->nmetrics++];
        memset(m, 0, sizeof(*m));
        m->m_user = s;
        m->m_desc = (pmDesc){ PMDA_PMID(TP_CLUSTER_COMMON, i), common_types[i], PM_INDOM_NULL,
                              PM_SEM_INSTANT, UNITS_NONE };
        if (i == TP_PARAM_TIME_NS)
            m->m_desc.units = (pmUnits)PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_NSEC, 0);
    }
    return 0;
}

/* ---- instance domains ---------------------------------------------------- */

static int init_indoms(struct pmda_state *s)
{
    const struct tp_streams *st = &s->agent.streams;
    pmdaInstid *set = calloc(st->n ? st->n : 1, sizeof(*set));
    s->handles = calloc(st->n ? st->n : 1, sizeof(*s->handles));
    if (!set || !s->handles) {
        free(set);
        return -ENOMEM;
    }
    for (size_t i = 0; i < st->n; i++) {
        set[i].i_inst = (int)i;
        set[i].i_name = st->v[i].name;
        if ((s->handles[i] = pmdaEventNewArray()) < 0)
            return s->handles[i];
    }
    s->indoms[0] = (pmdaIndom){ STREAM_INDOM, (int)st->n, set };
    s->indoms[1] = (pmdaIndom){ EVENTS_INDOM, 0, NULL };
    return 0;
}

/* The enabled events, as instances of tracepoint.count. */
static void refresh_events_indom(struct pmda_state *s)
{
    pmdaIndom *idp = &s->indoms[1];
    size_t n = s->agent.demand ? tp_demand_count(s->agent.demand) : 0;
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
        set[i].i_inst = (int)ids[i];
        set[i].i_name = tp_catalog_event(s->agent.cat, ids[i])->fullname;
    }
    free(ids);
    free(idp->it_set);
    idp->it_set = set;
    idp->it_numinst = (int)n;
}

/* ---- fetch --------------------------------------------------------------- */

static int fetch_stream(struct pmda_state *s, unsigned inst, pmAtomValue *atom)
{
    struct tp_agent *a = &s->agent;
    if (inst >= a->streams.n)
        return PM_ERR_INST;
    struct tp_client *cl = tp_clients_get(a->clients, s->ctx);
    if (!cl)
        return -ENOMEM;
    unsigned slot = a->streams.v[inst].slot;
    tp_slotmask bit = (tp_slotmask)1 << slot;
    int h = s->handles[inst];
    pmdaEventResetArray(h);
    struct tp_fill_result res;
    tp_capture_lock(a->cap);
    struct tp_ring *ring = tp_capture_ring(a->cap);
    if (!(cl->started & bit)) {
        uint64_t back = (uint64_t)a->cfg.backlog * 1000000000u, now = tp_agent_mono_now();
        tp_cursor_init(ring, &cl->cursor[slot], slot, back && back < now ? now - back : UINT64_MAX);
        cl->started |= bit;
    }
    int rc = tp_records_fill(a->records, h, ring, &cl->cursor[slot], a->cat, s->real_offset,
                             MAX_ARRAY_BYTES, &res);
    tp_capture_unlock(a->cap);
    a->delivered += res.records;
    a->missed += res.missed;
    cl->last_seen_ns = tp_agent_mono_now();
    if (rc < 0)
        return rc;
    if (res.records == 0 && res.missed == 0)
        return PMDA_FETCH_NOVALUES;
    atom->vbp = (pmValueBlock *)pmdaEventGetAddr(h);
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

static int fetch_callback(pmdaMetric *mdesc, unsigned int inst, pmAtomValue *atom)
{
    struct pmda_state *s = mdesc->m_user;
    unsigned cl = pmID_cluster(mdesc->m_desc.pmid), item = pmID_item(mdesc->m_desc.pmid);
    if (cl != TP_CLUSTER_METRICS)
        return PMDA_FETCH_NOVALUES;     /* parameters have values only inside records */
    switch (item) {
    case M_STREAM_RECORDS:
        return s->agent.cap ? fetch_stream(s, inst, atom) : PM_ERR_INST;
    case M_DELIVERED: atom->ull = s->agent.delivered; break;
    case M_MISSED: atom->ull = s->agent.missed; break;
    case M_CLIENTS: atom->ul = (uint32_t)tp_clients_active(s->agent.clients); break;
    case M_SUBSCRIPTIONS: atom->ul = 0; break;
    case M_MEMORY: atom->ull = resident_bytes(); break;
    default: return fetch_capture_counter(s, item, inst, atom);
    }
    return PMDA_FETCH_STATIC;
}

/* Make sure every field PMID asked for is in the table before pmdaFetch runs. */
static void load_requested(struct pmda_state *s, int n, const pmID *pmids)
{
    size_t nev = s->agent.cat ? tp_catalog_count(s->agent.cat) : 0;
    for (int i = 0; i < n; i++) {
        unsigned cl = pmID_cluster(pmids[i]);
        if (cl >= TP_CLUSTER_FIELDS && cl - TP_CLUSTER_FIELDS < nev)
            load_event(s, cl - TP_CLUSTER_FIELDS);
    }
}

static int tp_fetch(int n, pmID *pmids, tp_result **resp, pmdaExt *pmda)
{
    self->ctx = pmda->e_context;
    self->real_offset = tp_agent_real_offset();
    load_requested(self, n, pmids);
    refresh_events_indom(self);
    return pmdaFetch(n, pmids, resp, pmda);
}

/* ---- descriptors, text, names -------------------------------------------- */

static int tp_desc(pmID pmid, pmDesc *desc, pmdaExt *pmda)
{
    load_requested(self, 1, &pmid);
    return pmdaDesc(pmid, desc, pmda);
}

static int tp_text(int ident, int type, char **buf, pmdaExt *pmda)
{
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

static void end_context(int ctx)
{
    tp_clients_end(self->agent.clients, ctx);
}

/* ---- signals ------------------------------------------------------------- */

static void *signal_main(void *arg)
{
    sigset_t *set = arg;
    int sig = 0;
    sigwait(set, &sig);
    /* Only the instance matters: it is global kernel state.  No PCP calls here. */
    tp_agent_emergency_teardown(&self->agent);
    _exit(0);
}

static int start_signal_thread(sigset_t *set)
{
    pthread_t t;
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, set, NULL);  /* inherited by every later thread */
    int rc = pthread_create(&t, NULL, signal_main, set);
    if (rc == 0)
        pthread_detach(t);
    return -rc;
}

/* ---- main ---------------------------------------------------------------- */

static pmLongOptions longopts[] = {
    PMDA_OPTIONS_HEADER("Options"),
    PMDAOPT_DEBUG,
    PMDAOPT_DOMAIN,
    PMDAOPT_HELPTEXT,
    PMDAOPT_LOGFILE,
    PMDAOPT_USERNAME,
    { "config", 1, 'c', "FILE", "configuration file [default $PCP_PMDAS_DIR/tracepoint/tracepoint.conf]" },
    PMDA_OPTIONS_END
};

static pmdaOptions opts = {
    .short_options = "c:D:d:h:l:U:?",
    .long_options = longopts,
};

static void set_callbacks(pmdaInterface *d)
{
    d->version.seven.fetch = tp_fetch;
    d->version.seven.desc = tp_desc;
    d->version.seven.text = tp_text;
    d->version.seven.pmid = tp_pmid;
    d->version.seven.name = tp_name;
    d->version.seven.children = tp_children;
    pmdaSetFetchCallBack(d, fetch_callback);
    pmdaSetEndContextCallBack(d, end_context);
}

static int setup(struct pmda_state *s, pmdaInterface *d, const char *config)
{
    int rc = tp_agent_open(&s->agent, config, d->domain, log_line, s);
    if (rc == 0)
        rc = init_metrics(s);
    if (rc == 0)
        rc = init_indoms(s);
    s->names = (struct tp_names){ s->agent.cat, d->domain, load_event, s };
    return rc;
}

int main(int argc, char **argv)
{
    static struct pmda_state state;
    pmdaInterface dispatch;
    char defconf[MAXPATHLEN], helpfile[MAXPATHLEN];
    sigset_t sigs;
    const char *config = defconf;
    int c;

    pmSetProgname(argv[0]);
    const char *dir = pmGetConfig("PCP_PMDAS_DIR");
    pmsprintf(defconf, sizeof(defconf), "%s/tracepoint/tracepoint.conf", dir);
    pmsprintf(helpfile, sizeof(helpfile), "%s/tracepoint/help", dir);
    pmdaDaemon(&dispatch, PMDA_INTERFACE_7, pmGetProgname(), TRACEPOINT,
               "tracepoint.log", helpfile);
    while ((c = pmdaGetOptions(argc, argv, &opts, &dispatch)) != EOF)
        if (c == 'c')
            config = opts.optarg;
    if (opts.errors) {
        pmdaUsageMessage(&opts);
        return 1;
    }
    if (opts.username)
        pmSetProcessIdentity(opts.username);
    pmdaOpenLog(&dispatch);

    self = &state;
    state.dispatch = &dispatch;
    if (start_signal_thread(&sigs) < 0 || setup(&state, &dispatch, config) < 0) {
        pmNotifyErr(LOG_ERR, "out of memory at start-up");
        tp_agent_close(&state.agent);
        return 1;
    }
    pmdaExtSetFlags(dispatch.version.any.ext, PMDA_EXT_FLAG_HASHED);
    set_callbacks(&dispatch);
    pmdaInit(&dispatch, state.indoms, 2, state.metrics, (int)state.nmetrics);
    pmdaConnect(&dispatch);
    tp_agent_start(&state.agent);
    pmdaMain(&dispatch);

    tp_agent_close(&state.agent);
    return 0;
}
