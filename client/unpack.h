/*
 * unpack: the records of one PM_TYPE_EVENT array viewed in place, as
 * libpcp's pmUnpackEventRecords would hand them out (the same value sets:
 * event.flags first when a record has flags, event.missed with the count
 * of a missed record, then one set per parameter), without allocating per
 * record: the value sets live in this room's arena, reused from array to
 * array, and a string, aggregate or 64-bit value points at its bytes in
 * the array itself (a parameter's type/length word is laid out as a
 * pmValueBlock's).  What unpack_events hands out is valid until the next
 * call or unpack_free, and only while the array it came from lives.
 *
 * Called by the fetch loop for every event array value, on its one
 * thread.  Pure: no PCP library call (only the types of <pcp/pmapi.h>);
 * the pmIDs of event.flags and event.missed are given by the caller.
 */
#ifndef CLIENT_UNPACK_H
#define CLIENT_UNPACK_H

#include <stddef.h>

#include <pcp/pmapi.h>

#include "record.h"

struct unpacker {
    pmID flags_pmid, missed_pmid;   /* libpcp's anonymous event.flags, event.missed */
    pmValueSet *sets;               /* one value (numval 1) each */
    pmValueSet **ptrs;              /* every record's vset, one after another */
    struct record *recs;
    size_t nsets, nrecs;            /* capacity */
};

/* An empty unpacker holding no memory. */
void unpack_init(struct unpacker *u, pmID flags_pmid, pmID missed_pmid);
/* Free the arena; the unpacker is empty again.  Accepts NULL. */
void unpack_free(struct unpacker *u);
/*
 * The records of value j of vs (a PM_TYPE_EVENT array) in *out, in array
 * order (index = place, key = stamp_ns): their count (0: none, *out
 * untouched), or PM_ERR_CONV (not a pointer value), PM_ERR_TYPE,
 * PM_ERR_TOOSMALL or PM_ERR_TOOBIG (a malformed array, checked whole
 * before anything is handed out), -ENOMEM.
 */
int unpack_events(struct unpacker *u, const pmValueSet *vs, int j, struct record **out);

#endif
