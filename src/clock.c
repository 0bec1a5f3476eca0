/*
 * Trace clock to wall clock, by epochs.  See tp_clock.h.
 */
#include "tp_clock.h"

#include <string.h>

void tp_clock_init(struct tp_clock *c, int64_t offset)
{
    memset(c, 0, sizeof(*c));
    c->offset[0] = offset;
}

uint16_t tp_clock_note(struct tp_clock *c, int64_t offset)
{
    int64_t d = offset - tp_clock_offset(c, c->id);
    if (d > TP_CLOCK_SLACK_NS || d < -TP_CLOCK_SLACK_NS) {
        c->id++;
        c->offset[c->id % TP_CLOCK_EPOCHS] = offset;
    }
    return c->id;
}
