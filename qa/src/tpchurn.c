/*
 * tpchurn: clients that come and go while kernel events flow, for QA 060
 * and `make stress`.
 *
 *   tpchurn [-s SEED] [-C CLIENTS] [-d SECS] [-j JOBS] [-n EVENTS] [-r RATE]
 *           [-g MS] [-T SECS] [-v]
 *
 * Starts CLIENTS client processes (or, with -d, as many as fit in SECS
 * seconds; with both, whichever limit comes first), at most JOBS at a time,
 * each a new PCP context on local: pmcd.  Client k first forks its own
 * generator G_k, held back on a pipe, then subscribes to
 *
 *     syscalls:sys_enter_getppid,sched:sched_process_fork common_pid == G_k
 *
 * either in one step (a store into tracepoint.records) or in three
 * (control.register, then control.filter for each event, then one fetch
 * whose records, from before the filter, are discarded), and only then lets
 * G_k run.  G_k calls getppid() N_k times, paced to R_k calls a second, and
 * forks F_k children that exec /bin/true (each a sched_process_fork event of
 * G_k, and an exec event for any exec stream), so client k's filter matches
 * exactly N_k + F_k events.  The client fetches tracepoint.records at random
 * intervals of 0..M_k ms, M_k drawn from MS/10..MS (MS: -g, default 200),
 * and counts its records: events of G_k, records of anyone else ("foreign":
 * always an error), and the counts of missed records.  What it does then
 * depends on its outcome:
 *
 *   full      fetches until G_k has exited and delivered + missed reaches
 *             N_k + F_k (10 s without progress: "short"), then once more
 *             after 0.3 s; ok if delivered + missed == N_k + F_k exactly
 *   unreg     after a few fetches stores "*" into control.unregister; ok if
 *             the next fetch of tracepoint.records has no values and
 *             control.status says "subscriptions: 0"; then pmDestroyContext
 *   destroy   after a few fetches, pmDestroyContext and exit
 *   exit      after a few fetches, exit without pmDestroyContext or
 *             unregistering
 *   kill      SIGKILLed by the driver at a random moment (0.1 to 1.5 s after
 *             it started: while subscribing, fetching, or waiting)
 *   stream    reads tracepoint.stream.records (all instances) a few times,
 *             subscribes to nothing, then pmDestroyContext
 *
 * Every client but "full" must also have delivered + missed <= N_k + F_k and
 * no foreign record.  A generator whose client went away runs on (or, if it
 * was never released, exits at once); the driver is the subreaper of them all
 * and waits for every one before it reports.
 *
 * Everything random (outcome, N_k, R_k, F_k, the subscription form, fetch
 * intervals, when to leave or be killed, the gaps between starts) comes from
 * SEED and k alone, so a run can be replayed: the same workload, though not
 * the same interleaving.  With -C the outcome counts depend on SEED only.
 *
 * Options: -s SEED (default: from the clock), -C total clients, -d seconds
 * of starting clients, -j concurrent clients (default 8), -n mean events per
 * generator (default 20000; each draws from n/2..3n/2), -r mean rate per
 * generator (default 20000/s; drawn likewise), -g longest pause between two
 * fetches of a client in ms, -T seconds allowed after the last start before
 * the remaining clients count as hung (default 60), -v one line per client.
 *
 * Output (stdout):
 *   seed S
 *   client K: full: delivered + missed == N: ok | client K: OUTCOME: ok
 *                           (with -v)
 *   client K: OUTCOME: FAIL (why)      (always)
 *   outcomes: C clients: a full, b unreg, c destroy, d exit, e kill, f stream
 *   failures: N
 *   stat NAME VALUE         numbers that depend on timing: generated,
 *                           delivered, missed, full clients with missed > 0,
 *                           fetches, fetch errors, stream records, seconds
 * Exit status: 0 if no failure, 1 otherwise, 2 for a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pcp/pmapi.h>

#include "tp_pcp_compat.h"

enum outcome { O_FULL, O_UNREG, O_DESTROY, O_EXIT, O_KILL, O_STREAM, NOUTCOMES };
static const char *outcome_name[NOUTCOMES] = {
    "full", "unreg", "destroy", "exit", "kill", "stream"
};
/* Shares out of 100, in enum order. */
static const int outcome_share[NOUTCOMES] = { 45, 10, 12, 12, 16, 5 };

#define MAX_LINE 400                /* one result line: well under PIPE_BUF */
#define SHORT_SECS 10.0             /* a full client gives up after this without progress */

static const char *EV_GETPPID = "syscalls:sys_enter_getppid";
static const char *EV_FORK = "sched:sched_process_fork";

/* ---- randomness: splitmix64, one stream per client ----------------------- */

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static long between(uint64_t *s, long lo, long hi)
{
    return hi <= lo ? lo : lo + (long)(mix(s) % (uint64_t)(hi - lo + 1));
}

/* ---- time ----------------------------------------------------------------- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap(double secs)
{
    if (secs <= 0)
        return;
    struct timespec ts = { (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* ---- the plan of one client ------------------------------------------------ */

struct plan {
    int k;
    enum outcome outcome;
    long n;                 /* getppid calls of the generator */
    long rate;              /* per second */
    int forks;              /* fork+exec of /bin/true */
    int one_step;           /* subscribe with one store into tracepoint.records */
    int leave_after;        /* fetches before leaving (unreg, destroy, exit, stream) */
    double kill_after;      /* seconds after start (kill) */
    int gap_ms;             /* longest pause between two fetches */
    uint64_t rng;           /* for the client's own draws (fetch intervals) */
};

static struct {
    uint64_t seed;
    long nclients;          /* 0: no limit */
    double secs;            /* 0: no limit */
    int jobs;
    long mean_n, mean_rate;
    int gap_ms;
    double hang_secs;
    int verbose;
} opt = { 0, 0, 0, 8, 20000, 20000, 200, 60, 0 };

static struct plan make_plan(int k)
{
    struct plan p = { .k = k };
    uint64_t s = opt.seed ^ ((uint64_t)k * 0xd1b54a32d192ed03ULL);
    int pick = (int)between(&s, 0, 99), acc = 0;
    p.outcome = O_FULL;
    for (int o = 0; o < NOUTCOMES; o++) {
        acc += outcome_share[o];
        if (pick < acc) {
            p.outcome = (enum outcome)o;
            break;
        }
    }
    p.n = between(&s, opt.mean_n / 2, opt.mean_n * 3 / 2);
    p.rate = between(&s, opt.mean_rate / 2, opt.mean_rate * 3 / 2);
    if (p.rate < 1)
        p.rate = 1;
    p.forks = (int)between(&s, 0, 5);
    p.one_step = (int)between(&s, 0, 1);
    p.leave_after = (int)between(&s, 1, 8);
    p.kill_after = (double)between(&s, 100, 1500) / 1000.0;
    p.gap_ms = (int)between(&s, opt.gap_ms / 10, opt.gap_ms);
    p.rng = mix(&s);
    return p;
}

/* ---- the generator ----------------------------------------------------------- */

static void spawn_true(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/true", "true", (char *)NULL);
        _exit(127);
    }
    if (pid > 0)
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
}

/* Wait for the go byte (none: the client went away first), then generate. */
static void generator(const struct plan *p, int gofd, int resfd)
{
    char c, line[MAX_LINE];
    if (read(gofd, &c, 1) != 1)
        _exit(0);
    close(gofd);
    int len = snprintf(line, sizeof(line), "G %d %ld\n", p->k, p->n + p->forks);
    if (write(resfd, line, (size_t)len) != len)
        _exit(3);
    double t0 = now();
    long i = 0;
    int forked = 0;
    while (i < p->n) {
        long due = (long)((now() - t0) * (double)p->rate) + 1;
        if (due > p->n)
            due = p->n;
        while (i < due) {
            syscall(SYS_getppid);
            i++;
            while (forked < p->forks && i >= (long)(forked + 1) * p->n / (p->forks + 1)) {
                spawn_true();
                forked++;
            }
        }
        nap(0.001);
    }
    while (forked++ < p->forks)
        spawn_true();
    _exit(0);
}

/* ---- the client ---------------------------------------------------------------- */

static pmID pm_records, pm_stream, pm_register, pm_filter, pm_unregister, pm_status;
static pmID pm_event, pm_pid, pm_flags, pm_missed;

struct tally {
    long own, missed, foreign;
    long fetches, errors, novalues;
    long stream_records;
    char why[160];          /* the first problem seen */
};

static void problem(struct tally *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void problem(struct tally *t, const char *fmt, ...)
{
    if (t->why[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->why, sizeof(t->why), fmt, ap);
    va_end(ap);
}

static int lookup(const char *name, pmID *pmid)
{
    const char *names[1] = { name };
    return pmLookupName(1, names, pmid);
}

static int lookup_all(void)
{
    static const struct { const char *name; pmID *pmid; } t[] = {
        { "tracepoint.records", &pm_records },
        { "tracepoint.stream.records", &pm_stream },
        { "tracepoint.control.register", &pm_register },
        { "tracepoint.control.filter", &pm_filter },
        { "tracepoint.control.unregister", &pm_unregister },
        { "tracepoint.control.status", &pm_status },
        { "tracepoint.param.event", &pm_event },
        { "tracepoint.param.pid", &pm_pid },
        { "event.flags", &pm_flags },
        { "event.missed", &pm_missed },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        int sts = lookup(t[i].name, t[i].pmid);
        if (sts < 0)
            return sts;
    }
    return 0;
}

static int store_string(pmID pmid, const char *str)
{
    size_t len = strlen(str) + 1, size = PM_VAL_HDR_SIZE + len;
    pmValueBlock *vb = calloc(1, size > sizeof(*vb) ? size : sizeof(*vb));
    pmValueSet vs;
    pmResult *rp = calloc(1, sizeof(pmResult));
    if (!vb || !rp) {
        free(vb);
        free(rp);
        return -ENOMEM;
    }
    vb->vtype = PM_TYPE_STRING;
    vb->vlen = (unsigned int)size;
    memcpy(vb->vbuf, str, len);
    vs.pmid = pmid;
    vs.numval = 1;
    vs.valfmt = PM_VAL_DPTR;
    vs.vlist[0].inst = PM_IN_NULL;
    vs.vlist[0].value.pval = vb;
    rp->numpmid = 1;
    rp->vset[0] = &vs;
    int sts = pmStore(rp);
    free(vb);
    free(rp);
    return sts;
}

static int same(const char *s, size_t len, const char *name)
{
    return len == strlen(name) && memcmp(s, name, len) == 0;
}

/* One unpacked record: a missed count, an event of gen, or foreign. */
static void tally_record(const tp_event_result *r, pid_t gen, struct tally *t)
{
    const char *event = NULL;
    size_t evlen = 0;
    int pid = -1, flags = 0, missed = 0;
    for (int i = 0; i < r->numpmid; i++) {
        const pmValueSet *vs = r->vset[i];
        if (vs->numval < 1)
            continue;
        if (vs->pmid == pm_flags)
            flags = vs->vlist[0].value.lval;
        else if (vs->pmid == pm_missed)
            missed = vs->vlist[0].value.lval;
        else if (vs->pmid == pm_pid)
            pid = vs->vlist[0].value.lval;
        else if (vs->pmid == pm_event && vs->valfmt != PM_VAL_INSITU) {
            event = vs->vlist[0].value.pval->vbuf;      /* not NUL-terminated */
            evlen = strnlen(event, vs->vlist[0].value.pval->vlen - PM_VAL_HDR_SIZE);
        }
    }
    if (flags & PM_EVENT_FLAG_MISSED) {
        t->missed += missed;
        return;
    }
    if (pid == gen && event && (same(event, evlen, EV_GETPPID) || same(event, evlen, EV_FORK))) {
        t->own++;
        return;
    }
    t->foreign++;
    problem(t, "foreign record: %.*s pid %d", (int)evlen, event ? event : "", pid);
}

/* Fetch pmid once; records are tallied (or, stream, just counted). */
static int fetch(pmID pmid, pid_t gen, struct tally *t)
{
    pmResult *rp;
    int sts = pmFetch(1, &pmid, &rp);
    t->fetches++;
    if (sts < 0) {
        t->errors++;
        problem(t, "fetch: %s", pmErrStr(sts));
        return sts;
    }
    pmValueSet *vs = rp->vset[0];
    if (vs->numval < 0) {
        t->errors++;
        problem(t, "fetch: %s", pmErrStr(vs->numval));
        sts = vs->numval;
    } else if (vs->numval == 0) {
        t->novalues++;
    }
    for (int j = 0; j < vs->numval; j++) {
        tp_event_result **res;
        int n = tp_unpack_events(vs, j, &res);
        if (n < 0) {
            t->errors++;
            problem(t, "unpack: %s", pmErrStr(n));
            sts = n;
            break;
        }
        for (int r = 0; r < n; r++) {
            if (pmid == pm_stream)
                t->stream_records++;
            else
                tally_record(res[r], gen, t);
        }
        tp_free_unpacked(res, n);
    }
    pmFreeResult(rp);
    return sts;
}

static int fetch_status(char *buf, size_t len)
{
    pmResult *rp;
    int sts = pmFetch(1, &pm_status, &rp);
    if (sts < 0)
        return sts;
    pmValueSet *vs = rp->vset[0];
    if (vs->numval == 1 && vs->valfmt != PM_VAL_INSITU)
        snprintf(buf, len, "%.*s", (int)(vs->vlist[0].value.pval->vlen - PM_VAL_HDR_SIZE),
                 vs->vlist[0].value.pval->vbuf);
    else
        sts = vs->numval < 0 ? vs->numval : PM_ERR_VALUE;
    pmFreeResult(rp);
    return sts;
}

static int subscribe(const struct plan *p, pid_t gen, struct tally *t)
{
    char text[256];
    int sts;
    if (p->one_step) {
        snprintf(text, sizeof(text), "%s,%s common_pid == %d", EV_GETPPID, EV_FORK, (int)gen);
        if ((sts = store_string(pm_records, text)) < 0)
            problem(t, "store records: %s", pmErrStr(sts));
        return sts;
    }
    snprintf(text, sizeof(text), "%s %s", EV_GETPPID, EV_FORK);
    if ((sts = store_string(pm_register, text)) < 0) {
        problem(t, "store register: %s", pmErrStr(sts));
        return sts;
    }
    const char *evs[2] = { EV_GETPPID, EV_FORK };
    for (int i = 0; i < 2; i++) {
        snprintf(text, sizeof(text), "%s common_pid == %d", evs[i], (int)gen);
        if ((sts = store_string(pm_filter, text)) < 0) {
            problem(t, "store filter: %s", pmErrStr(sts));
            return sts;
        }
    }
    /* Whatever arrived before the filters (anyone's getppid) is not counted. */
    struct tally before = { 0 };
    if ((sts = fetch(pm_records, gen, &before)) < 0)
        problem(t, "%s", before.why);
    return sts;
}

static void report(int resfd, const struct plan *p, const struct tally *t, int ok)
{
    char line[MAX_LINE];
    int len = snprintf(line, sizeof(line), "R %d %d %ld %ld %ld %ld %ld %ld %s\n", p->k, ok,
                       t->own, t->missed, t->foreign, t->fetches, t->errors,
                       t->stream_records, t->why[0] ? t->why : "-");
    for (int i = 2; i < len - 1; i++)       /* the reason is the last field: one line */
        if (line[i] == '\n')
            line[i] = ' ';
    if (write(resfd, line, (size_t)len) != len)
        _exit(3);
}

static double fetch_gap(struct plan *p)
{
    return (double)between(&p->rng, 0, p->gap_ms) / 1000.0;
}

static int client(struct plan *p, int resfd)
{
    struct tally t = { 0 };
    int go[2];
    pid_t gen = -1;
    long want = p->n + p->forks;

    if (p->outcome != O_STREAM) {
        if (pipe(go) < 0)
            return 3;
        if ((gen = fork()) < 0)
            return 3;
        if (gen == 0) {
            close(go[1]);
            generator(p, go[0], resfd);
        }
        close(go[0]);
    }
    int ctx = pmNewContext(PM_CONTEXT_HOST, "local:");
    if (ctx < 0) {
        problem(&t, "pmNewContext: %s", pmErrStr(ctx));
        report(resfd, p, &t, 0);
        return 1;
    }
    int sts = lookup_all();
    if (sts < 0) {
        problem(&t, "pmLookupName: %s", pmErrStr(sts));
        report(resfd, p, &t, 0);
        return 1;
    }
    if (p->outcome == O_STREAM) {
        for (int i = 0; i < p->leave_after; i++) {
            nap(fetch_gap(p));
            fetch(pm_stream, -1, &t);
        }
        pmDestroyContext(ctx);
        report(resfd, p, &t, t.errors == 0);
        return 0;
    }
    if (subscribe(p, gen, &t) < 0) {
        report(resfd, p, &t, 0);
        return 1;
    }
    if (write(go[1], "g", 1) != 1)
        return 3;
    close(go[1]);

    int gen_done = 0;
    double last_progress = now(), done_at = 0;
    for (int i = 0;; i++) {
        if (p->outcome != O_FULL && p->outcome != O_KILL && i == p->leave_after)
            break;
        nap(fetch_gap(p));
        long before = t.own + t.missed;
        fetch(pm_records, gen, &t);
        if (t.own + t.missed != before)
            last_progress = now();
        if (!gen_done && waitpid(gen, NULL, WNOHANG) == gen) {
            gen_done = 1;
            done_at = now();
        }
        if (p->outcome != O_FULL || !gen_done)
            continue;                   /* kill: fetch on until killed */
        if (t.own + t.missed >= want)
            break;
        if (now() - (last_progress > done_at ? last_progress : done_at) > SHORT_SECS) {
            problem(&t, "short: %ld of %ld after %.0f s without progress", t.own + t.missed,
                    want, SHORT_SECS);
            break;
        }
    }
    int ok = t.errors == 0 && t.foreign == 0;
    switch (p->outcome) {
    case O_FULL:
        nap(0.3);                       /* anything more would be too much */
        fetch(pm_records, gen, &t);
        if (t.own + t.missed != want) {
            problem(&t, "delivered %ld + missed %ld != %ld", t.own, t.missed, want);
            ok = 0;
        }
        pmDestroyContext(ctx);
        break;
    case O_UNREG: {
        char status[512] = "";
        if ((sts = store_string(pm_unregister, "*")) < 0) {
            problem(&t, "store unregister: %s", pmErrStr(sts));
            ok = 0;
        }
        long novalues = t.novalues;
        fetch(pm_records, gen, &t);
        if (t.novalues != novalues + 1) {
            problem(&t, "records after unregistering");
            ok = 0;
        }
        if ((sts = fetch_status(status, sizeof(status))) < 0 ||
            strncmp(status, "subscriptions: 0\n", 17) != 0) {
            problem(&t, "status after unregistering: %s", sts < 0 ? pmErrStr(sts) : status);
            ok = 0;
        }
        pmDestroyContext(ctx);
        break;
    }
    case O_DESTROY:
        pmDestroyContext(ctx);
        break;
    default:                            /* exit: no pmDestroyContext, no unregister */
        break;
    }
    if (p->outcome != O_FULL && t.own + t.missed > want) {
        problem(&t, "delivered %ld + missed %ld > %ld", t.own, t.missed, want);
        ok = 0;
    }
    report(resfd, p, &t, ok && (t.errors == 0 && t.foreign == 0));
    if (p->outcome == O_EXIT)
        _exit(0);
    return 0;
}

/* ---- the driver ------------------------------------------------------------------ */

struct slot {
    struct plan plan;
    pid_t pid;              /* 0: not started; -1: finished */
    double started;
    int killed;             /* the driver sent SIGKILL */
    int status;             /* wait status */
    int reported, ok;
    long own, missed, foreign, fetches, errors, stream_records;
    char why[MAX_LINE];
};

static struct slot *slots;
static long nslots, capslots;
static long generated, gens_started;

static struct slot *slot_of_pid(pid_t pid)
{
    for (long i = 0; i < nslots; i++)
        if (slots[i].pid == pid)
            return &slots[i];
    return NULL;
}

/* Result lines from clients and generators, as they come. */
static char inbuf[1 << 16];
static size_t inlen;

static void parse_line(char *line)
{
    int k, ok;
    long n;
    struct slot s;
    char why[MAX_LINE];
    if (sscanf(line, "G %d %ld", &k, &n) == 2) {
        generated += n;
        gens_started++;
        return;
    }
    if (sscanf(line, "R %d %d %ld %ld %ld %ld %ld %ld %399[^\n]", &k, &ok, &s.own, &s.missed,
               &s.foreign, &s.fetches, &s.errors, &s.stream_records, why) == 9 &&
        k >= 0 && k < nslots) {
        struct slot *d = &slots[k];
        d->reported = 1;
        d->ok = ok;
        d->own = s.own;
        d->missed = s.missed;
        d->foreign = s.foreign;
        d->fetches = s.fetches;
        d->errors = s.errors;
        d->stream_records = s.stream_records;
        snprintf(d->why, sizeof(d->why), "%s", strcmp(why, "-") ? why : "");
    }
}

static void read_results(int fd)
{
    for (;;) {
        ssize_t r = read(fd, inbuf + inlen, sizeof(inbuf) - 1 - inlen);
        if (r <= 0)
            return;
        inlen += (size_t)r;
        inbuf[inlen] = '\0';
        char *start = inbuf, *nl;
        while ((nl = strchr(start, '\n')) != NULL) {
            *nl = '\0';
            parse_line(start);
            start = nl + 1;
        }
        inlen -= (size_t)(start - inbuf);
        memmove(inbuf, start, inlen);
    }
}

/* Reap whatever has exited: clients, and generators (we are their subreaper). */
static int reap(void)
{
    int st, running = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        struct slot *s = slot_of_pid(pid);
        if (s) {
            s->status = st;
            s->pid = -1;
        }
    }
    for (long i = 0; i < nslots; i++)
        running += slots[i].pid > 0;
    return running;
}

static void kill_due(double t)
{
    for (long i = 0; i < nslots; i++) {
        struct slot *s = &slots[i];
        if (s->pid > 0 && !s->killed && s->plan.outcome == O_KILL &&
            t - s->started >= s->plan.kill_after) {
            kill(s->pid, SIGKILL);
            s->killed = 1;
        }
    }
}

static int start_client(int k, int resfd, int resrd)
{
    if (nslots == capslots) {
        long cap = capslots ? capslots * 2 : 64;
        struct slot *v = realloc(slots, (size_t)cap * sizeof(*v));
        if (!v)
            return -1;
        slots = v;
        capslots = cap;
    }
    struct slot *s = &slots[nslots++];
    memset(s, 0, sizeof(*s));
    s->plan = make_plan(k);
    s->started = now();
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(resrd);
        _exit(client(&s->plan, resfd));
    }
    s->pid = pid;
    return 0;
}

/* Judge client s; returns 1 if it failed. */
static int judge(const struct slot *s, char *why, size_t len)
{
    const struct plan *p = &s->plan;
    why[0] = '\0';
    if (s->pid > 0) {
        snprintf(why, len, "still running (hung)");
    } else if (p->outcome == O_KILL) {
        if (!(WIFSIGNALED(s->status) && WTERMSIG(s->status) == SIGKILL))
            snprintf(why, len, "not killed: %s", s->reported ? s->why : "no report");
        else if (s->reported && !s->ok)
            snprintf(why, len, "%s", s->why);
    } else if (!WIFEXITED(s->status) || WEXITSTATUS(s->status) != 0) {
        snprintf(why, len, "%s %d%s%s", WIFEXITED(s->status) ? "exit status" : "signal",
                 WIFEXITED(s->status) ? WEXITSTATUS(s->status) : WTERMSIG(s->status),
                 s->reported ? ": " : "", s->reported ? s->why : "");
    } else if (!s->reported) {
        snprintf(why, len, "no report");
    } else if (!s->ok) {
        snprintf(why, len, "%s", s->why);
    }
    return why[0] != '\0';
}

static int usage(void)
{
    fprintf(stderr,
            "usage: tpchurn [-s SEED] [-C CLIENTS] [-d SECS] [-j JOBS] [-n EVENTS] [-r RATE]\n"
            "               [-g MS] [-T SECS] [-v]\n");
    return 2;
}

static int number(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    int c;
    double v;
    int seeded = 0;
    while ((c = getopt(argc, argv, "s:C:d:j:n:r:g:T:v")) != -1) {
        char *end;
        switch (c) {
        case 's':
            errno = 0;
            opt.seed = strtoull(optarg, &end, 0);
            if (!*optarg || *end || errno)
                return usage();
            seeded = 1;
            break;
        case 'C': if (number(optarg, 1, 1e7, &v) < 0) return usage(); opt.nclients = (long)v; break;
        case 'd': if (number(optarg, 0.1, 1e6, &v) < 0) return usage(); opt.secs = v; break;
        case 'j': if (number(optarg, 1, 60, &v) < 0) return usage(); opt.jobs = (int)v; break;
        case 'n': if (number(optarg, 2, 1e8, &v) < 0) return usage(); opt.mean_n = (long)v; break;
        case 'r': if (number(optarg, 2, 1e7, &v) < 0) return usage(); opt.mean_rate = (long)v; break;
        case 'g': if (number(optarg, 0, 1e5, &v) < 0) return usage(); opt.gap_ms = (int)v; break;
        case 'T': if (number(optarg, 1, 1e6, &v) < 0) return usage(); opt.hang_secs = v; break;
        case 'v': opt.verbose = 1; break;
        default: return usage();
        }
    }
    if (optind != argc || (!opt.nclients && !opt.secs))
        return usage();
    if (!seeded) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        opt.seed = (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec;
    }
    printf("seed %" PRIu64 "\n", opt.seed);
    fflush(stdout);

    int res[2];
    if (pipe(res) < 0 || fcntl(res[0], F_SETFL, O_NONBLOCK) < 0) {
        perror("tpchurn: pipe");
        return 1;
    }
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    signal(SIGPIPE, SIG_IGN);

    uint64_t rng = opt.seed ^ 0x5bd1e995u;
    double t0 = now(), next_start = t0;
    int k = 0;
    for (;;) {
        double t = now();
        int more = (!opt.nclients || k < opt.nclients) && (!opt.secs || t - t0 < opt.secs);
        read_results(res[0]);
        kill_due(t);
        int running = reap();
        if (!more)
            break;
        if (running < opt.jobs && t >= next_start) {
            if (start_client(k++, res[1], res[0]) < 0) {
                perror("tpchurn: fork");
                break;
            }
            next_start = t + (double)between(&rng, 0, 100) / 1000.0;
        }
        nap(0.005);
    }
    /* Let the clients finish (the killed ones are killed on time), then the generators. */
    double deadline = now() + opt.hang_secs;
    while (reap() > 0 && now() < deadline) {
        read_results(res[0]);
        kill_due(now());
        nap(0.01);
    }
    close(res[1]);
    for (long i = 0; i < nslots; i++)
        if (slots[i].pid > 0)
            kill(slots[i].pid, SIGKILL);        /* hung: judged so below */
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, 0)) > 0 || (pid < 0 && errno == EINTR)) {
        struct slot *s = pid > 0 ? slot_of_pid(pid) : NULL;
        if (s && s->pid > 0) {
            s->status = st;
            s->pid = -2;                        /* killed as hung */
        }
    }
    read_results(res[0]);
    double elapsed = now() - t0;

    long count[NOUTCOMES] = { 0 }, failures = 0;
    long delivered = 0, missed = 0, full_missed = 0, fetches = 0, errors = 0, streamed = 0;
    for (long i = 0; i < nslots; i++) {
        struct slot *s = &slots[i];
        char why[MAX_LINE + 64];
        if (s->pid == -2)
            s->pid = 1;                         /* judge() says "hung" */
        int failed = judge(s, why, sizeof(why));
        count[s->plan.outcome]++;
        failures += failed;
        delivered += s->own;
        missed += s->missed;
        full_missed += s->plan.outcome == O_FULL && s->missed > 0;
        fetches += s->fetches;
        errors += s->errors;
        streamed += s->stream_records;
        if (failed)
            printf("client %d: %s: FAIL (%s)\n", s->plan.k, outcome_name[s->plan.outcome], why);
        else if (opt.verbose && s->plan.outcome == O_FULL)
            printf("client %d: full: delivered + missed == N: ok\n", s->plan.k);
        else if (opt.verbose)
            printf("client %d: %s: ok\n", s->plan.k, outcome_name[s->plan.outcome]);
    }
    printf("outcomes: %ld clients:", nslots);
    for (int o = 0; o < NOUTCOMES; o++)
        printf("%s %ld %s", o ? "," : "", count[o], outcome_name[o]);
    printf("\nfailures: %ld\n", failures);
    printf("stat generators %ld\n", gens_started);
    printf("stat generated %ld\n", generated);
    printf("stat delivered %ld\n", delivered);
    printf("stat missed %ld\n", missed);
    printf("stat full_clients_with_missed %ld\n", full_missed);
    printf("stat fetches %ld\n", fetches);
    printf("stat fetch_errors %ld\n", errors);
    printf("stat stream_records %ld\n", streamed);
    printf("stat seconds %.1f\n", elapsed);
    return failures ? 1 : 0;
}
