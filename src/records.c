/*
 * Ring entries to PCP event records.  See tp_records.h for the contract.
 * Every read of event data is bounds-checked against the entry's length.
 */
#include "tp_records.h"
#include "tp_fault.h"
#include "tp_fields.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <pcp/pmda.h>

#define RECORD_OVERHEAD 32      /* estimate: record header in the array */
#define PARAM_OVERHEAD  8       /* estimate: pmid + type/length */

struct tp_records {
    int domain;
    pmID common[TP_NCOMMON];
    char *scratch;              /* strings and aggregate blocks */
    size_t scratch_size;
};

pmID tp_field_pmid(int domain, size_t event, unsigned field)
{
    if (event >= TP_MAX_EVENTS || field >= TP_MAX_FIELDS)
        return PM_ID_NULL;
    return pmID_build((unsigned)domain, TP_CLUSTER_FIELDS + (unsigned)event, field);
}

int tp_records_create(struct tp_records **out, int domain)
{
    struct tp_records *rec = calloc(1, sizeof(*rec));
    if (!rec)
        return -ENOMEM;
    rec->domain = domain;
    for (unsigned i = 0; i < TP_NCOMMON; i++)
        rec->common[i] = pmID_build((unsigned)domain, TP_CLUSTER_COMMON, i);
    *out = rec;
    return 0;
}

void tp_records_destroy(struct tp_records *rec)
{
    if (!rec)
        return;
    free(rec->scratch);
    free(rec);
}

static char *scratch(struct tp_records *rec, size_t n)
{
    if (tp_fault(TP_FAULT_FETCH))
        return NULL;
    if (n > rec->scratch_size) {
        size_t sz = n < 256 ? 256 : n * 2;
        char *p = realloc(rec->scratch, sz);
        if (!p)
            return NULL;
        rec->scratch = p;
        rec->scratch_size = sz;
    }
    return rec->scratch;
}

/* libpcp_pmda's array builders, through the fault-injection hook. */
static int add_param(int h, pmID pmid, int type, pmAtomValue *a)
{
    return tp_fault(TP_FAULT_FETCH) ? -ENOMEM : pmdaEventAddParam(h, pmid, type, a);
}

static int add_record(int h, struct timeval *tv)
{
    return tp_fault(TP_FAULT_FETCH) ? -ENOMEM : pmdaEventAddRecord(h, tv, PM_EVENT_FLAG_POINT);
}

static size_t round8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Add one field parameter; returns its estimated size, or a negative error. */
static long add_field(struct tp_records *rec, int h, pmID pmid, const struct tp_field *f,
                      const unsigned char *d, uint32_t len)
{
    struct tp_field_value fv;
    if (!tp_field_value(f, d, len, &fv))
        return 0;                   /* truncated record: leave the field out */
    pmAtomValue a;
    size_t sz = 8;
    switch (f->pmtype) {
    case PM_TYPE_32: a.l = (int32_t)fv.v.i; break;
    case PM_TYPE_U32: a.ul = (uint32_t)fv.v.u; break;
    case PM_TYPE_64: a.ll = fv.v.i; break;
    case PM_TYPE_U64: a.ull = fv.v.u; break;
    case PM_TYPE_STRING: {
        if (!(a.cp = scratch(rec, (size_t)fv.len + 1)))
            return -ENOMEM;
        memcpy(a.cp, d + fv.off, fv.len);
        a.cp[fv.len] = '\0';
        sz = round8((size_t)fv.len + 1);
        break;
    }
    default: {                      /* PM_TYPE_AGGREGATE */
        pmValueBlock *vb = (pmValueBlock *)scratch(rec, PM_VAL_HDR_SIZE + fv.n);
        if (!vb)
            return -ENOMEM;
        vb->vtype = PM_TYPE_AGGREGATE;
        vb->vlen = PM_VAL_HDR_SIZE + fv.n;
        memcpy(vb->vbuf, d + fv.off, fv.n);
        a.vbp = vb;
        sz = round8(PM_VAL_HDR_SIZE + fv.n);
        break;
    }
    }
    int rc = add_param(h, pmid, f->pmtype, &a);
    return rc < 0 ? rc : (long)(sz + PARAM_OVERHEAD);
}

static struct timeval to_timeval(uint64_t wall_ns)
{
    struct timeval tv = { .tv_sec = (time_t)(wall_ns / 1000000000u),
                          .tv_usec = (suseconds_t)(wall_ns % 1000000000u / 1000u) };
    return tv;
}

static long add_common(struct tp_records *rec, int h, const struct tp_event *e,
                       const struct tp_ring_view *v, uint64_t wall_ns)
{
    pmAtomValue a;
    int rc;
    a.cp = e->fullname;
    if ((rc = add_param(h, rec->common[TP_PARAM_EVENT], PM_TYPE_STRING, &a)) < 0)
        return rc;
    a.ul = v->meta.cpu;
    if ((rc = add_param(h, rec->common[TP_PARAM_CPU], PM_TYPE_U32, &a)) < 0)
        return rc;
    int32_t pid = -1;
    if ((uint64_t)e->pid_offset + 4 <= v->len)
        memcpy(&pid, (const unsigned char *)v->data + e->pid_offset, 4);
    a.l = pid;
    if ((rc = add_param(h, rec->common[TP_PARAM_PID], PM_TYPE_32, &a)) < 0)
        return rc;
    a.ull = wall_ns;
    if ((rc = add_param(h, rec->common[TP_PARAM_TIME_NS], PM_TYPE_U64, &a)) < 0)
        return rc;
    return (long)(4 * PARAM_OVERHEAD + 8 * 3 + round8(strlen(e->fullname) + 1));
}

static long add_event(struct tp_records *rec, int h, struct tp_catalog *cat,
                      const struct tp_ring_view *v, int64_t real_offset_ns)
{
    const struct tp_event *e = tp_catalog_event(cat, v->meta.event);
    uint64_t wall = v->meta.ts + (uint64_t)real_offset_ns;
    struct timeval tv = to_timeval(wall);
    int rc = add_record(h, &tv);
    if (rc < 0)
        return rc;
    long total = RECORD_OVERHEAD, n = add_common(rec, h, e, v, wall);
    for (unsigned i = 0; n >= 0 && i < e->nfields && i < TP_MAX_FIELDS; i++) {
        total += n;
        n = add_field(rec, h, tp_field_pmid(rec->domain, v->meta.event, i), &e->fields[i],
                      v->data, v->len);
    }
    return n < 0 ? n : total + n;
}

long tp_records_missed(int h, uint64_t count, uint64_t ts, int64_t real_offset_ns)
{
    struct timeval tv = to_timeval(ts + (uint64_t)real_offset_ns);
    while (count > 0) {             /* the wire carries an int per missed record */
        int n = count > INT_MAX ? INT_MAX : (int)count;
        int rc = tp_fault(TP_FAULT_FETCH) ? -ENOMEM : pmdaEventAddMissedRecord(h, &tv, n);
        if (rc < 0)
            return rc;
        count -= (uint64_t)n;
    }
    return RECORD_OVERHEAD;
}

/* Bytes a value of vlen takes in an event array: libpcp_pmda pads to 4. */
static size_t padded4(size_t vlen) { return (vlen + 3) & ~(size_t)3; }

void tp_records_zero_padding(int handle)
{
    pmEventArray *ea = (pmEventArray *)pmdaEventGetAddr(handle);
    char *p = (char *)&ea->ea_record[0];
    const size_t rec_hdr = sizeof(pmEventRecord) - sizeof(pmEventParameter);
    for (int r = 0; r < ea->ea_nrecords; r++) {
        pmEventRecord *er = (pmEventRecord *)p;
        int nparams = (er->er_flags & PM_EVENT_FLAG_MISSED) ? 0 : er->er_nparams;
        p += rec_hdr;
        for (int i = 0; i < nparams; i++) {
            pmEventParameter *ep = (pmEventParameter *)p;
            size_t vlen = (size_t)ep->ep_len - PM_VAL_HDR_SIZE;
            memset(p + sizeof(*ep) + vlen, 0, padded4(vlen) - vlen);
            p += sizeof(*ep) + padded4(vlen);
        }
    }
}

int tp_records_fill(struct tp_records *rec, int handle, struct tp_ring *ring,
                    struct tp_cursor *c, struct tp_catalog *cat,
                    int64_t real_offset_ns, size_t max_bytes, unsigned max_entries,
                    struct tp_fill_result *res)
{
    struct tp_ring_view v;
    for (unsigned taken = 0; res->bytes < max_bytes; taken++) {
        if (taken == max_entries)
            return 1;                   /* more may be pending */
        enum tp_read r = tp_ring_next(ring, c, &v);
        long n;
        if (r == TP_READ_END)
            return 0;
        if (r == TP_READ_MISSED) {
            n = tp_records_missed(handle, v.missed, v.ts, real_offset_ns);
            res->missed += v.missed;
        } else {
            n = add_event(rec, handle, cat, &v, real_offset_ns);
            res->records++;
        }
        if (n < 0)
            return (int)n;
        res->bytes += (size_t)n;
    }
    return 0;
}
