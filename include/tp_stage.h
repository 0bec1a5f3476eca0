/*
 * tp_stage: where the producer keeps what it has read from the kernel until
 * it can hand it on in time order.
 *
 * Each CPU's sub-buffers, as read from trace_pipe_raw, are kept whole and
 * decoded into a list of their events (time, bytes, size) in that CPU's
 * order, which is time order.  The producer says how far each CPU has been
 * read: up to a time (a read came up empty: nothing older than that, less a
 * slack for events still being written, can turn up later), or up to its
 * last event (it read some: the next are newer).  The watermark is the
 * least of them, and tp_stage_next() hands on the CPUs' events merged by
 * time (tp_merge) up to it.  A sub-buffer goes back to its CPU's pool when
 * every event in it has been handed on.
 *
 * Bounded: each CPU keeps at most TP_STAGE_PAGES sub-buffers; when they are
 * all in use, tp_stage_page() has none to give, and the producer leaves the
 * rest in the kernel's buffer until the merge has moved on.
 *
 * Pure: no I/O, no locks.  The producer thread owns it.
 */
#ifndef TP_STAGE_H
#define TP_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "tp_decode.h"

#define TP_STAGE_PAGES 512          /* sub-buffers per CPU */

/* One event waiting to be handed on; data points into a kept sub-buffer. */
struct tp_staged {
    uint64_t ts;                    /* first: tp_merge reads it */
    const void *data;
    uint32_t size;
    uint16_t cpu;
};

struct tp_stage;

/* 0, -EINVAL or -ENOMEM. */
int tp_stage_create(struct tp_stage **out, int ncpus, size_t subbuf_size,
                    const struct tp_page_layout *layout);
void tp_stage_destroy(struct tp_stage *st);

/* A sub-buffer to read CPU cpu's next one into, or NULL if its pool is spent. */
void *tp_stage_page(struct tp_stage *st, int cpu);
/*
 * The page (from tp_stage_page) now holds nread bytes read from cpu: keep
 * it and its events.  Returns the page's data length; a page without
 * events goes back to the pool at once, and so does one whose header cannot
 * be trusted (-EINVAL) or that finds no room for its events (-ENOMEM: its
 * events are lost).  *truncated as tp_decode_page() sets it.
 */
long tp_stage_push(struct tp_stage *st, int cpu, void *page, size_t nread, int *truncated);
/* The page was not used. */
void tp_stage_unget(struct tp_stage *st, int cpu, void *page);

/*
 * cpu has been read up to time t (nothing older can come), or up to its
 * last event (what comes next is newer).  Neither goes back.
 */
void tp_stage_caught_up(struct tp_stage *st, int cpu, uint64_t t);
void tp_stage_cut_short(struct tp_stage *st, int cpu);

/*
 * Up to max of the next events in time order, at or before the watermark,
 * copied to out; returns how many.  They count as handed on; their bytes
 * stay valid until tp_stage_release().
 */
size_t tp_stage_next(struct tp_stage *st, struct tp_staged *out, size_t max);
/* Give back the sub-buffers whose events have all been handed on. */
void tp_stage_release(struct tp_stage *st);
/* The time up to which every CPU has been read (events at or before it can go on). */
uint64_t tp_stage_watermark(const struct tp_stage *st);
/* Events kept and not yet handed on. */
size_t tp_stage_pending(const struct tp_stage *st);
/* Handed on out of time order (an event older than one already handed on): 0 if the slack held. */
uint64_t tp_stage_late(const struct tp_stage *st);

#endif
