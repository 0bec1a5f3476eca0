/*
 * The event catalog: names from a directory listing, fields parsed lazily.
 * See tp_catalog.h for the contract.
 */
#include "tp_catalog.h"
#include "tp_util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pcp/pmapi.h>
#include <traceevent/event-parse.h>

#define FORMAT_MAX (64 * 1024)

struct tp_catalog {
    char *events_dir;           /* tracing_dir/events */
    struct tp_event *events;
    size_t nevents;             /* the kernel's events and the probe slots */
    size_t cap;
    size_t first_probe;         /* the probe slots: [first_probe, nevents) */
    uint64_t retired[TP_CATALOG_PROBE_SLOTS];   /* when each slot was last unbound (0: never bound) */
    uint64_t unbinds;           /* the clock of retired[] */
    struct tp_event *graves;    /* what rebound slots held, kept for whoever still points at it */
    size_t ngraves;
};

static int cmp_event(const void *a, const void *b)
{
    const struct tp_event *x = a, *y = b;
    int c = strcmp(x->system, y->system);
    return c ? c : strcmp(x->name, y->name);
}

static bool is_dir(int dfd, const char *name)
{
    struct stat st;
    return fstatat(dfd, name, &st, 0) == 0 && S_ISDIR(st.st_mode);
}

static int add_event(struct tp_catalog *cat, const char *sys, const char *ev, bool probe)
{
    if (cat->nevents == cat->cap) {
        size_t ncap = cat->cap ? cat->cap * 2 : 1024;
        struct tp_event *n = realloc(cat->events, ncap * sizeof(*n));
        if (!n)
            return -ENOMEM;
        cat->events = n;
        cat->cap = ncap;
    }
    struct tp_event *e = &cat->events[cat->nevents];
    memset(e, 0, sizeof(*e));
    e->kernel_id = -1;
    e->system = strdup(sys);
    e->name = strdup(ev);
    e->ksystem = strdup(sys);
    e->probe = e->vacant = probe;
    int n;
    if (!e->system || !e->name || !e->ksystem ||
        (n = asprintf(&e->fullname, "%s:%s", sys, ev)) < 0) {
        free(e->system);
        free(e->name);
        free(e->ksystem);
        return -ENOMEM;
    }
    e->fullname_len = (uint32_t)n;
    cat->nevents++;
    return 0;
}

/* Add each event of one system that can be enabled (has an "enable" file). */
static int list_system(struct tp_catalog *cat, int evfd, const char *sys)
{
    int sfd = openat(evfd, sys, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (sfd < 0)
        return 0;
    DIR *d = fdopendir(sfd);
    if (!d) {
        close(sfd);
        return 0;
    }
    int rc = 0;
    struct dirent *de;
    char path[512];
    while (rc == 0 && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || !is_dir(sfd, de->d_name))
            continue;
        snprintf(path, sizeof(path), "%s/enable", de->d_name);
        if (faccessat(sfd, path, F_OK, 0) == 0)
            rc = add_event(cat, sys, de->d_name, false);
    }
    closedir(d);
    return rc;
}

static int list_events(struct tp_catalog *cat)
{
    int evfd = open(cat->events_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (evfd < 0)
        return -errno;
    DIR *d = fdopendir(evfd);
    if (!d) {
        int rc = -errno;
        close(evfd);
        return rc;
    }
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        if (de->d_name[0] != '.' && is_dir(evfd, de->d_name) &&
            strncmp(de->d_name, TP_PROBE_GROUP_PREFIX, strlen(TP_PROBE_GROUP_PREFIX)) != 0 &&
            strcmp(de->d_name, TP_PROBE_SYSTEM) != 0)
            rc = list_system(cat, evfd, de->d_name);
    }
    closedir(d);
    if (rc == 0)
        qsort(cat->events, cat->nevents, sizeof(*cat->events), cmp_event);
    cat->first_probe = cat->nevents;
    for (unsigned i = 0; rc == 0 && i < TP_CATALOG_PROBE_SLOTS; i++)
        rc = add_event(cat, TP_PROBE_SYSTEM, "", true);
    return rc;
}

int tp_catalog_create(struct tp_catalog **out, const char *tracing_dir)
{
    int rc = -ENOMEM;
    struct tp_catalog *cat = calloc(1, sizeof(*cat));
    if (!cat)
        goto fail;
    if (asprintf(&cat->events_dir, "%s/events", tracing_dir) < 0) {
        cat->events_dir = NULL;
        goto fail;
    }
    rc = list_events(cat);
    if (rc < 0)
        goto fail;
    *out = cat;
    return 0;
fail:
    tp_catalog_destroy(cat);
    return rc;
}

static void free_list(struct tp_field **list, unsigned *n)
{
    for (unsigned i = 0; i < *n; i++) {
        free((*list)[i].name);
        free((*list)[i].decl);
    }
    free(*list);
    *list = NULL;
    *n = 0;
}

static void free_fields(struct tp_event *e)
{
    free_list(&e->fields, &e->nfields);
    free_list(&e->common, &e->ncommon);
}

static void free_event(struct tp_event *e)
{
    free_fields(e);
    free(e->system);
    free(e->name);
    free(e->ksystem);
    free(e->fullname);
    free(e->print_fmt);
}

void tp_catalog_destroy(struct tp_catalog *cat)
{
    if (!cat)
        return;
    for (size_t i = 0; i < cat->nevents; i++)
        free_event(&cat->events[i]);
    for (size_t i = 0; i < cat->ngraves; i++)
        free_event(&cat->graves[i]);
    free(cat->graves);
    free(cat->events);
    free(cat->events_dir);
    free(cat);
}

size_t tp_catalog_count(const struct tp_catalog *cat)
{
    return cat->nevents;
}

struct tp_event *tp_catalog_event(struct tp_catalog *cat, size_t idx)
{
    return idx < cat->nevents ? &cat->events[idx] : NULL;
}

static int find_probe(const struct tp_catalog *cat, const char *event)
{
    for (size_t i = cat->first_probe; i < cat->nevents; i++)
        if (!cat->events[i].vacant && strcmp(cat->events[i].name, event) == 0)
            return (int)i;
    return -ENOENT;
}

int tp_catalog_find(const struct tp_catalog *cat, const char *system, const char *event)
{
    if (strcmp(system, TP_PROBE_SYSTEM) == 0)
        return find_probe(cat, event);
    struct tp_event key = { .system = (char *)system, .name = (char *)event };
    const struct tp_event *e = bsearch(&key, cat->events, cat->first_probe,
                                       sizeof(*cat->events), cmp_event);
    return e ? (int)(e - cat->events) : -ENOENT;
}

int tp_catalog_find_system(const struct tp_catalog *cat, const char *system)
{
    if (strcmp(system, TP_PROBE_SYSTEM) == 0) {
        for (size_t i = cat->first_probe; i < cat->nevents; i++)
            if (!cat->events[i].vacant)
                return (int)cat->first_probe;
        return -ENOENT;
    }
    size_t lo = 0, hi = cat->first_probe;
    while (lo < hi) {               /* first event with e->system >= system */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(cat->events[mid].system, system) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < cat->first_probe && strcmp(cat->events[lo].system, system) == 0)
        return (int)lo;
    return -ENOENT;
}

/*
 * Empty a probe slot for its next probe.  What it held (names, fields)
 * goes to the graves, not to free(): an aggregation's key names and
 * records still in the ring may point at it.  0 or -ENOMEM.
 */
static int clear_slot(struct tp_catalog *cat, struct tp_event *e)
{
    struct tp_event *g = realloc(cat->graves, (cat->ngraves + 1) * sizeof(*g));
    if (!g)
        return -ENOMEM;
    cat->graves = g;
    g[cat->ngraves++] = *e;
    e->fields = e->common = NULL;
    e->nfields = e->ncommon = 0;
    e->system = e->print_fmt = e->name = e->ksystem = e->fullname = NULL;
    e->loaded = false;
    e->load_error = 0;
    e->kernel_id = -1;
    return 0;
}

/* The vacant slot unbound longest ago (never bound: first), or -1. */
static long oldest_vacant(const struct tp_catalog *cat)
{
    long best = -1;
    for (size_t i = cat->first_probe; i < cat->nevents; i++)
        if (cat->events[i].vacant &&
            (best < 0 || cat->retired[i - cat->first_probe] <
                         cat->retired[(size_t)best - cat->first_probe]))
            best = (long)i;
    return best;
}

int tp_catalog_bind_probe(struct tp_catalog *cat, const char *name, const char *ksystem)
{
    if (find_probe(cat, name) >= 0)
        return -EEXIST;
    long i = oldest_vacant(cat);
    if (i < 0)
        return -ENOSPC;
    struct tp_event *e = &cat->events[i];
    char *sys = strdup(TP_PROBE_SYSTEM), *n = strdup(name), *ks = strdup(ksystem), *full = NULL;
    int len = asprintf(&full, "%s:%s", TP_PROBE_SYSTEM, name);
    if (!sys || !n || !ks || len < 0 || clear_slot(cat, e) < 0) {
        free(sys);
        free(n);
        free(ks);
        free(len < 0 ? NULL : full);
        return -ENOMEM;
    }
    e->system = sys;
    e->name = n;
    e->ksystem = ks;
    e->fullname = full;
    e->fullname_len = (uint32_t)len;
    e->vacant = false;
    return (int)i;
}

void tp_catalog_unbind_probe(struct tp_catalog *cat, size_t idx)
{
    if (idx >= cat->first_probe && idx < cat->nevents) {
        cat->events[idx].vacant = true;
        cat->retired[idx - cat->first_probe] = ++cat->unbinds;
    }
}

/* "char", "const char" or "signed char": the element of a string. */
static bool is_char_element(const char *type)
{
    const char *t = type;
    if (strncmp(t, "__data_loc ", 11) == 0)
        t += 11;
    else if (strncmp(t, "__rel_loc ", 10) == 0)
        t += 10;
    if (strncmp(t, "const ", 6) == 0)
        t += 6;
    size_t n = strcspn(t, "[");
    return (n == 4 && strncmp(t, "char", 4) == 0) ||
           (n == 11 && strncmp(t, "signed char", 11) == 0);
}

enum tp_field_kind tp_field_classify(unsigned long flags, const char *type,
                                     int size, int *pmtype)
{
    bool text = is_char_element(type);
    if (flags & TEP_FIELD_IS_DYNAMIC) {
        bool rel = flags & TEP_FIELD_IS_RELATIVE;
        *pmtype = text ? PM_TYPE_STRING : PM_TYPE_AGGREGATE;
        if (text)
            return rel ? TP_FIELD_RLOC_STRING : TP_FIELD_DLOC_STRING;
        return rel ? TP_FIELD_RLOC_BYTES : TP_FIELD_DLOC_BYTES;
    }
    if (flags & TEP_FIELD_IS_ARRAY) {
        *pmtype = text ? PM_TYPE_STRING : PM_TYPE_AGGREGATE;
        return text ? TP_FIELD_STRING : TP_FIELD_BYTES;
    }
    bool sign = (flags & TEP_FIELD_IS_SIGNED) && !(flags & TEP_FIELD_IS_POINTER);
    switch (size) {
    case 1: case 2: case 4:
        *pmtype = sign ? PM_TYPE_32 : PM_TYPE_U32;
        return sign ? TP_FIELD_INT : TP_FIELD_UINT;
    case 8:
        *pmtype = sign ? PM_TYPE_64 : PM_TYPE_U64;
        return sign ? TP_FIELD_INT : TP_FIELD_UINT;
    default:
        *pmtype = PM_TYPE_AGGREGATE;
        return TP_FIELD_BYTES;
    }
}

static char *field_decl(const struct tep_format_field *f)
{
    char *decl;
    const char *br = strchr(f->type, '[');
    int n = br ? asprintf(&decl, "%.*s %s%s", (int)(br - f->type), f->type, f->name, br)
               : asprintf(&decl, "%s %s", f->type, f->name);
    return n < 0 ? NULL : decl;
}

static int copy_list(const struct tep_format_field *first, struct tp_field **list,
                     unsigned *count)
{
    unsigned n = 0;
    for (const struct tep_format_field *f = first; f; f = f->next)
        n++;
    *list = calloc(n ? n : 1, sizeof(**list));
    if (!*list)
        return -ENOMEM;
    for (const struct tep_format_field *f = first; f; f = f->next) {
        struct tp_field *tf = &(*list)[(*count)++];
        tf->name = strdup(f->name);
        tf->decl = field_decl(f);
        if (!tf->name || !tf->decl)
            return -ENOMEM;
        tf->offset = (uint32_t)f->offset;
        tf->size = (uint32_t)f->size;
        tf->kind = tp_field_classify(f->flags, f->type, f->size, &tf->pmtype);
    }
    return 0;
}

static uint32_t common_pid_offset(const struct tep_event *te)
{
    for (const struct tep_format_field *f = te->format.common_fields; f; f = f->next)
        if (strcmp(f->name, "common_pid") == 0)
            return (uint32_t)f->offset;
    return 4;
}

static int read_format(const struct tp_catalog *cat, const struct tp_event *e,
                       char **buf, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s/%s/format", cat->events_dir, e->ksystem, e->name);
    return tp_read_text(path, FORMAT_MAX, buf, len);
}

/* Where the "print fmt:" line starts (or len if there is none). */
static size_t print_line(const char *buf, size_t len)
{
    static const char key[] = "print fmt:";
    for (size_t i = 0; i + sizeof(key) - 1 <= len; i++)
        if ((i == 0 || buf[i - 1] == '\n') && memcmp(buf + i, key, sizeof(key) - 1) == 0)
            return i;
    return len;
}

/*
 * The print format string(s) of the "print fmt:" line at p into *out, read
 * as libtraceevent's tokenizer reads them: a string ends at an unescaped '"'
 * or at a byte that is neither printable nor '\n' (left out); a backslash
 * keeps the next byte; strings separated only by white space are joined.
 * *out is NULL if there is none, or it holds a NUL or a byte >= 0x80 or is
 * unterminated (the tokenizer then has no string).  Returns 0 or -ENOMEM.
 */
static int print_format(const char *p, const char *end, char **out)
{
    *out = NULL;
    p += strlen("print fmt:");
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p != '"')
        return 0;
    char *s = malloc((size_t)(end - p) + 1);
    size_t n = 0;
    if (!s)
        return -ENOMEM;
    while (p < end && *p == '"') {
        for (p++; p < end; p++) {
            unsigned char c = (unsigned char)*p;
            if (c == '\\' && p + 1 < end) {
                s[n++] = *p++;
                c = (unsigned char)*p;
                if (c == 0 || c >= 0x80)
                    break;
            } else if (c == 0 || c >= 0x80 || c == '"' || ((c < 0x20 || c == 0x7f) && c != '\n')) {
                break;
            }
            s[n++] = (char)c;
        }
        if (p == end || *p == 0 || (unsigned char)*p >= 0x80) {
            free(s);
            return 0;
        }
        for (p++; p < end && isspace((unsigned char)*p); p++)
            ;
    }
    s[n] = '\0';
    *out = s;
    return 0;
}

/* s (n bytes) starts with prefix; *rest is what follows it. */
static bool take(const char *s, size_t n, const char *prefix, const char **rest)
{
    size_t k = strlen(prefix);
    if (n < k || memcmp(s, prefix, k) != 0)
        return false;
    *rest = s + k;
    return true;
}

/* 1 to 10 digits then c, from *p (advanced past c). */
static bool number_then(const char **p, const char *end, char c)
{
    const char *q = *p;
    while (q < end && q - *p <= 10 && *q >= '0' && *q <= '9')
        q++;
    if (q == *p || q - *p > 10 || q == end || *q != c)
        return false;
    *p = q + 1;
    return true;
}

/* Printable ASCII other than ';' and ',', at least one byte, then ';'. */
static bool text_then_semicolon(const char **p, const char *end)
{
    const char *q = *p;
    while (q < end && *q >= 0x20 && *q < 0x7f && *q != ';' && *q != ',')
        q++;
    if (q == *p || q == end || *q != ';')
        return false;
    *p = q + 1;
    return true;
}

/*
 * The part of a format before "print fmt:", as the kernel writes it:
 *   name: NAME
 *   ID: NUMBER
 *   format:
 *   <TAB>field:DECLARATION;<TAB>offset:N;<TAB>size:N;[<TAB>signed:N;]
 *   ... (and empty lines)
 * with NAME and DECLARATION printable ASCII without ';' or ','.
 */
static bool head_ok(const char *s, size_t n)
{
    const char *end = s + n;
    int line = 0;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *eol = nl ? nl : end, *p;
        size_t len = (size_t)(eol - s);
        bool ok;
        switch (line++) {
        case 0:
            ok = take(s, len, "name: ", &p) && p < eol;
            for (; ok && p < eol; p++)
                ok = *p >= 0x20 && *p < 0x7f && *p != ';' && *p != ',';
            break;
        case 1:
            ok = nl && take(s, len, "ID: ", &p) && number_then(&p, eol + 1, '\n');
            break;
        case 2:
            ok = len == strlen("format:") && memcmp(s, "format:", len) == 0;
            break;
        default:
            ok = len == 0;
            if (!ok && take(s, len, "\tfield:", &p) && text_then_semicolon(&p, eol) &&
                take(p, (size_t)(eol - p), "\toffset:", &p) && number_then(&p, eol, ';') &&
                take(p, (size_t)(eol - p), "\tsize:", &p) && number_then(&p, eol, ';'))
                ok = p == eol || (take(p, (size_t)(eol - p), "\tsigned:", &p) &&
                                  number_then(&p, eol, ';') && p == eol);
            break;
        }
        if (!ok)
            return false;
        s = nl ? nl + 1 : end;
    }
    return line >= 3;
}

/* The "field:" lines of a head that head_ok() accepted. */
static unsigned count_fields(const char *s, size_t n)
{
    unsigned count = 0;
    for (const char *p = s; (p = memmem(p, (size_t)(s + n - p), "\tfield:", 7)) != NULL; p += 7)
        count++;
    return count;
}

/*
 * libtraceevent's format parser trusts its input: malformed text (bytes
 * above 0x7f, odd tokens in a declaration or the print arguments) makes it
 * read through NULL pointers.  So only a head as the kernel writes it
 * (head_ok) is handed to it, with an empty print format: the PMDA needs
 * the fields, not the print arguments.  The print format string is taken
 * from the "print fmt:" line here.
 */
int tp_catalog_parse_format(struct tp_event *e, const char *buf, size_t len)
{
    static const char empty[] = "print fmt: \"\"\n";
    size_t head = print_line(buf, len);
    if (!head_ok(buf, head))
        return -EINVAL;
    char *text = malloc(head + sizeof(empty));
    struct tep_handle *tep = tep_alloc();
    struct tep_event *te = NULL;
    int rc = -ENOMEM;
    if (!text || !tep)
        goto out;
    memcpy(text, buf, head);
    memcpy(text + head, empty, sizeof(empty));
    rc = -EINVAL;
    if (tep_parse_format(tep, &te, text, head + sizeof(empty) - 1, e->system) != 0 || !te)
        goto out;
    e->kernel_id = te->id;
    e->pid_offset = common_pid_offset(te);
    rc = head < len ? print_format(buf + head, buf + len, &e->print_fmt) : 0;
    if (rc == 0)
        rc = copy_list(te->format.fields, &e->fields, &e->nfields);
    if (rc == 0)
        rc = copy_list(te->format.common_fields, &e->common, &e->ncommon);
    /* libtraceevent drops a field it has no memory for, and still succeeds */
    if (rc == 0 && e->nfields + e->ncommon != count_fields(buf, head))
        rc = -ENOMEM;
out:
    tep_free(tep);
    free(text);
    if (rc < 0) {
        free_fields(e);
        free(e->print_fmt);
        e->print_fmt = NULL;
        e->kernel_id = -1;
    }
    return rc;
}

int tp_catalog_read_format(struct tp_catalog *cat, size_t idx, char **buf, size_t *len)
{
    const struct tp_event *e = tp_catalog_event(cat, idx);
    return e ? read_format(cat, e, buf, len) : -ENOENT;
}

int tp_catalog_load(struct tp_catalog *cat, size_t idx)
{
    struct tp_event *e = tp_catalog_event(cat, idx);
    if (!e || (e->vacant && !e->loaded))
        return -ENOENT;
    if (e->loaded)
        return e->load_error;
    char *buf = NULL;
    size_t len = 0;
    int rc = read_format(cat, e, &buf, &len);
    if (rc < 0)
        return rc;      /* not remembered: tracefs may be back next time */
    rc = tp_catalog_parse_format(e, buf, len);
    free(buf);
    if (rc == -ENOMEM)
        return rc;      /* not remembered either: there may be memory next time */
    e->loaded = true;
    e->load_error = rc;
    return rc;
}

const struct tp_field *tp_event_field(const struct tp_event *e, const char *name)
{
    for (unsigned i = 0; i < e->nfields; i++)
        if (strcmp(e->fields[i].name, name) == 0)
            return &e->fields[i];
    for (unsigned i = 0; i < e->ncommon; i++)
        if (strcmp(e->common[i].name, name) == 0)
            return &e->common[i];
    return NULL;
}
