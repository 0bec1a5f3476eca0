/*
 * Injected failures and test hooks.  See tp_fault.h.  Empty unless built
 * with -DTP_FAULT_INJECTION.
 */
#include "tp_fault.h"

#ifdef TP_FAULT_INJECTION
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* glibc's allocator under its own names: what the interposer hands on to. */
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

static const char *const site_names[TP_NFAULT_SITES] = { "fetch", "store", "resize",
                                                            "streams" };

/* Of every `every` allocations at a site, the last `burst` fail (every 0: none). */
static struct {
    bool loaded;
    unsigned long every[TP_NFAULT_SITES];
    unsigned long burst[TP_NFAULT_SITES];
    unsigned long calls[TP_NFAULT_SITES];
} faults;

static _Thread_local int phase = -1;     /* the site this thread's allocations count for */

/* No allocation here: getenv and strtoul allocate nothing. */
static void load(void)
{
    faults.loaded = true;
    const char *spec = getenv("PMDATRACEPOINT_FAULTS");
    for (const char *p = spec; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : "") {
        for (int i = 0; i < TP_NFAULT_SITES; i++) {
            size_t n = strlen(site_names[i]);
            if (strncmp(p, site_names[i], n) != 0 || p[n] != ':')
                continue;
            char *end;
            faults.every[i] = strtoul(p + n + 1, &end, 10);
            faults.burst[i] = *end == 'x' ? strtoul(end + 1, NULL, 10) : 1;
        }
    }
}

void tp_fault_enter(enum tp_fault_site site)
{
    if (!faults.loaded)
        load();
    phase = (int)site;
}

void tp_fault_leave(void)
{
    phase = -1;
}

static bool fail_now(void)
{
    if (phase < 0)
        return false;
    unsigned long every = faults.every[phase];
    if (!every || ++faults.calls[phase] % every < every - faults.burst[phase])
        return false;
    errno = ENOMEM;
    return true;
}

void *malloc(size_t n)
{
    return fail_now() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    return fail_now() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    return n && fail_now() ? NULL : __libc_realloc(p, n);
}

/* The number in the file named by the variable, or 0. */
static int64_t file_number(const char *var)
{
    const char *path = getenv(var);
    char buf[32];
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return strtoll(buf, NULL, 10);
}

int64_t tp_fault_clock_skew(void)
{
    return file_number("PMDATRACEPOINT_CLOCK_SKEW");
}

bool tp_fault_paused(void)
{
    const char *path = getenv("PMDATRACEPOINT_PAUSE");
    return path && access(path, F_OK) == 0;
}

bool tp_fault_refused(const char *fullname)
{
    const char *refuse = getenv("PMDATRACEPOINT_REFUSE");
    return refuse && strcmp(refuse, fullname) == 0;
}

bool tp_fault_refused_off(const char *fullname)
{
    const char *refuse = getenv("PMDATRACEPOINT_REFUSE_OFF");
    return refuse && strcmp(refuse, fullname) == 0;
}

bool tp_fault_refused_stack_cond(const char *fullname, const char *cond, const char *every)
{
    const char *refuse = getenv("PMDATRACEPOINT_REFUSE_STACK_COND");
    return refuse && cond && strcmp(refuse, fullname) == 0 && strcmp(cond, every) != 0;
}

bool tp_fault_refused_counter(const char *fullname)
{
    const char *refuse = getenv("PMDATRACEPOINT_REFUSE_COUNTER");
    return refuse && strcmp(refuse, fullname) == 0;
}

void tp_fault_slow_start(void)
{
    const char *secs = getenv("PMDATRACEPOINT_START_DELAY");
    for (unsigned left = secs ? (unsigned)strtoul(secs, NULL, 10) : 0; left;)
        left = sleep(left);
}

bool tp_fault_no_stacks(void)
{
    return getenv("PMDATRACEPOINT_NO_STACKS") != NULL;
}

void tp_fault_apply_delay(void)
{
    const char *ms = getenv("PMDATRACEPOINT_APPLY_DELAY_MS");
    unsigned long n = ms ? strtoul(ms, NULL, 10) : 0;
    struct timespec t = { (time_t)(n / 1000), (long)(n % 1000) * 1000000L };
    while (n && nanosleep(&t, &t) < 0 && errno == EINTR)
        continue;
}
#else
typedef int tp_fault_unused;    /* ISO C wants something in a translation unit */
#endif
