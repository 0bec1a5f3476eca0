/* decl.c: field declarations from the help text (client/decl.h). */
#include "decl.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

int decl_from_help(const char *help, struct decl *d)
{
    static const char lead[] = "\n    ", tail[] = ";    (offset ";
    const char *p = help != NULL ? strstr(help, lead) : NULL;
    const char *end = p != NULL ? strstr(p, tail) : NULL;
    const char *nl = p != NULL ? strchr(p + 1, '\n') : NULL;

    if (end == NULL || (nl != NULL && nl < end))
        return -1;
    p += strlen(lead);
    if ((size_t)(end - p) >= sizeof(d->text) || end == p)
        return -1;
    if (sscanf(end + strlen(tail), "%u, size %u)", &d->offset, &d->size) != 2)
        return -1;
    memcpy(d->text, p, (size_t)(end - p));
    d->text[end - p] = '\0';
    return 0;
}

static const struct { const char *name; unsigned size; bool is_signed; } typedefs[] = {
    { "s8", 1, true }, { "__s8", 1, true }, { "int8_t", 1, true },
    { "u8", 1, false }, { "__u8", 1, false }, { "uint8_t", 1, false },
    { "bool", 1, false }, { "_Bool", 1, false },
    { "s16", 2, true }, { "__s16", 2, true }, { "int16_t", 2, true },
    { "u16", 2, false }, { "__u16", 2, false }, { "uint16_t", 2, false },
    { "s32", 4, true }, { "__s32", 4, true }, { "int32_t", 4, true },
    { "u32", 4, false }, { "__u32", 4, false }, { "uint32_t", 4, false },
    { "pid_t", 4, true },
    { "s64", 8, true }, { "__s64", 8, true }, { "int64_t", 8, true },
    { "u64", 8, false }, { "__u64", 8, false }, { "uint64_t", 8, false },
    { "size_t", 8, false }, { "ssize_t", 8, true },
};

#define WORDS_MAX 8

/* The words of the type in decl, its field name and brackets dropped. */
static int type_words(const char *decl, char words[WORDS_MAX][32], bool *pointer,
                      bool *array)
{
    int n = 0;

    *pointer = *array = false;
    for (const char *p = decl; *p;) {
        if (*p == '[') {
            *array = true;
            p += strcspn(p, "]");
            p += *p == ']';
        } else if (*p == '*') {
            *pointer = true;
            p++;
        } else if (isalpha((unsigned char)*p) || *p == '_') {
            size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                   "0123456789_");
            if (n == WORDS_MAX || len >= sizeof(words[0]))
                return -1;
            memcpy(words[n], p, len);
            words[n++][len] = '\0';
            p += len;
        } else if (isspace((unsigned char)*p)) {
            p++;
        } else {
            return -1;          /* digits outside brackets, other punctuation */
        }
    }
    return n;
}

static bool is(const char *w, const char *name)
{
    return strcmp(w, name) == 0;
}

struct elem decl_element(const char *decl)
{
    static const struct elem unknown = { 0, false };
    char words[WORDS_MAX][32];
    bool pointer, array, is_unsigned = false, is_signed = false;
    int n = type_words(decl, words, &pointer, &array);
    int shorts = 0, longs = 0, chars = 0, ints = 0, other = -1, kept = 0;

    if (n < 2 || !array)
        return unknown;
    n--;                        /* the last word is the field's name */
    if (pointer)
        return (struct elem){ 8, false };
    for (int i = 0; i < n; i++) {
        const char *w = words[i];
        if (is(w, "__data_loc") || is(w, "__rel_loc") || is(w, "const") ||
            is(w, "volatile"))
            continue;
        kept++;
        if (is(w, "unsigned"))
            is_unsigned = true;
        else if (is(w, "signed"))
            is_signed = true;
        else if (is(w, "short"))
            shorts++;
        else if (is(w, "long"))
            longs++;
        else if (is(w, "char"))
            chars++;
        else if (is(w, "int"))
            ints++;
        else if (other < 0)
            other = i;
        else
            return unknown;
    }
    if (is_unsigned && is_signed)
        return unknown;
    if (other >= 0) {
        if (kept != 1)
            return unknown;
        for (size_t i = 0; i < sizeof(typedefs) / sizeof(typedefs[0]); i++)
            if (is(words[other], typedefs[i].name))
                return (struct elem){ typedefs[i].size, typedefs[i].is_signed };
        return unknown;
    }
    if (kept == 0 || ints > 1 || chars + shorts + (longs > 0) > 1 || longs > 2 ||
        (chars && ints))
        return unknown;
    unsigned size = chars ? 1 : shorts ? 2 : longs ? 8 : 4;
    return (struct elem){ size, !is_unsigned };
}
