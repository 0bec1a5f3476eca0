/*
 * Small helpers every layer uses: messages through a caller's log function,
 * error strings, and the clock the kernel's "mono" trace clock follows.
 * Thread-safe: no state.
 */
#ifndef TP_UTIL_H
#define TP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a layer reports what an administrator should read (the PMDA log). */
typedef void (*tp_log_fn)(void *arg, const char *msg);

/* Format a message and hand it to log (if not NULL). */
void tp_logf(tp_log_fn log, void *arg, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Format a reason into err and return code: return tp_errf(err, n, PM_ERR_X, "..."). */
int tp_errf(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * Is process pid running (not exited, not a zombie)?  If comm is not NULL,
 * only a process of that name counts.
 */
bool tp_process_running(long pid, const char *comm);

/*
 * All of a file, up to limit - 1 bytes (a longer file is cut), into a
 * malloc'd NUL-terminated *out of *len bytes (len may be NULL).  The caller
 * frees it.  0 or -errno.
 */
int tp_read_text(const char *path, size_t limit, char **out, size_t *len);

/* CLOCK_MONOTONIC in ns: the kernel's "mono" trace clock. */
uint64_t tp_mono_now(void);

/*
 * CLOCK_REALTIME - CLOCK_MONOTONIC now, in ns: trace clock to wall clock
 * (the narrowest of a few readings, tp_clock_sample).
 */
int64_t tp_real_offset(void);

#endif
