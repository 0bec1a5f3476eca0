/*
 * The PMDA's dynamic probes in the kernel, through libtracefs's dynamic
 * event API.  See tp_probes.h for the contract.
 */
#include "tp_probes.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#define PROBE_TYPES (TRACEFS_DYNEVENT_UPROBE | TRACEFS_DYNEVENT_URETPROBE | \
                     TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE)

struct probe {
    char name[TP_PROBE_NAME_MAX + 1];
    struct tracefs_dynevent *ev;
};

struct tp_probes {
    char group[sizeof(TP_PROBE_GROUP_PREFIX) + 24];
    pthread_mutex_t lock;           /* the list: PMDA thread against the signal thread */
    struct probe *v;
    size_t n, cap;
    bool torn_down;
    tp_log_fn log;
    void *arg;
};

bool tp_probes_group_stale(const char *group, int self_pid, bool (*pid_running)(long pid))
{
    size_t k = strlen(TP_PROBE_GROUP_PREFIX);
    if (strncmp(group, TP_PROBE_GROUP_PREFIX, k) != 0)
        return false;
    const char *digits = group + k;
    if (*digits < '1' || *digits > '9' || strspn(digits, "0123456789") != strlen(digits) ||
        strlen(digits) > 9)
        return false;
    long pid = strtol(digits, NULL, 10);
    return pid != self_pid && !pid_running(pid);
}

static bool pmda_running(long pid)
{
    return tp_process_running(pid, "pmdatracepoint");
}

/*
 * Remove the probes of group (NULL: of every group whose PMDA is gone, and
 * of ours, left by an earlier process with our pid).  libtracefs may list a
 * probe twice (uprobe_events and dynamic_events): one listed again after
 * it was removed is not counted.  Returns how many could not be removed.
 */
static size_t sweep(struct tp_probes *p, const char *group, size_t *removed)
{
    struct tracefs_dynevent **all = tracefs_dynevent_get_all(PROBE_TYPES, group);
    size_t failed = 0;
    *removed = 0;
    for (size_t i = 0; all && all[i]; i++) {
        char *system = NULL, *event = NULL;
        tracefs_dynevent_info(all[i], &system, &event, NULL, NULL, NULL);
        bool ours = system && (group || strcmp(system, p->group) == 0 ||
                               tp_probes_group_stale(system, (int)getpid(), pmda_running));
        if (ours && tracefs_dynevent_destroy(all[i], true) == 0)
            (*removed)++;
        else if (ours && event && tracefs_event_file_exists(NULL, system, event, "format"))
            failed++;               /* not a second listing of one removed already */
        free(system);
        free(event);
    }
    tracefs_dynevent_list_free(all);
    return failed;
}

static void clean_stale(struct tp_probes *p)
{
    size_t removed, failed = sweep(p, NULL, &removed);
    if (removed || failed)
        tp_logf(p->log, p->arg, "probes left by a PMDA that is gone: %zu removed%s", removed,
                failed ? ", some could not be (still enabled in an instance?)" : "");
}

int tp_probes_open(struct tp_probes **out, tp_log_fn log, void *arg)
{
    struct tp_probes *p = calloc(1, sizeof(*p));
    *out = NULL;
    if (!p)
        return -ENOMEM;
    snprintf(p->group, sizeof(p->group), "%s%d", TP_PROBE_GROUP_PREFIX, (int)getpid());
    pthread_mutex_init(&p->lock, NULL);
    p->log = log;
    p->arg = arg;
    clean_stale(p);
    *out = p;
    return 0;
}

static int destroy(struct tp_probes *p, struct probe *pr)
{
    int rc = tracefs_dynevent_destroy(pr->ev, true) == 0 ? 0 : -(errno ? errno : EIO);
    if (rc < 0)
        tp_logf(p->log, p->arg, "cannot remove probe %s/%s: %s", p->group, pr->name,
                strerror(-rc));
    tracefs_dynevent_free(pr->ev);
    pr->ev = NULL;
    return rc;
}

void tp_probes_teardown(struct tp_probes *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    for (size_t i = 0; !p->torn_down && i < p->n; i++)
        destroy(p, &p->v[i]);
    if (!p->torn_down) {
        size_t removed;         /* and any of ours a failed removal left behind */
        sweep(p, p->group, &removed);
    }
    p->torn_down = true;
    pthread_mutex_unlock(&p->lock);
}

void tp_probes_close(struct tp_probes *p)
{
    if (!p)
        return;
    tp_probes_teardown(p);
    pthread_mutex_destroy(&p->lock);
    free(p->v);
    free(p);
}

const char *tp_probes_group(const struct tp_probes *p)
{
    return p->group;
}

bool tp_probes_supported(enum tp_probe_kind kind)
{
    return tracefs_file_exists(NULL, kind == TP_PROBE_KPROBE ? "kprobe_events"
                                                             : "uprobe_events");
}

static struct probe *find(struct tp_probes *p, const char *name)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->v[i].name, name) == 0)
            return &p->v[i];
    return NULL;
}

static struct tracefs_dynevent *alloc_event(const struct tp_probes *p, const char *name,
                                            const struct tp_probe_spec *spec,
                                            uint64_t file_offset, const char *args)
{
    if (spec->kind == TP_PROBE_UPROBE)
        return spec->is_return
            ? tracefs_uretprobe_alloc(p->group, name, spec->path, file_offset, args)
            : tracefs_uprobe_alloc(p->group, name, spec->path, file_offset, args);
    char addr[300];
    if (spec->symbol)
        snprintf(addr, sizeof(addr), "%s+%llu", spec->symbol, (unsigned long long)spec->offset);
    else
        snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)spec->offset);
    return spec->is_return ? tracefs_kretprobe_alloc(p->group, name, addr, args, 0)
                           : tracefs_kprobe_alloc(p->group, name, addr, args);
}

/* The kernel's reason for the last refused definition, one printable line. */
static void kernel_reason(char *err, size_t errlen)
{
    char *log = tracefs_error_last(NULL);
    size_t n = 0;
    const char *msg = log ? strstr(log, "error: ") : NULL;
    if (msg) {
        msg += strlen("error: ");
        n = strcspn(msg, "\n");
    }
    if (n)
        tp_errf(err, errlen, -EINVAL, "the kernel refused the probe: %.*s", (int)n, msg);
    else
        tp_errf(err, errlen, -EINVAL, "the kernel refused the probe");
    free(log);
}

static int create_locked(struct tp_probes *p, const char *name, const struct tp_probe_spec *spec,
                         uint64_t file_offset, char *err, size_t errlen)
{
    if (!tp_probes_supported(spec->kind))
        return tp_errf(err, errlen, -EOPNOTSUPP, "this kernel has no %s_events",
                       spec->kind == TP_PROBE_KPROBE ? "kprobe" : "uprobe");
    if (find(p, name))
        return tp_errf(err, errlen, -EEXIST, "probe %s exists already", name);
    if (p->n == p->cap) {
        size_t ncap = p->cap ? 2 * p->cap : 8;
        struct probe *v = realloc(p->v, ncap * sizeof(*v));
        if (!v)
            return tp_errf(err, errlen, -ENOMEM, "out of memory");
        p->v = v;
        p->cap = ncap;
    }
    char *args = NULL;
    if (tp_probespec_fetchargs(spec, &args) < 0)
        return tp_errf(err, errlen, -ENOMEM, "out of memory");
    struct tracefs_dynevent *ev = alloc_event(p, name, spec, file_offset, args);
    free(args);
    if (!ev)
        return tp_errf(err, errlen, -ENOMEM, "out of memory");
    if (tracefs_dynevent_create(ev) < 0) {
        kernel_reason(err, errlen);
        tracefs_dynevent_free(ev);
        return -EINVAL;
    }
    struct probe *pr = &p->v[p->n++];
    snprintf(pr->name, sizeof(pr->name), "%s", name);
    pr->ev = ev;
    return 0;
}

int tp_probes_create(struct tp_probes *p, const char *name, const struct tp_probe_spec *spec,
                     uint64_t file_offset, char *err, size_t errlen)
{
    if (!tp_probe_name_ok(name))
        return tp_errf(err, errlen, -EINVAL, "bad probe name");
    pthread_mutex_lock(&p->lock);
    int rc = p->torn_down ? tp_errf(err, errlen, -ESHUTDOWN, "the PMDA is stopping")
                          : create_locked(p, name, spec, file_offset, err, errlen);
    pthread_mutex_unlock(&p->lock);
    return rc;
}

int tp_probes_remove(struct tp_probes *p, const char *name)
{
    pthread_mutex_lock(&p->lock);
    struct probe *pr = find(p, name);
    int rc = -ENOENT;
    if (pr) {
        rc = p->torn_down ? 0 : destroy(p, pr);
        *pr = p->v[--p->n];
    }
    pthread_mutex_unlock(&p->lock);
    return rc;
}

size_t tp_probes_remove_of(long pid, size_t *failed)
{
    struct tp_probes gone = { .log = NULL };
    size_t removed = 0;
    snprintf(gone.group, sizeof(gone.group), "%s%ld", TP_PROBE_GROUP_PREFIX, pid);
    *failed = sweep(&gone, gone.group, &removed);
    return removed;
}
