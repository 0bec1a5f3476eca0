/*
 * Client contexts as sessions: who they are (the credentials pmcd forwards),
 * their stores, and their end, announced or not.
 *
 * pmcd reuses the lowest free context id, and an end-of-context notice can
 * be lost.  So:
 * - attributes arriving for a context that has already made requests mean a
 *   new client on a reused id: the old state is released first;
 * - a local client (pmcd gave its pid) whose process has gone is released
 *   at the next sweep (every second);
 * - any context silent for longer than client_timeout is released at the
 *   next sweep, or when it speaks again, whichever comes first; a local one
 *   keeps only its credentials (pmcd sends them once), so it may subscribe
 *   again.
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

#include "tp_control.h"
#include "tp_pmda.h"

#define LOG_PER_SECOND 10

void tp_session_log(struct pmda_state *s, const char *fmt, ...)
{
    uint64_t second = tp_mono_now() / 1000000000u;
    if (second != s->log_second) {
        if (s->log_suppressed)
            pmNotifyErr(LOG_WARNING, "%u client error message(s) suppressed", s->log_suppressed);
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
    tp_clients_end(s->agent.clients, ctx);
}

static bool silent_too_long(const struct pmda_state *s, const struct tp_client *c, uint64_t now)
{
    return now - c->last_seen_ns > (uint64_t)s->agent.cfg.client_timeout * 1000000000u;
}

/*
 * Drop the state of a context silent too long, but not who it is: pmcd sends
 * the credentials once, when the client connects, and the context may speak
 * again.  It is idle until then: not counted, and not swept for silence.
 * Only a local client keeps them: its process is watched, so the entry goes
 * when it exits; a remote context's id could pass, unannounced, to a client
 * that sends no credentials at all.
 */
static void session_idle(struct pmda_state *s, struct tp_client *c)
{
    struct tp_creds creds = c->creds;
    int ctx = c->ctx;
    tp_session_end(s, ctx);
    if (creds.pid <= 0)
        return;
    c = tp_clients_get(s->agent.clients, ctx, tp_mono_now());
    if (c) {
        c->creds = creds;
        c->idle = true;
    }
}

/* The state of the context making a request; a context back from a long silence starts afresh. */
struct tp_client *tp_session_client(struct pmda_state *s, int ctx)
{
    uint64_t now = tp_mono_now();
    struct tp_client *c = tp_clients_find(s->agent.clients, ctx);
    if (c && c->requested && silent_too_long(s, c, now)) {
        tp_session_log(s, "context %d: silent for more than %u s; its state was dropped",
                       ctx, s->agent.cfg.client_timeout);
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

int tp_session_attribute(struct pmda_state *s, int ctx, int attr, const char *value)
{
    struct tp_client *c = tp_clients_find(s->agent.clients, ctx);
    if (c && (c->requested || c->idle))
        tp_session_end(s, ctx);     /* a new client on a reused context id */
    c = tp_clients_get(s->agent.clients, ctx, tp_mono_now());
    if (!c || !value)
        return 0;
    long v = strtol(value, NULL, 10);
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
    default: return PM_ERR_PERMISSION;          /* read-only */
    }
}

static const char *op_name(enum tp_ctl_op op)
{
    static const char *names[] = { "register", "filter", "unregister", "records" };
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

static int store_one(struct pmda_state *s, struct tp_client *c, const pmValueSet *vs)
{
    enum tp_ctl_op op;
    const char *text;
    size_t len;
    struct tp_ctl_request req;
    int rc = op_of(vs->pmid, &op);
    if (rc < 0) {
        snprintf(c->last_error, sizeof(c->last_error),
                 "metric %s is read-only: store into tracepoint.records or tracepoint.control.*",
                 pmIDStr(vs->pmid));
        return rc;
    }
    if (!tp_control_may_store(&s->agent.cfg, &c->creds)) {
        snprintf(c->last_error, sizeof(c->last_error), "%s: permission denied (%s)",
                 op_name(op), c->creds.has_uid ? "needs root or an allow_group group"
                                                : "the client is not authenticated");
        rc = PM_ERR_PERMISSION;
    } else if ((rc = string_value(vs, &text, &len, c->last_error, sizeof(c->last_error))) == 0 &&
               (rc = tp_ctl_parse(op, text, len, &req, c->last_error, sizeof(c->last_error))) == 0) {
        rc = tp_control_apply(&s->agent, c, &req);
        tp_ctl_request_free(&req);
    }
    if (rc < 0)
        tp_session_log(s, "context %d (pid %d uid %d): %s refused: %s: %s", c->ctx,
                       (int)c->creds.pid, c->creds.has_uid ? (int)c->creds.uid : -1,
                       op_name(op), pmErrStr(rc), c->last_error);
    return rc;
}

int tp_session_store(struct pmda_state *s, tp_result *result, int ctx)
{
    struct tp_client *c = tp_session_client(s, ctx);
    if (!c)
        return -ENOMEM;
    for (int i = 0; i < result->numpmid; i++) {
        int rc = store_one(s, c, result->vset[i]);
        if (rc < 0)
            return rc;
    }
    return 0;
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

void tp_session_sweep(struct pmda_state *s)
{
    struct sweep w = { s, tp_mono_now() };
    if (w.now - s->last_sweep_ns < 1000000000u)
        return;
    s->last_sweep_ns = w.now;
    tp_clients_each(s->agent.clients, sweep_one, &w);
    report_reader(s);
    check_tracefs(s);
}
