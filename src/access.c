/*
 * Who may store, and who may read what.  See tp_access.h.
 */
#include "tp_access.h"

#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "tp_agent.h"
#include "tp_probeset.h"

static bool in_group(const char *group, const struct tp_creds *cr)
{
    char buf[4096], name[64];
    struct group gr, *g = NULL;
    if (getgrnam_r(group, &gr, buf, sizeof(buf), &g) != 0 || !g)
        return false;
    if (cr->has_gid && cr->gid == g->gr_gid)
        return true;
    snprintf(name, sizeof(name), "%s", cr->user);
    if (!name[0]) {
        char pbuf[4096];
        struct passwd pw, *p = NULL;
        if (getpwuid_r(cr->uid, &pw, pbuf, sizeof(pbuf), &p) != 0 || !p)
            return false;
        snprintf(name, sizeof(name), "%s", p->pw_name);
        if (p->pw_gid == g->gr_gid)
            return true;
    }
    for (char **m = g->gr_mem; m && *m; m++)
        if (strcmp(*m, name) == 0)
            return true;
    return false;
}

static bool in_any(char *const *groups, size_t n, const struct tp_creds *cr)
{
    for (size_t i = 0; i < n; i++)
        if (in_group(groups[i], cr))
            return true;
    return false;
}

bool tp_access_may_store(const struct tp_config *cfg, const struct tp_creds *cr)
{
    if (!cr->has_uid)
        return false;
    return cr->uid == 0 || in_any(cfg->allow_groups, cfg->nallow_groups, cr);
}

bool tp_access_may_read(const struct tp_access *acc, const struct tp_creds *cr)
{
    if (!acc)
        return cr->has_uid && cr->uid == 0;
    switch (acc->kind) {
    case TP_ACCESS_ALL:
        return true;
    case TP_ACCESS_ROOT:
        return cr->has_uid && cr->uid == 0;
    default:
        return cr->has_uid && (cr->uid == 0 || in_any(acc->groups, acc->ngroups, cr));
    }
}

/* Who may read a probe's events: its config line's grant; root for any other probe. */
static const struct tp_access *probe_access(const struct tp_agent *a, size_t ev)
{
    const struct tp_probedef *d = tp_probeset_by_event(a, ev);
    if (!d || d->owner != TP_PROBE_OWNER_CONFIG)
        return NULL;
    for (size_t i = 0; i < a->cfg.nprobes; i++)
        if (strcmp(a->cfg.probes[i].name, d->name) == 0)
            return &a->cfg.probes[i].access;
    return NULL;
}

bool tp_access_may_read_event(const struct tp_agent *a, size_t ev, const struct tp_creds *cr)
{
    const struct tp_event *e = tp_catalog_event(a->cat, ev);
    if (!e || e->vacant || strcmp(e->system, TP_PROBE_SYSTEM) != 0)
        return true;
    return tp_access_may_read(probe_access(a, ev), cr);
}

bool tp_access_may_read_stream(const struct tp_agent *a, const struct tp_stream *st,
                                const struct tp_creds *cr)
{
    if (!tp_access_may_read(&st->access, cr))
        return false;
    for (size_t i = 0; i < st->nevents; i++)
        if (!tp_access_may_read_event(a, st->events[i], cr))
            return false;
    return true;
}
