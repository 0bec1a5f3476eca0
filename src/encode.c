/*
 * PCP event arrays written directly.  See tp_encode.h for the contract.
 *
 * Layout (pmapi.h): the array header (type and length in one 32-bit word,
 * then the record count), then records back to back.  A record is its
 * header (timestamp as two 32-bit words, flags, parameter count; a missed
 * record carries the missed count where the parameter count goes) and its
 * parameters, each a header (PMID; type and length in one word, the length
 * counting that word too) and the value, padded to 4 bytes.  Words are in
 * host byte order: pmcd converts the whole value for the wire.
 */
#include "tp_encode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>


#define MIN_ALLOC 4096u

void tp_enc_init(struct tp_enc *e)
{
    memset(e, 0, sizeof(*e));
}

void tp_enc_release(struct tp_enc *e)
{
    if (!e)
        return;
    free(e->buf);
    tp_enc_init(e);
}

int tp_enc_grow(struct tp_enc *e, size_t n)
{
    size_t limit = e->limit ? e->limit : TP_ENC_MAX_BYTES;
    if (e->len > limit || n > limit - e->len)
        return -E2BIG;
    size_t need = e->len + n;
    if (need <= e->cap)
        return 0;
    size_t cap = e->cap ? e->cap : MIN_ALLOC;
    while (cap < need)
        cap *= 2;
    if (cap > limit)
        cap = limit > need ? limit : need;
    unsigned char *b = realloc(e->buf, cap);
    if (!b)
        return -ENOMEM;
    e->buf = b;
    e->cap = cap;
    return 0;
}

int tp_enc_reset(struct tp_enc *e)
{
    e->len = 0;
    e->rec = 0;
    e->nrecords = 0;
    e->nparams = 0;
    int rc = tp_enc_reserve(e, TP_ENC_ARRAY_BYTES);
    if (rc == 0)
        e->len = TP_ENC_ARRAY_BYTES;
    return rc;
}

/* A record's header at `at`. */
static void put_header(unsigned char *at, uint64_t wall_ns, unsigned flags, int nparams)
{
    pmEventRecord r;
    memset(&r, 0, TP_ENC_RECORD_BYTES);
    r.er_timestamp.tv_sec = (int)(wall_ns / 1000000000u);
    r.er_timestamp.tv_usec = (int)(wall_ns % 1000000000u / 1000u);
    r.er_flags = flags;
    r.er_nparams = nparams;
    memcpy(at, &r, TP_ENC_RECORD_BYTES);
}

static void put_record(struct tp_enc *e, uint64_t wall_ns, unsigned flags, int nparams)
{
    e->rec = e->len;
    put_header(e->buf + e->len, wall_ns, flags, nparams);
    e->len += TP_ENC_RECORD_BYTES;
    e->nrecords++;
}

void tp_enc_record(struct tp_enc *e, uint64_t wall_ns, unsigned flags)
{
    put_record(e, wall_ns, flags, 0);
    e->nparams = 0;
}

void tp_enc_missed(struct tp_enc *e, uint64_t wall_ns, int count)
{
    put_record(e, wall_ns, PM_EVENT_FLAG_MISSED, count);
    e->nparams = -1;            /* no parameters may follow */
}

static void put_param_header(unsigned char *at, pmID pmid, int type, size_t vlen)
{
    pmEventParameter p;
    p.ep_pmid = pmid;
    p.ep_type = (unsigned)type;
    p.ep_len = (unsigned)(PM_VAL_HDR_SIZE + vlen);
    memcpy(at, &p, sizeof(p));
}

/* The parameter header, and the record's count of them. */
static unsigned char *put_param(struct tp_enc *e, pmID pmid, int type, size_t vlen)
{
    unsigned char *at = e->buf + e->len;
    put_param_header(at, pmid, type, vlen);
    e->len += tp_enc_param_bytes(vlen);
    e->nparams++;
    memcpy(e->buf + e->rec + offsetof(pmEventRecord, er_nparams), &e->nparams, sizeof(int));
    return at + sizeof(pmEventParameter);
}

void tp_enc_param_int(struct tp_enc *e, pmID pmid, int type, uint64_t v)
{
    if (type == PM_TYPE_32 || type == PM_TYPE_U32) {
        uint32_t w = (uint32_t)v;
        memcpy(put_param(e, pmid, type, sizeof(w)), &w, sizeof(w));
    } else {
        memcpy(put_param(e, pmid, type, sizeof(v)), &v, sizeof(v));
    }
}

void tp_enc_param_data(struct tp_enc *e, pmID pmid, int type, const void *data, size_t n)
{
    unsigned char *v = put_param(e, pmid, type, n);
    if (n & 3)
        memset(v + (n & ~(size_t)3), 0, 4);     /* the padding, before the value's tail */
    if (n)
        memcpy(v, data, n);
}

static size_t int_bytes(int type)
{
    return type == PM_TYPE_32 || type == PM_TYPE_U32 ? 4 : 8;
}

void tp_enc_shape_init(struct tp_enc_shape *s)
{
    memset(s, 0, sizeof(*s));
    s->len = (uint16_t)TP_ENC_RECORD_BYTES;
}

/* Room for a parameter of vlen value bytes: where it goes, or NULL. */
static unsigned char *shape_param(struct tp_enc_shape *s, pmID pmid, int type, size_t vlen)
{
    size_t n = tp_enc_param_bytes(vlen);
    if (n > (size_t)(TP_ENC_SHAPE_BYTES - s->len))
        return NULL;
    unsigned char *at = s->bytes + s->len;
    put_param_header(at, pmid, type, vlen);
    s->len = (uint16_t)(s->len + n);
    s->nparams++;
    return at + sizeof(pmEventParameter);
}

int tp_enc_shape_data(struct tp_enc_shape *s, pmID pmid, int type, const void *data, size_t n)
{
    unsigned char *v = shape_param(s, pmid, type, n);
    if (!v)
        return -E2BIG;
    if (n)
        memcpy(v, data, n);     /* the padding is zero from tp_enc_shape_init */
    return 0;
}

int tp_enc_shape_int(struct tp_enc_shape *s, pmID pmid, int type)
{
    if (s->nslots == TP_ENC_SHAPE_SLOTS)
        return -E2BIG;
    unsigned char *v = shape_param(s, pmid, type, int_bytes(type));
    if (!v)
        return -E2BIG;
    s->at[s->nslots] = (uint16_t)(v - s->bytes);
    s->wide[s->nslots] = int_bytes(type) == 8;
    return (int)s->nslots++;
}

unsigned char *tp_enc_shaped(struct tp_enc *e, const struct tp_enc_shape *s, uint64_t wall_ns,
                             unsigned flags)
{
    unsigned char *rec = e->buf + e->len;
    memcpy(rec, s->bytes, s->len);
    put_header(rec, wall_ns, flags, s->nparams);
    e->rec = e->len;
    e->len += s->len;
    e->nrecords++;
    e->nparams = s->nparams;
    return rec;
}

pmValueBlock *tp_enc_finish(struct tp_enc *e)
{
    pmEventArray *ea = (pmEventArray *)e->buf;
    ea->ea_type = PM_TYPE_EVENT;
    ea->ea_len = (unsigned)e->len;
    ea->ea_nrecords = e->nrecords;
    return (pmValueBlock *)e->buf;
}

long tp_enc_check(const pmValueBlock *vb)
{
    const unsigned char *base = (const unsigned char *)vb, *p;
    pmEventArray ea;
    memcpy(&ea, base, TP_ENC_ARRAY_BYTES);
    if (ea.ea_type != PM_TYPE_EVENT || ea.ea_len < TP_ENC_ARRAY_BYTES || ea.ea_nrecords < 0)
        return 0;
    const unsigned char *end = base + ea.ea_len;
    p = base + TP_ENC_ARRAY_BYTES;
    for (int r = 0; r < ea.ea_nrecords; r++) {
        pmEventRecord er;
        if ((size_t)(end - p) < TP_ENC_RECORD_BYTES)
            return p - base;
        memcpy(&er, p, TP_ENC_RECORD_BYTES);
        p += TP_ENC_RECORD_BYTES;
        int n = (er.er_flags & PM_EVENT_FLAG_MISSED) ? 0 : er.er_nparams;
        if (n < 0)
            return p - base;
        for (int i = 0; i < n; i++) {
            pmEventParameter ep;
            if ((size_t)(end - p) < sizeof(ep))
                return p - base;
            memcpy(&ep, p, sizeof(ep));
            if (ep.ep_len < PM_VAL_HDR_SIZE ||
                tp_enc_param_bytes(ep.ep_len - PM_VAL_HDR_SIZE) > (size_t)(end - p))
                return p - base;
            p += tp_enc_param_bytes(ep.ep_len - PM_VAL_HDR_SIZE);
        }
    }
    return p == end ? -1 : p - base;
}
