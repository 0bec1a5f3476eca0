/*
 * pid -> command name, bounded.  See tp_comms.h.
 */
#include "tp_comms.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct slot {
    int32_t pid;                /* -1: empty */
    bool known;                 /* resolved, not TP_COMM_UNKNOWN */
    char comm[TP_COMM_LEN];
    uint64_t stamp;             /* when it was resolved */
};

struct tp_comms {
    struct slot v[TP_COMMS_SLOTS];
};

_Static_assert((TP_COMMS_SLOTS & (TP_COMMS_SLOTS - 1)) == 0, "TP_COMMS_SLOTS: a power of 2");

int tp_comms_create(struct tp_comms **out)
{
    struct tp_comms *t = malloc(sizeof(*t));
    *out = t;
    if (!t)
        return -ENOMEM;
    for (size_t i = 0; i < TP_COMMS_SLOTS; i++)
        t->v[i].pid = -1;
    return 0;
}

void tp_comms_destroy(struct tp_comms *t)
{
    free(t);
}

static const struct slot *find(const struct tp_comms *t, int32_t pid)
{
    const struct slot *s = &t->v[(uint32_t)pid & (TP_COMMS_SLOTS - 1)];
    return s->pid == pid && pid >= 0 ? s : NULL;
}

const char *tp_comms_get(const struct tp_comms *t, int32_t pid)
{
    if (pid == 0)
        return "<idle>";
    const struct slot *s = find(t, pid);
    return s ? s->comm : TP_COMM_UNKNOWN;
}

bool tp_comms_fresh(const struct tp_comms *t, int32_t pid, uint64_t now)
{
    if (pid == 0)
        return true;
    const struct slot *s = find(t, pid);
    return s && s->known && s->stamp + TP_COMMS_REFRESH_NS >= now;
}

void tp_comms_set(struct tp_comms *t, int32_t pid, const char *comm, uint64_t now)
{
    if (pid < 0)
        return;
    struct slot *s = &t->v[(uint32_t)pid & (TP_COMMS_SLOTS - 1)];
    if (!(comm && *comm) && s->pid == pid && s->known) {
        s->stamp = now;         /* gone since: it keeps the name it had */
        return;
    }
    const char *name = comm && *comm ? comm : TP_COMM_UNKNOWN;
    size_t n = strnlen(name, TP_COMM_LEN - 1);
    memcpy(s->comm, name, n);
    s->comm[n] = '\0';
    s->pid = pid;
    s->known = comm && *comm;   /* unknown: asked again at the pid's next events */
    s->stamp = now;
}

int tp_comms_resolve(int32_t pid, char *comm)
{
    char path[32];
    snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, comm, TP_COMM_LEN);
    int rc = n < 0 ? -errno : 0;
    close(fd);
    if (rc < 0)
        return rc;
    while (n > 0 && (comm[n - 1] == '\n' || comm[n - 1] == '\0'))
        n--;
    comm[n < TP_COMM_LEN ? n : TP_COMM_LEN - 1] = '\0';
    return 0;
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
