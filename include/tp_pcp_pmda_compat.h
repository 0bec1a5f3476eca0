/*
 * The one place that knows which libpcp_pmda we build against (the PMDA
 * side; the PMAPI side is tp_pcp_compat.h): PCP 6 passes pmResult to a
 * PMDA's fetch and store callbacks, PCP 7 passes pmdaResult (pmResult_v2,
 * still a struct timeval).  Nothing else the PMDA uses differs:
 * PMDA_INTERFACE 7, pmdaEvent*, pmdaCache, pmdaSetCommFlags,
 * pmdaAttribute and pmdaSendError are the same in both.
 *
 * A type only; no state, no threads.
 */
#ifndef TP_PCP_PMDA_COMPAT_H
#define TP_PCP_PMDA_COMPAT_H

#include <pcp/pmapi.h>
#include <pcp/pmda.h>

#if PM_VERSION_CURRENT >= PM_VERSION(7, 0, 0)
typedef pmdaResult tp_result;
#else
typedef pmResult tp_result;
#endif

#endif
