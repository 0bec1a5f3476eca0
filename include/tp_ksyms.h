/*
 * tp_ksyms: the kernel's symbols, from the text of /proc/kallsyms, modules
 * included ("ffffffffc0a01234 t p9_fid_create\t[9pnet]"), as a table sorted
 * by address: an address to the symbol it falls in, its start and its
 * module, and that symbol as the kernel prints %pS and %ps ("func+0x22
 * [9pnet]", "func [9pnet]"; without the kernel's "/size"), and kernel
 * stacks folded as flame graphs take them (tp_ksyms_fold).
 *
 * Owns the table and a copy of the text the names point into.  A pure
 * room: no PCP library, no tracefs, no files (the caller reads the text),
 * no threads.  Built once, then only read: any number of threads may look
 * up in a table nobody destroys meanwhile.  Called by tp_render (the
 * symbols of %pS/%ps in event text, and the frames of records' stacks,
 * tp_render_frame) and tp_agg (the folded stacks of "by stack", on the
 * producer thread).
 *
 * Which symbol an address is in, as libtraceevent's own table decides:
 * the one with the greatest start at or below it (of several at one start,
 * the first in the text, as the kernel picks); nothing below the first or
 * beyond the last symbol.  Absolute symbols (types A and a) and names
 * starting with '$' (arm's mapping symbols) are left out, as there.
 */
#ifndef TP_KSYMS_H
#define TP_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tp_ksyms;

struct tp_ksym {
    uint64_t addr;          /* where the symbol starts */
    const char *name;
    const char *module;     /* NULL for the kernel's own (vmlinux) symbols */
};

/*
 * The table of kallsyms text (NUL-terminated; the text is copied).  Lines
 * that do not parse are skipped.  0, or -ENOMEM.  A text whose addresses
 * are all zero (kptr_restrict) gives an empty table.
 */
int tp_ksyms_create(struct tp_ksyms **out, const char *text);
void tp_ksyms_destroy(struct tp_ksyms *k);

size_t tp_ksyms_count(const struct tp_ksyms *k);

/* The symbol addr falls in: true and *sym filled, or false. */
bool tp_ksyms_find(const struct tp_ksyms *k, uint64_t addr, struct tp_ksym *sym);

/*
 * addr as the kernel prints it: "name+0xOFF [module]" (with_offset, as
 * %pS) or "name [module]" (as %ps), without " [module]" for vmlinux, or
 * "0x..." when no symbol holds it.  Into buf (size >= 1, always
 * NUL-terminated); returns the length it wanted, as snprintf.
 */
int tp_ksyms_format(const struct tp_ksyms *k, uint64_t addr, bool with_offset,
                    char *buf, size_t size);

/*
 * A kernel stack's frames (n addresses of 8 bytes, innermost first as the
 * kernel_stack entry has them; any alignment) folded: outermost first,
 * ';' between, each frame its function's name without offset, "func[mod]"
 * for a module's, "0x..." where no symbol holds it (k may be NULL).  Into
 * buf (size >= 64), NUL-terminated, at most size - 1 bytes: a stack that
 * does not fit keeps its innermost frames behind "...HHHHHHHHHHHHHHHH;"
 * (16 hex digits of a hash of all its frames' names), so that two
 * different stacks cut to the same frames still differ.  Returns the length.
 */
#define TP_KSYMS_FOLD_CUT 20        /* strlen("...") + 16 + strlen(";") */
size_t tp_ksyms_fold(const struct tp_ksyms *k, const void *frames, unsigned n,
                     char *buf, size_t size);

#endif
