/*
 * libFuzzer harness for src/filter.c.
 *
 * The input up to its first NUL is a filter expression, compiled against a
 * fixed fake event that has every kind of field; what follows the NUL is one
 * more raw record.  Each compiled filter runs on fixed records, on every
 * truncation of them, and on that input record, each an exact-size heap copy
 * so that AddressSanitizer sees any read past the end.  Checked besides:
 *   - a failed compile returns -EINVAL or -E2BIG, no filter, a one-line
 *     message, and never writes past a small errlen;
 *   - !(E) matches exactly the records E does not (unless E is kernel-only),
 *     and (E) matches exactly those E does.
 *
 * Built and run by fuzz/fuzz.mk (make fuzz, make fuzz-short), as
 * build-fuzz/fuzz_filter with -max_len=2100.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_filter.h"

#define REC_SIZE    112
#define NRECS       3
#define ERR_SIZE    256

struct fake {
    struct tp_event e;
    struct tp_field common[4];
    struct tp_field fields[20];
};

static void add(struct fake *f, char *name, char *decl, uint32_t off, uint32_t size,
                enum tp_field_kind kind)
{
    f->fields[f->e.nfields++] = (struct tp_field){ .name = name, .decl = decl, .offset = off,
                                                   .size = size, .kind = kind };
}

static void make_event(struct fake *f)
{
    memset(f, 0, sizeof(*f));
    f->common[0] = (struct tp_field){ "common_type", "unsigned short common_type", 0, 2,
                                      TP_FIELD_UINT, 0 };
    f->common[1] = (struct tp_field){ "common_flags", "unsigned char common_flags", 2, 1,
                                      TP_FIELD_UINT, 0 };
    f->common[2] = (struct tp_field){ "common_preempt_count",
                                      "unsigned char common_preempt_count", 3, 1,
                                      TP_FIELD_UINT, 0 };
    f->common[3] = (struct tp_field){ "common_pid", "int common_pid", 4, 4, TP_FIELD_INT, 0 };
    f->e.fullname = "fuzz:event";
    f->e.loaded = true;
    f->e.common = f->common;
    f->e.ncommon = 4;
    f->e.fields = f->fields;
    add(f, "big", "u64 big", 8, 8, TP_FIELD_UINT);
    add(f, "sbig", "s64 sbig", 16, 8, TP_FIELD_INT);
    add(f, "ub", "u8 ub", 24, 1, TP_FIELD_UINT);
    add(f, "sb", "s8 sb", 25, 1, TP_FIELD_INT);
    add(f, "uw", "u16 uw", 26, 2, TP_FIELD_UINT);
    add(f, "sw", "s16 sw", 28, 2, TP_FIELD_INT);
    add(f, "ud", "u32 ud", 32, 4, TP_FIELD_UINT);
    add(f, "pid", "pid_t pid", 36, 4, TP_FIELD_INT);
    add(f, "ptr", "void * ptr", 40, 8, TP_FIELD_UINT);
    add(f, "name", "const char * name", 48, 8, TP_FIELD_UINT);
    add(f, "comm", "char comm[16]", 56, 16, TP_FIELD_STRING);
    add(f, "file", "__data_loc char[] file", 72, 4, TP_FIELD_DLOC_STRING);
    add(f, "rfile", "__rel_loc char[] rfile", 76, 4, TP_FIELD_RLOC_STRING);
    add(f, "buf", "u8 buf[4]", 80, 4, TP_FIELD_BYTES);
    add(f, "blob", "__data_loc u8[] blob", 84, 4, TP_FIELD_DLOC_BYTES);
    add(f, "tail", "char tail[]", 88, 0, TP_FIELD_STRING);
}

static void put(uint8_t *b, size_t off, uint64_t v, size_t size)
{
    memcpy(b + off, &v, size);      /* little-endian hosts: the low bytes */
}

/* A good record, one with wild values and locations, one of all 0xff. */
static void make_records(uint8_t recs[NRECS][REC_SIZE])
{
    uint8_t *b = recs[0];
    memset(b, 0, REC_SIZE);
    put(b, 0, 7, 2);
    put(b, 4, 1234, 4);
    put(b, 8, UINT64_MAX, 8);
    put(b, 16, (uint64_t)INT64_MIN, 8);
    put(b, 24, 200, 1);
    put(b, 25, 200, 1);
    put(b, 36, 42, 4);
    memcpy(b + 56, "bash", 4);
    put(b, 72, (uint64_t)8 << 16 | 88, 4);          /* file: "/bin/sh" at 88 */
    put(b, 76, (uint64_t)8 << 16 | 12, 4);          /* rfile: same bytes, relative */
    memcpy(b + 88, "/bin/sh", 8);
    b = recs[1];
    for (size_t i = 0; i < REC_SIZE; i++)
        b[i] = (uint8_t)(i * 37 + 11);
    put(b, 72, 0xffffffff, 4);
    put(b, 76, (uint64_t)0x40 << 16 | 0x20, 4);
    memset(recs[2], 0xff, REC_SIZE);
}

static bool run(const struct tp_filter *f, const uint8_t *rec, size_t len, unsigned cpu)
{
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        abort();
    memcpy(copy, rec, len);
    bool m = tp_filter_match(f, copy, (uint32_t)len, cpu);
    free(copy);
    return m;
}

static void check_error(int rc, const struct tp_filter *f, const char *err)
{
    if ((rc != -EINVAL && rc != -E2BIG) || f || !err[0] || strchr(err, '\n') ||
        strlen(err) >= ERR_SIZE)
        abort();
}

/* Compile with a 6-byte errlen: the message must stop inside it. */
static void check_short_errlen(const char *expr, const struct tp_event *e)
{
    char err[16];
    struct tp_filter *f = NULL;
    memset(err, 'Z', sizeof(err));
    int rc = tp_filter_compile(expr, e, &f, err, 6);
    tp_filter_free(f);
    for (size_t i = 6; i < sizeof(err); i++)
        if (err[i] != 'Z')
            abort();
    if (strnlen(err, 6) == 6 || (rc == 0 && err[0]))
        abort();
}

static struct tp_filter *compile_wrapped(const char *pre, const char *expr, const char *post,
                                         const struct tp_event *e)
{
    size_t n = strlen(pre) + strlen(expr) + strlen(post) + 1;
    char *s = malloc(n);
    char err[ERR_SIZE];
    struct tp_filter *f = NULL;
    if (!s)
        abort();
    snprintf(s, n, "%s%s%s", pre, expr, post);
    if (tp_filter_compile(s, e, &f, err, sizeof(err)) != 0)
        f = NULL;
    free(s);
    return f;
}

/* Run f (and !(E), (E) if they compile) on a record cut to lengths from..size. */
static void exercise(const struct tp_filter *f, const struct tp_filter *neg,
                     const struct tp_filter *par, const uint8_t *rec, size_t from, size_t size)
{
    for (size_t len = from; len <= size; len++) {
        unsigned cpu = (unsigned)len % 5;
        bool m = run(f, rec, len, cpu);
        if (neg && !tp_filter_kernel_only(f) && !tp_filter_uses_comm(f) && run(neg, rec, len, cpu) == m)
            abort();
        if (par && run(par, rec, len, cpu) != m)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fake ev;
    uint8_t recs[NRECS][REC_SIZE];
    char err[ERR_SIZE];
    struct tp_filter *f = NULL;
    const uint8_t *nul = memchr(data, 0, size);
    size_t elen = nul ? (size_t)(nul - data) : size;
    char *expr = malloc(elen + 1);
    if (!expr)
        abort();
    memcpy(expr, data, elen);
    expr[elen] = '\0';
    make_event(&ev);
    make_records(recs);

    int rc = tp_filter_compile(expr, &ev.e, &f, err, sizeof(err));
    check_short_errlen(expr, &ev.e);
    if (rc != 0) {
        check_error(rc, f, err);
    } else {
        if (!f || err[0])
            abort();
        struct tp_filter *neg = compile_wrapped("!(", expr, ")", &ev.e);
        struct tp_filter *par = compile_wrapped("(", expr, ")", &ev.e);
        for (int i = 0; i < NRECS; i++)
            exercise(f, neg, par, recs[i], 0, REC_SIZE);
        if (nul)
            exercise(f, neg, par, nul + 1, size - elen - 1, size - elen - 1);
        tp_filter_free(neg);
        tp_filter_free(par);
    }
    tp_filter_free(f);
    free(expr);
    return 0;
}
