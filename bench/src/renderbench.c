/*
 * renderbench: the PMDA's cost of rendering one event's text (src/render.c,
 * libtraceevent's print engine), the part of a record only consumers of
 * tracepoint.param.text pay for.
 *
 *   renderbench [N]
 *
 * Builds raw records of seven events of this machine from their formats
 * (syscalls:sys_enter_getpid: no arguments; sched:sched_switch: strings,
 * numbers and symbolic flags; kmem:kmalloc: a %pS symbol and GFP flags;
 * syscalls:sys_enter_openat: four numbers in hex; sock:inet_sock_set_state:
 * %pI4 and %pI6c addresses and symbolic states; raw_syscalls:sys_enter: the
 * elements of an array, args[0] to args[5]; kmem:mm_page_alloc: a page
 * pointer made from a kernel variable and the pfn, and GFP flags) and
 * renders each N times
 * (default 1,000,000), best of 5, as the PMDA does (formats made into
 * programs where tp_printfmt can) and by libtraceevent alone.  Prints
 *   prepare_ms MS          reading the kernel's symbols and printk formats
 *   rss_kb KB              what that took in memory (VmRSS growth)
 *   EVENT NS_PER_EVENT LIBTRACEEVENT_NS TEXT
 * and "EVENT: the texts differ" on stderr (exit 1) if the two are not the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchutil.h"

#include "tp_catalog.h"
#include "tp_render.h"

/* A kernel text address, for %pS (0 if the symbols are hidden). */
static unsigned long long kernel_text(void)
{
    char line[512], type;
    unsigned long long addr = 0;
    FILE *f = fopen("/proc/kallsyms", "r");
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "%llx %c", &addr, &type) == 2 && (type == 'T' || type == 't') &&
            addr && strstr(line, " kfree"))
            break;
    if (f)
        fclose(f);
    return addr + 0x20;
}

static void put(unsigned char *rec, const struct tp_event *e, const char *name, const void *v,
                size_t n)
{
    for (unsigned i = 0; i < e->nfields; i++)
        if (strcmp(e->fields[i].name, name) == 0 && e->fields[i].offset + n <= 256)
            memcpy(rec + e->fields[i].offset, v, n < e->fields[i].size ? n : e->fields[i].size);
}

/* A record of system:event with typical values; its length, or 0. */
static unsigned make(struct tp_catalog *cat, const char *sys, const char *ev, unsigned char *rec,
                     int *index)
{
    int i = tp_catalog_find(cat, sys, ev);
    if (i < 0 || tp_catalog_load(cat, (size_t)i) < 0)
        return 0;
    const struct tp_event *e = tp_catalog_event(cat, (size_t)i);
    uint16_t type = (uint16_t)e->kernel_id;
    int pid = 4242, prio = 120, zero = 0;
    long state = 1;
    unsigned long long site = kernel_text(), ptr = 0xffff888004a3c000ull;
    unsigned long gfp = 0xcc0, req = 72, alloc = 96;
    memset(rec, 0, 256);
    memcpy(rec, &type, 2);
    memcpy(rec + 4, &pid, 4);
    put(rec, e, "prev_comm", "tpbench_gen", 12);
    put(rec, e, "next_comm", "swapper/1", 10);
    put(rec, e, "prev_pid", &pid, 4);
    put(rec, e, "next_pid", &zero, 4);
    put(rec, e, "prev_prio", &prio, 4);
    put(rec, e, "next_prio", &prio, 4);
    put(rec, e, "prev_state", &state, sizeof(state));
    put(rec, e, "call_site", &site, 8);
    put(rec, e, "ptr", &ptr, 8);
    put(rec, e, "bytes_req", &req, sizeof(req));
    put(rec, e, "bytes_alloc", &alloc, sizeof(alloc));
    put(rec, e, "gfp_flags", &gfp, sizeof(gfp));
    put(rec, e, "node", &(int){ -1 }, 4);
    put(rec, e, "dfd", &(long){ -100 }, 8);
    put(rec, e, "filename", &ptr, 8);
    put(rec, e, "flags", &(long){ 0x80241 }, 8);
    put(rec, e, "mode", &(long){ 0666 }, 8);
    static const unsigned char v4[2][4] = { { 10, 0, 0, 1 }, { 10, 0, 0, 2 } };
    static const unsigned char v6[2][16] = {
        { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 }, { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 } };
    put(rec, e, "family", &(uint16_t){ 2 }, 2);
    put(rec, e, "protocol", &(uint16_t){ 6 }, 2);
    put(rec, e, "sport", &(uint16_t){ 43033 }, 2);
    put(rec, e, "dport", &(uint16_t){ 443 }, 2);
    put(rec, e, "saddr", v4[0], 4);
    put(rec, e, "daddr", v4[1], 4);
    put(rec, e, "saddr_v6", v6[0], 16);
    put(rec, e, "daddr_v6", v6[1], 16);
    put(rec, e, "oldstate", &(int){ 2 }, 4);
    put(rec, e, "newstate", &(int){ 1 }, 4);
    put(rec, e, "pfn", &(unsigned long){ 0x10a2c3 }, sizeof(unsigned long));
    put(rec, e, "order", &(unsigned){ 2 }, 4);
    put(rec, e, "migratetype", &(int){ 1 }, 4);
    *index = i;
    unsigned len = 8;
    for (unsigned k = 0; k < e->nfields; k++)
        if (e->fields[k].offset + e->fields[k].size > len)
            len = e->fields[k].offset + e->fields[k].size;
    return len;
}

/* CPU per text of n renderings of the record, best of 5; the last text in text. */
static double best_of_5(struct tp_render *r, int index, const unsigned char *rec, unsigned len,
                        long n, char *text, size_t size)
{
    double best = 1e18;
    for (int run = 0; run < 5; run++) {
        double c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
        for (long i = 0; i < n; i++)
            tp_render_text(r, (uint32_t)index, rec, len, 1, text, size);
        double per = (clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0) / (double)n;
        best = per < best ? per : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    static const char *const events[][2] = {
        { "syscalls", "sys_enter_getpid" }, { "sched", "sched_switch" }, { "kmem", "kmalloc" },
        { "syscalls", "sys_enter_openat" }, { "sock", "inet_sock_set_state" },
        { "raw_syscalls", "sys_enter" }, { "kmem", "mm_page_alloc" },
    };
    int status = 0;
    struct tp_catalog *cat;
    struct tp_render *r;
    if (tp_catalog_create(&cat, "/sys/kernel/tracing") < 0 ||
        tp_render_create(&r, cat, "/sys/kernel/tracing") < 0) {
        fprintf(stderr, "renderbench: no tracefs\n");
        return 1;
    }
    long kb0 = rss_kb();
    double t0 = clock_ns(CLOCK_MONOTONIC);
    tp_render_prepare(r);
    printf("prepare_ms %.0f\nrss_kb %ld\n", (clock_ns(CLOCK_MONOTONIC) - t0) / 1e6, rss_kb() - kb0);
    for (size_t k = 0; k < sizeof(events) / sizeof(events[0]); k++) {
        unsigned char rec[256];
        char text[TP_RENDER_MAX_TEXT];
        int index = -1;
        unsigned len = make(cat, events[k][0], events[k][1], rec, &index);
        if (!len)
            continue;
        char lib[TP_RENDER_MAX_TEXT];
        double ours = best_of_5(r, index, rec, len, n, text, sizeof(text));
        tp_render_use_programs(r, false);
        double alone = best_of_5(r, index, rec, len, n, lib, sizeof(lib));
        tp_render_use_programs(r, true);
        printf("%s:%s %.0f %.0f %s\n", events[k][0], events[k][1], ours, alone, text);
        if (strcmp(text, lib) != 0) {
            fprintf(stderr, "%s:%s: the texts differ\n", events[k][0], events[k][1]);
            status = 1;
        }
    }
    tp_render_destroy(r);
    tp_catalog_destroy(cat);
    return status;
}
