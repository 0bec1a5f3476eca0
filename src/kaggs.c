/*
 * Aggregations computed by the kernel's hist triggers.  See tp_kaggs.h.
 */
#include "tp_kaggs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tp_features.h"
#include "tp_filter.h"
#include "tp_khist.h"

#define TRIGGER_MAX   (TP_FILTER_MAX_LEN + 512)

/* One event's trigger, and how its keys are put back into a record. */
struct ktrig {
    uint32_t event;
    const struct tp_event *e;
    char *text;                             /* the trigger, without '!' */
    const struct tp_field *key[TP_KHIST_MAX_KEYS];  /* NULL: common_type (no key field) */
    unsigned nkeys;
    bool set;                               /* in the kernel */
    struct tp_khist_entry *v;               /* the last read */
    size_t n, cap;
    uint64_t dropped;
};

struct tp_kagg {
    struct tp_instance *inst;
    struct ktrig *t;
    size_t nt;
    bool with_sum;
    uint32_t reclen;                        /* a record that holds every key field */
};

bool tp_kaggs_suits(const struct tp_config_agg *def, unsigned features, char *why, size_t len)
{
    const char *no = NULL;
    if (!(features & 1u << TP_FEAT_HIST))
        no = "this kernel has no hist triggers";
    else if (def->producer)
        no = "backend=producer";
    else if (def->kind == TP_CONFIG_HIST)
        no = "the kernel's log2 buckets are not the PMDA's";
    else if (def->kind == TP_CONFIG_LATENCY)
        no = "latencies pair events in time order";
    else if (def->max_keys > TP_KHIST_MAX_SIZE)
        no = "more keys than a kernel histogram holds";
    for (size_t i = 0; !no && i < def->nby; i++)
        if (strcmp(def->by[i], "comm") == 0 || strcmp(def->by[i], "stack") == 0)
            no = strcmp(def->by[i], "comm") == 0 ? "it is keyed by comm at the event"
                                                 : "it is keyed by stack";
    if (no)
        snprintf(why, len, "%s", no);
    return !no;
}

static bool is_number(const struct tp_field *f)
{
    return f && (f->kind == TP_FIELD_INT || f->kind == TP_FIELD_UINT) &&
           (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
}

/* The filter, if any, is the kernel's to evaluate as the producer would? */
static int filter_ok(const struct tp_event *e, const char *filter, char *why, size_t len)
{
    struct tp_filter *f = NULL;
    char err[256];
    if (!filter || !*filter)
        return 0;
    if (tp_filter_compile(filter, e, &f, err, sizeof(err)) < 0) {
        snprintf(why, len, "%s: filter: %s", e->fullname, err);
        return -EOPNOTSUPP;
    }
    bool comm = tp_filter_uses_comm(f);
    tp_filter_free(f);
    if (comm)
        snprintf(why, len, "its filter names comm (the name at the event is the producer's)");
    return comm ? -EOPNOTSUPP : 0;
}

/* t's keys and trigger text for def; -EOPNOTSUPP with why if a trigger cannot compute it. */
static int plan(struct tp_kagg *k, struct ktrig *t, const struct tp_config_agg *def,
                char *why, size_t len)
{
    const char *names[TP_KHIST_MAX_KEYS];
    char text[TRIGGER_MAX];
    if (tp_event_is_probe(t->e)) {
        snprintf(why, len, "%s is a dynamic probe", t->e->fullname);
        return -EOPNOTSUPP;
    }
    for (size_t i = 0; i < def->nby; i++) {
        const struct tp_field *f = tp_event_field(t->e, def->by[i]);
        if (!f && strcmp(def->by[i], "event") == 0)
            continue;                       /* the binding names it */
        if (!is_number(f) || t->nkeys == TP_KHIST_MAX_KEYS) {
            snprintf(why, len, "%s: key '%s' is not a plain number", t->e->fullname, def->by[i]);
            return -EOPNOTSUPP;
        }
        t->key[t->nkeys] = f;
        names[t->nkeys++] = f->name;
        if (f->offset + f->size > k->reclen)
            k->reclen = f->offset + f->size;
    }
    if (t->nkeys == 0)
        names[t->nkeys++] = "common_type";  /* one key for all its events */
    const struct tp_field *v = def->field ? tp_event_field(t->e, def->field) : NULL;
    if (def->field && !is_number(v)) {
        snprintf(why, len, "%s: '%s' is not a plain number", t->e->fullname, def->field);
        return -EOPNOTSUPP;
    }
    int rc = filter_ok(t->e, def->filter, why, len);
    if (rc == 0)
        rc = tp_khist_trigger(text, sizeof(text), names, t->nkeys, v ? v->name : NULL,
                              tp_khist_size(def->max_keys), def->filter, 0);
    if (rc >= 0 && !(t->text = strdup(text)))
        rc = -ENOMEM;
    if (rc == -ENAMETOOLONG)
        snprintf(why, len, "its filter is too long for a trigger");
    return rc < 0 ? rc : 0;
}

static int write_trigger(struct tp_instance *inst, const struct ktrig *t, bool remove)
{
    char file[512], cmd[TRIGGER_MAX + 2];
    snprintf(cmd, sizeof(cmd), "%s%s", remove ? "!" : "", t->text);
    int n = snprintf(file, sizeof(file), "events/%s/%s/trigger", t->e->ksystem, t->e->name);
    if (n < 0 || (size_t)n >= sizeof(file))
        return -ENAMETOOLONG;
    int fd = tp_instance_open_file(inst, file, O_WRONLY);   /* no O_TRUNC: only this trigger */
    if (fd < 0)
        return fd;
    ssize_t w = write(fd, cmd, strlen(cmd));
    int rc = w == (ssize_t)strlen(cmd) ? 0 : w < 0 ? -errno : -EIO;
    close(fd);
    return rc;
}

int tp_kagg_create(struct tp_kagg **out, struct tp_instance *inst, struct tp_catalog *cat,
                   const struct tp_config_agg *def, const uint32_t *events, size_t nevents,
                   char *why, size_t len)
{
    struct tp_kagg *k = calloc(1, sizeof(*k));
    int rc = -ENOMEM;
    *out = NULL;
    if (!k || !(k->t = calloc(nevents ? nevents : 1, sizeof(*k->t))))
        goto fail;
    k->inst = inst;
    k->with_sum = def->field != NULL;
    for (rc = 0; rc == 0 && k->nt < nevents; k->nt++) {
        struct ktrig *t = &k->t[k->nt];
        t->event = events[k->nt];
        t->e = tp_catalog_event(cat, events[k->nt]);
        rc = plan(k, t, def, why, len);
    }
    for (size_t i = 0; rc == 0 && i < k->nt; i++) {
        rc = write_trigger(inst, &k->t[i], false);
        k->t[i].set = rc == 0;
        if (rc < 0)
            snprintf(why, len, "the kernel refused the trigger on %s: %s", k->t[i].e->fullname,
                     strerror(-rc));
    }
    if (rc < 0)
        goto fail;
    *out = k;
    return 0;
fail:
    if (rc == -ENOMEM)
        snprintf(why, len, "out of memory");
    tp_kagg_destroy(k);
    return rc;
}

void tp_kagg_destroy(struct tp_kagg *k)
{
    if (!k)
        return;
    for (size_t i = 0; i < k->nt; i++) {
        if (k->t[i].set)
            write_trigger(k->inst, &k->t[i], true);     /* gone with the instance, else now */
        free(k->t[i].text);
        free(k->t[i].v);
    }
    free(k->t);
    free(k);
}

/* ---- reading ------------------------------------------------------------- */

/* The whole of a file of the instance, NUL-terminated, into *out. */
static int read_file(struct tp_instance *inst, const char *file, char **out)
{
    int fd = tp_instance_open_file(inst, file, O_RDONLY);
    size_t n = 0, cap = 16384;
    char *buf = fd >= 0 ? malloc(cap) : NULL;
    int rc = fd < 0 ? fd : buf ? 0 : -ENOMEM;
    while (rc == 0) {
        if (cap - n < 4096) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                rc = -ENOMEM;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0)
            rc = errno == EINTR ? 0 : -errno;
        else if (r == 0)
            break;
        else
            n += (size_t)r;
    }
    if (fd >= 0)
        close(fd);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *out = buf;
    return 0;
}

static int keep_entry(void *arg, const struct tp_khist_entry *e)
{
    struct ktrig *t = arg;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        struct tp_khist_entry *v = realloc(t->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n++] = *e;
    return 0;
}

static int read_one(struct tp_kagg *k, struct ktrig *t)
{
    char file[512], *text = NULL;
    struct tp_khist_totals tot = { 0 };
    snprintf(file, sizeof(file), "events/%s/%s/hist", t->e->ksystem, t->e->name);
    int rc = read_file(k->inst, file, &text);
    t->n = 0;
    if (rc == 0)
        rc = tp_khist_parse(text, t->text, t->nkeys, k->with_sum, keep_entry, t, &tot);
    free(text);
    t->dropped = tot.dropped;
    return rc < 0 ? rc : 0;
}

/* A key's values back into a record of its event, as the kernel read them from it. */
static void put_key(unsigned char *rec, const struct tp_field *f, uint64_t v)
{
    uint8_t u8 = (uint8_t)v;
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;
    switch (f->size) {
    case 1: memcpy(rec + f->offset, &u8, 1); break;
    case 2: memcpy(rec + f->offset, &u16, 2); break;
    case 4: memcpy(rec + f->offset, &u32, 4); break;
    default: memcpy(rec + f->offset, &v, 8); break;
    }
}

static void put_all(const struct tp_kagg *k, struct tp_agg *a, unsigned char *rec)
{
    uint64_t dropped = 0;
    tp_agg_clear(a);
    for (size_t i = 0; i < k->nt; i++) {
        const struct ktrig *t = &k->t[i];
        for (size_t j = 0; j < t->n; j++) {
            memset(rec, 0, k->reclen);
            for (unsigned x = 0; x < t->nkeys; x++)
                if (t->key[x])
                    put_key(rec, t->key[x], t->v[j].key[x]);
            tp_agg_put(a, t->event, rec, k->reclen, t->v[j].hits, (int64_t)t->v[j].sum);
        }
        dropped += t->dropped;
    }
    tp_agg_lost(a, dropped);
}

int tp_kagg_read(struct tp_kagg *k, struct tp_agg *a, struct tp_capture *cap)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < k->nt; i++)
        rc = read_one(k, &k->t[i]);
    unsigned char *rec = rc == 0 ? calloc(1, k->reclen ? k->reclen : 1) : NULL;
    if (rc == 0 && !rec)
        rc = -ENOMEM;
    if (rc < 0)
        return rc;
    tp_capture_lock(cap);
    put_all(k, a, rec);
    tp_capture_unlock(cap);
    free(rec);
    return 0;
}
