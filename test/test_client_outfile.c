/*
 * Unit tests for client/outfile.c: a file written through it appears whole
 * under its name, as a new file (another name of the old one keeps the old
 * text), mode 0644 less the umask, with nothing left beside it; a symbolic
 * link is refused and its target untouched; an aborted write leaves the
 * old file as it was.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

static char dir[] = "/tmp/test_outfile.XXXXXX";
static char path[256], other[256];

static void put(const char *p, const char *text)
{
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const char *get(const char *p)
{
    static char buf[256];
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int entries(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static int setup(void **state)
{
    (void)state;
    if (mkdtemp(dir) == NULL)
        return -1;
    snprintf(path, sizeof(path), "%s/out.svg", dir);
    snprintf(other, sizeof(other), "%s/other", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    unlink(other);
    return rmdir(dir);
}

static void test_new_file(void **state)
{
    struct outfile o;
    struct stat st;
    (void)state;
    mode_t old = umask(027);
    assert_int_equal(outfile_open(&o, path), 0);
    umask(old);
    fputs("new text", o.f);
    assert_int_equal(access(path, F_OK), -1);       /* not there until committed */
    assert_int_equal(outfile_commit(&o), 0);
    assert_null(o.f);
    assert_string_equal(get(path), "new text");
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    assert_int_equal(entries(), 1);
    unlink(path);
}

static void test_replaces(void **state)
{
    struct outfile o;
    (void)state;
    put(path, "old text");
    assert_int_equal(link(path, other), 0);
    assert_int_equal(outfile_open(&o, path), 0);
    fputs("new text", o.f);
    assert_int_equal(outfile_commit(&o), 0);
    assert_string_equal(get(path), "new text");
    assert_string_equal(get(other), "old text");    /* not written in place */
    assert_int_equal(entries(), 2);
    unlink(path);
    unlink(other);
}

static void test_symlink_refused(void **state)
{
    struct outfile o;
    (void)state;
    put(other, "target");
    assert_int_equal(symlink(other, path), 0);
    assert_int_equal(outfile_open(&o, path), -ELOOP);
    assert_null(o.f);
    assert_string_equal(get(other), "target");
    assert_int_equal(entries(), 2);
    unlink(path);
    unlink(other);
}

static void test_abort(void **state)
{
    struct outfile o;
    (void)state;
    put(path, "old text");
    assert_int_equal(outfile_open(&o, path), 0);
    fputs("half", o.f);
    outfile_abort(&o);
    outfile_abort(&o);                              /* again: nothing */
    outfile_abort(NULL);
    assert_string_equal(get(path), "old text");
    assert_int_equal(entries(), 1);
    unlink(path);
}

static void test_no_directory(void **state)
{
    struct outfile o;
    char p[300];
    (void)state;
    snprintf(p, sizeof(p), "%s/none/out.svg", dir);
    assert_int_equal(outfile_open(&o, p), -ENOENT);
    assert_null(o.f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_file),
        cmocka_unit_test(test_replaces),
        cmocka_unit_test(test_symlink_refused),
        cmocka_unit_test(test_abort),
        cmocka_unit_test(test_no_directory),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
