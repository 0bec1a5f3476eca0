/*
 * tp_clock: from the trace clock (CLOCK_MONOTONIC, the instance's "mono"
 * clock) to wall-clock time, with the offset that held when each event was
 * read, not when it is fetched.
 *
 * The producer notes CLOCK_REALTIME - CLOCK_MONOTONIC each time it reads a
 * sub-buffer.  While the offset stays within TP_CLOCK_SLACK_NS of the
 * current epoch's, nothing changes; a larger difference (a clock step, a
 * resume, NTP's slewing adding up) starts a new epoch.  Ring entries carry
 * their epoch's 16-bit id, so an event keeps one wall-clock time for every
 * client, whenever it is fetched and whatever the clock did meanwhile.
 *
 * The last TP_CLOCK_EPOCHS epochs are kept.  An entry older than that many
 * epochs (it would have to sit unread through over a thousand clock steps)
 * is timed with a newer epoch's offset.
 *
 * Pure: no locking of its own (the capture lock guards the one the producer
 * writes), no PCP library.
 */
#ifndef TP_CLOCK_H
#define TP_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TP_CLOCK_EPOCHS   1024
#define TP_CLOCK_SLACK_NS 200000        /* 200 us */

struct tp_clock {
    int64_t offset[TP_CLOCK_EPOCHS];    /* by epoch id modulo TP_CLOCK_EPOCHS */
    uint16_t id;                        /* the current epoch */
};

/*
 * One reading of the offset: CLOCK_REALTIME read between two readings of
 * CLOCK_MONOTONIC.  Its error is at most half the bracket's width, and a
 * reader preempted between the readings (a vCPU the host descheduled for
 * milliseconds) makes a wide one.  A reader takes up to TP_CLOCK_SAMPLES,
 * stopping at the first no wider than TP_CLOCK_TIGHT_NS.
 */
struct tp_clock_sample {
    uint64_t mono_before, real, mono_after;
};
#define TP_CLOCK_SAMPLES  5
#define TP_CLOCK_TIGHT_NS 20000         /* 20 us: 10 us of error at most */

/* REALTIME - MONOTONIC by the narrowest of n (>= 1) samples. */
int64_t tp_clock_sample_offset(const struct tp_clock_sample *s, size_t n);

/* The first epoch, id 0, with this offset. */
void tp_clock_init(struct tp_clock *c, int64_t offset);
/* The offset now: returns the epoch id events read now belong to. */
uint16_t tp_clock_note(struct tp_clock *c, int64_t offset);
/* The current epoch's id. */
static inline uint16_t tp_clock_current(const struct tp_clock *c) { return c->id; }
/* The offset of an epoch. */
static inline int64_t tp_clock_offset(const struct tp_clock *c, uint16_t id)
{
    return c->offset[id % TP_CLOCK_EPOCHS];
}
/* A trace-clock time in an epoch, as wall-clock ns since the epoch. */
static inline uint64_t tp_clock_wall(const struct tp_clock *c, uint16_t id, uint64_t ts)
{
    return ts + (uint64_t)tp_clock_offset(c, id);
}

#endif
