/* unpack.c: event records viewed in place (client/unpack.h). */
#include "unpack.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HEAD_BYTES (sizeof(pmTimeval) + 2 * sizeof(int))    /* timestamp, flags, nparams */
#define ROUND4(x) (((size_t)(x) + 3u) & ~(size_t)3u)

void unpack_init(struct unpacker *u, pmID flags_pmid, pmID missed_pmid)
{
    *u = (struct unpacker){ .flags_pmid = flags_pmid, .missed_pmid = missed_pmid };
}

void unpack_free(struct unpacker *u)
{
    if (u == NULL)
        return;
    free(u->sets);
    free(u->ptrs);
    free(u->recs);
    unpack_init(u, u->flags_pmid, u->missed_pmid);
}

/* Value sets a record turns into, as pmUnpackEventRecords counts them. */
static int sets_of(unsigned flags, int nparams)
{
    if (flags == 0)
        return nparams;
    return (flags & PM_EVENT_FLAG_MISSED) ? 2 : nparams + 1;
}

/* Bytes of one parameter at p, or 0 if it does not fit before end. */
static size_t param_bytes(const char *p, const char *end)
{
    const pmEventParameter *ep = (const pmEventParameter *)p;

    if ((size_t)(end - p) < sizeof(pmEventParameter))
        return 0;
    size_t n = sizeof(ep->ep_pmid) + ROUND4(ep->ep_len);
    return ep->ep_len >= PM_VAL_HDR_SIZE && n <= (size_t)(end - p) ? n : 0;
}

/* Room for nsets value sets (and as many pointers) and nrecs records. */
static int reserve(struct unpacker *u, size_t nsets, size_t nrecs)
{
    if (nsets > u->nsets) {
        size_t want = nsets > 2 * u->nsets ? nsets : 2 * u->nsets;
        pmValueSet *s = realloc(u->sets, want * sizeof(*s));
        pmValueSet **q = s ? realloc(u->ptrs, want * sizeof(*q)) : NULL;
        if (s != NULL)
            u->sets = s;
        if (q == NULL)
            return -ENOMEM;
        u->ptrs = q;
        u->nsets = want;
    }
    if (nrecs > u->nrecs) {
        struct record *r = realloc(u->recs, nrecs * sizeof(*r));
        if (r == NULL)
            return -ENOMEM;
        u->recs = r;
        u->nrecs = nrecs;
    }
    return 0;
}

static void set_insitu(pmValueSet *vs, pmID pmid, int value)
{
    vs->pmid = pmid;
    vs->numval = 1;
    vs->valfmt = PM_VAL_INSITU;
    vs->vlist[0].inst = PM_IN_NULL;
    vs->vlist[0].value.lval = value;
}

/* The value bytes a parameter of this type holds at least: a number's size. */
static size_t least_bytes(unsigned type)
{
    switch (type) {
    case PM_TYPE_32: case PM_TYPE_U32: case PM_TYPE_FLOAT: return 4;
    case PM_TYPE_64: case PM_TYPE_U64: case PM_TYPE_DOUBLE: return 8;
    default: return 0;
    }
}

/*
 * One parameter's value set (its bytes checked to fit already);
 * PM_ERR_TYPE for a type a record cannot hold, PM_ERR_TOOSMALL for a
 * number with fewer bytes than its type.
 */
static int set_param(pmValueSet *vs, const pmEventParameter *ep)
{
    const char *vbuf = (const char *)ep + sizeof(ep->ep_pmid) + PM_VAL_HDR_SIZE;
    int32_t v;

    if ((size_t)ep->ep_len - PM_VAL_HDR_SIZE < least_bytes(ep->ep_type))
        return PM_ERR_TOOSMALL;
    switch (ep->ep_type) {
    case PM_TYPE_32: case PM_TYPE_U32:
        memcpy(&v, vbuf, sizeof(v));
        set_insitu(vs, ep->ep_pmid, v);
        return 0;
    case PM_TYPE_64: case PM_TYPE_U64: case PM_TYPE_FLOAT: case PM_TYPE_DOUBLE:
    case PM_TYPE_STRING: case PM_TYPE_AGGREGATE: case PM_TYPE_AGGREGATE_STATIC:
        vs->pmid = ep->ep_pmid;
        vs->numval = 1;
        vs->valfmt = PM_VAL_DPTR;
        vs->vlist[0].inst = PM_IN_NULL;
        /* the type/length word and the bytes after it are a pmValueBlock */
        vs->vlist[0].value.pval = (pmValueBlock *)((char *)ep + sizeof(ep->ep_pmid));
        return 0;
    default:
        return PM_ERR_TYPE;
    }
}

/*
 * Record rec from the bytes at *p, checked against end as it goes; its sets
 * from u->sets[*k] on (their pointers, which an arena grown later would
 * move, are set once the whole array is read).
 */
static int fill(struct unpacker *u, const char **p, const char *end, struct record *rec,
                size_t *k)
{
    const pmEventRecord *er = (const pmEventRecord *)*p;

    if ((size_t)(end - *p) < HEAD_BYTES)
        return PM_ERR_TOOBIG;
    unsigned flags = er->er_flags;
    int np = er->er_nparams, n = 0;
    if ((flags & PM_EVENT_FLAG_MISSED) && flags != PM_EVENT_FLAG_MISSED)
        return PM_ERR_CONV;
    if (np < 0)
        return PM_ERR_TOOSMALL;
    *p += HEAD_BYTES;
    if (!(flags & PM_EVENT_FLAG_MISSED) &&
        (size_t)np > (size_t)(end - *p) / sizeof(pmEventParameter))
        return PM_ERR_TOOBIG;       /* more parameters than bytes for them */
    rec->numpmid = sets_of(flags, np);
    size_t need = *k + (size_t)rec->numpmid;
    int rc = need > u->nsets ? reserve(u, need, 0) : 0;   /* a call only to grow */
    if (rc < 0)
        return rc;
    pmValueSet *sets = &u->sets[*k];
    rec->stamp_ns = (uint64_t)er->er_timestamp.tv_sec * 1000000000u +
                    (uint64_t)er->er_timestamp.tv_usec * 1000u;
    rec->key = rec->stamp_ns;
    if (flags != 0)
        set_insitu(&sets[n++], u->flags_pmid, (int)flags);
    if (flags & PM_EVENT_FLAG_MISSED) {
        set_insitu(&sets[n], u->missed_pmid, np);
        *k += 2;
        return 0;
    }
    for (int i = 0; i < np; i++, n++) {
        size_t bytes = param_bytes(*p, end);
        if (bytes == 0)
            return PM_ERR_TOOBIG;
        if ((rc = set_param(&sets[n], (const pmEventParameter *)*p)) < 0)
            return rc;
        *p += bytes;
    }
    *k += (size_t)rec->numpmid;
    return 0;
}

/* The arena holds nsets sets: each record's vset, one after another. */
static void point_sets(struct unpacker *u, int nrecords, size_t nsets)
{
    for (size_t i = 0; i < nsets; i++)
        u->ptrs[i] = &u->sets[i];
    size_t at = 0;
    for (int r = 0; r < nrecords; r++) {
        u->recs[r].vset = &u->ptrs[at];
        at += (size_t)u->recs[r].numpmid;
    }
}

int unpack_events(struct unpacker *u, const pmValueSet *vs, int j, struct record **out)
{
    size_t k = 0;
    int rc;

    if (vs->numval < 1)
        return vs->numval;
    if (vs->valfmt != PM_VAL_DPTR && vs->valfmt != PM_VAL_SPTR)
        return PM_ERR_CONV;
    const pmEventArray *ea = (const pmEventArray *)vs->vlist[j].value.pval;
    if (ea->ea_type != PM_TYPE_EVENT)
        return PM_ERR_TYPE;
    if (ea->ea_len < PM_VAL_HDR_SIZE + sizeof(ea->ea_nrecords) || ea->ea_nrecords < 0)
        return PM_ERR_TOOSMALL;
    if (ea->ea_nrecords == 0)
        return 0;
    const char *p = (const char *)&ea->ea_record[0], *end = (const char *)ea + ea->ea_len;
    if ((size_t)ea->ea_nrecords > (size_t)(end - p) / HEAD_BYTES)
        return PM_ERR_TOOBIG;       /* more records than bytes for them */
    if ((rc = reserve(u, 1, (size_t)ea->ea_nrecords)) < 0)
        return rc;
    for (int r = 0; r < ea->ea_nrecords; r++) {
        u->recs[r].index = r;
        if ((rc = fill(u, &p, end, &u->recs[r], &k)) < 0)
            return rc;
    }
    point_sets(u, ea->ea_nrecords, k);
    *out = u->recs;
    return ea->ea_nrecords;
}
