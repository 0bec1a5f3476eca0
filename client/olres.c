/* olres.c: one-liner results, decoded and diffed (client/olres.h). */
#include "olres.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = { "count", "sum", "hist", "latency" };

void ol_doc_free(struct ol_doc *doc)
{
    for (size_t i = 0; doc && i < doc->n; i++) {
        for (size_t k = 0; k < doc->v[i].nkeys; k++)
            free(doc->v[i].keys[k].name);
        free(doc->v[i].keys);
        free(doc->v[i].directive);
    }
    if (doc) {
        free(doc->v);
        doc->v = NULL;
        doc->n = 0;
    }
}

static int kind_of(const char *word, enum ol_kind *kind)
{
    for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
        if (strcmp(word, kind_names[i]) == 0) {
            *kind = (enum ol_kind)i;
            return 0;
        }
    return -1;
}

/* "agg ID KIND SIGNED DROPPED OVERFLOW PENDING NKEYS DIRECTIVE" */
static int parse_agg(const char *line, struct ol_doc *doc)
{
    char kind[16];
    unsigned id;
    int sgn, at = -1;
    uint64_t dropped, overflow, pending;
    size_t nkeys;
    if (sscanf(line, "agg %u %15s %d %" SCNu64 " %" SCNu64 " %" SCNu64 " %zu %n", &id, kind,
               &sgn, &dropped, &overflow, &pending, &nkeys, &at) != 7 || at < 0)
        return -1;
    struct ol_agg *v = realloc(doc->v, (doc->n + 1) * sizeof(*v));
    if (!v)
        return -1;
    doc->v = v;
    struct ol_agg *a = &v[doc->n];
    *a = (struct ol_agg){ .id = id, .is_signed = sgn != 0, .dropped = dropped,
                          .overflow = overflow, .pending = pending };
    if (kind_of(kind, &a->kind) < 0 || !(a->directive = strdup(line + at)))
        return -1;
    doc->n++;
    return 0;
}

/* "key COUNT SUM NAME" (NAME the rest of the line, maybe empty) */
static int parse_key(const char *line, struct ol_doc *doc)
{
    uint64_t count, sum;
    int at = -1;
    if (!doc->n || line[3] != ' ')
        return -1;
    if (sscanf(line + 4, "%" SCNu64 " %" SCNd64 "%n", &count, (int64_t *)&sum, &at) < 2 ||
        at < 0 || (line[4 + at] != ' ' && line[4 + at] != '\0'))
        return -1;
    struct ol_agg *a = &doc->v[doc->n - 1];
    struct ol_key *k = a->keys;
    if (a->nkeys == a->cap) {           /* doubling: a document may hold 65536 keys */
        size_t cap = a->cap ? 2 * a->cap : 16;
        if (!(k = realloc(a->keys, cap * sizeof(*k))))
            return -1;
        a->keys = k;
        a->cap = cap;
    }
    const char *name = line + 4 + at + (line[4 + at] == ' ');
    k[a->nkeys] = (struct ol_key){ .count = count, .sum = sum, .name = strdup(name) };
    return k[a->nkeys++].name ? 0 : -1;
}

/* "b BUCKET COUNT", after its key */
static int parse_bucket(const char *line, struct ol_doc *doc)
{
    unsigned b;
    uint64_t n;
    if (!doc->n || !doc->v[doc->n - 1].nkeys ||
        sscanf(line, "b %u %" SCNu64, &b, &n) != 2 || b >= OL_BUCKETS)
        return -1;
    struct ol_agg *a = &doc->v[doc->n - 1];
    a->keys[a->nkeys - 1].hist[b] = n;
    return 0;
}

static int parse_line(const char *line, struct ol_doc *doc)
{
    if (strncmp(line, "agg ", 4) == 0)
        return parse_agg(line, doc);
    if (strncmp(line, "key ", 4) == 0)
        return parse_key(line, doc);
    if (strncmp(line, "b ", 2) == 0)
        return parse_bucket(line, doc);
    if (strncmp(line, "until ", 6) == 0)
        return sscanf(line + 6, "%" SCNu64, &doc->until) == 1 ? 0 : -1;
    return *line ? -1 : 0;
}

int ol_doc_parse(const char *text, struct ol_doc *doc)
{
    static const char head[] = "tracepoint-oneliners 1\n";
    *doc = (struct ol_doc){ NULL, 0, 0 };
    if (strncmp(text, head, strlen(head)) != 0)
        return -1;
    char *copy = strdup(text + strlen(head)), *save = NULL;
    int rc = copy ? 0 : -1;
    for (char *line = copy ? strtok_r(copy, "\n", &save) : NULL; rc == 0 && line;
         line = strtok_r(NULL, "\n", &save))
        rc = parse_line(line, doc);
    free(copy);
    if (rc < 0)
        ol_doc_free(doc);
    return rc;
}

/* ---- intervals ----------------------------------------------------------- */

static const struct ol_agg *find_agg(const struct ol_doc *d, unsigned id)
{
    for (size_t i = 0; d && i < d->n; i++)
        if (d->v[i].id == id)
            return &d->v[i];
    return NULL;
}

/* Before's keys by name: open addressing, indices + 1 (0: empty). */
struct key_index {
    const struct ol_agg *a;
    size_t *slot;
    size_t mask;
};

static size_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (size_t)(h ^ (h >> 32));
}

/* Index a's keys (once, on the first miss).  0, or -1 (no memory). */
static int index_build(struct key_index *x)
{
    size_t size = 16;
    while (size < 2 * x->a->nkeys)
        size *= 2;
    if (!(x->slot = calloc(size, sizeof(*x->slot))))
        return -1;
    x->mask = size - 1;
    for (size_t i = 0; i < x->a->nkeys; i++) {
        size_t h = hash_name(x->a->keys[i].name) & x->mask;
        while (x->slot[h])
            h = (h + 1) & x->mask;
        x->slot[h] = i + 1;
    }
    return 0;
}

/*
 * Before's key of this name: the PMDA appends keys, so the one at now's
 * place i first, else by name.  *err is set when the index cannot be built.
 */
static const struct ol_key *find_key(struct key_index *x, size_t i, const char *name, int *err)
{
    const struct ol_agg *a = x->a;
    if (!a || !a->nkeys)
        return NULL;
    if (i < a->nkeys && strcmp(a->keys[i].name, name) == 0)
        return &a->keys[i];
    if (!x->slot && index_build(x) < 0) {
        *err = -1;
        return NULL;
    }
    for (size_t h = hash_name(name) & x->mask; x->slot[h]; h = (h + 1) & x->mask)
        if (strcmp(a->keys[x->slot[h] - 1].name, name) == 0)
            return &a->keys[x->slot[h] - 1];
    return NULL;
}

static int diff_keys(const struct ol_agg *now, const struct ol_agg *before, struct ol_agg *out)
{
    struct key_index x = { before, NULL, 0 };
    int err = 0;

    for (size_t i = 0; i < now->nkeys && err == 0; i++) {
        const struct ol_key *k = &now->keys[i], *b = find_key(&x, i, k->name, &err);
        if (err < 0 || (b && b->count == k->count))
            continue;                   /* nothing counted in between */
        struct ol_key *d = &out->keys[out->nkeys];
        *d = *k;
        if (!(d->name = strdup(k->name))) {
            err = -1;
            break;
        }
        out->nkeys++;
        d->count -= b ? b->count : 0;
        d->sum -= b ? b->sum : 0;
        for (unsigned j = 0; b && j < OL_BUCKETS; j++)
            d->hist[j] -= b->hist[j];
    }
    free(x.slot);
    return err;
}

static int diff_agg(const struct ol_agg *now, const struct ol_agg *before, struct ol_agg *out)
{
    *out = *now;
    out->keys = NULL;
    out->nkeys = 0;
    out->dropped -= before ? before->dropped : 0;
    out->overflow -= before ? before->overflow : 0;
    if (!(out->directive = strdup(now->directive)))
        return -1;
    out->cap = 0;
    if (now->nkeys && !(out->keys = calloc(now->nkeys, sizeof(*out->keys))))
        return -1;
    out->cap = now->nkeys;
    return diff_keys(now, before, out);
}

int ol_doc_diff(const struct ol_doc *now, const struct ol_doc *before, struct ol_doc *out)
{
    *out = (struct ol_doc){ NULL, 0, now->until };
    if (now->n && !(out->v = calloc(now->n, sizeof(*out->v))))
        return -1;
    for (size_t i = 0; i < now->n; i++) {
        int rc = diff_agg(&now->v[i], find_agg(before, now->v[i].id), &out->v[i]);
        out->n++;
        if (rc < 0) {
            ol_doc_free(out);
            return -1;
        }
    }
    return 0;
}
