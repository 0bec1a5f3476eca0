/*
 * Unit tests for tp_oldoc (src/oldoc.c): what the PMDA writes of a
 * one-liner's tp_agg, read back with the client's reader (client/olres.c),
 * gives the same keys, counts, sums, buckets and bounds; and the exact text
 * of a small case.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pcp/pmapi.h>

#include "olres.h"
#include "tp_agg.h"
#include "tp_oldoc.h"

/* An event: 8 common bytes, u32 which, s32 ret, char comm[16]. */
static struct tp_field f_which = { "which", "unsigned int which", 8, 4, TP_FIELD_UINT, PM_TYPE_U32 };
static struct tp_field f_ret = { "ret", "int ret", 12, 4, TP_FIELD_INT, PM_TYPE_32 };
static struct tp_field f_comm = { "comm", "char comm[16]", 16, 16, TP_FIELD_STRING,
                                  PM_TYPE_STRING };

static void feed(struct tp_agg *a, uint32_t which, int32_t ret, const char *comm)
{
    unsigned char b[32] = { 0 };
    memcpy(b + 8, &which, 4);
    memcpy(b + 12, &ret, 4);
    strncpy((char *)b + 16, comm, 15);
    tp_agg_feed(a, 0, b, sizeof(b), 1, NULL);
}

static struct tp_agg *make(enum tp_agg_kind kind, unsigned max_keys, const struct tp_field *value,
                           const struct tp_field *by0, const struct tp_field *by1)
{
    struct tp_agg *a = NULL;
    assert_int_equal(tp_agg_create(&a, kind, max_keys, 16), 0);
    struct tp_agg_binding b = { .event = 0, .event_name = "sys:ev", .role = TP_AGG_VALUE,
                                .value = value, .nby = (by0 != NULL) + (by1 != NULL) };
    b.by[0] = by0;
    b.by[1] = by1;
    assert_int_equal(tp_agg_bind(a, &b), 0);
    return a;
}

static char text[1 << 16];

static void test_until_line(void **state)
{
    (void)state;
    FILE *f = fmemopen(text, sizeof(text), "w");
    assert_non_null(f);
    fputs(TP_OLDOC_HEAD, f);
    tp_oldoc_put_until(f, 1700000000123456789ull);
    fclose(f);
    assert_string_equal(text, "tracepoint-oneliners 1\nuntil 1700000000123456789\n");
}

static void write_doc(unsigned id, const struct tp_agg *a, const char *directive)
{
    FILE *f = fmemopen(text, sizeof(text), "w");
    assert_non_null(f);
    fputs(TP_OLDOC_HEAD, f);
    tp_oldoc_put(f, id, a, directive);
    fclose(f);
}

static void test_exact_text(void **state)
{
    (void)state;
    struct tp_agg *a = make(TP_AGG_SUM, 8, &f_ret, &f_comm, &f_which);
    feed(a, 3, -5, "bash");
    feed(a, 3, 20, "bash");
    feed(a, 1, 7, "a b");
    write_doc(2, a, "sum sys:ev ret by comm,which");
    assert_string_equal(text, "tracepoint-oneliners 1\n"
                              "agg 2 sum 1 0 0 0 2 sum sys:ev ret by comm,which\n"
                              "key 2 15 comm=bash,which=3\n"
                              "key 1 7 comm=a%20b,which=1\n");
    tp_agg_destroy(a);
}

/* In parts (the lock let go between them): the same text, keys added meanwhile left out. */
static void test_in_parts(void **state)
{
    (void)state;
    struct tp_agg *a = make(TP_AGG_SUM, 8, &f_ret, &f_comm, &f_which);
    feed(a, 3, -5, "bash");
    feed(a, 1, 7, "a b");
    FILE *f = fmemopen(text, sizeof(text), "w");
    assert_non_null(f);
    fputs(TP_OLDOC_HEAD, f);
    size_t n = tp_oldoc_put_head(f, 2, a, "sum sys:ev ret by comm,which");
    assert_int_equal(n, 2);
    tp_oldoc_put_keys(f, a, 0, 1);
    feed(a, 4, 1, "new");               /* a key added between two parts */
    feed(a, 1, 1, "a b");               /* a key announced counts on */
    tp_oldoc_put_keys(f, a, 1, n);
    fclose(f);
    assert_string_equal(text, "tracepoint-oneliners 1\n"
                              "agg 2 sum 1 0 0 0 2 sum sys:ev ret by comm,which\n"
                              "key 1 -5 comm=bash,which=3\n"
                              "key 2 8 comm=a%20b,which=1\n");
    tp_agg_destroy(a);
}

static void test_round_trip(void **state)
{
    (void)state;
    struct tp_agg *a = make(TP_AGG_HIST, 3, &f_ret, &f_comm, NULL);
    for (int i = 0; i < 1000; i++)
        feed(a, 0, i % 7 == 0 ? -1 : i, i % 5 == 0 ? "five" : i % 2 ? "odd" : "even");
    feed(a, 0, 1, "x");                     /* past max_keys: "other" */
    feed(a, 0, 2, "y");
    write_doc(1, a, "hist sys:ev ret by comm max_keys=3");
    struct ol_doc d;
    assert_int_equal(ol_doc_parse(text, &d), 0);
    assert_int_equal(d.n, 1);
    const struct ol_agg *o = &d.v[0];
    assert_int_equal(o->kind, OL_HIST);
    assert_true(o->is_signed);
    assert_int_equal(o->nkeys, tp_agg_nkeys(a));
    assert_int_equal(o->overflow, tp_agg_overflow(a));
    assert_int_equal(o->overflow, 2);
    assert_string_equal(o->directive, "hist sys:ev ret by comm max_keys=3");
    for (size_t k = 0; k < o->nkeys; k++) {
        const struct tp_agg_key *key = tp_agg_key(a, k);
        char name[TP_AGG_MAX_NAME];
        tp_agg_key_name(a, k, name, sizeof(name));
        assert_string_equal(o->keys[k].name, name);
        assert_int_equal(o->keys[k].count, key->count);
        assert_int_equal((int64_t)o->keys[k].sum, key->sum);
        for (unsigned b = 0; b < OL_BUCKETS; b++)
            assert_int_equal(o->keys[k].hist[b], key->hist[b]);
    }
    ol_doc_free(&d);
    tp_agg_destroy(a);
}

static void test_keyless_count(void **state)
{
    (void)state;
    struct tp_agg *a = make(TP_AGG_COUNT, 8, NULL, NULL, NULL);
    for (int i = 0; i < 42; i++)
        feed(a, 0, 0, "");
    write_doc(8, a, "count sys:ev");
    assert_string_equal(text, "tracepoint-oneliners 1\nagg 8 count 0 0 0 0 1 count sys:ev\n"
                              "key 42 0 \n");
    struct ol_doc d;
    assert_int_equal(ol_doc_parse(text, &d), 0);
    assert_string_equal(d.v[0].keys[0].name, "");
    assert_int_equal(d.v[0].keys[0].count, 42);
    ol_doc_free(&d);
    tp_agg_destroy(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_until_line),
        cmocka_unit_test(test_exact_text),
        cmocka_unit_test(test_in_parts),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_keyless_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
