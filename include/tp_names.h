/*
 * tp_names: the dynamic namespaces under tracepoint.param and
 * tracepoint.agg, and the descriptors and help text of the parameter
 * metrics.
 *
 *   tracepoint.param.{event,cpu,pid,time_ns}        common parameters
 *   tracepoint.param.<system>.<event>.<field>       one per field of every tracepoint
 *   tracepoint.agg.<name>.<item>                    the metrics of each aggregation
 *
 * Systems and events come from the catalog's listing; an event's fields are
 * parsed only when a name beneath it is asked for (through the load hook,
 * which also registers the event's metrics with the PMDA).  Which PMID a
 * field has is not this room's to decide: the hooks ask the identity map.
 *
 * Threading: PMDA thread.  Returned name lists follow libpcp_pmda's
 * conventions (one malloc'd block for names; status array malloc'd apart).
 */
#ifndef TP_NAMES_H
#define TP_NAMES_H

#include <stddef.h>

#include <pcp/pmapi.h>

#include "tp_catalog.h"

#define TP_PARAM_PREFIX "tracepoint.param"
#define TP_AGG_PREFIX   "tracepoint.agg"

struct tp_names {
    struct tp_catalog *cat;
    int domain;
    /* Make the event's fields ready (format, identity, metrics): 0 or < 0. */
    int (*load)(void *arg, size_t event);
    /* The PMID of field i of a loaded event, or PM_ID_NULL. */
    pmID (*field_pmid)(void *arg, size_t event, unsigned field);
    /* The catalog event whose fields a PMID's cluster holds, or -1. */
    int (*event_of)(void *arg, pmID pmid);
    /* The field of a loaded event that a PMID's item names, or -1. */
    int (*field_of)(void *arg, size_t event, pmID pmid);
    /*
     * Aggregation i (0, 1, ... until NULL): its name, the PMID cluster of its
     * metrics and which items it has (bit i: item i, tp_agg_item_name()).
     */
    const char *(*agg)(void *arg, size_t i, unsigned *cluster, unsigned *items);
    void *arg;
};

int tp_names_pmid(const struct tp_names *n, const char *name, pmID *pmid);
int tp_names_name(const struct tp_names *n, pmID pmid, char ***nameset);
int tp_names_children(const struct tp_names *n, const char *name, int traverse,
                      char ***kids, int **sts);

/* The type of common parameter item (enum tp_common_item). */
int tp_names_common_type(unsigned item);
/* Descriptor of a parameter metric (common or field).  0 or PM_ERR_PMID. */
int tp_names_desc(const struct tp_names *n, pmID pmid, pmDesc *desc);
/* Help text (PM_TEXT_ONELINE or PM_TEXT_HELP) into buf.  0 or PM_ERR_TEXT/PM_ERR_PMID. */
int tp_names_text(const struct tp_names *n, pmID pmid, int type, char *buf, size_t len);

#endif
