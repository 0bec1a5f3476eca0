/*
 * tp_encode: PCP event arrays (pmEventArray, the value of a PM_TYPE_EVENT
 * metric) written directly into one growing buffer.
 *
 * The bytes are those libpcp_pmda's pmdaEventNewArray/AddRecord/
 * AddMissedRecord/AddParam/GetAddr produce for the same calls, except that
 * the padding after a string or aggregate value (to 4 bytes) is zero where
 * libpcp_pmda leaves whatever the buffer held.  test/test_encode.c holds
 * the two side by side, byte for byte.
 *
 * tp_records decides what goes in a record; this room decides how the bytes
 * look.  Writing is split in two so the hot path checks capacity once per
 * record: tp_enc_reserve() makes room (it is the only call that allocates
 * or fails), then the tp_enc_record/missed/param calls write into that room
 * and cannot fail.  A failed reserve leaves the array as it was: every
 * record before it stays whole.
 *
 * Pure: no PCP library call (only the types of <pcp/pmapi.h>), no globals.
 * An encoder belongs to one thread at a time (the PMDA thread).
 */
#ifndef TP_ENCODE_H
#define TP_ENCODE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <pcp/pmapi.h>

/* An array's length field is 24 bits: no array is longer than this. */
#define TP_ENC_MAX_BYTES   ((size_t)(1u << 24) - 1)
/* Bytes of a record's header, and of the array's own header. */
#define TP_ENC_RECORD_BYTES (sizeof(pmEventRecord) - sizeof(pmEventParameter))
#define TP_ENC_ARRAY_BYTES  (sizeof(pmEventArray) - sizeof(pmEventRecord))

struct tp_enc {
    unsigned char *buf;
    size_t cap;             /* bytes allocated */
    size_t len;             /* bytes written, array header included */
    size_t rec;             /* offset of the record being written */
    int nrecords;
    int nparams;            /* of the record being written */
    size_t limit;           /* the array never grows past this (0: TP_ENC_MAX_BYTES) */
};

/* An empty encoder that holds no memory. */
void tp_enc_init(struct tp_enc *e);
/* Free the buffer; the encoder is empty again.  Accepts NULL. */
void tp_enc_release(struct tp_enc *e);
/*
 * Start a new, empty array in the same buffer.  Returns 0, or -ENOMEM if
 * not even the header has room (the encoder then holds no array).
 */
int tp_enc_reset(struct tp_enc *e);
/*
 * Make room for n more bytes.  Returns 0; -E2BIG if the array would pass
 * its limit (the array is full); -ENOMEM.  Never moves written bytes out of
 * place (a realloc copies them whole).
 */
int tp_enc_grow(struct tp_enc *e, size_t n);
static inline int tp_enc_reserve(struct tp_enc *e, size_t n)
{
    return n <= e->cap - e->len ? 0 : tp_enc_grow(e, n);
}

/* The most the array may hold from now on (at most TP_ENC_MAX_BYTES; 0: that). */
static inline void tp_enc_set_limit(struct tp_enc *e, size_t limit)
{
    e->limit = limit && limit < TP_ENC_MAX_BYTES ? limit : TP_ENC_MAX_BYTES;
}

/* Bytes a parameter of vlen value bytes takes (its header, the value, padding). */
static inline size_t tp_enc_param_bytes(size_t vlen)
{
    return sizeof(pmEventParameter) + ((vlen + 3) & ~(size_t)3);
}

/* These write into reserved room. */
/* A new record: wall-clock time in ns since the epoch, PM_EVENT_FLAG_* flags. */
void tp_enc_record(struct tp_enc *e, uint64_t wall_ns, unsigned flags);
/* A missed record: count events could not be delivered (1..INT_MAX). */
void tp_enc_missed(struct tp_enc *e, uint64_t wall_ns, int count);
/* A parameter of the current record: PM_TYPE_32/U32 (v in the low 32 bits) or 64/U64. */
void tp_enc_param_int(struct tp_enc *e, pmID pmid, int type, uint64_t v);
/* A PM_TYPE_STRING (n bytes, no NUL) or PM_TYPE_AGGREGATE (n raw bytes) parameter. */
void tp_enc_param_data(struct tp_enc *e, pmID pmid, int type, const void *data, size_t n);

/*
 * A shape: the bytes the records of one kind share, built once and copied
 * for each record by tp_enc_shaped(), which writes the record's own time
 * and flags; tp_enc_shape_put() then writes each slot's value.  It holds a
 * record's header and its first parameters: constants (an event's name)
 * and integers, whose headers are fixed and whose values vary, each in a
 * slot.  After tp_enc_shaped() the record takes more parameters as any
 * other.  The bytes are those tp_enc_record and tp_enc_param_* write for
 * the same parameters and values.
 */
#define TP_ENC_SHAPE_BYTES 256
#define TP_ENC_SHAPE_SLOTS 20     /* as many 4-byte integers as the bytes hold */

struct tp_enc_shape {
    unsigned char bytes[TP_ENC_SHAPE_BYTES];
    uint16_t len;
    uint16_t at[TP_ENC_SHAPE_SLOTS];    /* where each slot's value is, from the record */
    uint8_t wide[TP_ENC_SHAPE_SLOTS];   /* 1: 8 bytes, 0: 4 */
    unsigned nslots;
    int nparams;
};

/* A shape of a record with no parameters yet. */
void tp_enc_shape_init(struct tp_enc_shape *s);
/* A constant parameter, as tp_enc_param_data.  0, or -E2BIG (the shape as it was). */
int tp_enc_shape_data(struct tp_enc_shape *s, pmID pmid, int type, const void *data, size_t n);
/* An integer parameter, as tp_enc_param_int: its slot, or -E2BIG (the shape as it was). */
int tp_enc_shape_int(struct tp_enc_shape *s, pmID pmid, int type);
/* A record of shape s, into reserved room of s->len bytes: where it starts. */
unsigned char *tp_enc_shaped(struct tp_enc *e, const struct tp_enc_shape *s, uint64_t wall_ns,
                             unsigned flags);

static inline void tp_enc_shape_put(unsigned char *rec, const struct tp_enc_shape *s,
                                    unsigned slot, uint64_t v)
{
    uint32_t w = (uint32_t)v;
    if (s->wide[slot])
        memcpy(rec + s->at[slot], &v, sizeof(v));
    else
        memcpy(rec + s->at[slot], &w, sizeof(w));
}

/* A point to go back to: what was written before it stays, the rest goes. */
struct tp_enc_mark {
    size_t len, rec;
    int nrecords, nparams;
};
static inline struct tp_enc_mark tp_enc_mark(const struct tp_enc *e)
{
    return (struct tp_enc_mark){ e->len, e->rec, e->nrecords, e->nparams };
}
static inline void tp_enc_rollback(struct tp_enc *e, struct tp_enc_mark m)
{
    e->len = m.len;
    e->rec = m.rec;
    e->nrecords = m.nrecords;
    e->nparams = m.nparams;
}

/* Records written since the last reset. */
static inline int tp_enc_nrecords(const struct tp_enc *e) { return e->nrecords; }

/*
 * Complete the array's header and return it, ready to hand to pmcd as the
 * value of a PM_TYPE_EVENT metric.  Valid until the next call on e.
 */
pmValueBlock *tp_enc_finish(struct tp_enc *e);

/*
 * Walk a finished array as a reader would: -1 if every record and parameter
 * lies exactly within its length, else the offset where it goes wrong.
 */
long tp_enc_check(const pmValueBlock *vb);

#endif
