/*
 * The target of the dynamic-probe tests: calls tp_probe_target(int, long,
 * const char *) N times with known arguments, and tp_lib_target(long) of
 * libtpprobe.so N times, then exits.
 *
 *   tpprobe N [WAIT_FILE]
 *
 * Call i (0-based) passes a = i - 1, b = 1000000000000 + i, s = "call-<i>";
 * tp_probe_target returns a * 2, tp_lib_target(x) returns x + 7 for
 * x = 100 + i.  With WAIT_FILE, it first waits (up to 20 s) for that file
 * to exist, so a test can set a probe up after the program has started.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

long tp_lib_target(long x);

__attribute__((noinline)) int tp_probe_target(int a, long b, const char *s)
{
    __asm__ volatile("" : : "r"(b), "r"(s) : "memory");
    return a * 2;
}

static void wait_for(const char *path)
{
    struct timespec ms = { 0, 10 * 1000 * 1000 };
    for (int i = 0; i < 2000 && access(path, F_OK) != 0; i++)
        nanosleep(&ms, NULL);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    long n = strtol(argv[1], NULL, 10);
    if (argc > 2)
        wait_for(argv[2]);
    long sum = 0;
    for (long i = 0; i < n; i++) {
        char s[32];
        snprintf(s, sizeof(s), "call-%ld", i);
        sum += tp_probe_target((int)i - 1, 1000000000000L + i, s);
        sum += tp_lib_target(100 + i);
    }
    printf("%ld\n", sum);
    return 0;
}
