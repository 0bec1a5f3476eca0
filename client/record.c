/* record.c: the common values of an event record (client/record.h). */
#include "record.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int32_t insitu_value(const pmValueSet *vs)
{
    return vs->numval > 0 && vs->valfmt == PM_VAL_INSITU ? vs->vlist[0].value.lval : 0;
}

/*
 * The string value of vs in place, up to its first NUL or its block's end
 * (the PMDA's strings have no NUL; an archive is untrusted input); false if
 * vs holds none.
 */
static bool string_at(const pmValueSet *vs, const char **s, size_t *len)
{
    if (vs->numval < 1 || vs->valfmt == PM_VAL_INSITU)
        return false;
    const pmValueBlock *vb = vs->vlist[0].value.pval;
    *s = vb->vbuf;
    *len = strnlen(vb->vbuf, block_len(vb));
    return true;
}

/* The string value of vs into dst (size bytes); false if it has none. */
static bool copy_string(char *dst, size_t size, const pmValueSet *vs)
{
    const char *s;
    size_t len;

    if (!string_at(vs, &s, &len))
        return false;
    if (len >= size)
        len = size - 1;
    memcpy(dst, s, len);                /* for every record: no printf */
    dst[len] = '\0';
    return true;
}

/* The event's name, in place, at most EVENT_NAME_MAX - 1 bytes. */
static void take_event(struct common *c, const pmValueSet *vs)
{
    if (string_at(vs, &c->event, &c->event_len) && c->event_len >= EVENT_NAME_MAX)
        c->event_len = EVENT_NAME_MAX - 1;
}

uint64_t u64_value(const pmValueSet *vs, uint64_t fallback)
{
    pmAtomValue a;

    if (vs->numval > 0 && vs->valfmt != PM_VAL_INSITU) {
        const pmValueBlock *vb = vs->vlist[0].value.pval;
        if (vb->vtype == PM_TYPE_U64 && block_len(vb) == sizeof(a.ull)) {
            memcpy(&a.ull, vb->vbuf, sizeof(a.ull));    /* as the PMDA sends time_ns */
            return a.ull;
        }
    }
    if (vs->numval < 1 ||
        pmExtractValue(vs->valfmt, &vs->vlist[0], PM_TYPE_U64, &a, PM_TYPE_U64) < 0)
        return fallback;
    return a.ull;
}

bool int_value(const pmValueSet *vs, const struct param *p, int64_t *out)
{
    int type = p != NULL && p->type != PM_TYPE_UNKNOWN ? p->type : PM_TYPE_32;
    pmAtomValue a;

    if (vs == NULL || vs->numval < 1 ||
        pmExtractValue(vs->valfmt, &vs->vlist[0], type, &a, PM_TYPE_64) < 0)
        return false;
    *out = a.ll;
    return true;
}


int scan_common(struct params *ps, const struct record *r, struct common *c)
{
    /* every member but the names' tails, which are never read past their NUL */
    c->cpu = c->pid = c->text = NULL;
    c->cpu_param = c->pid_param = NULL;
    c->has_comm = false;
    c->comm[0] = '\0';
    c->stack = NULL;
    c->stack_len = 0;
    c->flags = c->missed = 0;
    c->event = "?";
    c->event_len = 1;
    c->time_ns = r->stamp_ns;
    for (int i = 0; i < r->numpmid; i++) {
        const pmValueSet *vs = r->vset[i];
        const struct param *p = param_at(ps, i, vs->pmid);
        if (p == NULL)
            return -ENOMEM;
        switch (p->role) {
        case EVENT: take_event(c, vs); break;
        case CPU: c->cpu = vs; c->cpu_param = p; break;
        case PID: c->pid = vs; c->pid_param = p; break;
        case TIME_NS: c->time_ns = u64_value(vs, r->stamp_ns); break;
        case FLAGS: c->flags = insitu_value(vs); break;
        case MISSED: c->missed = insitu_value(vs); break;
        case COMM: c->has_comm = copy_string(c->comm, sizeof(c->comm), vs); break;
        case TEXT: c->text = vs->numval > 0 && vs->valfmt != PM_VAL_INSITU ? vs : NULL; break;
        case STACK: string_at(vs, &c->stack, &c->stack_len); break;
        case FIELD: break;
        }
    }
    return 0;
}

