/*
 * Unit tests for tp_stage: kernel_stack entries attached to their events,
 * within a sub-buffer and across two, and the last event held back for its
 * stack while stacks are on, across empty reads until its stack's wait ends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tp_stage.h"

#define SUBBUF   4096
#define STACK_ID 4
#define EV_ID    300
#define LATER    (5000 + TP_STAGE_STACK_WAIT_NS)   /* a read past every stack's wait */

/* A sub-buffer being written: its header (time base, commit) and entries. */
struct page {
    unsigned char *p;
    size_t len;                     /* data bytes so far */
};

static void page_start(struct page *pg, void *buf, uint64_t base)
{
    memset(buf, 0, SUBBUF);
    pg->p = buf;
    pg->len = 0;
    memcpy(pg->p, &base, 8);
}

/* One entry of size bytes (a multiple of 4, at most 112), delta after the last. */
static void page_put(struct page *pg, uint32_t delta, const void *body, uint32_t size)
{
    uint32_t word = (size / 4) | (delta << 5);
    unsigned char *d = pg->p + 16 + pg->len;
    memcpy(d, &word, 4);
    memcpy(d + 4, body, size);
    pg->len += 4 + size;
    uint64_t commit = pg->len;
    memcpy(pg->p + 8, &commit, 8);
}

static void put_event(struct page *pg, uint32_t delta, int32_t pid, uint8_t flags)
{
    unsigned char e[16] = { 0 };
    uint16_t id = EV_ID;
    memcpy(e, &id, 2);
    e[2] = flags;
    memcpy(e + 4, &pid, 4);
    page_put(pg, delta, e, sizeof(e));
}

static void put_stack(struct page *pg, uint32_t delta, int32_t pid, uint8_t flags,
                      int32_t nframes, uint64_t first)
{
    unsigned char e[16 + 8 * 8] = { 0 };
    uint16_t id = STACK_ID;
    memcpy(e, &id, 2);
    e[2] = flags;
    memcpy(e + 4, &pid, 4);
    memcpy(e + TP_STACK_SIZE_OFFSET, &nframes, 4);
    for (int i = 0; i < 8; i++) {
        uint64_t a = first + (uint64_t)i;
        memcpy(e + TP_STACK_CALLER_OFFSET + 8 * i, &a, 8);
    }
    page_put(pg, delta, e, sizeof(e));
}

static struct tp_stage *new_stage(int stacks)
{
    struct tp_stage *st;
    struct tp_page_layout lay = TP_PAGE_LAYOUT_64;
    assert_int_equal(tp_stage_create(&st, 1, SUBBUF, &lay), 0);
    if (stacks)
        tp_stage_stacks(st, STACK_ID);
    return st;
}

static void push(struct tp_stage *st, void *buf, const struct page *pg)
{
    int truncated;
    assert_true(tp_stage_push(st, 0, buf, 16 + pg->len, &truncated) > 0);
    assert_int_equal(truncated, 0);
    tp_stage_cut_short(st, 0);
}

/* A sub-buffer that is lost: one event at base, a header claiming more than a sub-buffer holds. */
static void push_lost(struct tp_stage *st, uint64_t base, int32_t pid)
{
    struct page pg;
    void *buf = tp_stage_page(st, 0);
    page_start(&pg, buf, base);
    put_event(&pg, 0, pid, 0);
    uint64_t commit = 2 * SUBBUF;
    memcpy(pg.p + 8, &commit, 8);
    int truncated;
    assert_true(tp_stage_push(st, 0, buf, SUBBUF, &truncated) < 0);
}

static uint64_t frame(const struct tp_staged *e, unsigned i)
{
    uint64_t a;
    memcpy(&a, (const char *)e->stack + 8 * i, 8);
    return a;
}

/* Off: a kernel_stack entry is an event like any other, and nothing is held back. */
static void test_stacks_off(void **state)
{
    (void)state;
    struct tp_stage *st = new_stage(0);
    void *buf = tp_stage_page(st, 0);
    struct page pg;
    page_start(&pg, buf, 1000);
    put_event(&pg, 1, 42, 0);
    put_stack(&pg, 1, 42, 0, 3, 0xffffffff81000000ull);
    push(st, buf, &pg);
    struct tp_staged out[8];
    assert_int_equal(tp_stage_next(st, out, 8), 2);
    assert_int_equal(out[0].nframes, 0);
    assert_null(out[0].stack);
    tp_stage_release(st);
    tp_stage_destroy(st);
}

/* On: the stack goes with the event before it, never as an event of its own. */
static void test_stack_same_page(void **state)
{
    (void)state;
    struct tp_stage *st = new_stage(1);
    void *buf = tp_stage_page(st, 0);
    struct page pg;
    page_start(&pg, buf, 1000);
    put_event(&pg, 1, 42, 0);
    put_stack(&pg, 1, 42, 0, 3, 0xffffffff81000000ull);
    put_event(&pg, 1, 42, 0);       /* no stack: the next entry is an event */
    put_event(&pg, 1, 43, 0);
    push(st, buf, &pg);
    tp_stage_caught_up(st, 0, LATER);
    struct tp_staged out[8];
    assert_int_equal(tp_stage_next(st, out, 8), 3);
    assert_int_equal(out[0].nframes, 3);
    assert_true(frame(&out[0], 0) == 0xffffffff81000000ull);
    assert_true(frame(&out[0], 2) == 0xffffffff81000002ull);
    assert_int_equal(out[1].nframes, 0);
    assert_int_equal(out[2].nframes, 0);
    assert_int_equal(tp_stage_orphans(st), 0);
    tp_stage_release(st);
    tp_stage_destroy(st);
}

/*
 * The last event of a sub-buffer waits for the next one, which may begin
 * with its stack (and hold nothing else); a read that finds nothing lets it go.
 */
static void test_stack_next_page_and_hold_back(void **state)
{
    (void)state;
    struct tp_stage *st = new_stage(1);
    void *b1 = tp_stage_page(st, 0);
    struct page pg;
    page_start(&pg, b1, 1000);
    put_event(&pg, 1, 42, 0);
    put_event(&pg, 1, 42, 0);       /* ts 1002: its stack is on the next sub-buffer */
    push(st, b1, &pg);
    struct tp_staged out[8];
    assert_int_equal(tp_stage_next(st, out, 8), 1);    /* 1001 only: 1002 is held */
    assert_true(out[0].ts == 1001);
    void *b2 = tp_stage_page(st, 0);
    page_start(&pg, b2, 1002);
    put_stack(&pg, 0, 42, 0, 5, 0x1000);
    push(st, b2, &pg);
    tp_stage_release(st);           /* b1 is still needed: its event is not handed on */
    assert_int_equal(tp_stage_next(st, out, 8), 0);    /* still waiting for a read */
    tp_stage_caught_up(st, 0, 1500);                   /* a read found nothing */
    assert_int_equal(tp_stage_next(st, out, 8), 1);
    assert_true(out[0].ts == 1002);
    assert_int_equal(out[0].nframes, 5);
    assert_true(frame(&out[0], 4) == 0x1004);
    assert_int_equal(tp_stage_pending(st), 0);
    tp_stage_release(st);
    tp_stage_destroy(st);
}

/* A stack of another context (an interrupt's event between), or of no event: an orphan. */
static void test_orphans(void **state)
{
    (void)state;
    struct tp_stage *st = new_stage(1);
    void *buf = tp_stage_page(st, 0);
    struct page pg;
    page_start(&pg, buf, 1000);
    put_stack(&pg, 1, 42, 0, 2, 0x10);     /* nothing before it */
    put_event(&pg, 1, 42, 0x08);           /* an event in hard irq ... */
    put_stack(&pg, 1, 42, 0, 2, 0x20);     /* ... and a stack of the task's context */
    put_event(&pg, 1, 42, 0);
    put_stack(&pg, 1, 42, 0x04, 2, 0x30);  /* need-resched set since: the same context */
    put_stack(&pg, 1, 42, 0, 2, 0x40);     /* a second stack for one event */
    push(st, buf, &pg);
    tp_stage_caught_up(st, 0, LATER);
    struct tp_staged out[8];
    assert_int_equal(tp_stage_next(st, out, 8), 2);
    assert_int_equal(out[0].nframes, 0);
    assert_int_equal(out[1].nframes, 2);
    assert_true(frame(&out[1], 0) == 0x30);
    assert_int_equal(tp_stage_orphans(st), 3);
    tp_stage_release(st);
    tp_stage_destroy(st);
}

/*
 * After a sub-buffer that could not be kept (its header not to be trusted,
 * as one with a lost event), the next stack is not given to the event
 * before the loss, though of the same task: it may be the lost event's.
 */
static void test_no_stack_across_a_loss(void **state)
{
    (void)state;
    struct tp_stage *st = new_stage(1);
    void *b1 = tp_stage_page(st, 0);
    struct page pg;
    page_start(&pg, b1, 1000);
    put_event(&pg, 1, 42, 0);       /* ts 1001, held back for a stack */
    push(st, b1, &pg);
    push_lost(st, 1002, 42);
    void *b3 = tp_stage_page(st, 0);
    page_start(&pg, b3, 1003);
    put_stack(&pg, 0, 42, 0, 3, 0x60);
    put_event(&pg, 1, 42, 0);
    put_stack(&pg, 0, 42, 0, 2, 0x70);     /* the next event's own: attached */
    push(st, b3, &pg);
    tp_stage_caught_up(st, 0, LATER);
    struct tp_staged out[4];
    assert_int_equal(tp_stage_next(st, out, 4), 2);
    assert_int_equal(out[0].nframes, 0);
    assert_int_equal(out[1].nframes, 2);
    assert_true(frame(&out[1], 0) == 0x70);
    assert_int_equal(tp_stage_orphans(st), 1);
    tp_stage_release(st);
    tp_stage_destroy(st);
}

/* A size larger than the entry holds is cut to what it holds. */
static void test_frames_bounded_by_entry(void **state)
{
    (void)state;
    struct tp_stage *st = new_stage(1);
    void *buf = tp_stage_page(st, 0);
    struct page pg;
    page_start(&pg, buf, 1000);
    put_event(&pg, 1, 7, 0);
    put_stack(&pg, 1, 7, 0, 1000, 0x50);
    push(st, buf, &pg);
    tp_stage_caught_up(st, 0, LATER);
    struct tp_staged out[2];
    assert_int_equal(tp_stage_next(st, out, 2), 1);
    assert_int_equal(out[0].nframes, 8);
    tp_stage_release(st);
    tp_stage_destroy(st);
}

/*
 * The stack comes after an empty read (its CPU stalled between the event
 * and its stack): the event waits for it, up to TP_STAGE_STACK_WAIT_NS.
 */
static void test_late_stack_waits(void **state)
{
    (void)state;
    struct tp_stage *st = new_stage(1);
    void *b1 = tp_stage_page(st, 0);
    struct page pg;
    page_start(&pg, b1, 1000);
    put_event(&pg, 1, 42, 0);       /* ts 1001: its stack is not written yet */
    push(st, b1, &pg);
    struct tp_staged out[8];
    tp_stage_caught_up(st, 0, 1001 + 3000000);             /* empty reads, 3 ms on */
    tp_stage_caught_up(st, 0, 1001 + TP_STAGE_STACK_WAIT_NS - 1);
    assert_int_equal(tp_stage_next(st, out, 8), 0);
    void *b2 = tp_stage_page(st, 0);
    page_start(&pg, b2, 1001);
    put_stack(&pg, 0, 42, 0, 2, 0x50);
    push(st, b2, &pg);
    tp_stage_caught_up(st, 0, 1001 + TP_STAGE_STACK_WAIT_NS - 1);
    assert_int_equal(tp_stage_next(st, out, 8), 1);
    assert_int_equal(out[0].nframes, 2);
    assert_true(frame(&out[0], 1) == 0x51);
    assert_int_equal(tp_stage_orphans(st), 0);
    tp_stage_release(st);
    tp_stage_destroy(st);
}

/* A stack later than its wait: the event went on without it; the stack is an orphan. */
static void test_stack_after_its_wait(void **state)
{
    (void)state;
    struct tp_stage *st = new_stage(1);
    void *b1 = tp_stage_page(st, 0);
    struct page pg;
    page_start(&pg, b1, 1000);
    put_event(&pg, 1, 42, 0);
    push(st, b1, &pg);
    struct tp_staged out[8];
    tp_stage_caught_up(st, 0, 1001 + TP_STAGE_STACK_WAIT_NS);
    assert_int_equal(tp_stage_next(st, out, 8), 1);
    assert_int_equal(out[0].nframes, 0);
    tp_stage_release(st);
    void *b2 = tp_stage_page(st, 0);
    page_start(&pg, b2, 1001);
    put_stack(&pg, 0, 42, 0, 2, 0x50);
    int truncated;
    tp_stage_push(st, 0, b2, 16 + pg.len, &truncated);
    assert_int_equal(tp_stage_orphans(st), 1);
    assert_int_equal(tp_stage_pending(st), 0);
    tp_stage_destroy(st);
}

/*
 * Another task's event between an event and its stack (the task preempted
 * in between) or an interrupt's: the stack goes to the latest event of its
 * own context; and not past a loss.
 */
static void test_stack_past_other_contexts(void **state)
{
    (void)state;
    struct tp_stage *st = new_stage(1);
    void *b1 = tp_stage_page(st, 0);
    struct page pg;
    page_start(&pg, b1, 1000);
    put_event(&pg, 1, 42, 0);              /* 1001: task 42, its stack comes later */
    put_event(&pg, 1, 43, 0);              /* 1002: task 43 ran in between */
    put_event(&pg, 1, 42, 0x08);           /* 1003: an interrupt's, over task 42 */
    put_stack(&pg, 1, 42, 0, 2, 0x80);     /* task 42's stack: to 1001 */
    put_event(&pg, 1, 44, 0);              /* 1005 */
    push(st, b1, &pg);
    push_lost(st, 1005, 44);               /* a sub-buffer lost after 1005 ... */
    void *b3 = tp_stage_page(st, 0);
    page_start(&pg, b3, 1006);
    put_event(&pg, 0, 45, 0);              /* 1006 */
    put_stack(&pg, 1, 44, 0, 2, 0x90);     /* ... so task 44's stack may be a lost event's */
    push(st, b3, &pg);
    tp_stage_caught_up(st, 0, LATER);
    struct tp_staged out[8];
    assert_int_equal(tp_stage_next(st, out, 8), 5);
    assert_int_equal(out[0].nframes, 2);
    assert_true(frame(&out[0], 0) == 0x80);
    for (int i = 1; i < 5; i++)
        assert_int_equal(out[i].nframes, 0);
    assert_int_equal(tp_stage_orphans(st), 1);
    tp_stage_release(st);
    tp_stage_destroy(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stacks_off),
        cmocka_unit_test(test_stack_same_page),
        cmocka_unit_test(test_stack_next_page_and_hold_back),
        cmocka_unit_test(test_late_stack_waits),
        cmocka_unit_test(test_stack_after_its_wait),
        cmocka_unit_test(test_orphans),
        cmocka_unit_test(test_stack_past_other_contexts),
        cmocka_unit_test(test_frames_bounded_by_entry),
        cmocka_unit_test(test_no_stack_across_a_loss),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
