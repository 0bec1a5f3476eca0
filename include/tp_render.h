/*
 * tp_render: an event's text as `trace-cmd report` and `perf script` print
 * it, from its raw bytes and its format's "print fmt", by libtraceevent's
 * print engine (symbolic flags and enums, hex where the format says hex,
 * %pS/%ps through the kernel's symbols).  A function in a module is
 * followed by its module as the kernel's own text has it
 * ("p9_fid_create+0x22 [9pnet]"), which libtraceevent, and so trace-cmd
 * and perf script, leave out.  raw_syscalls:sys_enter and sys_exit name
 * the syscall where trace-cmd prints its number ("NR openat (...)", "NR
 * openat = 3"; the number where the build's table, tp_valname.h, has no
 * name or is not this kernel's architecture).
 *
 * Rendering happens here, in the PMDA, for the records of consumers that
 * ask for the text parameter (tracepoint.param.text): the machine whose
 * kernel made the event has its formats and symbols, so the text is the
 * same for a local client, a remote one and an archive replayed elsewhere,
 * and nobody else pays for it.  The text of a format without arguments
 * (sys_enter_getpid's "") is made once per event and copied after.  A
 * format whose every piece tp_printfmt renders (about seven in ten of a
 * kernel's: the syscalls', sched_switch's...) is made into a program when
 * the event is first met and run for each record, some 5 times faster than
 * libtraceevent's engine and with the same text; the rest, and any record
 * too short for its format, go through libtraceevent.
 *
 * Formats are parsed into this room's own libtraceevent handle the first
 * time an event is rendered.  The kernel's symbols (/proc/kallsyms, into a
 * tp_ksyms table this room owns) and the printk format strings are read
 * once, by tp_render_prepare(), when the first consumer of text appears;
 * until then %pS prints addresses.
 *
 * Threading: PMDA thread only.  tp_render_text() is called with the capture
 * lock held (records are filled under it); it reads a format file the first
 * time it meets an event, and nothing else.
 */
#ifndef TP_RENDER_H
#define TP_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp_catalog.h"
#include "tp_ksyms.h"

#define TP_RENDER_MAX_TEXT 1024     /* longer text is cut at this many bytes */

struct tp_render;

/* tracing_dir: the top of tracefs (for printk_formats).  0 or -ENOMEM. */
int tp_render_create(struct tp_render **out, struct tp_catalog *cat, const char *tracing_dir);
void tp_render_destroy(struct tp_render *r);

/* Read the kernel's symbols and printk formats, once.  0 or a negative errno (logged by the caller). */
int tp_render_prepare(struct tp_render *r);
/* The symbols of kallsyms text (tp_ksyms_create()), in place of any before.  0 or -ENOMEM. */
int tp_render_load_symbols(struct tp_render *r, const char *kallsyms);
/*
 * The kernel's symbols this room loaded (NULL until tp_render_prepare() or
 * tp_render_load_symbols() read them): one table for the text's %pS and the
 * kernel stacks of records (tp_records).  Read only; valid until the next
 * load or destroy.
 */
const struct tp_ksyms *tp_render_symbols(const struct tp_render *r);
/*
 * A stack frame's text as %pS prints it ("func+0x1a", "func+0x1a [mod]",
 * "0x..." without symbols; r may be NULL), into buf: its length, as
 * snprintf returns it.  The texts of recent addresses are kept (1024, by
 * address) until symbols are loaded again (tp_render_load_symbols; the
 * PMDA loads them once, tp_render_prepare).
 */
int tp_render_frame(struct tp_render *r, uint64_t addr, char *buf, size_t size);
/*
 * The catalog event is a new one (a probe slot bound again): its format is
 * read afresh when next needed.  A probe's format is parsed into a handle
 * of its own, freed here, since the kernel may give a new probe the id of
 * a removed one.
 */
void tp_render_forget(struct tp_render *r, size_t event);
/*
 * Whether formats are made into programs (true from create); false: every
 * text by libtraceevent, events already met included.  For comparisons
 * (renderbench) and tests.
 */
void tp_render_use_programs(struct tp_render *r, bool on);

/*
 * The text of catalog event `event` whose raw record (common fields first)
 * is len bytes at data, recorded on cpu: into buf (size bytes, at least 1),
 * NUL-terminated, without a trailing newline.  Returns its length, or a
 * negative errno: -ENOMEM, or the event's format cannot be had (buf then
 * holds "").
 */
int tp_render_text(struct tp_render *r, uint32_t event, const void *data, uint32_t len,
                   int cpu, char *buf, size_t size);

#endif
