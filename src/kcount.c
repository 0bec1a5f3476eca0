/*
 * Aggregations counted by the kernel's perf tracepoint counters.  See tp_kcount.h.
 */
#include "tp_kcount.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tp_comms.h"
#include "tp_fault.h"
#include "tp_filter.h"
#include "tp_util.h"

#define CPU_ONLINE   "/sys/devices/system/cpu/online"
#define MAX_CPUS     TP_KCOUNT_MAX
#define LAG_NS       (1000 * 1000 * 1000ll) /* a counter this far behind the clock stopped */

/* One counter: its descriptor, and its enabled time and the clock at the last read. */
struct counter {
    int fd;                                 /* -1: not open */
    uint64_t enabled;
    uint64_t at;                            /* tp_mono_now() just after that read */
};

/* One event's counters, one per CPU, and the name its counts go under. */
struct kev {
    uint32_t event;
    struct counter *c;                      /* ncpus of them */
    uint64_t count;                         /* the last read, all CPUs */
    uint64_t next;                          /* the read under way */
    char comm[TP_COMM_LEN];                 /* by comm: the name the filter pins */
};

struct tp_kcount {
    struct kev *v;
    size_t n;
    int cpus[MAX_CPUS];
    int ncpus;
    char *online;                           /* CPU_ONLINE's text when they were opened */
    bool by_comm;
    bool stopped;                           /* a read found the CPUs changed: no more reads */
};

bool tp_kcount_suits(const struct tp_config_agg *def, char *why, size_t len)
{
    const char *no = NULL;
    if (def->producer)
        no = "backend=producer";
    else if (def->kind != TP_CONFIG_COUNT)
        no = "only a count is a counter";
    for (size_t i = 0; !no && i < def->nby; i++)
        if (strcmp(def->by[i], "comm") == 0 && !tp_filter_text_names_comm(def->filter))
            no = "it is keyed by comm at the event";
        else if (strcmp(def->by[i], "event") != 0 && strcmp(def->by[i], "comm") != 0)
            no = "a counter has no keys but event, or comm pinned by the filter";
    if (no)
        snprintf(why, len, "%s", no);
    return !no;
}

/* "N" or "N-M" at *p, advancing it; false if neither. */
static bool cpu_range(const char **p, long *lo, long *hi)
{
    char *end;
    *lo = *hi = strtol(*p, &end, 10);
    if (end == *p || *lo < 0)
        return false;
    if (*end == '-') {
        const char *q = end + 1;
        *hi = strtol(q, &end, 10);
        if (end == q || *hi < *lo)
            return false;
    }
    *p = end;
    return true;
}

int tp_kcount_cpus(const char *list, int *cpus, int max)
{
    const char *p = list;
    int n = 0;
    while (*p && *p != '\n') {
        long lo, hi;
        if (!cpu_range(&p, &lo, &hi) || (*p && *p != ',' && *p != '\n'))
            return -EINVAL;
        for (long c = lo; c <= hi; c++) {
            if (n == max)
                return -E2BIG;
            cpus[n++] = (int)c;
        }
        p += *p == ',';
    }
    return n ? n : -EINVAL;
}

/* The CPUs online into k (a counter counts on its own CPU); else why. */
static int online_cpus(struct tp_kcount *k, char *why, size_t len)
{
    char *on = NULL;
    int rc = tp_read_text(CPU_ONLINE, 4096, &on, NULL);
    if (rc == 0 && (rc = tp_kcount_cpus(on, k->cpus, MAX_CPUS)) > 0) {
        k->ncpus = rc;
        k->online = on;
        return 0;
    }
    if (rc == -E2BIG)
        snprintf(why, len, "more than %d CPUs online", MAX_CPUS);
    else
        snprintf(why, len, "cannot read the CPUs online: %s", strerror(-rc));
    free(on);
    return rc == -E2BIG ? -EOPNOTSUPP : rc;
}

/* Room for n more descriptors, leaving half the PMDA's limit to the rest of it?  Else why. */
static int fds_left(size_t n, char *why, size_t len)
{
    struct rlimit rl;
    size_t open = 0;
    DIR *d = opendir("/proc/self/fd");
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || !d) {
        int rc = -errno;
        if (d)
            closedir(d);
        snprintf(why, len, "cannot count its file descriptors: %s", strerror(-rc));
        return rc;
    }
    while (readdir(d))
        open++;
    closedir(d);
    if (rl.rlim_cur != RLIM_INFINITY && open + n > rl.rlim_cur / 2) {
        snprintf(why, len, "%zu more counters would take the PMDA past half its limit of %llu "
                 "open files (%zu open)", n, (unsigned long long)rl.rlim_cur, open);
        return -EOPNOTSUPP;
    }
    return 0;
}

/* What e's counts go under: the name its filter pins, if by comm; -EOPNOTSUPP with why. */
static int plan(struct tp_kcount *k, struct kev *v, const struct tp_event *e,
                const struct tp_config_agg *def, char *why, size_t len)
{
    struct tp_filter *f = NULL;
    char err[256];
    if (tp_event_is_probe(e)) {
        snprintf(why, len, "%s is a dynamic probe", e->fullname);
        return -EOPNOTSUPP;
    }
    for (size_t i = 0; i < def->nby; i++)
        if (tp_event_field(e, def->by[i])) {
            snprintf(why, len, "%s: key '%s' is a field of the event", e->fullname, def->by[i]);
            return -EOPNOTSUPP;
        }
    if (!k->by_comm)
        return 0;
    if (!def->filter || tp_filter_compile(def->filter, e, &f, err, sizeof(err)) < 0) {
        snprintf(why, len, "it is keyed by comm at the event");
        return -EOPNOTSUPP;
    }
    bool pinned = tp_filter_pinned_comm(f, v->comm, sizeof(v->comm));
    tp_filter_free(f);
    if (!pinned)
        snprintf(why, len, "it is keyed by comm at the event, and its filter allows more "
                 "than one name");
    return pinned ? 0 : -EOPNOTSUPP;
}

static int perf_open(int kernel_id, int cpu)
{
    struct perf_event_attr at;
    memset(&at, 0, sizeof(at));
    at.type = PERF_TYPE_TRACEPOINT;
    at.size = sizeof(at);
    at.config = (uint64_t)kernel_id;
    at.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    at.disabled = 1;
    long fd = syscall(SYS_perf_event_open, &at, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    return fd < 0 ? -errno : (int)fd;
}

/* v's counters on every CPU, the filter set, still disabled. */
static int open_event(const struct tp_kcount *k, struct kev *v, const struct tp_event *e,
                      const char *filter, char *why, size_t len)
{
    for (int c = 0; c < k->ncpus; c++) {
        int fd = tp_fault_refused_counter(e->fullname) ? -EACCES
                                                       : perf_open(e->kernel_id, k->cpus[c]);
        if (fd < 0) {
            snprintf(why, len, "the kernel refused a counter on %s (CPU %d): %s", e->fullname,
                     k->cpus[c], strerror(-fd));
            return fd;
        }
        v->c[c].fd = fd;
        if (filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0) {
            int rc = -errno;
            snprintf(why, len, "the kernel refused the filter of a counter on %s: %s",
                     e->fullname, strerror(-rc));
            return rc;
        }
    }
    return 0;
}

static int enable_all(const struct tp_kcount *k, char *why, size_t len)
{
    for (size_t i = 0; i < k->n; i++)
        for (int c = 0; c < k->ncpus; c++)
            if (ioctl(k->v[i].c[c].fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
                int rc = -errno;
                snprintf(why, len, "the kernel would not start a counter: %s", strerror(-rc));
                return rc;
            }
    return 0;
}

static struct kev *add_event(struct tp_kcount *k, uint32_t event)
{
    struct kev *v = &k->v[k->n];
    *v = (struct kev){ .event = event, .c = calloc((size_t)k->ncpus, sizeof(*v->c)) };
    if (!v->c)
        return NULL;
    for (int c = 0; c < k->ncpus; c++)
        v->c[c].fd = -1;
    k->n++;
    return v;
}

int tp_kcount_create(struct tp_kcount **out, struct tp_catalog *cat,
                     const struct tp_config_agg *def, const uint32_t *events, size_t nevents,
                     char *why, size_t len)
{
    struct tp_kcount *k = calloc(1, sizeof(*k));
    int rc = -ENOMEM;
    *out = NULL;
    if (len)
        *why = '\0';
    if (!k || !(k->v = calloc(nevents ? nevents : 1, sizeof(*k->v))))
        goto fail;
    for (size_t i = 0; i < def->nby; i++)
        k->by_comm |= strcmp(def->by[i], "comm") == 0;
    rc = online_cpus(k, why, len);
    if (rc == 0 && nevents * (size_t)k->ncpus > TP_KCOUNT_MAX) {
        snprintf(why, len, "%zu events on %d CPUs are more than %d counters", nevents,
                 k->ncpus, TP_KCOUNT_MAX);
        rc = -EOPNOTSUPP;
    }
    if (rc == 0)
        rc = fds_left(nevents * (size_t)k->ncpus, why, len);
    for (size_t i = 0; rc == 0 && i < nevents; i++) {
        const struct tp_event *e = tp_catalog_event(cat, events[i]);
        struct kev *v = add_event(k, events[i]);
        rc = !v ? -ENOMEM : plan(k, v, e, def, why, len);
        if (rc == 0)
            rc = open_event(k, v, e, def->filter, why, len);
    }
    if (rc == 0)
        rc = enable_all(k, why, len);
    if (rc == 0 && tp_kcount_read(k) < 0) {     /* where each counter's clock starts */
        snprintf(why, len, "a counter did not count from the start");
        rc = -EIO;
    }
    if (rc < 0)
        goto fail;
    *out = k;
    return 0;
fail:
    if (rc == -ENOMEM && len && !*why)
        snprintf(why, len, "out of memory");
    tp_kcount_destroy(k);
    return rc;
}

void tp_kcount_destroy(struct tp_kcount *k)
{
    if (!k)
        return;
    for (size_t i = 0; i < k->n; i++) {
        for (int c = 0; c < k->ncpus; c++)
            if (k->v[i].c[c].fd >= 0)
                close(k->v[i].c[c].fd);
        free(k->v[i].c);
    }
    free(k->v);
    free(k->online);
    free(k);
}

/*
 * One counter: its count, or -EIO if it did not count all the time it was
 * enabled, or was not enabled all the time since its last read (its CPU
 * went offline: the kernel turns its counters off, for good).
 */
static int read_counter(struct counter *c, uint64_t *count)
{
    uint64_t r[3];                          /* value, time enabled, time running */
    ssize_t got = read(c->fd, r, sizeof(r));
    uint64_t at = tp_mono_now();
    if (got != (ssize_t)sizeof(r))
        return got < 0 ? -errno : -EIO;
    bool lagged = c->at && (int64_t)((at - c->at) - (r[1] - c->enabled)) > LAG_NS;
    if (r[1] != r[2] || lagged)
        return -EIO;
    c->enabled = r[1];
    c->at = at;
    *count = r[0];
    return 0;
}

/* The CPUs online are those the counters were opened on? */
static bool same_cpus(const struct tp_kcount *k)
{
    char *on = NULL;
    bool same = tp_read_text(CPU_ONLINE, 4096, &on, NULL) == 0 && strcmp(on, k->online) == 0;
    free(on);
    return same;
}

static int read_all(struct tp_kcount *k)
{
    for (size_t i = 0; i < k->n; i++) {
        k->v[i].next = 0;
        for (int c = 0; c < k->ncpus; c++) {
            uint64_t n = 0;
            int rc = read_counter(&k->v[i].c[c], &n);
            if (rc < 0)
                return rc;
            k->v[i].next += n;
        }
    }
    return 0;
}

int tp_kcount_read(struct tp_kcount *k)
{
    if (k->stopped)
        return -EIO;
    int rc = read_all(k);
    if (rc == 0 && !same_cpus(k))   /* after: a CPU come since did not count in this read */
        rc = -EIO;
    if (rc == -EIO)
        k->stopped = true;
    for (size_t i = 0; rc == 0 && i < k->n; i++)
        k->v[i].count = k->v[i].next;
    return rc;
}

void tp_kcount_put(const struct tp_kcount *k, struct tp_agg *a)
{
    static const unsigned char none;
    tp_agg_clear(a);
    for (size_t i = 0; i < k->n; i++)
        tp_agg_put_comm(a, k->v[i].event, &none, 0, k->by_comm ? k->v[i].comm : NULL,
                        k->v[i].count, 0);
}
