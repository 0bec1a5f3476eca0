/*
 * Unit tests for tp_clock (src/clock.c): epochs of the trace-clock to
 * wall-clock offset.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tp_clock.h"

#define SEC 1000000000LL

static void test_drift_within_slack_keeps_epoch(void **state)
{
    (void)state;
    struct tp_clock c;
    tp_clock_init(&c, 1000 * SEC);
    assert_int_equal(tp_clock_current(&c), 0);
    assert_int_equal(tp_clock_note(&c, 1000 * SEC + TP_CLOCK_SLACK_NS), 0);
    assert_int_equal(tp_clock_note(&c, 1000 * SEC - TP_CLOCK_SLACK_NS), 0);
    assert_int_equal(tp_clock_offset(&c, 0), 1000 * SEC);
    assert_int_equal(tp_clock_wall(&c, 0, 5), (uint64_t)(1000 * SEC + 5));
}

/* A step starts an epoch; events of the old one keep the old offset. */
static void test_step_starts_epoch(void **state)
{
    (void)state;
    struct tp_clock c;
    tp_clock_init(&c, 1000 * SEC);
    uint16_t before = tp_clock_current(&c);
    uint16_t after = tp_clock_note(&c, 4600 * SEC);
    assert_int_not_equal(before, after);
    assert_int_equal(tp_clock_offset(&c, before), 1000 * SEC);
    assert_int_equal(tp_clock_offset(&c, after), 4600 * SEC);
    /* the new epoch's own slack is measured from its offset */
    assert_int_equal(tp_clock_note(&c, 4600 * SEC + 1000), after);
    /* a step back (a clock set backwards) is a new epoch too */
    uint16_t back = tp_clock_note(&c, 999 * SEC);
    assert_int_not_equal(back, after);
    assert_int_equal(tp_clock_offset(&c, back), 999 * SEC);
    assert_int_equal(tp_clock_offset(&c, after), 4600 * SEC);
}

/* The last TP_CLOCK_EPOCHS epochs are kept, across the 16-bit wrap of ids. */
static void test_epochs_kept(void **state)
{
    (void)state;
    struct tp_clock c;
    tp_clock_init(&c, 0);
    uint16_t first = 0;
    for (int i = 1; i <= 70000; i++) {
        uint16_t id = tp_clock_note(&c, (int64_t)i * SEC);
        assert_int_equal(id, (uint16_t)i);
        if (i == 70000 - TP_CLOCK_EPOCHS + 1)
            first = id;
    }
    for (int k = 0; k < TP_CLOCK_EPOCHS; k++)
        assert_int_equal(tp_clock_offset(&c, (uint16_t)(first + k)),
                         (int64_t)(70000 - TP_CLOCK_EPOCHS + 1 + k) * SEC);
}

/* A reading preempted between its clocks is wide: the narrowest one counts. */
static void test_narrowest_sample(void **state)
{
    (void)state;
    const uint64_t off = 1796432291000000000ull;
    const struct tp_clock_sample s[] = {
        { 1000, off + 1000 + 3000000, 1000 + 3000100 },    /* preempted 3 ms after mono */
        { 5000000, off + 5000050, 5000100 },                /* 100 ns wide */
        { 9000000, off + 9000000, 9000000 + 2000000 },      /* preempted after real */
    };
    assert_int_equal(tp_clock_sample_offset(s, 3), (int64_t)off);
    assert_int_equal(tp_clock_sample_offset(s, 1), (int64_t)off + 3000000 - 1500050);
    assert_int_equal(tp_clock_sample_offset(&s[2], 1), (int64_t)off - 1000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drift_within_slack_keeps_epoch),
        cmocka_unit_test(test_step_starts_epoch),
        cmocka_unit_test(test_epochs_kept),
        cmocka_unit_test(test_narrowest_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
