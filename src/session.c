/*
 * Client contexts as sessions: who they are (the credentials pmcd forwards),
 * their stores, and their end, announced or not.
 *
 * pmcd reuses the lowest free context id, and an end-of-context notice can
 * be lost.  So:
 * - a uid, gid or pid that differs from the one a context that has made
 *   requests had means a new client on a reused id: the old state is
 *   released first (the same ones again are pmcd re-sending them);
 * - a local client (pmcd gave its pid) whose process has gone is released
 *   at the next sweep (every second);
 * - a context silent for longer than client_timeout loses its
 *   subscriptions at the next sweep, or when it speaks again, whichever
 *   comes first; it keeps its positions in the streams, and a local one its
 *   credentials (pmcd sends them once), so it may subscribe again.
 *
 * Threading: PMDA thread.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tp_access.h"
#include "tp_control.h"
#include "tp_pmda.h"

#define LOG_PER_SECOND 10

void tp_session_log_flush(struct pmda_state *s)
{
    if (s->log_suppressed)
        pmNotifyErr(LOG_WARNING, "%u client error message(s) suppressed", s->log_suppressed);
    s->log_suppressed = 0;
}

void tp_session_log(struct pmda_state *s, const char *fmt, ...)
{
    uint64_t second = tp_mono_now() / 1000000000u;
    if (second != s->log_second) {
        tp_session_log_flush(s);
        s->log_second = second;
        s->log_budget = LOG_PER_SECOND;
        s->log_suppressed = 0;
    }
    if (!s->log_budget) {
        s->log_suppressed++;
        return;
    }
    s->log_budget--;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    pmNotifyErr(LOG_WARNING, "%s", msg);
}

void tp_session_end(struct pmda_state *s, int ctx)
{
    struct tp_client *c = tp_clients_find(s->agent.clients, ctx);
    if (!c)
        return;
    tp_control_release(&s->agent, c);
    tp_oneliners_release(&s->agent, ctx);
    tp_clients_end(s->agent.clients, ctx);
    tp_agent_names_wanted(&s->agent);   /* its names, or its filters on comm, may be gone */
}

static bool silent_too_long(const struct pmda_state *s, const struct tp_client *c, uint64_t now)
{
    return now - c->last_seen_ns > (uint64_t)s->agent.cfg.client_timeout * 1000000000u;
}

/*
 * A context silent too long: its subscriptions go (events only it wanted
 * are disabled), but not its positions in the streams, which cost nothing
 * per event, so a pmlogger that logs rarely, or is paused, loses nothing
 * when it speaks again: what the ring overwrote meanwhile comes as one
 * missed record, and nothing twice.  Events its subscriptions matched that
 * it never received are owed to it as one missed record in its next fetch
 * of tracepoint.records.  Its credentials stay only if it is local: its
 * process is watched, so the entry goes when it exits; a remote context's
 * id could pass, unannounced, to a client that sends no credentials at all.
 */
static void session_idle(struct pmda_state *s, struct tp_client *c)
{
    struct tp_agent *a = &s->agent;
    if (c->slot >= 0 && a->cap) {
        tp_capture_lock(a->cap);
        struct tp_ring *ring = tp_capture_ring(a->cap);
        unsigned slot = (unsigned)c->slot;
        if (c->started & ((tp_slotmask)1 << slot))
            c->owed_records += tp_ring_slot_matched(ring, slot) - c->cursor[slot].ord;
        tp_capture_unlock(a->cap);
    }
    size_t nsubs = c->nsubs + tp_oneliners_count(a, c->ctx);
    tp_control_release(a, c);
    tp_oneliners_release(a, c->ctx);
    tp_agent_names_wanted(a);
    if (nsubs)
        snprintf(c->last_error, sizeof(c->last_error), "its %zu subscription(s) were dropped "
                 "after %u s without a request (client_timeout)", nsubs, a->cfg.client_timeout);
    if (c->creds.pid <= 0)
        memset(&c->creds, 0, sizeof(c->creds));
    c->idle = true;
}

/* The state of the context making a request; a context back from a long silence starts afresh. */
struct tp_client *tp_session_client(struct pmda_state *s, int ctx)
{
    uint64_t now = tp_mono_now();
    struct tp_client *c = tp_clients_find(s->agent.clients, ctx);
    if (c && c->requested && !c->idle && silent_too_long(s, c, now)) {
        tp_session_log(s, "context %d: silent for more than %u s; its subscriptions were "
                       "dropped", ctx, s->agent.cfg.client_timeout);
        session_idle(s, c);
    }
    c = tp_clients_get(s->agent.clients, ctx, now);
    if (c) {
        c->last_seen_ns = now;
        c->requested = true;
        c->idle = false;
    }
    return c;
}

/*
 * Does an attribute say another client than the one the context has?  pmcd
 * sends a client's attributes when it connects, and all of them again when
 * one changes (a store into pmcd.client.container, say): the same uid, gid
 * and pid are a re-send, a different one is a new client on a reused id.
 */
static bool other_client(const struct tp_creds *cr, int attr, long v)
{
    switch (attr) {
    case PMDA_ATTR_USERID: return cr->has_uid && cr->uid != (uid_t)v;
    case PMDA_ATTR_GROUPID: return cr->has_gid && cr->gid != (gid_t)v;
    case PMDA_ATTR_PROCESSID: return cr->pid > 0 && cr->pid != (pid_t)v;
    default: return false;
    }
}

int tp_session_attribute(struct pmda_state *s, int ctx, int attr, const char *value)
{
    struct tp_client *c = tp_clients_find(s->agent.clients, ctx);
    long v = value ? strtol(value, NULL, 10) : 0;
    if (c && value && (c->requested || c->idle) && other_client(&c->creds, attr, v)) {
        /* a new client: what it re-sent before this one matched, so it is its own */
        struct tp_creds creds = c->creds;
        tp_session_log(s, "context %d: a new client on a reused id; the old one's state "
                       "is released", ctx);
        tp_session_end(s, ctx);
        if ((c = tp_clients_get(s->agent.clients, ctx, tp_mono_now())))
            c->creds = creds;
    }
    c = tp_clients_get(s->agent.clients, ctx, tp_mono_now());
    if (!c || !value)
        return 0;
    switch (attr) {
    case PMDA_ATTR_USERID: c->creds.uid = (uid_t)v; c->creds.has_uid = true; break;
    case PMDA_ATTR_GROUPID: c->creds.gid = (gid_t)v; c->creds.has_gid = true; break;
    case PMDA_ATTR_PROCESSID: c->creds.pid = (pid_t)v; break;
    case PMDA_ATTR_USERNAME: snprintf(c->creds.user, sizeof(c->creds.user), "%s", value); break;
    default: break;
    }
    return 0;
}

/* ---- stores -------------------------------------------------------------- */

static int op_of(pmID pmid, enum tp_ctl_op *op)
{
    if (pmID_cluster(pmid) != TP_CLUSTER_METRICS)
        return PM_ERR_PERMISSION;
    switch (pmID_item(pmid)) {
    case M_RECORDS: *op = TP_CTL_RECORDS; return 0;
    case M_CTL_REGISTER: *op = TP_CTL_REGISTER; return 0;
    case M_CTL_FILTER: *op = TP_CTL_FILTER; return 0;
    case M_CTL_UNREGISTER: *op = TP_CTL_UNREGISTER; return 0;
    case M_CTL_PARAMS: *op = TP_CTL_PARAMS; return 0;
    case M_CTL_PROBE: *op = TP_CTL_PROBE; return 0;
    default: return PM_ERR_PERMISSION;          /* read-only */
    }
}

static const char *op_name(enum tp_ctl_op op)
{
    static const char *names[] = { "register", "filter", "unregister", "records", "params",
                                   "probe" };
    return names[op];
}

/* The stored string, or an error for anything but one string value. */
static int string_value(const pmValueSet *vs, const char **text, size_t *len, char *err,
                        size_t errlen)
{
    if (vs->numval != 1) {
        snprintf(err, errlen, "%d values stored: exactly one string is expected", vs->numval);
        return PM_ERR_BADSTORE;
    }
    const pmValueBlock *vb = vs->vlist[0].value.pval;
    if (vs->valfmt == PM_VAL_INSITU || !vb || vb->vtype != PM_TYPE_STRING ||
        vb->vlen < PM_VAL_HDR_SIZE) {
        snprintf(err, errlen, "a string is expected");
        return PM_ERR_TYPE;
    }
    *text = vb->vbuf;
    *len = vb->vlen - PM_VAL_HDR_SIZE;
    return 0;
}

/* Parse one value of a store into req: PCP error if it cannot be. */
static int parse_one(struct pmda_state *s, struct tp_client *c, const pmValueSet *vs,
                     enum tp_ctl_op *op, struct tp_ctl_request *req)
{
    const char *text;
    size_t len;
    int rc = op_of(vs->pmid, op);
    if (rc < 0) {
        snprintf(c->last_error, sizeof(c->last_error),
                 "metric %s is read-only: store into tracepoint.records or tracepoint.control.*",
                 pmIDStr(vs->pmid));
        return rc;
    }
    if (*op == TP_CTL_PROBE && !(c->creds.has_uid && c->creds.uid == 0))
        return tp_errf(c->last_error, sizeof(c->last_error), PM_ERR_PERMISSION,
                       "probe: permission denied (%s)", c->creds.has_uid
                       ? "only root may define probes: a probe reads any process's memory"
                       : "the client is not authenticated");
    if (!tp_access_may_store(&s->agent.cfg, &c->creds))
        return tp_errf(c->last_error, sizeof(c->last_error), PM_ERR_PERMISSION,
                       "%s: permission denied (%s)", op_name(*op),
                       c->creds.has_uid ? "needs root or an allow_group group"
                                        : "the client is not authenticated");
    if ((rc = string_value(vs, &text, &len, c->last_error, sizeof(c->last_error))) < 0)
        return rc;
    return tp_ctl_parse(*op, text, len, req, c->last_error, sizeof(c->last_error));
}

static bool is_agg_store(const tp_result *result)
{
    for (int i = 0; i < result->numpmid; i++)
        if (pmID_cluster(result->vset[i]->pmid) == TP_CLUSTER_METRICS &&
            pmID_item(result->vset[i]->pmid) == M_CTL_AGG)
            return true;
    return false;
}

/* A one-liner (tracepoint.control.agg), stored alone: who may is who may subscribe. */
static int store_agg(struct pmda_state *s, struct tp_client *c, const tp_result *result)
{
    const char *text;
    size_t len;
    int rc = 0;
    if (result->numpmid != 1)
        rc = tp_errf(c->last_error, sizeof(c->last_error), PM_ERR_BADSTORE,
                     "agg: store tracepoint.control.agg alone");
    else if (!tp_access_may_store(&s->agent.cfg, &c->creds))
        rc = tp_errf(c->last_error, sizeof(c->last_error), PM_ERR_PERMISSION,
                     "agg: permission denied (%s)", c->creds.has_uid
                     ? "needs root or an allow_group group" : "the client is not authenticated");
    else if ((rc = string_value(result->vset[0], &text, &len, c->last_error,
                                sizeof(c->last_error))) == 0)
        rc = tp_oneliners_store(&s->agent, c, text, len);
    tp_agent_names_wanted(&s->agent);   /* a one-liner by comm may have come or gone */
    if (rc < 0)
        tp_session_log(s, "context %d (pid %d uid %d): agg refused: %s: %s", c->ctx,
                       (int)c->creds.pid, c->creds.has_uid ? (int)c->creds.uid : -1,
                       pmErrStr(rc), c->last_error);
    return rc;
}

/* tracepoint.control.reload (reload.c): root only, stored alone. */
static int store_reload(struct pmda_state *s, struct tp_client *c, const tp_result *result)
{
    int rc = tp_reload_store(s, c, result);
    if (rc < 0)
        tp_session_log(s, "context %d (pid %d uid %d): reload refused: %s", c->ctx,
                       (int)c->creds.pid, c->creds.has_uid ? (int)c->creds.uid : -1,
                       c->last_error);
    return rc;
}

/*
 * A store is all or nothing, however many values it carries: every value
 * is parsed first, then they are applied together.
 */
int tp_session_store(struct pmda_state *s, tp_result *result, int ctx)
{
    struct tp_client *c = tp_session_client(s, ctx);
    if (!c)
        return -ENOMEM;
    if (tp_reload_is_store(result))
        return store_reload(s, c, result);
    if (is_agg_store(result))
        return store_agg(s, c, result);
    int n = result->numpmid, rc = 0, done = 0;
    enum tp_ctl_op op = TP_CTL_REGISTER;
    struct tp_ctl_request *reqs = calloc(n > 0 ? (size_t)n : 1, sizeof(*reqs));
    if (!reqs)
        return -ENOMEM;
    for (; rc == 0 && done < n; done++)
        rc = parse_one(s, c, result->vset[done], &op, &reqs[done]);
    if (rc == 0)
        rc = tp_control_apply(&s->agent, c, reqs, (size_t)n);
    for (int i = 0; i < done; i++)
        tp_ctl_request_free(&reqs[i]);
    free(reqs);
    if (rc < 0)
        tp_session_log(s, "context %d (pid %d uid %d): %s refused: %s: %s", c->ctx,
                       (int)c->creds.pid, c->creds.has_uid ? (int)c->creds.uid : -1,
                       op_name(op), pmErrStr(rc), c->last_error);
    return rc;
}

/* ---- the sweep ------------------------------------------------------------- */


struct sweep {
    struct pmda_state *s;
    uint64_t now;
};

static void sweep_one(void *arg, struct tp_client *c)
{
    struct sweep *w = arg;
    const char *why = NULL;
    bool exited = c->creds.pid > 0 && !tp_process_running(c->creds.pid, NULL);
    if (exited)
        why = "its process has exited";
    else if (!c->idle && silent_too_long(w->s, c, w->now))
        why = "it has been silent too long";
    if (!why)
        return;
    if (c->nsubs)
        tp_session_log(w->s, "context %d: released %zu subscription(s): %s", c->ctx,
                       c->nsubs, why);
    if (exited)
        tp_session_end(w->s, c->ctx);
    else
        session_idle(w->s, c);
}

/* Trouble the producer met since the last sweep: say it once. */
static void report_reader(struct pmda_state *s)
{
    struct tp_capture_stats st;
    if (!s->agent.cap)
        return;
    tp_capture_lock(s->agent.cap);
    tp_capture_get_stats(s->agent.cap, &st);
    tp_capture_unlock(s->agent.cap);
    if (st.bad_pages != s->seen_bad_pages)
        pmNotifyErr(LOG_WARNING, "%llu malformed trace sub-buffer(s) skipped so far",
                    (unsigned long long)st.bad_pages);
    if (st.read_errno && st.read_errno != s->seen_read_errno)
        pmNotifyErr(LOG_ERR, "reading the trace buffers fails: %s", strerror(st.read_errno));
    s->seen_bad_pages = st.bad_pages;
    s->seen_read_errno = st.read_errno;
}

/*
 * tracefs unmounted under us: the producer reads on through its open files,
 * but nothing can be enabled or disabled.  Say so once; when it is back,
 * make the kernel agree with demand again.
 */
static void check_tracefs(struct pmda_state *s)
{
    struct tp_instance *inst = s->agent.inst;
    if (!inst || !s->agent.demand)
        return;
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/instances/%s", tp_instance_tracing_dir(inst),
             tp_instance_name(inst));
    bool gone = access(path, F_OK) != 0;
    if (gone == s->tracefs_gone)
        return;
    s->tracefs_gone = gone;
    if (gone) {
        pmNotifyErr(LOG_ERR, "tracefs instance %s is out of reach (%s): capture goes on, "
                    "but no event can be enabled or disabled until tracefs is mounted again",
                    path, strerror(errno));
        return;
    }
    int rc = tp_demand_resync(s->agent.demand);
    pmNotifyErr(LOG_INFO, "tracefs instance %s is reachable again%s%s", path,
                rc < 0 ? "; re-applying demand failed: " : "", rc < 0 ? strerror(-rc) : "");
}

static bool process_gone(void *arg, pid_t pid)
{
    (void)arg;
    return !tp_process_running(pid, NULL);
}

void tp_session_sweep(struct pmda_state *s, uint64_t now)
{
    struct sweep w = { s, now };
    tp_clients_each(s->agent.clients, sweep_one, &w);
    tp_clients_drop_retired(s->agent.clients, process_gone, NULL);   /* a reused pid is new */
    report_reader(s);
    check_tracefs(s);
}
