/*
 * tp_probeset: the probes the agent has defined, whose each is, and the
 * steps that make one usable or take it away again.
 *
 * Defining a probe: the spec is parsed (tp_probespec), a uprobe's symbol is
 * resolved in its file (tp_elfsym), the kernel gets the probe (tp_probes),
 * the catalog a slot for probe:NAME, the identity map its id, and its
 * format is loaded, so its fields are PMIDs at once.  Any step that fails
 * undoes the ones before it: a refused probe leaves nothing behind.
 *
 * Removing one: every consumer of its event lets go (client subscriptions,
 * streams, aggregations), the kernel disables it, then the probe is removed
 * and its catalog slot is vacant again.
 *
 * Owners: TP_PROBE_OWNER_CONFIG for `probe`/`kprobe` lines of the config;
 * a client context id otherwise.
 *
 * Callers: the agent (the config's probes) and control (the contexts').
 * This room calls neither: what it needs of the rooms above it comes
 * through the hooks they hand down (struct tp_probeset_hooks).  It reads
 * and changes the agent's catalog, ids and demand.
 *
 * Threading: PMDA thread.
 */
#ifndef TP_PROBESET_H
#define TP_PROBESET_H

#include <stddef.h>

#include "tp_probespec.h"

struct tp_agent;

#define TP_PROBE_OWNER_CONFIG (-1)

/*
 * What defining and removing a probe ask of the rooms above.  The agent
 * sets load_event, save_ids and release when it opens, before it defines
 * the config's probes; control sets forget_subs (tp_control_attach) before
 * the first context can subscribe.
 */
struct tp_probeset_hooks {
    int (*load_event)(struct tp_agent *a, size_t event);    /* its format, its fields' PMIDs */
    void (*save_ids)(struct tp_agent *a);                   /* the ids it was given, saved */
    void (*forget_subs)(struct tp_agent *a, size_t event);  /* contexts let go; NULL: none yet */
    void (*release)(struct tp_agent *a, size_t event);      /* streams, aggregations and
                                                               one-liners let go; settled */
};

struct tp_probedef {
    char name[TP_PROBE_NAME_MAX + 1];
    char *spec;                 /* as given */
    enum tp_probe_kind kind;
    int owner;                  /* TP_PROBE_OWNER_CONFIG or a context id */
    size_t event;               /* its catalog slot */
};

struct tp_probeset {
    struct tp_probedef *v;      /* the probes defined */
    size_t n;
    struct tp_probeset_hooks hooks;
};

/*
 * Define probe:name.  Returns its catalog event, or a negative errno with
 * the reason in err: -ENODEV no tracing; -EEXIST the name is taken;
 * -EDQUOT the owner has max_per_owner probes already (0: no bound);
 * -ENOSPC every probe slot is in use; the errors of tp_probespec,
 * tp_elf_resolve and tp_probes_create; -ENOMEM.
 */
int tp_probeset_define(struct tp_agent *a, int owner, const char *name, enum tp_probe_kind kind,
                       const char *spec, unsigned max_per_owner, char *err, size_t errlen);
/* The definition of probe:name, or NULL. */
const struct tp_probedef *tp_probeset_find(const struct tp_agent *a, const char *name);
/* The definition whose catalog slot is event, or NULL. */
const struct tp_probedef *tp_probeset_by_event(const struct tp_agent *a, size_t event);
/* Remove probe:name (its consumers let go first).  0 or -ENOENT. */
int tp_probeset_remove(struct tp_agent *a, const char *name);
/* Remove every probe of an owner.  Returns how many. */
size_t tp_probeset_remove_owner(struct tp_agent *a, int owner);
/* Free the definitions (the kernel side goes with tp_probes_close). */
void tp_probeset_free(struct tp_agent *a);

#endif
