/*
 * Unit tests for client/record.h: block_len, the bytes of a value block,
 * is its vlen less the header, and a malformed block (an archive is
 * untrusted input) whose vlen is shorter than the header has none, where
 * vlen - PM_VAL_HDR_SIZE would wrap around to about 4 G; scan_common finds
 * each record's common values by its parameters' roles, whatever position
 * they hold (params' positions remembered from the last record must never
 * stand for another PMID), and takes the event's name in place, bounded
 * by its block and by EVENT_NAME_MAX; u64_value reads a U64 block as
 * libpcp's pmExtractValue does.
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

/* A params table that knows these parameters, so nothing asks libpcp. */
enum { P_EVENT = 100, P_CPU, P_PID, P_TIME, P_FIELD };
static struct param known[] = {
    { .pmid = P_EVENT, .type = PM_TYPE_STRING, .role = EVENT, .name = "tracepoint.param.event" },
    { .pmid = P_CPU, .type = PM_TYPE_U32, .role = CPU, .name = "tracepoint.param.cpu" },
    { .pmid = P_PID, .type = PM_TYPE_32, .role = PID, .name = "tracepoint.param.pid" },
    { .pmid = P_TIME, .type = PM_TYPE_U64, .role = TIME_NS, .name = "tracepoint.param.time_ns" },
    { .pmid = P_FIELD, .type = PM_TYPE_32, .role = FIELD, .name = "tracepoint.param.x.y.z" },
};

static void fill_params(struct params *ps)
{
    memset(ps, 0, sizeof(*ps));
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        struct param *p = &known[i];
        p->next = ps->bucket[p->pmid % PARAM_BUCKETS];
        ps->bucket[p->pmid % PARAM_BUCKETS] = p;
    }
}

struct held {
    pmValueSet set[4];
    pmValueSet *vset[4];
    union { pmValueBlock vb; char room[PM_VAL_HDR_SIZE + 300]; } name;
};

static void insitu(pmValueSet *vs, pmID pmid, int v)
{
    *vs = (pmValueSet){ .pmid = pmid, .numval = 1, .valfmt = PM_VAL_INSITU };
    vs->vlist[0].value.lval = v;
}

/* A record of the event name (n bytes, no NUL), then cpu and pid in either order. */
static struct record held_record(struct held *h, const char *name, size_t n, bool pid_first)
{
    memset(&h->name, 0, sizeof(h->name));
    h->name.vb.vtype = PM_TYPE_STRING;
    h->name.vb.vlen = (unsigned)(PM_VAL_HDR_SIZE + n);
    memcpy(h->name.vb.vbuf, name, n);
    h->set[0] = (pmValueSet){ .pmid = P_EVENT, .numval = 1, .valfmt = PM_VAL_DPTR };
    h->set[0].vlist[0].value.pval = &h->name.vb;
    insitu(&h->set[pid_first ? 2 : 1], P_CPU, 3);
    insitu(&h->set[pid_first ? 1 : 2], P_PID, 4242);
    insitu(&h->set[3], P_FIELD, 7);
    for (int i = 0; i < 4; i++)
        h->vset[i] = &h->set[i];
    return (struct record){ .numpmid = 4, .vset = h->vset, .stamp_ns = 5 };
}

static void assert_common(const struct common *c)
{
    assert_non_null(c->cpu);
    assert_non_null(c->pid);
    assert_int_equal(c->cpu->pmid, P_CPU);
    assert_int_equal(c->pid->pmid, P_PID);
    assert_int_equal(c->cpu_param->role, CPU);
    assert_int_equal(c->pid_param->role, PID);
    assert_int_equal(c->time_ns, 5);
}

/* Records whose parameters change places: each is read by its own PMIDs. */
static void test_scan_shapes(void **state)
{
    struct params ps;
    struct held h;
    struct common c;
    (void)state;
    fill_params(&ps);
    for (int k = 0; k < 6; k++) {
        struct record r = held_record(&h, "sched:sched_switch", 18, k % 2 == 1);
        assert_int_equal(scan_common(&ps, &r, &c), 0);
        assert_common(&c);
        assert_int_equal(c.event_len, 18);
        assert_memory_equal(c.event, "sched:sched_switch", 18);
        assert_ptr_equal(c.event, h.name.vb.vbuf);      /* in place, not copied */
    }
}

/* The name stops at a NUL, at its block's end, and at EVENT_NAME_MAX - 1 bytes. */
static void test_scan_event_bounds(void **state)
{
    struct params ps;
    struct held h;
    struct common c;
    char big[300];
    (void)state;
    fill_params(&ps);
    struct record r = held_record(&h, "a:b\0junk", 8, false);
    assert_int_equal(scan_common(&ps, &r, &c), 0);
    assert_int_equal(c.event_len, 3);
    memset(big, 'e', sizeof(big));
    r = held_record(&h, big, sizeof(big), false);
    assert_int_equal(scan_common(&ps, &r, &c), 0);
    assert_int_equal(c.event_len, EVENT_NAME_MAX - 1);
    r = held_record(&h, "x:y", 3, false);
    h.name.vb.vlen = 2;                 /* shorter than the header: no bytes */
    assert_int_equal(scan_common(&ps, &r, &c), 0);
    assert_int_equal(c.event_len, 0);
    r = held_record(&h, "x:y", 3, false);
    r.numpmid = 0;                      /* no name at all */
    assert_int_equal(scan_common(&ps, &r, &c), 0);
    assert_int_equal(c.event_len, 1);
    assert_memory_equal(c.event, "?", 1);
}

/* A U64 in its block (time_ns as the PMDA sends it) reads as libpcp extracts it. */
static void test_u64_value(void **state)
{
    static const uint64_t values[] = { 0, 1, 1795977770154307221ull, UINT64_MAX };
    union { pmValueBlock vb; char room[PM_VAL_HDR_SIZE + 8]; } u;
    pmValueSet vs = { .pmid = P_TIME, .numval = 1, .valfmt = PM_VAL_DPTR };
    pmAtomValue a;
    (void)state;
    memset(&u, 0, sizeof(u));
    u.vb.vtype = PM_TYPE_U64;
    u.vb.vlen = PM_VAL_HDR_SIZE + 8;
    vs.vlist[0].value.pval = &u.vb;
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        memcpy(u.vb.vbuf, &values[i], 8);
        assert_int_equal(pmExtractValue(vs.valfmt, &vs.vlist[0], PM_TYPE_U64, &a, PM_TYPE_U64), 0);
        assert_true(u64_value(&vs, 99) == a.ull);
        assert_true(u64_value(&vs, 99) == values[i]);
    }
    vs.numval = 0;
    assert_true(u64_value(&vs, 99) == 99);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_len),
        cmocka_unit_test(test_scan_shapes),
        cmocka_unit_test(test_scan_event_bounds),
        cmocka_unit_test(test_u64_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
