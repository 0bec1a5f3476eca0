/*
 * Unit tests for tp_merge: CPUs' events into one stream by time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tp_merge.h"

struct ev { uint64_t ts; unsigned tag; };

/* Merge srcs up to watermark; returns how many were handed on, tags in out. */
static size_t merge_batched(struct tp_merge_src *s, size_t n, uint64_t wm, size_t max,
                            unsigned *out, uint64_t *times)
{
    size_t got = 0, src, len;
    while ((len = tp_merge_run(s, n, wm, max, &src)) > 0) {
        assert_true(len <= max);
        const struct ev *e = (const struct ev *)(const void *)s[src].ts;
        for (size_t i = 0; i < len; i++) {
            out[got] = e[s[src].pos + i].tag;
            times[got++] = e[s[src].pos + i].ts;
        }
        s[src].pos += len;
    }
    return got;
}

static size_t merge_all(struct tp_merge_src *s, size_t n, uint64_t wm, unsigned *out,
                        uint64_t *times)
{
    return merge_batched(s, n, wm, SIZE_MAX, out, times);
}

static struct tp_merge_src src_of(const struct ev *e, size_t n)
{
    return (struct tp_merge_src){ e ? &e[0].ts : NULL, sizeof(*e), n, 0 };
}

static void test_interleaved_in_time_order(void **state)
{
    (void)state;
    const struct ev a[] = { { 10, 1 }, { 20, 3 }, { 30, 5 }, { 31, 6 }, { 90, 9 } };
    const struct ev b[] = { { 15, 2 }, { 25, 4 }, { 40, 7 }, { 50, 8 } };
    struct tp_merge_src s[] = { src_of(a, 5), src_of(b, 4) };
    unsigned tags[16];
    uint64_t t[16];
    size_t n = merge_all(s, 2, 60, tags, t);
    assert_int_equal(n, 8);
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(tags[i], i + 1);
    /* 90 is past the watermark: it waits */
    assert_int_equal(s[0].pos, 4);
    n = merge_all(s, 2, 100, tags, t);
    assert_int_equal(n, 1);
    assert_int_equal(tags[0], 9);
}

static void test_equal_times_lower_source_first(void **state)
{
    (void)state;
    const struct ev a[] = { { 5, 2 }, { 5, 3 } };
    const struct ev b[] = { { 5, 1 }, { 6, 4 } };
    struct tp_merge_src s[] = { src_of(b, 2), src_of(a, 2) };
    unsigned tags[8];
    uint64_t t[8];
    assert_int_equal(merge_all(s, 2, 10, tags, t), 4);
    assert_int_equal(tags[0], 1);   /* source 0's 5 first, then source 1's two */
    assert_int_equal(tags[1], 2);
    assert_int_equal(tags[2], 3);
    assert_int_equal(tags[3], 4);
}

static void test_runs_and_empty_sources(void **state)
{
    (void)state;
    const struct ev a[] = { { 1, 0 }, { 2, 0 }, { 3, 0 }, { 100, 0 } };
    const struct ev b[] = { { 50, 0 } };
    struct tp_merge_src s[] = { src_of(a, 4), src_of(NULL, 0), src_of(b, 1) };
    size_t src;
    assert_int_equal(tp_merge_run(s, 3, 1000, SIZE_MAX, &src), 3);  /* one run: 1, 2, 3 */
    assert_int_equal(src, 0);
    s[0].pos += 3;
    assert_int_equal(tp_merge_run(s, 3, 1000, SIZE_MAX, &src), 1);
    assert_int_equal(src, 2);
    s[2].pos++;
    assert_int_equal(tp_merge_run(s, 3, 99, SIZE_MAX, &src), 0);    /* 100 waits */
    assert_int_equal(tp_merge_run(s, 3, 100, SIZE_MAX, &src), 1);
}

/* A run is cut at max; max 0 hands on nothing. */
static void test_run_cut_at_max(void **state)
{
    (void)state;
    const struct ev a[] = { { 1, 0 }, { 2, 0 }, { 3, 0 }, { 4, 0 }, { 5, 0 } };
    struct tp_merge_src s[] = { src_of(a, 5) };
    size_t src = 9;
    assert_int_equal(tp_merge_run(s, 1, 1000, 0, &src), 0);
    assert_int_equal(tp_merge_run(s, 1, 1000, 2, &src), 2);
    assert_int_equal(src, 0);
    s[0].pos = 4;
    assert_int_equal(tp_merge_run(s, 1, 1000, 2, &src), 1);  /* the rest is shorter */
}

/* Many sources of random times: the output is sorted and complete. */
static void test_random_sources_sorted(void **state)
{
    (void)state;
    enum { NS = 7, PER = 300 };
    static struct ev e[NS][PER];
    struct tp_merge_src s[NS];
    srand(7);
    for (size_t i = 0; i < NS; i++) {
        uint64_t t = (uint64_t)(rand() % 50);
        for (size_t j = 0; j < PER; j++) {
            t += (uint64_t)(rand() % 4);    /* equal times too */
            e[i][j] = (struct ev){ t, (unsigned)(i * 1000 + j) };
        }
        s[i] = src_of(e[i], PER);
    }
    static unsigned tags[NS * PER];
    static uint64_t t[NS * PER];
    size_t n = merge_all(s, NS, UINT64_MAX - 1, tags, t);
    assert_int_equal(n, NS * PER);
    for (size_t i = 1; i < n; i++) {
        assert_true(t[i - 1] <= t[i]);
        if (t[i - 1] == t[i] && tags[i - 1] / 1000 != tags[i] / 1000)
            assert_true(tags[i - 1] / 1000 < tags[i] / 1000);
    }
}

/* Taken in batches of any size, the same order as in one go. */
static void test_batches_same_order(void **state)
{
    (void)state;
    enum { NS = 3, PER = 200 };
    static struct ev e[NS][PER];
    struct tp_merge_src s[NS];
    static unsigned whole[NS * PER], tags[NS * PER];
    static uint64_t t[NS * PER];
    srand(11);
    for (size_t i = 0; i < NS; i++) {
        uint64_t ts = 0;
        for (size_t j = 0; j < PER; j++) {
            ts += (uint64_t)(rand() % 3) * (i == 0 ? 1 : 40);   /* source 0 in long runs */
            e[i][j] = (struct ev){ ts, (unsigned)(i * 1000 + j) };
        }
    }
    for (size_t max = 1; max <= 9; max++) {
        for (size_t i = 0; i < NS; i++)
            s[i] = src_of(e[i], PER);
        size_t n = merge_batched(s, NS, UINT64_MAX - 1, max, max == 1 ? whole : tags, t);
        assert_int_equal(n, NS * PER);
        if (max > 1)
            assert_memory_equal(tags, whole, sizeof(whole));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interleaved_in_time_order),
        cmocka_unit_test(test_equal_times_lower_source_first),
        cmocka_unit_test(test_runs_and_empty_sources),
        cmocka_unit_test(test_run_cut_at_max),
        cmocka_unit_test(test_batches_same_order),
        cmocka_unit_test(test_random_sources_sorted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
