/*
 * oneliner: this client's one-liners (-A DIRECTIVE), computed by the PMDA
 * for this context alone: each directive is stored into
 * tracepoint.control.agg at the start; each reading fetches the same
 * metric (this context's document, olres) and prints what was counted
 * since the last one printed (olprint): every --every interval, and once
 * more when the run ends.  The PMDA drops them when the context ends, so a
 * client killed leaves nothing behind; a clean end removes them first.
 * Every reading must still hold the ids the first one gave, with an
 * `until` that does not go back: else the PMDA restarted or dropped this
 * context, which is said, nothing more is printed, and the run ends (gone).
 *
 * Called by main (start, finish) and by the fetch loop (each interval).
 * Single-threaded; its state is the tracer's ol member.
 */
#ifndef CLIENT_ONELINER_H
#define CLIENT_ONELINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pcp/pmapi.h>

#include "olres.h"

#define AGG_METRIC "tracepoint.control.agg"
#define OL_MAX_ARGS 8               /* the PMDA's bound per context */

struct ol_live {
    pmID metric;                    /* tracepoint.control.agg */
    size_t stored;                  /* -A directives stored */
    unsigned ids[OL_MAX_ARGS];      /* the PMDA's ids of them, as first read */
    size_t nids;
    uint64_t until;                 /* the latest reading's (0: none yet) */
    bool gone;                      /* a reading lacked them: the run ends, exit 2 */
    struct ol_doc last;             /* the values printed up to */
};

struct tracer;

/* Store every -A directive: 0, or -1 after a message (none stays stored). */
int oneliners_start(struct tracer *t);
/*
 * Print what was counted since the last reading: 0, or -1 after a message
 * (with ol.gone set when the one-liners are gone).
 */
int oneliners_print(struct tracer *t);
/* The last reading, then remove them: 0, or -1 after a message. */
int oneliners_finish(struct tracer *t);
void oneliners_free(struct ol_live *ol);

#endif
