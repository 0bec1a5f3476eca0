/*
 * Unit tests for client/olres.c and client/olprint.c: the one-liner
 * document decoded, two readings diffed into an interval (the intervals add
 * up to the total), and the results printed as bpftrace prints its maps
 * (the log2 table byte for byte as bpftrace 0.17 prints it for the same
 * values, count lines sorted by value) and as JSON.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "olprint.h"
#include "olres.h"

static char out[16384];

/* The strcmps of the client's rooms (linked with -Wl,--wrap=strcmp). */
static unsigned long strcmps;
int __real_strcmp(const char *a, const char *b);
int __wrap_strcmp(const char *a, const char *b);
int __wrap_strcmp(const char *a, const char *b)
{
    strcmps++;
    return __real_strcmp(a, b);
}

static FILE *open_out(void)
{
    FILE *f = fmemopen(out, sizeof(out), "w");
    assert_non_null(f);
    return f;
}

static const char doc1[] =
    "tracepoint-oneliners 1\n"
    "agg 1 count 0 0 0 0 3 count raw_syscalls:sys_enter by comm,id\n"
    "key 50 0 comm=bash,id=3\n"
    "key 7 0 comm=sh,id=0\n"
    "key 50 0 comm=awk,id=1\n"
    "agg 2 hist 1 2 0 0 1 hist syscalls:sys_exit_read ret filter ret > 0\n"
    "key 4012 60000 \n"
    "b 2 5\n"
    "b 6 3000\n"
    "b 8 7\n"
    "b 15 1000\n";

static void test_parse(void **state)
{
    (void)state;
    struct ol_doc d;
    assert_int_equal(ol_doc_parse(doc1, &d), 0);
    assert_int_equal(d.n, 2);
    assert_int_equal(d.v[0].kind, OL_COUNT);
    assert_int_equal(d.v[0].nkeys, 3);
    assert_string_equal(d.v[0].keys[1].name, "comm=sh,id=0");
    assert_int_equal(d.v[0].keys[1].count, 7);
    assert_string_equal(d.v[0].directive, "count raw_syscalls:sys_enter by comm,id");
    assert_int_equal(d.v[1].kind, OL_HIST);
    assert_true(d.v[1].is_signed);
    assert_int_equal(d.v[1].dropped, 2);
    assert_string_equal(d.v[1].keys[0].name, "");
    assert_int_equal(d.v[1].keys[0].hist[6], 3000);
    assert_int_equal(d.v[1].keys[0].hist[15], 1000);
    ol_doc_free(&d);
}

static void test_malformed(void **state)
{
    (void)state;
    struct ol_doc d;
    assert_int_equal(ol_doc_parse("", &d), -1);
    assert_int_equal(ol_doc_parse("tracepoint-oneliners 2\n", &d), -1);
    assert_int_equal(ol_doc_parse("tracepoint-oneliners 1\nkey 1 2 x\n", &d), -1);
    assert_int_equal(ol_doc_parse("tracepoint-oneliners 1\nagg 1 frob 0 0 0 0 0 x\n", &d), -1);
    assert_int_equal(ol_doc_parse("tracepoint-oneliners 1\nagg 1 hist 0 0 0 0 1 x\n"
                                  "key 1 1 k\nb 66 1\n", &d), -1);
    assert_int_equal(ol_doc_parse("tracepoint-oneliners 1\n", &d), 0);
    assert_int_equal(d.n, 0);
    ol_doc_free(&d);
}

/* "until NS": up to when the PMDA has counted; a document without it says 0. */
static void test_until(void **state)
{
    (void)state;
    struct ol_doc d, before = { NULL, 0, 0 }, diff;
    assert_int_equal(ol_doc_parse("tracepoint-oneliners 1\nuntil 1700000000123456789\n"
                                  "agg 1 count 0 0 0 0 1 count sys:ev\nkey 3 0 \n", &d), 0);
    assert_true(d.until == 1700000000123456789ull);
    assert_int_equal(d.n, 1);
    assert_int_equal(ol_doc_diff(&d, &before, &diff), 0);
    assert_true(diff.until == d.until);
    ol_doc_free(&diff);
    ol_doc_free(&d);
    assert_int_equal(ol_doc_parse("tracepoint-oneliners 1\nuntil x\n", &d), -1);
    assert_int_equal(ol_doc_parse("tracepoint-oneliners 1\n", &d), 0);
    assert_true(d.until == 0);
    ol_doc_free(&d);
}

static void test_count_sorted(void **state)
{
    (void)state;
    struct ol_doc d;
    assert_int_equal(ol_doc_parse(doc1, &d), 0);
    FILE *f = open_out();
    assert_int_equal(ol_print_text(f, &d.v[0]), 0);
    fclose(f);
    assert_string_equal(out, "count raw_syscalls:sys_enter by comm,id:\n"
                             "comm=sh,id=0 7\n"
                             "comm=awk,id=1 50\n"
                             "comm=bash,id=3 50\n"
                             "\n");
    ol_doc_free(&d);
}

/* What bpftrace 0.17 printed for @ = hist(args->ret) over reads of 1 x5, 20 x3000,
 * 100 x7 and 5000 x1500 (the same values as QA 151). */
static const char bpftrace_table[] =
    "[1]                    5 |                                                    |\n"
    "[2, 4)                 0 |                                                    |\n"
    "[4, 8)                 0 |                                                    |\n"
    "[8, 16)                0 |                                                    |\n"
    "[16, 32)            3000 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
    "[32, 64)               0 |                                                    |\n"
    "[64, 128)              7 |                                                    |\n"
    "[128, 256)             0 |                                                    |\n"
    "[256, 512)             0 |                                                    |\n"
    "[512, 1K)              0 |                                                    |\n"
    "[1K, 2K)               0 |                                                    |\n"
    "[2K, 4K)               0 |                                                    |\n"
    "[4K, 8K)            1500 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n";

static void test_hist_as_bpftrace(void **state)
{
    (void)state;
    uint64_t h[OL_BUCKETS] = { 0 };
    h[2] = 5;           /* 1 */
    h[6] = 3000;        /* [16, 32) */
    h[8] = 7;           /* [64, 128) */
    h[14] = 1500;       /* [4K, 8K) */
    FILE *f = open_out();
    ol_print_hist(f, h);
    fclose(f);
    assert_string_equal(out, bpftrace_table);
}

static void test_labels(void **state)
{
    (void)state;
    char b[32];
    static const struct { unsigned bucket; const char *label; } want[] = {
        { 0, "(..., 0)" }, { 1, "[0]" }, { 2, "[1]" }, { 3, "[2, 4)" }, { 11, "[512, 1K)" },
        { 12, "[1K, 2K)" }, { 22, "[1M, 2M)" }, { 32, "[1G, 2G)" }, { 42, "[1T, 2T)" },
        { 52, "[1P, 2P)" }, { 62, "[1E, 2E)" }, { 65, "[8E, 16E)" }, { 13, "[2K, 4K)" },
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        ol_bucket_label(want[i].bucket, b, sizeof(b));
        assert_string_equal(b, want[i].label);
    }
}

static void test_keyed_hist_and_latency(void **state)
{
    (void)state;
    struct ol_doc d;
    const char *text = "tracepoint-oneliners 1\n"
                       "agg 3 latency 0 0 0 4 2 latency a:b a:c on pid=pid by comm\n"
                       "key 2 0 comm=b\nb 1 2\n"
                       "key 1 0 comm=a\nb 22 1\n";
    assert_int_equal(ol_doc_parse(text, &d), 0);
    FILE *f = open_out();
    assert_int_equal(ol_print_text(f, &d.v[0]), 0);
    fclose(f);
    assert_string_equal(out,
        "latency a:b a:c on pid=pid by comm (ns):\n"
        "comm=a:\n"
        "[1M, 2M)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
        "\n"
        "comm=b:\n"
        "[0]                    2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
        "pending 4\n"
        "\n");
    ol_doc_free(&d);
}

static void test_diff_adds_up(void **state)
{
    (void)state;
    const char *r1 = "tracepoint-oneliners 1\n"
                     "agg 1 sum 1 0 0 0 2 sum a:b v by k\n"
                     "key 3 -5 k=x\nkey 2 10 k=y\n";
    const char *r2 = "tracepoint-oneliners 1\n"
                     "agg 1 sum 1 1 0 0 3 sum a:b v by k\n"
                     "key 3 -5 k=x\nkey 6 12 k=y\nkey 1 -1 k=z\n";
    struct ol_doc empty = { NULL, 0, 0 }, d1, d2, i1, i2;
    assert_int_equal(ol_doc_parse(r1, &d1), 0);
    assert_int_equal(ol_doc_parse(r2, &d2), 0);
    assert_int_equal(ol_doc_diff(&d1, &empty, &i1), 0);     /* the first: from zero */
    assert_int_equal(ol_doc_diff(&d2, &d1, &i2), 0);
    assert_int_equal(i1.v[0].nkeys, 2);
    assert_int_equal(i2.v[0].nkeys, 2);                     /* k=x counted nothing */
    assert_string_equal(i2.v[0].keys[0].name, "k=y");
    assert_int_equal(i2.v[0].keys[0].count, 4);
    assert_int_equal((int64_t)i2.v[0].keys[0].sum, 2);
    assert_string_equal(i2.v[0].keys[1].name, "k=z");
    assert_int_equal((int64_t)i2.v[0].keys[1].sum, -1);
    assert_int_equal(i2.v[0].dropped, 1);
    /* interval 1 + interval 2 = the second reading, key by key */
    uint64_t total = 0;
    for (size_t k = 0; k < i1.v[0].nkeys; k++)
        total += i1.v[0].keys[k].count;
    for (size_t k = 0; k < i2.v[0].nkeys; k++)
        total += i2.v[0].keys[k].count;
    assert_int_equal(total, 3 + 6 + 1);
    FILE *f = open_out();
    assert_int_equal(ol_print_text(f, &i2.v[0]), 0);
    fclose(f);
    assert_string_equal(out, "sum a:b v by k:\nk=z -1\nk=y 2\ndropped 1\n\n");
    ol_doc_free(&d1);
    ol_doc_free(&d2);
    ol_doc_free(&i1);
    ol_doc_free(&i2);
}

static void test_diff_hist(void **state)
{
    (void)state;
    struct ol_doc d1, d2, i;
    assert_int_equal(ol_doc_parse("tracepoint-oneliners 1\nagg 1 hist 0 0 0 0 1 h\n"
                                  "key 3 30 \nb 5 3\n", &d1), 0);
    assert_int_equal(ol_doc_parse("tracepoint-oneliners 1\nagg 1 hist 0 0 0 0 1 h\n"
                                  "key 5 50 \nb 5 4\nb 7 1\n", &d2), 0);
    assert_int_equal(ol_doc_diff(&d2, &d1, &i), 0);
    assert_int_equal(i.v[0].keys[0].hist[5], 1);
    assert_int_equal(i.v[0].keys[0].hist[7], 1);
    assert_int_equal(i.v[0].keys[0].count, 2);
    ol_doc_free(&d1);
    ol_doc_free(&d2);
    ol_doc_free(&i);
}

static void test_json(void **state)
{
    (void)state;
    struct ol_doc d;
    assert_int_equal(ol_doc_parse(doc1, &d), 0);
    FILE *f = open_out();
    assert_int_equal(ol_print_json(f, &d.v[0]), 0);
    assert_int_equal(ol_print_json(f, &d.v[1]), 0);
    fclose(f);
    assert_string_equal(out,
        "{\"agg\":\"count raw_syscalls:sys_enter by comm,id\",\"kind\":\"count\",\"dropped\":0,"
        "\"overflow\":0,\"pending\":0,\"data\":{\"comm=sh,id=0\":7,\"comm=awk,id=1\":50,"
        "\"comm=bash,id=3\":50}}\n"
        "{\"agg\":\"hist syscalls:sys_exit_read ret filter ret > 0\",\"kind\":\"hist\","
        "\"dropped\":2,\"overflow\":0,\"pending\":0,\"data\":{\"\":[{\"min\":1,\"max\":1,"
        "\"count\":5},{\"min\":16,\"max\":31,\"count\":3000},{\"min\":64,\"max\":127,"
        "\"count\":7},{\"min\":8192,\"max\":16383,\"count\":1000}]}}\n");
    ol_doc_free(&d);
}

/* A one-liner of n keys "k=I" (I from first, step by step), each counted c. */
static char *many_keys(size_t n, size_t first, long step, unsigned c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    fprintf(f, "tracepoint-oneliners 1\nagg 1 count 0 0 0 0 %zu count a:b by k\n", n);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "key %u 0 k=%zu\n", c, first + (size_t)((long)i * step));
    fclose(f);
    return text;
}

/*
 * 65536 keys: a key is found by its place first (the PMDA appends), else by
 * its name, and the strcmps stay in proportion to the keys, not their square.
 */
static void test_diff_many_keys(void **state)
{
    enum { N = 65536 };
    char *t1 = many_keys(N, 0, 1, 1), *t2 = many_keys(N + 10, 0, 1, 3);
    char *t3 = many_keys(N, N - 1, -1, 5);              /* the same keys, reversed */
    struct ol_doc d1, d2, d3, i2, i3;
    (void)state;
    assert_int_equal(ol_doc_parse(t1, &d1), 0);
    assert_int_equal(ol_doc_parse(t2, &d2), 0);
    assert_int_equal(ol_doc_parse(t3, &d3), 0);
    strcmps = 0;
    assert_int_equal(ol_doc_diff(&d2, &d1, &i2), 0);
    assert_true(strcmps <= 4 * (N + 10));
    assert_int_equal(i2.v[0].nkeys, N + 10);
    assert_string_equal(i2.v[0].keys[7].name, "k=7");
    assert_int_equal(i2.v[0].keys[7].count, 2);         /* 3 - 1 */
    assert_string_equal(i2.v[0].keys[N + 3].name, "k=65539");
    assert_int_equal(i2.v[0].keys[N + 3].count, 3);     /* new: from zero */
    strcmps = 0;
    assert_int_equal(ol_doc_diff(&d3, &d1, &i3), 0);    /* out of order: by name */
    assert_true(strcmps <= 4 * N);
    assert_int_equal(i3.v[0].nkeys, N);
    assert_string_equal(i3.v[0].keys[0].name, "k=65535");
    assert_int_equal(i3.v[0].keys[0].count, 4);         /* 5 - 1 */
    assert_string_equal(i3.v[0].keys[N - 1].name, "k=0");
    assert_int_equal(i3.v[0].keys[N - 1].count, 4);
    ol_doc_free(&d1);
    ol_doc_free(&d2);
    ol_doc_free(&d3);
    ol_doc_free(&i2);
    ol_doc_free(&i3);
    free(t1);
    free(t2);
    free(t3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_until),
        cmocka_unit_test(test_count_sorted),
        cmocka_unit_test(test_hist_as_bpftrace),
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_keyed_hist_and_latency),
        cmocka_unit_test(test_diff_adds_up),
        cmocka_unit_test(test_diff_hist),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_diff_many_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
