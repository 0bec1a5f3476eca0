/*
 * Small shared helpers.  See tp_util.h.
 */
#include "tp_util.h"
#include "tp_clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void tp_logf(tp_log_fn log, void *arg, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    if (!log)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    log(arg, msg);
}

int tp_errf(char *err, size_t errlen, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return code;
}

uint64_t tp_mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int64_t tp_real_offset(void)
{
    struct tp_clock_sample s[TP_CLOCK_SAMPLES];
    size_t n = 0;
    while (n < TP_CLOCK_SAMPLES) {
        struct timespec r;
        struct tp_clock_sample *x = &s[n++];
        x->mono_before = tp_mono_now();
        clock_gettime(CLOCK_REALTIME, &r);
        x->mono_after = tp_mono_now();
        x->real = (uint64_t)r.tv_sec * 1000000000u + (uint64_t)r.tv_nsec;
        if (x->mono_after - x->mono_before <= TP_CLOCK_TIGHT_NS)
            break;
    }
    return tp_clock_sample_offset(s, n);
}

bool tp_process_running(long pid, const char *comm)
{
    char path[64], stat[256] = "";
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    bool ok = fgets(stat, sizeof(stat), f) != NULL;
    fclose(f);
    /* "pid (comm) S ...": comm may hold spaces or ')', so find the last ')'. */
    char *open = strchr(stat, '('), *close = strrchr(stat, ')');
    if (!ok || !open || !close || close < open || close[1] != ' ')
        return false;
    *close = '\0';
    if (comm && strcmp(open + 1, comm) != 0)
        return false;
    return close[2] != 'Z' && close[2] != 'X';
}

int tp_read_text(const char *path, size_t limit, char **out, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t cap = limit < 4096 ? limit : 4096, n = 0;
    char *buf = cap ? malloc(cap) : NULL;
    int rc = buf ? 0 : -ENOMEM;
    while (rc == 0 && n + 1 < limit) {
        if (n + 1 == cap) {
            size_t bigger = cap * 2 < limit ? cap * 2 : limit;
            char *b = realloc(buf, bigger);
            if (!b) {
                rc = -ENOMEM;
                break;
            }
            buf = b;
            cap = bigger;
        }
        ssize_t got = read(fd, buf + n, cap - 1 - n);
        if (got <= 0) {
            rc = got < 0 ? -errno : 0;
            break;
        }
        n += (size_t)got;
    }
    close(fd);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    return 0;
}
