/*
 * fillbench: the PMDA thread's part of row 3's per-record cost that is this
 * PMDA's own code, with no kernel, no pmcd and no libpcp: ring entries of
 * syscalls:sys_enter_getpid (as the producer appends them, with the pid's
 * name) turned into event records by tp_records_fill, in the fill sizes a
 * fetch uses.
 *
 *   fillbench [RECORDS]
 *
 * The event's format is the kernel's, written into a made-up tracing
 * directory in /tmp (removed after).  The ring is filled 65,536 entries at
 * a time (outside the timing), then read by one cursor into one array of
 * them, 1,024 ring entries a lock hold, as src/fetch.c fills a fetch's
 * array; the best of 5 runs is printed as
 *   fill NS bytes B
 * (ns of CPU per record; bytes per record in the array).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchutil.h"
#include "tp_records.h"

#define BATCH 65536
#define HOLD  1024          /* ring entries examined per lock hold (SCAN_BUDGET, tp_pmda.h) */

static const char format[] =
    "name: sys_enter_getpid\nID: 309\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n\n"
    "print fmt: \"\"\n";

static const pmID field_pmid[1] = { 0x7a5e0100 };
static const struct tp_field_ids getpid_fids = { field_pmid, 1 };

static const struct tp_field_ids *fields_of(void *arg, uint32_t event)
{
    (void)arg;
    (void)event;
    return &getpid_fids;
}

/* dir/events/syscalls/sys_enter_getpid/{format,enable}: 0 or -1. */
static int make_tree(const char *dir)
{
    static const char *const sub[] = { "events", "events/syscalls",
                                       "events/syscalls/sys_enter_getpid" };
    char path[512];
    for (unsigned i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, sub[i]);
        if (mkdir(path, 0700) < 0)
            return -1;
    }
    static const char *const file[][2] = { { "format", format }, { "enable", "0\n" } };
    for (unsigned i = 0; i < 2; i++) {
        snprintf(path, sizeof(path), "%s/%s/%s", dir, sub[2], file[i][0]);
        FILE *f = fopen(path, "w");
        if (!f || fputs(file[i][1], f) < 0 || fclose(f) != 0)
            return -1;
    }
    return 0;
}

struct bench {
    struct tp_catalog *cat;
    struct tp_ring *ring;
    struct tp_clock clock;
    struct tp_param_ids ids;
    struct tp_fill_src src;
    int event;
};

static int bench_open(struct bench *b, const char *dir)
{
    if (tp_catalog_create(&b->cat, dir) < 0 ||
        (b->event = tp_catalog_find(b->cat, "syscalls", "sys_enter_getpid")) < 0 ||
        tp_catalog_load(b->cat, (size_t)b->event) < 0 || tp_ring_create(&b->ring, 64 << 20) < 0)
        return -1;
    tp_clock_init(&b->clock, 0);
    b->ids.fields = fields_of;
    for (unsigned i = 0; i < TP_NCOMMON; i++)
        b->ids.common[i] = (pmID)(0x7a5e0010 + i);
    b->src = (struct tp_fill_src){ .ids = &b->ids, .ring = b->ring, .cat = b->cat,
                                   .clock = &b->clock, .with = TP_WITH_DEFAULT };
    return 0;
}

static void bench_close(struct bench *b)
{
    tp_ring_destroy(b->ring);
    tp_catalog_destroy(b->cat);
}

/* BATCH getpid entries into the ring, times from ts on. */
static void append_batch(struct bench *b, uint64_t ts)
{
    unsigned char rec[12] = { 0x35, 0x01 };     /* common_type 309 */
    int32_t pid = 4242, nr = 39;
    memcpy(rec + 4, &pid, 4);
    memcpy(rec + 8, &nr, 4);
    for (unsigned k = 0; k < BATCH; k++) {
        struct tp_event_meta m = { .ts = ts + k, .event = (uint32_t)b->event, .cpu = 1,
                                   .mask = 1, .comm = "tpbench_gen" };
        tp_ring_append(b->ring, &m, rec, sizeof(rec));
    }
}

/* One run of n records: CPU ns per record, and the bytes per record. */
static double run(struct bench *b, long n, double *bytes)
{
    struct tp_enc enc;
    struct tp_cursor c;
    double t = 0;
    long done = 0;
    tp_enc_init(&enc);
    tp_cursor_init(b->ring, &c, 0, 0);
    while (done < n) {
        append_batch(b, 1000 + (uint64_t)done);
        double t0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
        struct tp_fill_result res = { 0 };
        int rc = tp_enc_reset(&enc);
        while (rc == 0 || rc == TP_FILL_MORE) {
            unsigned budget = HOLD;
            rc = tp_records_fill(&b->src, &enc, &c, 64 << 20, BATCH, &budget, &res);
        }
        tp_enc_finish(&enc);
        t += clock_ns(CLOCK_PROCESS_CPUTIME_ID) - t0;
        if (rc < 0 || res.records == 0)
            return -1;
        done += (long)res.records;
        *bytes = (double)(enc.len - TP_ENC_ARRAY_BYTES) / (double)res.records;
    }
    tp_enc_release(&enc);
    return t / (double)done;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    char dir[] = "/tmp/fillbench.XXXXXX";
    struct bench b = { 0 };
    double best = 0, bytes = 0;
    int rc = 1;
    if (!mkdtemp(dir)) {
        perror("fillbench: mkdtemp");
        return 1;
    }
    if (make_tree(dir) < 0 || bench_open(&b, dir) < 0) {
        fprintf(stderr, "fillbench: cannot set up the catalog in %s\n", dir);
        goto out;
    }
    for (int i = 0; i < 5; i++) {
        double ns = run(&b, n, &bytes);
        if (ns < 0) {
            fprintf(stderr, "fillbench: a fill failed\n");
            goto out;
        }
        if (i == 0 || ns < best)
            best = ns;
    }
    printf("fill %.1f bytes %.0f\n", best, bytes);
    rc = 0;
out:
    bench_close(&b);
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? rc : 1;
}
