/*
 * tp_printfmt: an event's print format made into a small program, run
 * over a record without libtraceevent's print engine, for the formats whose
 * every piece it renders exactly as libtraceevent does.
 *
 * libtraceevent evaluates each record's arguments by walking their parse
 * trees, parses __print_flags/__print_symbolic values with strtoull for
 * every record, and prints through a growing trace_seq: about 1 to 2 us a
 * record for a format with arguments.  The program holds what does not
 * change from record to record (field offsets and sizes, casts as masks,
 * flag values as numbers, each conversion's printf spec) and is run with
 * snprintf into the caller's buffer.
 *
 * What is made into a program: literal text; conversions d i u x X o
 * (flags # - + 0, width, precision, either given as '*' by an argument,
 * h hh l ll L z) of numeric arguments, s of strings, p of pointers, pS ps
 * pF pf of kernel addresses (the symbol, as the kernel prints it, from a
 * tp_ksyms table), pI4 pi4 pI6 pi6 pI6c pISpc of network addresses
 * (tp_netaddr.h) and pU of UUIDs.  Numeric arguments: REC->field (1, 2, 4
 * or 8 bytes), REC->field[N] (an element of 1, 2, 4 or 8 bytes, N a
 * number), numbers, casts, the operators ! ~ * / % + - << >> < <= > >=
 * == != & | && || and ?:.  String arguments: string literals, char arrays,
 * __get_str, __print_flags, __print_symbolic (their values numbers, or
 * names as libtraceevent reads them: the few it knows, -1 for the rest),
 * __print_hex and __print_hex_str of a field, and ?: between them.  Anything else (%pM MACs, %ph hex dumps, flags or
 * widths of %p, %c, computed indexes, dynamic arrays, bitmasks, helper
 * functions, plugin handlers) is declined: the caller keeps libtraceevent
 * for that event.
 *
 * Pure: no tracefs, no state beyond the program; compiling reads the
 * event libtraceevent parsed, running reads the symbol table it is given.
 * Threading: a program is read-only once made.
 */
#ifndef TP_PRINTFMT_H
#define TP_PRINTFMT_H

#include <stddef.h>
#include <stdint.h>

struct tep_event;
struct tp_ksyms;
struct tp_printfmt;

/*
 * The program for ev's print format: 0 and *out, -EOPNOTSUPP if the format
 * has something it does not render (libtraceevent must), or -ENOMEM.
 */
int tp_printfmt_compile(const struct tep_event *ev, struct tp_printfmt **out);

/*
 * The text of the record data[0, len) in buf (size > 0 bytes, always
 * NUL-terminated, cut at size - 1): its length.  Symbols are looked up in
 * syms (NULL or empty: printed as "0x..." numbers, as libtraceevent prints
 * them without symbols).  -ERANGE if the record is
 * too short for a field the format reads, or a string in it has no NUL:
 * render it with libtraceevent.
 */
int tp_printfmt_run(const struct tp_printfmt *p, const struct tp_ksyms *syms, const void *data,
                    uint32_t len, char *buf, size_t size);

void tp_printfmt_free(struct tp_printfmt *p);

#endif
