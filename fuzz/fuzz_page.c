/*
 * libFuzzer harness for the producer's data path: src/decode.c (one
 * sub-buffer as read from trace_pipe_raw into its events) and src/fields.c
 * (the field values records.c turns into event-record parameters).
 *
 * The input is one sub-buffer, copied into a buffer of exactly its size
 * (malloc'd, so 8-byte aligned) so that AddressSanitizer sees any read past
 * what was "read".  The decoder must either refuse the page, handing nothing
 * on, or hand on events that lie, in order and without overlap, inside the
 * page's data.  The page is decoded a second time from a copy that ends
 * where an inaccessible page begins, so that code built without
 * AddressSanitizer (a library) cannot read past the end unseen either; both
 * decodes must agree.
 *
 * Each event is copied into a buffer of exactly its size, and every field of
 * its format (chosen by common_type, as the producer routes events) is
 * decoded from it as records.c does.  The formats: real ones
 * (sched_process_exec, sys_enter_getpid), one with a field of every kind
 * (fixed scalars, char array, char[] to the end, other arrays, __data_loc
 * and __rel_loc strings and arrays, an odd-sized scalar), and one whose
 * offsets lie near 2^32.  Each value is checked against a plain
 * re-computation from the bytes, and the format's compiled filter runs on
 * the event as it does in the producer.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <pcp/pmapi.h>
#include <traceevent/event-parse.h>

#include "tp_catalog.h"
#include "tp_decode.h"
#include "tp_fields.h"
#include "tp_filter.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the checks below read little-endian values"
#endif

#define MAX_FIELDS 16
#define MAX_GUARDED (64 * 1024)     /* inputs up to this size are decoded twice */

struct format {
    struct tp_event e;
    struct tp_field common[4];
    struct tp_field fields[MAX_FIELDS];
    struct tp_filter *filter;
};

static void field(struct format *f, const char *type, const char *name, uint32_t off,
                  uint32_t size, unsigned long flags)
{
    struct tp_field *tf = &f->fields[f->e.nfields++];
    tf->name = (char *)name;
    tf->decl = (char *)type;
    tf->offset = off;
    tf->size = size;
    tf->kind = tp_field_classify(flags, type, (int)size, &tf->pmtype);
}

static void common(struct format *f, const char *sys, const char *name, const char *full)
{
    f->common[0] = (struct tp_field){ "common_type", "unsigned short", 0, 2, TP_FIELD_UINT,
                                      PM_TYPE_U32 };
    f->common[1] = (struct tp_field){ "common_flags", "unsigned char", 2, 1, TP_FIELD_UINT,
                                      PM_TYPE_U32 };
    f->common[2] = (struct tp_field){ "common_preempt_count", "unsigned char", 3, 1,
                                      TP_FIELD_UINT, PM_TYPE_U32 };
    f->common[3] = (struct tp_field){ "common_pid", "int", 4, 4, TP_FIELD_INT, PM_TYPE_32 };
    f->e.system = (char *)sys;
    f->e.name = (char *)name;
    f->e.fullname = (char *)full;
    f->e.loaded = true;
    f->e.pid_offset = 4;
    f->e.common = f->common;
    f->e.ncommon = 4;
    f->e.fields = f->fields;
}

enum { S = TEP_FIELD_IS_SIGNED, A = TEP_FIELD_IS_ARRAY, D = TEP_FIELD_IS_DYNAMIC,
       R = TEP_FIELD_IS_RELATIVE, P = TEP_FIELD_IS_POINTER, STR = TEP_FIELD_IS_STRING };

#define NFORMATS 4
static struct format formats[NFORMATS];
static uint8_t *guard;                  /* MAX_GUARDED bytes, then no access */

static void setup(void)
{
    struct format *f = &formats[0];
    char err[256];
    common(f, "sched", "sched_process_exec", "sched:sched_process_exec");
    f->e.kernel_id = 365;
    field(f, "__data_loc char[]", "filename", 8, 4, A | D | STR);
    field(f, "pid_t", "pid", 12, 4, S);
    field(f, "pid_t", "old_pid", 16, 4, S);
    if (tp_filter_compile("filename ~ \"*sh\" || pid > 100", &f->e, &f->filter, err,
                          sizeof(err)) != 0)
        abort();

    f = &formats[1];
    common(f, "syscalls", "sys_enter_getpid", "syscalls:sys_enter_getpid");
    f->e.kernel_id = 309;
    field(f, "int", "__syscall_nr", 8, 4, S);
    if (tp_filter_compile("common_pid != 1 && __syscall_nr == 39", &f->e, &f->filter, err,
                          sizeof(err)) != 0)
        abort();

    f = &formats[2];
    common(f, "fuzz", "every_kind", "fuzz:every_kind");
    f->e.kernel_id = 1;
    field(f, "u8", "a", 8, 1, 0);
    field(f, "s8", "b", 9, 1, S);
    field(f, "s16", "c", 10, 2, S);
    field(f, "u32", "d", 12, 4, 0);
    field(f, "s64", "e", 16, 8, S);
    field(f, "void *", "ptr", 24, 8, P);
    field(f, "char[16]", "comm", 32, 16, A | STR);
    field(f, "__rel_loc char[]", "rel", 48, 4, A | D | R | STR);
    field(f, "u8[6]", "buf", 52, 6, A);
    field(f, "struct x", "odd", 58, 3, 0);
    field(f, "__data_loc u32[]", "arr", 8, 4, A | D);
    field(f, "__rel_loc u16[]", "rarr", 12, 4, A | D | R);
    field(f, "__data_loc char[]", "name", 20, 4, A | D | STR);
    field(f, "char[]", "tail", 40, 0, A | STR);
    field(f, "u64", "big", 64, 8, 0);
    if (tp_filter_compile("comm ~ \"b*\" && rel == \"x\" || e < -1 || name ~ \"*a*\"", &f->e,
                          &f->filter, err, sizeof(err)) != 0)
        abort();

    f = &formats[3];
    common(f, "fuzz", "far", "fuzz:far");
    f->e.kernel_id = 2;
    f->e.pid_offset = UINT32_MAX - 1;
    field(f, "__data_loc char[]", "dl", UINT32_MAX - 3, 4, A | D | STR);
    field(f, "__rel_loc char[]", "rl", UINT32_MAX - 5, 4, A | D | R | STR);
    field(f, "__rel_loc u8[]", "rb", UINT32_MAX - 8, 4, A | D | R);
    field(f, "u64", "u", UINT32_MAX - 7, 8, 0);
    field(f, "char[]", "t", UINT32_MAX, 0, A | STR);
    field(f, "char[8]", "c", UINT32_MAX - 2, 8, A | STR);

    long pg = sysconf(_SC_PAGESIZE);
    uint8_t *map = mmap(NULL, MAX_GUARDED + (size_t)pg, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map + MAX_GUARDED, (size_t)pg, PROT_NONE) != 0)
        abort();
    guard = map + MAX_GUARDED;
}

/* Where the field should be, computed afresh; false if not inside the record. */
static bool expect(const struct tp_field *f, const uint8_t *d, uint32_t len, uint64_t *start,
                   uint64_t *size)
{
    bool dyn = f->kind == TP_FIELD_DLOC_STRING || f->kind == TP_FIELD_DLOC_BYTES ||
               f->kind == TP_FIELD_RLOC_STRING || f->kind == TP_FIELD_RLOC_BYTES;
    bool rel = f->kind == TP_FIELD_RLOC_STRING || f->kind == TP_FIELD_RLOC_BYTES;
    if (dyn) {
        if ((uint64_t)f->offset + 4 > len)
            return false;
        uint64_t w = (uint64_t)d[f->offset] | (uint64_t)d[f->offset + 1] << 8 |
                     (uint64_t)d[f->offset + 2] << 16 | (uint64_t)d[f->offset + 3] << 24;
        *start = (w & 0xffff) + (rel ? (uint64_t)f->offset + 4 : 0);
        *size = w >> 16;
    } else {
        *start = f->offset;
        *size = f->size ? f->size : (*start <= len ? len - *start : 0);
    }
    return *start + *size <= len;
}

static uint64_t le(const uint8_t *p, uint32_t n, bool sign)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    if (sign && n < 8 && (v >> (8 * n - 1) & 1))
        v |= ~(uint64_t)0 << (8 * n);
    return v;
}

/* Decode field f of the record as records.c does, and check the value. */
static void decode_field(const struct tp_field *f, const uint8_t *d, uint32_t len)
{
    struct tp_field_value v;
    uint32_t off, n;
    uint64_t start, size;
    bool want = expect(f, d, len, &start, &size);
    bool located = tp_field_locate(f, d, len, &off, &n);
    if (located != want || (located && (off != start || n != size)))
        abort();
    bool scalar = f->pmtype == PM_TYPE_32 || f->pmtype == PM_TYPE_U32 ||
                  f->pmtype == PM_TYPE_64 || f->pmtype == PM_TYPE_U64;
    bool sized = n == 1 || n == 2 || n == 4 || n == 8;
    memset(&v, 0xa5, sizeof(v));
    bool got = tp_field_value(f, d, len, &v);
    if (got != (located && (!scalar || sized)))
        abort();
    if (!got)
        return;
    if (v.off != off || v.n != n)
        abort();
    if (scalar) {
        bool sign = f->pmtype == PM_TYPE_32 || f->pmtype == PM_TYPE_64;
        if (v.v.u != le(d + off, n, sign))
            abort();
        return;
    }
    /* What records.c copies out: the string and a NUL, or the raw bytes. */
    size_t copy = f->pmtype == PM_TYPE_STRING ? v.len : v.n;
    char *out = malloc(copy + 1);
    if (!out)
        abort();
    memcpy(out, d + v.off, copy);
    out[copy] = '\0';
    if (f->pmtype == PM_TYPE_STRING &&
        (v.len > n || memchr(out, '\0', v.len) || (v.len < n && d[off + v.len] != 0)))
        abort();
    free(out);
}

struct walk {
    const uint8_t *page;
    const uint8_t *data_end;
    const uint8_t *next;        /* no event may start before this */
    unsigned events;
    uint64_t sum;               /* of event offsets, sizes and times */
    bool fields;                /* decode the fields of each event */
};

static void on_event(void *arg, const void *data, uint32_t size, uint64_t ts)
{
    struct walk *w = arg;
    const uint8_t *e = data;
    if (e < w->next || size < 2 || e > w->data_end || size > (size_t)(w->data_end - e))
        abort();
    w->next = e + size;
    w->events++;
    w->sum = w->sum * 31 + (uint64_t)(e - w->page);
    w->sum = w->sum * 31 + size;
    w->sum = w->sum * 31 + ts;
    if (!w->fields)
        return;

    uint8_t *rec = malloc(size);                /* exactly the event */
    if (!rec)
        abort();
    memcpy(rec, e, size);
    /* The event's format by its common_type, as the producer routes it. */
    uint16_t id;
    memcpy(&id, rec, sizeof(id));
    const struct format *f = &formats[id % NFORMATS];
    for (int i = 0; i < NFORMATS; i++)
        if (formats[i].e.kernel_id == id)
            f = &formats[i];
    for (unsigned j = 0; j < f->e.nfields; j++)
        decode_field(&f->fields[j], rec, size);
    for (unsigned j = 0; j < f->e.ncommon; j++)
        decode_field(&f->common[j], rec, size);
    (void)tp_filter_match(f->filter, rec, size, 0);
    free(rec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A 64-bit kernel's sub-buffer header, and a 32-bit one's (4-byte commit word). */
static const struct tp_page_layout layouts[] = { { 8, 8, 16 }, { 8, 4, 12 } };

static long decode(const uint8_t *page, size_t size, struct tp_page_layout layout, bool fields,
                   struct walk *w, int *truncated)
{
    *w = (struct walk){ .page = page, .data_end = page + size, .fields = fields,
                        .next = page + layout.data_offset };
    *truncated = -1;
    long len = tp_decode_page(page, size, &layout, on_event, w, truncated);
    if (len == -EINVAL) {
        if (w->events || *truncated)
            abort();
    } else if (len < 0 || (size_t)len > size - layout.data_offset ||
               (*truncated != 0 && *truncated != 1) ||
               w->next > page + layout.data_offset + len) {
        abort();
    }
    return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!guard)
        setup();
    for (size_t k = 0; k < sizeof(layouts) / sizeof(layouts[0]); k++) {
        uint8_t *page = malloc(size ? size : 1);
        if (!page)
            abort();
        memcpy(page, data, size);
        struct walk w, wg;
        int truncated, tg;
        long len = decode(page, size, layouts[k], true, &w, &truncated);
        free(page);

        if (size <= MAX_GUARDED) {
            uint8_t *end = guard - size;
            memcpy(end, data, size);
            long lg = decode(end, size, layouts[k], false, &wg, &tg);
            if (lg != len || tg != truncated || wg.events != w.events || wg.sum != w.sum)
                abort();
        }
    }
    return 0;
}
