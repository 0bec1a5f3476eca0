/* tally.c: per-event counts and the summary (client/tally.h). */
#include "tally.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"

static size_t hash_name(const char *s, size_t len)
{
    size_t h = 5381;

    for (size_t i = 0; i < len; i++)
        h = h * 33 + (unsigned char)s[i];
    return h % TALLY_BUCKETS;
}

static bool same(const struct counter *c, const char *event, size_t len)
{
    return c->len == len && memcmp(c->event, event, len) == 0;
}

static struct counter *counter_new(const char *event, size_t len)
{
    struct counter *c = calloc(1, sizeof(*c));

    if (c == NULL || (c->event = malloc(len + 1)) == NULL) {
        free(c);
        return NULL;
    }
    memcpy(c->event, event, len);
    c->event[len] = '\0';
    c->len = len;
    return c;
}

int tally_event(struct tally *t, const char *event, size_t len)
{
    if (t->last != NULL && same(t->last, event, len)) {
        t->events++;
        t->last->n++;
        return 0;
    }
    struct counter **head = &t->bucket[hash_name(event, len)];
    struct counter *c;

    t->events++;
    for (c = *head; c != NULL; c = c->next)
        if (same(c, event, len))
            break;
    if (c == NULL) {
        if ((c = counter_new(event, len)) == NULL)
            return -1;
        c->next = *head;
        *head = c;
        t->kinds++;
    }
    c->n++;
    t->last = c;
    return 0;
}

void tally_pending(struct tally *t, int inst, uint64_t n)
{
    size_t i = 0;

    while (i < t->nstreams && t->unarchived[i].inst != inst)
        i++;
    if (i == TALLY_STREAMS)
        return;                 /* more streams than the PMDA can have */
    if (i == t->nstreams)
        t->unarchived[t->nstreams++].inst = inst;
    t->unarchived[i].n = n;
}

uint64_t tally_not_archived(const struct tally *t)
{
    uint64_t n = 0;

    for (size_t i = 0; i < t->nstreams; i++)
        n += t->unarchived[i].n;
    return n;
}

static int by_count_then_name(const void *a, const void *b)
{
    const struct counter *x = *(const struct counter *const *)a;
    const struct counter *y = *(const struct counter *const *)b;

    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return strcmp(x->event, y->event);
}

/* The counters, most frequent first; NULL if there are none (or no memory). */
static struct counter **tally_sorted(const struct tally *t)
{
    struct counter **v = t->kinds ? calloc(t->kinds, sizeof(*v)) : NULL;
    size_t n = 0;

    if (v == NULL)
        return NULL;
    for (size_t b = 0; b < TALLY_BUCKETS; b++)
        for (struct counter *c = t->bucket[b]; c != NULL; c = c->next)
            v[n++] = c;
    qsort(v, n, sizeof(*v), by_count_then_name);
    return v;
}

void tally_free(struct tally *t)
{
    for (size_t b = 0; b < TALLY_BUCKETS; b++) {
        for (struct counter *c = t->bucket[b], *next; c != NULL; c = next) {
            next = c->next;
            free(c->event);
            free(c);
        }
        t->bucket[b] = NULL;
    }
    t->last = NULL;
}

static int digits(uint64_t n)
{
    int d = 1;

    while (n >= 10) {
        n /= 10;
        d++;
    }
    return d;
}

static void print_text_summary(const struct tally *t, struct counter **v)
{
    uint64_t most = t->events > t->lost ? t->events : t->lost;
    int w = digits(most > tally_not_archived(t) ? most : tally_not_archived(t));

    for (size_t i = 0; i < t->kinds; i++)
        printf("%*" PRIu64 " %s\n", w, v[i]->n, v[i]->event);
    printf("%*" PRIu64 " events\n", w, t->events);
    printf("%*" PRIu64 " lost\n", w, t->lost);
    if (!t->archive)
        return;
    if (!t->pending_logged)
        printf("%*s not archived: unknown (the archive does not log "
               "tracepoint.stream.pending)\n", w, "?");
    else if (!t->reached_end)
        printf("%*s not archived: unknown (read before the archive's end)\n", w, "?");
    else
        printf("%*" PRIu64 " not archived (pending when logging stopped)\n", w,
               tally_not_archived(t));
}

static void print_json_summary(const struct tally *t, struct counter **v)
{
    fputs("{\"summary\":{\"events\":{", stdout);
    for (size_t i = 0; i < t->kinds; i++) {
        fputs(i ? "," : "", stdout);
        put_json_string(stdout, v[i]->event, strlen(v[i]->event));
        printf(":%" PRIu64, v[i]->n);
    }
    printf("},\"total\":%" PRIu64 ",\"lost\":%" PRIu64, t->events, t->lost);
    if (t->archive && t->pending_logged && t->reached_end)
        printf(",\"not_archived\":%" PRIu64, tally_not_archived(t));
    else if (t->archive)
        fputs(",\"not_archived\":null", stdout);
    fputs("}}\n", stdout);
}


int tally_print(const struct tally *t, bool json)
{
    struct counter **v = tally_sorted(t);

    if (v == NULL && t->kinds > 0) {
        errmsg("out of memory");
        return -1;
    }
    if (json)
        print_json_summary(t, v);
    else
        print_text_summary(t, v);
    free(v);
    return 0;
}
