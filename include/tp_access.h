/*
 * tp_access: who may store into the control metrics, and who may read a
 * stream or an event's records.  Decisions only: callers refuse, and say
 * why, themselves.
 *
 * Storing takes an authenticated root client or a member of one of the
 * config's allow_group groups.  A stream's readers are its access rule's
 * (tp_config.h); a probe's events are root's, unless the config line that
 * defines the probe grants access= to others, since a probe's arguments can
 * read any process's memory.  Group membership is read from the system's
 * group database at each decision, so a change there applies at once.
 *
 * Callers: control (subscriptions), oneliners, session (stores), fetch and
 * pmda (streams shown and read).  Calls only downward: the config, the
 * catalog and the probe definitions.
 *
 * Threading: PMDA thread (the group database's reentrant calls).
 */
#ifndef TP_ACCESS_H
#define TP_ACCESS_H

#include <stdbool.h>
#include <stddef.h>

#include "tp_clients.h"
#include "tp_config.h"
#include "tp_streams.h"

struct tp_agent;

/* May this client register/filter/unregister?  (root, or an allowed group) */
bool tp_access_may_store(const struct tp_config *cfg, const struct tp_creds *cr);
/* May this client read a stream with this access rule?  (NULL: root only) */
bool tp_access_may_read(const struct tp_access *acc, const struct tp_creds *cr);
/* May it read catalog event ev's records?  A probe's: root, or its config grant. */
bool tp_access_may_read_event(const struct tp_agent *a, size_t ev, const struct tp_creds *cr);
/* May it read a stream: the stream's access rule, and every probe event it serves. */
bool tp_access_may_read_stream(const struct tp_agent *a, const struct tp_stream *st,
                               const struct tp_creds *cr);

#endif
