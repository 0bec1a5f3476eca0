/* list.c: -l and -F (client/list.h). */
#include "list.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decl.h"
#include "metric.h"
#include "record.h"
#include "util.h"
#include "tp_valname.h"

#define CATALOG_METRIC "tracepoint.count"
#define PARAM_PREFIX   "tracepoint.param."

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The catalog as it is gathered: "system:event" names, maybe repeated. */
struct names {
    char **v;
    size_t n, cap;
    bool failed;                /* out of memory */
};

static void add_name(struct names *ns, const char *name, size_t len)
{
    if (ns->failed)
        return;
    if (ns->n == ns->cap) {
        size_t cap = ns->cap ? 2 * ns->cap : 256;
        char **v = realloc(ns->v, cap * sizeof(*v));
        if (v == NULL) {
            ns->failed = true;
            return;
        }
        ns->v = v;
        ns->cap = cap;
    }
    if ((ns->v[ns->n] = strndup(name, len)) == NULL)
        ns->failed = true;
    else
        ns->n++;
}

/* tracepoint.param.SYSTEM.EVENT.FIELD -> "SYSTEM:EVENT" */
static void add_param(const char *metric, void *closure)
{
    struct names *ns = closure;
    const char *sys = metric + strlen(PARAM_PREFIX);
    const char *dot = strchr(sys, '.');
    const char *end = dot != NULL ? strchr(dot + 1, '.') : NULL;
    char buf[EVENT_NAME_MAX];

    if (strncmp(metric, PARAM_PREFIX, strlen(PARAM_PREFIX)) != 0 || end == NULL ||
        (size_t)(end - sys) >= sizeof(buf))
        return;
    memcpy(buf, sys, (size_t)(end - sys));
    buf[dot - sys] = ':';
    add_name(ns, buf, (size_t)(end - sys));
}

static void names_free(struct names *ns)
{
    for (size_t i = 0; i < ns->n; i++)
        free(ns->v[i]);
    free(ns->v);
}

/*
 * The catalog: every "system:event" the PMDA describes -- each event with
 * fields under tracepoint.param (one PMNS traversal), and each enabled one
 * (the instances of tracepoint.count) -- sorted, each once.  0, or -1
 * after a message.
 */
static int catalog(const struct tracer *t, struct names *ns)
{
    int *insts = NULL;
    char **names = NULL;
    pmID pmid;
    pmDesc desc;
    int sts;

    memset(ns, 0, sizeof(*ns));
    sts = pmTraversePMNS_r("tracepoint.param", add_param, ns);
    if (sts < 0) {
        errmsg("cannot read the tracepoint catalog (tracepoint.param) from %s: %s",
               t->where, pmErrStr(sts));
        names_free(ns);
        return -1;
    }
    if (lookup_metric(CATALOG_METRIC, &pmid, &desc) >= 0 && desc.indom != PM_INDOM_NULL &&
        (sts = pmGetInDom(desc.indom, &insts, &names)) > 0) {
        for (int i = 0; i < sts; i++)
            add_name(ns, names[i], strlen(names[i]));
        free(insts);
        free(names);
    }
    if (ns->failed) {
        errmsg("out of memory");
        names_free(ns);
        return -1;
    }
    if (ns->n > 0)
        qsort(ns->v, ns->n, sizeof(*ns->v), by_name);
    size_t kept = 0;
    for (size_t i = 0; i < ns->n; i++) {
        if (kept > 0 && strcmp(ns->v[kept - 1], ns->v[i]) == 0)
            free(ns->v[i]);
        else
            ns->v[kept++] = ns->v[i];
    }
    ns->n = kept;
    return 0;
}

static bool matches(const struct settings *s, const char *name)
{
    if (s->npatterns == 0)
        return true;
    for (size_t i = 0; i < s->npatterns; i++)
        if (fnmatch(s->patterns[i], name, 0) == 0)
            return true;
    return false;
}

int list_tracepoints(struct tracer *t)
{
    struct names ns;
    size_t shown = 0;

    if (catalog(t, &ns) < 0)
        return EXIT_RUNTIME;
    for (size_t i = 0; i < ns.n; i++) {
        if (matches(t->set, ns.v[i])) {
            puts(ns.v[i]);
            shown++;
        }
    }
    names_free(&ns);
    if (fflush(stdout) != 0) {
        errmsg("cannot write the output");
        return EXIT_RUNTIME;
    }
    if (shown == 0) {
        if (t->set->npatterns == 0)
            errmsg("%s lists no tracepoints", t->where);
        else
            errmsg("no tracepoint on %s matches %s%s", t->where, t->set->patterns[0],
                   t->set->npatterns > 1 ? " or the other patterns" : "");
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

struct field {
    char *name;
    int type;                   /* PM_TYPE_UNKNOWN without a descriptor */
    bool known;                 /* the help text gave the declaration */
    struct decl decl;
};

static int by_offset(const void *a, const void *b)
{
    const struct field *x = a, *y = b;

    if (x->known != y->known)
        return x->known ? -1 : 1;
    if (x->known && x->decl.offset != y->decl.offset)
        return x->decl.offset < y->decl.offset ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void describe_field(const char *prefix, struct field *f)
{
    char name[1024];
    const char *np = name;
    pmID pmid;
    pmDesc desc;
    char *help = NULL;

    f->type = PM_TYPE_UNKNOWN;
    if (snprintf(name, sizeof(name), "%s.%s", prefix, f->name) >= (int)sizeof(name) ||
        pmLookupName(1, &np, &pmid) < 0)
        return;
    if (pmLookupDesc(pmid, &desc) >= 0)
        f->type = desc.type;
    if (pmLookupText(pmid, PM_TEXT_HELP, &help) >= 0)
        f->known = decl_from_help(help, &f->decl) == 0;
    free(help);
}

/* What -R shows for a field in place of its number (tp_valname.h). */
static const char *shown_note(const char *system, const struct field *f)
{
    switch (tp_valname_shown(system, f->name, f->known ? f->decl.text : NULL, true)) {
    case TP_SHOWN_SYSCALL: return "  (shown by name: the syscall's)";
    case TP_SHOWN_DEV:     return "  (shown as MAJ:MIN (device))";
    default:               return "";
    }
}

static void print_fields(const char *system, const struct field *v, int n)
{
    int w = 5;

    for (int i = 0; i < n; i++)
        if ((int)strlen(v[i].name) > w)
            w = (int)strlen(v[i].name);
    printf("%-*s  %-9s  %6s  %4s  %s\n", w, "FIELD", "TYPE", "OFFSET", "SIZE", "DECLARATION");
    for (int i = 0; i < n; i++) {
        const struct field *f = &v[i];
        const char *type = f->type == PM_TYPE_UNKNOWN ? "?" : pmTypeStr(f->type);
        if (f->known)
            printf("%-*s  %-9s  %6u  %4u  %s%s\n", w, f->name, type, f->decl.offset,
                   f->decl.size, f->decl.text, shown_note(system, f));
        else
            printf("%-*s  %-9s  %6s  %4s  %s\n", w, f->name, type, "?", "?", "?");
    }
}

/* Is event in the catalog?  -1 after a message if the catalog is unreadable. */
static int known_event(const struct tracer *t, const char *event)
{
    struct names ns;
    int found = 0;

    if (catalog(t, &ns) < 0)
        return -1;
    found = bsearch(&event, ns.v, ns.n, sizeof(*ns.v), by_name) != NULL;
    names_free(&ns);
    return found;
}

int list_fields(struct tracer *t, const char *event)
{
    const char *colon = strchr(event, ':');
    char prefix[512];
    char **children = NULL;
    int n, known;

    if (colon == NULL || colon == event || colon[1] == '\0' || strchr(colon + 1, ':') ||
        strpbrk(event, "*?[]. \t") != NULL) {
        errmsg("-F needs one event named system:event (no globs), not '%s'", event);
        return EXIT_USAGE;
    }
    if ((known = known_event(t, event)) <= 0) {
        if (known == 0)
            errmsg("no tracepoint %s on %s (pcp-tracepoint -l lists them)", event, t->where);
        return EXIT_RUNTIME;
    }
    snprintf(prefix, sizeof(prefix), PARAM_PREFIX "%.*s.%s", (int)(colon - event), event,
             colon + 1);
    n = pmGetChildren(prefix, &children);
    if (n == PM_ERR_NAME)
        n = 0;                  /* in the catalog, with no fields of its own */
    if (n < 0) {
        errmsg("cannot list %s on %s: %s", prefix, t->where, pmErrStr(n));
        return EXIT_RUNTIME;
    }
    struct field *v = n > 0 ? calloc((size_t)n, sizeof(*v)) : NULL;
    if (n > 0 && v == NULL) {
        errmsg("out of memory");
        free(children);
        return EXIT_RUNTIME;
    }
    for (int i = 0; i < n; i++) {
        v[i].name = children[i];
        describe_field(prefix, &v[i]);
    }
    if (n > 0)
        qsort(v, (size_t)n, sizeof(*v), by_offset);
    char system[256];
    snprintf(system, sizeof(system), "%.*s", (int)(colon - event), event);
    print_fields(system, v, n);
    free(v);
    if (n > 0)
        free(children);
    if (fflush(stdout) != 0) {
        errmsg("cannot write the output");
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}
