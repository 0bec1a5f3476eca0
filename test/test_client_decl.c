/*
 * Unit tests for client/decl.c: the declaration in a field's help text, and
 * the element type of array declarations.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "decl.h"

static void test_from_help(void **state)
{
    (void)state;
    /* as src/names.c (tp_names_text) writes it */
    const char *help =
        "Field \"args\" of tracepoint raw_syscalls:sys_enter, declared\n"
        "    unsigned long args[6];    (offset 16, size 48)\n"
        "An array of 6 x 8 bytes.  Values appear only as a parameter of the\n"
        "event records of tracepoint.stream.records and tracepoint.records.\n"
        "The kernel prints the event as:\n    \"NR %ld (%lx, ...)\"";
    struct decl d;
    assert_int_equal(decl_from_help(help, &d), 0);
    assert_string_equal(d.text, "unsigned long args[6]");
    assert_int_equal(d.offset, 16);
    assert_int_equal(d.size, 48);

    assert_int_equal(decl_from_help("Field \"x\" of y, declared\n"
                                    "    __data_loc char[] name;    (offset 8, size 4)\n", &d), 0);
    assert_string_equal(d.text, "__data_loc char[] name");
    assert_int_equal(d.offset, 8);
    assert_int_equal(d.size, 4);
}

static void test_from_help_refused(void **state)
{
    (void)state;
    struct decl d;
    assert_int_equal(decl_from_help(NULL, &d), -1);
    assert_int_equal(decl_from_help("", &d), -1);
    assert_int_equal(decl_from_help("The PID of the task\n    that ran", &d), -1);
    assert_int_equal(decl_from_help("x\n    int a;    (offset x, size 4)", &d), -1);
    assert_int_equal(decl_from_help("x\n    int a\n;    (offset 1, size 4)", &d), -1);
    assert_int_equal(decl_from_help("x\n    ;    (offset 1, size 4)", &d), -1);
}

struct want { const char *decl; unsigned size; bool is_signed; };

static void test_elements(void **state)
{
    (void)state;
    static const struct want w[] = {
        { "unsigned long args[6]", 8, false },
        { "long args[6]", 8, true },
        { "long int a[2]", 8, true },
        { "unsigned long long a[2]", 8, false },
        { "long long a[2]", 8, true },
        { "s64 a[2]", 8, true }, { "u64 a[2]", 8, false }, { "__u64 a[2]", 8, false },
        { "int a[4]", 4, true }, { "unsigned int a[4]", 4, false },
        { "unsigned a[4]", 4, false }, { "signed a[4]", 4, true },
        { "u32 a[4]", 4, false }, { "s32 a[4]", 4, true }, { "pid_t a[4]", 4, true },
        { "short a[4]", 2, true }, { "unsigned short a[4]", 2, false },
        { "short int a[4]", 2, true }, { "u16 a[4]", 2, false }, { "s16 a[4]", 2, true },
        { "u8 a[4]", 1, false }, { "__u8 saddr[4]", 1, false }, { "s8 a[4]", 1, true },
        { "unsigned char a[6]", 1, false }, { "signed char a[6]", 1, true },
        { "char a[6]", 1, true },
        { "void * caller[4]", 8, false }, { "const char *names[2]", 8, false },
        { "__data_loc u8[] buf", 1, false },
        { "__data_loc unsigned long[] mask", 8, false },
        { "__rel_loc int[] v", 4, true },
        { "const u32 a[2]", 4, false },
        { "size_t a[2]", 8, false },
    };
    for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
        struct elem e = decl_element(w[i].decl);
        print_message("%s\n", w[i].decl);
        assert_int_equal(e.size, w[i].size);
        assert_int_equal(e.is_signed, w[i].is_signed);
    }
}

static void test_unknown_elements(void **state)
{
    (void)state;
    static const char *unknown[] = {
        "unsigned long arg",            /* not an array */
        "int a",
        "struct foo a[2]",
        "__be16 port[2]",
        "unknown_t a[2]",
        "unsigned signed a[2]",
        "short long a[2]",
        "long long long a[2]",
        "char int a[2]",
        "a[2]",
        "",
        "u8 a[2] 3",
    };
    for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
        print_message("%s\n", unknown[i]);
        assert_int_equal(decl_element(unknown[i]).size, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_from_help),
        cmocka_unit_test(test_from_help_refused),
        cmocka_unit_test(test_elements),
        cmocka_unit_test(test_unknown_elements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
