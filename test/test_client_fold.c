/*
 * Unit tests for client/fold.c: folded keys (outermost frame first, offsets
 * stripped, modules kept, ';' and control characters in comm and frames,
 * the no-stack line), merging of equal stacks, byte-order sorting, and
 * folded input ("KEY N", split at the last blank), and no allocation per
 * event for a stack seen before.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"

static char key[FOLD_KEY_MAX];

/* The mallocs of the client's rooms (linked with -Wl,--wrap=malloc). */
static unsigned long mallocs;
void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_malloc(size_t size)
{
    mallocs++;
    return __real_malloc(size);
}

static const char *fold(const char *comm, const char *stack)
{
    int n = fold_key(key, sizeof(key), comm, stack, stack ? strlen(stack) : 0);
    assert_true(n >= 0);
    assert_int_equal((size_t)n, strlen(key));
    return key;
}

static void test_order_and_offsets(void **state)
{
    (void)state;
    assert_string_equal(fold("cat", "ksys_read+0x73\n__x64_sys_read+0x19\n"
                             "do_syscall_64+0x82\nentry_SYSCALL_64_after_hwframe+0x76"),
                        "cat;entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_read;"
                        "ksys_read");
    /* the kernel's +off/size form, names with dots, an address */
    assert_string_equal(fold("a", "vfs_read.part.0+0x1a/0x2c0\n0xffffffff8100abcd"),
                        "a;0xffffffff8100abcd;vfs_read.part.0");
    /* modules kept, after the name with no space, as the PMDA's by-stack keys */
    assert_string_equal(fold("dd", "ext4_file_write_iter+0x22 [ext4]\nvfs_write+0x10"),
                        "dd;vfs_write;ext4_file_write_iter[ext4]");
    /* a '+' that is not an offset stays */
    assert_string_equal(fold("x", "a+b\nc+0xzz\nd+0x1f"), "x;d;c+0xzz;a+b");
    /* blank lines and a trailing newline: no empty frames */
    assert_string_equal(fold("x", "\nf+0x1\n\n g+0x2 \n"), "x;g;f");
}

static void test_no_stack_and_names(void **state)
{
    (void)state;
    assert_string_equal(fold("sh", NULL), "sh;[no stack]");
    assert_string_equal(fold("sh", ""), "sh;[no stack]");
    assert_string_equal(fold("sh", "\n\n"), "sh;[no stack]");
    assert_string_equal(fold(NULL, "f+0x1"), "<...>;f");
    /* ';' and control characters would split frames and lines */
    assert_string_equal(fold("a;b c\td", "f;g+0x1"), "a_b c_d;f_g");
    assert_string_equal(fold("kworker/0:1", "f"), "kworker/0:1;f");
}

static void test_too_long(void **state)
{
    char small[8];
    (void)state;
    assert_int_equal(fold_key(small, sizeof(small), "commxx", "f", 1), -E2BIG);
    assert_int_equal(fold_key(small, sizeof(small), "co", "f", 1), 4);
    assert_string_equal(small, "co;f");
}

static char out[65536];

static const char *print(const struct folds *f)
{
    out[0] = '\0';
    FILE *fp = fmemopen(out, sizeof(out), "w");
    assert_non_null(fp);
    assert_int_equal(folds_print(f, fp), 0);
    fclose(fp);
    return out;
}

static void test_merge_and_sort(void **state)
{
    struct folds *f = calloc(1, sizeof(*f));
    (void)state;
    assert_non_null(f);
    assert_int_equal(fold_stack(f, "b", "g+0x1\nf+0x2", 11), 0);
    assert_int_equal(fold_stack(f, "a", "g+0x9\nf+0x3", 11), 0);
    assert_int_equal(fold_stack(f, "b", "g+0x5\nf+0x7", 11), 0);     /* other offsets: same */
    assert_int_equal(fold_stack(f, "b", NULL, 0), 0);
    assert_int_equal(fold_stack(f, "b", "h+0x1\nf+0x2", 11), 0);
    assert_int_equal(fold_stack(f, "a b", "f", 1), 0);
    assert_int_equal(f->total, 6);
    assert_int_equal(f->distinct, 5);
    assert_string_equal(print(f), "a b;f 1\n"
                                  "a;f;g 1\n"
                                  "b;[no stack] 1\n"
                                  "b;f;g 2\n"
                                  "b;f;h 1\n");
    folds_free(f);
    assert_int_equal(f->distinct, 0);
    assert_string_equal(print(f), "");
    folds_free(f);
    free(f);
    folds_free(NULL);
}

static void test_parse(void **state)
{
    struct folds *f = calloc(1, sizeof(*f));
    (void)state;
    assert_non_null(f);
    assert_int_equal(folds_parse_line(f, "a;b;c 3\n"), 0);
    assert_int_equal(folds_parse_line(f, "a;b c;d 2"), 0);  /* a space in a frame */
    assert_int_equal(folds_parse_line(f, "a;b;c 4\r\n"), 0);
    assert_int_equal(folds_parse_line(f, "\n"), 0);
    assert_int_equal(folds_parse_line(f, "a;b;c"), -EINVAL);
    assert_int_equal(folds_parse_line(f, "a;b;c x"), -EINVAL);
    assert_int_equal(folds_parse_line(f, "a;b;c 3x"), -EINVAL);
    assert_int_equal(folds_parse_line(f, " 3"), -EINVAL);
    assert_int_equal(folds_parse_line(f, "a 99999999999999999999999"), -EINVAL);
    assert_int_equal(f->total, 9);
    assert_string_equal(print(f), "a;b c;d 2\na;b;c 7\n");

    char text[] = "x;y 1\n\nx;y 2\nbad\n";
    size_t line;
    FILE *in = fmemopen(text, strlen(text), "r");
    assert_int_equal(folds_read(f, in, &line), -EINVAL);
    assert_int_equal(line, 4);
    fclose(in);
    assert_int_equal(f->total, 12);
    folds_free(f);
    free(f);
}

/* A stack seen before is counted with no allocation: one key buffer for all. */
static void test_no_malloc_per_event(void **state)
{
    struct folds f = { 0 };
    const char *stack = " => vfs_read+0x12/0x40\n => ksys_read+0x73\n";
    (void)state;
    assert_int_equal(fold_stack(&f, "sh", stack, strlen(stack)), 0);
    mallocs = 0;
    for (int i = 0; i < 1000; i++)
        assert_int_equal(fold_stack(&f, "sh", stack, strlen(stack)), 0);
    assert_int_equal(mallocs, 0);
    assert_int_equal(f.distinct, 1);
    assert_int_equal(f.total, 1001);
    folds_free(&f);
    folds_free(&f);             /* again: nothing left to free */
    folds_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_offsets),
        cmocka_unit_test(test_no_stack_and_names),
        cmocka_unit_test(test_too_long),
        cmocka_unit_test(test_merge_and_sort),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_no_malloc_per_event),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
