/*
 * tpbench_blockcat: cat(1) with a blocking stdout.
 *
 *   tpbench_blockcat FILE
 *
 * The logger PMDA gives its `command|` sources a non-blocking pipe; when the
 * PMDA falls behind, cat gets EAGAIN and dies for good.  This clears
 * O_NONBLOCK on stdout and execs cat FILE: the best-tuned form of PCP's
 * logger PMDA tailing trace_pipe (see /work/shared/PCP-NOTES.md).
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: tpbench_blockcat FILE\n");
        return 2;
    }
    int fl = fcntl(1, F_GETFL);
    if (fl >= 0)
        fcntl(1, F_SETFL, fl & ~O_NONBLOCK);
    execl("/bin/cat", "cat", argv[1], (char *)NULL);
    perror("exec cat");
    return 127;
}
