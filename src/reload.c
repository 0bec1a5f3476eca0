/*
 * tracepoint.control.reload: a store reads the config again in this PMDA,
 * exactly as SIGHUP does.  See tp_pmda.h.
 */
#include "tp_pmda.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tp_config.h"
#include "tp_util.h"

/* The first reason a config line is ignored, for the client. */
struct first_bad {
    int lines;
    char reason[200];
};

static void note_bad_line(void *arg, int line, const char *reason)
{
    struct first_bad *b = arg;
    if (b->lines++ == 0)
        snprintf(b->reason, sizeof(b->reason), "line %d: %s", line, reason);
}

bool tp_reload_is_store(const tp_result *result)
{
    for (int i = 0; i < result->numpmid; i++)
        if (pmID_cluster(result->vset[i]->pmid) == TP_CLUSTER_METRICS &&
            pmID_item(result->vset[i]->pmid) == M_CTL_RELOAD)
            return true;
    return false;
}

/* Root only: a reload changes what every client and aggregation gets. */
static int may_reload(const struct tp_client *c, const tp_result *result, char *err,
                      size_t errlen)
{
    if (!(c->creds.has_uid && c->creds.uid == 0))
        return tp_errf(err, errlen, PM_ERR_PERMISSION, "reload: permission denied (%s)",
                       c->creds.has_uid ? "only root may reload the config"
                                        : "the client is not authenticated");
    if (result->numpmid != 1 || result->vset[0]->numval != 1)
        return tp_errf(err, errlen, PM_ERR_BADSTORE,
                       "reload: store one value into tracepoint.control.reload alone");
    return 0;
}

/* Does the config parse in full?  0, or PM_ERR_BADSTORE with the first bad line. */
static int config_parses(const char *path, char *err, size_t errlen)
{
    struct tp_config cfg;
    struct first_bad bad = { 0, "" };
    tp_config_init(&cfg);
    int rc = tp_config_load(&cfg, path, note_bad_line, &bad);
    tp_config_free(&cfg);
    if (rc < 0)
        return tp_errf(err, errlen, PM_ERR_BADSTORE, "reload: cannot read %s: %s; the "
                       "config in use stays", path, strerror(-rc));
    if (bad.lines > 0)
        return tp_errf(err, errlen, PM_ERR_BADSTORE, "reload: %s: %d line(s) do not parse "
                       "(%s); the config in use stays", path, bad.lines, bad.reason);
    return 0;
}

int tp_reload_store(struct pmda_state *s, struct tp_client *c, const tp_result *result)
{
    int rc = may_reload(c, result, c->last_error, sizeof(c->last_error));
    if (rc == 0)
        rc = config_parses(s->config_path, c->last_error, sizeof(c->last_error));
    if (rc == 0 && (rc = s->reload(s, "a store into tracepoint.control.reload")) < 0)
        rc = tp_errf(c->last_error, sizeof(c->last_error), PM_ERR_BADSTORE,
                     "reload: %s could not be used in full: %s (the PMDA log says more)",
                     s->config_path, strerror(-rc));
    if (rc == 0)
        c->last_error[0] = '\0';
    return rc;
}
