/*
 * options: the command line of pcp-tracepoint -- PCP's standard options
 * through pmGetOptions, the tracing options, the EVENT patterns -- checked
 * for combinations that make no sense.
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

#define MAX_LONGOPTS        24

struct settings {
    pmOptions opts;             /* first member: option_override() casts back */
    pmLongOptions longopts[MAX_LONGOPTS];
    char *const *argv;
    bool help;                  /* -? or --help */
    const char *filter;         /* -f */
    const char *stream;         /* -n */
    bool json;                  /* -j */
    bool summary;               /* -c */
    bool quiet;                 /* -q */
    char **patterns;            /* the EVENT arguments, split at commas */
    size_t npatterns;
    long long interval_ns;
};

/* Fill s from the command line.  Returns -1 to go on, else the exit status. */
int parse_args(struct settings *s, int argc, char **argv);
void settings_free(struct settings *s);

#endif
