/*
 * Ring entries to PCP event records.  See tp_records.h for the contract.
 * Every read of event data is bounds-checked against the entry's length.
 */
#include "tp_records.h"
#include "tp_fields.h"
#include "tp_util.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Room for a record and every parameter but its variable-length values. */
static size_t fixed_bytes(const struct tp_event *e, unsigned nfields)
{
    return TP_ENC_RECORD_BYTES + tp_enc_param_bytes(e->fullname_len) +
           2 * tp_enc_param_bytes(4) + tp_enc_param_bytes(8) +
           (size_t)nfields * tp_enc_param_bytes(8);
}

/*
 * One field.  Room for it, and for every field after it (later bytes), is
 * reserved unless it is a string or raw bytes: then it reserves its own
 * length and the later fields' room again, since its value may take more
 * than the slot fixed_bytes() counted for it.
 */
static int add_field(struct tp_enc *enc, pmID pmid, const struct tp_field *f,
                     const unsigned char *d, uint32_t len, size_t later)
{
    struct tp_field_value fv;
    if (!tp_field_value(f, d, len, &fv))
        return 0;                   /* truncated record: leave the field out */
    switch (f->pmtype) {
    case PM_TYPE_32: case PM_TYPE_64:
        tp_enc_param_int(enc, pmid, f->pmtype, (uint64_t)fv.v.i);
        return 0;
    case PM_TYPE_U32: case PM_TYPE_U64:
        tp_enc_param_int(enc, pmid, f->pmtype, fv.v.u);
        return 0;
    default: {
        size_t n = f->pmtype == PM_TYPE_STRING ? fv.len : fv.n;
        int rc = tp_enc_reserve(enc, tp_enc_param_bytes(n) + later);
        if (rc == 0)
            tp_enc_param_data(enc, pmid, f->pmtype, d + fv.off, n);
        return rc;
    }
    }
}

static int32_t common_pid(const struct tp_event *e, const struct tp_ring_view *v)
{
    int32_t pid = -1;
    if ((uint64_t)e->pid_offset + 4 <= v->len)
        memcpy(&pid, (const unsigned char *)v->data + e->pid_offset, 4);
    return pid;
}

/* The name of the event's pid and its text, as the consumer asked; strings go last. */
static int add_extras(const struct tp_fill_src *src, struct tp_enc *enc, const struct tp_event *e,
                      const struct tp_ring_view *v, int32_t pid)
{
    int rc = 0;
    if (src->with & TP_WITH_COMM) {
        const char *comm = v->meta.comm ? v->meta.comm
                                        : pid == 0 ? "<idle>" : TP_COMM_UNKNOWN;
        size_t n = strlen(comm);
        rc = tp_enc_reserve(enc, tp_enc_param_bytes(n));
        if (rc == 0)
            tp_enc_param_data(enc, src->ids->common[TP_PARAM_COMM], PM_TYPE_STRING, comm, n);
    }
    if (rc == 0 && (src->with & TP_WITH_TEXT)) {
        char text[TP_RENDER_MAX_TEXT];
        int n = tp_render_text(src->render, v->meta.event, v->data, v->len, v->meta.cpu,
                               text, sizeof(text));
        if (n == -ENOMEM)
            return n;
        if (n < 0)
            n = snprintf(text, sizeof(text), "(%s: no print format)", e->fullname);
        if ((size_t)n >= sizeof(text))
            n = (int)sizeof(text) - 1;
        rc = tp_enc_reserve(enc, tp_enc_param_bytes((size_t)n));
        if (rc == 0)
            tp_enc_param_data(enc, src->ids->common[TP_PARAM_TEXT], PM_TYPE_STRING, text,
                              (size_t)n);
    }
    return rc;
}

/* The frames, innermost first, one a line as %pS prints them, cut at a whole frame. */
static size_t stack_text(struct tp_render *r, const struct tp_ring_view *v, char *buf,
                         size_t size)
{
    size_t n = 0;
    for (unsigned i = 0; i < v->meta.nframes; i++) {
        char frame[512];
        const uint64_t *f = v->meta.frames;
        int len = tp_render_frame(r, f[i], frame, sizeof(frame));
        if (len < 0)
            continue;
        if ((size_t)len >= sizeof(frame))
            len = (int)sizeof(frame) - 1;
        if (n + (n ? 1 : 0) + (size_t)len >= size)
            break;
        if (n)
            buf[n++] = '\n';
        memcpy(buf + n, frame, (size_t)len);
        n += (size_t)len;
    }
    buf[n] = '\0';
    return n;
}

static int add_stack(const struct tp_fill_src *src, struct tp_enc *enc,
                     const struct tp_ring_view *v)
{
    if (!(src->with & TP_WITH_STACK) || !v->meta.nframes)
        return 0;                   /* none with the event: no parameter */
    char text[TP_STACK_MAX_TEXT];
    size_t n = stack_text(src->render, v, text, sizeof(text));
    int rc = tp_enc_reserve(enc, tp_enc_param_bytes(n));
    if (rc == 0)
        tp_enc_param_data(enc, src->ids->common[TP_PARAM_STACK], PM_TYPE_STRING, text, n);
    return rc;
}

/*
 * What the records of one event share in a fill: the event, its field ids,
 * and the shape of its records' first parameters (tp_enc_shape): the event
 * name, cpu, pid, time_ns and its leading integer fields, slots 0, 1, 2 and
 * SLOT_FIELDS on.  A record too short for every shaped field (truncated)
 * is written parameter by parameter, as a record of an unshaped event.
 */
#define SHAPES      4           /* events of one fill kept at once, by id */
#define SLOT_FIELDS 3

struct scalar {                 /* where a shaped field's value is, and how it is read */
    uint32_t offset, size;
    bool sign;
};

struct shape {
    bool valid, usable;
    uint32_t event;
    const struct tp_event *e;
    const struct tp_field_ids *fids;
    unsigned nfields;
    unsigned shaped;            /* fields in the shape: the first `shaped` */
    uint64_t need;              /* record bytes those fields read */
    struct scalar field[TP_ENC_SHAPE_SLOTS - SLOT_FIELDS];
    struct tp_enc_shape s;
};

struct shapes {
    struct shape at[SHAPES];
};

/* An integer field whose value any record of need bytes or more holds. */
static bool shapeable(const struct tp_field *f)
{
    return (f->kind == TP_FIELD_INT || f->kind == TP_FIELD_UINT) &&
           (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) &&
           f->pmtype != PM_TYPE_STRING && f->pmtype != PM_TYPE_AGGREGATE;
}

static void build_shape(const struct tp_param_ids *ids, struct shape *sh)
{
    const pmID *c = ids->common;
    struct tp_enc_shape *s = &sh->s;
    tp_enc_shape_init(s);
    sh->usable = tp_enc_shape_data(s, c[TP_PARAM_EVENT], PM_TYPE_STRING, sh->e->fullname,
                                   sh->e->fullname_len) == 0 &&
                 tp_enc_shape_int(s, c[TP_PARAM_CPU], PM_TYPE_U32) == 0 &&
                 tp_enc_shape_int(s, c[TP_PARAM_PID], PM_TYPE_32) == 1 &&
                 tp_enc_shape_int(s, c[TP_PARAM_TIME_NS], PM_TYPE_U64) == 2;
    sh->shaped = 0;
    sh->need = 0;
    for (unsigned i = 0; sh->usable && i < sh->nfields; i++) {
        const struct tp_field *f = &sh->e->fields[i];
        if (!shapeable(f) || tp_enc_shape_int(s, sh->fids->pmid[i], f->pmtype) < 0)
            break;
        sh->field[sh->shaped++] = (struct scalar){ f->offset, f->size,
                                                   tp_field_signed(f->pmtype) };
        if ((uint64_t)f->offset + f->size > sh->need)
            sh->need = (uint64_t)f->offset + f->size;
    }
}

static const struct shape *shape_of(const struct tp_fill_src *src, struct shapes *cache,
                                    uint32_t event)
{
    struct shape *sh = &cache->at[event % SHAPES];
    if (sh->valid && sh->event == event)
        return sh;
    const struct tp_param_ids *ids = src->ids;
    sh->valid = true;
    sh->event = event;
    sh->e = tp_catalog_event(src->cat, event);
    sh->fids = (src->with & TP_WITH_FIELDS) ? ids->fields(ids->arg, event) : NULL;
    sh->nfields = sh->fids ? sh->fids->nfields : 0;
    build_shape(ids, sh);
    return sh;
}

/* The record and its shaped parameters, from a view of need bytes or more; how many fields. */
static unsigned put_shaped(const struct shape *sh, struct tp_enc *enc,
                           const struct tp_ring_view *v, uint64_t wall, int32_t pid)
{
    const unsigned char *d = v->data;
    unsigned char *rec = tp_enc_shaped(enc, &sh->s, wall, PM_EVENT_FLAG_POINT);
    tp_enc_shape_put(rec, &sh->s, 0, v->meta.cpu);
    tp_enc_shape_put(rec, &sh->s, 1, (uint32_t)pid);
    tp_enc_shape_put(rec, &sh->s, 2, wall);
    for (unsigned i = 0; i < sh->shaped; i++) {
        const struct scalar *f = &sh->field[i];
        tp_enc_shape_put(rec, &sh->s, SLOT_FIELDS + i, tp_field_scalar(d + f->offset, f->size,
                                                                       f->sign));
    }
    return sh->shaped;
}

/* The record and its common parameters, one by one. */
static void put_plain(const struct tp_fill_src *src, const struct tp_event *e,
                      struct tp_enc *enc, const struct tp_ring_view *v, uint64_t wall,
                      int32_t pid)
{
    const struct tp_param_ids *ids = src->ids;
    tp_enc_record(enc, wall, PM_EVENT_FLAG_POINT);
    tp_enc_param_data(enc, ids->common[TP_PARAM_EVENT], PM_TYPE_STRING, e->fullname,
                      e->fullname_len);
    tp_enc_param_int(enc, ids->common[TP_PARAM_CPU], PM_TYPE_U32, v->meta.cpu);
    tp_enc_param_int(enc, ids->common[TP_PARAM_PID], PM_TYPE_32, (uint32_t)pid);
    tp_enc_param_int(enc, ids->common[TP_PARAM_TIME_NS], PM_TYPE_U64, wall);
}

static int add_event(const struct tp_fill_src *src, struct shapes *cache, struct tp_enc *enc,
                     const struct tp_ring_view *v)
{
    const struct shape *sh = shape_of(src, cache, v->meta.event);
    const struct tp_event *e = sh->e;
    unsigned nfields = sh->nfields, i = 0;
    int rc = tp_enc_reserve(enc, fixed_bytes(e, nfields));
    if (rc < 0)
        return rc;
    uint64_t wall = tp_clock_wall(src->clock, v->clock, v->meta.ts);
    int32_t pid = common_pid(e, v);
    if (sh->usable && v->len >= sh->need)
        i = put_shaped(sh, enc, v, wall, pid);
    else
        put_plain(src, e, enc, v, wall, pid);
    for (; rc == 0 && i < nfields; i++)
        rc = add_field(enc, sh->fids->pmid[i], &e->fields[i], v->data, v->len,
                       (size_t)(nfields - i - 1) * tp_enc_param_bytes(8));
    if (rc == 0 && (src->with & (TP_WITH_COMM | TP_WITH_TEXT)))
        rc = add_extras(src, enc, e, v, pid);
    return rc == 0 ? add_stack(src, enc, v) : rc;
}

int tp_records_missed(struct tp_enc *enc, uint64_t count, uint64_t wall_ns)
{
    uint64_t n = (count + INT_MAX - 1) / INT_MAX;
    int rc = tp_enc_reserve(enc, (size_t)n * TP_ENC_RECORD_BYTES);
    for (; rc == 0 && count > 0; count -= count > INT_MAX ? INT_MAX : count)
        tp_enc_missed(enc, wall_ns, count > INT_MAX ? INT_MAX : (int)count);
    return rc;
}

/* One entry into the array, whole or not at all. */
static int add_entry(const struct tp_fill_src *src, struct shapes *cache, struct tp_enc *enc,
                     enum tp_read r, const struct tp_ring_view *v)
{
    struct tp_enc_mark mark = tp_enc_mark(enc);
    int rc = r == TP_READ_MISSED
        ? tp_records_missed(enc, v->missed, tp_clock_wall(src->clock, v->clock, v->ts))
        : add_event(src, cache, enc, v);
    if (rc < 0)
        tp_enc_rollback(enc, mark);
    return rc;
}

int tp_records_fill(const struct tp_fill_src *src, struct tp_enc *enc, struct tp_cursor *c,
                    size_t max_bytes, unsigned max_records, unsigned *budget,
                    struct tp_fill_result *res)
{
    struct tp_ring_view v;
    struct shapes cache;
    for (unsigned i = 0; i < SHAPES; i++)
        cache.at[i].valid = false;
    while (enc->len < max_bytes && (unsigned)tp_enc_nrecords(enc) < max_records) {
        struct tp_cursor before = *c;
        enum tp_read r = tp_ring_next(src->ring, c, &v, budget);
        if (r == TP_READ_END)
            return TP_FILL_DONE;
        if (r == TP_READ_PAUSE)
            return TP_FILL_MORE;
        int rc = add_entry(src, &cache, enc, r, &v);
        if (rc < 0) {
            *c = before;            /* not taken: it is still the cursor's next */
            return rc == -E2BIG ? TP_FILL_FULL : rc;
        }
        if (r == TP_READ_MISSED)
            res->missed += v.missed;
        else
            res->records++;
    }
    return TP_FILL_FULL;
}
