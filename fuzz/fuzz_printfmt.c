/*
 * libFuzzer harness for print formats as programs (src/printfmt.c), held
 * to libtraceevent's print engine, over records of real formats.
 *
 * The formats are the kernel's own "format" files kept as seeds of the
 * format harness (TP_FUZZ_FORMATS, fuzz/corpus/format/seed-*, the text up
 * to a NUL): libtraceevent's parser trusts its input and faults on
 * malformed print arguments, so formats are not fuzzed here (fuzz_format
 * fuzzes the PMDA's own parsing).  Those that tp_printfmt_compile makes
 * programs are kept; the input's first byte picks one, the rest is one raw
 * record of that event (its common_type set to the event's id; a record
 * too short for it is not run).  The program runs over the record, held in
 * memory of exactly its length (so ASan sees any read past it), with a
 * small symbol table for %pS.  Checked:
 *   - compiling gives 0 and a program, or -EOPNOTSUPP and none;
 *   - a run gives -ERANGE, or the text's length, below the buffer's size;
 *   - the same run into a smaller buffer gives the same text cut there;
 *   - the text is libtraceevent's for the same record and symbols, trimmed
 *     as render.c trims it (not compared for formats that divide, where
 *     libtraceevent faults on a 0 divisor, or that have a '*' width, whose
 *     printf lacks an argument when it is negative; it is also given the
 *     record with zeros after it, since it does not check a record's
 *     length).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "tp_ksyms.h"
#include "tp_printfmt.h"

#define MAX_RECORD  4096
#define TEXT        1024
#define PAD         4096        /* zeros after the record, for libtraceevent's reads */

static struct tp_ksyms *syms;

static char *resolve(void *priv, unsigned long long *addrp, char **modp)
{
    struct tp_ksym s;
    if (!tp_ksyms_find(priv, *addrp, &s))
        return NULL;
    *addrp = s.addr;
    *modp = NULL;
    return (char *)s.name;
}

/* Does an argument divide ('/' or '%')? */
static bool divides(const struct tep_print_arg *a)
{
    for (; a; a = a->next) {
        bool d = false;
        switch (a->type) {
        case TEP_PRINT_OP:
            d = strcmp(a->op.op, "/") == 0 || strcmp(a->op.op, "%") == 0 ||
                divides(a->op.left) || divides(a->op.right);
            break;
        case TEP_PRINT_TYPE:  d = divides(a->typecast.item); break;
        case TEP_PRINT_FLAGS: d = divides(a->flags.field); break;
        case TEP_PRINT_SYMBOL: d = divides(a->symbol.field); break;
        default: break;
        }
        if (d)
            return true;
    }
    return false;
}

/* libtraceevent's text of the record, trimmed of trailing blanks and newlines. */
static void reference(struct tep_handle *tep, const uint8_t *rec, size_t len, char *out)
{
    static unsigned char padded[MAX_RECORD + PAD];
    memset(padded, 0, sizeof(padded));
    memcpy(padded, rec, len);
    struct tep_record r = { .data = padded, .size = (int)len };
    struct trace_seq s;
    trace_seq_init(&s);
    tep_print_event(tep, &s, &r, "%s", TEP_PRINT_INFO);
    size_t n = s.len < TEXT - 1 ? s.len : TEXT - 1;
    while (n > 0 && (s.buffer[n - 1] == '\n' || s.buffer[n - 1] == ' '))
        n--;
    memcpy(out, s.buffer, n);
    out[n] = '\0';
    trace_seq_destroy(&s);
}

static void run(const struct tep_event *ev, const struct tp_printfmt *p, struct tep_handle *tep,
                const uint8_t *rec, size_t len)
{
    static char got[TEXT], want[TEXT], small[TEXT];
    int n = tp_printfmt_run(p, syms, rec, (uint32_t)len, got, sizeof(got));
    if (n == -ERANGE)
        return;
    if (n < 0 || (size_t)n != strlen(got) || (size_t)n >= sizeof(got))
        abort();
    size_t cut = (size_t)n % 17 + 1;
    int m = tp_printfmt_run(p, syms, rec, (uint32_t)len, small, cut);
    if ((size_t)m != (cut - 1 < (size_t)n ? cut - 1 : (size_t)n) ||
        memcmp(small, got, (size_t)m) != 0 || small[m] != '\0')
        abort();
    if (divides(ev->print_fmt.args) || strchr(ev->print_fmt.format, '*'))
        return;
    while (n > 0 && (got[n - 1] == '\n' || got[n - 1] == ' '))
        got[--n] = '\0';
    reference(tep, rec, len, want);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "format %s\n  libtraceevent: [%s]\n  printfmt:      [%s]\n",
                ev->print_fmt.format, want, got);
        abort();
    }
}

/* The record made one of ev (its common_type), as libtraceevent finds a record's event. */
static bool own_type(const struct tep_event *ev, uint8_t *rec, size_t len)
{
    struct tep_format_field *f = tep_find_common_field((struct tep_event *)ev, "common_type");
    if (!f || f->offset < 0 || (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) ||
        (size_t)f->offset + (size_t)f->size > len)
        return false;
    uint64_t id = (uint64_t)ev->id;
    memcpy(rec + f->offset, &id, (size_t)f->size);     /* little-endian, as the handle says */
    return true;
}

/* The formats of TP_FUZZ_FORMATS (real ones), each parsed and, where it can be, a program. */
struct format {
    struct tep_handle *tep;
    struct tep_event *ev;
    struct tp_printfmt *prog;
};

static struct format formats[256];
static size_t nformats;

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = f ? malloc(65536) : NULL;
    size_t n = buf ? fread(buf, 1, 65535, f) : 0;
    if (f)
        fclose(f);
    if (buf)
        buf[n] = '\0';         /* the text ends at its first NUL */
    return buf;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static void load_formats(void)
{
    tep_set_loglevel(TEP_LOG_NONE);
    if (tp_ksyms_create(&syms, "ffffffff81000000 T _stext\n"
                               "ffffffff81000100 t fuzz_fn\n"
                               "ffffffff81000200 t fuzz_end\n") != 0)
        abort();
    struct dirent **names;
    int n = scandir(TP_FUZZ_FORMATS, &names, NULL, by_name);
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", TP_FUZZ_FORMATS, names[i]->d_name);
        char *text = strncmp(names[i]->d_name, "seed-", 5) == 0 ? read_text(path) : NULL;
        struct format f = { text ? tep_alloc() : NULL, NULL, NULL };
        if (f.tep) {
            tep_set_long_size(f.tep, 8);
            tep_set_file_bigendian(f.tep, TEP_LITTLE_ENDIAN);
            tep_set_page_size(f.tep, 4096);
        }
        struct tep_event **evs = f.tep && tep_set_function_resolver(f.tep, resolve, syms) == 0 &&
            tep_parse_event(f.tep, text, strlen(text), "fuzz") == TEP_ERRNO__SUCCESS
            ? tep_list_events(f.tep, TEP_EVENT_SORT_ID) : NULL;
        f.ev = evs ? evs[0] : NULL;
        int rc = f.ev ? tp_printfmt_compile(f.ev, &f.prog) : -EOPNOTSUPP;
        if ((rc == 0) != (f.prog != NULL) || (rc != 0 && rc != -EOPNOTSUPP))
            abort();
        if (f.prog && nformats < sizeof(formats) / sizeof(formats[0]))
            formats[nformats++] = f;
        else
            tep_free(f.tep);
        free(text);
        free(names[i]);
    }
    free(n > 0 ? names : NULL);
    if (nformats == 0)
        abort();                /* the directory is part of the tree */
    fprintf(stderr, "fuzz_printfmt: %zu of %d formats are programs\n", nformats, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!syms)
        load_formats();
    if (size < 1)
        return 0;
    const struct format *f = &formats[data[0] % nformats];
    size_t len = size - 1 < MAX_RECORD ? size - 1 : MAX_RECORD;
    uint8_t *rec = malloc(len ? len : 1);
    if (!rec)
        return 0;
    memcpy(rec, data + 1, len);
    if (own_type(f->ev, rec, len))
        run(f->ev, f->prog, f->tep, rec, len);
    free(rec);
    return 0;
}
