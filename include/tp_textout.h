/*
 * tp_textout: text written into a caller's buffer the way snprintf writes
 * it, without its format engine, for writers called once per event (a
 * symbol, a network address): always NUL-terminated, cut at size - 1, and
 * the length it wanted returned.  Header-only; no state beyond the struct.
 */
#ifndef TP_TEXTOUT_H
#define TP_TEXTOUT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct tp_out {
    char *buf;
    size_t size;            /* >= 1 */
    size_t at;              /* what has been written, or would have been */
};

static inline void tp_out_put(struct tp_out *o, const char *s, size_t n)
{
    if (o->at < o->size - 1)
        memcpy(o->buf + o->at, s, n < o->size - 1 - o->at ? n : o->size - 1 - o->at);
    o->at += n;
}

/* v in base 10 or 16 (lower case), at least width digits (zero-padded). */
static inline void tp_out_num(struct tp_out *o, uint64_t v, unsigned base, unsigned width)
{
    char d[24], *p = d + sizeof(d);
    do *--p = "0123456789abcdef"[v % base]; while ((v /= base) != 0);
    while ((size_t)(d + sizeof(d) - p) < width && p > d)
        *--p = '0';
    tp_out_put(o, p, (size_t)(d + sizeof(d) - p));
}

/* The NUL put in; the length wanted, as snprintf returns it. */
static inline int tp_out_end(struct tp_out *o)
{
    o->buf[o->at < o->size ? o->at : o->size - 1] = '\0';
    return o->at > INT_MAX ? INT_MAX : (int)o->at;
}

#endif
