/*
 * Injected failures.  See tp_fault.h.  Empty unless built with
 * -DTP_FAULT_INJECTION.
 */
#include "tp_fault.h"

#ifdef TP_FAULT_INJECTION
#include <stdlib.h>
#include <string.h>

static const char *const site_names[TP_NFAULT_SITES] = { "fetch" };

/* Of every `every` calls at a site, the last `burst` fail (every 0: none). */
static struct {
    bool loaded;
    unsigned long every[TP_NFAULT_SITES];
    unsigned long burst[TP_NFAULT_SITES];
    unsigned long calls[TP_NFAULT_SITES];
} faults;

static void load(void)
{
    faults.loaded = true;
    const char *spec = getenv("PMDATRACEPOINT_FAULTS");
    for (const char *p = spec; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : "") {
        for (int i = 0; i < TP_NFAULT_SITES; i++) {
            size_t n = strlen(site_names[i]);
            if (strncmp(p, site_names[i], n) != 0 || p[n] != ':')
                continue;
            char *end;
            faults.every[i] = strtoul(p + n + 1, &end, 10);
            faults.burst[i] = *end == 'x' ? strtoul(end + 1, NULL, 10) : 1;
        }
    }
}

bool tp_fault(enum tp_fault_site site)
{
    if (!faults.loaded)
        load();
    unsigned long every = faults.every[site];
    return every && ++faults.calls[site] % every >= every - faults.burst[site];
}
#else
typedef int tp_fault_unused;    /* ISO C wants something in a translation unit */
#endif
