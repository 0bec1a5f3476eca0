/*
 * libFuzzer harness for src/identity.c (the identity map's file).
 *
 * The input is the text of a map file.  It is written into a directory of
 * its own and opened; then checks what include/tp_identity.h promises:
 *   - every id the map holds names a plain tracepoint name (no space, no
 *     control character), and looking that name up gives the same id;
 *   - a new tracepoint gets an id no other name has, and the map saved
 *     with it reads back, in a fresh map, with every id naming the same
 *     tracepoint;
 *   - beginning again on the file just written changes nothing;
 *   - the file is written the same way each time: the map read back from
 *     it, saved with one more tracepoint (the highest id, so its line
 *     comes last), writes the same bytes first.
 * Everything is freed (LeakSanitizer checks); the directory goes at exit.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tp_identity.h"

static char dir[64], path[96];

static void remove_dir(void)
{
    char lock[112];
    snprintf(lock, sizeof(lock), "%s.lock", path);
    unlink(path);
    unlink(lock);
    rmdir(dir);
}

static void no_log(void *arg, const char *msg)
{
    (void)arg;
    if (!msg || !msg[0])
        abort();
}

static void put_file(const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "w");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
}

static char *file_bytes(size_t *n)
{
    FILE *f = fopen(path, "r");
    char *buf = NULL;
    *n = 0;
    if (f) {
        size_t cap = 0;
        FILE *m = open_memstream(&buf, &cap);
        int c;
        while (m && (c = fgetc(f)) != EOF)
            fputc(c, m);
        if (m)
            fclose(m);
        fclose(f);
        *n = buf ? cap : 0;
    }
    return buf;
}

/* Printable ASCII, no space (isgraph in the C locale), at least one byte. */
static bool plain_name(const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++)
        if (!isgraph((unsigned char)s[i]))
            return false;
    return n > 0;
}

static struct tp_identity *open_map(void)
{
    struct tp_identity *id = NULL;
    if (tp_identity_open(&id, path, no_log, NULL) != 0 || !id)
        abort();
    return id;
}

/* Every held id names a plain name that maps back to it; the names into out. */
static void check_names(struct tp_identity *id, char **out)
{
    for (unsigned i = 0; i < TP_IDENTITY_MAX_EVENTS; i++) {
        const char *name = tp_identity_event_name(id, i);
        out[i] = NULL;
        if (!name)
            continue;
        if (!plain_name(name) || tp_identity_event(id, name) != (int)i || !(out[i] = strdup(name)))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *before[TP_IDENTITY_MAX_EVENTS], *after[TP_IDENTITY_MAX_EVENTS];
    if (!dir[0]) {
        snprintf(dir, sizeof(dir), "/tmp/fuzz_identity.XXXXXX");
        if (!mkdtemp(dir))
            abort();
        snprintf(path, sizeof(path), "%s/map", dir);
        atexit(remove_dir);
    }
    put_file(data, size);
    struct tp_identity *a = open_map();
    check_names(a, before);
    int fresh = tp_identity_event(a, "fuzz:new_one");
    if (fresh < 0 && fresh != -ENOSPC)
        abort();
    if (fresh >= 0 && before[fresh])
        abort();                                /* an id already taken */
    if (tp_identity_save(a) != 0)
        abort();
    size_t n1, n2;
    char *saved = file_bytes(&n1);
    struct tp_identity *b = open_map();
    check_names(b, after);
    for (unsigned i = 0; i < TP_IDENTITY_MAX_EVENTS; i++) {
        const char *want = (int)i == fresh ? "fuzz:new_one" : before[i];
        if ((want == NULL) != (after[i] == NULL) || (want && strcmp(want, after[i]) != 0))
            abort();
        free(before[i]);
        free(after[i]);
    }
    if (tp_identity_begin(a) != 0 || tp_identity_end(a) != 0)
        abort();
    if (fresh >= 0 && tp_identity_event(b, "fuzz:new_one") != fresh)
        abort();
    int two = tp_identity_event(b, "fuzz:new_two");
    if (two < 0 ? two != -ENOSPC : two <= fresh)
        abort();
    if (tp_identity_save(b) != 0)
        abort();
    char *again = file_bytes(&n2);
    if (n2 < n1 || (n1 && memcmp(saved, again, n1) != 0) || (two >= 0 && n2 == n1))
        abort();
    free(saved);
    free(again);
    tp_identity_close(a);
    tp_identity_close(b);
    return 0;
}
