/*
 * Unit tests for client/json.c: RFC 8259 strings (control characters,
 * quotes, backslashes, invalid UTF-8 as U+FFFD per maximal subpart) and
 * arrays of numbers from raw bytes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static char out[4096];

static const char *str(const char *s, size_t len)
{
    FILE *f = fmemopen(out, sizeof(out), "w");
    assert_non_null(f);
    put_json_string(f, s, len);
    fclose(f);
    return out;
}

#define STR(lit) str(lit, sizeof(lit) - 1)

static void test_plain(void **state)
{
    (void)state;
    assert_string_equal(STR(""), "\"\"");
    assert_string_equal(STR("bash"), "\"bash\"");
    assert_string_equal(STR("a/b"), "\"a/b\"");             /* '/' needs no escape */
    assert_string_equal(STR("\"q\" \\b"), "\"\\\"q\\\" \\\\b\"");
}

static void test_controls(void **state)
{
    (void)state;
    assert_string_equal(STR("\n\t\r\b\f"), "\"\\u000a\\u0009\\u000d\\u0008\\u000c\"");
    assert_string_equal(STR("\x01\x1f\x7f"), "\"\\u0001\\u001f\\u007f\"");
    assert_string_equal(str("a\0b", 3), "\"a\\u0000b\"");
}

static void test_utf8(void **state)
{
    (void)state;
    assert_string_equal(STR("caf\xc3\xa9"), "\"caf\xc3\xa9\"");           /* é */
    assert_string_equal(STR("\xe2\x82\xac"), "\"\xe2\x82\xac\"");         /* € */
    assert_string_equal(STR("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\""); /* U+1F600 */
    assert_string_equal(STR("\xc2\x80"), "\"\xc2\x80\"");                 /* C1: valid */
    /* noncharacters are valid in JSON strings (RFC 8259 allows any scalar) */
    assert_string_equal(STR("\xef\xbf\xbe\xef\xbf\xbf"), "\"\xef\xbf\xbe\xef\xbf\xbf\"");
}

static void test_invalid_utf8(void **state)
{
    (void)state;
    /* one U+FFFD per maximal ill-formed subpart, as Python's errors="replace" */
    assert_string_equal(STR("\xff"), "\"\\ufffd\"");
    assert_string_equal(STR("a\x80z"), "\"a\\ufffdz\"");
    assert_string_equal(STR("\xc0\xaf"), "\"\\ufffd\\ufffd\"");          /* overlong */
    assert_string_equal(STR("\xe2\x82"), "\"\\ufffd\"");                 /* truncated */
    assert_string_equal(STR("\xe2\x82z"), "\"\\ufffdz\"");
    assert_string_equal(STR("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\""); /* surrogate */
    assert_string_equal(STR("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
    assert_string_equal(STR("\xf0\x9f\x98"), "\"\\ufffd\"");
    assert_string_equal(STR("\xf0\x9f\x98\""), "\"\\ufffd\\\"\"");
    assert_string_equal(STR("\xc3"), "\"\\ufffd\"");
}

static const char *arr(const void *p, size_t len, unsigned size, bool is_signed)
{
    FILE *f = fmemopen(out, sizeof(out), "w");
    assert_non_null(f);
    int rc = put_json_array(f, p, len, (struct elem){ size, is_signed });
    fclose(f);
    return rc < 0 ? NULL : out;
}

static void test_arrays(void **state)
{
    (void)state;
    uint64_t u64[3] = { 0, 1, UINT64_MAX };
    int64_t s64[3] = { INT64_MIN, -1, INT64_MAX };
    int32_t s32[2] = { -2, 7 };
    uint16_t u16[2] = { 65535, 1 };
    uint8_t u8[3] = { 0, 128, 255 };

    assert_string_equal(arr(u64, sizeof(u64), 8, false), "[0,1,18446744073709551615]");
    assert_string_equal(arr(s64, sizeof(s64), 8, true),
                        "[-9223372036854775808,-1,9223372036854775807]");
    assert_string_equal(arr(s32, sizeof(s32), 4, true), "[-2,7]");
    assert_string_equal(arr(s32, sizeof(s32), 4, false), "[4294967294,7]");
    assert_string_equal(arr(u16, sizeof(u16), 2, false), "[65535,1]");
    assert_string_equal(arr(u16, sizeof(u16), 2, true), "[-1,1]");
    assert_string_equal(arr(u8, sizeof(u8), 1, false), "[0,128,255]");
    assert_string_equal(arr(u8, sizeof(u8), 1, true), "[0,-128,-1]");
    assert_string_equal(arr(u8, 0, 1, false), "[]");
}

static void test_arrays_refused(void **state)
{
    (void)state;
    uint8_t b[12] = { 0 };
    assert_null(arr(b, 12, 0, false));          /* unknown element type */
    assert_null(arr(b, 12, 8, false));          /* 12 bytes are not whole u64s */
    assert_null(arr(b, 3, 2, true));
    assert_null(arr(b, 12, 3, true));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_controls),
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_invalid_utf8),
        cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_arrays_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
