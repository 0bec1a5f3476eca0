/*
 * tp_instids: the instance ids of the aggregations' instance domains, kept
 * across restarts, in place of libpcp_pmda's pmdaCache files (which it
 * writes into pcp's $PCP_VAR_DIR/config/pmda, through any link planted
 * there, and not durably).
 *
 * Owns the file `instances.DOMAIN` in the PMDA's state directory (beside
 * the identity map, see tp_statedir.h), one instance a line:
 *     I <indom serial> <inst> <name to the end of the line>
 * The caller (aggview) keeps its instances in pmdaCache as before, puts
 * back what this map holds when it makes a domain, and hands a domain's
 * instances here when new ones appear.  Reading is tp_identity's: a line
 * that cannot be used, and a last line without its newline, are logged and
 * skipped.  Saves are durable and never follow a link (tp_statedir); the
 * first after open, and one after an id went or was renamed, writes the
 * whole file, any other adds the new ids' lines at its end, so that a new
 * key costs a line, not a rewrite of every id kept (tp_statedir_append; if
 * that fails, the whole file is written at once).  On an
 * upgrade, a domain this map knows nothing of takes the ids of the older
 * version's pmdaCache file (tp_instids_adopt), read only, and only a
 * regular file of the PMDA's own user.
 *
 * Errors: 0 or a count on success, -errno on failure.  No PCP library.
 * Threading: the PMDA thread.
 */
#ifndef TP_INSTIDS_H
#define TP_INSTIDS_H

#include <stddef.h>

#include "tp_util.h"

#define TP_INSTIDS_MAX_INST (1 << 20)   /* ids kept: 0 .. this - 1 */

struct tp_instid {
    int inst;
    char *name;
};

struct tp_instids;

/*
 * The map in file name of directory dir (made safe by tp_statedir_open; if
 * refused, logged, and the map lives in memory only).  Returns 0 or -ENOMEM.
 */
int tp_instids_open(struct tp_instids **out, const char *dir, const char *name, tp_log_fn log,
                    void *arg);
/* Frees; accepts NULL.  Unsaved changes are lost. */
void tp_instids_close(struct tp_instids *m);

/* The instances kept for serial (in inst order): their count; *v valid until the next set. */
size_t tp_instids_get(const struct tp_instids *m, unsigned serial, const struct tp_instid **v);
/* Serial's instances are now v[0..n) (copied; names must hold no newline): 0 or -ENOMEM. */
int tp_instids_set(struct tp_instids *m, unsigned serial, const struct tp_instid *v, size_t n);
/* Upgrade: serial's ids from an older version's pmdaCache file, if it has none: a count or -errno. */
int tp_instids_adopt(struct tp_instids *m, unsigned serial, const char *old_path);
/* Write the map if it changed: 0 or -errno. */
int tp_instids_save(struct tp_instids *m);

#endif
