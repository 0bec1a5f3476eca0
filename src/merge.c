/*
 * Merging CPUs' events by time.  See tp_merge.h.
 */
#include "tp_merge.h"

#include <stdbool.h>

static uint64_t ts_at(const struct tp_merge_src *s, size_t i)
{
    return *(const uint64_t *)(const void *)((const char *)s->ts + i * s->stride);
}

/* The source whose next event comes first (the lowest on equal times), skipping `not`. */
static size_t first_source(const struct tp_merge_src *s, size_t nsrc, uint64_t watermark,
                           size_t not, uint64_t *first_ts)
{
    size_t best = nsrc;
    for (size_t i = 0; i < nsrc; i++) {
        if (i == not || s[i].pos >= s[i].n)
            continue;
        uint64_t t = ts_at(&s[i], s[i].pos);
        if (t <= watermark && (best == nsrc || t < *first_ts)) {
            best = i;
            *first_ts = t;
        }
    }
    return best;
}

size_t tp_merge_run(const struct tp_merge_src *s, size_t nsrc, uint64_t watermark,
                    size_t max, size_t *src)
{
    uint64_t best_ts = 0, other_ts = watermark;
    size_t best = first_source(s, nsrc, watermark, nsrc, &best_ts);
    if (best == nsrc)
        return 0;
    size_t other = first_source(s, nsrc, watermark, best, &other_ts);
    bool best_wins_ties = other == nsrc || best < other;
    const struct tp_merge_src *b = &s[best];
    size_t n = 0, end = b->n - b->pos > max ? b->pos + max : b->n;
    for (size_t i = b->pos; i < end; i++, n++) {
        uint64_t t = ts_at(b, i);
        if (t > watermark || t > other_ts || (t == other_ts && other != nsrc && !best_wins_ties))
            break;
    }
    *src = best;
    return n;
}
