/*
 * Unit tests for tp_features (src/features.c): made-up tracefs trees, one
 * as this machine's 6.18 has it (uprobes, no hist triggers), one as
 * Debian's 6.1 (kprobes, uprobes, hist, synthetic events, no sub-buffer
 * size), and an empty one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "tp_features.h"
#include "tp_fake_tracefs.h"

static char top[64];

static void put(const char *rel, const char *text) { tp_fake_put(top, rel, text); }
static void dir(const char *rel) { tp_fake_dir(top, rel); }

static int setup(void **state)
{
    (void)state;
    snprintf(top, sizeof(top), "/tmp/tpfeatures.XXXXXX");
    return mkdtemp(top) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return tp_fake_tracefs_remove(top);
}

/* An events tree whose first system has an event without a trigger file (as ftrace's). */
static void events(const char *triggers, int with_hist_file)
{
    dir("t/events");
    put("t/events/enable", "0\n");
    dir("t/events/ftrace");
    dir("t/events/ftrace/function");
    put("t/events/ftrace/function/format", "name: function\n");
    dir("t/events/sched");
    dir("t/events/sched/sched_switch");
    put("t/events/sched/sched_switch/trigger", triggers);
    if (with_hist_file)
        put("t/events/sched/sched_switch/hist", "");
}

static void names(unsigned mask, const char *want)
{
    char buf[128];
    tp_features_format(mask, buf, sizeof(buf));
    assert_string_equal(buf, want);
}

static void test_like_6_18(void **state)
{
    (void)state;
    dir("t");
    put("t/uprobe_events", "");
    put("t/dynamic_events", "");
    put("t/buffer_subbuf_size_kb", "4\n");
    events("# Available triggers:\n# traceon traceoff stacktrace enable_event disable_event\n", 0);
    names(tp_features_detect(strcat(strcpy((char[80]){0}, top), "/t")), "uprobes stacktrace subbuf");
}

static void test_like_6_1(void **state)
{
    (void)state;
    dir("t");
    put("t/kprobe_events", "");
    put("t/uprobe_events", "");
    put("t/synthetic_events", "");
    events("# Available triggers:\n"
           "# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist\n", 1);
    names(tp_features_detect(strcat(strcpy((char[80]){0}, top), "/t")),
          "kprobes uprobes hist synth stacktrace");
}

/* "enable_hist" alone is not "hist"; a hist file alone is. */
static void test_words(void **state)
{
    (void)state;
    dir("t");
    events("# Available triggers:\n# traceon enable_hist disable_hist\n", 0);
    names(tp_features_detect(strcat(strcpy((char[80]){0}, top), "/t")), "none");
    put("t/events/sched/sched_switch/hist", "");
    names(tp_features_detect(strcat(strcpy((char[80]){0}, top), "/t")), "hist");
}

static void test_nothing(void **state)
{
    (void)state;
    names(tp_features_detect("/nonexistent/tracing"), "none");
    char small[8];
    assert_int_equal(tp_features_format(1u << TP_FEAT_KPROBES | 1u << TP_FEAT_UPROBES,
                                        small, sizeof(small)), 15);
    assert_string_equal(small, "kprobes");
    assert_string_equal(tp_feature_name(TP_FEAT_SYNTH), "synth");
    assert_null(tp_feature_name(TP_NFEATURES));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_like_6_18, setup, teardown),
        cmocka_unit_test_setup_teardown(test_like_6_1, setup, teardown),
        cmocka_unit_test_setup_teardown(test_words, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nothing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
