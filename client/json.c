/* json.c: JSON strings and arrays (client/json.h). */
#include "json.h"

#include <inttypes.h>
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

int put_json_array(FILE *f, const void *p, size_t len, struct elem e)
{
    const unsigned char *b = p;

    if ((e.size != 1 && e.size != 2 && e.size != 4 && e.size != 8) || len % e.size != 0)
        return -1;
    fputc('[', f);
    for (size_t i = 0; i < len; i += e.size) {
        fputs(i ? "," : "", f);
        switch (e.size) {
        case 1:
            if (e.is_signed)
                fprintf(f, "%d", (int)(int8_t)b[i]);
            else
                fprintf(f, "%u", (unsigned)b[i]);
            break;
        case 2: {
            uint16_t v;
            memcpy(&v, b + i, sizeof(v));
            if (e.is_signed)
                fprintf(f, "%d", (int)(int16_t)v);
            else
                fprintf(f, "%u", (unsigned)v);
            break;
        }
        case 4: {
            uint32_t v;
            memcpy(&v, b + i, sizeof(v));
            if (e.is_signed)
                fprintf(f, "%" PRId32, (int32_t)v);
            else
                fprintf(f, "%" PRIu32, v);
            break;
        }
        default: {
            uint64_t v;
            memcpy(&v, b + i, sizeof(v));
            if (e.is_signed)
                fprintf(f, "%" PRId64, (int64_t)v);
            else
                fprintf(f, "%" PRIu64, v);
            break;
        }
        }
    }
    fputc(']', f);
    return 0;
}
