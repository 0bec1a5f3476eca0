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
}

void tp_pace_after(struct tp_pace *p, enum tp_pass pass, uint64_t now)
{
    if (pass == TP_PASS_BUSY) {
        p->timeout_ns = 0;
    } else if (pass == TP_PASS_SOME) {
        p->active = true;
        p->timeout_ns = TP_PACE_MIN_NS;
    } else if (p->active && now - p->last_events < TP_PACE_QUIET_NS) {
        long t = p->timeout_ns * 2;
        p->timeout_ns = t < TP_PACE_MIN_NS ? TP_PACE_MIN_NS : t > TP_PACE_MAX_NS ? TP_PACE_MAX_NS : t;
    } else {
        p->active = false;
        p->timeout_ns = -1;
    }
    if (pass != TP_PASS_QUIET)
        p->last_events = now;
    p->percent = p->active ? TP_PACE_PERCENT : 0;
}
