/*
 * Unit tests for tp_valname (src/valname.c): the build's syscall table,
 * numbers without a name, which fields are named, and dev_t as MAJ:MIN
 * with a device's name from a directory of links.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <asm/unistd.h>
#include <cmocka.h>

#include "tp_valname.h"

static void test_syscall_table(void **state)
{
    (void)state;
    assert_string_equal(tp_syscall_name(__NR_getpid), "getpid");
    assert_string_equal(tp_syscall_name(__NR_openat), "openat");
    assert_string_equal(tp_syscall_name(__NR_read), "read");
    assert_null(tp_syscall_name(-1));
    assert_null(tp_syscall_name(100000));
    assert_null(tp_syscall_name(INT64_MIN));
}

static void test_put_syscall(void **state)
{
    (void)state;
    char out[TP_VALNAME_MAX];
    assert_int_equal(tp_valname_put(TP_SHOWN_SYSCALL, __NR_getpid, true, NULL, "", out,
                                    sizeof(out)), 6);
    assert_string_equal(out, "getpid");
    tp_valname_put(TP_SHOWN_SYSCALL, 4321, true, NULL, "", out, sizeof(out));
    assert_string_equal(out, "4321");               /* no name: the number */
    tp_valname_put(TP_SHOWN_SYSCALL, (uint64_t)-1, true, NULL, "", out, sizeof(out));
    assert_string_equal(out, "-1");
    tp_valname_put(TP_SHOWN_NUMBER, __NR_getpid, true, NULL, "", out, sizeof(out));
    char want[32];
    snprintf(want, sizeof(want), "%d", __NR_getpid);
    assert_string_equal(out, want);
    tp_valname_put(TP_SHOWN_NUMBER, (uint64_t)-1, false, NULL, "", out, sizeof(out));
    assert_string_equal(out, "18446744073709551615");
    char small[4];
    tp_valname_put(TP_SHOWN_SYSCALL, __NR_getpid, true, NULL, "", small, sizeof(small));
    assert_string_equal(small, "get");              /* cut to fit */
}

static void test_shown(void **state)
{
    (void)state;
    assert_int_equal(tp_valname_shown("raw_syscalls", "id", "long id", true), TP_SHOWN_SYSCALL);
    assert_int_equal(tp_valname_shown("syscalls", "__syscall_nr", "int __syscall_nr", true),
                     TP_SHOWN_SYSCALL);
    assert_int_equal(tp_valname_shown("raw_syscalls", "id", "long id", false), TP_SHOWN_NUMBER);
    assert_int_equal(tp_valname_shown("sched", "id", "long id", true), TP_SHOWN_NUMBER);
    assert_int_equal(tp_valname_shown("syscalls", "fd", "unsigned int fd", true),
                     TP_SHOWN_NUMBER);
    assert_int_equal(tp_valname_shown("block", "dev", "dev_t dev", false), TP_SHOWN_DEV);
    assert_int_equal(tp_valname_shown("ext4", "dev", "dev_t dev", true), TP_SHOWN_DEV);
    assert_int_equal(tp_valname_shown("block", "devx", "dev_tx devx", true), TP_SHOWN_NUMBER);
    assert_true(tp_valname_arch_ok(tp_valname_arch()));
    assert_false(tp_valname_arch_ok("no-such-arch"));
    assert_false(tp_valname_arch_ok(NULL));
}

static void test_dev(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_valname.XXXXXX", link[128], out[TP_VALNAME_MAX];
    assert_non_null(mkdtemp(dir));
    snprintf(link, sizeof(link), "%s/254:0", dir);
    assert_int_equal(symlink("../../devices/pci0000:00/virtio1/block/vda", link), 0);
    uint64_t vda = (254u << 20) | 0, big = (259u << 20) | 0xfffff;
    assert_int_equal(tp_dev_major(vda), 254);
    assert_int_equal(tp_dev_minor(big), 0xfffff);
    tp_valname_put(TP_SHOWN_DEV, vda, false, dir, " ", out, sizeof(out));
    assert_string_equal(out, "254:0 (vda)");
    tp_valname_put(TP_SHOWN_DEV, vda, false, dir, "", out, sizeof(out));
    assert_string_equal(out, "254:0(vda)");
    tp_valname_put(TP_SHOWN_DEV, vda, false, NULL, " ", out, sizeof(out));
    assert_string_equal(out, "254:0");              /* no names looked up */
    tp_valname_put(TP_SHOWN_DEV, big, false, dir, " ", out, sizeof(out));
    assert_string_equal(out, "259:1048575");        /* no such device: the numbers */
    tp_valname_put(TP_SHOWN_DEV, 266338304, false, NULL, " ", out, sizeof(out));
    assert_string_equal(out, "254:0");              /* the dev=266338304 */
    unlink(link);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_syscall_table),
        cmocka_unit_test(test_put_syscall),
        cmocka_unit_test(test_shown),
        cmocka_unit_test(test_dev),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
