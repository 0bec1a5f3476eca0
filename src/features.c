/*
 * What the kernel's tracing offers, from its tracefs files.  See tp_features.h.
 */
#include "tp_features.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tp_util.h"

static const char *const names[TP_NFEATURES] = {
    [TP_FEAT_KPROBES] = "kprobes", [TP_FEAT_UPROBES] = "uprobes", [TP_FEAT_HIST] = "hist",
    [TP_FEAT_SYNTH] = "synth", [TP_FEAT_STACKTRACE] = "stacktrace",
    [TP_FEAT_SUBBUF] = "subbuf",
};

const char *tp_feature_name(unsigned feature)
{
    return feature < TP_NFEATURES ? names[feature] : NULL;
}

/* dir/name into out; false if it does not fit. */
static bool join(char *out, size_t size, const char *dir, const char *name)
{
    int n = snprintf(out, size, "%s/%s", dir, name);
    return n >= 0 && (size_t)n < size;
}

static bool exists(const char *dir, const char *name)
{
    char path[4096];
    return join(path, sizeof(path), dir, name) && access(path, F_OK) == 0;
}

/* The first entry of dir that is a directory (not . or ..), into out; false if none. */
static bool first_subdir(const char *dir, char *out, size_t size)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    bool found = false;
    while (d && !found && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        if (!join(out, size, dir, de->d_name))
            continue;
        DIR *sub = opendir(out);
        found = sub != NULL;
        if (sub)
            closedir(sub);
    }
    if (d)
        closedir(d);
    return found;
}

/* An event directory of this tracefs that has a trigger file; false if none. */
static bool some_event(const char *tracing_dir, char *out, size_t size)
{
    char events[4096], sys[4096];
    DIR *d = join(events, sizeof(events), tracing_dir, "events") ? opendir(events) : NULL;
    struct dirent *de;
    bool found = false;
    while (d && !found && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        if (!join(sys, sizeof(sys), events, de->d_name))
            continue;
        found = first_subdir(sys, out, size) && exists(out, "trigger");
    }
    if (d)
        closedir(d);
    return found;
}

/* Whether word is one of the blank-separated words of the comment lines of text. */
static bool has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        bool starts = p == text || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '#';
        bool ends = p[n] == '\0' || p[n] == ' ' || p[n] == '\t' || p[n] == '\n';
        if (starts && ends)
            return true;
    }
    return false;
}

/* The triggers an event offers ("# Available triggers:" and the names after), from its trigger file. */
static unsigned triggers(const char *event_dir)
{
    char path[4096], *text = NULL;
    if (!join(path, sizeof(path), event_dir, "trigger") || tp_read_text(path, 1024, &text, NULL) < 0)
        return 0;
    const char *avail = strstr(text, "# Available triggers:");
    unsigned mask = 0;
    if (avail && has_word(avail, "hist"))
        mask |= 1u << TP_FEAT_HIST;
    if (avail && has_word(avail, "stacktrace"))
        mask |= 1u << TP_FEAT_STACKTRACE;
    free(text);
    return mask;
}

unsigned tp_features_detect(const char *tracing_dir)
{
    unsigned mask = 0;
    char event[4096];
    if (exists(tracing_dir, "kprobe_events"))
        mask |= 1u << TP_FEAT_KPROBES;
    if (exists(tracing_dir, "uprobe_events"))
        mask |= 1u << TP_FEAT_UPROBES;
    if (exists(tracing_dir, "synthetic_events"))
        mask |= 1u << TP_FEAT_SYNTH;
    if (exists(tracing_dir, "buffer_subbuf_size_kb"))
        mask |= 1u << TP_FEAT_SUBBUF;
    if (some_event(tracing_dir, event, sizeof(event))) {
        mask |= triggers(event);
        if (exists(event, "hist"))
            mask |= 1u << TP_FEAT_HIST;
    }
    return mask;
}

int tp_features_format(unsigned mask, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (unsigned f = 0; f < TP_NFEATURES; f++) {
        if (!(mask & 1u << f))
            continue;
        int k = snprintf(buf + (n < size ? n : size - 1), n < size ? size - n : 1, "%s%s",
                         n ? " " : "", names[f]);
        n += (size_t)k;
    }
    if (n == 0)
        return snprintf(buf, size, "none");
    return (int)n;
}
