/*
 * tp_fields: a field's value in a raw event record (the bytes the kernel
 * wrote, common fields first), as its tp_field describes it.
 *
 * Pure: no PCP library call, no allocation, no state.  Every read is checked
 * against the record's length: a field that does not lie wholly inside the
 * record (a truncated record, a __data_loc/__rel_loc word pointing outside
 * it, a scalar of a size other than 1, 2, 4 or 8) is absent, and nothing
 * outside [rec, rec + len) is ever read.
 *
 * Threading: any thread.
 */
#ifndef TP_FIELDS_H
#define TP_FIELDS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <pcp/pmapi.h>

#include "tp_catalog.h"

struct tp_field_value {
    uint32_t off;           /* the field's bytes: rec + off .. rec + off + n */
    uint32_t n;             /* (after following __data_loc / __rel_loc) */
    uint32_t len;           /* PM_TYPE_STRING: bytes before the first NUL within n */
    union {
        int64_t i;          /* PM_TYPE_32 / PM_TYPE_64: sign-extended */
        uint64_t u;         /* PM_TYPE_U32 / PM_TYPE_U64: zero-extended */
    } v;
};

/*
 * Where field f's bytes are in the record (len bytes at rec): a fixed
 * field's own bytes (size 0: to the end of the record), or the data a
 * __data_loc (offset from the record's start) or __rel_loc (offset from just
 * after the location word) word points at.  False if they are not all
 * inside the record.
 */
bool tp_field_locate(const struct tp_field *f, const void *rec, uint32_t len,
                     uint32_t *off, uint32_t *n);

/*
 * Field f's value, as f->pmtype says: a scalar in v->v (from exactly n = 1,
 * 2, 4 or 8 bytes, host byte order), a string (rec + off, len bytes, not
 * NUL-terminated) or raw bytes (rec + off, n bytes) for PM_TYPE_AGGREGATE
 * and anything else.  Returns false, with *v untouched, if the field is
 * absent from this record.
 */
bool tp_field_value(const struct tp_field *f, const void *rec, uint32_t len,
                    struct tp_field_value *v);

/*
 * The integer of size bytes (1, 2, 4 or 8; any other reads 8) at p, in host
 * byte order, sign-extended if sign, else zero-extended: v.i's or v.u's
 * bits.  The caller has checked that the bytes lie inside the record (as
 * tp_field_value does, or once for records of a known length).
 */
static inline uint64_t tp_field_scalar(const unsigned char *p, uint32_t size, bool sign)
{
    switch (size) {
    case 1: return sign ? (uint64_t)(int64_t)(int8_t)p[0] : p[0];
    case 2: { uint16_t v; memcpy(&v, p, 2); return sign ? (uint64_t)(int64_t)(int16_t)v : v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return sign ? (uint64_t)(int64_t)(int32_t)v : v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

/* Whether a field of PCP type pmtype is read sign-extended (PM_TYPE_32, PM_TYPE_64). */
static inline bool tp_field_signed(int pmtype)
{
    return pmtype == PM_TYPE_32 || pmtype == PM_TYPE_64;
}

#endif
