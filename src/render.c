/*
 * Event text through libtraceevent's print engine, or through the event's
 * print format made into a program (tp_printfmt.h) where every piece of it
 * can be.  See tp_render.h.
 */
#include "tp_render.h"
#include "tp_ksyms.h"
#include "tp_printfmt.h"
#include "tp_util.h"
#include "tp_valname.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-seq.h>

#define SYMBOLS_MAX (256u << 20)    /* /proc/kallsyms of the largest kernels is far less */

#define MARKS_MAX 8      /* symbols marked in one event's text */

/*
 * LOADED_NR: raw_syscalls' "NR %ld".  LOADED_FIXED: a print format without
 * arguments (sys_enter_getpid's ""), whose text no record changes: made
 * once, then copied.
 */
enum load_state { NOT_LOADED, LOADED, UNUSABLE, LOADED_NR, LOADED_FIXED };

/* A symbol libtraceevent printed; one in a module is to be followed by " [module]". */
struct mark {
    const char *name, *module;      /* module NULL: vmlinux, only passed over */
};

/*
 * The text of a stack's frames, remembered by address (direct-mapped): the
 * same return addresses come again and again, and each lookup and print
 * costs more than the record it goes in.
 */
#define FRAME_CACHE     1024u
#define FRAME_TEXT      112         /* longer texts are made every time */

struct frame_text {
    uint64_t addr;
    uint32_t len;                   /* 0: empty */
    char text[FRAME_TEXT];
};

struct tp_render {
    struct tep_handle *tep;
    struct tp_catalog *cat;
    char *tracing_dir;
    unsigned char *state;           /* enum load_state, per catalog event */
    struct tep_handle **own;        /* per catalog event: a probe's own handle, or NULL */
    char **fixed;                   /* per catalog event: LOADED_FIXED's text once made, or NULL */
    struct tp_printfmt **prog;      /* per catalog event: its format as a program, or NULL */
    size_t nevents;
    bool prepared;
    struct trace_seq seq;
    struct tp_ksyms *syms;          /* NULL until loaded */
    struct frame_text *frames;      /* FRAME_CACHE, made when first asked */
    struct mark marks[MARKS_MAX];   /* of the text being rendered */
    unsigned nmarks;
    bool syscalls_ok;               /* the syscall table is this kernel's (tp_valname.h) */
    bool no_programs;               /* tp_render_use_programs(false) */
};

int tp_render_create(struct tp_render **out, struct tp_catalog *cat, const char *tracing_dir)
{
    struct tp_render *r = calloc(1, sizeof(*r));
    int rc = -ENOMEM;
    if (!r)
        goto out;
    r->cat = cat;
    r->nevents = tp_catalog_count(cat);
    r->state = calloc(r->nevents ? r->nevents : 1, 1);
    r->own = calloc(r->nevents ? r->nevents : 1, sizeof(*r->own));
    r->fixed = calloc(r->nevents ? r->nevents : 1, sizeof(*r->fixed));
    r->prog = calloc(r->nevents ? r->nevents : 1, sizeof(*r->prog));
    r->tracing_dir = strdup(tracing_dir);
    r->tep = tep_alloc();
    if (!r->state || !r->own || !r->fixed || !r->prog || !r->tracing_dir || !r->tep)
        goto out;
    tep_set_long_size(r->tep, (int)sizeof(long));
    tep_set_file_bigendian(r->tep, tep_is_bigendian() ? TEP_BIG_ENDIAN
                                                : TEP_LITTLE_ENDIAN);
    tep_set_page_size(r->tep, (int)sysconf(_SC_PAGESIZE));
    trace_seq_init(&r->seq);
    r->syscalls_ok = tp_valname_local_arch_ok();
    rc = 0;
out:
    if (rc < 0) {
        tp_render_destroy(r);
        r = NULL;
    }
    *out = r;
    return rc;
}

void tp_render_destroy(struct tp_render *r)
{
    if (!r)
        return;
    if (r->tep) {
        trace_seq_destroy(&r->seq);
        tep_free(r->tep);
    }
    for (size_t i = 0; r->own && i < r->nevents; i++)
        tep_free(r->own[i]);
    for (size_t i = 0; r->fixed && i < r->nevents; i++)
        free(r->fixed[i]);
    for (size_t i = 0; r->prog && i < r->nevents; i++)
        tp_printfmt_free(r->prog[i]);
    free(r->own);
    free(r->fixed);
    free(r->prog);
    tp_ksyms_destroy(r->syms);
    free(r->frames);
    free(r->state);
    free(r->tracing_dir);
    free(r);
}


/*
 * libtraceevent's resolver: the symbol an address is in.  libtraceevent
 * prints the name (and offset) but never the module, so each symbol it is
 * given is marked, in the order printed, for copy_out() (vmlinux ones too,
 * so that a module symbol is not taken for a vmlinux one of its name
 * printed before it).
 */
static char *resolve(void *priv, unsigned long long *addrp, char **modp)
{
    struct tp_render *r = priv;
    struct tp_ksym s;
    if (!tp_ksyms_find(r->syms, *addrp, &s))
        return NULL;
    *addrp = s.addr;
    *modp = (char *)s.module;
    if (r->nmarks < MARKS_MAX)
        r->marks[r->nmarks++] = (struct mark){ s.name, s.module };
    return (char *)s.name;
}

const struct tp_ksyms *tp_render_symbols(const struct tp_render *r)
{
    return r ? r->syms : NULL;
}

int tp_render_frame(struct tp_render *r, uint64_t addr, char *buf, size_t size)
{
    if (r && !r->frames)
        r->frames = calloc(FRAME_CACHE, sizeof(*r->frames));
    struct frame_text *f = r && r->frames
        ? &r->frames[((addr >> 2) * 0x9e3779b97f4a7c15ull) >> 54] : NULL;
    if (f && f->len && f->addr == addr && size > f->len) {
        memcpy(buf, f->text, f->len + 1);
        return (int)f->len;
    }
    int n = tp_ksyms_format(r ? r->syms : NULL, addr, true, buf, size);
    if (f && n > 0 && (size_t)n < size && n < FRAME_TEXT) {
        f->addr = addr;
        f->len = (uint32_t)n;
        memcpy(f->text, buf, (size_t)n + 1);
    }
    return n;
}

int tp_render_load_symbols(struct tp_render *r, const char *text)
{
    struct tp_ksyms *k;
    int rc = tp_ksyms_create(&k, text);
    if (rc < 0)
        return rc;
    tp_ksyms_destroy(r->syms);
    r->syms = k;
    if (r->frames)                  /* the same addresses may have new names */
        memset(r->frames, 0, FRAME_CACHE * sizeof(*r->frames));
    if (tep_set_function_resolver(r->tep, resolve, r) < 0)
        return -ENOMEM;
    for (size_t i = 0; i < r->nevents; i++)
        if (r->own[i] && tep_set_function_resolver(r->own[i], resolve, r) < 0)
            return -ENOMEM;
    return 0;
}

int tp_render_prepare(struct tp_render *r)
{
    if (r->prepared)
        return 0;
    char path[1024], *text = NULL;
    snprintf(path, sizeof(path), "%s/printk_formats", r->tracing_dir);
    if (tp_read_text(path, SYMBOLS_MAX, &text, NULL) == 0) {
        tep_parse_printk_formats(r->tep, text);
        free(text);
    }
    int rc = tp_read_text("/proc/kallsyms", SYMBOLS_MAX, &text, NULL);
    if (rc == 0) {
        rc = tp_render_load_symbols(r, text);
        free(text);
    }
    r->prepared = true;     /* what could not be read stays unread: addresses print as numbers */
    return rc;
}

void tp_render_forget(struct tp_render *r, size_t event)
{
    if (event >= r->nevents)
        return;
    tep_free(r->own[event]);
    r->own[event] = NULL;
    free(r->fixed[event]);
    r->fixed[event] = NULL;
    tp_printfmt_free(r->prog[event]);
    r->prog[event] = NULL;
    r->state[event] = NOT_LOADED;
}

void tp_render_use_programs(struct tp_render *r, bool on)
{
    r->no_programs = !on;
}

/* A handle of the event's own, laid out as the shared one. */
static struct tep_handle *own_handle(struct tp_render *r)
{
    struct tep_handle *tep = tep_alloc();
    if (tep) {
        tep_set_long_size(tep, (int)sizeof(long));
        tep_set_file_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
        tep_set_page_size(tep, (int)sysconf(_SC_PAGESIZE));
        if (r->syms && tep_set_function_resolver(tep, resolve, r) < 0) {
            tep_free(tep);
            tep = NULL;
        }
    }
    return tep;
}

/* The handle the event's format is in (or goes in); NULL if none can be had. */
static struct tep_handle *handle_of(struct tp_render *r, uint32_t event)
{
    if (!tp_catalog_event(r->cat, event)->probe)
        return r->tep;
    if (!r->own[event])
        r->own[event] = own_handle(r);
    return r->own[event];
}

/*
 * Whether a parsed event's text is the same for every record: its print
 * format has no arguments, and no plugin's handler or raw printing
 * stands in for it.
 */
static bool fixed_text(const struct tep_event *ev)
{
    return ev && !ev->print_fmt.args && !ev->handler && !(ev->flags & TEP_EVENT_FL_PRINTRAW);
}

/* The event's format in its handle; false if it cannot be had. */
static bool load_event(struct tp_render *r, uint32_t event)
{
    if (event >= r->nevents)
        return false;
    if (r->state[event] != NOT_LOADED)
        return r->state[event] != UNUSABLE;
    const struct tp_event *e = tp_catalog_event(r->cat, event);
    struct tep_handle *tep = handle_of(r, event);
    char *buf = NULL;
    size_t len = 0;
    int rc = tep ? tp_catalog_read_format(r->cat, event, &buf, &len) : -ENOMEM;
    if (rc == -ENOMEM)
        return false;       /* may pass: try again next time */
    r->state[event] = rc == 0 && tep_parse_event(tep, buf, len, e->system) == TEP_ERRNO__SUCCESS
        ? LOADED : UNUSABLE;
    struct tep_event *ev = r->state[event] == LOADED
        ? tep_find_event_by_name(tep, e->system, e->name) : NULL;
    if (r->state[event] == LOADED && strcmp(e->system, "raw_syscalls") == 0 &&
        (strcmp(e->name, "sys_enter") == 0 || strcmp(e->name, "sys_exit") == 0))
        r->state[event] = LOADED_NR;
    else if (r->state[event] == LOADED && fixed_text(ev))
        r->state[event] = LOADED_FIXED;
    if (r->state[event] != LOADED_FIXED && tp_printfmt_compile(ev, &r->prog[event]) == -ENOMEM)
        r->prog[event] = NULL;      /* libtraceevent prints it, as any declined format */
    free(buf);
    return r->state[event] != UNUSABLE;
}

static bool is_ident(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

/*
 * Where the printed symbol `name` ("name" or "name+0xOFF") ends in text[from, len):
 * true and *end past it, or false.  The first whole-word occurrence.
 */
static bool find_symbol(const char *text, size_t len, size_t from, const char *name, size_t *end)
{
    size_t nlen = strlen(name);
    for (const char *p = text + from; nlen && p + nlen <= text + len; p++) {
        p = memmem(p, (size_t)(text + len - p), name, nlen);
        if (!p)
            return false;
        const char *q = p + nlen;
        if (p > text && is_ident(p[-1]))
            continue;
        if (q + 3 < text + len && q[0] == '+' && q[1] == '0' && q[2] == 'x'
            && isxdigit((unsigned char)q[3]))
            for (q += 3; q < text + len && isxdigit((unsigned char)*q); q++)
                ;
        if (q < text + len && is_ident(*q))
            continue;
        *end = (size_t)(q - text);
        return true;
    }
    return false;
}

/* Append n bytes of p to buf[at] within size (one byte kept for the NUL). */
static size_t put(char *buf, size_t size, size_t at, const char *p, size_t n)
{
    if (at + n > size - 1)
        n = size - 1 - at;
    memcpy(buf + at, p, n);
    return at + n;
}

/*
 * The text without the trailing blanks and newlines some formats end with,
 * each marked module symbol followed by " [module]" as the kernel prints it.
 */
static int copy_out(const struct tp_render *r, char *buf, size_t size)
{
    const struct trace_seq *s = &r->seq;
    size_t len = s->len, at = 0, from = 0, end;
    while (len > 0 && (s->buffer[len - 1] == '\n' || s->buffer[len - 1] == ' '))
        len--;
    for (unsigned i = 0; i < r->nmarks; i++) {
        if (!find_symbol(s->buffer, len, from, r->marks[i].name, &end))
            continue;
        at = put(buf, size, at, s->buffer + from, end - from);
        from = end;
        if (!r->marks[i].module)
            continue;
        at = put(buf, size, at, " [", 2);
        at = put(buf, size, at, r->marks[i].module, strlen(r->marks[i].module));
        at = put(buf, size, at, "]", 1);
    }
    at = put(buf, size, at, s->buffer + from, len - from);
    buf[at] = '\0';
    return (int)at;
}

/*
 * raw_syscalls:sys_enter and sys_exit print "NR 257 (...)" and "NR 257 = 3";
 * the number is the syscall's name here where the table has one ("NR
 * openat (...)"), a deliberate difference from trace-cmd.  The number is
 * read back from the text, which printed the event's id.  Text of len
 * bytes in buf; returns its new length, cut to size as the text was.
 */
static int name_syscall(char *buf, size_t size, int len)
{
    if (len < 4 || strncmp(buf, "NR ", 3) != 0 || !isdigit((unsigned char)buf[3]))
        return len;
    char *end;
    long long id = strtoll(buf + 3, &end, 10);
    const char *name = tp_syscall_name((int64_t)id);
    if (!name || (*end == '\0' && (size_t)len + 1 >= size))
        return len;             /* no name, or the number may have been cut */
    size_t from = (size_t)(end - buf), at = 3 + strlen(name), rest = (size_t)len - from;
    if (at >= size)
        at = size - 1;
    if (rest > size - 1 - at)
        rest = size - 1 - at;
    memmove(buf + at, buf + from, rest);
    memcpy(buf + 3, name, at - 3);
    buf[at + rest] = '\0';
    return (int)(at + rest);
}

/* LOADED_FIXED's text into buf, as made the first time: its length. */
static int copy_fixed(const char *text, char *buf, size_t size)
{
    size_t n = put(buf, size, 0, text, strlen(text));
    buf[n] = '\0';
    return (int)n;
}

/*
 * The text by the event's program: its length, trimmed as copy_out trims,
 * or -ERANGE (the record lacks what the format reads: libtraceevent's).
 */
static int run_program(const struct tp_render *r, const struct tp_printfmt *p, const void *data,
                       uint32_t len, char *buf, size_t size)
{
    int n = tp_printfmt_run(p, r->syms, data, len, buf, size);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return n;
}

int tp_render_text(struct tp_render *r, uint32_t event, const void *data, uint32_t len,
                   int cpu, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!load_event(r, event))
        return -ENOENT;
    if (r->state[event] == LOADED_FIXED && r->fixed[event])
        return copy_fixed(r->fixed[event], buf, size);
    struct tep_record rec = { .cpu = cpu, .data = (void *)data, .size = (int)len };
    int n = r->prog[event] && !r->no_programs
        ? run_program(r, r->prog[event], data, len, buf, size) : -ERANGE;
    if (n >= 0)
        return r->state[event] == LOADED_NR && r->syscalls_ok
            ? name_syscall(buf, size, n) : n;
    trace_seq_reset(&r->seq);
    r->nmarks = 0;
    tep_print_event(handle_of(r, event), &r->seq, &rec, "%s", TEP_PRINT_INFO);
    if (r->seq.state == TRACE_SEQ__MEM_ALLOC_FAILED) {
        trace_seq_destroy(&r->seq);     /* a reset keeps the failed state */
        trace_seq_init(&r->seq);
        return -ENOMEM;
    }
    n = copy_out(r, buf, size);
    if (r->state[event] == LOADED_FIXED && (size_t)n + 1 < size)
        r->fixed[event] = strdup(buf);      /* NULL: made again next time */
    return r->state[event] == LOADED_NR && r->syscalls_ok
        ? name_syscall(buf, size, n) : n;
}
