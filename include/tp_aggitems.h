/*
 * The metrics of an aggregation, tracepoint.agg.NAME.<item name>, by their
 * PMID item.  Shared by the aggregations (which items one has) and the
 * namespace.  Pure; any thread.
 */
#ifndef TP_AGGITEMS_H
#define TP_AGGITEMS_H

#include <stddef.h>

enum tp_agg_item {
    TP_AGG_ITEM_COUNT, TP_AGG_ITEM_SUM, TP_AGG_ITEM_HIST, TP_AGG_ITEM_DROPPED,
    TP_AGG_ITEM_OVERFLOW, TP_AGG_ITEM_PENDING, TP_AGG_ITEM_BACKEND, TP_AGG_NITEMS
};

/* "count", "sum", "hist", "dropped", "overflow", "pending", "backend", or NULL. */
static inline const char *tp_agg_item_name(unsigned item)
{
    static const char *const names[TP_AGG_NITEMS] = {
        [TP_AGG_ITEM_COUNT] = "count", [TP_AGG_ITEM_SUM] = "sum",
        [TP_AGG_ITEM_HIST] = "hist", [TP_AGG_ITEM_DROPPED] = "dropped",
        [TP_AGG_ITEM_OVERFLOW] = "overflow", [TP_AGG_ITEM_PENDING] = "pending",
        [TP_AGG_ITEM_BACKEND] = "backend",
    };
    return item < TP_AGG_NITEMS ? names[item] : NULL;
}

#endif
