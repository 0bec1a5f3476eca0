/*
 * tpshow: a fixed mix of kernel events, for the tests of event text.
 *
 *   tpshow [ROUNDS]
 *
 * Prints its pid, waits for a line on stdin (so a test can set its filters
 * first), then ROUNDS times (default 3): getpriority(2) (syscalls and
 * raw_syscalls), kill(2) of itself with SIGUSR1 (signal), a 2 ms nanosleep
 * (sched_switch, timer), a pipe written and read (kmem), and a child that
 * exits with status 3 (sched_process_fork/exit/wait); and at the end renames
 * itself "tpshow-done" (task_rename).  Every event comes from a task whose
 * name starts with "tpshow".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t caught;

static void on_usr1(int sig)
{
    (void)sig;
    caught++;
}

static void one_round(void)
{
    struct timespec nap = { 0, 2 * 1000 * 1000 };
    char buf[64] = "tpshow";
    int fds[2], st;
    (void)getpriority(PRIO_PROCESS, 0);
    kill(getpid(), SIGUSR1);
    syscall(SYS_nanosleep, &nap, NULL);
    if (pipe(fds) == 0) {
        if (write(fds[1], buf, sizeof(buf)) < 0 || read(fds[0], buf, sizeof(buf)) < 0)
            perror("pipe");
        close(fds[0]);
        close(fds[1]);
    }
    pid_t child = fork();
    if (child == 0)
        _exit(3);
    if (child > 0)
        waitpid(child, &st, 0);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    char line[16];
    signal(SIGUSR1, on_usr1);
    printf("%d\n", (int)getpid());
    fflush(stdout);
    if (!fgets(line, sizeof(line), stdin))
        return 1;
    for (int i = 0; i < rounds; i++)
        one_round();
    prctl(PR_SET_NAME, "tpshow-done", 0, 0, 0);
    return caught == rounds ? 0 : 1;
}
