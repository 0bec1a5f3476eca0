/*
 * tp_with: what a consumer's event records carry after event, cpu, pid and
 * time_ns, and the words that say it ("fields,comm,text,stack", "none").  Used by
 * the control strings (tracepoint.control.params), the config (params= of
 * a stream) and tp_records.
 *
 * Pure: no I/O, no state.
 */
#ifndef TP_WITH_H
#define TP_WITH_H

#include <stddef.h>

/* What a consumer's records carry after the first four parameters. */
enum tp_with {
    TP_WITH_FIELDS = 1,     /* the event's own fields */
    TP_WITH_COMM = 2,       /* tracepoint.param.comm */
    TP_WITH_TEXT = 4,       /* tracepoint.param.text */
    TP_WITH_STACK = 8,      /* tracepoint.param.stack: the event's kernel stack */
};
#define TP_WITH_DEFAULT TP_WITH_FIELDS
#define TP_WITH_ALL     (TP_WITH_FIELDS | TP_WITH_COMM | TP_WITH_TEXT | TP_WITH_STACK)

/*
 * "fields,comm,text,stack" (any order, commas or blanks; "none" for nothing, ""
 * for the default) to tp_with bits.  0 or PM_ERR_BADSTORE with the reason.
 */
int tp_with_parse(const char *text, unsigned *with, char *err, size_t errlen);
/* The words of tp_with bits, "fields,comm,text,stack" order, into buf. */
void tp_with_format(unsigned with, char *buf, size_t len);

#endif
