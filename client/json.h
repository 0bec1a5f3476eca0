/*
 * json: JSON text as RFC 8259 has it -- strings escaped exactly.
 *
 * Pure: no PCP, no state; writes to the FILE it is given.  Called by output
 * (JSON event lines) and tally (the JSON summary), and by the unit tests.
 */
#ifndef CLIENT_JSON_H
#define CLIENT_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Length of the valid UTF-8 sequence at s (at most len bytes), or 0. */
size_t utf8_sequence(const unsigned char *s, size_t len);

/* The len bytes at s as a JSON string, quotes included. */
void put_json_string(FILE *f, const char *s, size_t len);

#endif
