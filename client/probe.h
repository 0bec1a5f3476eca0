/*
 * probe: the dynamic probes of -u SPEC -- the name each gets (generated
 * from its symbol, so events read "probe:malloc"), and the spec made
 * absolute where the client and the PMDA share a file system.
 *
 * Pure apart from realpath(3) in probe_spec_local(); called by session when
 * it subscribes.  Touches no PMCD context.
 */
#ifndef CLIENT_PROBE_H
#define CLIENT_PROBE_H

#include <stddef.h>

#define PROBE_NAME_MAX  32          /* as the PMDA allows */
#define PROBE_MAX_SPECS 8           /* -u given at most this often (the PMDA's bound) */

/*
 * The name of probe attempt (0, 1, ...) for spec: its symbol with every
 * character outside [A-Za-z0-9_] made '_', "_ret" for %return, and from
 * attempt 1 on "_2", "_3"...  A spec without a symbol gives "probe".
 * Writes at most PROBE_NAME_MAX bytes and a NUL into name.
 */
void probe_name(const char *spec, unsigned attempt, char name[PROBE_NAME_MAX + 1]);

/*
 * spec with a relative PATH made absolute against the current directory
 * (for a PMDA on this host), into out.  0, or -1 with the reason in why.
 */
int probe_spec_local(const char *spec, char *out, size_t size, char *why, size_t whylen);

#endif
