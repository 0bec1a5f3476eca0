/*
 * config.c: the tracepoint.conf parser.  The syntax is the contract in
 * include/tp_config.h; this file settles what the header leaves open:
 *
 *  - Comments.  Outside a filter, '#' starts a comment wherever it appears
 *    (a probe's spec included),
 *    even inside a word: "ring_size 16M#big" is "ring_size 16M".  Once the
 *    `filter` keyword has been read, the rest of the line is the expression,
 *    '#' included.  ftrace filters compare strings ("comm == \"a#b\"") and
 *    this file has no quoting to tell a '#' in a string from a comment, so
 *    the whole tail goes to the kernel verbatim (trimmed): write comments
 *    about a filtered stream on their own line.  "filter#x" is the keyword
 *    directly followed by a comment, i.e. an empty (rejected) expression.
 *
 *  - Lines.  A line ends at '\n'; one '\r' before it (or before the end of
 *    the text) is dropped, so CRLF files parse like LF files.  Blanks are
 *    space and tab only.  TP_CONFIG_MAX_LINE counts the bytes of a line
 *    without its terminator; a longer line is rejected whole (comment or
 *    not), as is a line holding a NUL byte anywhere.
 *
 *  - Keywords, size suffixes and access values are case-sensitive.  Sizes
 *    take K, M, G, KiB, MiB or GiB (powers of 1024) and nothing else;
 *    numbers are plain decimal ("010" is ten; no sign, no hex).
 *
 *  - ring_size, backlog and kernel_buffer_kb may repeat: the last valid line
 *    wins.  allow_group lines accumulate; a group named twice (on one line or
 *    across lines) is kept once, and so is an event pattern or an access
 *    group repeated within one stream.  Order of first appearance is kept.
 *
 *  - Stream options: at most one access=, and filter comes last since it
 *    takes the rest of the line.  "." and ".." and a leading '-' are refused
 *    for stream names (they may end up as instance or file names); group
 *    names are [A-Za-z0-9_.-]{1,32} exactly as the header says.
 *
 *  - A line is applied whole or not at all: values are checked and memory
 *    allocated before cfg is touched, so neither a rejected line nor
 *    -ENOMEM leaves a partial stream or group list behind.
 *
 *  - The reason string passed to the log callback lives only for the
 *    duration of the call.  User text quoted in it is cut to 64 bytes and
 *    non-printable bytes are shown as \xNN.
 *
 *  - tp_config_free() leaves cfg exactly as tp_config_init() does.
 */
#include "tp_config.h"
#include "tp_probespec.h"
#include "tp_with.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_GROUP_NAME  32
#define MAX_PATTERN     127
#define MAX_FILTER      2048
#define MAX_FIELD_NAME  64
#define MAX_FILE        ((size_t)1 << 20)
#define REASON_SIZE     512
#define SHOW_MAX        64
#define ARRAY_LEN(a)    (sizeof(a) / sizeof((a)[0]))

#define RING_SIZE_MIN   ((uint64_t)64 << 10)
#define RING_SIZE_MAX   ((uint64_t)SIZE_MAX < ((uint64_t)4 << 30) \
                         ? (uint64_t)SIZE_MAX : ((uint64_t)4 << 30))

/* Result of parsing one line or one part of it; negative values are -errno. */
enum { LINE_OK = 0, LINE_BAD = 1 };

/* Bytes that are not NUL-terminated. */
struct span {
    const char *p;
    size_t n;
};

/* Reading position within one line. */
struct cursor {
    const char *p;
    const char *end;
};

/* Walks a comma-separated list; "a,,b" and "a," yield empty items. */
struct list_iter {
    const char *p;
    const char *end;
    bool done;
};

/* What the current line is, and why it was rejected. */
struct line_ctx {
    int lineno;
    struct span line;       /* the whole line, comment included */
    char reason[REASON_SIZE];
};

/* User text made safe to quote in a reason. */
struct shown {
    char s[SHOW_MAX * 4 + 4];
};

/* Limits of a numeric directive. */
struct uint_rule {
    const char *directive;
    uint64_t min;
    uint64_t max;
    bool size_suffix;
    const char *range;
};

enum num_status { NUM_OK, NUM_JUNK, NUM_NEGATIVE, NUM_OVERFLOW };

typedef int (*directive_fn)(struct tp_config *cfg, struct line_ctx *ctx,
                            struct cursor *cur);

/* ------------------------------------------------------------------ spans */

static struct span span_from(struct span s, size_t off)
{
    return (struct span){ s.p + off, s.n - off };
}

static bool span_eq(struct span s, const char *str)
{
    size_t n = strlen(str);
    return s.n == n && memcmp(s.p, str, n) == 0;
}

static bool span_has_prefix(struct span s, const char *prefix)
{
    size_t n = strlen(prefix);
    return s.n >= n && memcmp(s.p, prefix, n) == 0;
}

static char *span_dup(struct span s)
{
    char *copy = malloc(s.n + 1);

    if (!copy)
        return NULL;
    if (s.n)
        memcpy(copy, s.p, s.n);
    copy[s.n] = '\0';
    return copy;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static struct span trim(struct span s)
{
    while (s.n && is_blank(s.p[0]))
        s = span_from(s, 1);
    while (s.n && is_blank(s.p[s.n - 1]))
        s.n--;
    return s;
}

static struct shown show(struct span s)
{
    struct shown out;
    size_t n = s.n < SHOW_MAX ? s.n : SHOW_MAX;
    size_t o = 0;

    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s.p[i];
        if (c >= 0x20 && c < 0x7f)
            out.s[o++] = (char)c;
        else
            o += (size_t)snprintf(out.s + o, sizeof out.s - o, "\\x%02x", c);
    }
    if (s.n > n) {
        memcpy(out.s + o, "...", 3);
        o += 3;
    }
    out.s[o] = '\0';
    return out;
}

/* ------------------------------------------------------- words and lists */

/* Next blank-separated word; a '#' ends the line (the comment is consumed). */
static struct span next_word(struct cursor *cur)
{
    while (cur->p < cur->end && is_blank(*cur->p))
        cur->p++;
    const char *start = cur->p;
    while (cur->p < cur->end && !is_blank(*cur->p) && *cur->p != '#')
        cur->p++;
    struct span word = { start, (size_t)(cur->p - start) };
    if (cur->p < cur->end && *cur->p == '#')
        cur->p = cur->end;
    return word;
}

/* Everything left on the line, '#' included, trimmed. */
static struct span rest_of_line(struct cursor *cur)
{
    struct span rest = { cur->p, (size_t)(cur->end - cur->p) };

    cur->p = cur->end;
    return trim(rest);
}

static struct list_iter list_begin(struct span list)
{
    return (struct list_iter){ list.p, list.p + list.n, false };
}

static bool list_next(struct list_iter *it, struct span *item)
{
    if (it->done)
        return false;
    const char *comma = memchr(it->p, ',', (size_t)(it->end - it->p));
    const char *stop = comma ? comma : it->end;
    *item = (struct span){ it->p, (size_t)(stop - it->p) };
    if (comma)
        it->p = comma + 1;
    else
        it->done = true;
    return true;
}

/* ------------------------------------------------------ character classes */

static bool is_alnum_ascii(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
}

static bool is_name_char(char c)
{
    return is_alnum_ascii(c) || c == '_' || c == '.' || c == '-';
}

static bool is_pattern_char(char c)
{
    return is_alnum_ascii(c) || c == '_' || c == '*' || c == '?';
}

static bool all_chars(struct span s, bool (*ok)(char))
{
    for (size_t i = 0; i < s.n; i++)
        if (!ok(s.p[i]))
            return false;
    return true;
}

static bool has_control(struct span s)
{
    for (size_t i = 0; i < s.n; i++) {
        unsigned char c = (unsigned char)s.p[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return true;
    }
    return false;
}

/* ------------------------------------------------------------- validators */

/* Each returns NULL when s is acceptable, else what is wrong with it. */

static const char *group_name_problem(struct span s)
{
    if (s.n == 0)
        return "empty";
    if (s.n > MAX_GROUP_NAME)
        return "longer than 32 characters";
    if (!all_chars(s, is_name_char))
        return "allowed: letters, digits, _ . -";
    return NULL;
}

static const char *stream_name_problem(struct span s)
{
    if (s.n == 0)
        return "empty";
    if (s.n > TP_CONFIG_MAX_NAME)
        return "longer than 63 characters";
    if (!all_chars(s, is_name_char))
        return "allowed: letters, digits, _ . -";
    if (span_eq(s, ".") || span_eq(s, ".."))
        return "'.' and '..' are reserved";
    if (s.p[0] == '-')
        return "must not start with '-'";
    return NULL;
}

static bool is_pattern_or_colon(char c)
{
    return is_pattern_char(c) || c == ':';
}

static const char *pattern_problem(struct span s)
{
    if (s.n > MAX_PATTERN)
        return "longer than 127 characters";
    if (!all_chars(s, is_pattern_or_colon))
        return "allowed: letters, digits, _ * ?";
    const char *colon = memchr(s.p, ':', s.n);
    if (!colon || colon == s.p || colon == s.p + s.n - 1)
        return "expected system:event";
    if (memchr(colon + 1, ':', (size_t)(s.p + s.n - colon - 1)))
        return "expected system:event";
    return NULL;
}

/* ---------------------------------------------------------------- reasons */

__attribute__((format(printf, 2, 3)))
static int reject(struct line_ctx *ctx, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(ctx->reason, sizeof ctx->reason, fmt, ap);
    va_end(ap);
    return LINE_BAD;
}

/* ------------------------------------------------------- string vectors */

static bool strs_have(char *const *v, size_t n, struct span s)
{
    for (size_t i = 0; i < n; i++)
        if (span_eq(s, v[i]))
            return true;
    return false;
}

static int strs_push(char ***v, size_t *n, struct span s)
{
    char *copy = span_dup(s);
    if (!copy)
        return -ENOMEM;
    char **grown = realloc(*v, (*n + 1) * sizeof *grown);
    if (!grown) {
        free(copy);
        return -ENOMEM;
    }
    grown[(*n)++] = copy;
    *v = grown;
    return 0;
}

/* Move every string of src to the end of dst; src is left empty. */
static int strs_move(char ***dst, size_t *ndst, char ***src, size_t *nsrc)
{
    if (*nsrc == 0)
        return 0;
    char **grown = realloc(*dst, (*ndst + *nsrc) * sizeof *grown);
    if (!grown)
        return -ENOMEM;
    memcpy(grown + *ndst, *src, *nsrc * sizeof *grown);
    *dst = grown;
    *ndst += *nsrc;
    free(*src);
    *src = NULL;
    *nsrc = 0;
    return 0;
}

static void strs_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* ---------------------------------------------------------------- numbers */

/* Leading decimal digits of s; returns how many there were. */
static size_t read_digits(struct span s, uint64_t *value, bool *overflow)
{
    uint64_t acc = 0;
    size_t i = 0;

    *overflow = false;
    for (; i < s.n && s.p[i] >= '0' && s.p[i] <= '9'; i++) {
        unsigned digit = (unsigned)(s.p[i] - '0');
        if (acc > (UINT64_MAX - digit) / 10)
            *overflow = true;
        else
            acc = acc * 10 + digit;
    }
    *value = acc;
    return i;
}

/* Binary shift for a size suffix, or -1 if it is not one. */
static int suffix_shift(struct span s)
{
    static const struct { const char *text; int shift; } suffixes[] = {
        { "", 0 },   { "K", 10 }, { "KiB", 10 }, { "M", 20 },
        { "MiB", 20 }, { "G", 30 }, { "GiB", 30 },
    };

    for (size_t i = 0; i < ARRAY_LEN(suffixes); i++)
        if (span_eq(s, suffixes[i].text))
            return suffixes[i].shift;
    return -1;
}

static enum num_status parse_number(struct span s, bool size_suffix,
                                    uint64_t *out)
{
    if (s.n >= 2 && s.p[0] == '-' && s.p[1] >= '0' && s.p[1] <= '9')
        return NUM_NEGATIVE;
    bool overflow;
    uint64_t value;
    size_t ndigits = read_digits(s, &value, &overflow);
    if (ndigits == 0)
        return NUM_JUNK;
    struct span tail = span_from(s, ndigits);
    int shift = size_suffix ? suffix_shift(tail) : (tail.n ? -1 : 0);
    if (shift < 0)
        return NUM_JUNK;
    if (overflow || value > (UINT64_MAX >> shift))
        return NUM_OVERFLOW;
    *out = value << shift;
    return NUM_OK;
}

static int parse_uint_directive(struct line_ctx *ctx, struct cursor *cur,
                                const struct uint_rule *rule, uint64_t *out)
{
    struct span word = next_word(cur);
    if (word.n == 0)
        return reject(ctx, "%s: missing value", rule->directive);
    struct span extra = next_word(cur);
    if (extra.n)
        return reject(ctx, "%s: unexpected '%s' after the value",
                      rule->directive, show(extra).s);
    uint64_t value = 0;
    enum num_status status = parse_number(word, rule->size_suffix, &value);
    if (status == NUM_NEGATIVE)
        return reject(ctx, "%s: negative value '%s' (range %s)",
                      rule->directive, show(word).s, rule->range);
    if (status == NUM_JUNK)
        return reject(ctx, "%s: bad value '%s' (expected %s)", rule->directive,
                      show(word).s, rule->size_suffix
                      ? "a number with optional suffix K, M, G, KiB, MiB or GiB"
                      : "a whole number");
    if (status == NUM_OVERFLOW || value > rule->max)
        return reject(ctx, "%s: '%s' is too large (range %s)",
                      rule->directive, show(word).s, rule->range);
    if (value < rule->min)
        return reject(ctx, "%s: '%s' is too small (range %s)",
                      rule->directive, show(word).s, rule->range);
    *out = value;
    return LINE_OK;
}

/* ----------------------------------------------------- scalar directives */

/* The numeric settings: one rule each, and where the value goes. */
enum scalar { S_RING_SIZE, S_BACKLOG, S_KERNEL_KB, S_CLIENT_TIMEOUT, S_FETCH_LIMIT,
              S_FETCH_RECORDS };

static const struct uint_rule scalar_rules[] = {
    [S_RING_SIZE] = { "ring_size", RING_SIZE_MIN, RING_SIZE_MAX, true, "64K..4G" },
    [S_BACKLOG] = { "backlog", 0, 3600, false, "0..3600" },
    [S_KERNEL_KB] = { "kernel_buffer_kb", 64, 1048576, false, "64..1048576" },
    [S_CLIENT_TIMEOUT] = { "client_timeout", 10, 86400, false, "10..86400" },
    [S_FETCH_LIMIT] = { "fetch_limit", 1u << 20, 1u << 30, true, "1M..1G" },
    [S_FETCH_RECORDS] = { "fetch_records", 0, 10000000, false, "0 or 1000..10000000" },
};

static void set_scalar(struct tp_config *cfg, enum scalar which, uint64_t value)
{
    switch (which) {
    case S_RING_SIZE: cfg->ring_size = (size_t)value; break;
    case S_BACKLOG: cfg->backlog = (unsigned)value; break;
    case S_KERNEL_KB: cfg->kernel_buffer_kb = (unsigned)value; break;
    case S_CLIENT_TIMEOUT: cfg->client_timeout = (unsigned)value; break;
    case S_FETCH_LIMIT: cfg->fetch_limit = (size_t)value; break;
    case S_FETCH_RECORDS: cfg->fetch_records = (unsigned)value; break;
    }
}

static int parse_scalar(struct tp_config *cfg, struct line_ctx *ctx, struct cursor *cur,
                        enum scalar which)
{
    uint64_t value;
    int rc = parse_uint_directive(ctx, cur, &scalar_rules[which], &value);

    if (rc == LINE_OK)
        set_scalar(cfg, which, value);
    return rc;
}

static int parse_ring_size(struct tp_config *cfg, struct line_ctx *ctx, struct cursor *cur)
{
    return parse_scalar(cfg, ctx, cur, S_RING_SIZE);
}

static int parse_backlog(struct tp_config *cfg, struct line_ctx *ctx, struct cursor *cur)
{
    return parse_scalar(cfg, ctx, cur, S_BACKLOG);
}

static int parse_kernel_kb(struct tp_config *cfg, struct line_ctx *ctx, struct cursor *cur)
{
    return parse_scalar(cfg, ctx, cur, S_KERNEL_KB);
}

static int parse_client_timeout(struct tp_config *cfg, struct line_ctx *ctx,
                                struct cursor *cur)
{
    return parse_scalar(cfg, ctx, cur, S_CLIENT_TIMEOUT);
}

static int parse_fetch_limit(struct tp_config *cfg, struct line_ctx *ctx, struct cursor *cur)
{
    return parse_scalar(cfg, ctx, cur, S_FETCH_LIMIT);
}

/* 0: no cap on records (bytes and time bound an array); else 1000 at least. */
static int parse_fetch_records(struct tp_config *cfg, struct line_ctx *ctx, struct cursor *cur)
{
    const struct uint_rule *rule = &scalar_rules[S_FETCH_RECORDS];
    uint64_t value;
    int rc = parse_uint_directive(ctx, cur, rule, &value);

    if (rc != LINE_OK)
        return rc;
    if (value > 0 && value < 1000)
        return reject(ctx, "%s: '%llu' is too small (range %s)", rule->directive,
                      (unsigned long long)value, rule->range);
    set_scalar(cfg, S_FETCH_RECORDS, value);
    return LINE_OK;
}

/* -20..19: a leading '-' and the magnitude as a whole number. */
static int parse_producer_nice(struct tp_config *cfg, struct line_ctx *ctx, struct cursor *cur)
{
    static const struct uint_rule rule = { "producer_nice", 0, 20, false, "-20..19" };
    struct cursor c = *cur;
    struct span word = next_word(&c);
    bool neg = word.n > 1 && word.p[0] == '-';
    if (neg)
        cur->p = word.p + 1;            /* the magnitude, after the sign */
    uint64_t value;
    int rc = parse_uint_directive(ctx, cur, &rule, &value);
    if (rc != LINE_OK)
        return rc;
    if (!neg && value > 19)
        return reject(ctx, "producer_nice: '%llu' is too large (range %s)",
                      (unsigned long long)value, rule.range);
    cfg->producer_nice = neg ? -(int)value : (int)value;
    return LINE_OK;
}

/* ------------------------------------------------------------ allow_group */

/* New, valid, not yet known group names of the line, into *add. */
static int collect_groups(const struct tp_config *cfg, struct line_ctx *ctx,
                          struct cursor *cur, char ***add, size_t *nadd)
{
    struct span word = next_word(cur);

    if (word.n == 0)
        return reject(ctx, "allow_group: missing group name");
    for (; word.n; word = next_word(cur)) {
        const char *why = group_name_problem(word);
        if (why)
            return reject(ctx, "allow_group: bad group name '%s' (%s)",
                          show(word).s, why);
        if (strs_have(cfg->allow_groups, cfg->nallow_groups, word) ||
            strs_have(*add, *nadd, word))
            continue;
        int rc = strs_push(add, nadd, word);
        if (rc < 0)
            return rc;
    }
    return LINE_OK;
}

static int parse_allow_group(struct tp_config *cfg, struct line_ctx *ctx,
                             struct cursor *cur)
{
    char **add = NULL;
    size_t nadd = 0;
    int rc = collect_groups(cfg, ctx, cur, &add, &nadd);

    if (rc == LINE_OK)
        rc = strs_move(&cfg->allow_groups, &cfg->nallow_groups, &add, &nadd);
    strs_free(add, nadd);
    return rc;
}

/* ----------------------------------------------------------------- stream */

static void stream_free(struct tp_config_stream *st)
{
    free(st->name);
    strs_free(st->events, st->nevents);
    free(st->filter);
    strs_free(st->access.groups, st->access.ngroups);
    *st = (struct tp_config_stream){ 0 };
}

static const struct tp_config_stream *find_stream(const struct tp_config *cfg,
                                                  struct span name)
{
    for (size_t i = 0; i < cfg->nstreams; i++)
        if (span_eq(name, cfg->streams[i].name))
            return &cfg->streams[i];
    return NULL;
}

static int stream_name(const struct tp_config *cfg, struct line_ctx *ctx,
                       struct cursor *cur, struct tp_config_stream *st)
{
    struct span name = next_word(cur);
    if (name.n == 0)
        return reject(ctx, "stream: missing name");
    const char *why = stream_name_problem(name);
    if (why)
        return reject(ctx, "stream: bad name '%s' (%s)", show(name).s, why);
    const struct tp_config_stream *first = find_stream(cfg, name);
    if (first)
        return reject(ctx, "stream '%s': duplicate name (first defined on line %d)",
                      first->name, first->line);
    st->name = span_dup(name);
    return st->name ? LINE_OK : -ENOMEM;
}

static int stream_events(struct line_ctx *ctx, struct cursor *cur,
                         struct tp_config_stream *st)
{
    struct span list = next_word(cur);
    if (list.n == 0 || span_eq(list, "filter") || span_has_prefix(list, "access=") ||
        span_has_prefix(list, "params="))
        return reject(ctx, "stream '%s': missing event list", st->name);
    struct list_iter it = list_begin(list);
    struct span item;
    while (list_next(&it, &item)) {
        if (item.n == 0)
            return reject(ctx, "stream '%s': empty item in event list '%s'",
                          st->name, show(list).s);
        const char *why = pattern_problem(item);
        if (why)
            return reject(ctx, "stream '%s': bad event pattern '%s' (%s)",
                          st->name, show(item).s, why);
        if (strs_have(st->events, st->nevents, item))
            continue;
        int rc = strs_push(&st->events, &st->nevents, item);
        if (rc < 0)
            return rc;
    }
    return LINE_OK;
}

/* The groups of access=group:LIST, for the `what` called name (a stream, a probe). */
static int access_groups(struct line_ctx *ctx, struct span list, const char *what,
                         const char *name, struct tp_access *acc)
{
    struct list_iter it = list_begin(list);
    struct span item;

    acc->kind = TP_ACCESS_GROUPS;
    while (list_next(&it, &item)) {
        const char *why = group_name_problem(item);
        if (why)
            return reject(ctx, "%s '%s': bad group name '%s' in access (%s)",
                          what, name, show(item).s, why);
        if (strs_have(acc->groups, acc->ngroups, item))
            continue;
        int rc = strs_push(&acc->groups, &acc->ngroups, item);
        if (rc < 0)
            return rc;
    }
    return LINE_OK;
}

/* access=WHO: all, root or group:NAME[,NAME...]. */
static int parse_access(struct line_ctx *ctx, struct span who, const char *what,
                        const char *name, struct tp_access *acc)
{
    if (span_eq(who, "all")) {
        acc->kind = TP_ACCESS_ALL;
        return LINE_OK;
    }
    if (span_eq(who, "root")) {
        acc->kind = TP_ACCESS_ROOT;
        return LINE_OK;
    }
    if (span_has_prefix(who, "group:"))
        return access_groups(ctx, span_from(who, strlen("group:")), what, name, acc);
    return reject(ctx, "%s '%s': bad access '%s' (expected all, root or "
                  "group:NAME[,NAME...])", what, name, show(who).s);
}

static int stream_access(struct line_ctx *ctx, struct span who,
                         struct tp_config_stream *st)
{
    return parse_access(ctx, who, "stream", st->name, &st->access);
}

static int stream_filter(struct line_ctx *ctx, struct cursor *cur,
                         struct tp_config_stream *st)
{
    struct span expr = rest_of_line(cur);

    if (expr.n == 0)
        return reject(ctx, "stream '%s': filter needs an expression", st->name);
    if (expr.n > MAX_FILTER)
        return reject(ctx, "stream '%s': filter longer than %d characters",
                      st->name, MAX_FILTER);
    if (has_control(expr))
        return reject(ctx, "stream '%s': control character in filter", st->name);
    st->filter = span_dup(expr);
    return st->filter ? LINE_OK : -ENOMEM;
}

static int stream_params(struct line_ctx *ctx, struct span list, struct tp_config_stream *st)
{
    if (list.n == 0)
        return reject(ctx, "stream '%s': params= needs a list (fields, comm, text)", st->name);
    char err[128], *text = span_dup(list);
    if (!text)
        return -ENOMEM;
    int rc = tp_with_parse(text, &st->with, err, sizeof(err));
    free(text);
    return rc < 0 ? reject(ctx, "stream '%s': %s", st->name, err) : LINE_OK;
}

/* [access=WHO] [params=LIST] [filter EXPRESSION], filter last. */
static int stream_options(struct line_ctx *ctx, struct cursor *cur,
                          struct tp_config_stream *st)
{
    bool have_access = false, have_params = false;

    for (struct span word = next_word(cur); word.n; word = next_word(cur)) {
        if (span_eq(word, "filter"))
            return stream_filter(ctx, cur, st);
        if (span_has_prefix(word, "params=")) {
            if (have_params)
                return reject(ctx, "stream '%s': params given twice", st->name);
            have_params = true;
            int rc = stream_params(ctx, span_from(word, strlen("params=")), st);
            if (rc != LINE_OK)
                return rc;
            continue;
        }
        if (!span_has_prefix(word, "access="))
            return reject(ctx, "stream '%s': unexpected '%s' (expected "
                          "access=WHO, params=LIST or filter EXPRESSION)", st->name,
                          show(word).s);
        if (have_access)
            return reject(ctx, "stream '%s': access given twice", st->name);
        have_access = true;
        int rc = stream_access(ctx, span_from(word, strlen("access=")), st);
        if (rc != LINE_OK)
            return rc;
    }
    return LINE_OK;
}

static int stream_commit(struct tp_config *cfg, struct tp_config_stream *st)
{
    struct tp_config_stream *grown =
        realloc(cfg->streams, (cfg->nstreams + 1) * sizeof *grown);

    if (!grown)
        return -ENOMEM;
    cfg->streams = grown;
    grown[cfg->nstreams++] = *st;
    *st = (struct tp_config_stream){ 0 };
    return LINE_OK;
}

static int parse_stream(struct tp_config *cfg, struct line_ctx *ctx,
                        struct cursor *cur)
{
    struct tp_config_stream st = {
        .line = ctx->lineno, .access.kind = TP_ACCESS_ALL, .with = TP_WITH_DEFAULT,
    };
    int rc = stream_name(cfg, ctx, cur, &st);

    if (rc == LINE_OK)
        rc = stream_events(ctx, cur, &st);
    if (rc == LINE_OK)
        rc = stream_options(ctx, cur, &st);
    if (rc == LINE_OK)
        rc = stream_commit(cfg, &st);
    stream_free(&st);
    return rc;
}

/* ------------------------------------------------------------ aggregation */

static const char *const agg_kind_name[] = {
    [TP_CONFIG_COUNT] = "count", [TP_CONFIG_SUM] = "sum",
    [TP_CONFIG_HIST] = "hist", [TP_CONFIG_LATENCY] = "latency",
};

static void agg_free(struct tp_config_agg *ag)
{
    free(ag->name);
    strs_free(ag->events, ag->nevents);
    strs_free(ag->ends, ag->nends);
    free(ag->field);
    free(ag->end_field);
    free(ag->field2);
    free(ag->end_field2);
    strs_free(ag->by, ag->nby);
    free(ag->filter);
    free(ag->text);
    *ag = (struct tp_config_agg){ 0 };
}

static bool is_ident_char(char c)
{
    return is_alnum_ascii(c) || c == '_';
}

static bool is_alpha_ascii(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* An aggregation's name is a PMNS component. */
static const char *agg_name_problem(struct span s)
{
    if (s.n == 0)
        return "empty";
    if (s.n > TP_CONFIG_MAX_NAME)
        return "longer than 63 characters";
    if (!is_alpha_ascii(s.p[0]) || !all_chars(s, is_ident_char))
        return "a letter, then letters, digits and _";
    return NULL;
}

static const char *field_name_problem(struct span s)
{
    if (s.n == 0)
        return "empty";
    if (s.n > MAX_FIELD_NAME)
        return "longer than 64 characters";
    if ((s.p[0] >= '0' && s.p[0] <= '9') || !all_chars(s, is_ident_char))
        return "letters, digits and _, not starting with a digit";
    return NULL;
}

static int agg_name(const struct tp_config *cfg, struct line_ctx *ctx, struct cursor *cur,
                    struct tp_config_agg *ag)
{
    const char *kind = agg_kind_name[ag->kind];
    struct span name = next_word(cur);
    if (name.n == 0)
        return reject(ctx, "%s: missing name", kind);
    const char *why = agg_name_problem(name);
    if (why)
        return reject(ctx, "%s: bad name '%s' (%s)", kind, show(name).s, why);
    for (size_t i = 0; i < cfg->naggs; i++)
        if (span_eq(name, cfg->aggs[i].name))
            return reject(ctx, "%s '%s': duplicate name (first defined on line %d)", kind,
                          cfg->aggs[i].name, cfg->aggs[i].line);
    ag->name = span_dup(name);
    return ag->name ? LINE_OK : -ENOMEM;
}

static int agg_events(struct line_ctx *ctx, struct cursor *cur, const char *what,
                      const struct tp_config_agg *ag, char ***v, size_t *n)
{
    struct span list = next_word(cur);
    if (list.n == 0)
        return reject(ctx, "%s '%s': missing %s", agg_kind_name[ag->kind], ag->name, what);
    struct list_iter it = list_begin(list);
    struct span item;
    while (list_next(&it, &item)) {
        const char *why = item.n ? pattern_problem(item) : "empty item";
        if (why)
            return reject(ctx, "%s '%s': bad event pattern '%s' in %s (%s)",
                          agg_kind_name[ag->kind], ag->name, show(item).s, what, why);
        if (strs_have(*v, *n, item))
            continue;
        int rc = strs_push(v, n, item);
        if (rc < 0)
            return rc;
    }
    return LINE_OK;
}

static int agg_field(struct line_ctx *ctx, struct span word, const char *what,
                     const struct tp_config_agg *ag, char **out)
{
    const char *why = field_name_problem(word);
    if (why)
        return reject(ctx, "%s '%s': bad %s '%s' (%s)", agg_kind_name[ag->kind], ag->name,
                      what, show(word).s, why);
    *out = span_dup(word);
    return *out ? LINE_OK : -ENOMEM;
}

/* One START_FIELD=END_FIELD of `on`. */
static int agg_on_pair(struct line_ctx *ctx, struct span pair, struct tp_config_agg *ag,
                       char **sfield, char **efield)
{
    const char *eq = pair.n ? memchr(pair.p, '=', pair.n) : NULL;
    if (!eq)
        return reject(ctx, "latency '%s': expected START_FIELD=END_FIELD after 'on'", ag->name);
    struct span sf = { pair.p, (size_t)(eq - pair.p) };
    struct span ef = span_from(pair, sf.n + 1);
    int rc = agg_field(ctx, sf, "start field", ag, sfield);
    return rc == LINE_OK ? agg_field(ctx, ef, "end field", ag, efield) : rc;
}

/* on START_FIELD=END_FIELD[,START_FIELD2=END_FIELD2] */
static int agg_on(struct line_ctx *ctx, struct cursor *cur, struct tp_config_agg *ag)
{
    struct span word = next_word(cur);
    if (!span_eq(word, "on"))
        return reject(ctx, "latency '%s': expected 'on START_FIELD=END_FIELD' after the "
                      "end events", ag->name);
    word = next_word(cur);
    struct list_iter it = list_begin(word);
    struct span pair;
    int n = 0, rc = LINE_OK;
    while (rc == LINE_OK && list_next(&it, &pair)) {
        if (++n > 2)
            return reject(ctx, "latency '%s': at most two START_FIELD=END_FIELD pairs after "
                          "'on'", ag->name);
        rc = n == 1 ? agg_on_pair(ctx, pair, ag, &ag->field, &ag->end_field)
                    : agg_on_pair(ctx, pair, ag, &ag->field2, &ag->end_field2);
    }
    return rc;
}

static int agg_by(struct line_ctx *ctx, struct cursor *cur, struct tp_config_agg *ag)
{
    struct span list = next_word(cur);
    if (list.n == 0)
        return reject(ctx, "%s '%s': 'by' needs FIELD[,FIELD...]", agg_kind_name[ag->kind],
                      ag->name);
    struct list_iter it = list_begin(list);
    struct span item;
    while (list_next(&it, &item)) {
        char *f = NULL;
        int rc = agg_field(ctx, item, "key field", ag, &f);
        if (rc != LINE_OK)
            return rc;
        bool again = strs_have(ag->by, ag->nby, item);
        free(f);
        if (again)
            return reject(ctx, "%s '%s': key field '%s' named twice", agg_kind_name[ag->kind],
                          ag->name, show(item).s);
        if (ag->nby == TP_CONFIG_MAX_BY)
            return reject(ctx, "%s '%s': more than %d key fields", agg_kind_name[ag->kind],
                          ag->name, TP_CONFIG_MAX_BY);
        if ((rc = strs_push(&ag->by, &ag->nby, item)) < 0)
            return rc;
    }
    return LINE_OK;
}

/* max_keys=N or max_pending=N */
static int agg_limit(struct line_ctx *ctx, struct span word, struct tp_config_agg *ag)
{
    bool keys = span_has_prefix(word, "max_keys=");
    uint64_t max = keys ? 65536 : 1048576, v = 0;
    struct span num = span_from(word, keys ? strlen("max_keys=") : strlen("max_pending="));
    if (parse_number(num, false, &v) != NUM_OK || v < 1 || v > max)
        return reject(ctx, "%s '%s': bad %s (range 1..%llu)", agg_kind_name[ag->kind],
                      ag->name, show(word).s, (unsigned long long)max);
    *(keys ? &ag->max_keys : &ag->max_pending) = (unsigned)v;
    return LINE_OK;
}

static int agg_filter(struct line_ctx *ctx, struct cursor *cur, struct tp_config_agg *ag)
{
    struct span expr = rest_of_line(cur);
    const char *kind = agg_kind_name[ag->kind];
    if (expr.n == 0)
        return reject(ctx, "%s '%s': filter needs an expression", kind, ag->name);
    if (expr.n > MAX_FILTER)
        return reject(ctx, "%s '%s': filter longer than %d characters", kind, ag->name,
                      MAX_FILTER);
    if (has_control(expr))
        return reject(ctx, "%s '%s': control character in filter", kind, ag->name);
    ag->filter = span_dup(expr);
    return ag->filter ? LINE_OK : -ENOMEM;
}

/* [by FIELD,...] [max_keys=N] [max_pending=N] [backend=producer] [filter EXPRESSION] */
static int agg_options(struct line_ctx *ctx, struct cursor *cur, struct tp_config_agg *ag)
{
    bool have_by = false, have_keys = false, have_pending = false, have_backend = false;
    for (struct span word = next_word(cur); word.n; word = next_word(cur)) {
        int rc;
        if (span_eq(word, "filter"))
            return agg_filter(ctx, cur, ag);
        if (span_eq(word, "by") && !have_by) {
            have_by = true;
            rc = agg_by(ctx, cur, ag);
        } else if (span_has_prefix(word, "max_keys=") && !have_keys) {
            have_keys = true;
            rc = agg_limit(ctx, word, ag);
        } else if (span_has_prefix(word, "max_pending=") && !have_pending &&
                   ag->kind == TP_CONFIG_LATENCY) {
            have_pending = true;
            rc = agg_limit(ctx, word, ag);
        } else if (span_eq(word, "backend=producer") && !have_backend) {
            have_backend = ag->producer = true;     /* never in the kernel's hist triggers */
            rc = LINE_OK;
        } else {
            rc = reject(ctx, "%s '%s': unexpected '%s' (expected by FIELD[,FIELD...], "
                        "max_keys=N%s, backend=producer or filter EXPRESSION, each at most once)",
                        agg_kind_name[ag->kind], ag->name, show(word).s,
                        ag->kind == TP_CONFIG_LATENCY ? ", max_pending=N" : "");
        }
        if (rc != LINE_OK)
            return rc;
    }
    return LINE_OK;
}

/* What follows the name: events, and the value or the pairing. */
static int agg_body(struct line_ctx *ctx, struct cursor *cur, struct tp_config_agg *ag)
{
    bool latency = ag->kind == TP_CONFIG_LATENCY;
    int rc = agg_events(ctx, cur, latency ? "start events" : "events", ag, &ag->events,
                        &ag->nevents);
    if (rc == LINE_OK && latency)
        rc = agg_events(ctx, cur, "end events", ag, &ag->ends, &ag->nends);
    if (rc == LINE_OK && latency)
        return agg_on(ctx, cur, ag);
    if (rc == LINE_OK && ag->kind != TP_CONFIG_COUNT) {
        struct span word = next_word(cur);
        if (word.n == 0 || span_eq(word, "by") || span_eq(word, "filter"))
            return reject(ctx, "%s '%s': missing the field to %s", agg_kind_name[ag->kind],
                          ag->name, ag->kind == TP_CONFIG_SUM ? "add up" : "histogram");
        rc = agg_field(ctx, word, "field", ag, &ag->field);
    }
    return rc;
}

static int agg_commit(struct tp_config *cfg, struct tp_config_agg *ag)
{
    struct tp_config_agg *grown = realloc(cfg->aggs, (cfg->naggs + 1) * sizeof *grown);
    if (!grown)
        return -ENOMEM;
    cfg->aggs = grown;
    grown[cfg->naggs++] = *ag;
    *ag = (struct tp_config_agg){ 0 };
    return LINE_OK;
}

static int parse_agg(struct tp_config *cfg, struct line_ctx *ctx, struct cursor *cur,
                     enum tp_config_agg_kind kind)
{
    struct tp_config_agg ag = {
        .kind = kind, .line = ctx->lineno, .max_keys = TP_CONFIG_DEFAULT_MAX_KEYS,
        .max_pending = TP_CONFIG_DEFAULT_MAX_PENDING,
    };
    int rc = (ag.text = span_dup(trim(ctx->line))) ? LINE_OK : -ENOMEM;
    if (rc == LINE_OK)
        rc = agg_name(cfg, ctx, cur, &ag);
    if (rc == LINE_OK)
        rc = agg_body(ctx, cur, &ag);
    if (rc == LINE_OK)
        rc = agg_options(ctx, cur, &ag);
    if (rc == LINE_OK)
        rc = agg_commit(cfg, &ag);
    agg_free(&ag);
    return rc;
}

static int parse_count(struct tp_config *cfg, struct line_ctx *ctx, struct cursor *cur)
{
    return parse_agg(cfg, ctx, cur, TP_CONFIG_COUNT);
}

static int parse_sum(struct tp_config *cfg, struct line_ctx *ctx, struct cursor *cur)
{
    return parse_agg(cfg, ctx, cur, TP_CONFIG_SUM);
}

static int parse_hist(struct tp_config *cfg, struct line_ctx *ctx, struct cursor *cur)
{
    return parse_agg(cfg, ctx, cur, TP_CONFIG_HIST);
}

static int parse_latency(struct tp_config *cfg, struct line_ctx *ctx, struct cursor *cur)
{
    return parse_agg(cfg, ctx, cur, TP_CONFIG_LATENCY);
}

/* ------------------------------------------------------------------ lines */

/* ------------------------------------------------------------ probes */

static const struct tp_config_probe *find_probe(const struct tp_config *cfg, struct span name)
{
    for (size_t i = 0; i < cfg->nprobes; i++)
        if (span_eq(name, cfg->probes[i].name))
            return &cfg->probes[i];
    return NULL;
}

/* [access=WHO] before a probe's spec: who may read its events (default root); the
 * caller frees acc's groups, whatever the result. */
static int probe_access(struct line_ctx *ctx, struct cursor *cur, const char *kind,
                        const char *name, struct tp_access *acc)
{
    struct cursor before = *cur;
    struct span word = next_word(cur);
    *acc = (struct tp_access){ TP_ACCESS_ROOT, NULL, 0 };
    if (!span_has_prefix(word, "access=")) {
        *cur = before;              /* the spec's first word */
        return LINE_OK;
    }
    return parse_access(ctx, span_from(word, strlen("access=")), kind, name, acc);
}

/* The spec, checked now (the probe is made at start); LINE_OK or a rejection. */
static int probe_spec(struct line_ctx *ctx, struct cursor *cur, const char *kind,
                      const char *nm, bool kprobe, struct span *out)
{
    struct span spec = rest_of_line(cur);
    const char *hash = memchr(spec.p, '#', spec.n);     /* a spec has none: a comment */
    if (hash)
        spec = trim((struct span){ spec.p, (size_t)(hash - spec.p) });
    *out = spec;
    if (spec.n == 0)
        return reject(ctx, "%s: expected NAME [access=WHO] SPEC", kind);
    if (spec.n > TP_PROBE_SPEC_MAX || has_control(spec))
        return reject(ctx, "%s '%s': spec %s", kind, nm, spec.n > TP_PROBE_SPEC_MAX
                      ? "too long" : "has a control character");
    char err[200], *text = span_dup(spec);
    struct tp_probe_spec ps = { 0 };
    int rc = text ? tp_probespec_parse(text, kprobe ? TP_PROBE_KPROBE : TP_PROBE_UPROBE,
                                       tp_probe_host_arch(), &ps, err, sizeof(err)) : -ENOMEM;
    tp_probespec_free(&ps);
    free(text);
    return rc == 0 ? LINE_OK : rc == -ENOMEM ? rc : reject(ctx, "%s '%s': %s", kind, nm, err);
}

/* probe NAME [access=WHO] SPEC, kprobe likewise. */
static int parse_probe_def(struct tp_config *cfg, struct line_ctx *ctx, struct cursor *cur,
                           bool kprobe)
{
    const char *kind = kprobe ? "kprobe" : "probe";
    struct span name = next_word(cur), spec;
    char nm[TP_PROBE_NAME_MAX + 1] = "";
    if (name.n == 0)
        return reject(ctx, "%s: expected NAME [access=WHO] SPEC", kind);
    if (name.n <= TP_PROBE_NAME_MAX)
        memcpy(nm, name.p, name.n);
    if (name.n > TP_PROBE_NAME_MAX || !tp_probe_name_ok(nm))
        return reject(ctx, "%s: bad name '%s' (a letter or _, then letters, digits and _, "
                      "at most %d)", kind, show(name).s, TP_PROBE_NAME_MAX);
    const struct tp_config_probe *first = find_probe(cfg, name);
    if (first)
        return reject(ctx, "%s '%s': duplicate name (first defined on line %d)", kind,
                      first->name, first->line);
    struct tp_access acc;
    int rc = probe_access(ctx, cur, kind, nm, &acc);
    if (rc == LINE_OK)
        rc = probe_spec(ctx, cur, kind, nm, kprobe, &spec);
    struct tp_config_probe p = { NULL, NULL, kprobe, ctx->lineno, acc };
    if (rc == LINE_OK && (!(p.name = span_dup(name)) || !(p.spec = span_dup(spec))))
        rc = -ENOMEM;
    struct tp_config_probe *v = rc == LINE_OK
        ? realloc(cfg->probes, (cfg->nprobes + 1) * sizeof(*v)) : NULL;
    if (!v) {
        free(p.name);
        free(p.spec);
        strs_free(acc.groups, acc.ngroups);
        return rc == LINE_OK ? -ENOMEM : rc;
    }
    cfg->probes = v;
    v[cfg->nprobes++] = p;
    return LINE_OK;
}

static int parse_uprobe(struct tp_config *cfg, struct line_ctx *ctx, struct cursor *cur)
{
    return parse_probe_def(cfg, ctx, cur, false);
}

static int parse_kprobe(struct tp_config *cfg, struct line_ctx *ctx, struct cursor *cur)
{
    return parse_probe_def(cfg, ctx, cur, true);
}

static int parse_line(struct tp_config *cfg, struct line_ctx *ctx,
                      struct span line)
{
    static const struct { const char *name; directive_fn fn; } directives[] = {
        { "ring_size", parse_ring_size },
        { "backlog", parse_backlog },
        { "kernel_buffer_kb", parse_kernel_kb },
        { "client_timeout", parse_client_timeout },
        { "fetch_limit", parse_fetch_limit },
        { "fetch_records", parse_fetch_records },
        { "producer_nice", parse_producer_nice },
        { "allow_group", parse_allow_group },
        { "stream", parse_stream },
        { "count", parse_count },
        { "sum", parse_sum },
        { "hist", parse_hist },
        { "latency", parse_latency },
        { "probe", parse_uprobe },
        { "kprobe", parse_kprobe },
    };

    if (line.n > TP_CONFIG_MAX_LINE)
        return reject(ctx, "line too long (%zu bytes, at most %d)", line.n,
                      TP_CONFIG_MAX_LINE);
    if (line.n && memchr(line.p, '\0', line.n))
        return reject(ctx, "NUL byte in line");
    struct cursor cur = { line.p, line.p + line.n };
    ctx->line = line;
    struct span word = next_word(&cur);
    if (word.n == 0)
        return LINE_OK;
    for (size_t i = 0; i < ARRAY_LEN(directives); i++)
        if (span_eq(word, directives[i].name))
            return directives[i].fn(cfg, ctx, &cur);
    return reject(ctx, "unknown directive '%s'", show(word).s);
}

/* The line starting at *pos, without its "\n" or "\r\n"; advances *pos. */
static struct span next_line(const char *text, size_t len, size_t *pos)
{
    const char *start = text + *pos;
    size_t left = len - *pos;
    const char *nl = memchr(start, '\n', left);
    size_t n = nl ? (size_t)(nl - start) : left;

    *pos += nl ? n + 1 : n;
    if (n && start[n - 1] == '\r')
        n--;
    return (struct span){ start, n };
}

/* ------------------------------------------------------------- public API */

void tp_config_init(struct tp_config *cfg)
{
    if (!cfg)
        return;
    *cfg = (struct tp_config){
        .ring_size = TP_CONFIG_DEFAULT_RING_SIZE,
        .backlog = TP_CONFIG_DEFAULT_BACKLOG,
        .kernel_buffer_kb = TP_CONFIG_DEFAULT_KERNEL_KB,
        .client_timeout = TP_CONFIG_DEFAULT_CLIENT_TIMEOUT,
        .fetch_limit = TP_CONFIG_DEFAULT_FETCH_LIMIT,
        .fetch_records = TP_CONFIG_DEFAULT_FETCH_RECORDS,
        .producer_nice = TP_CONFIG_DEFAULT_PRODUCER_NICE,
    };
}

int tp_config_parse(struct tp_config *cfg, const char *text, size_t len,
                    tp_config_log_fn log, void *arg)
{
    if (!cfg || (!text && len))
        return -EINVAL;
    if (len > INT_MAX)      /* keeps line numbers and the count in an int */
        return -EFBIG;

    struct line_ctx ctx = { 0 };
    int rejected = 0;
    size_t pos = 0;
    while (pos < len) {
        struct span line = next_line(text, len, &pos);
        ctx.lineno++;
        int rc = parse_line(cfg, &ctx, line);
        if (rc < 0)
            return rc;
        if (rc == LINE_BAD) {
            rejected++;
            if (log)
                log(arg, ctx.lineno, ctx.reason);
        }
    }
    return rejected;
}

/* Read fd to EOF into buf (cap bytes, grown as needed up to limit + 1). */
static int read_all(int fd, size_t limit, char **buf, size_t cap, size_t *len)
{
    for (;;) {
        if (*len == cap) {
            size_t bigger = cap < limit / 2 ? cap * 2 : limit + 1;
            char *grown = realloc(*buf, bigger);
            if (!grown)
                return -ENOMEM;
            *buf = grown;
            cap = bigger;
        }
        ssize_t got = read(fd, *buf + *len, cap - *len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got < 0 ? -errno : 0;
        *len += (size_t)got;
        if (*len > limit)
            return -EFBIG;
    }
}

/* Read all of fd (at most limit bytes) into a new buffer. */
static int read_fd(int fd, size_t limit, char **out, size_t *outlen)
{
    struct stat sb;
    if (fstat(fd, &sb) < 0)
        return -errno;
    if (S_ISDIR(sb.st_mode))
        return -EISDIR;
    if (S_ISREG(sb.st_mode) && (uint64_t)sb.st_size > limit)
        return -EFBIG;

    /* One spare byte so that a regular file reaches EOF without a regrow. */
    size_t cap = S_ISREG(sb.st_mode) ? (size_t)sb.st_size + 1 : 4096;
    size_t len = 0;
    char *buf = malloc(cap);
    if (!buf)
        return -ENOMEM;
    int rc = read_all(fd, limit, &buf, cap, &len);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    *out = buf;
    *outlen = len;
    return 0;
}

int tp_config_load(struct tp_config *cfg, const char *path,
                   tp_config_log_fn log, void *arg)
{
    if (!cfg || !path)
        return -EINVAL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;

    char *text = NULL;
    size_t len = 0;
    int rc = read_fd(fd, MAX_FILE, &text, &len);
    close(fd);
    if (rc == 0)
        rc = tp_config_parse(cfg, text, len, log, arg);
    free(text);
    return rc;
}

void tp_config_free(struct tp_config *cfg)
{
    if (!cfg)
        return;
    strs_free(cfg->allow_groups, cfg->nallow_groups);
    for (size_t i = 0; i < cfg->nstreams; i++)
        stream_free(&cfg->streams[i]);
    free(cfg->streams);
    for (size_t i = 0; i < cfg->naggs; i++)
        agg_free(&cfg->aggs[i]);
    free(cfg->aggs);
    for (size_t i = 0; i < cfg->nprobes; i++) {
        free(cfg->probes[i].name);
        free(cfg->probes[i].spec);
        strs_free(cfg->probes[i].access.groups, cfg->probes[i].access.ngroups);
    }
    free(cfg->probes);
    tp_config_init(cfg);
}

static bool strs_equal(char *const *x, size_t nx, char *const *y, size_t ny)
{
    if (nx != ny)
        return false;
    for (size_t i = 0; i < nx; i++)
        if (strcmp(x[i], y[i]) != 0)
            return false;
    return true;
}

static bool str_equal(const char *x, const char *y)
{
    return x == y || (x && y && strcmp(x, y) == 0);
}

bool tp_config_agg_same(const struct tp_config_agg *x, const struct tp_config_agg *y)
{
    return str_equal(x->name, y->name) && x->kind == y->kind &&
           strs_equal(x->events, x->nevents, y->events, y->nevents) &&
           strs_equal(x->ends, x->nends, y->ends, y->nends) &&
           str_equal(x->field, y->field) && str_equal(x->end_field, y->end_field) &&
           str_equal(x->field2, y->field2) && str_equal(x->end_field2, y->end_field2) &&
           strs_equal(x->by, x->nby, y->by, y->nby) && str_equal(x->filter, y->filter) &&
           x->max_keys == y->max_keys && x->max_pending == y->max_pending &&
           x->producer == y->producer;
}

bool tp_pattern_match(const char *pattern, const char *system, const char *event)
{
    if (!pattern || !system || !event)
        return false;
    const char *colon = strchr(pattern, ':');
    if (!colon)
        return false;

    char sys[MAX_PATTERN + 1];
    size_t n = (size_t)(colon - pattern);
    if (n >= sizeof sys)
        return false;
    memcpy(sys, pattern, n);
    sys[n] = '\0';
    return fnmatch(sys, system, 0) == 0 && fnmatch(colon + 1, event, 0) == 0;
}
