/*
 * fold: exact counts per folded stack -- "comm;outermost;...;innermost" --
 * the input every flame graph tool reads, one "KEY N" line per distinct
 * stack.
 *
 * A stack arrives as the PMDA sends tracepoint.param.stack: frames
 * innermost first, one per line, each as the kernel prints %pS
 * ("func+0x1a", "func+0x1a [ext4]", "0xffffffff8100abcd").  Folding puts
 * the outermost frame first and strips each offset ("func+0x1a/0x40" ->
 * "func", "func+0x1a [ext4]" -> "func[ext4]", one word, as the PMDA's `by
 * stack` keys have it); an address stays as it is.
 * ';' would split a frame and a control character a line: both become '_',
 * in frames and in comm.  A record without a stack is counted under
 * "comm;[no stack]".  Folded lines are sorted by key in byte order (what
 * `LC_ALL=C sort` gives), so the same events always print the same lines.
 *
 * Pure: no PCP, no threads, no globals.  Called by the fetch loop (one
 * fold_stack per event, with -g -c --folded or --flamegraph), by main (the
 * folded summary, --from-folded input), by flame (the SVG), and by the unit
 * tests (test/test_client_fold.c).
 */
#ifndef CLIENT_FOLD_H
#define CLIENT_FOLD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FOLD_BUCKETS    4096
#define FOLD_NO_STACK   "[no stack]"
#define FOLD_KEY_MAX    65536           /* longer keys are refused (-E2BIG) */

struct fold {
    char *key;
    uint64_t n;
    struct fold *next;
};

struct folds {
    struct fold *bucket[FOLD_BUCKETS];
    size_t distinct;            /* keys */
    uint64_t total;             /* the sum of all counts */
    char *scratch;              /* fold_stack's key, FOLD_KEY_MAX bytes (NULL until
                                   the first); freed by folds_free */
};

/*
 * The folded key of one event into key (size bytes): comm (NULL: "<...>"),
 * then the frames of stack (len bytes; NULL or no frame: "[no stack]").
 * Returns its length, or -E2BIG if it does not fit.
 */
int fold_key(char *key, size_t size, const char *comm, const char *stack, size_t len);

/* Count n more under key.  0, or -ENOMEM. */
int folds_add(struct folds *f, const char *key, uint64_t n);
/*
 * One event: fold_key, then folds_add of 1.  0, or a negative errno.  The
 * key is folded in f->scratch, allocated once: a stack seen before costs no
 * allocation.
 */
int fold_stack(struct folds *f, const char *comm, const char *stack, size_t len);

/*
 * One line of folded input, "KEY N" (split at the last blank, so keys may
 * hold spaces; a trailing newline is ignored), added to f.  Empty lines are
 * skipped.  0, -EINVAL for a line that is not KEY N, or -ENOMEM.
 */
int folds_parse_line(struct folds *f, const char *line);
/* Every line of in; *lineno is the line that failed.  0 or a negative errno. */
int folds_read(struct folds *f, FILE *in, size_t *lineno);

/* The entries sorted by key in byte order (free() the array); NULL if none. */
struct fold **folds_sorted(const struct folds *f, int *err);
/* "KEY N" lines, sorted.  0, or -ENOMEM. */
int folds_print(const struct folds *f, FILE *out);
void folds_free(struct folds *f);

#endif
