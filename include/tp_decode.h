/*
 * tp_decode: one ring-buffer sub-buffer (as read from trace_pipe_raw) into
 * its events, with the sizes and times libtraceevent's kbuffer gives them.
 *
 * The page header's commit field is checked against the bytes actually read,
 * and every entry against the commit, before it is read: an arbitrary page
 * never makes the decoder read outside the buffer, and decoding always ends.
 *
 * Pure: no state, no allocation, no PCP library; any thread.
 */
#ifndef TP_DECODE_H
#define TP_DECODE_H

#include <stddef.h>
#include <stdint.h>

#define TP_PAGE_HEADER_SIZE 16      /* u64 timestamp + long commit */

/* Called for each event: its payload (common fields first), size, trace-clock time. */
typedef void (*tp_event_fn)(void *arg, const void *data, uint32_t size, uint64_t ts);

/*
 * Decode the nread bytes at page (one sub-buffer; 8-byte aligned) and call
 * fn for each event in order.  Returns the page's data length (0 for an
 * empty page), or -EINVAL if the header cannot be trusted (nothing was
 * handed on).  *truncated is set when an event's length ran past the data;
 * decoding stops there, and the events before it were handed on.
 */
long tp_decode_page(const void *page, size_t nread, tp_event_fn fn, void *arg, int *truncated);

#endif
