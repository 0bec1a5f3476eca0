/*
 * Unit tests for client/record.h's block_len: the bytes of a value block
 * are its vlen less the header, and a malformed block (an archive is
 * untrusted input) whose vlen is shorter than the header has none, where
 * vlen - PM_VAL_HDR_SIZE would wrap around to about 4 G.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "record.h"

static void test_block_len(void **state)
{
    union { pmValueBlock vb; char room[64]; } u;
    (void)state;
    memset(&u, 0, sizeof(u));
    u.vb.vtype = PM_TYPE_STRING;
    u.vb.vlen = PM_VAL_HDR_SIZE + 5;
    assert_int_equal(block_len(&u.vb), 5);
    u.vb.vlen = PM_VAL_HDR_SIZE;
    assert_int_equal(block_len(&u.vb), 0);
    for (unsigned v = 0; v < PM_VAL_HDR_SIZE; v++) {
        u.vb.vlen = v;
        assert_int_equal(block_len(&u.vb), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_len),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
