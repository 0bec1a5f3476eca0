/*
 * linefmt: the fixed parts of the default text line -- numbers, the
 * nanoseconds of the time, escaped names -- written into a caller's char
 * buffer without printf, and the growable buffer a line is built in.
 * Each writer returns the bytes it wrote (no NUL) and writes what the
 * printf conversion named beside it would, byte for byte.
 *
 * Pure C: no PCP, no globals, no locale; the state is the caller's
 * struct linebuf.  Called by output (the client's one thread) and by the
 * unit tests (test/test_client_linefmt.c).
 */
#ifndef CLIENT_LINEFMT_H
#define CLIENT_LINEFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LF_U64_MAX          20      /* digits of UINT64_MAX */
#define LF_I64_MAX          20      /* "-9223372036854775808" */
#define LF_ESCAPED_MAX(n)   ((n) * 4)   /* each byte at most "\xNN" */

/* "%" PRIu64 */
size_t lf_u64(char *dst, uint64_t v);
/* "%" PRId64 */
size_t lf_i64(char *dst, int64_t v);
/* "%03" PRIu32: at least 3 digits, zero-padded */
size_t lf_u32_03(char *dst, uint32_t v);
/* "%09u" of v < 1000000000 (the nanoseconds of a second): 9 digits */
size_t lf_nanos(char *dst, uint32_t v);

/*
 * The bytes of s that could break a line or drive a terminal, escaped as
 * the text line has them: \n, \t, and \xNN for the other control
 * characters and DEL; every other byte as it is.  dst holds
 * LF_ESCAPED_MAX(len) bytes.
 */
size_t lf_escaped(char *dst, const char *s, size_t len);

/* A line being built: p[0..len), cap bytes allocated; grows, never shrinks. */
struct linebuf {
    char *p;
    size_t len, cap;
};

/* Room for more bytes after len: 0, or -ENOMEM (lb unchanged). */
int lb_reserve(struct linebuf *lb, size_t more);
void lb_free(struct linebuf *lb);

#endif
