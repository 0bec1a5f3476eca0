/*
 * tp_comms: the name history of tasks.  What each task was called at each
 * event, as perf and bpftrace report it: never a name it took later.
 *
 * While names are wanted, the producer follows the events that name a
 * task, in the instance, in time order with every other event (tp_merge):
 * sched_process_fork (a new task has its parent's name), task_rename
 * (prctl, a write to /proc/PID/comm, and exec, which renames the task to
 * its program's basename: __set_task_comm() fires task_rename for all of
 * them) and sched_process_free (the task is gone; its pid may be reused).
 * The table is the name of every task as of the last event handed on, so
 * the name looked up for an event is the name at the event.
 *
 * Tasks that were running before the names were followed are named from
 * /proc when following starts (tp_comms_snapshot()).  Following starts
 * before the events that rename tasks are enabled (a comm filter may need
 * names as soon as they are), so those names are guesses until the first
 * snapshot after the events are enabled names every guess again.  A pid
 * with no entry (its fork was lost, or the table was full) is asked of
 * /proc when its event is handed on, and kept as a guess.  A guess is shown,
 * and a comm filter uses it: it is the best there is.  pid 0 is "<idle>";
 * "<...>" is what nobody could tell.
 *
 * An open-addressed hash of at most TP_COMMS_MAX tasks.  Pure but for
 * tp_comms_snapshot(), tp_comms_resolve() and tp_comms_from_saved(), which
 * read /proc or a string.  No locks.  Owner: tp_capture; only its producer
 * thread calls anything here once it runs.
 */
#ifndef TP_COMMS_H
#define TP_COMMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp_catalog.h"

#define TP_COMM_LEN          16         /* TASK_COMM_LEN, the NUL included */
#define TP_COMMS_MAX         (1u << 20) /* tasks */
#define TP_COMM_UNKNOWN      "<...>"

struct tp_comms;

/* The events that name tasks, and their fields (kernel id -1: the kernel has none). */
struct tp_name_events {
    int fork_id, rename_id, free_id;
    const struct tp_field *fork_pid, *fork_comm;     /* child_pid, child_comm */
    const struct tp_field *rename_pid, *rename_comm; /* pid, newcomm */
    const struct tp_field *free_pid;                 /* pid */
};

/* 0 or -ENOMEM. */
int tp_comms_create(struct tp_comms **out);
void tp_comms_destroy(struct tp_comms *t);
/* Forget every name (following stopped: what is known now goes stale). */
void tp_comms_clear(struct tp_comms *t);
size_t tp_comms_count(const struct tp_comms *t);
/* Every name known becomes a guess (events that renamed tasks may have been lost). */
void tp_comms_demote(struct tp_comms *t);

/*
 * The name of pid, or NULL if none is known; *followed (may be NULL) says
 * whether it came from the kernel's events or a /proc read made after they
 * were followed, rather than a guess.  pid 0: "<idle>", followed.
 */
const char *tp_comms_find(const struct tp_comms *t, int32_t pid, bool *followed);
/*
 * The name of pid copied into out, zero-padded to TP_COMM_LEN (one fixed
 * copy, no scan for its end): its length, or -ENOENT if none is known.
 */
int tp_comms_name(const struct tp_comms *t, int32_t pid, char out[TP_COMM_LEN]);
/* The same, TP_COMM_UNKNOWN when unknown. */
const char *tp_comms_get(const struct tp_comms *t, int32_t pid);
/*
 * pid is called comm (at most 15 bytes are kept) from now on.  Returns 0,
 * -EINVAL (a negative pid, no name), or -ENOSPC (the table is full).
 */
int tp_comms_set(struct tp_comms *t, int32_t pid, const char *comm, bool followed);
void tp_comms_forget(struct tp_comms *t, int32_t pid);

/*
 * If the event (kernel id, raw bytes) is one of ne's, apply it and return
 * true; else false.  A record too short for its fields changes nothing.
 */
bool tp_comms_follow(struct tp_comms *t, const struct tp_name_events *ne, int id,
                     const void *data, uint32_t size);

/*
 * Every task under proc ("/proc") whose name is not known or only guessed,
 * named as /proc/PID/task/TID/comm says now.  Returns the number named, or
 * -errno.
 */
int tp_comms_snapshot(struct tp_comms *t, const char *proc);

/*
 * What the kernel calls pid now (/proc/PID/comm; any thread id works) into
 * comm (TP_COMM_LEN bytes).  0 or -errno (-ENOENT: it has exited).
 */
int tp_comms_resolve(int32_t pid, char *comm);
/*
 * The name the kernel's saved_cmdlines text (lines "PID COMM") keeps for
 * pid, into comm: the fallback for a thread that has already exited.
 * 0 or -ENOENT.
 */
int tp_comms_from_saved(const char *text, int32_t pid, char *comm);

#endif
