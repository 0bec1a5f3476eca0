/*
 * Small shared helpers.  See tp_util.h.
 */
#include "tp_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

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
