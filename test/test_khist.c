/*
 * Unit tests for tp_khist (src/khist.c): trigger commands, and hist files
 * as Debian 12's 6.1.0-57 kernel wrote them in the kernel lane (qa/vm/run,
 * a private instance, syscalls:sys_enter_write of build/tpgen's writes,
 * raw_syscalls:sys_enter, sched:sched_process_exec, syscalls:sys_exit_openat).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tp_khist.h"

static const char count_by_fd[] =
    "# event histogram\n"
    "#\n"
    "# trigger info: hist:keys=fd:vals=hitcount,count:sort=hitcount:size=2048 if fd >= 7 [active]\n"
    "#\n"
    "\n"
    "{ fd:          8 } hitcount:          1  count:          1\n"
    "{ fd:          9 } hitcount:          2  count:      10000\n"
    "{ fd:          7 } hitcount:          3  count:        300\n"
    "\n"
    "Totals:\n"
    "    Hits: 6\n"
    "    Entries: 3\n"
    "    Dropped: 0\n";

static const char log2_key[] =
    "# event histogram\n"
    "#\n"
    "# trigger info: hist:keys=count.log2:vals=hitcount:sort=hitcount:size=2048 if fd == 7 [active]\n"
    "#\n"
    "\n"
    "{ count: ~ 2^1  } hitcount:          1\n"
    "{ count: ~ 2^2  } hitcount:          2\n"
    "{ count: ~ 2^3  } hitcount:          2\n"
    "{ count: ~ 2^0  } hitcount:          2\n"
    "{ count: ~ 2^12 } hitcount:          2\n"
    "{ count: ~ 2^10 } hitcount:          3\n"
    "\n"
    "Totals:\n"
    "    Hits: 12\n"
    "    Entries: 6\n"
    "    Dropped: 0\n";

static const char two_keys[] =
    "# event histogram\n"
    "#\n"
    "# trigger info: hist:keys=fd,count:vals=hitcount:sort=hitcount:size=2048 if fd == 7 [active]\n"
    "#\n"
    "\n"
    "{ fd:          7, count:          5 } hitcount:          2\n"
    "{ fd:          7, count:        100 } hitcount:          3\n"
    "\n"
    "Totals:\n"
    "    Hits: 5\n"
    "    Entries: 2\n"
    "    Dropped: 0\n";

static const char raw_id[] =
    "# event histogram\n"
    "#\n"
    "# trigger info: hist:keys=id:vals=hitcount:sort=hitcount:size=2048 if common_pid == 133 [active]\n"
    "#\n"
    "\n"
    "{ id:        293 } hitcount:          1\n"
    "{ id:          1 } hitcount:          1\n"
    "{ id:         33 } hitcount:          1\n"
    "{ id:          0 } hitcount:          2\n"
    "{ id:         72 } hitcount:          2\n"
    "{ id:         15 } hitcount:          2\n"
    "{ id:         16 } hitcount:          2\n"
    "{ id:          8 } hitcount:          3\n"
    "{ id:          3 } hitcount:          4\n"
    "{ id:         56 } hitcount:          4\n"
    "{ id:         61 } hitcount:          5\n"
    "{ id:         13 } hitcount:          5\n"
    "{ id:         14 } hitcount:         24\n"
    "\n"
    "Totals:\n"
    "    Hits: 56\n"
    "    Entries: 13\n"
    "    Dropped: 0\n";

static const char strings[] =
    "# event histogram\n"
    "#\n"
    "# trigger info: hist:keys=filename,old_pid:vals=hitcount:sort=hitcount:size=2048 [active]\n"
    "#\n"
    "\n"
    "{ filename: /bin/true                                         , old_pid:        155 } hitcount:          1\n"
    "{ filename: /usr/bin/cat                                      , old_pid:        156 } hitcount:          1\n"
    "{ filename: /work/wt/wt21-hist/build/tpgen                    , old_pid:        153 } hitcount:          1\n"
    "{ filename: /bin/true                                         , old_pid:        154 } hitcount:          1\n"
    "\n"
    "Totals:\n"
    "    Hits: 4\n"
    "    Entries: 4\n"
    "    Dropped: 0\n";

static const char negative_key[] =
    "# event histogram\n"
    "#\n"
    "# trigger info: hist:keys=ret:vals=hitcount:sort=hitcount:size=2048 if ret < 0 [active]\n"
    "#\n"
    "\n"
    "{ ret: 18446744073709551614 } hitcount:         64\n"
    "\n"
    "Totals:\n"
    "    Hits: 64\n"
    "    Entries: 1\n"
    "    Dropped: 0\n";

static const char dropped[] =
    "# event histogram\n"
    "#\n"
    "# trigger info: hist:keys=count:vals=hitcount,count:sort=hitcount:size=128 if fd == 7 [active]\n"
    "#\n"
    "\n"
    "{ count:          1 } hitcount:          1  count:          1\n"
    "{ count:          3 } hitcount:          1  count:          3\n"
    "{ count:          4 } hitcount:          1  count:          4\n"
    "{ count:          2 } hitcount:          1  count:          2\n"
    "{ count:          6 } hitcount:          1  count:          6\n"
    "{ count:          7 } hitcount:          1  count:          7\n"
    "{ count:          8 } hitcount:          1  count:          8\n"
    "{ count:          9 } hitcount:          1  count:          9\n"
    "{ count:         10 } hitcount:          1  count:         10\n"
    "{ count:         11 } hitcount:          1  count:         11\n"
    "{ count:         12 } hitcount:          1  count:         12\n"
    "{ count:         13 } hitcount:          1  count:         13\n"
    "{ count:         14 } hitcount:          1  count:         14\n"
    "{ count:         15 } hitcount:          1  count:         15\n"
    "{ count:         16 } hitcount:          1  count:         16\n"
    "{ count:         17 } hitcount:          1  count:         17\n"
    "{ count:         18 } hitcount:          1  count:         18\n"
    "{ count:         19 } hitcount:          1  count:         19\n"
    "{ count:         20 } hitcount:          1  count:         20\n"
    "{ count:         21 } hitcount:          1  count:         21\n"
    "{ count:         22 } hitcount:          1  count:         22\n"
    "{ count:         23 } hitcount:          1  count:         23\n"
    "{ count:         24 } hitcount:          1  count:         24\n"
    "{ count:         25 } hitcount:          1  count:         25\n"
    "{ count:         26 } hitcount:          1  count:         26\n"
    "{ count:         27 } hitcount:          1  count:         27\n"
    "{ count:         28 } hitcount:          1  count:         28\n"
    "{ count:         29 } hitcount:          1  count:         29\n"
    "{ count:         30 } hitcount:          1  count:         30\n"
    "{ count:         31 } hitcount:          1  count:         31\n"
    "{ count:         32 } hitcount:          1  count:         32\n"
    "{ count:         33 } hitcount:          1  count:         33\n"
    "{ count:         34 } hitcount:          1  count:         34\n"
    "{ count:         35 } hitcount:          1  count:         35\n"
    "{ count:         36 } hitcount:          1  count:         36\n"
    "{ count:         37 } hitcount:          1  count:         37\n"
    "{ count:         38 } hitcount:          1  count:         38\n"
    "{ count:         39 } hitcount:          1  count:         39\n"
    "{ count:         40 } hitcount:          1  count:         40\n"
    "{ count:         41 } hitcount:          1  count:         41\n"
    "{ count:         42 } hitcount:          1  count:         42\n"
    "{ count:         43 } hitcount:          1  count:         43\n"
    "{ count:         44 } hitcount:          1  count:         44\n"
    "{ count:         45 } hitcount:          1  count:         45\n"
    "{ count:         46 } hitcount:          1  count:         46\n"
    "{ count:         47 } hitcount:          1  count:         47\n"
    "{ count:         48 } hitcount:          1  count:         48\n"
    "{ count:         49 } hitcount:          1  count:         49\n"
    "{ count:         50 } hitcount:          1  count:         50\n"
    "{ count:         51 } hitcount:          1  count:         51\n"
    "{ count:         52 } hitcount:          1  count:         52\n"
    "{ count:         53 } hitcount:          1  count:         53\n"
    "{ count:         54 } hitcount:          1  count:         54\n"
    "{ count:         55 } hitcount:          1  count:         55\n"
    "{ count:         56 } hitcount:          1  count:         56\n"
    "{ count:         57 } hitcount:          1  count:         57\n"
    "{ count:         58 } hitcount:          1  count:         58\n"
    "{ count:         59 } hitcount:          1  count:         59\n"
    "{ count:         60 } hitcount:          1  count:         60\n"
    "{ count:         61 } hitcount:          1  count:         61\n"
    "{ count:         62 } hitcount:          1  count:         62\n"
    "{ count:         63 } hitcount:          1  count:         63\n"
    "{ count:         64 } hitcount:          1  count:         64\n"
    "{ count:         65 } hitcount:          1  count:         65\n"
    "{ count:         66 } hitcount:          1  count:         66\n"
    "{ count:         67 } hitcount:          1  count:         67\n"
    "{ count:         68 } hitcount:          1  count:         68\n"
    "{ count:         69 } hitcount:          1  count:         69\n"
    "{ count:         70 } hitcount:          1  count:         70\n"
    "{ count:         71 } hitcount:          1  count:         71\n"
    "{ count:         72 } hitcount:          1  count:         72\n"
    "{ count:         73 } hitcount:          1  count:         73\n"
    "{ count:         74 } hitcount:          1  count:         74\n"
    "{ count:         75 } hitcount:          1  count:         75\n"
    "{ count:         76 } hitcount:          1  count:         76\n"
    "{ count:         77 } hitcount:          1  count:         77\n"
    "{ count:         78 } hitcount:          1  count:         78\n"
    "{ count:         79 } hitcount:          1  count:         79\n"
    "{ count:         80 } hitcount:          1  count:         80\n"
    "{ count:         81 } hitcount:          1  count:         81\n"
    "{ count:         82 } hitcount:          1  count:         82\n"
    "{ count:         83 } hitcount:          1  count:         83\n"
    "{ count:         84 } hitcount:          1  count:         84\n"
    "{ count:         85 } hitcount:          1  count:         85\n"
    "{ count:         86 } hitcount:          1  count:         86\n"
    "{ count:         87 } hitcount:          1  count:         87\n"
    "{ count:         88 } hitcount:          1  count:         88\n"
    "{ count:         89 } hitcount:          1  count:         89\n"
    "{ count:         90 } hitcount:          1  count:         90\n"
    "{ count:         91 } hitcount:          1  count:         91\n"
    "{ count:         92 } hitcount:          1  count:         92\n"
    "{ count:         93 } hitcount:          1  count:         93\n"
    "{ count:         94 } hitcount:          1  count:         94\n"
    "{ count:         95 } hitcount:          1  count:         95\n"
    "{ count:         96 } hitcount:          1  count:         96\n"
    "{ count:         97 } hitcount:          1  count:         97\n"
    "{ count:         98 } hitcount:          1  count:         98\n"
    "{ count:         99 } hitcount:          1  count:         99\n"
    "{ count:        100 } hitcount:          1  count:        100\n"
    "{ count:        101 } hitcount:          1  count:        101\n"
    "{ count:        102 } hitcount:          1  count:        102\n"
    "{ count:        103 } hitcount:          1  count:        103\n"
    "{ count:        104 } hitcount:          1  count:        104\n"
    "{ count:        105 } hitcount:          1  count:        105\n"
    "{ count:        106 } hitcount:          1  count:        106\n"
    "{ count:        107 } hitcount:          1  count:        107\n"
    "{ count:        108 } hitcount:          1  count:        108\n"
    "{ count:        109 } hitcount:          1  count:        109\n"
    "{ count:        110 } hitcount:          1  count:        110\n"
    "{ count:        111 } hitcount:          1  count:        111\n"
    "{ count:        112 } hitcount:          1  count:        112\n"
    "{ count:        113 } hitcount:          1  count:        113\n"
    "{ count:        114 } hitcount:          1  count:        114\n"
    "{ count:        115 } hitcount:          1  count:        115\n"
    "{ count:        116 } hitcount:          1  count:        116\n"
    "{ count:        117 } hitcount:          1  count:        117\n"
    "{ count:        118 } hitcount:          1  count:        118\n"
    "{ count:        119 } hitcount:          1  count:        119\n"
    "{ count:        120 } hitcount:          1  count:        120\n"
    "{ count:        121 } hitcount:          1  count:        121\n"
    "{ count:        122 } hitcount:          1  count:        122\n"
    "{ count:        123 } hitcount:          1  count:        123\n"
    "{ count:        124 } hitcount:          1  count:        124\n"
    "{ count:        125 } hitcount:          1  count:        125\n"
    "{ count:        126 } hitcount:          1  count:        126\n"
    "{ count:        127 } hitcount:          1  count:        127\n"
    "{ count:        128 } hitcount:          1  count:        128\n"
    "{ count:          5 } hitcount:          4  count:         20\n"
    "\n"
    "Totals:\n"
    "    Hits: 131\n"
    "    Entries: 128\n"
    "    Dropped: 72\n";

static const char signed_sum[] =
    "# event histogram\n"
    "#\n"
    "# trigger info: hist:keys=common_pid:vals=hitcount,ret:sort=hitcount:size=2048 if ret < 0 [active]\n"
    "#\n"
    "\n"
    "{ common_pid:        141 } hitcount:         13  ret: 18446744073709551590\n"
    "{ common_pid:        140 } hitcount:         18  ret: 18446744073709551580\n"
    "\n"
    "Totals:\n"
    "    Hits: 31\n"
    "    Entries: 2\n"
    "    Dropped: 0\n";

static const char two_triggers[] =
    "# event histogram\n"
    "#\n"
    "# trigger info: hist:keys=fd:vals=hitcount:sort=hitcount:size=2048 if fd == 7 [active]\n"
    "#\n"
    "\n"
    "{ fd:          7 } hitcount:          2\n"
    "\n"
    "Totals:\n"
    "    Hits: 2\n"
    "    Entries: 1\n"
    "    Dropped: 0\n"
    "\n"
    "\n"
    "# event histogram\n"
    "#\n"
    "# trigger info: hist:keys=fd:vals=hitcount,count:sort=hitcount:size=2048 if fd == 8 [active]\n"
    "#\n"
    "\n"
    "{ fd:          8 } hitcount:          1  count:          3\n"
    "\n"
    "Totals:\n"
    "    Hits: 1\n"
    "    Entries: 1\n"
    "    Dropped: 0\n";

static const char empty[] =
    "# event histogram\n"
    "#\n"
    "# trigger info: hist:keys=fd:vals=hitcount:sort=hitcount:size=2048 if fd == 12345 [active]\n"
    "#\n"
    "\n"
    "\n"
    "Totals:\n"
    "    Hits: 0\n"
    "    Entries: 0\n"
    "    Dropped: 0\n";

struct got {
    struct tp_khist_entry e[200];
    size_t n;
};

static int collect(void *arg, const struct tp_khist_entry *e)
{
    struct got *g = arg;
    if (g->n == sizeof(g->e) / sizeof(g->e[0]))
        return -E2BIG;
    g->e[g->n++] = *e;
    return 0;
}

static void test_size(void **state)
{
    (void)state;
    assert_int_equal(tp_khist_size(1), 128);
    assert_int_equal(tp_khist_size(128), 128);
    assert_int_equal(tp_khist_size(129), 256);
    assert_int_equal(tp_khist_size(10000), 16384);
    assert_int_equal(tp_khist_size(131072), 131072);
    assert_int_equal(tp_khist_size(131073), 0);
}

static void test_trigger(void **state)
{
    (void)state;
    char buf[256];
    const char *k1[] = { "fd" }, *k2[] = { "fd", "count" };
    assert_int_equal(tp_khist_trigger(buf, sizeof(buf), k1, 1, "count", 2048, "fd >= 7", 0),
                     strlen("hist:keys=fd:vals=hitcount,count:size=2048 if fd >= 7"));
    assert_string_equal(buf, "hist:keys=fd:vals=hitcount,count:size=2048 if fd >= 7");
    tp_khist_trigger(buf, sizeof(buf), k2, 2, NULL, 128, NULL, 1);
    assert_string_equal(buf, "!hist:keys=fd,count:vals=hitcount:size=128");
    tp_khist_trigger(buf, sizeof(buf), k1, 1, NULL, 128, "  fd == 1 \t", 0);
    assert_string_equal(buf, "hist:keys=fd:vals=hitcount:size=128 if fd == 1");
    tp_khist_trigger(buf, sizeof(buf), k1, 1, NULL, 128, " ", 0);
    assert_string_equal(buf, "hist:keys=fd:vals=hitcount:size=128");
    tp_khist_trigger(buf, sizeof(buf), k1, 1, NULL, 128, "", 0);
    assert_string_equal(buf, "hist:keys=fd:vals=hitcount:size=128");
    assert_int_equal(tp_khist_trigger(buf, 20, k1, 1, NULL, 128, NULL, 0), -ENAMETOOLONG);
    assert_int_equal(tp_khist_trigger(buf, sizeof(buf), k1, 0, NULL, 128, NULL, 0), -EINVAL);
}

static void test_count_and_sum(void **state)
{
    (void)state;
    struct got g = { .n = 0 };
    struct tp_khist_totals t;
    assert_int_equal(tp_khist_parse(count_by_fd, "hist:keys=fd:vals=hitcount,count:size=2048 if "
                                    "fd >= 7", 1, 1, collect, &g, &t), 3);
    assert_int_equal(g.e[0].key[0], 8);
    assert_int_equal(g.e[0].hits, 1);
    assert_int_equal(g.e[1].key[0], 9);
    assert_int_equal(g.e[1].hits, 2);
    assert_int_equal(g.e[1].sum, 10000);
    assert_int_equal(g.e[2].key[0], 7);
    assert_int_equal(g.e[2].sum, 300);
    assert_int_equal(t.hits, 6);
    assert_int_equal(t.entries, 3);
    assert_int_equal(t.dropped, 0);
}

static void test_two_keys_and_ids(void **state)
{
    (void)state;
    struct got g = { .n = 0 };
    struct tp_khist_totals t;
    assert_int_equal(tp_khist_parse(two_keys, "hist:keys=fd,count:vals=hitcount:size=2048 if "
                                    "fd == 7", 2, 0, collect, &g, &t), 2);
    assert_int_equal(g.e[0].key[0], 7);
    assert_int_equal(g.e[0].key[1], 5);
    assert_int_equal(g.e[0].hits, 2);
    assert_int_equal(g.e[1].key[1], 100);
    assert_int_equal(g.e[1].hits, 3);
    g.n = 0;
    assert_int_equal(tp_khist_parse(raw_id, "hist:keys=id:vals=hitcount:size=2048 if "
                                    "common_pid == 133", 1, 0, collect, &g, &t), 13);
    assert_int_equal(g.e[0].key[0], 293);
    assert_int_equal(g.e[12].key[0], 14);
    assert_int_equal(g.e[12].hits, 24);
    assert_int_equal(t.hits, 56);
}

/* Negative values of signed fields: two's complement in 64 bits, keys and sums alike. */
static void test_signed(void **state)
{
    (void)state;
    struct got g = { .n = 0 };
    struct tp_khist_totals t;
    assert_int_equal(tp_khist_parse(negative_key, "hist:keys=ret:vals=hitcount:size=2048 if "
                                    "ret < 0", 1, 0, collect, &g, &t), 1);
    assert_int_equal((int64_t)g.e[0].key[0], -2);
    assert_int_equal(g.e[0].hits, 64);
    g.n = 0;
    assert_int_equal(tp_khist_parse(signed_sum, "hist:keys=common_pid:vals=hitcount,ret:"
                                    "size=2048 if ret < 0", 1, 1, collect, &g, &t), 2);
    assert_int_equal((int64_t)g.e[0].sum, -26);     /* 13 x -ENOENT */
    assert_int_equal((int64_t)g.e[1].sum, -36);
}

static void test_dropped(void **state)
{
    (void)state;
    struct got g = { .n = 0 };
    struct tp_khist_totals t;
    assert_int_equal(tp_khist_parse(dropped, "hist:keys=count:vals=hitcount,count:size=128 if "
                                    "fd == 7", 1, 1, collect, &g, &t), 128);
    assert_int_equal(t.dropped, 72);
    assert_int_equal(t.entries, 128);
    assert_int_equal(t.hits, 131);
    assert_int_equal(g.e[127].key[0], 5);
    assert_int_equal(g.e[127].hits, 4);
    assert_int_equal(g.e[127].sum, 20);
}

/* One section per trigger: each parse reads its own. */
static void test_sections(void **state)
{
    (void)state;
    struct got g = { .n = 0 };
    struct tp_khist_totals t;
    assert_int_equal(tp_khist_parse(two_triggers, "hist:keys=fd:vals=hitcount,count:size=2048 "
                                    "if fd == 8", 1, 1, collect, &g, &t), 1);
    assert_int_equal(g.e[0].key[0], 8);
    assert_int_equal(g.e[0].sum, 3);
    assert_int_equal(t.hits, 1);
    g.n = 0;
    assert_int_equal(tp_khist_parse(two_triggers, "hist:keys=fd:vals=hitcount:size=2048 if "
                                    "fd == 7", 1, 0, collect, &g, &t), 1);
    assert_int_equal(g.e[0].key[0], 7);
    assert_int_equal(g.e[0].hits, 2);
    assert_int_equal(tp_khist_parse(two_triggers, "hist:keys=fd:vals=hitcount:size=2048 if "
                                    "fd == 9", 1, 0, collect, &g, &t), -ENOENT);
    assert_int_equal(tp_khist_parse(empty, "hist:keys=fd:vals=hitcount:size=2048 if fd == 12345",
                                    1, 0, collect, &g, &t), 0);
    assert_int_equal(t.hits, 0);
}

/* Keys shown other than as plain numbers are refused. */
static void test_refused(void **state)
{
    (void)state;
    struct tp_khist_totals t;
    assert_int_equal(tp_khist_parse(log2_key, "hist:keys=count.log2:vals=hitcount:size=2048 if "
                                    "fd == 7", 1, 0, NULL, NULL, &t), -EINVAL);
    assert_int_equal(tp_khist_parse(strings, "hist:keys=filename,old_pid:vals=hitcount:size=2048",
                                    2, 0, NULL, NULL, &t), -EINVAL);
    /* a sum expected where there is none, a key too few */
    assert_int_equal(tp_khist_parse(two_keys, "hist:keys=fd,count:vals=hitcount:size=2048 if "
                                    "fd == 7", 2, 1, NULL, NULL, &t), -EINVAL);
    assert_int_equal(tp_khist_parse(two_keys, "hist:keys=fd,count:vals=hitcount:size=2048 if "
                                    "fd == 7", 1, 0, NULL, NULL, &t), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size),
        cmocka_unit_test(test_trigger),
        cmocka_unit_test(test_count_and_sum),
        cmocka_unit_test(test_two_keys_and_ids),
        cmocka_unit_test(test_signed),
        cmocka_unit_test(test_dropped),
        cmocka_unit_test(test_sections),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
