/*
 * record: one unpacked event record, and its common values -- the event's
 * name, cpu, pid, time and flags -- found among its parameters.
 *
 * Called by the fetch loop (scan_common, for every record) and by output.
 * Reads the record's values and the params table; never prints.
 */
#ifndef CLIENT_RECORD_H
#define CLIENT_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include <pcp/pmapi.h>

#include "params.h"

#define EVENT_NAME_MAX      256     /* "system:event" is far shorter */

/*
 * The bytes of vb's value: its vlen less the header, 0 for a block too short
 * to hold even the header (an archive is untrusted input).
 */
static inline size_t block_len(const pmValueBlock *vb)
{
    return vb->vlen > PM_VAL_HDR_SIZE ? vb->vlen - PM_VAL_HDR_SIZE : 0;
}
#define COMM_MAX            64      /* the kernel's task names have 15 bytes */

/* One unpacked event record, PM_TYPE_EVENT or PM_TYPE_HIGHRES_EVENT. */
struct record {
    int numpmid;
    pmValueSet **vset;
    uint64_t stamp_ns;          /* the record's timestamp (to the microsecond) */
    uint64_t key;               /* what it is sorted by */
    int index;                  /* its place in the array */
};

/* The common parameters of a record. */
struct common {
    const char *event;          /* the event's name, event_len bytes in the record's own
                                   value (not NUL-terminated), or "?" */
    size_t event_len;           /* less than EVENT_NAME_MAX */
    const pmValueSet *cpu, *pid;
    const struct param *cpu_param, *pid_param;
    bool has_comm;              /* the record carries tracepoint.param.comm */
    char comm[COMM_MAX];
    const pmValueSet *text;     /* tracepoint.param.text, or NULL */
    const char *stack;          /* tracepoint.param.stack (frames, innermost first,
                                   one per line), or NULL */
    size_t stack_len;
    uint64_t time_ns;
    int flags;
    int missed;
};

/* Fill c from r's parameters (c->event points into r's values); -ENOMEM without memory. */
int scan_common(struct params *ps, const struct record *r, struct common *c);

/* The first value of vs, as an insitu 32-bit value (0 if it is not one). */
int32_t insitu_value(const pmValueSet *vs);
/* The first value of vs (of parameter p) as an int64 in *out; false if none. */
bool int_value(const pmValueSet *vs, const struct param *p, int64_t *out);
/* The first value of vs as a u64, or fallback. */
uint64_t u64_value(const pmValueSet *vs, uint64_t fallback);

#endif
