/*
 * benchutil: the clock and memory readings the micro-benchmarks share.
 * Header-only; each bench program is a single file.
 */
#ifndef BENCHUTIL_H
#define BENCHUTIL_H

#include <stdio.h>
#include <time.h>

/* A clock (CLOCK_PROCESS_CPUTIME_ID, CLOCK_MONOTONIC...) in ns. */
static inline double clock_ns(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* This process's VmRSS in kB, 0 if unknown. */
static inline long rss_kb(void)
{
    char line[256];
    long kb = 0;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "VmRSS: %ld", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

#endif
