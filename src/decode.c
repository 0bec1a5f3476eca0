/*
 * Sub-buffer decoding.  See tp_decode.h.
 */
#include "tp_decode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/kbuffer.h>

#define COMMIT_MASK   ((1u << 27) - 1)  /* commit bytes; high bits are flags */
#define MISSED_STORED (1u << 30)

struct tp_decoder {
    struct kbuffer *kbuf;
};

int tp_decoder_create(struct tp_decoder **out)
{
    struct tp_decoder *d = calloc(1, sizeof(*d));
    if (!d)
        return -ENOMEM;
    d->kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
    if (!d->kbuf) {
        free(d);
        return -ENOMEM;
    }
    *out = d;
    return 0;
}

void tp_decoder_destroy(struct tp_decoder *d)
{
    if (!d)
        return;
    kbuffer_free(d->kbuf);
    free(d);
}

/* The sub-buffer's data length, or -1 if its header cannot be trusted. */
static long page_data_len(const void *page, size_t nread)
{
    if (nread < TP_PAGE_HEADER_SIZE)
        return -1;
    uint64_t word;
    memcpy(&word, (const char *)page + 8, sizeof(word));
    uint64_t commit = word & COMMIT_MASK;
    /* With "missed events stored", kbuffer reads a count just after the data. */
    uint64_t need = commit + ((word & MISSED_STORED) ? 8 : 0);
    if (need > nread - TP_PAGE_HEADER_SIZE)
        return -1;
    return (long)commit;
}

long tp_decode_page(struct tp_decoder *d, const void *page, size_t nread,
                    tp_event_fn fn, void *arg, int *truncated)
{
    *truncated = 0;
    long len = page_data_len(page, nread);
    if (len < 0 || kbuffer_load_subbuffer(d->kbuf, (void *)page) < 0)
        return -EINVAL;
    const char *end = (const char *)page + TP_PAGE_HEADER_SIZE + len;
    unsigned long long ts;
    for (void *e = kbuffer_read_event(d->kbuf, &ts); e; e = kbuffer_next_event(d->kbuf, &ts)) {
        int size = kbuffer_event_size(d->kbuf);
        if (size < 2 || (const char *)e < (const char *)page || size > end - (const char *)e) {
            *truncated = 1;
            break;
        }
        fn(arg, e, (uint32_t)size, ts);
    }
    return len;
}
