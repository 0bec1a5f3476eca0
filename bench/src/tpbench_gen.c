/*
 * tpbench_gen: the benchmark's event generator.
 *
 *   tpbench_gen CPU N [RATE]
 *
 * Pins itself to CPU, names itself "tpbench_gen" (the comm the benchmark's
 * filters match) and calls getpid() N times through syscall(2), flat out or,
 * with RATE > 0, paced to RATE calls per second.  Prints "N ELAPSED_NS".
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: tpbench_gen CPU N [RATE]\n");
        return 2;
    }
    int cpu = atoi(argv[1]);
    long n = atol(argv[2]);
    double rate = argc > 3 ? atof(argv[3]) : 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) < 0) {
        perror("sched_setaffinity");
        return 1;
    }
    prctl(PR_SET_NAME, "tpbench_gen", 0, 0, 0);
    long long t0 = mono_ns();
    if (rate <= 0) {
        for (long i = 0; i < n; i++)
            syscall(SYS_getpid);
    } else {
        /* Check the schedule every `step` calls (about every 50 us). */
        long step = (long)(rate / 20000);
        if (step < 1)
            step = 1;
        for (long i = 0; i < n; i += step) {
            long k = n - i < step ? n - i : step;
            for (long j = 0; j < k; j++)
                syscall(SYS_getpid);
            long long due = t0 + (long long)((i + k) * 1e9 / rate);
            long long now = mono_ns();
            if (due > now) {
                struct timespec ts = { due / 1000000000LL, due % 1000000000LL };
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
            }
        }
    }
    long long t1 = mono_ns();
    printf("%ld %lld\n", n, t1 - t0);
    return 0;
}
