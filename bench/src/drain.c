/*
 * tpbench_drain: a reader of one CPU's ftrace buffer that does nothing with
 * what it reads.
 *
 *   tpbench_drain FILE READY
 *
 * Reads FILE (an instance's per_cpu/cpuN/trace_pipe_raw) a sub-buffer at a
 * time, non-blocking, and polls it when it is empty, as the PMDA's producer
 * reads it; discards every page.  Creates READY once FILE is open; on
 * SIGTERM or SIGINT prints the pages and bytes read and exits.  The
 * benchmark runs it beside the generator to measure what a reader that
 * keeps up costs the writer in the kernel, with no work of its own: the
 * physical bound for any capture of the same buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static int mark_ready(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);

    if (fd < 0)
        return -errno;
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    static char page[1 << 16];
    long pages = 0, bytes = 0;
    long size = sysconf(_SC_PAGESIZE);
    struct sigaction sa = { .sa_handler = on_signal };

    if (argc != 3) {
        fprintf(stderr, "usage: tpbench_drain FILE READY\n");
        return 2;
    }
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    int fd = open(argv[1], O_RDONLY | O_NONBLOCK);
    if (fd < 0 || mark_ready(argv[2]) < 0) {
        perror(argv[1]);
        return 1;
    }
    while (!stop) {
        ssize_t n = read(fd, page, (size_t)size);
        if (n > 0) {
            pages++, bytes += n;
        } else if (n == 0 || errno == EAGAIN) {
            struct pollfd p = { .fd = fd, .events = POLLIN };
            poll(&p, 1, 100);
        } else if (errno != EINTR) {
            perror("read");
            return 1;
        }
    }
    printf("%ld %ld\n", pages, bytes);
    return 0;
}
