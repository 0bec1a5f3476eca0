/*
 * Field values in raw event records.  See tp_fields.h.
 * Offsets are added in 64 bits: a field's offset comes from a format file
 * and may be anything, and a location word from the record.
 */
#include "tp_fields.h"

#include <string.h>

#include <pcp/pmapi.h>

bool tp_field_locate(const struct tp_field *f, const void *rec, uint32_t len,
                     uint32_t *off, uint32_t *n)
{
    const unsigned char *d = rec;
    bool dloc = f->kind == TP_FIELD_DLOC_STRING || f->kind == TP_FIELD_DLOC_BYTES;
    bool rloc = f->kind == TP_FIELD_RLOC_STRING || f->kind == TP_FIELD_RLOC_BYTES;
    uint64_t start, size;
    if (dloc || rloc) {
        if ((uint64_t)f->offset + 4 > len)
            return false;
        uint32_t w = (uint32_t)tp_field_scalar(d + f->offset, 4, false);
        start = (w & 0xffff) + (rloc ? (uint64_t)f->offset + 4 : 0);
        size = w >> 16;
    } else {
        start = f->offset;
        size = f->size ? f->size : (start <= len ? len - start : 0);
    }
    if (start > len || size > len - start)
        return false;
    *off = (uint32_t)start;
    *n = (uint32_t)size;
    return true;
}

bool tp_field_value(const struct tp_field *f, const void *rec, uint32_t len,
                    struct tp_field_value *v)
{
    const unsigned char *d = rec;
    uint32_t off, n;
    if (!tp_field_locate(f, rec, len, &off, &n))
        return false;
    switch (f->pmtype) {
    case PM_TYPE_32: case PM_TYPE_U32: case PM_TYPE_64: case PM_TYPE_U64:
        if (n != 1 && n != 2 && n != 4 && n != 8)
            return false;
        v->v.u = tp_field_scalar(d + off, n, tp_field_signed(f->pmtype));
        v->len = 0;
        break;
    case PM_TYPE_STRING:
        v->v.u = 0;
        v->len = (uint32_t)strnlen((const char *)d + off, n);
        break;
    default:
        v->v.u = 0;
        v->len = 0;
        break;
    }
    v->off = off;
    v->n = n;
    return true;
}
