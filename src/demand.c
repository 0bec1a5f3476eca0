/*
 * Kernel enablement follows demand.  See tp_demand.h for the contract.
 */
#include "tp_demand.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct event_state {
    tp_slotmask want;       /* slots that want the event */
    char *filter;           /* the filter they share; NULL: none */
    bool enabled;           /* in the kernel */
    char *kfilter;          /* the kernel's filter now */
    tp_slotmask routed;     /* the producer's route now */
};

struct tp_demand {
    struct tp_catalog *cat;
    struct tp_instance *inst;
    struct tp_capture *cap;
    struct event_state *ev;
    size_t nevents;
};

int tp_demand_create(struct tp_demand **out, struct tp_catalog *cat,
                     struct tp_instance *inst, struct tp_capture *cap)
{
    struct tp_demand *d = calloc(1, sizeof(*d));
    if (!d)
        return -ENOMEM;
    d->cat = cat;
    d->inst = inst;
    d->cap = cap;
    d->nevents = tp_catalog_count(cat);
    d->ev = calloc(d->nevents ? d->nevents : 1, sizeof(*d->ev));
    if (!d->ev) {
        free(d);
        return -ENOMEM;
    }
    *out = d;
    return 0;
}

static bool same_filter(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int tp_demand_want(struct tp_demand *d, unsigned slot, size_t event, const char *filter)
{
    if (event >= d->nevents || slot >= TP_RING_MAX_SLOTS)
        return -ENOENT;
    int rc = tp_catalog_load(d->cat, event);
    if (rc < 0)
        return rc;
    struct event_state *s = &d->ev[event];
    tp_slotmask bit = (tp_slotmask)1 << slot;
    if (filter && !*filter)
        filter = NULL;
    if (s->want & ~bit) {
        if (!same_filter(s->filter, filter))
            return -EBUSY;
        s->want |= bit;
        return 0;
    }
    char *f = filter ? strdup(filter) : NULL;
    if (filter && !f)
        return -ENOMEM;
    free(s->filter);
    s->filter = f;
    s->want = bit;
    return 0;
}

static void drop_want(struct event_state *s, tp_slotmask bits)
{
    s->want &= ~bits;
    if (!s->want) {
        free(s->filter);
        s->filter = NULL;
    }
}

void tp_demand_release(struct tp_demand *d, unsigned slot)
{
    tp_slotmask bit = (tp_slotmask)1 << slot;
    for (size_t i = 0; i < d->nevents; i++)
        if (d->ev[i].want & bit)
            drop_want(&d->ev[i], bit);
}

static int set_route(struct tp_demand *d, size_t i, tp_slotmask mask)
{
    const struct tp_event *e = tp_catalog_event(d->cat, i);
    tp_capture_lock(d->cap);
    int rc = tp_capture_route(d->cap, e->kernel_id, (uint32_t)i, mask);
    tp_capture_unlock(d->cap);
    if (rc == 0)
        d->ev[i].routed = mask;
    return rc;
}

static int turn_off(struct tp_demand *d, size_t i)
{
    struct event_state *s = &d->ev[i];
    const struct tp_event *e = tp_catalog_event(d->cat, i);
    int rc = tp_instance_enable(d->inst, e, 0);
    if (s->kfilter)
        tp_instance_set_filter(d->inst, e, NULL);
    free(s->kfilter);
    s->kfilter = NULL;
    s->enabled = false;
    set_route(d, i, 0);
    return rc;
}

static int turn_on(struct tp_demand *d, size_t i)
{
    struct event_state *s = &d->ev[i];
    const struct tp_event *e = tp_catalog_event(d->cat, i);
    int rc = set_route(d, i, s->want);
    if (rc == 0 && !same_filter(s->kfilter, s->filter)) {
        rc = tp_instance_set_filter(d->inst, e, s->filter);
        free(s->kfilter);
        s->kfilter = rc == 0 && s->filter ? strdup(s->filter) : NULL;
    }
    if (rc == 0 && !s->enabled) {
        rc = tp_instance_enable(d->inst, e, 1);
        s->enabled = rc == 0;
    }
    return rc;
}

static int apply_one(struct tp_demand *d, size_t i)
{
    struct event_state *s = &d->ev[i];
    if (!s->want)
        return s->enabled || s->routed ? turn_off(d, i) : 0;
    if (s->enabled && s->routed == s->want && same_filter(s->kfilter, s->filter))
        return 0;
    return turn_on(d, i);
}

int tp_demand_apply(struct tp_demand *d, tp_demand_error_fn on_error, void *arg)
{
    int first = 0;
    for (size_t i = 0; i < d->nevents; i++) {
        tp_slotmask want = d->ev[i].want;
        int rc = apply_one(d, i);
        if (rc == 0)
            continue;
        for (unsigned b = 0; b < TP_RING_MAX_SLOTS; b++)
            if ((want >> b) & 1 && on_error)
                on_error(arg, i, b, rc);
        drop_want(&d->ev[i], want);
        turn_off(d, i);
        if (!first)
            first = rc;
    }
    return first;
}

int tp_demand_enabled(const struct tp_demand *d, size_t event)
{
    return event < d->nevents && d->ev[event].enabled;
}

size_t tp_demand_list(const struct tp_demand *d, uint32_t *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < d->nevents; i++) {
        if (!d->ev[i].enabled)
            continue;
        if (n < max)
            out[n] = (uint32_t)i;
        n++;
    }
    return n;
}

size_t tp_demand_count(const struct tp_demand *d)
{
    return tp_demand_list(d, NULL, 0);
}

void tp_demand_destroy(struct tp_demand *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->nevents; i++) {
        if (d->ev[i].enabled)
            turn_off(d, i);
        free(d->ev[i].filter);
        free(d->ev[i].kfilter);
    }
    free(d->ev);
    free(d);
}
