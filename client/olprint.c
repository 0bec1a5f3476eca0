/* olprint.c: one-liner results as text and JSON (client/olprint.h). */
#include "olprint.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define BAR_WIDTH 52

/* A bucket bound: 1024^n multiples with their suffix, as bpftrace writes them. */
static void bound(uint64_t v, char *buf, size_t len)
{
    static const char *const suffix[] = { "", "K", "M", "G", "T", "P", "E" };
    unsigned n = 0;
    while (v && n < 6 && (v & 1023) == 0) {
        v >>= 10;
        n++;
    }
    snprintf(buf, len, "%" PRIu64 "%s", v, suffix[n]);
}

void ol_bucket_label(unsigned b, char *buf, size_t len)
{
    char lo[24], hi[24];
    if (b == 0) {
        snprintf(buf, len, "(..., 0)");
    } else if (b <= 2) {
        snprintf(buf, len, "[%u]", b - 1);
    } else {
        bound((uint64_t)1 << (b - 2), lo, sizeof(lo));
        if (b - 1 < 64)
            bound((uint64_t)1 << (b - 1), hi, sizeof(hi));
        else
            snprintf(hi, sizeof(hi), "16E");
        snprintf(buf, len, "[%s, %s)", lo, hi);
    }
}

void ol_print_hist(FILE *f, const uint64_t hist[OL_BUCKETS])
{
    int lo = -1, hi = -1;
    uint64_t max = 0;
    for (int b = 0; b < OL_BUCKETS; b++) {
        if (!hist[b])
            continue;
        lo = lo < 0 ? b : lo;
        hi = b;
        max = hist[b] > max ? hist[b] : max;
    }
    for (int b = lo; lo >= 0 && b <= hi; b++) {
        char label[32], bar[BAR_WIDTH + 1];
        unsigned w = (unsigned)((unsigned __int128)hist[b] * BAR_WIDTH / max);
        memset(bar, '@', w);
        memset(bar + w, ' ', BAR_WIDTH - w);
        bar[BAR_WIDTH] = '\0';
        ol_bucket_label((unsigned)b, label, sizeof(label));
        fprintf(f, "%-16s%8" PRIu64 " |%s|\n", label, hist[b], bar);
    }
}

/* ---- sorting ---------------------------------------------------------------- */

struct ranked {
    const struct ol_key *k;
    bool by_sum, is_signed;
};

static int cmp_value(const struct ranked *x, const struct ranked *y)
{
    if (!x->by_sum)
        return (x->k->count > y->k->count) - (x->k->count < y->k->count);
    if (x->is_signed) {
        int64_t a = (int64_t)x->k->sum, b = (int64_t)y->k->sum;
        return (a > b) - (a < b);
    }
    return (x->k->sum > y->k->sum) - (x->k->sum < y->k->sum);
}

static int cmp_ranked(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    int c = cmp_value(x, y);
    return c ? c : strcmp(x->k->name, y->k->name);
}

/* The keys in print order, or NULL (no memory; none: an empty, freeable array). */
static struct ranked *rank(const struct ol_agg *a)
{
    struct ranked *r = malloc((a->nkeys ? a->nkeys : 1) * sizeof(*r));
    for (size_t i = 0; r && i < a->nkeys; i++)
        r[i] = (struct ranked){ &a->keys[i], a->kind == OL_SUM, a->is_signed };
    if (r && a->nkeys)
        qsort(r, a->nkeys, sizeof(*r), cmp_ranked);
    return r;
}

static void put_value(FILE *f, const struct ol_agg *a, const struct ol_key *k)
{
    if (a->kind == OL_COUNT)
        fprintf(f, "%" PRIu64, k->count);
    else if (a->is_signed)
        fprintf(f, "%" PRId64, (int64_t)k->sum);
    else
        fprintf(f, "%" PRIu64, k->sum);
}

/* ---- text -------------------------------------------------------------------- */

static bool is_hist(const struct ol_agg *a)
{
    return a->kind == OL_HIST || a->kind == OL_LATENCY;
}

/* Without by fields: one key, named "". */
static bool keyless(const struct ol_agg *a)
{
    return a->nkeys == 1 && a->keys[0].name[0] == '\0';
}

int ol_print_text(FILE *f, const struct ol_agg *a)
{
    struct ranked *r = rank(a);
    if (!r)
        return -1;
    fprintf(f, "%s%s:\n", a->directive, a->kind == OL_LATENCY ? " (ns)" : "");
    for (size_t i = 0; i < a->nkeys; i++) {
        const struct ol_key *k = r[i].k;
        if (is_hist(a)) {
            if (!keyless(a))
                fprintf(f, "%s%s:\n", i ? "\n" : "", k->name);
            ol_print_hist(f, k->hist);
        } else {
            if (!keyless(a))
                fprintf(f, "%s ", k->name);
            put_value(f, a, k);
            fputc('\n', f);
        }
    }
    if (a->dropped)
        fprintf(f, "dropped %" PRIu64 "\n", a->dropped);
    if (a->pending)
        fprintf(f, "pending %" PRIu64 "\n", a->pending);
    fputc('\n', f);
    free(r);
    return 0;
}

/* ---- JSON -------------------------------------------------------------------- */

static void put_buckets(FILE *f, const uint64_t hist[OL_BUCKETS])
{
    bool first = true;
    fputc('[', f);
    for (unsigned b = 0; b < OL_BUCKETS; b++) {
        if (!hist[b])
            continue;
        fputs(first ? "" : ",", f);
        first = false;
        if (b == 0)
            fprintf(f, "{\"max\":-1,\"count\":%" PRIu64 "}", hist[b]);
        else if (b <= 2)
            fprintf(f, "{\"min\":%u,\"max\":%u,\"count\":%" PRIu64 "}", b - 1, b - 1, hist[b]);
        else
            fprintf(f, "{\"min\":%" PRIu64 ",\"max\":%" PRIu64 ",\"count\":%" PRIu64 "}",
                    (uint64_t)1 << (b - 2), ((uint64_t)1 << (b - 2) << 1) - 1, hist[b]);
    }
    fputc(']', f);
}

int ol_print_json(FILE *f, const struct ol_agg *a)
{
    static const char *const kinds[] = { "count", "sum", "hist", "latency" };
    struct ranked *r = rank(a);
    if (!r)
        return -1;
    fputs("{\"agg\":", f);
    put_json_string(f, a->directive, strlen(a->directive));
    fprintf(f, ",\"kind\":\"%s\",\"dropped\":%" PRIu64 ",\"overflow\":%" PRIu64
            ",\"pending\":%" PRIu64 ",\"data\":{", kinds[a->kind], a->dropped, a->overflow,
            a->pending);
    for (size_t i = 0; i < a->nkeys; i++) {
        fputs(i ? "," : "", f);
        put_json_string(f, r[i].k->name, strlen(r[i].k->name));
        fputc(':', f);
        if (is_hist(a))
            put_buckets(f, r[i].k->hist);
        else
            put_value(f, a, r[i].k);
    }
    fputs("}}\n", f);
    free(r);
    return 0;
}
