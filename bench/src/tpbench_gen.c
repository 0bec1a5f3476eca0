/*
 * tpbench_gen: the benchmark's event generator (built as tpbench_load).
 *
 *   tpbench_load [-s SYSCALL[,SYSCALL...] [-v K]] CPU N [RATE]
 *   tpbench_load -l
 *
 * Pins itself to CPU and makes N system calls, flat out or, with RATE > 0,
 * paced to RATE calls per second: getpid() through syscall(2), or with -s
 * the named system calls in turn (round robin), each with fd -1 and every
 * other argument 0, so each fails at once (EBADF, or EINVAL/EFAULT for a
 * zero argument checked first) without touching anything; with -v K the
 * second argument cycles through 0..K-1 instead (K distinct values of that
 * field, e.g. lseek's offset, for keyed aggregations).  The names are
 * those of the kernel's syscalls:sys_enter_NAME tracepoints; -l lists the
 * ones this program knows, in the order the benchmark uses them.  Before
 * timing, each named call is made once and must fail; otherwise nothing
 * is run (exit 1).
 *
 * Only the timed loop runs under the comm "tpbench_gen" (the comm the
 * benchmark's filters match): the program is started under another name,
 * and renames itself before printing, so the dynamic loader's and stdio's
 * own calls (read, close, fstat, write...) never match.  Prints
 * "N ELAPSED_NS CPU_NS" (CPU_NS: this process's CPU time over the loop,
 * user + system, the kernel's recording of the events included).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* fd-first calls that fail fast with fd -1 and zero arguments. */
static const struct { const char *name; long nr; } calls[] = {
    { "read", SYS_read },               { "write", SYS_write },
    { "close", SYS_close },             { "newfstat", SYS_fstat },
    { "lseek", SYS_lseek },             { "ioctl", SYS_ioctl },
    { "pread64", SYS_pread64 },         { "pwrite64", SYS_pwrite64 },
    { "readv", SYS_readv },             { "writev", SYS_writev },
    { "fsync", SYS_fsync },             { "fdatasync", SYS_fdatasync },
    { "ftruncate", SYS_ftruncate },     { "getdents64", SYS_getdents64 },
    { "fchdir", SYS_fchdir },           { "fchmod", SYS_fchmod },
    { "fchown", SYS_fchown },           { "flock", SYS_flock },
    { "fstatfs", SYS_fstatfs },         { "fgetxattr", SYS_fgetxattr },
    { "flistxattr", SYS_flistxattr },   { "fremovexattr", SYS_fremovexattr },
    { "fadvise64", SYS_fadvise64 },     { "epoll_wait", SYS_epoll_wait },
    { "epoll_ctl", SYS_epoll_ctl },     { "dup", SYS_dup },
    { "connect", SYS_connect },         { "accept", SYS_accept },
    { "sendto", SYS_sendto },           { "recvfrom", SYS_recvfrom },
    { "sendmsg", SYS_sendmsg },         { "recvmsg", SYS_recvmsg },
    { "shutdown", SYS_shutdown },       { "bind", SYS_bind },
    { "listen", SYS_listen },           { "getsockname", SYS_getsockname },
    { "getpeername", SYS_getpeername }, { "setsockopt", SYS_setsockopt },
    { "getsockopt", SYS_getsockopt },   { "fcntl", SYS_fcntl },
    { "syncfs", SYS_syncfs },           { "readahead", SYS_readahead },
    { "sync_file_range", SYS_sync_file_range },
    { "fallocate", SYS_fallocate },
    { "timerfd_settime", SYS_timerfd_settime },
    { "timerfd_gettime", SYS_timerfd_gettime },
    { "inotify_rm_watch", SYS_inotify_rm_watch },
    { "preadv", SYS_preadv },           { "pwritev", SYS_pwritev },
    { "copy_file_range", SYS_copy_file_range },
    /* spares, for a kernel that lacks one of the above */
    { "getdents", SYS_getdents },       { "fsetxattr", SYS_fsetxattr },
    { "accept4", SYS_accept4 },         { "preadv2", SYS_preadv2 },
    { "pwritev2", SYS_pwritev2 },       { "sendmmsg", SYS_sendmmsg },
    { "recvmmsg", SYS_recvmmsg },       { "sendfile64", SYS_sendfile },
};
#define NCALLS (sizeof calls / sizeof calls[0])
#define MAXSEL 256

static long long clock_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* -s LIST into nr[]; returns the count, or -1 after a message. */
static int select_calls(char *list, long *nr)
{
    int k = 0;
    for (char *save, *s = strtok_r(list, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        size_t i;
        for (i = 0; i < NCALLS && strcmp(calls[i].name, s) != 0; i++)
            ;
        if (i == NCALLS) {
            fprintf(stderr, "tpbench_gen: unknown system call '%s' (-l lists them)\n", s);
            return -1;
        }
        if (k == MAXSEL) {
            fprintf(stderr, "tpbench_gen: more than %d system calls\n", MAXSEL);
            return -1;
        }
        errno = 0;
        long rc = syscall(calls[i].nr, -1L, 0L, 0L, 0L, 0L, 0L);
        if (rc != -1 || (errno != EBADF && errno != EINVAL && errno != EFAULT)) {
            fprintf(stderr, "tpbench_gen: %s(-1, 0...) returned %ld (%s), not a fast failure\n",
                    s, rc, strerror(errno));
            return -1;
        }
        nr[k++] = calls[i].nr;
    }
    if (k == 0)
        fprintf(stderr, "tpbench_gen: -s needs at least one system call\n");
    return k ? k : -1;
}

int main(int argc, char **argv)
{
    static long nr[MAXSEL];
    int k = 0;

    prctl(PR_SET_NAME, "tpbench_setup", 0, 0, 0);
    if (argc == 2 && strcmp(argv[1], "-l") == 0) {
        for (size_t i = 0; i < NCALLS; i++)
            printf("%s\n", calls[i].name);
        return 0;
    }
    long vary = 0;
    if (argc > 2 && strcmp(argv[1], "-s") == 0) {
        if ((k = select_calls(argv[2], nr)) < 0)
            return 1;
        argv += 2, argc -= 2;
    }
    if (k && argc > 2 && strcmp(argv[1], "-v") == 0) {
        vary = atol(argv[2]);
        argv += 2, argc -= 2;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: tpbench_load [-s SYSCALL,... [-v K]] CPU N [RATE] | -l\n");
        return 2;
    }
    int cpu = atoi(argv[1]);
    long n = atol(argv[2]);
    double rate = argc > 3 ? atof(argv[3]) : 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) < 0) {
        perror("sched_setaffinity");
        return 1;
    }
    /* Check the schedule every `step` calls (about every 50 us). */
    long step = n;
    if (rate > 0 && (step = (long)(rate / 20000)) < 1)
        step = 1;
    prctl(PR_SET_NAME, "tpbench_gen", 0, 0, 0);
    long long c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    long long t0 = clock_ns(CLOCK_MONOTONIC);
    int j = 0;
    for (long i = 0; i < n; i += step) {
        long m = n - i < step ? n - i : step;
        if (k == 0) {
            for (long c = 0; c < m; c++)
                syscall(SYS_getpid);
        } else {
            for (long c = 0; c < m; c++) {
                syscall(nr[j], -1L, vary > 0 ? (i + c) % vary : 0L, 0L, 0L, 0L, 0L);
                if (++j == k)
                    j = 0;
            }
        }
        if (rate > 0) {
            long long due = t0 + (long long)((i + m) * 1e9 / rate);
            if (due > clock_ns(CLOCK_MONOTONIC)) {
                struct timespec ts = { due / 1000000000LL, due % 1000000000LL };
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
            }
        }
    }
    long long t1 = clock_ns(CLOCK_MONOTONIC);
    long long c1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    prctl(PR_SET_NAME, "tpbench_done", 0, 0, 0);
    printf("%ld %lld %lld\n", n, t1 - t0, c1 - c0);
    return 0;
}
