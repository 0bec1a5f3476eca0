/*
 * Unit tests for tp_kcount (src/kcount.c): the kernel's CPU lists, and
 * which directives the kernel's counters may compute.  Opening counters
 * needs a kernel and root: qa/176 does that.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tp_kcount.h"

static void test_cpu_lists(void **state)
{
    (void)state;
    int c[8];
    assert_int_equal(tp_kcount_cpus("0-1\n", c, 8), 2);
    assert_int_equal(c[0], 0);
    assert_int_equal(c[1], 1);
    assert_int_equal(tp_kcount_cpus("0\n", c, 8), 1);
    assert_int_equal(tp_kcount_cpus("0,2-4,7\n", c, 8), 5);
    assert_int_equal(c[1], 2);
    assert_int_equal(c[3], 4);
    assert_int_equal(c[4], 7);
    assert_int_equal(tp_kcount_cpus("0-8", c, 8), -E2BIG);
    assert_int_equal(tp_kcount_cpus("", c, 8), -EINVAL);
    assert_int_equal(tp_kcount_cpus("\n", c, 8), -EINVAL);
    assert_int_equal(tp_kcount_cpus("3-1", c, 8), -EINVAL);
    assert_int_equal(tp_kcount_cpus("0;1", c, 8), -EINVAL);
    assert_int_equal(tp_kcount_cpus("-1", c, 8), -EINVAL);
    assert_int_equal(tp_kcount_cpus("0,", c, 8), 1);
}

static bool suits(enum tp_config_agg_kind kind, const char *by1, const char *by2,
                  const char *filter, bool producer)
{
    char *by[] = { (char *)by1, (char *)by2 };
    struct tp_config_agg def = { .kind = kind, .by = by, .nby = by2 ? 2 : by1 ? 1 : 0,
                                 .filter = (char *)filter, .producer = producer };
    char why[128] = "";
    bool ok = tp_kcount_suits(&def, why, sizeof(why));
    assert_true(ok == (why[0] == '\0'));    /* a reason exactly when not */
    return ok;
}

static void test_what_counters_count(void **state)
{
    (void)state;
    const char *pin = "comm == \"x\"";
    assert_true(suits(TP_CONFIG_COUNT, NULL, NULL, NULL, false));
    assert_true(suits(TP_CONFIG_COUNT, NULL, NULL, "fd > 3", false));
    assert_true(suits(TP_CONFIG_COUNT, "event", NULL, NULL, false));
    assert_true(suits(TP_CONFIG_COUNT, "comm", NULL, pin, false));
    assert_true(suits(TP_CONFIG_COUNT, "event", "comm", pin, false));
    assert_false(suits(TP_CONFIG_COUNT, "comm", NULL, NULL, false));
    assert_false(suits(TP_CONFIG_COUNT, "comm", NULL, "fd > 3", false));
    assert_false(suits(TP_CONFIG_COUNT, "fd", NULL, NULL, false));
    assert_false(suits(TP_CONFIG_COUNT, "event", "fd", NULL, false));
    assert_false(suits(TP_CONFIG_COUNT, NULL, NULL, NULL, true));
    assert_false(suits(TP_CONFIG_SUM, NULL, NULL, NULL, false));
    assert_false(suits(TP_CONFIG_HIST, NULL, NULL, NULL, false));
    assert_false(suits(TP_CONFIG_LATENCY, NULL, NULL, NULL, false));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_lists),
        cmocka_unit_test(test_what_counters_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
