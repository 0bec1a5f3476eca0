/*
 * tp_ring: bounded, variable-length event ring with exact per-slot loss
 * accounting.  See include/tp_ring.h for the contract.
 *
 * Layout.  buf[0, cap) holds entries back to back.  Each entry is a
 * struct entry_hdr followed by len data bytes, its total size rounded up to
 * 8, so every entry starts 8-aligned.  An entry never straddles the end of
 * the buffer: when it does not fit in the bytes left before the end it goes
 * to offset 0, and the wasted tail is marked with a PAD header if one fits
 * there; a tail shorter than a header is an implicit wrap.
 *
 * The wasted tail belongs to the entry that wrapped: it is counted in `used`
 * when that entry is appended and freed when that entry is evicted, so the
 * PAD marker stays intact for as long as anyone may still need to step over
 * it.  The held bytes are thus always the circular interval that starts at
 * `tail` and is `used` long, ending at `head`.
 *
 * Offsets.  A "region offset" is where an entry's bytes (including the waste
 * that precedes it when it wrapped) begin: the end of the previous entry.
 * Cursors, `tail` and `head` hold region offsets; entry_at() resolves one to
 * the entry header itself.  A region offset may equal cap.
 *
 * When the ring becomes empty the next append restarts at offset 0; a cursor
 * whose seq equals tail_seq therefore takes its offset from the ring, never
 * from its own (possibly stale) copy.
 */
#include "tp_ring.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/*
 * KIND_STACKED is an event with its kernel stack: its data begin with the
 * number of frames (a uint64_t) and the frames (8 bytes each), then the
 * event's bytes and name as KIND_EVENT's.
 */
enum entry_kind { KIND_EVENT = 1, KIND_LOSS = 2, KIND_PAD = 3, KIND_STACKED = 4 };

struct entry_hdr {
    uint64_t ts;
    tp_slotmask mask;
    union {
        uint64_t count;         /* KIND_LOSS */
        struct {                /* KIND_EVENT, KIND_STACKED */
            uint32_t event;
            uint16_t cpu;
            uint16_t comm_len;  /* of len, the name after the event's bytes, NUL included */
        };
    };
    uint32_t len;               /* data bytes after the header */
    uint16_t kind;
    uint16_t clock;             /* tp_clock epoch */
};

#define HDR_SIZE   sizeof(struct entry_hdr)
#define MIN_CAP    4096u

_Static_assert(sizeof(struct entry_hdr) % 8 == 0, "entry header must keep 8-byte alignment");

struct tp_ring {
    unsigned char *buf;
    size_t cap;                 /* bytes, a multiple of 8 */
    size_t head;                /* region offset where the next entry goes */
    size_t tail;                /* region offset of the oldest held entry */
    size_t used;                /* held bytes, including wrap waste */
    uint64_t head_seq;          /* entries ever appended */
    uint64_t tail_seq;          /* seq of the oldest held entry */
    uint64_t evicted_total;
    uint64_t bytes_appended;
    uint64_t start_seq[TP_RING_MAX_SLOTS];
    uint64_t matched[TP_RING_MAX_SLOTS];
    uint64_t evicted[TP_RING_MAX_SLOTS];
    uint64_t evicted_ts[TP_RING_MAX_SLOTS];  /* ts of the slot's newest evicted entry */
    uint16_t evicted_clock[TP_RING_MAX_SLOTS];   /* and its clock epoch */
};

/* ---- entry helpers ---------------------------------------------------- */

static uint64_t entry_size(uint32_t len)
{
    return ((uint64_t)HDR_SIZE + len + 7u) & ~(uint64_t)7u;
}

static struct entry_hdr read_hdr(const struct tp_ring *r, size_t off)
{
    struct entry_hdr h;

    memcpy(&h, r->buf + off, HDR_SIZE);
    return h;
}

static void write_hdr(struct tp_ring *r, size_t off, const struct entry_hdr *h)
{
    memcpy(r->buf + off, h, HDR_SIZE);
}

/*
 * Resolve a region offset to the entry that occupies it: step over an
 * implicit wrap or a PAD.  Only valid for a region that holds an entry.
 */
static size_t entry_at(const struct tp_ring *r, size_t off, struct entry_hdr *h)
{
    if (r->cap - off < HDR_SIZE) {
        off = 0;
    } else {
        *h = read_hdr(r, off);
        if (h->kind != KIND_PAD)
            return off;
        off = 0;
    }
    *h = read_hdr(r, off);
    return off;
}

/* Region offset following the entry that starts at pos. */
static size_t advance(size_t pos, const struct entry_hdr *h)
{
    return pos + (size_t)entry_size(h->len);
}

/* Bytes a region at off occupies when its entry sits at pos. */
static size_t region_size(const struct tp_ring *r, size_t off, size_t pos,
                          const struct entry_hdr *h)
{
    size_t waste = pos == off ? 0 : r->cap - off;

    return waste + (size_t)entry_size(h->len);
}

/* How many of a slot's events the entry stands for. */
static uint64_t weight(const struct entry_hdr *h)
{
    return h->kind == KIND_LOSS ? h->count : 1;
}

static bool slot_wants(const struct tp_ring *r, unsigned slot, uint64_t seq,
                       const struct entry_hdr *h)
{
    return ((h->mask >> slot) & 1u) && seq >= r->start_seq[slot];
}

/* ---- create / destroy ------------------------------------------------- */

int tp_ring_create(struct tp_ring **out, size_t capacity)
{
    struct tp_ring *r = NULL;
    int rc = -EINVAL;

    capacity &= ~(size_t)7u;
    if (out == NULL || capacity < MIN_CAP)
        goto done;
    rc = -ENOMEM;
    r = calloc(1, sizeof(*r));
    if (r == NULL || (r->buf = malloc(capacity)) == NULL)
        goto done;
    r->cap = capacity;
    rc = 0;
done:
    if (rc != 0) {
        tp_ring_destroy(r);
        r = NULL;
    }
    if (out != NULL)
        *out = r;
    return rc;
}

void tp_ring_destroy(struct tp_ring *r)
{
    if (r == NULL)
        return;
    free(r->buf);
    free(r);
}

/* ---- append / evict --------------------------------------------------- */

static void evict_one(struct tp_ring *r)
{
    struct entry_hdr h;
    size_t pos = entry_at(r, r->tail, &h);
    tp_slotmask m = h.mask;

    while (m != 0) {
        unsigned slot = (unsigned)__builtin_ctzll(m);

        m &= m - 1;
        if (r->tail_seq >= r->start_seq[slot]) {
            r->evicted[slot] += weight(&h);
            r->evicted_ts[slot] = h.ts;
            r->evicted_clock[slot] = h.clock;
        }
    }
    r->used -= region_size(r, r->tail, pos, &h);
    r->tail = advance(pos, &h);
    r->tail_seq++;
    r->evicted_total++;
}

/*
 * Where an entry of `need` bytes can go without overwriting held bytes:
 * at head, or at 0 (wrapping).  Returns false if the oldest entries must go.
 */
static bool find_place(struct tp_ring *r, size_t need, size_t *pos)
{
    if (r->used == 0) {
        r->head = r->tail = 0;
        *pos = 0;
        return true;
    }
    if (r->tail < r->head) {
        if (r->cap - r->head >= need) {
            *pos = r->head;
            return true;
        }
        *pos = 0;
        return r->tail >= need;
    }
    *pos = r->head;
    return r->tail > r->head && r->tail - r->head >= need;
}

/* A stacked entry's frames, before its event's bytes. */
static size_t put_frames(unsigned char *to, const struct entry_hdr *h, const void *frames,
                         uint16_t nframes)
{
    if (h->kind != KIND_STACKED)
        return 0;
    uint64_t n = nframes;
    memcpy(to, &n, sizeof(n));
    memcpy(to + sizeof(n), frames, (size_t)nframes * 8);
    return sizeof(n) + (size_t)nframes * 8;
}

static void put_entry(struct tp_ring *r, const struct entry_hdr *h, const void *frames,
                      uint16_t nframes, const void *data, const char *comm)
{
    size_t need = (size_t)entry_size(h->len);
    size_t pos;
    size_t waste;

    while (!find_place(r, need, &pos))
        evict_one(r);
    waste = pos == r->head ? 0 : r->cap - r->head;
    if (waste >= HDR_SIZE) {
        struct entry_hdr pad = { .kind = KIND_PAD, .len = (uint32_t)(waste - HDR_SIZE) };

        write_hdr(r, r->head, &pad);
    }
    write_hdr(r, pos, h);
    size_t extra = h->kind == KIND_EVENT || h->kind == KIND_STACKED ? h->comm_len : 0;
    size_t pre = put_frames(r->buf + pos + HDR_SIZE, h, frames, nframes);
    if (h->len > extra + pre)
        memcpy(r->buf + pos + HDR_SIZE + pre, data, h->len - extra - pre);
    if (extra > 0) {
        unsigned char *name = r->buf + pos + HDR_SIZE + h->len - extra;
        memcpy(name, comm, extra - 1);
        name[extra - 1] = '\0';
    }
    r->used += waste + need;
    r->head = pos + need;
    r->head_seq++;
    r->bytes_appended += need;
}

static void count_matched(struct tp_ring *r, const struct entry_hdr *h)
{
    tp_slotmask m = h->mask;

    while (m != 0) {
        unsigned slot = (unsigned)__builtin_ctzll(m);

        m &= m - 1;
        r->matched[slot] += weight(h);
    }
}

static int append_entry(struct tp_ring *r, const struct entry_hdr *h, const void *frames,
                        uint16_t nframes, const void *data, const char *comm)
{
    if (entry_size(h->len) > r->cap - HDR_SIZE)
        return -E2BIG;
    count_matched(r, h);
    put_entry(r, h, frames, nframes, data, comm);
    return 0;
}

int tp_ring_append(struct tp_ring *r, const struct tp_event_meta *meta,
                   const void *data, uint32_t len)
{
    struct entry_hdr h = { 0 };

    if (r == NULL || meta == NULL || meta->mask == 0 || (data == NULL && len > 0))
        return -EINVAL;
    h.ts = meta->ts;
    h.mask = meta->mask;
    h.event = meta->event;
    h.cpu = meta->cpu;
    h.clock = meta->clock;
    h.comm_len = meta->comm ? (uint16_t)(strnlen(meta->comm, 15) + 1) : 0;
    uint32_t pre = meta->nframes && meta->frames ? 8 + 8 * (uint32_t)meta->nframes : 0;
    if (len > UINT32_MAX - h.comm_len - pre)
        return -E2BIG;
    h.len = len + h.comm_len + pre;
    h.kind = pre ? KIND_STACKED : KIND_EVENT;
    return append_entry(r, &h, meta->frames, meta->nframes, data, meta->comm);
}

int tp_ring_append_loss(struct tp_ring *r, uint64_t ts, uint16_t clock, tp_slotmask mask,
                        uint64_t count)
{
    struct entry_hdr h = { 0 };

    if (r == NULL || mask == 0)
        return -EINVAL;
    if (count == 0)
        return 0;               /* nothing was lost: nothing to tell */
    h.ts = ts;
    h.mask = mask;
    h.count = count;
    h.clock = clock;
    h.kind = KIND_LOSS;
    return append_entry(r, &h, NULL, 0, NULL, NULL);
}

/* ---- slots ------------------------------------------------------------ */

void tp_ring_slot_reset(struct tp_ring *r, unsigned slot)
{
    if (r == NULL || slot >= TP_RING_MAX_SLOTS)
        return;
    r->start_seq[slot] = r->head_seq;
    r->matched[slot] = 0;
    r->evicted[slot] = 0;
    r->evicted_ts[slot] = 0;
    r->evicted_clock[slot] = 0;
}

uint64_t tp_ring_slot_matched(const struct tp_ring *r, unsigned slot)
{
    if (r == NULL || slot >= TP_RING_MAX_SLOTS)
        return 0;
    return r->matched[slot];
}

uint64_t tp_ring_slot_evicted(const struct tp_ring *r, unsigned slot)
{
    if (r == NULL || slot >= TP_RING_MAX_SLOTS)
        return 0;
    return r->evicted[slot];
}

/* ---- cursors ---------------------------------------------------------- */

static void cursor_at_head(const struct tp_ring *r, struct tp_cursor *c)
{
    c->seq = r->head_seq;
    c->off = r->head;
    c->ord = c->slot < TP_RING_MAX_SLOTS ? r->matched[c->slot] : 0;
    c->since = 0;
}

/* At the tail: the slot's events before it are the evicted ones. */
static void cursor_at_tail(const struct tp_ring *r, struct tp_cursor *c)
{
    c->seq = r->tail_seq;
    c->off = r->tail;
    c->ord = r->evicted[c->slot];
}

void tp_cursor_init(struct tp_ring *r, struct tp_cursor *c, unsigned slot, uint64_t since_ts)
{
    if (r == NULL || c == NULL)
        return;
    c->slot = slot;
    cursor_at_head(r, c);
    if (slot >= TP_RING_MAX_SLOTS || since_ts == UINT64_MAX)
        return;
    cursor_at_tail(r, c);
    c->since = since_ts;
    c->fresh = r->matched[slot];
}

static void fill_view(struct tp_ring_view *v, size_t pos, const struct tp_ring *r,
                      const struct entry_hdr *h)
{
    memset(v, 0, sizeof(*v));
    v->meta.ts = h->ts;
    v->meta.mask = h->mask;
    v->meta.clock = h->clock;
    v->ts = h->ts;
    v->clock = h->clock;
    if (h->kind == KIND_LOSS) {
        v->missed = h->count;
        return;
    }
    v->meta.event = h->event;
    v->meta.cpu = h->cpu;
    v->data = r->buf + pos + HDR_SIZE;
    v->len = h->len - h->comm_len;
    if (h->kind == KIND_STACKED) {
        uint64_t n;
        memcpy(&n, v->data, sizeof(n));
        v->meta.frames = (const uint64_t *)v->data + 1;
        v->meta.nframes = (uint16_t)n;
        v->data = (const unsigned char *)v->data + 8 + 8 * n;
        v->len -= (uint32_t)(8 + 8 * n);
    }
    v->meta.comm = h->comm_len ? (const char *)v->data + v->len : NULL;
}

/*
 * An overtaken cursor: how many of its slot's events went, and jump to the
 * tail.  One still looking for its first entry (everything it passed came
 * before its init) lost only what was appended after its init.
 */
static uint64_t catch_up(const struct tp_ring *r, struct tp_cursor *c)
{
    uint64_t ev = r->evicted[c->slot];
    uint64_t from = c->since && c->fresh > c->ord ? c->fresh : c->ord;
    uint64_t missed = ev > from ? ev - from : 0;

    cursor_at_tail(r, c);
    return missed;
}

/* Does a starting cursor take this entry (its first ordinal ord), and so start? */
static bool takes(struct tp_cursor *c, uint64_t ord, const struct entry_hdr *h)
{
    if (c->since && h->ts < c->since && ord < c->fresh)
        return false;
    c->since = 0;
    return true;
}

enum tp_read tp_ring_next(struct tp_ring *r, struct tp_cursor *c, struct tp_ring_view *v,
                          unsigned *budget)
{
    if (r == NULL || c == NULL || v == NULL || c->slot >= TP_RING_MAX_SLOTS)
        return TP_READ_END;
    if (c->seq < r->tail_seq) {
        uint64_t missed = catch_up(r, c);

        if (missed > 0) {
            memset(v, 0, sizeof(*v));
            v->missed = missed;
            v->ts = r->evicted_ts[c->slot];
            v->clock = r->evicted_clock[c->slot];
            return TP_READ_MISSED;
        }
    }
    if (c->seq == r->tail_seq)
        c->off = r->tail;
    while (c->seq < r->head_seq) {
        struct entry_hdr h;
        size_t pos;
        uint64_t seq;

        if (budget != NULL && (*budget)-- == 0) {
            *budget = 0;
            return TP_READ_PAUSE;
        }
        pos = entry_at(r, c->off, &h);
        seq = c->seq++;
        c->off = advance(pos, &h);
        if (!slot_wants(r, c->slot, seq, &h))
            continue;
        c->ord += weight(&h);
        if (!takes(c, c->ord - weight(&h), &h))
            continue;
        fill_view(v, pos, r, &h);
        return h.kind == KIND_LOSS ? TP_READ_MISSED : TP_READ_EVENT;
    }
    c->since = 0;           /* all it had to skip is behind it */
    return TP_READ_END;
}

uint64_t tp_cursor_backlog(const struct tp_ring *r, const struct tp_cursor *c)
{
    uint64_t from;

    if (r == NULL || c == NULL)
        return 0;
    from = c->seq > r->tail_seq ? c->seq : r->tail_seq;
    return from < r->head_seq ? r->head_seq - from : 0;
}

void tp_ring_get_stats(const struct tp_ring *r, struct tp_ring_stats *st)
{
    if (r == NULL || st == NULL)
        return;
    st->capacity = r->cap;
    st->used = r->used;
    st->head_seq = r->head_seq;
    st->tail_seq = r->tail_seq;
    st->evicted = r->evicted_total;
    st->bytes_appended = r->bytes_appended;
}

/* ---- resizing ---------------------------------------------------------- */

struct tp_ring_rebase {
    uint64_t first_seq;         /* seq of off[0] */
    size_t n;                   /* off[i]: region offset of entry first_seq + i; off[n]: head */
    size_t off[];
};

/* Copy the held entries, oldest first, to the start of buf; record where each went. */
static void linearize(const struct tp_ring *r, unsigned char *buf, struct tp_ring_rebase *m)
{
    size_t off = r->tail, to = 0;
    for (uint64_t seq = r->tail_seq; seq < r->head_seq; seq++) {
        struct entry_hdr h;
        size_t pos = entry_at(r, off, &h), size = (size_t)entry_size(h.len);

        m->off[seq - r->tail_seq] = to;
        memcpy(buf + to, r->buf + pos, size);
        to += size;
        off = advance(pos, &h);
    }
    m->off[m->n] = to;
}

int tp_ring_resize(struct tp_ring *r, size_t capacity, struct tp_ring_rebase **map)
{
    capacity &= ~(size_t)7u;
    if (r == NULL || map == NULL || capacity < MIN_CAP)
        return -EINVAL;
    unsigned char *buf = malloc(capacity);
    struct tp_ring_rebase *m = NULL;
    if (buf == NULL)
        return -ENOMEM;
    /* evicting first cannot be undone, so make sure of the memory for the map first */
    m = malloc(sizeof(*m) + ((size_t)(r->head_seq - r->tail_seq) + 1) * sizeof(size_t));
    if (m == NULL) {
        free(buf);
        return -ENOMEM;
    }
    while (r->used > capacity - HDR_SIZE)
        evict_one(r);
    m->first_seq = r->tail_seq;
    m->n = (size_t)(r->head_seq - r->tail_seq);
    linearize(r, buf, m);
    free(r->buf);
    r->buf = buf;
    r->cap = capacity;
    r->tail = 0;
    r->head = r->used = m->off[m->n];
    *map = m;
    return 0;
}

void tp_ring_rebase(const struct tp_ring_rebase *m, struct tp_cursor *c)
{
    if (m == NULL || c == NULL || c->seq < m->first_seq)
        return;             /* overtaken: it catches up from the tail anyway */
    uint64_t i = c->seq - m->first_seq;
    c->off = m->off[i < m->n ? i : m->n];
}

void tp_ring_rebase_free(struct tp_ring_rebase *m)
{
    free(m);
}
