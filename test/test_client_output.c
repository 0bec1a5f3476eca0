/*
 * Unit tests for client/output.c's text lines on stdout: the lines it
 * holds come out whole and in order at printer_flush, however many there
 * are (past the point where it writes them without a flush), with a LOST
 * line and a stack's frames in their places among them.  Each test's
 * stdout (fd 1) is a file, read back after printer_flush.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pcp/pmapi.h>

#include "output.h"

#define T0 1795977770154307221ull       /* 2026-11-29 18:42:50.154307221 UTC */

static char path[] = "/tmp/test_client_output.XXXXXX";

struct fixture {
    int saved_stdout;           /* fd 1 goes to path for the test, then back */
    struct params ps;
    struct printer pr;
    struct param pidp, cpup;
    pmValueSet cpu, pid, text;
    union { pmValueBlock vb; char b[64]; } tb;
    struct common c;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    int fd = open(path, O_WRONLY | O_TRUNC);
    fflush(stdout);             /* cmocka's own lines stay where they were going */
    if (f == NULL || fd < 0 || (f->saved_stdout = dup(1)) < 0 || dup2(fd, 1) < 0)
        return -1;
    close(fd);
    f->pr.params = &f->ps;
    f->pidp = (struct param){ .type = PM_TYPE_32, .role = PID };
    f->cpup = (struct param){ .type = PM_TYPE_U32, .role = CPU };
    f->cpu = (pmValueSet){ .numval = 1, .valfmt = PM_VAL_INSITU };
    f->pid = f->cpu;
    f->text = (pmValueSet){ .numval = 1, .valfmt = PM_VAL_DPTR };
    f->tb.vb.vtype = PM_TYPE_STRING;
    f->tb.vb.vlen = PM_VAL_HDR_SIZE + 6;
    memcpy(f->tb.vb.vbuf, "fd: 3", 6);
    f->text.vlist[0].value.pval = &f->tb.vb;
    f->c.event = "syscalls:sys_enter_close";
    f->c.event_len = strlen(f->c.event);
    strcpy(f->c.comm, "tpqa");
    f->c.has_comm = true;
    f->c.cpu = &f->cpu;
    f->c.cpu_param = &f->cpup;
    f->c.pid = &f->pid;
    f->c.pid_param = &f->pidp;
    f->c.text = &f->text;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    fflush(stdout);
    dup2(f->saved_stdout, 1);
    close(f->saved_stdout);
    printer_free(&f->pr);
    free(f);
    return 0;
}

/* The event i of a run: CPU i % 2, pid 100 + i, i microseconds after T0. */
static void event(struct fixture *f, int i)
{
    struct record r = { 0 };
    f->cpu.vlist[0].value.lval = i % 2;
    f->pid.vlist[0].value.lval = 100 + i;
    f->c.time_ns = T0 + (uint64_t)i * 1000;
    assert_int_equal(output_event(&f->pr, &f->c, &r), 0);
}

/* HH:MM:SS.nnnnnnnnn of ns, in UTC (the test's TZ). */
static const char *clock_text(uint64_t ns)
{
    static char buf[32];
    time_t sec = (time_t)(ns / 1000000000);
    struct tm tm;
    gmtime_r(&sec, &tm);
    snprintf(buf, sizeof(buf), "%02d:%02d:%02d.%09u", tm.tm_hour, tm.tm_min, tm.tm_sec,
             (unsigned)(ns % 1000000000));
    return buf;
}

/* Its line, as it must appear. */
static int expect_event(char *buf, size_t size, int i)
{
    return snprintf(buf, size, "%s [%03d] tpqa-%d syscalls:sys_enter_close: fd: 3\n",
                    clock_text(T0 + (uint64_t)i * 1000), i % 2, 100 + i);
}

/* What stdout holds once flushed (caller frees). */
static char *written(struct fixture *f)
{
    bool closed = false;
    assert_int_equal(printer_flush(&f->pr, &closed), 0);
    assert_false(closed);
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    fseek(in, 0, SEEK_END);
    long n = ftell(in);
    rewind(in);
    char *s = calloc(1, (size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, in), (size_t)n);
    fclose(in);
    return s;
}

/* n events, with a LOST line after event lost_after; the text expected of it. */
static char *run(struct fixture *f, int n, int lost_after, size_t *len)
{
    size_t size = (size_t)n * 96 + 96, at = 0;
    char *want = malloc(size);
    assert_non_null(want);
    for (int i = 0; i < n; i++) {
        event(f, i);
        at += (size_t)expect_event(want + at, size - at, i);
        if (i == lost_after) {
            output_lost(&f->pr, 7, T0 + (uint64_t)i * 1000 + 1);
            at += (size_t)snprintf(want + at, size - at, "%s LOST 7 events\n",
                                   clock_text(T0 + (uint64_t)i * 1000 + 1));
        }
    }
    *len = at;
    return want;
}

static void test_lost_between_lines(void **state)
{
    struct fixture *f = *state;
    size_t len;
    char *want = run(f, 3, 1, &len), *got = written(f);
    assert_string_equal(got, want);
    free(want);
    free(got);
}

/* Past 64 KiB of lines: written on the way, still whole and in order. */
static void test_many_lines(void **state)
{
    struct fixture *f = *state;
    size_t len;
    char *want = run(f, 5000, 2500, &len), *got = written(f);
    assert_true(len > 4 * 64 * 1024);
    assert_int_equal(strlen(got), len);
    assert_string_equal(got, want);
    free(want);
    free(got);
}

/* With -g, an event's frames follow its own line, before the next event's. */
static void test_stack_after_its_line(void **state)
{
    struct fixture *f = *state;
    char want[512], line[128];
    f->pr.stack = true;
    event(f, 0);
    f->c.stack = "do_close+0x10\nx64_sys_call+0x20";
    f->c.stack_len = strlen(f->c.stack);
    event(f, 1);
    f->c.stack = NULL;
    event(f, 2);
    expect_event(want, sizeof(want), 0);
    expect_event(line, sizeof(line), 1);
    strcat(want, line);
    strcat(want, " => do_close+0x10\n => x64_sys_call+0x20\n");
    expect_event(line, sizeof(line), 2);
    strcat(want, line);
    char *got = written(f);
    assert_string_equal(got, want);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_lost_between_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stack_after_its_line, setup, teardown),
    };
    setenv("TZ", "UTC", 1);
    tzset();
    int fd = mkstemp(path);
    if (fd < 0)
        return 1;
    close(fd);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    unlink(path);
    return rc;
}
