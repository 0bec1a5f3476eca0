/*
 * Aggregations: keyed counters, sums, log2 histograms and latencies.  See
 * tp_agg.h for the contract.
 *
 * Keys are hashed from their binary form (each by field: a tag byte, then 8
 * bytes of a number or a length byte and the string's bytes) into an open
 * addressing table twice the size of the key limit; entries are allocated
 * once, max_keys + 1 ("other") of them.  Latency's waiting starts live in
 * a table of the same kind keyed by the values they pair on, with
 * backward-shift deletion, so no tombstones pile up; a waiting start holds
 * the index of its key's entry, made when the start is read.
 */
#include "tp_agg.h"
#include "tp_valname.h"
#include "tp_fields.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcp/pmapi.h>

#define KEY_BYTES   (TP_AGG_MAX_BY * (2 + TP_AGG_MAX_STRING) + 8)    /* >= any stride */

const struct tp_field tp_agg_comm = { (char *)"comm", (char *)"char comm[16]", 4, 4,
                                      TP_FIELD_STRING, PM_TYPE_STRING };

const struct tp_field tp_agg_stack = { (char *)"stack", (char *)"char stack[]", 0, 0,
                                       TP_FIELD_STRING, PM_TYPE_STRING };

struct binding {
    struct tp_agg_binding b;
    uint32_t name_len;          /* of b.event_name, for the "event" key */
};

/* A key's counters; its bytes are at keys + index x stride, zero-padded. */
struct entry {
    uint16_t binding;           /* whose by fields name it */
    struct tp_agg_key k;
};

/* The values a start and its end are paired on. */
struct pairing {
    uint64_t v[2];
};

/* A latency start waiting for its end. */
struct wait {
    struct pairing on;
    uint64_t ts;
    uint32_t entry;             /* its key's entry */
    bool used;
};

struct waits {
    struct wait *v;
    size_t cap, n, max;         /* cap a power of 2 >= 2 max */
};

struct tp_agg {
    enum tp_agg_kind kind;
    bool is_signed;
    struct binding *b;          /* sorted by event */
    size_t nb;
    struct entry *e;            /* max_keys + 1: the last is "other" */
    size_t ne, max_keys;
    unsigned char *keys;        /* max_keys of stride bytes: the keys' binary forms */
    size_t stride;              /* the longest key any binding makes, rounded up to 8 */
    uint32_t *slots;            /* entry index + 1, by key hash */
    uint32_t last;              /* entry index + 1 of the key found last (0: none) */
    size_t nslots;
    uint64_t *hist;             /* (max_keys + 1) * TP_AGG_BUCKETS for hist/latency */
    uint64_t dropped, overflow;
    uint64_t nbuckets;          /* histogram buckets that have counted something */
    struct waits starts;
    struct stacks *stacks;      /* the folded stacks of the keys, if a binding keys by stack */
    const struct tp_ksyms *syms;
};

/*
 * The folded stacks keys name: at most max_keys + 1 of TP_AGG_MAX_STACK
 * bytes (a key holds its stack's index), found by hash.
 */
struct stacks {
    char *text;
    uint32_t n, max;
    uint32_t *slots;            /* index + 1, by hash */
    size_t nslots;
    struct raw_stack *raw;      /* RAW_CACHE recent stacks as the kernel gave them */
};

/*
 * Folding a stack names every frame (a symbol lookup and a print each): a
 * microsecond for a deep stack.  The same code path gives the same return
 * addresses, so the stacks recently seen are remembered, direct-mapped by
 * a hash of their addresses, with the index of their folded text.
 */
#define RAW_CACHE       512u
#define RAW_MAX_FRAMES  48      /* deeper stacks are folded every time */

struct raw_stack {
    uint64_t hash;
    uint32_t idx;
    uint32_t n;                 /* frames; 0: empty */
    uint64_t pc[RAW_MAX_FRAMES];
};

static size_t pow2_at_least(size_t n)
{
    size_t p = 16;
    while (p < n)
        p *= 2;
    return p;
}

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

/* A key, zero-padded to n bytes (a multiple of 8), hashed 8 bytes at a time. */
static uint64_t hash_key(const unsigned char *p, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull, w;
    for (; n; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    }
    return h ^ h >> 32 ^ h >> 47;
}

/* Two keys zero-padded to n bytes: the same? */
static bool same_key(const unsigned char *x, const unsigned char *y, size_t n)
{
    uint64_t a, b;
    for (; n; x += 8, y += 8, n -= 8) {
        memcpy(&a, x, 8);
        memcpy(&b, y, 8);
        if (a != b)
            return false;
    }
    return true;
}

static int waits_init(struct waits *w, size_t max)
{
    w->max = max;
    w->cap = pow2_at_least(2 * max);
    w->n = 0;
    w->v = calloc(w->cap, sizeof(*w->v));
    return w->v ? 0 : -ENOMEM;
}

int tp_agg_create(struct tp_agg **out, enum tp_agg_kind kind, unsigned max_keys,
                  unsigned max_pending)
{
    if (max_keys == 0 || (kind == TP_AGG_LATENCY && max_pending == 0))
        return -EINVAL;
    struct tp_agg *a = calloc(1, sizeof(*a));
    int rc = -ENOMEM;
    if (!a)
        goto fail;
    a->kind = kind;
    a->max_keys = max_keys;
    a->nslots = pow2_at_least(2 * ((size_t)max_keys + 1));
    a->e = calloc((size_t)max_keys + 1, sizeof(*a->e));
    a->slots = calloc(a->nslots, sizeof(*a->slots));
    if (!a->e || !a->slots)
        goto fail;
    if (kind == TP_AGG_HIST || kind == TP_AGG_LATENCY) {
        a->hist = calloc(((size_t)max_keys + 1) * TP_AGG_BUCKETS, sizeof(*a->hist));
        if (!a->hist)
            goto fail;
        for (size_t i = 0; i <= max_keys; i++)
            a->e[i].k.hist = &a->hist[i * TP_AGG_BUCKETS];
    }
    if (kind == TP_AGG_LATENCY &&
        waits_init(&a->starts, max_pending) < 0)
        goto fail;
    *out = a;
    return 0;
fail:
    tp_agg_destroy(a);
    return rc;
}

void tp_agg_destroy(struct tp_agg *a)
{
    if (!a)
        return;
    free(a->b);
    free(a->e);
    free(a->keys);
    free(a->slots);
    free(a->hist);
    free(a->starts.v);
    if (a->stacks) {
        free(a->stacks->text);
        free(a->stacks->slots);
        free(a->stacks->raw);
        free(a->stacks);
    }
    free(a);
}

static int stacks_init(struct tp_agg *a)
{
    if (a->stacks)
        return 0;
    struct stacks *st = calloc(1, sizeof(*st));
    if (!st)
        return -ENOMEM;
    st->max = (uint32_t)a->max_keys + 1;
    st->nslots = pow2_at_least(2 * (size_t)st->max);
    st->text = calloc(st->max, TP_AGG_MAX_STACK);
    st->slots = calloc(st->nslots, sizeof(*st->slots));
    st->raw = calloc(RAW_CACHE, sizeof(*st->raw));
    if (!st->text || !st->slots || !st->raw) {
        free(st->text);
        free(st->slots);
        free(st->raw);
        free(st);
        return -ENOMEM;
    }
    a->stacks = st;
    return 0;
}

/* The index of a folded stack, added if new; UINT32_MAX when the table is full. */
static uint32_t stack_index(struct stacks *st, const char *text, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
    for (size_t i = h & (st->nslots - 1);; i = (i + 1) & (st->nslots - 1)) {
        uint32_t idx = st->slots[i];
        if (idx && strcmp(st->text + (size_t)(idx - 1) * TP_AGG_MAX_STACK, text) == 0)
            return idx - 1;
        if (idx)
            continue;
        if (st->n == st->max)
            return UINT32_MAX;
        memcpy(st->text + (size_t)st->n * TP_AGG_MAX_STACK, text, len + 1);
        st->slots[i] = ++st->n;
        return st->n - 1;
    }
}

/* The index of the folded text of the stack of frames; UINT32_MAX when the table is full. */
static uint32_t stack_of(struct tp_agg *a, const void *frames, unsigned n)
{
    struct stacks *st = a->stacks;
    uint64_t h = n;
    for (unsigned i = 0; i < n && n <= RAW_MAX_FRAMES; i++) {
        uint64_t pc;
        memcpy(&pc, (const char *)frames + 8 * (size_t)i, 8);
        h = (h ^ pc) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    struct raw_stack *r = n <= RAW_MAX_FRAMES ? &st->raw[h & (RAW_CACHE - 1)] : NULL;
    if (r && r->n == n && r->hash == h && memcmp(r->pc, frames, 8 * (size_t)n) == 0)
        return r->idx;
    char text[TP_AGG_MAX_STACK];
    size_t tl = tp_ksyms_fold(a->syms, frames, n, text, sizeof(text));
    uint32_t idx = stack_index(st, text, tl);
    if (r && idx != UINT32_MAX) {
        r->hash = h;
        r->idx = idx;
        r->n = n;
        memcpy(r->pc, frames, 8 * (size_t)n);
    }
    return idx;
}

bool tp_agg_wants_stack(const struct tp_agg *a) { return a->stacks != NULL; }

void tp_agg_symbols(struct tp_agg *a, const struct tp_ksyms *k)
{
    if (a->stacks)                      /* the same addresses may fold to new names */
        memset(a->stacks->raw, 0, RAW_CACHE * sizeof(*a->stacks->raw));
    a->syms = k;
}

/* ---- binding ------------------------------------------------------------- */

static bool is_number(const struct tp_field *f)
{
    return f->kind == TP_FIELD_INT || f->kind == TP_FIELD_UINT;
}

static bool is_string(const struct tp_field *f)
{
    return f->kind == TP_FIELD_STRING || f->kind == TP_FIELD_DLOC_STRING ||
           f->kind == TP_FIELD_RLOC_STRING;
}

/*
 * The most bytes a by field puts in a key: a tag and 8 bytes a number, 'k'
 * and 4 a stack, 2 and the bytes a string (a task's name at most 15).
 */
static size_t field_bound(const struct tp_agg_binding *b, unsigned i)
{
    const struct tp_field *f = b->by[i];
    size_t n = TP_AGG_MAX_STRING;
    if (f == &tp_agg_stack)
        return 5;
    if (f && is_number(f))
        return 9;
    if (f == &tp_agg_comm)
        n = TP_COMM_LEN - 1;
    else if (!f)
        n = strlen(b->event_name);
    return 2 + (n < TP_AGG_MAX_STRING ? n : TP_AGG_MAX_STRING);
}

/* The longest key a binding makes (the shorter, the less each event hashes and compares). */
static size_t key_bound(const struct tp_agg_binding *b)
{
    size_t n = 0;
    for (unsigned i = 0; i < b->nby; i++)
        n += field_bound(b, i);
    return (n + 7) & ~(size_t)7;
}

/* Room for max_keys keys of need bytes (nothing is fed before every binding is made). */
static int grow_keys(struct tp_agg *a, size_t need)
{
    if (need <= a->stride)
        return 0;
    unsigned char *k = calloc(a->max_keys, need);
    if (!k)
        return -ENOMEM;
    free(a->keys);
    a->keys = k;
    a->stride = need;
    return 0;
}

static int cmp_binding(const void *x, const void *y)
{
    const struct binding *p = x, *q = y;
    return (p->b.event > q->b.event) - (p->b.event < q->b.event);
}

int tp_agg_bind(struct tp_agg *a, const struct tp_agg_binding *nb)
{
    bool needs_value = a->kind != TP_AGG_COUNT;
    if (nb->nby > TP_AGG_MAX_BY || (needs_value && (!nb->value || !is_number(nb->value))) ||
        ((a->kind == TP_AGG_LATENCY) != (nb->role != TP_AGG_VALUE)))
        return -EINVAL;
    for (unsigned i = 0; i < nb->nby; i++)
        if (nb->by[i] ? !is_number(nb->by[i]) && !is_string(nb->by[i]) : !nb->event_name)
            return -EINVAL;
    if (nb->value2 && (nb->role == TP_AGG_VALUE || !is_number(nb->value2)))
        return -EINVAL;
    if (grow_keys(a, key_bound(nb)) < 0)
        return -ENOMEM;
    for (unsigned i = 0; i < nb->nby; i++)
        if (nb->by[i] == &tp_agg_stack && stacks_init(a) < 0)
            return -ENOMEM;
    struct binding *b = realloc(a->b, (a->nb + 1) * sizeof(*b));
    if (!b)
        return -ENOMEM;
    a->b = b;
    size_t nl = nb->event_name ? strlen(nb->event_name) : 0;
    a->b[a->nb++] = (struct binding){ *nb, (uint32_t)(nl < TP_AGG_MAX_STRING ? nl
                                                                             : TP_AGG_MAX_STRING) };
    qsort(a->b, a->nb, sizeof(*a->b), cmp_binding);
    if (a->kind != TP_AGG_LATENCY && nb->value && nb->value->kind == TP_FIELD_INT)
        a->is_signed = true;
    return 0;
}

static const struct binding *binding_of(const struct tp_agg *a, uint32_t event)
{
    size_t lo = 0, hi = a->nb;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a->b[mid].b.event < event)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < a->nb && a->b[lo].b.event == event ? &a->b[lo] : NULL;
}

/* ---- keys ---------------------------------------------------------------- */

static int put_string(unsigned char *key, const void *s, uint32_t len)
{
    uint32_t sl = len < TP_AGG_MAX_STRING ? len : TP_AGG_MAX_STRING;
    key[0] = 's';
    key[1] = (unsigned char)sl;
    memcpy(key + 2, s, sl);
    return 2 + (int)sl;
}

#define KEY_FULL (-2)          /* make_key: no room for one more stack's name */

/*
 * The binary key of an event's by fields into key; its length, -1 if a
 * field is absent, or KEY_FULL if its stack is new and the stacks' names
 * are all taken (the event counts under "other").
 */
static int make_key(struct tp_agg *a, const struct binding *bd, const struct tp_agg_event *ev,
                    unsigned char *key)
{
    const struct tp_agg_binding *b = &bd->b;
    const unsigned char *d = ev->data;
    uint32_t len = ev->len;
    int n = 0;
    for (unsigned i = 0; i < b->nby; i++) {
        struct tp_field_value fv;
        if (b->by[i] == &tp_agg_stack) {
            if (!ev->nframes)
                return -1;          /* no stack came with it */
            uint32_t idx = stack_of(a, ev->frames, ev->nframes);
            if (idx == UINT32_MAX)
                return KEY_FULL;
            key[n++] = 'k';
            memcpy(key + n, &idx, 4);
            n += 4;
            continue;
        }
        if (!b->by[i]) {
            n += put_string(key + n, b->event_name, bd->name_len);
            continue;
        }
        if (b->by[i] == &tp_agg_comm) {
            if (ev->comm)
                n += put_string(key + n, ev->comm, ev->comm_len);
            else
                n += put_string(key + n, TP_COMM_UNKNOWN, sizeof(TP_COMM_UNKNOWN) - 1);
            continue;
        }
        if (!tp_field_value(b->by[i], d, len, &fv))
            return -1;
        if (is_number(b->by[i])) {
            key[n++] = b->by[i]->kind == TP_FIELD_INT ? 'i' : 'u';
            memcpy(key + n, &fv.v.u, 8);
            n += 8;
        } else {
            n += put_string(key + n, d + fv.off, fv.len);
        }
    }
    return n;
}

/* A string value in a key name: %XX for what would confuse a name. */
static size_t put_escaped(char *out, size_t room, const unsigned char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (size_t i = 0; i < n && o + 4 < room; i++) {
        unsigned char c = s[i];
        if (c > ' ' && c < 0x7f && c != ',' && c != '=' && c != '%') {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
    return o;
}

/* "FIELD=VALUE,..." of a binary key, with the binding's field names. */
static void key_name(const struct tp_agg_binding *b, const struct stacks *stacks,
                     const unsigned char *key, char *out, size_t room)
{
    size_t o = 0;
    out[0] = '\0';
    for (unsigned i = 0, k = 0; i < b->nby && o < room; i++) {
        int w = snprintf(out + o, room - o, "%s%s=", i ? "," : "",
                         b->by[i] ? b->by[i]->name : "event");
        o += w > 0 ? (size_t)w : 0;
        if (o >= room)
            break;
        char tag = (char)key[k++];
        if (tag == 'k') {
            uint32_t idx;
            memcpy(&idx, key + k, 4);
            k += 4;
            const char *t = stacks && idx < stacks->n
                ? stacks->text + (size_t)idx * TP_AGG_MAX_STACK : "?";
            w = snprintf(out + o, room - o, "%s", t);
            o += w > 0 ? (size_t)w : 0;
            continue;
        }
        if (tag == 's') {
            size_t sl = key[k++];
            o += put_escaped(out + o, room - o, key + k, sl);
            k += sl;
            continue;
        }
        uint64_t v;
        char shown[TP_VALNAME_MAX];
        memcpy(&v, key + k, 8);
        k += 8;
        size_t sl = tp_valname_put((enum tp_shown)b->show[i], v, tag == 'i', b->devdir, "",
                                   shown, sizeof(shown));
        o += put_escaped(out + o, room - o, (const unsigned char *)shown, sl);
    }
}

static unsigned char *key_bytes(const struct tp_agg *a, const struct entry *e)
{
    return a->keys + (size_t)(e - a->e) * a->stride;
}

/*
 * The entry of a key (stride bytes, zero-padded), made if new, or "other"
 * when the keys are all taken.
 */
static struct entry *entry_of(struct tp_agg *a, const struct binding *b,
                              const unsigned char *key)
{
    if (a->last && (!a->stride || same_key(a->keys + (a->last - 1) * a->stride, key,
                                           a->stride)))
        return &a->e[a->last - 1];  /* runs of events of one key: no hashing */
    size_t i = hash_key(key, a->stride) & (a->nslots - 1);
    for (; a->slots[i]; i = (i + 1) & (a->nslots - 1)) {
        size_t idx = a->slots[i] - 1;
        if (same_key(a->keys + idx * a->stride, key, a->stride)) {
            a->last = (uint32_t)idx + 1;
            return &a->e[idx];
        }
    }
    if (a->ne == a->max_keys)
        return &a->e[a->max_keys];
    struct entry *e = &a->e[a->ne++];
    if (a->stride)
        memcpy(key_bytes(a, e), key, a->stride);
    e->binding = (uint16_t)(b - a->b);
    a->slots[i] = (uint32_t)a->ne;
    a->last = (uint32_t)a->ne;
    return e;
}

unsigned tp_agg_bucket(int64_t v, bool is_signed)
{
    uint64_t u = (uint64_t)v;
    if (is_signed && v < 0)
        return 0;
    return u == 0 ? 1 : 2 + (unsigned)(63 - __builtin_clzll(u));
}

void tp_agg_bucket_name(unsigned b, char *buf, size_t len)
{
    if (b == 0)
        snprintf(buf, len, "<0");
    else if (b <= 2)
        snprintf(buf, len, "%u-%u", b - 1, b - 1);
    else if (b < TP_AGG_BUCKETS)
        snprintf(buf, len, "%llu-%llu", 1ull << (b - 2), b - 2 == 63 ? ~0ull
                                                                       : (1ull << (b - 1)) - 1);
    else
        snprintf(buf, len, "?");
}

static void add(struct tp_agg *a, struct entry *e, int64_t v, bool is_signed)
{
    e->k.count++;
    e->k.sum = (int64_t)((uint64_t)e->k.sum + (uint64_t)v);
    if (e == &a->e[a->max_keys])
        a->overflow++;
    if (e->k.hist) {
        unsigned b = tp_agg_bucket(v, is_signed);
        if (e->k.hist[b]++ == 0) {
            e->k.buckets[b / 64] |= 1ull << (b % 64);
            a->nbuckets++;
        }
    }
}

/* ---- latency's waiting table ---------------------------------------------- */

static bool same_pairing(const struct pairing *x, const struct pairing *y)
{
    return x->v[0] == y->v[0] && x->v[1] == y->v[1];
}

static uint64_t pairing_hash(const struct pairing *on)
{
    return mix(on->v[0] * 0x9e3779b97f4a7c15ull ^ on->v[1]);
}

static size_t wait_home(const struct waits *w, const struct pairing *on)
{
    return pairing_hash(on) & (w->cap - 1);
}

/* Where on waits in w, or the empty slot it would take; h is pairing_hash(on). */
static size_t wait_slot(const struct waits *w, const struct pairing *on, uint64_t h)
{
    size_t i = h & (w->cap - 1);
    while (w->v[i].used && !same_pairing(&w->v[i].on, on))
        i = (i + 1) & (w->cap - 1);
    return i;
}

/* Remove slot i, shifting back the entries after it that hashed before it. */
static void wait_remove(struct waits *w, size_t i)
{
    size_t j = i;
    w->v[i].used = false;
    w->n--;
    for (;;) {
        j = (j + 1) & (w->cap - 1);
        if (!w->v[j].used)
            return;
        size_t home = wait_home(w, &w->v[j].on);
        /* may the entry at j move to the hole at i? only if its home is not in (i, j] */
        bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (between)
            continue;
        w->v[i] = w->v[j];
        w->v[j].used = false;
        i = j;
    }
}

/*
 * The starts table is full: the older half of the waiting starts (by time,
 * between the oldest and the newest) will likely never see their end; they
 * go, counted as dropped.
 */
static void make_room_for_starts(struct tp_agg *a)
{
    struct waits *w = &a->starts;
    uint64_t oldest = UINT64_MAX, newest = 0;
    for (size_t i = 0; i < w->cap; i++) {
        if (!w->v[i].used)
            continue;
        oldest = w->v[i].ts < oldest ? w->v[i].ts : oldest;
        newest = w->v[i].ts > newest ? w->v[i].ts : newest;
    }
    uint64_t cut = oldest + (newest - oldest) / 2;
    for (size_t i = 0; i < w->cap;) {
        if (w->v[i].used && w->v[i].ts <= cut) {
            wait_remove(w, i);
            a->dropped++;
        } else {
            i++;
        }
    }
}

static bool wait_put(struct waits *w, const struct pairing *on, uint64_t h, uint64_t ts,
                     uint32_t entry)
{
    size_t i = wait_slot(w, on, h);
    if (!w->v[i].used) {
        if (w->n == w->max)
            return false;
        w->n++;
    }
    w->v[i] = (struct wait){ *on, ts, entry, true };
    return true;
}

/*
 * A start waits for its end; a newer start of the same pairing values
 * replaces it (the task was woken again before it ran), as a map keyed by
 * them does in bpftrace.  Events come in time order (tp_merge), so an end
 * never comes before its start.
 */
static void start(struct tp_agg *a, const struct binding *b, const struct pairing *on,
                  uint64_t ts, const unsigned char *key)
{
    struct entry *e = entry_of(a, b, key);
    uint64_t h = pairing_hash(on);
    uint32_t idx = (uint32_t)(e - a->e);
    if (wait_put(&a->starts, on, h, ts, idx))
        return;
    make_room_for_starts(a);
    if (!wait_put(&a->starts, on, h, ts, idx))
        a->dropped++;
}

/* An end pairs with the waiting start of its values; one with none is no pair. */
static void end(struct tp_agg *a, const struct pairing *on, uint64_t ts)
{
    size_t s = wait_slot(&a->starts, on, pairing_hash(on));
    if (!a->starts.v[s].used || a->starts.v[s].ts > ts)
        return;
    const struct wait *w = &a->starts.v[s];
    add(a, &a->e[w->entry], (int64_t)(ts - w->ts), false);
    wait_remove(&a->starts, s);
}

/* ---- feeding ------------------------------------------------------------- */

/* The values an event of a latency pairs on; false if a field is absent. */
static bool pairing_of(const struct tp_agg_binding *b, const void *data, uint32_t len,
                       struct pairing *on)
{
    struct tp_field_value fv;
    *on = (struct pairing){ { 0, 0 } };
    if (!tp_field_value(b->value, data, len, &fv))
        return false;
    on->v[0] = fv.v.u;
    if (!b->value2)
        return true;
    if (!tp_field_value(b->value2, data, len, &fv))
        return false;
    on->v[1] = fv.v.u;
    return true;
}

void tp_agg_feed(struct tp_agg *a, uint32_t event, const void *data, uint32_t len,
                 uint64_t ts, const char *comm)
{
    tp_agg_feed_stack(a, event, data, len, ts, comm, NULL, 0);
}

void tp_agg_feed_stack(struct tp_agg *a, uint32_t event, const void *data, uint32_t len,
                       uint64_t ts, const char *comm, const void *frames, unsigned nframes)
{
    struct tp_agg_event ev = { event, data, len, ts, comm,
                               comm ? (uint32_t)strnlen(comm, TP_COMM_LEN - 1) : 0,
                               frames, nframes };
    tp_agg_feed_event(a, &ev);
}

void tp_agg_feed_event(struct tp_agg *a, const struct tp_agg_event *ev)
{
    const struct binding *b = binding_of(a, ev->event);
    const void *data = ev->data;
    uint32_t len = ev->len;
    uint64_t ts = ev->ts;
    unsigned char key[KEY_BYTES];
    struct tp_field_value fv = { 0 };
    struct pairing on = { { 0, 0 } };
    if (!b)
        return;
    memset(key, 0, a->stride);
    int kn = b->b.role == TP_AGG_END ? 0 : make_key(a, b, ev, key);
    bool other = kn == KEY_FULL && b->b.role == TP_AGG_VALUE;
    bool ok = (kn >= 0 || other) &&
              (b->b.role == TP_AGG_VALUE
               ? !b->b.value || tp_field_value(b->b.value, data, len, &fv)
               : pairing_of(&b->b, data, len, &on));
    if (!ok) {
        a->dropped++;               /* a truncated record, one without its stack, or a */
        return;                     /* latency start whose stack has no name left */
    }
    switch (b->b.role) {
    case TP_AGG_START: start(a, b, &on, ts, key); return;
    case TP_AGG_END: end(a, &on, ts); return;
    default:
        add(a, other ? &a->e[a->max_keys] : entry_of(a, b, key), fv.v.i,
            b->b.value && b->b.value->kind == TP_FIELD_INT);
        return;
    }
}

void tp_agg_lost(struct tp_agg *a, uint64_t n)
{
    a->dropped += n;
}

void tp_agg_clear(struct tp_agg *a)
{
    for (size_t i = 0; i <= a->max_keys; i++) {
        a->e[i].k.count = 0;
        a->e[i].k.sum = 0;
    }
    a->overflow = 0;
    a->dropped = 0;
}

void tp_agg_put(struct tp_agg *a, uint32_t event, const void *data, uint32_t len,
                uint64_t count, int64_t sum)
{
    tp_agg_put_comm(a, event, data, len, NULL, count, sum);
}

void tp_agg_put_comm(struct tp_agg *a, uint32_t event, const void *data, uint32_t len,
                     const char *comm, uint64_t count, int64_t sum)
{
    const struct binding *b = binding_of(a, event);
    unsigned char key[KEY_BYTES];
    uint32_t comm_len = comm ? (uint32_t)strnlen(comm, TP_COMM_LEN - 1) : 0;
    struct tp_agg_event ev = { event, data, len, 0, comm, comm_len, NULL, 0 };
    if (!b || b->b.role != TP_AGG_VALUE || !count)
        return;
    memset(key, 0, a->stride);
    if (make_key(a, b, &ev, key) < 0) {
        a->dropped += count;
        return;
    }
    struct entry *e = entry_of(a, b, key);
    e->k.count += count;
    e->k.sum = (int64_t)((uint64_t)e->k.sum + (uint64_t)sum);
    if (e == &a->e[a->max_keys])
        a->overflow += count;
}

/* ---- reading ------------------------------------------------------------- */

size_t tp_agg_nkeys(const struct tp_agg *a)
{
    return a->ne + (a->overflow > 0);
}

void tp_agg_key_name(const struct tp_agg *a, size_t i, char *buf, size_t len)
{
    if (!len)
        return;
    buf[0] = '\0';
    if (i < a->ne)
        key_name(&a->b[a->e[i].binding].b, a->stacks, key_bytes(a, &a->e[i]), buf, len);
    else if (i == a->ne && a->overflow)
        snprintf(buf, len, "other");
}

const struct tp_agg_key *tp_agg_key(const struct tp_agg *a, size_t i)
{
    if (i < a->ne)
        return &a->e[i].k;
    return i == a->ne && a->overflow ? &a->e[a->max_keys].k : NULL;
}

enum tp_agg_kind tp_agg_kind(const struct tp_agg *a) { return a->kind; }
bool tp_agg_signed(const struct tp_agg *a) { return a->is_signed; }
uint64_t tp_agg_dropped(const struct tp_agg *a) { return a->dropped; }
uint64_t tp_agg_overflow(const struct tp_agg *a) { return a->overflow; }
uint64_t tp_agg_nbuckets(const struct tp_agg *a) { return a->nbuckets; }
size_t tp_agg_pending(const struct tp_agg *a) { return a->starts.n; }
