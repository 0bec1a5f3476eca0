/*
 * Unit tests of the probe spec parser (src/probespec.c): uprobe and kprobe
 * specs to their place and the kernel's fetchargs, on both architectures,
 * and the reason and errno of every kind of malformed spec.
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

#include <cmocka.h>

#include "tp_probespec.h"

#define U TP_PROBE_UPROBE
#define K TP_PROBE_KPROBE
#define X86 TP_ARCH_X86_64
#define ARM TP_ARCH_ARM64

/* Parses; on success, the fetchargs must be want_args. */
static void good(const char *text, enum tp_probe_kind kind, enum tp_probe_arch arch,
                 const char *want_args)
{
    struct tp_probe_spec s;
    char err[256] = "x";
    char *args = NULL;
    int rc = tp_probespec_parse(text, kind, arch, &s, err, sizeof(err));
    if (rc != 0)
        fail_msg("'%s': %d %s", text, rc, err);
    assert_string_equal(err, "");
    assert_int_equal(tp_probespec_fetchargs(&s, &args), 0);
    assert_string_equal(args, want_args);
    free(args);
    tp_probespec_free(&s);
}

static bool printable(const char *s)
{
    for (; *s; s++)
        if (*s < 0x20 || *s >= 0x7f)
            return false;
    return true;
}

/* Fails with code, and a printable reason holding want. */
static void bad(const char *text, enum tp_probe_kind kind, enum tp_probe_arch arch, int code,
                const char *want)
{
    struct tp_probe_spec s;
    static const struct tp_probe_spec empty;
    char err[256] = "";
    memset(&s, 0x5a, sizeof(s));
    int rc = tp_probespec_parse(text, kind, arch, &s, err, sizeof(err));
    if (rc != code || !strstr(err, want))
        fail_msg("'%.80s': %d (want %d) '%s' (want '%s')", text ? text : "(null)", rc, code,
                 err, want);
    assert_true(printable(err));
    assert_memory_equal(&s, &empty, sizeof(s));
    tp_probespec_free(&s);
}

static void test_uprobe_place(void **state)
{
    (void)state;
    struct tp_probe_spec s;
    char err[256];
    assert_int_equal(tp_probespec_parse("/usr/lib/x86_64-linux-gnu/libc.so.6:malloc", U, X86,
                                        &s, err, sizeof(err)), 0);
    assert_int_equal(s.kind, U);
    assert_string_equal(s.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
    assert_string_equal(s.symbol, "malloc");
    assert_int_equal(s.offset, 0);
    assert_false(s.is_return);
    assert_int_equal(s.nargs, 0);
    tp_probespec_free(&s);

    /* The last ':' splits; +OFFSET in hex, %return. */
    assert_int_equal(tp_probespec_parse("/opt/a:b/c:_ZN3foo3barEv+0x1c%return r=$retval", U,
                                        X86, &s, err, sizeof(err)), 0);
    assert_string_equal(s.path, "/opt/a:b/c");
    assert_string_equal(s.symbol, "_ZN3foo3barEv");
    assert_int_equal(s.offset, 0x1c);
    assert_true(s.is_return);
    assert_int_equal(s.nargs, 1);
    assert_string_equal(s.args[0].name, "r");
    assert_string_equal(s.args[0].fetch, "$retval");
    assert_null(s.args[0].type);
    tp_probespec_free(&s);
    tp_probespec_free(&s);                      /* twice: emptied the first time */
    tp_probespec_free(NULL);

    /* An address: a file offset, no symbol. */
    assert_int_equal(tp_probespec_parse("\t/bin/true:0x4a0F  ", U, TP_ARCH_NONE, &s, err,
                                        sizeof(err)), 0);
    assert_null(s.symbol);
    assert_int_equal(s.offset, 0x4a0f);
    tp_probespec_free(&s);
}

static void test_kprobe_place(void **state)
{
    (void)state;
    struct tp_probe_spec s;
    char err[256];
    assert_int_equal(tp_probespec_parse("do_sys_openat2+16", K, X86, &s, err, sizeof(err)), 0);
    assert_int_equal(s.kind, K);
    assert_null(s.path);
    assert_string_equal(s.symbol, "do_sys_openat2");
    assert_int_equal(s.offset, 16);
    tp_probespec_free(&s);
    assert_int_equal(tp_probespec_parse("vfs_read.cold%return", K, ARM, &s, err, sizeof(err)), 0);
    assert_string_equal(s.symbol, "vfs_read.cold");
    assert_true(s.is_return);
    tp_probespec_free(&s);
    assert_int_equal(tp_probespec_parse("0xffffffff81000000", K, ARM, &s, err, sizeof(err)), 0);
    assert_null(s.symbol);
    assert_int_equal(s.offset, 0xffffffff81000000ull);
    tp_probespec_free(&s);
}

static void test_fetchargs_x86_64(void **state)
{
    (void)state;
    good("/bin/bash:readline", U, X86, "");
    good("/lib/libc.so.6:open a=$arg1:string b=$arg2:s32 c=$arg3:x32 d=$arg4 e=$arg5 f=$arg6:u64",
         U, X86, "a=+0(%di):string b=%si:s32 c=%dx:x32 d=%cx e=%r8 f=%r9:u64");
    good("do_sys_openat2 dfd=$arg1:s32 name=+0($arg2):ustring how=+8($arg3):x64", K, X86,
         "dfd=%di:s32 name=+0(%si):ustring how=+8(%dx):x64");
    good("vfs_read%return ret=$retval:s64 who=$comm", K, X86, "ret=$retval:s64 who=$comm");
    good("f c=$comm:string s=$stack s3=$stack3:x64 s0=$stack0 ax=%ax:u8 r15=%r15", K, X86,
         "c=$comm:string s=$stack s3=$stack3:x64 s0=$stack0 ax=%ax:u8 r15=%r15");
    good("f p=-0x10(+0x8(%bp)):u16 q=+010(%di)", K, X86, "p=-16(+8(%bp)):u16 q=+10(%di)");
    good("f%return r=+0($retval):string", K, X86, "r=+0($retval):string");
}

static void test_fetchargs_arm64(void **state)
{
    (void)state;
    good("/usr/bin/python3:_PyEval_EvalFrameDefault a=$arg1 h=$arg8:x64 s=$arg2:string", U, ARM,
         "a=%x0 h=%x7:x64 s=+0(%x1):string");
    good("tcp_sendmsg sk=$arg1 size=$arg3:u64 b=+0(+16($arg2)):u8[16]", K, ARM,
         "sk=%x0 size=%x2:u64 b=+0(+16(%x1)):u8[16]");
    good("f x=%x30 sp=%sp:x64 pc=%pc", K, ARM, "x=%x30 sp=%sp:x64 pc=%pc");
}

static void test_types(void **state)
{
    (void)state;
    static const char *const types[] = {
        "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64",
        "x8", "x16", "x32", "x64", "string", "ustring",
    };
    char text[128], want[128];
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        snprintf(text, sizeof(text), "f v=+4(%%di):%s", types[i]);
        snprintf(want, sizeof(want), "v=+4(%%di):%s", types[i]);
        good(text, K, X86, want);
    }
    good("f a=+0(%di):x8[1] b=+0(%si):s64[64] c=%dx:u32[4]", K, X86,
         "a=+0(%di):x8[1] b=+0(%si):s64[64] c=+0(%dx):u32[4]");
    bad("f a=%di:u8[0]", K, X86, -EINVAL, "unknown type");
    bad("f a=%di:u8[65]", K, X86, -EINVAL, "count 1..64");
    bad("f a=%di:u8[016]", K, X86, -EINVAL, "unknown type");
    bad("f a=%di:u8[]", K, X86, -EINVAL, "unknown type");
    bad("f a=%di:u8[4", K, X86, -EINVAL, "unknown type");
    bad("f a=%di:string[4]", K, X86, -EINVAL, "unknown type");
    bad("f a=%di:[4]", K, X86, -EINVAL, "unknown type");
    bad("f a=%di:int", K, X86, -EINVAL, "'a=%di:int': unknown type");
    bad("f a=%di:S32", K, X86, -EINVAL, "unknown type");
    bad("f a=%di:", K, X86, -EINVAL, "nothing after ':'");
    bad("f a=%di:u8:u8", K, X86, -EINVAL, "unknown type");
    /* $comm: no type or string; memory types need memory. */
    bad("f c=$comm:ustring", K, X86, -EINVAL, "$comm takes no type or string");
    bad("f c=$comm:u32", K, X86, -EINVAL, "$comm takes no type or string");
    bad("f%return r=$retval:string", K, X86, -EINVAL, "+0($retval)");
    bad("f s=$stack2:ustring", K, X86, -EINVAL, "dereference it");
    bad("f s=$stack:u8[4]", K, X86, -EINVAL, "dereference it");
    bad("f c=+0($comm):string", K, X86, -EINVAL, "$comm cannot be dereferenced");
}

static void test_argn(void **state)
{
    (void)state;
    bad("f a=$arg1", K, TP_ARCH_NONE, -ENOTSUP, "no register mapping");
    bad("/x:f a=+0($arg1):string", U, TP_ARCH_NONE, -ENOTSUP, "no register mapping");
    bad("f a=$arg7", K, X86, -ENOTSUP, "beyond the 6 argument registers of x86_64");
    bad("f a=$arg9", K, ARM, -ENOTSUP, "beyond the 8 argument registers of arm64");
    bad("f a=$arg99999999999999999999", K, X86, -ENOTSUP, "beyond");
    bad("f a=$arg0", K, X86, -EINVAL, "bad $argN");
    bad("f a=$arg01", K, X86, -EINVAL, "bad $argN");
    bad("f a=$arg", K, X86, -EINVAL, "bad $argN");
    bad("f a=$argx", K, X86, -EINVAL, "bad $argN");
    bad("f%return a=$arg1", K, X86, -EINVAL, "$argN on a %return probe");
    good("f a=%di", K, TP_ARCH_NONE, "a=%di");            /* registers need no mapping */
    enum tp_probe_arch host = tp_probe_host_arch();
#if defined(__x86_64__)
    assert_int_equal(host, X86);
#elif defined(__aarch64__)
    assert_int_equal(host, ARM);
#else
    assert_int_equal(host, TP_ARCH_NONE);
#endif
}

static void test_retval(void **state)
{
    (void)state;
    bad("vfs_read r=$retval", K, X86, -EINVAL, "$retval needs a %return probe");
    bad("/bin/sh:main r=+0($retval):string", U, X86, -EINVAL, "$retval needs a %return probe");
    good("/bin/sh:main%return r=+0($retval):string", U, X86, "r=+0($retval):string");
}

static void test_fetch_syntax(void **state)
{
    (void)state;
    good("f a=+0(+0(+0(+0(%di))))", K, X86, "a=+0(+0(+0(+0(%di))))");
    bad("f a=+0(+0(+0(+0(+0(%di)))))", K, X86, -EINVAL, "nested deeper than 4");
    bad("f a=0(%di)", K, X86, -EINVAL, "unknown fetcharg");
    bad("f a=+(%di)", K, X86, -EINVAL, "bad dereference offset");
    bad("f a=+0x(%di)", K, X86, -EINVAL, "bad dereference offset");
    bad("f a=+9223372036854775808(%di)", K, X86, -EINVAL, "bad dereference offset");
    good("f a=-9223372036854775807(%di)", K, X86, "a=-9223372036854775807(%di)");
    bad("f a=+0(%di", K, X86, -EINVAL, "bad dereference");
    bad("f a=+0(%di)x", K, X86, -EINVAL, "bad dereference");
    bad("f a=+0()", K, X86, -EINVAL, "empty fetcharg");
    bad("f a=+0(%di)(%si)", K, X86, -EINVAL, "bad register");
    bad("f a=%DI", K, X86, -EINVAL, "bad register");
    bad("f a=%", K, X86, -EINVAL, "bad register");
    bad("f a=%abcdefghi", K, X86, -EINVAL, "bad register");
    good("f a=%abcdefgh", K, X86, "a=%abcdefgh");
    bad("f a=$foo", K, X86, -EINVAL, "unknown variable");
    bad("f a=$stack2048", K, X86, -EINVAL, "bad $stackN");
    bad("f a=$stack01", K, X86, -EINVAL, "bad $stackN");
    good("f a=$stack2047", K, X86, "a=$stack2047");
    bad("f a=$retvalx", K, X86, -EINVAL, "unknown variable");
    bad("f a=@sym", K, X86, -EINVAL, "unknown fetcharg");
}

static void test_names(void **state)
{
    (void)state;
    assert_true(tp_probe_name_ok("a"));
    assert_true(tp_probe_name_ok("_x9"));
    assert_true(tp_probe_name_ok("abcdefghijklmnopqrstuvwxyz012345"));      /* 32 */
    assert_false(tp_probe_name_ok("abcdefghijklmnopqrstuvwxyz0123456"));    /* 33 */
    assert_false(tp_probe_name_ok(""));
    assert_false(tp_probe_name_ok(NULL));
    assert_false(tp_probe_name_ok("9a"));
    assert_false(tp_probe_name_ok("a-b"));
    assert_false(tp_probe_name_ok("a.b"));
    bad("f 9a=%di", K, X86, -EINVAL, "'9a=%di': bad argument name");
    bad("f =%di", K, X86, -EINVAL, "bad argument name");
    bad("f abcdefghijklmnopqrstuvwxyz0123456=%di", K, X86, -EINVAL, "bad argument name");
    bad("f common_pid=%di", K, X86, -EINVAL, "the kernel's");
    bad("f __probe_ip=%di", K, X86, -EINVAL, "the kernel's");
    good("f _probe=%di common=%si", K, X86, "_probe=%di common=%si");
    bad("f a=%di b=%si a=%dx", K, X86, -EINVAL, "'a=%dx': argument name used twice");
    bad("f a", K, X86, -EINVAL, "'a': an argument is NAME=FETCHARG");
    bad("f a=", K, X86, -EINVAL, "'a=': nothing after '='");
    bad("f a=:u8", K, X86, -EINVAL, "nothing after '='");
}

static void test_place_errors(void **state)
{
    (void)state;
    bad("bash:readline", U, X86, -EINVAL, "the path is not absolute");
    bad(":readline", U, X86, -EINVAL, "the path is not absolute");
    bad("/bin/bash", U, X86, -EINVAL, "a uprobe is PATH:SYMBOL");
    bad("/bin/bash:", U, X86, -EINVAL, "no symbol");
    bad("/bin/bash:9lives", U, X86, -EINVAL, "bad symbol");
    bad("/bin/bash:a-b", U, X86, -EINVAL, "bad symbol");
    bad("/bin/bash:0x", U, X86, -EINVAL, "bad address");
    bad("/bin/bash:0x12g", U, X86, -EINVAL, "bad address");
    bad("/bin/bash:0x10000000000000000", U, X86, -EINVAL, "bad address");
    bad("/bin/bash:0x10+4", U, X86, -EINVAL, "+OFFSET after a symbol only");
    bad("/bin/bash:main+", U, X86, -EINVAL, "bad +OFFSET");
    bad("/bin/bash:main+0x", U, X86, -EINVAL, "bad +OFFSET");
    bad("/bin/bash:main+4+4", U, X86, -EINVAL, "bad +OFFSET");
    bad("/bin/bash:main+18446744073709551616", U, X86, -EINVAL, "bad +OFFSET");
    good("/bin/bash:main+18446744073709551615", U, X86, "");
    bad("/bin/bash:main%ret", U, X86, -EINVAL, "unknown suffix");
    bad("/bin/bash:main%return%return", U, X86, -EINVAL, "duplicate %return");
    bad("main%return%return", K, X86, -EINVAL, "'main%return%return': duplicate %return");
    bad("main%returnx", K, X86, -EINVAL, "junk after %return");
    bad("main%return+4", K, X86, -EINVAL, "junk after %return");
    bad("mod:main", K, X86, -EINVAL, "bad symbol");
    bad("/bin/bash:main", K, X86, -EINVAL, "bad symbol");
    bad("", K, X86, -EINVAL, "empty probe spec");
    bad(" \t ", U, X86, -EINVAL, "empty probe spec");
    bad(NULL, U, X86, -EINVAL, "no probe spec");
    bad("main", (enum tp_probe_kind)7, X86, -EINVAL, "unknown probe kind");

    char sym[300] = "/x:";
    memset(sym + 3, 's', 256);
    bad(sym, U, X86, -EINVAL, "longer than 255 bytes");
    sym[3 + 255] = '\0';
    good(sym, U, X86, "");
}

static void test_limits(void **state)
{
    (void)state;
    char text[TP_PROBE_SPEC_MAX + 64];
    /* 1024 bytes parse; 1025 do not. */
    memset(text, '\0', sizeof(text));
    memcpy(text, "/", 1);
    memset(text + 1, 'p', TP_PROBE_SPEC_MAX - 6);
    memcpy(text + TP_PROBE_SPEC_MAX - 5, ":main", 5);
    assert_int_equal(strlen(text), TP_PROBE_SPEC_MAX);
    good(text, U, X86, "");
    memmove(text + 1, text, TP_PROBE_SPEC_MAX + 1);
    text[0] = '/';
    bad(text, U, X86, -E2BIG, "longer than 1024 bytes");

    /* 16 arguments parse; 17 do not. */
    strcpy(text, "f");
    for (int i = 0; i < TP_PROBE_MAX_ARGS; i++)
        snprintf(text + strlen(text), sizeof(text) - strlen(text), " a%d=%%di", i);
    struct tp_probe_spec s;
    char err[256];
    assert_int_equal(tp_probespec_parse(text, K, X86, &s, err, sizeof(err)), 0);
    assert_int_equal(s.nargs, TP_PROBE_MAX_ARGS);
    tp_probespec_free(&s);
    strcat(text, " a16=%si");
    bad(text, K, X86, -E2BIG, "17 arguments (at most 16)");
}

static void test_controls_and_reasons(void **state)
{
    (void)state;
    bad("f a=%di\n", K, X86, -EINVAL, "control character 0x0a at byte 7");
    bad("f\ra=%di", K, X86, -EINVAL, "control character 0x0d");
    bad("/bin/\x7f:main", U, X86, -EINVAL, "control character 0x7f");
    bad("f a=\x1b[31m", K, X86, -EINVAL, "control character 0x1b");
    /* Non-ASCII bytes: fine in a path, shown as '?' elsewhere. */
    good("/home/\xc3\xa9t\xc3\xa9/a.out:main", U, X86, "");
    bad("f \xc3\xa9=%di", K, X86, -EINVAL, "'?" "?=%di': bad argument name");
    /* A long word is cut to 64 bytes in the reason. */
    char text[200] = "f a=%di:";
    memset(text + 8, 'q', 150);
    struct tp_probe_spec s;
    char err[256];
    assert_int_equal(tp_probespec_parse(text, K, X86, &s, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "'a=%di:qqq"));
    assert_non_null(strstr(err, "qqq...': unknown type"));
    assert_true(strlen(err) < 64 + 200);
    /* A short error buffer: cut, terminated, nothing written past it. */
    char small[12];
    memset(small, 'Z', sizeof(small));
    assert_int_equal(tp_probespec_parse("f a=$foo", K, X86, &s, small, 8), -EINVAL);
    assert_int_equal(strlen(small), 7);
    assert_int_equal(small[8], 'Z');
    assert_int_equal(tp_probespec_parse("f a=$foo", K, X86, &s, small, 0), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uprobe_place),
        cmocka_unit_test(test_kprobe_place),
        cmocka_unit_test(test_fetchargs_x86_64),
        cmocka_unit_test(test_fetchargs_arm64),
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_argn),
        cmocka_unit_test(test_retval),
        cmocka_unit_test(test_fetch_syntax),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_place_errors),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_controls_and_reasons),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
