/*
 * Unit tests of the control-string parser: what clients may store into
 * tracepoint.control.* and tracepoint.records, and the errors for the rest.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <pcp/pmapi.h>

#include "tp_control.h"
#include "tp_filter.h"

static int parse(enum tp_ctl_op op, const char *text, struct tp_ctl_request *req, char *err)
{
    return tp_ctl_parse(op, text, strlen(text) + 1, req, err, 256);   /* as stored: with NUL */
}

static void test_register_list(void **state)
{
    (void)state;
    struct tp_ctl_request r;
    char err[256];
    assert_int_equal(parse(TP_CTL_REGISTER, " sched:sched_process_exec, sched:*  irq:irq_handler_?",
                           &r, err), 0);
    assert_int_equal(r.npatterns, 3);
    assert_string_equal(r.patterns[0], "sched:sched_process_exec");
    assert_string_equal(r.patterns[1], "sched:*");
    assert_string_equal(r.patterns[2], "irq:irq_handler_?");
    assert_null(r.filter);
    tp_ctl_request_free(&r);
}

static void test_filter_split(void **state)
{
    (void)state;
    struct tp_ctl_request r;
    char err[256];
    assert_int_equal(parse(TP_CTL_FILTER, "sched:sched_process_exec  pid > 100 && comm ~ \"ba*\"  ",
                           &r, err), 0);
    assert_int_equal(r.npatterns, 1);
    assert_string_equal(r.filter, "pid > 100 && comm ~ \"ba*\"");
    tp_ctl_request_free(&r);
    assert_int_equal(parse(TP_CTL_FILTER, "sched:sched_process_exec", &r, err), 0);
    assert_null(r.filter);                              /* clears */
    tp_ctl_request_free(&r);
    assert_int_equal(parse(TP_CTL_RECORDS, "sched:a,sched:b\tpid == 1", &r, err), 0);
    assert_int_equal(r.npatterns, 2);
    assert_string_equal(r.filter, "pid == 1");
    tp_ctl_request_free(&r);
}

static void test_unregister_star(void **state)
{
    (void)state;
    struct tp_ctl_request r;
    char err[256];
    assert_int_equal(parse(TP_CTL_UNREGISTER, "*", &r, err), 0);
    assert_string_equal(r.patterns[0], "*");
    tp_ctl_request_free(&r);
    assert_int_equal(parse(TP_CTL_REGISTER, "*", &r, err), PM_ERR_BADSTORE);   /* register needs sys:event */
}

static void test_bad_names(void **state)
{
    (void)state;
    static const char *bad[] = {
        "sched", "sched:", ":exec", "a:b:c", "../x:y", "sched/../x:y", "sched:exec/../../z",
        "sch ed:x\x01", "sched:exec;rm", "sched:[ab]", "sched:$x", "",  "  ,  ",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct tp_ctl_request r;
        char err[256] = "";
        int rc = parse(TP_CTL_REGISTER, bad[i], &r, err);
        if (rc != PM_ERR_BADSTORE)
            fail_msg("'%s': got %d, want PM_ERR_BADSTORE", bad[i], rc);
        assert_true(err[0] != '\0');
        assert_int_equal(r.npatterns, 0);               /* nothing left behind */
    }
}

static void test_embedded_nul_and_controls(void **state)
{
    (void)state;
    struct tp_ctl_request r;
    char err[256];
    static const char nul[] = "sched:a\0sched:b";
    assert_int_equal(tp_ctl_parse(TP_CTL_REGISTER, nul, sizeof(nul), &r, err, sizeof(err)),
                     PM_ERR_BADSTORE);
    assert_non_null(strstr(err, "NUL"));
    assert_int_equal(parse(TP_CTL_REGISTER, "sched:a\nsched:b", &r, err), PM_ERR_BADSTORE);
    assert_non_null(strstr(err, "control character"));
}

static void test_too_long(void **state)
{
    (void)state;
    static char big[TP_CTL_MAX_TEXT + 2];
    struct tp_ctl_request r;
    char err[256];
    memset(big, 'a', sizeof(big) - 1);
    big[0] = 's'; big[1] = ':';
    assert_int_equal(parse(TP_CTL_REGISTER, big, &r, err), PM_ERR_TOOBIG);
    char pat[200];
    memset(pat, 'x', sizeof(pat) - 1);
    pat[sizeof(pat) - 1] = '\0';
    pat[3] = ':';
    assert_int_equal(parse(TP_CTL_REGISTER, pat, &r, err), PM_ERR_TOOBIG);
    static char expr[TP_FILTER_MAX_LEN + 64] = "sched:x ";
    memset(expr + 8, '1', TP_FILTER_MAX_LEN + 1);
    assert_int_equal(parse(TP_CTL_FILTER, expr, &r, err), PM_ERR_TOOBIG);
}

static void test_too_many_patterns(void **state)
{
    (void)state;
    char text[TP_CTL_MAX_TEXT] = "";
    for (int i = 0; i <= TP_CTL_MAX_PATTERNS; i++)
        strcat(text, "a:b,");
    struct tp_ctl_request r;
    char err[256];
    assert_int_equal(parse(TP_CTL_REGISTER, text, &r, err), PM_ERR_TOOBIG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_register_list),
        cmocka_unit_test(test_filter_split),
        cmocka_unit_test(test_unregister_star),
        cmocka_unit_test(test_bad_names),
        cmocka_unit_test(test_embedded_nul_and_controls),
        cmocka_unit_test(test_too_long),
        cmocka_unit_test(test_too_many_patterns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
