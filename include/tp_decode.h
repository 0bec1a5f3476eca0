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

/*
 * Where a sub-buffer's header keeps what the decoder needs, as the kernel's
 * events/header_page describes it: the commit word (a local_t: the data
 * length, flags in its top bits) and the start of the data.  A 64-bit
 * kernel has commit at 8 (8 bytes) and data at 16; a 32-bit one has a
 * 4-byte commit and data at 12.
 */
struct tp_page_layout {
    uint32_t commit_offset, commit_size;
    uint32_t data_offset;
};
#define TP_PAGE_LAYOUT_64 ((struct tp_page_layout){ 8, 8, 16 })

/*
 * Parse the text of events/header_page.  Returns 0, or -EINVAL if it lacks
 * the commit or data field or describes a header no decoder could trust
 * (a commit word of another size than 4 or 8, or one outside the header).
 */
int tp_parse_header_page(const char *text, struct tp_page_layout *out);

/* Called for each event: its payload (common fields first), size, trace-clock time. */
typedef void (*tp_event_fn)(void *arg, const void *data, uint32_t size, uint64_t ts);

/*
 * Decode the nread bytes at page (one sub-buffer; 8-byte aligned) laid out
 * as lay says, and call fn for each event in order.  Returns the page's data
 * length (0 for an empty page), or -EINVAL if the header cannot be trusted
 * (nothing was handed on).  *truncated is set when an event's length ran
 * past the data; decoding stops there, and the events before it were
 * handed on.
 */
long tp_decode_page(const void *page, size_t nread, const struct tp_page_layout *lay,
                    tp_event_fn fn, void *arg, int *truncated);

#endif
