/*
 * The kernel's symbols as a sorted table.  See tp_ksyms.h.
 */
#include "tp_ksyms.h"
#include "tp_textout.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
    uint64_t addr;
    uint32_t name;          /* offsets into the text copy */
    uint32_t module;        /* NO_MODULE for vmlinux */
    uint32_t order;         /* the line's place in the text: ties keep it */
};

#define NO_MODULE UINT32_MAX

struct tp_ksyms {
    char *text;
    struct entry *v;
    size_t n, cap;
};

static int cmp_entry(const void *pa, const void *pb)
{
    const struct entry *a = pa, *b = pb;
    if (a->addr != b->addr)
        return a->addr < b->addr ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static int push(struct tp_ksyms *k, struct entry e)
{
    if (k->n == k->cap) {
        size_t cap = k->cap ? k->cap * 2 : 4096;
        struct entry *v = realloc(k->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        k->v = v;
        k->cap = cap;
    }
    k->v[k->n++] = e;
    return 0;
}

/* One line "ADDR TYPE NAME[\t[MODULE]]", cut in place; false if it is not one to keep. */
static bool parse_line(char *line, char *base, struct entry *e)
{
    char *end;
    errno = 0;
    e->addr = strtoull(line, &end, 16);
    if (errno || end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
        return false;
    char type = end[1];
    char *name = end + 3;
    size_t len = strcspn(name, " \t");
    if (len == 0 || name[0] == '$' || type == 'A' || type == 'a')
        return false;
    char *rest = name + len;
    e->module = NO_MODULE;
    if (*rest) {
        char *mod = strchr(rest, '[');
        char *close = mod ? strchr(mod, ']') : NULL;
        if (close && close > mod + 1) {
            *close = '\0';
            e->module = (uint32_t)(mod + 1 - base);
        }
    }
    *rest = '\0';
    e->name = (uint32_t)(name - base);
    return true;
}

static int parse_text(struct tp_ksyms *k)
{
    uint64_t any = 0;
    uint32_t order = 0;
    for (char *line = k->text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        struct entry e;
        if (!parse_line(line, k->text, &e))
            continue;
        e.order = order++;
        any |= e.addr;
        if (push(k, e) < 0)
            return -ENOMEM;
    }
    if (!any)
        k->n = 0;           /* every address hidden: nothing to tell apart */
    qsort(k->v, k->n, sizeof(*k->v), cmp_entry);
    return 0;
}

int tp_ksyms_create(struct tp_ksyms **out, const char *text)
{
    struct tp_ksyms *k = calloc(1, sizeof(*k));
    int rc = -ENOMEM;
    if (!k || !(k->text = strdup(text)))
        goto out;
    if (strlen(k->text) >= UINT32_MAX)
        goto out;           /* offsets into it are 32 bits */
    rc = parse_text(k);
out:
    if (rc < 0) {
        tp_ksyms_destroy(k);
        k = NULL;
    }
    *out = k;
    return rc;
}

void tp_ksyms_destroy(struct tp_ksyms *k)
{
    if (!k)
        return;
    free(k->v);
    free(k->text);
    free(k);
}

size_t tp_ksyms_count(const struct tp_ksyms *k)
{
    return k ? k->n : 0;
}

/* The index of the first entry whose start is the greatest at or below addr; n if none. */
static size_t find_index(const struct tp_ksyms *k, uint64_t addr)
{
    size_t lo = 0, hi = k->n;       /* the answer is below hi */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->v[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || (lo == k->n && k->v[lo - 1].addr != addr))
        return k->n;                /* below the first, or beyond the last's start */
    size_t i = lo - 1;
    while (i > 0 && k->v[i - 1].addr == k->v[i].addr)
        i--;
    return i;
}

bool tp_ksyms_find(const struct tp_ksyms *k, uint64_t addr, struct tp_ksym *sym)
{
    if (!k || k->n == 0)
        return false;
    size_t i = find_index(k, addr);
    if (i == k->n)
        return false;
    const struct entry *e = &k->v[i];
    sym->addr = e->addr;
    sym->name = k->text + e->name;
    sym->module = e->module == NO_MODULE ? NULL : k->text + e->module;
    return true;
}

static void out_hex(struct tp_out *o, uint64_t v)
{
    tp_out_put(o, "0x", 2);
    tp_out_num(o, v, 16, 1);
}

/* snprintf's work without its engine: event text calls this for each %pS. */
int tp_ksyms_format(const struct tp_ksyms *k, uint64_t addr, bool with_offset,
                    char *buf, size_t size)
{
    struct tp_out o = { buf, size, 0 };
    struct tp_ksym s;
    if (!tp_ksyms_find(k, addr, &s)) {
        out_hex(&o, addr);
        return tp_out_end(&o);
    }
    tp_out_put(&o, s.name, strlen(s.name));
    if (with_offset) {
        tp_out_put(&o, "+", 1);
        out_hex(&o, addr - s.addr);
    }
    if (s.module) {
        tp_out_put(&o, " [", 2);
        tp_out_put(&o, s.module, strlen(s.module));
        tp_out_put(&o, "]", 1);
    }
    return tp_out_end(&o);
}

#define FOLD_MAX_FRAMES 512

/* One frame as folded stacks have it, into buf; its length (cut to size - 1). */
static size_t fold_frame(const struct tp_ksyms *k, uint64_t addr, char *buf, size_t size)
{
    struct tp_ksym s;
    int n = tp_ksyms_find(k, addr, &s)
        ? snprintf(buf, size, "%s%s%s%s", s.name, s.module ? "[" : "",
                   s.module ? s.module : "", s.module ? "]" : "")
        : snprintf(buf, size, "0x%" PRIx64, addr);
    return n < 0 ? 0 : (size_t)n >= size ? size - 1 : (size_t)n;
}

static uint64_t fnv1a(uint64_t h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
    return h;
}

size_t tp_ksyms_fold(const struct tp_ksyms *k, const void *frames, unsigned n,
                     char *buf, size_t size)
{
    char name[256];
    size_t room = size - 1, used = 0;   /* of the innermost frames kept, ';' included */
    unsigned kept = 0;
    uint64_t h = 0xcbf29ce484222325ull;
    size_t len[FOLD_MAX_FRAMES];
    if (n > FOLD_MAX_FRAMES)
        n = FOLD_MAX_FRAMES;        /* a kernel_stack entry holds far fewer */
    for (unsigned i = 0; i < n; i++) {
        uint64_t a;
        memcpy(&a, (const char *)frames + 8 * (size_t)i, 8);
        len[i] = fold_frame(k, a, name, sizeof(name));
        h = fnv1a(fnv1a(h, name, len[i]), ";", 1);
        if (kept == i && used + len[i] + (i ? 1 : 0) <= room) {
            used += len[i] + (i ? 1 : 0);
            kept++;
        }
    }
    if (kept < n)                       /* cut: make room for the mark */
        while (kept && used + TP_KSYMS_FOLD_CUT > room)
        {
            kept--;
            used -= len[kept] + (kept ? 1 : 0);
        }
    size_t o = 0;
    if (kept < n)
        o = (size_t)snprintf(buf, size, "...%016" PRIx64 ";", h);
    for (unsigned i = kept; i-- > 0; ) {   /* outermost kept first */
        uint64_t a;
        memcpy(&a, (const char *)frames + 8 * (size_t)i, 8);
        o += fold_frame(k, a, buf + o, size - o);
        if (i && o < room)
            buf[o++] = ';';
    }
    if (o && buf[o - 1] == ';')
        o--;                            /* cut with no frame kept */
    buf[o] = '\0';
    return o;
}
