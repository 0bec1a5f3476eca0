/*
 * tp_elfsym: a function symbol of an ELF file to the file offset a uprobe
 * wants.  Owns nothing past the call: it opens the one file it is given,
 * reads its symbol tables and program headers through libelf, and closes it.
 * Called by the dynamic-probe layer (tp_probes) when a uprobe is defined by
 * symbol; one thread at a time (libelf's elf_version() is process-wide).
 *
 * No PCP library, no tracefs.  It never writes, never follows anything but
 * the path (no debuginfo, no build-id lookups), and never blocks on a FIFO
 * or a device.
 */
#ifndef TP_ELFSYM_H
#define TP_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

/*
 * The file offset of function symbol `symbol` in the ELF file at path, for a uprobe
 * (the kernel wants file offsets).  Looks in .symtab, then .dynsym; takes STT_FUNC and
 * STT_GNU_IFUNC symbols that are defined (st_shndx != SHN_UNDEF) and non-zero; a
 * versioned dynamic name matches its bare name ("memcpy@@GLIBC_2.14" is memcpy; an
 * exact name first, then the default version "@@", then any "@").  The symbol's
 * virtual address is turned into a file offset through the PT_LOAD segment that
 * contains it (works for PIE executables, shared libraries and non-PIE executables).
 * 0, or a negative errno with a reason in err:
 *   -ENOENT/-EACCES/... the file cannot be opened (strerror in the reason);
 *   -EINVAL not a regular file (opened O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_NOCTTY, then fstat:
 *           never block on a FIFO or device);
 *   -ENOEXEC not an ELF file, or an ELF of another class/machine than this host, or
 *           not an executable or shared object (ET_EXEC or ET_DYN);
 *   -ESRCH no such function symbol in it;
 *   -ERANGE the symbol is in no loadable segment.
 */
int tp_elf_resolve(const char *path, const char *symbol, uint64_t *offset,
                   char *err, size_t errlen);

#endif
