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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drift_within_slack_keeps_epoch),
        cmocka_unit_test(test_step_starts_epoch),
        cmocka_unit_test(test_epochs_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
