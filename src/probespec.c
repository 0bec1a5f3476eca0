/*
 * Probe specs to the kernel's fetchargs.  See tp_probespec.h.
 */
#include "tp_probespec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH_MAX_BYTES  4095
#define SYMBOL_MAX      255
#define DEREF_MAX_DEPTH 4
#define REG_MAX         8
#define ARRAY_MAX       64
#define STACK_MAX       2047
#define SHOW_MAX        64
#define FETCH_BUF       (2 * TP_PROBE_SPEC_MAX + 16)

/* A piece of the spec, not NUL-terminated. */
struct slice {
    const char *p;
    size_t n;
};

/* What a parse carries: the target, the probe so far, where reasons go. */
struct ctx {
    enum tp_probe_arch arch;
    bool is_return;
    char *err;
    size_t errlen;
    struct slice word;          /* the word being parsed, for reasons */
};

/* A fetcharg as the kernel will read it, being written. */
struct fetch_buf {
    char b[FETCH_BUF];
    size_t n;
};

enum fetch_kind { F_ARG, F_REG, F_RETVAL, F_COMM, F_STACK, F_DEREF };

/* A TYPE: its text, and what it asks of the fetcharg. */
struct type {
    struct slice text;          /* n == 0: none given */
    bool memory;                /* string, ustring or an array: reads memory */
    bool string;                /* exactly "string" (the one $comm takes) */
};

static const char *const int_types[] = {
    "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "x8", "x16", "x32", "x64",
};

static const char *const x86_64_args[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };
static const char *const arm64_args[] = { "%x0", "%x1", "%x2", "%x3",
                                          "%x4", "%x5", "%x6", "%x7" };

enum tp_probe_arch tp_probe_host_arch(void)
{
#if defined(__x86_64__)
    return TP_ARCH_X86_64;
#elif defined(__aarch64__)
    return TP_ARCH_ARM64;
#else
    return TP_ARCH_NONE;
#endif
}

/* User text for a reason: at most SHOW_MAX bytes, non-printable bytes as '?'. */
static const char *show(char buf[SHOW_MAX + 4], struct slice s)
{
    size_t k = 0;
    for (; k < s.n && k < SHOW_MAX; k++)
        buf[k] = s.p[k] >= 0x20 && s.p[k] < 0x7f ? s.p[k] : '?';
    if (s.n > SHOW_MAX) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    buf[k] = '\0';
    return buf;
}

__attribute__((format(printf, 3, 4)))
static int fail(const struct ctx *c, int code, const char *fmt, ...)
{
    va_list ap;
    if (c->errlen == 0)
        return code;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
    return code;
}

/* A reason about the word being parsed: "'WORD': what is wrong". */
__attribute__((format(printf, 3, 4)))
static int word_fail(const struct ctx *c, int code, const char *fmt, ...)
{
    char shown[SHOW_MAX + 4];
    va_list ap;
    if (c->errlen == 0)
        return code;
    int n = snprintf(c->err, c->errlen, "'%s': ", show(shown, c->word));
    if (n < 0 || (size_t)n >= c->errlen)
        return code;
    va_start(ap, fmt);
    vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return code;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_xdigit(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static unsigned xdigit_value(char c)
{
    if (is_digit(c))
        return (unsigned)(c - '0');
    return (unsigned)((c | 0x20) - 'a' + 10);
}

static bool slice_is(struct slice s, const char *lit)
{
    return s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0;
}

static bool has_hex_prefix(struct slice s)
{
    return s.n >= 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X');
}

/* Decimal or 0xHEX, the whole slice, no overflow. */
static bool parse_u64(struct slice s, uint64_t *v)
{
    bool hex = has_hex_prefix(s);
    unsigned base = hex ? 16 : 10;
    size_t i = hex ? 2 : 0;
    uint64_t x = 0;
    if (i == s.n)
        return false;
    for (; i < s.n; i++) {
        if (hex ? !is_xdigit(s.p[i]) : !is_digit(s.p[i]))
            return false;
        unsigned d = xdigit_value(s.p[i]);
        if (x > (UINT64_MAX - d) / base)
            return false;
        x = x * base + d;
    }
    *v = x;
    return true;
}

/* A small decimal without leading zeros ("0" itself allowed), capped at cap + 1. */
static bool parse_small(struct slice s, unsigned cap, unsigned *v)
{
    unsigned x = 0;
    if (s.n == 0 || (s.n > 1 && s.p[0] == '0'))
        return false;
    for (size_t i = 0; i < s.n; i++) {
        if (!is_digit(s.p[i]))
            return false;
        if (x <= cap)
            x = x * 10 + (unsigned)(s.p[i] - '0');
    }
    *v = x > cap ? cap + 1 : x;
    return true;
}

static bool name_ok(struct slice s)
{
    if (s.n == 0 || s.n > TP_PROBE_NAME_MAX || !(is_alpha(s.p[0]) || s.p[0] == '_'))
        return false;
    for (size_t i = 1; i < s.n; i++)
        if (!is_alpha(s.p[i]) && !is_digit(s.p[i]) && s.p[i] != '_')
            return false;
    return true;
}

bool tp_probe_name_ok(const char *s)
{
    return s && name_ok((struct slice){ s, strnlen(s, TP_PROBE_NAME_MAX + 1) });
}

static bool symbol_char(char c, bool first)
{
    return is_alpha(c) || c == '_' || c == '.' || c == '$' || c == '@' ||
           (!first && is_digit(c));
}

static bool symbol_ok(struct slice s)
{
    if (s.n == 0 || s.n > SYMBOL_MAX)
        return false;
    for (size_t i = 0; i < s.n; i++)
        if (!symbol_char(s.p[i], i == 0))
            return false;
    return true;
}

static char *dup_slice(struct slice s)
{
    char *d = malloc(s.n + 1);
    if (d) {
        memcpy(d, s.p, s.n);
        d[s.n] = '\0';
    }
    return d;
}

/* The spec as a whole: present, short enough, one line of printable text. */
static int check_text(const struct ctx *c, const char *text)
{
    if (!text)
        return fail(c, -EINVAL, "no probe spec");
    size_t n = strnlen(text, TP_PROBE_SPEC_MAX + 1);
    if (n > TP_PROBE_SPEC_MAX)
        return fail(c, -E2BIG, "probe spec longer than %d bytes", TP_PROBE_SPEC_MAX);
    for (size_t i = 0; i < n; i++) {
        unsigned char b = (unsigned char)text[i];
        if ((b < 0x20 && b != '\t') || b == 0x7f)
            return fail(c, -EINVAL, "control character 0x%02x at byte %zu of the probe spec",
                        b, i);
    }
    if (text[strspn(text, " \t")] == '\0')
        return fail(c, -EINVAL, "empty probe spec");
    return 0;
}

/* The next word from *pos on; false when there is none. */
static bool next_word(const char *text, size_t *pos, struct slice *w)
{
    size_t i = *pos;
    while (is_blank(text[i]))
        i++;
    if (!text[i])
        return false;
    w->p = text + i;
    while (text[i] && !is_blank(text[i]))
        i++;
    w->n = (size_t)(text + i - w->p);
    *pos = i;
    return true;
}

/* ---- the place: PATH:, SYMBOL or address, +OFFSET, %return ---- */

static int split_path(struct ctx *c, struct slice *loc, struct tp_probe_spec *s)
{
    const char *colon = NULL;
    for (size_t i = 0; i < loc->n; i++)
        if (loc->p[i] == ':')
            colon = loc->p + i;
    if (!colon)
        return word_fail(c, -EINVAL, "a uprobe is PATH:SYMBOL (no ':')");
    struct slice path = { loc->p, (size_t)(colon - loc->p) };
    if (path.n == 0 || path.p[0] != '/')
        return word_fail(c, -EINVAL, "the path is not absolute");
    if (path.n > PATH_MAX_BYTES)
        return word_fail(c, -EINVAL, "the path is longer than %d bytes", PATH_MAX_BYTES);
    s->path = dup_slice(path);
    if (!s->path)
        return fail(c, -ENOMEM, "out of memory");
    loc->p = colon + 1;
    loc->n -= path.n + 1;
    return 0;
}

/* SYMBOL or 0xADDRESS, up to the first '+' or '%'. */
static int parse_symbol(struct ctx *c, struct slice head, struct tp_probe_spec *s)
{
    if (head.n == 0)
        return word_fail(c, -EINVAL, "no symbol");
    if (has_hex_prefix(head)) {
        if (!parse_u64(head, &s->offset))
            return word_fail(c, -EINVAL, "bad address (want 0xHEX)");
        return 0;
    }
    if (head.n > SYMBOL_MAX)
        return word_fail(c, -EINVAL, "the symbol is longer than %d bytes", SYMBOL_MAX);
    if (!symbol_ok(head))
        return word_fail(c, -EINVAL,
                         "bad symbol (want [A-Za-z_.$@][A-Za-z0-9_.$@]* or 0xADDRESS)");
    s->symbol = dup_slice(head);
    return s->symbol ? 0 : fail(c, -ENOMEM, "out of memory");
}

/* +OFFSET: from just after the '+' to the '%' or the end. */
static int parse_offset(struct ctx *c, struct slice *rest, struct tp_probe_spec *s)
{
    const char *pct = memchr(rest->p, '%', rest->n);
    struct slice num = { rest->p + 1, (pct ? (size_t)(pct - rest->p) : rest->n) - 1 };
    if (!s->symbol)
        return word_fail(c, -EINVAL, "+OFFSET after a symbol only, not an address");
    if (!parse_u64(num, &s->offset))
        return word_fail(c, -EINVAL, "bad +OFFSET (want decimal or 0xHEX)");
    rest->p += num.n + 1;
    rest->n -= num.n + 1;
    return 0;
}

static int parse_return(struct ctx *c, struct slice rest, struct tp_probe_spec *s)
{
    static const char ret[] = "%return";
    size_t n = sizeof(ret) - 1;
    if (rest.n < n || memcmp(rest.p, ret, n) != 0)
        return word_fail(c, -EINVAL, "unknown suffix (only %%return)");
    if (rest.n >= 2 * n && memcmp(rest.p + n, ret, n) == 0)
        return word_fail(c, -EINVAL, "duplicate %%return");
    if (rest.n > n)
        return word_fail(c, -EINVAL, "junk after %%return");
    s->is_return = true;
    c->is_return = true;
    return 0;
}

static int parse_place(struct ctx *c, struct slice loc, enum tp_probe_kind kind,
                       struct tp_probe_spec *s)
{
    int rc = kind == TP_PROBE_UPROBE ? split_path(c, &loc, s) : 0;
    size_t k = 0;
    while (k < loc.n && loc.p[k] != '+' && loc.p[k] != '%')
        k++;
    if (rc == 0)
        rc = parse_symbol(c, (struct slice){ loc.p, k }, s);
    struct slice rest = { loc.p + k, loc.n - k };
    if (rc == 0 && rest.n && rest.p[0] == '+')
        rc = parse_offset(c, &rest, s);
    if (rc == 0 && rest.n)
        rc = parse_return(c, rest, s);
    return rc;
}

/* ---- fetchargs ---- */

static int put(const struct ctx *c, struct fetch_buf *o, const char *p, size_t n)
{
    if (n >= sizeof(o->b) - o->n)
        return fail(c, -E2BIG, "fetcharg too long");
    memcpy(o->b + o->n, p, n);
    o->n += n;
    o->b[o->n] = '\0';
    return 0;
}

static int put_str(const struct ctx *c, struct fetch_buf *o, const char *s)
{
    return put(c, o, s, strlen(s));
}

static int map_arg(const struct ctx *c, struct slice f, struct fetch_buf *o)
{
    unsigned n;
    const char *const *regs = c->arch == TP_ARCH_X86_64 ? x86_64_args
                              : c->arch == TP_ARCH_ARM64 ? arm64_args : NULL;
    unsigned nregs = c->arch == TP_ARCH_X86_64 ? 6 : c->arch == TP_ARCH_ARM64 ? 8 : 0;
    if (!parse_small((struct slice){ f.p + 4, f.n - 4 }, 1000, &n) || n == 0)
        return word_fail(c, -EINVAL, "bad $argN (N is 1, 2, ...)");
    if (c->is_return)
        return word_fail(c, -EINVAL,
                         "$argN on a %%return probe (the arguments are gone at return)");
    if (!regs)
        return word_fail(c, -ENOTSUP,
                         "$argN has no register mapping on this architecture (use %%REG)");
    if (n > nregs)
        return word_fail(c, -ENOTSUP, "$argN beyond the %u argument registers of %s", nregs,
                         c->arch == TP_ARCH_X86_64 ? "x86_64" : "arm64");
    return put_str(c, o, regs[n - 1]);
}

static int parse_var(const struct ctx *c, struct slice f, struct fetch_buf *o,
                     enum fetch_kind *kind)
{
    unsigned n;
    if (slice_is(f, "$retval")) {
        *kind = F_RETVAL;
        if (!c->is_return)
            return word_fail(c, -EINVAL, "$retval needs a %%return probe");
    } else if (slice_is(f, "$comm")) {
        *kind = F_COMM;
    } else if (f.n >= 6 && memcmp(f.p, "$stack", 6) == 0) {
        *kind = F_STACK;
        if (f.n > 6 && (!parse_small((struct slice){ f.p + 6, f.n - 6 }, STACK_MAX, &n) ||
                        n > STACK_MAX))
            return word_fail(c, -EINVAL, "bad $stackN (N is 0..%d)", STACK_MAX);
    } else if (f.n >= 4 && memcmp(f.p, "$arg", 4) == 0) {
        *kind = F_ARG;
        return map_arg(c, f, o);
    } else {
        return word_fail(c, -EINVAL,
                         "unknown variable (want $argN, $retval, $comm, $stack or $stackN)");
    }
    return put(c, o, f.p, f.n);
}

static int parse_reg(const struct ctx *c, struct slice f, struct fetch_buf *o)
{
    bool ok = f.n >= 2 && f.n <= 1 + REG_MAX;
    for (size_t i = 1; ok && i < f.n; i++)
        ok = (f.p[i] >= 'a' && f.p[i] <= 'z') || is_digit(f.p[i]);
    if (!ok)
        return word_fail(c, -EINVAL, "bad register (want %%REG, REG lowercase, 1..%d "
                         "letters or digits)", REG_MAX);
    return put(c, o, f.p, f.n);
}

static int parse_fetch(const struct ctx *c, struct slice f, unsigned depth,
                       struct fetch_buf *o, enum fetch_kind *kind);

/* [+-]OFF(FETCHARG), the offset written back in decimal. */
static int parse_deref(const struct ctx *c, struct slice f, unsigned depth,
                       struct fetch_buf *o)
{
    char num[24];
    const char *open = memchr(f.p, '(', f.n);
    uint64_t off;
    enum fetch_kind inner;
    if (!open || f.p[f.n - 1] != ')')
        return word_fail(c, -EINVAL, "bad dereference (want +OFF(FETCHARG))");
    if (!parse_u64((struct slice){ f.p + 1, (size_t)(open - f.p) - 1 }, &off) ||
        off > INT64_MAX)
        return word_fail(c, -EINVAL, "bad dereference offset (want decimal or 0xHEX)");
    if (depth >= DEREF_MAX_DEPTH)
        return word_fail(c, -EINVAL, "dereferences nested deeper than %d", DEREF_MAX_DEPTH);
    snprintf(num, sizeof(num), "%c%llu(", f.p[0], (unsigned long long)off);
    int rc = put_str(c, o, num);
    struct slice in = { open + 1, (size_t)(f.p + f.n - 1 - (open + 1)) };
    if (rc == 0)
        rc = parse_fetch(c, in, depth + 1, o, &inner);
    if (rc == 0 && inner == F_COMM)
        return word_fail(c, -EINVAL, "$comm cannot be dereferenced");
    return rc ? rc : put(c, o, ")", 1);
}

static int parse_fetch(const struct ctx *c, struct slice f, unsigned depth,
                       struct fetch_buf *o, enum fetch_kind *kind)
{
    if (f.n == 0)
        return word_fail(c, -EINVAL, "empty fetcharg");
    switch (f.p[0]) {
    case '$':
        return parse_var(c, f, o, kind);
    case '%':
        *kind = F_REG;
        return parse_reg(c, f, o);
    case '+':
    case '-':
        *kind = F_DEREF;
        return parse_deref(c, f, depth, o);
    default:
        return word_fail(c, -EINVAL, "unknown fetcharg (want $argN, $retval, $comm, "
                         "$stack, $stackN, %%REG or +OFF(FETCHARG))");
    }
}

/* ---- types ---- */

static bool int_type(struct slice s)
{
    for (size_t i = 0; i < sizeof(int_types) / sizeof(int_types[0]); i++)
        if (slice_is(s, int_types[i]))
            return true;
    return false;
}

/* u8[16]: an integer type and a count 1..ARRAY_MAX. */
static bool array_type(struct slice s)
{
    const char *open = memchr(s.p, '[', s.n);
    unsigned n;
    if (!open || s.p[s.n - 1] != ']')
        return false;
    struct slice base = { s.p, (size_t)(open - s.p) };
    struct slice count = { open + 1, s.n - base.n - 2 };
    return int_type(base) && parse_small(count, ARRAY_MAX, &n) && n >= 1 && n <= ARRAY_MAX;
}

static int parse_type(const struct ctx *c, struct slice s, struct type *t)
{
    t->text = s;
    t->string = slice_is(s, "string");
    t->memory = t->string || slice_is(s, "ustring");
    if (s.n == 0 || t->memory || int_type(s))
        return 0;
    if (array_type(s)) {
        t->memory = true;
        return 0;
    }
    return word_fail(c, -EINVAL, "unknown type (want s8..s64, u8..u64, x8..x64, string, "
                     "ustring, or an integer type with a count 1..%d: u8[16])", ARRAY_MAX);
}

/* What a type asks of the fetcharg's top: $comm, memory, a bare register. */
static int match_type(const struct ctx *c, enum fetch_kind kind, const struct type *t,
                      struct fetch_buf *o)
{
    if (kind == F_COMM && t->text.n && !t->string)
        return word_fail(c, -EINVAL, "$comm takes no type or string");
    if (!t->memory || kind == F_COMM || kind == F_DEREF)
        return 0;
    if (kind == F_RETVAL || kind == F_STACK)
        return word_fail(c, -EINVAL, "a string or array type reads memory: "
                         "dereference it, e.g. +0($retval)");
    /* A register holding a pointer: read where it points. */
    struct fetch_buf wrapped = { .n = 0 };
    int rc = put_str(c, &wrapped, "+0(");
    if (rc == 0)
        rc = put(c, &wrapped, o->b, o->n);
    if (rc == 0)
        rc = put(c, &wrapped, ")", 1);
    if (rc == 0)
        *o = wrapped;
    return rc;
}

/* ---- arguments ---- */

static int check_name(const struct ctx *c, struct slice name, const struct tp_probe_spec *s,
                      unsigned i)
{
    if (!name_ok(name))
        return word_fail(c, -EINVAL, "bad argument name (want [A-Za-z_][A-Za-z0-9_]*, "
                         "1..%d bytes)", TP_PROBE_NAME_MAX);
    if ((name.n >= 7 && memcmp(name.p, "common_", 7) == 0) ||
        (name.n >= 2 && memcmp(name.p, "__", 2) == 0))
        return word_fail(c, -EINVAL, "argument names common_* and __* are the kernel's");
    for (unsigned k = 0; k < i; k++)
        if (slice_is(name, s->args[k].name))
            return word_fail(c, -EINVAL, "argument name used twice");
    return 0;
}

/* NAME=FETCHARG[:TYPE] into s->args[i]. */
static int parse_arg(struct ctx *c, struct slice w, struct tp_probe_spec *s, unsigned i)
{
    struct tp_probe_arg *a = &s->args[i];
    const char *eq = memchr(w.p, '=', w.n);
    if (!eq)
        return word_fail(c, -EINVAL, "an argument is NAME=FETCHARG[:TYPE]");
    struct slice name = { w.p, (size_t)(eq - w.p) };
    struct slice rest = { eq + 1, w.n - name.n - 1 };
    const char *colon = memchr(rest.p, ':', rest.n);
    struct slice fetch = { rest.p, colon ? (size_t)(colon - rest.p) : rest.n };
    struct slice type = { colon ? colon + 1 : rest.p + rest.n, colon ? rest.n - fetch.n - 1 : 0 };
    struct type t;
    struct fetch_buf o = { .n = 0 };
    enum fetch_kind kind;
    int rc = check_name(c, name, s, i);
    if (rc == 0 && fetch.n == 0)
        return word_fail(c, -EINVAL, "nothing after '='");
    if (rc == 0 && colon && type.n == 0)
        return word_fail(c, -EINVAL, "nothing after ':'");
    if (rc == 0)
        rc = parse_type(c, type, &t);
    if (rc == 0)
        rc = parse_fetch(c, fetch, 0, &o, &kind);
    if (rc == 0)
        rc = match_type(c, kind, &t, &o);
    if (rc)
        return rc;
    memcpy(a->name, name.p, name.n);
    a->name[name.n] = '\0';
    a->fetch = dup_slice((struct slice){ o.b, o.n });
    a->type = type.n ? dup_slice(type) : NULL;
    return a->fetch && (a->type || !type.n) ? 0 : fail(c, -ENOMEM, "out of memory");
}

static unsigned count_words(const char *text)
{
    size_t pos = 0;
    unsigned n = 0;
    struct slice w;
    while (next_word(text, &pos, &w))
        n++;
    return n;
}

static int parse_words(struct ctx *c, const char *text, enum tp_probe_kind kind,
                       struct tp_probe_spec *s)
{
    unsigned nwords = count_words(text);
    size_t pos = 0;
    if (nwords - 1 > TP_PROBE_MAX_ARGS)
        return fail(c, -E2BIG, "%u arguments (at most %d)", nwords - 1, TP_PROBE_MAX_ARGS);
    next_word(text, &pos, &c->word);
    int rc = parse_place(c, c->word, kind, s);
    if (rc || nwords == 1)
        return rc;
    s->args = calloc(nwords - 1, sizeof(*s->args));
    if (!s->args)
        return fail(c, -ENOMEM, "out of memory");
    s->nargs = nwords - 1;
    for (unsigned i = 0; rc == 0 && next_word(text, &pos, &c->word); i++)
        rc = parse_arg(c, c->word, s, i);
    return rc;
}

int tp_probespec_parse(const char *text, enum tp_probe_kind kind, enum tp_probe_arch arch,
                       struct tp_probe_spec *out, char *err, size_t errlen)
{
    struct ctx c = { .arch = arch, .err = err, .errlen = errlen };
    struct tp_probe_spec s = { .kind = kind };
    memset(out, 0, sizeof(*out));
    if (errlen)
        err[0] = '\0';
    int rc = kind == TP_PROBE_UPROBE || kind == TP_PROBE_KPROBE
             ? check_text(&c, text) : fail(&c, -EINVAL, "unknown probe kind");
    if (rc == 0)
        rc = parse_words(&c, text, kind, &s);
    if (rc) {
        tp_probespec_free(&s);
        return rc;
    }
    *out = s;
    return 0;
}

void tp_probespec_free(struct tp_probe_spec *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < s->nargs; i++) {
        free(s->args[i].fetch);
        free(s->args[i].type);
    }
    free(s->args);
    free(s->path);
    free(s->symbol);
    memset(s, 0, sizeof(*s));
}

int tp_probespec_fetchargs(const struct tp_probe_spec *s, char **out)
{
    size_t len = 1, o = 0;
    unsigned nargs = s ? s->nargs : 0;
    for (unsigned i = 0; i < nargs; i++) {
        const struct tp_probe_arg *a = &s->args[i];
        len += strlen(a->name) + strlen(a->fetch) + 2 + (a->type ? strlen(a->type) + 1 : 0);
    }
    char *b = malloc(len);
    *out = b;
    if (!b)
        return -ENOMEM;
    b[0] = '\0';
    for (unsigned i = 0; i < nargs; i++) {
        const struct tp_probe_arg *a = &s->args[i];
        o += (size_t)snprintf(b + o, len - o, "%s%s=%s%s%s", i ? " " : "", a->name, a->fetch,
                              a->type ? ":" : "", a->type ? a->type : "");
    }
    return 0;
}
