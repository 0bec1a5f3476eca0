/*
 * tp_pace: when the producer reads the kernel's buffers next.
 *
 * The producer sleeps in poll(2) on the per-CPU trace_pipe_raw files, which
 * wake it when a CPU's buffer holds buffer_percent of its size (0: when it
 * holds anything).  After each pass over the CPUs the pace says how long to
 * sleep and with which watermark:
 * - quiet (nothing read for a while): watermark 0 and no timeout, so an idle
 *   machine costs no wakeups and the first event of a burst wakes it at once;
 * - active (events read lately): watermark TP_PACE_PERCENT and a timeout
 *   that follows the data: from the busiest CPU's bytes since the previous
 *   pass, the time it takes that CPU to write TP_PACE_TARGET_BYTES more, so
 *   that each pass finds mostly full sub-buffers, kept between
 *   TP_PACE_MIN_NS and TP_PACE_MAX_NS (the latency bound while events
 *   flow); the watermark wakes it early when a burst fills a buffer faster
 *   than that.  Passes that find nothing double the timeout, up to
 *   TP_PACE_MAX_NS; after TP_PACE_QUIET_NS without events it is quiet again;
 * - busy (a pass left a CPU not drained: its share of the pass was read, or
 *   the stage had no room): read again at once.
 * Reading a sub-buffer at a time, and not chasing the writer, keeps the
 * cost per event low (see PCP-NOTES: per-event wakeups are ruinous in a VM;
 * in one each wakeup costs 10-20 us of CPU).
 *
 * Pure: no I/O, no clock of its own (the caller passes now).
 */
#ifndef TP_PACE_H
#define TP_PACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TP_PACE_PERCENT  25                     /* watermark while active */
#define TP_PACE_TARGET_BYTES (64 * 1024)        /* a pass's worth from the busiest CPU */
#define TP_PACE_MIN_NS   (1 * 1000 * 1000L)     /* the shortest timeout while active */
#define TP_PACE_MAX_NS   (20 * 1000 * 1000L)    /* the longest: a 1 MiB buffer outlasts it */
#define TP_PACE_QUIET_NS (100 * 1000 * 1000L)   /* no events this long: quiet */

enum tp_pass { TP_PASS_QUIET, TP_PASS_SOME, TP_PASS_BUSY };

struct tp_pace {
    bool active;
    long timeout_ns;            /* of the next wait: -1 none, 0 read at once */
    int percent;                /* watermark of the next wait */
    uint64_t last_events;       /* when a pass last found events */
    uint64_t last_pass;         /* when the previous pass ended (0: none yet) */
};

/* A pace that starts quiet. */
void tp_pace_init(struct tp_pace *p);
/*
 * A pass over the CPUs found this, at time now, the busiest CPU giving
 * bytes of events: sets the next wait.
 */
void tp_pace_after(struct tp_pace *p, enum tp_pass pass, size_t bytes, uint64_t now);

#endif
