/*
 * select: the filters people type -- -p PID[,PID], -C CPU[,CPU] and
 * --comm NAME -- parsed strictly, composed with -f into the kernel filter
 * text a live subscription sends, and, where there is no kernel filter to
 * push to (a stream with -n, an archive with -a), matched in the client
 * against each record's pid, cpu and comm.
 *
 * Pure: no PCP, no I/O, no state but the struct selection it is given.
 * Called by options (parsing, composing) and by the fetch loop (matching),
 * and by the unit tests (test/test_client_select.c).
 */
#ifndef CLIENT_SELECT_H
#define CLIENT_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SELECT_MAX_IDS  32          /* PIDs, CPUs: each list at most this long */
#define SELECT_PID_MAX  4194304     /* the kernel's PID_MAX_LIMIT */
#define SELECT_CPU_MAX  8191        /* the kernel's NR_CPUS is at most 8192 */
#define SELECT_COMM_MAX 15          /* TASK_COMM_LEN less its NUL */

struct selection {
    long pids[SELECT_MAX_IDS];
    size_t npids;
    long cpus[SELECT_MAX_IDS];
    size_t ncpus;
    char comm[SELECT_COMM_MAX + 1];
    bool has_comm;
};

static inline bool select_any(const struct selection *s)
{
    return s->npids > 0 || s->ncpus > 0 || s->has_comm;
}

/*
 * "12,13" into s->pids (or s->cpus), added to what is there: decimal
 * numbers, 0 to SELECT_PID_MAX (SELECT_CPU_MAX), no signs or blanks, no
 * empty items; repeats are dropped.  0, or -1 with why arg is refused in
 * why (size bytes).
 */
int select_parse_pids(struct selection *s, const char *arg, char *why, size_t size);
int select_parse_cpus(struct selection *s, const char *arg, char *why, size_t size);
/* A task name: 1 to SELECT_COMM_MAX bytes.  0, or -1 and why. */
int select_parse_comm(struct selection *s, const char *arg, char *why, size_t size);

/*
 * The kernel filter for a live subscription, in the syntax of the kernel's
 * event filters (and of the PMDA's src/filter.c):
 *   (common_pid == 12 || common_pid == 13) && (CPU == 0) && (COMM == "bash")
 *   && (USER)
 * each part only if asked for; CPU and COMM in upper case, the generic
 * fields no event's own field shadows.  A NAME is quoted with "..." or, if
 * it holds a '"', with '...' (the filter language has no escapes; '\' is
 * literal).  Writes at most size bytes (NUL included) to buf; "" if there
 * is nothing to filter.  0, or -1 with why it cannot be written in why (a
 * NAME with both quotes, or with a control character, which the PMDA
 * refuses; too long for buf).
 */
int select_filter(const struct selection *s, const char *user_filter, char *buf,
                  size_t size, char *why, size_t whysize);

/*
 * In the client: does a record with this pid, cpu and comm (has_*: the
 * record carries it; comm NULL: it does not) pass -p, -C and --comm?  A
 * record without a value a part of the selection asks about fails it.
 */
bool select_match(const struct selection *s, bool has_pid, int64_t pid,
                  bool has_cpu, int64_t cpu, const char *comm);

#endif
