/*
 * Unit tests for tp_comms: the bounded pid -> command name table.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tp_comms.h"

static void test_names_and_ages(void **state)
{
    (void)state;
    struct tp_comms *t;
    assert_int_equal(tp_comms_create(&t), 0);
    assert_string_equal(tp_comms_get(t, 0), "<idle>");
    assert_true(tp_comms_fresh(t, 0, 123));
    assert_string_equal(tp_comms_get(t, 42), TP_COMM_UNKNOWN);
    assert_false(tp_comms_fresh(t, 42, 0));

    tp_comms_set(t, 42, "bash", 1000);
    assert_string_equal(tp_comms_get(t, 42), "bash");
    assert_true(tp_comms_fresh(t, 42, 1000 + TP_COMMS_REFRESH_NS));
    assert_false(tp_comms_fresh(t, 42, 1001 + TP_COMMS_REFRESH_NS));

    /* a pid sharing the slot replaces it; the old one is unknown again */
    tp_comms_set(t, 42 + TP_COMMS_SLOTS, "make", 2000);
    assert_string_equal(tp_comms_get(t, 42 + TP_COMMS_SLOTS), "make");
    assert_string_equal(tp_comms_get(t, 42), TP_COMM_UNKNOWN);

    /* a refresh that fails keeps the name */
    tp_comms_set(t, 42 + TP_COMMS_SLOTS, NULL, 2500);
    assert_string_equal(tp_comms_get(t, 42 + TP_COMMS_SLOTS), "make");
    assert_true(tp_comms_fresh(t, 42 + TP_COMMS_SLOTS, 2500));

    /* not resolved: unknown, and asked again */
    tp_comms_set(t, 7, NULL, 3000);
    assert_string_equal(tp_comms_get(t, 7), TP_COMM_UNKNOWN);
    assert_false(tp_comms_fresh(t, 7, 3000));

    /* at most TASK_COMM_LEN - 1 bytes; negative pids are never stored */
    tp_comms_set(t, 8, "0123456789abcdefXYZ", 1);
    assert_string_equal(tp_comms_get(t, 8), "0123456789abcde");
    tp_comms_set(t, -1, "x", 1);
    assert_string_equal(tp_comms_get(t, -1), TP_COMM_UNKNOWN);
    tp_comms_destroy(t);
    tp_comms_destroy(NULL);
}

static void test_resolve_self(void **state)
{
    (void)state;
    char comm[TP_COMM_LEN];
    assert_int_equal(tp_comms_resolve((int32_t)getpid(), comm), 0);
    assert_string_equal(comm, "test_comms");
    assert_int_equal(tp_comms_resolve(-5, comm), -ENOENT);
}

static void test_saved_cmdlines(void **state)
{
    (void)state;
    static const char text[] = "6507 awk\n16509 bash -x\n509 kworker/0:1\n42 a-very-long-name-of-a-task";
    char comm[TP_COMM_LEN];
    assert_int_equal(tp_comms_from_saved(text, 509, comm), 0);
    assert_string_equal(comm, "kworker/0:1");
    assert_int_equal(tp_comms_from_saved(text, 16509, comm), 0);
    assert_string_equal(comm, "bash -x");
    assert_int_equal(tp_comms_from_saved(text, 42, comm), 0);
    assert_string_equal(comm, "a-very-long-nam");
    assert_int_equal(tp_comms_from_saved(text, 650, comm), -ENOENT);
    assert_int_equal(tp_comms_from_saved("", 1, comm), -ENOENT);
    assert_int_equal(tp_comms_from_saved("garbage\n\n 12x\n", 12, comm), -ENOENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_ages),
        cmocka_unit_test(test_resolve_self),
        cmocka_unit_test(test_saved_cmdlines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
