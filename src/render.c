/*
 * Event text through libtraceevent's print engine.  See tp_render.h.
 */
#include "tp_render.h"
#include "tp_util.h"

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

enum load_state { NOT_LOADED, LOADED, UNUSABLE };

struct tp_render {
    struct tep_handle *tep;
    struct tp_catalog *cat;
    char *tracing_dir;
    unsigned char *state;           /* enum load_state, per catalog event */
    struct tep_handle **own;        /* per catalog event: a probe's own handle, or NULL */
    size_t nevents;
    bool prepared;
    struct trace_seq seq;
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
    r->tracing_dir = strdup(tracing_dir);
    r->tep = tep_alloc();
    if (!r->state || !r->own || !r->tracing_dir || !r->tep)
        goto out;
    tep_set_long_size(r->tep, (int)sizeof(long));
    tep_set_file_bigendian(r->tep, tep_is_bigendian() ? TEP_BIG_ENDIAN
                                                : TEP_LITTLE_ENDIAN);
    tep_set_page_size(r->tep, (int)sysconf(_SC_PAGESIZE));
    trace_seq_init(&r->seq);
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
    free(r->own);
    free(r->state);
    free(r->tracing_dir);
    free(r);
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
        rc = tep_parse_kallsyms(r->tep, text) == 0 ? 0 : -ENOMEM;
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
    r->state[event] = NOT_LOADED;
}

/* A handle of the event's own, laid out as the shared one. */
static struct tep_handle *own_handle(void)
{
    struct tep_handle *tep = tep_alloc();
    if (tep) {
        tep_set_long_size(tep, (int)sizeof(long));
        tep_set_file_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
        tep_set_page_size(tep, (int)sysconf(_SC_PAGESIZE));
    }
    return tep;
}

/* The handle the event's format is in (or goes in); NULL if none can be had. */
static struct tep_handle *handle_of(struct tp_render *r, uint32_t event)
{
    if (!tp_catalog_event(r->cat, event)->probe)
        return r->tep;
    if (!r->own[event])
        r->own[event] = own_handle();
    return r->own[event];
}

/* The event's format in its handle; false if it cannot be had. */
static bool load_event(struct tp_render *r, uint32_t event)
{
    if (event >= r->nevents)
        return false;
    if (r->state[event] != NOT_LOADED)
        return r->state[event] == LOADED;
    const struct tp_event *e = tp_catalog_event(r->cat, event);
    struct tep_handle *tep = handle_of(r, event);
    char *buf = NULL;
    size_t len = 0;
    int rc = tep ? tp_catalog_read_format(r->cat, event, &buf, &len) : -ENOMEM;
    if (rc == -ENOMEM)
        return false;       /* may pass: try again next time */
    r->state[event] = rc == 0 && tep_parse_event(tep, buf, len, e->system) == TEP_ERRNO__SUCCESS
        ? LOADED : UNUSABLE;
    free(buf);
    return r->state[event] == LOADED;
}

/* The text without the trailing blanks and newlines some formats end with. */
static int copy_out(const struct trace_seq *s, char *buf, size_t size)
{
    size_t n = s->len < size - 1 ? s->len : size - 1;
    while (n > 0 && (s->buffer[n - 1] == '\n' || s->buffer[n - 1] == ' '))
        n--;
    memcpy(buf, s->buffer, n);
    buf[n] = '\0';
    return (int)n;
}

int tp_render_text(struct tp_render *r, uint32_t event, const void *data, uint32_t len,
                   int cpu, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!load_event(r, event))
        return -ENOENT;
    struct tep_record rec = { .cpu = cpu, .data = (void *)data, .size = (int)len };
    trace_seq_reset(&r->seq);
    tep_print_event(handle_of(r, event), &r->seq, &rec, "%s", TEP_PRINT_INFO);
    if (r->seq.state == TRACE_SEQ__MEM_ALLOC_FAILED) {
        trace_seq_destroy(&r->seq);     /* a reset keeps the failed state */
        trace_seq_init(&r->seq);
        return -ENOMEM;
    }
    return copy_out(&r->seq, buf, size);
}
