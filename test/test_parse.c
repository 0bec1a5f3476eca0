/*
 * Unit tests of the pure parsing helpers: a tracepoint field's kind and PCP
 * type from its format, and the kernel loss counters from a per-CPU stats
 * file.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <pcp/pmapi.h>
#include <traceevent/event-parse.h>

#include "tp_catalog.h"
#include "tp_decode.h"
#include "tp_tracefs.h"

struct classify_case {
    unsigned long flags;
    const char *type;
    int size;
    enum tp_field_kind kind;
    int pmtype;
};

static void test_classify(void **state)
{
    (void)state;
    const unsigned long A = TEP_FIELD_IS_ARRAY, S = TEP_FIELD_IS_SIGNED,
                        D = TEP_FIELD_IS_DYNAMIC, R = TEP_FIELD_IS_RELATIVE,
                        P = TEP_FIELD_IS_POINTER, STR = TEP_FIELD_IS_STRING;
    const struct classify_case cases[] = {
        { S, "int", 4, TP_FIELD_INT, PM_TYPE_32 },
        { S, "pid_t", 4, TP_FIELD_INT, PM_TYPE_32 },
        { 0, "unsigned int", 4, TP_FIELD_UINT, PM_TYPE_U32 },
        { S, "short", 2, TP_FIELD_INT, PM_TYPE_32 },
        { 0, "u8", 1, TP_FIELD_UINT, PM_TYPE_U32 },
        { S, "s8", 1, TP_FIELD_INT, PM_TYPE_32 },
        { S, "long", 8, TP_FIELD_INT, PM_TYPE_64 },
        { 0, "u64", 8, TP_FIELD_UINT, PM_TYPE_U64 },
        { P, "void *", 8, TP_FIELD_UINT, PM_TYPE_U64 },
        { P | S, "const char *", 8, TP_FIELD_UINT, PM_TYPE_U64 },
        { A | STR, "char[16]", 16, TP_FIELD_STRING, PM_TYPE_STRING },
        { A | STR | S, "char[16]", 16, TP_FIELD_STRING, PM_TYPE_STRING },
        { A, "char[]", 0, TP_FIELD_STRING, PM_TYPE_STRING },
        { A | STR, "u8[6]", 6, TP_FIELD_BYTES, PM_TYPE_AGGREGATE },
        { A, "unsigned char[4]", 4, TP_FIELD_BYTES, PM_TYPE_AGGREGATE },
        { A, "unsigned long[6]", 48, TP_FIELD_BYTES, PM_TYPE_AGGREGATE },
        { A | D | STR, "__data_loc char[]", 4, TP_FIELD_DLOC_STRING, PM_TYPE_STRING },
        { A | D | R | STR, "__rel_loc char[]", 4, TP_FIELD_RLOC_STRING, PM_TYPE_STRING },
        { A | D, "__data_loc u64[]", 4, TP_FIELD_DLOC_BYTES, PM_TYPE_AGGREGATE },
        { A | D | R, "__rel_loc u32[]", 4, TP_FIELD_RLOC_BYTES, PM_TYPE_AGGREGATE },
        { 0, "struct foo", 16, TP_FIELD_BYTES, PM_TYPE_AGGREGATE },
        { 0, "u32", 3, TP_FIELD_BYTES, PM_TYPE_AGGREGATE },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int pmtype = -1;
        enum tp_field_kind k = tp_field_classify(cases[i].flags, cases[i].type,
                                                 cases[i].size, &pmtype);
        if (k != cases[i].kind || pmtype != cases[i].pmtype)
            fail_msg("case %zu (%s, size %d): kind %d type %d, want kind %d type %d", i,
                     cases[i].type, cases[i].size, k, pmtype, cases[i].kind, cases[i].pmtype);
    }
}

static const char stats_text[] =
    "entries: 12\n"
    "overrun: 34\n"
    "commit overrun: 999\n"
    "bytes: 2048\n"
    "oldest event ts:  1234.567890\n"
    "now ts:  1235.000000\n"
    "dropped events: 56\n"
    "read events: 78\n";

static void test_stats(void **state)
{
    (void)state;
    uint64_t overrun = 0, dropped = 0;
    assert_int_equal(tp_parse_cpu_stats(stats_text, &overrun, &dropped), 0);
    assert_int_equal(overrun, 34);      /* not "commit overrun" */
    assert_int_equal(dropped, 56);
}

static void test_stats_overrun_first_line(void **state)
{
    (void)state;
    uint64_t overrun = 0, dropped = 0;
    assert_int_equal(tp_parse_cpu_stats("overrun: 7\ndropped events: 0\n", &overrun, &dropped), 0);
    assert_int_equal(overrun, 7);
    assert_int_equal(dropped, 0);
}

static void test_stats_bad(void **state)
{
    (void)state;
    uint64_t o, d;
    assert_int_equal(tp_parse_cpu_stats("", &o, &d), -EINVAL);
    assert_int_equal(tp_parse_cpu_stats("entries: 1\ncommit overrun: 3\ndropped events: 1\n", &o, &d),
                     -EINVAL);
    assert_int_equal(tp_parse_cpu_stats("overrun: x\ndropped events: 1\n", &o, &d), -EINVAL);
    assert_int_equal(tp_parse_cpu_stats("overrun: 1\n", &o, &d), -EINVAL);
}

/* events/header_page as a 64-bit and a 32-bit kernel write it. */
static const char header64[] =
    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
static const char header32[] =
    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    "\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
    "\tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n";

static void test_header_page(void **state)
{
    (void)state;
    struct tp_page_layout l;
    assert_int_equal(tp_parse_header_page(header64, &l), 0);
    assert_int_equal(l.commit_offset, 8);
    assert_int_equal(l.commit_size, 8);
    assert_int_equal(l.data_offset, 16);
    assert_int_equal(tp_parse_header_page(header32, &l), 0);
    assert_int_equal(l.commit_size, 4);
    assert_int_equal(l.data_offset, 12);
    assert_int_equal(tp_parse_header_page("", &l), -EINVAL);
    assert_int_equal(tp_parse_header_page("\tfield: u64 timestamp;\toffset:0;\tsize:8;\n"
                                          "\tfield: local_t commit;\toffset:8;\tsize:2;\n"
                                          "\tfield: char data;\toffset:16;\tsize:8;\n", &l),
                     -EINVAL);      /* a 2-byte commit word */
    assert_int_equal(tp_parse_header_page("\tfield: u64 timestamp;\toffset:0;\tsize:8;\n"
                                          "\tfield: local_t commit;\toffset:8;\tsize:8;\n"
                                          "\tfield: char data;\toffset:12;\tsize:8;\n", &l),
                     -EINVAL);      /* data inside the commit word */
}

static unsigned nevents;
static uint32_t last_size;
static uint64_t last_ts;

static void count_event(void *arg, const void *data, uint32_t size, uint64_t ts)
{
    (void)arg;
    (void)data;
    nevents++;
    last_size = size;
    last_ts = ts;
}

/* One page of two 8-byte events, in either layout: the same events come out. */
static void test_decode_layouts(void **state)
{
    (void)state;
    struct tp_page_layout l64, l32;
    assert_int_equal(tp_parse_header_page(header64, &l64), 0);
    assert_int_equal(tp_parse_header_page(header32, &l32), 0);
    const struct tp_page_layout *lays[] = { &l64, &l32 };
    for (int k = 0; k < 2; k++) {
        uint64_t page[16] = { 0 };
        unsigned char *p = (unsigned char *)page;
        uint64_t base = 1000;
        memcpy(p, &base, 8);
        uint32_t commit = 2 * 12;               /* two entries of a word and 8 bytes */
        memcpy(p + 8, &commit, 4);              /* low bytes: little-endian either way */
        unsigned char *d = p + lays[k]->data_offset;
        for (int e = 0; e < 2; e++) {
            uint32_t word = 2u | (5u << 5);     /* type_len 2 (8 bytes), delta 5 */
            memcpy(d + 12 * e, &word, 4);
            memset(d + 12 * e + 4, 0x11 * (e + 1), 8);
        }
        int truncated;
        nevents = 0;
        long len = tp_decode_page(page, lays[k]->data_offset + 24, lays[k], count_event, NULL,
                                  &truncated);
        assert_int_equal(len, 24);
        assert_int_equal(truncated, 0);
        assert_int_equal(nevents, 2);
        assert_int_equal(last_size, 8);
        assert_int_equal(last_ts, 1010);
        /* a page shorter than its header is refused */
        assert_int_equal(tp_decode_page(page, lays[k]->data_offset - 1, lays[k], count_event,
                                        NULL, &truncated), -EINVAL);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classify),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_stats_overrun_first_line),
        cmocka_unit_test(test_stats_bad),
        cmocka_unit_test(test_header_page),
        cmocka_unit_test(test_decode_layouts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
