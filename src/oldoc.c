/*
 * The text of a one-liner's values.  See tp_oldoc.h.
 */
#include "tp_oldoc.h"

#include <inttypes.h>

static const char *const kind_word[] = {
    [TP_AGG_COUNT] = "count", [TP_AGG_SUM] = "sum",
    [TP_AGG_HIST] = "hist", [TP_AGG_LATENCY] = "latency",
};

static void put_key(FILE *f, const struct tp_agg *agg, size_t k)
{
    const struct tp_agg_key *key = tp_agg_key(agg, k);
    char name[TP_AGG_MAX_NAME];
    tp_agg_key_name(agg, k, name, sizeof(name));
    if (tp_agg_signed(agg))
        fprintf(f, "key %" PRIu64 " %" PRId64 " %s\n", key->count, key->sum, name);
    else
        fprintf(f, "key %" PRIu64 " %" PRIu64 " %s\n", key->count, (uint64_t)key->sum, name);
    for (unsigned b = 0; key->hist && b < TP_AGG_BUCKETS; b++)
        if (key->hist[b])
            fprintf(f, "b %u %" PRIu64 "\n", b, key->hist[b]);
}

void tp_oldoc_put_until(FILE *f, uint64_t until_ns)
{
    fprintf(f, "until %" PRIu64 "\n", until_ns);
}

size_t tp_oldoc_put_head(FILE *f, unsigned id, const struct tp_agg *agg, const char *directive)
{
    size_t n = tp_agg_nkeys(agg);
    fprintf(f, "agg %u %s %d %" PRIu64 " %" PRIu64 " %zu %zu %s\n", id,
            kind_word[tp_agg_kind(agg)], tp_agg_signed(agg), tp_agg_dropped(agg),
            tp_agg_overflow(agg), tp_agg_pending(agg), n, directive);
    return n;
}

void tp_oldoc_put_keys(FILE *f, const struct tp_agg *agg, size_t from, size_t to)
{
    for (size_t k = from; k < to; k++)
        put_key(f, agg, k);
}

void tp_oldoc_put(FILE *f, unsigned id, const struct tp_agg *agg, const char *directive)
{
    tp_oldoc_put_keys(f, agg, 0, tp_oldoc_put_head(f, id, agg, directive));
}
