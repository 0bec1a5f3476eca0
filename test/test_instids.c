/*
 * Unit tests for tp_instids (src/instids.c): the aggregations' instance ids
 * saved and read back, a torn last line, an older version's pmdaCache file
 * taken on an upgrade, and no write through a link.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tp_instids.h"

static char dir[256], path[300];
static int logged;

static void count_log(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
    logged++;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/tp_instids_test.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof(path), "%s/instances.400", dir);
    logged = 0;
    return 0;
}

static int teardown(void **state)
{
    char cmd[600];
    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s.canary'", dir, dir);
    return system(cmd) == 0 ? 0 : -1;
}

static struct tp_instids *open_map(void)
{
    struct tp_instids *m = NULL;
    assert_int_equal(tp_instids_open(&m, dir, "instances.400", count_log, NULL), 0);
    return m;
}

static void write_at(const char *file, const char *text)
{
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Saved and read back, names with spaces included, in inst order. */
static void test_round_trip(void **state)
{
    (void)state;
    struct tp_instids *m = open_map();
    struct tp_instid v[] = { { 1, "comm=a b" }, { 0, "fd=7" }, { 2, "other" } };
    const struct tp_instid *got;
    assert_int_equal(tp_instids_set(m, 16, v, 3), 0);
    assert_int_equal(tp_instids_save(m), 0);
    tp_instids_close(m);
    m = open_map();
    assert_int_equal(tp_instids_get(m, 16, &got), 3);
    assert_int_equal(got[0].inst, 0);
    assert_string_equal(got[0].name, "fd=7");
    assert_string_equal(got[1].name, "comm=a b");
    assert_int_equal(tp_instids_get(m, 17, &got), 0);
    assert_int_equal(logged, 0);
    tp_instids_close(m);
    tp_instids_close(NULL);
}

/* A last line cut short is not an instance: "fd=1" is not "fd=12". */
static void test_torn_last_line(void **state)
{
    (void)state;
    const struct tp_instid *got;
    write_at(path, "I 16 0 fd=7\nI 16 1 fd=1");
    struct tp_instids *m = open_map();
    assert_int_equal(tp_instids_get(m, 16, &got), 1);
    assert_string_equal(got[0].name, "fd=7");
    assert_int_equal(logged, 1);
    tp_instids_close(m);
}

static char *read_all(void)
{
    static char text[4096];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static ino_t inode(void)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_ino;
}

#define HEADER "# pmdatracepoint: instance ids of the aggregations' domains; do not edit.\n"

/*
 * A new id is a line added at the end, the file otherwise untouched; an id
 * renamed or gone, the whole file written again.  The first save after
 * open is whole: a torn last line read is gone before anything is added.
 */
static void test_saves_add(void **state)
{
    (void)state;
    write_at(path, "I 16 0 fd=7\nI 16 1 fd=1");
    struct tp_instids *m = open_map();
    struct tp_instid v[] = { { 0, "fd=7" }, { 1, "fd=12" }, { 2, "fd=3" }, { 3, "fd=4" } };
    assert_int_equal(tp_instids_set(m, 16, v, 2), 0);
    assert_int_equal(tp_instids_save(m), 0);
    assert_string_equal(read_all(), HEADER "I 16 0 fd=7\nI 16 1 fd=12\n");
    ino_t whole = inode();
    assert_int_equal(tp_instids_set(m, 16, v, 3), 0);
    assert_int_equal(tp_instids_set(m, 17, v, 1), 0);
    assert_int_equal(tp_instids_set(m, 16, v, 4), 0);
    assert_int_equal(tp_instids_save(m), 0);
    assert_string_equal(read_all(), HEADER "I 16 0 fd=7\nI 16 1 fd=12\n"
                                    "I 16 2 fd=3\nI 17 0 fd=7\nI 16 3 fd=4\n");
    assert_true(inode() == whole);
    assert_int_equal(tp_instids_save(m), 0);            /* nothing new: nothing written */
    assert_true(inode() == whole);
    v[1].name = "fd=9";                                 /* renamed: whole */
    assert_int_equal(tp_instids_set(m, 16, v, 4), 0);
    assert_int_equal(tp_instids_save(m), 0);
    assert_string_equal(read_all(), HEADER "I 16 0 fd=7\nI 16 1 fd=9\nI 16 2 fd=3\n"
                                    "I 16 3 fd=4\nI 17 0 fd=7\n");
    assert_true(inode() != whole);
    whole = inode();
    assert_int_equal(tp_instids_set(m, 17, v, 0), 0);   /* gone: whole */
    assert_int_equal(tp_instids_save(m), 0);
    assert_string_equal(read_all(), HEADER "I 16 0 fd=7\nI 16 1 fd=9\nI 16 2 fd=3\n"
                                    "I 16 3 fd=4\n");
    assert_true(inode() != whole);
    tp_instids_close(m);
    m = open_map();
    const struct tp_instid *got;
    assert_int_equal(tp_instids_get(m, 16, &got), 4);
    assert_string_equal(got[3].name, "fd=4");
    tp_instids_close(m);
}

/* Upgrade: a pmdaCache file of ours is taken; a link or someone else's file is not. */
static void test_adopt(void **state)
{
    (void)state;
    char old[320], lnk[320];
    const struct tp_instid *got;
    snprintf(old, sizeof(old), "%s/400.16", dir);
    write_at(old, "2 0 2147483647\n0 1700000000 fd=7\n3 1700000000 fd=9\n");
    struct tp_instids *m = open_map();
    assert_int_equal(tp_instids_adopt(m, 16, old), 2);
    assert_int_equal(tp_instids_get(m, 16, &got), 2);
    assert_int_equal(got[1].inst, 3);
    assert_string_equal(got[1].name, "fd=9");
    assert_int_equal(tp_instids_save(m), 0);
    snprintf(lnk, sizeof(lnk), "%s/400.18", dir);
    assert_int_equal(symlink(old, lnk), 0);
    assert_true(tp_instids_adopt(m, 18, lnk) < 0);
    assert_int_equal(tp_instids_get(m, 18, &got), 0);
    tp_instids_close(m);
}

/* Links at the file and its temporary file: the save replaces them, the target is untouched. */
static void test_no_write_through_links(void **state)
{
    (void)state;
    char canary[320], tmp[340];
    char buf[64] = "";
    snprintf(canary, sizeof(canary), "%s.canary", dir);
    snprintf(tmp, sizeof(tmp), "%s.new", path);
    write_at(canary, "root's own file\n");
    assert_int_equal(symlink(canary, path), 0);
    assert_int_equal(symlink(canary, tmp), 0);
    struct tp_instids *m = open_map();
    struct tp_instid v[] = { { 0, "fd=7" } };
    assert_int_equal(tp_instids_set(m, 16, v, 1), 0);
    assert_int_equal(tp_instids_save(m), 0);
    tp_instids_close(m);
    FILE *f = fopen(canary, "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, sizeof(buf), f));
    fclose(f);
    assert_string_equal(buf, "root's own file\n");
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(access(tmp, F_OK), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_torn_last_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_saves_add, setup, teardown),
        cmocka_unit_test_setup_teardown(test_adopt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_write_through_links, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
