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
    p->target_bytes = TP_PACE_TARGET_BYTES;
    p->max_ns = TP_PACE_MAX_NS;
}

void tp_pace_no_watermark(struct tp_pace *p)
{
    p->target_bytes = TP_PACE_NOWM_BYTES;
    p->max_ns = TP_PACE_NOWM_NS;
}

static long clamp_ns(const struct tp_pace *p, double t)
{
    return t < (double)TP_PACE_MIN_NS ? TP_PACE_MIN_NS : t > (double)p->max_ns ? p->max_ns : (long)t;
}

/* The time the busiest CPU, writing bytes in elapsed ns, takes to write a pass's worth. */
static long fill_time(const struct tp_pace *p, size_t bytes, uint64_t elapsed)
{
    if (!bytes || !elapsed || elapsed > (uint64_t)p->max_ns)
        return TP_PACE_MIN_NS;          /* no rate known: look again soon */
    return clamp_ns(p, (double)elapsed * (double)p->target_bytes / (double)bytes);
}

void tp_pace_after(struct tp_pace *p, enum tp_pass pass, size_t bytes, uint64_t now)
{
    uint64_t elapsed = p->last_pass && now > p->last_pass ? now - p->last_pass : 0;
    if (pass == TP_PASS_BUSY) {
        p->active = true;
        p->timeout_ns = 0;
    } else if (pass == TP_PASS_SOME) {
        p->timeout_ns = fill_time(p, bytes, p->active ? elapsed : 0);
        p->active = true;
    } else if (p->active && now - p->last_events < TP_PACE_QUIET_NS) {
        p->timeout_ns = clamp_ns(p, 2.0 * (double)p->timeout_ns);
    } else {
        p->active = false;
        p->timeout_ns = -1;
    }
    if (pass != TP_PASS_QUIET)
        p->last_events = now;
    p->last_pass = now;
    p->percent = p->active ? TP_PACE_PERCENT : 0;
}
