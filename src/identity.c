/*
 * Stable ids for tracepoints and items for their fields.  See tp_identity.h.
 */
#include "tp_identity.h"
#include "tp_statedir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct item {
    char *field;
    int pmtype;
    unsigned item;
};

struct event {
    char *name;                 /* NULL: id not assigned */
    struct item *items;
    size_t nitems, cap;
    unsigned next_item;
};

/*
 * Which file a map was read from or written to.  Every save is a new file
 * renamed into place, so another PMDA's save is another inode; an edit in
 * place changes the time or the size.  The same file again holds nothing
 * the map lacks.
 */
struct file_seen {
    bool known;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
};

struct tp_identity {
    char *path;                 /* for the log */
    const char *base;           /* its last component, in dirfd */
    int dirfd;                  /* the safe directory, or -1: nothing is saved */
    int dir_err;                /* why not */
    bool found;                 /* the file existed at open */
    tp_log_fn log;
    void *arg;
    struct event ev[TP_IDENTITY_MAX_EVENTS];
    unsigned next_id;           /* one past the highest id assigned */
    unsigned *hash;             /* id + 1 by name hash; 0: empty */
    size_t hsize;               /* a power of 2, over twice the ids */
    int lock_fd;                /* held between begin and end */
    bool dirty;
    struct file_seen seen;      /* the file last merged in or written */
};

static uint32_t fnv(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The hash slot of name: where it is, or the empty slot it would go to. */
static size_t slot_of(const struct tp_identity *id, const char *name)
{
    size_t i = fnv(name) & (id->hsize - 1);
    while (id->hash[i] && strcmp(id->ev[id->hash[i] - 1].name, name) != 0)
        i = (i + 1) & (id->hsize - 1);
    return i;
}

static int find(const struct tp_identity *id, const char *name)
{
    unsigned h = id->hash[slot_of(id, name)];
    return h ? (int)h - 1 : -1;
}

/* Give id eid to name (both free).  Returns 0 or -ENOMEM. */
static int bind(struct tp_identity *id, unsigned eid, const char *name)
{
    char *copy = strdup(name);
    if (!copy)
        return -ENOMEM;
    id->ev[eid].name = copy;
    id->hash[slot_of(id, name)] = eid + 1;
    if (eid >= id->next_id)
        id->next_id = eid + 1;
    id->dirty = true;
    return 0;
}

static struct item *find_item(const struct event *e, const char *field, int pmtype)
{
    for (size_t i = 0; i < e->nitems; i++)
        if (e->items[i].pmtype == pmtype && strcmp(e->items[i].field, field) == 0)
            return &e->items[i];
    return NULL;
}

static bool item_taken(const struct event *e, unsigned item)
{
    for (size_t i = 0; i < e->nitems; i++)
        if (e->items[i].item == item)
            return true;
    return false;
}

static int add_item(struct tp_identity *id, struct event *e, const char *field, int pmtype,
                    unsigned item)
{
    if (e->nitems == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 8;
        struct item *v = realloc(e->items, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        e->items = v;
        e->cap = cap;
    }
    char *copy = strdup(field);
    if (!copy)
        return -ENOMEM;
    e->items[e->nitems++] = (struct item){ copy, pmtype, item };
    if (item >= e->next_item)
        e->next_item = item + 1;
    id->dirty = true;
    return 0;
}

/* ---- the file ------------------------------------------------------------ */

/* A name as the kernel writes them: printable, no white space. */
static bool plain(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s <= ' ' || *s >= 0x7f)
            return false;
    return true;
}

/*
 * One space and a decimal number below max after it (a '-' first if neg):
 * where the number ends, or NULL.
 */
static const char *number(const char *p, long max, bool neg, long *v)
{
    if (*p++ != ' ')
        return NULL;
    bool minus = neg && *p == '-';
    p += minus;
    if (*p < '0' || *p > '9')
        return NULL;
    long n = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((n = n * 10 + (*p - '0')) >= max)
            return NULL;
    *v = minus ? -n : n;
    return p;
}

/* "E id name" or "F id item pmtype name", as fill_map writes them: the name, or NULL. */
static const char *parse_line(const char *line, long *eid, long *item, long *pmtype)
{
    const char *p = line + 1;
    if (line[0] == 'E')
        p = number(p, TP_IDENTITY_MAX_EVENTS, false, eid);
    else if (line[0] == 'F') {
        if ((p = number(p, TP_IDENTITY_MAX_EVENTS, false, eid)))
            p = number(p, TP_IDENTITY_MAX_ITEMS, false, item);
        if (p)
            p = number(p, INT_MAX, true, pmtype);
    } else
        p = NULL;
    if (!p || *p != ' ' || strlen(p + 1) >= 512 || !plain(p + 1))
        return NULL;
    return p + 1;
}

/*
 * Take one line of the file into the map.  What the map already says wins:
 * a line that contradicts it is skipped.  Returns 0, 1 (skipped) or -ENOMEM.
 */
static int take_line(struct tp_identity *id, char *line)
{
    long eid = 0, item = 0, pmtype = 0;
    const char *name = parse_line(line, &eid, &item, &pmtype);
    if (name && line[0] == 'E') {
        int have = find(id, name);
        if (have == (int)eid)
            return 0;
        if (have >= 0 || id->ev[eid].name)
            return 1;
        return bind(id, (unsigned)eid, name);
    }
    if (name && id->ev[eid].name) {
        struct event *e = &id->ev[eid];
        struct item *it = find_item(e, name, (int)pmtype);
        if (it && it->item == (unsigned)item)
            return 0;
        if (it || item_taken(e, (unsigned)item))
            return 1;
        return add_item(id, e, name, (int)pmtype, (unsigned)item);
    }
    return 1;
}

/* Merge the assignments of f (read from where) into the map; closes f. */
static int merge_stream(struct tp_identity *id, FILE *f, const char *where)
{
    bool dirty = id->dirty;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0, skipped = 0, lineno = 0;
    while (rc == 0 && (len = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[len - 1] != '\n') {       /* a write cut short: never half a name */
            tp_logf(id->log, id->arg, "%s line %d has no end of line: not used: %.200s",
                    where, lineno, line);
            break;
        }
        line[--len] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        rc = strlen(line) == (size_t)len ? take_line(id, line) : 1;
        if (rc == 1) {
            if (skipped++ < 5)
                tp_logf(id->log, id->arg, "%s line %d not used: %.200s", where, lineno, line);
            rc = 0;
        }
    }
    if (rc == 0 && ferror(f))
        rc = errno ? -errno : -EIO;
    free(line);
    fclose(f);
    id->dirty = dirty;          /* what came from the file is in it already */
    return rc;
}

static struct file_seen file_seen(const struct stat *st)
{
    return (struct file_seen){ true, st->st_dev, st->st_ino, st->st_size, st->st_mtim };
}

static bool same_file(const struct file_seen *a, const struct file_seen *b)
{
    return a->known && b->known && a->dev == b->dev && a->ino == b->ino &&
           a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec &&
           a->mtime.tv_nsec == b->mtime.tv_nsec;
}

/* Merge in the file, unless it is the one the map last read or wrote. */
static int merge_file(struct tp_identity *id)
{
    if (id->dirfd < 0)
        return id->dir_err;
    FILE *f = tp_statedir_read(id->dirfd, id->base);
    if (!f)
        return errno == ENOENT ? 0 : -errno;
    id->found = true;
    struct stat st;
    struct file_seen now = { 0 };
    if (fstat(fileno(f), &st) == 0)
        now = file_seen(&st);
    if (same_file(&now, &id->seen)) {
        fclose(f);
        return 0;
    }
    int rc = merge_stream(id, f, id->path);
    id->seen = rc == 0 ? now : (struct file_seen){ 0 };
    return rc;
}

static int fill_map(FILE *f, void *arg)
{
    const struct tp_identity *id = arg;
    fprintf(f, "# pmdatracepoint: tracepoint ids (PMID clusters) and field items.\n"
               "# Kept so that PMIDs and instances keep their meaning; do not edit.\n");
    for (unsigned i = 0; i < id->next_id; i++) {
        const struct event *e = &id->ev[i];
        if (!e->name)
            continue;
        fprintf(f, "E %u %s\n", i, e->name);
        for (size_t k = 0; k < e->nitems; k++)
            fprintf(f, "F %u %u %d %s\n", i, e->items[k].item, e->items[k].pmtype,
                    e->items[k].field);
    }
    return 0;
}

static int write_map(struct tp_identity *id)
{
    if (id->dirfd < 0)
        return id->dir_err;
    int rc = tp_statedir_write(id->dirfd, id->base, fill_map, id);
    struct stat st;
    id->seen = (struct file_seen){ 0 };
    if (rc == 0) {
        id->dirty = false;
        if (id->lock_fd >= 0 && fstatat(id->dirfd, id->base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode))
            id->seen = file_seen(&st);  /* what was written: the lock kept others out */
    }
    return rc;
}

/* The directory of path, made safe (see tp_statedir.h). */
static void open_dir(struct tp_identity *id)
{
    char dir[4096];
    const char *slash = strrchr(id->path, '/');
    id->base = slash ? slash + 1 : id->path;
    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else
        snprintf(dir, sizeof(dir), "%.*s", slash == id->path ? 1 : (int)(slash - id->path),
                 id->path);
    id->dirfd = id->base[0] ? tp_statedir_open(dir) : -EISDIR;
    if (id->dirfd < 0) {
        id->dir_err = id->dirfd;
        tp_logf(id->log, id->arg, "identity map %s: directory %s not used (%s): ids are not "
                "kept across restarts", id->path, dir, strerror(-id->dir_err));
    }
}

/* ---- the interface ------------------------------------------------------- */

int tp_identity_open(struct tp_identity **out, const char *path, tp_log_fn log, void *arg)
{
    int rc = -ENOMEM;
    struct tp_identity *id = calloc(1, sizeof(*id));
    if (!id)
        goto fail;
    id->lock_fd = -1;
    id->dirfd = -1;
    id->log = log;
    id->arg = arg;
    id->hsize = 8192;           /* over twice TP_IDENTITY_MAX_EVENTS */
    if (!(id->path = strdup(path)) || !(id->hash = calloc(id->hsize, sizeof(*id->hash))))
        goto fail;
    open_dir(id);
    if ((rc = merge_file(id)) == -ENOMEM)
        goto fail;
    if (rc < 0 && id->dirfd >= 0)
        tp_logf(log, arg, "cannot read the identity map %s: %s; ids start afresh", path,
                strerror(-rc));
    *out = id;
    return 0;
fail:
    tp_identity_close(id);
    return rc;
}

void tp_identity_close(struct tp_identity *id)
{
    if (!id)
        return;
    if (id->lock_fd >= 0)
        close(id->lock_fd);
    if (id->dirfd >= 0)
        close(id->dirfd);
    for (unsigned i = 0; i < id->next_id; i++) {
        struct event *e = &id->ev[i];
        for (size_t k = 0; k < e->nitems; k++)
            free(e->items[k].field);
        free(e->items);
        free(e->name);
    }
    free(id->hash);
    free(id->path);
    free(id);
}

int tp_identity_begin(struct tp_identity *id)
{
    char lock[4200];
    if (id->lock_fd >= 0)
        return 0;
    if (id->dirfd < 0)
        return id->dir_err;
    snprintf(lock, sizeof(lock), "%s.lock", id->base);
    int fd = tp_statedir_lock(id->dirfd, lock);
    if (fd < 0)
        return fd;
    id->lock_fd = fd;
    return merge_file(id);
}

int tp_identity_adopt(struct tp_identity *id, const char *old_path)
{
    if (id->found || id->dirfd < 0)
        return 0;
    FILE *f = tp_statedir_read_legacy(old_path);
    if (!f) {
        if (errno != ENOENT)
            tp_logf(id->log, id->arg, "identity map of an older version %s not used: %s",
                    old_path, strerror(errno));
        return errno == ENOENT ? 0 : -errno;
    }
    int rc = merge_stream(id, f, old_path);
    id->dirty = true;           /* to be saved where it lives now */
    if (rc == 0)
        tp_logf(id->log, id->arg, "identity map: ids of %s kept, now saved in %s", old_path,
                id->path);
    return rc;
}

int tp_identity_end(struct tp_identity *id)
{
    int rc = id->dirty ? write_map(id) : 0;
    if (id->lock_fd >= 0)
        close(id->lock_fd);     /* releases the lock */
    id->lock_fd = -1;
    return rc;
}

int tp_identity_save(struct tp_identity *id)
{
    if (!id->dirty)
        return 0;
    int rc = tp_identity_begin(id);
    int end = tp_identity_end(id);
    return rc < 0 ? rc : end;
}

int tp_identity_event(struct tp_identity *id, const char *fullname)
{
    int eid = find(id, fullname);
    if (eid >= 0)
        return eid;
    if (id->next_id >= TP_IDENTITY_MAX_EVENTS)
        return -ENOSPC;
    eid = (int)id->next_id;
    int rc = bind(id, (unsigned)eid, fullname);
    return rc < 0 ? rc : eid;
}

const char *tp_identity_event_name(const struct tp_identity *id, unsigned eid)
{
    return eid < TP_IDENTITY_MAX_EVENTS ? id->ev[eid].name : NULL;
}

int tp_identity_item(struct tp_identity *id, unsigned eid, const char *field, int pmtype)
{
    if (eid >= TP_IDENTITY_MAX_EVENTS || !id->ev[eid].name)
        return -EINVAL;
    struct event *e = &id->ev[eid];
    struct item *it = find_item(e, field, pmtype);
    if (it)
        return (int)it->item;
    if (e->next_item >= TP_IDENTITY_MAX_ITEMS)
        return -ENOSPC;
    unsigned item = e->next_item;
    int rc = add_item(id, e, field, pmtype, item);
    return rc < 0 ? rc : (int)item;
}
