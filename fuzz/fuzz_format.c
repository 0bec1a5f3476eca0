/*
 * libFuzzer harness for the format-to-metric mapping: a tracefs event
 * "format" file parsed as src/catalog.c parses it (tp_catalog_parse_format,
 * through libtraceevent), each field classified (tp_field_classify) into a
 * kind and a PCP type, and the metrics src/names.c makes of the fields:
 * names, PMIDs, descriptors and help text.
 *
 * The input up to its first NUL is the format text; what follows the NUL,
 * if anything, is one raw record of that event, from which every field is
 * decoded (src/fields.c) and on which a filter on each field runs, as the
 * PMDA does with events of a format it has parsed.
 *
 * The catalog holds two events, fuzz:ev and fuzz:other (listed once from a
 * temporary directory); fuzz:ev's format is parsed from the input through
 * the namespace's load hook, as the PMDA loads formats.  Checked:
 *   - a failed parse is -EINVAL or -ENOMEM and leaves no fields, no print
 *     format and kernel_id -1;
 *   - every field has a name, a declaration naming it, and a kind and PCP
 *     type that agree (scalars only of 1, 2, 4 or 8 bytes);
 *   - the namespace lists exactly the fields, in order; each field's PMID
 *     maps back to its name, its descriptor has the field's type, its help
 *     texts fit any buffer; a field whose name is a plain identifier is
 *     found by name (the first of that name);
 *   - decoded values lie inside the record.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pcp/pmapi.h>
#include <traceevent/event-parse.h>

#include "domain.h"
#include "tp_catalog.h"
#include "tp_fields.h"
#include "tp_filter.h"
#include "tp_identity.h"
#include "tp_names.h"
#include "tp_records.h"

#define MAX_FILTERED 8      /* fields with a filter compiled and run */

static struct tp_catalog *cat;
static struct tp_names names;
static int ev_idx;
static const char *input;       /* the current format text */
static size_t input_len;

static int load_hook(void *arg, size_t idx)
{
    struct tp_event *e = tp_catalog_event(arg, idx);
    if (!e)
        return -ENOENT;
    if (!e->loaded) {
        e->load_error = (int)idx == ev_idx ? tp_catalog_parse_format(e, input, input_len)
                                           : -ENOENT;
        e->loaded = true;
    }
    return e->load_error;
}

/* Positional PMIDs: field i of event e is cluster 16 + e, item i. */
static pmID field_pmid(int event, unsigned field)
{
    return pmID_build(TRACEPOINT, TP_CLUSTER_FIELDS + (unsigned)event, field);
}

static pmID pmid_hook(void *arg, size_t ev, unsigned field)
{
    struct tp_event *e = tp_catalog_event(arg, ev);
    return e && field < e->nfields && field < TP_IDENTITY_MAX_ITEMS ? field_pmid((int)ev, field)
                                                                     : PM_ID_NULL;
}

static int event_hook(void *arg, pmID pmid)
{
    size_t ev = pmID_cluster(pmid) - TP_CLUSTER_FIELDS;
    return ev < tp_catalog_count(arg) ? (int)ev : -1;
}

static int field_hook(void *arg, size_t ev, pmID pmid)
{
    struct tp_event *e = tp_catalog_event(arg, ev);
    return e && pmID_item(pmid) < e->nfields ? (int)pmID_item(pmid) : -1;
}

static void mkfile(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f || fclose(f) != 0)
        abort();
}

/* A catalog of fuzz:ev and fuzz:other, from a directory removed again. */
static void setup(void)
{
    char dir[] = "/tmp/fuzz_format.XXXXXX", p[256];
    static const char *const sub[] = { "events", "events/fuzz", "events/fuzz/ev",
                                       "events/fuzz/other" };
    if (!mkdtemp(dir))
        abort();
    for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", dir, sub[i]);
        if (mkdir(p, 0700) != 0)
            abort();
    }
    snprintf(p, sizeof(p), "%s/events/fuzz/ev/enable", dir);
    mkfile(p);
    snprintf(p, sizeof(p), "%s/events/fuzz/other/enable", dir);
    mkfile(p);
    if (tp_catalog_create(&cat, dir) != 0 || tp_catalog_count(cat) != 2 + TP_CATALOG_PROBE_SLOTS)
        abort();
    ev_idx = tp_catalog_find(cat, "fuzz", "ev");
    if (ev_idx < 0)
        abort();
    unlink(p);
    snprintf(p, sizeof(p), "%s/events/fuzz/ev/enable", dir);
    unlink(p);
    for (size_t i = sizeof(sub) / sizeof(sub[0]); i-- > 0;) {
        snprintf(p, sizeof(p), "%s/%s", dir, sub[i]);
        rmdir(p);
    }
    rmdir(dir);
    names = (struct tp_names){ .cat = cat, .domain = TRACEPOINT, .load = load_hook,
                               .field_pmid = pmid_hook, .event_of = event_hook,
                               .field_of = field_hook, .arg = cat };
    tep_set_loglevel(TEP_LOG_NONE);
}

static void free_list(struct tp_field **list, unsigned *n)
{
    for (unsigned i = 0; i < *n; i++) {
        free((*list)[i].name);
        free((*list)[i].decl);
    }
    free(*list);
    *list = NULL;
    *n = 0;
}

/* fuzz:ev as the catalog lists it: not loaded. */
static void reset_event(struct tp_event *e)
{
    free_list(&e->fields, &e->nfields);
    free_list(&e->common, &e->ncommon);
    free(e->print_fmt);
    e->print_fmt = NULL;
    e->loaded = false;
    e->load_error = 0;
    e->kernel_id = -1;
    e->pid_offset = 0;
}

static void check_field(const struct tp_field *f)
{
    if (!f->name || !f->decl || !strstr(f->decl, f->name))
        abort();
    bool scalar_size = f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8;
    switch (f->kind) {
    case TP_FIELD_INT:
        if (!scalar_size || f->pmtype != (f->size == 8 ? PM_TYPE_64 : PM_TYPE_32))
            abort();
        break;
    case TP_FIELD_UINT:
        if (!scalar_size || f->pmtype != (f->size == 8 ? PM_TYPE_U64 : PM_TYPE_U32))
            abort();
        break;
    case TP_FIELD_STRING:
    case TP_FIELD_DLOC_STRING:
    case TP_FIELD_RLOC_STRING:
        if (f->pmtype != PM_TYPE_STRING)
            abort();
        break;
    case TP_FIELD_BYTES:
    case TP_FIELD_DLOC_BYTES:
    case TP_FIELD_RLOC_BYTES:
        if (f->pmtype != PM_TYPE_AGGREGATE)
            abort();
        break;
    default:
        abort();
    }
}

static bool plain_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= 128)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9')))
            return false;
    return true;
}

static void check_children(const struct tp_event *e, int traverse)
{
    char **kids = NULL;
    int *sts = NULL;
    int rc = tp_names_children(&names, "tracepoint.param.fuzz.ev", traverse, &kids, &sts);
    unsigned want = e->nfields < TP_IDENTITY_MAX_ITEMS ? e->nfields : TP_IDENTITY_MAX_ITEMS;
    if (rc != (int)want)
        abort();
    for (unsigned i = 0; i < want; i++) {
        const char *k = kids[i];
        if (traverse) {
            if (strncmp(k, "tracepoint.param.fuzz.ev.", 25) != 0)
                abort();
            k += 25;
        }
        if (strcmp(k, e->fields[i].name) != 0 || sts[i] != PMNS_LEAF_STATUS)
            abort();
    }
    if (rc > 0) {
        free(kids);
        free(sts);
    }
}

static void check_metric(const struct tp_event *e, unsigned i)
{
    const struct tp_field *f = &e->fields[i];
    pmID pmid = field_pmid(ev_idx, i);
    pmDesc desc;
    char small[24], big[8192], **nameset = NULL;
    if (tp_names_desc(&names, pmid, &desc) != 0 || desc.type != f->pmtype || desc.pmid != pmid)
        abort();
    memset(small, 'Z', sizeof(small));
    if (tp_names_text(&names, pmid, PM_TEXT_ONELINE, small, 16) != 0 ||
        strnlen(small, 16) == 16 || small[16] != 'Z')
        abort();
    if (tp_names_text(&names, pmid, PM_TEXT_HELP, big, sizeof(big)) != 0 ||
        (strlen(f->name) < 1024 && !strstr(big, f->name)))
        abort();
    if (tp_names_text(&names, pmid, PM_TEXT_ONELINE, big, sizeof(big)) != 0 ||
        strlen(big) >= sizeof(big))
        abort();
    if (tp_names_name(&names, pmid, &nameset) != 1 ||
        strncmp(nameset[0], "tracepoint.param.fuzz.ev.", 25) != 0 ||
        strcmp(nameset[0] + 25, f->name) != 0)
        abort();
    free(nameset);
    if (plain_name(f->name)) {
        pmID found;
        unsigned first = 0;
        while (strcmp(e->fields[first].name, f->name) != 0)
            first++;
        snprintf(big, sizeof(big), "tracepoint.param.fuzz.ev.%s", f->name);
        if (tp_names_pmid(&names, big, &found) != 0 ||
            found != field_pmid(ev_idx, first))
            abort();
    }
}

static void decode_fields(const struct tp_field *fields, unsigned n, const uint8_t *rec,
                          uint32_t len)
{
    for (unsigned i = 0; i < n; i++) {
        struct tp_field_value v;
        if (!tp_field_value(&fields[i], rec, len, &v))
            continue;
        if (v.off > len || v.n > len - v.off || v.len > v.n)
            abort();
        char *copy = malloc((size_t)v.n + 1);   /* what records.c copies out */
        if (!copy)
            abort();
        memcpy(copy, rec + v.off, v.n);
        free(copy);
    }
}

/* A predicate on each of the first fields, compiled and run on the record. */
static void filter_fields(const struct tp_event *e, const uint8_t *rec, uint32_t len)
{
    for (unsigned i = 0; i < e->nfields && i < MAX_FILTERED; i++) {
        const struct tp_field *f = &e->fields[i];
        char expr[TP_FILTER_MAX_LEN + 64], err[128];
        struct tp_filter *flt = NULL;
        bool text = f->pmtype == PM_TYPE_STRING;
        if (strlen(f->name) > TP_FILTER_MAX_LEN / 2)
            continue;
        snprintf(expr, sizeof(expr), text ? "%s ~ \"*a*\" || %s == \"b\"" : "%s > 1 && %s & 4",
                 f->name, f->name);
        if (tp_filter_compile(expr, e, &flt, err, sizeof(err)) == 0)
            (void)tp_filter_match(flt, rec, len, 1);
        tp_filter_free(flt);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!cat)
        setup();
    const uint8_t *nul = memchr(data, 0, size);
    size_t tlen = nul ? (size_t)(nul - data) : size;
    char *text = malloc(tlen + 1);          /* as read_format leaves it: NUL after */
    if (!text)
        abort();
    memcpy(text, data, tlen);
    text[tlen] = '\0';
    input = text;
    input_len = tlen;

    struct tp_event *e = tp_catalog_event(cat, (size_t)ev_idx);
    reset_event(e);
    char **kids = NULL;
    int *sts = NULL;
    /* Listing the event's children loads it, through the hook. */
    int nk = tp_names_children(&names, "tracepoint.param.fuzz.ev", 0, &kids, &sts);
    if (nk > 0) {
        free(kids);
        free(sts);
    }
    int rc = e->load_error;
    if (!e->loaded)
        abort();
    if (rc != 0) {
        if ((rc != -EINVAL && rc != -ENOMEM) || e->fields || e->nfields || e->common ||
            e->ncommon || e->print_fmt || e->kernel_id != -1 || nk != 0)
            abort();
    } else {
        for (unsigned i = 0; i < e->nfields; i++)
            check_field(&e->fields[i]);
        for (unsigned i = 0; i < e->ncommon; i++)
            check_field(&e->common[i]);
        check_children(e, 0);
        check_children(e, 1);
        for (unsigned i = 0; i < e->nfields && i < TP_IDENTITY_MAX_ITEMS; i++)
            check_metric(e, i);
        pmID beyond = field_pmid(ev_idx, e->nfields);
        pmDesc desc;
        char buf[64];
        if (e->nfields < TP_IDENTITY_MAX_ITEMS && (tp_names_desc(&names, beyond, &desc) != PM_ERR_PMID ||
                                           tp_names_text(&names, beyond, PM_TEXT_HELP, buf,
                                                         sizeof(buf)) != PM_ERR_PMID))
            abort();
        if (nul) {
            size_t rlen = size - tlen - 1;
            uint8_t *rec = malloc(rlen ? rlen : 1);     /* exactly the record */
            if (!rec)
                abort();
            memcpy(rec, nul + 1, rlen);
            decode_fields(e->fields, e->nfields, rec, (uint32_t)rlen);
            decode_fields(e->common, e->ncommon, rec, (uint32_t)rlen);
            filter_fields(e, rec, (uint32_t)rlen);
            free(rec);
        }
    }
    free(text);
    input = NULL;
    return 0;
}
