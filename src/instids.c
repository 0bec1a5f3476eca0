/*
 * Instance ids of the aggregations' domains, kept across restarts.  See
 * tp_instids.h.
 */
#include "tp_instids.h"
#include "tp_statedir.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct domain {
    unsigned serial;
    struct tp_instid *v;
    size_t n, cap;
};

struct added {                  /* an id to add at the file's end at the next save */
    unsigned serial;
    int inst;
    char *name;
};

struct tp_instids {
    char *name;
    int dirfd;                  /* -1: refused, nothing is saved */
    tp_log_fn log;
    void *arg;
    struct domain *d;
    size_t nd;
    bool dirty;
    bool whole;                 /* the next save writes the whole file, not only add[] */
    struct added *add;
    size_t nadd, capadd;
    int save_err;               /* the last save's error, logged once */
};

static struct domain *domain_of(const struct tp_instids *m, unsigned serial)
{
    for (size_t i = 0; i < m->nd; i++)
        if (m->d[i].serial == serial)
            return &m->d[i];
    return NULL;
}

static struct domain *domain_add(struct tp_instids *m, unsigned serial)
{
    struct domain *d = domain_of(m, serial);
    if (d)
        return d;
    d = realloc(m->d, (m->nd + 1) * sizeof(*d));
    if (!d)
        return NULL;
    m->d = d;
    d = &m->d[m->nd++];
    *d = (struct domain){ .serial = serial };
    return d;
}

static void domain_clear(struct domain *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->v[i].name);
    d->n = 0;
}

/* Append (inst, name): 0, 1 (not a usable one) or -ENOMEM.  See sort_domain. */
static int push(struct domain *d, int inst, const char *name)
{
    if (inst < 0 || inst >= TP_INSTIDS_MAX_INST || !name[0] || strchr(name, '\n'))
        return 1;
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 16;
        struct tp_instid *v = realloc(d->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        d->v = v;
        d->cap = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return -ENOMEM;
    d->v[d->n++] = (struct tp_instid){ inst, copy };
    return 0;
}

static int by_inst(const void *a, const void *b)
{
    const struct tp_instid *x = a, *y = b;
    return (x->inst > y->inst) - (x->inst < y->inst);
}

/* In inst order, the first of two for one inst kept (a name twice: the caller's cache says). */
static void sort_domain(struct domain *d)
{
    size_t o = 0;
    if (!d->n)
        return;                 /* v may be NULL, which qsort must not be given */
    qsort(d->v, d->n, sizeof(*d->v), by_inst);
    for (size_t i = 0; i < d->n; i++) {
        if (o && d->v[o - 1].inst == d->v[i].inst)
            free(d->v[i].name);
        else
            d->v[o++] = d->v[i];
    }
    d->n = o;
}

static void drop_added(struct tp_instids *m)
{
    for (size_t i = 0; i < m->nadd; i++)
        free(m->add[i].name);
    m->nadd = 0;
}

/* e, new in serial, for the next save to add; if it cannot be kept, the next save is whole. */
static void note_added(struct tp_instids *m, unsigned serial, const struct tp_instid *e)
{
    if (m->nadd == m->capadd) {
        size_t cap = m->capadd ? 2 * m->capadd : 16;
        struct added *a = realloc(m->add, cap * sizeof(*a));
        if (!a) {
            m->whole = true;
            return;
        }
        m->add = a;
        m->capadd = cap;
    }
    char *name = strdup(e->name);
    if (!name)
        m->whole = true;
    else
        m->add[m->nadd++] = (struct added){ serial, e->inst, name };
}

/*
 * What next (sorted) adds to old (sorted), noted for the next save; an id
 * of old gone from next, or named otherwise, makes that save whole.
 */
static void note_changes(struct tp_instids *m, const struct domain *old, const struct domain *next)
{
    size_t i = 0;
    for (size_t k = 0; k < next->n && !m->whole; k++) {
        const struct tp_instid *e = &next->v[k];
        if (i < old->n && old->v[i].inst < e->inst)
            m->whole = true;
        else if (i < old->n && old->v[i].inst == e->inst)
            m->whole = strcmp(old->v[i++].name, e->name) != 0;
        else
            note_added(m, next->serial, e);
    }
    if (i < old->n)
        m->whole = true;
    if (m->whole)
        drop_added(m);
}

/* One line of our file: 0, 1 (not used) or -ENOMEM. */
static int take_line(struct tp_instids *m, const char *line)
{
    unsigned serial;
    int inst, n = 0;
    if (sscanf(line, "I %u %d %n", &serial, &inst, &n) != 2 || !n)
        return 1;
    struct domain *d = domain_add(m, serial);
    return d ? push(d, inst, line + n) : -ENOMEM;
}

/* One line of a pmdaCache file, "inst stamp [key] name", for domain arg: as take_line. */
static int take_cache_line(struct domain *d, const char *line)
{
    int inst, n = 0;
    long long stamp;
    if (sscanf(line, "%d %lld %n", &inst, &stamp, &n) != 2 || !n || line[n] == '[')
        return 1;
    return push(d, inst, line + n);
}

/*
 * Every complete line of f, through take (for m, or domain d); the first
 * (pmdaCache's header) skipped if header.  Closes f.  Returns the lines used or -errno.
 */
static int read_lines(struct tp_instids *m, struct domain *d, FILE *f, const char *where,
                      bool header)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0, used = 0, skipped = 0, lineno = 0;
    while (rc >= 0 && (len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] != '\n') {
            tp_logf(m->log, m->arg, "%s line %d has no end of line: not used", where,
                    lineno + 1);
            break;
        }
        line[len - 1] = '\0';
        if (lineno++ == 0 && header)
            continue;
        if (line[0] == '#' || !line[0])
            continue;
        rc = strlen(line) != (size_t)len - 1 ? 1 : d ? take_cache_line(d, line)
                                                     : take_line(m, line);
        if (rc == 1 && skipped++ < 5)
            tp_logf(m->log, m->arg, "%s line %d not used: %.200s", where, lineno, line);
        used += rc == 0;
    }
    if (rc >= 0 && ferror(f))
        rc = -EIO;
    free(line);
    fclose(f);
    return rc < 0 ? rc : used;
}

int tp_instids_open(struct tp_instids **out, const char *dir, const char *name, tp_log_fn log,
                    void *arg)
{
    struct tp_instids *m = calloc(1, sizeof(*m));
    if (!m || !(m->name = strdup(name))) {
        free(m);
        return -ENOMEM;
    }
    m->log = log;
    m->arg = arg;
    m->whole = true;            /* the first save writes what was read, a torn last line gone */
    m->dirfd = tp_statedir_open(dir);
    int rc = 0;
    if (m->dirfd < 0)
        tp_logf(log, arg, "instance ids: directory %s not used (%s): aggregations' instance "
                "ids are not kept across restarts", dir, strerror(-m->dirfd));
    FILE *f = m->dirfd >= 0 ? tp_statedir_read(m->dirfd, name) : NULL;
    if (f)
        rc = read_lines(m, NULL, f, name, false);
    else if (m->dirfd >= 0 && errno != ENOENT)
        tp_logf(log, arg, "cannot read the instance ids %s: %s", name, strerror(errno));
    for (size_t i = 0; i < m->nd; i++)
        sort_domain(&m->d[i]);
    if (rc == -ENOMEM) {
        tp_instids_close(m);
        return rc;
    }
    *out = m;
    return 0;
}

void tp_instids_close(struct tp_instids *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nd; i++) {
        domain_clear(&m->d[i]);
        free(m->d[i].v);
    }
    if (m->dirfd >= 0)
        close(m->dirfd);
    drop_added(m);
    free(m->add);
    free(m->d);
    free(m->name);
    free(m);
}

size_t tp_instids_get(const struct tp_instids *m, unsigned serial, const struct tp_instid **v)
{
    const struct domain *d = domain_of(m, serial);
    *v = d ? d->v : NULL;
    return d ? d->n : 0;
}

int tp_instids_set(struct tp_instids *m, unsigned serial, const struct tp_instid *v, size_t n)
{
    struct domain *d = domain_add(m, serial), next = { .serial = serial };
    if (!d)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        if (push(&next, v[i].inst, v[i].name) < 0) {
            domain_clear(&next);
            free(next.v);
            return -ENOMEM;
        }
    sort_domain(&next);
    note_changes(m, d, &next);
    domain_clear(d);
    free(d->v);
    *d = next;
    m->dirty = true;
    return 0;
}

int tp_instids_adopt(struct tp_instids *m, unsigned serial, const char *old_path)
{
    struct domain *d = domain_add(m, serial);
    if (!d)
        return -ENOMEM;
    if (d->n)
        return 0;
    FILE *f = tp_statedir_read_legacy(old_path);
    if (!f) {
        if (errno != ENOENT)
            tp_logf(m->log, m->arg, "instance ids of an older version %s not used: %s",
                    old_path, strerror(errno));
        return errno == ENOENT ? 0 : -errno;
    }
    int rc = read_lines(m, d, f, old_path, true);
    sort_domain(d);
    if (rc > 0) {
        m->dirty = m->whole = true;
        tp_logf(m->log, m->arg, "instance ids of %s kept, now saved in %s", old_path, m->name);
    }
    return rc;
}

static int fill(FILE *f, void *arg)
{
    const struct tp_instids *m = arg;
    fprintf(f, "# pmdatracepoint: instance ids of the aggregations' domains; do not edit.\n");
    for (size_t i = 0; i < m->nd; i++)
        for (size_t k = 0; k < m->d[i].n; k++)
            fprintf(f, "I %u %d %s\n", m->d[i].serial, m->d[i].v[k].inst, m->d[i].v[k].name);
    return 0;
}

/* The lines of the ids added since the last save. */
static int fill_added(FILE *f, void *arg)
{
    const struct tp_instids *m = arg;
    for (size_t i = 0; i < m->nadd; i++)
        fprintf(f, "I %u %d %s\n", m->add[i].serial, m->add[i].inst, m->add[i].name);
    return 0;
}

int tp_instids_save(struct tp_instids *m)
{
    if (!m->dirty)
        return 0;
    if (m->dirfd < 0)
        return -EPERM;
    int rc = m->whole ? -EAGAIN : tp_statedir_append(m->dirfd, m->name, fill_added, m);
    if (rc < 0)                 /* whole, or an add that failed, maybe part way */
        rc = tp_statedir_write(m->dirfd, m->name, fill, m);
    m->whole = rc < 0;
    if (rc < 0 && rc != m->save_err)
        tp_logf(m->log, m->arg, "cannot save the instance ids %s: %s", m->name, strerror(-rc));
    m->save_err = rc;
    if (rc == 0) {
        m->dirty = false;
        drop_added(m);
    }
    return rc;
}
