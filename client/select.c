/* select.c: -p, -C and --comm (client/select.h). */
#include "select.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static bool listed(const long *v, size_t n, long x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == x)
            return true;
    return false;
}

/* A comma-separated list of decimal numbers 0..max into v[*n]. */
static int parse_list(long *v, size_t *n, const char *arg, long max, const char *what,
                      char *why, size_t size)
{
    const char *p = arg;

    if (*p == '\0') {
        snprintf(why, size, "a list of %ss is needed", what);
        return -1;
    }
    for (;;) {
        long x = 0;
        const char *start = p;
        while (*p >= '0' && *p <= '9') {
            x = x * 10 + (*p - '0');
            if (x > max) {
                snprintf(why, size, "%s %.20s... is out of range (0 to %ld)", what,
                         start, max);
                return -1;
            }
            p++;
        }
        if (p == start || (*p != ',' && *p != '\0')) {
            snprintf(why, size, "'%.40s' is not a list of %ss (0 to %ld, separated by "
                     "commas)", arg, what, max);
            return -1;
        }
        if (!listed(v, *n, x)) {
            if (*n == SELECT_MAX_IDS) {
                snprintf(why, size, "at most %d %ss may be given", SELECT_MAX_IDS, what);
                return -1;
            }
            v[(*n)++] = x;
        }
        if (*p == '\0')
            return 0;
        p++;
    }
}

int select_parse_pids(struct selection *s, const char *arg, char *why, size_t size)
{
    return parse_list(s->pids, &s->npids, arg, SELECT_PID_MAX, "PID", why, size);
}

int select_parse_cpus(struct selection *s, const char *arg, char *why, size_t size)
{
    return parse_list(s->cpus, &s->ncpus, arg, SELECT_CPU_MAX, "CPU", why, size);
}

int select_parse_comm(struct selection *s, const char *arg, char *why, size_t size)
{
    size_t len = strlen(arg);

    if (len == 0 || len > SELECT_COMM_MAX) {
        snprintf(why, size, "a task name has 1 to %d bytes (the kernel keeps no more)",
                 SELECT_COMM_MAX);
        return -1;
    }
    memcpy(s->comm, arg, len + 1);
    s->has_comm = true;
    return 0;
}

/* Appending to a bounded buffer; false once it is full. */
struct out {
    char *buf;
    size_t size, len;
    bool full;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;

    if (o->full)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= o->size - o->len)
        o->full = true;
    else
        o->len += (size_t)n;
}

/* "(NAME == a || NAME == b)" */
static void put_ids(struct out *o, const char *field, const long *v, size_t n)
{
    put(o, "%s(", o->len ? " && " : "");
    for (size_t i = 0; i < n; i++)
        put(o, "%s%s == %ld", i ? " || " : "", field, v[i]);
    put(o, ")");
}

static const char *quote_for(const char *name)
{
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
            return NULL;
    if (strchr(name, '"') == NULL)
        return "\"";
    if (strchr(name, '\'') == NULL)
        return "'";
    return NULL;
}

int select_filter(const struct selection *s, const char *user_filter, char *buf,
                  size_t size, char *why, size_t whysize)
{
    struct out o = { buf, size, 0, size == 0 };

    if (s->npids > 0)
        put_ids(&o, "common_pid", s->pids, s->npids);
    if (s->ncpus > 0)
        put_ids(&o, "CPU", s->cpus, s->ncpus);
    if (s->has_comm) {
        const char *q = quote_for(s->comm);
        if (q == NULL) {
            snprintf(why, whysize, "%s", strchr(s->comm, '"') && strchr(s->comm, '\'')
                     ? "a task name with both kinds of quote cannot be written in a "
                       "kernel filter"
                     : "a task name with a control character cannot be sent in a "
                       "subscription");
            return -1;
        }
        put(&o, "%s(COMM == %s%s%s)", o.len ? " && " : "", q, s->comm, q);
    }
    if (user_filter != NULL && user_filter[strspn(user_filter, " \t")] != '\0') {
        if (o.len)
            put(&o, " && (%s)", user_filter);
        else
            put(&o, "%s", user_filter);
    }
    if (o.full) {
        snprintf(why, whysize, "the filter is longer than %zu bytes", size - 1);
        return -1;
    }
    if (size > 0 && o.len == 0)
        buf[0] = '\0';
    return 0;
}

bool select_match(const struct selection *s, bool has_pid, int64_t pid,
                  bool has_cpu, int64_t cpu, const char *comm)
{
    if (s->npids > 0 && !(has_pid && listed(s->pids, s->npids, (long)pid)))
        return false;
    if (s->ncpus > 0 && !(has_cpu && listed(s->cpus, s->ncpus, (long)cpu)))
        return false;
    if (s->has_comm && !(comm != NULL && strcmp(comm, s->comm) == 0))
        return false;
    return true;
}
