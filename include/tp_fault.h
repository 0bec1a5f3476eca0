/*
 * tp_fault: injected failures and test hooks, for the QA tests that show
 * what the PMDA does when memory runs out, when the wall clock steps, and
 * when events wait in the kernel's buffer.  Built in only with
 * -DTP_FAULT_INJECTION (the QA's build-fault); in every other build these
 * are empty inline functions.
 *
 * Allocation failures.  The fault build interposes malloc, calloc and
 * realloc for the whole process, libpcp and libpcp_pmda included.  While
 * the PMDA thread is inside a phase (tp_fault_enter .. tp_fault_leave),
 * each allocation counts towards that phase's site, and
 * PMDATRACEPOINT_FAULTS="SITE:N[xK][,...]" makes the last K (default 1) of
 * every N fail.  Sites: "fetch" (a fetch request, from pmdaFetch's own
 * result to the event arrays), "store" (a store request), and two steps of
 * a config reload: "resize" (the ring's new capacity) and "streams" (the
 * streams of the new config, tp_streams_update).  Other threads,
 * and the PMDA thread outside a phase, are never failed.
 *
 * Test hooks:
 * - PMDATRACEPOINT_CLOCK_SKEW=FILE: the number in FILE (ns, read each time)
 *   is added to the wall-clock offset the producer notes, as if the clock
 *   had been stepped;
 * - PMDATRACEPOINT_PAUSE=FILE: while FILE exists the producer reads nothing,
 *   so events wait in the kernel's buffer;
 * - PMDATRACEPOINT_REFUSE=SYSTEM:EVENT: enabling that tracepoint fails with
 *   EINVAL, as if the kernel refused it;
 * - PMDATRACEPOINT_REFUSE_OFF=SYSTEM:EVENT: disabling that tracepoint fails
 *   with EIO;
 * - PMDATRACEPOINT_REFUSE_STACK_COND=SYSTEM:EVENT: a stacktrace trigger on
 *   that tracepoint whose condition is not every (the one true of every
 *   event) fails with EINVAL, as if the kernel's trigger parser refused it;
 * - PMDATRACEPOINT_REFUSE_COUNTER=SYSTEM:EVENT: opening a kernel counter
 *   (tp_kcount) on that tracepoint fails with EACCES, as on a kernel whose
 *   perf_event_paranoid or lockdown refuses it;
 * - PMDATRACEPOINT_START_DELAY=SECS: the start-up takes SECS seconds longer,
 *   as on a loaded or slow machine;
 * - PMDATRACEPOINT_NO_STACKS=1: the kernel is taken to give no stacks (as
 *   one without the stacktrace trigger or ftrace:kernel_stack);
 * - PMDATRACEPOINT_APPLY_DELAY_MS=MS: the PMDA thread sleeps MS ms after
 *   each change of what the kernel records (tp_demand_apply), as a slow
 *   machine's PMDA thread might, while the producer goes on.
 *
 * Threading: tp_fault_enter/leave, tp_fault_refused(_off, _stack_cond, _counter),
 * tp_fault_slow_start, tp_fault_apply_delay and tp_fault_no_stacks on the
 * PMDA thread;
 * the other hooks where the kernel's buffers are read (the producer thread,
 * or the PMDA thread in a fetch's pass: tp_capture_catch_up); the
 * interposer on any thread.
 */
#ifndef TP_FAULT_H
#define TP_FAULT_H

#include <stdbool.h>
#include <stdint.h>

enum tp_fault_site { TP_FAULT_FETCH, TP_FAULT_STORE, TP_FAULT_RESIZE, TP_FAULT_STREAMS,
                      TP_NFAULT_SITES };

#ifdef TP_FAULT_INJECTION
void tp_fault_enter(enum tp_fault_site site);
void tp_fault_leave(void);
int64_t tp_fault_clock_skew(void);
bool tp_fault_paused(void);
bool tp_fault_refused(const char *fullname);
bool tp_fault_refused_off(const char *fullname);
bool tp_fault_refused_stack_cond(const char *fullname, const char *cond, const char *every);
bool tp_fault_refused_counter(const char *fullname);
void tp_fault_slow_start(void);
void tp_fault_apply_delay(void);
bool tp_fault_no_stacks(void);
#else
static inline void tp_fault_enter(enum tp_fault_site site) { (void)site; }
static inline void tp_fault_leave(void) {}
static inline int64_t tp_fault_clock_skew(void) { return 0; }
static inline bool tp_fault_paused(void) { return false; }
static inline bool tp_fault_refused(const char *fullname) { (void)fullname; return false; }
static inline bool tp_fault_refused_off(const char *fullname) { (void)fullname; return false; }
static inline bool tp_fault_refused_stack_cond(const char *fullname, const char *cond,
                                               const char *every)
{
    (void)fullname, (void)cond, (void)every;
    return false;
}
static inline bool tp_fault_refused_counter(const char *fullname) { (void)fullname; return false; }
static inline void tp_fault_slow_start(void) {}
static inline void tp_fault_apply_delay(void) {}
static inline bool tp_fault_no_stacks(void) { return false; }
#endif

#endif
