/*
 * Unit tests for tp_comms: the name history of tasks.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <pcp/pmapi.h>

#include "tp_comms.h"

static void test_names_and_guesses(void **state)
{
    (void)state;
    struct tp_comms *t;
    bool followed = false;
    assert_int_equal(tp_comms_create(&t), 0);
    assert_string_equal(tp_comms_find(t, 0, &followed), "<idle>");
    assert_true(followed);
    assert_null(tp_comms_find(t, 42, NULL));
    assert_string_equal(tp_comms_get(t, 42), TP_COMM_UNKNOWN);

    assert_int_equal(tp_comms_set(t, 42, "bash", true), 0);
    assert_string_equal(tp_comms_find(t, 42, &followed), "bash");
    assert_true(followed);
    assert_int_equal(tp_comms_set(t, 42, "vim", false), 0);     /* a guess replaces it */
    assert_string_equal(tp_comms_find(t, 42, &followed), "vim");
    assert_false(followed);
    assert_int_equal(tp_comms_count(t), 1);

    assert_int_equal(tp_comms_set(t, 8, "0123456789abcdefXYZ", true), 0);
    assert_string_equal(tp_comms_get(t, 8), "0123456789abcde");
    assert_int_equal(tp_comms_set(t, -1, "x", true), -EINVAL);
    assert_int_equal(tp_comms_set(t, 9, NULL, true), -EINVAL);
    tp_comms_demote(t);
    tp_comms_find(t, 8, &followed);
    assert_false(followed);
    tp_comms_clear(t);
    assert_int_equal(tp_comms_count(t), 0);
    assert_null(tp_comms_find(t, 8, NULL));
    tp_comms_destroy(t);
    tp_comms_destroy(NULL);
}

/* Many pids, colliding and wrapping: every one keeps its own name through growth and removal. */
/* A name copied whole: its length, and zero bytes after it, a shorter rename included. */
static void test_name_copy(void **state)
{
    (void)state;
    struct tp_comms *t;
    char out[TP_COMM_LEN], zero[TP_COMM_LEN] = { 0 };
    assert_int_equal(tp_comms_create(&t), 0);
    assert_int_equal(tp_comms_name(t, 42, out), -ENOENT);
    assert_int_equal(tp_comms_name(t, 0, out), 6);
    assert_string_equal(out, "<idle>");
    assert_int_equal(tp_comms_set(t, 42, "0123456789abcdefXYZ", true), 0);
    assert_int_equal(tp_comms_name(t, 42, out), 15);
    assert_memory_equal(out, "0123456789abcde", TP_COMM_LEN);
    assert_int_equal(tp_comms_set(t, 42, "sh", true), 0);
    memset(out, 'x', sizeof(out));
    assert_int_equal(tp_comms_name(t, 42, out), 2);
    assert_memory_equal(out, "sh", 3);
    assert_memory_equal(out + 2, zero, TP_COMM_LEN - 2);
    tp_comms_forget(t, 42);
    assert_int_equal(tp_comms_name(t, 42, out), -ENOENT);
    tp_comms_destroy(t);
}

static void test_many_pids_forget(void **state)
{
    (void)state;
    enum { N = 20000 };
    struct tp_comms *t;
    char name[TP_COMM_LEN];
    assert_int_equal(tp_comms_create(&t), 0);
    for (int32_t p = 1; p <= N; p++) {
        snprintf(name, sizeof(name), "t%d", (int)(p * 7));
        assert_int_equal(tp_comms_set(t, p * 1024, name, true), 0);
    }
    assert_int_equal(tp_comms_count(t), N);
    for (int32_t p = 1; p <= N; p += 3)
        tp_comms_forget(t, p * 1024);
    tp_comms_forget(t, 5);                  /* not there: nothing */
    for (int32_t p = 1; p <= N; p++) {
        const char *c = tp_comms_find(t, p * 1024, NULL);
        if ((p - 1) % 3 == 0) {
            assert_null(c);
            continue;
        }
        snprintf(name, sizeof(name), "t%d", (int)(p * 7));
        assert_non_null(c);
        assert_string_equal(c, name);
    }
    assert_int_equal(tp_comms_count(t), N - (N + 2) / 3);
    tp_comms_destroy(t);
}

/* Raw records of the three name events, laid out as the kernel's formats say. */
static struct tp_field f_child_pid = { "child_pid", "pid_t child_pid", 20, 4, TP_FIELD_INT, PM_TYPE_32 };
static struct tp_field f_child_comm = { "child_comm", "__data_loc char[] child_comm", 16, 4,
                                        TP_FIELD_DLOC_STRING, PM_TYPE_STRING };
static struct tp_field f_ren_pid = { "pid", "pid_t pid", 8, 4, TP_FIELD_INT, PM_TYPE_32 };
static struct tp_field f_newcomm = { "newcomm", "char newcomm[16]", 28, 16, TP_FIELD_STRING,
                                     PM_TYPE_STRING };
static struct tp_field f_free_pid = { "pid", "pid_t pid", 24, 4, TP_FIELD_INT, PM_TYPE_32 };

static const struct tp_name_events ne = {
    .fork_id = 311, .rename_id = 140, .free_id = 312,
    .fork_pid = &f_child_pid, .fork_comm = &f_child_comm,
    .rename_pid = &f_ren_pid, .rename_comm = &f_newcomm, .free_pid = &f_free_pid,
};

static size_t fork_rec(unsigned char *r, int32_t child, const char *comm)
{
    memset(r, 0, 64);
    uint16_t id = 311;
    memcpy(r, &id, 2);
    uint32_t loc = (uint32_t)(strlen(comm) + 1) << 16 | 24;
    memcpy(r + 16, &loc, 4);
    memcpy(r + 20, &child, 4);
    memcpy(r + 24, comm, strlen(comm) + 1);
    return 24 + strlen(comm) + 1;
}

static void test_follow(void **state)
{
    (void)state;
    struct tp_comms *t;
    unsigned char r[64];
    assert_int_equal(tp_comms_create(&t), 0);
    size_t n = fork_rec(r, 77, "bash");
    assert_true(tp_comms_follow(t, &ne, 311, r, (uint32_t)n));
    assert_string_equal(tp_comms_get(t, 77), "bash");

    memset(r, 0, sizeof(r));                /* task_rename: pid 77 to tpbarB */
    int32_t pid = 77;
    memcpy(r + 8, &pid, 4);
    memcpy(r + 28, "tpbarB", 7);
    assert_true(tp_comms_follow(t, &ne, 140, r, 46));
    bool followed = false;
    assert_string_equal(tp_comms_find(t, 77, &followed), "tpbarB");
    assert_true(followed);
    assert_true(tp_comms_follow(t, &ne, 140, r, 20));  /* too short: nothing changes */
    assert_string_equal(tp_comms_get(t, 77), "tpbarB");

    memset(r, 0, sizeof(r));                /* sched_process_free of 77 */
    memcpy(r + 24, &pid, 4);
    assert_true(tp_comms_follow(t, &ne, 312, r, 32));
    assert_null(tp_comms_find(t, 77, NULL));
    assert_false(tp_comms_follow(t, &ne, 5, r, 32));   /* another event */
    assert_false(tp_comms_follow(t, &ne, -1, r, 32));
    tp_comms_destroy(t);
}

/* The running tasks, from /proc: this one among them; a followed name stays. */
static void test_snapshot(void **state)
{
    (void)state;
    struct tp_comms *t;
    assert_int_equal(tp_comms_create(&t), 0);
    int32_t me = (int32_t)getpid();
    assert_int_equal(tp_comms_set(t, 1, "followed-init", true), 0);
    assert_int_equal(tp_comms_set(t, me, "a-guess", false), 0);
    assert_true(tp_comms_snapshot(t, "/proc") > 0);
    assert_string_equal(tp_comms_get(t, me), "test_comms");
    assert_string_equal(tp_comms_get(t, 1), "followed-init");
    assert_int_equal(tp_comms_snapshot(t, "/nonexistent"), -ENOENT);
    tp_comms_destroy(t);
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
        cmocka_unit_test(test_names_and_guesses),
        cmocka_unit_test(test_name_copy),
        cmocka_unit_test(test_many_pids_forget),
        cmocka_unit_test(test_follow),
        cmocka_unit_test(test_snapshot),
        cmocka_unit_test(test_resolve_self),
        cmocka_unit_test(test_saved_cmdlines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
