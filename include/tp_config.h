/*
 * tp_config: the tracepoint.conf parser.  Pure: no I/O except
 * tp_config_load(), no knowledge of which events exist (the PMDA resolves
 * event patterns against the machine's catalog afterwards).
 *
 * Syntax, one directive per line, '#' starts a comment outside a filter:
 *
 *   ring_size SIZE          bytes of the event ring; suffix K, M or G (powers of 1024)
 *   backlog SECONDS         how far back a context's first fetch reaches
 *   kernel_buffer_kb KB     per-CPU size of the private instance's kernel buffer
 *   client_timeout SECONDS  a client context silent this long loses its subscriptions
 *   fetch_limit SIZE        bytes all event arrays may hold at once (K, M, G)
 *   fetch_records N         records one event array may hold (0: no cap but bytes and time)
 *   producer_nice N         the producer thread's nice value, -20..19 (default -10)
 *   allow_group GROUP...    groups (besides root) allowed to subscribe by pmStore
 *   stream NAME EVENTS [access=WHO] [filter EXPRESSION]
 *   count   NAME EVENTS [by FIELD[,FIELD...]] [OPTIONS] [filter EXPRESSION]
 *   sum     NAME EVENTS FIELD [by ...] [OPTIONS] [filter ...]
 *   hist    NAME EVENTS FIELD [by ...] [OPTIONS] [filter ...]
 *   latency NAME START_EVENTS END_EVENTS on START_FIELD=END_FIELD[,S2=E2] [by ...]
 *           [OPTIONS] [filter ...]
 *           OPTIONS: max_keys=N (1..65536, default 1024); for latency also
 *           max_pending=N (1..1048576, default 16384); backend=producer (never
 *           computed by the kernel's hist triggers, tp_kaggs.h)
 *
 * An aggregation's NAME is a PMNS component, [A-Za-z][A-Za-z0-9_]{0,62},
 * unique among aggregations; a FIELD is [A-Za-z_][A-Za-z0-9_]{0,63}.  At
 * most TP_CONFIG_MAX_BY by fields, each named once.  Whether the fields exist,
 * and have usable types, is the PMDA's to check against the events.
 * NAME is [A-Za-z0-9_.-]{1,63}.  EVENTS is a comma-separated list of
 * "system:event" patterns; each part is [A-Za-z0-9_*?]{1,..} (shell globs).
 * WHO is "all", "root" or "group:NAME[,NAME...]" (default: all).
 * EXPRESSION is the rest of the line, in the kernel's ftrace filter syntax; it
 * is kept verbatim (trimmed) and checked later, by the kernel.
 *
 * A malformed line is reported through the log callback with its line number
 * and reason, and skipped; every other line is still used.
 */
#ifndef TP_CONFIG_H
#define TP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TP_CONFIG_DEFAULT_RING_SIZE   (64u << 20)
#define TP_CONFIG_DEFAULT_BACKLOG     10
#define TP_CONFIG_DEFAULT_KERNEL_KB   1024
#define TP_CONFIG_DEFAULT_CLIENT_TIMEOUT 300
#define TP_CONFIG_DEFAULT_FETCH_LIMIT (64u << 20)
#define TP_CONFIG_DEFAULT_FETCH_RECORDS 0     /* no cap: 16 MiB and FETCH_TIME_NS bound an array */
#define TP_CONFIG_DEFAULT_PRODUCER_NICE (-10) /* ahead of busy nice-0 work: the kernel buffer waits for no one */
#define TP_CONFIG_MAX_LINE            4096
#define TP_CONFIG_MAX_NAME            63

enum tp_access_kind { TP_ACCESS_ALL, TP_ACCESS_ROOT, TP_ACCESS_GROUPS };

struct tp_access {
    enum tp_access_kind kind;
    char **groups;          /* for TP_ACCESS_GROUPS */
    size_t ngroups;
};

struct tp_config_stream {
    char *name;
    char **events;          /* patterns as written, e.g. "sched:sched_process_exec", "sched:*" */
    size_t nevents;
    char *filter;           /* NULL when none */
    struct tp_access access;
    unsigned with;          /* enum tp_with: what its records carry (params=) */
    int line;               /* where it was defined */
};

#define TP_CONFIG_MAX_BY              4
#define TP_CONFIG_DEFAULT_MAX_KEYS    1024
#define TP_CONFIG_DEFAULT_MAX_PENDING 16384

enum tp_config_agg_kind { TP_CONFIG_COUNT, TP_CONFIG_SUM, TP_CONFIG_HIST, TP_CONFIG_LATENCY };

struct tp_config_agg {
    char *name;
    enum tp_config_agg_kind kind;
    char **events;          /* patterns; latency: the start events */
    size_t nevents;
    char **ends;            /* latency: the end events' patterns */
    size_t nends;
    char *field;            /* sum, hist: the value; latency: the start's on field */
    char *end_field;        /* latency: the end's on field */
    char *field2;           /* latency: a second pair of on fields, or NULL */
    char *end_field2;
    char **by;              /* key fields, in order */
    size_t nby;
    char *filter;           /* NULL when none (latency: start and end events alike) */
    unsigned max_keys;
    unsigned max_pending;
    bool producer;          /* backend=producer: never in the kernel */
    char *text;             /* the directive as written, for help text */
    int line;
};

/*
 * probe NAME [access=WHO] SPEC, kprobe likewise: a dynamic probe living with
 * the PMDA.  Its arguments can read any process's memory, so its events are
 * root's unless access= says otherwise (WHO as for streams; default root).
 */
struct tp_config_probe {
    char *name;
    char *spec;             /* checked by tp_probespec_parse when read */
    bool kprobe;
    int line;
    struct tp_access access;    /* who may read probe:NAME's events */
};

struct tp_config {
    size_t ring_size;
    unsigned backlog;
    unsigned kernel_buffer_kb;
    unsigned client_timeout;
    size_t fetch_limit;
    unsigned fetch_records;
    int producer_nice;
    char **allow_groups;
    size_t nallow_groups;
    struct tp_config_stream *streams;
    size_t nstreams;
    struct tp_config_agg *aggs;
    size_t naggs;
    struct tp_config_probe *probes;
    size_t nprobes;
};

/* Called once per rejected line; line is 1-based. */
typedef void (*tp_config_log_fn)(void *arg, int line, const char *reason);

/* Fill cfg with defaults and no streams. */
void tp_config_init(struct tp_config *cfg);

/*
 * Parse text (len bytes, need not be NUL-terminated) into cfg, which must
 * have been initialised.  Returns the number of rejected lines (>= 0), or
 * -ENOMEM.
 */
int tp_config_parse(struct tp_config *cfg, const char *text, size_t len,
                    tp_config_log_fn log, void *arg);

/* Read and parse a file.  Returns as tp_config_parse, or -errno if unreadable. */
int tp_config_load(struct tp_config *cfg, const char *path,
                   tp_config_log_fn log, void *arg);

/* Frees what cfg holds (cfg itself is caller's); accepts NULL. */
void tp_config_free(struct tp_config *cfg);

/* Are two aggregations defined alike (name, kind, events, fields, options, filter)? */
bool tp_config_agg_same(const struct tp_config_agg *x, const struct tp_config_agg *y);

/* "sched:sched_process_exec" against "sched:*": fnmatch on each half. */
bool tp_pattern_match(const char *pattern, const char *system, const char *event);

#endif
