/*
 * unpackbench: what reading one event record costs a client, libpcp's
 * pmUnpackEventRecords (and freeing what it hands out, newest first)
 * against pcp tracepoint's in-place view (client/unpack.c), side by side.
 *
 *   unpackbench [RECORDS_PER_ARRAY]
 *
 * The array holds getpid records as pcp tracepoint's default options get
 * them (event name, cpu, pid, time_ns, comm, text); the best of 5 runs of
 * each side is printed as
 *   libpcp NS inplace NS bytes B
 * (ns of CPU per record; bytes per record in the array).
 */
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tp_pcp_compat.h"
#include "unpack.h"

static double cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void add_string(int h, int item, const char *s)
{
    pmAtomValue a = { .cp = (char *)s };
    pmdaEventAddParam(h, pmID_build(400, 1, item), PM_TYPE_STRING, &a);
}

static int build(int n)
{
    struct timeval tv = { 1700000000, 0 };
    pmAtomValue a;
    int h = pmdaEventNewArray();

    for (int r = 0; h >= 0 && r < n; r++) {
        pmdaEventAddRecord(h, &tv, PM_EVENT_FLAG_POINT);
        add_string(h, 1, "syscalls:sys_enter_getpid");
        a.ul = 1;
        pmdaEventAddParam(h, pmID_build(400, 1, 2), PM_TYPE_U32, &a);
        a.l = 4242;
        pmdaEventAddParam(h, pmID_build(400, 1, 3), PM_TYPE_32, &a);
        a.ull = 1700000000123456789ull + (unsigned)r;
        pmdaEventAddParam(h, pmID_build(400, 1, 4), PM_TYPE_U64, &a);
        add_string(h, 5, "tpbench_gen");
        add_string(h, 6, "");
    }
    return h;
}

/* CPU ns per record of one libpcp unpack and free */
static double libpcp_side(pmValueSet *vs)
{
    tp_event_result **res = NULL;
    double t0 = cpu_ns();
    int n = tp_unpack_events(vs, 0, &res);
    tp_free_unpacked(res, n > 0 ? n : 0);
    return n > 0 ? (cpu_ns() - t0) / n : 0;
}

static double inplace_side(struct unpacker *u, pmValueSet *vs)
{
    struct record *rec = NULL;
    double t0 = cpu_ns();
    int n = unpack_events(u, vs, 0, &rec);
    return n > 0 ? (cpu_ns() - t0) / n : 0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 65536, h = build(n > 0 ? n : 1);
    pmValueSet vs = { .pmid = pmID_build(400, 0, 1), .numval = 1, .valfmt = PM_VAL_DPTR };
    struct unpacker u;
    double lib = 1e30, ours = 1e30, x;

    if (h < 0)
        return 1;
    vs.vlist[0].inst = PM_IN_NULL;
    vs.vlist[0].value.pval = (pmValueBlock *)pmdaEventGetAddr(h);
    unpack_init(&u, pmID_build(511, 0, 1), pmID_build(511, 0, 1));
    for (int k = 0; k < 5; k++) {
        if ((x = libpcp_side(&vs)) > 0 && x < lib)
            lib = x;
        if ((x = inplace_side(&u, &vs)) > 0 && x < ours)
            ours = x;
    }
    printf("libpcp %.1f inplace %.1f bytes %.0f\n", lib, ours,
           (double)vs.vlist[0].value.pval->vlen / (n > 0 ? n : 1));
    unpack_free(&u);
    pmdaEventReleaseArray(h);
    return 0;
}
