/*
 * Per-context state.  See tp_clients.h.
 */
#include "tp_clients.h"
#include "tp_records.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONTEXT_ID (1 << 20)

/* The stream positions of an ended context of a local client. */
struct tp_retired {
    pid_t pid;              /* 0: unused */
    uint64_t ended;         /* order of the end: the oldest goes first */
    tp_slotmask started;
    struct tp_cursor cursor[TP_RING_MAX_SLOTS];
};

struct tp_clients {
    struct tp_client **v;   /* indexed by context id */
    size_t n;
    struct tp_retired retired[TP_CLIENTS_RETIRED];
    uint64_t ends;
};

int tp_clients_create(struct tp_clients **out)
{
    struct tp_clients *cl = calloc(1, sizeof(*cl));
    if (!cl)
        return -ENOMEM;
    *out = cl;
    return 0;
}

void tp_client_clear_subs(struct tp_client *c)
{
    for (size_t i = 0; i < c->nsubs; i++)
        free(c->subs[i].filter);
    free(c->subs);
    c->subs = NULL;
    c->nsubs = 0;
    c->filter_bytes = 0;
}

static void free_client(struct tp_client *c)
{
    if (!c)
        return;
    tp_client_clear_subs(c);
    free(c);
}

void tp_clients_destroy(struct tp_clients *cl)
{
    if (!cl)
        return;
    for (size_t i = 0; i < cl->n; i++)
        free_client(cl->v[i]);
    free(cl->v);
    free(cl);
}

static int grow(struct tp_clients *cl, size_t need)
{
    if (need <= cl->n)
        return 0;
    size_t n = cl->n ? cl->n : 16;
    while (n < need)
        n *= 2;
    struct tp_client **v = realloc(cl->v, n * sizeof(*v));
    if (!v)
        return -ENOMEM;
    memset(v + cl->n, 0, (n - cl->n) * sizeof(*v));
    cl->v = v;
    cl->n = n;
    return 0;
}

struct tp_client *tp_clients_find(const struct tp_clients *cl, int ctx)
{
    return ctx >= 0 && (size_t)ctx < cl->n ? cl->v[ctx] : NULL;
}

struct tp_client *tp_clients_get(struct tp_clients *cl, int ctx, uint64_t now_ns)
{
    if (ctx < 0 || ctx >= MAX_CONTEXT_ID || grow(cl, (size_t)ctx + 1) < 0)
        return NULL;
    struct tp_client *c = cl->v[ctx];
    if (!c) {
        if (!(c = calloc(1, sizeof(*c))))
            return NULL;
        c->ctx = ctx;
        c->slot = -1;
        c->with = TP_WITH_DEFAULT;
        c->last_seen_ns = now_ns;
        cl->v[ctx] = c;
    }
    return c;
}

/* The entry of pid, or else the free or oldest one. */
static struct tp_retired *retired_slot(struct tp_clients *cl, pid_t pid)
{
    struct tp_retired *r = &cl->retired[0];
    for (size_t i = 0; i < TP_CLIENTS_RETIRED; i++) {
        if (cl->retired[i].pid == pid)
            return &cl->retired[i];
        if (cl->retired[i].ended < r->ended)
            r = &cl->retired[i];
    }
    return r;
}

static void retire(struct tp_clients *cl, const struct tp_client *c)
{
    if (c->creds.pid <= 0 || !c->started)
        return;
    struct tp_retired *r = retired_slot(cl, c->creds.pid);
    tp_slotmask keep = r->pid == c->creds.pid ? r->started : 0;
    for (unsigned s = 0; s < TP_RING_MAX_SLOTS; s++)
        if ((c->started >> s & 1) && (!(keep >> s & 1) || c->cursor[s].seq > r->cursor[s].seq))
            r->cursor[s] = c->cursor[s];
    r->started = keep | c->started;
    r->pid = c->creds.pid;
    r->ended = ++cl->ends;
}

void tp_clients_end(struct tp_clients *cl, int ctx)
{
    struct tp_client *c = tp_clients_find(cl, ctx);
    if (!c)
        return;
    retire(cl, c);
    free_client(c);
    cl->v[ctx] = NULL;
}

bool tp_clients_resume(const struct tp_clients *cl, const struct tp_client *c, unsigned slot,
                       struct tp_cursor *out)
{
    const struct tp_cursor *best = NULL;
    if (c->creds.pid <= 0 || slot >= TP_RING_MAX_SLOTS)
        return false;
    for (size_t i = 0; i < cl->n; i++) {
        const struct tp_client *o = cl->v[i];
        if (o && o != c && o->creds.pid == c->creds.pid && (o->started >> slot & 1) &&
            (!best || o->cursor[slot].seq > best->seq))
            best = &o->cursor[slot];
    }
    for (size_t i = 0; i < TP_CLIENTS_RETIRED; i++) {
        const struct tp_retired *r = &cl->retired[i];
        if (r->pid == c->creds.pid && (r->started >> slot & 1) &&
            (!best || r->cursor[slot].seq > best->seq))
            best = &r->cursor[slot];
    }
    if (best)
        *out = *best;
    return best != NULL;
}

void tp_clients_drop_retired(struct tp_clients *cl, bool (*gone)(void *arg, pid_t pid),
                             void *arg)
{
    for (size_t i = 0; i < TP_CLIENTS_RETIRED; i++)
        if (cl->retired[i].pid > 0 && gone(arg, cl->retired[i].pid))
            memset(&cl->retired[i], 0, sizeof(cl->retired[i]));
}

void tp_clients_rebase(struct tp_clients *cl, const struct tp_ring_rebase *map)
{
    for (size_t i = 0; i < cl->n; i++)
        for (unsigned s = 0; cl->v[i] && s < TP_RING_MAX_SLOTS; s++)
            if (cl->v[i]->started >> s & 1)
                tp_ring_rebase(map, &cl->v[i]->cursor[s]);
    for (size_t i = 0; i < TP_CLIENTS_RETIRED; i++)
        for (unsigned s = 0; s < TP_RING_MAX_SLOTS; s++)
            if (cl->retired[i].started >> s & 1)
                tp_ring_rebase(map, &cl->retired[i].cursor[s]);
}

void tp_clients_forget_slot(struct tp_clients *cl, unsigned slot)
{
    for (size_t i = 0; i < cl->n; i++)
        if (cl->v[i])
            cl->v[i]->started &= ~((tp_slotmask)1 << slot);
    for (size_t i = 0; i < TP_CLIENTS_RETIRED; i++)
        cl->retired[i].started &= ~((tp_slotmask)1 << slot);
}

size_t tp_clients_active(const struct tp_clients *cl)
{
    size_t n = 0;
    for (size_t i = 0; i < cl->n; i++)
        n += cl->v[i] && cl->v[i]->requested && !cl->v[i]->idle;
    return n;
}

void tp_clients_each(struct tp_clients *cl, void (*fn)(void *arg, struct tp_client *c),
                     void *arg)
{
    for (size_t i = 0; i < cl->n; i++)
        if (cl->v[i])
            fn(arg, cl->v[i]);
}
