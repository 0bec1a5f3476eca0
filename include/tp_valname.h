/*
 * tp_valname: names for numbers that people read as names -- syscall
 * numbers and block devices -- and which fields carry them.  Shared by the
 * PMDA (aggregation keys, event text) and the client (-R, -F).
 *
 *   syscall  raw_syscalls:* "id" and syscalls:* "__syscall_nr": the name
 *            from a table made at build time from the system's own
 *            <asm/unistd.h> (scripts/syscalls.sh), for the architecture
 *            the program is built for; "getpid", or the number in decimal
 *            where the table has no name.  The kernel publishes no
 *            number-to-name map in tracefs.  The table is used only for
 *            events of a machine of that architecture (tp_valname_arch_ok):
 *            any other source keeps its numbers.
 *   dev      fields declared dev_t: the kernel's internal encoding
 *            (MAJOR = dev >> 20, MINOR = dev & 0xfffff, as block:* print
 *            formats decode it) as "MAJ:MIN", and the device's name where
 *            DEVDIR/MAJ:MIN (/sys/dev/block) is a link to it.
 *
 * Pure, but for tp_valname_dev(), which reads one symbolic link under the
 * directory it is given (NULL: no names).  No state, no allocation:
 * thread-safe.
 */
#ifndef TP_VALNAME_H
#define TP_VALNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TP_VALNAME_DEVDIR "/sys/dev/block"
#define TP_VALNAME_MAX    96        /* room for any text made here, NUL included */

enum tp_shown { TP_SHOWN_NUMBER, TP_SHOWN_SYSCALL, TP_SHOWN_DEV };

/*
 * How field `field` (declared `decl`, as in the format) of an event of
 * `system` is shown.  syscalls: only if syscalls_ok (the events' machine
 * has this table's architecture).
 */
enum tp_shown tp_valname_shown(const char *system, const char *field, const char *decl,
                               bool syscalls_ok);

/* The architecture the syscall table is for ("x86_64"). */
const char *tp_valname_arch(void);
/* Is `machine` (uname -m, kernel.uname.machine) this table's architecture? */
bool tp_valname_arch_ok(const char *machine);
/* Is the running kernel's architecture this table's? */
bool tp_valname_local_arch_ok(void);

/* The name of syscall nr, or NULL if the table has none. */
const char *tp_syscall_name(int64_t nr);

/* dev_t as the kernel encodes it inside. */
static inline unsigned tp_dev_major(uint64_t dev) { return (unsigned)((dev >> 20) & 0xfff); }
static inline unsigned tp_dev_minor(uint64_t dev) { return (unsigned)(dev & 0xfffff); }

/*
 * The device's name under devdir (NULL: none looked up) into name (room
 * bytes): its length, or 0 if none is known.
 */
size_t tp_valname_dev(const char *devdir, uint64_t dev, char *name, size_t room);

/*
 * Value v shown as `how` into out (room bytes, NUL-terminated, cut to fit):
 *   NUMBER  "-1" or "18446744073709551615" (is_signed says which)
 *   SYSCALL "getpid", or the number
 *   DEV     "254:0", then sep and "(vda)" if devdir names it: sep " " gives
 *           "254:0 (vda)", "" gives "254:0(vda)"
 * Returns the length written.
 */
size_t tp_valname_put(enum tp_shown how, uint64_t v, bool is_signed, const char *devdir,
                      const char *sep, char *out, size_t room);

#endif
