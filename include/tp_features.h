/*
 * tp_features: what this kernel's tracing offers beyond tracepoints, found
 * once at PMDA start from the files of its tracefs directory:
 *   kprobes     kprobe_events exists (CONFIG_KPROBE_EVENTS)
 *   uprobes     uprobe_events exists (CONFIG_UPROBE_EVENTS)
 *   hist        hist triggers: "hist" among an event's "# Available
 *               triggers", or its events/SYS/EVENT/hist file (CONFIG_HIST_TRIGGERS)
 *   synth       synthetic events: synthetic_events exists (CONFIG_SYNTH_EVENTS)
 *   stacktrace  the stacktrace trigger, among the available triggers
 *   subbuf      a sub-buffer size of one's choice: buffer_subbuf_size_kb (6.8+)
 * Eprobes are not among them: the kernel's README shows their syntax
 * whatever CONFIG_EPROBE_EVENTS says, and only defining one would tell.
 *
 * A pure room: no PCP library, no threads, nothing written; it only looks
 * at (stat, one short read of one trigger file) the directory it is given,
 * so a made-up directory tree tests it.  Called by the agent at start, on
 * the PMDA thread, off every hot path.
 */
#ifndef TP_FEATURES_H
#define TP_FEATURES_H

#include <stddef.h>

enum tp_feature {
    TP_FEAT_KPROBES, TP_FEAT_UPROBES, TP_FEAT_HIST, TP_FEAT_SYNTH,
    TP_FEAT_STACKTRACE, TP_FEAT_SUBBUF, TP_NFEATURES
};

/* The features of the tracefs at tracing_dir: a mask of 1u << enum tp_feature. */
unsigned tp_features_detect(const char *tracing_dir);

/* A feature's name as above ("kprobes"), or NULL past the last. */
const char *tp_feature_name(unsigned feature);

/*
 * The names of the features in mask, in the order above, separated by one
 * space ("kprobes uprobes hist"), or "none".  Into buf (size >= 1, always
 * NUL-terminated); returns the length it wanted, as snprintf.
 */
int tp_features_format(unsigned mask, char *buf, size_t size);

#endif
