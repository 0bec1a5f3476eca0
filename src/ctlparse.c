/*
 * Parsing the strings clients store into the control metrics.  Pure: no
 * state, no I/O; see tp_control.h for the syntax.
 */
#include "tp_control.h"
#include "tp_with.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcp/pmapi.h>

#include "tp_filter.h"
#include "tp_probespec.h"
#include "tp_util.h"

#define PATTERN_MAX 127


/* ---- parsing ------------------------------------------------------------- */

/* Length without one trailing NUL; PM_ERR_* for NULs inside or control bytes. */
static int check_text(const char *text, size_t *len, char *err, size_t errlen)
{
    if (*len > 0 && text[*len - 1] == '\0')
        (*len)--;
    if (*len > TP_CTL_MAX_TEXT)
        return tp_errf(err, errlen, PM_ERR_TOOBIG, "%zu bytes: at most %d may be stored",
                    *len, TP_CTL_MAX_TEXT);
    for (size_t i = 0; i < *len; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '\0')
            return tp_errf(err, errlen, PM_ERR_BADSTORE, "NUL byte at offset %zu", i);
        if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
            return tp_errf(err, errlen, PM_ERR_BADSTORE, "control character 0x%02x at offset %zu",
                        ch, i);
    }
    return 0;
}

static bool pattern_char(int ch)
{
    return isalnum(ch) || ch == '_' || ch == '*' || ch == '?';
}

/* "sys:event" with globs; or "*" where allowed. */
static int check_pattern(const char *p, bool star_ok, char *err, size_t errlen)
{
    size_t n = strlen(p);
    const char *colon = strchr(p, ':');
    if (star_ok && strcmp(p, "*") == 0)
        return 0;
    if (n > PATTERN_MAX)
        return tp_errf(err, errlen, PM_ERR_TOOBIG, "event pattern of %zu bytes (at most %d)",
                    n, PATTERN_MAX);
    bool ok = colon && colon != p && colon[1] && !strchr(colon + 1, ':');
    for (const char *c = p; ok && *c; c++)
        ok = *c == ':' || pattern_char((unsigned char)*c);
    if (!ok)
        return tp_errf(err, errlen, PM_ERR_BADSTORE,
                    "bad event pattern '%.64s' (want system:event; letters, digits, _ * ?)", p);
    return 0;
}

/* Split a list of patterns at commas and blanks into req. */
static int split_patterns(const char *s, size_t len, struct tp_ctl_request *req,
                          bool star_ok, char *err, size_t errlen)
{
    size_t i = 0;
    while (i < len) {
        while (i < len && (s[i] == ',' || isblank((unsigned char)s[i])))
            i++;
        size_t start = i;
        while (i < len && s[i] != ',' && !isblank((unsigned char)s[i]))
            i++;
        if (i == start)
            break;
        if (req->npatterns == TP_CTL_MAX_PATTERNS)
            return tp_errf(err, errlen, PM_ERR_TOOBIG, "more than %d event patterns",
                        TP_CTL_MAX_PATTERNS);
        char *p = strndup(s + start, i - start);
        if (!p)
            return -ENOMEM;
        req->patterns[req->npatterns++] = p;
        int rc = check_pattern(p, star_ok, err, errlen);
        if (rc < 0)
            return rc;
    }
    if (req->npatterns == 0)
        return tp_errf(err, errlen, PM_ERR_BADSTORE, "no event given");
    return 0;
}

/* The first blank-separated word of s, and the rest trimmed: offsets and lengths. */
struct word_rest {
    size_t word, nword, rest, nrest;
};

static struct word_rest first_word(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && isblank((unsigned char)s[i]))
        i++;
    struct word_rest wr = { .word = i };
    while (i < len && !isblank((unsigned char)s[i]))
        i++;
    wr.nword = i - wr.word;
    while (i < len && isblank((unsigned char)s[i]))
        i++;
    while (len > i && isblank((unsigned char)s[len - 1]))
        len--;
    wr.rest = i;
    wr.nrest = len - i;
    return wr;
}

/* "PATTERN[,PATTERN] EXPRESSION": the first word, then the rest trimmed. */
static int split_filter(const char *s, size_t len, struct tp_ctl_request *req,
                        char *err, size_t errlen)
{
    struct word_rest wr = first_word(s, len);
    int rc = split_patterns(s + wr.word, wr.nword, req, false, err, errlen);
    if (rc < 0)
        return rc;
    if (wr.nrest > TP_FILTER_MAX_LEN)
        return tp_errf(err, errlen, PM_ERR_TOOBIG, "filter of %zu bytes (at most %d)", wr.nrest,
                    TP_FILTER_MAX_LEN);
    if (wr.nrest && !(req->filter = strndup(s + wr.rest, wr.nrest)))
        return -ENOMEM;
    return 0;
}

static int parse_params(const char *s, size_t len, struct tp_ctl_request *req,
                        char *err, size_t errlen)
{
    char *text = strndup(s, len);
    if (!text)
        return -ENOMEM;
    int rc = tp_with_parse(text, &req->with, err, errlen);
    free(text);
    return rc;
}

/* "NAME SPEC": the name checked here, the spec when the probe is made. */
static int parse_probe(const char *s, size_t len, struct tp_ctl_request *req,
                       char *err, size_t errlen)
{
    struct word_rest wr = first_word(s, len);
    if (wr.nword == 0 || wr.nrest == 0)
        return tp_errf(err, errlen, PM_ERR_BADSTORE, "a probe is defined as \"NAME SPEC\"");
    if (wr.nrest > TP_PROBE_SPEC_MAX)
        return tp_errf(err, errlen, PM_ERR_TOOBIG, "probe spec of %zu bytes (at most %d)",
                       wr.nrest, TP_PROBE_SPEC_MAX);
    if (!(req->probe = strndup(s + wr.word, wr.nword)) ||
        !(req->spec = strndup(s + wr.rest, wr.nrest)))
        return -ENOMEM;
    if (!tp_probe_name_ok(req->probe))
        return tp_errf(err, errlen, PM_ERR_BADSTORE, "bad probe name (a letter or _, then "
                       "letters, digits and _, at most %d)", TP_PROBE_NAME_MAX);
    return 0;
}

int tp_ctl_parse(enum tp_ctl_op op, const char *text, size_t len,
                 struct tp_ctl_request *req, char *err, size_t errlen)
{
    memset(req, 0, sizeof(*req));
    req->op = op;
    snprintf(err, errlen, "%s", "");
    int rc = check_text(text, &len, err, errlen);
    if (rc == 0) {
        if (op == TP_CTL_REGISTER || op == TP_CTL_UNREGISTER)
            rc = split_patterns(text, len, req, op == TP_CTL_UNREGISTER, err, errlen);
        else if (op == TP_CTL_PARAMS)
            rc = parse_params(text, len, req, err, errlen);
        else if (op == TP_CTL_PROBE)
            rc = parse_probe(text, len, req, err, errlen);
        else
            rc = split_filter(text, len, req, err, errlen);
    }
    if (rc == -ENOMEM)
        rc = tp_errf(err, errlen, -ENOMEM, "out of memory");
    if (rc < 0)
        tp_ctl_request_free(req);
    return rc;
}

void tp_ctl_request_free(struct tp_ctl_request *req)
{
    for (size_t i = 0; i < req->npatterns; i++)
        free(req->patterns[i]);
    free(req->filter);
    free(req->probe);
    free(req->spec);
    memset(req, 0, sizeof(*req));
}

