/*
 * outfile: a file the client writes (--flamegraph FILE) replaced whole or
 * not at all, and never through a symbolic link.  The text goes to a new
 * file beside FILE (".FILE.XXXXXX", created with O_CREAT|O_EXCL|O_NOFOLLOW,
 * mode 0644 less the umask), which is renamed over FILE once it is all
 * written; a FILE that is a symbolic link is refused.  Running as root into
 * a shared directory such as /tmp, no one else's link or file is followed
 * or written.
 *
 * Pure POSIX: no PCP, no globals; the state is the caller's struct outfile.
 * Called by main (write_flamegraph) and by the unit tests
 * (test/test_client_outfile.c), on the client's one thread.
 */
#ifndef CLIENT_OUTFILE_H
#define CLIENT_OUTFILE_H

#include <stdio.h>

struct outfile {
    FILE *f;                    /* where to write; NULL when not open */
    char *path;                 /* FILE, as given */
    char *tmp;                  /* the new file beside it */
};

/*
 * Opens o->f on a new file beside path.  0; -ELOOP when path is a
 * symbolic link; -ENOMEM, or the -errno of lstat or open.  On failure o
 * holds nothing.
 */
int outfile_open(struct outfile *o, const char *path);

/*
 * Closes the new file and renames it over path.  0, or -errno (-EIO for a
 * write error); on failure path is as it was and the new file is gone.
 * Either way o holds nothing after.
 */
int outfile_commit(struct outfile *o);

/* Closes and removes the new file; path is as it was.  Accepts NULL. */
void outfile_abort(struct outfile *o);

#endif
