/*
 * tp_demand: kernel enablement follows demand.  Each slot (a stream, or a
 * client's subscription set) says which events it wants and with which
 * filter; tp_demand_apply() makes the instance and the producer's routing
 * agree: an event is enabled while some slot wants it, with the kernel
 * filter that is correct for all of them, and disabled when none does.
 *
 * Filters: when every slot that wants an event uses the same filter, the
 * kernel applies it.  Slots that want one event with different filters need
 * per-slot matching in user space, which this module refuses (-EBUSY) rather
 * than deliver events a slot's filter excludes.
 *
 * Threading: PMDA thread.  Takes the capture lock to change routes.
 */
#ifndef TP_DEMAND_H
#define TP_DEMAND_H

#include <stddef.h>
#include <stdint.h>

#include "tp_capture.h"
#include "tp_catalog.h"
#include "tp_tracefs.h"

struct tp_demand;

int tp_demand_create(struct tp_demand **out, struct tp_catalog *cat,
                     struct tp_instance *inst, struct tp_capture *cap);
/* Disables every event it enabled; accepts NULL. */
void tp_demand_destroy(struct tp_demand *d);

/*
 * Slot wants event (catalog index) with filter (NULL: all of them).
 * -EBUSY: another slot wants the event with a different filter;
 * -ENOENT: no such event; or the error loading its format.
 * Takes effect at the next tp_demand_apply().
 */
int tp_demand_want(struct tp_demand *d, unsigned slot, size_t event, const char *filter);
/* Drop everything the slot wanted. */
void tp_demand_release(struct tp_demand *d, unsigned slot);

/*
 * Reconcile the kernel and the routes.  Returns 0, or the first error; on
 * an event the kernel refuses (e.g. a bad filter), that event's wants are
 * dropped and the error reported through the callback.
 */
typedef void (*tp_demand_error_fn)(void *arg, size_t event, unsigned slot, int err);
int tp_demand_apply(struct tp_demand *d, tp_demand_error_fn on_error, void *arg);

/* Is the event enabled in the kernel now? */
int tp_demand_enabled(const struct tp_demand *d, size_t event);
/* Number of enabled events. */
size_t tp_demand_count(const struct tp_demand *d);
/* Events enabled, in catalog order: fills up to max indices, returns count. */
size_t tp_demand_list(const struct tp_demand *d, uint32_t *out, size_t max);

#endif
