/*
 * tp_ring: the bounded ring that carries captured kernel events from the
 * producer (reader) thread to the PMDA thread.
 *
 * Storage is one byte buffer of fixed capacity holding variable-length
 * entries in arrival order.  When an append does not fit, the oldest entries
 * are evicted; the ring never allocates after tp_ring_create().
 *
 * Every entry has a global sequence number (implicit: the count of entries
 * appended before it) and a mask of consumer "slots" (streams or client
 * subscription sets, at most TP_RING_MAX_SLOTS) that want it.  A consumer
 * reads through a cursor bound to one slot; many cursors may share a slot.
 *
 * Exact loss accounting: for each slot the ring counts the events appended
 * for it ("matched") and the events evicted before anyone could read them
 * ("evicted").  Each cursor carries the slot-local ordinal of the next event
 * it expects, so an overtaken cursor learns exactly how many of *its* events
 * it missed: evicted[slot] - cursor.ord.  Kernel loss reported by the
 * producer is appended as a LOSS entry whose count is added to the same
 * arithmetic, so for every cursor: delivered + missed == matched since the
 * cursor started.
 *
 * Bounded work: tp_ring_next() counts every entry it examines (those of
 * other slots too) against the caller's budget and pauses when it is spent,
 * and a cursor that starts in the past finds its first entry in those same
 * bounded steps, so no call holds the lock for more than a budget's worth.
 *
 * Threading: the ring has no lock of its own.  Every function expects the
 * caller to hold the lock that guards the ring (see tp_capture.h); the
 * pointers in a tp_ring_view are valid only until that lock is released.
 */
#ifndef TP_RING_H
#define TP_RING_H

#include <stddef.h>
#include <stdint.h>

#define TP_RING_MAX_SLOTS 64

typedef uint64_t tp_slotmask;

/*
 * The lowest slot not in taken, or -1 when all are: the one way a slot is
 * chosen, for streams, aggregations, subscriptions, one-liners and names.
 */
static inline int tp_ring_free_slot(tp_slotmask taken)
{
    return ~taken ? __builtin_ctzll(~taken) : -1;
}

/* What the producer knows about one captured event. */
struct tp_event_meta {
    uint64_t ts;        /* trace clock, ns */
    uint32_t event;     /* catalog index of the event */
    uint16_t cpu;
    uint16_t clock;     /* tp_clock epoch the event was read in */
    tp_slotmask mask;   /* slots that want this event; 0 = nobody (not stored) */
    const char *comm;   /* the pid's name when the event was read, NUL-terminated, at
                           most 15 bytes, stored with the event; NULL: none.  In a
                           view it points into the ring (valid while locked) */
    const void *frames; /* the kernel stack, innermost first: nframes addresses (8 bytes
                           each; appending, maybe unaligned); NULL: none.  In a view 8-aligned
                           uint64_t, into the ring (valid while locked) */
    uint16_t nframes;
};

struct tp_ring;

/* A reading position. Plain data: copy it, keep it anywhere. */
struct tp_cursor {
    uint64_t seq;       /* sequence number of the next entry to examine */
    size_t off;         /* byte offset of that entry (valid if seq >= tail) */
    uint64_t ord;       /* slot-local ordinal of the next event for this slot */
    uint64_t since;     /* starting: skip the slot's entries older than this; 0 once started */
    uint64_t fresh;     /* the slot's ordinal at the init: events from it on are always taken */
    unsigned slot;
};

enum tp_read {
    TP_READ_END = 0,    /* nothing more for this cursor now */
    TP_READ_EVENT = 1,  /* view holds an event */
    TP_READ_MISSED = 2, /* view.missed events of this slot were lost */
    TP_READ_PAUSE = 3,  /* the budget is spent: release the lock, then call again */
};

struct tp_ring_view {
    struct tp_event_meta meta;  /* for TP_READ_EVENT */
    const void *data;           /* raw event bytes, valid while locked */
    uint32_t len;
    uint64_t missed;            /* for TP_READ_MISSED */
    uint64_t ts;                /* trace-clock time of the event or the loss */
    uint16_t clock;             /* its tp_clock epoch */
};

struct tp_ring_stats {
    size_t capacity;       /* bytes */
    size_t used;           /* bytes currently held */
    uint64_t head_seq;     /* entries ever appended */
    uint64_t tail_seq;     /* oldest entry still held */
    uint64_t evicted;      /* entries evicted, in total */
    uint64_t bytes_appended; /* bytes of entries ever appended */
};

/* capacity in bytes; at least 4096. Returns 0 or -errno. */
int tp_ring_create(struct tp_ring **out, size_t capacity);
void tp_ring_destroy(struct tp_ring *r);

/*
 * Append one event (meta.mask != 0). Evicts the oldest entries as needed.
 * Returns 0, or -E2BIG if the entry can never fit in the ring, or -EINVAL.
 */
int tp_ring_append(struct tp_ring *r, const struct tp_event_meta *meta,
                   const void *data, uint32_t len);

/* Append a kernel-loss marker: count events lost at time ts, for the slots in mask. */
int tp_ring_append_loss(struct tp_ring *r, uint64_t ts, uint16_t clock, tp_slotmask mask,
                        uint64_t count);

/*
 * Give a slot to a new owner: entries already in the ring do not belong to
 * it, and its counters restart at zero.
 */
void tp_ring_slot_reset(struct tp_ring *r, unsigned slot);

/* Events appended for the slot since its reset (matched) and evicted unread. */
uint64_t tp_ring_slot_matched(const struct tp_ring *r, unsigned slot);
uint64_t tp_ring_slot_evicted(const struct tp_ring *r, unsigned slot);

/*
 * Position a new cursor for slot: at the oldest held entry of the slot whose
 * ts >= since_ts, and everything of the slot after it (since_ts = UINT64_MAX
 * means "only what comes next").  Constant time: the cursor starts at the
 * tail and skips the slot's older entries as tp_ring_next() reaches them,
 * without counting them.  Should the tail overtake it before it takes its
 * first entry, it starts again from the new tail; only events appended
 * after the init that went unread count as missed.
 */
void tp_cursor_init(struct tp_ring *r, struct tp_cursor *c, unsigned slot, uint64_t since_ts);

/*
 * Advance the cursor to the next thing its slot must hear about: a missed
 * count (first, if the cursor was overtaken or a LOSS entry is next) or an
 * event.  Entries of other slots are skipped.  Each entry examined takes one
 * from *budget (NULL: no bound); when it is 0, TP_READ_PAUSE.
 */
enum tp_read tp_ring_next(struct tp_ring *r, struct tp_cursor *c, struct tp_ring_view *v,
                          unsigned *budget);

/* How many entries lie between the cursor and the head (an upper bound of pending work). */
uint64_t tp_cursor_backlog(const struct tp_ring *r, const struct tp_cursor *c);

void tp_ring_get_stats(const struct tp_ring *r, struct tp_ring_stats *st);

/*
 * Move the ring into a buffer of another capacity (at least 4096 bytes).
 * Entries keep their sequence numbers and order; if they do not all fit,
 * the oldest are evicted first, counted as usual.  Cursors' byte offsets
 * change: pass every cursor through tp_ring_rebase() with the map this
 * returns, then free the map.  Returns 0, or -EINVAL or -ENOMEM (the ring
 * is then as it was).
 */
struct tp_ring_rebase;
int tp_ring_resize(struct tp_ring *r, size_t capacity, struct tp_ring_rebase **map);
void tp_ring_rebase(const struct tp_ring_rebase *map, struct tp_cursor *c);
void tp_ring_rebase_free(struct tp_ring_rebase *map);

#endif
