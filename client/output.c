/* output.c: event lines, text and JSON (client/output.h). */
#include "output.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"
#include "tp_valname.h"

/* Strings in text lines: one event stays one line. */
/*
 * Bytes that could break a line or drive a terminal, escaped: \n, \t and
 * \xNN for the other control characters; with quoted, also \" and \\.
 */
static void put_escaped(FILE *f, const char *s, size_t len, bool quoted)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (quoted && (c == '"' || c == '\\'))
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\x%02x", c);
        else
            fputc(c, f);
    }
}

static void put_text_string(FILE *f, const char *s, size_t len)
{
    fputc('"', f);
    put_escaped(f, s, len, true);
    fputc('"', f);
}


static void put_string(FILE *f, const char *s, size_t len, bool json)
{
    if (json)
        put_json_string(f, s, len);
    else
        put_text_string(f, s, len);
}

/*
 * Aggregates: hex bytes, "[0a1b]" in text; in JSON an array of numbers
 * when the element type is known (put_json_array), else "0a1b".
 */
static void put_hex(FILE *f, const char *p, size_t len, bool json)
{
    static const char hex[] = "0123456789abcdef";

    fputc(json ? '"' : '[', f);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        fputc_unlocked(hex[c >> 4], f);
        fputc_unlocked(hex[c & 0xf], f);
    }
    fputc(json ? '"' : ']', f);
}

/* "%" PRId64 and "%" PRIu64, without printf */
static void put_i64(FILE *f, int64_t v)
{
    char b[LF_I64_MAX];
    fwrite_unlocked(b, 1, lf_i64(b, v), f);
}

static void put_u64(FILE *f, uint64_t v)
{
    char b[LF_U64_MAX];
    fwrite_unlocked(b, 1, lf_u64(b, v), f);
}

static void put_null(FILE *f, bool json)
{
    fputs(json ? "null" : "?", f);
}

/* The type of value v: its descriptor's, else what the value says. */
static int value_type(const struct param *p, int valfmt, const pmValue *v)
{
    if (p != NULL && p->type != PM_TYPE_UNKNOWN)
        return p->type;
    return valfmt == PM_VAL_INSITU ? PM_TYPE_32 : v->value.pval->vtype;
}

static void put_number(FILE *f, int type, int valfmt, const pmValue *v, bool json)
{
    pmAtomValue a;

    if (pmExtractValue(valfmt, v, type, &a, type) < 0) {
        put_null(f, json);
        return;
    }
    switch (type) {
    case PM_TYPE_32:  put_i64(f, a.l); break;
    case PM_TYPE_U32: put_u64(f, a.ul); break;
    case PM_TYPE_64:  put_i64(f, a.ll); break;
    case PM_TYPE_U64: put_u64(f, a.ull); break;
    case PM_TYPE_FLOAT:
    case PM_TYPE_DOUBLE: {
        double d = type == PM_TYPE_FLOAT ? (double)a.f : a.d;
        if (isfinite(d))
            fprintf(f, "%.17g", d);
        else
            put_null(f, json);
        break;
    }
    default: put_null(f, json); break;
    }
}

/* A number shown as a name (params, tp_valname.h): "getpid", "254:0 (vda)". */
static bool put_named(FILE *f, const struct params *ps, const struct param *p, int type,
                      const pmValueSet *vs)
{
    pmAtomValue a;
    char out[TP_VALNAME_MAX];
    bool is_signed = type == PM_TYPE_32 || type == PM_TYPE_64;

    if (p == NULL || p->shown == TP_SHOWN_NUMBER ||
        pmExtractValue(vs->valfmt, &vs->vlist[0], type, &a, is_signed ? PM_TYPE_64
                                                                     : PM_TYPE_U64) < 0)
        return false;
    tp_valname_put((enum tp_shown)p->shown, is_signed ? (uint64_t)a.ll : a.ull, is_signed,
                   ps->devdir, " ", out, sizeof(out));
    fputs(out, f);
    return true;
}

static void put_value(FILE *f, const struct param *p, const pmValueSet *vs, bool json)
{
    const pmValue *v = &vs->vlist[0];
    int type = value_type(p, vs->valfmt, v);
    bool block = vs->valfmt != PM_VAL_INSITU;
    const char *buf = block ? v->value.pval->vbuf : NULL;
    size_t len = block ? block_len(v->value.pval) : 0;

    if (type == PM_TYPE_STRING && block)
        put_string(f, buf, strnlen(buf, len), json);
    else if ((type == PM_TYPE_AGGREGATE || type == PM_TYPE_AGGREGATE_STATIC) && block) {
        if (!json || p == NULL || put_json_array(f, buf, len, p->elem) < 0)
            put_hex(f, buf, len, json);
    }
    else
        put_number(f, type, vs->valfmt, v, json);
}


static const struct tm *local_tm(struct clock_cache *cc, time_t sec)
{
    if (!cc->valid || cc->sec != sec) {
        pmLocaltime(&sec, &cc->tm);
        cc->sec = sec;
        cc->valid = true;
        cc->iso_valid = false;
        int n = snprintf(cc->hms, sizeof(cc->hms), "%02d:%02d:%02d.", cc->tm.tm_hour,
                         cc->tm.tm_min, cc->tm.tm_sec);
        cc->hms_len = n > 0 && (size_t)n < sizeof(cc->hms) ? (size_t)n : 0;
    }
    return &cc->tm;
}

/* HH:MM:SS.nnnnnnnnn, local time. */
static void put_clock(FILE *f, struct clock_cache *cc, uint64_t ns)
{
    const struct tm *tm = local_tm(cc, (time_t)(ns / NS_PER_SEC));

    fprintf(f, "%02d:%02d:%02d.%09u", tm->tm_hour, tm->tm_min, tm->tm_sec,
            (unsigned)(ns % NS_PER_SEC));
}

/*
 * ISO 8601 with nanoseconds and the UTC offset, local time: the second's
 * date and offset formatted once per second (iso_sec), its nanoseconds
 * each time.
 */
static void put_iso_time(FILE *f, struct clock_cache *cc, uint64_t ns)
{
    const struct tm *tm = local_tm(cc, (time_t)(ns / NS_PER_SEC));
    char nanos[9];

    if (!cc->iso_valid) {
        long off = tm->tm_gmtoff / 60;
        snprintf(cc->iso, sizeof(cc->iso), "%04d-%02d-%02dT%02d:%02d:%02d.",
                 tm->tm_year + 1900, tm->tm_mon + 1, tm->tm_mday,
                 tm->tm_hour, tm->tm_min, tm->tm_sec);
        snprintf(cc->iso_off, sizeof(cc->iso_off), "%c%02ld:%02ld",
                 off < 0 ? '-' : '+', labs(off) / 60, labs(off) % 60);
        cc->iso_valid = true;
    }
    fputs_unlocked(cc->iso, f);
    fwrite_unlocked(nanos, 1, lf_nanos(nanos, (uint32_t)(ns % NS_PER_SEC)), f);
    fputs_unlocked(cc->iso_off, f);
}

static void put_common_value(FILE *f, const struct param *p, const pmValueSet *vs,
                             bool json)
{
    if (vs == NULL || vs->numval < 1)
        put_null(f, json);
    else
        put_value(f, p, vs, json);
}

static int put_fields(struct printer *pr, FILE *f, const struct record *r, bool json)
{
    bool first = true;

    for (int i = 0; i < r->numpmid; i++) {
        const pmValueSet *vs = r->vset[i];
        const struct param *p = param_at(pr->params, i, vs->pmid);
        if (p == NULL)
            return -ENOMEM;
        if (p->role != FIELD || vs->numval < 1)
            continue;
        if (json) {
            fputs(first ? "" : ",", f);
            put_json_string(f, p->field, strlen(p->field));
            fputc(':', f);
        } else {
            fputc_unlocked(' ', f);
            fputs_unlocked(p->field, f);
            fputc_unlocked('=', f);
        }
        if (json || !put_named(f, pr->params, p, value_type(p, vs->valfmt, &vs->vlist[0]), vs))
            put_value(f, p, vs, json);
        first = false;
    }
    return 0;
}

/* Each frame of the stack (one per line, innermost first) as " => FRAME". */
static void put_text_stack(FILE *f, const char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(s + i, '\n', len - i);
        size_t n = nl != NULL ? (size_t)(nl - (s + i)) : len - i;
        if (n > 0) {
            fputs(" => ", f);
            put_escaped(f, s + i, n, false);
            fputc('\n', f);
        }
        i += n + 1;
    }
}

/* "stack":["FRAME",...], innermost first. */
static void put_json_stack(FILE *f, const char *s, size_t len)
{
    bool first = true;

    fputs(",\"stack\":[", f);
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(s + i, '\n', len - i);
        size_t n = nl != NULL ? (size_t)(nl - (s + i)) : len - i;
        if (n > 0) {
            fputs(first ? "" : ",", f);
            put_json_string(f, s + i, n);
            first = false;
        }
        i += n + 1;
    }
    fputc(']', f);
}

/*
 * Lines are written once this many bytes of them are held (or at a flush,
 * or before anything is printed to stdout directly): a write that large
 * goes from pr->line to the kernel without passing through stdio's buffer.
 */
#define LINE_SPILL_AT (64 * 1024)

/* What pr->line holds so far, onto stdout (before anything printed there directly). */
static void line_spill(struct linebuf *lb)
{
    if (lb->len > 0)
        fwrite_unlocked(lb->p, 1, lb->len, stdout);
    lb->len = 0;
}

static void line_put(struct linebuf *lb, const char *s, size_t n)
{
    memcpy(lb->p + lb->len, s, n);
    lb->len += n;
}

/* HH:MM:SS.nnnnnnnnn as put_clock prints it. */
static void line_clock(struct linebuf *lb, struct clock_cache *cc, uint64_t ns)
{
    local_tm(cc, (time_t)(ns / NS_PER_SEC));
    line_put(lb, cc->hms, cc->hms_len);
    lb->len += lf_nanos(lb->p + lb->len, (uint32_t)(ns % NS_PER_SEC));
}

/*
 * The pid as put_common_value prints it, when it is a 32-bit number held
 * in place (as the PMDA sends it); false to leave it to put_common_value.
 */
static bool line_pid(struct linebuf *lb, const struct common *c)
{
    const pmValueSet *vs = c->pid;

    if (vs == NULL || vs->numval < 1) {
        lb->p[lb->len++] = '?';
        return true;
    }
    if (vs->valfmt != PM_VAL_INSITU)
        return false;
    int type = value_type(c->pid_param, vs->valfmt, &vs->vlist[0]);
    if (type == PM_TYPE_32)
        lb->len += lf_i64(lb->p + lb->len, vs->vlist[0].value.lval);
    else if (type == PM_TYPE_U32)
        lb->len += lf_u64(lb->p + lb->len, (uint32_t)vs->vlist[0].value.lval);
    else
        return false;
    return true;
}

/* The bytes TIME [CPU] COMM-PID system:event: TEXT\n can take at most. */
static size_t line_most(const struct common *c, size_t comm_len, size_t text_len)
{
    return sizeof(((struct clock_cache *)0)->hms) + 9 + 2 + LF_U64_MAX + 2 +
           LF_ESCAPED_MAX(comm_len) + 5 + 1 + LF_I64_MAX + 1 + c->event_len + 1 +
           1 + LF_ESCAPED_MAX(text_len) + 1;
}

/*
 * TIME [CPU] COMM-PID system:event: TEXT (or field=value ...), built in
 * pr->line; what it cannot build (a pid not held in place, the fields,
 * the stack) the FILE writers print after it.
 */
static int output_text_event(struct printer *pr, const struct common *c,
                             const struct record *r)
{
    struct linebuf *lb = &pr->line;
    bool text = c->text && !pr->raw;
    const pmValueBlock *tb = text ? c->text->vlist[0].value.pval : NULL;
    size_t text_len = text ? strnlen(tb->vbuf, block_len(tb)) : 0;
    size_t comm_len = c->has_comm ? strlen(c->comm) : 0;

    if (lb_reserve(lb, line_most(c, comm_len, text_len)) < 0)
        return -ENOMEM;
    line_clock(lb, &pr->clock, c->time_ns);
    line_put(lb, " [", 2);
    if (c->cpu != NULL && c->cpu->numval > 0)
        lb->len += lf_u32_03(lb->p + lb->len, (uint32_t)insitu_value(c->cpu));
    else
        lb->p[lb->len++] = '?';
    line_put(lb, "] ", 2);
    if (c->has_comm)
        lb->len += lf_escaped(lb->p + lb->len, c->comm, comm_len);
    else
        line_put(lb, "<...>", 5);
    lb->p[lb->len++] = '-';
    if (!line_pid(lb, c)) {
        line_spill(lb);
        put_common_value(stdout, c->pid_param, c->pid, false);
    }
    lb->p[lb->len++] = ' ';
    line_put(lb, c->event, c->event_len);
    lb->p[lb->len++] = ':';
    int rc = 0;
    if (text) {
        if (text_len > 0) {     /* names and file names may hold anything */
            lb->p[lb->len++] = ' ';
            lb->len += lf_escaped(lb->p + lb->len, tb->vbuf, text_len);
        }
    } else {
        line_spill(lb);
        rc = put_fields(pr, stdout, r, false);
    }
    lb->p[lb->len++] = '\n';
    if (lb->len >= LINE_SPILL_AT || (pr->stack && c->stack != NULL))
        line_spill(lb);
    if (pr->stack && c->stack != NULL)
        put_text_stack(stdout, c->stack, c->stack_len);
    return rc;
}

/* {"time_ns":N,"time":"...","cpu":C,"pid":P,"event":"s:e","fields":{...}} */
static int output_json_event(struct printer *pr, const struct common *c,
                             const struct record *r)
{
    fputs_unlocked("{\"time_ns\":", stdout);
    put_u64(stdout, c->time_ns);
    fputs_unlocked(",\"time\":\"", stdout);
    put_iso_time(stdout, &pr->clock, c->time_ns);
    fputs("\",\"cpu\":", stdout);
    put_common_value(stdout, c->cpu_param, c->cpu, true);
    fputs(",\"pid\":", stdout);
    put_common_value(stdout, c->pid_param, c->pid, true);
    if (c->has_comm) {
        fputs(",\"comm\":", stdout);
        put_json_string(stdout, c->comm, strlen(c->comm));
    }
    fputs(",\"event\":", stdout);
    put_json_string(stdout, c->event, c->event_len);
    if (c->text) {
        const pmValueBlock *vb = c->text->vlist[0].value.pval;
        fputs(",\"text\":", stdout);
        put_json_string(stdout, vb->vbuf, strnlen(vb->vbuf, block_len(vb)));
    }
    fputs(",\"fields\":{", stdout);
    int rc = put_fields(pr, stdout, r, true);
    fputc('}', stdout);
    if (pr->stack && c->stack != NULL)
        put_json_stack(stdout, c->stack, c->stack_len);
    fputs("}\n", stdout);
    return rc;
}

void output_lost(struct printer *pr, uint64_t count, uint64_t ns)
{
    line_spill(&pr->line);
    if (pr->json) {
        printf("{\"lost\":%" PRIu64 ",\"time_ns\":%" PRIu64 "}\n", count, ns);
    } else {
        put_clock(stdout, &pr->clock, ns);
        printf(" LOST %" PRIu64 " events\n", count);
    }
}

int output_event(struct printer *pr, const struct common *c, const struct record *r)
{
    return pr->json ? output_json_event(pr, c, r) : output_text_event(pr, c, r);
}

int printer_flush(struct printer *pr, bool *closed)
{
    line_spill(&pr->line);
    return flush_output(closed);
}

void printer_free(struct printer *pr)
{
    lb_free(&pr->line);
}

/* Note stdout errors: EPIPE (the reader went away) ends the run quietly. */
int flush_output(bool *closed)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    *closed = true;
    if (errno == EPIPE)
        return 0;
    errmsg("cannot write the output: %s", strerror(errno));
    return -1;
}
