/*
 * tp_records: turn ring entries into PCP event records.
 *
 * Each event becomes one record with flags POINT, timestamped with the
 * event's own time as wall-clock time, whose parameters are, in order:
 * tracepoint.param.event, .cpu, .pid, .time_ns, then the event's own fields
 * typed from its format.  Missed counts become missed records.
 *
 * PMIDs: cluster TP_CLUSTER_COMMON holds the common parameters; the fields of
 * catalog event i are cluster TP_CLUSTER_FIELDS + i, item = field index.
 *
 * Threading: PMDA thread (calls libpcp_pmda), with the capture lock held
 * around tp_records_fill (it reads the ring).
 */
#ifndef TP_RECORDS_H
#define TP_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include <pcp/pmapi.h>

#include "tp_catalog.h"
#include "tp_ring.h"

#define TP_CLUSTER_METRICS  0
#define TP_CLUSTER_COMMON   1
#define TP_CLUSTER_FIELDS   16
#define TP_MAX_EVENTS       (4096 - TP_CLUSTER_FIELDS)   /* 12-bit cluster */
#define TP_MAX_FIELDS       1024                         /* 10-bit item */

enum tp_common_item { TP_PARAM_EVENT, TP_PARAM_CPU, TP_PARAM_PID, TP_PARAM_TIME_NS,
                      TP_NCOMMON };

struct tp_records;

int tp_records_create(struct tp_records **out, int domain);
void tp_records_destroy(struct tp_records *rec);

struct tp_fill_result {
    uint64_t records;   /* event records added */
    uint64_t missed;    /* events reported in missed records */
    size_t bytes;       /* estimated size of what was added */
};

/*
 * Append to the event array `handle` what the cursor has pending, adding to
 * res (zero it before the first call), until res->bytes reaches max_bytes,
 * or max_entries ring entries were taken in this call.  real_offset_ns
 * converts the trace clock (CLOCK_MONOTONIC) to CLOCK_REALTIME.  Returns 1
 * if it stopped at max_entries (call again: there may be more), 0 if done,
 * or a negative PCP error from libpcp_pmda.
 */
int tp_records_fill(struct tp_records *rec, int handle, struct tp_ring *ring,
                    struct tp_cursor *c, struct tp_catalog *cat,
                    int64_t real_offset_ns, size_t max_bytes, unsigned max_entries,
                    struct tp_fill_result *res);

/*
 * Append one missed record of count events (split if over INT_MAX), stamped
 * ts (trace clock); returns its estimated size or a negative PCP error.
 */
long tp_records_missed(int handle, uint64_t count, uint64_t ts, int64_t real_offset_ns);

/*
 * libpcp_pmda copies a string or aggregate parameter's bytes but leaves the
 * padding after it (to 4 bytes) as the buffer had it: stale bytes of earlier
 * records, perhaps another client's.  Zero it before the array is sent.
 */
void tp_records_zero_padding(int handle);

/* PMID of a field parameter, or PM_ID_NULL if out of range. */
pmID tp_field_pmid(int domain, size_t event, unsigned field);

#endif
