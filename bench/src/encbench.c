/*
 * encbench: the cost of writing one event record, this PMDA's encoder
 * against libpcp_pmda's pmdaEvent* functions, side by side in one process.
 *
 *   encbench [RECORDS]
 *
 * Each side writes RECORDS syscalls:sys_enter_getpid records (event name,
 * cpu, pid, time_ns, __syscall_nr), array after array of 65,536, as the
 * PMDA would, and the best of 5 runs is printed as
 *   ours NS libpcp_pmda NS bytes B
 * (ns of CPU per record; bytes per record in the array).
 */
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "getpidshape.h"

#define PER_ARRAY 65536
static const char name[] = GETPID_NAME;

static double cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* As the PMDA writes records: the shape of the event's, copied and filled in. */
static double ours(long n, size_t *bytes)
{
    struct tp_enc e;
    struct tp_enc_shape sh;
    tp_enc_init(&e);
    double t0 = cpu_ns();
    getpid_shape(&sh);
    for (long i = 0; i < n;) {
        tp_enc_reset(&e);
        for (int k = 0; k < PER_ARRAY && i < n; k++, i++) {
            tp_enc_reserve(&e, sh.len);
            unsigned char *rec = tp_enc_shaped(&e, &sh, 1795977770154307221ull + (uint64_t)i,
                                               PM_EVENT_FLAG_POINT);
            tp_enc_shape_put(rec, &sh, 0, 1);
            tp_enc_shape_put(rec, &sh, 1, (uint64_t)i);
            tp_enc_shape_put(rec, &sh, 2, 1795977770154307221ull);
            tp_enc_shape_put(rec, &sh, 3, 39);
        }
        *bytes = e.len;
        tp_enc_finish(&e);
    }
    double t = cpu_ns() - t0;
    tp_enc_release(&e);
    return t / (double)n;
}

static double libpcp_pmda(long n)
{
    int h = pmdaEventNewArray();
    double t0 = cpu_ns();
    for (long i = 0; i < n;) {
        pmdaEventResetArray(h);
        for (int k = 0; k < PER_ARRAY && i < n; k++, i++) {
            uint64_t ns = 1795977770154307221ull + (uint64_t)i;
            struct timeval tv = { (time_t)(ns / 1000000000u), (suseconds_t)(ns % 1000000000u / 1000) };
            pmAtomValue a;
            pmdaEventAddRecord(h, &tv, PM_EVENT_FLAG_POINT);
            a.cp = (char *)name;
            pmdaEventAddParam(h, pmID_build(400, 1, 0), PM_TYPE_STRING, &a);
            a.ul = 1;
            pmdaEventAddParam(h, pmID_build(400, 1, 1), PM_TYPE_U32, &a);
            a.l = (int)i;
            pmdaEventAddParam(h, pmID_build(400, 1, 2), PM_TYPE_32, &a);
            a.ull = 1795977770154307221ull;
            pmdaEventAddParam(h, pmID_build(400, 1, 3), PM_TYPE_U64, &a);
            a.l = 39;
            pmdaEventAddParam(h, pmID_build(400, 2000, 0), PM_TYPE_32, &a);
        }
        pmdaEventGetAddr(h);
    }
    double t = cpu_ns() - t0;
    pmdaEventReleaseArray(h);
    return t / (double)n;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    double best_ours = 1e30, best_lib = 1e30;
    size_t bytes = 0;
    for (int r = 0; r < 5; r++) {
        double a = ours(n, &bytes), b = libpcp_pmda(n);
        best_ours = a < best_ours ? a : best_ours;
        best_lib = b < best_lib ? b : best_lib;
    }
    printf("ours %.1f libpcp_pmda %.1f bytes %.1f\n", best_ours, best_lib,
           (double)(bytes - TP_ENC_ARRAY_BYTES) / (double)(n % PER_ARRAY ? n % PER_ARRAY : PER_ARRAY));
    return 0;
}
