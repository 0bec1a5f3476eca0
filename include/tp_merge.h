/*
 * tp_merge: events of several CPUs into one stream in the order of their
 * own times.  Each CPU's buffer is in time order; across CPUs it is not,
 * and the producer reads one CPU after another.  Whoever consumes events in
 * time order (latency pairs, the names of tasks at each event) needs them
 * merged, and merged only up to a watermark: the time up to which every
 * CPU has been read, so that no event older than what is handed on can
 * still turn up.
 *
 * The merge hands on runs: the longest stretch of one source whose events
 * are all older than (or as old as) the next event of every other source
 * and no newer than the watermark.  Equal times go to the lower source
 * first.  Finding a run looks at every source, so a run costs in proportion
 * to the number of sources: cheap when CPUs are bursty (long runs) or few,
 * dear with many CPUs whose events interleave finely (runs of one).  A run
 * is cut at the caller's max, and no event past it is looked at: a long run
 * taken in batches costs its length once, not its length per batch.
 *
 * Pure: no allocation, no locking, no I/O; any thread.
 */
#ifndef TP_MERGE_H
#define TP_MERGE_H

#include <stddef.h>
#include <stdint.h>

/* One source: its events' times (ascending), and how many are handed on. */
struct tp_merge_src {
    const uint64_t *ts;     /* stride: bytes from one time to the next */
    size_t stride;
    size_t n, pos;
};

/*
 * The next run at or below watermark, at most max long: its source in *src
 * and its length (0: nothing left at or below the watermark, or max 0).
 * The caller hands the events on and adds the length to that source's pos.
 */
size_t tp_merge_run(const struct tp_merge_src *s, size_t nsrc, uint64_t watermark,
                    size_t max, size_t *src);

#endif
