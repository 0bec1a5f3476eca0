/*
 * Unit tests for src/config.c (the tracepoint.conf parser).
 *
 * Every parse goes through a heap copy of exactly the bytes under test, with
 * no terminating NUL, so AddressSanitizer or valgrind catch a read past the
 * end.  Rejections are recorded as (line, reason) pairs and asserted on.
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
#include <sys/stat.h>
#include <unistd.h>

#include "tp_config.h"
#include "tp_records.h"

#define MAX_LOG     64
#define MAX_FILES   8
#define MIB         ((size_t)1 << 20)

struct log_entry {
    int line;
    char reason[600];
};

struct log_rec {
    size_t n;
    size_t dropped;
    struct log_entry e[MAX_LOG];
};

struct fixture {
    struct tp_config cfg;
    struct log_rec log;
    char dir[64];                       /* temporary directory, if made */
    char files[MAX_FILES][128];         /* files to remove at teardown */
    size_t nfiles;
};

/* ---------------------------------------------------------------- helpers */

static void record(void *arg, int line, const char *reason)
{
    struct log_rec *rec = arg;

    if (rec->n == MAX_LOG) {
        rec->dropped++;
        return;
    }
    rec->e[rec->n].line = line;
    snprintf(rec->e[rec->n].reason, sizeof rec->e[rec->n].reason, "%s", reason);
    rec->n++;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);

    if (!f)
        return -1;
    tp_config_init(&f->cfg);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    tp_config_free(&f->cfg);
    for (size_t i = 0; i < f->nfiles; i++)
        unlink(f->files[i]);
    if (f->dir[0])
        rmdir(f->dir);
    free(f);
    return 0;
}

/* Back to a fresh cfg and an empty log (for table-driven tests). */
static void reset(struct fixture *f)
{
    tp_config_free(&f->cfg);
    tp_config_init(&f->cfg);
    memset(&f->log, 0, sizeof f->log);
}

static int parse_n(struct fixture *f, const char *text, size_t len)
{
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, text, len);
    int rc = tp_config_parse(&f->cfg, copy, len, record, &f->log);
    free(copy);
    return rc;
}

static int parse(struct fixture *f, const char *text)
{
    return parse_n(f, text, strlen(text));
}

static void parse_ok(struct fixture *f, const char *text)
{
    int rc = parse(f, text);
    if (rc != 0)
        fail_msg("parse of \"%s\" returned %d; first report: line %d: %s",
                 text, rc, f->log.n ? f->log.e[0].line : 0,
                 f->log.n ? f->log.e[0].reason : "(none)");
}

/* The i-th report is for `line` and its reason contains `needle`. */
static void assert_report(const struct fixture *f, size_t i, int line,
                          const char *needle)
{
    if (i >= f->log.n)
        fail_msg("expected report #%zu (line %d, '%s'), got only %zu",
                 i, line, needle, f->log.n);
    if (f->log.e[i].line != line || !strstr(f->log.e[i].reason, needle))
        fail_msg("report #%zu: got line %d '%s', expected line %d containing '%s'",
                 i, f->log.e[i].line, f->log.e[i].reason, line, needle);
}

/* text holds exactly one bad line, `line`, whose reason contains needle. */
static void expect_one_reject(struct fixture *f, const char *text, int line,
                              const char *needle)
{
    int rc = parse(f, text);
    if (rc != 1 || f->log.n != 1)
        fail_msg("\"%s\": returned %d with %zu reports (first: '%s'), expected 1",
                 text, rc, f->log.n, f->log.n ? f->log.e[0].reason : "");
    assert_report(f, 0, line, needle);
}

/* cfg is what tp_config_init() makes. */
static void assert_pristine(const struct tp_config *cfg)
{
    assert_int_equal(cfg->ring_size, TP_CONFIG_DEFAULT_RING_SIZE);
    assert_int_equal(cfg->backlog, TP_CONFIG_DEFAULT_BACKLOG);
    assert_int_equal(cfg->kernel_buffer_kb, TP_CONFIG_DEFAULT_KERNEL_KB);
    assert_null(cfg->allow_groups);
    assert_int_equal(cfg->nallow_groups, 0);
    assert_null(cfg->streams);
    assert_int_equal(cfg->nstreams, 0);
}

static const struct tp_config_stream *find(const struct tp_config *cfg,
                                           const char *name)
{
    for (size_t i = 0; i < cfg->nstreams; i++)
        if (strcmp(cfg->streams[i].name, name) == 0)
            return &cfg->streams[i];
    fail_msg("no stream '%s'", name);
    return NULL;
}

static char *repeat(char c, size_t n)
{
    char *s = malloc(n + 1);
    assert_non_null(s);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

/* ------------------------------------------------------------- defaults */

static void test_init_defaults(void **state)
{
    struct tp_config cfg;

    (void)state;
    memset(&cfg, 0xa5, sizeof cfg);
    tp_config_init(&cfg);
    assert_pristine(&cfg);
    assert_int_equal(cfg.ring_size, 64u << 20);
    assert_int_equal(cfg.backlog, 10);
    assert_int_equal(cfg.kernel_buffer_kb, 1024);
    assert_int_equal(cfg.fetch_limit, 64u << 20);
    assert_int_equal(cfg.fetch_records, 0);        /* no cap but bytes and time */
    assert_int_equal(cfg.producer_nice, -10);
    tp_config_free(&cfg);
}

static void test_fetch_limit(void **state)
{
    struct fixture *f = *state;

    parse_ok(f, "fetch_limit 16M\n");
    assert_int_equal(f->cfg.fetch_limit, 16u << 20);
    parse_ok(f, "fetch_limit 1G\n");
    assert_int_equal(f->cfg.fetch_limit, 1u << 30);
    assert_int_equal(parse(f, "fetch_limit 1000\nfetch_limit 2G\nfetch_limit x\n"), 3);
    assert_int_equal(f->cfg.fetch_limit, 1u << 30);     /* the last valid one stays */
    parse_ok(f, "fetch_records 10000\n");
    assert_int_equal(f->cfg.fetch_records, 10000);
    assert_int_equal(parse(f, "fetch_records 999\nfetch_records 1k\nfetch_records 1\n"), 3);
    assert_int_equal(f->cfg.fetch_records, 10000);
    parse_ok(f, "fetch_records 0\n");
    assert_int_equal(f->cfg.fetch_records, 0);
}

/* producer_nice: -20..19, signed; anything else is rejected and the last valid one stays. */
static void test_producer_nice(void **state)
{
    struct fixture *f = *state;

    parse_ok(f, "producer_nice -5\n");
    assert_int_equal(f->cfg.producer_nice, -5);
    parse_ok(f, "producer_nice 0\n");
    assert_int_equal(f->cfg.producer_nice, 0);
    parse_ok(f, "producer_nice 19\nproducer_nice -20\n");
    assert_int_equal(f->cfg.producer_nice, -20);
    assert_int_equal(parse(f, "producer_nice 20\nproducer_nice -21\nproducer_nice x\n"
                              "producer_nice\nproducer_nice -\nproducer_nice --3\n"
                              "producer_nice 1 2\n"), 7);
    assert_int_equal(f->cfg.producer_nice, -20);
}

static void test_empty_and_comment_only(void **state)
{
    struct fixture *f = *state;

    assert_int_equal(tp_config_parse(&f->cfg, NULL, 0, record, &f->log), 0);
    assert_int_equal(parse_n(f, "", 0), 0);
    parse_ok(f, "\n\n   \n\t\n# nothing here\n  # indented\n#\n");
    assert_int_equal(f->log.n, 0);
    assert_pristine(&f->cfg);
}

/* ------------------------------------------------------------ ring_size */

static void test_ring_size_valid(void **state)
{
    static const struct { const char *text; size_t want; } cases[] = {
        { "ring_size 65536", 65536 },
        { "ring_size 64K", 64u << 10 },
        { "ring_size 64KiB", 64u << 10 },
        { "ring_size 16M", 16u << 20 },
        { "ring_size 16MiB", 16u << 20 },
        { "ring_size 1G", 1u << 30 },
        { "ring_size 1GiB", 1u << 30 },
        { "ring_size 4G", (size_t)4 << 30 },
        { "ring_size 4GiB", (size_t)4 << 30 },
        { "ring_size 4096M", (size_t)4 << 30 },
        { "ring_size 4194304K", (size_t)4 << 30 },
        { "ring_size 4294967296", (size_t)4 << 30 },
        { "ring_size 0016M", 16u << 20 },
        { "ring_size 100000", 100000 },
        { "ring_size\t8M\t# tabs and a comment", 8u << 20 },
        { "   ring_size   2M   ", 2u << 20 },
        { "ring_size 3M#glued comment", 3u << 20 },
    };
    struct fixture *f = *state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset(f);
        parse_ok(f, cases[i].text);
        if (f->cfg.ring_size != cases[i].want)
            fail_msg("\"%s\": ring_size %zu, want %zu", cases[i].text,
                     f->cfg.ring_size, cases[i].want);
    }
}

static void test_ring_size_invalid(void **state)
{
    static const struct { const char *value; const char *needle; } cases[] = {
        { "", "ring_size: missing value" },
        { "# comment", "ring_size: missing value" },
        { "16k", "ring_size: bad value '16k'" },
        { "16MB", "bad value '16MB'" },
        { "16Mi", "bad value '16Mi'" },
        { "16mib", "bad value '16mib'" },
        { "16 M", "ring_size: unexpected 'M' after the value" },
        { "16M 32M", "unexpected '32M'" },
        { "-1", "ring_size: negative value '-1'" },
        { "-16M", "negative value '-16M'" },
        { "+16M", "bad value '+16M'" },
        { "0x100000", "bad value '0x100000'" },
        { "1.5M", "bad value '1.5M'" },
        { "M", "bad value 'M'" },
        { "lots", "bad value 'lots'" },
        { "0", "ring_size: '0' is too small (range 64K..4G)" },
        { "63K", "'63K' is too small" },
        { "65535", "'65535' is too small" },
        { "4097M", "ring_size: '4097M' is too large (range 64K..4G)" },
        { "4194305K", "'4194305K' is too large" },
        { "4294967297", "'4294967297' is too large" },
        { "5G", "'5G' is too large" },
        { "18446744073709551615", "is too large" },
        { "18446744073709551616", "is too large" },         /* 2^64 */
        { "17179869184G", "is too large" },                 /* 2^34 G = 2^64 */
        { "99999999999999999999999999999G", "is too large" },
    };
    struct fixture *f = *state;
    char text[128];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset(f);
        snprintf(text, sizeof text, "ring_size 1M\nring_size %s\n", cases[i].value);
        expect_one_reject(f, text, 2, cases[i].needle);
        assert_int_equal(f->cfg.ring_size, 1u << 20);   /* unchanged */
    }
}

/* ------------------------------------------------ backlog, kernel buffer */

static void test_backlog_valid(void **state)
{
    static const struct { const char *text; unsigned want; } cases[] = {
        { "backlog 0", 0 },
        { "backlog 1", 1 },
        { "backlog 3600", 3600 },
        { "backlog 30 # half a minute", 30 },
        { "backlog\t007", 7 },
    };
    struct fixture *f = *state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset(f);
        parse_ok(f, cases[i].text);
        assert_int_equal(f->cfg.backlog, cases[i].want);
    }
}

static void test_backlog_invalid(void **state)
{
    static const struct { const char *value; const char *needle; } cases[] = {
        { "", "backlog: missing value" },
        { "3601", "backlog: '3601' is too large (range 0..3600)" },
        { "-1", "backlog: negative value '-1'" },
        { "10s", "backlog: bad value '10s' (expected a whole number)" },
        { "1K", "bad value '1K'" },
        { "ten", "bad value 'ten'" },
        { "1 2", "backlog: unexpected '2' after the value" },
        { "99999999999999999999999", "is too large" },
    };
    struct fixture *f = *state;
    char text[128];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset(f);
        snprintf(text, sizeof text, "backlog %s", cases[i].value);
        expect_one_reject(f, text, 1, cases[i].needle);
        assert_pristine(&f->cfg);
    }
}

static void test_kernel_buffer_kb_valid(void **state)
{
    static const struct { const char *text; unsigned want; } cases[] = {
        { "kernel_buffer_kb 64", 64 },
        { "kernel_buffer_kb 4096", 4096 },
        { "kernel_buffer_kb 1048576", 1048576 },
    };
    struct fixture *f = *state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset(f);
        parse_ok(f, cases[i].text);
        assert_int_equal(f->cfg.kernel_buffer_kb, cases[i].want);
    }
}

static void test_kernel_buffer_kb_invalid(void **state)
{
    static const struct { const char *value; const char *needle; } cases[] = {
        { "", "kernel_buffer_kb: missing value" },
        { "0", "kernel_buffer_kb: '0' is too small (range 64..1048576)" },
        { "63", "'63' is too small" },
        { "1048577", "kernel_buffer_kb: '1048577' is too large" },
        { "1M", "kernel_buffer_kb: bad value '1M'" },
        { "-64", "negative value '-64'" },
        { "64 kb", "unexpected 'kb'" },
        { "4294967360", "is too large" },   /* 2^32 + 64: no wrap to 64 */
    };
    struct fixture *f = *state;
    char text[128];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset(f);
        snprintf(text, sizeof text, "kernel_buffer_kb %s", cases[i].value);
        expect_one_reject(f, text, 1, cases[i].needle);
        assert_pristine(&f->cfg);
    }
}

static void test_scalar_last_wins(void **state)
{
    struct fixture *f = *state;

    parse_ok(f, "ring_size 1M\nbacklog 5\nkernel_buffer_kb 128\n"
                "ring_size 2M\nbacklog 0\nkernel_buffer_kb 256\n");
    assert_int_equal(f->cfg.ring_size, 2u << 20);
    assert_int_equal(f->cfg.backlog, 0);
    assert_int_equal(f->cfg.kernel_buffer_kb, 256);
}

/* ----------------------------------------------------------- allow_group */

static void test_allow_group_valid(void **state)
{
    struct fixture *f = *state;
    char *g32 = repeat('g', 32);
    char text[128];

    parse_ok(f, "allow_group adm\n"
                "allow_group wheel\tstaff  adm  # adm again\n"
                "allow_group Pcp.users-1_x wheel Pcp.users-1_x\n");
    assert_int_equal(f->cfg.nallow_groups, 4);
    assert_string_equal(f->cfg.allow_groups[0], "adm");
    assert_string_equal(f->cfg.allow_groups[1], "wheel");
    assert_string_equal(f->cfg.allow_groups[2], "staff");
    assert_string_equal(f->cfg.allow_groups[3], "Pcp.users-1_x");

    /* Duplicates only: accepted, nothing added. */
    parse_ok(f, "allow_group wheel adm");
    assert_int_equal(f->cfg.nallow_groups, 4);

    snprintf(text, sizeof text, "allow_group %s", g32);
    parse_ok(f, text);
    assert_int_equal(f->cfg.nallow_groups, 5);
    assert_string_equal(f->cfg.allow_groups[4], g32);
    free(g32);
}

static void test_allow_group_invalid(void **state)
{
    static const struct { const char *text; const char *needle; } cases[] = {
        { "allow_group", "allow_group: missing group name" },
        { "allow_group   # nobody", "allow_group: missing group name" },
        { "allow_group wheel/x", "allow_group: bad group name 'wheel/x' "
                                 "(allowed: letters, digits, _ . -)" },
        { "allow_group adm,wheel", "bad group name 'adm,wheel'" },
        { "allow_group adm wh$el", "bad group name 'wh$el'" },
        { "allow_group adm ggggggggggggggggggggggggggggggggg",  /* 33 */
          "(longer than 32 characters)" },
        { "allow_group adm staff ../x", "bad group name '../x'" },
    };
    struct fixture *f = *state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset(f);
        expect_one_reject(f, cases[i].text, 1, cases[i].needle);
        assert_pristine(&f->cfg);      /* no partial list */
    }

    /* A bad line after a good one leaves the earlier groups alone. */
    reset(f);
    expect_one_reject(f, "allow_group adm\nallow_group wheel bad/name\n", 2,
                      "bad group name 'bad/name'");
    assert_int_equal(f->cfg.nallow_groups, 1);
    assert_string_equal(f->cfg.allow_groups[0], "adm");
}

/* ---------------------------------------------------------------- streams */

static void test_stream_single_event(void **state)
{
    struct fixture *f = *state;

    parse_ok(f, "# first line\n\nstream exec sched:sched_process_exec\n");
    assert_int_equal(f->cfg.nstreams, 1);
    const struct tp_config_stream *s = &f->cfg.streams[0];
    assert_string_equal(s->name, "exec");
    assert_int_equal(s->nevents, 1);
    assert_string_equal(s->events[0], "sched:sched_process_exec");
    assert_null(s->filter);
    assert_int_equal(s->access.kind, TP_ACCESS_ALL);
    assert_null(s->access.groups);
    assert_int_equal(s->access.ngroups, 0);
    assert_int_equal(s->line, 3);
    /* Nothing else touched. */
    assert_int_equal(f->cfg.ring_size, TP_CONFIG_DEFAULT_RING_SIZE);
    assert_int_equal(f->cfg.nallow_groups, 0);
}

static void test_stream_event_list(void **state)
{
    struct fixture *f = *state;

    parse_ok(f, "stream life sched:sched_process_fork,sched:sched_process_exit,"
                "sched:sched_process_fork,sched:sched_process_exec,"
                "sched:sched_process_exit\n");
    const struct tp_config_stream *s = find(&f->cfg, "life");
    assert_int_equal(s->nevents, 3);        /* duplicates removed, order kept */
    assert_string_equal(s->events[0], "sched:sched_process_fork");
    assert_string_equal(s->events[1], "sched:sched_process_exit");
    assert_string_equal(s->events[2], "sched:sched_process_exec");
}

static void test_stream_globs(void **state)
{
    struct fixture *f = *state;

    parse_ok(f, "stream all_sched sched:*\n"
                "stream opens syscalls:sys_enter_open*,syscalls:sys_exit_open?\n"
                "stream any *:*\n"
                "stream q ?:sched_?witch\n");
    assert_int_equal(f->cfg.nstreams, 4);
    assert_string_equal(find(&f->cfg, "all_sched")->events[0], "sched:*");
    const struct tp_config_stream *s = find(&f->cfg, "opens");
    assert_int_equal(s->nevents, 2);
    assert_string_equal(s->events[0], "syscalls:sys_enter_open*");
    assert_string_equal(s->events[1], "syscalls:sys_exit_open?");
    assert_string_equal(find(&f->cfg, "any")->events[0], "*:*");
    assert_string_equal(find(&f->cfg, "q")->events[0], "?:sched_?witch");
}

static void test_stream_bad_patterns(void **state)
{
    static const struct { const char *events; const char *needle; } cases[] = {
        { "sched", "stream 's': bad event pattern 'sched' (expected system:event)" },
        { "sched:", "bad event pattern 'sched:' (expected system:event)" },
        { ":sched_switch", "bad event pattern ':sched_switch' (expected" },
        { ":", "bad event pattern ':' (expected" },
        { "a:b:c", "bad event pattern 'a:b:c' (expected system:event)" },
        { "sched:..", "bad event pattern 'sched:..' (allowed: letters, digits, _ * ?)" },
        { "../x:y", "bad event pattern '../x:y' (allowed" },
        { "sched:a/b", "bad event pattern 'sched:a/b' (allowed" },
        { "sched:fo-o", "bad event pattern 'sched:fo-o' (allowed" },
        { "sched:fo.o", "bad event pattern 'sched:fo.o' (allowed" },
        { "sched:[ab]", "bad event pattern 'sched:[ab]' (allowed" },
        { "sched:\\*", "bad event pattern 'sched:\\*' (allowed" },
        { "sched:\xc3\xa9", "bad event pattern 'sched:\\xc3\\xa9' (allowed" },
        { "sched:a,sched/b", "bad event pattern 'sched/b'" },
        { "sched:a,,sched:b", "stream 's': empty item in event list 'sched:a,,sched:b'" },
        { "sched:a,", "empty item in event list 'sched:a,'" },
        { ",sched:a", "empty item in event list ',sched:a'" },
        { ",", "empty item in event list ','" },
    };
    struct fixture *f = *state;
    char text[256];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset(f);
        snprintf(text, sizeof text, "stream s %s", cases[i].events);
        expect_one_reject(f, text, 1, cases[i].needle);
        assert_int_equal(f->cfg.nstreams, 0);
    }

    /* The reason is exactly this (the caller adds "line N: "). */
    reset(f);
    expect_one_reject(f, "\n\n\n\n\n\nstream x sched/foo\n", 7, "");
    assert_string_equal(f->log.e[0].reason,
        "stream 'x': bad event pattern 'sched/foo' (allowed: letters, digits, _ * ?)");
}

static void test_stream_pattern_length(void **state)
{
    struct fixture *f = *state;
    char *event = repeat('e', 121);        /* "sched:" + 121 = 127 */
    char text[512];

    snprintf(text, sizeof text, "stream ok sched:%s", event);
    parse_ok(f, text);
    assert_int_equal(strlen(find(&f->cfg, "ok")->events[0]), 127);

    snprintf(text, sizeof text, "stream long sched:%se", event);   /* 128 */
    expect_one_reject(f, text, 1, "(longer than 127 characters)");
    assert_int_equal(f->cfg.nstreams, 1);
    free(event);
}

static void test_stream_names_valid(void **state)
{
    static const char *names[] = {
        "a", "Z", "0", "A.b-c_9", ".hidden", "a..b", "x-", "_", "...",
    };
    struct fixture *f = *state;
    char *n63 = repeat('n', TP_CONFIG_MAX_NAME);
    char text[256];

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        reset(f);
        snprintf(text, sizeof text, "stream %s sched:a", names[i]);
        parse_ok(f, text);
        assert_string_equal(f->cfg.streams[0].name, names[i]);
    }
    reset(f);
    snprintf(text, sizeof text, "stream %s sched:a", n63);
    parse_ok(f, text);
    assert_string_equal(f->cfg.streams[0].name, n63);
    free(n63);
}

static void test_stream_names_invalid(void **state)
{
    static const struct { const char *name; const char *needle; } cases[] = {
        { ".", "stream: bad name '.' ('.' and '..' are reserved)" },
        { "..", "stream: bad name '..' ('.' and '..' are reserved)" },
        { "-x", "stream: bad name '-x' (must not start with '-')" },
        { "-", "must not start with '-'" },
        { "a/b", "stream: bad name 'a/b' (allowed: letters, digits, _ . -)" },
        { "../etc", "bad name '../etc' (allowed" },
        { "/", "bad name '/' (allowed" },
        { "a:b", "bad name 'a:b' (allowed" },
        { "a*", "bad name 'a*' (allowed" },
        { "caf\xc3\xa9", "bad name 'caf\\xc3\\xa9' (allowed" },
        { "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn", /* 64 */
          "(longer than 63 characters)" },
    };
    struct fixture *f = *state;
    char text[256];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset(f);
        snprintf(text, sizeof text, "stream %s sched:a", cases[i].name);
        expect_one_reject(f, text, 1, cases[i].needle);
        assert_int_equal(f->cfg.nstreams, 0);
    }
}

static void test_stream_access_variants(void **state)
{
    struct fixture *f = *state;
    char *g32 = repeat('g', 32);
    char text[256];

    parse_ok(f, "stream a sched:a access=all\n"
                "stream r sched:a access=root\n"
                "stream g sched:a access=group:wheel\n"
                "stream gg sched:a access=group:adm,wheel,adm,staff\n"
                "stream d sched:a\n");
    assert_int_equal(find(&f->cfg, "a")->access.kind, TP_ACCESS_ALL);
    assert_int_equal(find(&f->cfg, "a")->access.ngroups, 0);
    assert_int_equal(find(&f->cfg, "r")->access.kind, TP_ACCESS_ROOT);
    assert_int_equal(find(&f->cfg, "r")->access.ngroups, 0);
    const struct tp_config_stream *g = find(&f->cfg, "g");
    assert_int_equal(g->access.kind, TP_ACCESS_GROUPS);
    assert_int_equal(g->access.ngroups, 1);
    assert_string_equal(g->access.groups[0], "wheel");
    const struct tp_config_stream *gg = find(&f->cfg, "gg");
    assert_int_equal(gg->access.kind, TP_ACCESS_GROUPS);
    assert_int_equal(gg->access.ngroups, 3);
    assert_string_equal(gg->access.groups[0], "adm");
    assert_string_equal(gg->access.groups[1], "wheel");
    assert_string_equal(gg->access.groups[2], "staff");
    assert_int_equal(find(&f->cfg, "d")->access.kind, TP_ACCESS_ALL);
    /* access groups are independent of allow_group */
    assert_int_equal(f->cfg.nallow_groups, 0);

    snprintf(text, sizeof text, "stream long sched:a access=group:%s", g32);
    parse_ok(f, text);
    assert_string_equal(find(&f->cfg, "long")->access.groups[0], g32);
    free(g32);
}

static const struct tp_config_probe *find_probe(const struct tp_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->nprobes; i++)
        if (strcmp(cfg->probes[i].name, name) == 0)
            return &cfg->probes[i];
    fail_msg("no probe '%s'", name);
    return NULL;
}

/* A probe's events are root's unless its line grants access=WHO before the spec. */
static void test_probe_access(void **state)
{
    struct fixture *f = *state;
    parse_ok(f, "probe p /bin/true:main\n"
                "probe a access=all /bin/true:main a=$arg1:s32\n"
                "probe r access=root /bin/true:main\n"
                "probe g access=group:adm,wheel,adm /bin/true:main%return r=$retval:s64\n"
                "kprobe k access=group:staff do_sys_open\n");
    const struct tp_config_probe *p = find_probe(&f->cfg, "p");
    assert_int_equal(p->access.kind, TP_ACCESS_ROOT);
    assert_int_equal(p->access.ngroups, 0);
    assert_string_equal(p->spec, "/bin/true:main");
    p = find_probe(&f->cfg, "a");
    assert_int_equal(p->access.kind, TP_ACCESS_ALL);
    assert_string_equal(p->spec, "/bin/true:main a=$arg1:s32");
    assert_int_equal(find_probe(&f->cfg, "r")->access.kind, TP_ACCESS_ROOT);
    p = find_probe(&f->cfg, "g");
    assert_int_equal(p->access.kind, TP_ACCESS_GROUPS);
    assert_int_equal(p->access.ngroups, 2);
    assert_string_equal(p->access.groups[0], "adm");
    assert_string_equal(p->access.groups[1], "wheel");
    assert_string_equal(p->spec, "/bin/true:main%return r=$retval:s64");
    p = find_probe(&f->cfg, "k");
    assert_true(p->kprobe);
    assert_int_equal(p->access.kind, TP_ACCESS_GROUPS);
    assert_string_equal(p->access.groups[0], "staff");
    assert_string_equal(p->spec, "do_sys_open");
}

static void test_probe_access_invalid(void **state)
{
    static const struct { const char *line; const char *needle; } cases[] = {
        { "probe s access=nobody /bin/true:main", "probe 's': bad access 'nobody'" },
        { "probe s access= /bin/true:main", "probe 's': bad access ''" },
        { "probe s access=group: /bin/true:main", "probe 's': bad group name '' in access" },
        { "probe s access=group:adm,a/b /bin/true:main", "bad group name 'a/b' in access" },
        { "probe s access=all", "probe: expected NAME [access=WHO] SPEC" },
        { "kprobe s access=root", "kprobe: expected NAME [access=WHO] SPEC" },
        { "probe s access=all access=root /bin/true:main", "probe 's'" },
    };
    struct fixture *f = *state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset(f);
        expect_one_reject(f, cases[i].line, 1, cases[i].needle);
        assert_int_equal(f->cfg.nprobes, 0);
    }
}

static void test_stream_access_invalid(void **state)
{
    static const struct { const char *opts; const char *needle; } cases[] = {
        { "access=", "stream 's': bad access '' (expected all, root or group:NAME[,NAME...])" },
        { "access=nobody", "bad access 'nobody'" },
        { "access=Root", "bad access 'Root'" },
        { "access=all,root", "bad access 'all,root'" },
        { "access=groups:adm", "bad access 'groups:adm'" },
        { "access=group:", "stream 's': bad group name '' in access (empty)" },
        { "access=group:adm,,wheel", "bad group name '' in access (empty)" },
        { "access=group:adm,", "bad group name '' in access (empty)" },
        { "access=group:a/b", "bad group name 'a/b' in access (allowed: letters, digits, _ . -)" },
        { "access=group:adm,../x", "bad group name '../x' in access" },
        { "access=group:ggggggggggggggggggggggggggggggggg", "in access (longer than 32 characters)" },
        { "access=all access=root", "stream 's': access given twice" },
        { "access=root access=root", "access given twice" },
        { "access = all", "stream 's': unexpected 'access'" },
        { "access", "unexpected 'access'" },
        { "ACCESS=all", "unexpected 'ACCESS=all'" },
    };
    struct fixture *f = *state;
    char text[256];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset(f);
        snprintf(text, sizeof text, "stream s sched:a %s", cases[i].opts);
        expect_one_reject(f, text, 1, cases[i].needle);
        assert_int_equal(f->cfg.nstreams, 0);
    }
}

static void test_stream_params(void **state)
{
    static const struct { const char *opts; const char *needle; } bad[] = {
        { "params=", "stream 's': params= needs a list (fields, comm, text)" },
        { "params=comm,txt", "stream 's': unknown record parameter 'txt'" },
        { "params=none,text", "'none' with other record parameters" },
        { "params=text params=comm", "stream 's': params given twice" },
    };
    struct fixture *f = *state;
    char text[256];

    parse_ok(f, "stream d sched:a\n"
                "stream t sched:a params=text,comm access=root filter pid > 1\n"
                "stream n sched:a access=all params=none\n");
    assert_int_equal(find(&f->cfg, "d")->with, TP_WITH_DEFAULT);
    assert_int_equal(find(&f->cfg, "t")->with, TP_WITH_COMM | TP_WITH_TEXT);
    assert_int_equal(find(&f->cfg, "t")->access.kind, TP_ACCESS_ROOT);
    assert_string_equal(find(&f->cfg, "t")->filter, "pid > 1");
    assert_int_equal(find(&f->cfg, "n")->with, 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        reset(f);
        snprintf(text, sizeof text, "stream s sched:a %s", bad[i].opts);
        expect_one_reject(f, text, 1, bad[i].needle);
        assert_int_equal(f->cfg.nstreams, 0);
    }
}

static void test_stream_filter(void **state)
{
    static const struct {
        const char *line;
        const char *filter;
        enum tp_access_kind access;
    } cases[] = {
        { "stream s sched:a filter common_pid > 1", "common_pid > 1", TP_ACCESS_ALL },
        { "stream s sched:a filter   comm == \"bash\"   ", "comm == \"bash\"", TP_ACCESS_ALL },
        { "stream s sched:a filter comm == 'my prog' || comm == \"x y\"",
          "comm == 'my prog' || comm == \"x y\"", TP_ACCESS_ALL },
        /* '#' after `filter` is part of the expression, not a comment. */
        { "stream s sched:a filter comm == \"a#b\" # not a comment",
          "comm == \"a#b\" # not a comment", TP_ACCESS_ALL },
        { "stream s sched:a filter #x", "#x", TP_ACCESS_ALL },
        { "stream s sched:a access=root filter prev_comm ~ \"sys*\" && next_pid != 0",
          "prev_comm ~ \"sys*\" && next_pid != 0", TP_ACCESS_ROOT },
        { "stream s sched:a filter\tcommon_pid\t>\t1\t", "common_pid\t>\t1", TP_ACCESS_ALL },
        /* After `filter`, keywords are just expression text. */
        { "stream s sched:a filter access=root", "access=root", TP_ACCESS_ALL },
        { "stream s sched:a filter filter", "filter", TP_ACCESS_ALL },
        { "stream s sched:a filter x == 1\r", "x == 1", TP_ACCESS_ALL },
    };
    struct fixture *f = *state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset(f);
        parse_ok(f, cases[i].line);
        assert_int_equal(f->cfg.nstreams, 1);
        assert_non_null(f->cfg.streams[0].filter);
        assert_string_equal(f->cfg.streams[0].filter, cases[i].filter);
        assert_int_equal(f->cfg.streams[0].access.kind, cases[i].access);
        assert_int_equal(f->cfg.streams[0].nevents, 1);
    }

    /* A group access list followed by a filter. */
    reset(f);
    parse_ok(f, "stream s sched:a,sched:b access=group:adm filter common_pid > 1");
    const struct tp_config_stream *s = find(&f->cfg, "s");
    assert_int_equal(s->nevents, 2);
    assert_int_equal(s->access.kind, TP_ACCESS_GROUPS);
    assert_string_equal(s->access.groups[0], "adm");
    assert_string_equal(s->filter, "common_pid > 1");
}

static void test_stream_filter_limits(void **state)
{
    struct fixture *f = *state;
    char *expr = repeat('x', 2048);
    char *text = malloc(2200);

    assert_non_null(text);
    snprintf(text, 2200, "stream s sched:a filter   %s   ", expr);
    parse_ok(f, text);
    assert_int_equal(strlen(f->cfg.streams[0].filter), 2048);

    reset(f);
    snprintf(text, 2200, "stream s sched:a filter %sy", expr);
    expect_one_reject(f, text, 1, "stream 's': filter longer than 2048 characters");
    assert_int_equal(f->cfg.nstreams, 0);
    free(expr);
    free(text);
}

static void test_stream_filter_invalid(void **state)
{
    static const struct { const char *line; const char *needle; } cases[] = {
        { "stream s sched:a filter", "stream 's': filter needs an expression" },
        { "stream s sched:a filter  \t ", "filter needs an expression" },
        { "stream s sched:a filter#x", "filter needs an expression" },
        { "stream s sched:a filter a\x01" "b", "stream 's': control character in filter" },
        { "stream s sched:a filter a\x1b[0m", "control character in filter" },
        { "stream s sched:a filter a\x7f", "control character in filter" },
        { "stream s sched:a filter a\rb", "control character in filter" },
    };
    struct fixture *f = *state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset(f);
        expect_one_reject(f, cases[i].line, 1, cases[i].needle);
        assert_int_equal(f->cfg.nstreams, 0);
    }
}

static void test_stream_missing_and_extra(void **state)
{
    static const struct { const char *line; const char *needle; } cases[] = {
        { "stream", "stream: missing name" },
        { "stream   # no name", "stream: missing name" },
        { "stream x", "stream 'x': missing event list" },
        { "stream x # comment", "stream 'x': missing event list" },
        { "stream x#y sched:a", "stream 'x': missing event list" },
        { "stream x filter a == 1", "stream 'x': missing event list" },
        { "stream x access=all", "stream 'x': missing event list" },
        { "stream x access=group:a:b", "stream 'x': missing event list" },
        { "stream x sched:a bogus", "stream 'x': unexpected 'bogus' (expected "
                                    "access=WHO, params=LIST or filter EXPRESSION)" },
        { "stream x params=text", "stream 'x': missing event list" },
        { "stream x sched:a sched:b", "unexpected 'sched:b'" },
        { "stream x sched:a access=all extra", "unexpected 'extra'" },
        { "stream x sched:a Filter y", "unexpected 'Filter'" },
        { "stream x sched:a filters y", "unexpected 'filters'" },
    };
    struct fixture *f = *state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset(f);
        expect_one_reject(f, cases[i].line, 1, cases[i].needle);
        assert_int_equal(f->cfg.nstreams, 0);
    }
}

static void test_stream_duplicate_name(void **state)
{
    struct fixture *f = *state;

    expect_one_reject(f, "stream a sched:x\n"
                         "stream b sched:y\n"
                         "stream a sched:z access=root filter common_pid > 1\n"
                         "stream A sched:w\n", 3,
                      "stream 'a': duplicate name (first defined on line 1)");
    assert_int_equal(f->cfg.nstreams, 3);      /* names are case-sensitive */
    const struct tp_config_stream *a = find(&f->cfg, "a");
    assert_int_equal(a->line, 1);
    assert_int_equal(a->nevents, 1);
    assert_string_equal(a->events[0], "sched:x");
    assert_int_equal(a->access.kind, TP_ACCESS_ALL);
    assert_null(a->filter);

    /* Across parse calls too. */
    memset(&f->log, 0, sizeof f->log);
    expect_one_reject(f, "stream b sched:q", 1,
                      "stream 'b': duplicate name (first defined on line 2)");
    assert_int_equal(f->cfg.nstreams, 3);
}

static void test_rejected_stream_leaves_nothing(void **state)
{
    struct fixture *f = *state;

    /* Everything valid up to an empty filter: no partial stream. */
    expect_one_reject(f, "stream s sched:a,sched:b access=group:adm,wheel filter\n"
                         "stream s sched:c\n", 1, "filter needs an expression");
    assert_int_equal(f->cfg.nstreams, 1);
    const struct tp_config_stream *s = find(&f->cfg, "s");
    assert_int_equal(s->line, 2);      /* the name was free: line 1 never counted */
    assert_int_equal(s->nevents, 1);
    assert_string_equal(s->events[0], "sched:c");
    assert_int_equal(s->access.kind, TP_ACCESS_ALL);
    assert_null(s->access.groups);
    assert_null(s->filter);
    assert_int_equal(f->cfg.nallow_groups, 0);
    assert_int_equal(f->cfg.ring_size, TP_CONFIG_DEFAULT_RING_SIZE);
}

/* ------------------------------------------------------ lines and errors */

static const char recovery_conf[] =
    "# a config with mistakes\n"                /*  1 */
    "ring_size 32M\n"                           /*  2 */
    "ring_size lots\n"                          /*  3  bad */
    "\n"                                        /*  4 */
    "backlog 30\n"                              /*  5 */
    "bogus directive\n"                         /*  6  bad */
    "stream x sched/foo\n"                      /*  7  bad */
    "stream x sched:sched_switch\n"             /*  8 */
    "allow_group adm\n"                         /*  9 */
    "kernel_buffer_kb 1\n"                      /* 10  bad */
    "stream y irq:* access=root\n"              /* 11 */
    "stream .. sched:a\n"                       /* 12  bad */
    "allow_group wheel\n";                      /* 13 */

static void check_recovery(const struct fixture *f, int rc)
{
    assert_int_equal(rc, 5);
    assert_int_equal(f->log.n, 5);
    assert_report(f, 0, 3, "ring_size: bad value 'lots'");
    assert_report(f, 1, 6, "unknown directive 'bogus'");
    assert_report(f, 2, 7, "stream 'x': bad event pattern 'sched/foo'");
    assert_report(f, 3, 10, "kernel_buffer_kb: '1' is too small");
    assert_report(f, 4, 12, "stream: bad name '..'");

    assert_int_equal(f->cfg.ring_size, 32u << 20);
    assert_int_equal(f->cfg.backlog, 30);
    assert_int_equal(f->cfg.kernel_buffer_kb, TP_CONFIG_DEFAULT_KERNEL_KB);
    assert_int_equal(f->cfg.nstreams, 2);
    assert_string_equal(f->cfg.streams[0].name, "x");
    assert_int_equal(f->cfg.streams[0].line, 8);
    assert_string_equal(f->cfg.streams[0].events[0], "sched:sched_switch");
    assert_string_equal(f->cfg.streams[1].name, "y");
    assert_int_equal(f->cfg.streams[1].line, 11);
    assert_int_equal(f->cfg.streams[1].access.kind, TP_ACCESS_ROOT);
    assert_int_equal(f->cfg.nallow_groups, 2);
    assert_string_equal(f->cfg.allow_groups[0], "adm");
    assert_string_equal(f->cfg.allow_groups[1], "wheel");
}

static void test_line_numbers_and_recovery(void **state)
{
    struct fixture *f = *state;

    check_recovery(f, parse(f, recovery_conf));
}

static void test_unknown_directive(void **state)
{
    static const struct { const char *line; const char *needle; } cases[] = {
        { "Ring_size 1M", "unknown directive 'Ring_size'" },
        { "ring_size=16M", "unknown directive 'ring_size=16M'" },
        { "streams x sched:a", "unknown directive 'streams'" },
        { "filter common_pid > 1", "unknown directive 'filter'" },
        { "allow_groups adm", "unknown directive 'allow_groups'" },
        { "\xef\xbb\xbfring_size 1M", "unknown directive '\\xef\\xbb\\xbfring_size'" },
    };
    struct fixture *f = *state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset(f);
        expect_one_reject(f, cases[i].line, 1, cases[i].needle);
        assert_pristine(&f->cfg);
    }
}

static void test_reason_sanitised(void **state)
{
    struct fixture *f = *state;
    char *word = repeat('z', 300);

    expect_one_reject(f, "ring_size \x01\x7f", 1, "bad value '\\x01\\x7f'");

    reset(f);
    expect_one_reject(f, word, 1, "unknown directive 'zzzz");
    assert_non_null(strstr(f->log.e[0].reason, "...'"));
    assert_true(strlen(f->log.e[0].reason) < 120);
    free(word);
}

static void test_comments_and_blanks(void **state)
{
    struct fixture *f = *state;

    parse_ok(f, "\n"
                "   \n"
                "\t\t\n"
                "# full-line comment\n"
                "   # indented comment: stream bad/name x\n"
                "backlog 5 # trailing comment\n"
                "ring_size 2M#glued comment\n"
                "\tkernel_buffer_kb\t128\t\n"
                "stream s sched:a#glued\n"
                "allow_group adm # wheel\n"
                "stream t sched:b access=root # filter x\n");
    assert_int_equal(f->cfg.backlog, 5);
    assert_int_equal(f->cfg.ring_size, 2u << 20);
    assert_int_equal(f->cfg.kernel_buffer_kb, 128);
    assert_int_equal(f->cfg.nstreams, 2);
    assert_int_equal(find(&f->cfg, "s")->nevents, 1);
    assert_string_equal(find(&f->cfg, "s")->events[0], "sched:a");
    assert_null(find(&f->cfg, "t")->filter);
    assert_int_equal(find(&f->cfg, "t")->access.kind, TP_ACCESS_ROOT);
    assert_int_equal(f->cfg.nallow_groups, 1);
    assert_string_equal(f->cfg.allow_groups[0], "adm");
}

static void test_crlf(void **state)
{
    struct fixture *f = *state;
    char text[sizeof recovery_conf * 2];
    size_t o = 0;

    /* recovery_conf with every "\n" turned into "\r\n": same result. */
    for (const char *p = recovery_conf; *p; p++) {
        if (*p == '\n')
            text[o++] = '\r';
        text[o++] = *p;
    }
    check_recovery(f, parse_n(f, text, o));

    reset(f);
    parse_ok(f, "backlog 7\r\nstream s sched:a filter pid == 1\r\n"
                "\r\n# c\r\nring_size 1M\n");
    assert_int_equal(f->cfg.backlog, 7);
    assert_string_equal(f->cfg.streams[0].filter, "pid == 1");
    assert_int_equal(f->cfg.ring_size, 1u << 20);

    /* Only the terminator's '\r' goes; a stray one is an error. */
    reset(f);
    expect_one_reject(f, "backlog 7\r\r\nbacklog 8\r\n", 1, "bad value '7\\x0d'");
    assert_int_equal(f->cfg.backlog, 8);
    reset(f);
    expect_one_reject(f, "ring_size 1M\r2M\n", 1, "bad value '1M\\x0d2M'");
}

static void test_no_trailing_newline(void **state)
{
    struct fixture *f = *state;

    parse_ok(f, "backlog 5\nring_size 1M");
    assert_int_equal(f->cfg.ring_size, 1u << 20);

    reset(f);
    parse_ok(f, "stream s sched:a filter x == 1");
    assert_string_equal(f->cfg.streams[0].filter, "x == 1");

    reset(f);
    parse_ok(f, "backlog 5\r\nbacklog 6\r");
    assert_int_equal(f->cfg.backlog, 6);

    reset(f);
    expect_one_reject(f, "backlog 5\nbacklog 9999", 2, "backlog: '9999' is too large");
    assert_int_equal(f->cfg.backlog, 5);
}

static void test_overlong_line(void **state)
{
    struct fixture *f = *state;
    size_t max = TP_CONFIG_MAX_LINE;
    char *text = malloc(3 * max);
    size_t n;

    assert_non_null(text);

    /* "backlog 5" padded with blanks to exactly the limit: accepted. */
    n = (size_t)sprintf(text, "backlog 5");
    memset(text + n, ' ', max - n);
    memcpy(text + max, "\n", 1);
    assert_int_equal(parse_n(f, text, max + 1), 0);
    assert_int_equal(f->cfg.backlog, 5);

    /* The same with "\r\n": the '\r' does not count. */
    reset(f);
    memcpy(text + max, "\r\n", 2);
    assert_int_equal(parse_n(f, text, max + 2), 0);
    assert_int_equal(f->cfg.backlog, 5);

    /* One byte more: rejected whole, not truncated; the next line is used. */
    reset(f);
    n = (size_t)sprintf(text, "backlog 6");
    memset(text + n, ' ', max + 1 - n);
    n = max + 1;
    n += (size_t)sprintf(text + n, "\nbacklog 7\n");
    assert_int_equal(parse_n(f, text, n), 1);
    assert_report(f, 0, 1, "line too long (4097 bytes, at most 4096)");
    assert_int_equal(f->cfg.backlog, 7);

    /* A long comment line is rejected too; line numbers stay right. */
    reset(f);
    n = (size_t)sprintf(text, "backlog 1\n#");
    memset(text + n, 'c', max + 100);
    n += max + 100;
    n += (size_t)sprintf(text + n, "\nbacklog 2\nbogus\n");
    assert_int_equal(parse_n(f, text, n), 2);
    assert_report(f, 0, 2, "line too long");
    assert_report(f, 1, 4, "unknown directive 'bogus'");
    assert_int_equal(f->cfg.backlog, 2);

    /* An over-long stream line: no stream, even though its start is fine. */
    reset(f);
    n = (size_t)sprintf(text, "stream s sched:a filter ");
    memset(text + n, 'x', 2 * max - n);
    assert_int_equal(parse_n(f, text, 2 * max), 1);
    assert_report(f, 0, 1, "line too long (8192 bytes");
    assert_int_equal(f->cfg.nstreams, 0);
    free(text);
}

static void test_nul_byte(void **state)
{
    static const char bad1[] = "backlog 5\0\nbacklog 6\n";
    static const char bad2[] = "# comment \0 here\nbacklog 7";
    static const char bad3[] = "backlog 3\nbacklog 5\0 7\n";
    static const char bad4[] = "stream s sched:a filter a\0b\nstream t sched:b\n";
    static const char bad5[] = "\0";
    struct fixture *f = *state;

    assert_int_equal(parse_n(f, bad1, sizeof bad1 - 1), 1);
    assert_report(f, 0, 1, "NUL byte in line");
    assert_int_equal(f->cfg.backlog, 6);

    reset(f);
    assert_int_equal(parse_n(f, bad2, sizeof bad2 - 1), 1);
    assert_report(f, 0, 1, "NUL byte in line");
    assert_int_equal(f->cfg.backlog, 7);

    reset(f);
    assert_int_equal(parse_n(f, bad3, sizeof bad3 - 1), 1);
    assert_report(f, 0, 2, "NUL byte in line");
    assert_int_equal(f->cfg.backlog, 3);

    reset(f);
    assert_int_equal(parse_n(f, bad4, sizeof bad4 - 1), 1);
    assert_report(f, 0, 1, "NUL byte in line");
    assert_int_equal(f->cfg.nstreams, 1);
    assert_string_equal(f->cfg.streams[0].name, "t");

    reset(f);
    assert_int_equal(parse_n(f, bad5, sizeof bad5 - 1), 1);
    assert_report(f, 0, 1, "NUL byte in line");
    assert_pristine(&f->cfg);
}

static void test_log_optional(void **state)
{
    struct fixture *f = *state;

    assert_int_equal(tp_config_parse(&f->cfg, "bogus\nbacklog 5\nx y", 19, NULL, NULL), 2);
    assert_int_equal(f->cfg.backlog, 5);
}

static void test_bad_arguments(void **state)
{
    struct fixture *f = *state;

    assert_int_equal(tp_config_parse(NULL, "backlog 5", 9, record, &f->log), -EINVAL);
    assert_int_equal(tp_config_parse(&f->cfg, NULL, 1, record, &f->log), -EINVAL);
    assert_int_equal(tp_config_load(NULL, "/dev/null", record, &f->log), -EINVAL);
    assert_int_equal(tp_config_load(&f->cfg, NULL, record, &f->log), -EINVAL);
    assert_int_equal(f->log.n, 0);
    assert_pristine(&f->cfg);
}

static void test_free_and_reuse(void **state)
{
    struct fixture *f = *state;

    tp_config_free(NULL);

    parse_ok(f, "ring_size 1M\nbacklog 1\nkernel_buffer_kb 64\nallow_group adm\n"
                "stream s sched:a,sched:b access=group:x,y filter a == 1\n");
    tp_config_free(&f->cfg);
    assert_pristine(&f->cfg);               /* freed and back to defaults */
    tp_config_free(&f->cfg);                /* harmless twice */
    assert_pristine(&f->cfg);

    parse_ok(f, "stream s sched:c\n");      /* usable again, s is free again */
    assert_int_equal(f->cfg.nstreams, 1);
    assert_string_equal(f->cfg.streams[0].events[0], "sched:c");

    tp_config_free(&f->cfg);
    tp_config_init(&f->cfg);                /* init after free is fine too */
    assert_pristine(&f->cfg);
}

/* ------------------------------------------------------------------ load */

static const char *make_file(struct fixture *f, const char *name,
                             const char *data, size_t len)
{
    if (!f->dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(f->dir, sizeof f->dir, "%s/tpconfXXXXXX",
                 tmp && strlen(tmp) < 40 ? tmp : "/tmp");
        assert_non_null(mkdtemp(f->dir));
    }
    assert_true(f->nfiles < MAX_FILES);
    char *path = f->files[f->nfiles++];
    snprintf(path, sizeof f->files[0], "%s/%s", f->dir, name);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
    return path;
}

static char *comment_lines(size_t len)
{
    char *s = malloc(len);
    assert_non_null(s);
    memset(s, '#', len);
    for (size_t i = 99; i < len; i += 100)
        s[i] = '\n';
    return s;
}

static void test_load_file(void **state)
{
    struct fixture *f = *state;
    const char *path;

    path = make_file(f, "good.conf", recovery_conf, strlen(recovery_conf));
    check_recovery(f, tp_config_load(&f->cfg, path, record, &f->log));

    reset(f);
    path = make_file(f, "empty.conf", "", 0);
    assert_int_equal(tp_config_load(&f->cfg, path, record, &f->log), 0);
    assert_pristine(&f->cfg);

    char *big = comment_lines(MIB + 1);
    reset(f);
    path = make_file(f, "exact.conf", big, MIB);
    assert_int_equal(tp_config_load(&f->cfg, path, record, &f->log), 0);
    reset(f);
    path = make_file(f, "big.conf", big, MIB + 1);
    assert_int_equal(tp_config_load(&f->cfg, path, record, &f->log), -EFBIG);
    free(big);

    /* Not regular files: read until EOF or the limit. */
    reset(f);
    assert_int_equal(tp_config_load(&f->cfg, "/dev/null", record, &f->log), 0);
    assert_int_equal(tp_config_load(&f->cfg, "/dev/zero", record, &f->log), -EFBIG);
    assert_int_equal(tp_config_load(&f->cfg, f->dir, record, &f->log), -EISDIR);

    char missing[128];
    snprintf(missing, sizeof missing, "%s/no-such.conf", f->dir);
    assert_int_equal(tp_config_load(&f->cfg, missing, record, &f->log), -ENOENT);
    assert_int_equal(f->log.n, 0);
    assert_pristine(&f->cfg);
}

/* ---------------------------------------------------------- pattern match */

static void test_pattern_match(void **state)
{
    static const struct {
        const char *pattern, *system, *event;
        bool want;
    } cases[] = {
        { "sched:sched_process_exec", "sched", "sched_process_exec", true },
        { "sched:sched_process_exec", "sched", "sched_process_exit", false },
        { "sched:sched_process_exec", "sche", "sched_process_exec", false },
        { "sched:*", "sched", "sched_switch", true },
        { "sched:*", "irq", "sched_switch", false },
        { "*:*", "irq", "irq_handler_entry", true },
        { "*:sched_switch", "sched", "sched_switch", true },
        { "sys*:sys_enter_*", "syscalls", "sys_enter_openat", true },
        { "sys*:sys_enter_*", "syscalls", "sys_exit_openat", false },
        { "sched:sched_process_e?ec", "sched", "sched_process_exec", true },
        { "sched:sched_process_e?ec", "sched", "sched_process_eec", false },
        { "?:x", "ab", "x", false },
        { "Sched:*", "sched", "sched_switch", false },
        { "sched:SCHED_SWITCH", "sched", "sched_switch", false },
        { "sched:sched", "sched", "sched_switch", false },   /* whole name */
        { "sched*", "sched", "sched_switch", false },        /* no ':' */
        { "", "sched", "x", false },
    };

    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool got = tp_pattern_match(cases[i].pattern, cases[i].system, cases[i].event);
        if (got != cases[i].want)
            fail_msg("'%s' vs %s:%s gave %d", cases[i].pattern, cases[i].system,
                     cases[i].event, got);
    }
    assert_false(tp_pattern_match(NULL, "sched", "x"));
    assert_false(tp_pattern_match("sched:*", NULL, "x"));
    assert_false(tp_pattern_match("sched:*", "sched", NULL));

    /* Patterns from the parser round-trip. */
    struct fixture *f = *state;
    parse_ok(f, "stream s sched:sched_*,irq:irq_handler_?ntry\n");
    const struct tp_config_stream *s = find(&f->cfg, "s");
    assert_true(tp_pattern_match(s->events[0], "sched", "sched_waking"));
    assert_true(tp_pattern_match(s->events[1], "irq", "irq_handler_entry"));
    assert_false(tp_pattern_match(s->events[1], "irq", "softirq_entry"));
}

/* ------------------------------------------------- the shipped config file */

#define PATH_SIZE 256

/* The tracepoint.conf at the top of the source tree, wherever we run from. */
static bool shipped_path(char path[PATH_SIZE])
{
    const char *file = __FILE__;
    const char *slash = strrchr(file, '/');
    const char *env = getenv("TP_SRCDIR");

    for (int i = 0; i < 4; i++) {
        if (i == 0 && env)
            snprintf(path, PATH_SIZE, "%s/tracepoint.conf", env);
        else if (i == 1 && slash)
            snprintf(path, PATH_SIZE, "%.*s/../tracepoint.conf",
                     (int)(slash - file), file);
        else
            snprintf(path, PATH_SIZE, "%stracepoint.conf", i == 3 ? "../" : "");
        if (access(path, R_OK) == 0)
            return true;
    }
    return false;
}

static void test_shipped_config(void **state)
{
    struct fixture *f = *state;
    char path[PATH_SIZE];

    if (!shipped_path(path))
        fail_msg("tracepoint.conf not found (set TP_SRCDIR)");
    int rc = tp_config_load(&f->cfg, path, record, &f->log);
    if (rc != 0)
        fail_msg("%s: %d (first: line %d: %s)", path, rc,
                 f->log.n ? f->log.e[0].line : 0, f->log.n ? f->log.e[0].reason : "");
    assert_int_equal(f->cfg.ring_size, 64u << 20);
    assert_int_equal(f->cfg.backlog, 10);
    assert_int_equal(f->cfg.kernel_buffer_kb, 1024);
    assert_int_equal(f->cfg.fetch_limit, 64u << 20);
    assert_int_equal(f->cfg.fetch_records, 0);
    assert_int_equal(f->cfg.nallow_groups, 0);
    assert_int_equal(f->cfg.nstreams, 1);
    const struct tp_config_stream *s = &f->cfg.streams[0];
    assert_string_equal(s->name, "exec");
    assert_int_equal(s->nevents, 1);
    assert_string_equal(s->events[0], "sched:sched_process_exec");
    assert_int_equal(s->access.kind, TP_ACCESS_ALL);
    assert_null(s->filter);
    assert_int_equal(f->cfg.naggs, 2);          /* the cheap ones are enabled */
    assert_string_equal(f->cfg.aggs[0].name, "execs");
    assert_string_equal(f->cfg.aggs[1].name, "bio");
    assert_int_equal(f->cfg.aggs[1].kind, TP_CONFIG_LATENCY);
}

/* Commented-out examples ("#directive ...") parse cleanly once enabled. */
static void test_shipped_examples(void **state)
{
    static const char *directives[] = {
        "ring_size ", "backlog ", "kernel_buffer_kb ", "allow_group ", "stream ",
        "count ", "sum ", "hist ", "latency ",
    };
    struct fixture *f = *state;
    char path[PATH_SIZE], line[TP_CONFIG_MAX_LINE + 2];
    char *out = malloc(MIB);
    size_t n = 0, examples = 0;

    assert_non_null(out);
    if (!shipped_path(path))
        fail_msg("tracepoint.conf not found (set TP_SRCDIR)");
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    while (fgets(line, sizeof line, fp)) {
        const char *p = line;
        for (size_t i = 0; line[0] == '#' && i < sizeof(directives) / sizeof(*directives); i++)
            if (strncmp(line + 1, directives[i], strlen(directives[i])) == 0) {
                p = line + 1;
                examples++;
            }
        size_t len = strlen(p);
        assert_true(n + len <= MIB);
        memcpy(out + n, p, len);
        n += len;
    }
    fclose(fp);
    int rc = parse_n(f, out, n);
    free(out);
    if (rc != 0)
        fail_msg("examples: %d rejected (first: line %d: %s)", rc,
                 f->log.e[0].line, f->log.e[0].reason);
    assert_true(examples >= 4);
    assert_true(f->cfg.nallow_groups >= 1);
    assert_true(f->cfg.nstreams >= 4);
    assert_true(f->cfg.naggs >= 5);
    const struct tp_config_stream *fork = find(&f->cfg, "fork");
    assert_int_equal(fork->nevents, 2);
    assert_string_equal(fork->events[0], "sched:sched_process_fork");
    assert_string_equal(fork->events[1], "sched:sched_process_exit");
    bool have_filter = false;
    for (size_t i = 0; i < f->cfg.nstreams; i++)
        if (f->cfg.streams[i].filter &&
            strcmp(f->cfg.streams[i].filter, "common_pid > 1") == 0)
            have_filter = true;
    assert_true(have_filter);
}

/* ----------------------------------------------------------- aggregations */

static void test_agg_directives(void **state)
{
    struct fixture *f = *state;
    parse_ok(f, "count sys raw_syscalls:sys_enter by id\n"
                "sum bytes syscalls:sys_enter_write count by fd,common_pid max_keys=10\n"
                "hist sizes syscalls:sys_enter_write,syscalls:sys_enter_pwrite64 count "
                "filter fd == 1 # kept\n"
                "latency runq sched:sched_waking sched:sched_switch on pid=next_pid "
                "max_pending=100 by comm\n"
                "count all sched:*\n"
                "latency bio block:block_rq_issue block:block_rq_complete on dev=dev,sector=sector "
                "by dev\n");
    assert_int_equal(f->cfg.naggs, 6);
    assert_string_equal(f->cfg.aggs[5].field2, "sector");
    assert_string_equal(f->cfg.aggs[5].end_field2, "sector");
    assert_null(f->cfg.aggs[3].field2);
    const struct tp_config_agg *a = &f->cfg.aggs[0];
    assert_string_equal(a->name, "sys");
    assert_int_equal(a->kind, TP_CONFIG_COUNT);
    assert_int_equal(a->nevents, 1);
    assert_null(a->field);
    assert_int_equal(a->nby, 1);
    assert_string_equal(a->by[0], "id");
    assert_int_equal(a->max_keys, TP_CONFIG_DEFAULT_MAX_KEYS);
    assert_string_equal(a->text, "count sys raw_syscalls:sys_enter by id");
    assert_int_equal(a->line, 1);
    a = &f->cfg.aggs[1];
    assert_int_equal(a->kind, TP_CONFIG_SUM);
    assert_string_equal(a->field, "count");
    assert_int_equal(a->nby, 2);
    assert_string_equal(a->by[1], "common_pid");
    assert_int_equal(a->max_keys, 10);
    a = &f->cfg.aggs[2];
    assert_int_equal(a->kind, TP_CONFIG_HIST);
    assert_int_equal(a->nevents, 2);
    assert_string_equal(a->filter, "fd == 1 # kept");
    a = &f->cfg.aggs[3];
    assert_int_equal(a->kind, TP_CONFIG_LATENCY);
    assert_string_equal(a->events[0], "sched:sched_waking");
    assert_string_equal(a->ends[0], "sched:sched_switch");
    assert_string_equal(a->field, "pid");
    assert_string_equal(a->end_field, "next_pid");
    assert_int_equal(a->max_pending, 100);
    assert_int_equal(f->cfg.aggs[4].nby, 0);
    assert_true(tp_config_agg_same(&f->cfg.aggs[0], &f->cfg.aggs[0]));
    assert_false(tp_config_agg_same(&f->cfg.aggs[0], &f->cfg.aggs[4]));
}

static void test_agg_bad_directives(void **state)
{
    struct fixture *f = *state;
    static const struct { const char *text; const char *why; } bad[] = {
        { "count", "missing name" },
        { "count 9x sched:*", "bad name" },
        { "count a.b sched:*", "bad name" },
        { "count x", "missing events" },
        { "count x sched", "expected system:event" },
        { "sum x sched:*", "missing the field" },
        { "sum x sched:* by pid", "missing the field" },
        { "hist x sched:* 1x", "bad field" },
        { "count x sched:* by", "'by' needs" },
        { "count x sched:* by a,a", "named twice" },
        { "count x sched:* by a,b,c,d,e", "more than 4" },
        { "count x sched:* by a-b", "bad key field" },
        { "count x sched:* max_keys=0", "bad max_keys=0" },
        { "count x sched:* max_keys=70000", "range 1..65536" },
        { "count x sched:* max_pending=5", "unexpected 'max_pending=5'" },
        { "count x sched:* by a by b", "unexpected 'by'" },
        { "count x sched:* filter", "filter needs an expression" },
        { "count x sched:* junk", "unexpected 'junk'" },
        { "latency x sched:a", "missing end events" },
        { "latency x sched:a sched:b", "expected 'on" },
        { "latency x sched:a sched:b on pid", "expected START_FIELD=END_FIELD" },
        { "latency x sched:a sched:b on pid=", "bad end field" },
        { "latency x sched:a sched:b on =pid", "bad start field" },
        { "latency x sched:a sched:b on a=b,c", "expected START_FIELD=END_FIELD" },
        { "latency x sched:a sched:b on a=b,c=d,e=f", "at most two" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        reset(f);
        expect_one_reject(f, bad[i].text, 1, bad[i].why);
        assert_int_equal(f->cfg.naggs, 0);
    }
    reset(f);
    assert_int_equal(parse(f, "count x sched:*\ncount x sched:a\n"), 1);
    assert_report(f, 0, 2, "duplicate name (first defined on line 1)");
    assert_int_equal(f->cfg.naggs, 1);
    reset(f);
    parse_ok(f, "stream x sched:*\ncount x sched:*\n");     /* streams are another namespace */
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_init_defaults),
        T(test_fetch_limit),
        T(test_producer_nice),
        T(test_empty_and_comment_only),
        T(test_ring_size_valid),
        T(test_ring_size_invalid),
        T(test_backlog_valid),
        T(test_backlog_invalid),
        T(test_kernel_buffer_kb_valid),
        T(test_kernel_buffer_kb_invalid),
        T(test_scalar_last_wins),
        T(test_allow_group_valid),
        T(test_allow_group_invalid),
        T(test_stream_single_event),
        T(test_stream_event_list),
        T(test_stream_globs),
        T(test_stream_bad_patterns),
        T(test_stream_pattern_length),
        T(test_stream_names_valid),
        T(test_stream_names_invalid),
        T(test_stream_access_variants),
        T(test_stream_access_invalid),
        T(test_probe_access),
        T(test_probe_access_invalid),
        T(test_stream_params),
        T(test_stream_filter),
        T(test_stream_filter_limits),
        T(test_stream_filter_invalid),
        T(test_stream_missing_and_extra),
        T(test_stream_duplicate_name),
        T(test_rejected_stream_leaves_nothing),
        T(test_line_numbers_and_recovery),
        T(test_unknown_directive),
        T(test_reason_sanitised),
        T(test_comments_and_blanks),
        T(test_crlf),
        T(test_no_trailing_newline),
        T(test_overlong_line),
        T(test_nul_byte),
        T(test_log_optional),
        T(test_bad_arguments),
        T(test_free_and_reuse),
        T(test_load_file),
        T(test_pattern_match),
        T(test_shipped_config),
        T(test_shipped_examples),
        T(test_agg_directives),
        T(test_agg_bad_directives),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
