/* outfile.c: a file replaced whole, never through a link (client/outfile.h). */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TRIES 100

static void forget(struct outfile *o)
{
    free(o->path);
    free(o->tmp);
    o->f = NULL;
    o->path = o->tmp = NULL;
}

/* "DIR/.BASE.XXXXXX" for path "DIR/BASE" (or "BASE"), with room for XXXXXX. */
static char *tmp_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    size_t len = strlen(path);
    char *t = malloc(len + 9);

    if (t == NULL)
        return NULL;
    memcpy(t, path, dir);
    t[dir] = '.';
    memcpy(t + dir + 1, path + dir, len - dir);
    memcpy(t + len + 1, ".XXXXXX", 8);
    return t;
}

/* Fills the trailing XXXXXX of t with random letters and digits. */
static void fill_random(char *t)
{
    static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    unsigned char r[6];
    char *x = t + strlen(t) - 6;

    if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
        uintptr_t v = (uintptr_t)t ^ (uintptr_t)getpid() ^ (uintptr_t)clock();
        for (size_t i = 0; i < sizeof(r); i++, v >>= 5)
            r[i] = (unsigned char)(v + i * 7u);
    }
    for (size_t i = 0; i < sizeof(r); i++)
        x[i] = set[r[i] % (sizeof(set) - 1)];
}

/* A new file at t (its XXXXXX filled in): the descriptor, or -errno. */
static int create_new(char *t)
{
    for (int i = 0; i < TRIES; i++) {
        fill_random(t);
        int fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EEXIST)
            return fd >= 0 ? fd : -errno;
    }
    return -EEXIST;
}

int outfile_open(struct outfile *o, const char *path)
{
    struct stat st;
    int fd = -1, rc = -ENOMEM;

    o->f = NULL;
    o->path = strdup(path);
    o->tmp = tmp_name(path);
    if (o->path == NULL || o->tmp == NULL)
        goto fail;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        rc = -ELOOP;
        goto fail;
    }
    if ((fd = create_new(o->tmp)) < 0) {
        rc = fd;
        goto fail;
    }
    if ((o->f = fdopen(fd, "w")) == NULL) {
        rc = -errno;
        close(fd);
        unlink(o->tmp);
        goto fail;
    }
    return 0;
fail:
    forget(o);
    return rc;
}

int outfile_commit(struct outfile *o)
{
    int rc = ferror(o->f) ? -EIO : 0;

    if (fclose(o->f) != 0 && rc == 0)
        rc = -errno;
    if (rc == 0 && rename(o->tmp, o->path) != 0)
        rc = -errno;
    if (rc < 0)
        unlink(o->tmp);
    forget(o);
    return rc;
}

void outfile_abort(struct outfile *o)
{
    if (o == NULL || o->f == NULL)
        return;
    fclose(o->f);
    unlink(o->tmp);
    forget(o);
}
