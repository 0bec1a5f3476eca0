/*
 * Hist trigger commands and hist files.  See tp_khist.h.
 */
#include "tp_khist.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

unsigned tp_khist_size(unsigned max_keys)
{
    unsigned size = TP_KHIST_MIN_SIZE;
    while (size < max_keys && size < TP_KHIST_MAX_SIZE)
        size *= 2;
    return size >= max_keys ? size : 0;
}

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

int tp_khist_trigger(char *buf, size_t len, const char *const *keys, unsigned nkeys,
                     const char *value, unsigned size, const char *filter, int remove)
{
    if (nkeys == 0 || nkeys > TP_KHIST_MAX_KEYS)
        return -EINVAL;
    size_t o = 0;
    int n = snprintf(buf, len, "%shist:keys=", remove ? "!" : "");
    for (unsigned i = 0; n >= 0 && i < nkeys; i++) {
        o += (size_t)n;
        n = snprintf(buf + (o < len ? o : len), o < len ? len - o : 0, "%s%s", i ? "," : "",
                     keys[i]);
    }
    const char *f = filter ? skip_blanks(filter) : "";
    int flen = (int)strlen(f);
    while (flen > 0 && (f[flen - 1] == ' ' || f[flen - 1] == '\t'))
        flen--;                             /* the kernel strips them, and shows it without */
    if (n >= 0) {
        o += (size_t)n;
        n = snprintf(buf + (o < len ? o : len), o < len ? len - o : 0,
                     ":vals=hitcount%s%s:size=%u%s%.*s", value ? "," : "", value ? value : "",
                     size, flen ? " if " : "", flen, f);
    }
    if (n < 0)
        return -EINVAL;
    o += (size_t)n;
    return o < len ? (int)o : -ENAMETOOLONG;
}

/* A decimal number at *p (after blanks); false if there is none. */
static bool number(const char **p, uint64_t *v)
{
    const char *q = skip_blanks(*p);
    if (*q < '0' || *q > '9')
        return false;
    uint64_t x = 0;
    for (; *q >= '0' && *q <= '9'; q++) {
        unsigned d = (unsigned)(*q - '0');
        if (x > (UINT64_MAX - d) / 10)
            return false;
        x = x * 10 + d;
    }
    *v = x;
    *p = q;
    return true;
}

/* "NAME:" then a number; false if not so. */
static bool named_number(const char **p, uint64_t *v)
{
    const char *q = skip_blanks(*p);
    size_t n = strcspn(q, ": \t\n{},");
    if (n == 0 || q[n] != ':')
        return false;
    q += n + 1;
    if (!number(&q, v))
        return false;
    *p = q;
    return true;
}

/* One key line "{ K: V, K: V } hitcount: N[  F: S]" (p after '{'); false if malformed. */
static bool key_line(const char *p, unsigned nkeys, bool with_sum, struct tp_khist_entry *e)
{
    *e = (struct tp_khist_entry){ .nkeys = nkeys };
    for (unsigned i = 0; i < nkeys; i++) {
        if (!named_number(&p, &e->key[i]))
            return false;
        p = skip_blanks(p);
        if (*p != (i + 1 < nkeys ? ',' : '}'))
            return false;
        p++;
    }
    p = skip_blanks(p);
    if (strncmp(p, "hitcount:", 9) != 0 || !named_number(&p, &e->hits))
        return false;
    if (with_sum && !named_number(&p, &e->sum))
        return false;
    p = skip_blanks(p);
    return *p == '\n' || *p == '\0';
}

/* "    Hits: N" and friends. */
static void total_line(const char *p, struct tp_khist_totals *tot)
{
    static const struct { const char *name; size_t off; } names[] = {
        { "Hits:", offsetof(struct tp_khist_totals, hits) },
        { "Entries:", offsetof(struct tp_khist_totals, entries) },
        { "Dropped:", offsetof(struct tp_khist_totals, dropped) },
    };
    p = skip_blanks(p);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        size_t n = strlen(names[i].name);
        uint64_t v;
        const char *q = p + n;
        if (strncmp(p, names[i].name, n) == 0 && number(&q, &v))
            memcpy((char *)tot + names[i].off, &v, sizeof(v));
    }
}

/* Is the "# trigger info: " line at p (up to its end) the trigger's? */
static bool info_is(const char *p, const char *trigger)
{
    static const char sort[] = ":sort=hitcount";
    size_t n = strcspn(p, "\n"), t = strlen(trigger);
    if (n >= 9 && p[n - 9] == ' ' && p[n - 9 + 1] == '[' && p[n - 1] == ']')
        n -= 9;                             /* " [active]", " [paused]" */
    const char *s = memmem(p, n, sort, sizeof(sort) - 1);
    if (!s)
        return n == t && memcmp(p, trigger, n) == 0;
    size_t before = (size_t)(s - p), after = n - before - (sizeof(sort) - 1);
    return before + after == t && memcmp(p, trigger, before) == 0 &&
           memcmp(s + sizeof(sort) - 1, trigger + before, after) == 0;
}

int tp_khist_parse(const char *text, const char *trigger, unsigned nkeys, int with_sum,
                   tp_khist_entry_fn fn, void *arg, struct tp_khist_totals *tot)
{
    static const char info[] = "# trigger info: ";
    int n = 0;
    bool in = false, found = false;
    *tot = (struct tp_khist_totals){ 0 };
    if (nkeys == 0 || nkeys > TP_KHIST_MAX_KEYS)
        return -EINVAL;
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        const char *q = skip_blanks(p);
        if (strncmp(q, info, sizeof(info) - 1) == 0) {
            in = info_is(q + sizeof(info) - 1, trigger);
            found |= in;
        } else if (in && *q == '{') {
            struct tp_khist_entry e;
            if (!key_line(q + 1, nkeys, with_sum, &e))
                return -EINVAL;
            int rc = fn ? fn(arg, &e) : 0;
            if (rc < 0)
                return rc;
            n++;
        } else if (in && *q != '#') {
            total_line(q, tot);
        }
    }
    return found ? n : -ENOENT;
}
