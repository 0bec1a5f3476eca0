/*
 * tp_kaggs: the kernel backend of config aggregations.  Owns the hist
 * triggers that compute one aggregation in the kernel (one per event, in
 * the PMDA's instance, the directive's filter as the trigger's condition),
 * and turns what their hist files say into the aggregation's tp_agg, so
 * that metrics, instance names and ids are those the producer would give.
 * Matching events then never reach the ring: the kernel counts them
 * whatever the machine's load, and what its map could not hold (Dropped)
 * is counted in the aggregation's dropped.
 *
 * Exactly what a hist trigger can compute, and nothing else, goes there
 * (tp_kaggs_suits, then tp_kagg_create's checks per event): count and sum
 * on a kernel with hist triggers, keyed by plain numeric fields of the
 * event (or its name: "event"), summing a numeric field, with a filter the
 * kernel evaluates itself (none on comm, which the producer takes from its
 * name history at the event).  Not: by comm (the kernel's .execname is the
 * name when the hist is read), by stack, hist (the kernel's .log2 buckets
 * a value v as ceil(log2 v), 3 and 4 alike, not [2^k, 2^(k+1)) as
 * tp_agg_bucket), latency (pairs in event-time order), string keys (the
 * kernel pads them with blanks), dynamic probes, more keys than
 * TP_KHIST_MAX_SIZE, one-liners.  The rest stays with the producer.
 *
 * Threading: PMDA thread (tracefs writes and reads; no PCP calls); the
 * tp_agg is written under the capture lock.
 */
#ifndef TP_KAGGS_H
#define TP_KAGGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp_agg.h"
#include "tp_capture.h"
#include "tp_catalog.h"
#include "tp_config.h"
#include "tp_tracefs.h"
#include "tp_util.h"

struct tp_kagg;

/*
 * May def be computed in the kernel (features: tp_features_detect's mask)?
 * If not, why into why (one phrase, "it is keyed by comm").
 */
bool tp_kaggs_suits(const struct tp_config_agg *def, unsigned features, char *why, size_t len);

/*
 * Set def's hist triggers on the catalog events (loaded, bound in the
 * aggregation already) in inst.  Returns 0, or a negative errno with why
 * (an event whose fields or filter a trigger cannot take: -EOPNOTSUPP; the
 * kernel refused a trigger: its error), and then no trigger of it is left.
 */
int tp_kagg_create(struct tp_kagg **out, struct tp_instance *inst, struct tp_catalog *cat,
                   const struct tp_config_agg *def, const uint32_t *events, size_t nevents,
                   char *why, size_t len);
/* Remove the triggers (an instance already gone is no error) and free; accepts NULL. */
void tp_kagg_destroy(struct tp_kagg *k);

/*
 * Read the hist files and set a's counters from them (tp_agg_clear,
 * tp_agg_put), the capture lock taken for that.  Returns 0, or a negative
 * errno, and then a keeps what it had (it never goes back).
 */
int tp_kagg_read(struct tp_kagg *k, struct tp_agg *a, struct tp_capture *cap);

#endif
