/*
 * tp_tracefs: the private tracefs instance, the only tracing state the PMDA
 * touches.  Every path it writes is built here from a catalog event (whose
 * names came from the kernel's own directory listing), never from client text.
 *
 * The instance is "pmdatracepoint.<pid>".  Opening it first removes instances
 * left behind by pmdatracepoint processes that no longer exist; closing it
 * disables its events and removes it.
 *
 * Threading: PMDA thread, except tp_instance_teardown() (any thread, once the
 * reader has stopped) and the file descriptors handed out, which belong to
 * whoever opened them.
 */
#ifndef TP_TRACEFS_H
#define TP_TRACEFS_H

#include <stddef.h>
#include <stdint.h>

#include "tp_catalog.h"
#include "tp_decode.h"
#include "tp_util.h"

#define TP_INSTANCE_PREFIX "pmdatracepoint."

struct tp_instance;


/*
 * Find (mounting if needed and possible) tracefs, clean stale instances,
 * create ours with the mono trace clock, no-overwrite mode and
 * buffer_kb per CPU.  Returns 0 or -errno (-ENODEV: no tracefs).
 */
int tp_instance_open(struct tp_instance **out, unsigned buffer_kb,
                     tp_log_fn log, void *arg);
/* Disable all events, remove the instance, free.  Accepts NULL. */
void tp_instance_close(struct tp_instance *inst);
/* Remove the instance without freeing memory: for a terminating signal. */
void tp_instance_teardown(struct tp_instance *inst);
/* Remove the instance of the PMDA with that pid, which is gone (tp_guard).
 * 1 removed, 0 there was none, -errno. */
int tp_instance_remove_of(long pid);

const char *tp_instance_tracing_dir(const struct tp_instance *inst);
const char *tp_instance_name(const struct tp_instance *inst);
int tp_instance_ncpus(const struct tp_instance *inst);
size_t tp_instance_subbuf_size(const struct tp_instance *inst);
/* The sub-buffer header's layout, from events/header_page. */
const struct tp_page_layout *tp_instance_page_layout(const struct tp_instance *inst);

/* Resize the per-CPU buffers.  Returns 0 or -errno (logged). */
int tp_instance_set_buffer_kb(struct tp_instance *inst, unsigned kb);

/* Enable or disable one event in the instance.  Returns 0 or -errno. */
int tp_instance_enable(struct tp_instance *inst, const struct tp_event *e, int on);
/* Set the event's kernel filter; NULL or "" clears it.  -EINVAL: kernel refused. */
int tp_instance_set_filter(struct tp_instance *inst, const struct tp_event *e,
                           const char *filter);
/*
 * The event's stacktrace trigger, in this instance only: "stacktrace if
 * cond" (cond: a filter expression, never empty, so that the trigger runs
 * after the event is written and its kernel_stack entry follows it), or
 * NULL to remove it.  One may be set at a time: remove it before setting
 * another.  0 or -errno (-EINVAL: the kernel refused the condition).
 */
int tp_instance_set_stacktrace(struct tp_instance *inst, const struct tp_event *e,
                               const char *cond);
/* After a refused filter: the kernel's reason ("parse_error: ..."), into buf. */
void tp_instance_filter_error(struct tp_instance *inst, const struct tp_event *e,
                              char *buf, size_t len);
/* Open one of the instance's own files, e.g. "buffer_percent".  An fd or -errno. */
int tp_instance_open_file(struct tp_instance *inst, const char *file, int flags);
/* Open per_cpu/cpuN/<file> in the instance, e.g. "trace_pipe_raw", "stats". */
int tp_instance_open_cpu_file(struct tp_instance *inst, int cpu, const char *file, int flags);

/* Parse a per-CPU "stats" text: overrun + dropped events.  Pure. Returns 0 or -EINVAL. */
int tp_parse_cpu_stats(const char *text, uint64_t *overrun, uint64_t *dropped);

#endif
