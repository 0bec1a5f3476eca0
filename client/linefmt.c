/* linefmt.c: printf-free pieces of the text line (client/linefmt.h). */
#include "linefmt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char digits2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* v's decimal digits, right-aligned ending at end; returns where they start. */
static char *digits_before(char *end, uint64_t v)
{
    while (v >= 100) {
        end -= 2;
        memcpy(end, &digits2[(v % 100) * 2], 2);
        v /= 100;
    }
    if (v >= 10) {
        end -= 2;
        memcpy(end, &digits2[v * 2], 2);
    } else {
        *--end = (char)('0' + v);
    }
    return end;
}

size_t lf_u64(char *dst, uint64_t v)
{
    char tmp[LF_U64_MAX];
    char *start = digits_before(tmp + sizeof(tmp), v);
    size_t n = (size_t)(tmp + sizeof(tmp) - start);

    memcpy(dst, start, n);
    return n;
}

size_t lf_i64(char *dst, int64_t v)
{
    if (v >= 0)
        return lf_u64(dst, (uint64_t)v);
    dst[0] = '-';
    return 1 + lf_u64(dst + 1, -(uint64_t)v);       /* INT64_MIN too */
}

size_t lf_u32_03(char *dst, uint32_t v)
{
    if (v >= 100)
        return lf_u64(dst, v);
    dst[0] = '0';
    dst[1] = (char)('0' + v / 10);
    dst[2] = (char)('0' + v % 10);
    return 3;
}

size_t lf_nanos(char *dst, uint32_t v)
{
    char tmp[LF_U64_MAX];
    char *start = digits_before(tmp + sizeof(tmp), v % 1000000000u);
    size_t n = (size_t)(tmp + sizeof(tmp) - start);

    memset(dst, '0', 9 - n);
    memcpy(dst + 9 - n, start, n);
    return 9;
}

static bool plain(unsigned char c)
{
    return c >= 0x20 && c != 0x7f;
}

size_t lf_escaped(char *dst, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0, i = 0;

    while (i < len) {
        size_t run = i;
        while (run < len && plain((unsigned char)s[run]))
            run++;
        memcpy(dst + o, s + i, run - i);    /* the usual case: all of s */
        o += run - i;
        if ((i = run) >= len)
            break;
        unsigned char c = (unsigned char)s[i++];
        dst[o++] = '\\';
        if (c == '\n')
            dst[o++] = 'n';
        else if (c == '\t')
            dst[o++] = 't';
        else {
            dst[o++] = 'x';
            dst[o++] = hex[c >> 4];
            dst[o++] = hex[c & 0xf];
        }
    }
    return o;
}

int lb_reserve(struct linebuf *lb, size_t more)
{
    if (lb->cap - lb->len >= more)
        return 0;
    size_t cap = lb->cap > 0 ? lb->cap : 4096;
    while (cap - lb->len < more) {
        if (cap > SIZE_MAX / 2)
            return -ENOMEM;
        cap *= 2;
    }
    char *p = realloc(lb->p, cap);
    if (p == NULL)
        return -ENOMEM;
    lb->p = p;
    lb->cap = cap;
    return 0;
}

void lb_free(struct linebuf *lb)
{
    free(lb->p);
    *lb = (struct linebuf){ 0 };
}
