/*
 * The watcher that cleans up after the PMDA.  See tp_guard.h.
 */
#include "tp_guard.h"
#include "tp_probes.h"
#include "tp_tracefs.h"
#include "tp_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define GUARD_NAME "tpguard"

/* The command line and comm of the watcher: not the PMDA's. */
static void rename_self(int argc, char **argv)
{
    prctl(PR_SET_NAME, GUARD_NAME, 0, 0, 0);
    size_t room = argc > 0 && argv[0] ? strlen(argv[0]) : 0;
    for (int i = 0; i < argc && argv[i]; i++)
        memset(argv[i], 0, strlen(argv[i]));
    if (room)
        memcpy(argv[0], GUARD_NAME, room < sizeof(GUARD_NAME) - 1 ? room
                                                                   : sizeof(GUARD_NAME) - 1);
}

/* Keep only the pipe (as fd 3) and stderr; stdin and stdout on /dev/null. */
static int detach(int rd)
{
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(rd, 3) < 0)
        return -1;
    close_range(4, ~0U, 0);
    return setsid() < 0 ? -1 : 3;
}

/*
 * Returns when every writer of the pipe is gone and the PMDA has exited.
 * The kernel closes an exiting process's files before it makes it a zombie
 * and hands its children to another parent: until then /proc still shows
 * it running, so wait for the new parent too (10 s at most).
 */
static void wait_for_end(int fd, long pid)
{
    char buf[16];
    ssize_t n;
    while ((n = read(fd, buf, sizeof(buf))) != 0)
        if (n < 0 && errno != EINTR)
            return;
    struct timespec tick = { 0, 10 * 1000 * 1000 };
    for (int i = 0; i < 1000 && (long)getppid() == pid; i++)
        nanosleep(&tick, NULL);
}

static void say(long pid, const char *what)
{
    char when[32] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm))
        strftime(when, sizeof(when), "%a %b %e %H:%M:%S", &tm);
    fprintf(stderr, "[%s] " GUARD_NAME "(%d) Info: pmdatracepoint (pid %ld) is gone: %s\n",
            when, (int)getpid(), pid, what);
}

static void clean_up(long pid)
{
    if (tp_process_running(pid, "pmdatracepoint"))
        return;                 /* the pid is another PMDA's already: not ours to touch */
    int inst = tp_instance_remove_of(pid);
    size_t failed = 0, probes = tp_probes_remove_of(pid, &failed);
    char msg[160];
    if (inst == 0 && probes == 0 && failed == 0)
        return;                 /* it cleaned up itself */
    snprintf(msg, sizeof(msg), "%s its instance; %zu probe(s) removed%s",
             inst > 0 ? "removed" : inst < 0 ? "could not remove" : "no",
             probes, failed ? ", some could not be" : "");
    say(pid, msg);
}

static void guard_main(int rd, int argc, char **argv, long pid)
{
    rename_self(argc, argv);
    int fd = detach(rd);
    if (fd >= 0) {
        wait_for_end(fd, pid);
        clean_up(pid);
    }
    _exit(0);
}

int tp_guard_start(int argc, char **argv)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return -errno;
    long pid = (long)getpid();
    fflush(stderr);
    pid_t child = fork();
    if (child < 0) {
        int rc = -errno;
        close(p[0]);
        close(p[1]);
        return rc;
    }
    if (child == 0) {
        close(p[1]);
        guard_main(p[0], argc, argv, pid);
    }
    close(p[0]);                /* p[1] stays open, unused, until this process ends */
    return 0;
}
