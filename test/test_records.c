/*
 * Unit tests for tp_records (src/records.c): ring entries to event records,
 * and the room reserved for them.  The catalog is read from a made-up
 * tracing directory holding one event with a string field before two
 * numbers (sched_process_exec's layout).
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tp_records.h"
#include "tp_fake_tracefs.h"

static const char format[] =
    "name: sched_process_exec\n"
    "ID: 365\n"
    "format:\n"
    TP_FAKE_COMMON_FIELDS
    "\n"
    "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
    "\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
    "\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n"
    "\n"
    "print fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, "
    "REC->old_pid\n";

/* Integers first, then a string and one integer more (sys_enter_*'s layout, grown). */
static const char ints_format[] =
    "name: ints\n"
    "ID: 366\n"
    "format:\n"
    TP_FAKE_COMMON_FIELDS
    "\n"
    "\tfield:s8 a;\toffset:8;\tsize:1;\tsigned:1;\n"
    "\tfield:unsigned short b;\toffset:10;\tsize:2;\tsigned:0;\n"
    "\tfield:int c;\toffset:12;\tsize:4;\tsigned:1;\n"
    "\tfield:u64 d;\toffset:16;\tsize:8;\tsigned:0;\n"
    "\tfield:char name[8];\toffset:24;\tsize:8;\tsigned:0;\n"
    "\tfield:int e;\toffset:32;\tsize:4;\tsigned:1;\n"
    "\n"
    "print fmt: \"a=%d\", REC->a\n";

struct fixture {
    char dir[64];
    int exec, ints;                 /* the catalog indexes of the two events */
    pmID ints_pmids[6];
    struct tp_field_ids ints_fids;
    struct tp_catalog *cat;
    struct tp_ring *ring;
    struct tp_clock clock;
    pmID pmids[3];
    struct tp_field_ids fids;
    struct tp_param_ids ids;
    struct tp_render *render;
    struct tp_fill_src src;
};

static const struct tp_field_ids *fields_of(void *arg, uint32_t event)
{
    struct fixture *f = arg;
    return (int)event == f->ints ? &f->ints_fids : &f->fids;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    if (!f || tp_fake_tracefs(f->dir, "tprecords") < 0)
        return -1;
    tp_fake_event(f->dir, "sched", "sched_process_exec", format);
    tp_fake_event(f->dir, "raw", "ints", ints_format);
    if (tp_catalog_create(&f->cat, f->dir) < 0 ||
        (f->exec = tp_catalog_find(f->cat, "sched", "sched_process_exec")) < 0 ||
        tp_catalog_load(f->cat, (size_t)f->exec) < 0 || tp_ring_create(&f->ring, 1 << 20) < 0)
        return -1;
    if ((f->ints = tp_catalog_find(f->cat, "raw", "ints")) < 0 ||
        tp_catalog_load(f->cat, (size_t)f->ints) < 0)
        return -1;
    for (unsigned i = 0; i < 6; i++)
        f->ints_pmids[i] = (pmID)(0x7a5e0200 + i);
    f->ints_fids = (struct tp_field_ids){ f->ints_pmids, 6 };
    tp_clock_init(&f->clock, 0);
    for (unsigned i = 0; i < 3; i++)
        f->pmids[i] = (pmID)(0x7a5e0100 + i);     /* any numbers that stand out will do */
    f->fids = (struct tp_field_ids){ f->pmids, 3 };
    f->ids.fields = fields_of;
    f->ids.arg = f;
    for (unsigned i = 0; i < TP_NCOMMON; i++)
        f->ids.common[i] = (pmID)(0x7a5e0010 + i);
    if (tp_render_create(&f->render, f->cat, f->dir) < 0)
        return -1;
    f->src = (struct tp_fill_src){ .ids = &f->ids, .ring = f->ring, .cat = f->cat,
                                   .clock = &f->clock, .render = f->render,
                                   .with = TP_WITH_DEFAULT };
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    tp_ring_destroy(f->ring);
    tp_render_destroy(f->render);
    tp_catalog_destroy(f->cat);
    if (tp_fake_tracefs_remove(f->dir) < 0)
        return -1;
    free(f);
    return 0;
}

/* An exec event of a file name of len bytes into the ring, for slot 0, its pid named comm. */
static void append_named(struct fixture *f, size_t len, uint64_t ts, const char *comm)
{
    unsigned char rec[512];
    memset(rec, 0, sizeof(rec));
    uint16_t type = 365;
    int32_t pid = 4242;
    uint32_t loc = 20u | (uint32_t)(len + 1) << 16;
    memcpy(rec, &type, 2);
    memcpy(rec + 4, &pid, 4);
    memcpy(rec + 8, &loc, 4);
    memcpy(rec + 12, &pid, 4);
    memcpy(rec + 16, &pid, 4);
    memset(rec + 20, 'x', len);
    struct tp_event_meta m = { .ts = ts, .event = (uint32_t)f->exec, .cpu = 1, .clock = 0, .mask = 1,
                               .comm = comm };
    assert_int_equal(tp_ring_append(f->ring, &m, rec, (uint32_t)(20 + len + 1)), 0);
}

static void append_exec(struct fixture *f, size_t len, uint64_t ts)
{
    append_named(f, len, ts, NULL);
}

/* Bytes an exec record takes but for its file name's value. */
static size_t fixed_room(const struct fixture *f)
{
    const struct tp_event *e = tp_catalog_event(f->cat, (size_t)f->exec);
    return TP_ENC_RECORD_BYTES + tp_enc_param_bytes(e->fullname_len) +
           2 * tp_enc_param_bytes(4) + tp_enc_param_bytes(8) + 3 * tp_enc_param_bytes(8);
}

/*
 * An array whose buffer ends exactly where the record's fixed room does:
 * the file name (longer than the slot counted for it) must make the array
 * grow before the numbers after it are written.  Bytes past the buffer's
 * end are a canary that only a write out of bounds can change.
 */
static void test_string_before_numbers_fits(void **state)
{
    struct fixture *f = *state;
    for (size_t len = 0; len < 64; len++) {
        struct tp_enc enc;
        struct tp_cursor c;
        struct tp_fill_result res = { 0 };
        unsigned budget = 100;
        size_t cap = TP_ENC_ARRAY_BYTES + fixed_room(f);
        tp_enc_init(&enc);
        enc.buf = malloc(cap + 64);
        enc.cap = cap;
        assert_non_null(enc.buf);
        memset(enc.buf + cap, 0xAA, 64);
        unsigned char *first = enc.buf;
        assert_int_equal(tp_enc_reset(&enc), 0);
        append_exec(f, len, 1000 + len);
        tp_cursor_init(f->ring, &c, 0, 1000 + len);     /* this event alone */
        int rc = tp_records_fill(&f->src, &enc, &c, 1 << 20, 1000, &budget, &res);
        assert_int_equal(rc, TP_FILL_DONE);
        assert_int_equal(res.records, 1);
        if (enc.buf == first && enc.cap == cap)
            for (size_t i = 0; i < 64; i++)
                if (first[cap + i] != 0xAA)
                    fail_msg("file name of %zu bytes: written %zu bytes past the array", len,
                             i + 1);
        assert_int_equal(tp_enc_check(tp_enc_finish(&enc)), -1);
        tp_enc_release(&enc);
    }
}

/* Fills enc from c until the cursor is done, 100 records a pass; the number of records. */
static size_t fill_all(struct fixture *f, struct tp_enc *enc, struct tp_cursor *c, size_t max)
{
    struct tp_fill_result res = { 0 };
    int rc;
    do {
        unsigned budget = 100;
        rc = tp_records_fill(&f->src, enc, c, 1 << 22, max, &budget, &res);
    } while (rc == TP_FILL_MORE);
    assert_int_equal(rc, TP_FILL_DONE);
    return res.records;
}

/* Many records of every length into one growing array: each is whole. */
static void test_many_records_whole(void **state)
{
    struct fixture *f = *state;
    struct tp_enc enc;
    struct tp_cursor c = { 0 };
    tp_enc_init(&enc);
    assert_int_equal(tp_enc_reset(&enc), 0);
    for (size_t i = 0; i < 2000; i++)
        append_exec(f, i % 200, 5000 + i);
    tp_cursor_init(f->ring, &c, 0, 5000);
    assert_int_equal(fill_all(f, &enc, &c, 100000), 2000);
    assert_int_equal(tp_enc_check(tp_enc_finish(&enc)), -1);
    tp_enc_release(&enc);
}

static bool has(const struct tp_enc *enc, const void *what, size_t len)
{
    return memmem(enc->buf, enc->len, what, len) != NULL;
}

/* One exec record carrying what `with` says, into a fresh array. */
static void fill_one(struct fixture *f, unsigned with, uint64_t ts, const char *comm,
                     struct tp_enc *enc)
{
    struct tp_cursor c;
    tp_enc_init(enc);
    assert_int_equal(tp_enc_reset(enc), 0);
    append_named(f, 3, ts, comm);
    tp_cursor_init(f->ring, &c, 0, ts);
    f->src.with = with;
    assert_int_equal(fill_all(f, enc, &c, 1000), 1);
    f->src.with = TP_WITH_DEFAULT;
    assert_int_equal(tp_enc_check(tp_enc_finish(enc)), -1);
}

/* A raw:ints event of len bytes (36 whole) for slot 0 on CPU 3. */
static void append_ints(struct fixture *f, uint32_t len, uint64_t ts)
{
    unsigned char rec[36];
    uint16_t type = 366;
    int32_t pid = -7, c = -70000, e = -1;
    int8_t a = -3;
    uint16_t b = 65000;
    uint64_t d = 0x1122334455667788ull;
    memset(rec, 0, sizeof(rec));
    memcpy(rec, &type, 2);
    memcpy(rec + 4, &pid, 4);
    memcpy(rec + 8, &a, 1);
    memcpy(rec + 10, &b, 2);
    memcpy(rec + 12, &c, 4);
    memcpy(rec + 16, &d, 8);
    memcpy(rec + 24, "abc", 3);
    memcpy(rec + 32, &e, 4);
    struct tp_event_meta m = { .ts = ts, .event = (uint32_t)f->ints, .cpu = 3, .clock = 0,
                               .mask = 1 };
    assert_int_equal(tp_ring_append(f->ring, &m, rec, len), 0);
}

/* The parameter count of the record at `at`, and the bytes it takes. */
static int record_params(const struct tp_enc *enc, size_t at)
{
    pmEventRecord r;
    memcpy(&r, enc->buf + at, TP_ENC_RECORD_BYTES);
    return r.er_nparams;
}

static size_t record_bytes(const struct tp_enc *enc, size_t at)
{
    size_t n = TP_ENC_RECORD_BYTES;
    for (int i = record_params(enc, at); i > 0; i--) {
        pmEventParameter p;
        memcpy(&p, enc->buf + at + n, sizeof(p));
        n += tp_enc_param_bytes(p.ep_len - PM_VAL_HDR_SIZE);
    }
    return n;
}

/* The same record as append_ints' written parameter by parameter: its fields up to len. */
static void expect_ints(struct fixture *f, struct tp_enc *x, uint32_t len, uint64_t ts)
{
    const struct tp_event *ev = tp_catalog_event(f->cat, (size_t)f->ints);
    const pmID *c = f->ids.common, *p = f->ints_pmids;
    uint64_t wall = tp_clock_wall(&f->clock, 0, ts);
    assert_int_equal(tp_enc_reserve(x, 512), 0);
    tp_enc_record(x, wall, PM_EVENT_FLAG_POINT);
    tp_enc_param_data(x, c[TP_PARAM_EVENT], PM_TYPE_STRING, ev->fullname, ev->fullname_len);
    tp_enc_param_int(x, c[TP_PARAM_CPU], PM_TYPE_U32, 3);
    tp_enc_param_int(x, c[TP_PARAM_PID], PM_TYPE_32, (uint32_t)-7);
    tp_enc_param_int(x, c[TP_PARAM_TIME_NS], PM_TYPE_U64, wall);
    tp_enc_param_int(x, p[0], PM_TYPE_32, (uint64_t)-3);
    tp_enc_param_int(x, p[1], PM_TYPE_U32, 65000);
    if (len >= 16)
        tp_enc_param_int(x, p[2], PM_TYPE_32, (uint64_t)-70000);
    if (len >= 24)
        tp_enc_param_int(x, p[3], PM_TYPE_U64, 0x1122334455667788ull);
    if (len >= 32)
        tp_enc_param_data(x, p[4], PM_TYPE_STRING, "abc", 3);
    if (len >= 36)
        tp_enc_param_int(x, p[5], PM_TYPE_32, (uint64_t)-1);
}

/*
 * Records of an event whose first fields are integers, whole, cut short
 * within the integers and after them, and between records of another
 * event: the bytes are those of the same parameters written one by one.
 */
static void test_shaped_records_same_bytes(void **state)
{
    enum { T0 = 1000000 };          /* after every other test's events: it runs last */
    struct fixture *f = *state;
    static const uint32_t lens[] = { 36, 20, 36, 28, 12, 36 };   /* 12: c is cut off */
    struct tp_enc enc, want;
    struct tp_cursor cur;
    const struct tp_event *ev = tp_catalog_event(f->cat, (size_t)f->ints);
    static const int types[] = { PM_TYPE_32, PM_TYPE_U32, PM_TYPE_32, PM_TYPE_U64,
                                 PM_TYPE_STRING, PM_TYPE_32 };
    for (unsigned i = 0; i < 6; i++)
        assert_int_equal(ev->fields[i].pmtype, types[i]);
    tp_enc_init(&enc);
    tp_enc_init(&want);
    assert_int_equal(tp_enc_reset(&enc), 0);
    assert_int_equal(tp_enc_reset(&want), 0);
    for (unsigned i = 0; i < 6; i++) {
        append_ints(f, lens[i], T0 + 2 * i);
        append_exec(f, i, T0 + 2 * i + 1);
    }
    tp_cursor_init(f->ring, &cur, 0, T0);
    assert_int_equal(fill_all(f, &enc, &cur, 1000), 12);
    size_t at = TP_ENC_ARRAY_BYTES;
    for (unsigned i = 0; i < 6; i++) {
        size_t before = want.len;
        expect_ints(f, &want, lens[i], T0 + 2 * i);
        assert_memory_equal(enc.buf + at, want.buf + before, want.len - before);
        at += want.len - before;
        assert_int_equal(record_params(&enc, at), 4 + 3);   /* then an exec record */
        at += record_bytes(&enc, at);
    }
    assert_int_equal(at, enc.len);
    assert_int_equal(tp_enc_check(tp_enc_finish(&enc)), -1);
    tp_enc_release(&enc);
    tp_enc_release(&want);
}

/* Name and text when asked for, in place of the fields or with them. */
static void test_comm_and_text(void **state)
{
    struct fixture *f = *state;
    static const char text[] = "filename=xxx pid=4242 old_pid=4242";
    pmID field = f->pmids[1], comm = f->ids.common[TP_PARAM_COMM];
    struct tp_enc enc;

    fill_one(f, TP_WITH_COMM | TP_WITH_TEXT, 9000, "tpgen", &enc);
    assert_true(has(&enc, "tpgen", 5));
    assert_true(has(&enc, text, sizeof(text) - 1));
    assert_false(has(&enc, &field, sizeof(field)));
    tp_enc_release(&enc);

    fill_one(f, TP_WITH_ALL, 9001, "tpgen", &enc);
    assert_true(has(&enc, &field, sizeof(field)) && has(&enc, &comm, sizeof(comm)));
    assert_true(has(&enc, text, sizeof(text) - 1));
    tp_enc_release(&enc);

    fill_one(f, TP_WITH_DEFAULT, 9002, "tpgen", &enc);
    assert_false(has(&enc, &comm, sizeof(comm)) || has(&enc, text, sizeof(text) - 1));
    tp_enc_release(&enc);

    fill_one(f, TP_WITH_COMM, 9003, NULL, &enc);   /* read before names were wanted */
    assert_true(has(&enc, TP_COMM_UNKNOWN, strlen(TP_COMM_UNKNOWN)));
    tp_enc_release(&enc);
}

/*
 * A stack with the event: one frame a line, innermost first, as %pS prints
 * them (module frames with their module, unknown addresses in hex); only
 * for a consumer that asks, and no parameter for an event without one.
 */
static void test_stack_param(void **state)
{
    struct fixture *f = *state;
    static const char syms[] =
        "ffffffff81000000 T do_syscall_64\n"
        "ffffffff81000100 T entry_SYSCALL_64_after_hwframe\n"
        "ffffffffc0001000 t ext4_write\t[ext4]\n"
        "ffffffffc0002000 t ext4_end\t[ext4]\n";
    assert_int_equal(tp_render_load_symbols(f->render, syms), 0);
    unsigned char rec[24] = { 0 };
    uint16_t type = 365;
    memcpy(rec, &type, 2);
    uint64_t frames[4] = { 0xffffffffc0001010ull, 0xffffffff8100001aull,
                           0xffffffff81000176ull, 0x10 };
    struct tp_event_meta m = { .ts = 20000, .mask = 1, .frames = frames, .nframes = 4 };
    assert_int_equal(tp_ring_append(f->ring, &m, rec, sizeof(rec)), 0);
    m = (struct tp_event_meta){ .ts = 20001, .mask = 1 };
    assert_int_equal(tp_ring_append(f->ring, &m, rec, sizeof(rec)), 0);
    static const char want[] = "ext4_write+0x10 [ext4]\ndo_syscall_64+0x1a\n"
                               "entry_SYSCALL_64_after_hwframe+0x76\n0x10";
    /* symbols loaded again: the frames' texts remembered before are not used */
    static const char syms2[] =
        "ffffffff81000000 T renamed_fn\n"
        "ffffffff81000100 T renamed_entry\n"
        "ffffffffc0001000 t ext4_write\t[ext4]\n"
        "ffffffffc0002000 t ext4_end\t[ext4]\n";
    static const char want2[] = "ext4_write+0x10 [ext4]\nrenamed_fn+0x1a\n"
                                "renamed_entry+0x76\n0x10";
    pmID stack = f->ids.common[TP_PARAM_STACK];
    for (int round = 0; round < 3; round++) {
        int with = round > 0;
        if (round == 2) {
            assert_int_equal(tp_render_load_symbols(f->render, syms2), 0);
            assert_int_equal(tp_ring_append(f->ring, &(struct tp_event_meta){
                .ts = 20002, .mask = 1, .frames = frames, .nframes = 4 }, rec, sizeof(rec)), 0);
        }
        struct tp_enc enc;
        struct tp_cursor c;
        tp_enc_init(&enc);
        assert_int_equal(tp_enc_reset(&enc), 0);
        tp_cursor_init(f->ring, &c, 0, round == 2 ? 20002 : 20000);
        f->src.with = with ? TP_WITH_DEFAULT | TP_WITH_STACK : TP_WITH_DEFAULT;
        assert_int_equal(fill_all(f, &enc, &c, 1000), round == 2 ? 1 : 2);
        if (round == 2)
            assert_true(has(&enc, want2, sizeof(want2) - 1));
        else
            assert_int_equal(has(&enc, want, sizeof(want) - 1), with);
        assert_int_equal(has(&enc, &stack, sizeof(stack)), with);
        assert_int_equal(tp_enc_check(tp_enc_finish(&enc)), -1);
        tp_enc_release(&enc);
    }
    f->src.with = TP_WITH_DEFAULT;
}

static void test_with_words(void **state)
{
    (void)state;
    unsigned w = 99;
    char err[128], buf[64];
    assert_int_equal(tp_with_parse("text, comm", &w, err, sizeof(err)), 0);
    assert_int_equal(w, TP_WITH_COMM | TP_WITH_TEXT);
    tp_with_format(w, buf, sizeof(buf));
    assert_string_equal(buf, "comm,text");
    assert_int_equal(tp_with_parse("none", &w, err, sizeof(err)), 0);
    assert_int_equal(w, 0);
    tp_with_format(w, buf, sizeof(buf));
    assert_string_equal(buf, "none");
    assert_int_equal(tp_with_parse("  ", &w, err, sizeof(err)), 0);
    assert_int_equal(w, TP_WITH_DEFAULT);
    assert_int_equal(tp_with_parse("fields,txt", &w, err, sizeof(err)), PM_ERR_BADSTORE);
    assert_non_null(strstr(err, "'txt'"));
    assert_int_equal(tp_with_parse("none,comm", &w, err, sizeof(err)), PM_ERR_BADSTORE);
    assert_int_equal(tp_with_parse("fields,stack", &w, err, sizeof(err)), 0);
    assert_int_equal(w, TP_WITH_FIELDS | TP_WITH_STACK);
    tp_with_format(w, buf, sizeof(buf));
    assert_string_equal(buf, "fields,stack");
    tp_with_format(TP_WITH_ALL, buf, sizeof(buf));
    assert_string_equal(buf, "fields,comm,text,stack");
    assert_int_equal(tp_with_parse("stacks", &w, err, sizeof(err)), PM_ERR_BADSTORE);
    assert_non_null(strstr(err, "stack or none"));
    /* a reason never carries a control byte, and quotes at most 32 bytes */
    assert_int_equal(tp_with_parse("acc\033ss\x7f", &w, err, sizeof(err)), PM_ERR_BADSTORE);
    assert_non_null(strstr(err, "'acc?ss?'"));
    assert_int_equal(tp_with_parse("abcdefghijklmnopqrstuvwxyz0123456789", &w, err, sizeof(err)),
                     PM_ERR_BADSTORE);
    assert_non_null(strstr(err, "'abcdefghijklmnopqrstuvwxyz012345...'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_string_before_numbers_fits),
        cmocka_unit_test(test_many_records_whole),
        cmocka_unit_test(test_comm_and_text),
        cmocka_unit_test(test_stack_param),
        cmocka_unit_test(test_with_words),
        cmocka_unit_test(test_shaped_records_same_bytes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
