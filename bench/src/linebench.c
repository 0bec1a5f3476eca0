/*
 * linebench: what printing one default text line costs pcp tracepoint
 * (client/output.c's output_event), for getpid records as its default
 * options receive them: cpu 0 and 1 in turn, a 32-bit pid, comm
 * "tpbench_gen", event "syscalls:sys_enter_getpid", empty text, times
 * 1427 ns apart; printer_flush every 4,096 lines as the fetch loop
 * flushes after a fetch.
 *
 *   linebench [LINES] > FILE
 *
 * Prints "lines N ns/line NS" on stderr: the best of 5 runs, CPU per line.
 */
#include <pcp/pmapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output.h"

static double cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* CPU ns per line of n lines of c, cpu and pid changing as they would. */
static double run(struct printer *pr, struct common *c, pmValueSet *cpu, pmValueSet *pid, int n)
{
    struct record r = { 0 };
    bool closed = false;
    double t0 = cpu_ns();

    for (int i = 0; i < n; i++) {
        cpu->vlist[0].value.lval = i & 1;
        pid->vlist[0].value.lval = 24519 + (i >> 20);
        c->time_ns = 1795977770154307221ull + (uint64_t)i * 1427;
        if (output_event(pr, c, &r) < 0)
            return -1;
        if ((i & 4095) == 4095)
            printer_flush(pr, &closed);
    }
    printer_flush(pr, &closed);
    return (cpu_ns() - t0) / n;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000000;
    static struct params ps;
    struct printer pr = { .params = &ps };
    struct param pidp = { .type = PM_TYPE_32, .role = PID };
    struct param cpup = { .type = PM_TYPE_U32, .role = CPU };
    pmValueSet cpu = { .numval = 1, .valfmt = PM_VAL_INSITU }, pid = cpu;
    pmValueSet text = { .numval = 1, .valfmt = PM_VAL_DPTR };
    union { pmValueBlock vb; char b[16]; } tb;
    struct common c;
    double best = -1;

    memset(&tb, 0, sizeof(tb));
    tb.vb.vtype = PM_TYPE_STRING;
    tb.vb.vlen = PM_VAL_HDR_SIZE + 1;
    text.vlist[0].value.pval = &tb.vb;
    memset(&c, 0, sizeof(c));
    c.event = "syscalls:sys_enter_getpid";
    c.event_len = strlen(c.event);
    strcpy(c.comm, "tpbench_gen");
    c.has_comm = true;
    c.cpu = &cpu;
    c.cpu_param = &cpup;
    c.pid = &pid;
    c.pid_param = &pidp;
    c.text = &text;
    for (int round = 0; round < 5; round++) {
        double ns = run(&pr, &c, &cpu, &pid, n);
        if (ns < 0)
            return 1;
        if (best < 0 || ns < best)
            best = ns;
    }
    fprintf(stderr, "lines %d ns/line %.0f\n", n, best);
    return 0;
}
