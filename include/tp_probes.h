/*
 * tp_probes: the PMDA's dynamic probes in the kernel (uprobes, and kprobes
 * where the kernel has kprobe_events), and nothing else of the kernel's
 * dynamic events.
 *
 * Every probe lives in one event group, TP_PROBE_GROUP_PREFIX<pid>, this
 * process's own: several PMDAs on one kernel never share a name.  Opening
 * the set removes the groups of pmdatracepoint processes that no longer
 * exist (probes left by a PMDA that died); closing it removes every probe
 * still defined.  The kernel refuses to remove a probe that an instance
 * still has enabled, so the instance goes first (tp_instance_close).
 *
 * What reaches the kernel is built from a parsed spec (tp_probespec): the
 * group is ours, the name is checked by tp_probe_name_ok, the path is one
 * the caller has resolved symbols in.
 *
 * Threading: PMDA thread; tp_probes_teardown() from any thread (the signal
 * thread).  A mutex inside keeps the two apart.
 */
#ifndef TP_PROBES_H
#define TP_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp_catalog.h"
#include "tp_probespec.h"
#include "tp_util.h"

struct tp_probes;

/*
 * Clean the stale groups and prepare ours (no kernel writes until a probe
 * is created).  Returns 0 or -ENOMEM; a kernel without dynamic events is
 * no error: creating a probe then says why.
 */
int tp_probes_open(struct tp_probes **out, tp_log_fn log, void *arg);
/* Remove every probe still defined, then free.  Accepts NULL. */
void tp_probes_close(struct tp_probes *p);
/* Remove every probe from the kernel without freeing: for a terminating signal. */
void tp_probes_teardown(struct tp_probes *p);

/* Remove the probes of the PMDA with that pid, which is gone (tp_guard): how
 * many were removed; *failed says how many could not be. */
size_t tp_probes_remove_of(long pid, size_t *failed);

/* Our event group, "pmdatracepoint_<pid>". */
const char *tp_probes_group(const struct tp_probes *p);
/* Does the kernel have uprobe_events (kind UPROBE) or kprobe_events (KPROBE)? */
bool tp_probes_supported(enum tp_probe_kind kind);

/*
 * Create probe name in the kernel from spec; for a uprobe, file_offset is
 * where the symbol lies in spec->path.  0, or a negative errno with the
 * reason in err (for a definition the kernel refuses, its error_log line):
 * -EOPNOTSUPP the kernel has no such probes; -EEXIST name is ours already;
 * -EINVAL the kernel refused it; -ENOMEM.
 */
int tp_probes_create(struct tp_probes *p, const char *name, const struct tp_probe_spec *spec,
                     uint64_t file_offset, char *err, size_t errlen);
/* Remove probe name from the kernel.  0, -ENOENT (not ours) or -errno (logged). */
int tp_probes_remove(struct tp_probes *p, const char *name);

/*
 * Pure: is a dynamic event group left by a pmdatracepoint process that
 * is gone?  pid_running(pid) says whether such a process runs.
 */
bool tp_probes_group_stale(const char *group, int self_pid, bool (*pid_running)(long pid));

#endif
