/*
 * Unit tests for tp_pace (src/pace.c): when the producer reads next.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tp_pace.h"

#define MS 1000000ull

/* Idle: no timeout, woken by the first event; nothing read keeps it so. */
static void test_quiet_waits_without_timeout(void **state)
{
    (void)state;
    struct tp_pace p;
    tp_pace_init(&p);
    assert_int_equal(p.timeout_ns, -1);
    assert_int_equal(p.percent, 0);
    for (int i = 0; i < 5; i++) {
        tp_pace_after(&p, TP_PASS_QUIET, 0, 1000 * MS + i * 1000 * MS);
        assert_int_equal(p.timeout_ns, -1);
        assert_int_equal(p.percent, 0);
    }
}

/* Events after idle: a short timeout and the watermark; not drained: at once. */
static void test_active_and_busy(void **state)
{
    (void)state;
    struct tp_pace p;
    tp_pace_init(&p);
    tp_pace_after(&p, TP_PASS_SOME, 4096, 10 * MS);
    assert_int_equal(p.timeout_ns, TP_PACE_MIN_NS);
    assert_int_equal(p.percent, TP_PACE_PERCENT);
    tp_pace_after(&p, TP_PASS_BUSY, 1 << 20, 11 * MS);
    assert_int_equal(p.timeout_ns, 0);
    assert_int_equal(p.percent, TP_PACE_PERCENT);
    /* a burst after idle: the first pass may be busy at once */
    tp_pace_init(&p);
    tp_pace_after(&p, TP_PASS_BUSY, 1 << 20, 10 * MS);
    assert_int_equal(p.timeout_ns, 0);
}

/* Quiet passes while active: the timeout doubles, then quiet again once the events are TP_PACE_QUIET_NS old. */
static void test_back_to_quiet(void **state)
{
    (void)state;
    struct tp_pace p;
    tp_pace_init(&p);
    uint64_t t = 1000 * MS;
    tp_pace_after(&p, TP_PASS_SOME, 4096, t);
    long last = p.timeout_ns;
    while (p.timeout_ns != -1) {
        t += (uint64_t)p.timeout_ns;
        tp_pace_after(&p, TP_PASS_QUIET, 0, t);
        if (p.timeout_ns == -1)
            break;
        assert_int_equal(p.timeout_ns, 2 * last);
        assert_true(p.timeout_ns <= TP_PACE_MAX_NS);
        assert_int_equal(p.percent, TP_PACE_PERCENT);
        last = p.timeout_ns;
    }
    assert_true(t - 1000 * MS >= TP_PACE_QUIET_NS);
    assert_true(t - 1000 * MS < TP_PACE_QUIET_NS + (uint64_t)last);
    assert_int_equal(p.percent, 0);
    /* a wakeup that finds nothing (a spurious one) while quiet changes nothing */
    tp_pace_after(&p, TP_PASS_QUIET, 0, t + 1);
    assert_int_equal(p.timeout_ns, -1);
}

/* p's timeout after passes every period ns, each finding bytes (the first after idle). */
static long steady(struct tp_pace *p, uint64_t period, size_t bytes)
{
    uint64_t t = 1000 * MS;
    tp_pace_init(p);
    for (int i = 0; i < 4; i++, t += period)
        tp_pace_after(p, TP_PASS_SOME, bytes, t);
    return p->timeout_ns;
}

/*
 * While events flow the timeout follows the busiest CPU's rate: a pass's
 * worth (TP_PACE_TARGET_BYTES) at the rate seen, kept to the bounds.
 */
static void test_follows_the_data(void **state)
{
    (void)state;
    struct tp_pace p;
    /* 64 KiB in 2 ms: 256 KiB takes 8 ms */
    assert_int_equal(steady(&p, 2 * MS, 64 * 1024), 8 * MS);
    assert_int_equal(p.percent, TP_PACE_PERCENT);
    /* 16 KiB in 8 ms: 128 ms */
    assert_int_equal(steady(&p, 8 * MS, 16 * 1024), 128 * MS);
    /* a trickle waits the longest, never more */
    assert_int_equal(steady(&p, 2 * MS, 100), TP_PACE_MAX_NS);
    /* a fast one the shortest, never less */
    assert_int_equal(steady(&p, 2 * MS, 4 << 20), TP_PACE_MIN_NS);
    /* the first pass after idle knows no rate: it looks again soon */
    tp_pace_init(&p);
    tp_pace_after(&p, TP_PASS_SOME, 100, 5000 * MS);
    assert_int_equal(p.timeout_ns, TP_PACE_MIN_NS);
    /* the rate changes: the next timeout follows it */
    steady(&p, 8 * MS, 256 * 1024);
    assert_int_equal(p.timeout_ns, 8 * MS);
    tp_pace_after(&p, TP_PASS_SOME, 512 * 1024, 1000 * MS + 4 * 8 * MS);
    assert_int_equal(p.timeout_ns, 4 * MS);
}

/* Without a watermark: a pass's worth is NOWM_BYTES, within NOWM_NS. */
static void test_no_watermark(void **state)
{
    (void)state;
    struct tp_pace p;
    uint64_t t = 1000 * MS;
    tp_pace_init(&p);
    tp_pace_no_watermark(&p);
    for (int i = 0; i < 4; i++, t += 2 * MS)
        tp_pace_after(&p, TP_PASS_SOME, 16 * 1024, t);
    assert_int_equal(p.timeout_ns, 8 * MS);
    for (int i = 0; i < 4; i++, t += 2 * MS)
        tp_pace_after(&p, TP_PASS_SOME, 100, t);
    assert_int_equal(p.timeout_ns, TP_PACE_NOWM_NS);
    tp_pace_after(&p, TP_PASS_QUIET, 0, t);
    assert_int_equal(p.timeout_ns, TP_PACE_NOWM_NS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quiet_waits_without_timeout),
        cmocka_unit_test(test_active_and_busy),
        cmocka_unit_test(test_back_to_quiet),
        cmocka_unit_test(test_follows_the_data),
        cmocka_unit_test(test_no_watermark),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
