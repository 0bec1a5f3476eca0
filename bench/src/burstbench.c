/*
 * burstbench: what the same per-record work costs on this machine when it
 * comes in bursts with idle time between, as a paced stream's fetches do,
 * against back to back.  No PMDA, no pmcd, no tracing: row 13's anchor for
 * the part of a paced fetch's cost that is the host's, not the PMDA's.
 *
 *   burstbench [BATCH [PERIOD_US [BATCHES]]]   (default 500 10000 200)
 *
 * One batch does what a fetch of BATCH getpid records does in the PMDA
 * thread: it reads BATCH 48-byte entries in turn from a 64 MiB ring (wrapping,
 * as the PMDA's ring does), writes each as an event record with this
 * PMDA's encoder (the same shape as a getpid record with params=fields),
 * and writes the array into a pipe as wide as the PMDA's (1 MiB), which a
 * child process drains.  Paced: a batch every PERIOD_US, the process asleep
 * between; flat: the same batches back to back.  Only the writer thread's
 * CPU inside its batches counts.  Three rounds of each, interleaved; prints
 *   paced NS flat NS ratio X
 * (medians of the rounds, ns of CPU per record).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchutil.h"
#include "getpidshape.h"

#define RING_BYTES (64u << 20)
#define ENTRY_BYTES 48u
#define PIPE_BYTES (1 << 20)
#define ROUNDS 3

struct work {
    unsigned char *ring;
    size_t at;              /* the next entry's offset in ring */
    struct tp_enc enc;
    struct tp_enc_shape shape;
    int fd;                 /* the pipe's write end */
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

/* One batch: the writer thread's CPU for it, in ns (negative: -errno). */
static double batch(struct work *w, int n)
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

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 500;
    long period_ns = (argc > 2 ? atol(argv[2]) : 10000) * 1000L;
    int batches = argc > 3 ? atoi(argv[3]) : 200;
    struct work w = { .ring = malloc(RING_BYTES) };
    int p[2];
    if (n <= 0 || batches <= 0 || !w.ring || pipe(p) < 0)
        return 1;
    (void)fcntl(p[1], F_SETPIPE_SZ, PIPE_BYTES);
    for (size_t i = 0; i < RING_BYTES; i += 8)  /* every page touched, as a wrapped ring's */
        memcpy(w.ring + i, &i, 8);
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
    free(w.ring);
    return 0;
}
