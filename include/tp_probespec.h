/*
 * tp_probespec: the text of a dynamic probe (a uprobe or a kprobe) as a
 * user writes it, checked and turned into what the kernel's uprobe_events
 * and kprobe_events want: the probe's place (path, symbol, offset, return)
 * and its fetchargs, with $argN mapped to the registers of the calling
 * convention.  Used by the dynamic-probe layer (tp_probes) when a probe is
 * defined, from the config or from a store; any thread, no state.
 *
 * Pure: no PCP library, no tracefs, no file access.  It never resolves a
 * symbol (tp_elfsym does, for uprobes), and never checks that a register
 * exists or that the kernel will accept the probe: it rejects what is
 * malformed, early and with a precise reason.
 *
 * Grammar (words separated by spaces or tabs; no newlines or control bytes):
 *
 *   uprobe:   PATH:SYMBOL[+OFFSET][%return] [NAME=FETCHARG[:TYPE] ...]
 *   kprobe:   SYMBOL[+OFFSET][%return] [NAME=FETCHARG[:TYPE] ...]
 *
 *   PATH      absolute, at most 4095 bytes, split from SYMBOL at the last ':'
 *   SYMBOL    [A-Za-z_.$@][A-Za-z0-9_.$@]*, at most 255 bytes; or an address
 *             0xHEX (a uprobe's file offset, a kprobe's kernel address; no
 *             +OFFSET after it)
 *   OFFSET    decimal or 0xHEX
 *   FETCHARG  $argN (N from 1: x86_64 %di %si %dx %cx %r8 %r9, arm64 %x0..%x7;
 *             not on a %return probe), $retval (%return only), $comm,
 *             $stack, $stackN (N 0..2047), %REG ([a-z0-9]{1,8}), or
 *             +OFF(FETCHARG) / -OFF(FETCHARG) (OFF decimal or 0xHEX, written
 *             back in decimal; at most 4 deep; not of $comm)
 *   TYPE      s8 s16 s32 s64 u8 u16 u32 u64 x8 x16 x32 x64 string ustring, or
 *             an integer type with a count 1..64: u8[16].  $comm takes no
 *             type or string.  string, ustring and arrays read memory: on
 *             $argN or %REG they read where the register points (written
 *             +0(%di)); on $retval and $stack* they need an explicit +0(...).
 *   NAME      tp_probe_name_ok, unique in the spec, not common_* nor __*.
 */
#ifndef TP_PROBESPEC_H
#define TP_PROBESPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TP_PROBE_SPEC_MAX  1024   /* bytes of a spec, NUL excluded */
#define TP_PROBE_NAME_MAX  32     /* a probe's or an argument's name */
#define TP_PROBE_MAX_ARGS  16

enum tp_probe_kind { TP_PROBE_UPROBE, TP_PROBE_KPROBE };
enum tp_probe_arch { TP_ARCH_NONE, TP_ARCH_X86_64, TP_ARCH_ARM64 };
/* The arch this binary was built for (TP_ARCH_NONE elsewhere: $argN refused). */
enum tp_probe_arch tp_probe_host_arch(void);

struct tp_probe_arg {
    char name[TP_PROBE_NAME_MAX + 1];
    char *fetch;    /* kernel fetcharg with $argN already mapped: "%di", "+0(%dx)", "$retval", "$comm" */
    char *type;     /* "s32", "x64", "string", "ustring", "u8[16]"... or NULL (kernel default) */
};

struct tp_probe_spec {
    enum tp_probe_kind kind;
    char *path;         /* uprobe: absolute path of the ELF file; kprobe: NULL */
    char *symbol;       /* function symbol; NULL when the spec gave an address (0x...) */
    uint64_t offset;    /* +OFFSET after the symbol, or the address itself */
    bool is_return;     /* %return */
    struct tp_probe_arg *args;
    unsigned nargs;
};

/* Is s a valid probe or argument name: [A-Za-z_][A-Za-z0-9_]*, 1..TP_PROBE_NAME_MAX bytes. */
bool tp_probe_name_ok(const char *s);
/*
 * Parse text into *out (zeroed first).  0, or a negative errno with a one-line
 * reason in err (printable ASCII only: any user text quoted in it is cut to 64 bytes,
 * non-printable bytes shown as '?'), and *out left empty (nothing to free):
 *   -E2BIG spec too long or too many args; -EINVAL anything malformed;
 *   -ENOTSUP $argN on an arch with no mapping (TP_ARCH_NONE) or N beyond the ABI's registers;
 *   -ENOMEM.
 */
int tp_probespec_parse(const char *text, enum tp_probe_kind kind, enum tp_probe_arch arch,
                       struct tp_probe_spec *out, char *err, size_t errlen);
void tp_probespec_free(struct tp_probe_spec *s);   /* accepts NULL and empty specs */
/* The fetchargs of the kernel definition, "a=%di:s32 b=+0(%dx):ustring" ("" if none): malloc'd into *out. 0 or -ENOMEM. */
int tp_probespec_fetchargs(const struct tp_probe_spec *s, char **out);

#endif
