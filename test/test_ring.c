/*
 * Unit tests for tp_ring (src/ring.c): storage, wrap-around, eviction,
 * per-slot accounting and cursors.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tp_ring.h"

#define MIN_CAP 4096u
/* A non-NULL value that create must overwrite with NULL on failure. */
#define POISON ((struct tp_ring *)(uintptr_t)0x5a5a5a58u)

/* ---- helpers ---------------------------------------------------------- */

/* Deterministic PRNG (xorshift64*), so every run is the same. */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static uint32_t rnd_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(rnd(s) % n);
}

static uint8_t payload_byte(uint32_t id, uint32_t i)
{
    return (uint8_t)(id * 131u + i * 7u + (i >> 8) + 1u);
}

static void fill_payload(uint8_t *buf, uint32_t id, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        buf[i] = payload_byte(id, i);
}

static bool payload_ok(const void *data, uint32_t id, uint32_t len)
{
    const uint8_t *p = data;

    if (len > 0 && p == NULL)
        return false;
    for (uint32_t i = 0; i < len; i++)
        if (p[i] != payload_byte(id, i))
            return false;
    return true;
}

/* Append event `id`: meta.event = id, cpu derived from id, payload from id. */
static int append_id(struct tp_ring *r, uint32_t id, uint64_t ts,
                     tp_slotmask mask, uint32_t len)
{
    uint8_t *buf = malloc(len > 0 ? len : 1);
    struct tp_event_meta m = { .ts = ts, .event = id, .cpu = (uint16_t)(id % 13u),
                               .clock = (uint16_t)(id % 7u), .mask = mask };
    int rc;

    assert_non_null(buf);
    fill_payload(buf, id, len);
    rc = tp_ring_append(r, &m, buf, len);
    free(buf);
    return rc;
}

static void check_event(const struct tp_ring_view *v, uint32_t id, uint64_t ts,
                        tp_slotmask mask, uint32_t len)
{
    assert_int_equal(v->meta.event, id);
    assert_int_equal(v->meta.cpu, id % 13u);
    assert_int_equal(v->meta.clock, id % 7u);
    assert_int_equal(v->clock, id % 7u);
    assert_int_equal(v->meta.ts, ts);
    assert_int_equal(v->ts, ts);
    assert_int_equal(v->meta.mask, mask);
    assert_int_equal(v->len, len);
    assert_true(payload_ok(v->data, id, len));
}

static struct tp_ring *new_ring(size_t cap)
{
    struct tp_ring *r = NULL;

    assert_int_equal(tp_ring_create(&r, cap), 0);
    assert_non_null(r);
    return r;
}

static struct tp_ring_stats stats_of(const struct tp_ring *r)
{
    struct tp_ring_stats st;

    memset(&st, 0xa5, sizeof(st));
    tp_ring_get_stats(r, &st);
    return st;
}

/* The per-entry header size, as seen through stats: a len-0 entry. */
static size_t header_size(void)
{
    struct tp_ring *r = new_ring(MIN_CAP);
    size_t h;

    assert_int_equal(append_id(r, 0, 0, 1, 0), 0);
    h = stats_of(r).used;
    tp_ring_destroy(r);
    assert_true(h >= 16 && h % 8 == 0);
    return h;
}

static size_t round8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

/* ---- create / argument checks ----------------------------------------- */

/* Slots are chosen lowest first; a full mask has none. */
static void test_free_slot(void **state)
{
    (void)state;
    assert_int_equal(tp_ring_free_slot(0), 0);
    assert_int_equal(tp_ring_free_slot(0x7), 3);
    assert_int_equal(tp_ring_free_slot(~(tp_slotmask)0 & ~((tp_slotmask)1 << 63)), 63);
    assert_int_equal(tp_ring_free_slot(~(tp_slotmask)0 & ~((tp_slotmask)1 << 5)), 5);
    assert_int_equal(tp_ring_free_slot(~(tp_slotmask)0), -1);
}

static void test_create_rejects_bad_args(void **state)
{
    struct tp_ring *r = POISON;
    struct tp_ring_stats st;

    (void)state;
    assert_int_equal(tp_ring_create(NULL, 1u << 20), -EINVAL);
    assert_int_equal(tp_ring_create(&r, 0), -EINVAL);
    assert_null(r);
    r = POISON;
    assert_int_equal(tp_ring_create(&r, MIN_CAP - 1), -EINVAL);
    assert_null(r);

    /* rounded down to a multiple of 8 */
    assert_int_equal(tp_ring_create(&r, MIN_CAP + 7), 0);
    st = stats_of(r);
    assert_int_equal(st.capacity, MIN_CAP);
    assert_int_equal(st.used, 0);
    assert_int_equal(st.head_seq, 0);
    assert_int_equal(st.tail_seq, 0);
    assert_int_equal(st.evicted, 0);
    tp_ring_destroy(r);

    r = new_ring(100003);
    assert_int_equal(stats_of(r).capacity, 100000);
    tp_ring_destroy(r);

    tp_ring_destroy(NULL);      /* must be a no-op */
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#ifdef UNDER_ASAN
/* Let malloc fail with NULL instead of aborting, for test_create_enomem. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}
#endif

static void test_create_enomem(void **state)
{
    struct tp_ring *r = POISON;

    (void)state;
    assert_int_equal(tp_ring_create(&r, SIZE_MAX / 2), -ENOMEM);   /* 8 EiB */
    assert_null(r);
}

static void test_append_rejects_bad_args(void **state)
{
    struct tp_ring *r = new_ring(MIN_CAP);
    struct tp_event_meta m = { .ts = 1, .event = 2, .cpu = 3, .mask = 0 };
    uint8_t data[16] = { 0 };
    struct tp_ring_stats st;

    (void)state;
    assert_int_equal(tp_ring_append(r, &m, data, sizeof(data)), -EINVAL);
    assert_int_equal(tp_ring_append(r, NULL, data, sizeof(data)), -EINVAL);
    m.mask = 1;
    assert_int_equal(tp_ring_append(r, &m, NULL, 4), -EINVAL);
    assert_int_equal(tp_ring_append_loss(r, 1, 0, 0, 5), -EINVAL);
    st = stats_of(r);
    assert_int_equal(st.head_seq, 0);
    assert_int_equal(st.used, 0);
    assert_int_equal(tp_ring_slot_matched(r, 0), 0);

    /* a zero-length event with no data is fine */
    assert_int_equal(tp_ring_append(r, &m, NULL, 0), 0);
    assert_int_equal(stats_of(r).head_seq, 1);
    assert_int_equal(tp_ring_slot_matched(r, 0), 1);
    tp_ring_destroy(r);
}

/* ---- basic reading ---------------------------------------------------- */

static void test_round_trip(void **state)
{
    struct tp_ring *r = new_ring(1u << 16);
    struct tp_cursor c;
    struct tp_ring_view v;
    static const uint32_t lens[] = { 1, 0, 7, 8, 9, 100, 1000 };
    const size_t n = sizeof(lens) / sizeof(lens[0]);

    (void)state;
    for (size_t i = 0; i < n; i++)
        assert_int_equal(append_id(r, (uint32_t)(70000 + i), 1000 + i, 1u << 3, lens[i]), 0);
    assert_int_equal(tp_ring_slot_matched(r, 3), n);
    assert_int_equal(tp_ring_slot_matched(r, 0), 0);

    tp_cursor_init(r, &c, 3, 0);
    assert_int_equal(c.slot, 3);
    assert_int_equal(c.ord, 0);
    assert_int_equal(tp_cursor_backlog(r, &c), n);
    for (size_t i = 0; i < n; i++) {
        memset(&v, 0, sizeof(v));
        assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_EVENT);
        check_event(&v, (uint32_t)(70000 + i), 1000 + i, 1u << 3, lens[i]);
        assert_int_equal(c.ord, i + 1);
        assert_int_equal(tp_cursor_backlog(r, &c), n - i - 1);
    }
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_END);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_END);

    /* a later append is picked up by the same cursor */
    assert_int_equal(append_id(r, 5, 99, (1u << 3) | 1u, 33), 0);
    assert_int_equal(tp_cursor_backlog(r, &c), 1);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_EVENT);
    check_event(&v, 5, 99, (1u << 3) | 1u, 33);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_END);
    tp_ring_destroy(r);
}

static void test_stats_and_backlog(void **state)
{
    const size_t hdr = header_size();
    struct tp_ring *r = new_ring(MIN_CAP);
    struct tp_cursor a, b;
    struct tp_ring_view v;
    struct tp_ring_stats st;

    (void)state;
    assert_int_equal(append_id(r, 1, 10, 1, 3), 0);
    assert_int_equal(append_id(r, 2, 20, 2, 8), 0);
    assert_int_equal(tp_ring_append_loss(r, 30, 0, 1, 4), 0);
    st = stats_of(r);
    assert_int_equal(st.capacity, MIN_CAP);
    assert_int_equal(st.used, round8(hdr + 3) + round8(hdr + 8) + hdr);
    assert_int_equal(st.head_seq, 3);
    assert_int_equal(st.tail_seq, 0);
    assert_int_equal(st.evicted, 0);

    tp_cursor_init(r, &a, 0, 0);
    tp_cursor_init(r, &b, 1, 0);
    assert_int_equal(tp_cursor_backlog(r, &a), 3);     /* upper bound: all entries */
    assert_int_equal(tp_cursor_backlog(r, &b), 3);     /* upper bound: from the tail */
    assert_int_equal(tp_ring_next(r, &a, &v, NULL), TP_READ_EVENT);
    assert_int_equal(tp_cursor_backlog(r, &a), 2);
    assert_int_equal(tp_ring_next(r, &a, &v, NULL), TP_READ_MISSED);   /* skips entry 1 */
    assert_int_equal(tp_cursor_backlog(r, &a), 0);

    /* Fill until eviction: backlog of an overtaken cursor counts from tail. */
    for (uint32_t i = 0; stats_of(r).tail_seq < 2; i++)
        assert_int_equal(append_id(r, 100 + i, 100 + i, 4, 200), 0);
    st = stats_of(r);
    assert_int_equal(st.evicted, st.tail_seq);
    assert_true(st.used <= st.capacity);
    assert_int_equal(tp_cursor_backlog(r, &b), st.head_seq - st.tail_seq);
    tp_ring_destroy(r);
}

/* ---- wrap-around ------------------------------------------------------ */

/*
 * One slot, the reader keeps up in random-size batches; thousands of
 * entries of varied size go round the ring many times.  Every record must
 * arrive once, in order, with its payload.  Both kinds of wrap (a PAD
 * header, and a tail too short for one) must actually have happened.
 */
static void test_wrap_around_many_times(void **state)
{
    const size_t hdr = header_size();
    struct tp_ring *r = new_ring(MIN_CAP);
    struct tp_cursor c;
    struct tp_ring_view v;
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    uint32_t next_read = 0, id = 0;
    uint32_t lens[8192];
    size_t region[8192];        /* bytes each entry held, wrap waste included */
    unsigned pad_wraps = 0, short_wraps = 0;
    size_t bytes = 0;

    (void)state;
    tp_cursor_init(r, &c, 0, 0);
    while (id < 8000) {
        /* a batch small enough (< cap/2) that the reader is never overtaken */
        uint32_t batch = 1 + rnd_below(&seed, 6);

        for (uint32_t k = 0; k < batch; k++, id++) {
            struct tp_ring_stats before = stats_of(r), after;
            uint32_t len = rnd_below(&seed, 4) == 0 ? rnd_below(&seed, 300) : rnd_below(&seed, 40);
            size_t size = round8(hdr + len), waste, freed = 0;

            lens[id] = len;
            assert_int_equal(append_id(r, id, 5u * id, 1, len), 0);
            after = stats_of(r);
            assert_true(after.used <= after.capacity);
            assert_int_equal(after.head_seq, id + 1);
            /* used went up by this entry plus its wrap waste, down by what was evicted */
            for (uint64_t q = before.tail_seq; q < after.tail_seq; q++)
                freed += region[q];
            waste = after.used + freed - before.used - size;
            assert_true(waste < MIN_CAP && waste % 8 == 0);
            region[id] = size + waste;
            bytes += size + waste;
            if (waste >= hdr)
                pad_wraps++;
            else if (waste > 0)
                short_wraps++;
        }
        /* read everything */
        for (;;) {
            enum tp_read rc = tp_ring_next(r, &c, &v, NULL);

            if (rc == TP_READ_END)
                break;
            assert_int_equal(rc, TP_READ_EVENT);
            check_event(&v, next_read, 5u * next_read, 1, lens[next_read]);
            next_read++;
        }
        assert_int_equal(next_read, id);
        assert_int_equal(c.ord, id);
    }
    assert_true(bytes > 50u * MIN_CAP);
    assert_true(pad_wraps > 10);
    assert_true(short_wraps > 3);
    /* everything evicted had been read before: the ring's loss is nobody's */
    assert_true(tp_ring_slot_evicted(r, 0) > 0);
    assert_int_equal(tp_ring_slot_evicted(r, 0), stats_of(r).tail_seq);
    tp_ring_destroy(r);
}

/*
 * Same, with the reader lagging behind so that eviction and wrapping happen
 * together: entries evicted are never read, everything read is intact and in
 * order, and the one MISSED per overtake counts exactly the skipped ones.
 */
static void test_wrap_with_eviction_exact(void **state)
{
    struct tp_ring *r = new_ring(MIN_CAP);
    struct tp_cursor c;
    struct tp_ring_view v;
    uint64_t seed = 42;
    uint32_t expect = 0, id = 0;
    uint32_t lens[20000];
    unsigned overtakes = 0;

    (void)state;
    tp_cursor_init(r, &c, 0, 0);
    while (id < 20000) {
        uint32_t batch = 1 + rnd_below(&seed, 80);

        for (uint32_t k = 0; k < batch && id < 20000; k++, id++) {
            lens[id] = rnd_below(&seed, 200);
            assert_int_equal(append_id(r, id, id, 1, lens[id]), 0);
            assert_true(stats_of(r).used <= MIN_CAP);
        }
        for (uint32_t k = rnd_below(&seed, 60); k > 0; k--) {
            enum tp_read rc = tp_ring_next(r, &c, &v, NULL);

            if (rc == TP_READ_END)
                break;
            if (rc == TP_READ_MISSED) {
                /* exactly the entries evicted before the cursor got there */
                assert_int_equal(v.missed, stats_of(r).tail_seq - expect);
                expect += (uint32_t)v.missed;
                overtakes++;
                rc = tp_ring_next(r, &c, &v, NULL);
                assert_int_equal(rc, TP_READ_EVENT);   /* never two MISSED in a row */
            }
            check_event(&v, expect, expect, 1, lens[expect]);
            expect++;
        }
    }
    assert_true(overtakes > 10);
    tp_ring_destroy(r);
}

/* ---- several cursors -------------------------------------------------- */

static void test_two_cursors_same_slot(void **state)
{
    struct tp_ring *r = new_ring(1u << 16);
    struct tp_cursor fast, slow;
    struct tp_ring_view v;
    uint32_t got_fast = 0, got_slow = 0, id;

    (void)state;
    tp_cursor_init(r, &fast, 2, 0);
    tp_cursor_init(r, &slow, 2, 0);
    for (id = 0; id < 3000; id++) {
        /* slot 2's events are the ids divisible by 3; others go to slot 1 */
        tp_slotmask mask = id % 3 == 0 ? (1u << 2) : (1u << 1);

        assert_int_equal(append_id(r, id, id, mask, id % 50), 0);
        /* the fast one reads after every append, the slow one every 37 */
        while (tp_ring_next(r, &fast, &v, NULL) == TP_READ_EVENT) {
            check_event(&v, got_fast * 3, got_fast * 3, 1u << 2, (got_fast * 3) % 50);
            got_fast++;
        }
        if (id % 37 == 0) {
            enum tp_read rc;

            while ((rc = tp_ring_next(r, &slow, &v, NULL)) == TP_READ_EVENT) {
                check_event(&v, got_slow * 3, got_slow * 3, 1u << 2, (got_slow * 3) % 50);
                got_slow++;
            }
            assert_int_equal(rc, TP_READ_END);
        }
    }
    while (tp_ring_next(r, &slow, &v, NULL) == TP_READ_EVENT) {
        check_event(&v, got_slow * 3, got_slow * 3, 1u << 2, (got_slow * 3) % 50);
        got_slow++;
    }
    assert_int_equal(tp_ring_next(r, &fast, &v, NULL), TP_READ_END);
    assert_int_equal(got_fast, 1000);
    assert_int_equal(got_slow, 1000);
    assert_int_equal(fast.ord, 1000);
    assert_int_equal(slow.ord, 1000);
    assert_int_equal(tp_ring_slot_matched(r, 2), 1000);
    /* the ring went round: slot-2 entries were evicted, after both had read them */
    assert_true(tp_ring_slot_evicted(r, 2) > 0);
    tp_ring_destroy(r);
}

static void test_cursors_see_only_their_slot(void **state)
{
    static const unsigned slots[] = { 0, 1, 5, 31, 32, 63 };
    enum { NS = sizeof(slots) / sizeof(slots[0]), N = 500 };
    struct tp_ring *r = new_ring(1u << 17);
    struct tp_cursor c[NS];
    struct tp_ring_view v;
    tp_slotmask masks[N];
    uint64_t seed = 7;

    (void)state;
    for (uint32_t id = 0; id < N; id++) {
        do
            masks[id] = rnd(&seed) & (rnd(&seed) | rnd(&seed));
        while (masks[id] == 0);
        if (id == 10)
            masks[id] = 1ULL << 63;     /* the top bit alone */
        assert_int_equal(append_id(r, id, id, masks[id], id % 17), 0);
    }
    for (int s = 0; s < NS; s++) {
        uint64_t want = 0;
        uint32_t last = 0;
        bool first = true;

        tp_cursor_init(r, &c[s], slots[s], 0);
        for (uint32_t id = 0; id < N; id++)
            want += (masks[id] >> slots[s]) & 1u;
        assert_int_equal(tp_ring_slot_matched(r, slots[s]), want);
        for (uint32_t id = 0; id < N; id++) {
            if (!((masks[id] >> slots[s]) & 1u))
                continue;
            assert_int_equal(tp_ring_next(r, &c[s], &v, NULL), TP_READ_EVENT);
            check_event(&v, id, id, masks[id], id % 17);
            assert_true(first || v.meta.event > last);
            last = v.meta.event;
            first = false;
        }
        assert_int_equal(tp_ring_next(r, &c[s], &v, NULL), TP_READ_END);
        assert_int_equal(c[s].ord, want);
    }
    /* slot 63 got the top-bit-only entry */
    tp_cursor_init(r, &c[0], 63, 10);
    assert_int_equal(tp_ring_next(r, &c[0], &v, NULL), TP_READ_EVENT);
    assert_int_equal(v.meta.event, 10);
    tp_ring_destroy(r);
}

/* ---- eviction and loss ------------------------------------------------ */

/*
 * Slot 0 gets even ids, slot 1 odd ids.  The slot-0 cursor reads a few,
 * then the ring moves on without it: exactly one MISSED carrying the number
 * of slot-0 events evicted after its position, then the oldest held slot-0
 * event, then the rest in order.
 */
static void test_overtaken_cursor_reports_exact_miss(void **state)
{
    struct tp_ring *r = new_ring(MIN_CAP);
    struct tp_cursor c, other;
    struct tp_ring_view v;
    struct tp_ring_stats st;
    uint32_t id, first_held, n;
    uint64_t missed;

    (void)state;
    tp_cursor_init(r, &c, 0, 0);
    for (id = 0; id < 10; id++)
        assert_int_equal(append_id(r, id, id, id % 2 ? 2u : 1u, 24), 0);
    for (uint32_t k = 0; k < 3; k++) {
        assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_EVENT);
        assert_int_equal(v.meta.event, 2 * k);
    }
    assert_int_equal(c.ord, 3);
    tp_cursor_init(r, &other, 1, UINT64_MAX);      /* slot 1 at head */

    for (; stats_of(r).tail_seq < 60; id++)
        assert_int_equal(append_id(r, id, id, id % 2 ? 2u : 1u, 24), 0);
    n = id;
    st = stats_of(r);
    first_held = (uint32_t)st.tail_seq;              /* seq == id here */
    assert_true(st.used <= st.capacity);
    assert_int_equal(tp_ring_slot_evicted(r, 0), (first_held + 1) / 2);
    assert_int_equal(tp_ring_slot_evicted(r, 1), first_held / 2);

    /* evicted slot-0 events it had not read: even ids in [6, first_held) */
    missed = (first_held + 1) / 2 - 3;
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_MISSED);
    assert_int_equal(v.missed, missed);
    assert_int_equal(v.ts, (first_held - 1) & ~1u);    /* newest evicted slot-0 event */
    assert_int_equal(c.ord, tp_ring_slot_evicted(r, 0));
    /* then the oldest held slot-0 event, and no second MISSED */
    for (uint32_t want = first_held + (first_held % 2); want < n; want += 2) {
        assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_EVENT);
        check_event(&v, want, want, 1, 24);
    }
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_END);
    assert_int_equal(c.ord, tp_ring_slot_matched(r, 0));

    /*
     * The slot-1 cursor started at head (seq 10, ord 5) and was overtaken
     * too: it must miss exactly the odd ids from 11 up to first_held.
     */
    assert_int_equal(tp_ring_next(r, &other, &v, NULL), TP_READ_MISSED);
    assert_int_equal(v.missed, first_held / 2 - 5);
    tp_ring_destroy(r);
}

/* Overtaken, but only other slots' entries were evicted: no MISSED at all. */
static void test_overtaken_without_own_loss(void **state)
{
    struct tp_ring *r = new_ring(MIN_CAP);
    struct tp_cursor c;
    struct tp_ring_view v;
    uint32_t id;

    (void)state;
    tp_cursor_init(r, &c, 4, 0);
    for (id = 0; stats_of(r).tail_seq < 20; id++)
        assert_int_equal(append_id(r, id, id, 1, 40), 0);
    assert_int_equal(append_id(r, id, id, 1u << 4, 3), 0);
    assert_true(c.seq < stats_of(r).tail_seq);
    assert_int_equal(tp_ring_slot_evicted(r, 4), 0);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_EVENT);
    check_event(&v, id, id, 1u << 4, 3);
    assert_int_equal(c.ord, 1);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_END);
    tp_ring_destroy(r);
}

/*
 * One entry big enough to evict everything: the ring empties and restarts.
 * A cursor that was at head, and one that was overtaken, both find it.
 */
static void test_huge_entry_evicts_everything(void **state)
{
    const size_t hdr = header_size();
    struct tp_ring *r = new_ring(MIN_CAP);
    const uint32_t big = (uint32_t)(MIN_CAP - 2 * hdr);
    struct tp_cursor at_head, behind;
    struct tp_ring_view v;
    struct tp_ring_stats st;

    (void)state;
    tp_cursor_init(r, &behind, 0, 0);
    for (uint32_t id = 0; id < 7; id++)
        assert_int_equal(append_id(r, id, id, 1, 100 + id), 0);
    tp_cursor_init(r, &at_head, 0, UINT64_MAX);
    assert_int_equal(append_id(r, 1000, 1000, 1, big), 0);
    st = stats_of(r);
    assert_int_equal(st.tail_seq, 7);
    assert_int_equal(st.head_seq, 8);
    assert_int_equal(st.used, MIN_CAP - hdr);

    assert_int_equal(tp_ring_next(r, &at_head, &v, NULL), TP_READ_EVENT);
    check_event(&v, 1000, 1000, 1, big);
    assert_int_equal(tp_ring_next(r, &at_head, &v, NULL), TP_READ_END);

    assert_int_equal(tp_ring_next(r, &behind, &v, NULL), TP_READ_MISSED);
    assert_int_equal(v.missed, 7);
    assert_int_equal(tp_ring_next(r, &behind, &v, NULL), TP_READ_EVENT);
    check_event(&v, 1000, 1000, 1, big);

    /* and the ring goes on normally afterwards */
    for (uint32_t id = 2000; id < 2100; id++) {
        assert_int_equal(append_id(r, id, id, 1, id % 91), 0);
        assert_int_equal(tp_ring_next(r, &at_head, &v, NULL), TP_READ_EVENT);
        check_event(&v, id, id, 1, id % 91);
    }
    tp_ring_destroy(r);
}

static void test_loss_entries(void **state)
{
    struct tp_ring *r = new_ring(MIN_CAP);
    struct tp_cursor a, b;
    struct tp_ring_view v;

    (void)state;
    tp_cursor_init(r, &a, 0, 0);
    tp_cursor_init(r, &b, 1, 0);
    assert_int_equal(append_id(r, 1, 10, 3, 4), 0);
    assert_int_equal(tp_ring_append_loss(r, 20, 0, 1, 5), 0);     /* slot 0 only */
    assert_int_equal(tp_ring_append_loss(r, 25, 0, 2, 0), 0);     /* nothing lost: ignored */
    assert_int_equal(append_id(r, 2, 30, 3, 4), 0);
    assert_int_equal(tp_ring_append_loss(r, 40, 0, 3, 1000000), 0);
    assert_int_equal(stats_of(r).head_seq, 4);
    assert_int_equal(tp_ring_slot_matched(r, 0), 1 + 5 + 1 + 1000000);
    assert_int_equal(tp_ring_slot_matched(r, 1), 1 + 1 + 1000000);

    assert_int_equal(tp_ring_next(r, &a, &v, NULL), TP_READ_EVENT);
    check_event(&v, 1, 10, 3, 4);
    assert_int_equal(tp_ring_next(r, &a, &v, NULL), TP_READ_MISSED);
    assert_int_equal(v.missed, 5);
    assert_int_equal(v.ts, 20);
    assert_int_equal(a.ord, 6);
    assert_int_equal(tp_ring_next(r, &a, &v, NULL), TP_READ_EVENT);
    check_event(&v, 2, 30, 3, 4);
    assert_int_equal(tp_ring_next(r, &a, &v, NULL), TP_READ_MISSED);
    assert_int_equal(v.missed, 1000000);
    assert_int_equal(v.ts, 40);
    assert_int_equal(tp_ring_next(r, &a, &v, NULL), TP_READ_END);
    assert_int_equal(a.ord, tp_ring_slot_matched(r, 0));

    assert_int_equal(tp_ring_next(r, &b, &v, NULL), TP_READ_EVENT);
    assert_int_equal(v.meta.event, 1);
    assert_int_equal(tp_ring_next(r, &b, &v, NULL), TP_READ_EVENT);
    assert_int_equal(v.meta.event, 2);
    assert_int_equal(tp_ring_next(r, &b, &v, NULL), TP_READ_MISSED);
    assert_int_equal(v.missed, 1000000);
    assert_int_equal(tp_ring_next(r, &b, &v, NULL), TP_READ_END);
    tp_ring_destroy(r);
}

/* An evicted LOSS entry adds its count to the slot's evicted and to MISSED. */
static void test_evicted_loss_counts(void **state)
{
    struct tp_ring *r = new_ring(MIN_CAP);
    struct tp_cursor c;
    struct tp_ring_view v;
    uint32_t id;

    (void)state;
    tp_cursor_init(r, &c, 0, 0);
    assert_int_equal(append_id(r, 0, 0, 1, 8), 0);
    assert_int_equal(tp_ring_append_loss(r, 1, 0, 1, 77), 0);
    assert_int_equal(append_id(r, 2, 2, 1, 8), 0);
    for (id = 3; stats_of(r).tail_seq < 3; id++)
        assert_int_equal(append_id(r, id, id, 2, 64), 0);
    assert_int_equal(tp_ring_slot_evicted(r, 0), 1 + 77 + 1);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_MISSED);
    assert_int_equal(v.missed, 79);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_END);
    assert_int_equal(c.ord, 79);
    assert_int_equal(c.ord, tp_ring_slot_matched(r, 0));
    tp_ring_destroy(r);
}

/* ---- capacity --------------------------------------------------------- */

static void test_capacity_bound(void **state)
{
    const size_t hdr = header_size();
    const size_t cap = 8192;
    struct tp_ring *r = new_ring(cap);
    const uint32_t max_len = (uint32_t)(cap - 2 * hdr);    /* entry == cap - one header */
    struct tp_ring_stats before, after;
    struct tp_cursor c;
    struct tp_ring_view v;
    uint64_t seed = 1234;

    (void)state;
    tp_cursor_init(r, &c, 0, 0);
    for (uint32_t id = 0; id < 3000; id++) {
        uint32_t len = rnd_below(&seed, 10) == 0 ? max_len - rnd_below(&seed, 64)
                                                 : rnd_below(&seed, 700);

        assert_int_equal(append_id(r, id, id, 1, len), 0);
        after = stats_of(r);
        assert_true(after.used <= after.capacity);
        assert_true(after.used >= round8(hdr + len));
        assert_int_equal(after.capacity, cap);
    }
    before = stats_of(r);
    assert_true(before.evicted > 0);

    /* too big: nothing changes */
    assert_int_equal(append_id(r, 9, 9, 1, max_len + 1), -E2BIG);
    assert_int_equal(append_id(r, 9, 9, 1, (uint32_t)cap), -E2BIG);
    {
        /* a size that would overflow 32-bit arithmetic; data must not be touched */
        struct tp_event_meta m = { .ts = 9, .event = 9, .mask = 1 };
        uint8_t small[8] = { 0 };

        assert_int_equal(tp_ring_append(r, &m, small, UINT32_MAX), -E2BIG);
        assert_int_equal(tp_ring_append(r, &m, small, UINT32_MAX - 40), -E2BIG);
    }
    after = stats_of(r);
    assert_memory_equal(&before, &after, sizeof(before));
    assert_int_equal(tp_ring_slot_matched(r, 0), 3000);

    /* the biggest that fits does, and reads back intact */
    tp_cursor_init(r, &c, 0, UINT64_MAX);
    assert_int_equal(append_id(r, 7777, 1, 1, max_len), 0);
    assert_true(stats_of(r).used <= cap);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_EVENT);
    check_event(&v, 7777, 1, 1, max_len);
    tp_ring_destroy(r);
}

/*
 * Appending evicts only as many of the oldest entries as it must.  Entry
 * sizes are chosen (from the header size) so the layout is known exactly:
 * an exact fit at the end, a wrap leaving room for a PAD header, and a wrap
 * leaving less than a header.  The expected tail_seq and used after each
 * append were worked out by hand for a 4096-byte ring.
 */
struct layout_step {
    size_t size;            /* whole entry, header included, multiple of 8 */
    uint64_t tail_seq;      /* after the append */
    size_t used;            /* after the append */
};

static void run_layout(const struct layout_step *steps, size_t n)
{
    const size_t hdr = header_size();
    struct tp_ring *r = new_ring(MIN_CAP);
    struct tp_cursor c;
    struct tp_ring_view v;
    struct tp_ring_stats st;

    tp_cursor_init(r, &c, 0, 0);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(append_id(r, (uint32_t)i, i, 1, (uint32_t)(steps[i].size - hdr)), 0);
        st = stats_of(r);
        assert_int_equal(st.head_seq, i + 1);
        assert_int_equal(st.tail_seq, steps[i].tail_seq);
        assert_int_equal(st.used, steps[i].used);
    }
    /* what is held reads back intact after one exact MISSED */
    st = stats_of(r);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_MISSED);
    assert_int_equal(v.missed, st.tail_seq);
    for (uint64_t i = st.tail_seq; i < n; i++) {
        assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_EVENT);
        check_event(&v, (uint32_t)i, i, 1, (uint32_t)(steps[i].size - hdr));
    }
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_END);
    tp_ring_destroy(r);
}

static void test_eviction_is_minimal(void **state)
{
    /* exact fit: the ring is full at 4096 and each append evicts one */
    static const struct layout_step exact[] = {
        { 1024, 0, 1024 }, { 1024, 0, 2048 }, { 1024, 0, 3072 }, { 1024, 0, 4096 },
        { 1024, 1, 4096 }, { 1024, 2, 4096 }, { 1024, 3, 4096 }, { 1024, 4, 4096 },
        { 1024, 5, 4096 },
    };
    /* 96 bytes left at the end: a PAD, owned (and freed) by the wrapped entry */
    static const struct layout_step pad[] = {
        { 1000, 0, 1000 }, { 1000, 0, 2000 }, { 1000, 0, 3000 }, { 1000, 0, 4000 },
        { 1000, 1, 4096 }, { 1000, 2, 4096 }, { 1000, 3, 4096 }, { 1000, 4, 4096 },
        { 1000, 5, 4096 }, { 1000, 6, 4096 },
    };
    /* 8 bytes left at the end: an implicit wrap */
    static const struct layout_step tiny[] = {
        { 1024, 0, 1024 }, { 1024, 0, 2048 }, { 1024, 0, 3072 }, { 1016, 0, 4088 },
        { 1024, 1, 4096 }, { 1024, 2, 4096 }, { 1024, 3, 4096 }, { 1024, 5, 3072 },
        { 1024, 5, 4096 }, { 1024, 6, 4096 },
    };

    (void)state;
    run_layout(exact, sizeof(exact) / sizeof(exact[0]));
    run_layout(pad, sizeof(pad) / sizeof(pad[0]));
    run_layout(tiny, sizeof(tiny) / sizeof(tiny[0]));
}

/* ---- slot reset and cursor positioning -------------------------------- */

static void test_slot_reset_ignores_older_entries(void **state)
{
    struct tp_ring *r = new_ring(MIN_CAP);
    struct tp_cursor old, fresh;
    struct tp_ring_view v;
    uint32_t id;

    (void)state;
    for (id = 0; id < 5; id++)
        assert_int_equal(append_id(r, id, id, 1, 16), 0);
    tp_cursor_init(r, &old, 0, 0);
    assert_int_equal(tp_ring_slot_matched(r, 0), 5);

    tp_ring_slot_reset(r, 0);
    assert_int_equal(tp_ring_slot_matched(r, 0), 0);
    assert_int_equal(tp_ring_slot_evicted(r, 0), 0);
    tp_cursor_init(r, &fresh, 0, 0);
    assert_int_equal(fresh.ord, 0);
    assert_int_equal(tp_ring_next(r, &fresh, &v, NULL), TP_READ_END);

    for (; id < 8; id++)
        assert_int_equal(append_id(r, id, id, 1, 16), 0);
    assert_int_equal(tp_ring_slot_matched(r, 0), 3);
    /* a cursor made after the reset sees only the new ones */
    tp_cursor_init(r, &fresh, 0, 0);
    for (uint32_t want = 5; want < 8; want++) {
        assert_int_equal(tp_ring_next(r, &fresh, &v, NULL), TP_READ_EVENT);
        assert_int_equal(v.meta.event, want);
    }
    assert_int_equal(tp_ring_next(r, &fresh, &v, NULL), TP_READ_END);
    /* even one positioned before the reset skips the old entries */
    for (uint32_t want = 5; want < 8; want++) {
        assert_int_equal(tp_ring_next(r, &old, &v, NULL), TP_READ_EVENT);
        assert_int_equal(v.meta.event, want);
    }
    assert_int_equal(tp_ring_next(r, &old, &v, NULL), TP_READ_END);

    /*
     * Evicting the pre-reset entries (seq 0..4) does not count as the
     * slot's loss; evicting seq 5..7 does.
     */
    while (stats_of(r).tail_seq < 8) {
        uint64_t t;

        assert_int_equal(append_id(r, id, id, 2, 100), 0);
        id++;
        t = stats_of(r).tail_seq;
        t = t < 5 ? 5 : t > 8 ? 8 : t;
        assert_int_equal(tp_ring_slot_evicted(r, 0), t - 5);
    }
    assert_int_equal(tp_ring_slot_evicted(r, 0), 3);
    assert_int_equal(tp_ring_slot_matched(r, 0), 3);
    tp_ring_destroy(r);
}

static void test_cursor_init_since_ts_middle(void **state)
{
    struct tp_ring *r = new_ring(1u << 16);
    struct tp_cursor c;
    struct tp_ring_view v;

    (void)state;
    /* slot 0 events at ts 100, 200, ..., 1000; slot 1 noise in between */
    for (uint32_t i = 1; i <= 10; i++) {
        assert_int_equal(append_id(r, i, 100u * i, 1, i), 0);
        assert_int_equal(append_id(r, 100 + i, 100u * i + 50, 2, i), 0);
    }
    assert_int_equal(tp_ring_append_loss(r, 1050, 0, 1, 3), 0);

    tp_cursor_init(r, &c, 0, 550);
    for (uint32_t i = 6; i <= 10; i++) {
        assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_EVENT);
        check_event(&v, i, 100u * i, 1, i);
    }
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_MISSED);
    assert_int_equal(v.missed, 3);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_END);
    assert_int_equal(c.ord, tp_ring_slot_matched(r, 0));

    /* exact match is included */
    tp_cursor_init(r, &c, 0, 500);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_EVENT);
    assert_int_equal(v.meta.event, 5);
    assert_int_equal(c.ord, 5);             /* 4 skipped before it, uncounted */

    /* from the beginning */
    tp_cursor_init(r, &c, 0, 0);
    assert_int_equal(c.ord, 0);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_EVENT);
    assert_int_equal(v.meta.event, 1);
    assert_int_equal(c.ord, 1);

    /* only the LOSS entry is new enough */
    tp_cursor_init(r, &c, 0, 1020);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_MISSED);
    assert_int_equal(v.missed, 3);
    assert_int_equal(c.ord, 13);

    /* nothing new enough: at head */
    tp_cursor_init(r, &c, 0, 5000);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_END);
    assert_int_equal(c.ord, tp_ring_slot_matched(r, 0));
    assert_int_equal(tp_cursor_backlog(r, &c), 0);
    /* what comes after the init is taken, whatever its time */
    assert_int_equal(append_id(r, 99, 10, 1, 4), 0);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_EVENT);
    check_event(&v, 99, 10, 1, 4);

    /* slot 1 from 560: first slot-1 entry with ts >= 560 is ts 650 */
    tp_cursor_init(r, &c, 1, 560);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_EVENT);
    check_event(&v, 106, 650, 2, 6);
    assert_int_equal(c.ord, 6);
    tp_ring_destroy(r);
}

/* After evictions, ord at init counts the evicted events before the start. */
static void test_cursor_init_after_eviction(void **state)
{
    struct tp_ring *r = new_ring(MIN_CAP);
    struct tp_cursor c;
    struct tp_ring_view v;
    struct tp_ring_stats st;
    uint32_t id;

    (void)state;
    for (id = 0; stats_of(r).tail_seq < 30; id++)
        assert_int_equal(append_id(r, id, 10u * id, 1, 32), 0);
    st = stats_of(r);
    tp_cursor_init(r, &c, 0, 0);
    assert_int_equal(c.ord, st.tail_seq);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_EVENT);
    assert_int_equal(v.meta.event, st.tail_seq);

    tp_cursor_init(r, &c, 0, 10u * (st.tail_seq + 3));
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_EVENT);
    assert_int_equal(v.meta.event, st.tail_seq + 3);
    assert_int_equal(c.ord, st.tail_seq + 4);
    tp_ring_destroy(r);
}

static void test_since_head_starts_at_head(void **state)
{
    struct tp_ring *r = new_ring(MIN_CAP);
    struct tp_cursor c;
    struct tp_ring_view v;

    (void)state;
    assert_int_equal(append_id(r, 1, 10, 1, 5), 0);
    assert_int_equal(append_id(r, 2, UINT64_MAX, 1, 5), 0);  /* even ts == UINT64_MAX */
    assert_int_equal(tp_ring_append_loss(r, 30, 0, 1, 9), 0);
    tp_cursor_init(r, &c, 0, UINT64_MAX);
    assert_int_equal(c.seq, 3);
    assert_int_equal(c.ord, tp_ring_slot_matched(r, 0));
    assert_int_equal(tp_cursor_backlog(r, &c), 0);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_END);

    assert_int_equal(append_id(r, 3, 40, 1, 5), 0);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_EVENT);
    check_event(&v, 3, 40, 1, 5);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_END);
    assert_int_equal(c.ord, tp_ring_slot_matched(r, 0));
    tp_ring_destroy(r);
}

/* ---- bounded scans and clock epochs ------------------------------------ */

/* Entries of other slots count against the budget; a paused cursor resumes in place. */
static void test_budget_bounds_scan(void **state)
{
    struct tp_ring *r = new_ring(1u << 20);
    struct tp_cursor c;
    struct tp_ring_view v;
    unsigned budget, pauses = 0;
    enum tp_read rc;

    (void)state;
    assert_int_equal(append_id(r, 1, 10, 1, 8), 0);
    for (uint32_t i = 0; i < 1000; i++)
        assert_int_equal(append_id(r, 1000 + i, 20 + i, 2, 8), 0);
    assert_int_equal(append_id(r, 2, 5000, 1, 8), 0);
    tp_cursor_init(r, &c, 0, 0);
    budget = 100;
    assert_int_equal(tp_ring_next(r, &c, &v, &budget), TP_READ_EVENT);
    check_event(&v, 1, 10, 1, 8);
    assert_int_equal(budget, 99);
    for (;;) {
        budget = 100;
        rc = tp_ring_next(r, &c, &v, &budget);
        if (rc != TP_READ_PAUSE)
            break;
        assert_int_equal(budget, 0);
        pauses++;
    }
    assert_int_equal(rc, TP_READ_EVENT);
    check_event(&v, 2, 5000, 1, 8);
    assert_int_equal(pauses, 10);       /* 1000 other entries, 100 a call */
    budget = 0;
    assert_int_equal(tp_ring_next(r, &c, &v, &budget), TP_READ_END);   /* nothing to examine */

    /* a cursor starting in the past skips in the same bounded steps */
    tp_cursor_init(r, &c, 0, 4000);
    pauses = 0;
    for (;;) {
        budget = 64;
        rc = tp_ring_next(r, &c, &v, &budget);
        if (rc != TP_READ_PAUSE)
            break;
        pauses++;
    }
    assert_int_equal(rc, TP_READ_EVENT);
    check_event(&v, 2, 5000, 1, 8);
    assert_int_equal(pauses, 1001 / 64);
    assert_int_equal(c.ord, 2);
    tp_ring_destroy(r);
}

/*
 * A starting cursor overtaken before its first entry starts again from the
 * tail: what was there before its init is not its own, what came after is.
 */
static void test_start_overtaken(void **state)
{
    struct tp_ring *r = new_ring(MIN_CAP);
    struct tp_cursor c;
    struct tp_ring_view v;
    unsigned budget = 1;
    uint32_t id;

    (void)state;
    for (id = 0; id < 20; id++)
        assert_int_equal(append_id(r, id, id, 1, 32), 0);
    tp_cursor_init(r, &c, 0, 1000);         /* nothing held is new enough */
    assert_int_equal(tp_ring_next(r, &c, &v, &budget), TP_READ_PAUSE);
    for (; stats_of(r).tail_seq < 20; id++)
        assert_int_equal(append_id(r, id, 1000 + id, 1, 32), 0);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_EVENT);
    check_event(&v, 20, 1020, 1, 32);       /* the oldest held one, no missed record */
    assert_int_equal(c.ord, 21);

    /* this time what went includes 5 events appended after the init */
    tp_cursor_init(r, &c, 0, 5000);
    budget = 1;
    assert_int_equal(tp_ring_next(r, &c, &v, &budget), TP_READ_PAUSE);
    uint64_t first = stats_of(r).head_seq;
    for (; stats_of(r).tail_seq < first + 5; id++)
        assert_int_equal(append_id(r, id, 1000 + id, 1, 32), 0);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_MISSED);
    assert_int_equal(v.missed, 5);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_EVENT);
    check_event(&v, first + 5, 1000 + first + 5, 1, 32);

    /* a cursor that reached the head has started: what it misses counts */
    tp_cursor_init(r, &c, 0, 100000);
    while (tp_ring_next(r, &c, &v, NULL) != TP_READ_END)
        ;
    first = stats_of(r).head_seq;
    for (; stats_of(r).tail_seq < first + 3; id++)
        assert_int_equal(append_id(r, id, 1000 + id, 1, 32), 0);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_MISSED);
    assert_int_equal(v.missed, 3);
    tp_ring_destroy(r);
}

/* Loss entries and missed counts carry the clock epoch of what they stand for. */
static void test_clock_epochs_carried(void **state)
{
    struct tp_ring *r = new_ring(MIN_CAP);
    struct tp_cursor c, late;
    struct tp_ring_view v;
    uint32_t id;

    (void)state;
    tp_cursor_init(r, &c, 0, UINT64_MAX);
    tp_cursor_init(r, &late, 0, UINT64_MAX);
    assert_int_equal(tp_ring_append_loss(r, 5, 321, 1, 2), 0);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_MISSED);
    assert_int_equal(v.clock, 321);
    for (id = 0; stats_of(r).tail_seq < 4; id++)
        assert_int_equal(append_id(r, id, 10 + id, 1, 100), 0);
    assert_int_equal(tp_ring_next(r, &late, &v, NULL), TP_READ_MISSED);
    assert_int_equal(v.ts, 12);             /* the newest evicted: id 2 */
    assert_int_equal(v.clock, 2);
    tp_ring_destroy(r);
}

/* ---- resizing ------------------------------------------------------------ */

/* What a cursor would read now, without moving it: ids, or ~missed for a missed count. */
static size_t read_all(struct tp_ring *r, struct tp_cursor c, uint64_t *out, size_t max)
{
    struct tp_ring_view v;
    enum tp_read rc;
    size_t n = 0;

    while ((rc = tp_ring_next(r, &c, &v, NULL)) != TP_READ_END && n < max)
        out[n++] = rc == TP_READ_EVENT ? v.meta.event : ~v.missed;
    return n;
}

static void test_resize_keeps_cursors(void **state)
{
    struct tp_ring *r = new_ring(8192);
    struct tp_ring_rebase *map = NULL;
    struct tp_cursor at_head, mid, first;
    struct tp_ring_view v;
    uint64_t want[3][512], got[512];
    size_t nwant[3];
    uint32_t id = 0;

    (void)state;
    tp_cursor_init(r, &first, 0, 0);
    for (; id < 300; id++)                       /* several wraps, the first cursor overtaken */
        assert_int_equal(append_id(r, id, id, 1, 40 + id % 90), 0);
    tp_cursor_init(r, &mid, 0, 0);
    for (int k = 0; k < 10; k++)
        assert_int_equal(tp_ring_next(r, &mid, &v, NULL), TP_READ_EVENT);
    tp_cursor_init(r, &at_head, 0, UINT64_MAX);
    struct tp_cursor *cs[3] = { &at_head, &mid, &first };
    for (int k = 0; k < 3; k++)
        nwant[k] = read_all(r, *cs[k], want[k], 512);

    /* larger: every cursor reads exactly what it would have */
    assert_int_equal(tp_ring_resize(r, 65536, &map), 0);
    for (int k = 0; k < 3; k++)
        tp_ring_rebase(map, cs[k]);
    tp_ring_rebase_free(map);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(read_all(r, *cs[k], got, 512), nwant[k]);
        assert_memory_equal(got, want[k], nwant[k] * sizeof(got[0]));
    }
    /* and the ring goes on: appends, wraps, evictions in the new size */
    for (uint32_t k = 0; k < 2000; k++, id++)
        assert_int_equal(append_id(r, id, id, 1, 40 + id % 90), 0);
    assert_true(stats_of(r).used <= 65536);
    assert_int_equal(tp_ring_next(r, &at_head, &v, NULL), TP_READ_MISSED);

    /* smaller: the oldest go, counted, and the rest reads as before */
    struct tp_cursor c;
    tp_cursor_init(r, &c, 0, 0);
    uint64_t matched = tp_ring_slot_matched(r, 0), held = stats_of(r).head_seq - stats_of(r).tail_seq;
    assert_int_equal(tp_ring_resize(r, 4096, &map), 0);
    tp_ring_rebase(map, &c);
    tp_ring_rebase_free(map);
    uint64_t now_held = stats_of(r).head_seq - stats_of(r).tail_seq;
    assert_true(now_held < held);
    assert_true(stats_of(r).used <= 4096);
    assert_int_equal(tp_ring_next(r, &c, &v, NULL), TP_READ_MISSED);
    assert_int_equal(v.missed, held - now_held);
    size_t n = read_all(r, c, got, 512);
    assert_int_equal(n, now_held);
    assert_int_equal(got[n - 1], id - 1);
    assert_int_equal(tp_ring_slot_matched(r, 0), matched);
    assert_int_equal(tp_ring_resize(r, 100, &map), -EINVAL);
    tp_ring_destroy(r);
}

/* ---- randomized model check ------------------------------------------- */

/*
 * A reference model: for every slot, the list of entries appended for it
 * since its reset (seq, id, weight, loss?).  Every cursor keeps an index in
 * that list.  EVENT must be exactly the entry at the index; MISSED(n) must
 * cover whole entries weighing exactly n.  At END the index must be at the
 * end of the list and delivered + missed == matched - ord at init.
 */
#define RS_SLOTS 8
#define RS_CURSORS 14
#define RS_STEPS 150000

struct model_entry {
    uint64_t seq;
    uint64_t ts;
    tp_slotmask mask;
    uint64_t weight;
    uint32_t id;
    uint32_t len;
    bool loss;
};

struct model_slot {
    struct model_entry *e;
    size_t n, cap;
    size_t evicted_idx;         /* entries [0, evicted_idx) are gone */
    uint64_t evicted;           /* their weight */
    uint64_t matched;
};

struct model_cursor {
    struct tp_cursor c;
    unsigned s;                 /* index into slot_ids */
    size_t idx;                 /* next model entry */
    uint64_t ord0, delivered, missed;
    uint64_t since;             /* as given to tp_cursor_init */
    size_t n0;                  /* entries of the slot at the init */
    bool started;               /* has read something */
    unsigned rate;              /* reads this often, in 1/1000 per step */
};

static const unsigned slot_ids[RS_SLOTS] = { 0, 1, 2, 9, 17, 40, 62, 63 };

static void model_push(struct model_slot *ms, struct model_entry e)
{
    if (ms->n == ms->cap) {
        ms->cap = ms->cap ? 2 * ms->cap : 1024;
        ms->e = realloc(ms->e, ms->cap * sizeof(*ms->e));
        assert_non_null(ms->e);
    }
    ms->e[ms->n++] = e;
    ms->matched += e.weight;
}

static void model_evict_upto(struct model_slot *ms, uint64_t tail_seq)
{
    while (ms->evicted_idx < ms->n && ms->e[ms->evicted_idx].seq < tail_seq)
        ms->evicted += ms->e[ms->evicted_idx++].weight;
}

/*
 * Where a cursor that has read nothing yet starts: the first entry it can
 * still reach whose ts >= since, or the first appended after its init; the
 * ones before that are not its (ord0 counts them).
 */
static void model_cursor_start(struct model_slot *slots, struct model_cursor *mc)
{
    struct model_slot *ms = &slots[mc->s];
    uint64_t before = 0;
    size_t i;

    for (i = ms->evicted_idx; i < mc->n0; i++)
        if (mc->since != UINT64_MAX && ms->e[i].ts >= mc->since)
            break;
    if (i > mc->n0)
        i = mc->n0;         /* entries appended since the init went: missed from the first */
    for (size_t k = 0; k < i; k++)
        before += ms->e[k].weight;
    mc->idx = i;
    mc->ord0 = before;
}

static void model_cursor_init(struct tp_ring *r, struct model_slot *slots,
                              struct model_cursor *mc, uint64_t since)
{
    tp_cursor_init(r, &mc->c, slot_ids[mc->s], since);
    mc->since = since;
    mc->n0 = slots[mc->s].n;
    mc->started = false;
    mc->delivered = mc->missed = 0;
    model_cursor_start(slots, mc);
}

/* Read one thing; false at END. */
static bool model_read_one(struct tp_ring *r, struct model_slot *slots, struct model_cursor *mc)
{
    struct model_slot *ms = &slots[mc->s];
    struct tp_ring_view v;
    enum tp_read rc;

    static uint64_t seed = 77;
    unsigned budget = 1 + (unsigned)(rnd(&seed) % 64);

    if (!mc->started && mc->idx < ms->evicted_idx)
        model_cursor_start(slots, mc);      /* its start went: it starts again from the tail */
    /* in small steps, as the PMDA reads under its lock */
    while ((rc = tp_ring_next(r, &mc->c, &v, &budget)) == TP_READ_PAUSE) {
        assert_int_equal(budget, 0);
        assert_int_equal(mc->c.ord, mc->started ? mc->ord0 + mc->delivered + mc->missed
                                                : mc->c.ord);
        budget = 1 + (unsigned)(rnd(&seed) % 64);
    }
    mc->started = true;
    if (rc == TP_READ_END) {
        assert_int_equal(mc->idx, ms->n);
        assert_int_equal(mc->delivered + mc->missed, ms->matched - mc->ord0);
        assert_int_equal(mc->c.ord, ms->matched);
        return false;
    }
    assert_true(mc->idx < ms->n);
    if (rc == TP_READ_EVENT) {
        const struct model_entry *e = &ms->e[mc->idx++];

        assert_false(e->loss);
        assert_true(e->seq >= stats_of(r).tail_seq);
        check_event(&v, e->id, e->ts, e->mask, e->len);
        mc->delivered++;
    } else {
        uint64_t left = v.missed;

        assert_int_equal(rc, TP_READ_MISSED);
        assert_true(left > 0);
        while (left > 0) {
            assert_true(mc->idx < ms->n);
            assert_true(ms->e[mc->idx].weight <= left);     /* whole entries only */
            left -= ms->e[mc->idx++].weight;
        }
        mc->missed += v.missed;
    }
    assert_int_equal(mc->c.ord, mc->ord0 + mc->delivered + mc->missed);
    return true;
}

static void model_reset_slot(struct tp_ring *r, struct model_slot *slots,
                             struct model_cursor *cur, unsigned s, uint64_t *seed)
{
    tp_ring_slot_reset(r, slot_ids[s]);
    slots[s].n = slots[s].evicted_idx = 0;
    slots[s].evicted = slots[s].matched = 0;
    for (unsigned k = 0; k < RS_CURSORS; k++)
        if (cur[k].s == s)
            model_cursor_init(r, slots, &cur[k], rnd(seed) % 2 ? 0 : UINT64_MAX);
}

static void model_append(struct tp_ring *r, struct model_slot *slots, uint64_t *seed,
                         uint32_t id, uint64_t seq)
{
    tp_slotmask mask = 0;
    struct model_entry e = { .seq = seq, .ts = 1000u + 4u * id + rnd_below(seed, 9), .id = id };

    while (mask == 0)
        for (unsigned s = 0; s < RS_SLOTS; s++)
            if (rnd_below(seed, 3) == 0)
                mask |= 1ULL << slot_ids[s];
    mask |= rnd_below(seed, 4) == 0 ? 1ULL << 30 : 0;    /* a slot nobody reads */
    e.mask = mask;
    if (rnd_below(seed, 25) == 0) {
        e.loss = true;
        e.weight = 1 + rnd_below(seed, 1000);
        assert_int_equal(tp_ring_append_loss(r, e.ts, 0, mask, e.weight), 0);
    } else {
        e.weight = 1;
        e.len = rnd_below(seed, 8) == 0 ? rnd_below(seed, 1500) : rnd_below(seed, 64);
        assert_int_equal(append_id(r, id, e.ts, mask, e.len), 0);
    }
    for (unsigned s = 0; s < RS_SLOTS; s++)
        if ((mask >> slot_ids[s]) & 1u)
            model_push(&slots[s], e);
}

static void test_randomized_invariant(void **state)
{
    struct tp_ring *r = new_ring(24576);
    struct model_slot slots[RS_SLOTS];
    struct model_cursor cur[RS_CURSORS];
    uint64_t seed = 0xC0FFEE1234567ULL;
    uint64_t total_missed = 0, total_delivered = 0;

    (void)state;
    memset(slots, 0, sizeof(slots));
    for (unsigned k = 0; k < RS_CURSORS; k++) {
        cur[k].s = k % RS_SLOTS;
        cur[k].rate = 5 + rnd_below(&seed, 996);
        model_cursor_init(r, slots, &cur[k], 0);
    }
    for (uint32_t step = 0; step < RS_STEPS; step++) {
        struct tp_ring_stats st = stats_of(r);
        unsigned what = rnd_below(&seed, 10000);

        if (what < 3) {
            model_reset_slot(r, slots, cur, rnd_below(&seed, RS_SLOTS), &seed);
        } else if (what < 8) {
            /* a new client: restart one cursor somewhere in the held entries */
            struct model_cursor *mc = &cur[rnd_below(&seed, RS_CURSORS)];
            uint32_t back = rnd_below(&seed, 2000);

            total_delivered += mc->delivered;
            total_missed += mc->missed;
            model_cursor_init(r, slots, mc, 1000u + 4u * (uint64_t)(step > back ? step - back : 0));
        }
        model_append(r, slots, &seed, step, st.head_seq);
        st = stats_of(r);
        assert_true(st.used <= st.capacity);
        assert_int_equal(st.evicted, st.tail_seq);
        for (unsigned s = 0; s < RS_SLOTS; s++) {
            model_evict_upto(&slots[s], st.tail_seq);
            assert_int_equal(tp_ring_slot_matched(r, slot_ids[s]), slots[s].matched);
            assert_int_equal(tp_ring_slot_evicted(r, slot_ids[s]), slots[s].evicted);
        }
        for (unsigned k = 0; k < RS_CURSORS; k++) {
            if (rnd_below(&seed, 1000) >= cur[k].rate)
                continue;
            for (unsigned n = 1 + rnd_below(&seed, 12); n > 0; n--)
                if (!model_read_one(r, slots, &cur[k]))
                    break;
        }
    }
    for (unsigned k = 0; k < RS_CURSORS; k++) {
        while (model_read_one(r, slots, &cur[k]))
            ;
        total_delivered += cur[k].delivered;
        total_missed += cur[k].missed;
    }
    /* the run must have exercised both delivery and loss */
    assert_true(total_delivered > 10000);
    assert_true(total_missed > 10000);
    for (unsigned s = 0; s < RS_SLOTS; s++)
        free(slots[s].e);
    tp_ring_destroy(r);
}

/* A name stored with an event comes back with it, cut to 15 bytes; the data does not grow. */
static void test_comm_kept_with_event(void **state)
{
    (void)state;
    struct tp_ring *r;
    struct tp_cursor c;
    struct tp_ring_view v;
    unsigned budget = 100;
    unsigned char data[12] = "abcdefghijk";
    assert_int_equal(tp_ring_create(&r, 1 << 16), 0);
    tp_cursor_init(r, &c, 0, 0);
    struct tp_event_meta m = { .ts = 1, .mask = 1, .comm = "bash" };
    assert_int_equal(tp_ring_append(r, &m, data, sizeof(data)), 0);
    m.comm = "a-name-longer-than-fifteen";
    m.ts = 2;
    assert_int_equal(tp_ring_append(r, &m, data, sizeof(data)), 0);
    m.comm = NULL;
    m.ts = 3;
    assert_int_equal(tp_ring_append(r, &m, data, sizeof(data)), 0);
    const char *want[] = { "bash", "a-name-longer-t", NULL };
    for (int i = 0; i < 3; i++) {
        assert_int_equal(tp_ring_next(r, &c, &v, &budget), TP_READ_EVENT);
        assert_int_equal(v.len, sizeof(data));
        assert_memory_equal(v.data, data, sizeof(data));
        if (want[i])
            assert_string_equal(v.meta.comm, want[i]);
        else
            assert_null(v.meta.comm);
    }
    tp_ring_destroy(r);
}

/* Frames stored with an event come back with it, beside its name; the data do not change. */
static void test_stack_kept_with_event(void **state)
{
    (void)state;
    struct tp_ring *r;
    struct tp_cursor c;
    struct tp_ring_view v;
    unsigned budget = 100;
    unsigned char data[12] = "abcdefghijk";
    unsigned char frames[3 * 8 + 1];        /* unaligned source, as in a sub-buffer */
    for (unsigned i = 0; i < sizeof(frames); i++)
        frames[i] = (unsigned char)i;
    assert_int_equal(tp_ring_create(&r, 1 << 16), 0);
    tp_cursor_init(r, &c, 0, 0);
    struct tp_event_meta m = { .ts = 1, .mask = 1, .comm = "bash", .frames = frames + 1,
                               .nframes = 3 };
    assert_int_equal(tp_ring_append(r, &m, data, sizeof(data)), 0);
    m = (struct tp_event_meta){ .ts = 2, .mask = 1 };
    assert_int_equal(tp_ring_append(r, &m, data, sizeof(data)), 0);
    assert_int_equal(tp_ring_next(r, &c, &v, &budget), TP_READ_EVENT);
    assert_int_equal(v.len, sizeof(data));
    assert_memory_equal(v.data, data, sizeof(data));
    assert_string_equal(v.meta.comm, "bash");
    assert_int_equal(v.meta.nframes, 3);
    assert_memory_equal(v.meta.frames, frames + 1, 3 * 8);
    assert_int_equal(tp_ring_next(r, &c, &v, &budget), TP_READ_EVENT);
    assert_int_equal(v.meta.nframes, 0);
    assert_null(v.meta.frames);
    assert_int_equal(v.len, sizeof(data));
    assert_int_equal(tp_ring_slot_matched(r, 0), 2);
    tp_ring_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_rejects_bad_args),
        cmocka_unit_test(test_stack_kept_with_event),
        cmocka_unit_test(test_comm_kept_with_event),
        cmocka_unit_test(test_free_slot),
        cmocka_unit_test(test_create_enomem),
        cmocka_unit_test(test_append_rejects_bad_args),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_stats_and_backlog),
        cmocka_unit_test(test_wrap_around_many_times),
        cmocka_unit_test(test_wrap_with_eviction_exact),
        cmocka_unit_test(test_two_cursors_same_slot),
        cmocka_unit_test(test_cursors_see_only_their_slot),
        cmocka_unit_test(test_overtaken_cursor_reports_exact_miss),
        cmocka_unit_test(test_overtaken_without_own_loss),
        cmocka_unit_test(test_huge_entry_evicts_everything),
        cmocka_unit_test(test_loss_entries),
        cmocka_unit_test(test_evicted_loss_counts),
        cmocka_unit_test(test_capacity_bound),
        cmocka_unit_test(test_eviction_is_minimal),
        cmocka_unit_test(test_slot_reset_ignores_older_entries),
        cmocka_unit_test(test_cursor_init_since_ts_middle),
        cmocka_unit_test(test_cursor_init_after_eviction),
        cmocka_unit_test(test_since_head_starts_at_head),
        cmocka_unit_test(test_budget_bounds_scan),
        cmocka_unit_test(test_start_overtaken),
        cmocka_unit_test(test_clock_epochs_carried),
        cmocka_unit_test(test_resize_keeps_cursors),
        cmocka_unit_test(test_randomized_invariant),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
