/*
 * Unit tests for src/filter.c (the ftrace event-filter compiler, see
 * include/tp_filter.h).
 *
 * Events are built by hand with the kernel's layouts (sched_process_exec,
 * sched_switch, ...) and records byte by byte.  Every evaluation runs on a
 * heap copy of exactly len bytes, so AddressSanitizer catches any read past
 * the record.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_filter.h"

#define ERR_SIZE 256

/* ---------------------------------------------------------------- events */

struct fake {
    struct tp_event e;
    struct tp_field common[4];
    struct tp_field fields[16];
};

static struct tp_field field(char *name, char *decl, uint32_t off, uint32_t size,
                             enum tp_field_kind kind)
{
    return (struct tp_field){ .name = name, .decl = decl, .offset = off, .size = size,
                              .kind = kind };
}

static void add(struct fake *f, char *name, char *decl, uint32_t off, uint32_t size,
                enum tp_field_kind kind)
{
    f->fields[f->e.nfields++] = field(name, decl, off, size, kind);
}

/* An event with the kernel's common fields at 0/2/3/4 and no fields yet. */
static void fake_init(struct fake *f, char *fullname)
{
    memset(f, 0, sizeof(*f));
    f->common[0] = field("common_type", "unsigned short common_type", 0, 2, TP_FIELD_UINT);
    f->common[1] = field("common_flags", "unsigned char common_flags", 2, 1, TP_FIELD_UINT);
    f->common[2] = field("common_preempt_count", "unsigned char common_preempt_count", 3, 1,
                         TP_FIELD_UINT);
    f->common[3] = field("common_pid", "int common_pid", 4, 4, TP_FIELD_INT);
    f->e.fullname = fullname;
    f->e.loaded = true;
    f->e.kernel_id = 1;
    f->e.pid_offset = 4;
    f->e.common = f->common;
    f->e.ncommon = 4;
    f->e.fields = f->fields;
}

/* sched:sched_process_exec */
static void exec_event(struct fake *f)
{
    fake_init(f, "sched:sched_process_exec");
    add(f, "filename", "__data_loc char[] filename", 8, 4, TP_FIELD_DLOC_STRING);
    add(f, "pid", "pid_t pid", 12, 4, TP_FIELD_INT);
    add(f, "old_pid", "pid_t old_pid", 16, 4, TP_FIELD_INT);
}

/* sched:sched_switch */
static void switch_event(struct fake *f)
{
    fake_init(f, "sched:sched_switch");
    add(f, "prev_comm", "char prev_comm[16]", 8, 16, TP_FIELD_STRING);
    add(f, "prev_pid", "pid_t prev_pid", 24, 4, TP_FIELD_INT);
    add(f, "prev_prio", "int prev_prio", 28, 4, TP_FIELD_INT);
    add(f, "prev_state", "long prev_state", 32, 8, TP_FIELD_INT);
    add(f, "next_comm", "char next_comm[16]", 40, 16, TP_FIELD_STRING);
    add(f, "next_pid", "pid_t next_pid", 56, 4, TP_FIELD_INT);
    add(f, "next_prio", "int next_prio", 60, 4, TP_FIELD_INT);
}

/* Every width and signedness, a pointer, a char *, arrays and __rel_loc. */
static void nums_event(struct fake *f)
{
    fake_init(f, "test:nums");
    add(f, "big", "u64 big", 8, 8, TP_FIELD_UINT);
    add(f, "sbig", "s64 sbig", 16, 8, TP_FIELD_INT);
    add(f, "ub", "u8 ub", 24, 1, TP_FIELD_UINT);
    add(f, "sb", "s8 sb", 25, 1, TP_FIELD_INT);
    add(f, "uw", "u16 uw", 26, 2, TP_FIELD_UINT);
    add(f, "sw", "s16 sw", 28, 2, TP_FIELD_INT);
    add(f, "ud", "u32 ud", 32, 4, TP_FIELD_UINT);
    add(f, "sd", "s32 sd", 36, 4, TP_FIELD_INT);
    add(f, "ptr", "void * ptr", 40, 8, TP_FIELD_UINT);
    add(f, "name", "const char * name", 48, 8, TP_FIELD_UINT);
    add(f, "buf", "u8 buf[6]", 56, 6, TP_FIELD_BYTES);
    add(f, "rname", "__rel_loc char[] rname", 64, 4, TP_FIELD_RLOC_STRING);
    add(f, "blob", "__data_loc u8[] blob", 68, 4, TP_FIELD_DLOC_BYTES);
    add(f, "rblob", "__rel_loc u8[] rblob", 72, 4, TP_FIELD_RLOC_BYTES);
    add(f, "odd", "int odd:3", 76, 3, TP_FIELD_INT);
}

/* Like sched:sched_wakeup, with fields of its own named comm and cpu. */
static void wakeup_event(struct fake *f)
{
    fake_init(f, "test:wakeup");
    add(f, "comm", "char comm[16]", 8, 16, TP_FIELD_STRING);
    add(f, "pid", "pid_t pid", 24, 4, TP_FIELD_INT);
    add(f, "cpu", "int cpu", 28, 4, TP_FIELD_INT);
}

/* Like ftrace:print: a char[] running to the end of the record. */
static void print_event(struct fake *f)
{
    fake_init(f, "ftrace:print");
    add(f, "ip", "unsigned long ip", 8, 8, TP_FIELD_UINT);
    add(f, "buf", "char buf[]", 16, 0, TP_FIELD_STRING);
}

/* --------------------------------------------------------------- records */

static void put(uint8_t *b, size_t off, uint64_t v, size_t size)
{
    uint8_t u8 = (uint8_t)v;
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;
    switch (size) {
    case 1: memcpy(b + off, &u8, 1); break;
    case 2: memcpy(b + off, &u16, 2); break;
    case 4: memcpy(b + off, &u32, 4); break;
    default: memcpy(b + off, &v, 8); break;
    }
}

static void put_loc(uint8_t *b, size_t field_off, uint32_t data_off, uint32_t len)
{
    put(b, field_off, (uint64_t)len << 16 | data_off, 4);
}

/* sched_process_exec: filename (with its NUL) at 20. */
static uint32_t exec_rec(uint8_t *b, int common_pid, int pid, int old_pid, const char *file)
{
    size_t n = strlen(file) + 1;
    memset(b, 0, 20 + n);
    put(b, 0, 300, 2);
    put(b, 4, (uint32_t)common_pid, 4);
    put_loc(b, 8, 20, (uint32_t)n);
    put(b, 12, (uint32_t)pid, 4);
    put(b, 16, (uint32_t)old_pid, 4);
    memcpy(b + 20, file, n);
    return (uint32_t)(20 + n);
}

/* sched_switch: comms are copied over 16 bytes, NUL or not. */
static uint32_t switch_rec(uint8_t *b, const char *prev, const char *next)
{
    memset(b, 0, 64);
    put(b, 4, 42, 4);
    memcpy(b + 8, prev, strnlen(prev, 16));
    put(b, 24, 42, 4);
    put(b, 28, 120, 4);
    put(b, 32, (uint64_t)-1, 8);
    memcpy(b + 40, next, strnlen(next, 16));
    put(b, 56, 7, 4);
    put(b, 60, 120, 4);
    return 64;
}

/* ---------------------------------------------------------------- checks */

/* Evaluate on an exact-size heap copy of the record. */
static bool run(const struct tp_filter *f, const void *rec, uint32_t len, unsigned cpu)
{
    void *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, rec, len);
    bool m = tp_filter_match(f, copy, len, cpu);
    free(copy);
    return m;
}

static struct tp_filter *compile_ok(const struct tp_event *e, const char *expr, int line)
{
    char err[ERR_SIZE];
    struct tp_filter *f = NULL;
    int rc = tp_filter_compile(expr, e, &f, err, sizeof(err));
    if (rc != 0 || !f)
        fail_msg("line %d: '%s' did not compile: %d %s", line, expr, rc, err);
    if (err[0])
        fail_msg("line %d: '%s' compiled with a message: %s", line, expr, err);
    return f;
}

static void check_match(const struct tp_event *e, const void *rec, uint32_t len, unsigned cpu,
                        const char *expr, bool want, int line)
{
    struct tp_filter *f = compile_ok(e, expr, line);
    bool got = run(f, rec, len, cpu);
    tp_filter_free(f);
    if (got != want)
        fail_msg("line %d: '%s' gave %s, want %s", line, expr, got ? "true" : "false",
                 want ? "true" : "false");
}

#define MATCH(e, rec, len, expr, want) check_match(e, rec, len, 0, expr, want, __LINE__)
#define MATCH_CPU(e, rec, len, cpu, expr, want) check_match(e, rec, len, cpu, expr, want, __LINE__)

/* Compile must fail with rc; msg is the exact message, or (prefix '~') a part of it. */
static void check_bad(const struct tp_event *e, const char *expr, int want_rc, const char *msg,
                      int line)
{
    char err[ERR_SIZE];
    struct tp_filter *f = (struct tp_filter *)&f;   /* must be reset to NULL */
    int rc = tp_filter_compile(expr, e, &f, err, sizeof(err));
    if (rc != want_rc)
        fail_msg("line %d: '%.60s' gave %d (%s), want %d", line, expr, rc, err, want_rc);
    if (f)
        fail_msg("line %d: '%.60s' failed but left a filter", line, expr);
    if (!err[0] || strchr(err, '\n'))
        fail_msg("line %d: '%.60s': bad message '%s'", line, expr, err);
    bool ok = msg[0] == '~' ? strstr(err, msg + 1) != NULL : strcmp(err, msg) == 0;
    if (!ok)
        fail_msg("line %d: '%.60s': message '%s', want '%s'", line, expr, err, msg);
}

#define BAD(e, expr, rc, msg) check_bad(e, expr, rc, msg, __LINE__)

/* ------------------------------------------------------------------ tests */

static void test_signed_ops(void **state)
{
    (void)state;
    struct fake ev;
    uint8_t b[64];
    exec_event(&ev);
    const struct tp_event *e = &ev.e;
    uint32_t len = exec_rec(b, 100, 100, -5, "/bin/sh");
    MATCH(e, b, len, "pid == 100", true);
    MATCH(e, b, len, "pid == 99", false);
    MATCH(e, b, len, "pid != 100", false);
    MATCH(e, b, len, "pid != 101", true);
    MATCH(e, b, len, "pid < 100", false);
    MATCH(e, b, len, "pid < 101", true);
    MATCH(e, b, len, "pid <= 100", true);
    MATCH(e, b, len, "pid <= 99", false);
    MATCH(e, b, len, "pid > 100", false);
    MATCH(e, b, len, "pid > 99", true);
    MATCH(e, b, len, "pid >= 100", true);
    MATCH(e, b, len, "pid >= 101", false);
    MATCH(e, b, len, "pid & 4", true);          /* 100 = 0b1100100 */
    MATCH(e, b, len, "pid & 3", false);
    /* negative values compare signed */
    MATCH(e, b, len, "old_pid == -5", true);
    MATCH(e, b, len, "old_pid < 0", true);
    MATCH(e, b, len, "old_pid > -6", true);
    MATCH(e, b, len, "old_pid > -5", false);
    MATCH(e, b, len, "old_pid >= -5", true);
    MATCH(e, b, len, "old_pid <= -6", false);
    MATCH(e, b, len, "old_pid > 100", false);
    MATCH(e, b, len, "old_pid & 0x80000000", true);
    MATCH(e, b, len, "old_pid & 4", false);     /* -5 = ...11111011 */
}

static void test_widths_and_sign_extension(void **state)
{
    (void)state;
    struct fake ev;
    uint8_t b[80] = { 0 };
    nums_event(&ev);
    const struct tp_event *e = &ev.e;
    put(b, 8, UINT64_MAX, 8);
    put(b, 16, (uint64_t)INT64_MIN, 8);
    put(b, 24, 200, 1);                         /* ub 200 */
    put(b, 25, 200, 1);                         /* sb -56 */
    put(b, 26, 0xffff, 2);                      /* uw 65535 */
    put(b, 28, 0xffff, 2);                      /* sw -1 */
    put(b, 32, 0xffffffff, 4);                  /* ud */
    put(b, 36, 0xffffffff, 4);                  /* sd -1 */
    put(b, 40, 0xffff888012345678u, 8);
    uint32_t len = sizeof(b);

    MATCH(e, b, len, "ub == 200", true);
    MATCH(e, b, len, "ub > 100", true);
    MATCH(e, b, len, "ub <= 200", true);
    MATCH(e, b, len, "ub <= 199", false);
    MATCH(e, b, len, "ub >= 201", false);
    MATCH(e, b, len, "ub < 201", true);
    MATCH(e, b, len, "sb > 100", false);
    MATCH(e, b, len, "sb == -56", true);
    MATCH(e, b, len, "sb < -55", true);
    MATCH(e, b, len, "sb < -56", false);
    MATCH(e, b, len, "uw == 65535", true);
    MATCH(e, b, len, "uw > 32767", true);
    MATCH(e, b, len, "sw == -1", true);
    MATCH(e, b, len, "sw < 0", true);
    MATCH(e, b, len, "sw > 0", false);
    MATCH(e, b, len, "ud == 4294967295", true);
    MATCH(e, b, len, "ud < 1", false);
    MATCH(e, b, len, "ud >= 0x80000000", true);
    MATCH(e, b, len, "sd == -1", true);
    MATCH(e, b, len, "sd < 1", true);
    MATCH(e, b, len, "big == 0xffffffffffffffff", true);
    MATCH(e, b, len, "big == 18446744073709551615", true);
    MATCH(e, b, len, "big > 0x7fffffffffffffff", true);
    MATCH(e, b, len, "big < 1", false);
    MATCH(e, b, len, "sbig == -9223372036854775808", true);
    MATCH(e, b, len, "sbig < -9223372036854775807", true);
    MATCH(e, b, len, "sbig < 0", true);
    MATCH(e, b, len, "sbig > 0", false);
    MATCH(e, b, len, "ptr == 0xffff888012345678", true);
    MATCH(e, b, len, "ptr > 0xffff000000000000", true);
    MATCH(e, b, len, "ptr < 0xffff000000000000", false);
    MATCH(e, b, len, "ub & 0xc0", true);        /* 200 = 0xc8 */
    MATCH(e, b, len, "ub & 0x37", false);
    MATCH(e, b, len, "sw & 0x8000", true);
    MATCH(e, b, len, "big & 0x8000000000000000", true);
    MATCH(e, b, len, "sbig & 1", false);
    /* like the kernel, the value is cut to the field's width */
    MATCH(e, b, len, "ub == 456", true);        /* (u8)456 == 200 */
    MATCH(e, b, len, "sb == 200", true);        /* (s8)200 == -56 */
    MATCH(e, b, len, "sw == 65535", true);
    MATCH(e, b, len, "sd == 0xffffffff", true);
    MATCH(e, b, len, "ub < 256", false);        /* (u8)256 == 0 */
}

static void test_common_fields(void **state)
{
    (void)state;
    struct fake ev;
    uint8_t b[64];
    exec_event(&ev);
    const struct tp_event *e = &ev.e;
    uint32_t len = exec_rec(b, 4242, 1, 1, "/x");
    put(b, 2, 0x81, 1);
    put(b, 3, 0x02, 1);
    MATCH(e, b, len, "common_pid == 4242", true);
    MATCH(e, b, len, "common_pid == 4243", false);
    MATCH(e, b, len, "common_type == 300", true);
    MATCH(e, b, len, "common_flags & 0x80", true);
    MATCH(e, b, len, "common_flags & 0x02", false);
    MATCH(e, b, len, "common_preempt_count == 2", true);
    MATCH(e, b, len, "common_preempt_count > 2", false);
}

typedef bool (*truth_fn)(bool a, bool b, bool c);

static bool t_or_and(bool a, bool b, bool c) { return a || (b && c); }
static bool t_and_or(bool a, bool b, bool c) { return (a && b) || c; }
static bool t_paren(bool a, bool b, bool c) { return (a || b) && c; }
static bool t_not_and(bool a, bool b, bool c) { (void)c; return !a && b; }
static bool t_not_group(bool a, bool b, bool c) { return !(a && b) || c; }
static bool t_nested(bool a, bool b, bool c) { return a && !(b || !c); }
static bool t_double_not(bool a, bool b, bool c) { (void)b; (void)c; return a; }
static bool t_deep(bool a, bool b, bool c) { return !((a || !b) && !(c && a)); }
static bool t_chain(bool a, bool b, bool c) { return (a || b || c) && !(a && b && c); }

static void test_precedence(void **state)
{
    (void)state;
    static const struct {
        const char *expr;
        truth_fn want;
    } cases[] = {
        { "pid == 1 || old_pid == 1 && common_pid == 1", t_or_and },
        { "pid == 1 && old_pid == 1 || common_pid == 1", t_and_or },
        { "(pid == 1 || old_pid == 1) && common_pid == 1", t_paren },
        { "!pid == 1 && old_pid == 1", t_not_and },
        { "!(pid == 1 && old_pid == 1) || common_pid == 1", t_not_group },
        { "pid == 1 && !(old_pid == 1 || !(common_pid == 1))", t_nested },
        { "!!pid == 1", t_double_not },
        { "((( pid == 1 )))", t_double_not },
        { "!((pid == 1 || !old_pid == 1) && !(common_pid == 1 && pid == 1))", t_deep },
        { "(pid==1||old_pid==1||common_pid==1)&&!(pid==1&&old_pid==1&&common_pid==1)", t_chain },
    };
    struct fake ev;
    uint8_t b[64];
    exec_event(&ev);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct tp_filter *f = compile_ok(&ev.e, cases[i].expr, __LINE__);
        for (int bits = 0; bits < 8; bits++) {
            bool a = bits & 1, bb = bits & 2, c = bits & 4;
            uint32_t len = exec_rec(b, c ? 1 : 2, a ? 1 : 2, bb ? 1 : 2, "/x");
            if (run(f, b, len, 0) != cases[i].want(a, bb, c))
                fail_msg("'%s' with a=%d b=%d c=%d", cases[i].expr, a, bb, c);
        }
        tp_filter_free(f);
    }
}

static void test_static_strings(void **state)
{
    (void)state;
    struct fake ev;
    uint8_t b[64];
    switch_event(&ev);
    const struct tp_event *e = &ev.e;
    uint32_t len = switch_rec(b, "bash", "abcdefghijklmnop");   /* next: no NUL */
    MATCH(e, b, len, "prev_comm == \"bash\"", true);
    MATCH(e, b, len, "prev_comm == \"bas\"", false);
    MATCH(e, b, len, "prev_comm == \"bashx\"", false);
    MATCH(e, b, len, "prev_comm == \"\"", false);
    MATCH(e, b, len, "prev_comm != \"bash\"", false);
    MATCH(e, b, len, "prev_comm != \"zsh\"", true);
    MATCH(e, b, len, "next_comm == \"abcdefghijklmnop\"", true);
    MATCH(e, b, len, "next_comm == \"abcdefghijklmno\"", false);
    /* the kernel's strncmp over the 16 bytes: a longer value still equals */
    MATCH(e, b, len, "next_comm == \"abcdefghijklmnopq\"", true);
    MATCH(e, b, len, "next_comm ~ \"*mnop*\"", true);
    MATCH(e, b, len, "next_comm ~ \"a*p\"", true);
    MATCH(e, b, len, "next_comm ~ \"a*q\"", false);
    len = switch_rec(b, "", "x");
    MATCH(e, b, len, "prev_comm == \"\"", true);
    MATCH(e, b, len, "prev_comm != \"\"", false);
    MATCH(e, b, len, "next_comm == \"x\"", true);
}

static void test_dloc_strings(void **state)
{
    (void)state;
    struct fake ev;
    uint8_t b[64];
    exec_event(&ev);
    const struct tp_event *e = &ev.e;
    uint32_t len = exec_rec(b, 1, 1, 1, "/usr/bin/bash");
    MATCH(e, b, len, "filename == \"/usr/bin/bash\"", true);
    MATCH(e, b, len, "filename == \"/usr/bin/bas\"", false);
    MATCH(e, b, len, "filename == \"/usr/bin/bash2\"", false);
    MATCH(e, b, len, "filename != \"/usr/bin/bash\"", false);
    MATCH(e, b, len, "filename != \"/usr/bin/zsh\"", true);
    MATCH(e, b, len, "filename ~ \"*bash\"", true);
    MATCH(e, b, len, "filename ~ \"*sh\"", true);
    MATCH(e, b, len, "filename ~ \"*zsh\"", false);
    MATCH(e, b, len, "filename ~ \"/usr*\"", true);
    MATCH(e, b, len, "filename ~ \"/bin*\"", false);
    MATCH(e, b, len, "filename ~ \"*bin*\"", true);
    MATCH(e, b, len, "filename ~ \"*sbin*\"", false);
    MATCH(e, b, len, "filename ~ \"/usr/bin/?ash\"", true);
    MATCH(e, b, len, "filename ~ \"/usr/bin/?sh\"", false);
    MATCH(e, b, len, "filename ~ \"*/[abc]ash\"", true);
    MATCH(e, b, len, "filename ~ \"*/[!b]ash\"", false);
    MATCH(e, b, len, "filename ~ \"*/[a-c]a[r-t]h\"", true);
    MATCH(e, b, len, "filename ~ \"/usr\"", false);     /* no wildcard: whole */
    MATCH(e, b, len, "filename ~ \"/usr/bin/bash\"", true);
    MATCH(e, b, len, "filename ~ \"*\"", true);
    /* the data's length bounds the string, not the NUL */
    put_loc(b, 8, 20, 4);                               /* "/usr" */
    MATCH(e, b, len, "filename == \"/usr\"", true);
    MATCH(e, b, len, "filename ~ \"/u*\"", true);
    MATCH(e, b, len, "filename ~ \"/us?\"", true);
    MATCH(e, b, len, "filename ~ \"/us?/*\"", false);
    MATCH(e, b, len, "filename ~ \"/usr/b*\"", false);     /* "/bin/bash" follows */
    MATCH(e, b, len, "filename ~ \"*r/b*\"", false);
    /* "*x" takes the last byte for the NUL, as the kernel does */
    MATCH(e, b, len, "filename ~ \"*sr\"", false);
    MATCH(e, b, len, "filename ~ \"*us\"", true);
    /* an empty __data_loc string */
    put_loc(b, 8, 20, 0);
    MATCH(e, b, len, "filename == \"\"", true);
    MATCH(e, b, len, "filename != \"\"", false);
    MATCH(e, b, len, "filename ~ \"*\"", false);
    MATCH(e, b, len, "filename ~ \"**\"", true);
}

static void test_rloc_strings(void **state)
{
    (void)state;
    struct fake ev;
    uint8_t b[96] = { 0 };
    nums_event(&ev);
    const struct tp_event *e = &ev.e;
    memcpy(b + 12, "decoy", 6);            /* where a __data_loc reading would land */
    memcpy(b + 80, "hello", 6);
    put_loc(b, 64, 80 - 68, 6);            /* relative to the end of the field */
    uint32_t len = 86;
    MATCH(e, b, len, "rname == \"hello\"", true);
    MATCH(e, b, len, "rname == \"decoy\"", false);
    MATCH(e, b, len, "rname ~ \"h*o\"", true);
    MATCH(e, b, len, "rname ~ \"*ll*\"", true);
    MATCH(e, b, len, "rname ~ \"*lo\"", true);
    MATCH(e, b, len, "rname != \"hello\"", false);
}

static void test_glob_forms(void **state)
{
    (void)state;
    struct fake ev;
    uint8_t b[64];
    switch_event(&ev);
    const struct tp_event *e = &ev.e;
    uint32_t len = switch_rec(b, "bash", "1x");
    MATCH(e, b, len, "prev_comm ~ \"ba*\"", true);
    MATCH(e, b, len, "prev_comm ~ \"sh*\"", false);
    MATCH(e, b, len, "prev_comm ~ \"bashful*\"", false);
    MATCH(e, b, len, "prev_comm ~ \"*as*\"", true);
    MATCH(e, b, len, "prev_comm ~ \"*z*\"", false);
    MATCH(e, b, len, "prev_comm ~ \"b?sh\"", true);
    MATCH(e, b, len, "prev_comm ~ \"b?s\"", false);
    MATCH(e, b, len, "prev_comm ~ \"[abc]ash\"", true);
    MATCH(e, b, len, "prev_comm ~ \"[!b]ash\"", false);
    MATCH(e, b, len, "prev_comm ~ \"[a-c]ash\"", true);
    MATCH(e, b, len, "prev_comm ~ \"[c-z]ash\"", false);
    MATCH(e, b, len, "prev_comm ~ \"b*h\"", true);
    MATCH(e, b, len, "prev_comm ~ \"*a?h\"", true);
    MATCH(e, b, len, "prev_comm ~ \"b?s*\"", true);
    MATCH(e, b, len, "prev_comm ~ \"z?s*\"", false);
    MATCH(e, b, len, "prev_comm ~ \"b\\ash\"", true);
    MATCH(e, b, len, "prev_comm ~ \"*\"", true);
    MATCH(e, b, len, "prev_comm ~ \"bash\"", true);
    /* the kernel's "*x" on a char[16] compares the array's last bytes */
    MATCH(e, b, len, "prev_comm ~ \"*sh\"", false);
    /* a leading '!' negates a '~' */
    MATCH(e, b, len, "prev_comm ~ \"!ba*\"", false);
    MATCH(e, b, len, "prev_comm ~ \"!zs*\"", true);
    MATCH(e, b, len, "prev_comm ~ \"!bash\"", false);
    /* a leading digit makes the kernel compare whole, not glob */
    MATCH(e, b, len, "next_comm ~ \"1*\"", false);
    MATCH(e, b, len, "next_comm ~ \"?x\"", true);
    len = switch_rec(b, "1*", "[ab");
    MATCH(e, b, len, "prev_comm ~ \"1*\"", true);
    MATCH(e, b, len, "next_comm ~ \"[ab\"", true);   /* unclosed '[' is literal */
    MATCH(e, b, len, "next_comm ~ \"[ab]\"", false);
    /* == never globs */
    MATCH(e, b, len, "prev_comm == \"1*\"", true);
    MATCH(e, b, len, "prev_comm == \"1?\"", false);
    MATCH(e, b, len, "prev_comm ~ '1\\'", false);           /* digit first: compared whole */
    len = switch_rec(b, "bash", "[a-");
    MATCH(e, b, len, "next_comm ~ \"[a-\"", true);           /* unclosed range: literal */
    MATCH(e, b, len, "prev_comm ~ 'bas\\h'", true);
    MATCH(e, b, len, "prev_comm ~ 'bash\\'", true);          /* a final '\' matches the end */
}

static void test_quotes_and_no_bare_words(void **state)
{
    (void)state;
    struct fake ev, xev;
    uint8_t b[64];
    switch_event(&ev);
    exec_event(&xev);
    const struct tp_event *e = &ev.e;
    uint32_t len = switch_rec(b, "bash", "a b&&c");
    MATCH(e, b, len, "prev_comm == 'bash'", true);
    MATCH(e, b, len, "prev_comm == 'zsh'", false);
    BAD(e, "prev_comm == bash", -EINVAL,
        "the value for prev_comm needs quotes, as the kernel requires (at column 14)");
    BAD(e, "prev_comm ~ ba*", -EINVAL, "~needs quotes");
    MATCH(e, b, len, "prev_comm=='bash'&&prev_pid==42", true);
    MATCH(e, b, len, "(prev_comm==\"bash\")", true);
    MATCH(e, b, len, "prev_comm ~ 'ba*'", true);
    MATCH(e, b, len, "next_comm == \"a b&&c\"", true);
    MATCH(e, b, len, "next_comm == 'a b&&c' && prev_comm == 'bash'", true);
    MATCH(e, b, len, "next_comm ~ '*b&&*'", true);
    len = switch_rec(b, "it\"s", "'q'");
    MATCH(e, b, len, "prev_comm == 'it\"s'", true);
    MATCH(e, b, len, "next_comm == \"'q'\"", true);
    len = exec_rec(b, 1, 1, 1, "/usr/bin/bash");
    MATCH(&xev.e, b, len, "filename == '/usr/bin/bash'", true);
    MATCH(&xev.e, b, len, "filename ~ '/usr/*'", true);
}

static void test_number_bases(void **state)
{
    (void)state;
    struct fake ev;
    uint8_t b[64];
    exec_event(&ev);
    const struct tp_event *e = &ev.e;
    uint32_t len = exec_rec(b, 0, 31, -31, "/x");
    MATCH(e, b, len, "pid == 31", true);
    MATCH(e, b, len, "pid == 0x1f", true);
    MATCH(e, b, len, "pid == 0X1F", true);
    MATCH(e, b, len, "pid == 037", true);
    MATCH(e, b, len, "pid == 37", false);
    MATCH(e, b, len, "pid == 0x31", false);
    MATCH(e, b, len, "old_pid == -31", true);
    MATCH(e, b, len, "old_pid == -0x1f", true);
    MATCH(e, b, len, "old_pid == -037", true);
    MATCH(e, b, len, "common_pid == 0", true);
    MATCH(e, b, len, "common_pid == -0", true);
    MATCH(e, b, len, "common_pid == 00", true);
    MATCH(e, b, len, "pid == 0000000000000000000031", false);   /* octal 25 */
    MATCH(e, b, len, "pid == 00000000000000000000037", true);   /* 23 characters */
}

static void test_bad_numbers(void **state)
{
    (void)state;
    struct fake ev;
    nums_event(&ev);
    const struct tp_event *e = &ev.e;
    BAD(e, "sd == 08", -EINVAL, "invalid number '08' at column 7");
    BAD(e, "sd == 0x", -EINVAL, "invalid number '0x' at column 7");
    BAD(e, "sd == 0xg", -EINVAL, "~invalid number");
    BAD(e, "sd == 1.5", -EINVAL, "~invalid number '1.5'");
    BAD(e, "sd == +5", -EINVAL, "~invalid number '+5'");
    BAD(e, "sd == -", -EINVAL, "~invalid number '-'");
    BAD(e, "sd == --1", -EINVAL, "~invalid number");
    BAD(e, "sd == five", -EINVAL, "invalid number 'five' at column 7");
    BAD(e, "big == 18446744073709551616", -EINVAL,
        "number '18446744073709551616' is out of range (unsigned 64-bit) at column 8");
    BAD(e, "big == 0x10000000000000000", -EINVAL, "~is out of range (unsigned 64-bit)");
    BAD(e, "sbig == 9223372036854775808", -EINVAL, "~is out of range (signed 64-bit)");
    BAD(e, "sbig == -9223372036854775809", -EINVAL, "~is out of range (signed 64-bit)");
    BAD(e, "sbig == 0xffffffffffffffff", -EINVAL, "~is out of range (signed 64-bit)");
    BAD(e, "ub == -1", -EINVAL, "negative number '-1' for unsigned field ub at column 7");
    BAD(e, "big == -0", -EINVAL, "~negative number");
    BAD(e, "sd == 000000000000000000000001", -EINVAL,
        "number '000000000000000000000001' is longer than 23 characters at column 7");
    BAD(e, "sd == \"5\"", -EINVAL,
        "a quoted value needs a string field (sd is a number) at column 7");
    BAD(e, "sd == '5'", -EINVAL, "~a quoted value needs a string field");
}

static void test_cpu(void **state)
{
    (void)state;
    struct fake ev, wev;
    uint8_t b[64] = { 0 };
    exec_event(&ev);
    wakeup_event(&wev);
    const struct tp_event *e = &ev.e;
    uint32_t len = exec_rec(b, 1, 1, 1, "/x");
    MATCH_CPU(e, b, len, 3, "cpu == 3", true);
    MATCH_CPU(e, b, len, 2, "cpu == 3", false);
    MATCH_CPU(e, b, len, 2, "cpu != 3", true);
    MATCH_CPU(e, b, len, 3, "CPU >= 3", true);
    MATCH_CPU(e, b, len, 2, "CPU >= 3", false);
    MATCH_CPU(e, b, len, 3, "common_cpu < 4", true);
    MATCH_CPU(e, b, len, 4, "common_cpu < 4", false);
    MATCH_CPU(e, b, len, 0, "cpu > -1", true);          /* an int, as in the kernel */
    MATCH_CPU(e, b, len, 0xffffffffu, "cpu == -1", true);
    MATCH_CPU(e, b, len, 0xffffffffu, "cpu < 0", true);
    MATCH_CPU(e, b, len, 0x80000000u, "cpu > 0", false);
    MATCH_CPU(e, b, len, 5, "cpu <= 5 && pid == 1", true);
    BAD(e, "cpu & 1", -EINVAL,
        "operator '&' is not supported on cpu (the kernel never matches it) at column 5");
    BAD(e, "cpu ~ \"1\"", -EINVAL, "operator '~' needs a string field (cpu is a number) at column 5");
    BAD(e, "cpu == \"3\"", -EINVAL, "~a quoted value needs a string field (cpu is a number)");
    /* an event's own field named cpu comes first */
    memset(b, 0, sizeof(b));
    put(b, 28, 7, 4);
    MATCH_CPU(&wev.e, b, 32, 3, "cpu == 7", true);
    MATCH_CPU(&wev.e, b, 32, 3, "cpu == 3", false);
    MATCH_CPU(&wev.e, b, 32, 3, "CPU == 3", true);
    MATCH_CPU(&wev.e, b, 32, 3, "cpu & 2", true);
}

/* comm: the task's name given with the record; unknown, it is as a kernel-only predicate. */
static void test_comm_given_or_unknown(void **state)
{
    (void)state;
    struct fake ev, wev, nev;
    uint8_t b[64];
    exec_event(&ev);
    wakeup_event(&wev);
    nums_event(&nev);
    const struct tp_event *e = &ev.e;
    uint32_t len = exec_rec(b, 1, 2, 1, "/x");
    struct tp_filter *f = compile_ok(e, "comm == \"bash\"", __LINE__);
    assert_false(tp_filter_kernel_only(f));
    assert_true(tp_filter_uses_comm(f));
    assert_true(run(f, b, len, 0));
    assert_true(tp_filter_match_comm(f, b, len, 0, "bash"));
    assert_false(tp_filter_match_comm(f, b, len, 0, "bashful"));
    assert_false(tp_filter_match_comm(f, b, len, 0, "bas"));
    tp_filter_free(f);
    f = compile_ok(e, "COMM ~ \"tpbar*\" && pid == 2", __LINE__);
    assert_true(tp_filter_match_comm(f, b, len, 0, "tpbarA"));
    assert_false(tp_filter_match_comm(f, b, len, 0, "xtpbarA"));
    tp_filter_free(f);
    f = compile_ok(e, "comm ~ \"*ash\" || comm == \"0123456789abcde\"", __LINE__);
    assert_true(tp_filter_match_comm(f, b, len, 0, "bash"));
    assert_true(tp_filter_match_comm(f, b, len, 0, "0123456789abcde"));
    assert_false(tp_filter_match_comm(f, b, len, 0, "zsh"));
    tp_filter_free(f);
    f = compile_ok(e, "!(comm == \"x\")", __LINE__);
    assert_false(tp_filter_match_comm(f, b, len, 0, "x"));
    assert_true(tp_filter_match_comm(f, b, len, 0, "y"));
    tp_filter_free(f);
    f = compile_ok(e, "pid == 2", __LINE__);
    assert_false(tp_filter_kernel_only(f));
    tp_filter_free(f);
    assert_false(tp_filter_kernel_only(NULL));
    /* false only when the record fails whatever comm is */
    MATCH(e, b, len, "pid == 1 && comm == \"x\"", false);
    MATCH(e, b, len, "pid == 2 && comm == \"x\"", true);
    MATCH(e, b, len, "pid == 1 || COMM ~ \"x*\"", true);
    MATCH(e, b, len, "!(comm == \"x\")", true);
    MATCH(e, b, len, "!(comm == \"x\" || pid == 2)", false);
    MATCH(e, b, len, "(comm == \"x\" || pid == 2) && old_pid == 5", false);
    BAD(e, "comm < 5", -EINVAL, "operator '<' needs a numeric field (comm is a string) at column 6");
    BAD(e, "comm ~ \"x", -EINVAL, "~missing closing quote");
    /* an event's own comm field is an ordinary string */
    memset(b, 0, sizeof(b));
    memcpy(b + 8, "bash", 4);
    f = compile_ok(&wev.e, "comm == \"bash\"", __LINE__);
    assert_false(tp_filter_kernel_only(f));
    tp_filter_free(f);
    MATCH(&wev.e, b, 32, "comm == \"bash\"", true);
    MATCH(&wev.e, b, 32, "comm == \"zsh\"", false);
    f = compile_ok(&wev.e, "COMM == \"bash\"", __LINE__);
    assert_false(tp_filter_kernel_only(f));
    assert_true(tp_filter_uses_comm(f));
    tp_filter_free(f);
    /* a char * field: the kernel follows the pointer, user space cannot */
    f = compile_ok(&nev.e, "name == \"eth0\"", __LINE__);
    assert_true(tp_filter_kernel_only(f));
    assert_false(tp_filter_uses_comm(f));
    tp_filter_free(f);
    BAD(&nev.e, "name > 5", -EINVAL, "~needs a numeric field (name is a string)");
}

static void test_unsupported_fields(void **state)
{
    (void)state;
    struct fake ev;
    nums_event(&ev);
    const struct tp_event *e = &ev.e;
    BAD(e, "buf == 1", -EINVAL,
        "field 'buf' holds raw bytes, which filters cannot compare (column 1)");
    BAD(e, "blob == \"x\"", -EINVAL, "~field 'blob' holds raw bytes");
    BAD(e, "ud == 1 || rblob ~ \"x\"", -EINVAL, "~field 'rblob' holds raw bytes, which filters "
        "cannot compare (column 12)");
    BAD(e, "odd == 1", -EINVAL, "~field 'odd' is a 3-byte number");
    BAD(e, "sd.function == 1", -EINVAL, "~field modifiers such as '.function' are not supported");
    BAD(e, "name.ustring == \"x\"", -EINVAL, "~not supported (column 5)");
}

static void test_wrong_operator(void **state)
{
    (void)state;
    struct fake ev;
    switch_event(&ev);
    const struct tp_event *e = &ev.e;
    BAD(e, "prev_pid ~ \"1*\"", -EINVAL,
        "operator '~' needs a string field (prev_pid is a number) at column 10");
    BAD(e, "prev_comm < \"a\"", -EINVAL,
        "operator '<' needs a numeric field (prev_comm is a string) at column 11");
    BAD(e, "prev_comm <= a", -EINVAL, "~operator '<=' needs a numeric field");
    BAD(e, "prev_comm > a", -EINVAL, "~operator '>' needs a numeric field");
    BAD(e, "prev_comm >= a", -EINVAL, "~operator '>=' needs a numeric field");
    BAD(e, "prev_comm & 1", -EINVAL, "~operator '&' needs a numeric field");
    BAD(e, "next_pid == \"7\"", -EINVAL, "~a quoted value needs a string field");
}

static void test_syntax_errors(void **state)
{
    (void)state;
    struct fake ev;
    switch_event(&ev);
    const struct tp_event *e = &ev.e;
    BAD(e, "pidd == 1", -EINVAL, "unknown field 'pidd' at column 1");
    BAD(e, "prev_pid == 1 || bogus == 2", -EINVAL, "unknown field 'bogus' at column 18");
    BAD(e, "prev_pid == ", -EINVAL, "expected a value after '==' at column 13");
    BAD(e, "prev_pid ==)", -EINVAL, "expected a value after '==' at column 12");
    BAD(e, "prev_pid != ", -EINVAL, "expected a value after '!=' at column 13");
    BAD(e, "prev_comm ~", -EINVAL, "expected a value after '~' at column 12");
    BAD(e, "prev_pid >= &&", -EINVAL, "expected a value after '>=' at column 13");
    BAD(e, "prev_pid = 1", -EINVAL,
        "expected an operator (== != < <= > >= & ~) after 'prev_pid' at column 10");
    BAD(e, "prev_pid", -EINVAL, "~expected an operator");
    BAD(e, "(prev_pid == 1", -EINVAL, "missing ')' for the '(' at column 1");
    BAD(e, "((prev_pid == 1) && (next_pid == 1)", -EINVAL, "missing ')' for the '(' at column 1");
    BAD(e, "prev_pid == 1)", -EINVAL, "unbalanced ')' at column 14");
    BAD(e, "prev_pid == 1 &&", -EINVAL, "expected a field name at column 17");
    BAD(e, "prev_pid == 1 ||   ", -EINVAL, "expected a field name at column 20");
    BAD(e, "prev_pid == 1 && && next_pid == 1", -EINVAL, "expected a field name at column 18");
    BAD(e, "prev_pid == 1 next_pid == 2", -EINVAL, "expected '&&', '||' or the end at column 15");
    BAD(e, "prev_pid == 1 & next_pid == 2", -EINVAL, "~expected '&&', '||' or the end at column 15");
    BAD(e, "prev_pid == 1 | next_pid == 2", -EINVAL, "~expected '&&', '||' or the end");
    BAD(e, "(prev_pid == 1 next_pid", -EINVAL, "expected '&&', '||' or ')' at column 16");
    BAD(e, "prev_comm == \"bash", -EINVAL, "missing closing quote for the value at column 14");
    BAD(e, "prev_comm == 'bash\"", -EINVAL, "~missing closing quote");
    BAD(e, "()", -EINVAL, "expected a field name at column 2");
    BAD(e, "!", -EINVAL, "expected a field name at column 2");
    BAD(e, "== 1", -EINVAL, "expected a field name at column 1");
    BAD(e, "", -EINVAL, "the expression is empty");
    BAD(e, " \t\n ", -EINVAL, "the expression is empty");
    BAD(e, "0", -EINVAL, "unknown field '0' at column 1");
}

static void test_whitespace(void **state)
{
    (void)state;
    struct fake ev;
    uint8_t b[64];
    exec_event(&ev);
    uint32_t len = exec_rec(b, 7, 5, 6, "/x");
    MATCH(&ev.e, b, len, "pid==5&&(old_pid==6||!common_pid==7)", true);
    MATCH(&ev.e, b, len, " \tpid\n==\r5 \v&&\f( old_pid == 6 || ! common_pid == 7 ) ", true);
    MATCH(&ev.e, b, len, "pid==5&&(old_pid==5||!common_pid==7)", false);
}

static void test_limits(void **state)
{
    (void)state;
    struct fake ev;
    uint8_t b[64];
    char expr[TP_FILTER_MAX_LEN + 64];
    exec_event(&ev);
    const struct tp_event *e = &ev.e;
    uint32_t len = exec_rec(b, 1, 128, 1, "/x");

    /* length */
    memset(expr, ' ', sizeof(expr));
    memcpy(expr, "pid == 128", 10);
    expr[TP_FILTER_MAX_LEN] = '\0';
    MATCH(e, b, len, expr, true);
    expr[TP_FILTER_MAX_LEN] = ' ';
    expr[TP_FILTER_MAX_LEN + 1] = '\0';
    BAD(e, expr, -E2BIG, "expression longer than 2048 bytes");

    /* nodes: 128 predicates, 127 "||", and "!"s */
    size_t n = 0;
    for (int i = 1; i <= 128; i++)
        n += (size_t)sprintf(expr + n, "%spid==%d", i > 1 ? "||" : "", i);
    MATCH(e, b, len, expr, true);
    memmove(expr + 2, expr, n + 1);
    memcpy(expr, "!(", 2);                              /* 256 nodes */
    strcat(expr, ")");
    MATCH(e, b, len, expr, false);
    memmove(expr + 1, expr, strlen(expr) + 1);          /* 257 */
    BAD(e, expr, -E2BIG, "~more than 256 predicates and operators at column");
    n = 0;
    for (int i = 1; i <= 129; i++)
        n += (size_t)sprintf(expr + n, "%spid==%d", i > 1 ? "||" : "", i);
    BAD(e, expr, -E2BIG, "~more than 256 predicates and operators");
    memset(expr, '!', 300);
    strcpy(expr + 300, "pid == 1");
    BAD(e, expr, -E2BIG, "more than 256 predicates and operators at column 257");

    /* nesting */
    n = 0;
    for (int i = 0; i < 64; i++)
        expr[n++] = '(';
    n += (size_t)sprintf(expr + n, "pid == 128");
    for (int i = 0; i < 64; i++)
        expr[n++] = ')';
    expr[n] = '\0';
    MATCH(e, b, len, expr, true);
    memmove(expr + 1, expr, n + 1);
    expr[0] = '(';
    strcat(expr, ")");
    BAD(e, expr, -E2BIG, "parentheses nested deeper than 64 at column 65");
    memset(expr, '(', 2000);
    expr[2000] = '\0';
    BAD(e, expr, -E2BIG, "~parentheses nested deeper than 64");

    /* string values: as long as the kernel takes */
    struct fake sev;
    switch_event(&sev);
    memcpy(expr, "prev_comm == \"", 14);
    memset(expr + 14, 'a', 255);
    strcpy(expr + 14 + 255, "\"");
    MATCH(&sev.e, b, 64, expr, false);
    memset(expr + 14, 'a', 256);
    strcpy(expr + 14 + 256, "\"");
    BAD(&sev.e, expr, -EINVAL, "string value longer than 255 bytes at column 14");
}

static void test_truncated_records(void **state)
{
    (void)state;
    struct fake ev, sev, nev, pev;
    uint8_t b[96];
    exec_event(&ev);
    switch_event(&sev);
    nums_event(&nev);
    print_event(&pev);
    const struct tp_event *e = &ev.e;
    uint32_t len = exec_rec(b, 9, 5, 6, "/bin/sh");

    /* a field past the end: the predicate is false, whatever its operator */
    MATCH(e, b, 15, "pid == 5", false);
    MATCH(e, b, 15, "pid != 5", false);
    MATCH(e, b, 15, "!(pid == 5)", true);
    MATCH(e, b, 16, "pid == 5", true);
    MATCH(e, b, 15, "common_pid == 9", true);
    MATCH(e, b, 2, "common_type == 300", true);
    MATCH(e, b, 1, "common_type == 300", false);
    MATCH(e, b, 0, "common_type == 300", false);
    /* __data_loc data outside the record */
    MATCH(e, b, len, "filename == \"/bin/sh\"", true);
    MATCH(e, b, len - 1, "filename == \"/bin/sh\"", false);
    MATCH(e, b, len - 1, "filename != \"/bin/sh\"", false);
    MATCH(e, b, len - 1, "filename ~ \"*\"", false);
    put_loc(b, 8, 0xffff, 0xffff);
    MATCH(e, b, len, "filename ~ \"*sh*\"", false);
    put_loc(b, 8, 18, 0xfff0);
    MATCH(e, b, len, "filename ~ \"*\"", false);
    MATCH(e, b, 11, "filename ~ \"*\"", false);         /* the loc itself is cut */
    /* no record at all */
    struct tp_filter *f = compile_ok(e, "pid == 0 || filename == \"\"", __LINE__);
    assert_false(tp_filter_match(f, NULL, 100, 0));
    tp_filter_free(f);
    f = compile_ok(e, "!(pid == 0)", __LINE__);
    assert_true(tp_filter_match(f, NULL, 100, 0));
    tp_filter_free(f);
    /* a char array partly outside */
    len = switch_rec(b, "bash", "x");
    MATCH(&sev.e, b, 23, "prev_comm ~ \"*\"", false);
    MATCH(&sev.e, b, 24, "prev_comm == 'bash'", true);
    /* __rel_loc outside */
    memset(b, 0, sizeof(b));
    memcpy(b + 80, "hello", 6);
    put_loc(b, 64, 12, 6);
    MATCH(&nev.e, b, 86, "rname == 'hello'", true);
    MATCH(&nev.e, b, 85, "rname == 'hello'", false);
    put_loc(b, 64, 0xffff, 6);
    MATCH(&nev.e, b, 96, "rname ~ \"*\"", false);
    /* char[] to the end of the record */
    memset(b, 0, sizeof(b));
    memcpy(b + 16, "hello", 6);
    MATCH(&pev.e, b, 22, "buf == \"hello\"", true);
    MATCH(&pev.e, b, 21, "buf == \"hello\"", true);     /* no NUL: the end bounds it */
    MATCH(&pev.e, b, 21, "buf ~ \"hel*\"", true);
    MATCH(&pev.e, b, 21, "buf ~ \"*llo*\"", true);
    MATCH(&pev.e, b, 18, "buf == \"hello\"", false);   /* read as a C string: exact */
    MATCH(&pev.e, b, 18, "buf == \"he\"", true);
    MATCH(&pev.e, b, 22, "buf == \"hell\"", false);
    MATCH(&pev.e, b, 22, "buf != \"hell\"", true);
    MATCH(&pev.e, b, 22, "buf ~ \"*llo\"", false);      /* the kernel's len 0: never */
    MATCH(&pev.e, b, 22, "buf ~ \"h*o\"", true);
    MATCH(&pev.e, b, 22, "ip == 0", true);
    MATCH(&pev.e, b, 16, "buf == \"\"", true);
    MATCH(&pev.e, b, 15, "buf == \"\"", false);
    MATCH(&pev.e, b, 15, "buf != \"\"", false);
}

static void test_error_buffer(void **state)
{
    (void)state;
    struct fake ev;
    exec_event(&ev);
    struct tp_filter *f = NULL;
    char err[32];

    memset(err, 'X', sizeof(err));
    assert_int_equal(tp_filter_compile("pidd == 1", &ev.e, &f, err, 8), -EINVAL);
    assert_string_equal(err, "unknown");
    for (size_t i = 8; i < sizeof(err); i++)
        assert_int_equal(err[i], 'X');
    memset(err, 'X', sizeof(err));
    assert_int_equal(tp_filter_compile("pidd == 1", &ev.e, &f, err, 1), -EINVAL);
    assert_int_equal(err[0], '\0');
    assert_int_equal(err[1], 'X');
    memset(err, 'X', sizeof(err));
    assert_int_equal(tp_filter_compile("pidd == 1", &ev.e, &f, err, 0), -EINVAL);
    assert_int_equal(err[0], 'X');
    assert_int_equal(tp_filter_compile("pidd == 1", &ev.e, &f, NULL, 100), -EINVAL);
    assert_null(f);
    /* a long name is cut in the message */
    char expr[400];
    memset(expr, 'y', 300);
    strcpy(expr + 300, " == 1");
    char big[ERR_SIZE];
    assert_int_equal(tp_filter_compile(expr, &ev.e, &f, big, sizeof(big)), -EINVAL);
    assert_non_null(strstr(big, "yyy...' at column 1"));
    assert_true(strlen(big) < 120);
    /* success clears the message */
    strcpy(big, "stale");
    assert_int_equal(tp_filter_compile("pid == 1", &ev.e, &f, big, sizeof(big)), 0);
    assert_string_equal(big, "");
    tp_filter_free(f);
}

static void test_arguments(void **state)
{
    (void)state;
    struct fake ev;
    exec_event(&ev);
    struct tp_filter *f = (struct tp_filter *)&f;
    char err[ERR_SIZE];
    assert_int_equal(tp_filter_compile(NULL, &ev.e, &f, err, sizeof(err)), -EINVAL);
    assert_null(f);
    assert_int_equal(tp_filter_compile("pid == 1", NULL, &f, err, sizeof(err)), -EINVAL);
    assert_int_equal(tp_filter_compile("pid == 1", &ev.e, NULL, err, sizeof(err)), -EINVAL);
    ev.e.loaded = false;
    assert_int_equal(tp_filter_compile("pid == 1", &ev.e, &f, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "the format of sched:sched_process_exec is not loaded");
    ev.e.loaded = true;
    ev.e.load_error = -EIO;
    assert_int_equal(tp_filter_compile("pid == 1", &ev.e, &f, err, sizeof(err)), -EINVAL);
    tp_filter_free(NULL);
    uint8_t rec[4] = { 0 };
    assert_true(tp_filter_match(NULL, rec, sizeof(rec), 0));
}

static void test_patterns_are_copied(void **state)
{
    (void)state;
    /* two filters compiled from one buffer keep their own patterns */
    struct fake ev;
    uint8_t b[64];
    exec_event(&ev);
    char expr[64];
    strcpy(expr, "filename == \"/bin/sh\"");
    struct tp_filter *f1 = compile_ok(&ev.e, expr, __LINE__);
    strcpy(expr, "filename == \"/bin/xx\"");
    struct tp_filter *f2 = compile_ok(&ev.e, expr, __LINE__);
    memset(expr, 0, sizeof(expr));
    uint32_t len = exec_rec(b, 1, 1, 1, "/bin/sh");
    assert_true(run(f1, b, len, 0));
    assert_false(run(f2, b, len, 0));
    tp_filter_free(f1);
    tp_filter_free(f2);
}

/* comm as a word of a filter's text, not inside common_pid or parent_comm */
static void test_text_names_comm(void **state)
{
    (void)state;
    assert_true(tp_filter_text_names_comm("comm == \"sh\""));
    assert_true(tp_filter_text_names_comm("pid > 1 && COMM ~ \"x*\""));
    assert_true(tp_filter_text_names_comm("(comm==\"a\")"));
    assert_false(tp_filter_text_names_comm("common_pid == 5"));
    assert_false(tp_filter_text_names_comm("parent_comm == \"sh\""));
    assert_false(tp_filter_text_names_comm("commit > 1"));
    assert_false(tp_filter_text_names_comm(NULL));
}

/* A count by comm is one key when every match needs one exact name. */
static void pinned(const struct tp_event *e, const char *text, const char *want)
{
    char name[32] = "unset";
    struct tp_filter *f = compile_ok(e, text, __LINE__);
    bool got = tp_filter_pinned_comm(f, name, sizeof(name));
    if (got != (want != NULL) || (want && strcmp(name, want) != 0))
        fail_msg("%s: pinned %d '%s', wanted %s", text, got, name, want ? want : "none");
    tp_filter_free(f);
}

static void test_pinned_comm(void **state)
{
    (void)state;
    struct fake ev;
    exec_event(&ev);
    const struct tp_event *e = &ev.e;
    pinned(e, "comm == \"tpbench_gen\"", "tpbench_gen");
    pinned(e, "comm ~ \"bash\"", "bash");
    pinned(e, "pid > 3 && comm == \"bash\"", "bash");
    pinned(e, "(comm == \"bash\" || comm == \"bash\") && pid > 3", "bash");
    pinned(e, "comm == \"a\" && comm == \"b\"", "a");     /* matches nothing: any key is right */
    pinned(e, "comm == \"bash\" || pid > 3", NULL);
    pinned(e, "comm == \"bash\" || comm == \"zsh\"", NULL);
    pinned(e, "comm != \"bash\"", NULL);
    pinned(e, "!(comm == \"bash\")", NULL);
    pinned(e, "comm ~ \"ba*\"", NULL);
    pinned(e, "comm ~ \"b?sh\"", NULL);
    pinned(e, "pid > 3", NULL);
    assert_false(tp_filter_pinned_comm(NULL, (char[4]){ 0 }, 4));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_names_comm),
        cmocka_unit_test(test_signed_ops),
        cmocka_unit_test(test_widths_and_sign_extension),
        cmocka_unit_test(test_common_fields),
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_static_strings),
        cmocka_unit_test(test_dloc_strings),
        cmocka_unit_test(test_rloc_strings),
        cmocka_unit_test(test_glob_forms),
        cmocka_unit_test(test_quotes_and_no_bare_words),
        cmocka_unit_test(test_number_bases),
        cmocka_unit_test(test_bad_numbers),
        cmocka_unit_test(test_cpu),
        cmocka_unit_test(test_comm_given_or_unknown),
        cmocka_unit_test(test_unsupported_fields),
        cmocka_unit_test(test_wrong_operator),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_whitespace),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_truncated_records),
        cmocka_unit_test(test_error_buffer),
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_patterns_are_copied),
        cmocka_unit_test(test_pinned_comm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
