/* json.c: JSON strings (client/json.h). */
#include "json.h"

/* Length of the valid UTF-8 sequence at s (at most len bytes), or 0. */
size_t utf8_sequence(const unsigned char *s, size_t len)
{
    size_t n;
    unsigned min;

    if (s[0] < 0x80)
        return 1;
    else if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2, min = 0x80;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        n = 3, min = 0x800;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        n = 4, min = 0x10000;
    else
        return 0;
    if (n > len)
        return 0;
    unsigned cp = s[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

/* JSON strings: escapes as RFC 8259; a byte that is not UTF-8 as \u00XX. */
void put_json_string(FILE *f, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;

    fputc('"', f);
    for (size_t i = 0; i < len;) {
        size_t n = utf8_sequence(u + i, len - i);
        unsigned char c = u[i];
        if (n > 1) {
            fwrite(u + i, 1, n, f);
            i += n;
            continue;
        }
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c == '\r')
            fputs("\\r", f);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
        i++;
    }
    fputc('"', f);
}
