/*
 * Sub-buffer decoding.  See tp_decode.h.
 *
 * The layout (include/linux/ring_buffer.h, kernel/trace/ring_buffer.c): a
 * header (u64 timestamp, local_t commit, as events/header_page says), then
 * entries, each a 32-bit word
 * (type_len: 5 bits, time_delta: 27 bits) and its body:
 *   type_len 1..28   an event of type_len * 4 bytes follows
 *   type_len 0       array[0] holds the event's length + 4; the event follows
 *   29 (padding)     array[0] bytes of discarded data follow array[0]
 *   30 (time extend) array[0] << 27 + time_delta is added to the time
 *   31 (time stamp)  array[0] << 27 + time_delta is the time (its top 5 bits
 *                    kept from before)
 * Times and lengths are read as libtraceevent's kbuffer reads them, so an
 * event gets the same size and time here as in trace-cmd.  Unlike kbuffer,
 * which this file used before, every word is read only after checking that
 * it lies inside the data (kbuffer reads up to 8 bytes past it), lengths are
 * added in 64 bits (a padding length of 0xfffffffc made kbuffer read the
 * same entry forever), and an entry running past the data ends the page as
 * truncated.
 */
#include "tp_decode.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define COMMIT_MASK   ((1u << 27) - 1)  /* commit bytes; high bits are flags */
#define MISSED_STORED (1u << 30)

#define TYPE_DATA_MAX    28
#define TYPE_PADDING     29
#define TYPE_TIME_EXTEND 30
#define TYPE_TIME_STAMP  31
#define TS_SHIFT         27
#define TS_MSB           (0xf8ULL << 56)

/* The sub-buffer's data length, or -1 if its header cannot be trusted. */
static long page_data_len(const void *page, size_t nread, const struct tp_page_layout *lay)
{
    if (nread < lay->data_offset)
        return -1;
    uint64_t word = 0;
    if (lay->commit_size == 8) {
        memcpy(&word, (const char *)page + lay->commit_offset, 8);
    } else {
        uint32_t w;
        memcpy(&w, (const char *)page + lay->commit_offset, 4);
        word = w;
    }
    uint64_t commit = word & COMMIT_MASK;
    /* With "missed events stored", a count (a long) follows the data. */
    uint64_t need = commit + ((word & MISSED_STORED) ? lay->commit_size : 0);
    if (need > nread - lay->data_offset)
        return -1;
    return (long)commit;
}

/* "offset:N;" and "size:N;" of the header_page line of a field. */
static int field_at(const char *text, const char *field, uint32_t *offset, uint32_t *size)
{
    const char *p = strstr(text, field);
    unsigned long o, s;
    if (!p || sscanf(p + strlen(field), " offset:%lu; size:%lu;", &o, &s) != 2 ||
        o > 4096 || s > 65536)
        return -EINVAL;
    *offset = (uint32_t)o;
    *size = (uint32_t)s;
    return 0;
}

int tp_parse_header_page(const char *text, struct tp_page_layout *out)
{
    struct tp_page_layout lay;
    uint32_t ts_off, ts_size, data_size;
    if (field_at(text, "u64 timestamp;", &ts_off, &ts_size) < 0 ||
        field_at(text, "local_t commit;", &lay.commit_offset, &lay.commit_size) < 0 ||
        field_at(text, "char data;", &lay.data_offset, &data_size) < 0)
        return -EINVAL;
    if (ts_off != 0 || ts_size != 8 || (lay.commit_size != 4 && lay.commit_size != 8) ||
        lay.commit_offset < 8 || lay.commit_offset + lay.commit_size > lay.data_offset ||
        lay.data_offset % 4 != 0)
        return -EINVAL;
    *out = lay;
    return 0;
}

static uint32_t word_at(const unsigned char *p)
{
    uint32_t w;
    memcpy(&w, p, sizeof(w));
    return w;
}

long tp_decode_page(const void *page, size_t nread, const struct tp_page_layout *lay,
                    tp_event_fn fn, void *arg, int *truncated)
{
    *truncated = 0;
    long len = page_data_len(page, nread, lay);
    if (len < 0)
        return -EINVAL;
    const unsigned char *data = (const unsigned char *)page + lay->data_offset;
    uint64_t size = (uint64_t)len, pos = 0, ts;
    memcpy(&ts, page, sizeof(ts));
    while (pos < size) {
        /* The entry's word, and array[0] for the types that have one. */
        if (size - pos < 4)
            goto bad;
        uint32_t head = word_at(data + pos);
        uint32_t type = head & 0x1f, delta = head >> 5;
        uint64_t body = pos + 4, array0 = 0;
        if (type == 0 || type > TYPE_DATA_MAX) {
            if (size - body < 4)
                goto bad;
            array0 = word_at(data + body);
        }
        uint64_t ev, evsize;        /* the event handed on, for data entries */
        switch (type) {
        case TYPE_TIME_EXTEND:
        case TYPE_TIME_STAMP: {
            uint64_t t = (array0 << TS_SHIFT) + delta;
            ts = type == TYPE_TIME_STAMP ? t | (ts & TS_MSB) : ts + t;
            pos = body + 4;
            continue;
        }
        case TYPE_PADDING:
            ts += delta;
            if (array0 > size - body)
                goto bad;
            pos = body + array0;
            continue;
        case 0:
            if (array0 < 4)
                goto bad;
            ev = body + 4;
            evsize = (array0 - 4 + 3) & ~(uint64_t)3;
            break;
        default:
            ev = body;
            evsize = (uint64_t)type * 4;
            break;
        }
        ts += delta;
        if (evsize < 2 || evsize > size - ev || evsize > UINT32_MAX)
            goto bad;
        fn(arg, data + ev, (uint32_t)evsize, ts);
        pos = ev + evsize;
    }
    return len;
bad:
    *truncated = 1;
    return len;
}
