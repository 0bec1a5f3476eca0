/*
 * What records carry: the words of tracepoint.control.params and params=.
 * See tp_with.h.
 */
#include "tp_with.h"
#include "tp_util.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <pcp/pmapi.h>

static const char *const with_words[] = { "fields", "comm", "text", "stack" };

/* A word for a message: at most 32 bytes, non-printable bytes as '?'. */
static const char *show_word(char buf[36], const char *p, size_t n)
{
    size_t k = 0;
    for (; k < n && k < 32; k++)
        buf[k] = p[k] >= 0x20 && p[k] < 0x7f ? p[k] : '?';
    if (n > 32) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    buf[k] = '\0';
    return buf;
}

int tp_with_parse(const char *text, unsigned *with, char *err, size_t errlen)
{
    unsigned w = 0;
    bool none = false;
    if (text[strspn(text, ", \t\n")] == '\0') {
        *with = TP_WITH_DEFAULT;
        return 0;
    }
    for (const char *p = text; *p; ) {
        size_t n = strcspn(p, ", \t\n");
        unsigned bit = 0;
        for (unsigned i = 0; i < sizeof(with_words) / sizeof(with_words[0]); i++)
            if (n == strlen(with_words[i]) && strncmp(p, with_words[i], n) == 0)
                bit = 1u << i;
        if (n == 4 && strncmp(p, "none", 4) == 0)
            none = true;
        else if (n > 0 && !bit) {
            char shown[36];
            return tp_errf(err, errlen, PM_ERR_BADSTORE,
                           "unknown record parameter '%s' (want fields, comm, text, stack or none)",
                           show_word(shown, p, n));
        }
        w |= bit;
        p += n;
        p += strspn(p, ", \t\n");
    }
    if (none && w)
        return tp_errf(err, errlen, PM_ERR_BADSTORE, "'none' with other record parameters");
    *with = w;
    return 0;
}

void tp_with_format(unsigned with, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < sizeof(with_words) / sizeof(with_words[0]) && n < len; i++)
        if (with & (1u << i))
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "", with_words[i]);
    if (n == 0)
        snprintf(buf, len, "none");
}
