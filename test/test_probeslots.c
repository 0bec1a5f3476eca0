/*
 * Unit tests for the catalog's probe slots (tp_catalog_bind_probe and
 * friends) on a fake tracefs tree, and for telling a stale probe group
 * (tp_probes_group_stale).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "tp_catalog.h"
#include "tp_probes.h"

static char dir[] = "/tmp/tp_probeslots.XXXXXX";

static void touch(const char *sys, const char *ev)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/events/%s", dir, sys);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/events/%s/%s", dir, sys, ev);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/events/%s/%s/enable", dir, sys, ev);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    char path[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/events", dir);
    mkdir(path, 0755);
    touch("sched", "sched_switch");
    touch("probe", "perfs_own");                    /* perf probe's default group */
    touch("pmdatracepoint_42", "someone_elses");    /* another PMDA's probes */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_listing_and_lookup(void **state)
{
    (void)state;
    struct tp_catalog *cat;
    assert_int_equal(tp_catalog_create(&cat, dir), 0);
    assert_int_equal(tp_catalog_count(cat), 1 + TP_CATALOG_PROBE_SLOTS);
    assert_int_equal(tp_catalog_find(cat, "sched", "sched_switch"), 0);
    assert_int_equal(tp_catalog_find(cat, "probe", "perfs_own"), -ENOENT);
    assert_int_equal(tp_catalog_find(cat, "pmdatracepoint_42", "someone_elses"), -ENOENT);
    assert_int_equal(tp_catalog_find_system(cat, "probe"), -ENOENT);   /* all vacant */
    assert_true(tp_catalog_event(cat, 1)->vacant && tp_catalog_event(cat, 1)->probe);
    tp_catalog_destroy(cat);
}

static void test_bind_unbind(void **state)
{
    (void)state;
    struct tp_catalog *cat;
    assert_int_equal(tp_catalog_create(&cat, dir), 0);
    int a = tp_catalog_bind_probe(cat, "alpha", "pmdatracepoint_7");
    assert_int_equal(a, 1);
    const struct tp_event *e = tp_catalog_event(cat, (size_t)a);
    assert_string_equal(e->fullname, "probe:alpha");
    assert_string_equal(e->ksystem, "pmdatracepoint_7");
    assert_false(e->vacant);
    assert_int_equal(tp_catalog_find(cat, "probe", "alpha"), a);
    assert_int_equal(tp_catalog_find_system(cat, "probe"), 1);
    assert_int_equal(tp_catalog_bind_probe(cat, "alpha", "pmdatracepoint_7"), -EEXIST);
    /* unbound: found no more, but its names stay for records still in the ring */
    tp_catalog_unbind_probe(cat, (size_t)a);
    assert_int_equal(tp_catalog_find(cat, "probe", "alpha"), -ENOENT);
    assert_string_equal(tp_catalog_event(cat, (size_t)a)->fullname, "probe:alpha");
    /* the next bind takes a slot never used, not the one just freed */
    int b = tp_catalog_bind_probe(cat, "beta", "pmdatracepoint_7");
    assert_int_equal(b, 2);
    /* fill every slot: the freed one comes last */
    int last = -1;
    for (int i = 0; i < TP_CATALOG_PROBE_SLOTS - 1; i++) {
        char name[16];
        snprintf(name, sizeof(name), "p%d", i);
        last = tp_catalog_bind_probe(cat, name, "pmdatracepoint_7");
        assert_true(last > 0);
    }
    assert_int_equal(last, a);
    assert_string_equal(tp_catalog_event(cat, (size_t)a)->fullname, "probe:p62");
    assert_int_equal(tp_catalog_bind_probe(cat, "full", "pmdatracepoint_7"), -ENOSPC);
    tp_catalog_destroy(cat);
}

static bool alive_100(long pid)
{
    return pid == 100;
}

static void test_group_stale(void **state)
{
    (void)state;
    assert_true(tp_probes_group_stale("pmdatracepoint_99", 7, alive_100));
    assert_false(tp_probes_group_stale("pmdatracepoint_100", 7, alive_100));    /* running */
    assert_false(tp_probes_group_stale("pmdatracepoint_7", 7, alive_100));      /* ours */
    assert_false(tp_probes_group_stale("probe", 7, alive_100));
    assert_false(tp_probes_group_stale("pmdatracepoint_", 7, alive_100));
    assert_false(tp_probes_group_stale("pmdatracepoint_012", 7, alive_100));
    assert_false(tp_probes_group_stale("pmdatracepoint_9x", 7, alive_100));
    assert_false(tp_probes_group_stale("pmdatracepoint_12345678901", 7, alive_100));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_listing_and_lookup),
        cmocka_unit_test(test_bind_unbind),
        cmocka_unit_test(test_group_stale),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
