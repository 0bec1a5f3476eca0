/*
 * The dynamic namespace under tracepoint.param.  See tp_names.h.
 */
#include "tp_names.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcp/pmda.h>

#include "tp_aggitems.h"
#include "tp_records.h"

static const struct common_param {
    const char *name;
    int type;
    const char *oneline;
    const char *help;
} common[TP_NCOMMON] = {
    [TP_PARAM_EVENT] = { "event", PM_TYPE_STRING, "tracepoint of the event, as system:event",
        "The kernel tracepoint that produced the event record, written \"system:event\"\n"
        "(for example \"sched:sched_process_exec\").  The first parameter of every record." },
    [TP_PARAM_CPU] = { "cpu", PM_TYPE_U32, "CPU on which the event happened",
        "The CPU whose trace buffer recorded the event." },
    [TP_PARAM_PID] = { "pid", PM_TYPE_32, "process (thread) id current when the event happened",
        "The event's common_pid: the id of the thread that was running when the\n"
        "tracepoint fired (0 for the idle task and some interrupt contexts)." },
    [TP_PARAM_TIME_NS] = { "time_ns", PM_TYPE_U64, "wall-clock time of the event in nanoseconds",
        "The event's own time, from the kernel's trace clock mapped to CLOCK_REALTIME,\n"
        "in nanoseconds since the epoch.  The record's timestamp carries the same time\n"
        "to the microsecond; this parameter keeps full precision." },
    [TP_PARAM_COMM] = { "comm", PM_TYPE_STRING, "the task's name at the event",
        "The command name (comm) the event's task (its pid) had when the event\n"
        "happened, as perf and bpftrace report it: never a name it took later by\n"
        "exec, prctl or a write to /proc/PID/comm.  The PMDA follows the kernel's\n"
        "sched_process_fork, task_rename and sched_process_free in time order with\n"
        "the events.  \"<idle>\" for pid 0, \"<...>\" for a task nothing could name.\n"
        "Tasks running when names were first wanted are named from /proc then.\n"
        "Only in the records of consumers that ask for it\n"
        "(tracepoint.control.params, or params= of a stream)." },
    [TP_PARAM_TEXT] = { "text", PM_TYPE_STRING, "the event as trace-cmd report prints it",
        "The event's own part of a trace-cmd report or perf script line: its\n"
        "format's print fmt rendered by libtraceevent on the PMDA's machine,\n"
        "with symbolic flags and enums, hex where the format says hex, and kernel\n"
        "addresses (%pS) as symbols.  At most 1023 bytes.  Only in the records of\n"
        "consumers that ask for it (tracepoint.control.params, or params= of a stream)." },
    [TP_PARAM_STACK] = { "stack", PM_TYPE_STRING, "the kernel stack at the event",
        "The kernel's call stack when the event happened, from ftrace's stacktrace\n"
        "trigger in the PMDA's own instance: one frame a line, innermost first, each\n"
        "as the kernel prints %pS (\"do_syscall_64+0x82\", \"func+0x1a [ext4]\" for a\n"
        "module, \"0x...\" where no symbol holds the address), symbolised by the PMDA\n"
        "from /proc/kallsyms.  At most 8191 bytes, cut at a whole frame.  Only in the\n"
        "records of consumers that ask for it (the word stack in\n"
        "tracepoint.control.params, or params= of a stream); a record whose stack\n"
        "could not be had has no such parameter (tracepoint.stack.missing counts them)." },
};

/* ---- name lists in libpcp_pmda's layout --------------------------------- */

struct namelist {
    char **v;
    int *sts;
    size_t n, cap, bytes;
    int err;
};

static void nl_add(struct namelist *l, int leaf, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void nl_add(struct namelist *l, int leaf, const char *fmt, ...)
{
    if (l->err)
        return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        char **v = realloc(l->v, cap * sizeof(*v));
        int *s = v ? realloc(l->sts, cap * sizeof(*s)) : NULL;
        if (v)
            l->v = v;
        if (!v || !s) {
            l->err = -ENOMEM;
            return;
        }
        l->sts = s;
        l->cap = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    int len = vasprintf(&l->v[l->n], fmt, ap);
    va_end(ap);
    if (len < 0) {
        l->err = -ENOMEM;
        return;
    }
    l->sts[l->n++] = leaf ? PMNS_LEAF_STATUS : PMNS_NONLEAF_STATUS;
    l->bytes += (size_t)len + 1;
}

static void nl_free(struct namelist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    free(l->sts);
}

/* One block: pointers then strings.  Consumes the list. */
static int nl_pack(struct namelist *l, char ***names, int **sts)
{
    int rc = l->err;
    char **block = NULL;
    if (rc == 0 && l->n > 0) {
        block = malloc(l->n * sizeof(char *) + l->bytes);
        rc = block ? (int)l->n : -ENOMEM;
    }
    if (block) {
        char *p = (char *)&block[l->n];
        for (size_t i = 0; i < l->n; i++) {
            size_t len = strlen(l->v[i]) + 1;
            block[i] = memcpy(p, l->v[i], len);
            p += len;
        }
        *names = block;
        if (sts) {
            *sts = l->sts;
            l->sts = NULL;
        }
    }
    nl_free(l);
    return rc;
}

/* ---- name parsing -------------------------------------------------------- */

static const char *param_rest(const char *name)
{
    size_t n = strlen(TP_PARAM_PREFIX);
    if (strncmp(name, TP_PARAM_PREFIX, n) != 0)
        return NULL;
    if (name[n] == '\0')
        return "";
    return name[n] == '.' ? name + n + 1 : NULL;
}

static int common_index(const char *s)
{
    for (int i = 0; i < TP_NCOMMON; i++)
        if (strcmp(s, common[i].name) == 0)
            return i;
    return -1;
}

/* Split "a.b.c" into up to 3 parts; returns the number of parts, or -1. */
static int split3(const char *s, char parts[3][128])
{
    int n = 0;
    while (n < 3) {
        size_t len = strcspn(s, ".");
        if (len == 0 || len >= 128)
            return -1;
        memcpy(parts[n], s, len);
        parts[n++][len] = '\0';
        if (s[len] == '\0')
            return n;
        s += len + 1;
    }
    return -1;
}

static int load(const struct tp_names *n, size_t ev)
{
    return n->load ? n->load(n->arg, ev) : tp_catalog_load(n->cat, ev);
}

static int field_index(const struct tp_event *e, const char *field)
{
    for (unsigned i = 0; i < e->nfields; i++)
        if (strcmp(e->fields[i].name, field) == 0)
            return (int)i;
    return -1;
}

/* ---- tracepoint.agg ------------------------------------------------------ */

static const char *agg_rest(const char *name)
{
    size_t n = strlen(TP_AGG_PREFIX);
    if (strncmp(name, TP_AGG_PREFIX, n) != 0)
        return NULL;
    if (name[n] == '\0')
        return "";
    return name[n] == '.' ? name + n + 1 : NULL;
}

/* The aggregation called name, or -1; its cluster and items. */
static int find_agg(const struct tp_names *n, const char *name, unsigned *cluster,
                    unsigned *items)
{
    const char *an;
    for (size_t i = 0; n->agg && (an = n->agg(n->arg, i, cluster, items)) != NULL; i++)
        if (strcmp(an, name) == 0)
            return (int)i;
    return -1;
}

static int agg_item(const char *leaf, unsigned items)
{
    for (unsigned i = 0; i < TP_AGG_NITEMS; i++)
        if ((items >> i & 1) && strcmp(leaf, tp_agg_item_name(i)) == 0)
            return (int)i;
    return -1;
}

static int agg_pmid(const struct tp_names *n, const char *rest, pmID *pmid)
{
    char p[3][128];
    unsigned cluster, items;
    int item;
    if (split3(rest, p) != 2 || find_agg(n, p[0], &cluster, &items) < 0 ||
        (item = agg_item(p[1], items)) < 0)
        return PM_ERR_NAME;
    *pmid = pmID_build((unsigned)n->domain, cluster, (unsigned)item);
    return 0;
}

/* The name of an aggregation's PMID, if it is one. */
static int agg_name_of(const struct tp_names *n, pmID pmid, struct namelist *l)
{
    unsigned cluster, items;
    const char *an;
    if ((int)pmID_domain(pmid) != n->domain)
        return PM_ERR_PMID;
    for (size_t i = 0; n->agg && (an = n->agg(n->arg, i, &cluster, &items)) != NULL; i++) {
        if (cluster != pmID_cluster(pmid) || pmID_item(pmid) >= TP_AGG_NITEMS ||
            !(items >> pmID_item(pmid) & 1))
            continue;
        nl_add(l, 1, TP_AGG_PREFIX ".%s.%s", an, tp_agg_item_name(pmID_item(pmid)));
        return 0;
    }
    return PM_ERR_PMID;
}

static void agg_leaves(struct namelist *l, const char *an, unsigned items, int absolute)
{
    for (unsigned i = 0; i < TP_AGG_NITEMS; i++) {
        if (!(items >> i & 1))
            continue;
        if (absolute)
            nl_add(l, 1, TP_AGG_PREFIX ".%s.%s", an, tp_agg_item_name(i));
        else
            nl_add(l, 1, "%s", tp_agg_item_name(i));
    }
}

static int agg_children(const struct tp_names *n, const char *name, const char *rest,
                        int traverse, char ***kids, int **sts)
{
    struct namelist l = { 0 };
    char p[3][128];
    unsigned cluster, items;
    const char *an;
    int parts = *rest ? split3(rest, p) : 0;
    if (parts == 0) {
        for (size_t i = 0; n->agg && (an = n->agg(n->arg, i, &cluster, &items)) != NULL; i++) {
            if (traverse)
                agg_leaves(&l, an, items, 1);
            else
                nl_add(&l, 0, "%s", an);
        }
    } else if (parts == 1 && find_agg(n, p[0], &cluster, &items) >= 0) {
        agg_leaves(&l, p[0], items, traverse);
    } else if (parts == 2 && find_agg(n, p[0], &cluster, &items) >= 0 &&
               agg_item(p[1], items) >= 0) {
        if (traverse)
            nl_add(&l, 1, "%s", name);
    } else {
        return PM_ERR_NAME;
    }
    return nl_pack(&l, kids, sts);
}

/* ---- tracepoint.param ---------------------------------------------------- */

int tp_names_pmid(const struct tp_names *n, const char *name, pmID *pmid)
{
    const char *rest = param_rest(name);
    char p[3][128];
    if (!rest && (rest = agg_rest(name)) != NULL)
        return agg_pmid(n, rest, pmid);
    if (!rest)
        return PM_ERR_NAME;
    int c = common_index(rest);
    if (c >= 0) {
        *pmid = pmID_build((unsigned)n->domain, TP_CLUSTER_COMMON, (unsigned)c);
        return 0;
    }
    if (split3(rest, p) != 3)
        return PM_ERR_NAME;
    int ev = tp_catalog_find(n->cat, p[0], p[1]);
    if (ev < 0 || load(n, (size_t)ev) < 0)
        return PM_ERR_NAME;
    int f = field_index(tp_catalog_event(n->cat, (size_t)ev), p[2]);
    if (f < 0 || (*pmid = n->field_pmid(n->arg, (size_t)ev, (unsigned)f)) == PM_ID_NULL)
        return PM_ERR_NAME;
    return 0;
}

/* The event and field of a field PMID, loading the event; NULL if none. */
static const struct tp_field *pmid_field(const struct tp_names *n, pmID pmid,
                                         const struct tp_event **ev)
{
    if ((int)pmID_domain(pmid) != n->domain || pmID_cluster(pmid) < TP_CLUSTER_FIELDS)
        return NULL;
    int idx = n->event_of(n->arg, pmid);
    if (idx < 0 || load(n, (size_t)idx) < 0)
        return NULL;
    int f = n->field_of(n->arg, (size_t)idx, pmid);
    if (f < 0)
        return NULL;
    const struct tp_event *e = tp_catalog_event(n->cat, (size_t)idx);
    *ev = e;
    return &e->fields[f];
}

static int pmid_common(const struct tp_names *n, pmID pmid)
{
    if ((int)pmID_domain(pmid) != n->domain || pmID_cluster(pmid) != TP_CLUSTER_COMMON ||
        pmID_item(pmid) >= TP_NCOMMON)
        return -1;
    return (int)pmID_item(pmid);
}

int tp_names_name(const struct tp_names *n, pmID pmid, char ***nameset)
{
    struct namelist l = { 0 };
    const struct tp_event *e;
    const struct tp_field *f;
    int c = pmid_common(n, pmid);
    if (c >= 0)
        nl_add(&l, 1, TP_PARAM_PREFIX ".%s", common[c].name);
    else if ((f = pmid_field(n, pmid, &e)) != NULL)
        nl_add(&l, 1, TP_PARAM_PREFIX ".%s.%s.%s", e->system, e->name, f->name);
    else if (agg_name_of(n, pmid, &l) < 0)
        return PM_ERR_PMID;
    return nl_pack(&l, nameset, NULL);
}

/* ---- children ------------------------------------------------------------ */

static void add_fields(const struct tp_names *n, struct namelist *l, size_t ev, int absolute)
{
    if (tp_catalog_event(n->cat, ev)->vacant || load(n, ev) < 0)
        return;
    const struct tp_event *e = tp_catalog_event(n->cat, ev);
    for (unsigned i = 0; i < e->nfields; i++) {
        if (n->field_pmid(n->arg, ev, i) == PM_ID_NULL)
            continue;
        if (absolute)
            nl_add(l, 1, TP_PARAM_PREFIX ".%s.%s.%s", e->system, e->name, e->fields[i].name);
        else
            nl_add(l, 1, "%s", e->fields[i].name);
    }
}

/* Events [first, end) of one system. */
static size_t system_end(const struct tp_catalog *cat, size_t first)
{
    const char *sys = tp_catalog_event((struct tp_catalog *)cat, first)->system;
    size_t i = first;
    while (i < tp_catalog_count(cat) &&
           strcmp(tp_catalog_event((struct tp_catalog *)cat, i)->system, sys) == 0)
        i++;
    return i;
}

/* Are all events of the system starting at first vacant probe slots? */
static bool system_vacant(const struct tp_catalog *cat, size_t first)
{
    for (size_t i = first; i < system_end(cat, first); i++)
        if (!tp_catalog_event((struct tp_catalog *)cat, i)->vacant)
            return false;
    return true;
}

static void children_of_root(const struct tp_names *n, struct namelist *l, int traverse)
{
    for (int i = 0; i < TP_NCOMMON; i++) {
        if (traverse)
            nl_add(l, 1, TP_PARAM_PREFIX ".%s", common[i].name);
        else
            nl_add(l, 1, "%s", common[i].name);
    }
    size_t count = tp_catalog_count(n->cat);
    for (size_t i = 0; i < count; i = system_end(n->cat, i)) {
        if (!traverse) {
            if (!system_vacant(n->cat, i))
                nl_add(l, 0, "%s", tp_catalog_event(n->cat, i)->system);
            continue;
        }
        for (size_t j = i; j < system_end(n->cat, i); j++)
            add_fields(n, l, j, 1);
    }
}

static void children_of_system(const struct tp_names *n, struct namelist *l, size_t first,
                               int traverse)
{
    size_t end = system_end(n->cat, first);
    for (size_t i = first; i < end; i++) {
        if (traverse)
            add_fields(n, l, i, 1);
        else if (!tp_catalog_event(n->cat, i)->vacant)
            nl_add(l, 0, "%s", tp_catalog_event(n->cat, i)->name);
    }
}

int tp_names_children(const struct tp_names *n, const char *name, int traverse,
                      char ***kids, int **sts)
{
    const char *rest = param_rest(name);
    struct namelist l = { 0 };
    char p[3][128];
    int parts, ev;
    if (!rest && (rest = agg_rest(name)) != NULL)
        return agg_children(n, name, rest, traverse, kids, sts);
    if (!rest)
        return PM_ERR_NAME;
    if (*rest == '\0') {
        children_of_root(n, &l, traverse);
    } else if (common_index(rest) >= 0) {
        if (traverse)
            nl_add(&l, 1, "%s", name);
    } else if ((parts = split3(rest, p)) == 1) {
        if ((ev = tp_catalog_find_system(n->cat, p[0])) < 0)
            return PM_ERR_NAME;
        children_of_system(n, &l, (size_t)ev, traverse);
    } else if (parts >= 2 && (ev = tp_catalog_find(n->cat, p[0], p[1])) >= 0) {
        if (parts == 2) {
            add_fields(n, &l, (size_t)ev, traverse);
        } else {
            pmID id;
            if (tp_names_pmid(n, name, &id) < 0)
                return PM_ERR_NAME;
            if (traverse)
                nl_add(&l, 1, "%s", name);
        }
    } else {
        return PM_ERR_NAME;
    }
    return nl_pack(&l, kids, sts);
}

/* ---- descriptors and help ------------------------------------------------ */

int tp_names_common_type(unsigned item)
{
    return item < TP_NCOMMON ? common[item].type : PM_TYPE_UNKNOWN;
}

int tp_names_desc(const struct tp_names *n, pmID pmid, pmDesc *desc)
{
    const struct tp_event *e;
    const struct tp_field *f;
    int c = pmid_common(n, pmid);
    memset(desc, 0, sizeof(*desc));
    desc->pmid = pmid;
    desc->indom = PM_INDOM_NULL;
    desc->sem = PM_SEM_INSTANT;
    if (c >= 0) {
        desc->type = common[c].type;
        if (c == TP_PARAM_TIME_NS)
            desc->units = (pmUnits)PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_NSEC, 0);
        return 0;
    }
    if ((f = pmid_field(n, pmid, &e)) == NULL)
        return PM_ERR_PMID;
    desc->type = f->pmtype;
    return 0;
}

static const char *kind_words(const struct tp_field *f)
{
    switch (f->kind) {
    case TP_FIELD_STRING: return "A character array, as a string";
    case TP_FIELD_DLOC_STRING:
    case TP_FIELD_RLOC_STRING: return "A dynamic (__data_loc) string";
    case TP_FIELD_BYTES: return "Raw bytes (an aggregate)";
    case TP_FIELD_DLOC_BYTES:
    case TP_FIELD_RLOC_BYTES: return "A dynamic (__data_loc) array, as raw bytes";
    case TP_FIELD_INT: return "A signed integer";
    default: return "An unsigned integer";
    }
}

int tp_names_text(const struct tp_names *n, pmID pmid, int type, char *buf, size_t len)
{
    const struct tp_event *e;
    const struct tp_field *f;
    int c = pmid_common(n, pmid);
    bool oneline = type & PM_TEXT_ONELINE;
    if (c >= 0) {
        snprintf(buf, len, "%s", oneline ? common[c].oneline : common[c].help);
        return 0;
    }
    if ((f = pmid_field(n, pmid, &e)) == NULL)
        return PM_ERR_PMID;
    if (oneline) {
        snprintf(buf, len, "%s field %s: %s", e->fullname, f->name, f->decl);
        return 0;
    }
    snprintf(buf, len,
             "Field \"%s\" of tracepoint %s, declared\n"
             "    %s;    (offset %u, size %u)\n"
             "%s.  Values appear only as a parameter of the\n"
             "event records of tracepoint.stream.records and tracepoint.records.\n"
             "The kernel prints the event as:\n    \"%s\"",
             f->name, e->fullname, f->decl, f->offset, f->size, kind_words(f),
             e->print_fmt ? e->print_fmt : "");
    return 0;
}
