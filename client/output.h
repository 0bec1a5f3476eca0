/*
 * output: how one event record, or one count of lost events, looks on
 * stdout -- the text line and the JSON line -- and how each value in it
 * looks (numbers, strings, aggregates, times).
 *
 * Called by the fetch loop for each record it keeps (output_event) and for
 * each missed record (output_lost).  Writes to stdout only; the caller
 * flushes, and notices write errors, with flush_output (as every room that
 * writes to stdout does).  Asks the params table about each field; no
 * other PCP context call.
 */
#ifndef CLIENT_OUTPUT_H
#define CLIENT_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "linefmt.h"
#include "params.h"
#include "record.h"

/*
 * pmLocaltime (which honours -Z and -z) once per second, not per event;
 * with the text line's "HH:MM:SS." of that second, and JSON's date and
 * UTC offset.
 */
struct clock_cache {
    bool valid;
    time_t sec;
    struct tm tm;
    char hms[16];
    size_t hms_len;
    bool iso_valid;             /* iso and iso_off are this second's (JSON) */
    char iso[64];               /* "YYYY-MM-DDTHH:MM:SS." */
    char iso_off[32];           /* "+HH:MM" */
};

struct printer {
    bool json;                  /* -j: JSON lines, else text lines */
    bool raw;                   /* -R: text lines with fields, not the event's text */
    bool stack;                 /* -g: the event's kernel stack, if it carries one */
    struct params *params;      /* what each parameter is */
    struct clock_cache clock;
    struct linebuf line;        /* text lines built, not yet written (grows, kept) */
};

/*
 * One event: c holds its common values (time, cpu, pid, event, comm,
 * text), r all its parameters; the event's own fields are printed in r's
 * order.
 *   text: TIME [CPU] COMM-PID system:event: TEXT
 *         TEXT is the event's text (tracepoint.param.text, as trace-cmd
 *         prints it) if the record carries it and -R was not given, else
 *         its fields, field=value ...; COMM is "<...>" if the record does
 *         not carry tracepoint.param.comm.  A syscall number or dev_t field
 *         is shown by name as params says (id=getpid, dev=254:0 (vda)).
 *         JSON keeps every number a number.
 *   JSON: {"time_ns":N,"time":"...","cpu":C,"pid":P,"event":"s:e","fields":{...}}
 *         with "comm":"..." after "pid" when the record carries
 *         tracepoint.param.comm, "text":"..." after "event" when it carries
 *         tracepoint.param.text, and array fields as arrays of numbers when
 *         their element type is known (params), else as hex strings.
 *   With -g (stack), an event that carries tracepoint.param.stack has its
 *   frames too, innermost first: in text one line " => FRAME" each after
 *   the event's line, in JSON "stack":["FRAME",...] after "fields".
 * The text line's time, [CPU], COMM-PID, event and TEXT are built in
 * pr->line without printf; the lines it holds are written together, at
 * printer_flush or once there are 64 KiB of them, and before anything else
 * goes to stdout.
 * -ENOMEM without memory.
 */
int output_event(struct printer *pr, const struct common *c, const struct record *r);

/* A missed record: count events lost at time ns. */
void output_lost(struct printer *pr, uint64_t count, uint64_t ns);

/* The lines held written, then stdout flushed (flush_output): after each fetch. */
int printer_flush(struct printer *pr, bool *closed);

/* What the printer holds (its line buffer); call printer_flush first. */
void printer_free(struct printer *pr);

/*
 * Flush stdout.  0, or -1 after a message; *closed is set when it cannot
 * be written, and EPIPE (the reader went away) returns 0: the run ends
 * quietly.
 */
int flush_output(bool *closed);

#endif
