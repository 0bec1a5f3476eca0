/*
 * Unit tests for tp_render (src/render.c) and tp_ksyms (src/ksyms.c): %pS
 * and %ps in an event's text name the kernel function, and the module it
 * is in as the kernel prints it ("p9_fid_create+0x22 [9pnet]").  The
 * catalog is read from a made-up tracing directory holding one event with
 * two function addresses; the symbols are a made-up kallsyms text with
 * vmlinux and module symbols.
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

#include <asm/unistd.h>
#include <cmocka.h>

#include "tp_catalog.h"
#include "tp_ksyms.h"
#include "tp_render.h"
#include "tp_valname.h"
#include "tp_fake_tracefs.h"

static const char format[] =
    "name: kfunc\n"
    "ID: 401\n"
    "format:\n"
    TP_FAKE_COMMON_FIELDS
    "\n"
    "\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:void * function;\toffset:16;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned int bytes;\toffset:24;\tsize:4;\tsigned:0;\n"
    "\n"
    "print fmt: \"call_site=%pS function=%ps bytes=%u\", (void *)REC->call_site, "
    "REC->function, REC->bytes\n";

/* raw_syscalls' own formats, as this kernel has them. */
static const char sys_enter_format[] =
    "name: sys_enter\n"
    "ID: 402\n"
    "format:\n"
    TP_FAKE_COMMON_FIELDS
    "\n"
    "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n"
    "\n"
    "print fmt: \"NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)\", REC->id, REC->args[0], "
    "REC->args[1], REC->args[2], REC->args[3], REC->args[4], REC->args[5]\n";

static const char sys_exit_format[] =
    "name: sys_exit\n"
    "ID: 403\n"
    "format:\n"
    TP_FAKE_COMMON_FIELDS
    "\n"
    "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n"
    "\n"
    "print fmt: \"NR %ld = %ld\", REC->id, REC->ret\n";

/* A print format without arguments: the same text for every record. */
static const char tick_format[] =
    "name: tick\n"
    "ID: 404\n"
    "format:\n"
    TP_FAKE_COMMON_FIELDS
    "\n"
    "\tfield:int n;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\n"
    "print fmt: \"tick 100%%\"\n";

/* As /proc/kallsyms lists them: vmlinux first, sorted; then each module's. */
static const char kallsyms[] =
    "ffffffff81000000 T _stext\n"
    "ffffffff81234500 T __kmalloc\n"
    "ffffffff81234500 T __kmalloc_alias\n"
    "ffffffff81234600 t kmalloc_tail\n"
    "ffffffff81300000 t dup_name\n"
    "0000000000000000 A fixed_percpu_data\n"
    "ffffffffc0a01100 t p9_fid_destroy\t[9pnet]\n"
    "ffffffffc0a01000 t p9_fid_create\t[9pnet]\n"
    "ffffffffc0b02000 t v9fs_open\t[9p]\n"
    "ffffffffc0b02200 t v9fs_close\t[9p]\n"
    "ffffffffc0b03000 t dup_name\t[9p]\n"
    "ffffffffc0b04000 t v9fs_last\t[9p]\n";

struct fixture {
    char dir[64];
    struct tp_catalog *cat;
    struct tp_render *render;
    int event;
};

struct kfunc {
    uint16_t type;
    uint8_t flags, preempt;
    int32_t pid;
    uint64_t call_site, function;
    uint32_t bytes, pad;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    if (!f || tp_fake_tracefs(f->dir, "tprender") < 0)
        return -1;
    tp_fake_event(f->dir, "tpqa", "kfunc", format);
    tp_fake_event(f->dir, "raw_syscalls", "sys_enter", sys_enter_format);
    tp_fake_event(f->dir, "raw_syscalls", "sys_exit", sys_exit_format);
    tp_fake_event(f->dir, "tpqa", "tick", tick_format);
    if (tp_catalog_create(&f->cat, f->dir) < 0 ||
        (f->event = tp_catalog_find(f->cat, "tpqa", "kfunc")) < 0 ||
        tp_catalog_load(f->cat, (size_t)f->event) < 0 ||
        tp_render_create(&f->render, f->cat, f->dir) < 0 ||
        tp_render_load_symbols(f->render, kallsyms) < 0)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    tp_render_destroy(f->render);
    tp_catalog_destroy(f->cat);
    if (tp_fake_tracefs_remove(f->dir) < 0)
        return -1;
    free(f);
    return 0;
}

/* The text by the format's program, checked to be libtraceevent's (and its module marks). */
static const char *render(struct fixture *f, uint64_t call_site, uint64_t function)
{
    static char buf[TP_RENDER_MAX_TEXT];
    char engine[TP_RENDER_MAX_TEXT];
    struct kfunc rec = { .type = 401, .pid = 7, .call_site = call_site,
                         .function = function, .bytes = 64 };
    tp_render_use_programs(f->render, false);
    int n = tp_render_text(f->render, (uint32_t)f->event, &rec, sizeof(rec), 0, engine,
                           sizeof(engine));
    assert_true(n > 0);
    tp_render_use_programs(f->render, true);
    n = tp_render_text(f->render, (uint32_t)f->event, &rec, sizeof(rec), 0, buf, sizeof(buf));
    assert_true(n > 0);
    assert_int_equal((size_t)n, strlen(buf));
    assert_string_equal(buf, engine);
    return buf;
}

/* A function in a module carries its module, as the kernel's own text does. */
static void test_module_symbols(void **state)
{
    struct fixture *f = *state;
    assert_string_equal(render(f, 0xffffffffc0a01022, 0xffffffffc0b02010),
                        "call_site=p9_fid_create+0x22 [9pnet] function=v9fs_open [9p] bytes=64");
}

/* vmlinux functions have none; of two names at one address the first listed; no symbol: a number. */
static void test_kernel_symbols(void **state)
{
    struct fixture *f = *state;
    assert_string_equal(render(f, 0xffffffff81234510, 0xffffffff81234600),
                        "call_site=__kmalloc+0x10 function=kmalloc_tail bytes=64");
    assert_string_equal(render(f, 0xffffffff81234510, 0xffffffffc0a01100),
                        "call_site=__kmalloc+0x10 function=p9_fid_destroy [9pnet] bytes=64");
    assert_string_equal(render(f, 0x1000, 0xffffffffc0a01000),
                        "call_site=0x1000 function=p9_fid_create [9pnet] bytes=64");
    /* one name in vmlinux and in a module: each printed symbol gets its own */
    assert_string_equal(render(f, 0xffffffff81300004, 0xffffffffc0b03000),
                        "call_site=dup_name+0x4 function=dup_name [9p] bytes=64");
    assert_string_equal(render(f, 0xffffffffc0b03004, 0xffffffff81300000),
                        "call_site=dup_name+0x4 [9p] function=dup_name bytes=64");
}

struct sysrec {
    uint16_t type;
    uint8_t flags, preempt;
    int32_t pid;
    int64_t id;
    uint64_t args[6];
};

static const char *render_sys_in(struct fixture *f, const char *event, uint16_t type,
                                 int64_t id, uint64_t a0, size_t size)
{
    static char buf[TP_RENDER_MAX_TEXT];
    struct sysrec rec = { .type = type, .pid = 7, .id = id, .args = { a0, 2 } };
    int ev = tp_catalog_find(f->cat, "raw_syscalls", event);
    assert_true(ev >= 0);
    assert_int_equal(tp_catalog_load(f->cat, (size_t)ev), 0);
    int n = tp_render_text(f->render, (uint32_t)ev, &rec, sizeof(rec), 0, buf, size);
    assert_true(n > 0);
    assert_int_equal((size_t)n, strlen(buf));
    return buf;
}

static const char *render_sys(struct fixture *f, const char *event, uint16_t type,
                              int64_t id, uint64_t a0)
{
    return render_sys_in(f, event, type, id, a0, TP_RENDER_MAX_TEXT);
}

/* raw_syscalls name the syscall where trace-cmd prints its number. */
static void test_syscall_names(void **state)
{
    struct fixture *f = *state;
    if (!tp_valname_local_arch_ok())
        skip();
    assert_string_equal(render_sys(f, "sys_enter", 402, __NR_getpid, 0x10),
                        "NR getpid (10, 2, 0, 0, 0, 0)");
    assert_string_equal(render_sys(f, "sys_exit", 403, __NR_openat, 3), "NR openat = 3");
    assert_string_equal(render_sys(f, "sys_enter", 402, 4321, 0x10),
                        "NR 4321 (10, 2, 0, 0, 0, 0)");         /* no name: the number */
    assert_string_equal(render_sys(f, "sys_exit", 403, -1, (uint64_t)-38), "NR -1 = -38");
    /* cut short: the name cut as the text is, and a number that may be cut left a number */
    assert_string_equal(render_sys_in(f, "sys_enter", 402, __NR_getpid, 0x10, 10), "NR getpid");
    assert_string_equal(render_sys_in(f, "sys_enter", 402, __NR_getpid, 0x10, 7), "NR get");
    assert_string_equal(render_sys_in(f, "sys_enter", 402, __NR_getpid, 0x10, 6), "NR 39");
    assert_string_equal(render_sys_in(f, "sys_exit", 403, __NR_openat, 3, 14), "NR openat = 3");
    assert_string_equal(render_sys_in(f, "sys_exit", 403, __NR_openat, 3, 13), "NR openat = ");
    assert_string_equal(render_sys_in(f, "sys_exit", 403, __NR_openat, 3, 6), "NR 25");
}

/*
 * A format without arguments is made once and copied after: the same text
 * whatever the record holds, and a text cut short by a small buffer is not
 * the one kept.
 */
static void test_fixed_text(void **state)
{
    struct fixture *f = *state;
    struct { uint16_t type; uint8_t flags, preempt; int32_t pid, n; } rec = { .type = 404 };
    char small[5], buf[TP_RENDER_MAX_TEXT];
    int ev = tp_catalog_find(f->cat, "tpqa", "tick");
    assert_true(ev >= 0);
    assert_int_equal(tp_catalog_load(f->cat, (size_t)ev), 0);
    assert_int_equal(tp_render_text(f->render, (uint32_t)ev, &rec, sizeof(rec), 0, small,
                                    sizeof(small)), 4);
    assert_string_equal(small, "tick");
    for (int i = 0; i < 3; i++) {
        rec.pid = rec.n = i * 1000;
        assert_int_equal(tp_render_text(f->render, (uint32_t)ev, &rec, sizeof(rec), i, buf,
                                        sizeof(buf)), 9);
        assert_string_equal(buf, "tick 100%");
    }
    assert_int_equal(tp_render_text(f->render, (uint32_t)ev, &rec, sizeof(rec), 0, small,
                                    sizeof(small)), 4);
    assert_string_equal(small, "tick");
    /* one with arguments is made from each record, after a fixed one as before */
    assert_string_equal(render(f, 0xffffffff81234510, 0xffffffff81234600),
                        "call_site=__kmalloc+0x10 function=kmalloc_tail bytes=64");
    assert_string_equal(render(f, 0x1000, 0xffffffff81234600),
                        "call_site=0x1000 function=kmalloc_tail bytes=64");
}

/* The table itself: modules, ties, absolute symbols left out, the ends. */
static void test_ksyms_table(void **state)
{
    (void)state;
    struct tp_ksyms *k;
    struct tp_ksym s;
    char buf[128];
    assert_int_equal(tp_ksyms_create(&k, kallsyms), 0);
    assert_int_equal(tp_ksyms_count(k), 11);
    assert_true(tp_ksyms_find(k, 0xffffffffc0a010ff, &s));
    assert_string_equal(s.name, "p9_fid_create");
    assert_string_equal(s.module, "9pnet");
    assert_true(s.addr == 0xffffffffc0a01000);
    assert_true(tp_ksyms_find(k, 0xffffffff81234500, &s));
    assert_string_equal(s.name, "__kmalloc");
    assert_null(s.module);
    assert_false(tp_ksyms_find(k, 0xfffffffff0000000, &s));     /* beyond the last */
    assert_true(tp_ksyms_find(k, 0xffffffffc0b04000, &s));      /* the last itself */
    assert_false(tp_ksyms_find(k, 0x10, &s));
    tp_ksyms_format(k, 0xffffffffc0a01022, true, buf, sizeof(buf));
    assert_string_equal(buf, "p9_fid_create+0x22 [9pnet]");
    tp_ksyms_format(k, 0xffffffffc0a01022, false, buf, sizeof(buf));
    assert_string_equal(buf, "p9_fid_create [9pnet]");
    tp_ksyms_format(k, 0xffffffff81000001, true, buf, sizeof(buf));
    assert_string_equal(buf, "_stext+0x1");
    tp_ksyms_format(k, 0x10, true, buf, sizeof(buf));
    assert_string_equal(buf, "0x10");
    /* cut as snprintf cuts, the length it wanted returned */
    for (size_t cut = 1; cut <= 28; cut++) {
        char small[28];
        assert_int_equal(tp_ksyms_format(k, 0xffffffffc0a01022, true, small, cut), 26);
        assert_int_equal(strlen(small), cut - 1 < 26 ? cut - 1 : 26);
        assert_memory_equal(small, "p9_fid_create+0x22 [9pnet]", strlen(small));
    }
    assert_int_equal(tp_ksyms_format(k, 0x10, true, buf, 3), 4);
    assert_string_equal(buf, "0x");
    tp_ksyms_destroy(k);
    /* addresses hidden (kptr_restrict): nothing to tell apart */
    assert_int_equal(tp_ksyms_create(&k, "0000000000000000 T _stext\n"
                                         "0000000000000000 t x\t[m]\ngarbage\n"), 0);
    assert_int_equal(tp_ksyms_count(k), 0);
    assert_false(tp_ksyms_find(k, 0, &s));
    tp_ksyms_destroy(k);
    tp_ksyms_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_module_symbols),
        cmocka_unit_test(test_kernel_symbols),
        cmocka_unit_test(test_ksyms_table),
        cmocka_unit_test(test_syscall_names),
        cmocka_unit_test(test_fixed_text),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
