/*
 * The name history of tasks.  See tp_comms.h.
 */
#include "tp_comms.h"
#include "tp_fields.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIN_CAP 1024u

struct entry {
    int32_t pid;                /* -1: empty */
    bool followed;
    uint8_t len;                /* of comm */
    char comm[TP_COMM_LEN];     /* zero-padded */
};

struct tp_comms {
    struct entry *v;
    size_t cap, n;              /* cap: a power of 2, at least twice n */
};

static void empty_all(struct entry *v, size_t cap)
{
    for (size_t i = 0; i < cap; i++)
        v[i].pid = -1;
}

int tp_comms_create(struct tp_comms **out)
{
    struct tp_comms *t = calloc(1, sizeof(*t));
    if (t && !(t->v = malloc(MIN_CAP * sizeof(*t->v)))) {
        free(t);
        t = NULL;
    }
    *out = t;
    if (!t)
        return -ENOMEM;
    t->cap = MIN_CAP;
    empty_all(t->v, t->cap);
    return 0;
}

void tp_comms_destroy(struct tp_comms *t)
{
    if (t)
        free(t->v);
    free(t);
}

void tp_comms_clear(struct tp_comms *t)
{
    empty_all(t->v, t->cap);
    t->n = 0;
}

size_t tp_comms_count(const struct tp_comms *t) { return t->n; }

void tp_comms_demote(struct tp_comms *t)
{
    for (size_t i = 0; i < t->cap; i++)
        t->v[i].followed = false;
}

static size_t home(const struct tp_comms *t, int32_t pid)
{
    return ((uint32_t)pid * 2654435761u) & (t->cap - 1);
}

/* Where pid is, or the empty entry it would take. */
static size_t slot_of(const struct tp_comms *t, int32_t pid)
{
    size_t i = home(t, pid);
    while (t->v[i].pid != -1 && t->v[i].pid != pid)
        i = (i + 1) & (t->cap - 1);
    return i;
}

/* pid's entry, or NULL (none, or not a task's pid) */
static const struct entry *lookup(const struct tp_comms *t, int32_t pid)
{
    const struct entry *e = pid > 0 ? &t->v[slot_of(t, pid)] : NULL;
    return e && e->pid == pid ? e : NULL;
}

const char *tp_comms_find(const struct tp_comms *t, int32_t pid, bool *followed)
{
    if (followed)
        *followed = true;
    if (pid == 0)
        return "<idle>";
    const struct entry *e = lookup(t, pid);
    if (!e)
        return NULL;
    if (followed)
        *followed = e->followed;
    return e->comm;
}

int tp_comms_name(const struct tp_comms *t, int32_t pid, char out[TP_COMM_LEN])
{
    static const char idle[TP_COMM_LEN] = "<idle>";
    if (pid == 0) {
        memcpy(out, idle, TP_COMM_LEN);
        return (int)strlen(idle);
    }
    const struct entry *e = lookup(t, pid);
    if (!e)
        return -ENOENT;
    memcpy(out, e->comm, TP_COMM_LEN);
    return e->len;
}

const char *tp_comms_get(const struct tp_comms *t, int32_t pid)
{
    const char *c = tp_comms_find(t, pid, NULL);
    return c ? c : TP_COMM_UNKNOWN;
}

static int grow(struct tp_comms *t)
{
    size_t cap = t->cap * 2;
    struct entry *v = malloc(cap * sizeof(*v)), *old = t->v;
    if (!v)
        return -ENOMEM;
    empty_all(v, cap);
    size_t oldcap = t->cap;
    t->v = v;
    t->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].pid != -1)
            t->v[slot_of(t, old[i].pid)] = old[i];
    free(old);
    return 0;
}

int tp_comms_set(struct tp_comms *t, int32_t pid, const char *comm, bool followed)
{
    if (pid <= 0 || !comm)
        return pid == 0 ? 0 : -EINVAL;
    size_t i = slot_of(t, pid);
    if (t->v[i].pid == -1) {
        if (t->n >= TP_COMMS_MAX)
            return -ENOSPC;
        if (2 * (t->n + 1) > t->cap) {
            int rc = grow(t);
            if (rc < 0)
                return rc;
            i = slot_of(t, pid);
        }
        t->n++;
    }
    struct entry *e = &t->v[i];
    size_t n = strnlen(comm, TP_COMM_LEN - 1);
    e->pid = pid;
    e->followed = followed;
    e->len = (uint8_t)n;
    memset(e->comm, 0, TP_COMM_LEN);
    memcpy(e->comm, comm, n);
    return 0;
}

/* Backward-shift deletion: no tombstones. */
void tp_comms_forget(struct tp_comms *t, int32_t pid)
{
    if (pid <= 0)
        return;
    size_t i = slot_of(t, pid);
    if (t->v[i].pid != pid)
        return;
    size_t mask = t->cap - 1;
    for (size_t j = (i + 1) & mask; t->v[j].pid != -1; j = (j + 1) & mask) {
        size_t h = home(t, t->v[j].pid);
        /* j's entry may move to i if its home is not in (i, j] (cyclically) */
        if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
            t->v[i] = t->v[j];
            i = j;
        }
    }
    t->v[i].pid = -1;
    t->n--;
}

static bool read_int(const struct tp_field *f, const void *data, uint32_t size, int32_t *out)
{
    struct tp_field_value v;
    if (!f || !tp_field_value(f, data, size, &v))
        return false;
    *out = (int32_t)v.v.i;
    return true;
}

static bool read_name(const struct tp_field *f, const void *data, uint32_t size,
                      char out[TP_COMM_LEN])
{
    struct tp_field_value v;
    if (!f || !tp_field_value(f, data, size, &v))
        return false;
    uint32_t n = v.len < TP_COMM_LEN - 1 ? v.len : TP_COMM_LEN - 1;
    memcpy(out, (const char *)data + v.off, n);
    out[n] = '\0';
    return true;
}

bool tp_comms_follow(struct tp_comms *t, const struct tp_name_events *ne, int id,
                     const void *data, uint32_t size)
{
    int32_t pid;
    char comm[TP_COMM_LEN];
    if (id < 0)
        return false;
    if (id == ne->fork_id || id == ne->rename_id) {
        bool fork = id == ne->fork_id;
        if (read_int(fork ? ne->fork_pid : ne->rename_pid, data, size, &pid) &&
            read_name(fork ? ne->fork_comm : ne->rename_comm, data, size, comm))
            tp_comms_set(t, pid, comm, true);
        return true;
    }
    if (id == ne->free_id) {
        if (read_int(ne->free_pid, data, size, &pid))
            tp_comms_forget(t, pid);
        return true;
    }
    return false;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* Read a comm file relative to dirfd; 0 or -errno. */
static int read_comm_at(int dirfd, const char *path, char comm[TP_COMM_LEN])
{
    int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, comm, TP_COMM_LEN);
    int rc = n < 0 ? -errno : 0;
    close(fd);
    while (n > 0 && (comm[n - 1] == '\n' || comm[n - 1] == '\0'))
        n--;
    comm[n > 0 ? (n < TP_COMM_LEN ? n : TP_COMM_LEN - 1) : 0] = '\0';
    return rc;
}

/* The threads of one process directory. */
static int snapshot_tasks(struct tp_comms *t, int procfd, long pid)
{
    char path[64];
    snprintf(path, sizeof(path), "%ld/task", pid);
    int fd = openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;                   /* gone meanwhile */
    }
    int named = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        char comm[TP_COMM_LEN];
        long tid = strtol(de->d_name, NULL, 10);
        bool followed = false;
        if (!all_digits(de->d_name) || tid <= 0 || tid > INT32_MAX ||
            (tp_comms_find(t, (int32_t)tid, &followed) && followed))
            continue;
        snprintf(path, sizeof(path), "%ld/comm", tid);
        if (read_comm_at(dirfd(d), path, comm) == 0 && comm[0] &&
            tp_comms_set(t, (int32_t)tid, comm, true) == 0)
            named++;
    }
    closedir(d);
    return named;
}

int tp_comms_snapshot(struct tp_comms *t, const char *proc)
{
    DIR *d = opendir(proc);
    if (!d)
        return -errno;
    int named = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (all_digits(de->d_name))
            named += snapshot_tasks(t, dirfd(d), strtol(de->d_name, NULL, 10));
    closedir(d);
    return named;
}

int tp_comms_resolve(int32_t pid, char *comm)
{
    char path[32];
    snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
    return read_comm_at(AT_FDCWD, path, comm);
}

int tp_comms_from_saved(const char *text, int32_t pid, char *comm)
{
    for (const char *line = text; line && *line; ) {
        char *end;
        long p = strtol(line, &end, 10);
        const char *nl = strchr(line, '\n');
        if (end != line && *end == ' ' && p == pid) {
            size_t n = (size_t)((nl ? nl : end + strlen(end)) - (end + 1));
            n = n < TP_COMM_LEN - 1 ? n : TP_COMM_LEN - 1;
            memcpy(comm, end + 1, n);
            comm[n] = '\0';
            return 0;
        }
        line = nl ? nl + 1 : NULL;
    }
    return -ENOENT;
}
