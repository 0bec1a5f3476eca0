/*
 * When the producer reads next.  See tp_pace.h.
 */
#include "tp_pace.h"

void tp_pace_init(struct tp_pace *p)
{
    p->active = false;
    p->timeout_ns = -1;
    p->percent = 0;
    p->last_events = 0;
    p->last_pass = 0;
}

static long clamp_ns(long t)
{
    return t < TP_PACE_MIN_NS ? TP_PACE_MIN_NS : t > TP_PACE_MAX_NS ? TP_PACE_MAX_NS : t;
}

/* The time the busiest CPU, writing bytes in elapsed ns, takes to write a pass's worth. */
static long fill_time(size_t bytes, uint64_t elapsed)
{
    if (!bytes || !elapsed || elapsed > (uint64_t)TP_PACE_QUIET_NS)
        return TP_PACE_MIN_NS;          /* no rate known: look again soon */
    double t = (double)elapsed * TP_PACE_TARGET_BYTES / (double)bytes;
    return clamp_ns(t > (double)TP_PACE_MAX_NS ? TP_PACE_MAX_NS : (long)t);
}

void tp_pace_after(struct tp_pace *p, enum tp_pass pass, size_t bytes, uint64_t now)
{
    uint64_t elapsed = p->last_pass && now > p->last_pass ? now - p->last_pass : 0;
    if (pass == TP_PASS_BUSY) {
        p->active = true;
        p->timeout_ns = 0;
    } else if (pass == TP_PASS_SOME) {
        p->timeout_ns = fill_time(bytes, p->active ? elapsed : 0);
        p->active = true;
    } else if (p->active && now - p->last_events < TP_PACE_QUIET_NS) {
        p->timeout_ns = clamp_ns(p->timeout_ns * 2);
    } else {
        p->active = false;
        p->timeout_ns = -1;
    }
    if (pass != TP_PASS_QUIET)
        p->last_events = now;
    p->last_pass = now;
    p->percent = p->active ? TP_PACE_PERCENT : 0;
}
