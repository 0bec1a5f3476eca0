/*
 * libFuzzer harness for src/ctlparse.c: the strings clients store into
 * tracepoint.control.{register,filter,unregister} and, in one step,
 * tracepoint.records.
 *
 * The first byte of the input picks the operation (low three bits, modulo
 * the number of operations) and the length of the error buffer (the rest);
 * the other bytes are the stored text, passed as received (with a trailing
 * NUL when the input ends in one).  params and probe requests are checked
 * for their own shape: a word list within the known bits; a valid probe
 * name and a trimmed spec of at most TP_PROBE_SPEC_MAX bytes, no patterns.
 * Checked, from include/tp_control.h:
 *   - an error is PM_ERR_TOOBIG or PM_ERR_BADSTORE (or -ENOMEM) with a
 *     non-empty one-line reason within errlen, and leaves the request empty;
 *   - a success has 1..TP_CTL_MAX_PATTERNS valid "sys:event" patterns (or
 *     "*" for unregister), a filter only for filter and records, trimmed,
 *     non-empty and at most TP_FILTER_MAX_LEN bytes;
 *   - the request written back as text parses to the same request;
 *   - the error buffer is never written past errlen.
 * A filter is then compiled, as the PMDA compiles it for each matching
 * event, against a fake event with one field of every kind.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcp/pmapi.h>

#include "tp_control.h"
#include "tp_filter.h"
#include "tp_probespec.h"
#include "tp_with.h"

#define ERR_SIZE 300

struct fake {
    struct tp_event e;
    struct tp_field common[4];
    struct tp_field fields[8];
};

static void make_event(struct fake *f)
{
    memset(f, 0, sizeof(*f));
    f->common[0] = (struct tp_field){ "common_type", "unsigned short common_type", 0, 2,
                                      TP_FIELD_UINT, PM_TYPE_U32 };
    f->common[1] = (struct tp_field){ "common_flags", "unsigned char common_flags", 2, 1,
                                      TP_FIELD_UINT, PM_TYPE_U32 };
    f->common[2] = (struct tp_field){ "common_preempt_count",
                                      "unsigned char common_preempt_count", 3, 1,
                                      TP_FIELD_UINT, PM_TYPE_U32 };
    f->common[3] = (struct tp_field){ "common_pid", "int common_pid", 4, 4, TP_FIELD_INT,
                                      PM_TYPE_32 };
    f->fields[0] = (struct tp_field){ "pid", "pid_t pid", 8, 4, TP_FIELD_INT, PM_TYPE_32 };
    f->fields[1] = (struct tp_field){ "id", "long id", 16, 8, TP_FIELD_INT, PM_TYPE_64 };
    f->fields[2] = (struct tp_field){ "flags", "unsigned int flags", 24, 4, TP_FIELD_UINT,
                                      PM_TYPE_U32 };
    f->fields[3] = (struct tp_field){ "comm", "char comm[16]", 28, 16, TP_FIELD_STRING,
                                      PM_TYPE_STRING };
    f->fields[4] = (struct tp_field){ "filename", "__data_loc char[] filename", 44, 4,
                                      TP_FIELD_DLOC_STRING, PM_TYPE_STRING };
    f->fields[5] = (struct tp_field){ "name", "const char * name", 48, 8, TP_FIELD_UINT,
                                      PM_TYPE_U64 };
    f->fields[6] = (struct tp_field){ "buf", "u8 buf[4]", 56, 4, TP_FIELD_BYTES,
                                      PM_TYPE_AGGREGATE };
    f->fields[7] = (struct tp_field){ "rname", "__rel_loc char[] rname", 60, 4,
                                      TP_FIELD_RLOC_STRING, PM_TYPE_STRING };
    f->e.system = "fuzz";
    f->e.name = "event";
    f->e.fullname = "fuzz:event";
    f->e.loaded = true;
    f->e.kernel_id = 1;
    f->e.pid_offset = 4;
    f->e.common = f->common;
    f->e.ncommon = 4;
    f->e.fields = f->fields;
    f->e.nfields = 8;
}

static bool pattern_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '*' || c == '?';
}

static void check_pattern(const char *p, bool star_ok)
{
    if (star_ok && strcmp(p, "*") == 0)
        return;
    const char *colon = strchr(p, ':');
    if (!colon || colon == p || !colon[1] || strchr(colon + 1, ':') || strlen(p) > 127)
        abort();
    for (const char *c = p; *c; c++)
        if (*c != ':' && !pattern_char(*c))
            abort();
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* params: no patterns, known bits; probe: a name, a trimmed spec. */
static void check_other(const struct tp_ctl_request *r)
{
    if (r->npatterns || r->filter)
        abort();
    if (r->op == TP_CTL_PARAMS) {
        if (r->with & ~(unsigned)TP_WITH_ALL || r->probe)
            abort();
        return;
    }
    size_t n = r->spec ? strlen(r->spec) : 0;
    if (!r->probe || !tp_probe_name_ok(r->probe) || n == 0 || n > TP_PROBE_SPEC_MAX ||
        is_blank(r->spec[0]) || is_blank(r->spec[n - 1]))
        abort();
    char *text = NULL, err[ERR_SIZE];
    struct tp_ctl_request again;
    if (asprintf(&text, "%s %s", r->probe, r->spec) < 0)
        abort();
    if (tp_ctl_parse(TP_CTL_PROBE, text, strlen(text), &again, err, sizeof(err)) != 0 ||
        strcmp(again.probe, r->probe) != 0 || strcmp(again.spec, r->spec) != 0)
        abort();
    tp_ctl_request_free(&again);
    free(text);
}

static void check_request(const struct tp_ctl_request *r, enum tp_ctl_op op)
{
    if (r->op != op)
        abort();
    if (op == TP_CTL_PARAMS || op == TP_CTL_PROBE) {
        check_other(r);
        return;
    }
    if (r->npatterns == 0 || r->npatterns > TP_CTL_MAX_PATTERNS)
        abort();
    for (size_t i = 0; i < r->npatterns; i++)
        check_pattern(r->patterns[i], op == TP_CTL_UNREGISTER);
    if (r->filter) {
        size_t n = strlen(r->filter);
        if (op == TP_CTL_REGISTER || op == TP_CTL_UNREGISTER || n == 0 ||
            n > TP_FILTER_MAX_LEN || is_blank(r->filter[0]) || is_blank(r->filter[n - 1]))
            abort();
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)r->filter[i];
            if ((c < 0x20 && c != '\t') || c == 0x7f)
                abort();
        }
    }
}

static void check_empty(const struct tp_ctl_request *r)
{
    if (r->npatterns || r->filter || r->probe || r->spec || r->with)
        abort();
    for (size_t i = 0; i < TP_CTL_MAX_PATTERNS; i++)
        if (r->patterns[i])
            abort();
}

/* The request as a client would write it; parses back to the same request. */
static void check_round_trip(const struct tp_ctl_request *r)
{
    size_t n = 1;
    for (size_t i = 0; i < r->npatterns; i++)
        n += strlen(r->patterns[i]) + 1;
    n += r->filter ? strlen(r->filter) + 1 : 0;
    char *text = malloc(n);
    size_t o = 0;
    if (!text)
        abort();
    for (size_t i = 0; i < r->npatterns; i++) {
        if (i)
            text[o++] = r->op == TP_CTL_REGISTER || r->op == TP_CTL_UNREGISTER ? ' ' : ',';
        memcpy(text + o, r->patterns[i], strlen(r->patterns[i]));
        o += strlen(r->patterns[i]);
    }
    if (r->filter) {
        text[o++] = ' ';
        memcpy(text + o, r->filter, strlen(r->filter));
        o += strlen(r->filter);
    }
    struct tp_ctl_request again;
    char err[ERR_SIZE];
    if (o > TP_CTL_MAX_TEXT) {          /* longer than it came: only if blanks were cut */
        free(text);
        return;
    }
    if (tp_ctl_parse(r->op, text, o, &again, err, sizeof(err)) != 0 ||
        again.npatterns != r->npatterns || !again.filter != !r->filter ||
        (r->filter && strcmp(again.filter, r->filter) != 0))
        abort();
    for (size_t i = 0; i < r->npatterns; i++)
        if (strcmp(again.patterns[i], r->patterns[i]) != 0)
            abort();
    tp_ctl_request_free(&again);
    free(text);
}

/* Compile the filter against the fake event, as the PMDA does per event. */
static void compile_filter(const char *filter)
{
    struct fake ev;
    struct tp_filter *f = NULL;
    char err[256];
    make_event(&ev);
    int rc = tp_filter_compile(filter, &ev.e, &f, err, sizeof(err));
    if (rc == 0) {
        if (!f || err[0])
            abort();
        uint8_t rec[64] = { 1, 0, 0, 0, 7, 0, 0, 0 };
        for (size_t len = 0; len <= sizeof(rec); len += 8) {
            uint8_t *copy = malloc(len ? len : 1);
            if (!copy)
                abort();
            memcpy(copy, rec, len);
            (void)tp_filter_match(f, copy, (uint32_t)len, 0);
            free(copy);
        }
    } else if ((rc != -EINVAL && rc != -E2BIG && rc != -ENOMEM) || f || !err[0] ||
               strchr(err, '\n')) {
        abort();
    }
    tp_filter_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    enum tp_ctl_op op = (enum tp_ctl_op)((data[0] & 7) % (TP_CTL_PROBE + 1));
    size_t errlen = data[0] >> 3 ? (size_t)(data[0] >> 3) : ERR_SIZE - 20;
    size_t len = size - 1;
    char *text = malloc(len ? len : 1);         /* exact size: no terminator */
    char err[ERR_SIZE];
    struct tp_ctl_request req;
    if (!text)
        abort();
    memcpy(text, data + 1, len);
    memset(err, 'Z', sizeof(err));

    int rc = tp_ctl_parse(op, text, len, &req, err, errlen);
    for (size_t i = errlen; i < sizeof(err); i++)
        if (err[i] != 'Z')
            abort();
    if (!memchr(err, '\0', errlen))
        abort();
    if (rc == 0) {
        if (err[0])
            abort();
        check_request(&req, op);
        if (op != TP_CTL_PARAMS && op != TP_CTL_PROBE)
            check_round_trip(&req);
        if (req.filter)
            compile_filter(req.filter);
        tp_ctl_request_free(&req);
        check_empty(&req);
    } else {
        if (rc != PM_ERR_TOOBIG && rc != PM_ERR_BADSTORE && rc != -ENOMEM)
            abort();
        if (errlen > 1 && (!err[0] || strchr(err, '\n')))
            abort();
        check_empty(&req);
    }
    free(text);
    return 0;
}
