/*
 * The state directory and every write the PMDA makes outside tracefs.
 * See tp_statedir.h.
 */
#include "tp_statedir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Only root or we may own it, nobody else write it (a sticky ancestor excepted). */
static int check_dir(int fd, bool last)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    if (!S_ISDIR(st.st_mode))
        return -ENOTDIR;
    if (st.st_uid != 0 && st.st_uid != geteuid())
        return -EPERM;
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && (last || !(st.st_mode & S_ISVTX)))
        return -EPERM;
    return 0;
}

/* Component name of dirfd, made if missing, not through a link: a descriptor or -errno. */
static int step(int dirfd, const char *name, bool last)
{
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        if (mkdirat(dirfd, name, 0700) < 0 && errno != EEXIST)
            return -errno;
        fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0)
        return errno == ENOTDIR || errno == ELOOP ? -ELOOP : -errno;
    int rc = check_dir(fd, last);
    if (rc < 0) {
        close(fd);
        return rc;
    }
    return fd;
}

int tp_statedir_open(const char *path)
{
    char buf[PATH_MAX];
    if (!path[0] || snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
        return -ENAMETOOLONG;
    int fd = open(path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = check_dir(fd, false);
    char *save = NULL, *next;
    for (char *c = strtok_r(buf, "/", &save); rc == 0 && c; c = next) {
        next = strtok_r(NULL, "/", &save);
        if (strcmp(c, ".") == 0)
            continue;
        if (strcmp(c, "..") == 0) {
            rc = -EINVAL;
            break;
        }
        int sub = step(fd, c, !next);
        close(fd);
        fd = sub;
        rc = sub < 0 ? sub : 0;
    }
    if (rc == 0 && (rc = check_dir(fd, true)) == 0)
        return fd;
    if (fd >= 0)
        close(fd);
    return rc;
}

/* 0 if fd is a regular file (and, if owner, ours alone: our user's, one name), else -errno. */
static int check_regular(int fd, bool owner)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    if (!S_ISREG(st.st_mode))
        return -EINVAL;
    return owner && (st.st_uid != geteuid() || st.st_nlink != 1) ? -EPERM : 0;
}

/* rc (fill's) or the first error of flushing f, syncing its fd (fsync or fdatasync) and closing it. */
static int finish(FILE *f, int rc, int (*sync)(int))
{
    if (fflush(f) != 0 && rc == 0)
        rc = -errno;
    if (ferror(f) && rc == 0)
        rc = -EIO;
    if (rc == 0 && sync(fileno(f)) < 0)
        rc = -errno;
    if (fclose(f) != 0 && rc == 0)
        rc = -errno;
    return rc;
}

int tp_statedir_write(int dirfd, const char *name, int (*fill)(FILE *f, void *arg), void *arg)
{
    char tmp[NAME_MAX + 1];
    if (snprintf(tmp, sizeof(tmp), "%s.new", name) >= (int)sizeof(tmp))
        return -ENAMETOOLONG;
    if (unlinkat(dirfd, tmp, 0) < 0 && errno != ENOENT)   /* a crash's leftover: ours */
        return -errno;
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
    if (fd < 0)
        return -errno;
    FILE *f = fdopen(fd, "w");
    int rc = f ? finish(f, fill(f, arg), fsync) : -errno;
    if (!f)
        close(fd);
    if (rc == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
        rc = -errno;
    if (rc == 0 && fsync(dirfd) < 0)
        rc = -errno;
    if (rc < 0)
        unlinkat(dirfd, tmp, 0);
    return rc;
}

int tp_statedir_append(int dirfd, const char *name, int (*fill)(FILE *f, void *arg), void *arg)
{
    int fd = openat(dirfd, name, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = check_regular(fd, true);
    FILE *f = rc == 0 ? fdopen(fd, "a") : NULL;
    if (!f) {
        close(fd);
        return rc < 0 ? rc : -errno;
    }
    return finish(f, fill(f, arg), fdatasync);
}

/* fd as a stream if it is a regular file (and, if owner, is ours alone); else NULL. */
static FILE *regular(int fd, bool owner)
{
    if (fd < 0)
        return NULL;
    int err = -check_regular(fd, owner);
    FILE *f = err ? NULL : fdopen(fd, "r");
    if (!f) {
        err = err ? err : errno;
        close(fd);
        errno = err;
    }
    return f;
}

FILE *tp_statedir_read(int dirfd, const char *name)
{
    return regular(openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), false);
}

FILE *tp_statedir_read_legacy(const char *path)
{
    return regular(open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), true);
}

int tp_statedir_lock(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0640);
    if (fd < 0)
        return -errno;
    struct stat st;
    int rc = fstat(fd, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : -EINVAL;
    if (rc == 0 && flock(fd, LOCK_EX) < 0)
        rc = -errno;
    if (rc < 0) {
        close(fd);
        return rc;
    }
    return fd;
}

int tp_statedir_log(const char *path)
{
    char prev[PATH_MAX];
    if (snprintf(prev, sizeof(prev), "%s.prev", path) >= (int)sizeof(prev))
        return -ENAMETOOLONG;
    unlink(prev);                       /* a link is removed, never followed */
    if (rename(path, prev) < 0 && errno != ENOENT)
        unlink(path);
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 3; tries++) {
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
        if (fd < 0 && errno != EEXIST)
            return -errno;
        if (fd < 0)
            unlink(path);               /* made again since: whatever it is, not ours */
    }
    if (fd < 0)
        return -EEXIST;
    fflush(stderr);
    int rc = dup2(fd, STDERR_FILENO) < 0 ? -errno : 0;
    close(fd);
    return rc;
}
