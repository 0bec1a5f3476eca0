/*
 * Unit tests for tp_agg (src/agg.c): counts, sums, histograms and latencies
 * keyed by field values, their bounds, and what they refuse.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pcp/pmapi.h>

#include <asm/unistd.h>

#include "tp_agg.h"
#include "tp_valname.h"

/* An event laid out as: 8 common bytes, u32 which, s32 who, u64 val, char comm[16], u8 raw[4], __data_loc char[] name. */
static struct tp_field f_which = { "which", "unsigned int which", 8, 4, TP_FIELD_UINT, PM_TYPE_U32 };
static struct tp_field f_who = { "who", "int who", 12, 4, TP_FIELD_INT, PM_TYPE_32 };
static struct tp_field f_val = { "val", "u64 val", 16, 8, TP_FIELD_UINT, PM_TYPE_U64 };
static struct tp_field f_comm = { "comm", "char comm[16]", 24, 16, TP_FIELD_STRING, PM_TYPE_STRING };
static struct tp_field f_raw = { "raw", "u8 raw[4]", 40, 4, TP_FIELD_BYTES, PM_TYPE_AGGREGATE };
static struct tp_field f_name = { "name", "__data_loc char[] name", 44, 4, TP_FIELD_DLOC_STRING,
                                  PM_TYPE_STRING };

struct rec {
    unsigned char b[128];
    uint32_t len;
};

static struct rec ev(uint32_t which, int32_t who, uint64_t val, const char *comm, const char *name)
{
    struct rec r;
    memset(&r, 0, sizeof(r));
    memcpy(r.b + 8, &which, 4);
    memcpy(r.b + 12, &who, 4);
    memcpy(r.b + 16, &val, 8);
    strncpy((char *)r.b + 24, comm, 15);
    uint32_t nl = (uint32_t)strlen(name) + 1, loc = 48u | (nl << 16);
    memcpy(r.b + 44, &loc, 4);
    memcpy(r.b + 48, name, nl);
    r.len = 48 + nl;
    return r;
}

static int bind_event(struct tp_agg *a, uint32_t event, enum tp_agg_role role,
                const struct tp_field *value, const struct tp_field *const *by, unsigned nby)
{
    struct tp_agg_binding b = { .event = event, .event_name = "sys:ev", .role = role,
                                .value = value, .nby = nby };
    for (unsigned i = 0; i < nby && i < TP_AGG_MAX_BY; i++)
        b.by[i] = by[i];
    return tp_agg_bind(a, &b);
}

static void feed(struct tp_agg *a, uint32_t event, struct rec r, uint64_t ts)
{
    tp_agg_feed(a, event, r.b, r.len, ts, NULL);
}

static const struct tp_agg_key *find(const struct tp_agg *a, const char *name)
{
    char buf[TP_AGG_MAX_NAME];
    for (size_t i = 0; i < tp_agg_nkeys(a); i++) {
        tp_agg_key_name(a, i, buf, sizeof(buf));
        if (strcmp(buf, name) == 0)
            return tp_agg_key(a, i);
    }
    return NULL;
}

static const char *name_of(const struct tp_agg *a, size_t i)
{
    static char buf[TP_AGG_MAX_NAME];
    tp_agg_key_name(a, i, buf, sizeof(buf));
    return buf;
}

static void test_count_without_and_with_keys(void **state)
{
    (void)state;
    struct tp_agg *a;
    assert_int_equal(tp_agg_create(&a, TP_AGG_COUNT, 16, 0), 0);
    assert_int_equal(bind_event(a, 3, TP_AGG_VALUE, NULL, NULL, 0), 0);
    for (int i = 0; i < 5; i++)
        feed(a, 3, ev(1, 0, 0, "x", "y"), 10);
    feed(a, 9, ev(1, 0, 0, "x", "y"), 10);          /* not bound: not counted */
    assert_int_equal(tp_agg_nkeys(a), 1);
    assert_string_equal(name_of(a, 0), "");
    assert_int_equal(tp_agg_key(a, 0)->count, 5);
    tp_agg_destroy(a);

    const struct tp_field *by[] = { &f_which, &f_who };
    assert_int_equal(tp_agg_create(&a, TP_AGG_COUNT, 16, 0), 0);
    assert_int_equal(bind_event(a, 3, TP_AGG_VALUE, NULL, by, 2), 0);
    feed(a, 3, ev(1, -5, 0, "x", "y"), 10);
    feed(a, 3, ev(1, -5, 0, "x", "y"), 11);
    feed(a, 3, ev(2, 7, 0, "x", "y"), 12);
    assert_int_equal(tp_agg_nkeys(a), 2);
    assert_int_equal(find(a, "which=1,who=-5")->count, 2);
    assert_int_equal(find(a, "which=2,who=7")->count, 1);
    assert_int_equal(tp_agg_dropped(a), 0);
    tp_agg_destroy(a);
}

/* Keys named as the binding says: a syscall's name (its number where the
 * table has none), a dev_t as MAJ:MIN. */
static void test_key_names_for_numbers(void **state)
{
    (void)state;
    struct tp_agg *a;
    struct tp_agg_binding b = { .event = 3, .event_name = "sys:ev", .role = TP_AGG_VALUE,
                                .by = { &f_which, &f_who }, .nby = 2,
                                .show = { TP_SHOWN_DEV, TP_SHOWN_SYSCALL } };
    assert_int_equal(tp_agg_create(&a, TP_AGG_COUNT, 16, 0), 0);
    assert_int_equal(tp_agg_bind(a, &b), 0);
    feed(a, 3, ev(254u << 20, __NR_getpid, 0, "x", "y"), 10);
    feed(a, 3, ev(254u << 20, __NR_getpid, 0, "x", "y"), 11);
    feed(a, 3, ev((8u << 20) | 17, 4321, 0, "x", "y"), 12);
    feed(a, 3, ev(0, -1, 0, "x", "y"), 13);
    assert_int_equal(tp_agg_nkeys(a), 3);
    assert_int_equal(find(a, "which=254:0,who=getpid")->count, 2);
    assert_int_equal(find(a, "which=8:17,who=4321")->count, 1);
    assert_int_equal(find(a, "which=0:0,who=-1")->count, 1);
    tp_agg_destroy(a);
}

/* String keys, escaped where they would confuse a name. */
static void test_sum_by_strings(void **state)
{
    (void)state;
    struct tp_agg *a;
    const struct tp_field *by[] = { &f_comm, &f_name };
    assert_int_equal(tp_agg_create(&a, TP_AGG_SUM, 16, 0), 0);
    assert_int_equal(bind_event(a, 1, TP_AGG_VALUE, &f_val, by, 2), 0);
    feed(a, 1, ev(0, 0, 10, "bash", "/bin/ls"), 1);
    feed(a, 1, ev(0, 0, 32, "bash", "/bin/ls"), 2);
    feed(a, 1, ev(0, 0, 5, "a b,c=%", "x\tz"), 3);
    assert_false(tp_agg_signed(a));
    assert_int_equal(find(a, "comm=bash,name=/bin/ls")->sum, 42);
    assert_int_equal(find(a, "comm=bash,name=/bin/ls")->count, 2);
    assert_non_null(find(a, "comm=a%20b%2Cc%3D%25,name=x%09z"));
    tp_agg_destroy(a);

    assert_int_equal(tp_agg_create(&a, TP_AGG_SUM, 16, 0), 0);     /* a signed value */
    assert_int_equal(bind_event(a, 1, TP_AGG_VALUE, &f_who, NULL, 0), 0);
    feed(a, 1, ev(0, -7, 0, "", ""), 1);
    feed(a, 1, ev(0, 2, 0, "", ""), 1);
    assert_true(tp_agg_signed(a));
    assert_int_equal(tp_agg_key(a, 0)->sum, -5);
    tp_agg_destroy(a);
}

/* One count over two events, keyed by the event's name and a field. */
static void test_key_by_event_name(void **state)
{
    (void)state;
    struct tp_agg *a;
    assert_int_equal(tp_agg_create(&a, TP_AGG_COUNT, 16, 0), 0);
    struct tp_agg_binding b1 = { .event = 1, .event_name = "sys:one", .role = TP_AGG_VALUE,
                                 .by = { NULL, &f_which }, .nby = 2 };
    struct tp_agg_binding b2 = { .event = 2, .event_name = "sys:two", .role = TP_AGG_VALUE,
                                 .by = { NULL, &f_which }, .nby = 2 };
    struct tp_agg_binding bad = { .event = 3, .role = TP_AGG_VALUE, .nby = 1 };
    assert_int_equal(tp_agg_bind(a, &b1), 0);
    assert_int_equal(tp_agg_bind(a, &b2), 0);
    assert_int_equal(tp_agg_bind(a, &bad), -EINVAL);   /* an event key needs the name */
    feed(a, 1, ev(4, 0, 0, "", ""), 1);
    feed(a, 2, ev(4, 0, 0, "", ""), 2);
    feed(a, 2, ev(4, 0, 0, "", ""), 3);
    assert_int_equal(tp_agg_nkeys(a), 2);
    assert_int_equal(find(a, "event=sys:one,which=4")->count, 1);
    assert_int_equal(find(a, "event=sys:two,which=4")->count, 2);
    tp_agg_destroy(a);
}

static void test_hist_buckets(void **state)
{
    (void)state;
    char name[64];
    assert_int_equal(tp_agg_bucket(-3, true), 0);
    assert_int_equal(tp_agg_bucket(0, false), 1);
    assert_int_equal(tp_agg_bucket(1, false), 2);
    assert_int_equal(tp_agg_bucket(3, false), 3);
    assert_int_equal(tp_agg_bucket(4, false), 4);
    assert_int_equal(tp_agg_bucket(1023, false), 11);
    assert_int_equal(tp_agg_bucket(1024, false), 12);
    assert_int_equal(tp_agg_bucket((int64_t)~0ull, false), TP_AGG_BUCKETS - 1);
    tp_agg_bucket_name(0, name, sizeof(name));
    assert_string_equal(name, "<0");
    tp_agg_bucket_name(1, name, sizeof(name));
    assert_string_equal(name, "0-0");
    tp_agg_bucket_name(2, name, sizeof(name));
    assert_string_equal(name, "1-1");
    tp_agg_bucket_name(3, name, sizeof(name));
    assert_string_equal(name, "2-3");
    tp_agg_bucket_name(12, name, sizeof(name));
    assert_string_equal(name, "1024-2047");
    tp_agg_bucket_name(TP_AGG_BUCKETS - 1, name, sizeof(name));
    assert_string_equal(name, "9223372036854775808-18446744073709551615");

    struct tp_agg *a;
    assert_int_equal(tp_agg_create(&a, TP_AGG_HIST, 4, 0), 0);
    assert_int_equal(bind_event(a, 2, TP_AGG_VALUE, &f_val, NULL, 0), 0);
    uint64_t vals[] = { 0, 1, 2, 3, 4, 1000, 1023, 1024 };
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
        feed(a, 2, ev(0, 0, vals[i], "", ""), i);
    const uint64_t *h = tp_agg_key(a, 0)->hist;
    assert_int_equal(h[1], 1);
    assert_int_equal(h[2], 1);
    assert_int_equal(h[3], 2);
    assert_int_equal(h[4], 1);
    assert_int_equal(h[11], 2);
    assert_int_equal(h[12], 1);
    assert_int_equal(tp_agg_key(a, 0)->count, 8);
    tp_agg_destroy(a);
}

/* Keys beyond the bound go to "other", counted. */
static void test_key_overflow(void **state)
{
    (void)state;
    struct tp_agg *a;
    const struct tp_field *by[] = { &f_which };
    assert_int_equal(tp_agg_create(&a, TP_AGG_COUNT, 2, 0), 0);
    assert_int_equal(bind_event(a, 1, TP_AGG_VALUE, NULL, by, 1), 0);
    for (uint32_t w = 0; w < 5; w++)
        feed(a, 1, ev(w, 0, 0, "", ""), w);
    feed(a, 1, ev(0, 0, 0, "", ""), 9);
    assert_int_equal(tp_agg_nkeys(a), 3);
    assert_int_equal(find(a, "which=0")->count, 2);
    assert_int_equal(find(a, "which=1")->count, 1);
    assert_int_equal(find(a, "other")->count, 3);
    assert_int_equal(tp_agg_overflow(a), 3);
    assert_int_equal(tp_agg_dropped(a), 0);
    tp_agg_destroy(a);
}

/* Counters put with the name they count (the kernel's counters): the keys fed ones make. */
static void test_put_comm(void **state)
{
    (void)state;
    struct tp_agg *a, *fed;
    const struct tp_field *by[] = { &tp_agg_comm, NULL };
    assert_int_equal(tp_agg_create(&a, TP_AGG_COUNT, 4, 0), 0);
    assert_int_equal(tp_agg_create(&fed, TP_AGG_COUNT, 4, 0), 0);
    assert_int_equal(bind_event(a, 1, TP_AGG_VALUE, NULL, by, 2), 0);
    assert_int_equal(bind_event(fed, 1, TP_AGG_VALUE, NULL, by, 2), 0);
    unsigned char none = 0;
    tp_agg_clear(a);
    tp_agg_put_comm(a, 1, &none, 0, "tpbench_gen", 5, 0);
    tp_agg_put_comm(a, 1, &none, 0, "0123456789abcdefgh", 1, 0);   /* a task name's length */
    tp_agg_put_comm(a, 1, &none, 0, NULL, 2, 0);
    tp_agg_feed(fed, 1, &none, 0, 0, "tpbench_gen");
    tp_agg_feed(fed, 1, &none, 0, 0, "0123456789abcdefgh");
    tp_agg_feed(fed, 1, &none, 0, 0, NULL);
    assert_int_equal(tp_agg_nkeys(a), 3);
    for (size_t i = 0; i < 3; i++) {
        char na[TP_AGG_MAX_NAME], nf[TP_AGG_MAX_NAME];
        tp_agg_key_name(a, i, na, sizeof(na));
        tp_agg_key_name(fed, i, nf, sizeof(nf));
        assert_string_equal(na, nf);
    }
    assert_string_equal(name_of(a, 0), "comm=tpbench_gen,event=sys:ev");
    assert_int_equal(tp_agg_key(a, 0)->count, 5);
    assert_int_equal(tp_agg_key(a, 2)->count, 2);
    tp_agg_destroy(a);
    tp_agg_destroy(fed);
}

/*
 * Counters set from elsewhere (the kernel backend): cleared and put again
 * at each read, the keys keep their order and names; a put beyond the
 * keys goes to "other"; the same names as feeding gives.
 */
static void test_put_after_clear(void **state)
{
    (void)state;
    struct tp_agg *a, *fed;
    const struct tp_field *by[] = { &f_which, &f_who };
    assert_int_equal(tp_agg_create(&a, TP_AGG_SUM, 2, 0), 0);
    assert_int_equal(tp_agg_create(&fed, TP_AGG_SUM, 2, 0), 0);
    assert_int_equal(bind_event(a, 1, TP_AGG_VALUE, &f_val, by, 2), 0);
    assert_int_equal(bind_event(fed, 1, TP_AGG_VALUE, &f_val, by, 2), 0);
    struct rec r1 = ev(7, -2, 0, "", ""), r2 = ev(9, 3, 0, "", "");
    tp_agg_clear(a);
    tp_agg_put(a, 1, r1.b, 16, 3, 300);
    tp_agg_put(a, 5, r1.b, 16, 3, 300);             /* not bound: nothing */
    for (int i = 0; i < 3; i++)
        feed(fed, 1, ev(7, -2, 100, "", ""), 1);
    assert_int_equal(tp_agg_nkeys(a), 1);
    assert_string_equal(name_of(a, 0), "which=7,who=-2");
    assert_string_equal(name_of(fed, 0), "which=7,who=-2");
    assert_int_equal(tp_agg_key(a, 0)->count, 3);
    assert_int_equal(tp_agg_key(a, 0)->sum, 300);
    tp_agg_clear(a);                                /* the next read: cumulative again */
    tp_agg_put(a, 1, r2.b, 16, 1, -4);
    tp_agg_put(a, 1, r1.b, 16, 5, 500);
    tp_agg_put(a, 1, ev(1, 1, 0, "", "").b, 16, 2, 2);
    tp_agg_lost(a, 4);
    assert_int_equal(tp_agg_nkeys(a), 3);
    assert_string_equal(name_of(a, 0), "which=7,who=-2");
    assert_int_equal(tp_agg_key(a, 0)->count, 5);
    assert_string_equal(name_of(a, 1), "which=9,who=3");
    assert_int_equal(tp_agg_key(a, 1)->sum, -4);
    assert_string_equal(name_of(a, 2), "other");
    assert_int_equal(tp_agg_key(a, 2)->count, 2);
    assert_int_equal(tp_agg_overflow(a), 2);
    assert_int_equal(tp_agg_dropped(a), 4);
    tp_agg_clear(a);
    assert_int_equal(tp_agg_dropped(a), 0);
    assert_int_equal(tp_agg_overflow(a), 0);
    assert_int_equal(tp_agg_key(a, 0)->count, 0);
    tp_agg_destroy(a);
    tp_agg_destroy(fed);
}

/*
 * Events in time order, as the producer hands them on: a start waits for the
 * next end of its value; an end with nothing waiting is no pair; a newer
 * start replaces a waiting one (bpftrace's map does the same); neither is
 * dropped.
 */
static void test_latency_pairs(void **state)
{
    (void)state;
    struct tp_agg *a;
    const struct tp_field *by[] = { &f_comm };
    assert_int_equal(tp_agg_create(&a, TP_AGG_LATENCY, 16, 4), 0);
    assert_int_equal(bind_event(a, 1, TP_AGG_START, &f_which, by, 1), 0);
    assert_int_equal(bind_event(a, 2, TP_AGG_END, &f_val, NULL, 0), 0);
    feed(a, 2, ev(0, 0, 3, "", ""), 50);                /* an end with no start: no pair */
    feed(a, 1, ev(7, 0, 0, "sh", ""), 100);             /* start on 7 */
    feed(a, 2, ev(0, 0, 8, "", ""), 150);               /* an end of another: no pair */
    feed(a, 1, ev(9, 0, 0, "sh", ""), 400);
    feed(a, 2, ev(0, 0, 7, "", ""), 1100);              /* 7's end: 1000 ns */
    feed(a, 2, ev(0, 0, 7, "", ""), 1200);              /* a second end of 7: no pair */
    feed(a, 2, ev(0, 0, 9, "", ""), 1400);              /* 9's: 1000 ns */
    assert_int_equal(tp_agg_pending(a), 0);
    const struct tp_agg_key *k = find(a, "comm=sh");
    assert_non_null(k);
    assert_int_equal(k->count, 2);
    assert_int_equal(k->sum, 2000);
    assert_int_equal(k->hist[tp_agg_bucket(1000, false)], 2);
    feed(a, 1, ev(3, 0, 0, "cat", ""), 2000);
    feed(a, 1, ev(3, 0, 0, "cat", ""), 2300);           /* woken again: the newer start counts */
    feed(a, 2, ev(0, 0, 3, "", ""), 2350);
    assert_int_equal(find(a, "comm=cat")->count, 1);
    assert_int_equal(find(a, "comm=cat")->sum, 50);
    assert_int_equal(tp_agg_dropped(a), 0);
    for (uint32_t on = 100; on < 106; on++)             /* room for 4 waiting starts */
        feed(a, 1, ev(on, 0, 0, "x", ""), 3000 + on);
    assert_int_equal(tp_agg_pending(a), 4);
    assert_int_equal(tp_agg_dropped(a), 2);             /* the older half of 4, at the 5th */
    tp_agg_lost(a, 10);
    assert_int_equal(tp_agg_dropped(a), 12);
    tp_agg_destroy(a);
}

/* Many ends that never meet a start cost nothing and keep no room. */
static void test_latency_ends_alone(void **state)
{
    (void)state;
    struct tp_agg *a;
    assert_int_equal(tp_agg_create(&a, TP_AGG_LATENCY, 16, 64), 0);
    assert_int_equal(bind_event(a, 1, TP_AGG_START, &f_which, NULL, 0), 0);
    assert_int_equal(bind_event(a, 2, TP_AGG_END, &f_val, NULL, 0), 0);
    uint64_t t = 0;
    for (uint64_t on = 0; on < 100000; on++, t += 100000)
        feed(a, 2, ev(0, 0, on, "", ""), t);
    feed(a, 1, ev(424242, 0, 0, "", ""), t);
    feed(a, 2, ev(0, 0, 424242, "", ""), t + 500);
    assert_int_equal(tp_agg_key(a, 0)->count, 1);
    assert_int_equal(tp_agg_key(a, 0)->sum, 500);
    assert_int_equal(tp_agg_dropped(a), 0);
    assert_int_equal(tp_agg_pending(a), 0);
    tp_agg_destroy(a);
}

/* Paired on two fields, interleaved. */
static void test_latency_two_fields(void **state)
{
    (void)state;
    struct tp_agg *a;
    assert_int_equal(tp_agg_create(&a, TP_AGG_LATENCY, 16, 64), 0);
    struct tp_agg_binding s = { .event = 1, .role = TP_AGG_START, .value = &f_which,
                                .value2 = &f_who };
    struct tp_agg_binding e = { .event = 2, .role = TP_AGG_END, .value = &f_which,
                                .value2 = &f_who };
    struct tp_agg_binding bad = { .event = 3, .role = TP_AGG_VALUE, .value = &f_which,
                                  .value2 = &f_who };
    assert_int_equal(tp_agg_bind(a, &s), 0);
    assert_int_equal(tp_agg_bind(a, &e), 0);
    assert_int_equal(tp_agg_bind(a, &bad), -EINVAL);
    feed(a, 1, ev(1, 1, 0, "", ""), 100);
    feed(a, 1, ev(1, 2, 0, "", ""), 110);         /* another pairing: both wait */
    feed(a, 2, ev(1, 2, 0, "", ""), 150);
    feed(a, 2, ev(1, 1, 0, "", ""), 300);
    assert_int_equal(tp_agg_key(a, 0)->count, 2);
    assert_int_equal(tp_agg_key(a, 0)->sum, 40 + 200);
    assert_int_equal(tp_agg_dropped(a), 0);
    assert_int_equal(tp_agg_pending(a), 0);
    tp_agg_destroy(a);
}

/* A full table of waiting starts lets its older half go, counted as dropped. */
static void test_latency_full_starts(void **state)
{
    (void)state;
    struct tp_agg *a;
    assert_int_equal(tp_agg_create(&a, TP_AGG_LATENCY, 16, 8), 0);
    assert_int_equal(bind_event(a, 1, TP_AGG_START, &f_which, NULL, 0), 0);
    assert_int_equal(bind_event(a, 2, TP_AGG_END, &f_which, NULL, 0), 0);
    for (uint32_t on = 0; on < 8; on++)
        feed(a, 1, ev(on, 0, 0, "", ""), 100 + on);         /* starts at 100..107 */
    assert_int_equal(tp_agg_pending(a), 8);
    feed(a, 1, ev(99, 0, 0, "", ""), 200);                  /* no room: 100..103 go */
    assert_int_equal(tp_agg_dropped(a), 4);
    assert_int_equal(tp_agg_pending(a), 5);
    feed(a, 2, ev(7, 0, 0, "", ""), 300);                   /* 107's end: still waiting */
    feed(a, 2, ev(0, 0, 0, "", ""), 300);                   /* 100's went: no pair */
    assert_int_equal(tp_agg_key(a, 0)->count, 1);
    assert_int_equal(tp_agg_key(a, 0)->sum, 193);
    tp_agg_destroy(a);
}

/* Latency keys past max_keys: the pairs go to "other", overflow counts them. */
static void test_latency_overflow_counts_pairs(void **state)
{
    (void)state;
    struct tp_agg *a;
    const struct tp_field *by[] = { &f_who };
    assert_int_equal(tp_agg_create(&a, TP_AGG_LATENCY, 1, 64), 0);
    assert_int_equal(bind_event(a, 1, TP_AGG_START, &f_which, by, 1), 0);
    assert_int_equal(bind_event(a, 2, TP_AGG_END, &f_which, NULL, 0), 0);
    feed(a, 1, ev(1, 10, 0, "", ""), 100);
    feed(a, 1, ev(2, 20, 0, "", ""), 100);                  /* its key is "other" */
    feed(a, 1, ev(3, 30, 0, "", ""), 100);                  /* "other" too, never ends */
    assert_int_equal(tp_agg_overflow(a), 0);                /* nothing counted yet */
    feed(a, 2, ev(2, 0, 0, "", ""), 150);
    feed(a, 2, ev(1, 0, 0, "", ""), 170);
    assert_int_equal(tp_agg_overflow(a), 1);
    assert_int_equal(find(a, "other")->count, 1);
    assert_int_equal(find(a, "other")->sum, 50);
    assert_int_equal(find(a, "who=10")->sum, 70);
    assert_int_equal(tp_agg_nbuckets(a), 2);                /* 32-63 and 64-127 */
    assert_true(find(a, "other")->buckets[0] >> tp_agg_bucket(50, false) & 1);
    tp_agg_destroy(a);
}

static void test_bad_bindings(void **state)
{
    (void)state;
    struct tp_agg *a;
    const struct tp_field *array_key[] = { &f_raw };
    const struct tp_field *five[] = { &f_which, &f_which, &f_which, &f_which, &f_which };
    assert_int_equal(tp_agg_create(&a, TP_AGG_SUM, 16, 0), 0);
    assert_int_equal(bind_event(a, 1, TP_AGG_VALUE, &f_comm, NULL, 0), -EINVAL);   /* sum of a string */
    assert_int_equal(bind_event(a, 1, TP_AGG_VALUE, NULL, NULL, 0), -EINVAL);      /* no value */
    assert_int_equal(bind_event(a, 1, TP_AGG_VALUE, &f_val, array_key, 1), -EINVAL);
    assert_int_equal(bind_event(a, 1, TP_AGG_VALUE, &f_val, five, 5), -EINVAL);
    assert_int_equal(bind_event(a, 1, TP_AGG_START, &f_val, NULL, 0), -EINVAL);    /* not a latency */
    tp_agg_destroy(a);
    assert_int_equal(tp_agg_create(&a, TP_AGG_COUNT, 0, 0), -EINVAL);
    assert_int_equal(tp_agg_create(&a, TP_AGG_LATENCY, 4, 0), -EINVAL);
    tp_agg_destroy(NULL);
}

/* A record too short for its key or value is not counted, but dropped. */
static void test_truncated_record(void **state)
{
    (void)state;
    struct tp_agg *a;
    const struct tp_field *by[] = { &f_name };
    assert_int_equal(tp_agg_create(&a, TP_AGG_SUM, 16, 0), 0);
    assert_int_equal(bind_event(a, 1, TP_AGG_VALUE, &f_val, by, 1), 0);
    struct rec r = ev(0, 0, 5, "", "abcdef");
    tp_agg_feed(a, 1, r.b, 20, 1, NULL);                      /* ends inside val */
    tp_agg_feed(a, 1, r.b, 50, 1, NULL);                      /* the name runs past the end */
    assert_int_equal(tp_agg_nkeys(a), 0);
    assert_int_equal(tp_agg_dropped(a), 2);
    tp_agg_destroy(a);
}

/* Keyed by the task's name at the event, as the producer hands it on. */
static void test_key_by_comm(void **state)
{
    (void)state;
    struct tp_agg *a;
    assert_int_equal(tp_agg_create(&a, TP_AGG_COUNT, 16, 0), 0);
    struct tp_agg_binding b = { .event = 1, .event_name = "raw_syscalls:sys_enter",
                                .role = TP_AGG_VALUE, .nby = 2 };
    b.by[0] = &tp_agg_comm;
    b.by[1] = &f_which;
    assert_int_equal(tp_agg_bind(a, &b), 0);
    for (int32_t pid = 9; pid <= 11; pid++) {
        struct rec r = ev(3, 0, 0, "", "x");
        memcpy(r.b + 4, &pid, 4);                           /* common_pid */
        for (int k = 0; k < pid; k++)
            tp_agg_feed(a, 1, r.b, r.len, 1, pid == 10 ? "bash" : pid == 11 ? NULL : "renamed");
    }
    assert_int_equal(tp_agg_nkeys(a), 3);
    assert_int_equal(find(a, "comm=bash,which=3")->count, 10);
    assert_int_equal(find(a, "comm=renamed,which=3")->count, 9);
    assert_int_equal(find(a, "comm=<...>,which=3")->count, 11);
    struct rec tiny = ev(3, 0, 0, "", "x");
    tp_agg_feed(a, 1, tiny.b, 6, 1, "bash");                /* no room for which */
    assert_int_equal(tp_agg_dropped(a), 1);
    tp_agg_destroy(a);
}

/*
 * By comm alone: names of 15 bytes that differ only in the last, and one a
 * byte shorter, are three keys (a key holds the whole name); runs of one
 * key and keys taking turns count alike; a name fed with its length
 * (tp_agg_feed_event) is the same key as the same name fed without.
 */
static void test_key_by_long_comms(void **state)
{
    (void)state;
    static const char *names[] = { "0123456789abcdX", "0123456789abcdY", "0123456789abcd" };
    struct tp_agg *a;
    assert_int_equal(tp_agg_create(&a, TP_AGG_COUNT, 16, 0), 0);
    struct tp_agg_binding b = { .event = 1, .event_name = "raw_syscalls:sys_enter",
                                .role = TP_AGG_VALUE, .nby = 1 };
    b.by[0] = &tp_agg_comm;
    assert_int_equal(tp_agg_bind(a, &b), 0);
    struct rec r = ev(3, 0, 0, "", "x");
    for (int k = 0; k < 3; k++)                             /* a run each */
        for (int i = 0; i < 5; i++)
            tp_agg_feed(a, 1, r.b, r.len, 1, names[k]);
    for (int i = 0; i < 30; i++) {                          /* taking turns, with lengths */
        struct tp_agg_event e = { 1, r.b, r.len, 2, names[i % 3],
                                  (uint32_t)strlen(names[i % 3]), NULL, 0 };
        tp_agg_feed_event(a, &e);
    }
    assert_int_equal(tp_agg_nkeys(a), 3);
    assert_int_equal(find(a, "comm=0123456789abcdX")->count, 15);
    assert_int_equal(find(a, "comm=0123456789abcdY")->count, 15);
    assert_int_equal(find(a, "comm=0123456789abcd")->count, 15);
    assert_int_equal(tp_agg_dropped(a), 0);
    tp_agg_destroy(a);
}

static const char stack_syms[] =
    "ffffffff81000000 T do_syscall_64\n"
    "ffffffff81000100 T entry_SYSCALL_64_after_hwframe\n"
    "ffffffff81000200 T __x64_sys_getpid\n"
    "ffffffffc0001000 t ext4_write\t[ext4]\n"
    "ffffffffc0002000 t ext4_end\t[ext4]\n";

/*
 * By stack: the folded stack, outermost first, names without offsets (the
 * same function at two offsets is one key), module frames as func[mod];
 * with comm too; an event without a stack is dropped.
 */
static void test_by_stack(void **state)
{
    (void)state;
    struct tp_ksyms *k;
    struct tp_agg *a;
    assert_int_equal(tp_ksyms_create(&k, stack_syms), 0);
    const struct tp_field *by[] = { &tp_agg_comm, &tp_agg_stack };
    assert_int_equal(tp_agg_create(&a, TP_AGG_COUNT, 16, 0), 0);
    assert_false(tp_agg_wants_stack(a));
    assert_int_equal(bind_event(a, 3, TP_AGG_VALUE, NULL, by + 1, 1), 0);
    assert_true(tp_agg_wants_stack(a));
    tp_agg_symbols(a, k);
    uint64_t s1[3] = { 0xffffffff81000210ull, 0xffffffff8100001aull, 0xffffffff81000176ull };
    uint64_t s2[3] = { 0xffffffff81000299ull, 0xffffffff81000020ull, 0xffffffff81000101ull };
    uint64_t s3[2] = { 0xffffffffc0001004ull, 0x42 };
    struct rec r = ev(1, 0, 0, "x", "y");
    for (int i = 0; i < 3; i++)
        tp_agg_feed_stack(a, 3, r.b, r.len, 10, NULL, s1, 3);
    tp_agg_feed_stack(a, 3, r.b, r.len, 11, NULL, s2, 3);
    tp_agg_feed_stack(a, 3, r.b, r.len, 12, NULL, s3, 2);
    tp_agg_feed_stack(a, 3, r.b, r.len, 13, NULL, NULL, 0);  /* no stack with it */
    assert_int_equal(tp_agg_nkeys(a), 2);
    assert_int_equal(
        find(a, "stack=entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_getpid")->count, 4);
    assert_int_equal(find(a, "stack=0x42;ext4_write[ext4]")->count, 1);
    assert_int_equal(tp_agg_dropped(a), 1);
    tp_agg_destroy(a);

    assert_int_equal(tp_agg_create(&a, TP_AGG_COUNT, 16, 0), 0);
    assert_int_equal(bind_event(a, 3, TP_AGG_VALUE, NULL, by, 2), 0);
    tp_agg_symbols(a, k);
    tp_agg_feed_stack(a, 3, r.b, r.len, 10, "bash", s1, 3);
    tp_agg_feed_stack(a, 3, r.b, r.len, 10, "cat", s2, 3);
    assert_int_equal(find(a, "comm=bash,stack=entry_SYSCALL_64_after_hwframe;do_syscall_64;"
                             "__x64_sys_getpid")->count, 1);
    assert_non_null(find(a, "comm=cat,stack=entry_SYSCALL_64_after_hwframe;do_syscall_64;"
                            "__x64_sys_getpid"));
    tp_agg_destroy(a);
    tp_ksyms_destroy(k);
}

/*
 * The stacks seen recently are remembered by their addresses: the same
 * stack counts on the same key however many others come between (the
 * cache is direct-mapped: 2000 stacks through 512 places), a deep stack
 * is folded every time, and symbols that come later rename what follows.
 */
static void test_stack_cache(void **state)
{
    (void)state;
    enum { N = 2000, DEEP = 60 };
    struct tp_ksyms *k;
    struct tp_agg *a;
    struct rec r = ev(1, 0, 0, "x", "y");
    const struct tp_field *by[] = { &tp_agg_stack };
    assert_int_equal(tp_ksyms_create(&k, stack_syms), 0);
    assert_int_equal(tp_agg_create(&a, TP_AGG_COUNT, 4096, 0), 0);
    assert_int_equal(bind_event(a, 3, TP_AGG_VALUE, NULL, by, 1), 0);
    uint64_t s1[2] = { 0xffffffff81000210ull, 0xffffffff8100001aull };
    tp_agg_feed_stack(a, 3, r.b, r.len, 1, NULL, s1, 2);
    tp_agg_symbols(a, k);
    tp_agg_feed_stack(a, 3, r.b, r.len, 2, NULL, s1, 2);
    assert_int_equal(find(a, "stack=0xffffffff8100001a;0xffffffff81000210")->count, 1);
    assert_int_equal(find(a, "stack=do_syscall_64;__x64_sys_getpid")->count, 1);
    tp_agg_symbols(a, NULL);
    for (int round = 0; round < 2; round++)
        for (uint64_t i = 0; i < N; i++) {
            uint64_t f[2] = { 0x1000 + i, 0x42 };
            tp_agg_feed_stack(a, 3, r.b, r.len, 3, NULL, f, 2);
        }
    assert_int_equal(tp_agg_nkeys(a), 2 + N);
    for (size_t i = 0; i < tp_agg_nkeys(a); i++)
        if (tp_agg_key(a, i)->count != 1)
            assert_int_equal(tp_agg_key(a, i)->count, 2);
    assert_int_equal(find(a, "stack=0x42;0x1000")->count, 2);
    assert_int_equal(find(a, "stack=0x42;0x17cf")->count, 2);
    uint64_t deep[DEEP];
    for (unsigned i = 0; i < DEEP; i++)
        deep[i] = 0x5000 + i;
    tp_agg_feed_stack(a, 3, r.b, r.len, 4, NULL, deep, DEEP);
    tp_agg_feed_stack(a, 3, r.b, r.len, 5, NULL, deep, DEEP);
    assert_int_equal(tp_agg_nkeys(a), 3 + N);
    assert_int_equal(tp_agg_dropped(a), 0);
    tp_agg_destroy(a);
    tp_ksyms_destroy(k);
}

/*
 * The names of stacks can run out before the keys do (stacks of events
 * dropped later keep theirs): an event whose new stack finds no name left
 * counts under "other", never under a key of its own.
 */
static void test_stack_names_full(void **state)
{
    (void)state;
    struct tp_agg *a;
    const struct tp_field *by[] = { &tp_agg_stack, &f_val };
    assert_int_equal(tp_agg_create(&a, TP_AGG_COUNT, 2, 0), 0);   /* 3 stack names */
    assert_int_equal(bind_event(a, 3, TP_AGG_VALUE, NULL, by, 2), 0);
    struct rec r = ev(1, 0, 7, "x", "y");
    for (uint64_t i = 0; i < 3; i++) {
        uint64_t f[1] = { 0x1000 + i };
        tp_agg_feed_stack(a, 3, r.b, 20, 1, NULL, f, 1);         /* val cut off: dropped */
    }
    uint64_t f[1] = { 0x2000 };
    tp_agg_feed_stack(a, 3, r.b, r.len, 2, NULL, f, 1);
    assert_int_equal(tp_agg_dropped(a), 3);
    assert_int_equal(tp_agg_overflow(a), 1);
    assert_int_equal(tp_agg_nkeys(a), 1);
    assert_int_equal(find(a, "other")->count, 1);
    tp_agg_destroy(a);
}

/*
 * A stack too long for a name keeps its innermost frames behind a mark
 * with a hash of all of them: bounded, and two stacks that differ only in
 * their outer frames still have two names.
 */
static void test_fold_long_stacks(void **state)
{
    (void)state;
    enum { N = 100 };
    uint64_t f[N];
    char a[TP_AGG_MAX_STACK], b[TP_AGG_MAX_STACK];
    for (unsigned i = 0; i < N; i++)
        f[i] = 0xffffffff00000000ull + i;   /* no symbols: 0x... frames of 18 bytes */
    size_t la = tp_ksyms_fold(NULL, f, N, a, sizeof(a));
    f[N - 1] = 0xffffffff00001234ull;       /* the outermost frame differs */
    size_t lb = tp_ksyms_fold(NULL, f, N, b, sizeof(b));
    assert_true(la < sizeof(a) && lb < sizeof(b));
    assert_true(la + 19 >= sizeof(a) - 1);  /* as many frames as fit */
    assert_int_equal(strncmp(a, "...", 3), 0);
    assert_int_equal(a[19], ';');
    assert_string_not_equal(a, b);
    assert_string_equal(a + 20, b + 20);    /* the same innermost frames */
    assert_non_null(strstr(a, ";0xffffffff00000000"));     /* innermost last */
    assert_int_equal(strcmp(a + la - 18, "0xffffffff00000000"), 0);
    /* one that fits has no mark, and is the same whatever the room */
    assert_int_equal(tp_ksyms_fold(NULL, f, 2, a, sizeof(a)), 37);
    assert_string_equal(a, "0xffffffff00000001;0xffffffff00000000");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_stack),
        cmocka_unit_test(test_stack_cache),
        cmocka_unit_test(test_stack_names_full),
        cmocka_unit_test(test_fold_long_stacks),
        cmocka_unit_test(test_count_without_and_with_keys),
        cmocka_unit_test(test_sum_by_strings),
        cmocka_unit_test(test_key_names_for_numbers),
        cmocka_unit_test(test_key_by_event_name),
        cmocka_unit_test(test_key_by_comm),
        cmocka_unit_test(test_key_by_long_comms),
        cmocka_unit_test(test_hist_buckets),
        cmocka_unit_test(test_key_overflow),
        cmocka_unit_test(test_put_after_clear),
        cmocka_unit_test(test_put_comm),
        cmocka_unit_test(test_latency_pairs),
        cmocka_unit_test(test_latency_ends_alone),
        cmocka_unit_test(test_latency_two_fields),
        cmocka_unit_test(test_latency_full_starts),
        cmocka_unit_test(test_latency_overflow_counts_pairs),
        cmocka_unit_test(test_bad_bindings),
        cmocka_unit_test(test_truncated_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
