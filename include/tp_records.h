/*
 * tp_records: what goes in the PCP event record of each ring entry.
 *
 * Each event becomes one record with flags POINT, timestamped with the
 * event's own time as wall-clock time (the offset of the clock epoch it was
 * read in), whose parameters are, in order: tracepoint.param.event, .cpu,
 * .pid, .time_ns, then what its consumer asked for (tp_with): the event's
 * own fields typed from its format (the default), the command name of the
 * pid (.comm, tp_comms), the event's text as trace-cmd prints it (.text,
 * tp_render) and its kernel stack (.stack, where the ring entry has one:
 * one frame a line, innermost first, each as the kernel prints %pS,
 * "func+0x1a" or "func+0x1a [ext4]", "0x..." where no symbol holds it; the
 * symbols are tp_render's).
 * Missed counts become missed records.  How the bytes look is tp_encode's.
 *
 * PMIDs: cluster TP_CLUSTER_COMMON holds the common parameters; the fields of
 * an event are in the cluster its identity gives it (TP_CLUSTER_FIELDS and
 * up), one item per field.
 *
 * Threading: PMDA thread, with the capture lock held around tp_records_fill
 * (it reads the ring, the clock epochs and the names).  No PCP library call.
 */
#ifndef TP_RECORDS_H
#define TP_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include <pcp/pmapi.h>

#include "tp_catalog.h"
#include "tp_comms.h"
#include "tp_clock.h"
#include "tp_encode.h"
#include "tp_render.h"
#include "tp_ring.h"
#include "tp_with.h"

#define TP_CLUSTER_METRICS  0
#define TP_CLUSTER_COMMON   1
#define TP_CLUSTER_FIELDS   16          /* + the event's id (tp_identity) */

enum tp_common_item { TP_PARAM_EVENT, TP_PARAM_CPU, TP_PARAM_PID, TP_PARAM_TIME_NS,
                      TP_PARAM_COMM, TP_PARAM_TEXT, TP_PARAM_STACK, TP_NCOMMON };

#define TP_STACK_MAX_TEXT 8192      /* a stack's text is cut, at a whole frame, to this */



/* The PMIDs of an event's fields, by field index. */
struct tp_field_ids {
    const pmID *pmid;       /* nfields of them */
    unsigned nfields;
};

/* Where the records' parameters are: the common ones, and each event's fields. */
struct tp_param_ids {
    pmID common[TP_NCOMMON];
    /* The field PMIDs of catalog event `event`, or NULL (no fields sent). */
    const struct tp_field_ids *(*fields)(void *arg, uint32_t event);
    void *arg;
};

/* Where records come from, for one fill (lock held). */
struct tp_fill_src {
    const struct tp_param_ids *ids;
    struct tp_ring *ring;
    struct tp_catalog *cat;
    const struct tp_clock *clock;
    struct tp_render *render;       /* may be NULL with no TP_WITH_TEXT (stacks then show
                                       addresses) */
    unsigned with;                  /* enum tp_with */
};

/* What one fill added. */
struct tp_fill_result {
    uint64_t records;   /* event records added */
    uint64_t missed;    /* events reported in missed records */
};

enum tp_fill_status {
    TP_FILL_DONE,       /* the cursor has nothing more now */
    TP_FILL_MORE,       /* the scan budget is spent: release the lock, call again */
    TP_FILL_FULL,       /* the array reached max_bytes: the rest waits for the next fetch */
};

/*
 * Append to the array what the cursor has pending, until the cursor is at
 * the end, the array holds max_bytes (at most TP_ENC_MAX_BYTES) or
 * max_records records, or *budget ring entries were examined.  An entry that does not fit is left
 * for the next fill.  Returns a tp_fill_status, or -ENOMEM (the array then
 * holds whole records only, and res counts what was taken into them).
 */
int tp_records_fill(const struct tp_fill_src *src, struct tp_enc *enc, struct tp_cursor *c,
                    size_t max_bytes, unsigned max_records, unsigned *budget,
                    struct tp_fill_result *res);



/*
 * Append missed records for count events (one per INT_MAX), stamped with
 * wall-clock time wall_ns.  Returns 0, -E2BIG or -ENOMEM (nothing added).
 */
int tp_records_missed(struct tp_enc *enc, uint64_t count, uint64_t wall_ns);

#endif
