/*
 * tp_kcount: the kernel's own event counters, a backend of config
 * aggregations beside the hist triggers (tp_kaggs.h).  A `count` whose keys
 * the kernel need not compute is one perf tracepoint counter per event and
 * online CPU (perf_event_open in counting mode: no ring, no map, no
 * sample), with the directive's filter set on it (PERF_EVENT_IOC_SET_FILTER:
 * ftrace's filter language, which the kernel evaluates at the event, comm
 * included).  The traced task increments it; the kernel never drops a
 * count, so the aggregation is exact however busy the machine is, and it
 * costs the traced task less than a hist trigger or a ring record does.
 *
 * What it computes (tp_kcount_suits, then tp_kcount_create's checks per
 * event): `count` with no by fields, by `event` (each event its own
 * counters), or by `comm` when the filter pins one name (`comm ==
 * "NAME"` true on every way to a match, tp_filter_pinned_comm): every
 * event counted then has that name at the event.  Not: sum, hist,
 * latency, any other key, a key that is a field of the event (its own
 * `comm` or `event`), dynamic probes (a counter would keep its probe from
 * being removed), more than TP_KCOUNT_MAX counters or more than would
 * take the process past half its open-file limit, more CPUs online than
 * TP_KCOUNT_MAX, backend=producer.  Config aggregations and one-liners
 * alike (tp_aggs).  As perf's own counters do, a counter on a module's
 * tracepoint keeps the module loaded while it counts.
 *
 * Counters are opened on the CPUs online then.  Each read checks that
 * every counter counted all the time it was enabled, that none fell more
 * than a second behind the clock since its last read (the kernel turns a
 * CPU's counters off, for good, when it goes offline), and, after reading
 * them, that the CPUs online are those it opened them on (a CPU come since
 * has none).  If not, that read and every later one fail, and the
 * aggregation keeps what the last good read gave (exact up to then, but
 * for the events of a CPU that went offline and came back within a
 * second of that read), which the caller logs.

 * A pure room: no PCP library, no threads, no tracefs; system calls only.
 * Threading: PMDA thread.  tp_kcount_put writes the tp_agg, which the
 * caller guards (the capture lock).
 */
#ifndef TP_KCOUNT_H
#define TP_KCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp_agg.h"
#include "tp_catalog.h"
#include "tp_config.h"

#define TP_KCOUNT_MAX 512               /* counters (events x CPUs): file descriptors */

struct tp_kcount;

/* May def be computed by counters?  If not, why into why (one phrase). */
bool tp_kcount_suits(const struct tp_config_agg *def, char *why, size_t len);

/*
 * CPU numbers of a kernel CPU list ("0-3,8,10-11", as in
 * /sys/devices/system/cpu/online) into cpus (at most max).  Returns how
 * many, or -EINVAL (not a list) or -E2BIG (more than max).
 */
int tp_kcount_cpus(const char *list, int *cpus, int max);

/*
 * Open and enable def's counters on the catalog events (loaded, bound in
 * the aggregation already), on every online CPU.  Returns 0, or a negative
 * errno with why (-EOPNOTSUPP: an event or filter counters cannot take;
 * the kernel's refusal: its error), and then nothing of it is left.
 */
int tp_kcount_create(struct tp_kcount **out, struct tp_catalog *cat,
                     const struct tp_config_agg *def, const uint32_t *events, size_t nevents,
                     char *why, size_t len);
/* Close the counters and free; accepts NULL. */
void tp_kcount_destroy(struct tp_kcount *k);

/*
 * Read every counter.  Returns 0, or a negative errno (-EIO: the checks
 * above failed, now or before: it stopped), and then the last read stands.
 */
int tp_kcount_read(struct tp_kcount *k);
/* The last read into a (tp_agg_clear, tp_agg_put_comm), under the caller's lock. */
void tp_kcount_put(const struct tp_kcount *k, struct tp_agg *a);

#endif
