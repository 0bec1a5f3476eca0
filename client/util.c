/* util.c: errors and clocks for every room of the client (client/util.h). */
#include "util.h"

#include <stdarg.h>
#include <stdio.h>

#include <pcp/pmapi.h>

void errmsg(const char *fmt, ...)
{
    va_list ap;

    fflush(stdout);
    fprintf(stderr, "%s: ", pmGetProgname());
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

struct timespec mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts;
}

long long mono_ns(struct timespec ts)
{
    return (long long)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

uint64_t wall_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}
