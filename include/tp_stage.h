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
 * Stacks (tp_stage_stacks): ftrace's stacktrace trigger writes a
 * kernel_stack entry after the event it fired for, on the same CPU,
 * maybe on the next sub-buffer.  While stacks are in use, such an entry is
 * never an event of its own: it is attached to the latest event on its CPU
 * recorded in the same context (pid; hard irq, soft irq or NMI), looking
 * past other contexts' events (at most 64), if that event is still staged
 * and has no stack yet, and no sub-buffer of the CPU (or its end) was lost
 * since that event (refused, truncated, or no room to keep its events: the
 * entry may be a lost event's); otherwise it is an orphan, counted and
 * dropped.  The rule is exact: the kernel writes the entry after the
 * event, on the same CPU, before that context records anything else; only
 * other contexts' events come between (an interrupt's, or where the
 * kernel runs syscall tracepoints preemptible, another task's), and it
 * runs no trigger for an event it could not reserve; an event its filter
 * discards still gets the stack of a trigger whose condition it meets, so
 * the trigger's condition must imply the filter (tp_demand keeps it so).
 * So that a stack can still find its event, a CPU read up to its last event is taken as
 * read up to just before that event (its stack may be on the next
 * sub-buffer); a read that comes up empty lets it go once the event is
 * TP_STAGE_STACK_WAIT_NS old, or has its stack: the kernel writes the stack
 * after the event commits, and the writer's CPU may stall in between (a
 * preempted vCPU) for longer than an empty read's slack.  An event still
 * without its stack then goes on without one.  With stacks off, none of
 * this costs anything.
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
#define TP_STAGE_STACK_WAIT_NS (100 * 1000 * 1000ull)  /* an event's stack may come this late */

/* One event waiting to be handed on; data points into a kept sub-buffer. */
struct tp_staged {
    uint64_t ts;                    /* first: tp_merge reads it */
    const void *data;
    uint32_t size;
    uint16_t cpu;
    uint16_t nframes;               /* of stack: 0 without one */
    const void *stack;              /* the kernel_stack entry's frames (unsigned long each,
                                       maybe unaligned), in a kept sub-buffer; NULL: none */
};

/* The kernel's struct stack_entry, after the common fields (64-bit kernels). */
#define TP_STACK_SIZE_OFFSET   8    /* int size: the number of frames */
#define TP_STACK_CALLER_OFFSET 16   /* unsigned long caller[] */

struct tp_stage;

/* 0, -EINVAL or -ENOMEM. */
int tp_stage_create(struct tp_stage **out, int ncpus, size_t subbuf_size,
                    const struct tp_page_layout *layout);
void tp_stage_destroy(struct tp_stage *st);

/*
 * kernel_stack_id: the kernel id of ftrace:kernel_stack, whose entries are
 * then attached to their events; -1: stacks off (the default).
 */
void tp_stage_stacks(struct tp_stage *st, int kernel_stack_id);
/* Stack entries that found no event to attach to, since the stage was created. */
uint64_t tp_stage_orphans(const struct tp_stage *st);

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
 * last event (what comes next is newer; with stacks on, up to just before
 * it).  Neither goes back.
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
