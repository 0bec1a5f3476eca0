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
    struct ol_key *k = realloc(a->keys, (a->nkeys + 1) * sizeof(*k));
    if (!k)
        return -1;
    a->keys = k;
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

static const struct ol_key *find_key(const struct ol_agg *a, const char *name)
{
    for (size_t i = 0; a && i < a->nkeys; i++)
        if (strcmp(a->keys[i].name, name) == 0)
            return &a->keys[i];
    return NULL;
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
    if (now->nkeys && !(out->keys = calloc(now->nkeys, sizeof(*out->keys))))
        return -1;
    for (size_t i = 0; i < now->nkeys; i++) {
        const struct ol_key *k = &now->keys[i], *b = find_key(before, k->name);
        if (b && b->count == k->count)
            continue;                   /* nothing counted in between */
        struct ol_key *d = &out->keys[out->nkeys];
        *d = *k;
        if (!(d->name = strdup(k->name)))
            return -1;
        out->nkeys++;
        d->count -= b ? b->count : 0;
        d->sum -= b ? b->sum : 0;
        for (unsigned j = 0; b && j < OL_BUCKETS; j++)
            d->hist[j] -= b->hist[j];
    }
    return 0;
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
