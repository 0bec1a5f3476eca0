/*
 * Unit tests for client/linefmt.c: each writer against the snprintf
 * conversion it stands for (%PRIu64, %PRId64, %03PRIu32, %09u) on edge
 * values, and the escaping of names (comm, text) against the escaping the
 * text line has always had: \n, \t, \xNN for control characters and DEL,
 * every other byte (spaces, quotes, backslashes, UTF-8) as it is.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linefmt.h"

static char got[512], want[512];

/* got (n bytes, NUL added) equals want. */
static void same(size_t n)
{
    assert_true(n < sizeof(got));
    got[n] = '\0';
    assert_string_equal(got, want);
}

/* The values around every power of ten, and the ends of the type. */
static void each_edge(void (*check)(uint64_t))
{
    uint64_t p = 1;

    check(0);
    check(UINT64_MAX);
    check(UINT64_MAX - 1);
    check((uint64_t)INT64_MAX);
    check((uint64_t)INT64_MAX + 1);
    check(UINT32_MAX);
    check((uint64_t)UINT32_MAX + 1);
    for (int i = 0; i < 20; i++, p *= 10) {
        check(p - 1);
        check(p);
        check(p + 1);
    }
    for (int i = 0; i < 100000; i++)
        check(((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 11) ^ (uint64_t)rand());
}

static void check_u64(uint64_t v)
{
    snprintf(want, sizeof(want), "%" PRIu64, v);
    same(lf_u64(got, v));
}

static void check_i64(uint64_t v)
{
    int64_t s = (int64_t)v;
    snprintf(want, sizeof(want), "%" PRId64, s);
    same(lf_i64(got, s));
    if (s == INT64_MIN)
        return;                     /* -s is not an int64_t */
    snprintf(want, sizeof(want), "%" PRId64, -s);
    same(lf_i64(got, -s));
}

static void check_u32_03(uint64_t v)
{
    uint32_t u = (uint32_t)v;
    snprintf(want, sizeof(want), "%03" PRIu32, u);
    same(lf_u32_03(got, u));
}

static void check_nanos(uint64_t v)
{
    unsigned u = (unsigned)(v % 1000000000u);
    snprintf(want, sizeof(want), "%09u", u);
    same(lf_nanos(got, u));
}

static void test_u64(void **state)
{
    (void)state;
    each_edge(check_u64);
}

/* pids: negative, huge, INT32 and INT64 ends (the line's pid is any 32-bit value). */
static void test_i64(void **state)
{
    (void)state;
    each_edge(check_i64);
    snprintf(want, sizeof(want), "%" PRId64, INT64_MIN);
    same(lf_i64(got, INT64_MIN));
    snprintf(want, sizeof(want), "%" PRId32, INT32_MIN);
    same(lf_i64(got, INT32_MIN));
    snprintf(want, sizeof(want), "%" PRId32, -1);
    same(lf_i64(got, -1));
}

/* [CPU]: 0, 7, 99, 100, 4095 ... UINT32_MAX (many digits) */
static void test_u32_03(void **state)
{
    (void)state;
    each_edge(check_u32_03);
}

/* The time's nanoseconds: 0, 999999999, and of the largest u64 time. */
static void test_nanos(void **state)
{
    (void)state;
    each_edge(check_nanos);
    check_nanos(999999999);
    check_nanos(UINT64_MAX % 1000000000u);
}

/* The escaping the text line has always had, one byte at a time through stdio. */
static void reference_escape(char *dst, size_t size, const char *s, size_t len)
{
    FILE *f = fmemopen(dst, size, "w");
    assert_non_null(f);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\x%02x", c);
        else
            fputc(c, f);
    }
    long n = ftell(f);
    fclose(f);
    assert_true(n >= 0 && (size_t)n < size);
    dst[n] = '\0';
}

static void check_escaped(const char *s, size_t len)
{
    char *dst = malloc(LF_ESCAPED_MAX(len) + 1);
    assert_non_null(dst);
    reference_escape(want, sizeof(want), s, len);
    size_t n = lf_escaped(dst, s, len);
    assert_true(n <= LF_ESCAPED_MAX(len));
    dst[n] = '\0';
    assert_string_equal(dst, want);
    free(dst);
}

#define ESC(lit) check_escaped(lit, sizeof(lit) - 1)

static void test_escaped(void **state)
{
    (void)state;
    ESC("");
    ESC("bash");
    ESC("tpbench_gen");
    ESC("0123456789abcde");                 /* 15 bytes, the kernel's longest comm */
    ESC("kworker/u4:1 x");                  /* a space stays a space */
    ESC("a\"b\\c'");                        /* quotes and backslashes as they are */
    ESC("new\nline\ttab\r\x1b[31m");
    ESC("\x01\x1f\x7f\x80\xff");            /* DEL escaped, high bytes kept */
    ESC("caf\xc3\xa9");
    ESC("\n\n\n\n");                        /* the worst case, 4 bytes each for \x */
    ESC("\x01\x02\x03\x04");
    char all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (char)i;
    check_escaped(all, sizeof(all));
    check_escaped(all + 1, sizeof(all) - 1);
}

static void test_linebuf(void **state)
{
    struct linebuf lb = { 0 };

    (void)state;
    assert_int_equal(lb_reserve(&lb, 10), 0);
    assert_true(lb.cap >= 10);
    memcpy(lb.p, "0123456789", 10);
    lb.len = 10;
    assert_int_equal(lb_reserve(&lb, 100000), 0);
    assert_true(lb.cap - lb.len >= 100000);
    assert_memory_equal(lb.p, "0123456789", 10);          /* kept as it grows */
    size_t cap = lb.cap;
    assert_int_equal(lb_reserve(&lb, 5), 0);
    assert_int_equal(lb.cap, cap);                          /* no realloc when it fits */
    assert_int_equal(lb_reserve(&lb, SIZE_MAX - 5), -ENOMEM);
    assert_int_equal(lb.cap, cap);
    lb_free(&lb);
    assert_null(lb.p);
    lb_free(&lb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u64),
        cmocka_unit_test(test_i64),
        cmocka_unit_test(test_u32_03),
        cmocka_unit_test(test_nanos),
        cmocka_unit_test(test_escaped),
        cmocka_unit_test(test_linebuf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
