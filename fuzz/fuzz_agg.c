/*
 * libFuzzer harness for src/agg.c (aggregations).
 *
 * The input is a sequence of events, each: one byte choosing the event (0..3;
 * with 0x80 set, a kernel loss of one event is reported first), one byte of
 * length, two bytes of time step, then that many bytes of raw
 * record (fewer if the input ends).  Event 0 is counted by a keyed count, a
 * keyed hist of a signed field and a latency start; event 1 by the count and
 * as the latency's end; events 2 and 3 by no one but the count (3 keyed by
 * its name only).  Each record is fed as an exact-size heap copy, so that
 * AddressSanitizer sees any read past its end.  Checked after each input:
 *   - every event fed to the count is counted once or dropped: the keys'
 *     counts (with "other") plus dropped equal what was fed;
 *   - at most max_keys keys and "other"; overflow is other's count;
 *   - each key's histogram buckets add up to its count;
 *   - latency starts waiting never exceed max_pending;
 *   - every key name is a NUL-terminated string within TP_AGG_MAX_NAME.
 *
 * Built and run by fuzz/fuzz.mk (make fuzz, make fuzz-short), as
 * build-fuzz/fuzz_agg with -max_len=4096.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_agg.h"

#define MAX_KEYS    8
#define MAX_PENDING 4

/* 8 common bytes, u32 which, s32 who, u64 val, char comm[16], u8 raw[4], __data_loc char[] name */
static const struct tp_field f_which = { "which", "unsigned int which", 8, 4, TP_FIELD_UINT, 0 };
static const struct tp_field f_who = { "who", "int who", 12, 4, TP_FIELD_INT, 0 };
static const struct tp_field f_val = { "val", "u64 val", 16, 8, TP_FIELD_UINT, 0 };
static const struct tp_field f_comm = { "comm", "char comm[16]", 24, 16, TP_FIELD_STRING, 0 };
static const struct tp_field f_name = { "name", "__data_loc char[] name", 44, 4,
                                        TP_FIELD_DLOC_STRING, 0 };

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_agg: %s\n", what);
    abort();
}

static void bind(struct tp_agg *a, uint32_t ev, enum tp_agg_role role,
                 const struct tp_field *value, const struct tp_field *value2,
                 const struct tp_field *by0, const struct tp_field *by1, unsigned nby)
{
    static const char *names[] = { "sys:zero", "sys:one", "sys:two", "sys:three" };
    struct tp_agg_binding b = { .event = ev, .event_name = names[ev], .role = role,
                                .value = value, .by = { by0, by1 }, .nby = nby,
                                .value2 = value2 };
    if (tp_agg_bind(a, &b) != 0)
        fail("a valid binding was refused");
}

static void check_keys(const struct tp_agg *a, uint64_t *total)
{
    size_t n = tp_agg_nkeys(a);
    if (n > MAX_KEYS + 1)
        fail("more keys than max_keys and other");
    *total = 0;
    for (size_t i = 0; i < n; i++) {
        const struct tp_agg_key *k = tp_agg_key(a, i);
        char name[TP_AGG_MAX_NAME];
        memset(name, 'x', sizeof(name));
        tp_agg_key_name(a, i, name, sizeof(name));
        if (!memchr(name, '\0', sizeof(name)))
            fail("a key name without its NUL");
        if (strcmp(name, "other") == 0 && k->count != tp_agg_overflow(a))
            fail("other's count is not the overflow");
        *total += k->count;
        if (k->hist) {
            uint64_t in_buckets = 0;
            for (unsigned b = 0; b < TP_AGG_BUCKETS; b++)
                in_buckets += k->hist[b];
            if (in_buckets != k->count)
                fail("a key's buckets do not add up to its count");
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tp_agg *count, *hist, *lat;
    if (tp_agg_create(&count, TP_AGG_COUNT, MAX_KEYS, 0) ||
        tp_agg_create(&hist, TP_AGG_HIST, MAX_KEYS, 0) ||
        tp_agg_create(&lat, TP_AGG_LATENCY, MAX_KEYS, MAX_PENDING))
        return 0;
    bind(count, 0, TP_AGG_VALUE, NULL, NULL, &f_which, &f_comm, 2);
    bind(count, 1, TP_AGG_VALUE, NULL, NULL, &f_name, NULL, 1);
    bind(count, 2, TP_AGG_VALUE, NULL, NULL, &f_val, &f_who, 2);
    bind(count, 3, TP_AGG_VALUE, NULL, NULL, NULL, NULL, 1);
    bind(hist, 0, TP_AGG_VALUE, &f_who, NULL, &f_which, NULL, 1);
    bind(lat, 0, TP_AGG_START, &f_which, &f_val, &f_comm, NULL, 1);
    bind(lat, 1, TP_AGG_END, &f_which, &f_val, NULL, NULL, 0);

    uint64_t ts = 1000, fed = 0;
    size_t pos = 0;
    while (pos + 4 <= size) {
        uint32_t ev = data[pos] & 3, len = data[pos + 1];
        if (data[pos] & 0x80) {
            tp_agg_lost(count, 1);      /* counted as dropped */
            fed++;
        }
        ts += (uint64_t)data[pos + 2] | (uint64_t)data[pos + 3] << 8;
        pos += 4;
        if (len > size - pos)
            len = (uint32_t)(size - pos);
        unsigned char *rec = malloc(len ? len : 1);
        if (!rec)
            break;
        memcpy(rec, data + pos, len);
        pos += len;
        tp_agg_feed(count, ev, rec, len, ts, NULL);
        tp_agg_feed(hist, ev, rec, len, ts, NULL);
        tp_agg_feed(lat, ev, rec, len, ts, NULL);
        fed++;
        free(rec);
    }
    uint64_t total;
    check_keys(count, &total);
    if (total + tp_agg_dropped(count) != fed)
        fail("the count lost or doubled events");
    check_keys(hist, &total);
    check_keys(lat, &total);
    if (tp_agg_pending(lat) > MAX_PENDING)
        fail("more starts waiting than max_pending");
    tp_agg_destroy(count);
    tp_agg_destroy(hist);
    tp_agg_destroy(lat);
    return 0;
}
