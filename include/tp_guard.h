/*
 * tp_guard: a small watcher process that removes what the kernel still
 * holds of the PMDA (its tracefs instance, the probes of its group) once
 * the PMDA has gone, however it went.  pmcd stops an agent by closing its
 * pipes and sends SIGKILL 150 ms later (SHUTDOWNWAIT in pmcd.c); on a slow
 * or loaded machine the PMDA's own clean-up (rmdir of the instance alone
 * takes ~90 ms here) is cut short, and SIGKILL or a crash skips it.  The
 * watcher learns of the end from the end-of-file of a pipe only the PMDA
 * writes to, so it needs no signal and no timing.
 *
 * The watcher is its own session, holds no descriptor of the PMDA's but
 * that pipe and stderr (the log), is named "tpguard" (comm and command
 * line: nothing that looks for the PMDA finds it), makes no PCP call, and
 * exits when it has cleaned up.  It touches only the instance and group
 * named after the PMDA's pid, and not while a pmdatracepoint runs with it.
 *
 * Threading: tp_guard_start forks: call it on the main thread before any
 * other thread exists.
 */
#ifndef TP_GUARD_H
#define TP_GUARD_H

/*
 * Start the watcher for this process.  argv is main's (its strings are
 * overwritten in the watcher only, to rename it).  0 or -errno (then there
 * is no watcher, and the next PMDA's start cleans up what a killed one left).
 */
int tp_guard_start(int argc, char **argv);

#endif
