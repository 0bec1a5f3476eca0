/*
 * tp_decode: one ring-buffer sub-buffer (as read from trace_pipe_raw) into
 * its events, with libtraceevent's kbuffer.
 *
 * kbuffer trusts the page header's commit field and each event's length
 * word; the decoder checks both against the bytes actually read before any
 * event is handed on, so an arbitrary page never makes it read outside the
 * buffer.
 *
 * Threading: a decoder belongs to one thread (the producer).  No PCP library.
 */
#ifndef TP_DECODE_H
#define TP_DECODE_H

#include <stddef.h>
#include <stdint.h>

#define TP_PAGE_HEADER_SIZE 16      /* u64 timestamp + long commit */

struct tp_decoder;

/* Called for each event: its payload (common fields first), size, trace-clock time. */
typedef void (*tp_event_fn)(void *arg, const void *data, uint32_t size, uint64_t ts);

/* Returns 0 or -ENOMEM. */
int tp_decoder_create(struct tp_decoder **out);
/* Accepts NULL. */
void tp_decoder_destroy(struct tp_decoder *d);

/*
 * Decode the nread bytes at page (one sub-buffer; 8-byte aligned) and call
 * fn for each event in order.  Returns the page's data length (0 for an
 * empty page), or -EINVAL if the header cannot be trusted (nothing was
 * handed on).  *truncated is set when an event's length ran past the data;
 * decoding stops there, and the events before it were handed on.
 */
long tp_decode_page(struct tp_decoder *d, const void *page, size_t nread,
                    tp_event_fn fn, void *arg, int *truncated);

#endif
