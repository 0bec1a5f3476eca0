/*
 * The one place that knows which PCP release we build against: PCP 6 passes
 * pmResult to a PMDA's fetch and store callbacks, PCP 7 passes pmdaResult.
 */
#ifndef TP_PCP_COMPAT_H
#define TP_PCP_COMPAT_H

#include <pcp/pmapi.h>

#if PM_VERSION_CURRENT >= PM_VERSION(7, 0, 0)
typedef pmdaResult tp_result;
#else
typedef pmResult tp_result;
#endif

#endif
