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
 *   pass, the time it takes that CPU to write target_bytes more
 *   (TP_PACE_TARGET_BYTES, a quarter of the default 1 MiB buffer, where
 *   the watermark is), kept between TP_PACE_MIN_NS and max_ns
 *   (TP_PACE_MAX_NS); the watermark wakes it early when a burst fills a
 *   buffer faster than that.  Nobody waits for these reads: a fetch has the
 *   producer read what is there first (tp_capture_catch_up), so a slow
 *   stream costs a few wakeups a second, a fast one a few hundred, each
 *   finding mostly full sub-buffers.  Passes that find nothing double the
 *   timeout, up to max_ns; after TP_PACE_QUIET_NS without events it is
 *   quiet again;
 * - busy (a pass left a CPU not drained: its share of the pass was read, or
 *   the stage had no room): read again at once.
 * Without a watermark (a kernel without buffer_percent: nothing wakes the
 * producer early) tp_pace_no_watermark() keeps each pass to
 * TP_PACE_NOWM_BYTES, within TP_PACE_NOWM_NS.
 * Reading a sub-buffer at a time, and not chasing the writer, keeps the
 * cost per event low (see PCP-NOTES: per-event wakeups are ruinous in a VM;
 * in one each wakeup costs 10-20 us of CPU, here up to 60).
 *
 * Pure: no I/O, no clock of its own (the caller passes now).
 */
#ifndef TP_PACE_H
#define TP_PACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TP_PACE_PERCENT  25                     /* watermark while active */
#define TP_PACE_TARGET_BYTES (256 * 1024)       /* a pass's worth from the busiest CPU */
#define TP_PACE_MIN_NS   (1 * 1000 * 1000L)     /* the shortest timeout while active */
#define TP_PACE_MAX_NS   (1000 * 1000 * 1000L)  /* the longest */
#define TP_PACE_QUIET_NS (100 * 1000 * 1000L)   /* no events this long: quiet */
#define TP_PACE_NOWM_BYTES (64 * 1024)          /* the same without a watermark */
#define TP_PACE_NOWM_NS  (20 * 1000 * 1000L)    /* (a 1 MiB buffer outlasts it) */
#define TP_PACE_FRESH_NS (20 * 1000 * 1000L)    /* a fetch's catch-up: unless a pass
                                                   ended less than this ago */

enum tp_pass { TP_PASS_QUIET, TP_PASS_SOME, TP_PASS_BUSY };

struct tp_pace {
    bool active;
    long timeout_ns;            /* of the next wait: -1 none, 0 read at once */
    int percent;                /* watermark of the next wait */
    uint64_t last_events;       /* when a pass last found events */
    uint64_t last_pass;         /* when the previous pass ended (0: none yet) */
    size_t target_bytes;        /* a pass's worth */
    long max_ns;                /* the longest timeout while active */
};

/* A pace that starts quiet. */
void tp_pace_init(struct tp_pace *p);
/* Nothing wakes the producer early: shorter passes (NOWM_BYTES, NOWM_NS). */
void tp_pace_no_watermark(struct tp_pace *p);
/*
 * A pass over the CPUs found this, at time now, the busiest CPU giving
 * bytes of events: sets the next wait.
 */
void tp_pace_after(struct tp_pace *p, enum tp_pass pass, size_t bytes, uint64_t now);

#endif
