/*
 * Unit tests for tp_identity (src/identity.c): ids and items that keep
 * their meaning across restarts, new and vanished tracepoints, changed
 * fields, two PMDAs sharing one file, a torn last line, and writes that
 * never follow a link.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tp_identity.h"

static char dir[256], path[300];
static int logged;

static void count_log(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
    logged++;
}

/* The map in a directory of its own, 0700 as the PMDA's state directory is. */
static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/tp_identity_test.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof(path), "%s/map", dir);
    logged = 0;
    return 0;
}

static int teardown(void **state)
{
    char cmd[400];
    (void)state;
    chmod(dir, 0700);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static struct tp_identity *open_map(void)
{
    struct tp_identity *id = NULL;
    assert_int_equal(tp_identity_open(&id, path, count_log, NULL), 0);
    assert_non_null(id);
    return id;
}

static void write_file(const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* First time: tracepoints in the order met, fields in format order. */
static void test_first_numbering(void **state)
{
    (void)state;
    struct tp_identity *id = open_map();
    assert_int_equal(tp_identity_event(id, "a:one"), 0);
    assert_int_equal(tp_identity_event(id, "a:two"), 1);
    assert_int_equal(tp_identity_event(id, "b:three"), 2);
    assert_int_equal(tp_identity_event(id, "a:one"), 0);
    assert_string_equal(tp_identity_event_name(id, 1), "a:two");
    assert_null(tp_identity_event_name(id, 3));
    assert_null(tp_identity_event_name(id, 99999));
    assert_int_equal(tp_identity_item(id, 1, "x", 3), 0);
    assert_int_equal(tp_identity_item(id, 1, "y", 6), 1);
    assert_int_equal(tp_identity_item(id, 1, "x", 3), 0);
    assert_int_equal(tp_identity_item(id, 7, "x", 3), -EINVAL);     /* no such id */
    tp_identity_close(id);
}

/* Saved and read back: the same numbers; a new tracepoint gets a new id. */
static void test_restart_keeps_numbers(void **state)
{
    (void)state;
    struct tp_identity *id = open_map();
    assert_int_equal(tp_identity_begin(id), 0);
    assert_int_equal(tp_identity_event(id, "sched:sched_switch"), 0);
    assert_int_equal(tp_identity_event(id, "sched:sched_process_exec"), 1);
    assert_int_equal(tp_identity_end(id), 0);
    assert_int_equal(tp_identity_item(id, 1, "filename", 6), 0);
    assert_int_equal(tp_identity_item(id, 1, "pid", 0), 1);
    assert_int_equal(tp_identity_save(id), 0);
    tp_identity_close(id);

    /* a new tracepoint that sorts first appears: nothing moves */
    id = open_map();
    assert_int_equal(tp_identity_begin(id), 0);
    assert_int_equal(tp_identity_event(id, "aaa:new"), 2);
    assert_int_equal(tp_identity_event(id, "sched:sched_process_exec"), 1);
    assert_int_equal(tp_identity_event(id, "sched:sched_switch"), 0);
    assert_int_equal(tp_identity_end(id), 0);
    assert_int_equal(tp_identity_item(id, 1, "pid", 0), 1);
    assert_int_equal(tp_identity_item(id, 1, "filename", 6), 0);
    tp_identity_close(id);

    /* it vanishes again: its id stays reserved, the next new one gets another */
    id = open_map();
    assert_string_equal(tp_identity_event_name(id, 2), "aaa:new");
    assert_int_equal(tp_identity_event(id, "zzz:later"), 3);
    tp_identity_close(id);
    assert_int_equal(logged, 0);
}

/* A field whose type changes gets a new item; an added field the next one. */
static void test_changed_fields(void **state)
{
    (void)state;
    struct tp_identity *id = open_map();
    assert_int_equal(tp_identity_event(id, "probe:p"), 0);
    assert_int_equal(tp_identity_item(id, 0, "a", 0), 0);
    assert_int_equal(tp_identity_item(id, 0, "b", 0), 1);
    assert_int_equal(tp_identity_save(id), 0);
    tp_identity_close(id);
    id = open_map();
    assert_int_equal(tp_identity_item(id, 0, "b", 6), 2);   /* b is now a string */
    assert_int_equal(tp_identity_item(id, 0, "c", 1), 3);
    assert_int_equal(tp_identity_item(id, 0, "a", 0), 0);
    assert_int_equal(tp_identity_item(id, 0, "b", 0), 1);   /* and back again */
    tp_identity_close(id);
}

/* Two PMDAs on one file: assignments between begin and end never clash. */
static void test_shared_file(void **state)
{
    (void)state;
    struct tp_identity *a = open_map(), *b = open_map();
    assert_int_equal(tp_identity_begin(a), 0);
    assert_int_equal(tp_identity_event(a, "s:common"), 0);
    assert_int_equal(tp_identity_event(a, "probe:of_a"), 1);
    assert_int_equal(tp_identity_end(a), 0);
    assert_int_equal(tp_identity_begin(b), 0);                /* merges a's */
    assert_int_equal(tp_identity_event(b, "s:common"), 0);
    assert_int_equal(tp_identity_event(b, "probe:of_b"), 2);
    assert_int_equal(tp_identity_end(b), 0);
    assert_int_equal(tp_identity_begin(a), 0);
    assert_string_equal(tp_identity_event_name(a, 2), "probe:of_b");
    assert_int_equal(tp_identity_event(a, "probe:again"), 3);
    assert_int_equal(tp_identity_end(a), 0);
    tp_identity_close(a);
    tp_identity_close(b);
    struct tp_identity *c = open_map();
    assert_string_equal(tp_identity_event_name(c, 3), "probe:again");
    assert_string_equal(tp_identity_event_name(c, 2), "probe:of_b");
    tp_identity_close(c);
}

/* Lines that cannot be used are skipped and logged; the rest is kept. */
static void test_bad_lines(void **state)
{
    (void)state;
    write_file("# comment\n"
               "E 0 good:one\n"
               "E 1 good:one\n"             /* a second id for one name */
               "E 0 other:two\n"            /* a second name for one id */
               "E 5000 big:id\n"            /* out of range */
               "E 2 has space\n"
               "F 0 0 3 f\n"
               "F 0 0 3 g\n"                /* a second field on one item */
               "F 9 0 3 h\n"                /* no such id */
               "garbage\n"
               "E 3 good:three\n");
    struct tp_identity *id = open_map();
    assert_string_equal(tp_identity_event_name(id, 0), "good:one");
    assert_null(tp_identity_event_name(id, 1));
    assert_string_equal(tp_identity_event_name(id, 3), "good:three");
    assert_int_equal(tp_identity_item(id, 0, "f", 3), 0);
    assert_int_equal(tp_identity_item(id, 0, "g", 3), 1);
    assert_int_equal(tp_identity_event(id, "new:one"), 4);
    assert_int_equal(logged, 5);        /* at most 5 lines are named */
    tp_identity_close(id);
}

/*
 * begin reads the file again only when it changed: not after the map's own
 * read or write (a bad line would be logged again), but after another
 * map's save and after an edit in place.
 */
static void test_unchanged_file_not_read_again(void **state)
{
    (void)state;
    write_file("E 0 s:one\n" "garbage\n");
    struct tp_identity *a = open_map();
    assert_int_equal(logged, 1);
    assert_int_equal(tp_identity_begin(a), 0);
    assert_int_equal(tp_identity_end(a), 0);
    assert_int_equal(logged, 1);                /* the same file: not read */
    struct tp_identity *b = open_map();
    assert_int_equal(logged, 2);
    assert_int_equal(tp_identity_begin(b), 0);
    assert_int_equal(tp_identity_event(b, "s:two"), 1);
    assert_int_equal(tp_identity_end(b), 0);    /* a new file, without the bad line */
    assert_int_equal(tp_identity_begin(a), 0);
    assert_string_equal(tp_identity_event_name(a, 1), "s:two");
    assert_int_equal(tp_identity_event(a, "s:three"), 2);
    assert_int_equal(tp_identity_end(a), 0);    /* written: a's own file now */
    assert_int_equal(tp_identity_begin(a), 0);
    assert_int_equal(tp_identity_end(a), 0);
    assert_int_equal(logged, 2);
    FILE *f = fopen(path, "a");                 /* an edit in place: same inode */
    assert_non_null(f);
    fputs("E 3 s:four\n" "garbage\n", f);
    fclose(f);
    assert_int_equal(tp_identity_begin(a), 0);
    assert_int_equal(tp_identity_end(a), 0);
    assert_int_equal(logged, 3);
    assert_string_equal(tp_identity_event_name(a, 3), "s:four");
    tp_identity_close(a);
    tp_identity_close(b);
}

/* Only lines as the map writes them: one space apart, numbers in range, no wrapping. */
static void test_strict_lines(void **state)
{
    (void)state;
    write_file("E 0 s:zero\n"
               "E 4294967297 s:wrap\n"     /* 2^32 + 1: not id 1 */
               "E\t2 s:tab\n"
               "E  3 s:two_spaces\n"
               "E 4 s:trailing \n"
               "E 5x s:junk\n"
               "F 0 0 3 f extra\n"
               "F 0 1024 3 g\n"            /* item out of range */
               "F 0 1 -1 h\n"              /* a negative type is a type */
               "E 6 s:six\n");
    struct tp_identity *id = open_map();
    assert_string_equal(tp_identity_event_name(id, 0), "s:zero");
    for (unsigned i = 1; i <= 5; i++)
        assert_null(tp_identity_event_name(id, i));
    assert_string_equal(tp_identity_event_name(id, 6), "s:six");
    assert_int_equal(tp_identity_item(id, 0, "h", -1), 1);
    assert_int_equal(tp_identity_item(id, 0, "f", 3), 2);     /* new: after h's item */
    assert_int_equal(logged, 5);
    tp_identity_close(id);
}

/* The id space has an end, and says so. */
static void test_full(void **state)
{
    (void)state;
    char name[64];
    struct tp_identity *id = open_map();
    for (int i = 0; i < TP_IDENTITY_MAX_EVENTS; i++) {
        snprintf(name, sizeof(name), "s:e%d", i);
        assert_int_equal(tp_identity_event(id, name), i);
    }
    assert_int_equal(tp_identity_event(id, "s:one_more"), -ENOSPC);
    assert_int_equal(tp_identity_event(id, "s:e17"), 17);
    for (int i = 0; i < TP_IDENTITY_MAX_ITEMS; i++) {
        snprintf(name, sizeof(name), "f%d", i);
        assert_int_equal(tp_identity_item(id, 3, name, 0), i);
    }
    assert_int_equal(tp_identity_item(id, 3, "f_more", 0), -ENOSPC);
    assert_int_equal(tp_identity_save(id), 0);
    tp_identity_close(id);
    id = open_map();
    assert_string_equal(tp_identity_event_name(id, TP_IDENTITY_MAX_EVENTS - 1), "s:e4079");
    tp_identity_close(id);
}

/* A missing file is an empty map; an unreadable one is said, and starts afresh. */
static void test_open_errors(void **state)
{
    (void)state;
    struct tp_identity *id = NULL;
    assert_int_equal(tp_identity_open(&id, path, count_log, NULL), 0);
    assert_int_equal(logged, 0);
    tp_identity_close(id);
    assert_int_equal(tp_identity_open(&id, "/proc/self", count_log, NULL), 0);   /* a link */
    assert_int_equal(logged, 1);
    assert_int_equal(tp_identity_event(id, "a:b"), 0);
    assert_true(tp_identity_save(id) < 0);
    tp_identity_close(id);
    tp_identity_close(NULL);
}

/*
 * A write cut short leaves a last line without its newline: it must not
 * bind id 1 to "sched:sched_wak" and so move sched:sched_wakeup to id 2.
 */
static void test_torn_last_line(void **state)
{
    (void)state;
    write_file("E 0 sched:sched_switch\nF 0 0 3 prev_pid\nE 1 sched:sched_wak");
    struct tp_identity *id = open_map();
    assert_int_equal(logged, 1);
    assert_null(tp_identity_event_name(id, 1));
    assert_int_equal(tp_identity_event(id, "sched:sched_switch"), 0);
    assert_int_equal(tp_identity_item(id, 0, "prev_pid", 3), 0);
    assert_int_equal(tp_identity_event(id, "sched:sched_wakeup"), 1);
    tp_identity_close(id);

    write_file("E 0 a:b\nF 0 0 3 fie");            /* a torn field line too */
    logged = 0;
    id = open_map();
    assert_int_equal(logged, 1);
    assert_int_equal(tp_identity_item(id, 0, "field", 3), 0);
    tp_identity_close(id);
}

static void write_at(const char *file, const char *text)
{
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The file's content, or "" if none. */
static const char *content(const char *file)
{
    static char buf[4096];
    FILE *f = fopen(file, "r");
    size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
    return buf;
}

static bool is_link(const char *file)
{
    struct stat st;
    return lstat(file, &st) == 0 && S_ISLNK(st.st_mode);
}

/*
 * Links planted at the map's temporary file, its lock and the map itself:
 * their targets are never written, created or truncated.  A save either
 * refuses or replaces the link with the file.
 */
static void test_no_write_through_links(void **state)
{
    (void)state;
    char canary[320], absent[320], other[320];
    snprintf(canary, sizeof(canary), "%s.canary", dir);     /* outside the directory */
    snprintf(absent, sizeof(absent), "%s.absent", dir);
    write_at(canary, "root's own file\n");
    unlink(absent);

    snprintf(other, sizeof(other), "%s.new", path);         /* the temporary file */
    assert_int_equal(symlink(canary, other), 0);
    assert_int_equal(symlink(canary, path), 0);              /* the map */
    struct tp_identity *id = open_map();                     /* a link is not read */
    assert_int_equal(tp_identity_event(id, "s:e"), 0);
    tp_identity_save(id);               /* says it could not read the map (a link) */
    assert_string_equal(content(canary), "root's own file\n");
    assert_false(is_link(path));                             /* replaced by the map */
    assert_non_null(strstr(content(path), "\nE 0 s:e\n"));
    assert_int_equal(access(other, F_OK), -1);
    tp_identity_close(id);

    snprintf(other, sizeof(other), "%s.lock", path);        /* the lock */
    unlink(other);
    assert_int_equal(symlink(absent, other), 0);
    id = open_map();
    assert_int_equal(tp_identity_event(id, "s:f"), 1);
    assert_true(tp_identity_save(id) < 0);                   /* refused */
    assert_int_equal(access(absent, F_OK), -1);              /* not made through the link */
    tp_identity_close(id);
    unlink(canary);
    unlink(absent);
}

/* A directory others may write, or a link on the way, is refused: nothing is written. */
static void test_unsafe_directory(void **state)
{
    (void)state;
    char linkdir[320], lpath[340];
    assert_int_equal(chmod(dir, 0777), 0);
    struct tp_identity *id = open_map();
    assert_int_equal(logged, 1);
    assert_int_equal(tp_identity_event(id, "s:e"), 0);
    assert_true(tp_identity_save(id) < 0);
    assert_int_equal(access(path, F_OK), -1);
    tp_identity_close(id);
    assert_int_equal(chmod(dir, 0700), 0);

    snprintf(linkdir, sizeof(linkdir), "%s.link", dir);
    unlink(linkdir);
    assert_int_equal(symlink(dir, linkdir), 0);
    snprintf(lpath, sizeof(lpath), "%s/map", linkdir);
    logged = 0;
    assert_int_equal(tp_identity_open(&id, lpath, count_log, NULL), 0);
    assert_int_equal(logged, 1);
    assert_int_equal(tp_identity_event(id, "s:e"), 0);
    assert_true(tp_identity_save(id) < 0);
    assert_int_equal(access(path, F_OK), -1);
    tp_identity_close(id);
    unlink(linkdir);
}

/* Upgrade: the ids of an older version's map are kept, and saved in the new place. */
static void test_adopt(void **state)
{
    (void)state;
    char old[320];
    snprintf(old, sizeof(old), "%s/old.ids", dir);
    write_at(old, "E 0 a:zero\nE 3 a:three\nF 3 0 3 x\n");
    struct tp_identity *id = open_map();
    assert_int_equal(tp_identity_adopt(id, old), 0);
    assert_int_equal(tp_identity_event(id, "a:three"), 3);
    assert_int_equal(tp_identity_save(id), 0);
    tp_identity_close(id);
    unlink(old);
    id = open_map();
    assert_string_equal(tp_identity_event_name(id, 3), "a:three");
    assert_int_equal(tp_identity_item(id, 3, "x", 3), 0);
    assert_int_equal(tp_identity_adopt(id, old), 0);         /* a map of its own: nothing */
    tp_identity_close(id);

    char lnk[320];                                          /* a link is not read */
    snprintf(lnk, sizeof(lnk), "%s/old.link", dir);
    write_at(old, "E 7 b:seven\n");
    assert_int_equal(symlink(old, lnk), 0);
    unlink(path);
    id = open_map();
    assert_true(tp_identity_adopt(id, lnk) < 0);
    assert_null(tp_identity_event_name(id, 7));
    tp_identity_close(id);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_first_numbering, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_keeps_numbers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_changed_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shared_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unchanged_file_not_read_again, setup, teardown),
        cmocka_unit_test_setup_teardown(test_strict_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_torn_last_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_write_through_links, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unsafe_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_adopt, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
