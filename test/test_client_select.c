/*
 * Unit tests for client/select.c: -p, -C and --comm parsed strictly,
 * composed with -f into the kernel filter, and matched in the client.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "select.h"

static char why[200];

static int pids(struct selection *s, const char *arg)
{
    return select_parse_pids(s, arg, why, sizeof(why));
}

static int cpus(struct selection *s, const char *arg)
{
    return select_parse_cpus(s, arg, why, sizeof(why));
}

static void test_pid_lists(void **state)
{
    (void)state;
    struct selection s = { 0 };
    assert_int_equal(pids(&s, "12,13"), 0);
    assert_int_equal(s.npids, 2);
    assert_int_equal(s.pids[0], 12);
    assert_int_equal(s.pids[1], 13);
    assert_int_equal(pids(&s, "13,0"), 0);           /* repeats dropped, 0 is the idle task */
    assert_int_equal(s.npids, 3);
    assert_int_equal(pids(&s, "4194304"), 0);
    assert_int_equal(s.npids, 4);
}

static void test_pid_refused(void **state)
{
    (void)state;
    static const char *bad[] = { "", ",", "1,", ",1", "1,,2", "-1", "+1", " 1", "1 ",
                                 "0x10", "1a", "4194305", "99999999999999999999999", "1.5" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct selection s = { 0 };
        why[0] = '\0';
        assert_int_equal(pids(&s, bad[i]), -1);
        assert_true(why[0] != '\0');
    }
    struct selection s = { 0 };
    char many[512] = "";
    for (int i = 0; i <= SELECT_MAX_IDS; i++)
        snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s%d", i ? "," : "", i);
    assert_int_equal(pids(&s, many), -1);
}

static void test_cpus(void **state)
{
    (void)state;
    struct selection s = { 0 };
    assert_int_equal(cpus(&s, "0,8191"), 0);
    assert_int_equal(s.ncpus, 2);
    assert_int_equal(cpus(&s, "8192"), -1);
    assert_int_equal(cpus(&s, "-1"), -1);
}

static void test_comm(void **state)
{
    (void)state;
    struct selection s = { 0 };
    assert_int_equal(select_parse_comm(&s, "", why, sizeof(why)), -1);
    assert_int_equal(select_parse_comm(&s, "0123456789abcdef", why, sizeof(why)), -1);
    assert_false(s.has_comm);
    assert_int_equal(select_parse_comm(&s, "0123456789abcde", why, sizeof(why)), 0);
    assert_true(s.has_comm);
    assert_string_equal(s.comm, "0123456789abcde");
}

static const char *compose(const struct selection *s, const char *user)
{
    static char buf[2048];
    if (select_filter(s, user, buf, sizeof(buf), why, sizeof(why)) < 0)
        return NULL;
    return buf;
}

static void test_compose(void **state)
{
    (void)state;
    struct selection s = { 0 };
    assert_string_equal(compose(&s, NULL), "");
    assert_string_equal(compose(&s, "prev_pid == 1 || next_pid == 1"),
                        "prev_pid == 1 || next_pid == 1");      /* as today */
    pids(&s, "12,13");
    assert_string_equal(compose(&s, NULL), "(common_pid == 12 || common_pid == 13)");
    cpus(&s, "0");
    select_parse_comm(&s, "bash", why, sizeof(why));
    assert_string_equal(compose(&s, "a == 1 || b == 2"),
                        "(common_pid == 12 || common_pid == 13) && (CPU == 0) && "
                        "(COMM == \"bash\") && (a == 1 || b == 2)");
    struct selection c = { 0 };
    cpus(&c, "1,0");
    assert_string_equal(compose(&c, "  "), "(CPU == 1 || CPU == 0)");
}

static void test_compose_quotes(void **state)
{
    (void)state;
    struct selection s = { 0 };
    select_parse_comm(&s, "a\\b", why, sizeof(why));       /* no escapes: \ is literal */
    assert_string_equal(compose(&s, NULL), "(COMM == \"a\\b\")");
    select_parse_comm(&s, "say \"hi\"", why, sizeof(why));
    assert_string_equal(compose(&s, NULL), "(COMM == 'say \"hi\"')");
    select_parse_comm(&s, "it's", why, sizeof(why));
    assert_string_equal(compose(&s, NULL), "(COMM == \"it's\")");
    select_parse_comm(&s, "\"it's\"", why, sizeof(why));
    assert_null(compose(&s, NULL));
    select_parse_comm(&s, "a\nb", why, sizeof(why));
    assert_null(compose(&s, NULL));
    select_parse_comm(&s, "a\tb", why, sizeof(why));       /* the PMDA takes a tab */
    assert_string_equal(compose(&s, NULL), "(COMM == \"a\tb\")");
}

static void test_compose_too_long(void **state)
{
    (void)state;
    struct selection s = { 0 };
    char buf[16];
    pids(&s, "1,2,3");
    assert_int_equal(select_filter(&s, NULL, buf, sizeof(buf), why, sizeof(why)), -1);
}

static void test_match(void **state)
{
    (void)state;
    struct selection s = { 0 };
    assert_true(select_match(&s, false, 0, false, 0, NULL));
    pids(&s, "12,13");
    assert_true(select_match(&s, true, 13, false, 0, NULL));
    assert_false(select_match(&s, true, 14, true, 0, NULL));
    assert_false(select_match(&s, false, 12, true, 0, NULL));
    cpus(&s, "1");
    assert_true(select_match(&s, true, 12, true, 1, NULL));
    assert_false(select_match(&s, true, 12, true, 0, NULL));
    select_parse_comm(&s, "bash", why, sizeof(why));
    assert_true(select_match(&s, true, 12, true, 1, "bash"));
    assert_false(select_match(&s, true, 12, true, 1, "bashful"));
    assert_false(select_match(&s, true, 12, true, 1, NULL));  /* no comm: no match */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pid_lists),
        cmocka_unit_test(test_pid_refused),
        cmocka_unit_test(test_cpus),
        cmocka_unit_test(test_comm),
        cmocka_unit_test(test_compose),
        cmocka_unit_test(test_compose_quotes),
        cmocka_unit_test(test_compose_too_long),
        cmocka_unit_test(test_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
