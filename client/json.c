/* json.c: JSON strings and arrays (client/json.h). */
#include "json.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

size_t utf8_sequence(const unsigned char *s, size_t len, size_t *skip)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xbf;
    size_t n;

    *skip = 1;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        lo = c == 0xe0 ? 0xa0 : 0x80;       /* no overlong forms */
        hi = c == 0xed ? 0x9f : 0xbf;       /* no surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        lo = c == 0xf0 ? 0x90 : 0x80;       /* no overlong forms */
        hi = c == 0xf4 ? 0x8f : 0xbf;       /* nothing past U+10FFFF */
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if (i >= len || s[i] < lo || s[i] > hi) {
            *skip = i;
            return 0;
        }
        lo = 0x80;
        hi = 0xbf;
    }
    return n;
}

/* An ASCII byte a JSON string holds as it is. */
static bool json_plain(unsigned char c)
{
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

void put_json_string(FILE *f, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;

    fputc('"', f);
    for (size_t i = 0; i < len;) {
        size_t skip, n = utf8_sequence(u + i, len - i, &skip);
        unsigned char c = u[i];
        if (n == 0) {
            fputs("\\ufffd", f);
            i += skip;
            continue;
        }
        if (n == 1 && json_plain(c)) {     /* a run of them in one write */
            size_t run = i + 1;
            while (run < len && json_plain(u[run]))
                run++;
            fwrite(u + i, 1, run - i, f);
            i = run;
            continue;
        }
        if (n > 1)
            fwrite(u + i, 1, n, f);
        else if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
        i += n;
    }
    fputc('"', f);
}

/* One element of `size` bytes at p, in this machine's byte order, widened. */
static void put_element(FILE *f, const unsigned char *p, struct elem e)
{
    union { uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64; } v;
    memcpy(&v, p, e.size);
    uint64_t u = e.size == 1 ? v.u8 : e.size == 2 ? v.u16 : e.size == 4 ? v.u32 : v.u64;
    if (e.is_signed) {
        unsigned shift = 64 - 8 * e.size;
        fprintf(f, "%" PRId64, (int64_t)(u << shift) >> shift);     /* sign-extended */
    } else {
        fprintf(f, "%" PRIu64, u);
    }
}

int put_json_array(FILE *f, const void *p, size_t len, struct elem e)
{
    const unsigned char *b = p;

    if ((e.size != 1 && e.size != 2 && e.size != 4 && e.size != 8) || len % e.size != 0)
        return -1;
    fputc('[', f);
    for (size_t i = 0; i < len; i += e.size) {
        fputs(i ? "," : "", f);
        put_element(f, b + i, e);
    }
    fputc(']', f);
    return 0;
}
