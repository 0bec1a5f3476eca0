/*
 * burstbench: what the same per-record work costs on this machine when it
 * comes in bursts with idle time between, as a paced stream's fetches do,
 * against back to back.  No PMDA, no pmcd, no tracing: row 13's anchor for
 * the part of a paced fetch's cost that is the host's, not the PMDA's.
 *
 *   burstbench [BATCH [PERIOD_US [BATCHES]]]      (default 500 10000 200)
 *   burstbench -a [BATCH [PERIOD_US [BATCHES]]]   (default 15000 250000 20)
 *
 * One batch does what a fetch of BATCH getpid records does in the PMDA
 * thread: it reads BATCH 48-byte entries in turn from a 64 MiB ring (wrapping,
 * as the PMDA's ring does), writes each as an event record with this
 * PMDA's encoder (the same shape as a getpid record with params=fields),
 * and writes the array into a pipe as wide as the PMDA's (1 MiB), which a
 * child process drains.  With -a, a batch does what a producer's pass of
 * BATCH getpid events does for a count by comm: it copies them in 4 KiB
 * sub-buffers from a 64 MiB buffer (wrapping, as read() copies the kernel's
 * pages) and feeds each, with its task's name, to this PMDA's aggregation
 * (src/agg.c, 64 pids of one name).  Paced: a batch every PERIOD_US, the
 * process asleep between; flat: the same batches back to back.  Only the
 * thread's CPU inside its batches counts.  Three rounds of each,
 * interleaved; prints
 *   paced NS flat NS ratio X
 * (medians of the rounds, ns of CPU per record or event).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchutil.h"
#include "getpidshape.h"
#include "tp_agg.h"

#define RING_BYTES (64u << 20)
#define ENTRY_BYTES 48u
#define PIPE_BYTES (1 << 20)
#define ROUNDS 3
#define SUBBUF_BYTES 4096u
#define EVENT_BYTES 24u         /* a sys_enter_getpid record: common fields, __syscall_nr */
#define PER_SUBBUF (SUBBUF_BYTES / EVENT_BYTES)
#define PIDS 64

struct work {
    unsigned char *ring;
    size_t at;              /* the next entry's offset in ring */
    struct tp_enc enc;
    struct tp_enc_shape shape;
    int fd;                 /* the pipe's write end */
    struct tp_agg *agg;     /* -a: the count by comm; NULL: fetches */
    unsigned char subbuf[SUBBUF_BYTES];
};

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -errno;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* One fetch's batch: the writer thread's CPU for it, in ns (negative: -errno). */
static double fetch_batch(struct work *w, int n)
{
    double t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    tp_enc_reset(&w->enc);
    for (int k = 0; k < n; k++) {
        uint64_t v[6];
        memcpy(v, w->ring + w->at, sizeof(v));
        w->at = (w->at + ENTRY_BYTES) % RING_BYTES;
        if (tp_enc_reserve(&w->enc, w->shape.len) < 0)
            return -ENOMEM;
        unsigned char *rec = tp_enc_shaped(&w->enc, &w->shape, v[0], PM_EVENT_FLAG_POINT);
        tp_enc_shape_put(rec, &w->shape, 0, v[1] & 1);
        tp_enc_shape_put(rec, &w->shape, 1, v[2]);
        tp_enc_shape_put(rec, &w->shape, 2, v[0]);
        tp_enc_shape_put(rec, &w->shape, 3, 39);
    }
    pmValueBlock *vb = tp_enc_finish(&w->enc);
    int rc = write_all(w->fd, (const unsigned char *)vb, w->enc.len);
    return rc < 0 ? rc : clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
}

/* One pass's batch of events into the count by comm: the thread's CPU for it, in ns. */
static double pass_batch(struct work *w, int n)
{
    static const char comm[] = "tpbench_gen";
    double t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (int k = 0; k < n; k += PER_SUBBUF) {
        int m = n - k < (int)PER_SUBBUF ? n - k : (int)PER_SUBBUF;
        memcpy(w->subbuf, w->ring + w->at, SUBBUF_BYTES);
        w->at = (w->at + SUBBUF_BYTES) % RING_BYTES;
        for (int e = 0; e < m; e++) {
            struct tp_agg_event ev = { .data = w->subbuf + e * EVENT_BYTES, .len = EVENT_BYTES,
                                       .ts = (uint64_t)k + (uint64_t)e, .comm = comm,
                                       .comm_len = sizeof(comm) - 1 };
            tp_agg_feed_event(w->agg, &ev);
        }
    }
    return clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
}

static double batch(struct work *w, int n)
{
    return w->agg ? pass_batch(w, n) : fetch_batch(w, n);
}

/* BATCHES batches of n, one every period_ns (0: back to back): ns per record. */
static double run(struct work *w, int n, long period_ns, int batches)
{
    struct timespec next;
    double cpu = 0;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (int b = 0; b < batches; b++) {
        if (period_ns > 0) {
            next.tv_nsec += period_ns;
            next.tv_sec += next.tv_nsec / 1000000000L;
            next.tv_nsec %= 1000000000L;
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
                ;
        }
        double t = batch(w, n);
        if (t < 0)
            return t;
        cpu += t;
    }
    return cpu / ((double)n * batches);
}

static void drain(int fd)
{
    static unsigned char buf[PIPE_BYTES];
    while (read(fd, buf, sizeof(buf)) > 0)
        ;
    _exit(0);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* -a's count by comm, or NULL. */
static struct tp_agg *count_by_comm(void)
{
    struct tp_agg *a;
    struct tp_agg_binding b = { .event = 0, .event_name = "syscalls:sys_enter_getpid",
                                .role = TP_AGG_VALUE, .by = { &tp_agg_comm }, .nby = 1 };
    if (tp_agg_create(&a, TP_AGG_COUNT, 1024, 16384) < 0)
        return NULL;
    if (tp_agg_bind(a, &b) < 0) {
        tp_agg_destroy(a);
        return NULL;
    }
    return a;
}

/*
 * Every page touched, as a wrapped ring's: entries for fetches; for -a,
 * events from the start of each sub-buffer, as the kernel lays them out.
 */
static void fill(unsigned char *ring, bool events)
{
    if (!events) {
        for (size_t i = 0; i < RING_BYTES; i += 8)
            memcpy(ring + i, &i, 8);
        return;
    }
    memset(ring, 0, RING_BYTES);
    for (size_t sb = 0, k = 0; sb < RING_BYTES; sb += SUBBUF_BYTES) {
        for (size_t e = 0; e < PER_SUBBUF; e++, k++) {
            int32_t pid = 1000 + (int32_t)(k % PIDS), nr = 39;
            memcpy(ring + sb + e * EVENT_BYTES + 4, &pid, 4);
            memcpy(ring + sb + e * EVENT_BYTES + 8, &nr, 4);
        }
    }
}

int main(int argc, char **argv)
{
    bool agg = argc > 1 && strcmp(argv[1], "-a") == 0;
    argc -= agg;
    argv += agg;
    int n = argc > 1 ? atoi(argv[1]) : agg ? 15000 : 500;
    long period_ns = (argc > 2 ? atol(argv[2]) : agg ? 250000 : 10000) * 1000L;
    int batches = argc > 3 ? atoi(argv[3]) : agg ? 20 : 200;
    struct work w = { .ring = malloc(RING_BYTES), .agg = agg ? count_by_comm() : NULL };
    int p[2];
    if (n <= 0 || batches <= 0 || !w.ring || (agg && !w.agg) || pipe(p) < 0)
        return 1;
    (void)fcntl(p[1], F_SETPIPE_SZ, PIPE_BYTES);
    fill(w.ring, agg);
    pid_t child = fork();
    if (child == 0) {
        close(p[1]);
        drain(p[0]);
    }
    close(p[0]);
    w.fd = p[1];
    tp_enc_init(&w.enc);
    getpid_shape(&w.shape);
    run(&w, n, 0, batches);   /* warm: the array and the pipe's pages at their size */
    double paced[ROUNDS], flat[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        paced[r] = run(&w, n, period_ns, batches);
        flat[r] = run(&w, n, 0, batches);
        if (paced[r] < 0 || flat[r] < 0) {
            fprintf(stderr, "burstbench: %s\n", strerror((int)-(paced[r] < 0 ? paced[r] : flat[r])));
            return 1;
        }
    }
    close(w.fd);
    waitpid(child, NULL, 0);
    qsort(paced, ROUNDS, sizeof(double), cmp);
    qsort(flat, ROUNDS, sizeof(double), cmp);
    printf("paced %.1f flat %.1f ratio %.2f\n", paced[ROUNDS / 2], flat[ROUNDS / 2],
           paced[ROUNDS / 2] / flat[ROUNDS / 2]);
    tp_enc_release(&w.enc);
    tp_agg_destroy(w.agg);
    free(w.ring);
    return 0;
}
