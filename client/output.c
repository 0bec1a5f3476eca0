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
    fputc(json ? '"' : '[', f);
    for (size_t i = 0; i < len; i++)
        fprintf(f, "%02x", (unsigned char)p[i]);
    fputc(json ? '"' : ']', f);
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
    case PM_TYPE_32:  fprintf(f, "%" PRId32, a.l); break;
    case PM_TYPE_U32: fprintf(f, "%" PRIu32, a.ul); break;
    case PM_TYPE_64:  fprintf(f, "%" PRId64, a.ll); break;
    case PM_TYPE_U64: fprintf(f, "%" PRIu64, a.ull); break;
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

/* ISO 8601 with nanoseconds and the UTC offset, local time. */
static void put_iso_time(FILE *f, struct clock_cache *cc, uint64_t ns)
{
    const struct tm *tm = local_tm(cc, (time_t)(ns / NS_PER_SEC));
    long off = tm->tm_gmtoff / 60;

    fprintf(f, "%04d-%02d-%02dT%02d:%02d:%02d.%09u%c%02ld:%02ld",
            tm->tm_year + 1900, tm->tm_mon + 1, tm->tm_mday,
            tm->tm_hour, tm->tm_min, tm->tm_sec, (unsigned)(ns % NS_PER_SEC),
            off < 0 ? '-' : '+', labs(off) / 60, labs(off) % 60);
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
        const struct param *p = param_get(pr->params, vs->pmid);
        if (p == NULL)
            return -ENOMEM;
        if (p->role != FIELD || vs->numval < 1)
            continue;
        if (json) {
            fputs(first ? "" : ",", f);
            put_json_string(f, p->field, strlen(p->field));
            fputc(':', f);
        } else {
            fprintf(f, " %s=", p->field);
        }
        if (json || !put_named(f, pr->params, p, value_type(p, vs->valfmt, &vs->vlist[0]), vs))
            put_value(f, p, vs, json);
        first = false;
    }
    return 0;
}

/* The event's text as the PMDA rendered it: " TEXT", nothing if it is empty. */
static void put_text(FILE *f, const pmValueSet *vs)
{
    const pmValueBlock *vb = vs->vlist[0].value.pval;
    size_t len = strnlen(vb->vbuf, block_len(vb));
    if (len > 0) {
        fputc(' ', f);
        put_escaped(f, vb->vbuf, len, false);   /* names and file names may hold anything */
    }
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

/* TIME [CPU] COMM-PID system:event: TEXT (or field=value ...) */
static int output_text_event(struct printer *pr, const struct common *c,
                             const struct record *r)
{
    put_clock(stdout, &pr->clock, c->time_ns);
    fputs(" [", stdout);
    if (c->cpu != NULL && c->cpu->numval > 0)
        printf("%03" PRIu32, (uint32_t)insitu_value(c->cpu));
    else
        fputc('?', stdout);
    fputs("] ", stdout);
    if (c->has_comm)
        put_escaped(stdout, c->comm, strlen(c->comm), false);
    else
        fputs("<...>", stdout);
    fputc('-', stdout);
    put_common_value(stdout, c->pid_param, c->pid, false);
    printf(" %s:", c->event);
    int rc = 0;
    if (c->text && !pr->raw)
        put_text(stdout, c->text);
    else
        rc = put_fields(pr, stdout, r, false);
    fputc('\n', stdout);
    if (pr->stack && c->stack != NULL)
        put_text_stack(stdout, c->stack, c->stack_len);
    return rc;
}

/* {"time_ns":N,"time":"...","cpu":C,"pid":P,"event":"s:e","fields":{...}} */
static int output_json_event(struct printer *pr, const struct common *c,
                             const struct record *r)
{
    printf("{\"time_ns\":%" PRIu64 ",\"time\":\"", c->time_ns);
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
    put_json_string(stdout, c->event, strlen(c->event));
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
