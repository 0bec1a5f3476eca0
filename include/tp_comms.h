/*
 * tp_comms: the command name of each recent pid, as the PMDA resolved it when
 * it captured the pid's events (what trace-cmd shows as COMM in comm-pid).
 *
 * A bounded, direct-mapped table: pid p lives in slot p mod TP_COMMS_SLOTS,
 * and a pid taking the slot replaces the one before it.  A name older than
 * TP_COMMS_REFRESH_NS is resolved again the next time the pid is captured,
 * so a process that execs or renames itself shows its new name within that
 * time (at once when the producer sees its sched_process_exec or
 * task_rename event).  A pid that could not be resolved (it had exited, and the kernel's
 * saved_cmdlines no longer has it) is "<...>", and asked about again the
 * next time its events are read; pid 0 is "<idle>", as trace-cmd prints them.
 *
 * No locks; only tp_comms_resolve() does I/O.  Owner: tp_capture.  The
 * producer is the only writer and writes with the capture lock held; the
 * PMDA thread reads with it held; the producer may read without it.
 */
#ifndef TP_COMMS_H
#define TP_COMMS_H

#include <stdbool.h>
#include <stdint.h>

#define TP_COMM_LEN          16         /* TASK_COMM_LEN, the NUL included */
#define TP_COMMS_SLOTS       8192
#define TP_COMMS_REFRESH_NS  100000000ull      /* a tenth of a second */
#define TP_COMM_UNKNOWN      "<...>"

struct tp_comms;

/* 0 or -ENOMEM. */
int tp_comms_create(struct tp_comms **out);
void tp_comms_destroy(struct tp_comms *t);

/* The name of pid: the one resolved, "<idle>" for 0, else TP_COMM_UNKNOWN. */
const char *tp_comms_get(const struct tp_comms *t, int32_t pid);
/* Whether pid has a name resolved at or after now - TP_COMMS_REFRESH_NS (pid 0 always). */
bool tp_comms_fresh(const struct tp_comms *t, int32_t pid, uint64_t now);
/*
 * Record pid's name, resolved at time now; NULL or "": it could not be
 * (a pid with a name keeps it; else TP_COMM_UNKNOWN until it is resolved,
 * and never fresh, so asked again).
 */
void tp_comms_set(struct tp_comms *t, int32_t pid, const char *comm, uint64_t now);

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
