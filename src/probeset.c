/*
 * The probes the agent has defined.  See tp_probeset.h.
 */
#include "tp_probeset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_agent.h"
#include "tp_elfsym.h"
#include "tp_probes.h"

const struct tp_probedef *tp_probeset_find(const struct tp_agent *a, const char *name)
{
    for (size_t i = 0; i < a->probeset.n; i++)
        if (strcmp(a->probeset.v[i].name, name) == 0)
            return &a->probeset.v[i];
    return NULL;
}

const struct tp_probedef *tp_probeset_by_event(const struct tp_agent *a, size_t event)
{
    for (size_t i = 0; i < a->probeset.n; i++)
        if (a->probeset.v[i].event == event)
            return &a->probeset.v[i];
    return NULL;
}

static size_t owned_by(const struct tp_agent *a, int owner)
{
    size_t n = 0;
    for (size_t i = 0; i < a->probeset.n; i++)
        n += a->probeset.v[i].owner == owner;
    return n;
}

/* Where the probe goes in its file: a symbol resolved, plus the offset. */
static int file_offset(const struct tp_probe_spec *spec, uint64_t *off, char *err, size_t errlen)
{
    *off = spec->offset;
    if (spec->kind != TP_PROBE_UPROBE || !spec->symbol)
        return 0;
    uint64_t at = 0;
    int rc = tp_elf_resolve(spec->path, spec->symbol, &at, err, errlen);
    *off += at;
    return rc;
}

/* The kernel's probe exists; give it a catalog slot, an id and its fields' PMIDs. */
static int adopt_event(struct tp_agent *a, const char *name, char *err, size_t errlen)
{
    int idx = tp_catalog_bind_probe(a->cat, name, tp_probes_group(a->probes));
    if (idx < 0)
        return tp_errf(err, errlen, idx, "%s", idx == -ENOSPC
                       ? "every probe slot is in use" : strerror(-idx));
    size_t ev = (size_t)idx;
    if (a->eid[ev] >= 0 && a->by_eid[a->eid[ev]] == idx)
        a->by_eid[a->eid[ev]] = -1;         /* the slot's last probe, unless bound elsewhere since */
    free((void *)a->fields[ev].pmid);
    memset(&a->fields[ev], 0, sizeof(a->fields[ev]));
    tp_render_forget(a->render, ev);
    tp_capture_lock(a->cap);
    tp_capture_reset_count(a->cap, ev);
    tp_capture_unlock(a->cap);
    int rc = tp_identity_begin(a->ident);
    if (rc < 0)
        tp_logf(a->log, a->log_arg, "cannot lock the identity map: %s", strerror(-rc));
    int eid = tp_identity_event(a->ident, tp_catalog_event(a->cat, ev)->fullname);
    if ((rc = tp_identity_end(a->ident)) < 0)
        tp_logf(a->log, a->log_arg, "cannot save the identity map: %s", strerror(-rc));
    a->eid[ev] = eid;
    if (eid >= 0)
        a->by_eid[eid] = idx;
    if (eid < 0) {
        tp_catalog_unbind_probe(a->cat, ev);
        return tp_errf(err, errlen, eid, "probe:%s: no PMID cluster for it: %s", name,
                       eid == -ENOSPC ? "all are taken" : strerror(-eid));
    }
    if ((rc = a->probeset.hooks.load_event(a, ev)) < 0) {
        tp_catalog_unbind_probe(a->cat, ev);
        return tp_errf(err, errlen, rc, "probe:%s: its format cannot be used: %s", name,
                       strerror(-rc));
    }
    a->probeset.hooks.save_ids(a);
    return idx;
}

static int check_define(const struct tp_agent *a, int owner, const char *name,
                        unsigned max_per_owner, char *err, size_t errlen)
{
    if (!a->cat || !a->probes)
        return tp_errf(err, errlen, -ENODEV, "kernel tracing is not available");
    if (!tp_probe_name_ok(name))
        return tp_errf(err, errlen, -EINVAL, "bad probe name");
    if (tp_probeset_find(a, name))
        return tp_errf(err, errlen, -EEXIST, "probe:%s is defined already", name);
    if (max_per_owner && owned_by(a, owner) >= max_per_owner)
        return tp_errf(err, errlen, -EDQUOT, "at most %u probes per context", max_per_owner);
    return 0;
}

static int push_def(struct tp_agent *a, int owner, const char *name, enum tp_probe_kind kind,
                    const char *spec, size_t event)
{
    struct tp_probedef *v = realloc(a->probeset.v, (a->probeset.n + 1) * sizeof(*v));
    if (!v)
        return -ENOMEM;
    a->probeset.v = v;
    struct tp_probedef *d = &v[a->probeset.n];
    if (!(d->spec = strdup(spec)))
        return -ENOMEM;
    snprintf(d->name, sizeof(d->name), "%s", name);
    d->kind = kind;
    d->owner = owner;
    d->event = event;
    a->probeset.n++;
    return 0;
}

int tp_probeset_define(struct tp_agent *a, int owner, const char *name, enum tp_probe_kind kind,
                       const char *spec, unsigned max_per_owner, char *err, size_t errlen)
{
    struct tp_probe_spec ps;
    uint64_t off = 0;
    int rc = check_define(a, owner, name, max_per_owner, err, errlen);
    if (rc < 0)
        return rc;
    if ((rc = tp_probespec_parse(spec, kind, tp_probe_host_arch(), &ps, err, errlen)) < 0)
        return rc == -ENOTSUP ? -EINVAL : rc;   /* -EOPNOTSUPP is for "no such probes here" */
    rc = file_offset(&ps, &off, err, errlen);
    if (rc == 0)
        rc = tp_probes_create(a->probes, name, &ps, off, err, errlen);
    tp_probespec_free(&ps);
    if (rc < 0)
        return rc;
    int idx = adopt_event(a, name, err, errlen);
    if (idx >= 0 && push_def(a, owner, name, kind, spec, (size_t)idx) < 0) {
        tp_catalog_unbind_probe(a->cat, (size_t)idx);
        idx = tp_errf(err, errlen, -ENOMEM, "out of memory");
    }
    if (idx < 0)
        tp_probes_remove(a->probes, name);
    return idx;
}

/* Every consumer of the event lets go of it, and the kernel disables it. */
static void release_event(struct tp_agent *a, size_t event)
{
    const struct tp_probeset_hooks *h = &a->probeset.hooks;
    if (h->forget_subs)
        h->forget_subs(a, event);
    h->release(a, event);
}

int tp_probeset_remove(struct tp_agent *a, const char *name)
{
    const struct tp_probedef *d = tp_probeset_find(a, name);
    if (!d)
        return -ENOENT;
    size_t i = (size_t)(d - a->probeset.v), event = d->event;
    release_event(a, event);
    tp_probes_remove(a->probes, name);
    tp_demand_forget(a->demand, event);     /* a failed disable too: the slot starts clean */
    tp_catalog_unbind_probe(a->cat, event);
    free(a->probeset.v[i].spec);
    a->probeset.v[i] = a->probeset.v[--a->probeset.n];
    return 0;
}

size_t tp_probeset_remove_owner(struct tp_agent *a, int owner)
{
    size_t n = 0;
    for (size_t i = a->probeset.n; i-- > 0;) {
        if (i < a->probeset.n && a->probeset.v[i].owner == owner) {
            char name[TP_PROBE_NAME_MAX + 1];
            snprintf(name, sizeof(name), "%s", a->probeset.v[i].name);
            n += tp_probeset_remove(a, name) == 0;
        }
    }
    return n;
}

void tp_probeset_free(struct tp_agent *a)
{
    for (size_t i = 0; i < a->probeset.n; i++)
        free(a->probeset.v[i].spec);
    free(a->probeset.v);
    a->probeset.v = NULL;
    a->probeset.n = 0;
}
