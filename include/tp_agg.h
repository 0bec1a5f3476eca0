/*
 * tp_agg: one aggregation of tracepoint.conf (count, sum, hist, latency):
 * counters keyed by field values, computed from every matching event as
 * the producer reads it, bounded.
 *
 *   count   NAME EVENTS [by FIELD,...]            events per key
 *   sum     NAME EVENTS FIELD [by ...]            the field's values added up per key
 *   hist    NAME EVENTS FIELD [by ...]            and their log2 histogram
 *   latency NAME START END on SFIELD=EFIELD[,SFIELD2=EFIELD2] [by ...]
 *           the time from a start event to the next end event whose EFIELD
 *           (and EFIELD2) equal the start's SFIELD (and SFIELD2): counted,
 *           added up and in a log2 histogram of ns, per key (the by fields
 *           are the start event's).  Events are fed in the order of their
 *           own times, across CPUs (the producer merges them, tp_merge):
 *           a start waits for the next end of its values; a newer start of
 *           the same values replaces it (bpftrace's map does the same); an
 *           end with no start waiting is no pair, and not counted anywhere
 *           (a task switched in without a wakeup is no error).
 *
 * A key is the values of the by fields: numbers in decimal (or as the
 * binding says: a syscall's name, "getpid", where the table has one; a
 * dev_t as "MAJ:MIN(name)", tp_valname.h), strings as
 * they are (up to TP_AGG_MAX_STRING bytes; space, ',', '=', '%' and bytes
 * outside printable ASCII as %XX), named "FIELD=VALUE[,FIELD=VALUE]";
 * without by there is one key, "".  At most max_keys keys: events of other
 * keys are counted under "other", and how many in overflow.  Latency keeps
 * at most max_pending starts waiting for their end (a start's key is made
 * when it is read); when the table is full the older half of them go.
 * Counted in dropped: those, events whose fields are not all there (a
 * truncated record), and events the kernel lost (tp_agg_lost: an upper
 * bound, the kernel does not say which).
 *
 * Every event is bound before the first one is fed: which of the event's
 * fields are the value (or the latency's "on" field) and the keys; a key
 * may also be the event's name, so that one aggregation of many events
 * tells them apart, or the command name of its pid at the event
 * (tp_agg_comm: the producer hands it to tp_agg_feed from its name
 * history, tp_comms), so that events without a comm field (syscalls) are
 * counted per command, or the event's kernel stack (tp_agg_stack: the
 * producer hands its frames to tp_agg_feed_stack), folded as flame graphs
 * take it (tp_ksyms_fold, with the symbols tp_agg_symbols gave): the key
 * "stack=entry_SYSCALL_64_after_hwframe;do_syscall_64;...;innermost", at
 * most TP_AGG_MAX_STACK bytes (a longer stack keeps its innermost frames
 * behind "...HASH;").  Two stacks that fold to the same text are one key.
 * An event without a stack is counted in dropped.
 *
 * Pure: no PCP library, no locking of its own (the capture lock guards it:
 * the producer feeds it, the PMDA thread reads it), no allocation after
 * tp_agg_create() but for tp_agg_bind().
 */
#ifndef TP_AGG_H
#define TP_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp_catalog.h"
#include "tp_comms.h"
#include "tp_ksyms.h"

#define TP_AGG_MAX_BY      4        /* by fields */
#define TP_AGG_MAX_STRING  64       /* bytes of a string key value */
#define TP_AGG_BUCKETS     66       /* <0, 0, then [2^(k-1), 2^k) for k = 1..64 */
#define TP_AGG_MAX_STACK   512      /* a folded stack in a key, NUL included */
#define TP_AGG_MAX_NAME    1040     /* a key's name, NUL included: 4 x (field=%XX...), or
                                       3 of them and a stack */

enum tp_agg_kind { TP_AGG_COUNT, TP_AGG_SUM, TP_AGG_HIST, TP_AGG_LATENCY };
enum tp_agg_role { TP_AGG_VALUE, TP_AGG_START, TP_AGG_END };

/* One key's numbers (its name: tp_agg_key_name()). */
struct tp_agg_key {
    uint64_t count;
    int64_t sum;                    /* wraps like a counter; signed for signed fields */
    uint64_t *hist;                 /* TP_AGG_BUCKETS, for hist and latency */
    uint64_t buckets[2];            /* bit b: hist[b] has counted something */
};

struct tp_agg;

/*
 * kind and the bounds (max_pending only matters for latency).  Returns 0,
 * -EINVAL or -ENOMEM.
 */
int tp_agg_create(struct tp_agg **out, enum tp_agg_kind kind, unsigned max_keys,
                  unsigned max_pending);
void tp_agg_destroy(struct tp_agg *a);

/* The key field "comm": the command name of the event's pid (see above). */
extern const struct tp_field tp_agg_comm;
/* The key field "stack": the event's kernel stack, folded (see above). */
extern const struct tp_field tp_agg_stack;
/* Does a binding key by stack (so the producer must give each event's)? */
bool tp_agg_wants_stack(const struct tp_agg *a);
/*
 * The symbols stacks are folded with (NULL: addresses), from then on;
 * the table must outlive the aggregation or the next call.  Lock held.
 */
void tp_agg_symbols(struct tp_agg *a, const struct tp_ksyms *k);

/*
 * What one catalog event is to the aggregation: its role, the summed or
 * histogrammed field (the latency's on field, and value2 a second one to
 * pair on, or NULL; NULL for count) and the key fields, whose names go into
 * the key names.  A by entry that is NULL stands for the event's own name,
 * keyed "event" (event_name must then be set and outlive the aggregation).  The fields must stay valid (a loaded
 * catalog event's).
 */
struct tp_agg_binding {
    uint32_t event;
    const char *event_name;
    enum tp_agg_role role;
    const struct tp_field *value;
    const struct tp_field *by[TP_AGG_MAX_BY];   /* &tp_agg_comm: the pid's name */
    unsigned nby;
    const struct tp_field *value2;
    /* How each numeric by field is named (tp_valname.h; zero: the number),
     * and where dev_t fields find their device's name (NULL: not looked up). */
    unsigned char show[TP_AGG_MAX_BY];
    const char *devdir;
};

/*
 * Add a binding.  Returns 0, -EINVAL (a value that is not a number, a key
 * field that is neither a number nor a string, too many by fields, a role
 * the kind has not) or -ENOMEM.
 */
int tp_agg_bind(struct tp_agg *a, const struct tp_agg_binding *b);

/*
 * One event of a bound catalog event: its raw bytes, trace-clock time and
 * its task's name at that time (for tp_agg_comm keys; NULL: unknown).
 */
void tp_agg_feed(struct tp_agg *a, uint32_t event, const void *data, uint32_t len,
                 uint64_t ts, const char *comm);
/* The same with the event's kernel stack: nframes addresses, innermost first (any alignment). */
void tp_agg_feed_stack(struct tp_agg *a, uint32_t event, const void *data, uint32_t len,
                       uint64_t ts, const char *comm, const void *frames, unsigned nframes);
/* One event as the producer has it: the name's length known (comm_len of comm). */
struct tp_agg_event {
    uint32_t event;
    const void *data;
    uint32_t len;
    uint64_t ts;
    const char *comm;               /* NULL: unknown */
    uint32_t comm_len;              /* strnlen(comm, TP_COMM_LEN - 1) */
    const void *frames;
    unsigned nframes;
};
void tp_agg_feed_event(struct tp_agg *a, const struct tp_agg_event *ev);
/* The kernel lost n events that may have been this aggregation's. */
void tp_agg_lost(struct tp_agg *a, uint64_t n);
/*
 * Counters computed elsewhere (the kernel's hist triggers, tp_kaggs), set
 * rather than fed, for count and sum.  tp_agg_clear() zeroes every key's
 * counters, overflow and dropped; the keys stay, in their order.
 * tp_agg_put() then adds count events adding up to sum to the key that the
 * by fields of a record of event make (data: a record holding at least
 * those fields), as that many fed events would, "other" when the keys are
 * all taken; dropped is added with tp_agg_lost().
 */
void tp_agg_clear(struct tp_agg *a);
void tp_agg_put(struct tp_agg *a, uint32_t event, const void *data, uint32_t len,
                uint64_t count, int64_t sum);
/* The same for a key by comm as well: comm is the name (NULL: unknown). */
void tp_agg_put_comm(struct tp_agg *a, uint32_t event, const void *data, uint32_t len,
                     const char *comm, uint64_t count, int64_t sum);

/* Reading (the same lock held): the keys seen so far, in the order first seen. */
size_t tp_agg_nkeys(const struct tp_agg *a);
const struct tp_agg_key *tp_agg_key(const struct tp_agg *a, size_t i);
/*
 * Key i's name into buf: "FIELD=VALUE,..." ("" without by fields, "other"
 * for the keys beyond max_keys), cut to len bytes (TP_AGG_MAX_NAME holds
 * any).
 */
void tp_agg_key_name(const struct tp_agg *a, size_t i, char *buf, size_t len);
enum tp_agg_kind tp_agg_kind(const struct tp_agg *a);
/* Are the sums of signed values (read them as int64_t, else as uint64_t)? */
bool tp_agg_signed(const struct tp_agg *a);
/* Events not counted (see above), and events counted under "other". */
uint64_t tp_agg_dropped(const struct tp_agg *a);
uint64_t tp_agg_overflow(const struct tp_agg *a);
/* Histogram buckets, of all keys, that have counted something (it only grows). */
uint64_t tp_agg_nbuckets(const struct tp_agg *a);
/* Latency: starts waiting for their end now. */
size_t tp_agg_pending(const struct tp_agg *a);

/*
 * The name of histogram bucket b: "<0", "0-0", "1-1", "2-3", "4-7", ... (each
 * a range, whose upper end Grafana's heatmaps take as the bucket's bound).
 */
void tp_agg_bucket_name(unsigned b, char *buf, size_t len);
/* The bucket of a value (signed: negative values go to bucket 0). */
unsigned tp_agg_bucket(int64_t v, bool is_signed);

#endif
