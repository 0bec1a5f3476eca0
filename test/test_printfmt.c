/*
 * Unit tests for src/printfmt.c, held to libtraceevent itself: every event
 * of this machine whose print format it makes into a program renders 200
 * records of made-up values (edge values, flags, short and missing strings)
 * to the same text as tep_print_event, as render.c trims it, and each
 * record cut short gives a text or -ERANGE, reading nothing past its end
 * (the sanitizer build holds it to that).  Symbols (%pS, %ps) come from a
 * made-up table given to both, and some values fall in it.  Skipped where
 * tracefs cannot be read.  Also: formats it must decline, pointers and
 * module symbols, a record too short, and text cut at the buffer's size.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event-parse.h>
#include <trace-seq.h>
#include <tracefs.h>

#include "tp_ksyms.h"
#include "tp_printfmt.h"

#define RECORDS 200
#define TAIL    192             /* room after the fields for __data_loc strings */

#define SYM_BASE  0xffffffff81000000ull     /* the made-up symbols: SYMS of them, */
#define SYM_STEP  0x100u                    /* SYM_STEP apart */
#define SYMS      64

static uint64_t seed = 0x9e3779b97f4a7c15ull;
static bool no_zero;            /* the format divides: libtraceevent faults on a 0 divisor */
static bool small;              /* a '*' width: libtraceevent's printf lacks an argument when
                                   it is negative */
static long compared, passed_on;     /* records held to libtraceevent; left to it (-ERANGE) */

static uint64_t rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

/* A value worth printing: edges, small numbers, single bits, anything. */
static uint64_t value(void)
{
    static const uint64_t edges[] = { 0, 1, 2, 3, 7, 8, 16, 0x80, 0xff, 0x8000, 0xffff,
                                      0x80000000u, 0xffffffffu, 0x8000000000000000ull,
                                      UINT64_MAX, UINT64_MAX - 1 };
    if (no_zero)
        return rnd() | 1;
    if (small)
        return rnd() % 64;
    switch (rnd() % 5) {
    case 0:  return edges[rnd() % (sizeof(edges) / sizeof(edges[0]))];
    case 1:  return rnd() % (rnd() % 2 ? 16 : 64);
    case 2:  return (rnd() & rnd()) & ((1ull << (rnd() % 64)) - 1);
    case 3:  return SYM_BASE - SYM_STEP / 2 + rnd() % ((SYMS + 1) * SYM_STEP);  /* near symbols */
    default: return rnd();
    }
}

static void fill_chars(unsigned char *p, size_t n)
{
    size_t nul = rnd() % (n + 1);       /* n: no NUL inside */
    for (size_t i = 0; i < n; i++)
        p[i] = i == nul ? 0 : (unsigned char)(' ' + rnd() % 95);
}

/*
 * What an address field of n bytes (4, 16, or a sockaddr's 28) may hold:
 * zero words in runs, IPv4-mapped and ISATAP forms, a family of either kind.
 */
static void fill_address(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = rnd() % 3 ? 0 : (unsigned char)rnd();
    unsigned char *a = n == 28 ? p + 8 : n == 16 ? p : NULL;
    if (n == 28) {
        uint16_t family = rnd() % 3 == 0 ? AF_INET : rnd() % 4 ? AF_INET6 : (uint16_t)rnd();
        memcpy(p, &family, 2);
    }
    switch (a ? rnd() % 4 : 0) {
    case 1:                     /* ::ffff:a.b.c.d */
        memset(a, 0, 10);
        a[10] = a[11] = 0xff;
        break;
    case 2:                     /* ISATAP: ...:0200:5efe:a.b.c.d, or 0000:5efe */
        a[8] = rnd() % 2 ? 0x02 : 0;
        a[9] = 0;
        a[10] = 0x5e;
        a[11] = 0xfe;
        break;
    default:
        break;
    }
}

/* A record of ev with made-up values; its length. */
static uint32_t make_record(const struct tep_event *ev, unsigned char *rec, size_t cap)
{
    uint32_t end = 0, tail;
    struct tep_format_field **all[2] = { tep_event_common_fields((struct tep_event *)ev),
                                         tep_event_fields((struct tep_event *)ev) };
    for (int k = 0; k < 2; k++)
        for (int i = 0; all[k] && all[k][i]; i++)
            if ((uint32_t)(all[k][i]->offset + all[k][i]->size) > end)
                end = (uint32_t)(all[k][i]->offset + all[k][i]->size);
    assert_true(end + TAIL <= cap);
    memset(rec, 0, cap);
    tail = end;
    for (int k = 0; k < 2; k++) {
        for (int i = 0; all[k] && all[k][i]; i++) {
            const struct tep_format_field *f = all[k][i];
            unsigned char *p = rec + f->offset;
            if (f->flags & TEP_FIELD_IS_DYNAMIC) {
                uint32_t len = (uint32_t)(rnd() % 24), at = tail;
                if (tail + len + 1 > end + TAIL)
                    len = 0;
                fill_chars(rec + at, len);
                if (len)
                    rec[at + len - 1] = rnd() % 8 ? 0 : rec[at + len - 1];
                tail += len;
                uint32_t off = f->flags & TEP_FIELD_IS_RELATIVE
                    ? at - (uint32_t)(f->offset + f->size) : at;
                uint32_t word = off | len << 16;
                memcpy(p, &word, f->size < 4 ? (size_t)f->size : 4);
            } else if (f->flags & TEP_FIELD_IS_ARRAY) {
                if ((f->size == 4 || f->size == 16 || f->size == 28) && rnd() % 2)
                    fill_address(p, (size_t)f->size);
                else if (f->elementsize == 1)
                    fill_chars(p, (size_t)f->size);
                else
                    for (int b = 0; b < f->size; b++)
                        p[b] = (unsigned char)rnd();
            } else {
                uint64_t v = value();
                memcpy(p, &v, f->size < 8 ? (size_t)f->size : 8);
            }
        }
    }
    uint16_t type = (uint16_t)ev->id;
    memcpy(rec, &type, 2);
    free(all[0]);
    free(all[1]);
    return tail;
}

/* The made-up vmlinux symbols "tpqa_fn_N", and libtraceevent's resolver over them. */
static struct tp_ksyms *made_up_symbols(void)
{
    static char text[SYMS * 48];
    size_t at = 0;
    for (unsigned i = 0; i < SYMS; i++)
        at += (size_t)snprintf(text + at, sizeof(text) - at, "%016llx T tpqa_fn_%u\n",
                               SYM_BASE + (unsigned long long)i * SYM_STEP, i);
    struct tp_ksyms *k = NULL;
    assert_int_equal(tp_ksyms_create(&k, text), 0);
    assert_int_equal(tp_ksyms_count(k), SYMS);
    return k;
}

static char *resolve(void *priv, unsigned long long *addrp, char **modp)
{
    struct tp_ksym s;
    if (!tp_ksyms_find(priv, *addrp, &s))
        return NULL;
    *addrp = s.addr;
    *modp = NULL;
    return (char *)s.name;
}

/* libtraceevent's text, trimmed as render.c's copy_out trims it. */
static void reference(struct tep_handle *tep, struct trace_seq *s, unsigned char *rec,
                      uint32_t len, char *out, size_t size)
{
    struct tep_record r = { .data = rec, .size = (int)len };
    trace_seq_reset(s);
    tep_print_event(tep, s, &r, "%s", TEP_PRINT_INFO);
    size_t n = s->len;
    while (n > 0 && (s->buffer[n - 1] == '\n' || s->buffer[n - 1] == ' '))
        n--;
    if (n > size - 1)
        n = size - 1;
    memcpy(out, s->buffer, n);
    out[n] = '\0';
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
        s[--n] = '\0';
}

/*
 * The record cut short, in memory of exactly that length (so that the
 * sanitizer build sees any read past it): a text, or -ERANGE.
 */
static void cut_short(const struct tp_printfmt *p, const struct tp_ksyms *k,
                      const unsigned char *rec, uint32_t len)
{
    uint32_t cut = len ? (uint32_t)(rnd() % len) : 0;
    unsigned char *copy = malloc(cut ? cut : 1);
    char got[256];
    assert_non_null(copy);
    memcpy(copy, rec, cut);
    int n = tp_printfmt_run(p, k, copy, cut, got, sizeof(got));
    assert_true(n == -ERANGE || (n >= 0 && (size_t)n == strlen(got)));
    free(copy);
}

/* Does one record of ev render the same both ways?  Prints the first difference. */
static bool same_text(struct tep_handle *tep, struct trace_seq *s, const struct tep_event *ev,
                      const struct tp_printfmt *p, const struct tp_ksyms *k)
{
    static unsigned char rec[8192];
    char want[1024], got[1024];
    uint32_t len = make_record(ev, rec, sizeof(rec));
    cut_short(p, k, rec, len);
    int n = tp_printfmt_run(p, k, rec, len, got, sizeof(got));
    if (n == -ERANGE) {
        passed_on++;
        return true;                /* render.c asks libtraceevent for this one */
    }
    compared++;
    assert_int_equal((size_t)n, strlen(got));
    trim(got);
    reference(tep, s, rec, len, want, sizeof(want));
    if (strcmp(want, got) == 0)
        return true;
    print_message("%s:%s format %s\n  libtraceevent: [%s]\n  printfmt:      [%s]\n",
                  ev->system, ev->name, ev->print_fmt.format, want, got);
    return false;
}

/* Does an argument divide ('/' or '%')? */
static bool divides(const struct tep_print_arg *a)
{
    for (; a; a = a->next) {
        switch (a->type) {
        case TEP_PRINT_OP:
            if (strcmp(a->op.op, "/") == 0 || strcmp(a->op.op, "%") == 0 ||
                divides(a->op.left) || divides(a->op.right))
                return true;
            break;
        case TEP_PRINT_TYPE:
            if (divides(a->typecast.item))
                return true;
            break;
        case TEP_PRINT_FLAGS:
            if (divides(a->flags.field))
                return true;
            break;
        case TEP_PRINT_SYMBOL:
            if (divides(a->symbol.field))
                return true;
            break;
        default:
            break;
        }
    }
    return false;
}

static void test_every_format(void **state)
{
    (void)state;
    struct tep_handle *tep = tracefs_local_events(NULL);
    if (!tep)
        skip();
    struct tep_event **evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
    int n = tep_get_events_count(tep), made = 0, differ = 0;
    struct tp_ksyms *k = made_up_symbols();
    assert_int_equal(tep_set_function_resolver(tep, resolve, k), 0);
    struct trace_seq s;
    trace_seq_init(&s);
    int symbolic = 0;
    for (int i = 0; i < n; i++) {
        struct tp_printfmt *p;
        int rc = tp_printfmt_compile(evs[i], &p);
        assert_true(rc == 0 || rc == -EOPNOTSUPP);
        if (rc < 0)
            continue;
        made++;
        symbolic += strstr(evs[i]->print_fmt.format, "%p") != NULL;
        no_zero = divides(evs[i]->print_fmt.args);
        small = strchr(evs[i]->print_fmt.format, '*') != NULL;
        if (no_zero)
            print_message("%s:%s divides: its fields are never 0 here\n", evs[i]->system,
                          evs[i]->name);
        int bad = 0;
        for (int r = 0; r < RECORDS && bad < 1; r++)
            bad += !same_text(tep, &s, evs[i], p, k);
        differ += bad;
        tp_printfmt_free(p);
    }
    print_message("%d events, %d made into programs (%d with pointers or symbols), %d rendered "
                  "differently; %ld records compared, %ld left to libtraceevent\n", n, made,
                  symbolic, differ, compared, passed_on);
    trace_seq_destroy(&s);
    tep_free(tep);
    tp_ksyms_destroy(k);
    assert_int_equal(differ, 0);
    assert_true(made > 0);
    assert_true(compared > 100 * passed_on);
}

/* An event from format text, in a handle of its own. */
static struct tep_event *parse(struct tep_handle **tep, const char *fmt)
{
    *tep = tep_alloc();
    assert_non_null(*tep);
    tep_set_long_size(*tep, 8);
    assert_int_equal(tep_parse_event(*tep, fmt, strlen(fmt), "tpqa"), 0);
    struct tep_event *ev = tep_find_event_by_name(*tep, "tpqa", "ev");
    assert_non_null(ev);
    return ev;
}

#define HEAD "name: ev\nID: 7\nformat:\n" \
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n" \
    "\tfield:int n;\toffset:8;\tsize:4;\tsigned:1;\n" \
    "\tfield:unsigned long p;\toffset:16;\tsize:8;\tsigned:0;\n\n"

static void test_declines(void **state)
{
    (void)state;
    static const char *const fmts[] = {
        HEAD "print fmt: \"p=%pI4\", REC->p\n",             /* an address */
        HEAD "print fmt: \"p=%pU\", REC->p\n",              /* a UUID */
        HEAD "print fmt: \"p=%pM\", REC->p\n",              /* a MAC */
        HEAD "print fmt: \"p=%-8p\", REC->p\n",             /* a pointer's width */
        HEAD "print fmt: \"p=%pI4h\", REC->n\n",            /* an address's byte order */
        HEAD "print fmt: \"p=%pi6c\", REC->p\n",            /* letters read differently */
        HEAD "print fmt: \"p=%piS\", REC->p\n",
        HEAD "print fmt: \"p=%pI6c\", REC->p\n",            /* a field of the wrong size */
        HEAD "print fmt: \"%**d\", REC->n, REC->n, REC->n\n",   /* two '*' */
        HEAD "print fmt: \"%c\", REC->n\n",                 /* a char */
        HEAD "print fmt: \"p=%s\", REC->p\n",               /* a long printed as a string */
        HEAD "print fmt: \"%d %d\", REC->n\n",              /* an argument missing */
    };
    for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
        struct tep_handle *tep;
        struct tp_printfmt *p = NULL;
        assert_int_equal(tp_printfmt_compile(parse(&tep, fmts[i]), &p), -EOPNOTSUPP);
        assert_null(p);
        tep_free(tep);
    }
}

/* A record of HEAD's fields n and p, rendered by the program and by libtraceevent alike. */
static void held_to_libtraceevent(struct tep_handle *tep, struct trace_seq *s,
                                  const struct tp_printfmt *p, int32_t n, uint64_t v)
{
    unsigned char rec[24] = { 7 };
    memcpy(rec + 8, &n, 4);
    memcpy(rec + 16, &v, 8);
    char want[256], got[256];
    tp_printfmt_run(p, NULL, rec, sizeof(rec), got, sizeof(got));
    reference(tep, s, rec, sizeof(rec), want, sizeof(want));
    assert_string_equal(got, want);
}

/*
 * Names as flag and symbol values: the few libtraceevent knows, and -1 for
 * any other, held to libtraceevent for every value around them.
 */
static void test_value_names(void **state)
{
    (void)state;
    struct tep_handle *tep;
    struct tp_printfmt *p;
    struct tep_event *ev = parse(&tep, HEAD "print fmt: \"vec=%d [%s] f=%s\", REC->n, "
        "__print_symbolic(REC->p, { HI_SOFTIRQ, \"HI\" }, { RCU_SOFTIRQ, \"RCU\" }, "
        "{ HRTIMER_RESTART, \"RESTART\" }, { TCP_ESTABLISHED, \"EST\" }, { 11, \"ELEVEN\" }), "
        "__print_flags(REC->n, \"|\", { TCP_SYN_SENT, \"SYN\" }, { 4, \"FOUR\" }, "
        "{ TIMER_SOFTIRQ, \"ONE\" })\n");
    assert_int_equal(tp_printfmt_compile(ev, &p), 0);
    struct trace_seq s;
    trace_seq_init(&s);
    for (int64_t v = -2; v <= 12; v++)
        held_to_libtraceevent(tep, &s, p, (int32_t)v, (uint64_t)v);
    trace_seq_destroy(&s);
    tp_printfmt_free(p);
    tep_free(tep);
}

/*
 * '*' widths and precisions take the argument before the one printed, held
 * to libtraceevent; a negative one is glibc's (libtraceevent's printf
 * would lack an argument there).
 */
static void test_star(void **state)
{
    (void)state;
    struct tep_handle *tep;
    struct tp_printfmt *p;
    struct tep_event *ev = parse(&tep, HEAD "print fmt: \"[%*d] [%-*u] [%.*s] [%*s] [%.*s]\", "
        "REC->n, REC->n, REC->n, REC->n, REC->n, \"abcdefgh\", REC->n, \"xy\", 3, "
        "__print_symbolic(REC->p, { 1, \"one\" }, { 2, \"two\" })\n");
    assert_int_equal(tp_printfmt_compile(ev, &p), 0);
    struct trace_seq s;
    trace_seq_init(&s);
    for (int32_t n = 0; n <= 10; n++)
        held_to_libtraceevent(tep, &s, p, n, (uint64_t)n % 3);
    unsigned char rec[24] = { 7 };
    int32_t n = -4;
    memcpy(rec + 8, &n, 4);
    char got[256];
    tp_printfmt_run(p, NULL, rec, sizeof(rec), got, sizeof(got));
    assert_string_equal(got, "[-4  ] [4294967292] [abcdefgh] [xy  ] [0x0]");
    trace_seq_destroy(&s);
    tp_printfmt_free(p);
    tep_free(tep);
}

/*
 * Elements of arrays of each size, signed or not, cast to a pointer's
 * target or to a number, held to libtraceevent on records of made-up
 * bytes; an element past the record is a short record; a computed index
 * is declined.
 */
static void test_elements(void **state)
{
    (void)state;
    static const char fields[] = "name: ev\nID: 7\nformat:\n"
        "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
        "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
        "\tfield:unsigned char b[6];\toffset:8;\tsize:6;\tsigned:0;\n"
        "\tfield:short w[3];\toffset:14;\tsize:6;\tsigned:1;\n"
        "\tfield:int i[2];\toffset:20;\tsize:8;\tsigned:1;\n"
        "\tfield:unsigned long l[3];\toffset:32;\tsize:24;\tsigned:0;\n\n";
    char fmt[1024];
    snprintf(fmt, sizeof(fmt), "%sprint fmt: \"b=%%02x:%%02x w=%%d/%%u c=%%u i=%%d/%%ld "
             "l=%%lx/%%lu n=%%d\", REC->b[0], REC->b[5], REC->w[0], REC->w[2], "
             "(u8 *)REC->w[1], REC->i[1], (s16 *)REC->i[0], REC->l[0], REC->l[2], "
             "(int)REC->l[1]\n", fields);
    struct tep_handle *tep;
    struct tp_printfmt *p;
    assert_int_equal(tp_printfmt_compile(parse(&tep, fmt), &p), 0);
    unsigned char rec[56] = { 7 };
    char want[256], got[256];
    struct trace_seq s;
    trace_seq_init(&s);
    for (int k = 0; k < 64; k++) {
        for (size_t j = 8; j < sizeof(rec); j++)
            rec[j] = (unsigned char)(k & 1 ? rnd() : (k & 2 ? 0xffu : 0x80u >> (j % 8)));
        reference(tep, &s, rec, sizeof(rec), want, sizeof(want));
        assert_true(tp_printfmt_run(p, NULL, rec, sizeof(rec), got, sizeof(got)) > 0);
        assert_string_equal(got, want);
    }
    assert_int_equal(tp_printfmt_run(p, NULL, rec, 55, got, sizeof(got)), -ERANGE);
    tp_printfmt_free(p);
    tep_free(tep);
    snprintf(fmt, sizeof(fmt), "%sprint fmt: \"%%d\", REC->b[REC->i[0]]\n", fields);
    p = NULL;
    assert_int_equal(tp_printfmt_compile(parse(&tep, fmt), &p), -EOPNOTSUPP);
    assert_null(p);
    trace_seq_destroy(&s);
    tep_free(tep);
}

/*
 * __print_hex and __print_hex_str of a field's first n bytes, whatever the
 * conversion's width, held to libtraceevent for n from 0 to the record's
 * end; past it, a short record.
 */
static void test_hex(void **state)
{
    (void)state;
    struct tep_handle *tep;
    struct tp_printfmt *p;
    struct tep_event *ev = parse(&tep, "name: ev\nID: 7\nformat:\n"
        "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
        "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
        "\tfield:int n;\toffset:8;\tsize:4;\tsigned:1;\n"
        "\tfield:unsigned char addr[20];\toffset:12;\tsize:20;\tsigned:0;\n\n"
        "print fmt: \"a=%s b=[%-30s] c=%s\", __print_hex_str(REC->addr, REC->n), "
        "__print_hex(REC->addr, REC->n), __print_hex(REC->addr, 2)\n");
    assert_int_equal(tp_printfmt_compile(ev, &p), 0);
    unsigned char rec[32] = { 7 };
    for (int i = 0; i < 20; i++)
        rec[12 + i] = (unsigned char)(0x3b * i + 0x0f);
    char want[256], got[256];
    struct trace_seq s;
    trace_seq_init(&s);
    for (int32_t n = 0; n <= 20; n++) {
        memcpy(rec + 8, &n, 4);
        reference(tep, &s, rec, sizeof(rec), want, sizeof(want));
        assert_true(tp_printfmt_run(p, NULL, rec, sizeof(rec), got, sizeof(got)) > 0);
        assert_string_equal(got, want);
    }
    int32_t n = 21;
    memcpy(rec + 8, &n, 4);
    assert_int_equal(tp_printfmt_run(p, NULL, rec, sizeof(rec), got, sizeof(got)), -ERANGE);
    trace_seq_destroy(&s);
    tp_printfmt_free(p);
    tep_free(tep);
}

/* UUIDs in every form print_uuid_arg knows, held to libtraceevent. */
static void test_uuids(void **state)
{
    (void)state;
    struct tep_handle *tep;
    struct tp_printfmt *p;
    struct tep_event *ev = parse(&tep, "name: ev\nID: 7\nformat:\n"
        "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
        "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
        "\tfield:__u8 id[16];\toffset:8;\tsize:16;\tsigned:0;\n\n"
        "print fmt: \"%pU %pUb %pUB %pUl %pUL %pUx\", REC->id, REC->id, REC->id, REC->id, "
        "REC->id, REC->id\n");
    assert_int_equal(tp_printfmt_compile(ev, &p), 0);
    unsigned char rec[24] = { 7 };
    for (int i = 0; i < 16; i++)
        rec[8 + i] = (unsigned char)(0x1f * i + 0xa5);
    char want[512], got[512];
    struct trace_seq s;
    trace_seq_init(&s);
    reference(tep, &s, rec, sizeof(rec), want, sizeof(want));
    assert_true(tp_printfmt_run(p, NULL, rec, sizeof(rec), got, sizeof(got)) > 0);
    assert_string_equal(got, want);
    assert_int_equal(tp_printfmt_run(p, NULL, rec, 23, got, sizeof(got)), -ERANGE);
    trace_seq_destroy(&s);
    tp_printfmt_free(p);
    tep_free(tep);
}

/* Pointers as glibc's %p, symbols with their modules as the kernel prints them. */
static void test_pointers_and_symbols(void **state)
{
    (void)state;
    static const char kallsyms[] = "ffffffff81000000 T start_kernel\n"
                                   "ffffffff81000100 t helper\n"
                                   "ffffffffc0001000 t p9_fid_create\t[9pnet]\n"
                                   "ffffffffc0002000 t p9_fid_destroy\t[9pnet]\n";
    struct tp_ksyms *k = NULL;
    assert_int_equal(tp_ksyms_create(&k, kallsyms), 0);
    struct tep_handle *tep;
    struct tp_printfmt *p;
    struct tep_event *ev = parse(&tep, HEAD "print fmt: \"p=%p s=%pS f=%ps F=%pF x=%px n=%d\", "
                                 "REC->p, (void *)REC->p, (void *)REC->p, (void *)REC->p, "
                                 "REC->p, REC->n\n");
    assert_int_equal(tp_printfmt_compile(ev, &p), 0);
    static const struct { uint64_t v; const char *with, *without; } cases[] = {
        { 0xffffffff81000122ull,
          "p=0xffffffff81000122 s=helper+0x22 f=helper F=helper+0x22 x=0xffffffff81000122x n=3",
          "p=0xffffffff81000122 s=0xffffffff81000122 f=0xffffffff81000122 "
          "F=0xffffffff81000122 x=0xffffffff81000122x n=3" },
        { 0xffffffffc0001010ull,
          "p=0xffffffffc0001010 s=p9_fid_create+0x10 [9pnet] f=p9_fid_create [9pnet] "
          "F=p9_fid_create+0x10 [9pnet] x=0xffffffffc0001010x n=3", NULL },
        { 0, "p=(nil) s=0x0 f=0x0 F=0x0 x=(nil)x n=3", "p=(nil) s=0x0 f=0x0 F=0x0 x=(nil)x n=3" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        unsigned char rec[24] = { 7 };
        int32_t n = 3;
        memcpy(rec + 8, &n, 4);
        memcpy(rec + 16, &cases[i].v, 8);
        char buf[256];
        int len = tp_printfmt_run(p, k, rec, sizeof(rec), buf, sizeof(buf));
        assert_string_equal(buf, cases[i].with);
        assert_int_equal(len, strlen(cases[i].with));
        if (!cases[i].without)
            continue;
        tp_printfmt_run(p, NULL, rec, sizeof(rec), buf, sizeof(buf));
        assert_string_equal(buf, cases[i].without);
    }
    char small[12];
    unsigned char rec[24] = { 7 };
    memcpy(rec + 16, &cases[1].v, 8);
    assert_int_equal(tp_printfmt_run(p, k, rec, sizeof(rec), small, sizeof(small)), 11);
    assert_string_equal(small, "p=0xfffffff");
    tp_printfmt_free(p);
    tep_free(tep);
    tp_ksyms_destroy(k);
}

static void test_short_record_and_cut(void **state)
{
    (void)state;
    struct tep_handle *tep;
    struct tp_printfmt *p;
    struct tep_event *ev = parse(&tep, HEAD "print fmt: \"n=%d p=0x%lx\\n\", REC->n, REC->p\n");
    assert_int_equal(tp_printfmt_compile(ev, &p), 0);
    unsigned char rec[24] = { 7 };
    int32_t n = -5;
    uint64_t v = 0xabc;
    memcpy(rec + 8, &n, 4);
    memcpy(rec + 16, &v, 8);
    char buf[64];
    assert_int_equal(tp_printfmt_run(p, NULL, rec, sizeof(rec), buf, sizeof(buf)), 13);
    assert_string_equal(buf, "n=-5 p=0xabc\n");
    assert_int_equal(tp_printfmt_run(p, NULL, rec, 20, buf, sizeof(buf)), -ERANGE);
    assert_int_equal(tp_printfmt_run(p, NULL, rec, sizeof(rec), buf, 6), 5);
    assert_string_equal(buf, "n=-5 ");
    tp_printfmt_free(p);
    tep_free(tep);
}

/* The sanitizer build: libtraceevent 1.7 keeps a few bytes of some formats it parses. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:tep_parse_event\n";
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_format),
        cmocka_unit_test(test_declines),
        cmocka_unit_test(test_pointers_and_symbols),
        cmocka_unit_test(test_value_names),
        cmocka_unit_test(test_uuids),
        cmocka_unit_test(test_star),
        cmocka_unit_test(test_elements),
        cmocka_unit_test(test_hex),
        cmocka_unit_test(test_short_record_and_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
