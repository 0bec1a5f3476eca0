/*
 * tp_khist: the text of the kernel's hist triggers, both ways.  Owns the
 * trigger command an aggregation pushed into the kernel sets on one event
 * ("hist:keys=fd,id:vals=hitcount,count:size=2048 if FILTER") and the
 * parsing of the event's hist file that the kernel then keeps:
 *
 *   { fd:          7, id:          1 } hitcount:          3  count:        300
 *   ...
 *   Totals:
 *       Hits: 6
 *       Entries: 3
 *       Dropped: 0
 *
 * Keys handled are plain numeric fields (printed as unsigned 64-bit decimal;
 * a negative signed field shows as its two's complement, 18446744073709551614
 * for -2); a key shown any other way (".log2" "~ 2^k", strings, symbols) is
 * refused.  Values are hitcount and at most one summed field.
 *
 * The kernel's map holds size entries: a power of two from 128 (the
 * smallest map) to 131072 (2^17, the largest on 6.1); a key beyond that is
 * counted in Dropped.
 *
 * Pure: no PCP library, no threads, no I/O; any thread.  Used by tp_kaggs
 * (the kernel backend of aggregations) on the PMDA thread.
 */
#ifndef TP_KHIST_H
#define TP_KHIST_H

#include <stddef.h>
#include <stdint.h>

#define TP_KHIST_MAX_KEYS   4           /* numeric keys of one trigger */
#define TP_KHIST_MIN_SIZE   128u
#define TP_KHIST_MAX_SIZE   131072u

/* The map size for an aggregation that keeps max_keys keys; 0 if none is large enough. */
unsigned tp_khist_size(unsigned max_keys);

/*
 * The trigger command into buf: keys (nkeys of them, 1..TP_KHIST_MAX_KEYS),
 * the summed field (NULL: hitcount only), the map size and the condition
 * (NULL or blank: every event; blanks around it are left out, as the kernel
 * leaves them out of what it shows).  With remove, the same text behind '!', which
 * removes it.  Returns its length, or -ENAMETOOLONG (it does not fit) or
 * -EINVAL (no key, too many).
 */
int tp_khist_trigger(char *buf, size_t len, const char *const *keys, unsigned nkeys,
                     const char *value, unsigned size, const char *filter, int remove);

/* One line of a hist file: a key's values, in the trigger's key order, and its numbers. */
struct tp_khist_entry {
    uint64_t key[TP_KHIST_MAX_KEYS];
    unsigned nkeys;
    uint64_t hits;
    uint64_t sum;                       /* the summed field's value; 0 with hitcount only */
};

/* The Totals of a hist file (zero where a line is absent). */
struct tp_khist_totals {
    uint64_t hits, entries, dropped;
};

typedef int (*tp_khist_entry_fn)(void *arg, const struct tp_khist_entry *e);

/*
 * Parse the section of a hist file's text that the trigger (the text
 * tp_khist_trigger() made, without '!') keeps: an event with several hist
 * triggers has one section each, behind "# trigger info: " and the
 * trigger as the kernel shows it (":sort=hitcount" added, " [active]"
 * behind).  fn(arg, entry) for each key line, in the file's order (a
 * negative return stops the parse and is returned), the totals into *tot.
 * Expects nkeys keys per line and, with a summed field, one value after
 * hitcount.  Returns the number of entries, -ENOENT (no such section) or
 * -EINVAL (a line that is not as above: a key shown otherwise, a missing
 * number).
 */
int tp_khist_parse(const char *text, const char *trigger, unsigned nkeys, int with_sum,
                   tp_khist_entry_fn fn, void *arg, struct tp_khist_totals *tot);

#endif
