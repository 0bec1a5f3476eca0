/*
 * tp_fake_tracefs: a made-up tracefs tree in a temporary directory, for the
 * unit tests of rooms that read one (catalog, render, records, features).
 * Test code only: on failure it fails the running cmocka test.  The caller
 * includes <cmocka.h> (and what it needs) first.
 */
#ifndef TP_FAKE_TRACEFS_H
#define TP_FAKE_TRACEFS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The common fields every event's format starts with, as the kernel writes them. */
#define TP_FAKE_COMMON_FIELDS \
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"

/* dir/rel (rel may hold slashes) holds text. */
static inline void tp_fake_put(const char *dir, const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The directory dir/rel, made. */
static inline void tp_fake_dir(const char *dir, const char *rel)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    assert_int_equal(mkdir(path, 0700), 0);
}

/* A new tree /tmp/NAME.XXXXXX with its events/ directory, into dir (64 bytes). */
static inline int tp_fake_tracefs(char dir[64], const char *name)
{
    snprintf(dir, 64, "/tmp/%s.XXXXXX", name);
    if (!mkdtemp(dir))
        return -1;
    tp_fake_dir(dir, "events");
    return 0;
}

/* events/SYSTEM/EVENT with its enable and format files. */
static inline void tp_fake_event(const char *dir, const char *system, const char *event,
                                 const char *format)
{
    char rel[256];
    snprintf(rel, sizeof(rel), "events/%s", system);
    struct stat st;
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    if (stat(path, &st) != 0)
        tp_fake_dir(dir, rel);
    snprintf(rel, sizeof(rel), "events/%s/%s", system, event);
    tp_fake_dir(dir, rel);
    snprintf(rel, sizeof(rel), "events/%s/%s/enable", system, event);
    tp_fake_put(dir, rel, "0\n");
    snprintf(rel, sizeof(rel), "events/%s/%s/format", system, event);
    tp_fake_put(dir, rel, format);
}

/* The tree gone: 0, or -1. */
static inline int tp_fake_tracefs_remove(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

#endif
