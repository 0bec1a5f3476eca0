/*
 * The private tracefs instance.  See tp_tracefs.h for the contract.
 */
#include "tp_tracefs.h"
#include "tp_fault.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

struct tp_instance {
    struct tracefs_instance *tfs;
    char *tracing_dir;
    char *name;
    char *dir;                  /* tracing_dir/instances/name */
    int ncpus;
    size_t subbuf_size;
    struct tp_page_layout layout;
    tp_log_fn log;
    void *log_arg;
    bool removed;
};


/* rmdir: the kernel disables the instance's events, or refuses (EBUSY) if it is in use. */
static int remove_instance(struct tracefs_instance *tfs)
{
    return tracefs_instance_destroy(tfs) < 0 ? -errno : 0;
}

/* Is name "pmdatracepoint.<digits>"?  Returns the pid, or -1. */
static long instance_owner(const char *name)
{
    size_t n = strlen(TP_INSTANCE_PREFIX);
    if (strncmp(name, TP_INSTANCE_PREFIX, n) != 0 || !name[n])
        return -1;
    char *end;
    long pid = strtol(name + n, &end, 10);
    return *end == '\0' && pid > 0 ? pid : -1;
}

static void clean_stale(const char *tracing_dir, tp_log_fn log, void *arg)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/instances", tracing_dir);
    DIR *d = opendir(path);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        long pid = instance_owner(de->d_name);
        if (pid < 0 || tp_process_running(pid, "pmdatracepoint"))
            continue;
        struct tracefs_instance *tfs = tracefs_instance_alloc(tracing_dir, de->d_name);
        int rc = tfs ? remove_instance(tfs) : -ENOMEM;
        if (rc != -ENOENT && rc != -ENODEV)     /* else its watcher removed it meanwhile */
            tp_logf(log, arg, "stale instance %s of a dead pmdatracepoint: %s", de->d_name,
                    rc == 0 ? "removed" : strerror(-rc));
        tracefs_instance_free(tfs);
    }
    if (d)
        closedir(d);
}

/* An instance with our own name was left by an earlier process with our pid. */
static void remove_leftover(const char *tracing_dir, const char *name, tp_log_fn log, void *arg)
{
    if (!tracefs_instance_exists(name))
        return;
    struct tracefs_instance *tfs = tracefs_instance_alloc(tracing_dir, name);
    int rc = tfs ? remove_instance(tfs) : -ENOMEM;
    tp_logf(log, arg, "leftover instance %s (an earlier process had this pid): %s", name,
            rc == 0 ? "removed" : strerror(-rc));
    tracefs_instance_free(tfs);
}

static int count_cpus(const char *dir)
{
    char path[1024];
    struct stat st;
    int n = 0;
    for (;; n++) {
        snprintf(path, sizeof(path), "%s/per_cpu/cpu%d", dir, n);
        if (stat(path, &st) != 0)
            break;
    }
    return n;
}

static size_t read_subbuf_size(struct tracefs_instance *tfs)
{
    long long kb = 0;
    if (tracefs_instance_file_read_number(tfs, "buffer_subbuf_size_kb", &kb) == 0 && kb > 0)
        return (size_t)kb * 1024;
    return (size_t)getpagesize();   /* kernels before 6.8: one page */
}

/* The sub-buffer header as the kernel describes it; a native one if it does not. */
static void read_layout(struct tp_instance *inst, tp_log_fn log, void *arg)
{
    char *text = tracefs_instance_file_read(inst->tfs, "events/header_page", NULL);
    if (!text || tp_parse_header_page(text, &inst->layout) < 0) {
        inst->layout = (struct tp_page_layout){ 8, sizeof(long), 8 + sizeof(long) };
        tp_logf(log, arg, "instance %s: events/header_page %s; assuming a %zu-byte commit "
                "word and data at %u", inst->name, text ? "not understood" : "unreadable",
                sizeof(long), inst->layout.data_offset);
    }
    free(text);
}

static int write_setting(struct tp_instance *inst, const char *file, const char *val,
                         tp_log_fn log, void *arg)
{
    if (tracefs_instance_file_write(inst->tfs, file, val) >= 0)
        return 0;
    int rc = -errno;
    tp_logf(log, arg, "instance %s: cannot set %s to %s: %s", inst->name, file, val,
          strerror(errno));
    return rc;
}

static int configure(struct tp_instance *inst, unsigned buffer_kb, tp_log_fn log, void *arg)
{
    char kb[32];
    snprintf(kb, sizeof(kb), "%u", buffer_kb);
    int rc = write_setting(inst, "trace_clock", "mono", log, arg);
    if (rc == 0)
        rc = write_setting(inst, "options/overwrite", "0", log, arg);
    if (rc == 0)
        rc = write_setting(inst, "buffer_size_kb", kb, log, arg);
    if (rc == 0)
        rc = write_setting(inst, "tracing_on", "1", log, arg);
    return rc;
}

static int find_tracefs(const char **dir)
{
    /* libtracefs finds tracefs through /proc/mounts and mounts it if it can. */
    *dir = tracefs_tracing_dir();
    if (!*dir)
        return -ENODEV;
    char path[1024];
    snprintf(path, sizeof(path), "%s/instances", *dir);
    return access(path, F_OK) == 0 ? 0 : -ENODEV;
}

int tp_instance_open(struct tp_instance **out, unsigned buffer_kb, tp_log_fn log, void *arg)
{
    const char *tdir = NULL;
    int rc = find_tracefs(&tdir);
    struct tp_instance *inst = NULL;
    if (rc < 0)
        goto fail;
    rc = -ENOMEM;
    if (!(inst = calloc(1, sizeof(*inst))) || !(inst->tracing_dir = strdup(tdir)) ||
        asprintf(&inst->name, TP_INSTANCE_PREFIX "%ld", (long)getpid()) < 0)
        goto fail;
    inst->log = log;
    inst->log_arg = arg;
    clean_stale(tdir, log, arg);
    remove_leftover(tdir, inst->name, log, arg);
    inst->tfs = tracefs_instance_create(inst->name);
    if (!inst->tfs || !(inst->dir = tracefs_instance_get_dir(inst->tfs))) {
        rc = errno ? -errno : -EIO;
        tp_logf(log, arg, "cannot create tracefs instance %s: %s", inst->name, strerror(-rc));
        goto fail;
    }
    inst->ncpus = count_cpus(inst->dir);
    inst->subbuf_size = read_subbuf_size(inst->tfs);
    read_layout(inst, log, arg);
    rc = configure(inst, buffer_kb, log, arg);
    if (rc < 0)
        goto fail;
    *out = inst;
    return 0;
fail:
    tp_instance_close(inst);
    return rc;
}

void tp_instance_teardown(struct tp_instance *inst)
{
    if (!inst || inst->removed || !inst->tfs)
        return;
    remove_instance(inst->tfs);
    inst->removed = true;
}

void tp_instance_close(struct tp_instance *inst)
{
    if (!inst)
        return;
    tp_instance_teardown(inst);
    tracefs_instance_free(inst->tfs);
    tracefs_put_tracing_file(inst->dir);
    free(inst->tracing_dir);
    free(inst->name);
    free(inst);
}

const char *tp_instance_tracing_dir(const struct tp_instance *inst) { return inst->tracing_dir; }
const char *tp_instance_name(const struct tp_instance *inst) { return inst->name; }
int tp_instance_ncpus(const struct tp_instance *inst) { return inst->ncpus; }
size_t tp_instance_subbuf_size(const struct tp_instance *inst) { return inst->subbuf_size; }
const struct tp_page_layout *tp_instance_page_layout(const struct tp_instance *inst)
{
    return &inst->layout;
}

int tp_instance_set_buffer_kb(struct tp_instance *inst, unsigned kb)
{
    char val[32];
    snprintf(val, sizeof(val), "%u", kb);
    return write_setting(inst, "buffer_size_kb", val, inst->log, inst->log_arg);
}

int tp_instance_enable(struct tp_instance *inst, const struct tp_event *e, int on)
{
    if (on && tp_fault_refused(e->fullname))
        return -EINVAL;
    if (!on && tp_fault_refused_off(e->fullname))
        return -EIO;
    if (tracefs_event_file_write(inst->tfs, e->ksystem, e->name, "enable", on ? "1" : "0") < 0)
        return errno ? -errno : -EIO;
    return 0;
}

int tp_instance_set_filter(struct tp_instance *inst, const struct tp_event *e,
                           const char *filter)
{
    const char *f = filter && *filter ? filter : "0";
    if (tracefs_event_file_write(inst->tfs, e->ksystem, e->name, "filter", f) < 0)
        return errno ? -errno : -EIO;
    return 0;
}

int tp_instance_set_stacktrace(struct tp_instance *inst, const struct tp_event *e,
                               const char *cond)
{
    char file[512];
    if (cond && !*cond)
        return -EINVAL;
    int n = snprintf(file, sizeof(file), "events/%s/%s/trigger", e->ksystem, e->name);
    if (n < 0 || (size_t)n >= sizeof(file))
        return -ENAMETOOLONG;
    size_t len = cond ? strlen(cond) + sizeof("stacktrace if ") : sizeof("!stacktrace");
    char *text = malloc(len);
    if (!text)
        return -ENOMEM;
    snprintf(text, len, "%s%s", cond ? "stacktrace if " : "!stacktrace", cond ? cond : "");
    int fd = tp_instance_open_file(inst, file, O_WRONLY);   /* no O_TRUNC: only this trigger */
    int rc = fd;
    if (fd >= 0) {
        ssize_t w = write(fd, text, strlen(text));
        rc = w == (ssize_t)strlen(text) ? 0 : w < 0 ? -errno : -EIO;
        close(fd);
    }
    free(text);
    return rc;
}

void tp_instance_filter_error(struct tp_instance *inst, const struct tp_event *e,
                              char *buf, size_t len)
{
    char *text = tracefs_event_file_read(inst->tfs, e->ksystem, e->name, "filter", NULL);
    const char *p = text ? strstr(text, "parse_error:") : NULL;
    snprintf(buf, len, "%.*s", p ? (int)strcspn(p, "\n") : 0, p ? p : "");
    free(text);
}

int tp_instance_open_file(struct tp_instance *inst, const char *file, int flags)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", inst->dir, file);
    int fd = open(path, flags | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int tp_instance_open_cpu_file(struct tp_instance *inst, int cpu, const char *file, int flags)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/%s", inst->dir, cpu, file);
    int fd = open(path, flags | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

static int stat_value(const char *text, const char *key, uint64_t *val)
{
    const char *p = strstr(text, key);
    if (!p)
        return -EINVAL;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(p + strlen(key), &end, 10);
    if (errno || end == p + strlen(key))
        return -EINVAL;
    *val = v;
    return 0;
}

int tp_parse_cpu_stats(const char *text, uint64_t *overrun, uint64_t *dropped)
{
    /* "overrun: N" also matches inside "commit overrun: N"; anchor at line start. */
    const char *o = strncmp(text, "overrun:", 8) == 0 ? text : strstr(text, "\noverrun:");
    if (!o)
        return -EINVAL;
    int rc = stat_value(o, "overrun:", overrun);
    if (rc == 0)
        rc = stat_value(text, "dropped events:", dropped);
    return rc;
}

int tp_instance_remove_of(long pid)
{
    char name[sizeof(TP_INSTANCE_PREFIX) + 24];
    snprintf(name, sizeof(name), "%s%ld", TP_INSTANCE_PREFIX, pid);
    if (!tracefs_instance_exists(name))
        return 0;
    struct tracefs_instance *tfs = tracefs_instance_alloc(NULL, name);
    int rc = tfs ? remove_instance(tfs) : -ENOMEM;
    tracefs_instance_free(tfs);
    return rc < 0 ? rc : 1;
}
