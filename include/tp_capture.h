/*
 * tp_capture: the producer.  One thread waits in poll(2) for the instance's
 * per-CPU buffers to fill (tp_pace says to what watermark, and for how
 * long), reads their trace_pipe_raw sub-buffers into the stage (tp_stage,
 * which decodes them), and hands the events on in time order across CPUs
 * (once every CPU has been read past them): it appends the events that some
 * slot wants to the ring, each with the wall-clock epoch it was handed on in
 * (tp_clock), or feeds them to the slot's aggregation (tp_agg) where the
 * slot is one.  While names are wanted it follows the events that rename
 * tasks (tp_comms) as they go by, so each event carries its task's name at
 * the event.  While some consumer wants kernel stacks it attaches each
 * ftrace:kernel_stack entry to the event before it on its CPU (tp_stage)
 * and stores the frames with the events of those consumers (or hands them
 * to their aggregations); an event of theirs without one is counted
 * (stack_missing).  It polls the per-CPU "stats" files and appends a LOSS entry
 * (or tells the aggregations) when the kernel reports overrun or dropped
 * events.  The thread calls no PCP library.
 *
 * Every consumer of an event (a slot's want) has a start time: an event
 * recorded in the kernel before it is not that consumer's, even if it is
 * read afterwards, so a consumer never receives events buffered under an
 * earlier owner of its slot or an earlier filter.  A consumer of stacks has
 * a second one: the events recorded before its stacktrace trigger was in
 * force come without a stack and are not counted missing.
 *
 * How far it has handed on: once a pass, even when it handed on nothing,
 * the producer notes its watermark (tp_stage) as wall-clock time
 * (tp_capture_handed): every event recorded before it has been handed on,
 * which is what a one-liner's reading says it counts up to.
 *
 * The producer thread is named "tp-producer" and runs at the nice value
 * tp_capture_set_nice gives it (its own, not the PMDA's: the config's
 * producer_nice), so that busy nice-0 work on every core does not keep it
 * from the kernel's buffers.
 *
 * A pass (reading every CPU, handing on, noting loss) is the producer's,
 * except when a fetch wants what the kernel holds now: the PMDA thread then
 * makes the pass itself (tp_capture_catch_up) rather than wake the
 * producer and wait for it.
 *
 * Threading contract:
 * - tp_capture_create/start/stop/destroy/set_nice: PMDA thread.
 * - The mutex (tp_capture_lock/unlock) guards the ring, the routing table
 *   and the counters.  A pass takes it once per batch of events handed on
 *   (at most 512).
 * - A second mutex, internal, is held through each pass, so that one
 *   thread at a time reads the kernel's buffers and owns what a pass
 *   touches (the stage, the names followed); it is taken before the first,
 *   never while holding it.
 * - Every function below marked "lock held" must be called with it held.
 */
#ifndef TP_CAPTURE_H
#define TP_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp_agg.h"
#include "tp_clock.h"
#include "tp_comms.h"
#include "tp_filter.h"
#include "tp_ring.h"
#include "tp_tracefs.h"

struct tp_capture;

struct tp_capture_stats {
    uint64_t captured;      /* events some slot took (into the ring or an aggregation) */
    uint64_t lost;          /* kernel: overrun + dropped events, all CPUs */
    uint64_t oversize;      /* events too large for the ring (counted as lost too) */
    uint64_t bad_pages;     /* sub-buffers rejected by validation */
    uint64_t lock_wait_max; /* longest a pass waited for the lock, ns */
    uint64_t wakeups;       /* times the producer woke from its wait for data */
    uint64_t late;          /* runs of events handed on after a newer one (a write outlasted
                               the slack) */
    uint64_t stack_missing; /* events taken for a consumer that wants stacks without one */
    uint64_t stack_orphans; /* kernel_stack entries that found no event to go with */
    int read_errno;         /* last read error other than EAGAIN, 0 if none */
};

/*
 * nevents: catalog size (per-event counters are indexed by catalog index).
 * Returns 0 or -errno.
 */
int tp_capture_create(struct tp_capture **out, struct tp_instance *inst,
                      size_t ring_capacity, size_t nevents);
int tp_capture_start(struct tp_capture *cap);
/* Stop and join the thread; idempotent. */
void tp_capture_stop(struct tp_capture *cap);
/*
 * Stop the thread and close the tracefs files (so the instance can be
 * removed).  For a terminating signal: any thread; frees nothing.
 */
void tp_capture_release_files(struct tp_capture *cap);
/* Stops, then frees; accepts NULL.  The instance is not the capture's. */
void tp_capture_destroy(struct tp_capture *cap);

void tp_capture_lock(struct tp_capture *cap);
void tp_capture_unlock(struct tp_capture *cap);

/* lock held */
struct tp_ring *tp_capture_ring(struct tp_capture *cap);
/*
 * One consumer of an event: its slot gets each event recorded at or after
 * `since` (trace clock) that its filter matches (NULL: every one).  With
 * stack, it wants the kernel stack of each of those recorded at or after
 * stack_since (the stacktrace trigger was in force for them; the others
 * come without one, not counted missing).  exact_from (0: never): the
 * events recorded at or after it passed exactly this filter in the kernel,
 * so the producer takes them without evaluating the filter again; those
 * recorded before are checked.
 */
struct tp_check {
    tp_slotmask bit;
    const struct tp_filter *filter;     /* must outlive the route */
    uint64_t since;
    bool stack;                         /* the slot wants each event's kernel stack */
    uint64_t stack_since;
    uint64_t exact_from;
};

/*
 * lock held: events with this kernel id go to the slots of the checks that
 * take them; no checks: no route.  The checks are copied; the filters they
 * point to are the caller's.  Returns 0, -EINVAL or -ENOMEM.
 */
int tp_capture_route(struct tp_capture *cap, int kernel_id, uint32_t event,
                     const struct tp_check *checks, size_t nchecks);
/*
 * PMDA thread, before tp_capture_start: the kernel id of ftrace:kernel_stack
 * (-1: the kernel has none, and no event gets a stack).  While some route
 * has a stack check, the producer attaches each kernel_stack entry to its
 * event (tp_stage) and the ring entries of the slots that want stacks carry
 * the frames; otherwise stacks cost nothing.
 */
void tp_capture_stack_id(struct tp_capture *cap, int kernel_stack_id);
/*
 * lock held: the slot is an aggregation: the events routed to it are fed to
 * agg (which the caller owns, and reads under this lock) instead of being
 * stored in the ring.  NULL: the slot is a ring consumer again.
 */
void tp_capture_sink(struct tp_capture *cap, unsigned slot, struct tp_agg *agg);
/*
 * lock held: the slot's events are wanted enabled only (the name events,
 * for the producer's own use): they are neither stored nor counted.
 */
void tp_capture_discard(struct tp_capture *cap, unsigned slot, bool discard);
/*
 * PMDA thread, takes the lock: follow names (follow, or some slot to carry
 * them), and the slots whose records carry them (carry).  While following,
 * the producer knows every task's name at each of its events: filters on
 * comm and aggregations by comm use it, and the events of the carry slots
 * store it.  The name events (tp_capture_name_events) must be enabled
 * first, by a discard slot's demand.
 */
void tp_capture_want_comms(struct tp_capture *cap, tp_slotmask carry, bool follow);
/*
 * PMDA thread, lock not held: wait (at most SYNC_WAIT, 1 s) until a round
 * of the producer's begun after this call is done, so that it has seen what
 * was asked before it (names followed, stacks staged).  0 (also when it is
 * not running), or -ETIMEDOUT.
 */
int tp_capture_sync(struct tp_capture *cap);
/*
 * PMDA thread, lock not held: before a fetch, what the kernel has recorded
 * until now (less the 2 ms allowed for events still being written) handed
 * on, unless a round ended less than fresh_ns ago or the producer sleeps
 * until the next event (quiet, nothing staged: an event wakes it at once,
 * so an idle PMDA stays asleep however often it is fetched): the calling
 * thread makes a pass itself, of at most 64 sub-buffers a CPU, and wakes
 * the producer only if that pass left a CPU not drained (or staged events
 * while the producer sleeps until the next event); while the producer is
 * in a pass, or when the pass would walk /proc for names, it wakes the
 * producer and waits (at most CATCH_UP_WAIT, 200 ms) for a round begun
 * after the call to hand on what it read.  So a fetch sees its events however long
 * the producer would sleep otherwise (tp_pace), mostly at the cost of one
 * pass rather than of two wakeups.  0 (also when cap is NULL or not
 * running), -ETIMEDOUT, or -errno.
 */
int tp_capture_catch_up(struct tp_capture *cap, uint64_t fresh_ns);
/*
 * PMDA thread, takes the lock: before a store that needs names, follow
 * them (as tp_capture_want_comms with follow) and, slot >= 0, carry them
 * in that slot's events, keeping what else is asked.  True if names were
 * not wanted before: tp_capture_sync() then returns once the producer
 * follows them (its /proc snapshot taken).  The next
 * tp_capture_want_comms() says again what is wanted.
 */
bool tp_capture_names_first(struct tp_capture *cap, int slot);
/* PMDA thread: the events that name tasks are enabled (live) or not. */
void tp_capture_names_live(struct tp_capture *cap, bool live);
/* PMDA thread, before tp_capture_start: which events name tasks, and their fields. */
void tp_capture_name_events(struct tp_capture *cap, const struct tp_name_events *ne);
/* lock held: the wall-clock epochs the ring's entries refer to. */
const struct tp_clock *tp_capture_clock(const struct tp_capture *cap);
/* lock held */
uint64_t tp_capture_event_count(const struct tp_capture *cap, size_t event);
/* lock held: the event is a new one (a probe slot bound again): its count starts at 0. */
void tp_capture_reset_count(struct tp_capture *cap, size_t event);
/*
 * lock held: every event recorded before this wall-clock time (ns) has been
 * handed on (to the ring, or counted by its aggregations); 0: not yet
 * known.  The producer moves it on once a pass, even when it hands on
 * nothing.
 */
uint64_t tp_capture_handed(const struct tp_capture *cap);
/*
 * PMDA thread, no lock: make the producer read every CPU once more soon,
 * without waiting for it, so that tp_capture_handed() moves on even on an
 * idle machine (where it sleeps until an event wakes it).
 */
void tp_capture_poke(struct tp_capture *cap);
/*
 * PMDA thread: the producer thread's nice value (-20..19), applied now if it
 * runs, else when it starts.  0, or -errno (setpriority's).
 */
int tp_capture_set_nice(struct tp_capture *cap, int nice);
/* lock held */
void tp_capture_get_stats(const struct tp_capture *cap, struct tp_capture_stats *st);

#endif
