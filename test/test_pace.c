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
        tp_pace_after(&p, TP_PASS_QUIET, 1000 * MS + i * 1000 * MS);
        assert_int_equal(p.timeout_ns, -1);
        assert_int_equal(p.percent, 0);
    }
}

/* Events: a short timeout and the watermark; full sub-buffers: at once. */
static void test_active_and_busy(void **state)
{
    (void)state;
    struct tp_pace p;
    tp_pace_init(&p);
    tp_pace_after(&p, TP_PASS_SOME, 10 * MS);
    assert_int_equal(p.timeout_ns, TP_PACE_MIN_NS);
    assert_int_equal(p.percent, TP_PACE_PERCENT);
    tp_pace_after(&p, TP_PASS_BUSY, 11 * MS);
    assert_int_equal(p.timeout_ns, 0);
    assert_int_equal(p.percent, TP_PACE_PERCENT);
    /* a burst after idle: the first pass may be busy at once */
    tp_pace_init(&p);
    tp_pace_after(&p, TP_PASS_BUSY, 10 * MS);
    assert_int_equal(p.timeout_ns, 0);
}

/* Quiet passes while active: the timeout doubles to its cap, then quiet again. */
static void test_back_to_quiet(void **state)
{
    (void)state;
    struct tp_pace p;
    tp_pace_init(&p);
    uint64_t t = 1000 * MS;
    tp_pace_after(&p, TP_PASS_SOME, t);
    long last = p.timeout_ns;
    while (p.timeout_ns != -1) {
        t += (uint64_t)p.timeout_ns;
        tp_pace_after(&p, TP_PASS_QUIET, t);
        if (p.timeout_ns == -1)
            break;
        assert_true(p.timeout_ns >= last);
        assert_true(p.timeout_ns <= TP_PACE_MAX_NS);
        assert_int_equal(p.percent, TP_PACE_PERCENT);
        last = p.timeout_ns;
    }
    assert_int_equal(last, TP_PACE_MAX_NS);
    assert_true(t - 1000 * MS >= TP_PACE_QUIET_NS);
    assert_true(t - 1000 * MS < TP_PACE_QUIET_NS + TP_PACE_MAX_NS);
    assert_int_equal(p.percent, 0);
    /* a wakeup that finds nothing (a spurious one) while quiet changes nothing */
    tp_pace_after(&p, TP_PASS_QUIET, t + 1);
    assert_int_equal(p.timeout_ns, -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quiet_waits_without_timeout),
        cmocka_unit_test(test_active_and_busy),
        cmocka_unit_test(test_back_to_quiet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
