/*
 * decl: what the PMDA's help text says of an event's field -- its C
 * declaration, offset and size, from the line
 *     "    DECL;    (offset N, size N)"
 * (src/names.c, tp_names_text) -- and, for an array field, the type of its
 * elements: their size and sign, so that its bytes can be shown as numbers.
 *
 * Pure: no PCP, no I/O, no state.  Called by params (aggregate fields, for
 * JSON arrays), by list (-F), and by the unit tests (test/test_client_decl.c).
 */
#ifndef CLIENT_DECL_H
#define CLIENT_DECL_H

#include <stdbool.h>
#include <stddef.h>

#define DECL_MAX 256

struct decl {
    char text[DECL_MAX];        /* "unsigned long args[6]" */
    unsigned offset, size;      /* in the event's record, in bytes */
};

/* The element type of an array: size 0 when unknown. */
struct elem {
    unsigned size;              /* 1, 2, 4 or 8 bytes */
    bool is_signed;
};

/* The declaration in a field's help text; 0, or -1 if there is none. */
int decl_from_help(const char *help, struct decl *d);

/*
 * The element type of an array declaration ("unsigned long args[6]",
 * "__data_loc u8[] buf"), from the type's words:
 *   char, s8, u8, __s8, __u8, int8_t, uint8_t, bool           1 byte
 *   short, s16, u16, __s16, __u16, int16_t, uint16_t          2
 *   int, unsigned, s32, u32, __s32, __u32, int32_t, uint32_t,
 *   pid_t                                                      4
 *   long, long long, s64, u64, __s64, __u64, int64_t, uint64_t,
 *   size_t, ssize_t, any pointer                               8 (64-bit)
 * signed unless "unsigned", a u/__u/uint type, bool, size_t or a pointer;
 * plain char counts as signed.  Anything else (structs, __be16, unknown
 * typedefs), or a declaration that is not an array: size 0.
 */
struct elem decl_element(const char *decl);

#endif
