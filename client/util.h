/*
 * util: what every room of the client shares -- exit codes, time in
 * nanoseconds, and the one way to print an error.
 *
 * Called from any room; the client has one thread.  Holds no state.
 */
#ifndef CLIENT_UTIL_H
#define CLIENT_UTIL_H

#include <stdint.h>
#include <time.h>

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2,
       EXIT_GONE = 2 };         /* the PMDA lost this client's one-liners */

#define NS_PER_SEC          1000000000LL

/* "pcp-tracepoint: message\n" on stderr, after flushing stdout. */
void errmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct timespec mono_now(void);
long long mono_ns(struct timespec ts);
uint64_t wall_now_ns(void);

#endif
