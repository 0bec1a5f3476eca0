/* params.c: the parameter metrics met in records (client/params.h). */
#include "params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_valname.h"

static const struct { const char *name; enum role role; } common_params[] = {
    { "tracepoint.param.event", EVENT },
    { "tracepoint.param.cpu", CPU },
    { "tracepoint.param.pid", PID },
    { "tracepoint.param.time_ns", TIME_NS },
    { "tracepoint.param.comm", COMM },
    { "tracepoint.param.text", TEXT },
    { "tracepoint.param.stack", STACK },
    { "event.flags", FLAGS },           /* libpcp's anonymous metrics */
    { "event.missed", MISSED },
};


static enum role role_of(const char *name)
{
    for (size_t i = 0; i < sizeof(common_params) / sizeof(common_params[0]); i++)
        if (strcmp(name, common_params[i].name) == 0)
            return common_params[i].role;
    return FIELD;
}

/* An array field's element type, from the declaration in its help text. */
static struct elem element_type(pmID pmid)
{
    char *help = NULL;
    struct decl d;
    struct elem e = { 0, false };

    if (pmLookupText(pmid, PM_TEXT_HELP, &help) >= 0 && decl_from_help(help, &d) == 0)
        e = decl_element(d.text);
    free(help);
    return e;
}

/*
 * How a number field is shown: tracepoint.param.SYSTEM.EVENT.FIELD, and for
 * a U32 (dev_t's type) the declaration in its help text.
 */
static unsigned char shown_of(const struct params *ps, const struct param *p)
{
    static const char prefix[] = "tracepoint.param.";
    char system[128], *help = NULL;
    struct decl d = { .text = "" };
    const char *s = p->name + sizeof(prefix) - 1, *dot;

    if (strncmp(p->name, prefix, sizeof(prefix) - 1) != 0 || (dot = strchr(s, '.')) == NULL ||
        (size_t)(dot - s) >= sizeof(system))
        return TP_SHOWN_NUMBER;
    snprintf(system, sizeof(system), "%.*s", (int)(dot - s), s);
    if (p->type == PM_TYPE_U32 && pmLookupText(p->pmid, PM_TEXT_HELP, &help) >= 0)
        decl_from_help(help, &d);
    free(help);
    return (unsigned char)tp_valname_shown(system, p->field, d.text, ps->syscalls_ok);
}

static struct param *param_new(const struct params *ps, pmID pmid)
{
    struct param *p = calloc(1, sizeof(*p));
    pmDesc desc;

    if (p == NULL)
        return NULL;
    p->pmid = pmid;
    p->type = PM_TYPE_UNKNOWN;
    if (pmNameID(pmid, &p->name) < 0 && (p->name = strdup(pmIDStr(pmid))) == NULL) {
        free(p);
        return NULL;
    }
    const char *dot = strrchr(p->name, '.');
    p->field = dot != NULL ? dot + 1 : p->name;
    p->role = role_of(p->name);
    if (p->role != FLAGS && p->role != MISSED && pmLookupDesc(pmid, &desc) >= 0)
        p->type = desc.type;
    if (p->type == PM_TYPE_AGGREGATE || p->type == PM_TYPE_AGGREGATE_STATIC)
        p->elem = element_type(pmid);
    if (p->role == FIELD && p->type >= PM_TYPE_32 && p->type <= PM_TYPE_U64)
        p->shown = shown_of(ps, p);
    return p;
}

/* The parameter with this PMID, looked up once; NULL only without memory. */
const struct param *param_get(struct params *ps, pmID pmid)
{
    struct param **head = &ps->bucket[pmid % PARAM_BUCKETS];

    for (struct param *p = *head; p != NULL; p = p->next)
        if (p->pmid == pmid)
            return p;
    struct param *p = param_new(ps, pmid);
    if (p != NULL) {
        p->next = *head;
        *head = p;
    }
    return p;
}

void params_free(struct params *ps)
{
    for (size_t b = 0; b < PARAM_BUCKETS; b++) {
        for (struct param *p = ps->bucket[b], *next; p != NULL; p = next) {
            next = p->next;
            free(p->name);
            free(p);
        }
        ps->bucket[b] = NULL;
    }
    memset(ps->shape, 0, sizeof(ps->shape));
}
