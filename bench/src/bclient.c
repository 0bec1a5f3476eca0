/*
 * bclient: the benchmark's end-to-end client.
 *
 *   bclient [-c] [-p PMID] [-s SUBSCRIPTION] [-i USEC] STREAM N IDLE_MS
 *
 * One context on the local pmcd.  Drains what tracepoint.stream.records[STREAM]
 * holds (the backlog), prints "ready", then fetches as fast as it can,
 * counting records and missed counts by walking each pmEventArray in place
 * (no per-record allocation), until delivered + missed >= N, or no record
 * has come for IDLE_MS.  Prints
 *   delivered D missed M fetches F first_ns T1 last_ns T2 cpu_ns C bytes B
 * (B: bytes of the event arrays received; times since "ready", CLOCK_MONOTONIC; C = this process's CPU time from
 * the fetch that brought the first record to the one that brought the
 * last, so neither the wait before the load nor the idle wait after it).  -c cross-checks every array's
 * counts against pmUnpackEventRecords.  -p D.C.I fetches that event metric
 * by PMID instead (no namespace needed, e.g. the logger PMDA's
 * logger.perfile.NAME.records); STREAM "-" means a singular metric.
 * -s stores SUBSCRIPTION ("system:event filter") into tracepoint.records and
 * fetches that metric (STREAM "-").  -i pauses USEC after each fetch.
 */
#include <pcp/pmapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tp_pcp_compat.h"

#define ROUND4(x) (((x) + 3u) & ~3u)  /* PM_PDU_SIZE_BYTES, libpcp-internal */

static long long clock_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
#define mono_ns() clock_ns(CLOCK_MONOTONIC)
#define cpu_ns() clock_ns(CLOCK_PROCESS_CPUTIME_ID)

/* Records and missed count of one event array value, walked in place. */
static void walk(const pmValueBlock *vb, long long *rec, long long *missed)
{
    const pmEventArray *ea = (const pmEventArray *)vb;
    const char *p = (const char *)&ea->ea_record[0];
    for (int r = 0; r < ea->ea_nrecords; r++) {
        const pmEventRecord *er = (const pmEventRecord *)p;
        p = (const char *)er->er_param;
        if (er->er_flags & PM_EVENT_FLAG_MISSED) {
            *missed += er->er_nparams;
            continue;
        }
        (*rec)++;
        for (int k = 0; k < er->er_nparams; k++) {
            const pmEventParameter *ep = (const pmEventParameter *)p;
            p += sizeof(ep->ep_pmid) + ROUND4(ep->ep_len);
        }
    }
}

static void check(pmValueSet *vs, int j, long long rec, long long missed)
{
    tp_event_result **res = NULL;
    int n = tp_unpack_events(vs, j, &res);
    long long r2 = 0, m2 = 0;
    for (int i = 0; i < n; i++) {
        int flags = 0;
        for (int k = 0; k < res[i]->numpmid; k++) {
            pmValueSet *v = res[i]->vset[k];
            char *name;
            if (pmNameID(v->pmid, &name) < 0)
                continue;
            if (strcmp(name, "event.flags") == 0)
                flags = v->vlist[0].value.lval;
            else if (strcmp(name, "event.missed") == 0)
                m2 += v->vlist[0].value.lval;
            free(name);
        }
        if (!(flags & PM_EVENT_FLAG_MISSED))
            r2++;
    }
    tp_free_unpacked(res, n);
    if (r2 != rec || m2 != missed)
        fprintf(stderr, "bclient: walk %lld/%lld != unpack %lld/%lld\n", rec, missed, r2, m2);
}

int main(int argc, char **argv)
{
    int chk = 0;
    const char *names[] = { "tracepoint.stream.records" };
    const char *pmidstr = NULL, *sub = NULL;
    long pause_us = 0;
    for (;;) {
        if (argc > 1 && strcmp(argv[1], "-c") == 0) {
            chk = 1;
            argv++, argc--;
        } else if (argc > 2 && strcmp(argv[1], "-s") == 0) {
            sub = argv[2];
            names[0] = "tracepoint.records";
            argv += 2, argc -= 2;
        } else if (argc > 2 && strcmp(argv[1], "-i") == 0) {
            pause_us = atol(argv[2]);
            argv += 2, argc -= 2;
        } else if (argc > 2 && strcmp(argv[1], "-p") == 0) {
            pmidstr = argv[2];
            argv += 2, argc -= 2;
        } else
            break;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: bclient [-c] [-p PMID] [-s SUB] [-i USEC] STREAM N IDLE_MS\n");
        return 2;
    }
    const char *stream = argv[1];
    long long want = atoll(argv[2]);
    long long idle_ns = atoll(argv[3]) * 1000000LL;
    pmID pmid;
    pmDesc desc;
    int sts, inst;
    unsigned d, c, i;

    if ((sts = pmNewContext(PM_CONTEXT_HOST, "local:")) < 0)
        goto fail;
    if (pmidstr != NULL) {
        if (sscanf(pmidstr, "%u.%u.%u", &d, &c, &i) != 3) {
            fprintf(stderr, "bclient: bad PMID %s\n", pmidstr);
            return 2;
        }
        pmid = pmID_build(d, c, i);
    } else if ((sts = pmLookupName(1, names, &pmid)) < 0)
        goto fail;
    if ((sts = pmLookupDesc(pmid, &desc)) < 0)
        goto fail;
    if (sub != NULL) {
        size_t len = strlen(sub) + 1;
        pmValueBlock *vb = calloc(1, PM_VAL_HDR_SIZE + len);
        pmValueSet vs = { .pmid = pmid, .numval = 1, .valfmt = PM_VAL_SPTR };
        pmResult r = { .numpmid = 1 };
        if (vb == NULL)
            return 1;
        vb->vtype = PM_TYPE_STRING;
        vb->vlen = PM_VAL_HDR_SIZE + len;
        memcpy(vb->vbuf, sub, len);
        vs.vlist[0].inst = PM_IN_NULL;
        vs.vlist[0].value.pval = vb;
        r.vset[0] = &vs;
        if ((sts = pmStore(&r)) < 0) {
            fprintf(stderr, "bclient: store \"%s\": %s\n", sub, pmErrStr(sts));
            return 1;
        }
        free(vb);
    }
    if (strcmp(stream, "-") != 0 &&
        ((sts = inst = pmLookupInDom(desc.indom, stream)) < 0 ||
         (sts = pmDelProfile(desc.indom, 0, NULL)) < 0 ||
         (sts = pmAddProfile(desc.indom, 1, &inst)) < 0))
        goto fail;
    long long rec = 0, missed = 0, fetches = 0;
    /* Drain the backlog: until a fetch brings nothing, twice. */
    for (int empty = 0; empty < 2;) {
        pmResult *rp;
        if ((sts = pmFetch(1, &pmid, &rp)) < 0) {
            fprintf(stderr, "bclient: fetch: %s\n", pmErrStr(sts));
            return 1;
        }
        empty = rp->vset[0]->numval <= 0 ? empty + 1 : 0;
        pmFreeResult(rp);
        if (empty)
            usleep(20000);
    }
    printf("ready\n");
    fflush(stdout);
    long long t0 = mono_ns(), first = 0, last = t0, cpu_first = 0, cpu_last = 0, bytes = 0;
    while (rec + missed < want) {
        pmResult *rp;
        if ((sts = pmFetch(1, &pmid, &rp)) < 0) {
            fprintf(stderr, "bclient: fetch: %s\n", pmErrStr(sts));
            return 1;
        }
        fetches++;
        long long now = mono_ns();
        pmValueSet *vs = rp->vset[0];
        for (int j = 0; j < vs->numval; j++) {
            long long r = 0, m = 0;
            walk(vs->vlist[j].value.pval, &r, &m);
            bytes += vs->vlist[j].value.pval->vlen;
            if (chk)
                check(vs, j, r, m);
            rec += r;
            missed += m;
            if (r + m > 0) {
                if (first == 0) {
                    first = now;
                    cpu_first = cpu_ns();
                }
                last = now;
                cpu_last = cpu_ns();
            }
        }
        pmFreeResult(rp);
        if (now - last > idle_ns)
            break;
        if (pause_us > 0)
            usleep(pause_us);
    }
    printf("delivered %lld missed %lld fetches %lld first_ns %lld last_ns %lld cpu_ns %lld "
           "bytes %lld\n", rec, missed, fetches, first ? first - t0 : 0, last - t0,
           cpu_last - cpu_first, bytes);
    return 0;

fail:
    fprintf(stderr, "bclient: %s\n", pmErrStr(sts));
    return 1;
}
