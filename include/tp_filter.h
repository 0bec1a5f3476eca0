/*
 * tp_filter: the kernel's ftrace event-filter language, compiled against one
 * tracepoint's fields and evaluated on raw event records in user space.
 *
 * Used where the kernel's own filter cannot do the job alone: when several
 * consumers want one tracepoint with different filters, the kernel applies
 * the OR of them and the producer thread asks each consumer's compiled
 * filter whether a record is its.
 *
 * Language (as in Documentation/trace/events.rst, "Event filtering"):
 *   expr   := term { "||" term }
 *   term   := factor { "&&" factor }
 *   factor := "!" factor | "(" expr ")" | pred
 *   pred   := FIELD OP VALUE
 *   numeric fields: == != < <= > >= & (bitwise and: true if non-zero)
 *   string fields:  == != ~ (glob: * ? [...])
 * VALUE is a number (decimal, 0x hex, leading-0 octal; '-' allowed for signed
 * fields) or a string in double or single quotes (unquoted strings are
 * refused, as current kernels refuse them).
 * FIELD is one of the event's own fields (looked up first, as the kernel
 * does), "cpu"/"CPU"/"common_cpu" (the kernel's signed int: the CPU that
 * recorded the event), "comm"/"COMM" (the current task's name), or a common
 * field (common_pid, common_type, common_flags, common_preempt_count).
 * Names of the task and strings behind char * fields are known only to the
 * kernel at record time: see tp_filter_kernel_only().
 *
 * Threading: compile on any thread; a compiled filter is immutable, so any
 * number of threads may evaluate it at once.
 */
#ifndef TP_FILTER_H
#define TP_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp_catalog.h"

#define TP_FILTER_MAX_LEN   2048    /* bytes of expression text */
#define TP_FILTER_MAX_NODES 256     /* predicates and operators */

struct tp_filter;

/*
 * Compile expr for event e (whose format must be loaded).  On error returns
 * -EINVAL (syntax, unknown field, operator not valid for the field's type,
 * bad value) or -E2BIG (too long or too many nodes) or -ENOMEM, and writes a
 * one-line reason naming the problem and its position into err.
 */
int tp_filter_compile(const char *expr, const struct tp_event *e,
                      struct tp_filter **out, char *err, size_t errlen);
void tp_filter_free(struct tp_filter *f);

/*
 * Does the record (raw event bytes as the kernel wrote them, cpu) match?
 * For a kernel-only filter the answer means "might match" (the kernel, which
 * applied the filter itself, decides).  A NULL filter matches everything.
 */
bool tp_filter_match(const struct tp_filter *f, const void *data, uint32_t len,
                     unsigned cpu);
/*
 * The same, with the task's name at the event for comm/COMM (NULL: not
 * known, and a comm predicate is then unknown, as a kernel-only one is).
 */
bool tp_filter_match_comm(const struct tp_filter *f, const void *data, uint32_t len,
                          unsigned cpu, const char *comm);

/*
 * True if the filter compares a string behind a char * field: only the
 * kernel can evaluate it.
 */
bool tp_filter_kernel_only(const struct tp_filter *f);
/* True if the filter names comm/COMM: evaluating it needs the task's name. */
bool tp_filter_uses_comm(const struct tp_filter *f);
/*
 * Does every event the filter accepts have one task name, because an
 * exact `comm == "NAME"` (or `~` without a wildcard) must be true on every
 * way to a match?  Then that NAME into buf (cut to len) and true.
 */
bool tp_filter_pinned_comm(const struct tp_filter *f, char *buf, size_t len);
/*
 * Does the text of a filter name comm or COMM as a word (before it is
 * compiled: at worst a string that holds the word says yes)?  NULL: no.
 */
bool tp_filter_text_names_comm(const char *text);

#endif
