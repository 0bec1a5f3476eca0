/* fold.c: exact counts per folded stack (client/fold.h). */
#include "fold.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A key under construction: bytes appended while they fit. */
struct keybuf {
    char *p;
    size_t size, len;
    bool full;
};

static void put_byte(struct keybuf *k, char c)
{
    if (k->len + 1 >= k->size) {
        k->full = true;
        return;
    }
    k->p[k->len++] = c;
    k->p[k->len] = '\0';
}

/* Bytes of a name: ';' and control characters as '_'. */
static void put_name(struct keybuf *k, const char *s, size_t len)
{
    if (k->full || k->len + len + 1 > k->size) {
        k->full = true;
        return;
    }
    char *d = k->p + k->len;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        d[i] = c == ';' || c < 0x20 || c == 0x7f ? '_' : (char)c;
    }
    k->len += len;
    k->p[k->len] = '\0';
}

static bool is_hex_run(const char *s, size_t len)
{
    if (len < 3 || s[0] != '0' || s[1] != 'x')
        return false;
    for (size_t i = 2; i < len; i++)
        if (!isxdigit((unsigned char)s[i]))
            return false;
    return true;
}

/*
 * The length of the offset in "+0x1a" or "+0x1a/0x40" at s (len bytes,
 * the whole symbol part of a frame), 0 if s does not end in one.
 */
static size_t offset_length(const char *s, size_t len)
{
    const char *plus = memrchr(s, '+', len);

    if (plus == NULL || plus == s)
        return 0;
    size_t off = len - (size_t)(plus - s);
    const char *slash = memchr(plus, '/', off);
    size_t first = slash != NULL ? (size_t)(slash - plus) - 1 : off - 1;
    if (!is_hex_run(plus + 1, first))
        return 0;
    if (slash != NULL && !is_hex_run(slash + 1, off - first - 2))
        return 0;
    return off;
}

/* One frame, "func+0x1a [mod]", as "func[mod]": one word, as the PMDA folds it. */
static void put_frame(struct keybuf *k, const char *s, size_t len)
{
    const char *mod = NULL;

    if (s[len - 1] == ']') {    /* " [module]" at the end */
        const char *b = memrchr(s, '[', len);
        if (b != NULL && b > s && b[-1] == ' ')
            mod = b - 1;
    }
    size_t sym = mod != NULL ? (size_t)(mod - s) : len;
    put_name(k, s, sym - offset_length(s, sym));
    if (mod != NULL)
        put_name(k, mod + 1, len - sym - 1);    /* without the space */
}

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* The frames of stack, outermost first; false if it has none. */
static bool put_frames(struct keybuf *k, const char *stack, size_t len)
{
    bool any = false;
    size_t end = len;

    while (end > 0) {
        const char *nl = memrchr(stack, '\n', end);
        size_t start = nl != NULL ? (size_t)(nl - stack) + 1 : 0;
        size_t a = start, b = end;
        while (a < b && blank(stack[a]))
            a++;
        while (b > a && blank(stack[b - 1]))
            b--;
        if (b > a) {
            put_byte(k, ';');
            put_frame(k, stack + a, b - a);
            any = true;
        }
        end = start > 0 ? start - 1 : 0;
    }
    return any;
}

int fold_key(char *key, size_t size, const char *comm, const char *stack, size_t len)
{
    struct keybuf k = { key, size, 0, size == 0 };

    if (size > 0)
        key[0] = '\0';
    if (comm != NULL)
        put_name(&k, comm, strlen(comm));
    else
        put_name(&k, "<...>", 5);
    if (stack == NULL || !put_frames(&k, stack, len)) {
        put_byte(&k, ';');
        put_name(&k, FOLD_NO_STACK, strlen(FOLD_NO_STACK));
    }
    return k.full ? -E2BIG : (int)k.len;
}

/* Eight bytes at a time: keys are long (a stack's every frame). */
static size_t hash_key(const char *s)
{
    size_t len = strlen(s);
    uint64_t h = 1469598103934665603ULL ^ len, w;

    for (; len >= 8; s += 8, len -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
    }
    for (; len > 0; len--)
        h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
    h ^= h >> 32;
    return (size_t)(h % FOLD_BUCKETS);
}

int folds_add(struct folds *f, const char *key, uint64_t n)
{
    struct fold **head = &f->bucket[hash_key(key)];
    struct fold *e;

    for (e = *head; e != NULL; e = e->next)
        if (strcmp(e->key, key) == 0)
            break;
    if (e == NULL) {
        if ((e = calloc(1, sizeof(*e))) == NULL || (e->key = strdup(key)) == NULL) {
            free(e);
            return -ENOMEM;
        }
        e->next = *head;
        *head = e;
        f->distinct++;
    }
    e->n += n;
    f->total += n;
    return 0;
}

int fold_stack(struct folds *f, const char *comm, const char *stack, size_t len)
{
    int rc;

    if (f->scratch == NULL && (f->scratch = malloc(FOLD_KEY_MAX)) == NULL)
        return -ENOMEM;
    if ((rc = fold_key(f->scratch, FOLD_KEY_MAX, comm, stack, len)) >= 0)
        rc = folds_add(f, f->scratch, 1);
    return rc;
}

int folds_parse_line(struct folds *f, const char *line)
{
    size_t len = strcspn(line, "\n");
    const char *sp = NULL;
    char *end;

    while (len > 0 && blank(line[len - 1]))
        len--;
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (line[i] == ' ' || line[i] == '\t')
            sp = line + i;
    if (sp == NULL || sp == line || !isdigit((unsigned char)sp[1]))
        return -EINVAL;
    errno = 0;
    unsigned long long n = strtoull(sp + 1, &end, 10);
    if (errno != 0 || end != line + len)
        return -EINVAL;
    char *key = strndup(line, (size_t)(sp - line));
    if (key == NULL)
        return -ENOMEM;
    int rc = folds_add(f, key, n);
    free(key);
    return rc;
}

int folds_read(struct folds *f, FILE *in, size_t *lineno)
{
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;

    *lineno = 0;
    while (rc == 0 && getline(&line, &cap, in) >= 0) {
        ++*lineno;
        rc = folds_parse_line(f, line);
    }
    if (rc == 0 && ferror(in))
        rc = -EIO;
    free(line);
    return rc;
}

static int by_key(const void *a, const void *b)
{
    return strcmp((*(struct fold *const *)a)->key, (*(struct fold *const *)b)->key);
}

struct fold **folds_sorted(const struct folds *f, int *err)
{
    struct fold **v = f->distinct ? calloc(f->distinct, sizeof(*v)) : NULL;
    size_t n = 0;

    *err = f->distinct && v == NULL ? -ENOMEM : 0;
    if (v == NULL)
        return NULL;
    for (size_t b = 0; b < FOLD_BUCKETS; b++)
        for (struct fold *e = f->bucket[b]; e != NULL; e = e->next)
            v[n++] = e;
    qsort(v, n, sizeof(*v), by_key);     /* keys are distinct: the order is total */
    return v;
}

int folds_print(const struct folds *f, FILE *out)
{
    int err;
    struct fold **v = folds_sorted(f, &err);

    for (size_t i = 0; v != NULL && i < f->distinct; i++)
        fprintf(out, "%s %" PRIu64 "\n", v[i]->key, v[i]->n);
    free(v);
    return err;
}

void folds_free(struct folds *f)
{
    if (f == NULL)
        return;
    for (size_t b = 0; b < FOLD_BUCKETS; b++) {
        for (struct fold *e = f->bucket[b], *next; e != NULL; e = next) {
            next = e->next;
            free(e->key);
            free(e);
        }
        f->bucket[b] = NULL;
    }
    f->distinct = 0;
    f->total = 0;
    free(f->scratch);
    f->scratch = NULL;
}
