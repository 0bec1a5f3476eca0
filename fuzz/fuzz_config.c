/*
 * libFuzzer harness for src/config.c (tracepoint.conf).
 *
 * The input is the text of a configuration file.  After parsing it, checks
 * what include/tp_config.h and the notes at the top of config.c promise:
 *   - the result is the number of rejected lines, each reported once, in
 *     order, with a line number inside the text and a one-line printable
 *     reason;
 *   - every value kept is valid: numbers in range, stream and group names,
 *     event patterns, access rules and filters as the syntax says, no
 *     duplicate stream names, groups or patterns;
 *   - a line is applied whole or not at all: parsing the text one line per
 *     call gives the same configuration and the same rejections;
 *   - CRLF line ends parse exactly like LF;
 *   - each kept pattern matches its own system and event (tp_pattern_match);
 *   - tp_config_free() leaves the configuration as tp_config_init() does.
 * Everything is freed (LeakSanitizer checks).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_config.h"

#define MAX_LOG 64          /* reasons kept per parse, for comparison */

struct log {
    int n;
    int last_line;
    int maxline;
    int lines[MAX_LOG];
    char *reasons[MAX_LOG];
};

static void log_line(void *arg, int line, const char *reason)
{
    struct log *l = arg;
    if (line <= l->last_line || line > l->maxline || !reason || !reason[0] ||
        strlen(reason) >= 512)
        abort();
    for (const char *p = reason; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
            abort();
    l->last_line = line;
    if (l->n < MAX_LOG) {
        l->lines[l->n] = line;
        if (!(l->reasons[l->n] = strdup(reason)))
            abort();
    }
    l->n++;
}

static void log_free(struct log *l)
{
    for (int i = 0; i < l->n && i < MAX_LOG; i++)
        free(l->reasons[i]);
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '-';
}

static void check_name(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n > max)
        abort();
    for (size_t i = 0; i < n; i++)
        if (!name_char(s[i]))
            abort();
}

static void check_pattern(const char *p)
{
    const char *colon = strchr(p, ':');
    size_t n = strlen(p);
    if (!colon || colon == p || !colon[1] || strchr(colon + 1, ':') || n > 127)
        abort();
    for (const char *c = p; *c; c++)
        if (*c != ':' && *c != '_' && *c != '*' && *c != '?' &&
            !(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') && !(*c >= '0' && *c <= '9'))
            abort();
    /* A pattern's own text matches it: it has no [ or \. */
    char sys[128];
    memcpy(sys, p, (size_t)(colon - p));
    sys[colon - p] = '\0';
    if (!tp_pattern_match(p, sys, colon + 1))
        abort();
}

static void check_unique(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(v[i], v[j]) == 0)
                abort();
}

static void check_config(const struct tp_config *cfg, int maxline)
{
    if (cfg->ring_size < (64u << 10) || (uint64_t)cfg->ring_size > ((uint64_t)4 << 30) ||
        cfg->backlog > 3600 || cfg->kernel_buffer_kb < 64 || cfg->kernel_buffer_kb > 1048576 ||
        cfg->client_timeout < 10 || cfg->client_timeout > 86400)
        abort();
    if (!cfg->allow_groups != !cfg->nallow_groups)
        abort();
    for (size_t i = 0; i < cfg->nallow_groups; i++)
        check_name(cfg->allow_groups[i], 32);
    check_unique(cfg->allow_groups, cfg->nallow_groups);
    int last = 0;
    for (size_t i = 0; i < cfg->nstreams; i++) {
        const struct tp_config_stream *st = &cfg->streams[i];
        check_name(st->name, TP_CONFIG_MAX_NAME);
        if (st->name[0] == '-' || !strcmp(st->name, ".") || !strcmp(st->name, ".."))
            abort();
        for (size_t j = 0; j < i; j++)
            if (strcmp(cfg->streams[j].name, st->name) == 0)
                abort();
        if (st->line <= last || st->line > maxline)
            abort();
        last = st->line;
        if (st->nevents == 0 || !st->events)
            abort();
        for (size_t j = 0; j < st->nevents; j++)
            check_pattern(st->events[j]);
        check_unique(st->events, st->nevents);
        if (st->filter) {
            size_t n = strlen(st->filter);
            if (n == 0 || n > 2048 || st->filter[0] == ' ' || st->filter[0] == '\t' ||
                st->filter[n - 1] == ' ' || st->filter[n - 1] == '\t')
                abort();
            for (size_t j = 0; j < n; j++) {
                unsigned char c = (unsigned char)st->filter[j];
                if ((c < 0x20 && c != '\t') || c == 0x7f)
                    abort();
            }
        }
        switch (st->access.kind) {
        case TP_ACCESS_ALL:
        case TP_ACCESS_ROOT:
            if (st->access.ngroups || st->access.groups)
                abort();
            break;
        case TP_ACCESS_GROUPS:
            if (st->access.ngroups == 0)
                abort();
            for (size_t j = 0; j < st->access.ngroups; j++)
                check_name(st->access.groups[j], 32);
            check_unique(st->access.groups, st->access.ngroups);
            break;
        default:
            abort();
        }
    }
}

static void check_strs_equal(char **a, size_t na, char **b, size_t nb)
{
    if (na != nb)
        abort();
    for (size_t i = 0; i < na; i++)
        if (strcmp(a[i], b[i]) != 0)
            abort();
}

/* Same configuration, stream lines included. */
static void check_equal(const struct tp_config *a, const struct tp_config *b)
{
    if (a->ring_size != b->ring_size || a->backlog != b->backlog ||
        a->kernel_buffer_kb != b->kernel_buffer_kb || a->client_timeout != b->client_timeout ||
        a->nstreams != b->nstreams || a->nprobes != b->nprobes)
        abort();
    for (size_t i = 0; i < a->nprobes; i++)
        if (strcmp(a->probes[i].name, b->probes[i].name) != 0 ||
            strcmp(a->probes[i].spec, b->probes[i].spec) != 0 ||
            a->probes[i].kprobe != b->probes[i].kprobe || a->probes[i].line != b->probes[i].line)
            abort();
    check_strs_equal(a->allow_groups, a->nallow_groups, b->allow_groups, b->nallow_groups);
    for (size_t i = 0; i < a->nstreams; i++) {
        const struct tp_config_stream *x = &a->streams[i], *y = &b->streams[i];
        if (strcmp(x->name, y->name) != 0 || !x->filter != !y->filter ||
            (x->filter && strcmp(x->filter, y->filter) != 0) ||
            x->access.kind != y->access.kind || x->line != y->line)
            abort();
        check_strs_equal(x->events, x->nevents, y->events, y->nevents);
        check_strs_equal(x->access.groups, x->access.ngroups, y->access.groups,
                         y->access.ngroups);
    }
}

static void check_logs_equal(const struct log *a, const struct log *b)
{
    if (a->n != b->n)
        abort();
    for (int i = 0; i < a->n && i < MAX_LOG; i++)
        if (a->lines[i] != b->lines[i] || strcmp(a->reasons[i], b->reasons[i]) != 0)
            abort();
}

static void check_freed(struct tp_config *cfg)
{
    tp_config_free(cfg);
    if (cfg->ring_size != TP_CONFIG_DEFAULT_RING_SIZE || cfg->backlog != TP_CONFIG_DEFAULT_BACKLOG ||
        cfg->kernel_buffer_kb != TP_CONFIG_DEFAULT_KERNEL_KB ||
        cfg->client_timeout != TP_CONFIG_DEFAULT_CLIENT_TIMEOUT || cfg->allow_groups ||
        cfg->nallow_groups || cfg->streams || cfg->nstreams || cfg->probes || cfg->nprobes)
        abort();
}

static int count_lines(const char *text, size_t len)
{
    int n = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n')
            n++;
    return n + (len && text[len - 1] != '\n');
}

/*
 * Parse one line per call.  Each call numbers its line 1, so the line of a
 * stream, aggregation or probe it adds is set to the real one before the next call (it is quoted
 * when a later line repeats the name).
 */
static void parse_by_line(const char *text, size_t len, int rejected, const struct log *whole,
                          const struct tp_config *cfg_whole)
{
    struct tp_config cfg;
    struct log l = { 0 };
    int total = 0, lineno = 0;
    tp_config_init(&cfg);
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) + 1 : len - pos;
        size_t before = cfg.nstreams, aggs_before = cfg.naggs, probes_before = cfg.nprobes;
        struct log one = { .maxline = 1 };
        int rc = tp_config_parse(&cfg, text + pos, n, log_line, &one);
        lineno++;
        if (rc < 0 || rc != one.n || rc > 1 || cfg.nstreams > before + 1 ||
            cfg.nstreams > cfg_whole->nstreams)
            abort();
        if (cfg.nstreams > before)
            cfg.streams[before].line = lineno;
        if (cfg.naggs > aggs_before)
            cfg.aggs[aggs_before].line = lineno;
        if (cfg.nprobes > probes_before)
            cfg.probes[probes_before].line = lineno;
        if (rc && l.n < MAX_LOG) {
            l.lines[l.n] = lineno;
            l.reasons[l.n] = one.reasons[0];
        } else if (rc) {
            free(one.reasons[0]);
        }
        l.n += rc;
        total += rc;
        pos += n;
    }
    if (total != rejected)
        abort();
    check_logs_equal(whole, &l);
    check_equal(cfg_whole, &cfg);
    log_free(&l);
    check_freed(&cfg);
}

/* The text with every "\n" made "\r\n" parses the same (if it had no '\r'). */
static void parse_crlf(const char *text, size_t len, int rejected, const struct log *whole,
                       const struct tp_config *cfg_whole)
{
    if (memchr(text, '\r', len))
        return;
    char *crlf = malloc(2 * len + 1);
    size_t n = 0;
    if (!crlf)
        abort();
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n')
            crlf[n++] = '\r';
        crlf[n++] = text[i];
    }
    struct tp_config cfg;
    struct log l = { .maxline = whole->maxline };
    tp_config_init(&cfg);
    int rc = tp_config_parse(&cfg, crlf, n, log_line, &l);
    if (rc != rejected)
        abort();
    check_logs_equal(whole, &l);
    check_equal(cfg_whole, &cfg);
    log_free(&l);
    check_freed(&cfg);
    free(crlf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size copy with no terminator: the parser takes a length. */
    char *text = malloc(size ? size : 1);
    if (!text)
        abort();
    memcpy(text, data, size);

    struct tp_config cfg;
    struct log l = { .maxline = count_lines(text, size) };
    tp_config_init(&cfg);
    int rc = tp_config_parse(&cfg, text, size, log_line, &l);
    if (rc == -ENOMEM) {
        log_free(&l);
        check_freed(&cfg);
        free(text);
        return 0;
    }
    if (rc < 0 || rc != l.n)
        abort();
    check_config(&cfg, l.maxline);
    parse_by_line(text, size, rc, &l, &cfg);
    parse_crlf(text, size, rc, &l, &cfg);

    /* Without a log callback: the same count. */
    struct tp_config again;
    tp_config_init(&again);
    if (tp_config_parse(&again, text, size, NULL, NULL) != rc)
        abort();
    check_equal(&cfg, &again);
    check_freed(&again);

    log_free(&l);
    check_freed(&cfg);
    free(text);
    return 0;
}
