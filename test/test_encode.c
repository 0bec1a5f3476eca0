/*
 * Unit tests for tp_encode (src/encode.c): the arrays it writes are the
 * bytes libpcp_pmda's pmdaEvent* functions write for the same records,
 * with the padding after strings and aggregates zeroed.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <cmocka.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>

#include "tp_encode.h"

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/* libpcp_pmda leaves the padding after a value as the buffer had it: zero it. */
static void zero_padding(pmEventArray *ea)
{
    char *p = (char *)&ea->ea_record[0];
    for (int r = 0; r < ea->ea_nrecords; r++) {
        pmEventRecord *er = (pmEventRecord *)p;
        int n = (er->er_flags & PM_EVENT_FLAG_MISSED) ? 0 : er->er_nparams;
        p += TP_ENC_RECORD_BYTES;
        for (int i = 0; i < n; i++) {
            pmEventParameter *ep = (pmEventParameter *)p;
            size_t vlen = (size_t)ep->ep_len - PM_VAL_HDR_SIZE;
            size_t padded = (vlen + 3) & ~(size_t)3;
            memset(p + sizeof(*ep) + vlen, 0, padded - vlen);
            p += sizeof(*ep) + padded;
        }
    }
}

/* Both encoders, fed the same calls. */
struct pair {
    int h;                  /* libpcp_pmda's array */
    struct tp_enc e;
};

static void pair_open(struct pair *p)
{
    p->h = pmdaEventNewArray();
    assert_true(p->h >= 0);
    tp_enc_init(&p->e);
    assert_int_equal(tp_enc_reset(&p->e), 0);
}

static void pair_close(struct pair *p)
{
    pmdaEventReleaseArray(p->h);
    tp_enc_release(&p->e);
}

static struct timeval tv_of(uint64_t ns)
{
    struct timeval tv = { (time_t)(ns / 1000000000u), (suseconds_t)(ns % 1000000000u / 1000u) };
    return tv;
}

static void add_record(struct pair *p, uint64_t ns)
{
    struct timeval tv = tv_of(ns);
    assert_int_equal(pmdaEventAddRecord(p->h, &tv, PM_EVENT_FLAG_POINT), 0);
    assert_int_equal(tp_enc_reserve(&p->e, TP_ENC_RECORD_BYTES), 0);
    tp_enc_record(&p->e, ns, PM_EVENT_FLAG_POINT);
}

static void add_missed(struct pair *p, uint64_t ns, int n)
{
    struct timeval tv = tv_of(ns);
    assert_int_equal(pmdaEventAddMissedRecord(p->h, &tv, n), 0);
    assert_int_equal(tp_enc_reserve(&p->e, TP_ENC_RECORD_BYTES), 0);
    tp_enc_missed(&p->e, ns, n);
}

static void add_int(struct pair *p, pmID id, int type, uint64_t v)
{
    pmAtomValue a;
    if (type == PM_TYPE_32 || type == PM_TYPE_U32)
        a.ul = (uint32_t)v;
    else
        a.ull = v;
    assert_int_equal(pmdaEventAddParam(p->h, id, type, &a), 0);
    assert_int_equal(tp_enc_reserve(&p->e, tp_enc_param_bytes(8)), 0);
    tp_enc_param_int(&p->e, id, type, v);
}

static void add_string(struct pair *p, pmID id, const char *s)
{
    pmAtomValue a = { .cp = (char *)s };
    assert_int_equal(pmdaEventAddParam(p->h, id, PM_TYPE_STRING, &a), 0);
    assert_int_equal(tp_enc_reserve(&p->e, tp_enc_param_bytes(strlen(s))), 0);
    tp_enc_param_data(&p->e, id, PM_TYPE_STRING, s, strlen(s));
}

static void add_aggregate(struct pair *p, pmID id, const unsigned char *b, size_t n)
{
    pmValueBlock *vb = malloc(PM_VAL_HDR_SIZE + n + 1);
    assert_non_null(vb);
    vb->vtype = PM_TYPE_AGGREGATE;
    vb->vlen = (unsigned)(PM_VAL_HDR_SIZE + n);
    memcpy(vb->vbuf, b, n);
    pmAtomValue a = { .vbp = vb };
    assert_int_equal(pmdaEventAddParam(p->h, id, PM_TYPE_AGGREGATE, &a), 0);
    free(vb);
    assert_int_equal(tp_enc_reserve(&p->e, tp_enc_param_bytes(n)), 0);
    tp_enc_param_data(&p->e, id, PM_TYPE_AGGREGATE, b, n);
}

static void assert_same(struct pair *p)
{
    pmEventArray *want = pmdaEventGetAddr(p->h);
    pmValueBlock *got = tp_enc_finish(&p->e);
    zero_padding(want);
    assert_int_equal(tp_enc_check(got), -1);
    assert_int_equal(got->vtype, PM_TYPE_EVENT);
    assert_int_equal(got->vlen, want->ea_len);
    assert_int_equal(((pmEventArray *)got)->ea_nrecords, want->ea_nrecords);
    assert_memory_equal(got, want, want->ea_len);
}

static void test_empty_array(void **state)
{
    (void)state;
    struct pair p;
    pair_open(&p);
    assert_same(&p);
    assert_int_equal(tp_enc_nrecords(&p.e), 0);
    pair_close(&p);
}

static void test_every_type(void **state)
{
    (void)state;
    static const unsigned char bytes[] = { 1, 2, 3, 4, 5, 6, 7 };
    struct pair p;
    pair_open(&p);
    add_record(&p, 1795977770154307221ull);
    add_string(&p, pmID_build(400, 1, 0), "sched:sched_process_exec");
    add_int(&p, pmID_build(400, 1, 1), PM_TYPE_U32, 1);
    add_int(&p, pmID_build(400, 1, 2), PM_TYPE_32, (uint64_t)-5);
    add_int(&p, pmID_build(400, 1, 3), PM_TYPE_U64, 1795977770154307221ull);
    add_int(&p, pmID_build(400, 16, 0), PM_TYPE_64, (uint64_t)-100);
    add_string(&p, pmID_build(400, 16, 1), "abcd");         /* a multiple of 4: no NUL */
    add_string(&p, pmID_build(400, 16, 2), "");
    add_aggregate(&p, pmID_build(400, 16, 3), bytes, sizeof(bytes));
    add_aggregate(&p, pmID_build(400, 16, 4), bytes, 0);
    add_missed(&p, 1795977771000000000ull, 12345);
    add_record(&p, 1795977772999999999ull);
    add_int(&p, pmID_build(400, 1, 1), PM_TYPE_U32, 0xffffffffu);
    assert_same(&p);
    assert_int_equal(tp_enc_nrecords(&p.e), 3);
    pair_close(&p);
}

static void test_missed_counts(void **state)
{
    (void)state;
    struct pair p;
    pair_open(&p);
    add_missed(&p, 1, 1);
    add_missed(&p, 2, INT_MAX);
    add_record(&p, 3);
    assert_same(&p);
    pair_close(&p);
}

/* Many arrays of random records, each reset and refilled in the same buffers. */
static void test_random_arrays(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    unsigned char data[300];
    char text[300];
    struct pair p;
    pair_open(&p);
    for (int round = 0; round < 200; round++) {
        assert_int_equal(pmdaEventResetArray(p.h), 0);
        assert_int_equal(tp_enc_reset(&p.e), 0);
        int nrec = (int)(rnd(&seed) % 40);
        for (int r = 0; r < nrec; r++) {
            uint64_t ns = rnd(&seed) % 4000000000000000000ull;
            if (rnd(&seed) % 10 == 0) {
                add_missed(&p, ns, (int)(rnd(&seed) % INT_MAX) + 1);
                continue;
            }
            add_record(&p, ns);
            int nparams = (int)(rnd(&seed) % 12);
            for (int i = 0; i < nparams; i++) {
                pmID id = pmID_build(400, 16 + (unsigned)(rnd(&seed) % 4000), (unsigned)i);
                size_t n = (size_t)(rnd(&seed) % sizeof(data));
                switch (rnd(&seed) % 6) {
                case 0: add_int(&p, id, PM_TYPE_32, rnd(&seed)); break;
                case 1: add_int(&p, id, PM_TYPE_U32, rnd(&seed)); break;
                case 2: add_int(&p, id, PM_TYPE_64, rnd(&seed)); break;
                case 3: add_int(&p, id, PM_TYPE_U64, rnd(&seed)); break;
                case 4:
                    for (size_t k = 0; k < n; k++)
                        text[k] = (char)(' ' + rnd(&seed) % 95);
                    text[n] = '\0';
                    add_string(&p, id, text);
                    break;
                default:
                    for (size_t k = 0; k < n; k++)
                        data[k] = (unsigned char)rnd(&seed);
                    add_aggregate(&p, id, data, n);
                    break;
                }
            }
        }
        assert_same(&p);
    }
    pair_close(&p);
}

/* Stale bytes in a reused buffer never reach the padding. */
static void test_padding_is_zero(void **state)
{
    (void)state;
    struct tp_enc e;
    tp_enc_init(&e);
    assert_int_equal(tp_enc_reset(&e), 0);
    assert_int_equal(tp_enc_reserve(&e, 4000), 0);
    memset(e.buf + e.len, 0xa5, 4000);
    assert_int_equal(tp_enc_reserve(&e, TP_ENC_RECORD_BYTES + tp_enc_param_bytes(5)), 0);
    tp_enc_record(&e, 0, PM_EVENT_FLAG_POINT);
    tp_enc_param_data(&e, pmID_build(400, 1, 0), PM_TYPE_STRING, "hello", 5);
    const unsigned char *end = e.buf + e.len;
    assert_memory_equal(end - 3, "\0\0\0", 3);
    tp_enc_release(&e);
}

/* The 24-bit length: an array never passes it, and a refusal keeps what was written. */
static void test_limit(void **state)
{
    (void)state;
    struct tp_enc e;
    tp_enc_init(&e);
    assert_int_equal(tp_enc_reset(&e), 0);
    size_t chunk = 60000;
    unsigned char *junk = calloc(1, chunk);
    assert_non_null(junk);
    int n = 0;
    for (;;) {
        int rc = tp_enc_reserve(&e, TP_ENC_RECORD_BYTES + tp_enc_param_bytes(chunk));
        if (rc < 0) {
            assert_int_equal(rc, -E2BIG);
            break;
        }
        tp_enc_record(&e, 0, PM_EVENT_FLAG_POINT);
        tp_enc_param_data(&e, pmID_build(400, 16, 0), PM_TYPE_AGGREGATE, junk, chunk);
        n++;
    }
    assert_true(e.len <= TP_ENC_MAX_BYTES);
    assert_true(e.len + TP_ENC_RECORD_BYTES + tp_enc_param_bytes(chunk) > TP_ENC_MAX_BYTES);
    pmValueBlock *vb = tp_enc_finish(&e);
    assert_int_equal(vb->vlen, e.len);
    assert_int_equal(((pmEventArray *)vb)->ea_nrecords, n);
    /* a lower limit: the array stops there, its memory too */
    tp_enc_release(&e);
    tp_enc_set_limit(&e, 100000);
    assert_int_equal(tp_enc_reset(&e), 0);
    while (tp_enc_reserve(&e, TP_ENC_RECORD_BYTES + tp_enc_param_bytes(1000)) == 0) {
        tp_enc_record(&e, 0, PM_EVENT_FLAG_POINT);
        tp_enc_param_data(&e, pmID_build(400, 16, 0), PM_TYPE_AGGREGATE, junk, 1000);
    }
    assert_true(e.len <= 100000 && e.len > 100000 - 1100);
    assert_true(e.cap <= 100000);
    free(junk);
    tp_enc_release(&e);
    tp_enc_release(NULL);
}

/*
 * A shaped record and the same record written parameter by parameter: the
 * same bytes, and parameters after the shape's count as any other.  A
 * shape refuses what does not fit and stays as it was.
 */
static void test_shape_same_bytes(void **state)
{
    (void)state;
    static const char name[] = "syscalls:sys_enter_getpid";
    struct tp_enc_shape sh;
    struct tp_enc a, b;
    tp_enc_shape_init(&sh);
    assert_int_equal(tp_enc_shape_data(&sh, 11, PM_TYPE_STRING, name, sizeof(name) - 1), 0);
    assert_int_equal(tp_enc_shape_int(&sh, 12, PM_TYPE_U32), 0);
    assert_int_equal(tp_enc_shape_int(&sh, 13, PM_TYPE_64), 1);
    tp_enc_init(&a);
    tp_enc_init(&b);
    assert_int_equal(tp_enc_reset(&a), 0);
    assert_int_equal(tp_enc_reset(&b), 0);
    for (uint64_t i = 0; i < 3; i++) {
        uint64_t wall = 1795977770154307221ull + i * 1234567;
        assert_int_equal(tp_enc_reserve(&a, 256), 0);
        unsigned char *rec = tp_enc_shaped(&a, &sh, wall, PM_EVENT_FLAG_POINT);
        tp_enc_shape_put(rec, &sh, 0, 0xabcd0000u + i);
        tp_enc_shape_put(rec, &sh, 1, (uint64_t)-5 - i);
        tp_enc_param_data(&a, 14, PM_TYPE_STRING, "xy", 2);
        assert_int_equal(tp_enc_reserve(&b, 256), 0);
        tp_enc_record(&b, wall, PM_EVENT_FLAG_POINT);
        tp_enc_param_data(&b, 11, PM_TYPE_STRING, name, sizeof(name) - 1);
        tp_enc_param_int(&b, 12, PM_TYPE_U32, 0xabcd0000u + i);
        tp_enc_param_int(&b, 13, PM_TYPE_64, (uint64_t)-5 - i);
        tp_enc_param_data(&b, 14, PM_TYPE_STRING, "xy", 2);
    }
    assert_int_equal(a.len, b.len);
    assert_int_equal(tp_enc_nrecords(&a), 3);
    assert_memory_equal(tp_enc_finish(&a), tp_enc_finish(&b), a.len);
    assert_int_equal(tp_enc_check(tp_enc_finish(&a)), -1);
    tp_enc_release(&a);
    tp_enc_release(&b);

    int n = 0;
    while (tp_enc_shape_int(&sh, 15, PM_TYPE_U64) >= 0)
        n++;
    struct tp_enc_shape full = sh;
    assert_true(n > 0 && sh.len + tp_enc_param_bytes(8) > TP_ENC_SHAPE_BYTES);
    sh = full;
    char big[TP_ENC_SHAPE_BYTES] = { 0 };
    assert_int_equal(tp_enc_shape_data(&sh, 16, PM_TYPE_AGGREGATE, big, sizeof(big)), -E2BIG);
    assert_memory_equal(&sh, &full, sizeof(sh));
    tp_enc_shape_init(&sh);
    for (n = 0; tp_enc_shape_int(&sh, 17, PM_TYPE_U32) >= 0; n++)
        ;
    size_t room = (TP_ENC_SHAPE_BYTES - TP_ENC_RECORD_BYTES) / tp_enc_param_bytes(4);
    assert_int_equal(n, room < TP_ENC_SHAPE_SLOTS ? room : TP_ENC_SHAPE_SLOTS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_array),
        cmocka_unit_test(test_every_type),
        cmocka_unit_test(test_missed_counts),
        cmocka_unit_test(test_random_arrays),
        cmocka_unit_test(test_padding_is_zero),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_shape_same_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
