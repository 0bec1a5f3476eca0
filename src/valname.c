/*
 * Names for syscall numbers and block devices.  See tp_valname.h.
 */
#include "tp_valname.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "tp_syscalls.inc"          /* syscall_names[], TP_SYSCALL_ARCH: generated */

#define NSYSCALLS (sizeof(syscall_names) / sizeof(syscall_names[0]))

static bool decl_is_dev_t(const char *decl)
{
    return decl && strncmp(decl, "dev_t ", 6) == 0;
}

enum tp_shown tp_valname_shown(const char *system, const char *field, const char *decl,
                               bool syscalls_ok)
{
    if (decl_is_dev_t(decl))
        return TP_SHOWN_DEV;
    if (!syscalls_ok || !system || !field)
        return TP_SHOWN_NUMBER;
    if (strcmp(system, "raw_syscalls") == 0 && strcmp(field, "id") == 0)
        return TP_SHOWN_SYSCALL;
    if (strcmp(system, "syscalls") == 0 && strcmp(field, "__syscall_nr") == 0)
        return TP_SHOWN_SYSCALL;
    return TP_SHOWN_NUMBER;
}

const char *tp_valname_arch(void)
{
    return TP_SYSCALL_ARCH;
}

bool tp_valname_arch_ok(const char *machine)
{
    return machine && strcmp(machine, TP_SYSCALL_ARCH) == 0;
}

bool tp_valname_local_arch_ok(void)
{
    struct utsname u;
    return uname(&u) == 0 && tp_valname_arch_ok(u.machine);
}

const char *tp_syscall_name(int64_t nr)
{
    return nr >= 0 && (uint64_t)nr < NSYSCALLS ? syscall_names[nr] : NULL;
}

size_t tp_valname_dev(const char *devdir, uint64_t dev, char *name, size_t room)
{
    char path[256], target[512];
    if (!devdir || room == 0)
        return 0;
    snprintf(path, sizeof(path), "%s/%u:%u", devdir, tp_dev_major(dev), tp_dev_minor(dev));
    ssize_t n = readlink(path, target, sizeof(target) - 1);
    if (n <= 0)
        return 0;
    target[n] = '\0';
    const char *base = strrchr(target, '/');
    base = base ? base + 1 : target;
    size_t len = strlen(base);
    if (len == 0 || len >= room)
        return 0;
    memcpy(name, base, len + 1);
    return len;
}

static size_t put_number(uint64_t v, bool is_signed, char *out, size_t room)
{
    int w = is_signed ? snprintf(out, room, "%" PRId64, (int64_t)v)
                      : snprintf(out, room, "%" PRIu64, v);
    return w < 0 ? 0 : (size_t)w < room ? (size_t)w : room - 1;
}

static size_t put_dev(uint64_t v, const char *devdir, const char *sep, char *out, size_t room)
{
    char name[64];
    size_t nl = tp_valname_dev(devdir, v, name, sizeof(name));
    int w = nl ? snprintf(out, room, "%u:%u%s(%s)", tp_dev_major(v), tp_dev_minor(v),
                          sep ? sep : "", name)
               : snprintf(out, room, "%u:%u", tp_dev_major(v), tp_dev_minor(v));
    return w < 0 ? 0 : (size_t)w < room ? (size_t)w : room - 1;
}

size_t tp_valname_put(enum tp_shown how, uint64_t v, bool is_signed, const char *devdir,
                      const char *sep, char *out, size_t room)
{
    if (room == 0)
        return 0;
    out[0] = '\0';
    if (how == TP_SHOWN_DEV)
        return put_dev(v, devdir, sep, out, room);
    const char *name = how == TP_SHOWN_SYSCALL ? tp_syscall_name((int64_t)v) : NULL;
    if (!name)
        return put_number(v, is_signed, out, room);
    size_t n = strlen(name);
    n = n < room ? n : room - 1;
    memcpy(out, name, n);
    out[n] = '\0';
    return n;
}
