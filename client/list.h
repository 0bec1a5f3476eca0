/*
 * list: discovery from the PMDA's catalog, on the local or a remote pmcd.
 *   -l [GLOB...]  the tracepoints ("system:event") matching any GLOB,
 *                 sorted, one a line: those with fields under
 *                 tracepoint.param (one PMNS traversal) and those enabled
 *                 now (the instances of tracepoint.count);
 *   -F EVENT      the event's own fields (the children of
 *                 tracepoint.param.SYSTEM.EVENT), in record order:
 *                 FIELD  TYPE  OFFSET  SIZE  DECLARATION
 *                 with the PCP type from the metric's descriptor and the
 *                 rest from its help text.
 *
 * Called by main instead of tracing, with a context already open.  Prints
 * to stdout; returns the exit status (EXIT_RUNTIME after a message when
 * nothing matches or the event is unknown).
 */
#ifndef CLIENT_LIST_H
#define CLIENT_LIST_H

#include "session.h"

int list_tracepoints(struct tracer *t);
int list_fields(struct tracer *t, const char *event);

#endif
