/*
 * Unit tests for client/unpack.c: the records of an event array viewed in
 * place give the value sets libpcp's pmUnpackEventRecords gives (pmids,
 * formats, values, timestamps, flags and missed counts), and a malformed
 * array is refused whole, as libpcp refuses it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <limits.h>
#include <string.h>

#include <pcp/pmapi.h>
#include <pcp/pmda.h>

#include "tp_pcp_compat.h"
#include "unpack.h"

#define ANON pmID_build(0, 0, 1)    /* libpcp's event.flags/missed without a PMNS */

/* An array of 3 records (one missed) with every parameter type a record can hold. */
static int build(void)
{
    struct timeval tv = { 1700000000, 123456 };
    pmAtomValue a;
    int h = pmdaEventNewArray();

    assert_true(h >= 0);
    for (int r = 0; r < 2; r++, tv.tv_usec++) {
        assert_int_equal(pmdaEventAddRecord(h, &tv, PM_EVENT_FLAG_POINT), 0);
        a.cp = "syscalls:sys_enter_getpid";
        assert_true(pmdaEventAddParam(h, pmID_build(400, 1, 1), PM_TYPE_STRING, &a) >= 0);
        a.ul = 1;
        assert_true(pmdaEventAddParam(h, pmID_build(400, 1, 2), PM_TYPE_U32, &a) >= 0);
        a.l = -42 - r;
        assert_true(pmdaEventAddParam(h, pmID_build(400, 1, 3), PM_TYPE_32, &a) >= 0);
        a.ull = 1700000000123456789ull + (unsigned)r;
        assert_true(pmdaEventAddParam(h, pmID_build(400, 1, 4), PM_TYPE_U64, &a) >= 0);
        a.ll = -5;
        assert_true(pmdaEventAddParam(h, pmID_build(400, 1, 5), PM_TYPE_64, &a) >= 0);
        a.d = 2.5;
        assert_true(pmdaEventAddParam(h, pmID_build(400, 1, 6), PM_TYPE_DOUBLE, &a) >= 0);
        a.cp = r ? "x" : "a longer string of text";
        assert_true(pmdaEventAddParam(h, pmID_build(400, 1, 7), PM_TYPE_STRING, &a) >= 0);
        if (r == 1)
            assert_int_equal(pmdaEventAddMissedRecord(h, &tv, 77), 0);
    }
    return h;
}

static void same_set(const pmValueSet *a, const pmValueSet *b)
{
    assert_int_equal(a->pmid, b->pmid);
    assert_int_equal(a->numval, 1);
    assert_int_equal(b->numval, 1);
    assert_int_equal(a->vlist[0].inst, b->vlist[0].inst);
    assert_int_equal(a->valfmt == PM_VAL_INSITU, b->valfmt == PM_VAL_INSITU);
    if (a->valfmt == PM_VAL_INSITU) {
        assert_int_equal(a->vlist[0].value.lval, b->vlist[0].value.lval);
        return;
    }
    const pmValueBlock *x = a->vlist[0].value.pval, *y = b->vlist[0].value.pval;
    assert_int_equal(x->vtype, y->vtype);
    assert_int_equal(x->vlen, y->vlen);
    assert_memory_equal(x->vbuf, y->vbuf, x->vlen - PM_VAL_HDR_SIZE);
}

static void test_same_as_libpcp(void **state)
{
    (void)state;
    int h = build();
    pmValueSet vs = { .pmid = pmID_build(400, 0, 1), .numval = 1, .valfmt = PM_VAL_DPTR };
    vs.vlist[0].inst = PM_IN_NULL;
    vs.vlist[0].value.pval = (pmValueBlock *)pmdaEventGetAddr(h);

    tp_event_result **lib = NULL;
    int n = tp_unpack_events(&vs, 0, &lib);
    assert_int_equal(n, 3);

    struct unpacker u;
    struct record *rec = NULL;
    /* libpcp names event.flags and event.missed as it can (no PMNS here) */
    unpack_init(&u, lib[0]->vset[0]->pmid, lib[2]->vset[1]->pmid);
    for (int round = 0; round < 2; round++) {     /* the arena is reused */
        assert_int_equal(unpack_events(&u, &vs, 0, &rec), 3);
        for (int r = 0; r < n; r++) {
            assert_int_equal(rec[r].index, r);
            assert_int_equal(rec[r].numpmid, lib[r]->numpmid);
            assert_true(rec[r].stamp_ns == tp_event_ns(lib[r]));
            assert_true(rec[r].key == rec[r].stamp_ns);
            for (int i = 0; i < rec[r].numpmid; i++)
                same_set(rec[r].vset[i], lib[r]->vset[i]);
        }
    }
    assert_int_equal(rec[2].numpmid, 2);                 /* the missed record */
    assert_int_equal(rec[2].vset[1]->vlist[0].value.lval, 77);
    /* values point into the array: nothing was copied */
    const char *base = (const char *)vs.vlist[0].value.pval;
    const char *s = (const char *)rec[0].vset[1]->vlist[0].value.pval;
    assert_true(s > base && s < base + vs.vlist[0].value.pval->vlen);

    tp_free_unpacked(lib, n);
    unpack_free(&u);
    unpack_free(NULL);
    pmdaEventReleaseArray(h);
}

static void test_malformed(void **state)
{
    (void)state;
    int h = build();
    pmEventArray *ea = (pmEventArray *)pmdaEventGetAddr(h);
    pmValueSet vs = { .pmid = pmID_build(400, 0, 1), .numval = 1, .valfmt = PM_VAL_DPTR };
    vs.vlist[0].value.pval = (pmValueBlock *)ea;
    struct unpacker u;
    struct record *rec = NULL;
    unsigned len = ea->ea_len;

    unpack_init(&u, ANON, ANON);
    ea->ea_len = len - 8;                   /* the last parameter cut short */
    assert_int_equal(unpack_events(&u, &vs, 0, &rec), PM_ERR_TOOBIG);
    assert_null(rec);
    ea->ea_len = len;
    ea->ea_type = PM_TYPE_HIGHRES_EVENT;
    assert_int_equal(unpack_events(&u, &vs, 0, &rec), PM_ERR_TYPE);
    ea->ea_type = PM_TYPE_EVENT;
    vs.valfmt = PM_VAL_INSITU;
    assert_int_equal(unpack_events(&u, &vs, 0, &rec), PM_ERR_CONV);
    vs.valfmt = PM_VAL_DPTR;
    ea->ea_nrecords = INT_MAX;              /* more records than bytes for them */
    assert_int_equal(unpack_events(&u, &vs, 0, &rec), PM_ERR_TOOBIG);
    ea->ea_nrecords = 3;
    int np = ea->ea_record[0].er_nparams;
    ea->ea_record[0].er_nparams = 1 << 28;  /* more parameters than bytes: no arena for them */
    assert_int_equal(unpack_events(&u, &vs, 0, &rec), PM_ERR_TOOBIG);
    assert_true(u.nsets < 1000);
    assert_null(rec);
    ea->ea_record[0].er_nparams = np;
    assert_int_equal(unpack_events(&u, &vs, 0, &rec), 3);
    rec = NULL;
    ea->ea_nrecords = 0;
    assert_int_equal(unpack_events(&u, &vs, 0, &rec), 0);
    assert_null(rec);
    unpack_free(&u);
    pmdaEventReleaseArray(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_libpcp),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
