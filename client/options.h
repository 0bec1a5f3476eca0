/*
 * options: the command line of pcp-tracepoint -- PCP's standard options
 * through pmGetOptions, the tracing options, the EVENT patterns -- checked
 * for combinations that make no sense.
 *
 * The modes: trace (the default), -l (list tracepoints), -F (list an
 * event's fields).  Tracing prints each event's text (the default), its raw
 * fields (-R), JSON (-j) or nothing (-q); settings_params() says what the
 * records of a live subscription must carry for that.  For a live subscription, -p, -C and --comm are composed
 * with -f into the one kernel filter sent (select_filter).
 *
 * Called once by main (parse_args, settings_free).  Every other room reads
 * the settings it produces and never changes them.  Prints usage messages;
 * touches no PMCD context.
 */
#ifndef CLIENT_OPTIONS_H
#define CLIENT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include <pcp/pmapi.h>

#include "probe.h"
#include "select.h"

#define MAX_LONGOPTS        48

struct settings {
    pmOptions opts;             /* first member: option_override() casts back */
    pmLongOptions longopts[MAX_LONGOPTS];
    char *const *argv;
    bool help;                  /* -? or --help */
    char bad_value[256];        /* why a value of -p, -C or --comm is refused */
    bool list;                  /* -l: list tracepoints matching the patterns */
    const char *fields;         /* -F EVENT: list its fields */
    const char *filter;         /* -f */
    struct selection sel;       /* -p, -C, --comm */
    char kernel_filter[2048];   /* live: -p, -C, --comm and -f composed */
    const char *stream;         /* -n */
    const char *probes[PROBE_MAX_SPECS];    /* -u SPEC, as given */
    size_t nprobes;
    bool raw;                   /* -R: field=value, not the event's text */
    bool json;                  /* -j */
    bool summary;               /* -c */
    bool quiet;                 /* -q */
    char **patterns;            /* the EVENT (-l: GLOB) arguments, split at commas */
    size_t npatterns;
    long long interval_ns;
    const char *aggs[8];        /* -A DIRECTIVE, as given (OL_MAX_ARGS) */
    size_t naggs;
    long long every_ns;         /* --every SECONDS: print the one-liners each interval */
};

/*
 * What the records of our own subscription should carry, as stored into
 * tracepoint.control.params: "comm,text" for the default line, "fields,comm"
 * for -R and -j, "none" when no line is printed (-q).
 */
const char *settings_params(const struct settings *s);

/* Fill s from the command line.  Returns -1 to go on, else the exit status. */
int parse_args(struct settings *s, int argc, char **argv);
void settings_free(struct settings *s);

#endif
