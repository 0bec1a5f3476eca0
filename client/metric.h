/*
 * metric: the metrics of the current PMCD context, by name -- a metric's
 * PMID and descriptor, a string metric's value, stores of strings, and the
 * reason the PMDA gives for the last store it refused.
 *
 * Called by session (the subscription), oneliner (-A) and list (-l);
 * PMAPI calls on the current context only, no state of its own.
 * Single-threaded, like the rest of the client.
 */
#ifndef CLIENT_METRIC_H
#define CLIENT_METRIC_H

#include <pcp/pmapi.h>

#define STATUS_METRIC       "tracepoint.control.status"

/* Name to PMID and descriptor in the current context. */
int lookup_metric(const char *name, pmID *pmid, pmDesc *desc);
/* One pmStore of n strings, texts[i] into pmids[i]: applied whole or not at all. */
int store_strings(int n, const pmID *pmids, const char *const *texts);
/* One string into one metric (PM_IN_NULL). */
int store_string(pmID pmid, const char *text);
/* The string value of a metric in the current context (caller frees), or NULL. */
char *fetch_string(const char *name);
/* The reason for the last refused store, from tracepoint.control.status (caller frees), or NULL. */
char *refusal_reason(void);

#endif
