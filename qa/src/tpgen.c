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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    fprintf(stderr, "usage: tpgen exec N PATH | stamp PATH | getppid N [BURST]\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "exec") == 0) {
        for (long i = atol(argv[2]); i > 0; i--)
            printf("%d\n", (int)run(argv[3]));
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "stamp") == 0) {
        long long before = now_ns();
        pid_t pid = run(argv[2]);
        long long after = now_ns();
        printf("%d %lld %lld\n", (int)pid, before, after);
        return 0;
    }
    if (argc >= 3 && strcmp(argv[1], "getppid") == 0) {
        long n = atol(argv[2]), burst = argc > 3 ? atol(argv[3]) : 1000;
        struct timespec pause = { 0, 1000000 };
        for (long i = 0; i < n; i++) {
            syscall(SYS_getppid);
            if (burst > 0 && (i + 1) % burst == 0)
                nanosleep(&pause, NULL);
        }
        printf("%ld\n", n);
        return 0;
    }
    return usage();
}
