/*
 * probebench: what a dynamic probe costs the program it traces.  Calls
 * pb_target(i) N times, best of R runs, and prints "N best_ns_per_call".
 *
 *   tpbench_probe N [R]
 *
 * make bench runs it with no probe, then with a uprobe on pb_target's entry
 * and on its return (pcp tracepoint -u, through the PMDA), and reports the
 * difference per call: the price of one probe hit on the traced program.
 */
#include <stdio.h>
#include <stdlib.h>

#include "benchutil.h"

__attribute__((noinline)) long pb_target(long x)
{
    __asm__ volatile("" : : "r"(x) : "memory");
    return x + 1;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    double best = 0;
    long sum = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = clock_ns(CLOCK_MONOTONIC);
        for (long i = 0; i < n; i++)
            sum += pb_target(i);
        double ns = (clock_ns(CLOCK_MONOTONIC) - t0) / (double)n;
        if (r == 0 || ns < best)
            best = ns;
    }
    printf("%ld %.1f\n", n, best);
    return sum == 0;        /* keeps the calls */
}
