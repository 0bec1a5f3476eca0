/*
 * Trace clock to wall clock, by epochs.  See tp_clock.h.
 */
#include "tp_clock.h"

#include <string.h>

int64_t tp_clock_sample_offset(const struct tp_clock_sample *s, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (s[i].mono_after - s[i].mono_before < s[best].mono_after - s[best].mono_before)
            best = i;
    const struct tp_clock_sample *b = &s[best];
    return (int64_t)(b->real - (b->mono_before + (b->mono_after - b->mono_before) / 2));
}

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
