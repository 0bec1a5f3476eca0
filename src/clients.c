/*
 * Per-context state.  See tp_clients.h.
 */
#include "tp_clients.h"
#include "tp_records.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONTEXT_ID (1 << 20)

struct tp_clients {
    struct tp_client **v;   /* indexed by context id */
    size_t n;
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

void tp_clients_end(struct tp_clients *cl, int ctx)
{
    struct tp_client *c = tp_clients_find(cl, ctx);
    if (!c)
        return;
    free_client(c);
    cl->v[ctx] = NULL;
}

void tp_clients_rebase(struct tp_clients *cl, const struct tp_ring_rebase *map)
{
    for (size_t i = 0; i < cl->n; i++)
        for (unsigned s = 0; cl->v[i] && s < TP_RING_MAX_SLOTS; s++)
            if (cl->v[i]->started >> s & 1)
                tp_ring_rebase(map, &cl->v[i]->cursor[s]);
}

void tp_clients_forget_slot(struct tp_clients *cl, unsigned slot)
{
    for (size_t i = 0; i < cl->n; i++)
        if (cl->v[i])
            cl->v[i]->started &= ~((tp_slotmask)1 << slot);
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
