/*
 * aggbench: the producer's cost of one event fed to one aggregation
 * (src/agg.c), without the kernel, the ring or the decoder around it.
 *
 *   aggbench [EVENTS] [KEYS]
 *
 * Records laid out as syscalls:sys_exit_getpid's (common fields, then
 * __syscall_nr and ret) are fed, EVENTS of them, to each of:
 *   count    count by common_pid, KEYS distinct pids (default 64)
 *   hist     hist of ret by common_pid
 *   latency  latency from an enter to an exit event on common_pid, the
 *            records alternating enter and exit
 * Prints, per aggregation, the best of 5 runs:
 *   NAME NS_PER_EVENT
 * and then "rss_kb_per_key COUNT HIST": the memory one more key takes in a
 * count and in a hist with max_keys = 65536, measured as VmRSS growth.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchutil.h"

#include "tp_agg.h"

static const struct tp_field f_pid = { "common_pid", "int common_pid", 4, 4, TP_FIELD_INT, 0 };
static const struct tp_field f_nr = { "__syscall_nr", "int __syscall_nr", 8, 4, TP_FIELD_INT, 0 };
static const struct tp_field f_ret = { "ret", "long ret", 16, 8, TP_FIELD_INT, 0 };

static void record(unsigned char *r, int pid, long ret)
{
    memset(r, 0, 24);
    memcpy(r + 4, &pid, 4);
    memcpy(r + 16, &ret, 8);
}

static struct tp_agg *make(enum tp_agg_kind kind, unsigned max_keys)
{
    struct tp_agg *a;
    const struct tp_field *by[] = { &f_pid };
    if (tp_agg_create(&a, kind, max_keys, 16384) < 0)
        exit(1);
    struct tp_agg_binding b = { .event = 0, .event_name = "syscalls:sys_exit_getpid",
                                .role = TP_AGG_VALUE, .value = kind == TP_AGG_HIST ? &f_ret
                                : NULL, .by = { by[0] }, .nby = 1 };
    if (kind == TP_AGG_LATENCY) {
        struct tp_agg_binding s = { .event = 1, .event_name = "syscalls:sys_enter_getpid",
                                    .role = TP_AGG_START, .value = &f_pid, .by = { by[0] },
                                    .nby = 1 };
        b.role = TP_AGG_END;
        b.value = &f_pid;
        b.nby = 0;
        if (tp_agg_bind(a, &s) < 0)
            exit(1);
    }
    if (tp_agg_bind(a, &b) < 0)
        exit(1);
    (void)f_nr;
    return a;
}

static double run(enum tp_agg_kind kind, long n, int keys)
{
    unsigned char rec[24];
    struct tp_agg *a = make(kind, 1024);
    double t0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    for (long i = 0; i < n; i++) {
        record(rec, 1000 + (int)(i / 2 % keys), 4242 + (i & 255));
        uint32_t ev = kind == TP_AGG_LATENCY ? (uint32_t)!(i & 1) : 0;   /* enter, exit, ... */
        tp_agg_feed(a, ev, rec, sizeof(rec), (uint64_t)i * 100, NULL);
    }
    double ns = (clock_ns(CLOCK_PROCESS_CPUTIME_ID) - t0) / (double)n;
    tp_agg_destroy(a);
    return ns;
}

static double per_key_kb(enum tp_agg_kind kind)
{
    unsigned char rec[24];
    long before = rss_kb();
    struct tp_agg *a = make(kind, 65536);
    for (int k = 0; k < 65536; k++) {
        record(rec, k, k);
        tp_agg_feed(a, 0, rec, sizeof(rec), 1, NULL);
    }
    double kb = (double)(rss_kb() - before) / 65536;
    tp_agg_destroy(a);
    return kb;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 5000000;
    int keys = argc > 2 ? atoi(argv[2]) : 64;
    static const struct { const char *name; enum tp_agg_kind kind; } kinds[] = {
        { "count", TP_AGG_COUNT }, { "hist", TP_AGG_HIST }, { "latency", TP_AGG_LATENCY },
    };
    for (size_t k = 0; k < 3; k++) {
        double best = 1e9;
        for (int r = 0; r < 5; r++) {
            double ns = run(kinds[k].kind, n, keys);
            best = ns < best ? ns : best;
        }
        printf("%s %.1f\n", kinds[k].name, best);
    }
    double c = per_key_kb(TP_AGG_COUNT), h = per_key_kb(TP_AGG_HIST);
    printf("rss_kb_per_key %.3f %.3f\n", c, h);
    return 0;
}
