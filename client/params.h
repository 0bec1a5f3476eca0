/*
 * params: what the client knows of each parameter metric met in a record
 * -- its name, its last name component (the field), its type and its role
 * (one of the common parameters, or an event's own field) -- looked up once
 * per PMID in the current PMCD context and kept in a hash table (and,
 * for the records that follow, by the position it held: param_at).
 *
 * For an aggregate (an array field), also the type of its elements, from
 * the C declaration in its help text, so that JSON can show its numbers;
 * for a number, whether text shows it as a name (tp_valname.h: a syscall
 * where the source's machine is of the client's architecture, a dev_t
 * from its declaration).
 *
 * Called by record (scan_common) and output (field names and types) for
 * every parameter of every record.  Asks the PMCD context (pmNameID,
 * pmLookupDesc, pmLookupText) the first time a PMID is seen, never again.
 */
#ifndef CLIENT_PARAMS_H
#define CLIENT_PARAMS_H

#include <stdbool.h>

#include <pcp/pmapi.h>

#include "decl.h"

#define PARAM_BUCKETS 256

enum role { FIELD, EVENT, CPU, PID, TIME_NS, COMM, TEXT, STACK, FLAGS, MISSED };

struct param {
    pmID pmid;
    int type;                   /* PM_TYPE_UNKNOWN without a descriptor */
    enum role role;
    char *name;                 /* the metric's name */
    const char *field;          /* its last component */
    struct elem elem;           /* aggregates: the element type, if known */
    unsigned char shown;        /* enum tp_shown: a syscall's name, a device (tp_valname.h) */
    struct param *next;
};

/*
 * Positions remembered: the records of an array are alike, so the
 * parameter at position i is most often the one it was in the last record.
 */
#define PARAM_SHAPE 16

struct params {
    struct param *bucket[PARAM_BUCKETS];
    const struct param *shape[PARAM_SHAPE];     /* by position, as last met (param_at) */
    bool syscalls_ok;           /* the source's machine has the client's syscall table */
    const char *devdir;         /* where its devices are named (tp_valname.h), or NULL */
};

/* The parameter with this PMID, looked up once; NULL only without memory. */
const struct param *param_get(struct params *ps, pmID pmid);

/*
 * The same, for the parameter at position i of a record: the one at i in
 * the last record when its PMID is the same, else param_get's (then
 * remembered at i).
 */
static inline const struct param *param_at(struct params *ps, int i, pmID pmid)
{
    const struct param *p = i >= 0 && i < PARAM_SHAPE ? ps->shape[i] : NULL;

    if (p != NULL && p->pmid == pmid)
        return p;
    if ((p = param_get(ps, pmid)) != NULL && i >= 0 && i < PARAM_SHAPE)
        ps->shape[i] = p;
    return p;
}

void params_free(struct params *ps);

#endif
