/*
 * tpgen: deterministic kernel-event generator for the QA tests.
 *
 *   tpgen exec N PATH        fork and exec PATH N times, one after the other;
 *                            prints each child's pid
 *   tpgen stamp PATH         exec PATH once; prints "pid before_ns after_ns"
 *                            (CLOCK_REALTIME around the fork/exec/wait)
 *   tpgen getppid N [BURST]  call getppid() N times, pausing 1 ms after each
 *                            BURST calls (default 1000) so the kernel buffer
 *                            never overruns; prints N
 *   tpgen write FD SIZE N    write SIZE bytes to /dev/null, opened as file
 *                            descriptor FD, N times; prints N
 *   tpgen read SIZE N        read SIZE bytes (at most 64 KiB) from /dev/zero N
 *                            times; prints N
 *   tpgen nap N MS           the nanosleep system call (not glibc's
 *                            clock_nanosleep) for MS ms, N times; prints N
 *   tpgen block N MS         sleep N times in the nanosleep system call
 *                            for MS ms, each time until the task has left
 *                            the CPU (a voluntary context switch): a timer
 *                            that ends before the task is off the CPU (a
 *                            slow or emulated machine) gives no
 *                            sched_switch, and that call is made again;
 *                            so exactly N sched_switch events of the task
 *                            with prev_state 1 (S), through do_nanosleep.
 *                            Prints N
 *   tpgen comm NAME          prctl(PR_SET_NAME, NAME): the task's name, as
 *                            task:task_rename shows it (any bytes but NUL);
 *                            prints nothing
 *   tpgen malloc SIZE N      malloc(SIZE) and free it, N times (through a
 *                            pointer the compiler cannot see through, so
 *                            every call is made); prints N
 *   tpgen arrays             call tpgen_arrays(s, u, b), a function for a
 *                            uprobe to read arrays from: s = int32_t[4]
 *                            {-1, 2, -3, INT32_MAX}, u = uint64_t[2] {0,
 *                            UINT64_MAX}, b = int8_t[4] {-128, 0, 127, -1}
 *                            in %rdi, %rsi, %rdx; prints nothing
 *
 * Several commands may follow each other on one command line ("tpgen write
 * 7 100 3 write 9 5000 2"), run in order by one process.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static pid_t run(const char *path)
{
    pid_t pid = fork();
    if (pid == 0) {
        execl(path, path, (char *)NULL);
        _exit(127);
    }
    int st;
    if (pid > 0)
        waitpid(pid, &st, 0);
    return pid;
}

static int usage(void)
{
    fprintf(stderr, "usage: tpgen exec N PATH | stamp PATH | getppid N [BURST] | "
                    "write FD SIZE N | read SIZE N | nap N MS | block N MS | open N PATH | comm NAME | arrays | pingpong N CPU CPU | "
                    "then PATH ARGS...\n");
    return 2;
}

static int do_write(int fd, long size, long n)
{
    static char buf[1 << 16];
    int null = open("/dev/null", O_WRONLY);
    if (null < 0 || size < 0 || size > (long)sizeof(buf) || dup2(null, fd) < 0)
        return usage();
    for (long i = 0; i < n; i++)
        if (write(fd, buf, (size_t)size) != size)
            return 1;
    close(fd);
    if (null != fd)
        close(null);
    printf("%ld\n", n);
    return 0;
}

static int do_read(long size, long n)
{
    static char buf[1 << 16];
    int zero = open("/dev/zero", O_RDONLY);
    if (zero < 0 || size < 0 || size > (long)sizeof(buf))
        return usage();
    for (long i = 0; i < n; i++)
        if (read(zero, buf, (size_t)size) != size)
            return 1;
    close(zero);
    printf("%ld\n", n);
    return 0;
}

/* n opens of path (read-only, close-on-exec), whether it exists or not: the count printed. */
static int do_open(long n, const char *path)
{
    for (long i = 0; i < n; i++) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0)
            close(fd);
    }
    printf("%ld\n", n);
    return 0;
}

static int do_nap(long n, long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    for (long i = 0; i < n; i++)
        syscall(SYS_nanosleep, &t, NULL);
    printf("%ld\n", n);
    return 0;
}

/* The task's voluntary context switches so far (getrusage never sleeps). */
static long voluntary_switches(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nvcsw : -1;
}

static int do_block(long n, long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    for (long i = 0; i < n; i++) {
        long before = voluntary_switches();
        if (before < 0)
            return 1;
        do
            syscall(SYS_nanosleep, &t, NULL);
        while (voluntary_switches() == before);
    }
    printf("%ld\n", n);
    return 0;
}

static void *(*volatile tpgen_malloc)(size_t) = malloc;

static int do_malloc(long size, long n)
{
    for (long i = 0; i < n; i++) {
        void *p = tpgen_malloc((size_t)size);
        if (!p)
            return 1;
        free(p);
    }
    printf("%ld\n", n);
    return 0;
}

/* Where QA 094's uprobe reads three arrays of known values. */
__attribute__((noinline, used)) void tpgen_arrays(const int32_t *s, const uint64_t *u,
                                                  const int8_t *b)
{
    __asm__ volatile("" : : "r"(s), "r"(u), "r"(b) : "memory");
}

static void do_arrays(void)
{
    static const int32_t s[4] = { -1, 2, -3, INT32_MAX };
    static const uint64_t u[2] = { 0, UINT64_MAX };
    static const int8_t b[4] = { -128, 0, 127, -1 };
    tpgen_arrays(s, u, b);
}

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof(set), &set);
}

/*
 * n round trips of a byte between this process, pinned to cpu a, and a
 * child pinned to cpu b: every wakeup of one is followed by its switch-in.
 */
static int do_pingpong(long n, int a, int b)
{
    int there[2], back[2];
    char c = 0;
    if (pipe(there) < 0 || pipe(back) < 0)
        return 1;
    pid_t child = fork();
    if (child == 0) {
        pin(b);
        for (long i = 0; i < n; i++)
            if (read(there[0], &c, 1) != 1 || write(back[1], &c, 1) != 1)
                _exit(1);
        _exit(0);
    }
    pin(a);
    for (long i = 0; i < n; i++)
        if (write(there[1], &c, 1) != 1 || read(back[0], &c, 1) != 1)
            return 1;
    int st;
    waitpid(child, &st, 0);
    printf("%ld\n", n);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

/* One command at argv; the number of words it took, or -1 (usage). */
static int one(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[0], "exec") == 0) {
        for (long i = atol(argv[1]); i > 0; i--)
            printf("%d\n", (int)run(argv[2]));
        return 3;
    }
    if (argc >= 2 && strcmp(argv[0], "stamp") == 0) {
        long long before = now_ns();
        pid_t pid = run(argv[1]);
        long long after = now_ns();
        printf("%d %lld %lld\n", (int)pid, before, after);
        return 2;
    }
    if (argc >= 2 && strcmp(argv[0], "getppid") == 0) {
        bool has_burst = argc > 2 && argv[2][0] >= '0' && argv[2][0] <= '9';
        long n = atol(argv[1]), burst = has_burst ? atol(argv[2]) : 1000;
        struct timespec pause = { 0, 1000000 };
        for (long i = 0; i < n; i++) {
            syscall(SYS_getppid);
            if (burst > 0 && (i + 1) % burst == 0)
                nanosleep(&pause, NULL);
        }
        printf("%ld\n", n);
        return has_burst ? 3 : 2;
    }
    if (argc >= 4 && strcmp(argv[0], "write") == 0)
        return do_write(atoi(argv[1]), atol(argv[2]), atol(argv[3])) ? -1 : 4;
    if (argc >= 3 && strcmp(argv[0], "read") == 0)
        return do_read(atol(argv[1]), atol(argv[2])) ? -1 : 3;
    if (argc >= 3 && strcmp(argv[0], "open") == 0)
        return do_open(atol(argv[1]), argv[2]) ? -1 : 3;
    if (argc >= 3 && strcmp(argv[0], "nap") == 0)
        return do_nap(atol(argv[1]), atol(argv[2])) ? -1 : 3;
    if (argc >= 3 && strcmp(argv[0], "block") == 0)
        return do_block(atol(argv[1]), atol(argv[2])) ? -1 : 3;
    if (argc >= 3 && strcmp(argv[0], "malloc") == 0)
        return do_malloc(atol(argv[1]), atol(argv[2])) ? -1 : 3;
    if (argc >= 2 && strcmp(argv[0], "comm") == 0)
        return prctl(PR_SET_NAME, argv[1], 0, 0, 0) == 0 ? 2 : -1;
    if (strcmp(argv[0], "arrays") == 0) {
        do_arrays();
        return 1;
    }
    if (argc >= 4 && strcmp(argv[0], "pingpong") == 0)
        return do_pingpong(atol(argv[1]), atoi(argv[2]), atoi(argv[3])) ? -1 : 4;
    if (argc >= 2 && strcmp(argv[0], "then") == 0) {    /* exec the rest: PATH ARGS... */
        fflush(stdout);
        execv(argv[1], argv + 1);
        return -1;
    }
    return -1;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    for (int i = 1; i < argc;) {
        int used = one(argc - i, argv + i);
        if (used < 0)
            return usage();
        fflush(stdout);
        i += used;
    }
    return 0;
}
