/*
 * tp_statedir: where the root PMDA keeps its state, and the only way it
 * writes files outside tracefs.
 *
 * The PMDA runs as root; $PCP_VAR_DIR/config/pmda and $PCP_LOG_DIR/pmcd
 * belong to the account pcp, so anything a root write opens by name there
 * could be a link pcp planted.  Hence:
 *
 * - State (the identity map, the aggregations' instance ids) lives in a
 *   directory only root can change, by default
 *   $PCP_VAR_DIR/pmdas/tracepoint/state (mode 0700).  tp_statedir_open()
 *   walks the path from its first component with O_NOFOLLOW (a link
 *   anywhere is refused), makes missing components (0700), and refuses a
 *   component owned by anyone but root or the PMDA's user, or writable by
 *   group or others, unless it is a sticky ancestor such as /tmp (the
 *   directory itself never may be).
 * - Files in it are named relative to its descriptor, never followed:
 *   reads and locks with O_NOFOLLOW; writes as a temporary file made with
 *   O_CREAT|O_EXCL|O_NOFOLLOW, written, fsync()ed, renamed over the name
 *   (a rename replaces a link, it never writes through one), then the
 *   directory fsync()ed.
 * - Files of an older version under pcp's directory are only read, and
 *   only when they are regular files owned by the PMDA's user.
 * - The log, in pcp's directory: the old one renamed to NAME.prev, the new
 *   one made with O_EXCL|O_NOFOLLOW.
 *
 * Errors: 0, a descriptor or a count on success, -errno on failure.  No
 * PCP library.  Threading: the PMDA thread.
 */
#ifndef TP_STATEDIR_H
#define TP_STATEDIR_H

#include <stdio.h>

/* The directory path, safe as above (made if missing): a descriptor, or -errno. */
int tp_statedir_open(const char *path);

/*
 * Write name in directory dirfd durably: fill() writes the content into f
 * (0, or -errno to give up: name is then unchanged).  Returns 0 or -errno.
 */
int tp_statedir_write(int dirfd, const char *name, int (*fill)(FILE *f, void *arg), void *arg);

/*
 * Add to name in dirfd durably: fill() writes what is added at its end
 * (fdatasync()ed).  Only to a regular file of ours alone (not a link, one
 * name): else -ELOOP, -EINVAL or -EPERM and nothing written; -ENOENT if it
 * is missing.  A crash or a failure part way may leave its last line torn:
 * its readers skip a last line without its newline, and its writer writes
 * it whole (tp_statedir_write) before adding to it again.  Returns 0 or -errno.
 */
int tp_statedir_append(int dirfd, const char *name, int (*fill)(FILE *f, void *arg), void *arg);
/* name in dirfd for reading, not through a link: a stream, or NULL with errno set. */
FILE *tp_statedir_read(int dirfd, const char *name);

/* name in dirfd, made if missing (never through a link), locked: a descriptor, or -errno. */
int tp_statedir_lock(int dirfd, const char *name);

/*
 * A file an older version wrote as this user, for reading: a regular file,
 * not a link, owned by the effective user.  A stream, or NULL with errno set
 * (EPERM: someone else's).
 */
FILE *tp_statedir_read_legacy(const char *path);

/* Standard error as a fresh log file at path (the old one kept as path.prev): 0 or -errno. */
int tp_statedir_log(const char *path);

#endif
