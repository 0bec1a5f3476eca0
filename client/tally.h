/*
 * tally: how many events of each kind the client handled, and how many
 * were lost, for -c; from an archive, also how many matched while it was
 * logging but never reached it (the last tracepoint.stream.pending of each
 * stream); and the summary printed from it at the end.
 *
 * Called by the fetch loop for every event and lost record it handles, and
 * once at the end by main.  No PCP context; prints to stdout only in
 * tally_print.
 */
#ifndef CLIENT_TALLY_H
#define CLIENT_TALLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TALLY_BUCKETS 256

struct counter {
    char *event;                /* NUL-terminated */
    size_t len;
    uint64_t n;
    struct counter *next;
};

#define TALLY_STREAMS 64        /* instances of tracepoint.stream.pending followed */

/* An archive's last value of tracepoint.stream.pending for one stream. */
struct unarchived {
    int inst;
    uint64_t n;
};

struct tally {
    struct counter *bucket[TALLY_BUCKETS];
    struct counter *last;       /* the last event counted: the next is likely the same */
    size_t kinds;               /* distinct events */
    uint64_t events;
    uint64_t lost;
    bool archive;               /* the summary of an archive: say what it lacks */
    bool pending_logged;        /* the archive logs tracepoint.stream.pending */
    bool reached_end;           /* read to its end: its last values are at the stop */
    size_t nstreams;
    struct unarchived unarchived[TALLY_STREAMS];
};

/* Count one event of this name (len bytes, no NUL needed); -1 without memory. */
int tally_event(struct tally *t, const char *event, size_t len);
/*
 * An archive's value of tracepoint.stream.pending for stream inst: the
 * events that matched but this logger had not received at that sample.
 * The last one of each stream is what was never archived.
 */
void tally_pending(struct tally *t, int inst, uint64_t n);
/* What was never archived, all streams together. */
uint64_t tally_not_archived(const struct tally *t);
/* The summary on stdout, text or JSON; -1 (after a message) without memory. */
int tally_print(const struct tally *t, bool json);
void tally_free(struct tally *t);

#endif
