/*
 * tp_demand: kernel enablement follows demand.  Each slot (a stream, or a
 * client's subscription set) says which events it wants, each with its own
 * filter or none; tp_demand_apply() makes the instance and the producer's
 * routing agree.  An event is enabled while some slot wants it and disabled
 * when none does.
 *
 * Filters go to the kernel wherever that is correct, so that events nobody
 * wants are never copied:
 * - every slot wants the event with the same filter (or none): the kernel
 *   applies it, and every event it passes belongs to all of them;
 * - some slot wants it unfiltered: no kernel filter; the producer evaluates
 *   the other slots' filters on each record;
 * - all slots filter, differently: the kernel applies "(f1) || (f2) ...",
 *   and the producer decides which slots each record belongs to.
 * Where the kernel's filter is exactly a slot's own text, the producer
 * takes what the kernel passes for that slot without evaluating its filter
 * again, for the events recorded after the write of that filter returned
 * (the older ones in the kernel's buffer passed whatever filter was in force
 * before, and are checked).
 * A filter comparing a string behind a char * field can only be evaluated
 * by the kernel, so it cannot be combined with a different filter of
 * another slot on the same event (-EBUSY, with the reason).  A filter on
 * comm can: the producer checks it against the task's name at the event
 * (the agent follows names for the slots tp_demand_comm_slots() gives).
 *
 * Stacks: the slots tp_demand_stacks() names want each event's kernel
 * stack.  An event some of them want gets ftrace's stacktrace trigger in
 * the instance, its condition the OR of those slots' filters (or one true
 * for every event, where one of them has none), so that the trigger runs
 * after the event is written and only where a stack is wanted; the other
 * events have none, and cost nothing more.  A want of a stack slot starts
 * once the trigger is in force for it: a new want takes no event recorded
 * before (they are not its, neither delivered nor missed), one whose slot
 * turns stacks on takes those without a stack (not missed), so that every
 * event of it from then on has its stack.  (The agent says which slots want
 * stacks before the apply that enables their events.)  Changing the
 * condition means removing the trigger, then setting the new one: the
 * events in between have no stack for the wants that had one before (the
 * producer counts them, tracepoint.stack.missing).  The trigger goes before
 * the event is disabled.  Its condition always implies the kernel filter
 * (the kernel runs a conditional trigger on records the filter then
 * discards, and their stacks would follow the event before): one true of
 * every event is the kernel filter where there is one, and while the
 * trigger changes the kernel filter passes the old condition's terms too
 * (narrowed once the new trigger is in force; where the producer cannot
 * check every want itself, the trigger goes first instead).  A
 * condition the kernel refuses (it took the same text as the filter) is
 * logged once; the kernel filter is dropped where the producer can check
 * every want's filter itself, and the trigger is then the one true of every
 * event, else the event goes without stacks (counted missing).
 *
 * Threading: PMDA thread.  Takes the capture lock to change routes.  An
 * apply that sets a stacktrace trigger first waits for the producer to
 * stage stacks (tp_capture_sync: at most once an apply, up to a second);
 * the fault build's PMDATRACEPOINT_APPLY_DELAY_MS sleeps after an apply
 * that changed something.
 */
#ifndef TP_DEMAND_H
#define TP_DEMAND_H

#include <stddef.h>
#include <stdint.h>

#include "tp_capture.h"
#include "tp_catalog.h"
#include "tp_tracefs.h"
#include "tp_util.h"

struct tp_demand;

/*
 * load(arg, event) makes an event ready before anything may want it (its
 * format parsed, its identity known): 0 or a negative errno.
 */
typedef int (*tp_demand_load_fn)(void *arg, size_t event);
int tp_demand_create(struct tp_demand **out, struct tp_catalog *cat,
                     struct tp_instance *inst, struct tp_capture *cap,
                     tp_demand_load_fn load, void *load_arg);
/* Where an apply says what it could not do as asked (a refused stacktrace condition). */
void tp_demand_log(struct tp_demand *d, tp_log_fn log, void *arg);
/*
 * Frees; accepts NULL.  Writes nothing to tracefs: call it once the
 * instance is removed (which disables its events) or the producer stopped.
 */
void tp_demand_destroy(struct tp_demand *d);

/*
 * Slot wants event (catalog index) with filter (NULL or "": every event),
 * of the events recorded at or after since (trace clock; 0: all) and, if
 * the kernel's filter of the event changes for it, after that change: events
 * the kernel passed under its old filter are never the slot's.  It replaces
 * what it wanted of that event before; wanting exactly what it wants already
 * changes nothing.  Errors, with the reason in err, and nothing changed:
 * -ENOENT no such event; -EINVAL bad filter; -E2BIG filter too long or
 * complex; -EBUSY a kernel-only (char *) filter would have to be shared;
 * -ENOMEM; or the error loading the event's format.  Takes effect at
 * tp_demand_apply().  Neither this nor unwant/release allocates after it
 * has changed anything.
 */
int tp_demand_want(struct tp_demand *d, unsigned slot, size_t event, const char *filter,
                   uint64_t since, char *err, size_t errlen);
/* Slot no longer wants event. */
void tp_demand_unwant(struct tp_demand *d, unsigned slot, size_t event);
/*
 * The slots that want stacks with their events, in place of those before;
 * the events of the slots that changed are applied again at the next
 * tp_demand_apply().  A slot keeps its bit through unwant and release:
 * its owner says when it no longer wants stacks.
 */
void tp_demand_stacks(struct tp_demand *d, tp_slotmask slots);
/* The slots that want stacks now. */
tp_slotmask tp_demand_stack_slots(const struct tp_demand *d);
/* Drop everything the slot wanted. */
void tp_demand_release(struct tp_demand *d, unsigned slot);

/*
 * Reconcile the kernel and the routes for every event whose wants changed.
 * On an event the kernel refuses (e.g. a filter it rejects), the callback
 * hears of each slot that wanted it; the event is then left disabled and its
 * wants are kept, so the caller can withdraw them and apply again.  Returns
 * 0 or the first error.
 */
typedef void (*tp_demand_error_fn)(void *arg, size_t event, unsigned slot, int err);
int tp_demand_apply(struct tp_demand *d, tp_demand_error_fn on_error, void *arg);

/* The first refusal an apply reported for one slot. */
struct tp_demand_refusal {
    unsigned slot;      /* the slot asked about */
    int err;            /* 0: none */
    size_t event;       /* the event refused, when err */
};
/* A tp_demand_error_fn whose arg is a struct tp_demand_refusal. */
void tp_demand_note_refusal(void *arg, size_t event, unsigned slot, int err);

/*
 * Apply every wanted or enabled event again: after tracefs was out of reach,
 * the writes that failed then (an event left on, one not turned on) are
 * made now.  Returns 0 or the first error.
 */
int tp_demand_resync(struct tp_demand *d);

/*
 * The event's catalog slot is about to name another kernel event (a probe
 * removed): whatever demand knew of the old one (enabled, its filter, its
 * route) is void, even if disabling it failed.  No slot may want it.
 */
void tp_demand_forget(struct tp_demand *d, size_t event);

/* A number that changes whenever the set of enabled events does. */
unsigned long tp_demand_generation(const struct tp_demand *d);
/* Is the event enabled in the kernel now? */
int tp_demand_enabled(const struct tp_demand *d, size_t event);
/* Number of enabled events. */
size_t tp_demand_count(const struct tp_demand *d);
/* Events enabled, in catalog order: fills up to max indices, returns count. */
size_t tp_demand_list(const struct tp_demand *d, uint32_t *out, size_t max);
/* The condition of the event's stacktrace trigger now (NULL: none). */
const char *tp_demand_stack_condition(const struct tp_demand *d, size_t event);
/* The filter the kernel applies to event now (NULL: none). */
const char *tp_demand_kernel_filter(const struct tp_demand *d, size_t event);

/*
 * The slots whose filters name comm on an event whose consumers' filters
 * differ, so that the producer must check comm itself: they need the tasks'
 * names at their events.  (Where every consumer has the same filter the
 * kernel applies it, comm and all, exactly.)  The wants of the slots in
 * ignore (the names slot's own) do not count.
 */
tp_slotmask tp_demand_comm_slots(const struct tp_demand *d, tp_slotmask ignore);
/* Does a consumer of the event filter on comm? */
bool tp_demand_comm_filtered(const struct tp_demand *d, size_t event);

#endif
