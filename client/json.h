/*
 * json: JSON text as RFC 8259 has it -- strings escaped exactly, arrays
 * of numbers from raw bytes.
 *
 * Strings: '"' and '\' as \" and \\; the control characters U+0000 to
 * U+001F and DEL as \u00XX; valid UTF-8 as it is; bytes that are not
 * valid UTF-8 as U+FFFD (written \ufffd), one for each maximal ill-formed
 * subpart as the Unicode Standard recommends (the WHATWG decoder's rule,
 * and Python's errors="replace").
 *
 * Pure: no PCP, no state; writes to the FILE it is given.  Called by output
 * (JSON event lines) and tally (the JSON summary), and by the unit tests
 * (test/test_client_json.c).
 */
#ifndef CLIENT_JSON_H
#define CLIENT_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "decl.h"

/*
 * At s (len > 0 bytes): the length of the valid UTF-8 sequence there, or 0
 * with *skip set to the length of the ill-formed subpart to replace.
 */
size_t utf8_sequence(const unsigned char *s, size_t len, size_t *skip);

/* The len bytes at s as a JSON string, quotes included. */
void put_json_string(FILE *f, const char *s, size_t len);

/*
 * The len bytes at p as a JSON array of integers of element type e, in
 * this machine's byte order: [1,-2,3].  -1 (nothing written) if e is
 * unknown or len is not a multiple of its size.
 */
int put_json_array(FILE *f, const void *p, size_t len, struct elem e);

#endif
