/*
 * olres: the results of this client's one-liners (-A), as the PMDA's
 * tracepoint.control.agg document gives them (see the PMDA's
 * include/tp_oneliners.h for the format), and the difference of two
 * readings: what one --every interval counted.
 *
 * The PMDA's values are cumulative from each one-liner's store, and each
 * one-liner is read whole under one lock, so the difference of two
 * successive readings is exactly what was counted in between: the
 * intervals add up to the total, with nothing lost or counted twice.
 *
 * Pure: no PCP, no state.  Called by oneliner (the live side) and olprint,
 * and by the unit tests (test/test_client_olres.c).
 */
#ifndef CLIENT_OLRES_H
#define CLIENT_OLRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OL_BUCKETS 66               /* <0, 0, then [2^(k-1), 2^k) for k = 1..64 */

enum ol_kind { OL_COUNT, OL_SUM, OL_HIST, OL_LATENCY };

struct ol_key {
    char *name;                     /* "FIELD=VALUE,..."; "" without by fields */
    uint64_t count;
    uint64_t sum;                   /* an int64_t's bits when the aggregation is signed */
    uint64_t hist[OL_BUCKETS];
};

struct ol_agg {
    unsigned id;
    enum ol_kind kind;
    bool is_signed;
    uint64_t dropped, overflow, pending;
    char *directive;
    struct ol_key *keys;
    size_t nkeys;
    size_t cap;                     /* keys allocated (grown by doubling) */
};

struct ol_doc {
    struct ol_agg *v;
    size_t n;
    uint64_t until;                 /* every event before this wall-clock ns is counted
                                       (0: the PMDA does not say) */
};

/* Decode a document into doc (freed by ol_doc_free).  0, or -1 if malformed. */
int ol_doc_parse(const char *text, struct ol_doc *doc);
void ol_doc_free(struct ol_doc *doc);

/*
 * now minus before, one-liner by id and key by name, into out: the keys
 * that counted something in between (pending: now's, a level, not a
 * count).  A one-liner or key not in before counts from zero.  A key is
 * looked for at its own place in before first (the PMDA appends keys in
 * its order), else by name in a hash index: linear in the keys.  0 or -1
 * (no memory).
 */
int ol_doc_diff(const struct ol_doc *now, const struct ol_doc *before, struct ol_doc *out);

#endif
