/*
 * filter.c: the kernel's ftrace event-filter language (include/tp_filter.h),
 * compiled against one event's fields and evaluated on raw records.
 *
 * The aim is that a record passes here exactly when the kernel's filter of
 * the same text would pass it (kernel/trace/trace_events_filter.c, Linux
 * 6.x), since the kernel gets the OR of every consumer's filter and this
 * file then tells the consumers apart.  So the kernel's habits are copied,
 * odd ones included.  Where this file departs from the kernel it refuses the
 * expression rather than give a different answer.
 *
 * Fields.  A name is looked up as the kernel does: the event's own fields
 * first, then the generic fields cpu, CPU, common_cpu, comm, COMM, then the
 * common fields.  So on an event with its own `comm` (sched_wakeup) or `cpu`
 * field, that field is meant, not the generic one.  Byte arrays (kinds
 * *_BYTES) are refused: the kernel compares few of them.  Field modifiers
 * (.function, .ustring) and CPUS{...} values are refused too.
 *
 * Numbers.  As kstrtoll (signed fields, cpu) or kstrtoull (unsigned fields)
 * with base 0: decimal, 0x hex, leading-0 octal, '-' only for signed fields,
 * 64 bits at most, and shorter than 24 characters as in the kernel.  Like
 * the kernel, the value is then cut to the field's width: on a u8 field
 * `x == 256` is `x == 0`, on an s8 field `x == 255` is `x == -1`.  Signed
 * fields compare signed, unsigned ones (pointers too) unsigned.  cpu is an
 * int as in the kernel (so `cpu > -1` is accepted and always true); `cpu &`
 * is refused, because the kernel accepts it but never matches it.  A quoted
 * value on a numeric field is refused (as the kernel does).
 *
 * Strings.  A value is "double-quoted" or 'single-quoted' (no escapes;
 * shorter than 256 bytes, as in the kernel).  Bare words are refused, as
 * kernels since 4.17 refuse them.  The field's
 * string is bounded by its size (char[N]) or by its __data_loc/__rel_loc
 * length.  Matching is the kernel's, bound for bound:
 *   ==, !=   strncmp(field, value, bound) == 0: equal up to a NUL, or equal
 *            over the whole bound (a char[4] "bash" without NUL equals
 *            "bashful", as in the kernel).
 *   ~ "x*"   the bound holds at least strlen(x) bytes and they are x.
 *   ~ "*x*"  x occurs anywhere in the bound, NULs and all (strnstr).
 *   ~ "*x"   x ends just before the bound's last byte, which is taken to be
 *            the NUL: right for __data_loc strings, but on char[16] "bash"
 *            `~ "*sh"` does NOT match -- the kernel's behaviour, kept.
 *   ~ other  glob_match() with * ? [...] [!...] and \ escapes, over the
 *            string up to its NUL or the bound.
 *   A '~' value starting with '!' is negated (`~ "!ba*"` is "not ba*"), and
 *   one starting with a digit (after any '!') is compared with ==, not as a
 *   glob: both as in the kernel's filter_parse_regex().
 * Where the kernel has no bound (a char[] of size 0, running to the end of
 * the record, and an empty __data_loc string) it reads a C string: here the
 * string ends at a NUL or the end of the record (or is "" when empty), ==
 * is exact, "*x*" stops at the NUL, and "*x" never matches (the kernel's
 * regex_match_end() with len 0).
 *
 * comm/COMM is the task's name at the event, which the record does not hold:
 * the caller passes it (tp_filter_match_comm(), from the producer's name
 * history), compared as the kernel compares a char[16].  Unknown (NULL),
 * it is treated as a kernel-only predicate below.
 *
 * Kernel-only predicates.  Strings compared with a `char *` field (the
 * kernel follows the pointer) cannot be evaluated here: the filter compiles
 * and tp_filter_kernel_only() is true.  tp_filter_match() then treats each
 * such predicate as unknown and answers false only when the record fails
 * whatever those predicates would say; so `pid == 1 && name == "sh"` is
 * false for pid 2 and true for pid 1.
 *
 * Records.  Every read is checked against len.  A predicate whose field (or
 * whose __data_loc data) lies outside the record is false, whatever its
 * operator: `pid != 5` is false on a record too short to hold pid, and
 * `!(pid == 5)` is true.
 *
 * Syntax the kernel accepts and this file refuses: a trailing "&&" or "||"
 * (the kernel ignores it), a lone "!" at the end.  Limits: TP_FILTER_MAX_LEN
 * bytes, TP_FILTER_MAX_NODES predicates + "&&" + "||" + "!" (parentheses are
 * free), parentheses nested MAX_DEPTH deep; beyond them -E2BIG.
 *
 * Compiled form: the predicates in text order, each with the index of the
 * next predicate to test when it is true and when it is false (n: match,
 * n + 1: no match).  "!" swaps the two, so evaluation is a loop with no
 * stack, and && and || short-circuit.  Targets always point forward.
 */
#include "tp_filter.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH       64      /* nested parentheses */
#define MAX_STR_VAL     256     /* the kernel's MAX_FILTER_STR_VAL */
#define MAX_NUM_LEN     24      /* the kernel's num_buf */
#define SHOW_MAX        64      /* bytes of user text quoted in a message */
#define NO_NODE         0xffffu
#define POOL_SIZE       (TP_FILTER_MAX_LEN + TP_FILTER_MAX_NODES)
#define REACH_WORDS     ((TP_FILTER_MAX_NODES + 2 + 63) / 64)

/* What a predicate reads. */
enum cls {
    C_SIGNED,           /* a signed number in the record */
    C_UNSIGNED,         /* an unsigned number in the record */
    C_CPU,              /* the cpu argument, an int */
    C_STR,              /* char[size] at offset (size 0: to the end) */
    C_DLOC,             /* __data_loc char[] */
    C_RLOC,             /* __rel_loc char[] */
    C_KERNEL,           /* only the kernel knows (a char * field's string) */
    C_COMM,             /* the task's name, given with the record */
};

enum op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_BAND, OP_GLOB };
enum match { M_FULL, M_FRONT, M_MIDDLE, M_END, M_GLOB };
enum { R_FALSE, R_TRUE, R_MAYBE };
enum { N_PRED, N_AND, N_OR };
enum { NUM_OK, NUM_BAD, NUM_NEG, NUM_RANGE, NUM_LONG };

struct pred {
    uint64_t val;           /* numbers: the value, cut and extended like the field */
    const char *pat;        /* strings: the pattern, NUL-terminated */
    uint32_t offset;
    uint32_t size;
    uint16_t plen;
    uint16_t t, f;          /* next predicate if true / false */
    uint8_t cls;            /* enum cls */
    uint8_t op;             /* enum op (numbers) or enum match (strings) */
    uint8_t inv;            /* invert the comparison: != and "~ \"!...\"" */
};

struct tp_filter {
    unsigned n;
    bool kernel_only;
    bool uses_comm;
    struct pred p[];        /* then the patterns */
};

/* ------------------------------------------------------------ compiling */

/* A parsed subexpression: a predicate, or an && / || of its children. */
struct node {
    uint8_t type;
    bool neg;
    uint16_t first;         /* N_PRED: predicate index; else the first child */
    uint16_t next;          /* next sibling */
    uint16_t leaves;        /* predicates below */
};

/* A field as a predicate sees it. */
struct target {
    const char *name;
    size_t nlen;
    uint8_t cls;
    uint32_t offset;
    uint32_t size;
};

struct span {
    const char *p;
    size_t n;
};

struct cc {
    const char *s;
    size_t pos;
    const struct tp_event *e;
    char *err;
    size_t errlen;
    int rc;
    unsigned count;         /* predicates and operators */
    bool kernel_only;
    bool uses_comm;
    unsigned npred, nnode;
    size_t npool;
    struct pred pred[TP_FILTER_MAX_NODES];
    struct node node[TP_FILTER_MAX_NODES];
    char pool[POOL_SIZE];
};

static int parse_or(struct cc *cc, unsigned depth);

__attribute__((format(printf, 3, 0)))
static void vsay(char *err, size_t errlen, const char *fmt, va_list ap)
{
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
}

/* Write the reason into err (cut to errlen) and return rc. */
__attribute__((format(printf, 4, 5)))
static int say(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(err, errlen, fmt, ap);
    va_end(ap);
    return rc;
}

/* Record the first error of a compilation; returns -1 for the parser. */
__attribute__((format(printf, 3, 4)))
static int fail(struct cc *cc, int rc, const char *fmt, ...)
{
    if (cc->rc == 0) {
        va_list ap;
        cc->rc = rc;
        va_start(ap, fmt);
        vsay(cc->err, cc->errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* User text for a message: printable ASCII, at most SHOW_MAX bytes. */
static const char *show(char buf[SHOW_MAX + 4], const char *p, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < SHOW_MAX; i++)
        buf[k++] = p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?';
    if (n > SHOW_MAX) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    buf[k] = '\0';
    return buf;
}

static bool is_space(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_ident(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_string(uint8_t cls)
{
    return cls == C_STR || cls == C_DLOC || cls == C_RLOC || cls == C_KERNEL || cls == C_COMM;
}

/* The next non-blank character; pos is left on it. */
static char peek(struct cc *cc)
{
    while (is_space(cc->s[cc->pos]))
        cc->pos++;
    return cc->s[cc->pos];
}

static int count(struct cc *cc)
{
    if (++cc->count > TP_FILTER_MAX_NODES)
        return fail(cc, -E2BIG, "more than %d predicates and operators at column %zu",
                    TP_FILTER_MAX_NODES, cc->pos + 1);
    return 0;
}

static int new_node(struct cc *cc, uint8_t type, unsigned first, unsigned leaves)
{
    if (cc->nnode == TP_FILTER_MAX_NODES)
        return fail(cc, -E2BIG, "expression too complex at column %zu", cc->pos + 1);
    cc->node[cc->nnode] = (struct node){ type, false, (uint16_t)first, NO_NODE,
                                         (uint16_t)leaves };
    return (int)cc->nnode++;
}

/* ---- fields */

static bool is_word(const char *name, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(name, word, n) == 0;
}

static const struct tp_field *find(const struct tp_field *f, unsigned nf,
                                   const char *name, size_t n)
{
    for (unsigned i = 0; f && i < nf; i++)
        if (f[i].name && is_word(name, n, f[i].name))
            return &f[i];
    return NULL;
}

/* "char *" or "const char *": a string the kernel reaches through a pointer. */
static bool is_pchar(const struct tp_field *f)
{
    if (!f->decl || !f->name)
        return false;
    size_t d = strlen(f->decl), n = strlen(f->name);
    if (d < n + 2 || strcmp(f->decl + d - n, f->name) != 0 || f->decl[d - n - 1] != ' ')
        return false;
    size_t t = d - n - 1;
    return (t == 6 && memcmp(f->decl, "char *", 6) == 0) ||
           (t == 12 && memcmp(f->decl, "const char *", 12) == 0);
}

static int number_field(struct cc *cc, const struct tp_field *f, struct target *t, size_t col)
{
    char buf[SHOW_MAX + 4];
    if (f->kind == TP_FIELD_UINT && is_pchar(f)) {
        t->cls = C_KERNEL;
        return 0;
    }
    if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
        return fail(cc, -EINVAL, "field '%s' is a %u-byte number; only 1, 2, 4 and 8 "
                    "bytes can be compared (column %zu)", show(buf, t->name, t->nlen),
                    (unsigned)f->size, col);
    t->cls = f->kind == TP_FIELD_INT ? C_SIGNED : C_UNSIGNED;
    return 0;
}

static int from_field(struct cc *cc, const struct tp_field *f, struct target *t, size_t col)
{
    char buf[SHOW_MAX + 4];
    t->offset = f->offset;
    t->size = f->size;
    switch (f->kind) {
    case TP_FIELD_INT:
    case TP_FIELD_UINT:
        return number_field(cc, f, t, col);
    case TP_FIELD_STRING:
        t->cls = C_STR;
        return 0;
    case TP_FIELD_DLOC_STRING:
        t->cls = C_DLOC;
        return 0;
    case TP_FIELD_RLOC_STRING:
        t->cls = C_RLOC;
        return 0;
    default:
        return fail(cc, -EINVAL, "field '%s' holds raw bytes, which filters cannot compare "
                    "(column %zu)", show(buf, t->name, t->nlen), col);
    }
}

/* Look a name up as the kernel does: own fields, generic fields, common fields. */
static int resolve(struct cc *cc, struct target *t, size_t col)
{
    const char *name = t->name;
    size_t n = t->nlen;
    const struct tp_field *f = find(cc->e->fields, cc->e->nfields, name, n);
    if (f)
        return from_field(cc, f, t, col);
    if (is_word(name, n, "cpu") || is_word(name, n, "CPU") || is_word(name, n, "common_cpu")) {
        t->cls = C_CPU;
        t->size = 4;
        return 0;
    }
    if (is_word(name, n, "comm") || is_word(name, n, "COMM")) {
        t->cls = C_COMM;
        return 0;
    }
    if ((f = find(cc->e->common, cc->e->ncommon, name, n)))
        return from_field(cc, f, t, col);
    char buf[SHOW_MAX + 4];
    return fail(cc, -EINVAL, "unknown field '%s' at column %zu", show(buf, name, n), col);
}

static int parse_field(struct cc *cc, struct target *t)
{
    peek(cc);
    size_t start = cc->pos;
    while (is_ident(cc->s[cc->pos]))
        cc->pos++;
    *t = (struct target){ .name = cc->s + start, .nlen = cc->pos - start };
    if (t->nlen == 0)
        return fail(cc, -EINVAL, "expected a field name at column %zu", start + 1);
    if (cc->s[cc->pos] == '.')
        return fail(cc, -EINVAL, "field modifiers such as '.function' are not supported "
                    "(column %zu)", cc->pos + 1);
    return resolve(cc, t, start + 1);
}

/* ---- operators */

static int op_at(const char *s, size_t *len)
{
    *len = 2;
    switch (s[0]) {
    case '~':
        *len = 1;
        return OP_GLOB;
    case '!':
        return s[1] == '=' ? OP_NE : -1;
    case '=':
        return s[1] == '=' ? OP_EQ : -1;
    case '<':
        return s[1] == '=' ? OP_LE : (*len = 1, OP_LT);
    case '>':
        return s[1] == '=' ? OP_GE : (*len = 1, OP_GT);
    case '&':
        *len = 1;
        return OP_BAND;
    default:
        return -1;
    }
}

static const char *op_text(int op)
{
    switch (op) {
    case OP_GLOB: return "~";
    case OP_NE:   return "!=";
    case OP_EQ:   return "==";
    case OP_LE:   return "<=";
    case OP_LT:   return "<";
    case OP_GE:   return ">=";
    case OP_GT:   return ">";
    default:      return "&";
    }
}

static int check_op(struct cc *cc, const struct target *t, int op, size_t col)
{
    char buf[SHOW_MAX + 4];
    const char *name = show(buf, t->name, t->nlen);
    bool str = is_string(t->cls);
    if (str && op != OP_EQ && op != OP_NE && op != OP_GLOB)
        return fail(cc, -EINVAL, "operator '%s' needs a numeric field (%s is a string) "
                    "at column %zu", op_text(op), name, col);
    if (!str && op == OP_GLOB)
        return fail(cc, -EINVAL, "operator '~' needs a string field (%s is a number) "
                    "at column %zu", name, col);
    if (t->cls == C_CPU && op == OP_BAND)
        return fail(cc, -EINVAL, "operator '&' is not supported on %s (the kernel never "
                    "matches it) at column %zu", name, col);
    return 0;
}

static int parse_op(struct cc *cc, const struct target *t)
{
    size_t len;
    peek(cc);
    size_t col = cc->pos + 1;
    int op = op_at(cc->s + cc->pos, &len);
    if (op < 0) {
        char buf[SHOW_MAX + 4];
        return fail(cc, -EINVAL, "expected an operator (== != < <= > >= & ~) after '%s' "
                    "at column %zu", show(buf, t->name, t->nlen), col);
    }
    cc->pos += len;
    return check_op(cc, t, op, col) < 0 ? -1 : op;
}

/* ---- values */

static unsigned digit_value(char c)
{
    if (is_digit(c))
        return (unsigned)(c - '0');
    if (c >= 'a' && c <= 'f')
        return (unsigned)(c - 'a' + 10);
    if (c >= 'A' && c <= 'F')
        return (unsigned)(c - 'A' + 10);
    return 99;
}

/* kstrtoll / kstrtoull with base 0, on the bytes s[0..n). */
static int parse_number(const char *s, size_t n, bool sign, uint64_t *out)
{
    if (n >= MAX_NUM_LEN)
        return NUM_LONG;
    bool neg = n && s[0] == '-';
    size_t i = neg;
    if (i == n || !is_digit(s[i]))
        return NUM_BAD;
    unsigned base = 10;
    if (s[i] == '0') {
        base = 8;
        if (i + 2 < n && (s[i + 1] == 'x' || s[i + 1] == 'X') && digit_value(s[i + 2]) < 16) {
            base = 16;
            i += 2;
        }
    }
    uint64_t v = 0;
    for (; i < n; i++) {
        unsigned d = digit_value(s[i]);
        if (d >= base)
            return NUM_BAD;
        if (v > (UINT64_MAX - d) / base)
            return NUM_RANGE;
        v = v * base + d;
    }
    if (neg && !sign)
        return NUM_NEG;
    if (sign && (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX))
        return NUM_RANGE;
    *out = neg ? 0 - v : v;
    return NUM_OK;
}

/* Cut v to size bytes and extend it back to 64 bits, as a load of the field would. */
static uint64_t extend(uint64_t v, uint32_t size, bool sign)
{
    if (size >= 8)
        return v;
    unsigned bits = (unsigned)size * 8;
    uint64_t mask = ((uint64_t)1 << bits) - 1;
    v &= mask;
    if (sign && (v >> (bits - 1)) & 1)
        v |= ~mask;
    return v;
}

/* A quoted string, or a bare word (a number, or refused later). */
static int scan_value(struct cc *cc, int op, struct span *v, bool *quoted)
{
    peek(cc);
    size_t start = cc->pos;
    char q = cc->s[start];
    *quoted = q == '"' || q == '\'';
    if (*quoted) {
        const char *end = strchr(cc->s + start + 1, q);
        if (!end)
            return fail(cc, -EINVAL, "missing closing quote for the value at column %zu",
                        start + 1);
        *v = (struct span){ cc->s + start + 1, (size_t)(end - cc->s) - start - 1 };
        cc->pos = (size_t)(end - cc->s) + 1;
        return 0;
    }
    for (char c; (c = cc->s[cc->pos]) && !is_space(c) && !strchr("()&|\"'", c); )
        cc->pos++;
    if (cc->pos == start)
        return fail(cc, -EINVAL, "expected a value after '%s' at column %zu", op_text(op),
                    start + 1);
    *v = (struct span){ cc->s + start, cc->pos - start };
    return 0;
}

static int number_pred(struct cc *cc, const struct target *t, int op, struct span v,
                       size_t col, struct pred *p)
{
    char name[SHOW_MAX + 4], val[SHOW_MAX + 4];
    uint64_t x = 0;
    bool sign = t->cls != C_UNSIGNED;
    show(name, t->name, t->nlen);
    show(val, v.p, v.n);
    switch (parse_number(v.p, v.n, sign, &x)) {
    case NUM_BAD:
        return fail(cc, -EINVAL, "invalid number '%s' at column %zu", val, col);
    case NUM_NEG:
        return fail(cc, -EINVAL, "negative number '%s' for unsigned field %s at column %zu",
                    val, name, col);
    case NUM_RANGE:
        return fail(cc, -EINVAL, "number '%s' is out of range (%s 64-bit) at column %zu",
                    val, sign ? "signed" : "unsigned", col);
    case NUM_LONG:
        return fail(cc, -EINVAL, "number '%s' is longer than %d characters at column %zu",
                    val, MAX_NUM_LEN - 1, col);
    }
    p->val = extend(x, t->size, sign);
    p->op = (uint8_t)(op == OP_NE ? OP_EQ : op);
    p->inv = op == OP_NE;
    return 0;
}

/* The kernel's filter_parse_regex(): which match a '~' value asks for. */
static void classify_glob(struct span *v, uint8_t *type, uint8_t *inv)
{
    const char *b = v->p;
    size_t len = v->n;
    *inv = len && b[0] == '!';
    b += *inv;
    len -= *inv;
    size_t end = len;
    *type = M_FULL;
    *v = (struct span){ b, len };
    if (len && is_digit(b[0]))
        return;                         /* MATCH_INDEX: compared whole */
    for (size_t i = 0; i < len; i++) {
        if (b[i] == '*' && i == 0) {
            *type = M_END;
        } else if (b[i] == '*' && i == len - 1) {
            *type = *type == M_END ? M_MIDDLE : M_FRONT;
            end = i;
            break;
        } else if (strchr("*[?\\", b[i])) {
            *type = M_GLOB;
            return;
        }
    }
    size_t start = len && b[0] == '*';
    *v = (struct span){ b + start, end - start };
}

static int string_pred(struct cc *cc, const struct target *t, int op, struct span v,
                       size_t col, struct pred *p)
{
    if (v.n >= MAX_STR_VAL)
        return fail(cc, -EINVAL, "string value longer than %d bytes at column %zu",
                    MAX_STR_VAL - 1, col);
    p->op = M_FULL;
    p->inv = op == OP_NE;
    if (op == OP_GLOB)
        classify_glob(&v, &p->op, &p->inv);
    if (cc->npool + v.n + 1 > POOL_SIZE)
        return fail(cc, -E2BIG, "expression too complex at column %zu", col);
    p->pat = cc->pool + cc->npool;
    p->plen = (uint16_t)v.n;
    memcpy(cc->pool + cc->npool, v.p, v.n);
    cc->npool += v.n;
    cc->pool[cc->npool++] = '\0';
    cc->kernel_only |= t->cls == C_KERNEL;
    cc->uses_comm |= t->cls == C_COMM;
    return 0;
}

static int parse_value(struct cc *cc, const struct target *t, int op, struct pred *p)
{
    struct span v = { NULL, 0 };
    bool quoted = false;
    peek(cc);
    size_t col = cc->pos + 1;
    if (scan_value(cc, op, &v, &quoted) < 0)
        return -1;
    if (is_string(t->cls) && !quoted) {
        char buf[SHOW_MAX + 4];
        return fail(cc, -EINVAL, "the value for %s needs quotes, as the kernel requires "
                    "(at column %zu)", show(buf, t->name, t->nlen), col);
    }
    if (is_string(t->cls))
        return string_pred(cc, t, op, v, col, p);
    if (quoted) {
        char buf[SHOW_MAX + 4];
        return fail(cc, -EINVAL, "a quoted value needs a string field (%s is a number) "
                    "at column %zu", show(buf, t->name, t->nlen), col);
    }
    return number_pred(cc, t, op, v, col, p);
}

/* ---- expressions */

static int parse_pred(struct cc *cc)
{
    struct target t;
    int op;
    if (count(cc) < 0 || parse_field(cc, &t) < 0 || (op = parse_op(cc, &t)) < 0)
        return -1;
    struct pred *p = &cc->pred[cc->npred];
    *p = (struct pred){ .offset = t.offset, .size = t.size, .cls = t.cls };
    if (parse_value(cc, &t, op, p) < 0)
        return -1;
    return new_node(cc, N_PRED, cc->npred++, 1);
}

static int parse_group(struct cc *cc, unsigned depth)
{
    size_t open = cc->pos;
    if (depth == MAX_DEPTH)
        return fail(cc, -E2BIG, "parentheses nested deeper than %d at column %zu",
                    MAX_DEPTH, open + 1);
    cc->pos++;
    int node = parse_or(cc, depth + 1);
    if (node < 0)
        return -1;
    char c = peek(cc);
    if (c == ')') {
        cc->pos++;
        return node;
    }
    if (c == '\0')
        return fail(cc, -EINVAL, "missing ')' for the '(' at column %zu", open + 1);
    return fail(cc, -EINVAL, "expected '&&', '||' or ')' at column %zu", cc->pos + 1);
}

static int parse_unary(struct cc *cc, unsigned depth)
{
    bool neg = false;
    while (peek(cc) == '!') {
        if (count(cc) < 0)
            return -1;
        neg = !neg;
        cc->pos++;
    }
    int node = peek(cc) == '(' ? parse_group(cc, depth) : parse_pred(cc);
    if (node >= 0 && neg)
        cc->node[node].neg = !cc->node[node].neg;
    return node;
}

typedef int (*parse_fn)(struct cc *cc, unsigned depth);

/* operand { op operand }: the operand alone, or a group of them. */
static int parse_list(struct cc *cc, unsigned depth, char op, uint8_t type, parse_fn operand)
{
    int first = operand(cc, depth), last = first;
    unsigned leaves = first < 0 ? 0 : cc->node[first].leaves, n = 1;
    while (last >= 0 && peek(cc) == op && cc->s[cc->pos + 1] == op) {
        cc->pos += 2;
        int next = count(cc) < 0 ? -1 : operand(cc, depth);
        if (next >= 0) {
            cc->node[last].next = (uint16_t)next;
            leaves += cc->node[next].leaves;
            n++;
        }
        last = next;
    }
    if (last < 0)
        return -1;
    return n == 1 ? first : new_node(cc, type, (unsigned)first, leaves);
}

static int parse_and(struct cc *cc, unsigned depth)
{
    return parse_list(cc, depth, '&', N_AND, parse_unary);
}

static int parse_or(struct cc *cc, unsigned depth)
{
    return parse_list(cc, depth, '|', N_OR, parse_and);
}

/* Give the predicates under node (numbered from first) their targets. */
static void gen(struct cc *cc, unsigned node, unsigned first, unsigned t, unsigned f)
{
    const struct node *nd = &cc->node[node];
    if (nd->neg) {
        unsigned x = t;
        t = f;
        f = x;
    }
    if (nd->type == N_PRED) {
        cc->pred[nd->first].t = (uint16_t)t;
        cc->pred[nd->first].f = (uint16_t)f;
        return;
    }
    for (unsigned c = nd->first; c != NO_NODE; c = cc->node[c].next) {
        unsigned next = first + cc->node[c].leaves;
        bool last = cc->node[c].next == NO_NODE;
        if (nd->type == N_AND)
            gen(cc, c, first, last ? t : next, f);
        else
            gen(cc, c, first, t, last ? f : next);
        first = next;
    }
}

static struct tp_filter *build(struct cc *cc, unsigned root)
{
    gen(cc, root, 0, cc->npred, cc->npred + 1);
    struct tp_filter *f = malloc(sizeof(*f) + cc->npred * sizeof(f->p[0]) + cc->npool);
    if (!f)
        return NULL;
    f->n = cc->npred;
    f->kernel_only = cc->kernel_only;
    f->uses_comm = cc->uses_comm;
    char *pool = (char *)&f->p[f->n];
    memcpy(pool, cc->pool, cc->npool);
    for (unsigned i = 0; i < f->n; i++) {
        f->p[i] = cc->pred[i];
        if (f->p[i].pat)
            f->p[i].pat = pool + (cc->pred[i].pat - cc->pool);
    }
    return f;
}

static int parse(struct cc *cc, struct tp_filter **out)
{
    int root = parse_or(cc, 0);
    char c = root < 0 ? '\0' : peek(cc);
    if (c == ')')
        fail(cc, -EINVAL, "unbalanced ')' at column %zu", cc->pos + 1);
    else if (c != '\0')
        fail(cc, -EINVAL, "expected '&&', '||' or the end at column %zu", cc->pos + 1);
    if (cc->rc == 0 && !(*out = build(cc, (unsigned)root)))
        fail(cc, -ENOMEM, "out of memory");
    return cc->rc;
}

static int check_args(const char *expr, const struct tp_event *e, char *err, size_t errlen)
{
    if (!expr || !e)
        return say(err, errlen, -EINVAL, "no %s", !expr ? "expression" : "event");
    if (!e->loaded || e->load_error < 0)
        return say(err, errlen, -EINVAL, "the format of %s is not loaded",
                   e->fullname ? e->fullname : "the event");
    size_t n = 0;
    while (n <= TP_FILTER_MAX_LEN && expr[n])
        n++;
    if (n > TP_FILTER_MAX_LEN)
        return say(err, errlen, -E2BIG, "expression longer than %d bytes", TP_FILTER_MAX_LEN);
    size_t i = 0;
    while (is_space(expr[i]))
        i++;
    if (!expr[i])
        return say(err, errlen, -EINVAL, "the expression is empty");
    return 0;
}

int tp_filter_compile(const char *expr, const struct tp_event *e,
                      struct tp_filter **out, char *err, size_t errlen)
{
    struct cc *cc = NULL;
    int rc;
    if (err && errlen)
        err[0] = '\0';
    if (out)
        *out = NULL;
    rc = out ? check_args(expr, e, err, errlen)
             : say(err, errlen, -EINVAL, "nowhere to put the filter");
    if (rc == 0 && !(cc = calloc(1, sizeof(*cc))))
        rc = say(err, errlen, -ENOMEM, "out of memory");
    if (rc == 0) {
        cc->s = expr;
        cc->e = e;
        cc->err = err;
        cc->errlen = errlen;
        rc = parse(cc, out);
    }
    free(cc);
    return rc;
}

void tp_filter_free(struct tp_filter *f)
{
    free(f);
}

bool tp_filter_kernel_only(const struct tp_filter *f)
{
    return f && f->kernel_only;
}

static bool word_char(char c)
{
    return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool tp_filter_text_names_comm(const char *text)
{
    for (const char *p = text; p && *p; p++)
        if ((strncmp(p, "comm", 4) == 0 || strncmp(p, "COMM", 4) == 0) &&
            (p == text || !word_char(p[-1])) && !word_char(p[4]))
            return true;
    return false;
}

bool tp_filter_uses_comm(const struct tp_filter *f)
{
    return f && f->uses_comm;
}

static bool is_name(const struct pred *p, const struct pred *name)
{
    return p->cls == C_COMM && p->op == M_FULL && !p->inv && p->plen == name->plen &&
           memcmp(p->pat, name->pat, p->plen) == 0;
}

/* Can the end "match" be reached with every test of name false, the others either way? */
static bool match_without(const struct tp_filter *f, const struct pred *name)
{
    uint64_t reach[REACH_WORDS] = { 1 };
    for (unsigned i = 0; i < f->n; i++) {
        if (!(reach[i / 64] >> (i % 64) & 1))
            continue;
        if (!is_name(&f->p[i], name))
            reach[f->p[i].t / 64] |= (uint64_t)1 << (f->p[i].t % 64);
        reach[f->p[i].f / 64] |= (uint64_t)1 << (f->p[i].f % 64);
    }
    return reach[f->n / 64] >> (f->n % 64) & 1;
}

bool tp_filter_pinned_comm(const struct tp_filter *f, char *buf, size_t len)
{
    for (unsigned i = 0; f && i < f->n; i++) {
        const struct pred *p = &f->p[i];
        if (!is_name(p, p) || match_without(f, p))
            continue;
        snprintf(buf, len, "%.*s", (int)p->plen, p->pat);
        return true;
    }
    return false;
}

/* ----------------------------------------------------------- evaluating */

struct rec {
    const uint8_t *d;
    uint32_t len;
    int32_t cpu;
    const char *comm;       /* NULL: unknown */
};

static bool in_rec(const struct rec *r, uint64_t off, uint64_t n)
{
    return off + n <= r->len;
}

static bool read_num(const struct rec *r, const struct pred *p, uint64_t *v)
{
    if (!in_rec(r, p->offset, p->size))
        return false;
    const uint8_t *a = r->d + p->offset;
    bool s = p->cls == C_SIGNED;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    switch (p->size) {
    case 1:
        memcpy(&u8, a, 1);
        *v = s ? (uint64_t)(int64_t)(int8_t)u8 : u8;
        break;
    case 2:
        memcpy(&u16, a, 2);
        *v = s ? (uint64_t)(int64_t)(int16_t)u16 : u16;
        break;
    case 4:
        memcpy(&u32, a, 4);
        *v = s ? (uint64_t)(int64_t)(int32_t)u32 : u32;
        break;
    default:
        memcpy(v, a, 8);
        break;
    }
    return true;
}

static bool cmp_u(uint8_t op, uint64_t a, uint64_t b)
{
    switch (op) {
    case OP_LT:   return a < b;
    case OP_LE:   return a <= b;
    case OP_GT:   return a > b;
    case OP_GE:   return a >= b;
    case OP_BAND: return (a & b) != 0;
    default:      return a == b;
    }
}

static bool cmp_s(uint8_t op, int64_t a, int64_t b)
{
    switch (op) {
    case OP_LT:   return a < b;
    case OP_LE:   return a <= b;
    case OP_GT:   return a > b;
    case OP_GE:   return a >= b;
    case OP_BAND: return (a & b) != 0;
    default:      return a == b;
    }
}

static int test_num(const struct pred *p, const struct rec *r)
{
    uint64_t v;
    if (p->cls == C_CPU)
        v = (uint64_t)(int64_t)r->cpu;
    else if (!read_num(r, p, &v))
        return R_FALSE;
    bool m = p->cls == C_UNSIGNED ? cmp_u(p->op, v, p->val)
                                  : cmp_s(p->op, (int64_t)v, (int64_t)p->val);
    return m != (bool)p->inv;
}

/*
 * The string a predicate compares and the kernel's bound for it.  *open: the
 * kernel passes no bound (len 0: a char[] to the end of the record, or an
 * empty __data_loc) and reads a C string; here it ends at a NUL or at the
 * end of the data, and *n is its length.
 */
static bool str_span(const struct pred *p, const struct rec *r, const char **s, uint32_t *n,
                     bool *open)
{
    uint64_t start = p->offset, len = p->size;
    *open = false;
    if (p->cls != C_STR) {
        uint32_t loc;
        if (!in_rec(r, p->offset, sizeof(loc)))
            return false;
        memcpy(&loc, r->d + p->offset, sizeof(loc));
        start = (loc & 0xffff) + (p->cls == C_RLOC ? (uint64_t)p->offset + sizeof(loc) : 0);
        len = loc >> 16;
    } else if (len == 0) {
        if (start > r->len)
            return false;
        len = r->len - start;
        *open = true;
    }
    if (!in_rec(r, start, len))
        return false;
    *s = (const char *)r->d + start;
    *n = (uint32_t)len;
    *open |= len == 0;
    return true;
}

/* The bytes of s before a NUL, within n. */
static uint32_t str_len(const char *s, uint32_t n)
{
    const char *nul = memchr(s, '\0', n);
    return nul ? (uint32_t)(nul - s) : n;
}

/* strncmp(s, pat, n) == 0, as the kernel's regex_match_full() with a bound. */
static bool match_full(const char *s, uint32_t n, const char *pat, uint32_t plen)
{
    for (uint32_t i = 0; i < n; i++) {
        char c = i < plen ? pat[i] : '\0';
        if (s[i] != c)
            return false;
        if (c == '\0')
            return true;
    }
    return true;
}

/* The kernel's strnstr(): pat anywhere in the n bytes, NULs included. */
static bool match_middle(const char *s, uint32_t n, const char *pat, uint32_t plen)
{
    if (plen == 0)
        return true;
    for (uint32_t k = 0; k + plen <= n; k++)
        if (s[k] == pat[0] && memcmp(s + k, pat, plen) == 0)
            return true;
    return false;
}

/* One [...] class after its '['; 1 or 0 and *pp past ']', or -1 if malformed. */
static int glob_class(const char **pp, unsigned char c)
{
    const char *cl = *pp;
    bool inverted = *cl == '!', match = false;
    cl += inverted;
    unsigned char a = (unsigned char)*cl++;
    do {
        unsigned char b = a;
        if (a == '\0')
            return -1;
        if (cl[0] == '-' && cl[1] != ']') {
            b = (unsigned char)cl[1];
            if (b == '\0')
                return -1;
            cl += 2;
        }
        match |= a <= c && c <= b;
    } while ((a = (unsigned char)*cl++) != ']');
    *pp = cl;
    return match != inverted;
}

/* The kernel's glob_match(), on the m bytes of s (no NUL among them). */
static bool glob(const char *pat, const char *s, size_t m)
{
    const char *back_pat = NULL;
    size_t back = 0, i = 0;
    for (;;) {
        unsigned char c = i < m ? (unsigned char)s[i] : '\0';
        unsigned char d = (unsigned char)*pat++;
        int r;
        bool ok;
        i++;
        if (d == '*') {
            if (*pat == '\0')
                return true;
            back_pat = pat;
            back = --i;
            continue;
        }
        if (d == '?')
            ok = c != '\0';
        else if (d == '[' && c != '\0' && (r = glob_class(&pat, c)) >= 0)
            ok = r;
        else {
            if (d == '\\')
                d = (unsigned char)*pat++;
            if (c == d && d == '\0')
                return true;
            ok = c == d;
        }
        if (ok)
            continue;
        if (c == '\0' || !back_pat)
            return false;
        pat = back_pat;
        i = ++back;
    }
}

static bool str_match(const struct pred *p, const char *s, uint32_t n, bool open)
{
    if (open)
        n = str_len(s, n);
    switch (p->op) {
    case M_FRONT:
        return n >= p->plen && memcmp(s, p->pat, p->plen) == 0;
    case M_MIDDLE:
        return match_middle(s, n, p->pat, p->plen);
    case M_END:
        return !open && n > p->plen && memcmp(s + n - 1 - p->plen, p->pat, p->plen) == 0;
    case M_GLOB:
        return glob(p->pat, s, open ? n : str_len(s, n));
    default:
        return open ? n == p->plen && memcmp(s, p->pat, n) == 0
                    : match_full(s, n, p->pat, p->plen);
    }
}

static int test(const struct pred *p, const struct rec *r)
{
    const char *s;
    uint32_t n;
    bool open;
    switch (p->cls) {
    case C_KERNEL:
        return R_MAYBE;
    case C_COMM:
        if (!r->comm)
            return R_MAYBE;
        n = (uint32_t)strnlen(r->comm, 15) + 1;     /* as a char[16], its NUL included */
        return str_match(p, r->comm, n, false) != (bool)p->inv;
    case C_STR:
    case C_DLOC:
    case C_RLOC:
        if (!str_span(p, r, &s, &n, &open))
            return R_FALSE;
        return str_match(p, s, n, open) != (bool)p->inv;
    default:
        return test_num(p, r);
    }
}

/* With unknown predicates: can the end "match" be reached at all? */
static bool match_maybe(const struct tp_filter *f, const struct rec *r)
{
    uint64_t reach[REACH_WORDS] = { 1 };
    for (unsigned i = 0; i < f->n; i++) {
        if (!(reach[i / 64] >> (i % 64) & 1))
            continue;
        int v = test(&f->p[i], r);
        if (v != R_FALSE)
            reach[f->p[i].t / 64] |= (uint64_t)1 << (f->p[i].t % 64);
        if (v != R_TRUE)
            reach[f->p[i].f / 64] |= (uint64_t)1 << (f->p[i].f % 64);
    }
    return reach[f->n / 64] >> (f->n % 64) & 1;
}

bool tp_filter_match_comm(const struct tp_filter *f, const void *data, uint32_t len,
                          unsigned cpu, const char *comm)
{
    uint8_t none = 0;
    struct rec r = { data ? data : &none, data ? len : 0, (int32_t)cpu, comm };
    if (!f)
        return true;
    if (f->kernel_only || (f->uses_comm && !comm))
        return match_maybe(f, &r);
    unsigned i = 0;
    while (i < f->n)
        i = test(&f->p[i], &r) == R_TRUE ? f->p[i].t : f->p[i].f;
    return i == f->n;
}

bool tp_filter_match(const struct tp_filter *f, const void *data, uint32_t len,
                     unsigned cpu)
{
    return tp_filter_match_comm(f, data, len, cpu, NULL);
}
