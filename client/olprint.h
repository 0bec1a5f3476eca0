/*
 * olprint: one-liner results as people read them, and as bpftrace prints
 * its maps.
 *
 *   DIRECTIVE:                 a heading per one-liner (latency: " (ns)" before ':')
 *   KEY VALUE                  count and sum: one line per key, sorted by
 *                              value, largest last (ties: by key); without
 *                              by fields the value alone
 *   KEY:                       hist and latency: per key (none without by
 *   [16, 32)    1234 |@@@ |    fields), bpftrace's log2 table: the lowest to
 *                              the highest bucket that counted something,
 *                              labels (..., 0) [0] [1] [2, 4) ... [1K, 2K)
 *                              with K M G T P E, the count in 8 columns,
 *                              a bar of 52; keys sorted by count
 *   dropped N / pending N      when not zero
 *   (a blank line ends each one-liner)
 *
 * JSON (-j): one object per one-liner per interval, on one line:
 *   {"agg":DIRECTIVE,"kind":"count","dropped":N,"overflow":N,"pending":N,
 *    "data":{"KEY":VALUE,...}}        count and sum
 *    "data":{"KEY":[{"min":0,"max":0,"count":3},{"min":16,"max":31,...}]}
 *                                     hist and latency (negative: {"max":-1,...})
 *
 * Pure: no PCP, no state; writes to the FILE it is given.  Called by
 * oneliner, and by the unit tests (test/test_client_olres.c).
 */
#ifndef CLIENT_OLPRINT_H
#define CLIENT_OLPRINT_H

#include <stdint.h>
#include <stdio.h>

#include "olres.h"

/* Bucket b's label into buf (at least 32 bytes): "(..., 0)", "[0]", "[2, 4)", "[1K, 2K)". */
void ol_bucket_label(unsigned b, char *buf, size_t len);
/* The log2 table of one histogram. */
void ol_print_hist(FILE *f, const uint64_t hist[OL_BUCKETS]);
/* One one-liner as text, or as a JSON line.  0, or -1 (no memory). */
int ol_print_text(FILE *f, const struct ol_agg *a);
int ol_print_json(FILE *f, const struct ol_agg *a);

#endif
