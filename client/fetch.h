/*
 * fetch: the fetch loop -- fetch the event metrics, unpack each array of
 * records, put them in time order, keep the ones wanted, count them and
 * hand them to output; live, again at once while the PMDA holds more for
 * us and otherwise every interval; from an archive, to its end.
 *
 * Called by main with a tracer that session has set up.  Reads the stop
 * flag through tracer.stop; SIGINT/SIGTERM are let through only while it
 * waits (run_live's unblocked mask).
 */
#ifndef CLIENT_FETCH_H
#define CLIENT_FETCH_H

#include <signal.h>

#include "session.h"

/* Until stopped, -s/-T, or stdout closes: 0, or -1 after a message. */
int run_live(struct tracer *t, const sigset_t *unblocked);
int run_archive(struct tracer *t);

#endif
