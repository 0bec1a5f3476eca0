/*
 * tally: how many events of each kind the client handled, and how many
 * were lost, for -c; and the summary printed from it at the end.
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
    char *event;
    uint64_t n;
    struct counter *next;
};

struct tally {
    struct counter *bucket[TALLY_BUCKETS];
    size_t kinds;               /* distinct events */
    uint64_t events;
    uint64_t lost;
};

/* Count one event of this name; -1 without memory. */
int tally_event(struct tally *t, const char *event);
/* The summary on stdout, text or JSON; -1 (after a message) without memory. */
int tally_print(const struct tally *t, bool json);
void tally_free(struct tally *t);

#endif
