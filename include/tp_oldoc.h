/*
 * tp_oldoc: the text of a one-liner's values, as a fetch of
 * tracepoint.control.agg returns them (the format: tp_oneliners.h; the
 * client reads it with client/olres.c).
 *
 * Pure: no PCP library, no locking of its own (the caller holds the
 * capture lock while it reads the tp_agg, and may let it go between the
 * parts of tp_oldoc_put_head/_keys), writes to the FILE it is given.
 * Called by tp_oneliners, and by the unit tests (test/test_oldoc.c).
 */
#ifndef TP_OLDOC_H
#define TP_OLDOC_H

#include <stdio.h>

#include "tp_agg.h"

#define TP_OLDOC_HEAD "tracepoint-oneliners 1\n"

/*
 * "until NS": every event recorded before this wall-clock time (ns since
 * the epoch) is counted in the one-liners that follow; written right after
 * TP_OLDOC_HEAD, read before them.
 */
void tp_oldoc_put_until(FILE *f, uint64_t until_ns);
/* One one-liner: its "agg" line, then its keys and their non-zero buckets. */
void tp_oldoc_put(FILE *f, unsigned id, const struct tp_agg *agg, const char *directive);
/*
 * The same in parts, so the caller may let the lock go in between: the
 * "agg" line (it returns the number of keys it announces), then keys
 * [from, to) of those.  Keys are only ever added after the others, so the
 * keys announced stay where they are.
 */
size_t tp_oldoc_put_head(FILE *f, unsigned id, const struct tp_agg *agg, const char *directive);
void tp_oldoc_put_keys(FILE *f, const struct tp_agg *agg, size_t from, size_t to);

#endif
