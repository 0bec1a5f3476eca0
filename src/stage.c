/*
 * Sub-buffers kept until their events can go on in time order.  See
 * tp_stage.h.
 */
#include "tp_stage.h"
#include "tp_merge.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define COMPACT_AT 4096             /* handed-on events before the list is moved down */
#define STACK_LOOKBACK 64           /* events of other contexts a stack may follow its event by */

struct kept {
    void *buf;
    size_t end;                     /* one past its last event in ev */
};

struct cpu_stage {
    struct tp_staged *ev;           /* this CPU's events, in its order */
    size_t n, pos, cap;             /* pos: the next to hand on */
    struct kept kept[TP_STAGE_PAGES];   /* a FIFO: first, nkept */
    unsigned first, nkept;
    void *free[TP_STAGE_PAGES];
    unsigned nfree, nalloc;
    uint64_t caught_up;
    size_t lost_at;                 /* events from this index on came after the last loss of
                                       a sub-buffer (or its end); n if none came since */
};

struct tp_stage {
    struct cpu_stage *c;
    struct tp_merge_src *src;
    int ncpus;
    size_t subbuf_size, max_events;     /* per sub-buffer, at most */
    struct tp_page_layout layout;
    uint64_t last_ts, late;
    int stack_id;                   /* ftrace:kernel_stack's kernel id; -1: stacks off */
    uint64_t orphans;
};

/* What a push with stacks on needs in its decode callback. */
struct push_ctx {
    struct tp_stage *st;
    struct cpu_stage *c;
    bool attached;                  /* a stack in this sub-buffer went to an event */
};

int tp_stage_create(struct tp_stage **out, int ncpus, size_t subbuf_size,
                    const struct tp_page_layout *layout)
{
    *out = NULL;
    if (ncpus <= 0 || subbuf_size <= layout->data_offset)
        return -EINVAL;
    struct tp_stage *st = calloc(1, sizeof(*st));
    if (!st || !(st->c = calloc((size_t)ncpus, sizeof(*st->c))) ||
        !(st->src = calloc((size_t)ncpus, sizeof(*st->src)))) {
        tp_stage_destroy(st);
        return -ENOMEM;
    }
    st->ncpus = ncpus;
    st->subbuf_size = subbuf_size;
    st->max_events = (subbuf_size - layout->data_offset) / 8 + 1;
    st->layout = *layout;
    st->stack_id = -1;
    *out = st;
    return 0;
}

void tp_stage_destroy(struct tp_stage *st)
{
    if (!st)
        return;
    for (int i = 0; st->c && i < st->ncpus; i++) {
        struct cpu_stage *c = &st->c[i];
        for (unsigned k = 0; k < c->nkept; k++)
            free(c->kept[(c->first + k) % TP_STAGE_PAGES].buf);
        for (unsigned k = 0; k < c->nfree; k++)
            free(c->free[k]);
        free(c->ev);
    }
    free(st->c);
    free(st->src);
    free(st);
}

void *tp_stage_page(struct tp_stage *st, int cpu)
{
    struct cpu_stage *c = &st->c[cpu];
    void *p = NULL;
    if (c->nfree)
        return c->free[--c->nfree];
    if (c->nalloc < TP_STAGE_PAGES && posix_memalign(&p, 64, st->subbuf_size) == 0)
        c->nalloc++;
    return p;
}

void tp_stage_unget(struct tp_stage *st, int cpu, void *page)
{
    struct cpu_stage *c = &st->c[cpu];
    if (page)
        c->free[c->nfree++] = page;
}

static void add_event(void *arg, const void *data, uint32_t size, uint64_t ts)
{
    struct cpu_stage *c = arg;
    c->ev[c->n++] = (struct tp_staged){ .ts = ts, .data = data, .size = size };
}

void tp_stage_stacks(struct tp_stage *st, int kernel_stack_id)
{
    st->stack_id = kernel_stack_id;
}

uint64_t tp_stage_orphans(const struct tp_stage *st) { return st->orphans; }

/*
 * Same context: the same pid, and the same of hard irq, soft irq, NMI in
 * the flags (the other flags, need-resched ones, and the preempt count may
 * change between the event and its stack).
 */
#define CONTEXT_FLAGS (0x08 | 0x10 | 0x40)      /* TRACE_FLAG_HARDIRQ, _SOFTIRQ, _NMI */
static bool same_context(const struct tp_staged *e, const void *stack, uint32_t size)
{
    const unsigned char *x = e->data, *y = stack;
    return e->size >= 8 && size >= 8 && memcmp(x + 4, y + 4, 4) == 0 &&
           ((x[2] ^ y[2]) & CONTEXT_FLAGS) == 0;
}

/*
 * The event a stack entry of this context follows: the CPU's latest staged
 * event of the same context, past events of other contexts (an interrupt's,
 * or another task's that ran between the event and its stack); NULL if a
 * loss came since, or none is staged within STACK_LOOKBACK.
 */
static struct tp_staged *stack_owner(struct cpu_stage *c, const void *data, uint32_t size)
{
    size_t low = c->pos > c->lost_at ? c->pos : c->lost_at;
    if (c->n > STACK_LOOKBACK && c->n - STACK_LOOKBACK > low)
        low = c->n - STACK_LOOKBACK;
    for (size_t i = c->n; i > low; i--)
        if (same_context(&c->ev[i - 1], data, size))
            return &c->ev[i - 1];
    return NULL;
}

/*
 * A kernel_stack entry: to its event (stack_owner), or an orphan.  Not
 * across a loss: after events read and not kept (a sub-buffer refused, or
 * cut short), the entry may be a lost event's.
 */
static bool attach_stack(struct tp_stage *st, struct cpu_stage *c, const void *data,
                         uint32_t size)
{
    struct tp_staged *e = stack_owner(c, data, size);
    int32_t nframes = 0;
    if (size >= TP_STACK_CALLER_OFFSET)
        memcpy(&nframes, (const char *)data + TP_STACK_SIZE_OFFSET, sizeof(nframes));
    uint32_t room = size >= TP_STACK_CALLER_OFFSET ? (size - TP_STACK_CALLER_OFFSET) / 8 : 0;
    if (nframes < 0 || (uint32_t)nframes > room)
        nframes = (int32_t)room;
    if (!e || e->stack || !nframes || nframes > UINT16_MAX) {
        st->orphans++;
        return false;
    }
    e->stack = (const char *)data + TP_STACK_CALLER_OFFSET;
    e->nframes = (uint16_t)nframes;
    return true;
}

static void add_event_or_stack(void *arg, const void *data, uint32_t size, uint64_t ts)
{
    struct push_ctx *p = arg;
    uint16_t id = 0;
    if (size >= sizeof(id))
        memcpy(&id, data, sizeof(id));
    if (size >= sizeof(id) && id == p->st->stack_id)
        p->attached |= attach_stack(p->st, p->c, data, size);
    else
        add_event(p->c, data, size, ts);
}

static int room_for_page(struct tp_stage *st, struct cpu_stage *c)
{
    if (c->n + st->max_events <= c->cap)
        return 0;
    size_t cap = c->cap ? c->cap * 2 : 4 * st->max_events;
    while (cap < c->n + st->max_events)
        cap *= 2;
    struct tp_staged *ev = realloc(c->ev, cap * sizeof(*ev));
    if (!ev)
        return -ENOMEM;
    c->ev = ev;
    c->cap = cap;
    return 0;
}

long tp_stage_push(struct tp_stage *st, int cpu, void *page, size_t nread, int *truncated)
{
    struct cpu_stage *c = &st->c[cpu];
    *truncated = 0;
    int rc = room_for_page(st, c);
    if (rc < 0) {
        c->lost_at = c->n;
        tp_stage_unget(st, cpu, page);
        return rc;
    }
    size_t before = c->n;
    struct push_ctx p = { st, c, false };
    long len = st->stack_id < 0
        ? tp_decode_page(page, nread, &st->layout, add_event, c, truncated)
        : tp_decode_page(page, nread, &st->layout, add_event_or_stack, &p, truncated);
    for (size_t i = before; i < c->n; i++)
        c->ev[i].cpu = (uint16_t)cpu;
    if (len < 0 || *truncated)
        c->lost_at = c->n;
    if (c->n == before && !p.attached) {
        tp_stage_unget(st, cpu, page);
        return len;
    }
    c->kept[(c->first + c->nkept++) % TP_STAGE_PAGES] = (struct kept){ page, c->n };
    return len;
}

/*
 * With stacks on, a CPU's last staged event without a stack yet is not
 * read past until TP_STAGE_STACK_WAIT_NS after it: its stack is written
 * after the event commits, and a stall of the writer's CPU in between
 * (preempted vCPU) can outlast the slack of an empty read.
 */
static uint64_t stack_hold(const struct tp_stage *st, const struct cpu_stage *c, uint64_t t)
{
    const struct tp_staged *last = c->n > c->pos ? &c->ev[c->n - 1] : NULL;
    if (st->stack_id < 0 || !last || last->stack || last->ts == 0)
        return t;
    return t >= last->ts && t - last->ts < TP_STAGE_STACK_WAIT_NS ? last->ts - 1 : t;
}

void tp_stage_caught_up(struct tp_stage *st, int cpu, uint64_t t)
{
    struct cpu_stage *c = &st->c[cpu];
    t = stack_hold(st, c, t);
    if (t > c->caught_up)
        c->caught_up = t;
}

void tp_stage_cut_short(struct tp_stage *st, int cpu)
{
    struct cpu_stage *c = &st->c[cpu];
    if (c->n <= c->pos)
        return;
    uint64_t last = c->ev[c->n - 1].ts;
    /* with stacks on, the last event's stack may be on the next sub-buffer: hold it back */
    tp_stage_caught_up(st, cpu, st->stack_id >= 0 && last > 0 ? last - 1 : last);
}

uint64_t tp_stage_watermark(const struct tp_stage *st)
{
    uint64_t w = UINT64_MAX;
    for (int i = 0; i < st->ncpus; i++)
        if (st->c[i].caught_up < w)
            w = st->c[i].caught_up;
    return w;
}

size_t tp_stage_next(struct tp_stage *st, struct tp_staged *out, size_t max)
{
    uint64_t w = tp_stage_watermark(st);
    for (int i = 0; i < st->ncpus; i++) {
        struct cpu_stage *c = &st->c[i];
        st->src[i] = (struct tp_merge_src){ c->ev ? &c->ev[0].ts : NULL, sizeof(*c->ev),
                                            c->n, c->pos };
    }
    size_t got = 0, src, run;
    while (got < max && (run = tp_merge_run(st->src, (size_t)st->ncpus, w, max - got, &src)) > 0) {
        struct cpu_stage *c = &st->c[src];
        memcpy(out + got, c->ev + c->pos, run * sizeof(*out));
        if (out[got].ts < st->last_ts)
            st->late++;
        got += run;
        c->pos += run;
        st->src[src].pos = c->pos;
        if (out[got - 1].ts > st->last_ts)
            st->last_ts = out[got - 1].ts;
    }
    return got;
}

static void compact(struct cpu_stage *c)
{
    size_t pos = c->pos;
    memmove(c->ev, c->ev + pos, (c->n - pos) * sizeof(*c->ev));
    c->n -= pos;
    c->pos = 0;
    c->lost_at = c->lost_at > pos ? c->lost_at - pos : 0;
    for (unsigned k = 0; k < c->nkept; k++)
        c->kept[(c->first + k) % TP_STAGE_PAGES].end -= pos;
}

void tp_stage_release(struct tp_stage *st)
{
    for (int i = 0; i < st->ncpus; i++) {
        struct cpu_stage *c = &st->c[i];
        while (c->nkept && c->kept[c->first].end <= c->pos) {
            c->free[c->nfree++] = c->kept[c->first].buf;
            c->first = (c->first + 1) % TP_STAGE_PAGES;
            c->nkept--;
        }
        if (c->pos == c->n)
            c->n = c->pos = c->lost_at = 0;
        else if (c->pos >= COMPACT_AT && 2 * c->pos >= c->n)
            compact(c);
    }
}

size_t tp_stage_pending(const struct tp_stage *st)
{
    size_t n = 0;
    for (int i = 0; i < st->ncpus; i++)
        n += st->c[i].n - st->c[i].pos;
    return n;
}

uint64_t tp_stage_late(const struct tp_stage *st) { return st->late; }
