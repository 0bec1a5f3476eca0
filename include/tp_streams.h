/*
 * tp_streams: the named streams of tracepoint.conf, resolved against the
 * machine's tracepoints.  Each owns a ring slot and is an instance of
 * tracepoint.stream.records, its id made from its name.
 *
 * A pattern that matches no tracepoint, an event whose format cannot be
 * parsed, or an event another stream already uses with a different filter
 * is logged with the config line and the reason, and left out; the rest of
 * the stream, and every other stream, is still served.  A stream left with
 * no events is dropped.
 *
 * Threading: PMDA thread.
 */
#ifndef TP_STREAMS_H
#define TP_STREAMS_H

#include <stddef.h>
#include <stdint.h>

#include "tp_catalog.h"
#include "tp_config.h"
#include "tp_demand.h"
#include "tp_util.h"

struct tp_stream {
    char *name;
    int inst;                   /* instance id: from the name, stable across restarts */
    unsigned slot;
    int line;
    struct tp_access access;    /* borrowed from the config */
    unsigned with;              /* enum tp_with: what its records carry */
    uint32_t *events;           /* catalog indices */
    size_t nevents;
};

struct tp_streams {
    struct tp_stream *v;
    size_t n;
};


/*
 * Resolve cfg's streams, register their wants with demand (the caller then
 * runs tp_demand_apply).  Returns the number of streams kept, or -ENOMEM.
 */
int tp_streams_build(struct tp_streams *s, const struct tp_config *cfg,
                     struct tp_catalog *cat, struct tp_demand *demand,
                     tp_log_fn log, void *arg);
/* What a new config changed, in ring slots. */
struct tp_streams_change {
    tp_slotmask *used;          /* in: slots in use (streams and clients); out: updated */
    tp_slotmask restart;        /* out: slots of changed and new streams: start afresh */
    tp_slotmask freed;          /* out: slots of streams gone */
};

/*
 * Bring the streams in line with cfg, which replaces old (the config they
 * were built from).  A stream whose definition (events, filter, access) is
 * unchanged keeps its slot, and so every client's position in it; a changed
 * one keeps its instance id and slot but starts afresh; a removed one frees
 * its slot; a new one takes a free one.  Changed and new streams take the
 * events recorded from `since` on.  The wants go to demand; the caller then
 * applies, prunes, resets the slots in ch->restart and forgets every
 * client's position in ch->restart and ch->freed.  Returns 0 or -ENOMEM;
 * then a stream that could not be built is not served (its wants and slot
 * let go, in ch->freed), and the unchanged ones are carried over all the same.
 */
int tp_streams_update(struct tp_streams *s, const struct tp_config *old,
                      const struct tp_config *cfg, struct tp_catalog *cat,
                      struct tp_demand *demand, uint64_t since, struct tp_streams_change *ch,
                      tp_log_fn log, void *arg);

/* The stream whose instance id is inst, or -1. */
int tp_streams_find_inst(const struct tp_streams *s, int inst);
/* A stream lost an event after apply (the kernel refused it). */
void tp_streams_drop_event(struct tp_streams *s, unsigned slot, uint32_t event);
/*
 * Drop (and log) streams left with no events; the rest keep their slots.
 * Returns the slots the dropped streams held (they want nothing of demand).
 */
tp_slotmask tp_streams_prune(struct tp_streams *s, tp_log_fn log, void *arg);
void tp_streams_free(struct tp_streams *s);

#endif
