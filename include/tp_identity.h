/*
 * tp_identity: the numbers PCP archives remember, kept across restarts.
 *
 * Each tracepoint ("system:event") has an id: its fields' PMID cluster is
 * TP_CLUSTER_FIELDS + id, and its instance of tracepoint.count is the id.
 * Each field of it has an item, keyed by the field's name and PCP type (a
 * field whose type changes, as a redefined probe's may, gets a new item).
 * A new tracepoint gets the next id never used, a new field the next item
 * of its tracepoint; ids and items of tracepoints and fields that vanish
 * (a module unloaded, a dynamic event removed) stay reserved for them.  The
 * first time, tracepoints are numbered in catalog order and fields in
 * format order.
 *
 * The map lives in a text file, one assignment a line:
 *     E <id> <system:event>
 *     F <id> <item> <pm type> <field>
 * Several PMDAs may share it (one kernel, several pmcds).  Assigning ids
 * happens between tp_identity_begin(), which takes the file's lock and
 * merges in what others saved (it reads the file only if it is not the one
 * the map last read or wrote: same inode, size and time), and
 * tp_identity_end(), which writes the map
 * (a new file renamed into place) and releases the lock, so two PMDAs never
 * give one id to two tracepoints.  Items, assigned as formats are loaded,
 * follow the format order and so agree between PMDAs on one kernel; they
 * are saved by tp_identity_save() (begin + end).
 *
 * The file's directory must be one only root (or the PMDA's user) can
 * write; tp_statedir does every open there without following a link, and
 * each save is durable (a temporary file, fsync, rename, fsync of the
 * directory).  In a directory it refuses, the map lives in memory only
 * (logged).  A line that cannot be used is logged and skipped; so is a
 * last line without its newline (a write cut short must not bind an id to
 * half a name).
 *
 * Pure apart from that one file; no PCP library.  Threading: PMDA thread.
 */
#ifndef TP_IDENTITY_H
#define TP_IDENTITY_H

#include <stddef.h>

#include "tp_util.h"

#define TP_IDENTITY_MAX_EVENTS 4080     /* 12-bit clusters, from TP_CLUSTER_FIELDS up */
#define TP_IDENTITY_MAX_ITEMS  1024     /* 10-bit items */

struct tp_identity;

/*
 * Read the map at path (a missing file is an empty map).  Lines that cannot
 * be used are logged and skipped; a file that cannot be read is logged, and
 * the map starts empty.  Returns 0 or -ENOMEM.
 */
int tp_identity_open(struct tp_identity **out, const char *path, tp_log_fn log, void *arg);
/* Frees; accepts NULL.  Unsaved assignments are lost. */
void tp_identity_close(struct tp_identity *id);

/*
 * Lock the file and merge in what it holds now.  Returns 0 or -errno (the
 * map is then still usable: assignments are made, and saved later).
 */
int tp_identity_begin(struct tp_identity *id);
/* Write the map if anything changed, and unlock.  Returns 0 or -errno. */
int tp_identity_end(struct tp_identity *id);
/* begin + end: save the items assigned since. */
int tp_identity_save(struct tp_identity *id);

/*
 * Upgrade: when the map's file did not exist at open, take the ids of the
 * map an older version kept at old_path (read only, and only a regular file
 * of the PMDA's own user, see tp_statedir_read_legacy); they are saved at
 * the next save.  Returns 0 or -errno (logged; the map is still usable).
 */
int tp_identity_adopt(struct tp_identity *id, const char *old_path);

/* The id of a tracepoint, assigning one to a new name: >= 0, -ENOSPC or -ENOMEM. */
int tp_identity_event(struct tp_identity *id, const char *fullname);
/* The tracepoint an id stands for, or NULL. */
const char *tp_identity_event_name(const struct tp_identity *id, unsigned eid);

/* The item of a field (name, PCP type) of tracepoint eid, assigning one if new. */
int tp_identity_item(struct tp_identity *id, unsigned eid, const char *field, int pmtype);

#endif
