/*
 * tp_control: per-client subscriptions through pmStore.
 *
 * A client context registers tracepoints, sets filters and unregisters by
 * storing strings into the control metrics; its subscribed events reach it
 * through tracepoint.records.  All of a context's subscriptions share one
 * ring slot, allocated at its first registration and released when it has
 * none left or the context ends.
 *
 *   register    "sys:event[,sys:event ...]"    patterns: shell globs; commas or spaces
 *   filter      "PATTERN EXPRESSION"           ftrace filter syntax; empty: no filter
 *   unregister  "PATTERN[,PATTERN ...]" or "*"
 *   records     "PATTERN[,...] [EXPRESSION]"   register, then filter, in one step
 *   params      "fields,comm,text" or "none"   what the context's records carry
 *   probe       "NAME SPEC"                    define probe:NAME (root only): a uprobe
 *                                              if SPEC starts with '/', else a kprobe
 *
 * A probe a context defines is the context's: it is removed from the kernel
 * when the context unregisters its event or ends, at most
 * TP_CTL_MAX_PROBES per context.  Definitions in a store are made before
 * its subscriptions, so one store can define a probe and subscribe to it;
 * if any part of the store fails, the probes it defined are removed.
 *
 * A probe's arguments can read any process's memory (ustring), so probe
 * events are root's: an allowed group's member can subscribe to one (or
 * read a stream serving one) only if its config line grants it access=.
 * A pattern skips the probes the context may not read; one that names
 * only such probes is refused with PM_ERR_PERMISSION.
 *
 * Every store is all or nothing: input is checked completely (syntax, names
 * against the machine's tracepoints, filters against the events' fields,
 * limits) before anything changes, and a kernel refusal rolls the context
 * back to what it had.  Errors are PCP codes; the reason goes to the
 * context's last_error (shown by tracepoint.control.status).
 *
 * Limits, per context: TP_CTL_MAX_TEXT bytes per stored string,
 * TP_CTL_MAX_SUBS subscribed events, TP_CTL_MAX_FILTER_BYTES of filter text.
 * At most TP_RING_MAX_SLOTS slots exist, streams included.
 *
 * Threading: PMDA thread.
 */
#ifndef TP_CONTROL_H
#define TP_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

#include "tp_agent.h"
#include "tp_clients.h"
#include "tp_config.h"

#define TP_CTL_MAX_TEXT          4096
#define TP_CTL_MAX_SUBS          1024
#define TP_CTL_MAX_FILTER_BYTES  (64 * 1024)
#define TP_CTL_MAX_PATTERNS      64
#define TP_CTL_MAX_PROBES        8

enum tp_ctl_op { TP_CTL_REGISTER, TP_CTL_FILTER, TP_CTL_UNREGISTER, TP_CTL_RECORDS,
                 TP_CTL_PARAMS, TP_CTL_PROBE };

/* ---- parsing (pure) ------------------------------------------------------ */

struct tp_ctl_request {
    enum tp_ctl_op op;
    char *patterns[TP_CTL_MAX_PATTERNS];    /* "sys:event" globs, or "*" for unregister */
    size_t npatterns;
    char *filter;                           /* FILTER/RECORDS: NULL or "" clears */
    unsigned with;                          /* PARAMS: enum tp_with */
    char *probe;                            /* PROBE: the name */
    char *spec;                             /* PROBE: the spec (tp_probespec) */
};

/*
 * Parse the text of a store (len bytes, as received; a trailing NUL is
 * allowed).  Returns 0, or PM_ERR_TOOBIG / PM_ERR_BADSTORE with the reason.
 */
int tp_ctl_parse(enum tp_ctl_op op, const char *text, size_t len,
                 struct tp_ctl_request *req, char *err, size_t errlen);
void tp_ctl_request_free(struct tp_ctl_request *req);

/* ---- operations on the agent -------------------------------------------- */

/*
 * Carry out parsed requests for client c, in order, all or nothing: one
 * store may carry several values.  Returns 0 or a PCP error; the reason is
 * in c->last_error (cleared on success).  New subscriptions, and changed
 * filters, apply to the events recorded from now on.
 */
int tp_control_apply(struct tp_agent *a, struct tp_client *c, const struct tp_ctl_request *reqs,
                     size_t nreqs);

/* The context is gone: release its slot, its subscriptions and its probes. */
void tp_control_release(struct tp_agent *a, struct tp_client *c);

/*
 * Hand the probe definitions control's part of removing a probe: when a
 * probe's event goes, every context subscribed to it lets go, and its
 * status says why.  Once, after tp_agent_open and before the first store.
 */
void tp_control_attach(struct tp_agent *a);

/* Text for tracepoint.control.status. */
void tp_control_status(const struct tp_agent *a, const struct tp_client *c,
                       char *buf, size_t len);

/* Total subscriptions (context, event) in force. */
size_t tp_control_count(const struct tp_agent *a);

#endif
