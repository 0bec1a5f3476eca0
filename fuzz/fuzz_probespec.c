/*
 * libFuzzer harness for src/probespec.c: the probe specs users write for
 * uprobes and kprobes.
 *
 * The input, as a NUL-terminated copy (cut at its first NUL, as a C string
 * would be), is parsed as a uprobe and as a kprobe spec for x86_64, arm64
 * and no architecture; the first parse gets an error buffer of a length
 * taken from the input's size (0..39), the others a full one.  Checked,
 * from include/tp_probespec.h:
 *   - a success has an empty reason, the kind asked for, a path (absolute)
 *     for uprobes only, at most TP_PROBE_MAX_ARGS arguments with valid,
 *     unique names and known types, and fetchargs that build and hold no
 *     control bytes; written back as a spec, it parses to the same probe;
 *   - an error is -EINVAL, -E2BIG, -ENOTSUP or -ENOMEM with a non-empty
 *     printable reason shorter than errlen, and leaves the spec empty;
 *   - the error buffer is never written past errlen.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_probespec.h"

#define ERR_SIZE 300

static const char *const types[] = {
    "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64",
    "x8", "x16", "x32", "x64", "string", "ustring",
};

static void check_text(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            abort();
}

static void check_type(const char *t)
{
    size_t n = strcspn(t, "[");
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (strlen(types[i]) == n && strncmp(t, types[i], n) == 0) {
            unsigned count;
            char end;
            if (!t[n])
                return;
            if (i >= 12 || sscanf(t + n, "[%u%c", &count, &end) != 2 || end != ']' ||
                count < 1 || count > 64 || t[strlen(t) - 1] != ']')
                abort();
            return;
        }
    abort();
}

static void check_args(const struct tp_probe_spec *s)
{
    if (s->nargs > TP_PROBE_MAX_ARGS || (s->nargs && !s->args))
        abort();
    for (unsigned i = 0; i < s->nargs; i++) {
        const struct tp_probe_arg *a = &s->args[i];
        if (!tp_probe_name_ok(a->name) || !a->fetch || !a->fetch[0] ||
            strncmp(a->name, "common_", 7) == 0 || strncmp(a->name, "__", 2) == 0)
            abort();
        for (unsigned k = 0; k < i; k++)
            if (strcmp(a->name, s->args[k].name) == 0)
                abort();
        check_text(a->fetch);
        if (strchr(a->fetch, ' ') || (strstr(a->fetch, "$retval") && !s->is_return) ||
            strstr(a->fetch, "$arg"))
            abort();
        if (a->type)
            check_type(a->type);
    }
}

static void check_spec(const struct tp_probe_spec *s, enum tp_probe_kind kind)
{
    if (s->kind != kind || (kind == TP_PROBE_UPROBE) != !!s->path ||
        (s->path && s->path[0] != '/'))
        abort();
    if (s->symbol && (!s->symbol[0] || strchr(s->symbol, ':')))
        abort();
    check_args(s);
    char *args = NULL;
    if (tp_probespec_fetchargs(s, &args) != 0)
        abort();
    check_text(args);
    if (s->nargs == 0 && args[0])
        abort();
    free(args);
}

static void check_empty(const struct tp_probe_spec *s)
{
    static const struct tp_probe_spec empty;
    if (memcmp(s, &empty, sizeof(*s)) != 0)
        abort();
}

/* The spec written back from what was parsed; NULL when it would be too long. */
static char *write_back(const struct tp_probe_spec *s)
{
    size_t len = 4 * TP_PROBE_SPEC_MAX, o = 0;
    char *t = malloc(len);
    if (!t)
        abort();
    if (s->path)
        o += (size_t)snprintf(t + o, len - o, "%s:", s->path);
    if (s->symbol)
        o += (size_t)snprintf(t + o, len - o, "%s+%llu", s->symbol,
                              (unsigned long long)s->offset);
    else
        o += (size_t)snprintf(t + o, len - o, "0x%llx", (unsigned long long)s->offset);
    o += (size_t)snprintf(t + o, len - o, "%s", s->is_return ? "%return" : "");
    for (unsigned i = 0; i < s->nargs && o < len; i++)
        o += (size_t)snprintf(t + o, len - o, " %s=%s%s%s", s->args[i].name,
                              s->args[i].fetch, s->args[i].type ? ":" : "",
                              s->args[i].type ? s->args[i].type : "");
    if (o > TP_PROBE_SPEC_MAX) {
        free(t);
        return NULL;
    }
    return t;
}

static bool same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void check_round_trip(const struct tp_probe_spec *s, enum tp_probe_arch arch)
{
    char *text = write_back(s);
    struct tp_probe_spec again;
    char err[ERR_SIZE];
    if (!text)
        return;
    if (tp_probespec_parse(text, s->kind, arch, &again, err, sizeof(err)) != 0 ||
        !same_str(again.path, s->path) || !same_str(again.symbol, s->symbol) ||
        again.offset != s->offset || again.is_return != s->is_return ||
        again.nargs != s->nargs)
        abort();
    for (unsigned i = 0; i < s->nargs; i++)
        if (strcmp(again.args[i].name, s->args[i].name) != 0 ||
            !same_str(again.args[i].fetch, s->args[i].fetch) ||
            !same_str(again.args[i].type, s->args[i].type))
            abort();
    tp_probespec_free(&again);
    free(text);
}

static void check_error(int rc, const char *err, size_t errlen, const struct tp_probe_spec *s)
{
    if (rc != -EINVAL && rc != -E2BIG && rc != -ENOTSUP && rc != -ENOMEM)
        abort();
    check_empty(s);
    if (errlen == 0)
        return;
    if (errlen > 1 && !err[0])
        abort();
    if (errlen && strlen(err) >= errlen)
        abort();
    check_text(err);
    for (const char *p = err; *p; p++)
        if ((unsigned char)*p >= 0x7f)
            abort();
}

static void parse_one(const char *text, enum tp_probe_kind kind, enum tp_probe_arch arch,
                      size_t errlen)
{
    char err[ERR_SIZE];
    struct tp_probe_spec s;
    memset(err, 'Z', sizeof(err));
    memset(&s, 0xa5, sizeof(s));
    int rc = tp_probespec_parse(text, kind, arch, &s, err, errlen);
    for (size_t i = errlen; i < sizeof(err); i++)
        if (err[i] != 'Z')
            abort();
    if (rc == 0) {
        if (errlen && err[0])
            abort();
        check_spec(&s, kind);
        check_round_trip(&s, arch);
        tp_probespec_free(&s);
        check_empty(&s);
    } else {
        check_error(rc, err, errlen, &s);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const enum tp_probe_arch arches[] = { TP_ARCH_X86_64, TP_ARCH_ARM64, TP_ARCH_NONE };
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    for (unsigned k = 0; k < 2; k++)
        for (unsigned a = 0; a < 3; a++)
            parse_one(text, k ? TP_PROBE_KPROBE : TP_PROBE_UPROBE, arches[a],
                      k == 0 && a == 0 ? size % 40 : ERR_SIZE - 20);
    free(text);
    return 0;
}
