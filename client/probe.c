/*
 * Names and paths of -u probes.  See probe.h.
 */
#include "probe.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The ':' between PATH and SYMBOL (the last of the first word), or NULL (a kprobe). */
static const char *path_end(const char *spec, size_t *word)
{
    const char *colon = NULL;
    *word = strcspn(spec, " \t");
    for (const char *p = spec; p < spec + *word; p++)
        if (*p == ':')
            colon = p;
    return colon;
}

/* The SYMBOL part of "PATH:SYMBOL[+OFF][%return] ..." (or of a kprobe's first word). */
static void symbol_of(const char *spec, const char **sym, size_t *len)
{
    size_t word;
    const char *colon = path_end(spec, &word);
    *sym = colon ? colon + 1 : spec;
    *len = strcspn(*sym, "+% \t");
    if ((size_t)(*sym - spec) + *len > word)
        *len = word - (size_t)(*sym - spec);
}

void probe_name(const char *spec, unsigned attempt, char name[PROBE_NAME_MAX + 1])
{
    const char *sym;
    size_t len, n = 0;
    char suffix[16] = "";
    symbol_of(spec, &sym, &len);
    bool ret = strstr(spec, "%return") != NULL;
    if (attempt > 0)
        snprintf(suffix, sizeof(suffix), "_%u", attempt + 1);
    size_t room = PROBE_NAME_MAX - strlen(suffix) - (ret ? 4 : 0);
    if (len == 0 || (len > 1 && sym[0] == '0' && sym[1] == 'x'))
        n = (size_t)snprintf(name, room + 1, "probe");
    else
        for (; n < len && n < room; n++)
            name[n] = isalnum((unsigned char)sym[n]) || sym[n] == '_' ? sym[n] : '_';
    if (isdigit((unsigned char)name[0]))
        name[0] = '_';
    snprintf(name + n, PROBE_NAME_MAX + 1 - n, "%s%s", ret ? "_ret" : "", suffix);
}

int probe_spec_local(const char *spec, char *out, size_t size, char *why, size_t whylen)
{
    size_t word;
    const char *colon = path_end(spec, &word);
    if (spec[0] == '/' || !colon) {             /* absolute already, or a kprobe */
        if ((size_t)snprintf(out, size, "%s", spec) >= size)
            goto too_long;
        return 0;
    }
    char rel[PATH_MAX], abs[PATH_MAX];
    size_t n = (size_t)(colon - spec);
    if (n >= sizeof(rel))
        goto too_long;
    memcpy(rel, spec, n);
    rel[n] = '\0';
    if (!realpath(rel, abs)) {
        snprintf(why, whylen, "%s: %s", rel, strerror(errno));
        return -1;
    }
    if ((size_t)snprintf(out, size, "%s%s", abs, colon) >= size)
        goto too_long;
    return 0;
too_long:
    snprintf(why, whylen, "probe spec too long");
    return -1;
}
